"""The static layer of a table picture: ground, deployment zones, terrain (blocks lighter
the higher they are, walls, hatched difficult ground, crossed impassable ground), the
inch grid, ladders and height labels. Drawn once per camera scale by the painter."""

from __future__ import annotations

import math
from typing import Callable

import pygame
import shapely
import shapely.affinity
from shapely.geometry import Polygon

from game.engine.model import Scenario
from game.ui import theme
from game.ui.camera import Camera
from game.ui.draw import dashed, draw_geometry, geom_lines, inches, spine, text_at, wall_label_point
from game.ui.table_shapes import Piece
from game.ui.theme import Colour

LADDER_HALF_WIDTH = 0.3  # inches


class TerrainLayer:
    """Paints the static layer of one map (``pieces`` and ``ladders`` from table_shapes)."""

    def __init__(
        self,
        scenario: Scenario,
        pieces: list[Piece],
        ladders: list,
        free_height: float,
        warband_colour: Callable[[str], Colour],
        *,
        grid: bool = True,
        deployment: bool = True,
        heights: bool = True,
    ):
        self.scenario = scenario
        self.pieces = pieces
        self.ladders = ladders
        self.free_height = free_height
        self.warband_colour = warband_colour
        self.grid, self.deployment, self.heights = grid, deployment, heights

    def build(self, size: tuple[int, int], cam: Camera) -> pygame.Surface:
        layer = pygame.Surface((max(1, size[0]), max(1, size[1])))
        sc = self.scenario
        s = cam.scale
        table = pygame.Rect(round(cam.offset[0]), round(cam.offset[1]), round(sc.width * s), round(sc.height * s))
        layer.fill(theme.PAGE)
        layer.fill(theme.GROUND, table)
        if self.deployment:
            self._draw_deployment(layer, cam, outline=False)
        for p in self.pieces:
            self._draw_piece(layer, cam, p)
        if self.deployment:
            self._draw_deployment(layer, cam, outline=True)
        if self.grid:
            self._draw_grid(layer, cam)
        for _, foot, top in self.ladders:
            self.ladder(layer, cam, foot, top)
        if self.heights:
            self._draw_height_labels(layer, cam)
        pygame.draw.rect(layer, theme.INK, table.inflate(2, 2), 2)
        return layer

    def _draw_deployment(self, layer: pygame.Surface, cam: Camera, outline: bool) -> None:
        for wid, pts in self.scenario.deployment.items():
            colour = self.warband_colour(wid)
            poly = Polygon(pts)
            if outline:
                ring = cam.points_px(list(poly.exterior.coords))
                dashed(layer, colour, ring, max(2, round(cam.scale * 0.06)), dash=max(6, cam.scale * 0.5))
            else:
                draw_geometry(layer, cam, poly, fill=colour, alpha=45)

    def _draw_piece(self, layer: pygame.Surface, cam: Camera, p: Piece) -> None:
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
                line = spine(p.poly)
                if line is not None:
                    pygame.draw.line(layer, (140, 134, 150), cam.to_px(*line[0]), cam.to_px(*line[1]), 1)
        elif t.kind == "difficult":
            pygame.draw.polygon(layer, theme.DIFFICULT_FILL, pts)
            self.hatch(
                layer, cam, p.poly, theme.DIFFICULT_HATCH, spacing_px=max(5.0, s * 0.25), width=max(1, round(s * 0.05))
            )
            pygame.draw.polygon(layer, theme.DIFFICULT_HATCH, pts, 1)
        elif t.kind == "impassable":
            pygame.draw.polygon(layer, theme.IMPASSABLE_FILL, pts)
            self._crosses(layer, cam, p.poly)
            pygame.draw.polygon(layer, (10, 14, 22), pts, max(2, round(s * 0.06)))

    def hatch(
        self, layer: pygame.Surface, cam: Camera, poly: Polygon, colour: Colour, spacing_px: float, width: int
    ) -> None:
        """Diagonal hatching clipped exactly to the polygon (shapely), for difficult ground."""
        spacing = spacing_px / cam.scale
        minx, miny, maxx, maxy = poly.bounds
        span = (maxx - minx) + (maxy - miny)
        n = int(span / spacing) + 2
        starts = [minx - (maxy - miny) + i * spacing for i in range(n)]
        lines = shapely.linestrings([[(x0, maxy + 0.01), (x0 + (maxy - miny) + 0.02, miny - 0.01)] for x0 in starts])
        for g in shapely.intersection(lines, poly):
            for seg in geom_lines(g):
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
                    pygame.draw.line(
                        layer, theme.IMPASSABLE_MARK, cam.to_px(x - arm, y - arm), cam.to_px(x + arm, y + arm), w
                    )
                    pygame.draw.line(
                        layer, theme.IMPASSABLE_MARK, cam.to_px(x - arm, y + arm), cam.to_px(x + arm, y - arm), w
                    )

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
            pygame.draw.line(
                overlay, theme.GRID_STRONG if strong else theme.GRID_FINE, (x, y0), (x, y1), 2 if strong else 1
            )
        for j in range(int(math.floor(sc.height)) + 1):
            strong = j % theme.GRID_EVERY == 0
            if not (fine or strong):
                continue
            y = round(y0 + j * s)
            pygame.draw.line(
                overlay, theme.GRID_STRONG if strong else theme.GRID_FINE, (x0, y), (x1, y), 2 if strong else 1
            )
        layer.blit(overlay, (0, 0))

    def ladder(self, layer: pygame.Surface, cam: Camera, foot, top) -> None:
        s = cam.scale
        fx, fy = foot
        tx, ty = top
        d = math.hypot(tx - fx, ty - fy) or 1.0
        ux, uy = (tx - fx) / d, (ty - fy) / d
        nx, ny = -uy, ux
        half = LADDER_HALF_WIDTH
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
            text = inches(t.height)
            if t.kind == "block" and p.label_at is not None:
                colour = theme.height_colour(t.height)
                text_at(
                    layer,
                    text,
                    cam.to_px(*p.label_at),
                    size,
                    theme.INK,
                    box_colour=theme.mix(colour, (255, 255, 255), 0.55),
                    box_edge=theme.BLOCK_EDGE,
                )
            elif t.kind == "wall":
                at = wall_label_point(p.poly)
                high = t.height > self.free_height + 1e-9
                text_at(
                    layer,
                    text,
                    cam.to_px(*at),
                    max(8, size - 3),
                    (255, 255, 255) if high else theme.INK,
                    box_colour=theme.WALL_HIGH if high else (240, 226, 210),
                    box_edge=theme.WALL_EDGE,
                    pad=2,
                )
