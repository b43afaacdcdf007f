"""Fonts and cached text surfaces for hand-drawn panels (cheap to redraw every frame)."""

from __future__ import annotations

import pygame

from game.ui import theme
from game.ui.draw import get_font


def font(size: int, bold: bool = False) -> pygame.font.Font:
    return get_font(size, "bold" if bold else "regular")


_cache: dict[tuple, pygame.Surface] = {}


def text(s: str, size: int = 14, colour=theme.INK, bold: bool = False) -> pygame.Surface:
    """A rendered line, cached (panels redraw the same strings every frame)."""
    key = (s, size, tuple(colour), bold)
    surf = _cache.get(key)
    if surf is None:
        if len(_cache) > 4000:
            _cache.clear()
        surf = font(size, bold).render(s, True, colour)
        _cache[key] = surf
    return surf


def wrap(s: str, width: int, size: int = 14, bold: bool = False) -> list[str]:
    """Split ``s`` into lines that fit ``width`` pixels."""
    f = font(size, bold)
    out: list[str] = []
    for para in s.split("\n"):
        words = para.split(" ")
        line = ""
        for w in words:
            trial = w if not line else line + " " + w
            if f.size(trial)[0] <= width or not line:
                line = trial
            else:
                out.append(line)
                line = "  " + w
        out.append(line)
    return out
