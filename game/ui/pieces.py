"""Tokens and units on a table picture: true-size bases with labels, status and keyword
glyphs, treasure coins (plain until revealed), token ids. Drawn every frame; reads the
state, never changes it."""

from __future__ import annotations

from typing import Callable, Iterable

import pygame

from game.engine.geometry import Board
from game.engine.model import GameState, Token, Unit
from game.ui import theme
from game.ui.camera import Camera
from game.ui.draw import paw, star, text_at
from game.ui.theme import Colour


class PiecePainter:
    """Paints tokens and units; colours and labels come from the board painter."""

    def __init__(self, board: Board, warband_colour: Callable[[str], Colour], unit_label: Callable[[str], str]):
        self.board = board
        self.warband_colour = warband_colour
        self.unit_label = unit_label

    def token_look(self, tok: Token, show_hidden: bool) -> str:
        """What a token shows: 'plain', 'event' or 'plague' (hidden ones look plain)."""
        if (show_hidden or tok.revealed) and tok.event in ("event", "plague"):
            return tok.event
        return "plain"

    def draw_tokens(self, surface: pygame.Surface, camera: Camera, state: GameState, show_hidden: bool = False) -> None:
        """Treasure tokens on the ground (carried ones are drawn on their carrier)."""
        s = camera.scale
        for tok in state.treasure.values():
            if tok.carried_by:
                continue
            cx, cy = camera.to_px(tok.x, tok.y)
            r = max(3.0, tok.r * s)
            look = self.token_look(tok, show_hidden)
            self.coin(surface, cx, cy, r, look)

    def draw_token_labels(self, surface: pygame.Surface, camera: Camera, state: GameState) -> None:
        """Token ids beside the tokens (drawn after units so a unit in contact never hides them)."""
        s = camera.scale
        if s < 12:
            return
        size = max(8, min(15, round(s * 0.28)))
        for tok in state.treasure.values():
            if tok.carried_by:
                continue
            cx, cy = camera.to_px(tok.x, tok.y)
            r = max(3.0, tok.r * s)
            text_at(
                surface,
                tok.id,
                (cx + r * 0.75, cy - r * 0.75),
                size,
                theme.INK,
                "condensed",
                anchor="bottomleft",
                box_colour=(255, 248, 220),
                box_edge=theme.TOKEN_EDGE,
                pad=2,
            )

    def coin(self, surface: pygame.Surface, cx: float, cy: float, r: float, look: str) -> None:
        fill = {"event": theme.TOKEN_EVENT, "plague": theme.TOKEN_PLAGUE}.get(look, theme.TOKEN_GOLD)
        pygame.draw.circle(surface, theme.TOKEN_EDGE, (cx, cy), r + 1)
        pygame.draw.circle(surface, fill, (cx, cy), r)
        if r >= 6:
            pygame.draw.circle(
                surface, theme.mix(fill, theme.TOKEN_EDGE, 0.45), (cx, cy), r * 0.68, max(1, round(r * 0.12))
            )
        if look != "plain" and r >= 7:
            text_at(surface, "E" if look == "event" else "P", (cx, cy), max(8, round(r * 1.0)), (255, 255, 255))

    def draw_units(
        self,
        surface: pygame.Surface,
        camera: Camera,
        state: GameState,
        selected: str | Iterable[str] | None = None,
        token_labels: bool = True,
        skip: Iterable[str] = (),
    ) -> None:
        """Units on the table: true-size bases, labels, status and keyword markers; then
        the token ids (so a unit in contact never hides them). ``skip``: units drawn
        elsewhere (one being animated)."""
        if isinstance(selected, str):
            chosen = {selected}
        else:
            chosen = set(selected or ())
        board = self.board
        skip = set(skip)
        units = [u for u in state.units.values() if u.on_table and u.id not in skip]
        units.sort(key=lambda u: (board.height_at(u.x, u.y), u.id in chosen))
        for u in units:
            self._unit(surface, camera, u, state, u.id in chosen)
        if token_labels:
            self.draw_token_labels(surface, camera, state)

    def draw_unit(
        self, surface: pygame.Surface, camera: Camera, unit: Unit, state: GameState, selected: bool = False
    ) -> None:
        """One unit where ``unit`` says (a copy at an animated place)."""
        self._unit(surface, camera, unit, state, selected)

    def _unit(self, surface: pygame.Surface, cam: Camera, u: Unit, state: GameState, selected: bool) -> None:
        s = cam.scale
        cx, cy = cam.to_px(u.x, u.y)
        r = max(3.0, u.r * s)
        colour = self.warband_colour(u.warband)
        down = u.status == "incapacitated"
        if down:
            colour = theme.mix(colour, (150, 150, 150), 0.65)
        if selected:
            pygame.draw.circle(surface, theme.SELECT_EDGE, (cx, cy), r + 6)
            pygame.draw.circle(surface, theme.SELECT, (cx, cy), r + 4)
        pygame.draw.circle(surface, (12, 12, 12), (cx, cy), r + max(1.0, r * 0.08))
        pygame.draw.circle(surface, colour, (cx, cy), r)
        pygame.draw.circle(
            surface, theme.mix(colour, (255, 255, 255), 0.35), (cx, cy), r * 0.82, max(1, round(r * 0.07))
        )
        label = self.unit_label(u.id)
        if r >= 6:
            size = max(7, round(r * (0.95 if len(label) <= 2 else 0.72)))
            text_at(surface, label, (cx, cy + 1), size, theme.text_on(colour), "condensed")
        if down:
            w = max(2, round(r * 0.16))
            k = r * 0.72
            pygame.draw.line(surface, (20, 20, 20), (cx - k, cy - k), (cx + k, cy + k), w)
            pygame.draw.line(surface, (20, 20, 20), (cx - k, cy + k), (cx + k, cy - k), w)
        if r < 7:
            return
        g = max(4.0, r * 0.36)  # glyph radius
        diag = r * 0.74
        if u.is_hero:
            gx, gy = cx + diag, cy - diag
            pygame.draw.polygon(surface, (30, 20, 0), star(gx, gy, g + 1.5))
            pygame.draw.polygon(surface, theme.HERO_GLYPH, star(gx, gy, g))
        if u.is_caster:
            gx, gy = cx - diag, cy - diag
            pts = [(gx, gy - g), (gx + g * 0.75, gy), (gx, gy + g), (gx - g * 0.75, gy)]
            pygame.draw.polygon(surface, theme.CASTER_GLYPH, pts)
            pygame.draw.polygon(surface, (20, 10, 40), pts, 1)
        if u.is_animal:
            paw(surface, cx - diag, cy + diag, g)
        if u.status in theme.STATUS_MARKS and not down:
            letter, bg = theme.STATUS_MARKS[u.status]
            gx, gy = cx + diag, cy + diag
            pygame.draw.circle(surface, (10, 10, 10), (gx, gy), g + 1.5)
            pygame.draw.circle(surface, bg, (gx, gy), g)
            text_at(surface, letter, (gx, gy), max(7, round(g * 1.5)), theme.text_on(bg))
        if u.carrying:
            tok = state.treasure.get(u.carrying)
            look = self.token_look(tok, False) if tok is not None else "plain"
            gx, gy = (cx - r * 0.95, cy) if u.is_animal else (cx - diag, cy + diag)
            self.coin(surface, gx, gy, max(4.0, g * 1.15), look)
