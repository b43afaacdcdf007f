"""The scene protocol (Tuxemon style): handle_event, update, draw.

``handle_event`` returns the event when the scene did not use it (so the scene below
may), or None. ``draw`` never changes game state. An ``opaque`` scene hides the
scenes below it; an overlay (help, hand-over) is drawn over them. A scene's pygame_gui
elements (kept in ``elements``) are shown only while it is the top scene.
"""

from __future__ import annotations

from typing import Any, Protocol

import pygame

from game.ui import theme
from game.ui.widgets.dialogs import Dialog


class Window(Protocol):
    """What a scene knows of the window it is shown in (:class:`~game.ui.app.App` is
    one): its size, its pygame_gui manager and settings, the scene stack and the
    dialogs. A scene holds its window and nothing above it."""

    size: tuple[int, int]
    ui: Any
    settings: dict[str, Any]
    scenes: list["Scene"]
    errors: list[str]
    running: bool

    @property
    def top(self) -> "Scene | None": ...

    @property
    def modal(self) -> Dialog | None: ...

    def push(self, scene: "Scene") -> "Scene": ...

    def pop(self, scene: "Scene | None" = None) -> None: ...

    def pop_to(self, scene: "Scene") -> None: ...

    def find(self, kind: type) -> Any: ...

    def open_dialog(self, dialog: Dialog) -> Dialog: ...

    def message(self, title: str, text: str) -> Dialog: ...

    def ask_number(self, title: str, message: str, low: int, high: int) -> int: ...

    def report_error(self, exc: BaseException, where: str) -> None: ...

    def quit(self) -> None: ...


class Scene:
    opaque = True
    #: An overlay that takes every event (nothing reaches the scene below).
    blocking = True
    #: The window caption while this scene is on top (None: keep the caption).
    title: str | None = None

    def __init__(self, app: Window):
        self.app = app
        self.elements: list[Any] = []
        self._ui_visible = True

    def enter(self) -> None:
        """Create this scene's pygame_gui elements."""

    def leave(self) -> None:
        """Kill them (the scene is gone for good)."""
        self.kill_all(self.elements)

    def resize(self, size: tuple[int, int]) -> None:
        pass

    def handle_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        return event

    def handle_ui_event(self, event: pygame.event.Event) -> bool:
        """A pygame_gui event (button pressed ...); True when used."""
        return False

    def update(self, dt: float) -> None:
        pass

    def draw(self, surface: pygame.Surface) -> None:
        pass

    def may_close(self) -> bool:
        """Asked before the window closes; False keeps it open (the scene says why)."""
        return True

    def on_error(self, text: str) -> None:
        """A handler failed (already logged and shown): drop half-done gestures."""

    @property
    def ui_visible(self) -> bool:
        """Are this scene's pygame_gui elements shown (no other screen on top)?"""
        return self._ui_visible

    def set_ui_visible(self, visible: bool) -> None:
        """Hide this scene's pygame_gui elements while another screen is on top."""
        if visible == self._ui_visible:
            return
        self._ui_visible = visible
        for e in self.elements:
            e.show() if visible else e.hide()

    def close(self) -> None:
        self.app.pop(self)

    @staticmethod
    def kill_all(elements: list[Any]) -> None:
        for e in elements:
            try:
                e.kill()
            except Exception:  # noqa: BLE001 - killing twice is harmless
                pass
        elements.clear()


class DimmedScene(Scene):
    """An overlay drawn on a dimmed copy of the screen below it (the F1 help, the rules)."""

    opaque = False
    _dim: pygame.Surface | None = None

    def dim(self, surface: pygame.Surface) -> None:
        """Dim the whole of ``surface`` (the dimming layer is kept per window size)."""
        size = surface.get_size()
        if self._dim is None or self._dim.get_size() != size:
            self._dim = pygame.Surface(size, pygame.SRCALPHA)
            self._dim.fill(theme.HELP_DIM)
        surface.blit(self._dim, (0, 0))
