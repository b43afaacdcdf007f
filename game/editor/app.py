"""``speedheim edit [FILE]``: the map editor window.

With a file that exists, it opens it (a file with problems is refused with
``FILE:LINE`` lines, exit 2: fix it by hand or start a new map). With no file, or a
file that does not exist yet, it first asks for the table size (24x24 to 72x48").
"""

from __future__ import annotations

import gc
import os
import sys
import traceback

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pygame_gui  # noqa: E402
from pygame_gui.elements import UIButton, UILabel, UITextEntryLine, UIWindow  # noqa: E402

from game.editor.document import TABLE_MAX, TABLE_MIN, Document, EditError, check_table_size  # noqa: E402
from game.editor.scene import EditorScene  # noqa: E402
from game.engine.errors import LoadError  # noqa: E402

DEFAULT_SIZE = (1280, 800)
FPS = 60
DEFAULT_TABLE = (36, 36)
#: pygame_gui look: dark text on the light properties panel, light dialogs.
UI_THEME = {
    "defaults": {"colours": {"normal_bg": "#4b4238", "hovered_bg": "#6a5c4c", "active_bg": "#2f2923",
                             "normal_text": "#f5efe3", "hovered_text": "#ffffff", "dark_bg": "#2a2520",
                             "normal_border": "#1e1a16", "selected_bg": "#7a5a20"}},
    "label": {"colours": {"normal_text": "#2a2520", "dark_bg": "#00000000"}},
    "text_entry_line": {"colours": {"dark_bg": "#fbf8f1", "normal_text": "#2a2520", "selected_bg": "#c8a860",
                                    "normal_border": "#8a7e6a", "text_cursor": "#2a2520"}},
    "window": {"colours": {"dark_bg": "#e9e2d4"}},
    "window.#title_bar": {"colours": {"normal_bg": "#4b4238", "normal_text": "#f5efe3"}},
}


class SizePrompt:
    """The new-map question: the table's width and height in inches."""

    def __init__(self, manager: pygame_gui.UIManager, size: tuple[int, int]):
        self.ui = manager
        w, h = size
        self.win = UIWindow(pygame.Rect(w // 2 - 230, h // 2 - 110, 460, 210), manager,
                            window_display_title="New map: table size")
        UILabel(pygame.Rect(10, 8, 420, 24), f"Table size in inches ({TABLE_MIN[0]:g}x{TABLE_MIN[1]:g} to "
                f"{TABLE_MAX[0]:g}x{TABLE_MAX[1]:g})", manager, container=self.win)
        UILabel(pygame.Rect(10, 40, 60, 28), "width", manager, container=self.win)
        self.width = UITextEntryLine(pygame.Rect(70, 40, 100, 28), manager, container=self.win)
        UILabel(pygame.Rect(190, 40, 60, 28), "height", manager, container=self.win)
        self.height = UITextEntryLine(pygame.Rect(250, 40, 100, 28), manager, container=self.win)
        for e, v in ((self.width, DEFAULT_TABLE[0]), (self.height, DEFAULT_TABLE[1])):
            e.set_allowed_characters([*"0123456789."])
            e.set_text(str(v))
        self.ok = UIButton(pygame.Rect(360, 40, 70, 28), "Create", manager, container=self.win)
        self.error = UILabel(pygame.Rect(10, 80, 420, 28), "", manager, container=self.win)
        self.result: tuple[float, float] | None = None
        self.cancelled = False

    def handle_event(self, event: pygame.event.Event) -> None:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.ok:
            self.submit()
        elif event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element in (self.width, self.height):
            self.submit()
        elif event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.win:
            self.cancelled = True
        elif event.type == pygame.QUIT:
            self.cancelled = True

    def submit(self) -> None:
        try:
            w, h = float(self.width.get_text()), float(self.height.get_text())
            check_table_size(w, h)
        except ValueError as exc:  # EditError is a ValueError
            self.error.set_text(str(exc) if isinstance(exc, EditError) else "width and height must be numbers")
            return
        self.result = (w, h)
        self.win.kill()


class EditorApp:
    """The editor window: one scene, one pygame_gui manager, the frame loop."""

    def __init__(self, doc: Document | None, path: str | None = None, size: tuple[int, int] = DEFAULT_SIZE,
                 on_play=None):
        pygame.init()
        pygame.display.set_caption("Speedheim map editor")
        self.screen = pygame.display.set_mode(size, pygame.RESIZABLE)
        self.size = self.screen.get_size()
        self.ui = pygame_gui.UIManager(self.size, UI_THEME)
        self.clock = pygame.time.Clock()
        self.path = path
        self.on_play = on_play
        self.prompt: SizePrompt | None = None
        self.scene: EditorScene | None = None
        self.running = True
        #: Messages of caught internal errors (tests check it stays empty).
        self.errors: list[str] = []
        if doc is None:
            self.prompt = SizePrompt(self.ui, self.size)
        else:
            self._open(doc)

    def _open(self, doc: Document) -> None:
        self.scene = EditorScene(doc, self.ui, self.size, on_play=self.on_play)
        # What is loaded now lives as long as the window: keep it out of the collector's
        # full passes, which otherwise stall the frame after an edit on big maps.
        gc.collect()
        gc.freeze()
        if doc.opened_with:
            self.scene.say(f"opened with {len(doc.opened_with)} problem(s); items with bad fields were left out: "
                           f"{doc.opened_with[0]}", bad=True)
        elif self.path and not os.path.exists(self.path):
            self.scene.say(f"new map {doc.sc.width:g}\" x {doc.sc.height:g}\": Ctrl+S saves it to {self.path}")

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.VIDEORESIZE:
            self.size = (max(800, event.w), max(560, event.h))
            self.ui.set_window_resolution(self.size)
            if self.scene:
                self.scene.resize(self.size)
            return
        self.ui.process_events(event)
        if self.prompt is not None:
            self.prompt.handle_event(event)
            if self.prompt.result is not None:
                w, h = self.prompt.result
                self.prompt = None
                self._open(Document.new(w, h, path=self.path))
            elif self.prompt.cancelled:
                self.running = False
            return
        if self.scene is not None:
            self.scene.handle_event(event)
            if self.scene.close_requested:
                self.running = False

    def frame(self, events: list[pygame.event.Event] | None = None, dt: float = 1 / FPS) -> None:
        """One frame: the given events (tests) plus the queue, update, draw."""
        for event in list(events or []) + pygame.event.get():
            self.guard(self.handle, event)
        self.ui.update(dt)
        if self.scene is not None:
            self.guard(self.scene.update, dt)
            self.guard(self.scene.draw, self.screen)
        else:
            self.screen.fill((58, 52, 46))
        self.ui.draw_ui(self.screen)
        pygame.display.flip()

    def guard(self, fn, *args) -> None:
        """Run a handler; a bug of ours is shown and logged, and the editor goes on."""
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - the window must not die with unsaved work
            text = f"internal error ({type(exc).__name__}: {exc}); please report it (details on stderr)"
            self.errors.append(text)
            traceback.print_exc(file=sys.stderr)
            if self.scene is not None:
                self.scene.drag = None
                self.scene.say(text, bad=True)

    def run(self) -> None:
        while self.running:
            dt = self.clock.tick(FPS) / 1000.0
            self.frame(dt=dt)
        pygame.quit()


def edit_cli(path: str | None) -> int:
    """``speedheim edit [FILE]``: 0 when the window closes, 2 for a file that cannot be opened."""
    doc = None
    if path and os.path.exists(path):
        try:
            doc = Document.open(path)
        except LoadError as exc:
            exc.report()
            print(f"{path}: cannot be opened as a map; fix these problems by hand", file=sys.stderr)
            return 2
    app = EditorApp(doc, path)
    app.run()
    return 0
