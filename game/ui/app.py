"""The one window shell: the window loop, its scene stack and its dialogs.

:class:`App` owns the pygame window, the pygame_gui manager, the scene stack and the
open dialogs. The play table and the map editor are scenes of the same App (the
editor's Ctrl+P pushes a play scene on top of the editor; leaving play pops it). The
window is a client of the engine: scenes change the game only through
``game.apply(action)``. Every handler runs under a guard that writes an unexpected
exception to the crash log in the user data directory, shows it in a dialog and lets
the game go on. Starting a game on it (``speedheim play``) is :mod:`game.ui.launch`.
"""

from __future__ import annotations

import os
import random
import sys
import time
from typing import Any, Callable

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")  # the table makes no sound

import pygame  # noqa: E402
import pygame_gui  # noqa: E402

from game.ui import display, theme, userdata  # noqa: E402
from game.ui.scenes.base import Scene  # noqa: E402
from game.ui.widgets.dialogs import Dialog, MessageDialog, NumberPrompt  # noqa: E402

DEFAULT_SIZE = (1280, 800)
MIN_SIZE = (800, 560)
FPS = 60


def _init_display() -> None:
    """Start SDL's video; raise NoDisplay when it found no display and fell back to a
    driver that shows nothing (offscreen) without being asked for it (game/ui/display.py).
    SDL's own warnings while it looked are dropped then, and passed on otherwise."""
    on_purpose = bool(os.environ.get("SDL_VIDEODRIVER"))
    with display.held_stderr(not on_purpose) as said:
        try:
            pygame.display.init()
        except pygame.error:
            if on_purpose:
                raise
            said.append("")  # nothing to show SDL's words about
    failed = not pygame.display.get_init()
    if failed or display.fell_back(pygame.display.get_driver()):
        if not on_purpose:
            pygame.quit()
            raise display.NoDisplay()
    if said and said[0]:
        sys.stderr.write(said[0])


def _is_ui_event(event: pygame.event.Event) -> bool:
    return hasattr(event, "ui_element") or hasattr(event, "ui_object_id")


class App:
    """The window, its scene stack and dialogs."""

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, flags: int | None = None, title: str = "Speedheim Table"):
        t0 = time.perf_counter()
        _init_display()
        pygame.font.init()
        pygame.display.set_caption(title)
        if flags is None:
            flags = pygame.RESIZABLE
        self.screen = pygame.display.set_mode(size, flags)
        self.size: tuple[int, int] = self.screen.get_size()
        self.ui = pygame_gui.UIManager(self.size, theme.UI_THEME)
        self.scenes: list[Scene] = []
        self.dialogs: list[Dialog] = []
        self.settings = userdata.load_settings()
        self.running = True
        self.clock = pygame.time.Clock()
        self.errors: list[str] = []  # messages of caught exceptions (tests read them)
        self._seen_errors: set[tuple] = set()
        #: Tests set this to answer physical-dice prompts: f(low, high, reason) -> int.
        self.number_source: Callable[[int, int, str], int] | None = None
        self.started = t0
        self.frames = 0
        self._pumps = 0
        self._pumping = False
        self._opened_in = -1

    # --- scene stack ---------------------------------------------------------------------
    @property
    def top(self) -> Scene | None:
        return self.scenes[-1] if self.scenes else None

    def push(self, scene: Scene) -> Scene:
        self.scenes.append(scene)
        self.guard(scene.enter, "entering a screen")
        self._caption()
        return scene

    def pop(self, scene: Scene | None = None) -> None:
        scene = scene or self.top
        if scene in self.scenes:
            self.scenes.remove(scene)
            self.guard(scene.leave, "leaving a screen")
            self._caption()

    def pop_to(self, scene: Scene) -> None:
        """Close every scene above ``scene`` and every dialog: ``scene`` is on top again."""
        self.close_dialogs()
        while self.scenes and self.top is not scene:
            self.pop(self.top)

    def close(self) -> None:
        """Leave every scene (top first), so their worker threads finish before the
        interpreter does: a thread still inside the engine at exit crashes it."""
        self.close_dialogs()
        while self.scenes:
            self.pop(self.top)

    def _caption(self) -> None:
        for s in reversed(self.scenes):
            if s.title:
                pygame.display.set_caption(s.title)
                return

    def find(self, kind: type) -> Any:
        for s in reversed(self.scenes):
            if isinstance(s, kind):
                return s
        return None

    # --- dialogs -------------------------------------------------------------------------
    def open_dialog(self, dialog: Dialog) -> Dialog:
        self.dialogs.append(dialog)
        # The key that opened a dialog also sends its text (D -> "d"): not for the new entry.
        self._opened_in = self._pumps if self._pumping else -1
        return dialog

    def close_dialogs(self) -> None:
        for d in list(self.dialogs):
            d.close(None)
        self.dialogs.clear()

    def _prune(self) -> None:
        self.dialogs = [d for d in self.dialogs if not d.done]

    @property
    def modal(self) -> Dialog | None:
        self._prune()
        for d in reversed(self.dialogs):
            if d.modal:
                return d
        return None

    def message(self, title: str, text: str) -> Dialog:
        return self.open_dialog(MessageDialog(self.ui, title, text))

    def ask_number(self, title: str, message: str, low: int, high: int) -> int:
        """Block until the player types a whole number (physical dice)."""
        if self.number_source is not None:
            return int(self.number_source(low, high, message))
        box: list[int | None] = []
        dlg = NumberPrompt(self.ui, title, message, low, high, box.append)
        self.open_dialog(dlg)
        while not dlg.done:
            self._pumps += 1
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    self.running = False
                    dlg.close(random.randint(low, high))
                    break
                self.dispatch(event)
            self.frame(self.clock.tick(FPS) / 1000.0)
        value = box[0] if box and box[0] is not None else random.randint(low, high)
        return int(value)

    # --- errors --------------------------------------------------------------------------
    def guard(self, fn: Callable, where: str, *args, **kwargs) -> Any:
        try:
            return fn(*args, **kwargs)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the game goes on
            self.report_error(exc, where)
            return None

    def report_error(self, exc: BaseException, where: str) -> None:
        """Log the traceback to the crash log and show it once; the game goes on."""
        text = f"{type(exc).__name__}: {exc}"
        key = (type(exc).__name__, str(exc), where)
        if key in self._seen_errors:  # e.g. the same error every frame: logged and shown once
            return
        self._seen_errors.add(key)
        self.errors.append(text)
        path = userdata.log_exception(exc, where)
        print(f"speedheim: unexpected error {where}: {text} (details in {path})", file=sys.stderr)
        if self.top is not None:
            try:
                self.top.on_error(text)
            except Exception:  # noqa: BLE001 - the error is reported already
                pass
        try:
            self.open_dialog(
                MessageDialog(
                    self.ui,
                    "Something went wrong",
                    f"{text}\n(while {where})\n\nThe game goes on. The details are in {path}",
                )
            )
        except Exception:  # noqa: BLE001
            pass

    # --- events --------------------------------------------------------------------------
    def resize(self, size: tuple[int, int]) -> None:
        w, h = max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1])
        if (w, h) == self.size:
            return
        if (w, h) != tuple(size):
            self.screen = pygame.display.set_mode((w, h), pygame.RESIZABLE)
        else:
            self.screen = pygame.display.get_surface()
        self.size = (w, h)
        self.ui.set_window_resolution(self.size)
        for s in self.scenes:
            self.guard(s.resize, "resizing", self.size)

    def dispatch(self, event: pygame.event.Event) -> None:
        self.guard(self._dispatch, "handling input", event)

    def quit(self) -> None:
        """Close the window, unless a scene objects (e.g. unsaved map changes)."""
        if all(self.guard(s.may_close, "closing") is not False for s in reversed(self.scenes)):
            self.running = False

    def _dispatch(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.quit()
            return
        if event.type == pygame.VIDEORESIZE:
            self.resize((event.w, event.h))
            return
        if event.type == pygame.WINDOWSIZECHANGED:
            self.resize((event.x, event.y))
            return
        if _is_ui_event(event):
            self._route_ui(event)
            return
        if event.type == pygame.TEXTINPUT and self._opened_in == self._pumps:
            return
        used = self.ui.process_events(event)
        self._prune()
        if self.dialogs and event.type == pygame.KEYDOWN:
            if self.dialogs[-1].handle_key(event):
                self._prune()
                return
        modal = self.modal
        if modal is not None and event.type in (
            pygame.MOUSEBUTTONDOWN,
            pygame.MOUSEBUTTONUP,
            pygame.MOUSEMOTION,
            pygame.KEYDOWN,
            pygame.MOUSEWHEEL,
            pygame.TEXTINPUT,
        ):
            return
        # A click outside an open context menu closes it (and does nothing else).
        menus = [d for d in self.dialogs if not d.modal]
        if menus and event.type == pygame.MOUSEBUTTONDOWN and not used:
            for d in menus:
                if not d.contains(event.pos):
                    d.close(None)
            self._prune()
            return
        if used:
            return
        for scene in reversed(list(self.scenes)):
            result = scene.handle_event(event)
            if result is None or scene.blocking:
                break
            event = result

    def _route_ui(self, event: pygame.event.Event) -> None:
        for d in reversed(list(self.dialogs)):
            if d.handle_ui_event(event):
                self._prune()
                return
        for scene in reversed(list(self.scenes)):
            if scene.handle_ui_event(event):
                return

    # --- frames --------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        top = self.top
        for scene in list(self.scenes):
            scene.set_ui_visible(scene is top)
            self.guard(scene.update, "updating the screen", dt)
        self.ui.update(dt)

    def draw(self) -> None:
        start = 0
        for i, s in enumerate(self.scenes):
            if s.opaque:
                start = i
        if not self.scenes:
            self.screen.fill(theme.CHROME_BG)
        for s in self.scenes[start:]:
            self.guard(s.draw, "drawing", self.screen)
        self.ui.draw_ui(self.screen)

    def frame(self, dt: float, flip: bool = True) -> None:
        self.update(dt)
        self.draw()
        self.frames += 1
        if flip:
            pygame.display.flip()

    def pump(self) -> None:
        self._pumps += 1
        self._pumping = True
        try:
            for event in pygame.event.get():
                self.dispatch(event)
        finally:
            self._pumping = False

    def run(self) -> None:
        while self.running and (self.scenes or self.dialogs):
            dt = self.clock.tick(FPS) / 1000.0
            self.pump()
            if not self.running:
                break
            self.frame(dt)

    def run_to_the_end(self) -> int:
        """Run until the window closes, then close everything in order (scenes and their
        threads, the last autosave, pygame); the exit code of ``play`` and ``edit``."""
        try:
            self.run()
        finally:
            self.close()
            userdata.flush_autosave()
            pygame.quit()
        return 0
