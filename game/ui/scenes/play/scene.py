"""The play scene: one game on the table, hot-seat or solo.

A client of the engine: the only way it changes the game is ``game.apply(action)``
(through :meth:`PlayScene.act`); everything else reads ``game.state`` and draws. Rule
questions go through :mod:`game.ui.scenes.ask`. The scene routes input to its parts,
each with one job: the drag tool (moving units), the ruler, the menus and decisions,
the game files, the board layers (drawing) and the sidebar (banner, card, tray, log).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Callable

import pygame

from game.engine.errors import IllegalAction
from game.ui import theme, userdata
from game.ui.keymap import PLAY
from game.ui.render import BoardPainter, Camera
from game.ui.scenes import ask
from game.ui.scenes.base import Scene
from game.ui.scenes.overlays import HandoverScene, WinnerScene
from game.ui.scenes.play.autosave import Autosave
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.controls import PlayControls
from game.ui.scenes.play.drag import DragTool
from game.ui.scenes.play.engage import EngageTool
from game.ui.scenes.play.engine_view import EngineView
from game.ui.scenes.play.files import GameFiles
from game.ui.scenes.play.hints import HintTool
from game.ui.scenes.play.layers import BoardLayers
from game.ui.scenes.play.menus import PlayMenus
from game.ui.scenes.play.phase_hint import HINT_H
from game.ui.scenes.play.pointer import Pointer
from game.ui.scenes.play.rule_tips import RuleTips
from game.ui.scenes.play.ruler import RulerTool
from game.ui.scenes.play.sight_tool import SightTool
from game.ui.scenes.play.sidebar import BANNER_H, SIDEBAR_W, Sidebar
from game.ui.scenes.play.words import action_words, game_summary

SNAP_PX = 10  # a click this close to a base or token hits it


class PlayScene(Scene):
    """Hot-seat or solo play of one game."""

    title = "Speedheim Table"

    def __init__(self, app, game, source: str):
        super().__init__(app)
        #: The scene under this one (the editor that opened the game), or None.
        self.below: Scene | None = app.top
        self.camera = Camera()
        self.selected: str | None = None
        self.hover_token: str | None = None
        self.hover_unit: str | None = None
        self.descend = "climb"  # how drags go down ledges: climb (M6) or jump (M9); J toggles
        self.refusal: tuple[str, str, float] | None = None  # rule, reason, time shown
        self.toast: tuple[str, float] | None = None
        self.version = 0
        self._winner_shown = False
        # The parts: each gets the table (this scene) and the sibling parts it works with.
        self.autosaves = Autosave(self, lambda: self.bot.seats)
        self.engine = EngineView()
        self.drag_tool = DragTool(self)
        self.ruler_tool = RulerTool(self)
        self.sight_tool = SightTool(self)
        self.engage_tool = EngageTool(self, self.drag_tool, self.ruler_tool)
        self.bot = BotPlayer(self)
        self.hint_tool = HintTool(self, self.bot)
        self.menus = PlayMenus(self, self.engage_tool, self.bot)
        self.files = GameFiles(self, self.bot)
        self.sidebar = Sidebar(self, self.bot)
        self.rule_tips = RuleTips(self, self.sidebar)
        self.layers = BoardLayers(
            self,
            bot=self.bot,
            sight_tool=self.sight_tool,
            hint_tool=self.hint_tool,
            drag_tool=self.drag_tool,
            engage_tool=self.engage_tool,
            ruler_tool=self.ruler_tool,
            rule_tips=self.rule_tips,
        )
        self.pointer = Pointer(self, self.sidebar, self.drag_tool, self.menus, self.ruler_tool)
        self.controls = PlayControls(
            self,
            bot=self.bot,
            files=self.files,
            menus=self.menus,
            rule_tips=self.rule_tips,
            ruler_tool=self.ruler_tool,
            sight_tool=self.sight_tool,
            hint_tool=self.hint_tool,
            drag_tool=self.drag_tool,
        )
        self.commands: dict[str, Callable[[], Any]] = self.controls.table
        self.replace_game(game, source, first=True)

    # --- the game ------------------------------------------------------------------------
    @property
    def state(self):
        return self.game.state

    @property
    def scenario(self):
        return self.game.scenario

    @property
    def rs(self):
        return self.game.scenario.ruleset

    @property
    def notes(self) -> list[tuple[int, str, str]]:
        """The log's remarks (bot reasons, notes): the game's own, so saves keep them."""
        return self.game.notes

    def replace_game(self, game, source: str, first: bool = False) -> None:
        self.game = game
        self.source = source
        self.autosaves.follow(source)
        self.board = game.board
        self.painter = BoardPainter(game.scenario, self.board)
        self.engine.use(game)  # the movement engine is prepared after the first frame
        self.selected = None
        self.drag_tool.cancel()
        self.ruler_tool.ruler = None
        self.sight_tool.reset()
        self.engage_tool.reset()
        self.hint_tool.reset()
        self.bot.reset()
        self.menus.reset()
        self._winner_shown = False
        self.apply_dice_mode()
        self.changed()
        if not first:
            self.fit()

    def apply_dice_mode(self) -> None:
        # Dice remember a physical roll (Dice.prompted), so saves keep every value after one.
        self.game.dice.prompt = self._physical_die if self.app.settings.get("dice") == "physical" else None

    def _physical_die(self, sides: int, reason: str) -> int:
        return self.app.ask_number(
            f"Roll a d{sides}", f"Roll a d{sides} and type the result (Esc: let the table roll).\n{reason}", 1, sides
        )

    def changed(self) -> None:
        """The game state changed (an action, undo, redo, load)."""
        self.version += 1
        self.engine.forget()
        if self.selected and (self.selected not in self.state.units or not self.state.units[self.selected].on_table):
            self.selected = None

    def unit_info(self, uid: str) -> dict:
        """Walk and run allowance of a unit, or why not (for the card and the preview)."""
        return self.engine.unit_info(uid, self.version)

    def act(self, action: dict, by_bot: bool = False) -> bool:
        """Apply one action; a refusal is shown and logged with its rule. True if applied.
        The player's own actions are refused while a bot plays the side to act."""
        blocked = self.bot.blocks(by_bot)
        if blocked is not None:
            self.refuse(blocked, action)
            return False
        before_player = self.state.player
        self.engine.ready()  # never let the game build a second movement engine meanwhile
        try:
            with self.engine.lock:
                result = self.game.apply(action)
        except IllegalAction as exc:
            self.refuse(exc, action)
            return False
        self.refusal = None
        self.changed()
        self.autosave()
        self.menus.queue_reports(result, quiet=by_bot)
        self.after_change(before_player)
        return True

    def refuse(self, exc: IllegalAction, action: dict | None = None) -> None:
        self.refusal = (exc.rule, exc.reason, time.monotonic())
        what = f" {action_words(action)}" if action else ""
        self.note(f"refused{what}: {exc.rule}: {exc.reason}", "refusal")

    def note(self, text: str, kind: str = "info", log: bool = True) -> None:
        """A message on the table for a moment; with ``log`` also in the log panel, and
        in the game's notes, which the autosave keeps (once this scene autosaves: not
        while the window still asks whether to resume the autosave)."""
        if log:
            self.game.note(text, kind)
            if self.autosaves.on:
                self.autosave()
        self.toast = (text, time.monotonic())

    def pause_autosave(self) -> None:
        """Notes no longer autosave until the next action, undo or redo does (a finished
        game opened to look at must not replace the autosave of a game in progress)."""
        self.autosaves.on = False

    def autosave(self) -> None:
        """After every action and note: the save is built now, written by a worker thread
        (see :class:`~game.ui.scenes.play.autosave.Autosave`)."""
        self.autosaves.save()

    def after_change(self, before_player: int | None = None) -> None:
        """Winner screen, hand-over screen."""
        if self.check_winner():
            return
        p = self.state.player
        if self.bot.seats:  # against a bot (or a demo) there is nobody to hand over to
            return
        if before_player is not None and p != before_player and p in (1, 2) and self.app.settings.get("handover", True):
            self.show_handover(p)

    def check_winner(self) -> bool:
        outcome = ask.outcome(self.game)
        if outcome is None:
            self._winner_shown = False
            return False
        if not self._winner_shown:
            self._winner_shown = True
            title, lines = game_summary(self.game, outcome)
            colour = self.painter.warband_colour(outcome.winner) if outcome.winner else theme.INK
            self.app.push(WinnerScene(self.app, title, lines, colour, self._winner_choice))
        return True

    def _winner_choice(self, value: str) -> None:
        if value == "undo":
            self.command("undo")
        elif value == "quit":
            self.app.quit()
        elif value == "new":
            from game.engine.dice import Dice
            from game.engine.game import Game

            self.replace_game(Game(self.game.scenario, dice=Dice(seed=random.randrange(1, 10**9))), self.source)
            self.autosave()
            self.note("a new game on the same table")

    def show_handover(self, player: int) -> None:
        self.drag_tool.cancel()
        self.selected = None  # the next player starts with a clean table
        w = self.scenario.warband_of_player(player)
        name = (w.name or w.id) if w else f"Player {player}"
        colour = self.painter.warband_colour(w.id) if w else theme.INK
        skip = self.commands["handover"] if ask.alternating(self.game) else None  # O2: one per activation
        self.app.push(HandoverScene(self.app, player, name, colour, on_skip=skip))

    def back(self) -> None:
        """Leave the game for the scene that opened it (the editor), as it was left."""
        if self.below is None or self.below not in self.app.scenes:
            self.note("this game was not started from the map editor", log=False)
            return
        userdata.flush_autosave()
        self.app.pop_to(self.below)

    # --- layout --------------------------------------------------------------------------
    @property
    def view_rect(self) -> pygame.Rect:
        w, h = self.app.size
        top = BANNER_H + HINT_H  # the banner, then the phase hint's strip
        return pygame.Rect(0, top, w - SIDEBAR_W, h - top)

    def fit(self) -> None:
        self.camera.fit(self.scenario.width, self.scenario.height, self.view_rect, margin=30)

    def enter(self) -> None:
        self.fit()
        self.sidebar.build()

    def leave(self) -> None:
        super().leave()
        self.drag_tool.stop()
        self.sight_tool.stop()
        self.engage_tool.stop()
        self.hint_tool.stop()
        self.bot.stop()
        self.engine.ready()  # the movement engine's thread must not outlive the window

    def resize(self, size) -> None:
        self.kill_all(self.elements)
        self._ui_visible = True
        self.sidebar.build()
        self.fit()

    # --- commands ------------------------------------------------------------------------
    def command(self, cmd: str) -> None:
        self.commands[cmd]()

    def end_step(self) -> None:
        self.drag_tool.cancel()
        self.act({ask.end_kind(self.game): {}})

    def undo(self) -> None:
        self.drag_tool.cancel()
        if not self.game.can_undo:
            self.note("nothing to undo", "info", log=False)
            return
        what = action_words(self.game.log[-1].action) if self.game.log else "the last action"
        with self.engine.lock:
            self.game.undo()
        self.bot.undone()
        self.changed()
        self.autosave()
        self.note(f"undone: {what}", "info")
        self.check_winner()

    def redo(self) -> None:
        self.drag_tool.cancel()
        if not self.game.can_redo:
            self.note("nothing to redo", "info", log=False)
            return
        with self.engine.lock:
            self.game.redo()
        self.changed()
        self.autosave()
        what = action_words(self.game.log[-1].action) if self.game.log else "an action"
        self.note(f"redone: {what}", "info")
        self.check_winner()

    def cancel(self) -> None:
        """Esc: a pinned rule tip, else the drag, else the ruler, else the selection; then offer
        to go back to the editor."""
        if self.rule_tips.close():
            pass
        elif self.drag_tool.drag is not None:
            self.drag_tool.cancel()
        elif self.ruler_tool.cancel():
            pass
        elif self.selected is not None or self.below is None:
            self.selected = None
        else:
            self.menus.confirm_back()

    # --- hit tests -----------------------------------------------------------------------
    def unit_at(self, px: float, py: float) -> str | None:
        x, y = self.camera.to_in(px, py)
        best, best_d = None, 1e9
        tol = self.camera.inches(SNAP_PX)
        for u in self.state.units.values():
            if not u.on_table:
                continue
            d = math.hypot(u.x - x, u.y - y) - u.r
            if d <= tol and d < best_d:
                best, best_d = u.id, d
        return best

    def token_at(self, px: float, py: float) -> str | None:
        x, y = self.camera.to_in(px, py)
        tol = self.camera.inches(SNAP_PX)
        for t in self.state.treasure.values():
            if not t.carried_by and math.hypot(t.x - x, t.y - y) - t.r <= tol:
                return t.id
        return None

    def is_enemy(self, uid: str, other: str) -> bool:
        """``other`` is a unit of another warband still in the game (a target for ``uid``)."""
        units = self.state.units
        u, o = units.get(uid), units.get(other)
        return u is not None and o is not None and u.active and o.active and u.warband != o.warband

    def acts_now(self, uid: str) -> bool:
        """``uid`` belongs to the player whose decision the game waits for."""
        u = self.state.units.get(uid)
        w = self.scenario.warband_of_player(self.game.turn_player())
        return u is not None and w is not None and u.warband == w.id

    def in_view(self, pos) -> bool:
        return self.view_rect.collidepoint(pos)

    # --- events --------------------------------------------------------------------------
    def handle_ui_event(self, event) -> bool:
        cmd = self.sidebar.command_of(event)
        if cmd is not None:
            self.command(cmd)
            return True
        return False

    def handle_event(self, event):
        if event.type == pygame.KEYDOWN:
            cmd = PLAY.command_for(event)
            if cmd:
                self.command(cmd)
                return None
            return event
        if self.rule_tips.handle(event):
            return None
        return self.pointer.handle(event)

    def on_error(self, text: str) -> None:
        self.drag_tool.cancel()
        self.pointer.pan_from = None

    # --- frame ---------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        self.drag_tool.update()
        self.sight_tool.update()
        self.engage_tool.update()
        self.hint_tool.update()
        self.bot.update(dt)
        self.menus.update()
        self.autosaves.poll()
        self.check_winner()

    def draw(self, surface: pygame.Surface) -> None:
        self.layers.draw(surface)
        self.sidebar.draw(surface)
        self.rule_tips.draw(surface)
        if not self.engine.prepared:
            self.engine.prepare()
