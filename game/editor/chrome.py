"""The editor's tool bar (tools, the kind of new pieces, actions) and its status bar
(tool, kind, snapping, the cursor in inches, the file, the last message). Hand-drawn
every frame; a click on a button sends its named command to the scene."""

from __future__ import annotations

import os

import pygame

from game.editor.host import EditorHost
from game.editor.tools import fmt
from game.editor.problems import wrap
from game.ui import theme
from game.ui.draw import get_font
from game.ui.keymap import EDITOR


TOOLBAR_W = 118
STATUS_H = 26

#: (tool, caption); the caption shows the tool's key from the keymap.
TOOLS = (
    ("select", "Select"),
    ("rect", "Rect"),
    ("poly", "Polygon"),
    ("wall", "Wall"),
    ("ladder", "Ladder"),
    ("treasure", "Treasure"),
    ("zone", "Zone"),
    ("unit", "Units"),
)
KIND_BUTTONS = (("block", "block"), ("wall", "wall"), ("difficult", "difficult"), ("impassable", "impass."))
ACTION_BUTTONS = (
    ("undo", "Undo"),
    ("redo", "Redo"),
    ("rotate", "Rot +15"),
    ("rotate_back", "Rot -15"),
    ("duplicate", "Duplicate"),
    ("delete", "Delete"),
    ("snap", "Snap"),
    ("roster", "Roster..."),
    ("save", "Save"),
    ("play", "Play"),
)


class EditorChrome:
    def __init__(self, scene: EditorHost):
        self.scene = scene
        #: Where each button was drawn: (rect, command), for clicks.
        self.buttons: list[tuple[pygame.Rect, str]] = []

    def command_at(self, pos) -> str | None:
        for r, cmd in self.buttons:
            if r.collidepoint(pos):
                return cmd
        return None

    def _button(self, surface, r: pygame.Rect, text: str, on: bool, cmd: str, enabled: bool = True) -> None:
        pygame.draw.rect(
            surface, theme.BUTTON_ON if on else (theme.BUTTON if enabled else theme.CHROME), r, border_radius=4
        )
        img = get_font(13, "bold").render(text, True, theme.BUTTON_TEXT if enabled else theme.BUTTON_OFF_TEXT)
        surface.blit(img, img.get_rect(center=r.center))
        self.buttons.append((r, cmd))

    def draw_toolbar(self, surface: pygame.Surface) -> None:
        scene = self.scene
        doc = scene.doc
        self.buttons = []
        surface.fill(theme.CHROME, pygame.Rect(0, 0, TOOLBAR_W, scene.size[1]))
        w = TOOLBAR_W - 12
        y = 8
        for tool, text in TOOLS:
            key = EDITOR.label(f"tool_{tool}")
            self._button(surface, pygame.Rect(6, y, w, 28), f"{text}  {key}", scene.tool == tool, f"tool_{tool}")
            y += 32
        y += 8
        for kind, text in KIND_BUTTONS:
            self._button(
                surface,
                pygame.Rect(6, y, w, 24),
                f"{EDITOR.label(f'kind_{kind}')} {text}",
                scene.kind == kind,
                f"kind_{kind}",
            )
            y += 27
        y += 8
        for cmd, text in ACTION_BUTTONS:
            if cmd == "snap":
                text = f'Snap {fmt(doc.snap_step)}"' if doc.snap_step else "Snap off"
            enabled = not ((cmd == "undo" and not doc.can_undo) or (cmd == "redo" and not doc.can_redo))
            self._button(surface, pygame.Rect(6, y, w, 24), text, False, cmd, enabled)
            y += 27

    def draw_status(self, surface: pygame.Surface) -> None:
        scene = self.scene
        doc = scene.doc
        w, h = scene.size
        r = pygame.Rect(0, h - STATUS_H, w, STATUS_H)
        surface.fill(theme.STATUS_BG, r)
        mx, my = scene.to_in(scene.mouse_px)
        s = doc.snap_step
        left = (
            f"{scene.tool} | {scene.kind} | snap {fmt(s) + chr(34) if s else 'off'} | "
            f'x {mx:6.2f}" y {my:6.2f}" | {"*" if doc.dirty else ""}{os.path.basename(doc.path or "untitled")}'
        )
        font = get_font(13, "regular")
        colour = theme.STATUS_BAD if scene.message_bad else theme.STATUS_TEXT
        lines, size, x = self.message_lines(scene.message, w)
        if x > 8:  # the message fits beside the tool, snapping, cursor and file
            surface.blit(font.render(left, True, theme.STATUS_TEXT), (8, r.y + 5))
        small = get_font(size, "regular")
        step = STATUS_H // max(1, len(lines))
        for i, ln in enumerate(lines):
            img = small.render(ln, True, colour)
            surface.blit(img, (x, r.y + i * step + (step - img.get_height()) // 2))

    #: Where the message starts when it fits beside the rest of the status bar.
    MESSAGE_X = 440

    def message_lines(self, text: str, width: int) -> tuple[list[str], int, int]:
        """The status message as drawn: (lines, font size, x). Never cut off: a long one
        takes the whole bar, then two lines of a smaller font."""
        font = get_font(13, "regular")
        if font.size(text)[0] <= width - self.MESSAGE_X - 8:
            return [text], 13, self.MESSAGE_X
        if font.size(text)[0] <= width - 16:
            return [text], 13, 8
        for size in (12, 11, 10):
            lines = wrap(text, get_font(size, "regular"), width - 16)
            if len(lines) <= 2:
                return lines, size, 8
        return lines[:1] + [" ".join(lines[1:])], 10, 8
