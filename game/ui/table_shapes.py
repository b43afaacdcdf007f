"""What drawing a table needs, worked out once per map (in inches): the terrain pieces
in drawing order with where their height labels go, the ladders' drawn lines, and
short unit labels. Pure geometry (shapely): no pygame."""

from __future__ import annotations

import math
import re

from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon
from shapely.ops import nearest_points, polylabel, unary_union

from game.engine.geometry import Board
from game.engine.model import GameState, Scenario, Terrain


class Piece:
    """A terrain piece with what drawing needs, precomputed in inches."""

    __slots__ = ("t", "poly", "z", "order", "label_at", "label_room")

    def __init__(self, t: Terrain, poly: Polygon, z: float, order: int):
        self.t = t
        self.poly = poly
        self.z = z
        self.order = order
        self.label_at: tuple[float, float] | None = None
        self.label_room = 0.0


def terrain_pieces(sc: Scenario, board: Board) -> list[Piece]:
    """The terrain in drawing order (lowest first), each block with its height label's place."""
    pieces: list[Piece] = []
    for i, t in enumerate(sc.terrain):
        poly = Polygon(t.polygon)
        if not poly.is_valid:
            poly = poly.buffer(0)
        if t.solid:
            z = t.height
        else:
            rp = poly.representative_point() if not poly.is_empty else ShPoint(0, 0)
            z = board.height_at(rp.x, rp.y) + 0.001
        pieces.append(Piece(t, poly, z, i))
    pieces.sort(key=lambda p: (p.z, p.order))
    _place_height_labels(pieces)
    return pieces


def _place_height_labels(pieces: list[Piece]) -> None:
    """Height labels on the visible part of each block (not under a higher piece)."""
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


def ladder_lines(sc: Scenario, pieces: list[Piece]) -> list[tuple[str, tuple[float, float], tuple[float, float]]]:
    """Each ladder as drawn: from the foot to just over the nearest point of its block's edge."""
    out = []
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
        out.append((lad.id, (fx, fy), (tx, ty)))
    return out


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
        label = abbrev(u.name or u.id)
        taken = used.setdefault(u.warband, set())
        if label in taken:
            stem = (
                label[:2] if len(label) > 1 and not label[-1].isdigit() else label.rstrip("0123456789")[:1] or label[:1]
            )
            n = 2
            while f"{stem}{n}" in taken:
                n += 1
            label = f"{stem}{n}"
        taken.add(label)
        out[uid] = label
    return out


def abbrev(name: str) -> str:
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
