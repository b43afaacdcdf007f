"""Overlays over a scene: the F1 help (play and editor), the hot-seat hand-over, the winner."""

from __future__ import annotations

from typing import Any, Callable

import pygame
import pygame_gui
from pygame_gui.elements import UIButton

from game.ui.keymap import DIALOG, PLAY, Keymap
from game.ui.scenes.base import DimmedScene, Scene
from game.ui.widgets import text as T


class HelpScene(DimmedScene):
    """F1: a screen's keymap, one line per command, then the mouse gestures, on a dimmed screen."""

    def __init__(self, app, keys: Keymap = PLAY, heading: str = "Speedheim Table"):
        super().__init__(app)
        self.keys = keys
        self.heading = heading
        self.rows = keys.help_rows()

    def handle_event(self, event):
        cmd = self.keys.command_for(event)
        if cmd == "rules":  # the rules browser, from the help (issue 23)
            from game.ui.scenes.rules import RulesScene

            self.close()
            self.app.push(RulesScene(self.app))
            return None
        if cmd in ("help", "cancel") or (event.type == pygame.MOUSEBUTTONDOWN and event.button == 1):
            self.close()
            return None
        if cmd == "quit":
            return event
        return None

    def draw(self, surface):
        w, h = surface.get_size()
        self.dim(surface)
        rules = f"; {self.keys.label('rules')}: the rules" if self.keys.bindings("rules") else ""
        title = T.text(
            f"{self.heading} - every key and mouse gesture (F1 or Esc closes{rules})", 20, (255, 255, 255), True
        )
        surface.blit(title, (32, 18))
        size = 14 if h >= 760 and w >= 1200 else 12
        lh = T.font(size).get_linesize() + 3
        col_w = (w - 64) // 2
        key_w = min(col_w // 2, 16 + max(T.font(size, True).size(k)[0] for k, _ in self.rows))
        half = (len(self.rows) + 1) // 2
        for col in range(2):
            x = 32 + col * col_w
            y = 58
            for key, what in self.rows[col * half : (col + 1) * half]:
                surface.blit(T.text(key, size, (255, 220, 120), True), (x, y))
                for i, line in enumerate(T.wrap(what, col_w - key_w - 16, size)):
                    surface.blit(T.text(line.strip(), size, (235, 235, 235)), (x + key_w, y))
                    y += lh
                y += 2


class HandoverScene(Scene):
    """Hot-seat: hides the table until the next player is at the screen."""

    opaque = True

    def __init__(
        self,
        app,
        player: int,
        name: str,
        colour,
        on_done: Callable[[], None] | None = None,
        on_skip: Callable[[], None] | None = None,
    ):
        """``on_skip``: offered under alternating activations (O2), where a hand-over comes
        with every activation: the players share the table, no more hand-over screens."""
        super().__init__(app)
        self.player, self.name, self.colour = player, name, colour
        self.on_done = on_done
        self.on_skip = on_skip
        self.skip_button = None

    @property
    def title(self) -> str:
        return f"Player {self.player}: your {'activation' if self.on_skip else 'turn'}"

    def enter(self):
        w, h = self.app.size
        self.button = UIButton(pygame.Rect(w // 2 - 110, h // 2 + 40, 220, 44), "I'm ready (Space)", self.app.ui)
        self.elements.append(self.button)
        if self.on_skip is not None:
            self.skip_button = UIButton(
                pygame.Rect(w // 2 - 160, h // 2 + 96, 320, 40),
                "We share the table: no more hand-overs (H)",
                self.app.ui,
            )
            self.elements.append(self.skip_button)

    def _skip(self):
        self.close()
        if self.on_skip:
            self.on_skip()

    def resize(self, size):
        self.kill_all(self.elements)
        self.enter()

    def _go(self):
        self.close()
        if self.on_done:
            self.on_done()

    def handle_ui_event(self, event):
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.button:
            self._go()
            return True
        if (
            event.type == pygame_gui.UI_BUTTON_PRESSED
            and self.skip_button is not None
            and event.ui_element is self.skip_button
        ):
            self._skip()
            return True
        return False

    def handle_event(self, event):
        if DIALOG.command_for(event) == "confirm" or PLAY.command_for(event) == "end_step":
            self._go()
            return None
        if self.on_skip is not None and PLAY.command_for(event) == "handover":
            self._skip()
            return None
        return event if PLAY.command_for(event) == "quit" else None

    def draw(self, surface):
        w, h = surface.get_size()
        surface.fill((30, 28, 26))
        pygame.draw.rect(surface, self.colour, pygame.Rect(0, 0, w, 12))
        pygame.draw.rect(surface, self.colour, pygame.Rect(0, h - 12, w, 12))
        t = T.text(self.title, 40, (255, 255, 255), True)
        surface.blit(t, t.get_rect(center=(w // 2, h // 2 - 40)))
        s = T.text(f"{self.name} - pass the screen; the table is hidden until you are ready", 16, (200, 200, 200))
        surface.blit(s, s.get_rect(center=(w // 2, h // 2 + 5)))


class WinnerScene(Scene):
    """The game is decided: who won, and a short summary."""

    opaque = False

    def __init__(self, app, title: str, lines: list[str], colour, on_choice: Callable[[str], None]):
        super().__init__(app)
        self.title, self.lines, self.colour = title, lines, colour
        self.on_choice = on_choice
        self.buttons: dict[Any, str] = {}

    def enter(self):
        w, h = self.app.size
        box = self._box((w, h))
        labels = [("Look at the table", "close"), ("Undo last action", "undo"), ("New game", "new"), ("Quit", "quit")]
        bw = (box.width - 50) // len(labels)
        for i, (label, value) in enumerate(labels):
            b = UIButton(pygame.Rect(box.x + 10 + i * (bw + 10), box.bottom - 54, bw, 40), label, self.app.ui)
            self.elements.append(b)
            self.buttons[b] = value

    LINE_SIZE = 16
    LINE_H = 22

    def _width(self, size) -> int:
        return min(720, size[0] - 40)

    def _wrapped(self, width: int) -> list[str]:
        """The summary's lines wrapped to the box (a long treasure list goes on below)."""
        out: list[str] = []
        for line in self.lines:
            out.extend(T.wrap(line, width - 60, self.LINE_SIZE))
        return out

    def _box(self, size) -> pygame.Rect:
        w, h = size
        width = self._width(size)
        bh = 170 + self.LINE_H * len(self._wrapped(width))
        r = pygame.Rect(0, 0, width, min(bh, h - 40))
        r.center = (w // 2, h // 2)
        return r

    def leave(self):
        self.kill_all(self.elements)
        self.buttons.clear()

    def resize(self, size):
        self.leave()
        self.enter()

    def choose(self, value: str):
        self.close()
        self.on_choice(value)

    def handle_ui_event(self, event):
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.choose(self.buttons[event.ui_element])
            return True
        return False

    def handle_event(self, event):
        """Enter or Esc: look at the table; Ctrl+Z undoes the last action; Ctrl+Q quits."""
        if DIALOG.command_for(event) in ("confirm", "cancel"):
            self.choose("close")
        elif PLAY.command_for(event) in ("quit", "undo"):
            self.choose(PLAY.command_for(event))
        return None

    def draw(self, surface):
        w, h = surface.get_size()
        dim = pygame.Surface((w, h), pygame.SRCALPHA)
        dim.fill((0, 0, 0, 140))
        surface.blit(dim, (0, 0))
        box = self._box((w, h))
        pygame.draw.rect(surface, (250, 246, 236), box, border_radius=8)
        pygame.draw.rect(surface, self.colour, box, 6, border_radius=8)
        size = 32
        t = T.text(self.title, size, self.colour, True)
        while t.get_width() > box.width - 40 and size > 16:
            size -= 2
            t = T.text(self.title, size, self.colour, True)
        surface.blit(t, t.get_rect(midtop=(box.centerx, box.y + 18)))
        y = box.y + 74
        for line in self._wrapped(box.width):
            s = T.text(line, self.LINE_SIZE, (40, 36, 32))
            surface.blit(s, (box.x + 30, y))
            y += self.LINE_H
