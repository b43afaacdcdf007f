"""Drawing the table: the camera, the board painter, and the headless PNG render.

The model works in inches (origin top-left, x right, y down); :class:`Camera` is the
only place that converts inches to pixels and back. :class:`BoardPainter` draws a
scenario and a game state onto any pygame surface through a camera. It caches the
static layers (ground, terrain, grid, height labels, ladders, deployment zones) per
camera scale and redraws only tokens and units every frame. Drawing never changes the
game state.

Used by ``speedheim render`` (:func:`render_cli`), the play window and the map editor::

    camera = Camera(scale=40, offset=(30, 60))
    painter = BoardPainter(scenario, board)
    painter.draw(surface, camera, state, reveal=False, selected="red-captain")
    render_png(scenario, state, "out.png", reveal=False, width=1600)

Works without a display: surfaces and fonts need no window, and if there is no
``DISPLAY`` the SDL video driver is set to ``dummy`` before pygame is imported.
"""

from __future__ import annotations

import math
import os
import re
import struct
import sys
import zlib
from typing import Iterable, Sequence

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402
import shapely  # noqa: E402
import shapely.affinity  # noqa: E402
from shapely.geometry import LineString, MultiLineString, Point as ShPoint, Polygon, box  # noqa: E402
from shapely.ops import nearest_points, polylabel, unary_union  # noqa: E402

from game.engine.errors import LoadError  # noqa: E402
from game.engine.geometry import Board  # noqa: E402
from game.engine.model import GameState, Scenario, Terrain, Token, Unit  # noqa: E402
from game.engine.files import atomic_write  # noqa: E402
from game.ui import theme  # noqa: E402
from game.ui.theme import Colour  # noqa: E402

#: Largest static layer kept for the whole table (pixels); above it only the view is cached.
MAX_LAYER_PIXELS = 12_000_000
#: Default width of a PNG render, pixels.
DEFAULT_WIDTH = 1600
MIN_WIDTH, MAX_WIDTH = 400, 8000


# --- fonts ---------------------------------------------------------------------------------

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
        name = {"regular": theme.FONT_REGULAR, "bold": theme.FONT_BOLD, "condensed": theme.FONT_CONDENSED}.get(style, theme.FONT_BOLD)
        path = theme.font_path(name)
        try:
            font = pygame.font.Font(path, size)
        except (OSError, pygame.error):
            font = pygame.font.Font(None, size)
        _fonts[key] = font
    return font


def _text(surface: pygame.Surface, text: str, pos: tuple[float, float], size: int, colour: Colour,
          style: str = "bold", anchor: str = "center", box_colour: Colour | None = None, pad: int = 2,
          box_edge: Colour | None = None) -> pygame.Rect:
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


# --- camera ----------------------------------------------------------------------------------

class Camera:
    """Inches <-> pixels: ``px = offset + inches * scale``. The only such conversion.

    ``scale`` is pixels per inch; ``offset`` is the pixel position of the table's
    top-left corner (inch 0, 0) on the target surface.
    """

    MIN_SCALE = 2.0
    MAX_SCALE = 400.0

    def __init__(self, scale: float = 20.0, offset: tuple[float, float] = (0.0, 0.0)):
        self.scale = float(scale)
        self.offset = (float(offset[0]), float(offset[1]))

    def __repr__(self) -> str:
        return f"Camera(scale={self.scale:.3f}, offset=({self.offset[0]:.1f}, {self.offset[1]:.1f}))"

    def to_px(self, x: float, y: float) -> tuple[float, float]:
        """Pixel position of the inch point (x, y) (floats; round for pixel-exact work)."""
        return (self.offset[0] + x * self.scale, self.offset[1] + y * self.scale)

    def to_in(self, px: float, py: float) -> tuple[float, float]:
        """Inch point under the pixel (px, py)."""
        return ((px - self.offset[0]) / self.scale, (py - self.offset[1]) / self.scale)

    def length(self, inches: float) -> float:
        """A length in inches as pixels."""
        return inches * self.scale

    def points_px(self, points: Iterable[Sequence[float]]) -> list[tuple[float, float]]:
        """Many inch points to pixels (polygons, paths)."""
        s, (ox, oy) = self.scale, self.offset
        return [(ox + p[0] * s, oy + p[1] * s) for p in points]

    def pan(self, dx_px: float, dy_px: float) -> "Camera":
        """Move the view by a pixel delta (drag with the mouse)."""
        self.offset = (self.offset[0] + dx_px, self.offset[1] + dy_px)
        return self

    def zoom_about(self, px: float, py: float, factor: float) -> "Camera":
        """Zoom by ``factor`` keeping the inch point under the pixel (px, py) fixed."""
        x, y = self.to_in(px, py)
        self.scale = min(self.MAX_SCALE, max(self.MIN_SCALE, self.scale * factor))
        self.offset = (px - x * self.scale, py - y * self.scale)
        return self

    def fit(self, table_w: float, table_h: float, view_rect, margin: float = 0.0) -> "Camera":
        """Scale and centre so a table_w x table_h table fills ``view_rect`` (x, y, w, h).

        ``margin`` pixels are kept free on every side. Returns self.
        """
        rx, ry, rw, rh = pygame.Rect(view_rect)
        aw, ah = max(1.0, rw - 2 * margin), max(1.0, rh - 2 * margin)
        self.scale = max(self.MIN_SCALE, min(aw / table_w, ah / table_h))
        self.offset = (rx + (rw - table_w * self.scale) / 2.0, ry + (rh - table_h * self.scale) / 2.0)
        return self

    def copy(self) -> "Camera":
        return Camera(self.scale, self.offset)


# --- helpers -----------------------------------------------------------------------------------

def unit_labels(scenario: Scenario, state: GameState | None = None) -> dict[str, str]:
    """Short labels (1-3 characters) for every unit, unique within its warband.

    Several words give initials and numbers ("Blue Ogre" -> "BO", "Warrior 2" -> "W2");
    one word gives its first two letters ("Captain" -> "Ca").
    """
    state = state or scenario.state
    out: dict[str, str] = {}
    used: dict[str, set[str]] = {}
    order = list(scenario.unit_order) + [u for u in state.units if u not in scenario.unit_order]
    for uid in order:
        u = state.units.get(uid)
        if u is None:
            continue
        label = _abbrev(u.name or u.id)
        taken = used.setdefault(u.warband, set())
        if label in taken:
            stem = label[:2] if len(label) > 1 and not label[-1].isdigit() else label.rstrip("0123456789")[:1] or label[:1]
            n = 2
            while f"{stem}{n}" in taken:
                n += 1
            label = f"{stem}{n}"
        taken.add(label)
        out[uid] = label
    return out


def _abbrev(name: str) -> str:
    parts = re.findall(r"[A-Za-z]+|\d+", name)
    if not parts:
        return name[:2] or "?"
    if len(parts) == 1:
        p = parts[0]
        return p if p.isdigit() else p[:2].capitalize()
    out = ""
    for p in parts:
        out += p if p.isdigit() else p[0].upper()
        if len(out) >= 3:
            break
    return out[:3]


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


def _lines(geom) -> list[list[tuple[float, float]]]:
    if geom.is_empty:
        return []
    if isinstance(geom, LineString):
        return [list(geom.coords)]
    out = []
    for g in getattr(geom, "geoms", []):
        out.extend(_lines(g))
    return out


def draw_geometry(surface: pygame.Surface, camera: Camera, geom, fill: Colour | None = None, alpha: int = 255,
                  outline: Colour | None = None, width: int = 1) -> None:
    """Draw a shapely (multi)polygon or line through the camera, optionally translucent.

    For overlays of the play window and editor (reach areas, paths, selections).
    """
    if geom is None or geom.is_empty:
        return
    if isinstance(geom, (LineString, MultiLineString)):
        for line in _lines(geom):
            pts = camera.points_px(line)
            if len(pts) > 1:
                pygame.draw.lines(surface, outline or fill or theme.INK, False, pts, max(1, width))
        return
    rings = _rings(geom)
    if not rings:
        return
    if fill is not None:
        if alpha >= 255:
            for ring in rings:
                pygame.draw.polygon(surface, fill, camera.points_px(ring))
        else:
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
    if outline is not None:
        for ring in rings:
            pygame.draw.polygon(surface, outline, camera.points_px(ring), max(1, width))
    for g in getattr(geom, "geoms", [geom]):
        if isinstance(g, Polygon) and outline is not None:
            for hole in g.interiors:
                pygame.draw.polygon(surface, outline, camera.points_px(hole.coords), max(1, width))


def _star(cx: float, cy: float, r: float, points: int = 5, inner: float = 0.45) -> list[tuple[float, float]]:
    out = []
    for i in range(points * 2):
        a = -math.pi / 2 + i * math.pi / points
        rr = r if i % 2 == 0 else r * inner
        out.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return out


def _fmt_h(h: float) -> str:
    return f'{h:g}"'


# --- the painter ----------------------------------------------------------------------------------

class _Piece:
    """A terrain piece with what drawing needs, precomputed in inches."""

    __slots__ = ("t", "poly", "z", "order", "label_at", "label_room", "hatch_key")

    def __init__(self, t: Terrain, poly: Polygon, z: float, order: int):
        self.t = t
        self.poly = poly
        self.z = z
        self.order = order
        self.label_at: tuple[float, float] | None = None
        self.label_room = 0.0


class BoardPainter:
    """Draws one scenario's table through a :class:`Camera`; caches the static layers.

    ``BoardPainter(scenario, board)`` prepares label positions, ladder tops and unit
    labels once. :meth:`draw` paints the static layer (cached per camera scale) then
    tokens and units from ``state``. Call :meth:`invalidate` after changing the map
    (terrain, ladders, deployment, warbands), e.g. in the editor.

    Options (attributes, change them then call :meth:`invalidate`):
    ``show_grid``, ``show_deployment``, ``show_heights`` (height labels on terrain);
    ``token_labels`` (token ids, drawn at the end of :meth:`draw_units`; no invalidate needed).

    The play window may call the layers one by one to put overlays between them:
    :meth:`draw_static`, then :meth:`draw_tokens`, then :meth:`draw_units`.
    """

    def __init__(self, scenario: Scenario, board: Board | None = None, *, show_grid: bool = True,
                 show_deployment: bool = True, show_heights: bool = True):
        self.scenario = scenario
        self.board = board
        self.show_grid = show_grid
        self.show_deployment = show_deployment
        self.show_heights = show_heights
        self._layer: pygame.Surface | None = None
        self._layer_key: tuple | None = None
        self._layer_region: pygame.Rect | None = None
        self._prepared = False
        #: Draw token ids (after the units, so a unit in contact never hides them).
        self.token_labels = True
        self.invalidate()

    # --- preparation ---------------------------------------------------------------------
    def invalidate(self) -> None:
        """Forget cached layers and precomputed geometry (call after the map changed)."""
        sc = self.scenario
        b = self.board
        # A board given to the constructor is used as it is; after that the map may have
        # changed in place (the editor), so invalidate() always re-indexes the terrain.
        if b is None or self._prepared or b.width != sc.width or b.height != sc.height or b.terrain != list(sc.terrain):
            self.board = Board(sc.width, sc.height, sc.terrain, use_height=b.use_height if b is not None else True)
        self._prepared = True
        self._layer = None
        self._layer_key = None
        self.free_height = float(getattr(sc.ruleset, "free_height", 1.0)) if sc.ruleset is not None else 1.0
        pieces: list[_Piece] = []
        for i, t in enumerate(sc.terrain):
            poly = Polygon(t.polygon)
            if not poly.is_valid:
                poly = poly.buffer(0)
            if t.solid:
                z = t.height
            else:
                rp = poly.representative_point() if not poly.is_empty else ShPoint(0, 0)
                z = self.board.height_at(rp.x, rp.y) + 0.001
            pieces.append(_Piece(t, poly, z, i))
        pieces.sort(key=lambda p: (p.z, p.order))
        self.pieces = pieces
        # Height labels on the visible part of each block (not under a higher piece).
        solids = [p for p in pieces if p.t.solid]
        for p in solids:
            higher = [q.poly for q in solids if q.z > p.z + 1e-9 and q.poly.intersects(p.poly)]
            visible = p.poly.difference(unary_union(higher)) if higher else p.poly
            if visible.is_empty:
                continue
            part = max(getattr(visible, "geoms", [visible]), key=lambda g: g.area)
            if not isinstance(part, Polygon) or part.area <= 0:
                continue
            # Near the top-left corner, where units rarely stand; else the pole of
            # inaccessibility for narrow shapes.
            inner = part.buffer(-0.65)
            if not inner.is_empty:
                minx, miny = part.bounds[:2]
                at = nearest_points(inner, ShPoint(minx, miny))[0]
            else:
                try:
                    at = polylabel(part, tolerance=0.05)
                except Exception:  # degenerate slivers
                    at = part.representative_point()
            p.label_at = (at.x, at.y)
            p.label_room = float(part.exterior.distance(at))
        # Ladders: from the foot to the nearest point of the block's edge.
        self.ladder_lines: list[tuple[str, tuple[float, float], tuple[float, float]]] = []
        by_id = {p.t.id: p.poly for p in pieces}
        for lad in sc.ladders:
            block = by_id.get(lad.top)
            if block is None:
                continue
            foot = ShPoint(lad.foot)
            _, top = nearest_points(foot, block.exterior)
            fx, fy = lad.foot
            tx, ty = top.x, top.y
            d = math.hypot(tx - fx, ty - fy)
            if d < 0.9:  # too short to read: lengthen it outwards from the block
                if d < 1e-6:
                    c = block.centroid
                    ux, uy = fx - c.x, fy - c.y
                    n = math.hypot(ux, uy) or 1.0
                    ux, uy = ux / n, uy / n
                else:
                    ux, uy = (fx - tx) / d, (fy - ty) / d
                fx, fy = tx + ux * 0.9, ty + uy * 0.9
            # Reach a little over the edge so the top rung sits on the roof.
            ddx, ddy = tx - fx, ty - fy
            n = math.hypot(ddx, ddy) or 1.0
            tx, ty = tx + ddx / n * 0.15, ty + ddy / n * 0.15
            self.ladder_lines.append((lad.id, (fx, fy), (tx, ty)))
        self.labels = unit_labels(sc)

    def warband_colour(self, warband_id: str) -> Colour:
        """The warband's colour (its ``colour`` field, else a default per player)."""
        try:
            w = self.scenario.warband(warband_id)
        except KeyError:
            return theme.PLAYER_COLOURS[0]
        c = theme.hex_colour(w.colour)
        if c is not None:
            return c
        if w.player in theme.PLAYER_COLOURS:
            return theme.PLAYER_COLOURS[w.player]
        return theme.EXTRA_COLOURS[w.player % len(theme.EXTRA_COLOURS)]

    def unit_label(self, uid: str) -> str:
        label = self.labels.get(uid)
        if label is None:
            self.labels = unit_labels(self.scenario)
            label = self.labels.get(uid, _abbrev(uid))
        return label

    # --- drawing --------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, camera: Camera, state: GameState | None = None, reveal: bool = False,
             selected: str | Iterable[str] | None = None, hidden_events: bool = True) -> None:
        """Paint the table, tokens and units of ``state`` (default: the starting state).

        ``reveal`` shows what every token hides (designer view, ``--reveal``); tokens
        already revealed in play (``token.revealed``) always show. ``hidden_events=False``
        is the same as ``reveal=True``. ``selected`` is a unit id or ids to ring.
        Never changes ``state``.
        """
        state = state if state is not None else self.scenario.state
        self.draw_static(surface, camera)
        show_hidden = reveal or not hidden_events
        self.draw_tokens(surface, camera, state, show_hidden)
        self.draw_units(surface, camera, state, selected)

    def draw_static(self, surface: pygame.Surface, camera: Camera) -> None:
        """The cached static layer: ground, deployment, terrain, grid, heights, ladders.

        The layer is kept per scale (and sub-pixel offset), so panning by whole pixels
        only blits it. A table too big to cache whole at this zoom is cached around the
        view, with half a screen of margin on every side, and rebuilt when the view
        leaves that region.
        """
        sw, sh = surface.get_size()
        s = camera.scale
        ox, oy = camera.offset
        ix, iy = math.floor(ox), math.floor(oy)
        fx, fy = ox - ix, oy - iy
        # Rectangles below are in "table pixels": (0, 0) is the table's top-left corner.
        full = pygame.Rect(0, 0, math.ceil(self.scenario.width * s + fx) + 1, math.ceil(self.scenario.height * s + fy) + 1)
        if full.w * full.h <= MAX_LAYER_PIXELS:
            needed = full
        else:
            needed = pygame.Rect(-ix, -iy, sw, sh).clip(full)
            if needed.w <= 0 or needed.h <= 0:
                return
        key = (round(s, 6), round(fx, 3), round(fy, 3))
        region = self._layer_region if self._layer is not None else None
        if self._layer is None or self._layer_key != key or region is None or not region.contains(needed):
            region = full if needed is full else needed.inflate(sw, sh).clip(full)
            self._layer = self._build_layer(region.size, Camera(s, (fx - region.x, fy - region.y)))
            self._layer_key = key
            self._layer_region = region
        surface.blit(self._layer, (ix + region.x, iy + region.y))

    def _build_layer(self, size: tuple[int, int], cam: Camera) -> pygame.Surface:
        layer = pygame.Surface((max(1, size[0]), max(1, size[1])))
        sc = self.scenario
        s = cam.scale
        table = pygame.Rect(round(cam.offset[0]), round(cam.offset[1]), round(sc.width * s), round(sc.height * s))
        layer.fill(theme.PAGE)
        layer.fill(theme.GROUND, table)
        if self.show_deployment:
            self._draw_deployment(layer, cam, outline=False)
        for p in self.pieces:
            self._draw_piece(layer, cam, p)
        if self.show_deployment:
            self._draw_deployment(layer, cam, outline=True)
        if self.show_grid:
            self._draw_grid(layer, cam)
        for _, foot, top in self.ladder_lines:
            self._draw_ladder(layer, cam, foot, top)
        if self.show_heights:
            self._draw_height_labels(layer, cam)
        pygame.draw.rect(layer, theme.INK, table.inflate(2, 2), 2)
        return layer

    def _draw_deployment(self, layer: pygame.Surface, cam: Camera, outline: bool) -> None:
        for wid, pts in self.scenario.deployment.items():
            colour = self.warband_colour(wid)
            poly = Polygon(pts)
            if outline:
                ring = cam.points_px(list(poly.exterior.coords))
                _dashed(layer, colour, ring, max(2, round(cam.scale * 0.06)), dash=max(6, cam.scale * 0.5))
            else:
                draw_geometry(layer, cam, poly, fill=colour, alpha=45)

    def _draw_piece(self, layer: pygame.Surface, cam: Camera, p: _Piece) -> None:
        t = p.t
        pts = cam.points_px(p.t.polygon)
        s = cam.scale
        if t.solid:
            # Shadow: offset down-right in proportion to the height.
            off = min(0.6, theme.SHADOW_PER_INCH * t.height) * s
            if off >= 1:
                shadow = shapely.affinity.translate(p.poly, off / s, off / s)
                draw_geometry(layer, cam, shadow, fill=theme.SHADOW[:3], alpha=theme.SHADOW[3])
        if t.kind == "block":
            pygame.draw.polygon(layer, theme.height_colour(t.height), pts)
            pygame.draw.polygon(layer, theme.BLOCK_EDGE, pts, max(1, round(s * 0.05)))
        elif t.kind == "wall":
            high = t.height > self.free_height + 1e-9
            pygame.draw.polygon(layer, theme.WALL_HIGH if high else theme.WALL_LOW, pts)
            pygame.draw.polygon(layer, theme.WALL_EDGE, pts, max(1, round(s * 0.04)))
            if high and s >= 8:  # a light ridge line marks the top of high walls
                line = _spine(p.poly)
                if line is not None:
                    pygame.draw.line(layer, (140, 134, 150), cam.to_px(*line[0]), cam.to_px(*line[1]), 1)
        elif t.kind == "difficult":
            pygame.draw.polygon(layer, theme.DIFFICULT_FILL, pts)
            self._hatch(layer, cam, p.poly, theme.DIFFICULT_HATCH, spacing_px=max(5.0, s * 0.25), width=max(1, round(s * 0.05)))
            pygame.draw.polygon(layer, theme.DIFFICULT_HATCH, pts, 1)
        elif t.kind == "impassable":
            pygame.draw.polygon(layer, theme.IMPASSABLE_FILL, pts)
            self._crosses(layer, cam, p.poly)
            pygame.draw.polygon(layer, (10, 14, 22), pts, max(2, round(s * 0.06)))

    def _hatch(self, layer: pygame.Surface, cam: Camera, poly: Polygon, colour: Colour, spacing_px: float, width: int) -> None:
        """Diagonal hatching clipped exactly to the polygon (shapely), for difficult ground."""
        spacing = spacing_px / cam.scale
        minx, miny, maxx, maxy = poly.bounds
        span = (maxx - minx) + (maxy - miny)
        n = int(span / spacing) + 2
        starts = [minx - (maxy - miny) + i * spacing for i in range(n)]
        lines = shapely.linestrings([[(x0, maxy + 0.01), (x0 + (maxy - miny) + 0.02, miny - 0.01)] for x0 in starts])
        for g in shapely.intersection(lines, poly):
            for seg in _lines(g):
                if len(seg) > 1:
                    pygame.draw.line(layer, colour, cam.to_px(*seg[0]), cam.to_px(*seg[-1]), width)

    def _crosses(self, layer: pygame.Surface, cam: Camera, poly: Polygon) -> None:
        """Cross marks on a grid inside impassable ground."""
        s = cam.scale
        step = max(1.0, 18.0 / s)  # inches between crosses, never closer than 18 px
        arm = min(0.3, step * 0.3)
        minx, miny, maxx, maxy = poly.bounds
        xs = [minx + step / 2 + i * step for i in range(int((maxx - minx) / step) + 1)]
        ys = [miny + step / 2 + j * step for j in range(int((maxy - miny) / step) + 1)]
        if not xs or not ys:
            xs, ys = [(minx + maxx) / 2], [(miny + maxy) / 2]
        w = max(1, round(s * 0.05))
        inner = poly.buffer(-arm * 0.8)
        target = inner if not inner.is_empty else poly
        for x in xs:
            for y in ys:
                if shapely.intersects_xy(target, x, y):
                    pygame.draw.line(layer, theme.IMPASSABLE_MARK, cam.to_px(x - arm, y - arm), cam.to_px(x + arm, y + arm), w)
                    pygame.draw.line(layer, theme.IMPASSABLE_MARK, cam.to_px(x - arm, y + arm), cam.to_px(x + arm, y - arm), w)

    def _draw_grid(self, layer: pygame.Surface, cam: Camera) -> None:
        sc = self.scenario
        s = cam.scale
        overlay = pygame.Surface(layer.get_size(), pygame.SRCALPHA)
        x0, y0 = cam.to_px(0, 0)
        x1, y1 = cam.to_px(sc.width, sc.height)
        fine = s >= 4  # 1" lines only when they are at least 4 px apart
        for i in range(int(math.floor(sc.width)) + 1):
            strong = i % theme.GRID_EVERY == 0
            if not (fine or strong):
                continue
            x = round(x0 + i * s)
            pygame.draw.line(overlay, theme.GRID_STRONG if strong else theme.GRID_FINE, (x, y0), (x, y1), 2 if strong else 1)
        for j in range(int(math.floor(sc.height)) + 1):
            strong = j % theme.GRID_EVERY == 0
            if not (fine or strong):
                continue
            y = round(y0 + j * s)
            pygame.draw.line(overlay, theme.GRID_STRONG if strong else theme.GRID_FINE, (x0, y), (x1, y), 2 if strong else 1)
        layer.blit(overlay, (0, 0))

    def _draw_ladder(self, layer: pygame.Surface, cam: Camera, foot, top) -> None:
        s = cam.scale
        fx, fy = foot
        tx, ty = top
        d = math.hypot(tx - fx, ty - fy) or 1.0
        ux, uy = (tx - fx) / d, (ty - fy) / d
        nx, ny = -uy, ux
        half = 0.3  # half width, inches
        rails = [((fx + nx * k, fy + ny * k), (tx + nx * k, ty + ny * k)) for k in (-half, half)]
        w = max(2, round(s * 0.07))
        rungs = []
        n = max(3, int(d / 0.25))
        for i in range(n + 1):
            t = i / n
            cx, cy = fx + (tx - fx) * t, fy + (ty - fy) * t
            rungs.append(((cx - nx * half, cy - ny * half), (cx + nx * half, cy + ny * half)))
        for colour, extra in ((theme.LADDER_EDGE, 2), (theme.LADDER_WOOD, 0)):
            for a, b in rails + rungs:
                pygame.draw.line(layer, colour, cam.to_px(*a), cam.to_px(*b), w + extra)
        # The foot: a small dark dot, so the direction reads (foot -> roof).
        pygame.draw.circle(layer, theme.LADDER_EDGE, cam.to_px(fx, fy), max(2, round(s * 0.09)))

    def _draw_height_labels(self, layer: pygame.Surface, cam: Camera) -> None:
        s = cam.scale
        size = max(9, min(22, round(s * 0.42)))
        for p in self.pieces:
            t = p.t
            if not t.solid:
                continue
            text = _fmt_h(t.height)
            if t.kind == "block" and p.label_at is not None:
                colour = theme.height_colour(t.height)
                _text(layer, text, cam.to_px(*p.label_at), size, theme.INK, box_colour=theme.mix(colour, (255, 255, 255), 0.55),
                      box_edge=theme.BLOCK_EDGE)
            elif t.kind == "wall":
                at = _wall_label_point(p.poly, s, size)
                high = t.height > self.free_height + 1e-9
                _text(layer, text, cam.to_px(*at), max(8, size - 3), (255, 255, 255) if high else theme.INK,
                      box_colour=theme.WALL_HIGH if high else (240, 226, 210), box_edge=theme.WALL_EDGE, pad=2)

    def draw_edge_numbers(self, surface: pygame.Surface, camera: Camera, sides: str = "tlbr") -> None:
        """Inch numbers just outside the table edges (every 6", plus 1" ticks).

        ``sides`` picks the edges: t(op), l(eft), b(ottom), r(ight).
        """
        sc = self.scenario
        s = camera.scale
        size = max(9, min(16, round(s * 0.36)))
        x0, y0 = camera.to_px(0, 0)
        x1, y1 = camera.to_px(sc.width, sc.height)
        every = 1 if s >= 40 else (2 if s >= 22 else theme.GRID_EVERY)
        for i in range(int(math.floor(sc.width)) + 1):
            x = x0 + i * s
            major = i % theme.GRID_EVERY == 0
            tick = 7 if major else 3
            if "t" in sides:
                pygame.draw.line(surface, theme.INK, (x, y0 - 2), (x, y0 - 2 - tick), 2 if major else 1)
            if "b" in sides:
                pygame.draw.line(surface, theme.INK, (x, y1 + 2), (x, y1 + 2 + tick), 2 if major else 1)
            if i % every == 0:
                style = "bold" if major else "regular"
                if "t" in sides:
                    _text(surface, str(i), (x, y0 - 11), size, theme.INK if major else theme.INK_SOFT, style, anchor="midbottom")
                if "b" in sides:
                    _text(surface, str(i), (x, y1 + 11), size, theme.INK if major else theme.INK_SOFT, style, anchor="midtop")
        for j in range(int(math.floor(sc.height)) + 1):
            y = y0 + j * s
            major = j % theme.GRID_EVERY == 0
            tick = 7 if major else 3
            if "l" in sides:
                pygame.draw.line(surface, theme.INK, (x0 - 2, y), (x0 - 2 - tick, y), 2 if major else 1)
            if "r" in sides:
                pygame.draw.line(surface, theme.INK, (x1 + 2, y), (x1 + 2 + tick, y), 2 if major else 1)
            if j % every == 0:
                style = "bold" if major else "regular"
                if "l" in sides:
                    _text(surface, str(j), (x0 - 12, y), size, theme.INK if major else theme.INK_SOFT, style, anchor="midright")
                if "r" in sides:
                    _text(surface, str(j), (x1 + 12, y), size, theme.INK if major else theme.INK_SOFT, style, anchor="midleft")

    # --- tokens and units --------------------------------------------------------------------
    def draw_trails(self, surface: pygame.Surface, camera: Camera, state: GameState) -> None:
        """The paths units moved this turn (``unit.trail``), light lines in their colour."""
        for u in state.units.values():
            if not u.trail or not u.on_table:
                continue
            colour = theme.mix(self.warband_colour(u.warband), (255, 255, 255), 0.45)
            for path in u.trail:
                pts = camera.points_px(path)
                if len(pts) > 1:
                    pygame.draw.lines(surface, theme.mix(colour, (0, 0, 0), 0.5), False, pts, 5)
                    pygame.draw.lines(surface, colour, False, pts, 3)
                    pygame.draw.circle(surface, colour, pts[0], 4, 2)

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
            self._coin(surface, cx, cy, r, look)

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
            _text(surface, tok.id, (cx + r * 0.75, cy - r * 0.75), size, theme.INK, "condensed", anchor="bottomleft",
                  box_colour=(255, 248, 220), box_edge=theme.TOKEN_EDGE, pad=2)

    def _coin(self, surface: pygame.Surface, cx: float, cy: float, r: float, look: str) -> None:
        fill = {"event": theme.TOKEN_EVENT, "plague": theme.TOKEN_PLAGUE}.get(look, theme.TOKEN_GOLD)
        pygame.draw.circle(surface, theme.TOKEN_EDGE, (cx, cy), r + 1)
        pygame.draw.circle(surface, fill, (cx, cy), r)
        if r >= 6:
            pygame.draw.circle(surface, theme.mix(fill, theme.TOKEN_EDGE, 0.45), (cx, cy), r * 0.68, max(1, round(r * 0.12)))
        if look != "plain" and r >= 7:
            _text(surface, "E" if look == "event" else "P", (cx, cy), max(8, round(r * 1.0)), (255, 255, 255))

    def draw_units(self, surface: pygame.Surface, camera: Camera, state: GameState,
                   selected: str | Iterable[str] | None = None) -> None:
        """Units on the table: true-size bases, labels, status and keyword markers."""
        if isinstance(selected, str):
            chosen = {selected}
        else:
            chosen = set(selected or ())
        board = self.board
        units = [u for u in state.units.values() if u.on_table]
        units.sort(key=lambda u: (board.height_at(u.x, u.y), u.id in chosen))
        for u in units:
            self._unit(surface, camera, u, state, u.id in chosen)
        if self.token_labels:
            self.draw_token_labels(surface, camera, state)

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
        pygame.draw.circle(surface, theme.mix(colour, (255, 255, 255), 0.35), (cx, cy), r * 0.82, max(1, round(r * 0.07)))
        label = self.unit_label(u.id)
        if r >= 6:
            size = max(7, round(r * (0.95 if len(label) <= 2 else 0.72)))
            _text(surface, label, (cx, cy + 1), size, theme.text_on(colour), "condensed")
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
            pygame.draw.polygon(surface, (30, 20, 0), _star(gx, gy, g + 1.5))
            pygame.draw.polygon(surface, theme.HERO_GLYPH, _star(gx, gy, g))
        if u.is_caster:
            gx, gy = cx - diag, cy - diag
            pts = [(gx, gy - g), (gx + g * 0.75, gy), (gx, gy + g), (gx - g * 0.75, gy)]
            pygame.draw.polygon(surface, theme.CASTER_GLYPH, pts)
            pygame.draw.polygon(surface, (20, 10, 40), pts, 1)
        if u.is_animal:
            _paw(surface, cx - diag, cy + diag, g)
        if u.status in theme.STATUS_MARKS and not down:
            letter, bg = theme.STATUS_MARKS[u.status]
            gx, gy = cx + diag, cy + diag
            pygame.draw.circle(surface, (10, 10, 10), (gx, gy), g + 1.5)
            pygame.draw.circle(surface, bg, (gx, gy), g)
            _text(surface, letter, (gx, gy), max(7, round(g * 1.5)), theme.text_on(bg))
        if u.carrying:
            tok = state.treasure.get(u.carrying)
            look = self.token_look(tok, False) if tok is not None else "plain"
            gx, gy = (cx - r * 0.95, cy) if u.is_animal else (cx - diag, cy + diag)
            self._coin(surface, gx, gy, max(4.0, g * 1.15), look)


def _paw(surface: pygame.Surface, x: float, y: float, g: float) -> None:
    pygame.draw.circle(surface, (250, 240, 220), (x, y), g + 1.5)
    pygame.draw.circle(surface, theme.ANIMAL_GLYPH, (x, y + g * 0.25), g * 0.45)
    for dx, dy in ((-0.5, -0.35), (0.0, -0.6), (0.5, -0.35)):
        pygame.draw.circle(surface, theme.ANIMAL_GLYPH, (x + dx * g, y + dy * g), max(1.5, g * 0.22))


def _spine(poly: Polygon) -> tuple[tuple[float, float], tuple[float, float]] | None:
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


def _wall_label_point(poly: Polygon, scale: float, size: int) -> tuple[float, float]:
    """Where a wall's height label goes: the middle of its long axis."""
    line = _spine(poly)
    if line is None:
        c = poly.representative_point()
        return (c.x, c.y)
    (ax, ay), (bx, by) = line
    return ((ax + bx) / 2, (ay + by) / 2)


def _dashed(surface: pygame.Surface, colour: Colour, ring: list[tuple[float, float]], width: int, dash: float) -> None:
    for a, b in zip(ring, ring[1:]):
        d = math.dist(a, b)
        if d <= 0:
            continue
        n = max(1, int(d / dash))
        for i in range(0, n, 2):
            t0, t1 = i / n, min(1.0, (i + 1) / n)
            pygame.draw.line(surface, colour, (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                             (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1), width)


# --- the PNG render ----------------------------------------------------------------------------------

def render_surface(scenario: Scenario, state: GameState | None = None, reveal: bool = False, width: int | None = None,
                   board: Board | None = None, painter: BoardPainter | None = None,
                   trails: bool = True, under_units=None, over_units=None) -> tuple[pygame.Surface, Camera]:
    """The whole picture (title, table with numbered edges, scale bar, legend and roster).

    ``trails`` draws the paths moved this turn (after ``--actions``). ``under_units`` and
    ``over_units``: extra layers, ``f(surface, camera)``, drawn before and after the units
    (the line of sight of ``--los``).

    Returns the surface and the camera used for the table (tests probe pixels with it).
    """
    state = state if state is not None else scenario.state
    width = int(width or DEFAULT_WIDTH)
    painter = painter or BoardPainter(scenario, board)
    panel_w = max(280, min(440, int(width * 0.25)))
    margin = 34 if width >= 900 else 26
    title_h = 62
    table_w_px = width - panel_w - 2 * margin - 10
    scale = table_w_px / scenario.width
    table_h_px = scenario.height * scale
    max_h = width * 1.6
    if table_h_px > max_h:  # a very long table: keep the picture reasonable
        scale = max_h / scenario.height
        table_h_px = max_h
    scalebar_h = 46
    body_h = margin + table_h_px + margin + scalebar_h
    legend = _Legend(painter, scenario, state, reveal, panel_w - 20)
    height = int(max(title_h + body_h, title_h + legend.height + 20))
    surface = pygame.Surface((width, height))
    surface.fill(theme.PAGE)
    camera = Camera(scale, (margin, title_h + margin))
    # Title and subtitle.
    _text(surface, scenario.name, (margin - 8, 10), 26, theme.INK, "bold", anchor="topleft")
    parts = [f'{scenario.width:g}" x {scenario.height:g}" table', f"turn {state.turn}, player {state.player}, {state.phase}"]
    if state.step:
        parts[-1] += f" ({state.step})"
    if state.winner:
        parts.append(f"winner: {state.winner}")
    parts.append("REVEALED: what tokens hide is shown" if reveal else "what tokens hide is not shown")
    if scenario.file:
        parts.append(os.path.basename(scenario.file))
    _text(surface, "  |  ".join(parts), (margin - 8, 40), 14, theme.INK_SOFT, "regular", anchor="topleft")
    painter.draw_static(surface, camera)
    if trails:
        painter.draw_trails(surface, camera, state)
    painter.draw_tokens(surface, camera, state, reveal)
    if under_units:
        under_units(surface, camera)
    painter.draw_units(surface, camera, state)
    if over_units:
        over_units(surface, camera)
    painter.draw_edge_numbers(surface, camera)
    _scale_bar(surface, camera, (margin, title_h + margin + table_h_px + margin + 6), scenario)
    legend.draw(surface, (width - panel_w, title_h))
    return surface, camera


def _scale_bar(surface: pygame.Surface, cam: Camera, at: tuple[float, float], sc: Scenario) -> None:
    x, y = at
    s = cam.scale
    inches = theme.GRID_EVERY if sc.width >= theme.GRID_EVERY else max(1, int(sc.width))
    h = 10
    for i in range(inches):
        colour = theme.INK if i % 2 == 0 else (255, 255, 255)
        pygame.draw.rect(surface, colour, (round(x + i * s), y, math.ceil(s), h))
    pygame.draw.rect(surface, theme.INK, (round(x), y, round(inches * s), h), 1)
    every = 1 if s >= 18 else (3 if inches % 3 == 0 else inches)
    for i in range(0, inches + 1, every):
        _text(surface, str(i), (x + i * s, y + h + 2), 11, theme.INK, "regular", anchor="midtop")
    _text(surface, f'scale: {inches}" ({s:.1f} px per inch); grid 1", strong lines every {theme.GRID_EVERY}"',
          (x + inches * s + 16, y + h / 2), 13, theme.INK_SOFT, "regular", anchor="midleft")


class _Legend:
    """The side panel: key to the symbols, then each warband's roster."""

    def __init__(self, painter: BoardPainter, sc: Scenario, state: GameState, reveal: bool, width: int):
        self.p = painter
        self.sc = sc
        self.state = state
        self.reveal = reveal
        self.width = width
        self.row = 21
        heights = sorted({t.height for t in sc.terrain if t.kind == "block"})
        self.heights = heights
        self.walls = sorted({t.height for t in sc.terrain if t.kind == "wall"})
        kinds = {t.kind for t in sc.terrain}
        self.items: list[tuple[str, str]] = []  # (symbol, text)
        self.items.append(("ground", "ground (0\")"))
        if any(h <= painter.free_height for h in self.walls):
            self.items.append(("wall-low", f'low wall (up to {painter.free_height:g}"): stepped over'))
        if any(h > painter.free_height for h in self.walls):
            self.items.append(("wall-high", f'high wall (over {painter.free_height:g}"): climb'))
        if "difficult" in kinds:
            self.items.append(("difficult", 'difficult ground: -2" move (M12)'))
        if "impassable" in kinds:
            self.items.append(("impassable", "impassable"))
        if sc.ladders:
            self.items.append(("ladder", "ladder (dot = foot)"))
        if sc.deployment:
            self.items.append(("deploy", "deployment zone"))
        self.items.append(("token", "treasure token"))
        if reveal:
            self.items.append(("token-event", "hides an Event (revealed)"))
            self.items.append(("token-plague", "hides the Plague (revealed)"))
        self.items += [("hero", "hero"), ("caster", "caster"), ("animal", "animal"), ("carry", "carrying treasure")]
        for status, (letter, _) in theme.STATUS_MARKS.items():
            self.items.append((f"status-{status}", status))
        self.rosters = []
        for w in sc.warbands:
            units = [state.units[uid] for uid in sc.unit_order if uid in state.units and state.units[uid].warband == w.id]
            units += [u for u in state.units.values() if u.warband == w.id and u.id not in sc.unit_order]
            self.rosters.append((w, units))
        n_units = sum(len(us) for _, us in self.rosters)
        self.unit_row = 19 if n_units <= 30 else 16
        ramp_rows = 1 + (len(heights) + 5) // 6 if heights else 0
        self.height = (40 + ramp_rows * 42 + 28 + len(self.items) * self.row + 20
                       + sum(30 + len(us) * self.unit_row for _, us in self.rosters))

    def draw(self, surface: pygame.Surface, at: tuple[int, int]) -> None:
        x0, y = at[0], at[1] + 8
        w = self.width
        panel = pygame.Rect(x0, y, w + 8, surface.get_height() - y - 10)
        pygame.draw.rect(surface, (252, 250, 244), panel, border_radius=6)
        pygame.draw.rect(surface, (200, 192, 176), panel, 1, border_radius=6)
        x = x0 + 12
        y += 10
        _text(surface, "Legend", (x, y), 18, theme.INK, anchor="topleft")
        y += 28
        if self.heights:
            _text(surface, "block height (lighter = higher)", (x, y), 13, theme.INK_SOFT, "regular", anchor="topleft")
            y += 18
            sw = min(44, (w - 20) // 6)
            for i, h in enumerate(self.heights):
                col, row = i % 6, i // 6
                r = pygame.Rect(x + col * (sw + 4), y + row * 42, sw, 22)
                c = theme.height_colour(h)
                pygame.draw.rect(surface, c, r)
                pygame.draw.rect(surface, theme.BLOCK_EDGE, r, 1)
                _text(surface, _fmt_h(h), (r.centerx, r.bottom + 1), 12, theme.INK, "bold", anchor="midtop")
            y += ((len(self.heights) + 5) // 6) * 42 + 4
        for sym, text in self.items:
            self._symbol(surface, sym, x + 12, y + self.row // 2)
            _text(surface, text, (x + 30, y + self.row // 2), 13, theme.INK, "regular", anchor="midleft")
            y += self.row
        y += 12
        for wb, units in self.rosters:
            colour = self.p.warband_colour(wb.id)
            pygame.draw.rect(surface, colour, (x, y + 3, 16, 16), border_radius=3)
            who = "neutrals" if wb.player == 0 else f"player {wb.player}"
            lost = self.state.lost.get(wb.id, 0)
            title = f"{wb.name or wb.id} ({who})" + (f", lost {lost}" if lost else "")
            if wb.id in self.state.routed:
                title += ", ROUTED"
            _text(surface, title, (x + 22, y + 2), 15, theme.INK, "bold", anchor="topleft")
            y += 26
            size = 12 if self.unit_row >= 19 else 11
            for u in units:
                cy = y + self.unit_row // 2
                pill = pygame.Rect(x, cy - self.unit_row // 2 + 1, 32, self.unit_row - 2)
                pygame.draw.rect(surface, (10, 10, 10), pill, border_radius=pill.h // 2)
                pygame.draw.rect(surface, colour, pill.inflate(-2, -2), border_radius=pill.h // 2)
                _text(surface, self.p.unit_label(u.id), pill.center, size, theme.text_on(colour), "condensed")
                kw = ", ".join(u.keywords)
                info = f"{u.name}  {u.base_mm:g}mm  M{u.stats.get('move', 0):g}"
                if kw:
                    info += f"  [{kw}]"
                extra = []
                if u.status != "normal":
                    extra.append(u.status)
                if u.carrying:
                    extra.append(f"carries {u.carrying}")
                if not u.on_table:
                    extra.append("off table")
                if extra:
                    info += "  - " + ", ".join(extra)
                img = get_font(size, "regular").render(info, True, theme.INK if u.on_table else theme.INK_SOFT)
                surface.blit(img, (x + 38, cy - img.get_height() // 2), pygame.Rect(0, 0, w - 46, img.get_height()))
                y += self.unit_row
            y += 6

    def _symbol(self, surface: pygame.Surface, sym: str, cx: int, cy: int) -> None:
        r = pygame.Rect(cx - 10, cy - 8, 20, 16)
        if sym == "ground":
            pygame.draw.rect(surface, theme.GROUND, r)
            pygame.draw.rect(surface, theme.BLOCK_EDGE, r, 1)
        elif sym == "wall-low":
            pygame.draw.rect(surface, theme.WALL_LOW, r.inflate(0, -9))
            pygame.draw.rect(surface, theme.WALL_EDGE, r.inflate(0, -9), 1)
        elif sym == "wall-high":
            pygame.draw.rect(surface, theme.WALL_HIGH, r.inflate(0, -8))
            pygame.draw.rect(surface, theme.WALL_EDGE, r.inflate(0, -8), 1)
        elif sym == "difficult":
            pygame.draw.rect(surface, theme.DIFFICULT_FILL, r)
            cam = Camera(1.0, (0, 0))
            self.p._hatch(surface, cam, box(r.left, r.top, r.right, r.bottom), theme.DIFFICULT_HATCH, 5, 1)
            pygame.draw.rect(surface, theme.DIFFICULT_HATCH, r, 1)
        elif sym == "impassable":
            pygame.draw.rect(surface, theme.IMPASSABLE_FILL, r)
            pygame.draw.line(surface, theme.IMPASSABLE_MARK, (cx - 4, cy - 4), (cx + 4, cy + 4), 2)
            pygame.draw.line(surface, theme.IMPASSABLE_MARK, (cx - 4, cy + 4), (cx + 4, cy - 4), 2)
        elif sym == "ladder":
            cam = Camera(20.0, (cx - 10, cy))
            self.p._draw_ladder(surface, cam, (0.1, 0), (0.9, 0))
        elif sym == "deploy":
            colour = self.p.warband_colour(self.sc.warbands[0].id) if self.sc.warbands else theme.INK
            tmp = pygame.Surface(r.size, pygame.SRCALPHA)
            tmp.fill((*colour, 60))
            surface.blit(tmp, r)
            _dashed(surface, colour, [r.topleft, r.topright, r.bottomright, r.bottomleft, r.topleft], 2, 4)
        elif sym.startswith("token"):
            look = {"token": "plain", "token-event": "event", "token-plague": "plague"}[sym]
            self.p._coin(surface, cx, cy, 8, look)
        elif sym == "hero":
            pygame.draw.polygon(surface, (30, 20, 0), _star(cx, cy, 8.5))
            pygame.draw.polygon(surface, theme.HERO_GLYPH, _star(cx, cy, 7))
        elif sym == "caster":
            pts = [(cx, cy - 7), (cx + 5, cy), (cx, cy + 7), (cx - 5, cy)]
            pygame.draw.polygon(surface, theme.CASTER_GLYPH, pts)
            pygame.draw.polygon(surface, (20, 10, 40), pts, 1)
        elif sym == "animal":
            _paw(surface, cx, cy, 7)
        elif sym == "carry":
            self.p._coin(surface, cx, cy, 5, "plain")
        elif sym.startswith("status-"):
            status = sym[7:]
            letter, bg = theme.STATUS_MARKS[status]
            if status == "incapacitated":
                pygame.draw.circle(surface, (10, 10, 10), (cx, cy), 9)
                pygame.draw.circle(surface, (170, 170, 170), (cx, cy), 8)
                pygame.draw.line(surface, (20, 20, 20), (cx - 5, cy - 5), (cx + 5, cy + 5), 2)
                pygame.draw.line(surface, (20, 20, 20), (cx - 5, cy + 5), (cx + 5, cy - 5), 2)
            else:
                pygame.draw.circle(surface, (10, 10, 10), (cx, cy), 8)
                pygame.draw.circle(surface, bg, (cx, cy), 7)
                _text(surface, letter, (cx, cy), 10, theme.text_on(bg))


def encode_png(surface: pygame.Surface, level: int = 3) -> bytes:
    """The surface as PNG bytes (RGB, 8 bits). Our own few lines: pygame's encoder uses
    the slowest zlib level, about 4x slower on a table picture for a 15% smaller file."""
    w, h = surface.get_size()
    raw = pygame.image.tobytes(surface, "RGB")
    rows = np.zeros((h, w * 3 + 1), dtype=np.uint8)  # each row: filter byte 0, then the pixels
    rows[:, 1:] = np.frombuffer(raw, dtype=np.uint8).reshape(h, w * 3)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), level)) + chunk(b"IEND", b"")


def save_png(surface: pygame.Surface, out_path: str) -> None:
    """Write a PNG atomically (temporary file + rename), whatever the file's extension."""
    atomic_write(out_path, encode_png(surface))


def render_png(scenario: Scenario, state: GameState | None, out_path: str, reveal: bool = False,
               width: int | None = None, board: Board | None = None, los: str | None = None) -> tuple[int, int]:
    """Render the table to a PNG file; returns the image size (width, height). ``los``: a
    unit id whose line of sight is drawn (game.ui.sight_layer)."""
    layers = {}
    if los is not None:
        from game.ui.sight_layer import los_layers

        layers = los_layers(scenario, state if state is not None else scenario.state, los, board)
    surface, _ = render_surface(scenario, state, reveal=reveal, width=width, board=board, **layers)
    save_png(surface, out_path)
    return surface.get_size()


def _replay(scenario: Scenario, actions_path: str) -> GameState:
    """Apply an action script to the scenario, as ``speedheim replay`` does (the engine's
    one replay loop). Illegal actions are reported on stderr with their line and skipped,
    not fatal. Raises LoadError for a bad script."""
    from game.engine.actions import load_script
    from game.engine.game import Game
    from game.engine.replay import dice_for

    script = load_script(actions_path)
    game = Game(scenario, dice=dice_for(script), history=False)
    for i, result in game.replay(script.actions):
        if not result.ok:
            print(f"{actions_path}:{script.lines[i]}: action {i + 1} skipped, illegal {result.rule}: {result.reason}", file=sys.stderr)
    return game.state


def render_cli(scenario_path: str, out_path: str, actions: str | None = None, reveal: bool = False,
               width: int | None = None, los: str | None = None) -> int:
    """``speedheim render SCENARIO -o OUT.png [--actions A] [--reveal] [--width N] [--los UNIT]``: 0, or 2."""
    if width is not None and not (MIN_WIDTH <= width <= MAX_WIDTH):
        print(f"speedheim render: --width must be between {MIN_WIDTH} and {MAX_WIDTH} pixels, not {width}", file=sys.stderr)
        return 2
    try:
        from game.engine.scenario import load_scenario

        scenario = load_scenario(scenario_path)
    except LoadError as exc:
        return exc.report()
    state = scenario.state
    if actions:
        try:
            state = _replay(scenario, actions)
        except LoadError as exc:
            return exc.report()
        except Exception as exc:  # the engine's bug must not become a traceback either
            print(f"speedheim render: internal error while replaying {actions} ({type(exc).__name__}: {exc}); "
                  "please report it", file=sys.stderr)
            return 2
    if los is not None and not (los in state.units and state.units[los].on_table):
        print(f"speedheim render: --los {los!r} is not a unit on the table (units: {', '.join(sorted(state.units)[:12])})",
              file=sys.stderr)
        return 2
    directory = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(directory):
        print(f"speedheim render: cannot write {out_path}: folder {directory} does not exist", file=sys.stderr)
        return 2
    try:
        w, h = render_png(scenario, state, out_path, reveal=reveal, width=width, los=los)
    except (OSError, pygame.error) as exc:
        print(f"speedheim render: cannot write {out_path}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug of ours must not become a traceback for the user
        print(f"speedheim render: internal error while drawing {scenario_path} ({type(exc).__name__}: {exc}); "
              "please report it", file=sys.stderr)
        return 2
    print(f"{out_path}: {w}x{h} png")
    return 0
