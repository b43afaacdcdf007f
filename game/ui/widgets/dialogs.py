"""Dialogs and menus on pygame_gui: choices, context menus, number prompts, messages.

Each dialog owns its pygame_gui elements and a callback. The app routes pygame_gui
events to the open dialogs (topmost first); a modal dialog keeps board clicks away
from the scene until it closes.
"""

from __future__ import annotations

from typing import Any, Callable

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIPanel, UITextBox, UITextEntryLine, UIWindow


def _esc(s: str) -> str:
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "<br>")


class Dialog:
    modal = True
    closable = True

    def __init__(self):
        self.done = False
        self.root: Any = None

    def handle_ui_event(self, event: pygame.event.Event) -> bool:
        return False

    def handle_key(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE and self.closable:
            self.close(None)
            return True
        return False

    def close(self, value: Any = None) -> None:
        if not self.done:
            self.done = True
            if self.root is not None:
                self.root.kill()
            self.finish(value)

    def finish(self, value: Any) -> None:
        pass

    def contains(self, pos) -> bool:
        return self.root is not None and self.root.get_abs_rect().collidepoint(pos)


class ChoiceDialog(Dialog):
    """A titled window with a message and one button per choice."""

    def __init__(self, manager: pygame_gui.UIManager, title: str, message: str,
                 choices: list[tuple[str, Any]], on_choose: Callable[[Any], None],
                 closable: bool = True, width: int = 460):
        super().__init__()
        self.on_choose = on_choose
        self.closable = closable
        self.title, self.message = title, message
        sw, sh = manager.window_resolution
        cols = 1 if any(len(c[0]) > 22 for c in choices) else min(3, max(1, len(choices)))
        rows = (len(choices) + cols - 1) // cols
        lines = max(2, min(12, message.count("\n") + 1 + len(message) // 55))
        text_h = 20 * lines + 16
        height = 60 + text_h + rows * 38 + 10
        rect = pygame.Rect(0, 0, width, min(height, sh - 20))
        rect.center = (sw // 2, sh // 2)
        self.root = UIWindow(rect, manager, window_display_title=title, resizable=False,
                             draggable=True)
        if not closable and getattr(self.root, "close_window_button", None) is not None:
            self.root.close_window_button.disable()
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, text_h), manager, container=self.root)
        self.buttons: dict[Any, Any] = {}
        bw = (inner_w - 12 - (cols - 1) * 6) // cols
        for i, (label, value) in enumerate(choices):
            r, c = divmod(i, cols)
            b = UIButton(pygame.Rect(6 + c * (bw + 6), text_h + 10 + r * 38, bw, 32), label, manager,
                         container=self.root)
            self.buttons[b] = value

    def handle_ui_event(self, event) -> bool:
        if self.done:
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.close(self.buttons[event.ui_element])
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.root:
            self.done = True
            self.finish(None)
            return True
        return False

    def choose(self, value: Any) -> None:
        """Press the button of ``value`` (tests and keyboard shortcuts)."""
        self.close(value)

    def finish(self, value):
        if value is not None or self.closable:
            self.on_choose(value)


class ContextMenu(Dialog):
    """A borderless list of buttons at a point; a click elsewhere closes it."""

    modal = False
    ITEM_H = 28

    def __init__(self, manager: pygame_gui.UIManager, pos, title: str, items: list[tuple[str, Any]],
                 on_choose: Callable[[Any], None], width: int = 270):
        super().__init__()
        self.on_choose = on_choose
        sw, sh = manager.window_resolution
        h = 26 + len(items) * self.ITEM_H + 6
        rect = pygame.Rect(pos[0], pos[1], width, h)
        rect.clamp_ip(pygame.Rect(0, 0, sw, sh))
        self.root = UIPanel(rect, starting_height=3, manager=manager)
        from pygame_gui.elements import UILabel

        font = manager.get_theme().get_font_dictionary().find_font(13, "noto_sans")
        while len(title) > 8 and font.size(title)[0] > width - 24:
            title = title[:-4] + "..."
        UILabel(pygame.Rect(4, 2, width - 14, 22), title, manager, container=self.root)
        self.buttons: dict[Any, Any] = {}
        self.items = list(items)
        for i, (label, value) in enumerate(items):
            b = UIButton(pygame.Rect(2, 26 + i * self.ITEM_H, width - 10, self.ITEM_H - 2), label, manager,
                         container=self.root)
            self.buttons[b] = value

    def handle_ui_event(self, event) -> bool:
        if not self.done and event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.close(self.buttons[event.ui_element])
            return True
        return False

    def choose(self, value):
        self.close(value)

    def finish(self, value):
        if value is not None:
            self.on_choose(value)


class NumberPrompt(Dialog):
    """Ask for a whole number (a physical die's result); Enter or OK accepts."""

    def __init__(self, manager: pygame_gui.UIManager, title: str, message: str, low: int, high: int,
                 on_value: Callable[[int | None], None], closable: bool = False):
        super().__init__()
        self.low, self.high = low, high
        self.on_value = on_value
        self.closable = closable
        sw, sh = manager.window_resolution
        rect = pygame.Rect(0, 0, 420, 210)
        rect.center = (sw // 2, sh // 2)
        self.root = UIWindow(rect, manager, window_display_title=title, resizable=False)
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, 76), manager, container=self.root)
        self.entry = UITextEntryLine(pygame.Rect(6, 88, 120, 32), manager, container=self.root)
        self.entry.set_allowed_characters("numbers")
        self.entry.focus()
        self.ok = UIButton(pygame.Rect(136, 88, 90, 32), "OK", manager, container=self.root)
        self.error = UITextBox("", pygame.Rect(232, 88, inner_w - 238, 40), manager, container=self.root)
        self.value: int | None = None

    def _accept(self) -> bool:
        raw = self.entry.get_text().strip()
        try:
            v = int(raw)
        except ValueError:
            v = None
        if v is None or not (self.low <= v <= self.high):
            self.error.set_text(f"<font color='#c00000'>a number {self.low}-{self.high}</font>")
            return False
        self.value = v
        self.close(v)
        return True

    def handle_ui_event(self, event) -> bool:
        if self.done:
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.ok:
            self._accept()
            return True
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry:
            self._accept()
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.root:
            self.done = True
            self.finish(None)
            return True
        return False

    def handle_key(self, event) -> bool:
        if event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self._accept()
            return True
        return super().handle_key(event)

    def finish(self, value):
        self.on_value(value)


class TextPrompt(Dialog):
    """Ask for a line of text (a reason for a roll, a file name)."""

    def __init__(self, manager: pygame_gui.UIManager, title: str, message: str, initial: str,
                 on_value: Callable[[str | None], None], extra_buttons: list[tuple[str, Any]] | None = None):
        super().__init__()
        self.on_value = on_value
        sw, sh = manager.window_resolution
        rect = pygame.Rect(0, 0, 460, 220)
        rect.center = (sw // 2, sh // 2)
        self.root = UIWindow(rect, manager, window_display_title=title, resizable=False)
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, 60), manager, container=self.root)
        self.entry = UITextEntryLine(pygame.Rect(6, 70, inner_w - 12, 32), manager, container=self.root,
                                     initial_text=initial)
        self.entry.focus()
        self.buttons: dict[Any, Any] = {}
        extra = extra_buttons or [("OK", "ok")]
        bw = (inner_w - 12 - 6 * (len(extra) - 1)) // len(extra)
        for i, (label, value) in enumerate(extra):
            b = UIButton(pygame.Rect(6 + i * (bw + 6), 110, bw, 32), label, manager, container=self.root)
            self.buttons[b] = value
        self.choice: Any = None

    def handle_ui_event(self, event) -> bool:
        if self.done:
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.choice = self.buttons[event.ui_element]
            self.close(self.entry.get_text())
            return True
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry:
            self.choice = next(iter(self.buttons.values()))
            self.close(self.entry.get_text())
            return True
        if event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.root:
            self.done = True
            self.finish(None)
            return True
        return False

    def finish(self, value):
        self.on_value(value if value is None else (value, self.choice))


class MessageDialog(ChoiceDialog):
    def __init__(self, manager, title: str, message: str, on_close: Callable[[Any], None] | None = None):
        super().__init__(manager, title, message, [("OK", "ok")], on_close or (lambda v: None), closable=True)
