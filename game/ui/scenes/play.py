"""The play scene: the table, selection, drag-to-move, the ruler, phases and dialogs.

A client of the engine: the only way it changes the game is ``game.apply(action)``
(through :meth:`PlayScene.act`); everything else reads ``game.state`` and draws.
Rule numbers (ring radii, ranges) come from ``scenario.ruleset``.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton

from game.engine.errors import IllegalAction
from game.ui import keymap, theme, userdata
from game.ui.render import BoardPainter, Camera
from game.ui.scenes.base import Scene
from game.ui.scenes.planner import PlanWorker
from game.ui.scenes.play_text import (get_field, build_log, describe_action, game_summary, pending_choices, pending_text,
                                      unit_menu_items)
from game.ui.widgets import panels
from game.ui.widgets import text as T
from game.ui.widgets.dialogs import ChoiceDialog, ContextMenu, TextPrompt
from game.ui.widgets.log_view import LogView
from game.ui.widgets.overlays import GREEN, RED, YELLOW, check_icon, dashed, label, render_reach

BANNER_H = 40
SIDEBAR_W = 350
DRAG_START_PX = 5
SNAP_PX = 10
PREVIEW_STEP = 0.05  # inches: the preview path is replanned when the cursor moves this far

RULER = (20, 20, 20)
RULER_BG = (255, 250, 210)


# --- small state records -------------------------------------------------------------------
@dataclass
class Anchor:
    """One end of the ruler: a point, or a unit/token it snapped to."""

    x: float
    y: float
    r: float = 0.0
    label: str = ""


@dataclass
class Ruler:
    a: Anchor
    b: Anchor
    dragging: bool = True


@dataclass
class Preview:
    kind: str | None  # "move" | "run" | None (illegal)
    action: dict | None
    path: list[tuple[float, float]]
    cost: float = 0.0
    walk: float = 0.0  # walk allowance
    run: float | None = None  # run allowance (None: run denied)
    checks: list[tuple[float, float, str]] = field(default_factory=list)
    error: IllegalAction | None = None


@dataclass
class Drag:
    uid: str
    start_px: tuple[int, int]
    origin: tuple[float, float]
    cursor: tuple[float, float]
    active: bool = False
    waypoints: list[tuple[float, float]] = field(default_factory=list)
    descend: str = "climb"
    preview: Preview | None = None
    key: tuple | None = None


def _num(v: Any, default: float = 0.0) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def allowance_inches(a: Any) -> float:
    """Inches of an Allowance (engine object, dict or number), before the M12 penalty."""
    if a is None:
        return 0.0
    if isinstance(a, (int, float)):
        return float(a)
    if isinstance(a, dict):
        return _num(a.get("inches", a.get("total", 0.0)))
    return _num(getattr(a, "inches", 0.0))


def plan_points(plan: Any) -> list[tuple[float, float]]:
    pts = getattr(plan, "points", None)
    if pts is None and hasattr(plan, "to_dict"):
        pts = plan.to_dict().get("path")
    return [(float(p[0]), float(p[1])) for p in pts or []]


def plan_checks(plan: Any) -> list[tuple[float, float, str]]:
    """Icons along a path: every height change that is not free (climb, jump, ladder)."""
    out = []
    for t in getattr(plan, "transitions", ()) or ():
        if t.kind == "free":
            continue
        out.append((float(t.at[0]), float(t.at[1]), t.kind))
    return out


def path_length(pts: list[tuple[float, float]]) -> float:
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:]))


def split_path(pts: list[tuple[float, float]], cuts: list[float], total_cost: float) -> list[list[tuple[float, float]]]:
    """Split a polyline at costs ``cuts`` (scaled from cost to drawn length)."""
    length = path_length(pts)
    if length <= 0 or len(pts) < 2:
        return [pts]
    ratio = length / total_cost if total_cost > 0 else 1.0
    marks = [c * ratio for c in cuts]
    pieces: list[list[tuple[float, float]]] = [[pts[0]]]
    walked = 0.0
    mi = 0
    for a, b in zip(pts, pts[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        while mi < len(marks) and seg > 0 and walked < marks[mi] < walked + seg:
            t = (marks[mi] - walked) / seg
            p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            pieces[-1].append(p)
            pieces.append([p])
            mi += 1
        pieces[-1].append(b)
        walked += seg
    return pieces


class PlayScene(Scene):
    """Hot-seat or solo play of one game."""

    def __init__(self, app, game, source: str):
        super().__init__(app)
        self.source = source
        self.elements: list[Any] = []
        self.buttons: dict[Any, str] = {}
        self.camera = Camera()
        self.selected: str | None = None
        self.hover_token: str | None = None
        self.hover_unit: str | None = None
        self.drag: Drag | None = None
        self.pan_from: tuple[int, int] | None = None
        self.mouse_pos: tuple[int, int] = (0, 0)  # last pointer position (wheel zoom centre)
        self.pan_moved = False
        self.right_press: tuple[int, int] | None = None
        self.ruler_mode = False
        self.descend = "climb"  # how drags go down ledges: climb (M6) or jump (M9); J toggles
        self.ruler: Ruler | None = None
        self.refusal: tuple[str, str, float] | None = None  # rule, reason, time shown
        self.toast: tuple[str, float] | None = None
        self.notes: list[tuple[int, str, str]] = []  # (log length when noted, text, kind)
        self.version = 0
        self._reach_cache: tuple | None = None
        self._reach_surface: pygame.Surface | None = None
        self._reach_key: tuple | None = None
        self._info_cache: dict[tuple, Any] = {}
        self._board: pygame.Surface | None = None  # cached board picture and its key
        self._board_key: tuple | None = None
        self._side: pygame.Surface | None = None  # cached sidebar picture and its key
        self._side_key: tuple | None = None
        self._pending_shown: Any = None
        self._winner_shown = False
        self.log_view = LogView(pygame.Rect(0, 0, 10, 10))
        self.card = panels.UnitCard()
        self.banner = panels.Banner()
        self.tray = panels.DiceTray()
        self.menu: ContextMenu | None = None
        self.engine_lock = threading.RLock()  # one thread at a time in the movement engine
        self.planner = PlanWorker(self._locked_preview)
        self.reports: list[tuple[str, str]] = []  # (title, text) dialogs waiting to be shown
        self.replace_game(game, source, first=True)

    # --- game plumbing -----------------------------------------------------------------
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
    def mover(self):
        """The controller's movement engine (it shares the nav cache with the rules).

        Preparing it takes a while on big maps, so a thread starts that after the first
        frame; asking for it before the thread is done waits for the thread."""
        t = self._mover_thread
        if t is not None and t.is_alive():
            t.join()
        return getattr(self.game, "mover", None)

    def prepare_mover(self) -> None:
        import threading

        if self._mover_thread is None:
            game = self.game
            self._mover_thread = threading.Thread(target=lambda: getattr(game, "mover", None), daemon=True,
                                                  name="speedheim-mover")
            self._mover_thread.start()

    def replace_game(self, game, source: str, first: bool = False) -> None:
        from game.engine.geometry import board_for

        self.game = game
        self.source = source
        sc = game.scenario
        self.board = getattr(game, "board", None) or board_for(sc)
        self.painter = BoardPainter(sc, self.board)
        self._mover_thread = None  # the movement engine is prepared after the first frame
        self.selected = None
        self.drag = None
        self.ruler = None
        self.notes = []
        self._pending_shown = None
        self._winner_shown = False
        self.last_player = self.state.player
        self.apply_dice_mode()
        self.changed()
        if not first:
            self.fit()

    def apply_dice_mode(self) -> None:
        dice = getattr(self.game, "dice", None)
        if dice is None:
            return
        # Dice remember a physical roll (Dice.prompted), so saves keep every value after one.
        dice.prompt = self._physical_die if self.app.settings.get("dice") == "physical" else None

    def _physical_die(self, sides: int, reason: str) -> int:
        return self.app.ask_number(f"Roll a d{sides}", f"Roll a d{sides} and type the result.\n{reason}", 1, sides)

    def changed(self) -> None:
        """The game state changed (an action, undo, redo, load)."""
        self.version += 1
        self._info_cache.clear()
        self._reach_cache = None
        self._reach_surface = None
        if self.selected and (self.selected not in self.state.units or not self.state.units[self.selected].on_table):
            self.selected = None

    def act(self, action: dict, quiet: bool = False) -> bool:
        """Apply one action; a refusal is shown and logged with its rule. True if applied."""
        before_player = self.state.player
        hidden = {t.id for t in self.state.treasure.values() if not t.revealed}
        _ = self.mover  # never let the controller build a second one while the thread does
        try:
            with self.engine_lock:
                result = self.game.apply(action)
        except IllegalAction as exc:
            self.refuse(exc, action)
            return False
        self.refusal = None
        self.changed()
        self.autosave()
        self.queue_reports(result, hidden)
        self.after_change(before_player)
        return True

    def queue_reports(self, result: Any, hidden: set[str]) -> None:
        """Dialogs for what an action set off: revealed Event/Plague tokens, Rout checks."""
        events = [str(e) for e in (get_field(result, "events", []) or [])]
        for tid in sorted(hidden):
            t = self.state.treasure.get(tid)
            if t is not None and t.revealed and t.event in ("event", "plague"):
                what = "an Event (U7)" if t.event == "event" else "the Plague (U7)"
                lines = [e for e in events if tid in e or "vent" in e or "lague" in e or "eutral" in e]
                rolls = [str(r) for r in (get_field(result, "rolls", []) or []) if r.rule in ("U7", None) or "lague" in str(r)]
                self.reports.append((f"Token {tid} hid {what}", "\n".join(lines + rolls) or what))
        rout = [a for a in (get_field(result, "automatic", []) or []) if isinstance(a, dict) and a.get("rule") == "U2"
                and str(a.get("text", "")).startswith(("Rout Check", "rout", "Rout"))]
        rolled = [r for r in (get_field(result, "rolls", []) or []) if getattr(r, "rule", None) == "U2"]
        if not rolled and not any("fails" in str(a.get("text")) or "pass" in str(a.get("text")) for a in rout):
            rout = []
        pending = self.pending()
        if rout and not (isinstance(pending, dict) and pending.get("kind") == "voluntary_rout"):
            self.reports.append(("Rout check (U2)", "\n".join(str(a.get("text")) for a in rout)))

    def refuse(self, exc: IllegalAction, action: dict | None = None) -> None:
        self.refusal = (exc.rule, exc.reason, time.monotonic())
        what = describe_action(action) if action else ""
        self.note(f"refused {what}: {exc.rule}: {exc.reason}".replace("refused : ", "refused: "), "refusal")

    def note(self, text: str, kind: str = "info", log: bool = True) -> None:
        """A message on the table for a moment; with ``log`` also in the log panel."""
        if log:
            self.notes.append((len(self.game.log), text, kind))
        self.toast = (text, time.monotonic())

    def autosave(self) -> None:
        """After every action: the save is built now, written by a worker thread."""
        try:
            userdata.autosave_async(self.game)
        except (ImportError, OSError) as exc:
            self.note(f"autosave failed: {exc}", "refusal")

    def after_change(self, before_player: int | None = None) -> None:
        """Winner screen, hand-over screen, pending decisions."""
        if self.check_winner():
            return
        p = self.state.player
        if before_player is not None and p != before_player and p in (1, 2) and self.app.settings.get("handover", True):
            self.show_handover(p)
        self.last_player = p

    def check_winner(self) -> bool:
        winner = self.game.winner
        if winner is None:
            self._winner_shown = False
            return False
        if self._winner_shown:
            return True
        self._winner_shown = True
        from game.ui.scenes.overlays import WinnerScene

        title, lines = game_summary(self.game, winner)
        self.app.push(WinnerScene(self.app, title, lines, self.painter.warband_colour(winner), self._winner_choice))
        return True

    def _winner_choice(self, value: str) -> None:
        if value == "undo":
            self.command("undo")
        elif value == "quit":
            self.app.running = False
        elif value == "new":
            import random

            from game.engine.game import Game
            from game.engine.dice import Dice

            game = Game(self.game.scenario, dice=Dice(seed=random.randrange(1, 10**9)))
            self.replace_game(game, self.source)
            self.autosave()
            self.note("a new game on the same table")

    def show_handover(self, player: int) -> None:
        from game.ui.scenes.overlays import HandoverScene

        self.cancel_drag()
        self.selected = None  # the next player starts with a clean table
        w = self.scenario.warband_of_player(player)
        name = (w.name or w.id) if w else f"Player {player}"
        colour = self.painter.warband_colour(w.id) if w else theme.INK
        self.app.push(HandoverScene(self.app, player, name, colour))

    # --- layout --------------------------------------------------------------------------
    @property
    def view_rect(self) -> pygame.Rect:
        w, h = self.app.size
        return pygame.Rect(0, BANNER_H, w - SIDEBAR_W, h - BANNER_H)

    @property
    def sidebar_rect(self) -> pygame.Rect:
        w, h = self.app.size
        return pygame.Rect(w - SIDEBAR_W, BANNER_H, SIDEBAR_W, h - BANNER_H)

    def fit(self) -> None:
        self.camera.fit(self.scenario.width, self.scenario.height, self.view_rect, margin=30)
        self._reach_surface = None

    def enter(self) -> None:
        self.fit()
        self._build_ui()

    def leave(self) -> None:
        self.kill_all(self.elements)
        self.buttons.clear()

    def resize(self, size) -> None:
        self.leave()
        self._build_ui()
        self.fit()

    TOOLBAR = (
        ("Undo", "undo", "Ctrl+Z"), ("Redo", "redo", "Ctrl+Y"), ("Ruler", "ruler", "R"), ("Rings", "rings", "G"),
        ("Reach", "reach", "A"), ("Fit", "fit", "F"),
        ("Roll", "roll", "D"), ("Dice", "dice_mode", "Ctrl+P"), ("Save", "save", "Ctrl+S"),
        ("Load", "load", "Ctrl+O"), ("Trails", "trails", "T"), ("Help", "help", "F1"),
    )

    def _build_ui(self) -> None:
        ui = self.app.ui
        self._ui_visible = True
        w, h = self.app.size
        self.end_button = UIButton(pygame.Rect(w - SIDEBAR_W - 170, 4, 160, BANNER_H - 8), "End phase (Space)", ui,
                                   object_id="#banner_end")
        self.elements.append(self.end_button)
        self.buttons[self.end_button] = "end_step"
        sb = self.sidebar_rect
        cols = 6
        bw = (SIDEBAR_W - 8 - (cols - 1) * 3) // cols
        for i, (caption, cmd, key) in enumerate(self.TOOLBAR):
            r, c = divmod(i, cols)
            b = UIButton(pygame.Rect(sb.x + 4 + c * (bw + 3), sb.y + 4 + r * 30, bw, 27), caption, ui,
                         tool_tip_text=f"{caption} ({key})")
            self.elements.append(b)
            self.buttons[b] = cmd
        self.toolbar_bottom = sb.y + 4 + 2 * 30 + 2
        # Card, tray and log fill the rest of the sidebar.
        card_h = 232
        tray_h = 74
        self.card_rect = pygame.Rect(sb.x + 4, self.toolbar_bottom + 2, SIDEBAR_W - 8, card_h)
        self.tray_rect = pygame.Rect(sb.x + 4, self.card_rect.bottom + 4, SIDEBAR_W - 8, tray_h)
        self.log_view.set_rect(pygame.Rect(sb.x + 4, self.tray_rect.bottom + 4, SIDEBAR_W - 8,
                                           sb.bottom - self.tray_rect.bottom - 8))

    # --- commands ------------------------------------------------------------------------
    def handle_ui_event(self, event) -> bool:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.command(self.buttons[event.ui_element])
            return True
        return False

    def command(self, cmd: str) -> None:
        if cmd == "end_step":
            self.end_step()
        elif cmd == "undo":
            self.cancel_drag()
            if self.game.can_undo:
                what = describe_action(self.game.log[-1].action) if self.game.log else "the last action"
                with self.engine_lock:
                    self.game.undo()
                self.changed()
                self.autosave()
                self.note(f"undone: {what}", "info")
                self.check_winner()
                self.last_player = self.state.player
            else:
                self.note("nothing to undo", "info", log=False)
        elif cmd == "redo":
            self.cancel_drag()
            if self.game.can_redo:
                with self.engine_lock:
                    self.game.redo()
                self.changed()
                self.autosave()
                what = describe_action(self.game.log[-1].action) if self.game.log else "an action"
                self.note(f"redone: {what}", "info")
                self.check_winner()
            else:
                self.note("nothing to redo", "info", log=False)
        elif cmd == "cancel":
            if self.drag is not None:
                self.cancel_drag()
            elif self.ruler is not None:
                self.ruler = None
            elif self.ruler_mode:
                self.ruler_mode = False
            else:
                self.selected = None
        elif cmd == "ruler":
            self.ruler_mode = not self.ruler_mode
            if not self.ruler_mode:
                self.ruler = None
            self.note("ruler on: drag to measure (snaps to units and tokens); R or Esc to stop" if self.ruler_mode
                      else "ruler off", log=False)
        elif cmd in ("rings", "reach", "trails"):
            self.app.settings[cmd] = not self.app.settings.get(cmd)
            userdata.save_settings(self.app.settings)
            self._reach_surface = None
        elif cmd == "fit":
            self.fit()
        elif cmd in ("zoom_in", "zoom_out"):
            v = self.view_rect
            self.camera.zoom_about(v.centerx, v.centery, 1.25 if cmd == "zoom_in" else 0.8)
        elif cmd.startswith("pan_"):
            v = self.view_rect
            dx, dy = {"pan_left": (1, 0), "pan_right": (-1, 0), "pan_up": (0, 1), "pan_down": (0, -1)}[cmd]
            self.camera.pan(dx * v.width * 0.1, dy * v.height * 0.1)
        elif cmd == "help":
            from game.ui.scenes.overlays import HelpScene

            self.app.push(HelpScene(self.app))
        elif cmd == "next_unit":
            self.select_next()
        elif cmd == "jump_toggle":
            self.descend = "jump" if self.descend == "climb" else "climb"
            if self.drag is not None:
                self.drag.descend = self.descend
                self.drag.key = None
            self.note(f"drags go down ledges by {'jumping (M9)' if self.descend == 'jump' else 'climbing (M6)'}",
                      log=False)
        elif cmd == "roll":
            self.roll_dialog(self.selected)
        elif cmd == "dice_mode":
            mode = "auto" if self.app.settings.get("dice") == "physical" else "physical"
            self.app.settings["dice"] = mode
            userdata.save_settings(self.app.settings)
            self.apply_dice_mode()
            self.note("dice: I roll physical dice (you will be asked for each result)" if mode == "physical"
                      else "dice: roll for me", log=False)
        elif cmd == "handover":
            on = not self.app.settings.get("handover", True)
            self.app.settings["handover"] = on
            userdata.save_settings(self.app.settings)
            self.note("hand-over screen between players: on (hot-seat)" if on else "hand-over screen: off (solo)", log=False)
        elif cmd == "menu":
            if self.selected:
                u = self.state.units[self.selected]
                self.open_menu(self.selected, tuple(map(int, self.camera.to_px(u.x, u.y))))
        elif cmd == "save":
            self.save_dialog()
        elif cmd == "load":
            self.load_dialog()
        elif cmd == "quit":
            self.app.running = False

    def end_step(self) -> None:
        self.cancel_drag()
        kinds = self.legal_kinds()
        action = {"end_step": {}} if (self.state.step is not None and "end_step" in kinds) else {"end_phase": {}}
        self.act(action)

    def legal_kinds(self) -> set[str]:
        f = getattr(self.game, "legal_action_kinds", None)
        if f is None:
            return set()
        try:
            return set(f() if callable(f) else f)
        except Exception:  # noqa: BLE001
            return set()

    def select_next(self) -> None:
        w = self.scenario.warband_of_player(self.state.player)
        if w is None:
            return
        ids = [u.id for u in self.state.units_of(w.id) if u.active]
        if not ids:
            return
        i = ids.index(self.selected) + 1 if self.selected in ids else 0
        self.selected = ids[i % len(ids)]

    # --- hit tests -----------------------------------------------------------------------
    def unit_at(self, px: float, py: float) -> str | None:
        x, y = self.camera.to_in(px, py)
        best, best_d = None, 1e9
        tol = SNAP_PX / self.camera.scale
        for u in self.state.units.values():
            if not u.on_table:
                continue
            d = math.hypot(u.x - x, u.y - y) - u.r
            if d <= tol and d < best_d:
                best, best_d = u.id, d
        return best

    def token_at(self, px: float, py: float) -> str | None:
        x, y = self.camera.to_in(px, py)
        tol = SNAP_PX / self.camera.scale
        for t in self.state.treasure.values():
            if t.carried_by:
                continue
            if math.hypot(t.x - x, t.y - y) - t.r <= tol:
                return t.id
        return None

    def in_view(self, pos) -> bool:
        return self.view_rect.collidepoint(pos)

    # --- events --------------------------------------------------------------------------
    def handle_event(self, event):
        if event.type == pygame.KEYDOWN:
            cmd = keymap.command_for(event)
            if cmd:
                self.command(cmd)
                return None
            return event
        if event.type == pygame.MOUSEWHEEL:
            if self.log_view.handle_event(event, self.mouse_pos):
                return None
            pos = self.mouse_pos
            if self.in_view(pos):
                self.camera.zoom_about(pos[0], pos[1], 1.15 ** event.y)
            return None
        if event.type == pygame.MOUSEBUTTONDOWN:
            return self.mouse_down(event)
        if event.type == pygame.MOUSEBUTTONUP:
            return self.mouse_up(event)
        if event.type == pygame.MOUSEMOTION:
            return self.mouse_move(event)
        return event

    def mouse_down(self, event):
        pos = event.pos
        if event.button in (4, 5):  # old-style wheel buttons: MOUSEWHEEL handles zoom
            return None
        if event.button in (2, 3):
            self.pan_from = pos
            self.pan_moved = False
            self.right_press = pos if event.button == 3 else None
            return None
        if event.button != 1 or not self.in_view(pos):
            return event
        if self.drag is not None and self.drag.active:
            # A click during a drag adds a waypoint.
            self.drag.waypoints.append(self.camera.to_in(*pos))
            self.drag.key = None
            return None
        if self._pending_pick(pos):
            return None
        if self.ruler_mode:
            a = self.anchor_at(pos)
            self.ruler = Ruler(a, Anchor(a.x, a.y, a.r, a.label), True)
            return None
        uid = self.unit_at(*pos)
        if uid is not None:
            self.selected = uid
            u = self.state.units[uid]
            self.drag = Drag(uid, pos, (u.x, u.y), (u.x, u.y), descend=self.descend)
        else:
            self.selected = None
        return None

    def mouse_move(self, event):
        pos = event.pos
        self.mouse_pos = pos
        if self.pan_from is not None:
            dx, dy = pos[0] - self.pan_from[0], pos[1] - self.pan_from[1]
            if abs(dx) + abs(dy) > 0:
                if self.pan_moved or abs(dx) + abs(dy) >= DRAG_START_PX:
                    self.pan_moved = True
                    self.camera.pan(dx, dy)
                    self.pan_from = pos
            return None
        if self.ruler is not None and self.ruler.dragging:
            self.ruler.b = self.anchor_at(pos)
            return None
        if self.drag is not None:
            d = self.drag
            if not d.active and math.hypot(pos[0] - d.start_px[0], pos[1] - d.start_px[1]) >= DRAG_START_PX:
                d.active = True
            if d.active:
                d.cursor = self.camera.to_in(*pos)
            return None
        if self.in_view(pos):
            self.hover_token = self.token_at(*pos)
            self.hover_unit = self.unit_at(*pos)
        return event

    def mouse_up(self, event):
        pos = event.pos
        if event.button in (2, 3):
            moved = self.pan_moved
            self.pan_from = None
            self.pan_moved = False
            if event.button == 3 and not moved and self.in_view(pos):
                uid = self.unit_at(*pos)
                if uid is not None:
                    self.selected = uid
                    self.open_menu(uid, pos)
                else:
                    tok = self.token_at(*pos)
                    if tok is not None:
                        self.open_token_menu(tok, pos)
            return None
        if event.button != 1:
            return event
        if self.ruler is not None and self.ruler.dragging:
            self.ruler.b = self.anchor_at(pos)
            self.ruler.dragging = False
            return None
        if self.drag is not None:
            d = self.drag
            if not d.active:
                self.drag = None  # a click: the unit stays selected
                return None
            d.cursor = self.camera.to_in(*pos)
            self.drop()
            return None
        return event

    # --- moving --------------------------------------------------------------------------
    def cancel_drag(self) -> None:
        self.drag = None

    def move_action(self, d: Drag, run: bool) -> dict:
        body: dict[str, Any] = {"unit": d.uid}
        if d.waypoints:
            body["path"] = [[round(p[0], 3), round(p[1], 3)] for p in [d.origin, *d.waypoints, d.cursor]]
        else:
            body["to"] = [round(d.cursor[0], 3), round(d.cursor[1], 3)]
        if d.descend != "climb":
            body["descend"] = d.descend
        return {"run" if run else "move": body}

    def _locked_preview(self, d: Drag) -> Preview:
        with self.engine_lock:
            return self.compute_preview(d)

    def compute_preview(self, d: Drag) -> Preview:
        """The cheapest legal path to the cursor: walk if it fits, else run, else why not."""
        walk_action = self.move_action(d, False)
        run_action = self.move_action(d, True)
        info = self.unit_info(d.uid)
        straight = [d.origin, *d.waypoints, d.cursor]
        if self.mover is None:
            return Preview(None, None, straight, error=IllegalAction("M1", "the movement engine is not available"))
        why = self.turn_refusal(d.uid)
        if why is not None:
            return Preview(None, None, straight, path_length(straight), info["walk"], info["run"], [], why)
        kw = dict(walk_action["move"])
        kw.pop("unit")
        if "to" in kw:
            kw["to"] = tuple(kw["to"])
        if "path" in kw:
            kw["path"] = [tuple(p) for p in kw["path"]]
        errors: list[IllegalAction] = []
        for run, action in ((False, walk_action), (True, run_action)):
            if run and info["run"] is None:
                break
            try:
                plan = self.mover.plan(self.state, d.uid, run=run, **kw)
            except IllegalAction as exc:
                errors.append(exc)
                continue
            pts = plan_points(plan) or straight
            cost = _num(getattr(plan, "cost", None), path_length(pts))
            return Preview("run" if run else "move", action, pts, cost, info["walk"], info["run"], plan_checks(plan))
        err = errors[-1] if errors else IllegalAction("M1", "cannot move there")
        if info["run"] is None and info.get("run_denied") is not None and errors:
            e0 = errors[0]
            rd = info["run_denied"]
            err = IllegalAction(e0.rule, f"{e0.reason}; Run denied ({rd.rule}: {rd.reason})")
        return Preview(None, None, straight, path_length(straight), info["walk"], info["run"], [], err)

    def turn_refusal(self, uid: str) -> IllegalAction | None:
        """Why this unit may not move now (phase, whose turn), as the controller would say."""
        kinds = self.legal_kinds()
        st = self.state
        if kinds and "move" not in kinds:
            where = f"the {st.phase} phase" + (f", {st.step} step" if st.step else "")
            hint = " (right-click a unit for this phase's actions)" if st.phase != "upkeep" else ""
            return IllegalAction("turn", f"moving is not allowed in {where}{hint}")
        p = self.pending()
        u = st.units[uid]
        if isinstance(p, dict) and p.get("kind") == "neutrals":
            if uid not in p.get("units", []):
                return IllegalAction("U1", f"{uid} is not a Neutral unit; in the Neutrals step only Neutrals act")
            return None
        try:
            owner = self.scenario.warband(u.warband).player
        except KeyError:
            return None
        if owner != st.player:
            return IllegalAction("turn", f"{uid} belongs to player {owner}; it is player {st.player}'s turn")
        return None

    def drop(self) -> None:
        d = self.drag
        self.drag = None
        if d is None:
            return
        p = self._locked_preview(d)
        if p.action is None:
            # Snap back: the state was never touched; tell why with the rule id.
            action = self.move_action(d, False)
            err = p.error or IllegalAction("M1", "cannot move there")
            if self.mover is None:
                # No preview engine: let the controller decide.
                self.act(action)
                return
            self.refuse(err, action)
            return
        self.act(p.action)

    # --- unit information ------------------------------------------------------------------
    def unit_info(self, uid: str) -> dict:
        with self.engine_lock:
            return self._unit_info(uid)

    def _unit_info(self, uid: str) -> dict:
        key = ("info", uid, self.version)
        got = self._info_cache.get(key)
        if got is not None:
            return got
        info: dict[str, Any] = {"walk": 0.0, "run": None, "walk_error": None, "run_denied": None}
        if self.mover is not None:
            try:
                info["walk"] = allowance_inches(self.mover.allowance(self.state, uid, run=False))
            except IllegalAction as exc:
                info["walk_error"] = exc
            except Exception as exc:  # noqa: BLE001 - shown, not fatal
                info["walk_error"] = IllegalAction("?", str(exc))
            try:
                denial = self.mover.run_denial(self.state, uid)
            except Exception:  # noqa: BLE001
                denial = None
            info["run_denied"] = denial
            if denial is None and info["walk_error"] is None:
                try:
                    info["run"] = allowance_inches(self.mover.allowance(self.state, uid, run=True))
                except IllegalAction as exc:
                    info["run_denied"] = exc
        self._info_cache[key] = info
        return info

    def reach(self, uid: str):
        if self._reach_cache and self._reach_cache[0] == (uid, self.version):
            return self._reach_cache[1]
        result = None
        if self.mover is not None and self.state.units[uid].active:
            try:
                with self.engine_lock:
                    result = self.mover.reachable(self.state, uid)
            except IllegalAction:
                result = None
        self._reach_cache = ((uid, self.version), result)
        return result

    # --- ruler -----------------------------------------------------------------------------
    def anchor_at(self, pos) -> Anchor:
        uid = self.unit_at(*pos)
        if uid is not None:
            u = self.state.units[uid]
            return Anchor(u.x, u.y, u.r, uid)
        tid = self.token_at(*pos)
        if tid is not None:
            t = self.state.treasure[tid]
            return Anchor(t.x, t.y, t.r, tid)
        x, y = self.camera.to_in(*pos)
        return Anchor(x, y, 0.0, "")

    def ruler_reading(self, ruler: Ruler) -> tuple[float, float]:
        """(edge-to-edge inches per G1/G2, height of b above a)."""
        from game.engine.geometry import Disc

        a, b = ruler.a, ruler.b
        za = self.board.height_at(a.x, a.y)
        zb = self.board.height_at(b.x, b.y)
        dist = self.board.distance(Disc(a.x, a.y, a.r, za), Disc(b.x, b.y, b.r, zb))
        return dist, zb - za

    # --- pending decisions (upkeep) --------------------------------------------------------
    def pending(self):
        """The pending decision as a dict (TEMPORARY: until the scene reads the typed one)."""
        p = self.game.pending
        return p.to_dict() if p is not None else None

    def _pending_pick(self, pos) -> bool:
        """While a pick-up is pending, clicking a token in contact picks it up."""
        p = self.pending()
        if not p:
            return False
        tok = self.token_at(*pos)
        if tok is None:
            return False
        for _text, action in pending_choices(self, p):
            body = next(iter(action.values())) if isinstance(action, dict) else {}
            if isinstance(body, dict) and body.get("token") == tok:
                self.act(action)
                return True
        return False

    def update_pending(self) -> None:
        p = self.pending()
        if self.app.modal is not None or self.app.top is not self:
            return
        if self.reports:
            title, text = self.reports.pop(0)
            self.app.message(title, text)
            return
        if not p:
            self._pending_shown = None
            return
        key = (self.version, repr(p))
        if self._pending_shown == key:
            return
        self._pending_shown = key
        choices = pending_choices(self, p)
        title, message = pending_text(self, p)
        if not choices:
            return

        def chosen(action):
            if action == "__undo__":
                self.command("undo")
            elif action is not None:
                self.act(action)

        if self.game.can_undo:
            choices = choices + [("Undo the last action (Ctrl+Z)", "__undo__")]
        message += "\n(Closing this box leaves the decision open: the End step button declines it.)"
        self.app.open_dialog(ChoiceDialog(self.app.ui, title, message, choices, chosen, closable=True))

    # --- menus ----------------------------------------------------------------------------
    def open_menu(self, uid: str, pos) -> None:
        u = self.state.units[uid]
        items = unit_menu_items(self, uid)

        def chosen(value):
            if isinstance(value, tuple) and value and value[0] == "submenu":
                _, title, sub = value
                self.app.open_dialog(ContextMenu(self.app.ui, pos, title, sub, chosen))
            elif isinstance(value, tuple) and value and value[0] == "roll":
                self.roll_dialog(uid)
            elif isinstance(value, tuple) and value and value[0] == "descend":
                self.descend = "climb" if self.descend == "jump" else "jump"
                self.note(f"drags now {'jump down ledges (M9)' if self.descend == 'jump' else 'climb down (M6)'}",
                          log=False)
            elif isinstance(value, dict):
                self.act(value)

        self.menu = ContextMenu(self.app.ui, pos, f"{u.name} ({u.id})", items, chosen)
        self.app.open_dialog(self.menu)

    def open_token_menu(self, tid: str, pos) -> None:
        items = []
        t = self.state.treasure[tid]
        for u in self.state.units.values():
            if u.active and self.board.in_contact(u, t, float(self.rs.contact_tolerance)):
                items.append((f"{u.name} picks it up", {"pick_up": {"unit": u.id, "token": tid}}))
        if not items:
            items.append(("no unit in contact", None))

        def chosen(v):
            if isinstance(v, dict):
                self.act(v)

        self.app.open_dialog(ContextMenu(self.app.ui, pos, f"token {tid}", items, chosen))

    def roll_dialog(self, uid: str | None = None) -> None:
        who = f" for {uid}" if uid else ""

        def done(value):
            if value is None:
                return
            reason, choice = value
            sides, count = choice
            body: dict[str, Any] = {"sides": sides, "count": count, "reason": reason.strip() or "dice tray"}
            if uid:
                body["unit"] = uid
            self.act({"roll": body})

        self.app.open_dialog(TextPrompt(self.app.ui, "Roll dice" + who, "Why are you rolling? (goes into the log)",
                                        "", done, [("d6", (6, 1)), ("2d6", (6, 2)), ("d20", (20, 1)), ("d3", (3, 1))]))

    # --- save / load ----------------------------------------------------------------------
    def saves_dir(self) -> str:
        d = os.path.join(userdata.data_dir(), "saves")
        os.makedirs(d, exist_ok=True)
        return d

    def save_dialog(self) -> None:
        import re

        base = re.sub(r"[^a-z0-9]+", "-", (self.scenario.name or "game").lower()).strip("-") or "game"
        default = os.path.join(self.saves_dir(), f"{base}-{time.strftime('%Y%m%d-%H%M%S')}.yaml")

        def done(value):
            if value is None:
                return
            path = os.path.expanduser(value[0].strip())
            if not path:
                return
            self.save_to(path)

        self.app.open_dialog(TextPrompt(self.app.ui, "Save game", "Save the game (scenario + log) to:", default, done,
                                        [("Save", "save"), ("Cancel", None)]))

    def save_to(self, path: str) -> bool:
        from game.engine.saves import save_game

        try:
            save_game(path, self.game)
        except OSError as exc:
            self.app.message("Save failed", f"Could not write {path}:\n{exc}")
            return False
        self.note(f"saved to {path}")
        return True

    def load_dialog(self) -> None:
        d = self.saves_dir()
        files = sorted((os.path.join(d, f) for f in os.listdir(d) if f.endswith((".yaml", ".yml"))),
                       key=os.path.getmtime, reverse=True)[:8]
        choices = [(os.path.basename(f), f) for f in files]
        if userdata.has_autosave():
            choices.append(("the autosave", userdata.autosave_path()))
        choices.append(("Type a path...", "__type__"))

        def chosen(value):
            if value == "__type__":
                self.app.open_dialog(TextPrompt(self.app.ui, "Load game", "Path of a saved game:", d + os.sep,
                                                lambda v: v and self.load_from(os.path.expanduser(v[0].strip())),
                                                [("Load", "load")]))
            elif value:
                self.load_from(value)

        self.app.open_dialog(ChoiceDialog(self.app.ui, "Load game", f"Saved games in {d}:", choices, chosen))

    def load_from(self, path: str) -> bool:
        from game.engine.errors import LoadError
        from game.engine.saves import load_game

        try:
            game = load_game(path)
        except LoadError as exc:
            self.app.message("Load failed", "\n".join(str(p) for p in exc.problems[:8]))
            return False
        except OSError as exc:
            self.app.message("Load failed", f"{path}: {exc}")
            return False
        self.replace_game(game, path)
        self.autosave()
        self.note(f"loaded {path}")
        self.after_change(None)
        return True

    # --- frame ---------------------------------------------------------------------------
    def set_ui_visible(self, visible: bool) -> None:
        """Hide this scene's buttons while another screen is on top (hand-over, help, winner)."""
        if visible == getattr(self, "_ui_visible", True):
            return
        self._ui_visible = visible
        for e in self.elements:
            e.show() if visible else e.hide()

    def update(self, dt: float) -> None:
        self.set_ui_visible(self.app.top is self)
        d = self.drag
        if d is not None and d.active:
            key = (round(d.cursor[0] / PREVIEW_STEP), round(d.cursor[1] / PREVIEW_STEP), tuple(d.waypoints),
                   d.descend, self.version, id(d))
            if key != d.key:
                d.key = key
                job = Drag(d.uid, d.start_px, d.origin, d.cursor, True, list(d.waypoints), d.descend)
                self.planner.submit(key, job)
        self.take_preview()
        self.update_pending()
        self.check_winner()

    def take_preview(self) -> None:
        got = self.planner.take()
        d = self.drag
        if got is None or d is None:
            return
        key, preview = got
        if isinstance(preview, Exception):
            self.app.report_error(preview, "planning the path preview")
            return
        if key[-2:] == (self.version, id(d)):  # the same drag on the same state
            d.preview = preview

    def flush_preview(self) -> None:
        """Wait for the planner and show its newest preview (tests, benchmark)."""
        self.update(0.0)
        self.planner.wait()
        self.take_preview()

    def log_entries(self) -> list[tuple[str, str]]:
        return build_log(self)

    def draw(self, surface: pygame.Surface) -> None:
        view = self.view_rect
        clip = surface.get_clip()
        surface.set_clip(view)
        st = self.state
        cam = self.camera
        s = self.app.settings
        # The board (terrain, reach, trails, tokens, units) changes only with the state,
        # the camera or the selection: cached, so a frame with a drag is one blit.
        key = (self.version, round(cam.scale, 6), round(cam.offset[0], 3), round(cam.offset[1], 3), view.size,
               self.selected, bool(s.get("reach", True)), bool(s.get("trails", True)))
        if key != self._board_key or self._board is None:
            surface.fill(theme.PAGE, view)
            self.painter.draw_static(surface, cam)
            if hasattr(self.painter, "draw_edge_numbers"):
                self.painter.draw_edge_numbers(surface, cam, "tl")
            self.draw_reach(surface)
            if s.get("trails", True):
                self.draw_trails(surface)
            self.painter.draw_tokens(surface, cam, st, False)
            self.painter.draw_units(surface, cam, st, self.selected)
            self._board = surface.subsurface(view).copy()
            self._board_key = key
        else:
            surface.blit(self._board, view.topleft)
        self.draw_hover_token(surface)
        if self.selected and s.get("rings"):
            self.draw_rings(surface, self.selected)
        self.draw_drag(surface)
        self.draw_ruler(surface)
        self.draw_refusal(surface, view)
        surface.set_clip(clip)
        self.draw_banner(surface)
        self.draw_sidebar(surface)
        if self._mover_thread is None:
            self.prepare_mover()

    # --- overlays --------------------------------------------------------------------------
    def draw_reach(self, surface: pygame.Surface) -> None:
        if not self.selected or not self.app.settings.get("reach", True):
            return
        view = self.view_rect
        key = (self.selected, self.version, round(self.camera.scale, 4), round(self.camera.offset[0], 2),
               round(self.camera.offset[1], 2), view.size)
        if self._reach_surface is None or self._reach_key != key:
            r = self.reach(self.selected)
            self._reach_key = key
            self._reach_surface = render_reach(r, self.camera, view) if r is not None else None
        if self._reach_surface is not None:
            surface.blit(self._reach_surface, view.topleft)

    def draw_trails(self, surface: pygame.Surface) -> None:
        cam = self.camera
        for u in self.state.units.values():
            if not u.trail:
                continue
            colour = theme.mix(self.painter.warband_colour(u.warband), (255, 255, 255), 0.45)
            for path in u.trail:
                pts = cam.points_px(path)
                if len(pts) > 1:
                    pygame.draw.lines(surface, colour, False, pts, 3)
                    for p in pts[:1]:
                        pygame.draw.circle(surface, colour, p, 4, 1)

    def draw_hover_token(self, surface: pygame.Surface) -> None:
        tid = self.hover_token
        if tid is None or tid not in self.state.treasure:
            return
        t = self.state.treasure[tid]
        if t.carried_by:
            return
        cam = self.camera
        c = cam.to_px(t.x, t.y)
        deny = float(self.rs.treasure_denial_range)
        grab = float(self.rs.treasure_grab_range)
        pygame.draw.circle(surface, RED, c, cam.length(t.r + deny), 2)
        pygame.draw.circle(surface, (60, 60, 200), c, cam.length(t.r + grab), 2)
        label(surface, f'{deny:g}" denial (U6)', (c[0], c[1] - cam.length(t.r + deny) - 2), RED)
        label(surface, f'{grab:g}" grab (U4)', (c[0], c[1] - cam.length(t.r + grab) - 2), (60, 60, 200))

    def draw_rings(self, surface: pygame.Surface, uid: str) -> None:
        u = self.state.units.get(uid)
        if u is None or not u.on_table:
            return
        cam = self.camera
        c = cam.to_px(u.x, u.y)
        rings = ((float(self.rs.treasure_denial_range), (200, 60, 60)),
                 (float(self.rs.treasure_grab_range), (60, 60, 200)),
                 (float(self.rs.run_denial_range), (30, 30, 30)))
        for d, col in rings:
            rad = cam.length(u.r + d)
            pygame.draw.circle(surface, col, c, rad, 1)
            label(surface, f'{d:g}"', (c[0] + rad * 0.707, c[1] - rad * 0.707), col)

    def draw_drag(self, surface: pygame.Surface) -> None:
        d = self.drag
        if d is None or not d.active:
            return
        cam = self.camera
        p = d.preview
        u = self.state.units[d.uid]
        if p is None:
            return
        pts = p.path
        if p.kind is None:
            px = cam.points_px(pts)
            if len(px) > 1:
                dashed(surface, RED, px, 3)
        else:
            cuts = [p.walk] + ([p.run] if p.run else [])
            pieces = split_path(pts, cuts, p.cost)
            colours = [GREEN, YELLOW, RED]
            for i, piece in enumerate(pieces):
                px = cam.points_px(piece)
                if len(px) > 1:
                    pygame.draw.lines(surface, (20, 20, 20), False, px, 6)
                    pygame.draw.lines(surface, colours[min(i, 2)], False, px, 4)
        for wp in d.waypoints:
            c = cam.to_px(*wp)
            pygame.draw.circle(surface, (20, 20, 20), c, 6)
            pygame.draw.circle(surface, (255, 255, 255), c, 4)
        for x, y, kind in p.checks:
            check_icon(surface, cam.to_px(x, y), kind)
        # The ghost base at the end of the path.
        end = pts[-1] if pts else d.cursor
        c = cam.to_px(*end)
        colour = {None: RED, "move": GREEN, "run": YELLOW}[p.kind]
        pygame.draw.circle(surface, colour, c, max(3, cam.length(u.r)), 3)
        # The readout.
        allow = p.run if p.kind == "run" else p.walk
        if p.kind is None:
            text = f"{p.error.rule}: {p.error.reason}" if p.error else "cannot move there"
        else:
            band = "Run" if p.kind == "run" else "Move"
            text = f'{band} {p.cost:.2f}" / {allow:.2f}"'
            if p.kind == "move" and p.run:
                text += f'  (run {p.run:.2f}")'
        if d.descend == "jump":
            text += "  [jump down]"
        if d.waypoints:
            text += f"  {len(d.waypoints)} waypoint(s)"
        img_w = min(360, T.text(text, 14, (20, 20, 20), True).get_width())
        rad = max(3, cam.length(u.r))
        label(surface, text, (c[0] + rad + 14 + img_w / 2, c[1] + rad + 12), (20, 20, 20), size=14,
               bg=(255, 255, 255) if p.kind else (255, 225, 225), max_width=360)

    def draw_ruler(self, surface: pygame.Surface) -> None:
        r = self.ruler
        if r is None:
            if self.ruler_mode:
                v = self.view_rect
                label(surface, "RULER: drag to measure (R / Esc to stop)", (v.centerx, v.y + 14), RULER, size=14,
                       bg=RULER_BG)
            return
        cam = self.camera
        dist, dz = self.ruler_reading(r)
        a, b = r.a, r.b
        dx, dy = b.x - a.x, b.y - a.y
        n = math.hypot(dx, dy) or 1.0
        ea = (a.x + dx / n * a.r, a.y + dy / n * a.r)
        eb = (b.x - dx / n * b.r, b.y - dy / n * b.r)
        pa, pb = cam.to_px(*ea), cam.to_px(*eb)
        pygame.draw.line(surface, (255, 255, 255), pa, pb, 5)
        pygame.draw.line(surface, RULER, pa, pb, 2)
        for p in (pa, pb):
            pygame.draw.circle(surface, RULER, p, 4)
        for anc in (a, b):
            if anc.r > 0:
                pygame.draw.circle(surface, RULER, cam.to_px(anc.x, anc.y), cam.length(anc.r) + 2, 2)
        text = f'{dist:.2f}"'
        if abs(dz) > 1e-9:
            text += f'  height {dz:+.2f}"'
        if a.label or b.label:
            text += f"  ({a.label or 'point'} to {b.label or 'point'})"
        mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2 - 12)
        label(surface, text, mid, RULER, size=15, bg=RULER_BG)

    def draw_refusal(self, surface: pygame.Surface, view: pygame.Rect) -> None:
        now = time.monotonic()
        if self.refusal is not None and now - self.refusal[2] < 6.0:
            rule, reason, _ = self.refusal
            label(surface, f"illegal: {rule}: {reason}", (view.centerx, view.bottom - 30), (255, 255, 255), size=15,
                   bg=(170, 30, 30), max_width=view.width - 40)
        elif self.toast is not None and now - self.toast[1] < 3.0:
            label(surface, self.toast[0], (view.centerx, view.bottom - 30), (255, 255, 255), size=14, bg=(60, 55, 50),
                   max_width=view.width - 40)

    def draw_banner(self, surface: pygame.Surface) -> None:
        st = self.state
        w = self.scenario.warband_of_player(st.player)
        colour = self.painter.warband_colour(w.id) if w else theme.INK
        name = (w.name or w.id) if w else ("Neutrals" if st.player == 0 else f"Player {st.player}")
        step = self.state.step
        kinds = self.legal_kinds()
        has_step = step is not None and ("end_step" in kinds or not kinds)
        label = "End step (Space)" if has_step else "End phase (Space)"
        if getattr(self, "end_button", None) is not None and self.end_button.text != label:
            self.end_button.set_text(label)
        self.banner.draw(surface, pygame.Rect(0, 0, self.app.size[0] - SIDEBAR_W - 176, BANNER_H), st.turn,
                         st.player, name, colour, st.phase, step, self.phase_note())
        pygame.draw.rect(surface, (40, 34, 28), pygame.Rect(self.app.size[0] - SIDEBAR_W - 176, 0, SIDEBAR_W + 176,
                                                           BANNER_H))

    def phase_note(self) -> str:
        if self.game.winner:
            return f"game over: {self.game.winner} wins"
        for ph in getattr(self.rs, "phases", []) or []:
            if isinstance(ph, dict) and ph.get("name") == self.state.phase and ph.get("manual"):
                return "manual phase: right-click a unit"
        p = self.pending()
        if isinstance(p, dict) and p.get("kind") == "neutrals":
            return "U1: move the Neutrals (" + ", ".join(p.get("units", [])[:4]) + "), then End step"
        if p:
            return "decision waiting (" + str(p.get("kind", "")).replace("_", " ") + ")" if isinstance(p, dict) \
                else "decision waiting"
        if self.state.phase == "move":
            return "drag a unit to move it"
        return ""

    def draw_sidebar(self, surface: pygame.Surface) -> None:
        sb = self.sidebar_rect
        uid = self.selected or self.hover_unit
        dice_mode = self.app.settings.get("dice")
        key = (self.version, len(self.notes), uid, dice_mode, self.log_view.scroll, tuple(sb))
        if key == self._side_key and self._side is not None:
            surface.blit(self._side, sb.topleft)
            return
        surface.fill((233, 226, 212), sb)
        pygame.draw.line(surface, (120, 110, 95), sb.topleft, sb.bottomleft, 2)
        info = None
        if uid and uid in self.state.units:
            info = self.unit_info(uid)
        self.card.draw(surface, self.card_rect, self, uid, info)
        self.tray.draw(surface, self.tray_rect, self.dice_rolls(), dice_mode == "physical")
        self.log_view.set_entries(self.log_entries())
        self.log_view.draw(surface)
        self._side = surface.subsurface(sb).copy()
        self._side_key = key

    def dice_rolls(self) -> list:
        dice = getattr(self.game, "dice", None)
        return list(getattr(dice, "log", [])[-8:]) if dice is not None else []
