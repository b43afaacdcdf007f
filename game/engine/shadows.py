"""The ground a unit's eye cannot see (L1), as one shapely geometry: the ``L`` overlay.

Definition. The region is every table point P such that the sight line from the unit's
*centre* sample (its eye, ``eye_height`` above the surface under its centre) to the point
``eye_height`` above the surface at P is blocked, by the blocking rule of
:mod:`game.engine.sight`. In words of L1 and L2: a unit standing with its centre in the
region has its centre-to-centre line blocked, so it is hidden or, at best, in cover; a
unit whose centre stands outside it is visible. Hovering it (``Sight.between``, all
``los_samples`` lines) says which. The rim samples are left out of the picture on
purpose: one point of view gives sharp shadows, and one polygon union instead of nine
(the overlay must not drop a frame).

Units never stand on walls: a wall's footprint belongs to the ground around it.

Method (exact up to float coordinates). The surface is cut into the ground and the roofs
(the top of each block not under a higher one). For a target eye height z_t (the ground's
or a roof's, plus eye_height) and the viewer's eye z_v, a convex part T of a piece with top
h casts, from the eye V, the shadow:

* h > z_v and h > z_t: the line is below the top all the way: everything behind T,
  ``{V + s (p - V): p in T, s >= 1}``;
* z_v < h <= z_t (a target higher than the top): the line is below the top only near the
  viewer, so the shadow starts at the copy of T scaled by a = (z_t - z_v) / (h - z_v) from V;
* z_t < h < z_v (looking down past T): the line dips below the top behind T only up to the
  copy scaled by b = (z_v - z_t) / (z_v - h): the shadow is the hull of T and bT;
* otherwise (h no higher than both eyes) no shadow.

Each shadow is convex: the hull of its near copy and its far side (bT, or an arc well off
the table). The ground's region is the union of the shadows at the ground's eye height,
less the roofs; each roof's is the union of the shadows at its own eye height, on it.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import box

from game.engine.model import GameState

#: Points on the far arc of an unbounded shadow (it spans at most 180 degrees).
_ARC = 5
#: Height slack, as the sight lines' (a line at a top grazes it).
_Z = 1e-9


def _pad(a: np.ndarray, w: int) -> np.ndarray:
    """Repeat the last point along the last axis up to w points."""
    if a.shape[-1] >= w:
        return a
    return np.concatenate([a, np.repeat(a[..., -1:], w - a.shape[-1], axis=-1)], axis=-1)


def _nearest(px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Distance from the origin to each convex ring (rows of px, py), origin outside."""
    ex, ey = np.roll(px, -1, axis=-1) - px, np.roll(py, -1, axis=-1) - py
    ee = ex * ex + ey * ey
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(ee > 0, np.clip(-(px * ex + py * ey) / ee, 0.0, 1.0), 0.0)
    return np.hypot(px + u * ex, py + u * ey).min(axis=-1)


def _polygons(geom):
    """Only the areas of a geometry (an overlay may leave stray lines and points)."""
    if geom.geom_type in ("Polygon", "MultiPolygon"):
        return geom
    parts = [g for g in shapely.get_parts(geom) if g.geom_type in ("Polygon", "MultiPolygon") and not g.is_empty]
    return shapely.union_all(parts) if parts else shapely.Polygon()


class Shadows:
    """Prepared per map: the convex parts of the raised pieces, the ground and the roofs."""

    def __init__(self, sight):
        self.sight = sight
        board = sight.board
        fp = sight.footprints
        self.table = box(0.0, 0.0, board.width, board.height)
        self.far = 2.0 * math.hypot(board.width, board.height) + 1.0
        grp = fp.convex
        if grp is None:
            self.vx = self.vy = np.zeros((0, 3))
            self.h = np.zeros(0)
        else:
            self.vx, self.vy = grp.vx.T.copy(), grp.vy.T.copy()  # (parts, k), counter-clockwise
            self.h = fp.height[grp.owner]
        blocks = [
            (board.polygons[i], float(board.terrain[i].height)) for i in fp.pieces if board.terrain[i].kind == "block"
        ]
        self.ground = self.table.difference(shapely.union_all([p for p, _h in blocks])) if blocks else self.table
        shapely.prepare(self.ground)
        roofs, levels = [], []
        for poly, h in blocks:
            higher = [p for p, t in blocks if t > h]
            top = poly.difference(shapely.union_all(higher)) if higher else poly
            for part in shapely.get_parts(top.intersection(self.table)):
                if part.geom_type == "Polygon" and part.area > 1e-9:
                    roofs.append(part)
                    levels.append(h)
        self.roofs = np.array(roofs, dtype=object)
        self.roof_level = np.array(levels, dtype=float)
        self.roof_box = np.array([r.bounds for r in roofs], dtype=float).reshape(-1, 4)

    def hidden(self, state: GameState, a_id: str):
        """The region of unit ``a_id`` (see the module's definition)."""
        sight = self.sight
        unit = sight._unit(state, a_id)
        V = (unit.x, unit.y)
        zv = sight.board.height_at(unit.x, unit.y) + sight.eye
        vx, vy, h = (self.vx, self.vy, self.h) if not sight.bases_block else self._with_bases(state, a_id)
        pieces = []
        shade = self._shadows(V, zv, np.full(len(h), sight.eye), np.arange(len(h)), vx, vy, h, cull=True)
        shade = shade[shade != None]  # noqa: E711 (element-wise)
        if len(shade):
            shade = shapely.union_all(shapely.clip_by_rect(shade, *self.table.bounds))
            pieces.append(shapely.intersection(shade, self.ground))
        if len(self.roofs):
            pieces += self._roofs(V, zv, vx, vy, h)
        pieces = [g for g in pieces if not g.is_empty]
        return _polygons(shapely.union_all(pieces)) if pieces else shapely.Polygon()

    def _roofs(self, V, zv: float, vx, vy, h) -> list:
        """The region on each roof: roofs that one shadow covers are in whole; only the
        ones partly in shadow need a union, of the shadows clipped to the roof's box."""
        R = len(self.roofs)
        zt = self.roof_level + self.sight.eye
        # only the parts higher than the eye or the roof's eye (the rest cast no shadow)
        ri, pi = np.nonzero(h[None, :] > np.minimum(zv, zt)[:, None] + _Z)
        hulls = self._shadows(V, zv, zt[ri], pi, vx, vy, h, boxes=self.roof_box[ri])
        live = hulls != None  # noqa: E711 (element-wise)
        ri, hulls = ri[live], hulls[live]
        if not len(ri):
            return []
        hit = shapely.intersects(hulls, self.roofs[ri])
        ri, hulls = ri[hit], hulls[hit]
        full = shapely.covers(hulls, self.roofs[ri])
        whole = np.zeros(R, dtype=bool)
        whole[ri[full]] = True
        out = list(self.roofs[whole])
        part = ~whole[ri]
        if part.any():
            ri, hulls = ri[part], hulls[part]
            cut = shapely.intersection(hulls, shapely.box(*self.roof_box[ri].T))
            # one row per roof, its shadows side by side (ri is sorted)
            slot = np.arange(len(ri)) - np.searchsorted(ri, ri)
            grid = np.full((R, int(slot.max()) + 1), None, dtype=object)
            grid[ri, slot] = cut
            mine = np.unique(ri)
            out += list(shapely.intersection(shapely.union_all(grid[mine], axis=1), self.roofs[mine]))
        return out

    def _shadows(
        self,
        V,
        zv: float,
        zt: np.ndarray,
        idx: np.ndarray,
        vx,
        vy,
        h,
        cull: bool = False,
        boxes: np.ndarray | None = None,
    ) -> np.ndarray:
        """Convex shadows from the eye V (height zv): job j is part idx[j] for a target eye
        at zt[j]. None where it casts none, where ``cull`` and another job's shadow holds
        it whole, or where it cannot reach the job's box ``boxes[j]`` (x0, y0, x1, y1)."""
        hh = h[idx]
        both = (hh > zv + _Z) & (hh > zt + _Z)
        up = (zv + _Z < hh) & (hh <= zt + _Z)
        down = (hh <= zv + _Z) & (hh > zt + _Z)
        out = np.full(len(idx), None, dtype=object)
        use = both | up | down
        if not use.any():
            return out
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(up, (zt - zv) / (hh - zv), 1.0)[:, None]
            b = np.where(down & (hh < zv - _Z), (zv - zt) / (zv - hh), np.inf)[:, None]
        bounded = np.isfinite(b[:, 0])
        px, py = vx[idx] - V[0], vy[idx] - V[1]  # (jobs, k) from the eye
        nx, ny = px * a, py * a  # the near copy
        mid = np.arctan2(py.mean(axis=1), px.mean(axis=1))
        rel = (np.arctan2(py, px) - mid[:, None] + np.pi) % (2 * np.pi) - np.pi
        start, span = mid + rel.min(axis=1), rel.max(axis=1) - rel.min(axis=1)
        arc = start[:, None] + span[:, None] * np.linspace(0.0, 1.0, _ARC)
        w = max(px.shape[1], _ARC)
        bb = np.where(bounded, b[:, 0], 1.0)[:, None]
        fx = np.where(bounded[:, None], _pad(px * bb, w), _pad(self.far * np.cos(arc), w))
        fy = np.where(bounded[:, None], _pad(py * bb, w), _pad(self.far * np.sin(arc), w))
        inside = self._inside(px, py) & ~bounded & use  # an eye inside a part above both eyes: blind
        keep = use & ~inside
        if cull:
            keep &= ~self._covered(nx, ny, start, span, bounded | ~use)
        if boxes is not None:
            keep &= self._reaches(nx, ny, fx, fy, start, span, bounded, boxes - (V[0], V[1], V[0], V[1]))
        if keep.any():
            ring = np.stack([np.hstack([nx, fx])[keep] + V[0], np.hstack([ny, fy])[keep] + V[1]], axis=-1)
            out[keep] = shapely.convex_hull(shapely.linestrings(ring))
        out[inside] = self.table
        return out

    @staticmethod
    def _inside(px: np.ndarray, py: np.ndarray) -> np.ndarray:
        """The eye (the origin) is strictly inside the counter-clockwise ring (padded rings
        repeat their last point: those empty edges do not count)."""
        ex, ey = np.roll(px, -1, axis=1) - px, np.roll(py, -1, axis=1) - py
        cross = ex * (-py) - ey * (-px)  # > 0: the origin is left of the edge
        return np.all((cross > 1e-12) | ((ex == 0) & (ey == 0)), axis=1)

    @staticmethod
    def _covered(nx, ny, start, span, bounded) -> np.ndarray:
        """Jobs whose shadow lies in another's unbounded shadow: within its angles and wholly
        farther than its near copy (that shadow holds everything farther in its angles)."""
        near, far = _nearest(nx, ny), np.hypot(nx, ny).max(axis=1)
        rel = (start[:, None] - start[None, :]) % (2 * np.pi)  # j's start from i's start: (j, i)
        within = (rel + span[:, None] <= span[None, :] + 1e-12) & (span[None, :] < np.pi)
        cover = within & (near[:, None] >= far[None, :] - 1e-12) & ~bounded[None, :]
        np.fill_diagonal(cover, False)
        return cover.any(axis=1)

    @staticmethod
    def _reaches(nx, ny, fx, fy, start, span, bounded, boxes) -> np.ndarray:
        """Jobs whose shadow may meet the job's box (relative to the eye): the box is within
        the shadow's angles, and within its reach (from the near copy's nearest point to
        the far copy's farthest; unbounded ones reach everything behind)."""
        bx, by = boxes[:, [0, 2, 2, 0]], boxes[:, [1, 1, 3, 3]]
        mid = np.arctan2(by.mean(axis=1), bx.mean(axis=1))
        rel = (np.arctan2(by, bx) - mid[:, None] + np.pi) % (2 * np.pi) - np.pi
        b0 = (mid + rel.min(axis=1) - start) % (2 * np.pi)
        b1 = b0 + rel.max(axis=1) - rel.min(axis=1)
        overlap = (b0 <= span + 1e-9) | (b1 >= 2 * np.pi - 1e-9)
        gx = np.maximum(np.maximum(boxes[:, 0], -boxes[:, 2]), 0.0)
        gy = np.maximum(np.maximum(boxes[:, 1], -boxes[:, 3]), 0.0)
        box_near = np.hypot(gx, gy)
        box_far = np.hypot(
            np.maximum(np.abs(boxes[:, 0]), np.abs(boxes[:, 2])), np.maximum(np.abs(boxes[:, 1]), np.abs(boxes[:, 3]))
        )
        far = np.where(bounded, np.hypot(fx, fy).max(axis=1), np.inf)
        return (box_near == 0) | (overlap & (_nearest(nx, ny) <= box_far + 1e-9) & (far >= box_near - 1e-9))

    def _with_bases(self, state: GameState, a_id: str):
        """The parts, and the other bases (on the table, not Incapacitated) as 16-sided
        upright prisms around their circles: the overlay's picture of bases_block_los."""
        sight = self.sight
        others = [u for uid, u in state.units.items() if u.active and uid != a_id]
        if not others:
            return self.vx, self.vy, self.h
        k = max(16, self.vx.shape[1])
        ang = 2 * np.pi * np.arange(16) / 16
        ring = np.column_stack([np.cos(ang), np.sin(ang)]) / math.cos(math.pi / 16)
        bx = _pad(np.array([u.x + u.r * ring[:, 0] for u in others]), k)
        by = _pad(np.array([u.y + u.r * ring[:, 1] for u in others]), k)
        bh = np.array([sight.board.height_at(u.x, u.y) + sight.base_height for u in others])
        return np.vstack([_pad(self.vx, k), bx]), np.vstack([_pad(self.vy, k), by]), np.concatenate([self.h, bh])
