"""What the parts of the play window know of the table they serve.

Each part of the play scene (the drag, ruler, sight, engage and hint tools, the bot, the
menus, the files, the layers, the sidebar ...) types its scene as :class:`Table`: the game
and what is derived from it, the camera and painter, the selection and hover, and the
calls that change or report (``act``, ``refuse``, ``note``). A part that needs a sibling
part gets it from :class:`~game.ui.scenes.play.scene.PlayScene`'s constructor; no part
reaches through the table for another. The scene is the one Table.
"""

from __future__ import annotations

from typing import Any, Protocol

import pygame

from game.engine.errors import IllegalAction
from game.engine.game import Game
from game.engine.geometry import Board
from game.engine.model import GameState, Scenario
from game.engine.params import Ruleset
from game.ui.camera import Camera
from game.ui.render import BoardPainter
from game.ui.scenes.base import Scene, Window
from game.ui.scenes.play.engine_view import EngineView


class Table(Protocol):
    """The play scene as its parts see it."""

    app: Window
    elements: list[Any]
    #: The scene under the table (the editor that opened the game), or None.
    below: Scene | None
    game: Game
    #: Where the game came from (a scenario or a save): where it autosaves.
    source: str
    board: Board
    painter: BoardPainter
    camera: Camera
    engine: EngineView
    #: Bumped at every change of the game state: the key of the parts' caches.
    version: int
    selected: str | None
    hover_unit: str | None
    hover_token: str | None
    #: How drags go down ledges: "climb" (M6) or "jump" (M9).
    descend: str
    #: The last refusal shown on the table: (rule, reason, when).
    refusal: tuple[str, str, float] | None
    #: The message shown on the table for a moment: (text, when).
    toast: tuple[str, float] | None

    @property
    def state(self) -> GameState: ...

    @property
    def scenario(self) -> Scenario: ...

    @property
    def rs(self) -> Ruleset: ...

    @property
    def notes(self) -> list[tuple[int, str, str]]: ...

    @property
    def view_rect(self) -> pygame.Rect: ...

    @property
    def ui_visible(self) -> bool: ...

    def act(self, action: dict, by_bot: bool = False) -> bool:
        """Apply one action through the engine; a refusal is shown and logged. True if applied."""

    def refuse(self, exc: IllegalAction, action: dict | None = None) -> None:
        """Show and log a refusal with its rule."""

    def note(self, text: str, kind: str = "info", log: bool = True) -> None:
        """A message on the table for a moment (with ``log``: in the log and the game's notes)."""

    def unit_info(self, uid: str) -> dict: ...

    def unit_at(self, px: float, py: float) -> str | None: ...

    def token_at(self, px: float, py: float) -> str | None: ...

    def is_enemy(self, uid: str, other: str) -> bool: ...

    def acts_now(self, uid: str) -> bool: ...

    def in_view(self, pos) -> bool: ...

    def command(self, cmd: str) -> None: ...

    def replace_game(self, game: Game, source: str, first: bool = False) -> None: ...

    def apply_dice_mode(self) -> None: ...

    def autosave(self) -> None: ...

    def pause_autosave(self) -> None: ...

    def after_change(self, before_player: int | None = None) -> None: ...

    def end_step(self) -> None: ...

    def undo(self) -> None: ...

    def redo(self) -> None: ...

    def cancel(self) -> None: ...

    def back(self) -> None: ...

    def fit(self) -> None: ...
