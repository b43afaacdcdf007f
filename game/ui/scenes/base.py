"""The scene protocol (Tuxemon style): handle_event, update, draw.

``handle_event`` returns the event when the scene did not use it (so the scene below
may), or None. ``draw`` never changes game state. An ``opaque`` scene hides the
scenes below it; an overlay (help, hand-over) is drawn over them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame

if TYPE_CHECKING:  # pragma: no cover
    from game.ui.app import App


class Scene:
    opaque = True
    #: An overlay that takes every event (nothing reaches the scene below).
    blocking = True

    def __init__(self, app: "App"):
        self.app = app

    def enter(self) -> None:
        """Create this scene's pygame_gui elements."""

    def leave(self) -> None:
        """Kill them."""

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
