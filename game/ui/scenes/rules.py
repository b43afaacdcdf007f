"""The rules browser: every rule of the shipped rules reference (``docs/rules.md``), its id
and title in a list on the left, the chosen rule's text on the right (issue 23).

Opened with ``K`` at the table, from the F1 help (``K``), or on one rule from its tip.
Up / Down (or a click in the list) choose a rule, the wheel scrolls the list; Esc, ``K``
or ``F1`` close it.
"""

from __future__ import annotations

import pygame

from game import rules_doc
from game.ui import theme
from game.ui.keymap import RULES
from game.ui.scenes.base import DimmedScene
from game.ui.widgets import text as T

SIZE = 14
LIST_W = 300  # the narrowest list, pixels
ID_W = 76  # the id column


class RulesScene(DimmedScene):
    def __init__(self, app, rule: str | None = None):
        super().__init__(app)
        self.entries = list(rules_doc.entries().values())
        ids = [e.rule for e in self.entries]
        self.index = ids.index(rule) if rule in ids else 0
        self.top = 0  # first list row shown

    @property
    def rule(self) -> str:
        return self.entries[self.index].rule

    def _layout(self, size) -> tuple[pygame.Rect, pygame.Rect, int]:
        """The panel, the list (as wide as its longest title, at most 45% of the panel) and
        the height of a list row."""
        w, h = size
        panel = pygame.Rect(24, 24, w - 48, h - 48)
        need = ID_W + 16 + max(T.font(SIZE).size(e.title)[0] for e in self.entries)
        listing = pygame.Rect(
            panel.x + 12, panel.y + 54, min(max(LIST_W, need), int(panel.width * 0.45)), panel.height - 80
        )
        row_h = T.font(SIZE).get_linesize() + 4
        return panel, listing, row_h

    def _rows_shown(self) -> int:
        _, listing, row_h = self._layout(self.app.size)
        return max(1, listing.height // row_h)

    def choose(self, index: int) -> None:
        self.index = max(0, min(len(self.entries) - 1, index))
        shown = self._rows_shown()
        if self.index < self.top:
            self.top = self.index
        elif self.index >= self.top + shown:
            self.top = self.index - shown + 1

    def handle_event(self, event):
        cmd = RULES.command_for(event)
        if cmd == "close":
            self.close()
        elif cmd == "prev":
            self.choose(self.index - 1)
        elif cmd == "next":
            self.choose(self.index + 1)
        elif cmd == "quit":
            return event
        elif event.type == pygame.MOUSEWHEEL:
            self.top = max(0, min(len(self.entries) - self._rows_shown(), self.top - event.y * 3))
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            panel, listing, row_h = self._layout(self.app.size)
            if listing.collidepoint(event.pos):
                i = self.top + (event.pos[1] - listing.y) // row_h
                if 0 <= i < len(self.entries):
                    self.index = i
            elif not panel.collidepoint(event.pos):
                self.close()
        return None

    def draw(self, surface):
        w, h = surface.get_size()
        self.dim(surface)
        panel, listing, row_h = self._layout((w, h))
        pygame.draw.rect(surface, (252, 249, 240), panel, border_radius=8)
        pygame.draw.rect(surface, (90, 80, 60), panel, 1, border_radius=8)
        title = (
            f"The rules ({len(self.entries)} ids, from docs/rules.md) - Up / Down or click to choose; "
            f"{RULES.label('close')} closes"
        )
        surface.blit(T.text(title, 17, theme.INK, True), (panel.x + 14, panel.y + 14))
        clip = surface.get_clip()
        surface.set_clip(listing)
        for row, e in enumerate(self.entries[self.top : self.top + self._rows_shown()]):
            i = self.top + row
            r = pygame.Rect(listing.x, listing.y + row * row_h, listing.width, row_h)
            if i == self.index:
                pygame.draw.rect(surface, (225, 215, 185), r, border_radius=3)
            surface.blit(T.text(e.rule, SIZE, theme.INK, True), (r.x + 6, r.y + 2))
            surface.blit(T.text(e.title, SIZE, (60, 55, 50)), (r.x + ID_W + 12, r.y + 2))
        surface.set_clip(clip)
        below = len(self.entries) - self.top - self._rows_shown()
        hint = (f"{self.top} more above, " if self.top > 0 else "") + (f"{below} more below " if below > 0 else "")
        if hint:
            surface.blit(
                T.text(f"({hint.strip().rstrip(',')}: the wheel or Up / Down)", 12, (110, 100, 90)),
                (listing.x + 6, listing.bottom + 4),
            )
        pygame.draw.line(
            surface, (190, 180, 160), (listing.right + 8, listing.y), (listing.right + 8, listing.bottom), 1
        )
        e = self.entries[self.index]
        x = listing.right + 24
        width = panel.right - 20 - x
        y = listing.y
        for line in T.wrap(f"{e.rule}  {e.title}", width, 20, True):
            surface.blit(T.text(line.strip(), 20, theme.INK, True), (x, y))
            y += T.font(20, True).get_linesize()
        y += 8
        lh = T.font(SIZE + 1).get_linesize() + 2
        for para in e.text.split("\n"):
            for line in T.wrap(para, width, SIZE + 1):
                surface.blit(T.text(line.strip(), SIZE + 1, (30, 28, 26)), (x, y))
                y += lh
            y += 6
