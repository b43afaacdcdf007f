"""Drawing primitives shared by the painter, the play window and the editor: fonts,
text on a box, shapely geometry through a camera, dashed lines and the small glyphs
(hero star, animal paw). Pure drawing: nothing here reads or changes a game."""

from __future__ import annotations

import math

import pygame
from shapely.geometry import LineString, MultiLineString, Polygon

from game.ui import theme
from game.ui.camera import Camera
from game.ui.theme import Colour

_fonts: dict[tuple[int, str], pygame.font.Font] = {}


def get_font(size: int, style: str = "bold") -> pygame.font.Font:
    """A cached font of ``size`` pixels; style is ``regular``, ``bold`` or ``condensed``.

    Uses the bundled DejaVu fonts (game/assets/fonts) and falls back to pygame's default font.
    """
    size = max(6, int(size))
    key = (size, style)
    if not pygame.font.get_init():
        # pygame.quit() (a closed window, a test) invalidates every font made before.
        _fonts.clear()
        pygame.font.init()
    font = _fonts.get(key)
    if font is None:
        name = {"regular": theme.FONT_REGULAR, "bold": theme.FONT_BOLD, "condensed": theme.FONT_CONDENSED}.get(
            style, theme.FONT_BOLD
        )
        path = theme.font_path(name)
        try:
            font = pygame.font.Font(path, size)
        except (OSError, pygame.error):
            font = pygame.font.Font(None, size)
        _fonts[key] = font
    return font


def text_at(
    surface: pygame.Surface,
    text: str,
    pos: tuple[float, float],
    size: int,
    colour: Colour,
    style: str = "bold",
    anchor: str = "center",
    box_colour: Colour | None = None,
    pad: int = 2,
    box_edge: Colour | None = None,
) -> pygame.Rect:
    """Draw text anchored at ``pos`` (a pygame.Rect attribute name), optionally on a box."""
    img = get_font(size, style).render(text, True, colour)
    rect = img.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
    if box_colour is not None:
        b = rect.inflate(pad * 2, pad)
        pygame.draw.rect(surface, box_colour, b, border_radius=3)
        if box_edge is not None:
            pygame.draw.rect(surface, box_edge, b, 1, border_radius=3)
    surface.blit(img, rect)
    return rect


def _rings(geom) -> list[list[tuple[float, float]]]:
    """Exterior rings of a (multi)polygon as point lists (holes ignored)."""
    if geom.is_empty:
        return []
    polys = getattr(geom, "geoms", [geom])
    out = []
    for g in polys:
        if isinstance(g, Polygon) and not g.is_empty:
            out.append(list(g.exterior.coords))
    return out


def geom_lines(geom) -> list[list[tuple[float, float]]]:
    if geom.is_empty:
        return []
    if isinstance(geom, LineString):
        return [list(geom.coords)]
    out = []
    for g in getattr(geom, "geoms", []):
        out.extend(geom_lines(g))
    return out


def _fill_rings(surface: pygame.Surface, camera: Camera, geom, rings: list, fill: Colour, alpha: int) -> None:
    """Fill the rings of ``geom`` with ``fill``, through a translucent layer over the
    geometry's bounds (clipped to the surface's clip) when ``alpha`` is below 255."""
    if alpha >= 255:
        for ring in rings:
            pygame.draw.polygon(surface, fill, camera.points_px(ring))
        return
    minx, miny, maxx, maxy = geom.bounds
    x0, y0 = camera.to_px(minx, miny)
    x1, y1 = camera.to_px(maxx, maxy)
    clip = surface.get_clip()
    r = pygame.Rect(math.floor(x0), math.floor(y0), math.ceil(x1 - x0) + 2, math.ceil(y1 - y0) + 2).clip(clip)
    if r.w > 0 and r.h > 0:
        tmp = pygame.Surface(r.size, pygame.SRCALPHA)
        for ring in rings:
            pygame.draw.polygon(tmp, (*fill, alpha), [(px - r.x, py - r.y) for px, py in camera.points_px(ring)])
        surface.blit(tmp, r.topleft)


def draw_geometry(
    surface: pygame.Surface,
    camera: Camera,
    geom,
    fill: Colour | None = None,
    alpha: int = 255,
    outline: Colour | None = None,
    width: int = 1,
) -> None:
    """Draw a shapely (multi)polygon or line through the camera, optionally translucent.

    For overlays of the play window and editor (reach areas, paths, selections).
    """
    if geom is None or geom.is_empty:
        return
    if isinstance(geom, (LineString, MultiLineString)):
        for line in geom_lines(geom):
            pts = camera.points_px(line)
            if len(pts) > 1:
                pygame.draw.lines(surface, outline or fill or theme.INK, False, pts, max(1, width))
        return
    rings = _rings(geom)
    if not rings:
        return
    if fill is not None:
        _fill_rings(surface, camera, geom, rings, fill, alpha)
    if outline is not None:
        for ring in rings:
            pygame.draw.polygon(surface, outline, camera.points_px(ring), max(1, width))
    for g in getattr(geom, "geoms", [geom]):
        if isinstance(g, Polygon) and outline is not None:
            for hole in g.interiors:
                pygame.draw.polygon(surface, outline, camera.points_px(hole.coords), max(1, width))


def star(cx: float, cy: float, r: float, points: int = 5, inner: float = 0.45) -> list[tuple[float, float]]:
    out = []
    for i in range(points * 2):
        a = -math.pi / 2 + i * math.pi / points
        rr = r if i % 2 == 0 else r * inner
        out.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return out


def inches(h: float) -> str:
    return f'{h:g}"'


def paw(surface: pygame.Surface, x: float, y: float, g: float) -> None:
    pygame.draw.circle(surface, (250, 240, 220), (x, y), g + 1.5)
    pygame.draw.circle(surface, theme.ANIMAL_GLYPH, (x, y + g * 0.25), g * 0.45)
    for dx, dy in ((-0.5, -0.35), (0.0, -0.6), (0.5, -0.35)):
        pygame.draw.circle(surface, theme.ANIMAL_GLYPH, (x + dx * g, y + dy * g), max(1.5, g * 0.22))


def spine(poly: Polygon) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The long axis of a thin polygon (a wall), end to end."""
    rect = poly.minimum_rotated_rectangle
    if not isinstance(rect, Polygon):
        return None
    c = list(rect.exterior.coords)[:4]
    e1 = math.dist(c[0], c[1])
    e2 = math.dist(c[1], c[2])
    if e1 >= e2:
        a = ((c[0][0] + c[3][0]) / 2, (c[0][1] + c[3][1]) / 2)
        b = ((c[1][0] + c[2][0]) / 2, (c[1][1] + c[2][1]) / 2)
    else:
        a = ((c[0][0] + c[1][0]) / 2, (c[0][1] + c[1][1]) / 2)
        b = ((c[3][0] + c[2][0]) / 2, (c[3][1] + c[2][1]) / 2)
    return a, b


def wall_label_point(poly: Polygon) -> tuple[float, float]:
    """Where a wall's height label goes: the middle of its long axis."""
    line = spine(poly)
    if line is None:
        c = poly.representative_point()
        return (c.x, c.y)
    (ax, ay), (bx, by) = line
    return ((ax + bx) / 2, (ay + by) / 2)


def dashed(surface: pygame.Surface, colour, pts, width: int, dash: float = 10.0) -> None:
    """A dashed polyline (pixels): ``dash`` pixels drawn, ``dash`` left out, along every segment."""
    for a, b in zip(pts, pts[1:]):
        dx, dy = b[0] - a[0], b[1] - a[1]
        n = math.hypot(dx, dy)
        if n == 0:
            continue
        k = 0.0
        while k < n:
            e = min(n, k + dash)
            pygame.draw.line(
                surface, colour, (a[0] + dx * k / n, a[1] + dy * k / n), (a[0] + dx * e / n, a[1] + dy * e / n), width
            )
            k += dash * 2
