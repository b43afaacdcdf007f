"""Drawing line of sight (L1/L2) on the table: the unseen ground, sight lines, target marks.

Used by ``speedheim render --los UNIT`` and by the play window's ``L`` tool. Every
function draws onto a pygame surface through a :class:`~game.ui.camera.Camera` and never
changes the game state; the answers come from :class:`game.engine.sight.Sight`.

    layer = SightLayer(sight, state, "red-crossbow")
    layer.draw_under(surface, camera)    # the shade, the clear lines (under the bases)
    layer.draw_over(surface, camera)     # rings on the targets, the key
"""

from __future__ import annotations

import math

import pygame
import shapely

from game.engine.model import GameState
from game.engine.sight import Sight, SightResult
from game.ui import theme
from game.ui.camera import Camera
from game.ui.draw import get_font, text_at

#: Ring colour and letter of each answer (the letter keeps it readable without colour).
MARKS = {"visible": (theme.LOS_VISIBLE, "V"), "cover": (theme.LOS_COVER, "C"), "hidden": (theme.LOS_HIDDEN, "H")}


def shade_region(
    surface: pygame.Surface, camera: Camera, region, colour=theme.LOS_SHADE, alpha: int = theme.LOS_SHADE_ALPHA
) -> None:
    """Fill a shapely (multi)polygon translucently, holes left clear, each pixel once."""
    if region is None or region.is_empty:
        return
    polys = [g for g in shapely.get_parts(region) if g.geom_type == "Polygon" and not g.is_empty]
    if not polys:
        return
    minx, miny, maxx, maxy = region.bounds
    x0, y0 = camera.to_px(minx, miny)
    x1, y1 = camera.to_px(maxx, maxy)
    area = pygame.Rect(math.floor(x0), math.floor(y0), math.ceil(x1 - x0) + 2, math.ceil(y1 - y0) + 2).clip(
        surface.get_clip()
    )
    if area.w <= 0 or area.h <= 0:
        return
    layer = pygame.Surface(area.size, pygame.SRCALPHA)
    fill = (*colour, alpha)

    def px(ring):
        return [(x - area.x, y - area.y) for x, y in camera.points_px(ring.coords)]

    # pygame.draw writes pixels without blending: each polygon fills, then its holes are
    # cleared; the biggest first, so a piece inside another's hole is drawn after it.
    for poly in sorted(polys, key=lambda g: -g.area):
        pygame.draw.polygon(layer, fill, px(poly.exterior))
        for hole in poly.interiors:
            pygame.draw.polygon(layer, (0, 0, 0, 0), px(hole))
    surface.blit(layer, area.topleft)


def draw_lines(
    surface: pygame.Surface, camera: Camera, result: SightResult, colour, width: int = 1, alpha: int = 150
) -> None:
    """The clear sight lines of one answer, seen from above."""
    lines = result.segments[~result.blocked_mask]
    if not len(lines):
        return
    w, h = surface.get_size()
    layer = pygame.Surface((w, h), pygame.SRCALPHA)
    for (ax, ay, _az), (bx, by, _bz) in lines:
        pygame.draw.line(layer, (*colour, alpha), camera.to_px(ax, ay), camera.to_px(bx, by), width)
    surface.blit(layer, (0, 0))


def draw_mark(surface: pygame.Surface, camera: Camera, x: float, y: float, r: float, status: str) -> None:
    """A ring round a target's base and a letter badge: V visible, C in cover, H hidden."""
    colour, letter = MARKS[status]
    cx, cy = camera.to_px(x, y)
    rad = max(4.0, camera.length(r)) + 4
    pygame.draw.circle(surface, (10, 10, 10), (cx, cy), rad + 2, 2)
    pygame.draw.circle(surface, colour, (cx, cy), rad, 3)
    bx, by = cx + rad * 0.75, cy - rad * 0.75
    size = max(9, min(15, round(rad * 0.55)))
    text_at(surface, letter, (bx, by), size, theme.text_on(colour), box_colour=colour, box_edge=(10, 10, 10), pad=3)


class SightLayer:
    """Line of sight from one unit, worked out once, drawn in two passes."""

    def __init__(self, sight: Sight, state: GameState, viewer: str, targets: list[str] | None = None):
        self.sight = sight
        self.state = state
        self.viewer = viewer
        me = state.units[viewer]
        if targets is None:  # the opposing units on the table, not Incapacitated
            targets = [uid for uid, u in state.units.items() if u.active and u.warband != me.warband]
        self.results = sight.from_unit(state, viewer, targets)
        self.region = sight.visibility_region(state, viewer)

    def draw_under(self, surface: pygame.Surface, camera: Camera) -> None:
        """The ground the viewer's eye cannot see, and the clear lines to each target it sees."""
        shade_region(surface, camera, self.region)
        for res in self.results.values():
            if res.visible:
                draw_lines(surface, camera, res, MARKS[res.status][0])

    def draw_over(self, surface: pygame.Surface, camera: Camera) -> None:
        """A ring on the viewer, a mark on each target, and a key in the table's top-left corner."""
        me = self.state.units[self.viewer]
        cx, cy = camera.to_px(me.x, me.y)
        pygame.draw.circle(surface, (255, 255, 255), (cx, cy), camera.length(me.r) + 5, 3)
        for uid, res in self.results.items():
            u = self.state.units[uid]
            draw_mark(surface, camera, u.x, u.y, u.r, res.status)
        self.draw_key(surface, camera)

    def draw_key(self, surface: pygame.Surface, camera: Camera) -> None:
        """Three lines in the table corner that hides the fewest bases (never the viewer)."""
        counts = {k: sum(1 for r in self.results.values() if r.status == k) for k in MARKS}
        me = self.state.units[self.viewer]
        head = f"Line of sight from {me.name} ({self.viewer})"
        note = "shaded: the ground its eye cannot see"
        items = [
            (k, f"{MARKS[k][1]} {word} {counts[k]}")
            for k, word in (("visible", "in the open:"), ("cover", "in cover:"), ("hidden", "hidden:"))
        ]
        font = get_font(12, "regular")
        row_w = sum(font.size(t)[0] + 28 for _k, t in items)
        width = max(get_font(12, "bold").size(head)[0], font.size(note)[0], row_w) + 16
        box = self._key_place(camera, (width, 58), surface.get_rect())
        panel = pygame.Surface(box.size, pygame.SRCALPHA)
        panel.fill((255, 255, 255, 215))
        surface.blit(panel, box.topleft)
        pygame.draw.rect(surface, theme.INK, box, 1, border_radius=3)
        text_at(surface, head, (box.x + 8, box.y + 4), 12, theme.INK, "bold", anchor="topleft")
        text_at(surface, note, (box.x + 8, box.y + 21), 12, theme.INK, "regular", anchor="topleft")
        x = box.x + 8
        for key, text in items:
            pygame.draw.circle(surface, MARKS[key][0], (x + 6, box.y + 45), 6)
            text_at(surface, text, (x + 16, box.y + 38), 12, theme.INK, "regular", anchor="topleft")
            x += font.size(text)[0] + 28

    def _key_place(self, camera: Camera, size: tuple[int, int], area: pygame.Rect | None = None) -> pygame.Rect:
        """Where the key hides the fewest bases, never the viewer (:func:`clear_place`)."""
        return clear_place(
            camera,
            (self.sight.board.width, self.sight.board.height),
            self.state.units.values(),
            size,
            area,
            keep=self.state.units[self.viewer],
        )


#: Pixels between the places :func:`clear_place` tries down the table's edges.
PLACE_STEP = 12


def clear_place(
    camera: Camera, table: tuple[float, float], units, size: tuple[int, int], area: pygame.Rect | None = None, keep=None
) -> pygame.Rect:
    """Where a box of ``size`` pixels over the table hides the fewest bases of ``units``
    (never ``keep``, a unit, nor leaves ``area``): beside the table when the view has room
    there, else a table corner (top left on a tie), else a place along the table's left or
    right edge (the middle of a table, between the deployment zones, is often clear when
    every corner has units in it). The line-of-sight key and the hint list use it."""
    x0, y0 = camera.to_px(0, 0)
    x1, y1 = camera.to_px(*table)
    w, h = size
    places = []
    if area is not None:
        if x1 + 8 + w <= area.right:
            places.append((x1 + 8, max(area.y + 4, y0)))
        if x0 - 8 - w >= area.x:
            places.append((x0 - 8 - w, max(area.y + 4, y0)))
    places += [(x0 + 8, y0 + 8), (x1 - 8 - w, y0 + 8), (x0 + 8, y1 - 8 - h), (x1 - 8 - w, y1 - 8 - h)]
    # down both edges every PLACE_STEP pixels: a tall box (the hint's list) finds the one
    # clear stretch between a deployment zone and the arrows' heads
    for y in range(round(y0 + 8 + PLACE_STEP), round(y1 - 8 - h), PLACE_STEP):
        places += [(x0 + 8, y), (x1 - 8 - w, y)]
    bases = [(camera.to_px(u.x, u.y), camera.length(u.r) + 8) for u in units if u.on_table]

    def hidden(i_place):
        i, place = i_place
        r = pygame.Rect(round(place[0]), round(place[1]), w, h)
        mine = keep is not None and r.inflate(
            2 * camera.length(keep.r) + 16, 2 * camera.length(keep.r) + 16
        ).collidepoint(camera.to_px(keep.x, keep.y))
        outside = area is not None and not area.contains(r)
        covered = sum(1 for (cx, cy), rad in bases if r.inflate(2 * rad, 2 * rad).collidepoint(cx, cy))
        return (1000 * mine + 100 * outside + covered, i)

    _i, best = min(enumerate(places), key=hidden)
    return pygame.Rect(round(best[0]), round(best[1]), w, h)


def los_layers(scenario, state: GameState, viewer: str, board=None) -> dict:
    """``render_surface`` layers (``under_units``, ``over_units``) for ``--los VIEWER``."""
    sight = Sight(scenario, board)
    layer = SightLayer(sight, state, viewer)
    return {"under_units": layer.draw_under, "over_units": layer.draw_over}
