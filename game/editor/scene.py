"""The editor scene: tools, properties panel, validation panel, drawn with the BoardPainter.

``EditorScene(doc, manager, size)`` follows the scene protocol (``handle_event``,
``update``, ``draw``). It changes the map only through :class:`Document` commands,
so every edit is one undo step and every refusal is a message in the status bar.
Only :class:`~game.ui.render.Camera` converts inches and pixels.
"""

from __future__ import annotations

import copy
import glob
import math
import os
import subprocess
import sys
import time
from typing import Any, Callable

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIDropDownMenu, UILabel, UITextEntryLine, UIWindow
from shapely.geometry import Polygon

from game.bundled import rosters_dir
from game.editor.document import (
    DEFAULT_WALL_THICKNESS,
    Document,
    EditError,
    Finding,
    Ref,
    rect,
    wall_polygon,
)
from game.editor.keymap import KEYS, MOUSE_HELP, command_for
from game.editor.roster import load_roster
from game.engine.errors import LoadError
from game.engine.model import EVENT_KINDS, STATUSES, TERRAIN_KINDS
from game.ui import theme
from game.ui.render import BoardPainter, Camera, draw_geometry, get_font

TOOLS: tuple[tuple[str, str], ...] = (
    ("select", "Select  V"), ("rect", "Rect  B"), ("poly", "Polygon  P"), ("wall", "Wall  W"),
    ("ladder", "Ladder  L"), ("treasure", "Treasure  T"), ("zone", "Zone  Z"), ("unit", "Units  U"),
)
KIND_BUTTONS = (("block", "1 block"), ("wall", "2 wall"), ("difficult", "3 difficult"), ("impassable", "4 impass."))
ACTION_BUTTONS = (("undo", "Undo"), ("redo", "Redo"), ("rotate", "Rot +15"), ("rotate_back", "Rot -15"),
                  ("duplicate", "Duplicate"), ("delete", "Delete"), ("snap", "Snap"), ("roster", "Roster..."),
                  ("save", "Save"), ("play", "Play"))

BG = (58, 52, 46)
PANEL_BG = (233, 226, 212)
BUTTON = (75, 66, 56)
BUTTON_ON = (170, 120, 40)
BUTTON_TEXT = (245, 239, 227)
SEL = (255, 255, 255)
SEL_EDGE = (20, 20, 20)
PROBLEM = (220, 30, 30)
DRAFT = (255, 240, 120)
HANDLE_PX = 6
PICK_PX = 5
DOUBLE_CLICK_S = 0.35
DEFAULT_ROSTER_DIR = rosters_dir()


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if abs(v - round(v, 2)) < 1e-9 else f"{v:.3f}"


class EditorScene:
    TOOLBAR_W = 118
    PANEL_W = 330
    STATUS_H = 26

    def __init__(self, doc: Document, manager: pygame_gui.UIManager, size: tuple[int, int],
                 on_play: Callable[[str], Any] | None = None, roster_dir: str = DEFAULT_ROSTER_DIR):
        self.doc = doc
        self.ui = manager
        self.size = size
        self.on_play = on_play
        self.roster_dir = roster_dir
        self.camera = Camera()
        self.painter = BoardPainter(doc.sc, doc.board)
        self._painted_rev = doc.revision
        self._static = self._static_key()
        self.ghost: BoardPainter | None = None
        self.tool = "select"
        self.kind = "block"
        self.selection: list[Ref] = []
        self.highlight: Ref | None = None
        self.points: list[tuple[float, float]] = []  # polygon / zone in progress
        self.drag: dict | None = None
        self.mouse_px = (0, 0)
        self.message = "F1: help. Draw with the tools on the left; the right panel edits the selection."
        self.message_bad = False
        self.warband: str | None = doc.sc.warbands[0].id if doc.sc.warbands else None
        self.entry = 0
        self.token_event = "none"
        self.wall_thickness = DEFAULT_WALL_THICKNESS
        self.show_help = False
        self.panel_fields: dict[Any, Callable[[str], None]] = {}
        self.panel_elements: list[Any] = []
        self._panel_key: Any = None
        self.windows: list[Any] = []
        self.window_actions: dict[Any, Callable[[], None]] = {}
        self.problem_rects: list[tuple[pygame.Rect, Finding]] = []
        self.button_rects: list[tuple[pygame.Rect, str, str]] = []
        self._last_click = (0.0, (0, 0))
        self.close_requested = False
        self._confirm_close = False
        self.played: list[str] = []
        self.failed = False
        self.fit()

    # --- layout -----------------------------------------------------------------------
    @property
    def view(self) -> pygame.Rect:
        w, h = self.size
        return pygame.Rect(self.TOOLBAR_W, 0, max(50, w - self.TOOLBAR_W - self.PANEL_W), max(50, h - self.STATUS_H))

    @property
    def panel(self) -> pygame.Rect:
        w, h = self.size
        return pygame.Rect(w - self.PANEL_W, 0, self.PANEL_W, h - self.STATUS_H)

    def fit(self) -> None:
        self.camera.fit(self.doc.sc.width, self.doc.sc.height, self.view, margin=24)

    def resize(self, size: tuple[int, int]) -> None:
        self.size = size
        self._panel_key = None
        self.fit()

    def to_in(self, pos) -> tuple[float, float]:
        return self.camera.to_in(*pos)

    def snapped(self, pos) -> tuple[float, float]:
        return self.doc.snap_point(self.to_in(pos))

    # --- messages -----------------------------------------------------------------------
    def say(self, text: str, bad: bool = False) -> None:
        self.message, self.message_bad = text, bad

    def _try(self, fn: Callable, *args, **kwargs) -> Any:
        """Run a document command; a refusal becomes the status message (self.failed)."""
        self.failed = False
        try:
            return fn(*args, **kwargs)
        except EditError as exc:
            self.say(f"refused: {exc}", bad=True)
        except LoadError as exc:
            self.say(str(exc.problems[0]) if exc.problems else "cannot load", bad=True)
        self.failed = True
        return None

    # --- selection ----------------------------------------------------------------------
    def select(self, refs: list[Ref]) -> None:
        self.selection = [r for r in refs if self.doc.exists(r)]
        if self.highlight not in self.selection:
            self.highlight = None

    def _prune(self) -> None:
        self.selection = [r for r in self.selection if self.doc.exists(r)]
        if self.warband is not None and not self.doc.exists(("warband", self.warband)):
            self.warband = self.doc.sc.warbands[0].id if self.doc.sc.warbands else None

    # --- commands -----------------------------------------------------------------------
    def command(self, cmd: str) -> None:
        d = self.doc
        if cmd.startswith("tool_"):
            self.set_tool(cmd[5:])
        elif cmd.startswith("kind_"):
            self.kind = cmd[5:]
            self.say(f"new pieces are {self.kind}")
        elif cmd == "undo":
            label = d.undo()
            self._prune()
            self.say(f"undid: {label}" if label else "nothing to undo")
        elif cmd == "redo":
            label = d.redo()
            self._prune()
            self.say(f"redid: {label}" if label else "nothing to redo")
        elif cmd in ("rotate", "rotate_back"):
            if self.selection:
                self._try(d.rotate, self.selection, 1 if cmd == "rotate" else -1)
                if not self.failed:
                    self.say(f"rotated {'+' if cmd == 'rotate' else '-'}15 deg")
        elif cmd == "duplicate":
            if self.selection:
                new = self._try(d.duplicate, self.selection)
                if new:
                    self.select(new)
                    self.say(f"duplicated {len(new)} item(s)")
        elif cmd == "delete":
            if self.selection:
                n = len(self.selection)
                self._try(d.delete, self.selection)
                self._prune()
                self.say(f"deleted {n} item(s)")
        elif cmd == "snap":
            s = d.cycle_snap()
            self.say(f"snap {_fmt(s) + chr(34) if s else 'off'}")
        elif cmd == "save":
            self.save()
        elif cmd == "play":
            self.play()
        elif cmd == "roster":
            self.open_roster_chooser()
        elif cmd == "event":
            toks = [k for kind, k in self.selection if kind == "treasure"]
            if toks:
                events = [self._try(d.cycle_event, t) for t in toks]
                self.say(f"{', '.join(toks)} hide(s): {', '.join(str(e) for e in events)}")
            else:
                i = EVENT_KINDS.index(self.token_event)
                self.token_event = EVENT_KINDS[(i + 1) % len(EVENT_KINDS)]
                self.say(f"new tokens hide: {self.token_event}")
        elif cmd == "warband":
            ws = [w.id for w in d.sc.warbands]
            if ws:
                i = ws.index(self.warband) if self.warband in ws else -1
                self.warband = ws[(i + 1) % len(ws)]
                self.entry = 0
                self.say(f"active warband: {self.warband}")
            else:
                self.say("no warbands yet: load a roster (Ctrl+O)", bad=True)
        elif cmd in ("entry", "entry_back"):
            todo = d.to_place(self.warband) if self.warband else []
            if todo:
                self.entry = (self.entry + (1 if cmd == "entry" else -1)) % len(todo)
                e, left = todo[self.entry]
                self.say(f"next unit: {e.name} ({left} left)")
        elif cmd == "finish":
            self.finish_polygon()
        elif cmd == "cancel":
            if self.points or self.drag:
                self.points, self.drag = [], None
                if d.in_transaction:
                    d.cancel()
                self.ghost = None
                self.say("cancelled")
            else:
                self.select([])
            self.show_help = False
        elif cmd == "fit":
            self.fit()
        elif cmd == "help":
            self.show_help = not self.show_help
        elif cmd.startswith("nudge_"):
            dx, dy = {"nudge_left": (-1, 0), "nudge_right": (1, 0), "nudge_up": (0, -1), "nudge_down": (0, 1)}[cmd]
            step = d.snap_step or 0.1
            if self.selection:
                self._try(d.move, self.selection, dx * step, dy * step)

    def set_tool(self, tool: str) -> None:
        self.tool = tool
        self.points, self.drag = [], None
        hints = {
            "select": "click to select (Shift adds), drag to move, drag a corner to resize",
            "rect": f"drag a rectangle of {self.kind} (1-4 change the kind)",
            "poly": f"click the corners of a {self.kind}; Enter, right click or double click closes it",
            "wall": f"drag a wall line {_fmt(self.wall_thickness)}\" thick (thickness in the panel)",
            "ladder": "click a block's edge: the foot goes on the ground beside it",
            "treasure": f"click to place a token hiding: {self.token_event} (E cycles)",
            "zone": "click the corners of the active warband's zone (Tab: next warband)",
            "unit": "click inside the active warband's zone to place its next unit (Tab, [ ])",
        }
        self.say(hints.get(tool, tool))

    # --- save / play / rosters -----------------------------------------------------------
    def save(self, path: str | None = None) -> bool:
        if not (path or self.doc.path):
            self.open_save_as()
            return False
        try:
            findings = self.doc.save(path)
        except (OSError, EditError) as exc:
            self.say(f"could not save: {exc}", bad=True)
            return False
        if findings:
            self.say(f"saved {self.doc.path} WITH {len(findings)} PROBLEM(S): it will not play until they are fixed", bad=True)
        else:
            self.say(f"saved {self.doc.path}")
        return True

    def play(self) -> None:
        findings = self.doc.validate()
        if findings:
            self.say(f"cannot play: the map has {len(findings)} problem(s) (see the list on the right)", bad=True)
            return
        if self.doc.dirty or not self.doc.path:
            if not self.save():
                return
        path = self.doc.path
        self.played.append(path)
        if self.on_play is not None:
            self.on_play(path)
        else:
            subprocess.Popen([sys.executable, "-m", "game", "play", path])
        self.say(f"playing {path} in a new window")

    def load_roster_file(self, path: str) -> str | None:
        roster = self._try(load_roster, path)
        if roster is None:
            return None
        wid = self._try(self.doc.load_roster, roster)
        if wid:
            self.warband = wid
            self.entry = 0
            self.say(f"roster {roster.name} loaded as warband {wid}: draw its zone (Z), then place units (U)")
        return wid

    def _window(self, title: str, rect: pygame.Rect) -> UIWindow:
        for w in self.windows:
            w.kill()
        self.windows.clear()
        self.window_actions.clear()
        win = UIWindow(rect, self.ui, window_display_title=title)
        self.windows.append(win)
        return win

    def open_roster_chooser(self) -> None:
        files = sorted(glob.glob(os.path.join(self.roster_dir, "*.yaml")))
        h = 110 + 36 * len(files)
        win = self._window("Load a roster", pygame.Rect(200, 120, 460, h))
        y = 8
        for f in files:
            b = UIButton(pygame.Rect(10, y, 420, 30), os.path.basename(f), self.ui, container=win)
            self.window_actions[b] = lambda f=f: (self.load_roster_file(f), self._close_windows())
            y += 36
        entry = UITextEntryLine(pygame.Rect(10, y, 330, 30), self.ui, container=win)
        entry.set_text(os.path.join(self.roster_dir, ""))
        ok = UIButton(pygame.Rect(346, y, 84, 30), "Load", self.ui, container=win)
        act = lambda: (self.load_roster_file(entry.get_text().strip()), self._close_windows())  # noqa: E731
        self.window_actions[ok] = act
        self.window_actions[entry] = act

    def open_save_as(self) -> None:
        win = self._window("Save the map as", pygame.Rect(200, 160, 460, 120))
        entry = UITextEntryLine(pygame.Rect(10, 10, 330, 30), self.ui, container=win)
        entry.set_text(os.path.join("maps", "new-map.yaml"))
        ok = UIButton(pygame.Rect(346, 10, 84, 30), "Save", self.ui, container=win)
        act = lambda: (self._close_windows(), self.save(entry.get_text().strip()))  # noqa: E731
        self.window_actions[ok] = act
        self.window_actions[entry] = act

    def _close_windows(self) -> None:
        for w in self.windows:
            w.kill()
        self.windows.clear()
        self.window_actions.clear()

    # --- events -------------------------------------------------------------------------
    def _entry_focused(self) -> bool:
        focus = self.ui.get_focus_set() or set()
        return any(isinstance(e, UITextEntryLine) for e in focus)

    def _over_ui(self, pos) -> bool:
        return any(w.get_abs_rect().collidepoint(pos) for w in self.windows if w.alive())

    def handle_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        t = event.type
        if t == pygame_gui.UI_BUTTON_PRESSED or t == pygame_gui.UI_TEXT_ENTRY_FINISHED:
            act = self.window_actions.get(event.ui_element)
            if act is not None:
                act()
                return None
            if t == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element in self.panel_fields:
                self.panel_fields[event.ui_element](event.text)
                self._panel_key = None
                return None
            return event
        if t == pygame_gui.UI_DROP_DOWN_MENU_CHANGED and event.ui_element in self.panel_fields:
            self.panel_fields[event.ui_element](event.text)
            self._panel_key = None
            return None
        if t == pygame_gui.UI_WINDOW_CLOSE:
            self.windows = [w for w in self.windows if w is not event.ui_element]
            return None
        if t == pygame.QUIT:
            if self.doc.dirty and not self._confirm_close:
                self._confirm_close = True
                self.say("unsaved changes: close again to discard them (Ctrl+S saves)", bad=True)
            else:
                self.close_requested = True
            return None
        if t == pygame.KEYDOWN:
            if self._entry_focused():
                if event.key == pygame.K_ESCAPE:
                    self.ui.set_focus_set(None)
                    return None
                if not (event.mod & pygame.KMOD_CTRL):
                    return event
            cmd = command_for(event)
            if cmd is None and event.key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_UP, pygame.K_DOWN):
                cmd = {pygame.K_LEFT: "nudge_left", pygame.K_RIGHT: "nudge_right", pygame.K_UP: "nudge_up",
                       pygame.K_DOWN: "nudge_down"}[event.key]
            if cmd:
                self._confirm_close = False
                self.command(cmd)
                return None
            return event
        if t == pygame.MOUSEMOTION:
            self.mouse_px = event.pos
            if self.drag is not None:
                self._drag_to(event.pos, event)
            return None
        if t == pygame.MOUSEWHEEL:
            mx, my = pygame.mouse.get_pos()
            if self.view.collidepoint((mx, my)):
                self.camera.zoom_about(mx, my, 1.15 if event.y > 0 else 1 / 1.15)
            return None
        if t == pygame.MOUSEBUTTONDOWN:
            if self._over_ui(event.pos):
                return event
            self.mouse_px = event.pos
            if event.button == 1:
                if self._click_chrome(event.pos):
                    return None
                if self.view.collidepoint(event.pos):
                    self._press(event.pos, event)
                    return None
            elif event.button == 3 and self.view.collidepoint(event.pos):
                if self.points:
                    self.finish_polygon()
                else:
                    self.command("cancel")
                return None
            elif event.button == 2 and self.view.collidepoint(event.pos):
                self.drag = {"mode": "pan", "last": event.pos}
                return None
            return event
        if t == pygame.MOUSEBUTTONUP:
            self.mouse_px = event.pos
            if self.drag is not None and event.button in (1, 2):
                self._release(event.pos, event)
                return None
            return event
        return event

    def _click_chrome(self, pos) -> bool:
        for r, kind, key in self.button_rects:
            if r.collidepoint(pos):
                if kind == "tool":
                    self.set_tool(key)
                elif kind == "kind":
                    self.command("kind_" + key)
                else:
                    self.command(key)
                return True
        for r, finding in self.problem_rects:
            if r.collidepoint(pos):
                self.focus_problem(finding)
                return True
        return False

    def focus_problem(self, finding: Finding) -> None:
        if finding.ref is not None and self.doc.exists(finding.ref):
            self.select([finding.ref])
            self.highlight = finding.ref
            self.say(f"line {finding.problem.line}: {finding.message}", bad=True)
        else:
            self.say(f"line {finding.problem.line}: {finding.message} (the whole map)", bad=True)

    # --- pressing and dragging on the board -----------------------------------------------
    def _press(self, pos, event) -> None:
        d = self.doc
        p_raw = self.to_in(pos)
        p = d.snap_point(p_raw)
        slack = PICK_PX / self.camera.scale
        if self.tool == "select":
            handle = self._handle_at(pos)
            if handle is not None:
                self.drag = {"mode": "resize", "ref": handle[0], "corner": handle[1], "start": p_raw,
                             "bounds": d.bounds(handle[0]), "cur": p_raw}
                return
            hit = d.item_at(p_raw, slack)
            shift = bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT) or bool(pygame.key.get_mods() & pygame.KMOD_SHIFT)
            if hit is None:
                if not shift:
                    self.select([])
                return
            if shift:
                self.select([r for r in self.selection if r != hit] if hit in self.selection else self.selection + [hit])
                return
            if hit not in self.selection:
                self.select([hit])
            self._start_move(p_raw)
        elif self.tool in ("rect", "wall"):
            self.drag = {"mode": self.tool, "start": p, "cur": p}
        elif self.tool in ("poly", "zone"):
            now = time.monotonic()
            last_t, last_pos = self._last_click
            self._last_click = (now, pos)
            if self.points and now - last_t < DOUBLE_CLICK_S and math.dist(last_pos, pos) < 6:
                self.finish_polygon()
                return
            if len(self.points) >= 3 and math.dist(self.camera.to_px(*self.points[0]), pos) <= 8:
                self.finish_polygon()
                return
            if self.tool == "zone" and self.warband is None:
                self.say("no warband: load a roster first (Ctrl+O)", bad=True)
                return
            if not self.points or self.points[-1] != p:
                self.points.append(p)
            self.say(f"point {len(self.points)} at [{_fmt(p[0])}, {_fmt(p[1])}]; Enter / right click closes")
        elif self.tool == "ladder":
            lid = self._try(d.add_ladder, p_raw)
            if lid:
                self.select([("ladder", lid)])
                lad = d.ladder(lid)
                self.say(f"ladder {lid}: foot [{_fmt(lad.foot[0])}, {_fmt(lad.foot[1])}] beside {lad.top}")
        elif self.tool == "treasure":
            hit = d.item_at(p_raw, slack)
            if hit and hit[0] == "treasure":
                self.select([hit])
                return
            tid = self._try(d.add_treasure, p, self.token_event)
            if tid:
                self.select([("treasure", tid)])
                self.say(f"token {tid} at [{_fmt(p[0])}, {_fmt(p[1])}] hides: {self.token_event}")
        elif self.tool == "unit":
            self._place_unit(p)

    def _place_unit(self, p) -> None:
        d = self.doc
        if self.warband is None:
            self.say("no warband: load a roster first (Ctrl+O)", bad=True)
            return
        todo = d.to_place(self.warband)
        if not todo:
            self.say(f"warband {self.warband} has no roster loaded (Ctrl+O)", bad=True)
            return
        order = list(range(self.entry, len(todo))) + list(range(0, self.entry))
        pick = next((i for i in order if todo[i][1] > 0), None)
        if pick is None:
            self.say(f"every unit of {self.warband}'s roster is placed", bad=True)
            return
        self.entry = pick
        e, left = todo[pick]
        uid = self._try(d.place_from_roster, self.warband, e.stem, p)
        if uid:
            u = d.unit(uid)
            self.select([("unit", uid)])
            slid = "" if (abs(u.x - p[0]) < 1e-6 and abs(u.y - p[1]) < 1e-6) else " (slid out of overlap)"
            self.say(f"placed {uid} at [{_fmt(u.x)}, {_fmt(u.y)}]{slid}; {left - 1} {e.name} left")

    def _start_move(self, p_raw) -> None:
        terrain = [k for kind, k in self.selection if kind == "terrain"]
        if terrain:
            moving = set(terrain)
            g = copy.copy(self.doc.sc)
            g.terrain = [t for t in self.doc.sc.terrain if t.id not in moving]
            g.ladders = [l for l in self.doc.sc.ladders if l.top not in moving]
            self.ghost = BoardPainter(g, None)
        self.drag = {"mode": "move", "start": p_raw, "cur": p_raw, "moved": False}

    def _delta(self) -> tuple[float, float]:
        dr = self.drag
        dx, dy = dr["cur"][0] - dr["start"][0], dr["cur"][1] - dr["start"][1]
        return (self.doc.snap(dx), self.doc.snap(dy))

    def _drag_to(self, pos, event) -> None:
        dr = self.drag
        if dr["mode"] == "pan":
            self.camera.pan(pos[0] - dr["last"][0], pos[1] - dr["last"][1])
            dr["last"] = pos
            return
        cur = self.to_in(pos)
        dr["cur"] = cur if dr["mode"] in ("move", "resize") else self.doc.snap_point(cur)
        if dr["mode"] == "move" and math.dist(self.camera.to_px(*dr["start"]), pos) > 3:
            dr["moved"] = True

    def _release(self, pos, event) -> None:
        d = self.doc
        dr, self.drag = self.drag, None
        self.ghost = None
        mode = dr["mode"]
        if mode == "pan":
            return
        if mode == "move" and math.dist(self.camera.to_px(*dr["start"]), pos) > 3:
            dr["moved"] = True
        dr["cur"] = self.to_in(pos) if mode in ("move", "resize") else d.snap_point(self.to_in(pos))
        if mode == "move":
            if not dr.get("moved"):
                return
            self.drag = dr
            dx, dy = self._delta()
            self.drag = None
            if len(self.selection) == 1 and self.selection[0][0] == "unit":
                uid = self.selection[0][1]
                u = d.unit(uid)
                at = self._try(d.place_unit_at, uid, (d.snap(u.x + dx), d.snap(u.y + dy)))
                if at:
                    self.say(f"{uid} at [{_fmt(at[0])}, {_fmt(at[1])}]")
            elif dx or dy:
                self._try(d.move, self.selection, dx, dy)
                if not self.failed:
                    self.say(f"moved by [{_fmt(dx)}, {_fmt(dy)}]")
        elif mode == "resize":
            ref, corner = dr["ref"], dr["corner"]
            x0, y0, x1, y1 = dr["bounds"]
            cx, cy = d.snap_point(dr["cur"])
            nb = [x0, y0, x1, y1]
            nb[0 if corner[0] == 0 else 2] = cx
            nb[1 if corner[1] == 0 else 3] = cy
            self._try(d.resize, ref, tuple(nb))
            if not self.failed:
                b = d.bounds(ref)
                self.say(f"{ref[1]} is {_fmt(b[2] - b[0])}\" x {_fmt(b[3] - b[1])}\"")
        elif mode == "rect":
            (ax, ay), (bx, by) = dr["start"], dr["cur"]
            if abs(bx - ax) < 1e-6 or abs(by - ay) < 1e-6:
                self.say("drag to draw a rectangle", bad=True)
                return
            tid = self._try(d.add_rect, self.kind, dr["start"], dr["cur"])
            if tid:
                self.select([("terrain", tid)])
                self.say(f"{self.kind} {tid}: {_fmt(abs(bx - ax))}\" x {_fmt(abs(by - ay))}\"")
        elif mode == "wall":
            if dr["start"] == dr["cur"]:
                self.say("drag to draw a wall line", bad=True)
                return
            tid = self._try(d.add_wall, dr["start"], dr["cur"], self.wall_thickness)
            if tid:
                self.select([("terrain", tid)])
                length = math.dist(dr["start"], dr["cur"])
                self.say(f"wall {tid}: {_fmt(length)}\" long, {_fmt(self.wall_thickness)}\" thick")

    def finish_polygon(self) -> None:
        pts = list(self.points)
        if len(pts) < 3:
            self.say(f"a polygon needs 3 points or more (has {len(pts)})", bad=True)
            return
        self.points = []
        if self.tool == "zone":
            if self.warband is None:
                self.say("no warband: load a roster first", bad=True)
                return
            self._try(self.doc.set_zone, self.warband, pts)
            if not self.failed:
                self.select([("zone", self.warband)])
                self.say(f"deployment zone of {self.warband} drawn")
        else:
            tid = self._try(self.doc.add_terrain, self.kind, pts)
            if tid:
                self.select([("terrain", tid)])
                self.say(f"{self.kind} {tid} with {len(pts)} corners")

    def _handle_at(self, pos) -> tuple[Ref, tuple[int, int]] | None:
        if len(self.selection) != 1 or self.selection[0][0] not in ("terrain", "zone"):
            return None
        ref = self.selection[0]
        x0, y0, x1, y1 = self.doc.bounds(ref)
        for cx, cy, corner in ((x0, y0, (0, 0)), (x1, y0, (1, 0)), (x1, y1, (1, 1)), (x0, y1, (0, 1))):
            px, py = self.camera.to_px(cx, cy)
            if abs(px - pos[0]) <= HANDLE_PX + 2 and abs(py - pos[1]) <= HANDLE_PX + 2:
                return ref, corner
        return None

    # --- properties panel (pygame_gui) -------------------------------------------------------
    def _panel_signature(self) -> Any:
        return (tuple(self.selection), self.doc.revision, self.size, self.tool)

    def _kill_panel(self) -> None:
        for e in self.panel_elements:
            e.kill()
        self.panel_elements.clear()
        self.panel_fields.clear()

    def _build_panel(self) -> None:
        self._kill_panel()
        p = self.panel
        x, y, pw = p.x + 10, 34, p.w - 20
        ui = self.ui

        def label(text: str, lw: int = 108) -> None:
            el = UILabel(pygame.Rect(x, y, lw, 28), text, ui)
            self.panel_elements.append(el)

        def entry(text: str, value: str, apply: Callable[[str], None], numbers: bool = False) -> UITextEntryLine:
            nonlocal y
            label(text)
            el = UITextEntryLine(pygame.Rect(x + 110, y, pw - 110, 28), ui)
            el.set_text(value)
            if numbers:
                el.set_allowed_characters([*"0123456789.-"])
            self.panel_elements.append(el)
            self.panel_fields[el] = apply
            y += 32
            return el

        def choice(text: str, options: tuple[str, ...], value: str, apply: Callable[[str], None]) -> None:
            nonlocal y
            label(text)
            el = UIDropDownMenu(list(options), value, pygame.Rect(x + 110, y, pw - 110, 28), ui)
            self.panel_elements.append(el)
            self.panel_fields[el] = apply
            y += 32

        d = self.doc
        if len(self.selection) == 1:
            kind, key = self.selection[0]
            if kind == "terrain":
                t = d.terrain(key)
                entry("id", t.id, lambda v, k=key: self._set_terrain(k, new_id=v.strip()))
                choice("kind", TERRAIN_KINDS, t.kind, lambda v, k=key: self._set_terrain(k, kind=v))
                entry("height (in)", _fmt(t.height), lambda v, k=key: self._set_terrain(k, height=v), numbers=True)
            elif kind == "treasure":
                tok = d.token(key)
                choice("hides", EVENT_KINDS, tok.event, lambda v, k=key: self._try(d.set_treasure, k, event=v))
                entry("size (mm)", _fmt(tok.size_mm), lambda v, k=key: self._num(v, lambda n: d.set_treasure(k, size_mm=n)), numbers=True)
            elif kind == "unit":
                u = d.unit(key)
                entry("name", u.name, lambda v, k=key: self._try(d.set_unit, k, name=v))
                choice("status", STATUSES, u.status, lambda v, k=key: self._try(d.set_unit, k, status=v))
                for stat, value in u.stats.items():
                    entry(stat, _fmt(value), lambda v, k=key, s=stat: self._num(v, lambda n: d.set_unit(k, stats={s: n})), numbers=True)
                entry("base (mm)", _fmt(u.base_mm), lambda v, k=key: self._num(v, lambda n: d.set_unit(k, base_mm=n)), numbers=True)
                entry("keywords", ", ".join(u.keywords),
                      lambda v, k=key: self._try(d.set_unit, k, keywords=[s.strip() for s in v.replace(",", " ").split() if s.strip()]))
            elif kind in ("zone", "warband"):
                w = d.warband(key)
                entry("warband", w.name, lambda v, k=key: self._try(d.set_warband, k, name=v))
                entry("player", str(w.player), lambda v, k=key: self._num(v, lambda n: d.set_warband(k, player=int(n))), numbers=True)
        elif not self.selection:
            entry("map name", d.sc.name, lambda v: self._try(d.set_name, v))
            entry("wall (in)", _fmt(self.wall_thickness), lambda v: self._num(v, self._set_thickness), numbers=True)
            if self.warband:
                w = d.warband(self.warband)
                entry("warband", w.name, lambda v, k=w.id: self._try(d.set_warband, k, name=v))
        self.panel_bottom = y

    def _set_thickness(self, n: float) -> None:
        if n <= 0:
            raise EditError(f"a wall needs a thickness more than 0, not {n:g}")
        self.wall_thickness = n
        self.say(f"walls are {_fmt(n)}\" thick")

    def _num(self, text: str, fn: Callable[[float], Any]) -> None:
        try:
            n = float(text)
        except ValueError:
            self.say(f"not a number: {text!r}", bad=True)
            return
        if not math.isfinite(n):
            self.say(f"not a number: {text!r}", bad=True)
            return
        self._try(fn, n)

    def _set_terrain(self, tid: str, kind: str | None = None, height: str | None = None, new_id: str | None = None) -> None:
        h = None
        if height is not None:
            try:
                h = float(height)
            except ValueError:
                self.say(f"height: not a number: {height!r}", bad=True)
                return
        nid = self._try(self.doc.set_terrain, tid, kind=kind, height=h, new_id=new_id or None)
        if nid and nid != tid:
            self.selection = [("terrain", nid) if r == ("terrain", tid) else r for r in self.selection]

    # --- update and draw -----------------------------------------------------------------------
    def update(self, dt: float) -> None:
        if self.drag is None:
            if self.doc.revision != self._painted_rev:
                self._prune()
                key = self._static_key()
                if key != self._static:  # units and tokens are drawn every frame anyway
                    self.painter.invalidate()
                    self._static = key
                self._painted_rev = self.doc.revision
            self.doc.validate()
        sig = self._panel_signature()
        if sig != self._panel_key and not self._entry_focused() and self.drag is None:
            self._build_panel()
            self._panel_key = sig

    def _static_key(self) -> tuple:
        """What the painter's cached layer and labels depend on (not unit positions)."""
        sc = self.doc.sc
        names = tuple((u.id, u.name, u.warband) for u in sc.state.units.values())
        return copy.deepcopy((sc.width, sc.height, sc.terrain, sc.ladders, sc.deployment, sc.warbands)) + (names,)

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(BG)
        view = self.view
        surface.fill(theme.PAGE, view)
        surface.set_clip(view)
        painter = self.ghost or self.painter
        sel_units = [k for kind, k in self.selection if kind == "unit"]
        painter.draw(surface, self.camera, self.doc.sc.state, reveal=True, selected=sel_units)
        painter.draw_edge_numbers(surface, self.camera, "tl")
        self._draw_overlays(surface)
        surface.set_clip(None)
        self._draw_toolbar(surface)
        self._draw_panel(surface)
        self._draw_status(surface)
        if self.show_help:
            self._draw_help(surface)

    def _poly_px(self, pts, dx=0.0, dy=0.0):
        return self.camera.points_px([(x + dx, y + dy) for x, y in pts])

    def _outline(self, surface, ref: Ref, colour, width: int, dx=0.0, dy=0.0) -> None:
        d, cam = self.doc, self.camera
        kind, key = ref
        if not d.exists(ref):
            return
        if kind in ("terrain", "zone"):
            pts = self._poly_px(d.points_of(ref), dx, dy)
            pygame.draw.polygon(surface, SEL_EDGE, pts, width + 2)
            pygame.draw.polygon(surface, colour, pts, width)
        else:
            (x, y), = d.points_of(ref)
            r = {"unit": lambda: d.unit(key).r, "treasure": lambda: d.token(key).r}.get(kind, lambda: 0.3)()
            cx, cy = cam.to_px(x + dx, y + dy)
            pygame.draw.circle(surface, SEL_EDGE, (cx, cy), r * cam.scale + 5, width + 2)
            pygame.draw.circle(surface, colour, (cx, cy), r * cam.scale + 5, width)

    def _draw_overlays(self, surface: pygame.Surface) -> None:
        d, cam = self.doc, self.camera
        dr = self.drag
        dx = dy = 0.0
        if dr and dr["mode"] == "move":
            dx, dy = self._delta()
            for ref in d._with_attached(self.selection):
                if ref[0] == "terrain":
                    t = d.terrain(ref[1])
                    fill = theme.WALL_HIGH if t.kind == "wall" else (theme.DIFFICULT_FILL if t.kind == "difficult" else
                                                                     theme.IMPASSABLE_FILL if t.kind == "impassable" else theme.HEIGHT_STOPS[3][1])
                    draw_geometry(surface, cam, Polygon([(x + dx, y + dy) for x, y in t.polygon]), fill=fill, alpha=200)
                elif ref[0] == "unit":
                    u = d.unit(ref[1])
                    pygame.draw.circle(surface, self.painter.warband_colour(u.warband), cam.to_px(u.x + dx, u.y + dy), u.r * cam.scale)
                elif ref[0] == "treasure":
                    tok = d.token(ref[1])
                    pygame.draw.circle(surface, theme.TOKEN_GOLD, cam.to_px(tok.x + dx, tok.y + dy), tok.r * cam.scale)
        for ref in self.selection:
            self._outline(surface, ref, SEL, 2, dx, dy)
        if self.highlight is not None:
            blink = (pygame.time.get_ticks() // 300) % 2 == 0
            self._outline(surface, self.highlight, PROBLEM if blink else (255, 160, 160), 4)
        # Resize handles.
        if len(self.selection) == 1 and self.selection[0][0] in ("terrain", "zone") and not (dr and dr["mode"] == "move"):
            x0, y0, x1, y1 = d.bounds(self.selection[0])
            if dr and dr["mode"] == "resize":
                cx, cy = d.snap_point(dr["cur"])
                nb = [x0, y0, x1, y1]
                nb[0 if dr["corner"][0] == 0 else 2] = cx
                nb[1 if dr["corner"][1] == 0 else 3] = cy
                x0, y0, x1, y1 = nb
                pygame.draw.polygon(surface, DRAFT, self._poly_px(rect((x0, y0), (x1, y1))), 2)
                self._label_at(surface, f"{_fmt(abs(x1 - x0))}\" x {_fmt(abs(y1 - y0))}\"")
            for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
                px, py = cam.to_px(cx, cy)
                r = pygame.Rect(0, 0, HANDLE_PX * 2, HANDLE_PX * 2)
                r.center = (round(px), round(py))
                surface.fill(SEL_EDGE, r.inflate(2, 2))
                surface.fill(SEL, r)
        # Drafts with live coordinates.
        mouse_in = self.to_in(self.mouse_px)
        snap_in = d.snap_point(mouse_in)
        if dr and dr["mode"] == "rect":
            pts = rect(dr["start"], dr["cur"])
            pygame.draw.polygon(surface, DRAFT, self._poly_px(pts), 2)
            (ax, ay), (bx, by) = dr["start"], dr["cur"]
            self._label_at(surface, f"[{_fmt(bx)}, {_fmt(by)}]  {_fmt(abs(bx - ax))}\" x {_fmt(abs(by - ay))}\"")
        elif dr and dr["mode"] == "wall":
            if dr["start"] != dr["cur"]:
                pygame.draw.polygon(surface, DRAFT, self._poly_px(wall_polygon(dr["start"], dr["cur"], self.wall_thickness)), 2)
            self._label_at(surface, f"[{_fmt(dr['cur'][0])}, {_fmt(dr['cur'][1])}]  {_fmt(math.dist(dr['start'], dr['cur']))}\" long")
        elif dr and dr["mode"] == "move" and dr.get("moved"):
            self._label_at(surface, f"move [{_fmt(dx)}, {_fmt(dy)}]")
        if self.points:
            pts = self.points + [snap_in]
            if self.tool == "zone" and self.warband:
                colour = self.painter.warband_colour(self.warband)
            else:
                colour = DRAFT
            pygame.draw.lines(surface, colour, False, self._poly_px(pts), 2)
            for q in self.points:
                pygame.draw.circle(surface, colour, cam.to_px(*q), 4)
            self._label_at(surface, f"[{_fmt(snap_in[0])}, {_fmt(snap_in[1])}]  point {len(self.points) + 1}")
        elif self.tool in ("rect", "wall", "poly", "zone", "treasure", "unit") and not dr and self.view.collidepoint(self.mouse_px):
            px, py = cam.to_px(*snap_in)
            pygame.draw.line(surface, DRAFT, (px - 6, py), (px + 6, py), 1)
            pygame.draw.line(surface, DRAFT, (px, py - 6), (px, py + 6), 1)
            self._label_at(surface, f"[{_fmt(snap_in[0])}, {_fmt(snap_in[1])}]")

    def _label_at(self, surface: pygame.Surface, text: str) -> None:
        f = get_font(14, "bold")
        img = f.render(text, True, (20, 20, 20))
        x, y = self.mouse_px[0] + 16, self.mouse_px[1] + 14
        box = pygame.Rect(x - 4, y - 2, img.get_width() + 8, img.get_height() + 4)
        surface.fill((255, 250, 220), box)
        pygame.draw.rect(surface, (20, 20, 20), box, 1)
        surface.blit(img, (x, y))

    def _button(self, surface, r: pygame.Rect, text: str, on: bool, kind: str, key: str) -> None:
        pygame.draw.rect(surface, BUTTON_ON if on else BUTTON, r, border_radius=4)
        img = get_font(13, "bold").render(text, True, BUTTON_TEXT)
        surface.blit(img, img.get_rect(center=r.center))
        self.button_rects.append((r, kind, key))

    def _draw_toolbar(self, surface: pygame.Surface) -> None:
        self.button_rects = []
        y = 8
        surface.fill((44, 39, 34), pygame.Rect(0, 0, self.TOOLBAR_W, self.size[1]))
        for key, text in TOOLS:
            self._button(surface, pygame.Rect(6, y, self.TOOLBAR_W - 12, 28), text, self.tool == key, "tool", key)
            y += 32
        y += 8
        for key, text in KIND_BUTTONS:
            self._button(surface, pygame.Rect(6, y, self.TOOLBAR_W - 12, 24), text, self.kind == key, "kind", key)
            y += 27
        y += 8
        for key, text in ACTION_BUTTONS:
            if key == "snap":
                s = self.doc.snap_step
                text = f"Snap {_fmt(s)}\"" if s else "Snap off"
            on = (key == "undo" and self.doc.can_undo) or (key == "redo" and self.doc.can_redo)
            self._button(surface, pygame.Rect(6, y, self.TOOLBAR_W - 12, 24), text, False, "action", key)
            if key in ("undo", "redo") and not on:
                pygame.draw.rect(surface, (44, 39, 34), pygame.Rect(6, y, self.TOOLBAR_W - 12, 24), 0, border_radius=4)
                img = get_font(13, "bold").render(text, True, (120, 110, 100))
                surface.blit(img, img.get_rect(center=pygame.Rect(6, y, self.TOOLBAR_W - 12, 24).center))
            y += 27

    def _text(self, surface, text: str, pos, size: int = 13, colour=theme.INK, bold: bool = False) -> int:
        img = get_font(size, "bold" if bold else "regular").render(text, True, colour)
        surface.blit(img, pos)
        return img.get_height()

    def _draw_panel(self, surface: pygame.Surface) -> None:
        p = self.panel
        surface.fill(PANEL_BG, p)
        pygame.draw.line(surface, theme.INK, p.topleft, p.bottomleft, 2)
        d = self.doc
        x = p.x + 10
        title = "Map" if not self.selection else (f"{self.selection[0][0]} {self.selection[0][1]}" if len(self.selection) == 1
                                                  else f"{len(self.selection)} items")
        self._text(surface, title, (x, 8), 15, bold=True)
        y = max(getattr(self, "panel_bottom", 40), 40) + 6
        # Warbands and what is left to place.
        if self.tool in ("unit", "zone") or not self.selection:
            for w in d.sc.warbands:
                n = len(d.sc.state.units_of(w.id))
                zone = "zone" if w.id in d.sc.deployment else "no zone"
                mark = ">" if w.id == self.warband else " "
                y += self._text(surface, f"{mark} {w.id} (player {w.player}): {n} units, {zone}", (x, y), 13,
                                self.painter.warband_colour(w.id), bold=w.id == self.warband) + 2
            if self.warband and self.tool == "unit":
                for i, (e, left) in enumerate(d.to_place(self.warband)):
                    mark = ">" if i == self.entry else " "
                    y += self._text(surface, f"   {mark} {e.name} {e.base_mm:g}mm  {left} left", (x, y), 12,
                                    theme.INK if left else theme.INK_SOFT, bold=i == self.entry) + 1
            y += 6
        # Validation.
        findings = d.validate()
        top = max(y, p.h // 2 - 40)
        pygame.draw.line(surface, theme.INK_SOFT, (x, top - 4), (p.right - 10, top - 4), 1)
        if findings:
            self._text(surface, f"{len(findings)} problem(s) (click one):", (x, top), 14, PROBLEM, bold=True)
        else:
            self._text(surface, "No problems: speedheim check passes", (x, top), 14, (30, 120, 50), bold=True)
        self._text(surface, f"checked in {d.last_validation_ms:.0f} ms", (x, top + 18), 11, theme.INK_SOFT)
        y = top + 36
        self.problem_rects = []
        f = get_font(12, "regular")
        for fd in findings:
            if y > p.bottom - 20:
                self._text(surface, "...", (x, y), 12)
                break
            lines = _wrap(f"line {fd.problem.line}: {fd.message}", f, p.w - 24)
            r = pygame.Rect(x - 4, y - 1, p.w - 12, 16 * len(lines) + 2)
            if fd.ref is not None and fd.ref == self.highlight:
                surface.fill((255, 220, 220), r)
            for ln in lines:
                surface.blit(f.render(ln, True, (140, 20, 20)), (x, y))
                y += 16
            self.problem_rects.append((r, fd))
            y += 4

    def _draw_status(self, surface: pygame.Surface) -> None:
        w, h = self.size
        r = pygame.Rect(0, h - self.STATUS_H, w, self.STATUS_H)
        surface.fill((30, 27, 24), r)
        mx, my = self.to_in(self.mouse_px)
        s = self.doc.snap_step
        left = (f"{self.tool} | {self.kind} | snap {_fmt(s) + chr(34) if s else 'off'} | "
                f"x {mx:6.2f}\" y {my:6.2f}\" | {'*' if self.doc.dirty else ''}{os.path.basename(self.doc.path or 'untitled')}")
        self._text(surface, left, (8, r.y + 5), 13, (230, 224, 210))
        colour = (255, 140, 120) if self.message_bad else (230, 224, 210)
        self._text(surface, self.message, (440, r.y + 5), 13, colour)

    def _draw_help(self, surface: pygame.Surface) -> None:
        lines = [h for _, _, _, h in KEYS] + [""] + list(MOUSE_HELP)
        box = pygame.Rect(self.view.x + 20, 20, 560, 20 + 17 * len(lines))
        surface.fill((250, 246, 236), box)
        pygame.draw.rect(surface, theme.INK, box, 2)
        y = box.y + 10
        for ln in lines:
            self._text(surface, ln, (box.x + 12, y), 13)
            y += 17


def _wrap(text: str, font: pygame.font.Font, width: int) -> list[str]:
    words = text.split()
    lines, cur = [], ""
    for word in words:
        test = f"{cur} {word}".strip()
        if font.size(test)[0] <= width or not cur:
            cur = test
        else:
            lines.append(cur)
            cur = word
    if cur:
        lines.append(cur)
    return lines or [""]
