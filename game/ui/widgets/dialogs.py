"""The one dialog set, on pygame_gui: choices, menus, number, text, file and size prompts.

Each dialog owns its pygame_gui elements and a callback. The app routes pygame_gui
events and key presses to the open dialogs (topmost first); a modal dialog keeps board
clicks away from the scenes until it closes.

Keys are the same in every dialog (:data:`game.ui.keymap.DIALOG`): Enter confirms
(the highlighted button: :meth:`Dialog.confirm`), Esc cancels (:meth:`Dialog.cancel`,
which answers :attr:`Dialog.cancel_value`, the same as the window's close button).
"""

from __future__ import annotations

import os
from typing import Any, Callable

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UILabel, UIPanel, UITextBox, UITextEntryLine, UIWindow

from game.ui.keymap import DIALOG

#: pygame_gui object id of the button Enter presses (the theme highlights it).
DEFAULT_BUTTON = "#default_button"


def _esc(s: str) -> str:
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "<br>")


def tab_between(event: pygame.event.Event, entries: list) -> bool:
    """Tab (Shift+Tab: backwards) moves the focus to the next text entry of ``entries``;
    True when the key was a Tab."""
    if event.type != pygame.KEYDOWN or event.key != pygame.K_TAB or len(entries) < 2:
        return False
    here = next((i for i, e in enumerate(entries) if e.is_focused), -1)
    step = -1 if event.mod & pygame.KMOD_SHIFT else 1
    there = entries[(here + step) % len(entries)]
    for e in entries:
        e.unfocus()
    there.focus()
    there.set_text(there.get_text())  # the cursor at the end, in the text and on the screen
    return True


def _centred_window(manager: pygame_gui.UIManager, title: str, width: int, height: int) -> UIWindow:
    sw, sh = manager.window_resolution
    rect = pygame.Rect(0, 0, width, min(height, sh - 20))
    rect.center = (sw // 2, sh // 2)
    return UIWindow(rect, manager, window_display_title=title, resizable=False, draggable=True)


class Dialog:
    modal = True
    #: The window has a close button (Esc and the close button cancel).
    closable = True
    #: What Esc (and the close button) answers; None: no choice.
    cancel_value: Any = None

    def __init__(self):
        self.done = False
        self.root: Any = None

    # --- keys: the same in every dialog ------------------------------------------------
    def handle_key(self, event: pygame.event.Event) -> bool:
        """Enter confirms, Esc cancels; True when the key was used."""
        cmd = DIALOG.command_for(event)
        if cmd == "confirm":
            return self.confirm()
        if cmd == "cancel":
            return self.cancel()
        return False

    def confirm(self) -> bool:
        """Press the highlighted button; False when the dialog has none."""
        return False

    def cancel(self) -> bool:
        """Close without a choice (or with :attr:`cancel_value`)."""
        if not (self.closable or self.cancel_value is not None):
            return False
        self.close(self.cancel_value)
        return True

    # --- pygame_gui events -------------------------------------------------------------
    def handle_ui_event(self, event: pygame.event.Event) -> bool:
        if self.done:
            return False
        if event.type == pygame_gui.UI_WINDOW_CLOSE and event.ui_element is self.root:
            self.done = True  # pygame_gui killed the window already
            self.finish(self.cancel_value)
            return True
        return self.handle_element(event)

    def handle_element(self, event: pygame.event.Event) -> bool:
        """A button or entry of this dialog was used; True when it was ours."""
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

    def _buttons(
        self,
        manager,
        container,
        choices: list[tuple[str, Any]],
        default: Any,
        x: int,
        y: int,
        width: int,
        cols: int,
        height: int = 32,
    ) -> dict[Any, Any]:
        """A grid of buttons (label, value); the default one is highlighted."""
        out: dict[Any, Any] = {}
        bw = (width - (cols - 1) * 6) // cols
        for i, (label, value) in enumerate(choices):
            r, c = divmod(i, cols)
            oid = DEFAULT_BUTTON if value == default and value is not None else None
            b = UIButton(
                pygame.Rect(x + c * (bw + 6), y + r * (height + 6), bw, height),
                label,
                manager,
                container=container,
                object_id=oid,
            )
            out[b] = value
        return out


class ChoiceDialog(Dialog):
    """A titled window with a message and one button per choice.

    Enter presses ``default`` (the first choice unless given); Esc answers ``cancel``.
    """

    def __init__(
        self,
        manager: pygame_gui.UIManager,
        title: str,
        message: str,
        choices: list[tuple[str, Any]],
        on_choose: Callable[[Any], None],
        closable: bool = True,
        width: int = 460,
        default: Any = None,
        cancel: Any = None,
    ):
        super().__init__()
        self.on_choose = on_choose
        self.closable = closable
        self.cancel_value = cancel
        self.title, self.message = title, message
        self.default = default if default is not None else (choices[0][1] if choices else None)
        cols = 1 if any(len(c[0]) > 22 for c in choices) else min(3, max(1, len(choices)))
        rows = (len(choices) + cols - 1) // cols
        lines = max(2, min(12, message.count("\n") + 1 + len(message) // 55))
        text_h = 23 * lines + 16
        self.root = _centred_window(manager, title, width, 46 + text_h + rows * 38)
        if not closable and self.root.close_window_button is not None:
            self.root.close_window_button.disable()
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, text_h), manager, container=self.root)
        self.buttons = self._buttons(manager, self.root, choices, self.default, 6, text_h + 10, inner_w - 12, cols)

    def handle_element(self, event) -> bool:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.close(self.buttons[event.ui_element])
            return True
        return False

    def confirm(self) -> bool:
        if self.default is None:
            return False
        self.close(self.default)
        return True

    def choose(self, value: Any) -> None:
        """Press the button of ``value`` (tests and keyboard shortcuts)."""
        self.close(value)

    def finish(self, value):
        if value is not None or self.closable:
            self.on_choose(value)


class MessageDialog(ChoiceDialog):
    def __init__(self, manager, title: str, message: str, on_close: Callable[[Any], None] | None = None):
        super().__init__(manager, title, message, [("OK", "ok")], on_close or (lambda v: None), closable=True)


class ContextMenu(Dialog):
    """A borderless list of buttons at a point; a click elsewhere or Esc closes it."""

    modal = False
    ITEM_H = 28

    def __init__(
        self,
        manager: pygame_gui.UIManager,
        pos,
        title: str,
        items: list[tuple[str, Any]],
        on_choose: Callable[[Any], None],
        width: int = 270,
    ):
        super().__init__()
        self.on_choose = on_choose
        sw, sh = manager.window_resolution
        h = 26 + len(items) * self.ITEM_H + 6
        rect = pygame.Rect(pos[0], pos[1], width, h)
        rect.clamp_ip(pygame.Rect(0, 0, sw, sh))
        self.root = UIPanel(rect, starting_height=3, manager=manager)
        font = manager.get_theme().get_font_dictionary().find_font(13, "noto_sans")
        while len(title) > 8 and font.size(title)[0] > width - 24:
            title = title[:-4] + "..."
        UILabel(pygame.Rect(4, 2, width - 14, 22), title, manager, container=self.root)
        self.items = list(items)
        self.buttons: dict[Any, Any] = {}
        for i, (label, value) in enumerate(items):
            b = UIButton(
                pygame.Rect(2, 26 + i * self.ITEM_H, width - 10, self.ITEM_H - 2), label, manager, container=self.root
            )
            self.buttons[b] = value

    def handle_element(self, event) -> bool:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.close(self.buttons[event.ui_element])
            return True
        return False

    def choose(self, value):
        self.close(value)

    def finish(self, value):
        if value is not None:
            self.on_choose(value)


class NumberPrompt(Dialog):
    """Ask for a whole number (a physical die's result); Enter or OK accepts, Esc gives None."""

    def __init__(
        self,
        manager: pygame_gui.UIManager,
        title: str,
        message: str,
        low: int,
        high: int,
        on_value: Callable[[int | None], None],
        closable: bool = False,
    ):
        super().__init__()
        self.low, self.high = low, high
        self.on_value = on_value
        self.closable = closable
        self.root = _centred_window(manager, title, 420, 210)
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, 76), manager, container=self.root)
        self.entry = UITextEntryLine(pygame.Rect(6, 88, 120, 32), manager, container=self.root)
        self.entry.set_allowed_characters("numbers")
        self.entry.focus()
        self.ok = UIButton(pygame.Rect(136, 88, 90, 32), "OK", manager, container=self.root, object_id=DEFAULT_BUTTON)
        self.error = UITextBox("", pygame.Rect(232, 88, inner_w - 238, 40), manager, container=self.root)
        self.value: int | None = None

    def confirm(self) -> bool:
        raw = self.entry.get_text().strip()
        try:
            v = int(raw)
        except ValueError:
            v = None
        if v is None or not (self.low <= v <= self.high):
            self.error.set_text(f"<font color='#c00000'>a number {self.low}-{self.high}</font>")
            return True
        self.value = v
        self.close(v)
        return True

    def cancel(self) -> bool:
        self.close(None)  # the caller rolls for the player instead
        return True

    def handle_element(self, event) -> bool:
        if (event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.ok) or (
            event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry
        ):
            self.confirm()
            return True
        return False

    def finish(self, value):
        self.on_value(value)


class TextPrompt(Dialog):
    """Ask for a line of text (a reason for a roll, a file name).

    The answer is ``(text, button value)``; Enter answers with the first button. A
    button whose value is None cancels (the answer is None). With ``name`` (a map's
    save-as), a second field above asks for a name first, and the answer is
    ``(text, button value, name)``; Tab moves between the two fields.
    """

    def __init__(
        self,
        manager: pygame_gui.UIManager,
        title: str,
        message: str,
        initial: str,
        on_value: Callable[[tuple | None], None],
        buttons: list[tuple[str, Any]] | None = None,
        name: str | None = None,
    ):
        super().__init__()
        self.on_value = on_value
        extra = 0 if name is None else 40
        self.root = _centred_window(manager, title, 460, 190 + extra)
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, 60), manager, container=self.root)
        self.name: UITextEntryLine | None = None
        if name is not None:
            UILabel(pygame.Rect(6, 70, 90, 32), "map name", manager, container=self.root)
            self.name = UITextEntryLine(
                pygame.Rect(100, 70, inner_w - 106, 32), manager, container=self.root, initial_text=name
            )
        self.entry = UITextEntryLine(
            pygame.Rect(6, 70 + extra, inner_w - 12, 32), manager, container=self.root, initial_text=initial
        )
        first = self.name or self.entry
        first.focus()
        first.set_text(first.get_text())  # the cursor at the end of the text
        choices = buttons or [("OK", "ok")]
        self.default = choices[0][1]
        self.buttons = self._buttons(
            manager, self.root, choices, self.default, 6, 110 + extra, inner_w - 12, len(choices)
        )

    def handle_key(self, event: pygame.event.Event) -> bool:
        return (self.name is not None and tab_between(event, [self.name, self.entry])) or super().handle_key(event)

    def answer(self, value: Any) -> None:
        if value is None:
            self.close(None)
        elif self.name is not None:
            self.close((self.entry.get_text(), value, self.name.get_text()))
        else:
            self.close((self.entry.get_text(), value))

    def confirm(self) -> bool:
        self.answer(self.default)
        return True

    def handle_element(self, event) -> bool:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.answer(self.buttons[event.ui_element])
            return True
        if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element in (self.entry, self.name):
            self.confirm()
            return True
        return False

    def finish(self, value):
        self.on_value(value)


class FileDialog(Dialog):
    """Choose a file: a button per listed file, or a typed path (Enter takes the typed one).

    The typed path starts as the first listed file, so Enter alone takes that.
    """

    def __init__(
        self,
        manager: pygame_gui.UIManager,
        title: str,
        message: str,
        files: list[tuple[str, str]],
        folder: str,
        on_path: Callable[[str | None], None],
        action: str = "Open",
    ):
        super().__init__()
        self.on_path = on_path
        self.root = _centred_window(manager, title, 480, 170 + 36 * len(files))
        inner_w = self.root.get_container().get_rect().width
        UITextBox(_esc(message), pygame.Rect(6, 4, inner_w - 12, 46), manager, container=self.root)
        self.buttons = self._buttons(manager, self.root, files, None, 6, 54, inner_w - 12, 1, height=30)
        y = 54 + 36 * len(files)
        initial = files[0][1] if files else os.path.join(folder, "")
        self.entry = UITextEntryLine(
            pygame.Rect(6, y, inner_w - 108, 30), manager, container=self.root, initial_text=initial
        )
        self.entry.focus()
        self.ok = UIButton(
            pygame.Rect(inner_w - 96, y, 90, 30), action, manager, container=self.root, object_id=DEFAULT_BUTTON
        )

    def confirm(self) -> bool:
        self.close(self.entry.get_text().strip() or None)
        return True

    def handle_element(self, event) -> bool:
        if event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element in self.buttons:
            self.close(self.buttons[event.ui_element])
            return True
        if (event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.ok) or (
            event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element is self.entry
        ):
            self.confirm()
            return True
        return False

    def finish(self, value):
        self.on_path(os.path.expanduser(value) if value else None)


class SizePrompt(Dialog):
    """A new map's table size: width and height in inches, checked by ``check(w, h)``
    (which raises ValueError with a sentence); Enter or Create accepts."""

    def __init__(
        self,
        manager: pygame_gui.UIManager,
        title: str,
        message: str,
        initial: tuple[float, float],
        check: Callable[[float, float], None],
        on_size: Callable[[tuple[float, float] | None], None],
    ):
        super().__init__()
        self.check, self.on_size = check, on_size
        self.root = _centred_window(manager, title, 460, 160)
        UILabel(pygame.Rect(10, 8, 420, 24), message, manager, container=self.root)
        UILabel(pygame.Rect(10, 40, 60, 28), "width", manager, container=self.root)
        self.width = UITextEntryLine(pygame.Rect(70, 40, 100, 28), manager, container=self.root)
        UILabel(pygame.Rect(190, 40, 60, 28), "height", manager, container=self.root)
        self.height = UITextEntryLine(pygame.Rect(250, 40, 100, 28), manager, container=self.root)
        for e, v in ((self.width, initial[0]), (self.height, initial[1])):
            e.set_allowed_characters([*"0123456789."])
            e.set_text(f"{v:g}")
        self.width.focus()
        self.ok = UIButton(
            pygame.Rect(360, 40, 70, 28), "Create", manager, container=self.root, object_id=DEFAULT_BUTTON
        )
        self.error = UILabel(
            pygame.Rect(10, 80, 420, 28),
            "Tab: the other field; Enter creates the map, Esc cancels",
            manager,
            container=self.root,
        )

    def handle_key(self, event: pygame.event.Event) -> bool:
        """Tab (and Shift+Tab) moves between the width and the height field."""
        return tab_between(event, [self.width, self.height]) or super().handle_key(event)

    def confirm(self) -> bool:
        try:
            w, h = float(self.width.get_text()), float(self.height.get_text())
        except ValueError:
            self.error.set_text("width and height must be numbers")
            return True
        try:
            self.check(w, h)
        except ValueError as exc:
            self.error.set_text(str(exc))
            return True
        self.close((w, h))
        return True

    def handle_element(self, event) -> bool:
        if (event.type == pygame_gui.UI_BUTTON_PRESSED and event.ui_element is self.ok) or (
            event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED and event.ui_element in (self.width, self.height)
        ):
            self.confirm()
            return True
        return False

    def finish(self, value):
        self.on_size(value)
