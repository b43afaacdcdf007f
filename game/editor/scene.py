"""The editor scene: the map editor as a scene of the one app shell.

``EditorScene(app, doc)`` follows the scene protocol (``handle_event``, ``update``,
``draw``). It changes the map only through :class:`Document` commands, so every edit
is one undo step and every refusal is a message in the status bar. Only the
:class:`~game.ui.camera.Camera` converts inches and pixels. Its parts each have one
job: the board tools (press, drag, release), the overlay (drafts and selection), the
chrome (tool bar, status bar), the properties panel, the problems panel, and the file
operations (save, rosters, play).
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import pygame

from game.editor.chrome import STATUS_H, TOOLBAR_W, EditorChrome
from game.editor.document import Document
from game.editor.edits import DEFAULT_WALL_THICKNESS, EditError, Ref
from game.editor.files import DEFAULT_ROSTER_DIR, EditorFiles
from game.editor.overlay import EditorOverlay
from game.editor.panel import PropertiesPanel
from game.editor.problems import ProblemsPanel
from game.editor.tools import BoardTools, fmt
from game.engine.errors import LoadError
from game.engine.model import EVENT_KINDS
from game.ui import theme
from game.ui.camera import Camera
from game.ui.keymap import EDITOR
from game.ui.render import BoardPainter
from game.ui.scenes.base import Scene
from game.ui.scenes.overlays import HelpScene

PANEL_W = 330
TOOL_HINTS = {
    "select": "click to select (Shift adds), drag to move, drag a corner to resize",
    "rect": "drag a rectangle of {kind} (1-4 change the kind)",
    "poly": "click the corners of a {kind}; Enter, right click or double click closes it",
    "wall": 'drag a wall line {thick}" thick (thickness in the panel)',
    "ladder": "click a block's edge: the foot goes on the ground beside it",
    "treasure": "click to place a token hiding: {event} (E cycles)",
    "zone": "click the corners of the active warband's zone (Tab: next warband)",
    "unit": "click inside the active warband's zone to place its next unit (Tab, [ ])",
}


class EditorScene(Scene):
    title = "Speedheim map editor"

    def __init__(self, app, doc: Document, roster_dir: str = DEFAULT_ROSTER_DIR):
        super().__init__(app)
        self.doc = doc
        self.camera = Camera()
        self.painter = BoardPainter(doc.sc, doc.board)
        self._painted_rev = doc.revision
        self._static = self._static_key()
        self.tool = "select"
        self.kind = "block"
        self.selection: list[Ref] = []
        self.highlight: Ref | None = None
        self.mouse_px = (0, 0)
        self.message = "F1: help. Draw with the tools on the left; the right panel edits the selection."
        self.message_bad = False
        self.failed = False
        self.warband: str | None = doc.sc.warbands[0].id if doc.sc.warbands else None
        self.entry = 0
        self.token_event = "none"
        self.wall_thickness = DEFAULT_WALL_THICKNESS
        self._confirm_close = False
        self.tools = BoardTools(self)
        self.overlay = EditorOverlay(self, self.tools)
        self.chrome = EditorChrome(self)
        self.properties = PropertiesPanel(self, self.tools)
        self.problems = ProblemsPanel(self)
        self.files = EditorFiles(self, roster_dir)
        self.commands = self._command_table()
        self.fit()

    # --- layout ---------------------------------------------------------------------------
    @property
    def size(self) -> tuple[int, int]:
        return self.app.size

    @property
    def view(self) -> pygame.Rect:
        w, h = self.size
        return pygame.Rect(TOOLBAR_W, 0, max(50, w - TOOLBAR_W - PANEL_W), max(50, h - STATUS_H))

    @property
    def panel(self) -> pygame.Rect:
        w, h = self.size
        return pygame.Rect(w - PANEL_W, 0, PANEL_W, h - STATUS_H)

    def fit(self) -> None:
        self.camera.fit(self.doc.sc.width, self.doc.sc.height, self.view, margin=24)

    def resize(self, size: tuple[int, int]) -> None:
        self.properties.forget()
        self.fit()

    def to_in(self, pos) -> tuple[float, float]:
        return self.camera.to_in(*pos)

    # --- messages and selection -----------------------------------------------------------------
    def say(self, text: str, bad: bool = False) -> None:
        self.message, self.message_bad = text, bad

    def attempt(self, fn: Callable, *args, **kwargs) -> Any:
        """Run a document command; a refusal becomes the status message (and ``failed``)."""
        self.failed = False
        try:
            return fn(*args, **kwargs)
        except EditError as exc:
            self.say(f"refused: {exc}", bad=True)
        except LoadError as exc:
            self.say(str(exc.problems[0]) if exc.problems else "cannot load", bad=True)
        self.failed = True
        return None

    def select(self, refs: list[Ref]) -> None:
        self.selection = [r for r in refs if self.doc.exists(r)]
        if self.highlight not in self.selection:
            self.highlight = None

    def _prune(self) -> None:
        self.selection = [r for r in self.selection if self.doc.exists(r)]
        if self.warband is not None and not self.doc.exists(("warband", self.warband)):
            self.warband = self.doc.sc.warbands[0].id if self.doc.sc.warbands else None

    def finish_polygon(self) -> None:
        self.tools.finish_polygon()

    # --- commands -------------------------------------------------------------------------------
    def _command_table(self) -> dict[str, Callable[[], Any]]:
        """Every named command of the keymap and the tool bar, and what it does."""
        d = self.doc
        table: dict[str, Callable[[], Any]] = {
            "undo": lambda: self._history(d.undo, "undid", "nothing to undo"),
            "redo": lambda: self._history(d.redo, "redid", "nothing to redo"),
            "rotate": lambda: self._rotate(1),
            "rotate_back": lambda: self._rotate(-1),
            "duplicate": self._duplicate,
            "delete": self._delete,
            "snap": self._snap,
            "save": lambda: self.files.save(),
            "save_as": lambda: self.files.save_as(),
            "play": self.files.play,
            "roster": self.files.roster_dialog,
            "event": self._cycle_event,
            "warband": self._next_warband,
            "entry": lambda: self._next_entry(1),
            "entry_back": lambda: self._next_entry(-1),
            "finish": lambda: self.finish_polygon(),
            "cancel": self._cancel,
            "fit": self.fit,
            "help": lambda: self.app.push(HelpScene(self.app, EDITOR, "Speedheim map editor")),
            "quit": self.app.quit,
        }
        for cmd in EDITOR.commands():
            if cmd.startswith("tool_"):
                table[cmd] = lambda t=cmd[5:]: self.set_tool(t)
            elif cmd.startswith("kind_"):
                table[cmd] = lambda k=cmd[5:]: self._set_kind(k)
            elif cmd.startswith("nudge_"):
                dx, dy = {"nudge_left": (-1, 0), "nudge_right": (1, 0), "nudge_up": (0, -1), "nudge_down": (0, 1)}[cmd]
                table[cmd] = lambda dx=dx, dy=dy: self._nudge(dx, dy)
        return table

    def command(self, cmd: str) -> None:
        self.commands[cmd]()

    def set_tool(self, tool: str) -> None:
        self.tool = tool
        self.tools.reset()
        self.say(TOOL_HINTS[tool].format(kind=self.kind, thick=fmt(self.wall_thickness), event=self.token_event))

    def _set_kind(self, kind: str) -> None:
        self.kind = kind
        self.say(f"new pieces are {kind}")

    def _history(self, step: Callable[[], str | None], done: str, nothing: str) -> None:
        label = step()
        self._prune()
        self.say(f"{done}: {label}" if label else nothing)

    def _rotate(self, steps: int) -> None:
        if self.selection:
            self.attempt(self.doc.rotate, self.selection, steps)
            if not self.failed:
                self.say(f"rotated {'+' if steps > 0 else '-'}15 deg")

    def _duplicate(self) -> None:
        new = self.attempt(self.doc.duplicate, self.selection) if self.selection else None
        if new:
            self.select(new)
            self.say(f"duplicated {len(new)} item(s)")

    def _delete(self) -> None:
        if self.selection:
            n = len(self.selection)
            self.attempt(self.doc.delete, self.selection)
            self._prune()
            self.say(f"deleted {n} item(s)")

    def _snap(self) -> None:
        s = self.doc.cycle_snap()
        self.say(f"snap {fmt(s) + chr(34) if s else 'off'}")

    def _cycle_event(self) -> None:
        toks = [k for kind, k in self.selection if kind == "treasure"]
        if toks:
            events = [self.attempt(self.doc.cycle_event, t) for t in toks]
            self.say(f"{', '.join(toks)} hide(s): {', '.join(str(e) for e in events)}")
        else:
            self.token_event = EVENT_KINDS[(EVENT_KINDS.index(self.token_event) + 1) % len(EVENT_KINDS)]
            self.say(f"new tokens hide: {self.token_event}")

    def _next_warband(self) -> None:
        ws = [w.id for w in self.doc.sc.warbands]
        if not ws:
            self.say("no warbands yet: load a roster (Ctrl+O)", bad=True)
            return
        i = ws.index(self.warband) if self.warband in ws else -1
        self.warband = ws[(i + 1) % len(ws)]
        self.entry = 0
        self.say(f"active warband: {self.warband}")

    def _next_entry(self, step: int) -> None:
        todo = self.doc.to_place(self.warband) if self.warband else []
        if todo:
            self.entry = (self.entry + step) % len(todo)
            e, left = todo[self.entry]
            self.say(f"next unit: {e.name} ({left} left)")

    def _cancel(self) -> None:
        t = self.tools
        if t.points or t.drag:
            t.reset()
            if self.doc.in_transaction:
                self.doc.cancel()
            self.say("cancelled")
        else:
            self.select([])

    def _nudge(self, dx: int, dy: int) -> None:
        step = self.doc.snap_step or 0.1
        if self.selection:
            self.attempt(self.doc.move, self.selection, dx * step, dy * step)

    # --- events ---------------------------------------------------------------------------------
    def may_close(self) -> bool:
        if self.doc.dirty and not self._confirm_close:
            self._confirm_close = True
            self.say("unsaved changes: close again to discard them (Ctrl+S saves)", bad=True)
            return False
        return True

    def on_error(self, text: str) -> None:
        self.tools.reset()
        self.say(f"internal error ({text}); please report it", bad=True)

    def handle_ui_event(self, event) -> bool:
        return self.properties.handle_ui_event(event)

    def handle_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        t = event.type
        if t == pygame.KEYDOWN:
            if self.properties.typing():
                if event.key == pygame.K_ESCAPE:
                    self.app.ui.set_focus_set(None)
                    return None
                if not (event.mod & pygame.KMOD_CTRL):
                    return event
            cmd = EDITOR.command_for(event)
            if cmd is None:
                return event
            if cmd != "quit":  # a second Ctrl+Q in a row confirms discarding unsaved changes
                self._confirm_close = False
            self.command(cmd)
            return None
        if t == pygame.MOUSEMOTION:
            self.mouse_px = event.pos
            if self.tools.drag is not None:
                self.tools.motion(event.pos)
            return None
        if t == pygame.MOUSEWHEEL:
            mx, my = self.mouse_px
            if self.view.collidepoint((mx, my)):
                self.camera.zoom_about(mx, my, 1.15 if event.y > 0 else 1 / 1.15)
            return None
        if t == pygame.MOUSEBUTTONDOWN:
            return self.mouse_down(event)
        if t == pygame.MOUSEBUTTONUP:
            self.mouse_px = event.pos
            if self.tools.drag is not None and event.button in (1, 2):
                self.tools.release(event.pos)
                return None
        return event

    def mouse_down(self, event) -> pygame.event.Event | None:
        self.mouse_px = pos = event.pos
        in_view = self.view.collidepoint(pos)
        if event.button == 1:
            cmd = self.chrome.command_at(pos)
            finding = self.problems.finding_at(pos) if cmd is None else None
            if cmd is not None:
                self.command(cmd)
            elif finding is not None:
                self.problems.focus(finding)
            elif in_view:
                self.tools.press(pos, event)
            else:
                return event
        elif event.button == 3 and in_view:
            self.finish_polygon() if self.tools.points else self.command("cancel")
        elif event.button == 2 and in_view:
            self.tools.pan(pos)
        else:
            return event
        return None

    # --- update and draw ------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        if self.app.top is not self:
            return  # covered (a game from Ctrl+P, the help): nothing of ours is on screen
        if self.tools.drag is None:
            if self.doc.revision != self._painted_rev:
                self._prune()
                key = self._static_key()
                if key != self._static:  # units and tokens are drawn every frame anyway
                    self.painter.invalidate()
                    self._static = key
                self._painted_rev = self.doc.revision
            self.doc.validate()
        self.properties.update()

    def _static_key(self) -> tuple:
        """What the painter's cached layer and labels depend on (not unit positions)."""
        sc = self.doc.sc
        names = tuple((u.id, u.name, u.warband) for u in sc.state.units.values())
        return copy.deepcopy((sc.width, sc.height, sc.terrain, sc.ladders, sc.deployment, sc.warbands)) + (names,)

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.CHROME_BG)
        view = self.view
        surface.fill(theme.PAGE, view)
        surface.set_clip(view)
        painter = self.tools.ghost or self.painter
        sel_units = [k for kind, k in self.selection if kind == "unit"]
        painter.draw(surface, self.camera, self.doc.sc.state, reveal=True, selected=sel_units)
        painter.draw_edge_numbers(surface, self.camera, "tl")
        self.overlay.draw(surface)
        surface.set_clip(None)
        self.chrome.draw_toolbar(surface)
        self.problems.draw(surface, self.properties.bottom)
        self.chrome.draw_status(surface)
