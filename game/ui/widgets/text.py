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
    """Split ``s`` into lines that fit ``width`` pixels: at spaces, and inside a word
    longer than a line (a path, a file name), so no line runs past ``width``. A line that
    goes on from the one above starts with two spaces."""
    f = font(size, bold)
    fits = lambda t: f.size(t)[0] <= width  # noqa: E731
    out: list[str] = []
    for para in s.split("\n"):
        line = ""
        for w in para.split(" "):
            trial = w if not line else line + " " + w
            if fits(trial) or not line.strip():
                line = trial
            else:
                out.append(line)
                line = "  " + w
            while not fits(line) and len(line.strip()) > 1:  # a word longer than a line: cut it
                cut = len(line) - 1
                while cut > 3 and not fits(line[:cut]):
                    cut -= 1
                out.append(line[:cut])
                line = "  " + line[cut:]
        out.append(line)
    return out
