"""Drawing helpers for the play scene's overlays: labels, check icons and
the reachable-area layer (walk green, run yellow, cross-hatched where only a check
gets there). Pure drawing: nothing here reads or changes the game state."""

from __future__ import annotations

from typing import Any

import pygame

from game.ui import theme
from game.ui.camera import Camera
from game.ui.draw import draw_geometry
from game.ui.widgets import text as T

GREEN = (40, 170, 60)
YELLOW = (235, 190, 30)
RED = (210, 40, 40)


def _label_lines(text: str, size: int, max_width: int) -> list[str]:
    """The lines :func:`label` draws ``text`` in: all of it, wrapped to ``max_width``."""
    return T.wrap(text, max_width, size, True) if T.font(size, True).size(text)[0] > max_width else [text]


def _box_size(lines: list[str], size: int) -> tuple[int, int]:
    """The (width, height) of the box round ``lines`` (as :func:`_label_lines` gives them)."""
    f = T.font(size, True)
    return max(f.size(line.strip())[0] for line in lines) + 10, f.get_linesize() * len(lines) + 4


def label_size(text: str, size: int = 12, max_width: int = 560) -> tuple[int, int]:
    """The (width, height) in pixels of the box :func:`label` draws ``text`` in, for a
    caller that lays out several labels before drawing them."""
    return _box_size(_label_lines(text, size, max_width), size)


def label(
    surface,
    text: str,
    centre,
    colour,
    size: int = 12,
    bg=(255, 255, 255),
    max_width: int = 560,
    below: pygame.Rect | None = None,
) -> pygame.Rect:
    """A boxed label centred at ``centre``, wrapped to ``max_width`` (every line of it: a
    refusal is never cut mid-sentence) and kept inside the clip area. With ``below`` (a
    box already drawn) the label goes under that box, or above it where there is no room
    below, never over it. Returns the box drawn (the rule tips hover the refusal's); its
    size is :func:`label_size`'s."""
    lines = _label_lines(text, size, max_width)  # wrapped once: the box and the lines drawn
    imgs = [T.text(line.strip(), size, colour, True) for line in lines]
    lh = T.font(size, True).get_linesize()
    box = pygame.Rect((0, 0), _box_size(lines, size))
    box.center = (round(centre[0]), round(centre[1]))
    area = surface.get_clip()
    if below is not None:
        box.top = below.bottom + 3
        if box.bottom > area.bottom:
            box.bottom = below.top - 3
    if area.width > box.width and area.height > box.height:
        box.clamp_ip(area)
    pygame.draw.rect(surface, bg, box, border_radius=4)
    pygame.draw.rect(surface, (30, 30, 30), box, 1, border_radius=4)
    for i, img in enumerate(imgs):
        surface.blit(img, (box.x + 5, box.y + 2 + i * lh))
    return box


CHECK_LETTERS = {"climb_up": "C", "climb_down": "C", "jump_gap": "J", "jump_down": "D", "ladder": "L"}
#: The height changes along a path, as a player reads them.
CHECK_WORDS = {
    "climb_up": "climb up (M6)",
    "climb_down": "climb down (M6)",
    "jump_gap": "jump a gap (M8)",
    "jump_down": "jump down (M9)",
    "ladder": "ladder (M10)",
}


def check_icon(surface, c, kind: str) -> None:
    letter = CHECK_LETTERS.get(kind, kind[:1].upper() or "?")
    pygame.draw.circle(surface, (20, 20, 20), c, 10)
    pygame.draw.circle(surface, (255, 235, 120), c, 8)
    img = T.text(letter, 11, (20, 20, 20), True)
    surface.blit(img, img.get_rect(center=(round(c[0]), round(c[1]))))


_HATCH: dict[tuple, pygame.Surface] = {}


def _hatch(size, colour) -> pygame.Surface:
    """A cross-hatch pattern the size of the view (cached per size and colour)."""
    key = (tuple(size), tuple(colour))
    s = _HATCH.get(key)
    if s is None:
        s = pygame.Surface(size, pygame.SRCALPHA)
        w, h = size
        rgba = (*colour, 230)
        for k in range(-h, w, 9):
            pygame.draw.line(s, rgba, (k, 0), (k + h, h), 2)
            pygame.draw.line(s, rgba, (k + h, 0), (k, h), 2)
        if len(_HATCH) > 8:
            _HATCH.clear()
        _HATCH[key] = s
    return s


def reach_bands(reach: Any) -> dict[str, Any]:
    """The non-empty geometries of a movement Reach by band name."""
    bands = {
        "walk_free": reach.walk_free,
        "walk_check": reach.walk_check,
        "run_free": reach.run_free,
        "run_check": reach.run_check,
    }
    return {k: g for k, g in bands.items() if g is not None and not g.is_empty}


def render_reach(reach: Any, camera: Camera, view: pygame.Rect) -> pygame.Surface:
    """The reachable area as one translucent layer: walk green, run yellow, and
    cross-hatched (in the band's colour) where only a check gets there."""
    out = pygame.Surface(view.size, pygame.SRCALPHA)
    local = Camera(camera.scale, (camera.offset[0] - view.x, camera.offset[1] - view.y))
    bands = reach_bands(reach)
    if "run_free" in bands and "walk_free" in bands:
        # Run-only ground: what a Run reaches beyond the walk (no double tint).
        bands["run_free"] = bands["run_free"].difference(bands["walk_free"])
    for name, colour, alpha in (("run_free", YELLOW, 80), ("walk_free", GREEN, 80)):
        g = bands.get(name)
        if g is not None and not g.is_empty:
            layer = pygame.Surface(view.size, pygame.SRCALPHA)
            _fill_geom(layer, local, g, (*colour, alpha))
            out.blit(layer, (0, 0))
            draw_geometry(out, local, g, outline=theme.mix(colour, (0, 0, 0), 0.35), width=2)
    for name, colour in (("run_check", YELLOW), ("walk_check", GREEN)):
        g = bands.get(name)
        if g is not None:
            mask = pygame.Surface(view.size, pygame.SRCALPHA)
            _fill_geom(mask, local, g, (255, 255, 255, 255))
            pattern = _hatch(view.size, theme.mix(colour, (0, 0, 0), 0.25)).copy()
            pattern.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MULT)
            out.blit(pattern, (0, 0))
            draw_geometry(out, local, g, outline=theme.mix(colour, (0, 0, 0), 0.35), width=1)
    return out


def _fill_geom(surface, cam: Camera, geom, rgba) -> None:
    """Fill a (multi)polygon with holes onto an SRCALPHA surface (holes cleared)."""
    for g in getattr(geom, "geoms", [geom]):
        if not hasattr(g, "exterior"):
            continue
        pts = cam.points_px(g.exterior.coords)
        if len(pts) >= 3:
            pygame.draw.polygon(surface, rgba, pts)
        for hole in g.interiors:
            hp = cam.points_px(hole.coords)
            if len(hp) >= 3:
                pygame.draw.polygon(surface, (0, 0, 0, 0), hp)
