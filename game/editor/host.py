"""What the editor's parts know of the scene that holds them.

The board tools, the overlay, the chrome, the properties and problems panels and the file
operations each type their scene as :class:`EditorHost`: the document, the camera and
painter, the editing state (tool, selection, active warband ...) and the few calls that
report to the status bar. :class:`~game.editor.scene.EditorScene` is the one host; a part
that needs a sibling part gets it from the scene's constructor.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

import pygame

from game.editor.document import Document
from game.editor.edits import Ref
from game.ui.camera import Camera
from game.ui.render import BoardPainter
from game.ui.scenes.base import Window


class EditorHost(Protocol):
    """The editor scene as its parts see it."""

    app: Window
    elements: list[Any]
    doc: Document
    camera: Camera
    painter: BoardPainter
    tool: str
    kind: str
    selection: list[Ref]
    highlight: Ref | None
    mouse_px: tuple[int, int]
    message: str
    message_bad: bool
    failed: bool
    warband: str | None
    entry: int
    token_event: str
    wall_thickness: float

    @property
    def size(self) -> tuple[int, int]: ...

    @property
    def view(self) -> pygame.Rect:
        """The table's part of the window."""

    @property
    def panel(self) -> pygame.Rect:
        """The right-hand panel's part of the window."""

    def to_in(self, pos) -> tuple[float, float]: ...

    def say(self, text: str, bad: bool = False) -> None:
        """Put ``text`` in the status bar (``bad``: as a refusal)."""

    def attempt(self, fn: Callable, *args, **kwargs) -> Any:
        """Run a document command; a refusal becomes the status message and sets ``failed``."""

    def select(self, refs: list[Ref]) -> None: ...
