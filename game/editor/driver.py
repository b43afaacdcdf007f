"""Drive the app shell with synthetic mouse and key events (editor tests, benchmark).

Set SDL_VIDEODRIVER=dummy before importing this module to run without a display.
"""

from __future__ import annotations

import pygame

from game.editor.scene import EditorScene
from game.ui.app import App

FRAME_S = 1 / 60


class Driver:
    def __init__(self, app: App):
        self.app = app
        self.frame()

    @property
    def scene(self) -> EditorScene | None:
        """The editor (also while a game opened from it is on top)."""
        return self.app.find(EditorScene)

    def px(self, x: float, y: float) -> tuple[int, int]:
        px, py = self.scene.camera.to_px(x, y)
        return (round(px), round(py))

    def frame(self, *events) -> None:
        """One frame: the given events, then the queue (events pygame_gui posted), update, draw."""
        for event in events:
            self.app.dispatch(event)
        self.app.pump()
        self.app.frame(FRAME_S)
        if self.app.errors:  # a caught bug must fail the test or benchmark that drove it
            raise RuntimeError(self.app.errors[-1])

    def key(self, key: int, mod: int = 0, unicode: str = "") -> None:
        self.frame(
            pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=unicode, scancode=0),
            pygame.event.Event(pygame.KEYUP, key=key, mod=mod, unicode=unicode, scancode=0),
        )
        self.frame()

    def ctrl(self, key: int) -> None:
        self.key(key, pygame.KMOD_LCTRL)

    def click_px(self, pos, button: int = 1) -> None:
        self.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))
        self.frame(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))
        self.frame(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=button))
        self.frame()  # events pygame_gui posted (button pressed ...) arrive in the next frame

    def click(self, x: float, y: float, button: int = 1) -> None:
        self.click_px(self.px(x, y), button)

    def drag(self, a, b, steps: int = 4) -> None:
        pa, pb = self.px(*a), self.px(*b)
        self.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=pa, rel=(0, 0), buttons=(0, 0, 0)))
        self.frame(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pa, button=1))
        for i in range(1, steps + 1):
            p = (round(pa[0] + (pb[0] - pa[0]) * i / steps), round(pa[1] + (pb[1] - pa[1]) * i / steps))
            self.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=p, rel=(0, 0), buttons=(1, 0, 0)))
        self.frame(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pb, button=1))

    def click_ui(self, element) -> None:
        """Press a pygame_gui button (or focus an entry) with the mouse."""
        self.click_px(element.get_abs_rect().center)

    def type_into(self, element, text: str) -> None:
        """Focus a text entry with the mouse, replace its text, press Enter."""
        self.click_ui(element)
        element.set_text("")
        for ch in text:
            self.frame(pygame.event.Event(pygame.TEXTINPUT, text=ch))
        self.key(pygame.K_RETURN)

    def button(self, cmd: str):
        """Where the editor's tool bar button of ``cmd`` is."""
        for r, c in self.scene.chrome.buttons:
            if c == cmd:
                return r.center
        raise KeyError(cmd)
