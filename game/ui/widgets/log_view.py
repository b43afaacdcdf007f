"""The scrolling log panel: every action, roll, automatic step and refusal.

Each entry is wrapped and rendered once (cached per panel width); a frame only blits
the visible lines. The wheel over the panel scrolls; new lines scroll to the bottom.
"""

from __future__ import annotations

import pygame

from game.ui.widgets import text as T

KIND_COLOURS = {
    "action": (30, 30, 30),
    "roll": (30, 70, 150),
    "auto": (100, 100, 100),
    "refusal": (180, 30, 30),
    "event": (150, 40, 150),
    "info": (40, 110, 60),
    "turn": (0, 0, 0),
    "bot": (150, 80, 0),
}
BG = (252, 250, 244)
EDGE = (170, 160, 145)


class LogView:
    SIZE = 12

    def __init__(self, rect: pygame.Rect):
        self.rect = pygame.Rect(rect)
        self.entries: list[tuple[str, str]] = []
        self._lines: list[pygame.Surface] = []
        self._texts: list[tuple[str, bool]] = []  # each line's text and boldness (rule tips)
        self._sig: tuple = ()
        #: Rendered lines per (entry, kind, width): a new action renders only its own lines.
        self._rendered: dict[tuple[str, str, int], list[pygame.Surface]] = {}
        self._wrapped: dict[tuple[str, str, int], list[str]] = {}  # their texts
        self.scroll = 0  # lines from the bottom
        self.line_h = T.font(self.SIZE).get_linesize()

    def set_rect(self, rect: pygame.Rect) -> None:
        if pygame.Rect(rect) != self.rect:
            self.rect = pygame.Rect(rect)
            self._sig = ()

    def set_entries(self, entries: list[tuple[str, str]]) -> None:
        sig = (len(entries), entries[-1] if entries else None, self.rect.width)
        if sig == self._sig and len(entries) == len(self.entries):
            return
        self.entries = list(entries)
        self._sig = sig
        self._lines = []
        self._texts = []
        width = self.rect.width - 12
        for s, kind in self.entries:
            key = (s, kind, width)
            rendered = self._rendered.get(key)
            if rendered is None:
                colour = KIND_COLOURS.get(kind, (30, 30, 30))
                bold = kind == "turn"
                wrapped = self._wrapped[key] = T.wrap(s, width, self.SIZE, bold)
                rendered = self._rendered[key] = [T.text(line, self.SIZE, colour, bold) for line in wrapped]
            self._lines.extend(rendered)
            self._texts.extend((line, kind == "turn") for line in self._wrapped[key])
        self.scroll = 0

    @property
    def lines(self) -> int:
        return len(self._lines)

    def handle_event(self, event: pygame.event.Event, pos=None) -> bool:
        if event.type == pygame.MOUSEWHEEL and self.rect.collidepoint(
            pos if pos is not None else pygame.mouse.get_pos()
        ):
            visible = max(1, (self.rect.height - 24) // self.line_h)
            self.scroll = max(0, min(max(0, len(self._lines) - visible), self.scroll + event.y * 3))
            return True
        return False

    def visible_lines(self) -> list[tuple[str, bool, tuple[int, int]]]:
        """The lines drawn now: (text, bold, top-left), for the rule tips over the log."""
        r = self.rect
        visible = max(1, (r.height - 26) // self.line_h)
        end = len(self._texts) - self.scroll
        start = max(0, end - visible)
        return [(t, b, (r.x + 6, r.y + 22 + i * self.line_h)) for i, (t, b) in enumerate(self._texts[start:end])]

    def draw(self, surface: pygame.Surface) -> None:
        r = self.rect
        surface.fill(BG, r)
        pygame.draw.rect(surface, EDGE, r, 1)
        surface.blit(T.text("Log", 13, (60, 50, 40), True), (r.x + 6, r.y + 3))
        top = r.y + 22
        visible = max(1, (r.height - 26) // self.line_h)
        end = len(self._lines) - self.scroll
        start = max(0, end - visible)
        clip = surface.get_clip()
        surface.set_clip(r.inflate(-2, -2))
        y = top
        for s in self._lines[start:end]:
            surface.blit(s, (r.x + 6, y))
            y += self.line_h
        surface.set_clip(clip)
        if self.scroll:
            surface.blit(
                T.text(f"(scrolled up {self.scroll} lines - wheel down for the newest)", 11, (120, 110, 100)),
                (r.x + 60, r.y + 4),
            )
