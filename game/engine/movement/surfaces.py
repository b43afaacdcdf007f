"""Where a base's centre can stand, per height, for one map (radius independent).

* a *surface* is the area whose height (Board.height_at) is z: the table (z = 0) and the
  tops of blocks and of walls no higher than free_height (M4), minus anything higher on
  top of them. Tops of higher walls are no surface: they are only climbed over (M6);
* a *band* is a set of surfaces joined by steps of at most free_height (M4): a base walks
  all over a band with no transition. Bands are joined by transitions (M6, M8-M10);
* a *ledge* is an edge of a surface where the ground beyond is more than free_height
  lower: it is climbed (M6), jumped down (M9) or taken by ladder (M10). Ledges are
  sampled every ``cell`` inches (the grid step of the engine): each sample is a
  candidate crossing, straight across the edge.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.strtree import STRtree

from game.engine.tolerance import EPS

#: How far either side of an edge the heights are read (inches).
_SIDE = 1e-3


def surface_heights(board, X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Board.height_at for many points: (height, index of the top piece or -1)."""
    z = np.zeros(len(X))
    top = np.full(len(X), -1, dtype=np.int64)
    terrain = board.terrain
    for i in sorted((i for i, t in enumerate(terrain) if t.solid and t.height > 0), key=lambda i: terrain[i].height):
        inside = shapely.intersects_xy(board.polygons[i], X, Y)
        z[inside] = terrain[i].height
        top[inside] = i
    return z, top


class Band:
    """Surfaces joined by free steps (M4)."""

    def __init__(self, bid: int, levels: tuple[float, ...], area):
        self.id = bid
        self.levels = levels
        self.area = area  # the union of its surfaces (a shapely geometry, prepared)
        shapely.prepare(area)
        self.edge = area.boundary  # its outline
        shapely.prepare(self.edge)
        self.has_ledge = False  # a drop of more than free_height at its edge somewhere
        self.ground = levels[0] <= EPS


class Surfaces:
    """Surfaces, bands and ledges of one map."""

    def __init__(self, board, free: float, cell: float, ladders=(), ladder_reach: float = 0.0):
        self.board = board
        self.free = free
        terrain = board.terrain
        table = shapely.box(0.0, 0.0, board.width, board.height)
        raised = [i for i, t in enumerate(terrain) if t.solid and t.height > 0]
        standable = [i for i in raised if not (terrain[i].kind == "wall" and terrain[i].height > free + EPS)]
        self.wall_tops = [i for i in raised if i not in set(standable)]
        levels = sorted({0.0} | {float(terrain[i].height) for i in standable})
        parts, part_z = [], []
        for z in levels:
            mine = (
                table if z <= 0 else shapely.union_all([board.polygons[i] for i in standable if terrain[i].height == z])
            )
            higher = [board.polygons[i] for i in raised if terrain[i].height > z]
            area = shapely.difference(mine, shapely.union_all(higher)) if higher else mine
            for part in shapely.get_parts(area):
                if part.area > 1e-9:
                    parts.append(part)
                    part_z.append(z)
        self.parts = parts
        self.part_z = part_z
        self._tree = STRtree(parts)
        # Bands: parts that touch with at most free_height between them.
        parent = list(range(len(parts)))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        ia, ib = self._tree.query(parts, predicate="intersects")
        for a, b in zip(ia.tolist(), ib.tolist()):
            if a < b and abs(part_z[a] - part_z[b]) <= free + EPS:
                parent[find(a)] = find(b)
        roots = sorted({find(a) for a in range(len(parts))}, key=lambda a: (part_z[a], a))
        index = {root: k for k, root in enumerate(roots)}
        self.part_band = [index[find(a)] for a in range(len(parts))]
        self.bands: list[Band] = []
        for k in range(len(roots)):
            mine = [a for a in range(len(parts)) if self.part_band[a] == k]
            self.bands.append(
                Band(k, tuple(sorted({part_z[a] for a in mine})), shapely.union_all([parts[a] for a in mine]))
            )
        self._corners: dict[int, tuple] = {}
        self._sample_ledges(cell, ladders, ladder_reach)

    # --- corners ----------------------------------------------------------------------------------
    def corners(self, piece: int):
        """Convex corners of a piece and the span of their outward normals (cached)."""
        out = self._corners.get(piece)
        if out is None:
            poly = shapely.orient_polygons(self.board.polygons[piece])
            rings = [convex_corners(np.asarray(ring.coords)) for ring in [poly.exterior, *poly.interiors]]
            out = self._corners[piece] = tuple(np.concatenate([r[k] for r in rings]) for k in range(3))
        return out

    def band_corners(self, band: int):
        """Convex corners of what lies beyond a band's edge (cached)."""
        key = -1 - band
        out = self._corners.get(key)
        if out is None:
            rings = []
            for poly in shapely.get_parts(shapely.orient_polygons(self.bands[band].area)):
                rings += [convex_corners(np.asarray(ring.coords)[::-1]) for ring in [poly.exterior, *poly.interiors]]
            out = self._corners[key] = tuple(np.concatenate([r[k] for r in rings]) for k in range(3))
        return out

    # --- where things are ---------------------------------------------------------------------
    def band_at(self, x: float, y: float) -> int | None:
        """The band a centre at (x, y) stands in (None on a wall top or off the table)."""
        if not (0.0 <= x <= self.board.width and 0.0 <= y <= self.board.height):
            return None
        z = self.board.height_at(x, y)
        for a in self._tree.query(shapely.points(x, y), predicate="intersects").tolist():
            if self.part_z[a] == z:
                return self.part_band[a]
        return None

    def bands_at(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """band_at for many points (-1 for none)."""
        z, _top = surface_heights(self.board, X, Y)
        out = np.full(len(X), -1, dtype=np.int64)
        pi, ai = self._tree.query(shapely.points(X, Y), predicate="intersects")
        pz = np.array(self.part_z)[ai] if len(ai) else np.zeros(0)
        ok = np.abs(pz - z[pi]) <= 0.0
        out[pi[ok]] = np.array(self.part_band, dtype=np.int64)[ai[ok]]
        return out

    # --- ledges -------------------------------------------------------------------------------
    def _sample_ledges(self, cell: float, ladders, ladder_reach: float) -> None:
        """Sample every edge of a surface that drops more than free_height beyond it."""
        board, terrain = self.board, self.board.terrain
        E, N, H = [], [], []
        for a, part in enumerate(self.parts):
            if self.part_z[a] <= self.free + EPS:
                continue  # nothing lower than free_height below it
            poly = shapely.orient_polygons(part)
            for ring in [poly.exterior, *poly.interiors]:
                xy = np.asarray(ring.coords)
                p, q = xy[:-1], xy[1:]
                d = q - p
                length = np.hypot(d[:, 0], d[:, 1])
                keep = length > 1e-9
                p, d, length = p[keep], d[keep], length[keep]
                # the part is on the left of its (counter-clockwise) exterior and clockwise
                # holes: the outward normal is on the right
                nrm = np.stack([d[:, 1], -d[:, 0]], axis=1) / length[:, None]
                count = np.maximum(1, np.round(length / cell)).astype(np.int64)
                for k in range(len(p)):
                    f = (np.arange(count[k]) + 0.5) / count[k]
                    E.append(p[k] + f[:, None] * d[k])
                    N.append(np.repeat(nrm[k][None, :], count[k], axis=0))
                    H.append(np.full(count[k], self.part_z[a]))
        if E:
            E, N, H = np.concatenate(E), np.concatenate(N), np.concatenate(H)
        else:
            E, N, H = np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0)
        out = E + N * _SIDE
        inn = E - N * _SIDE
        z_out, top_out = surface_heights(board, out[:, 0], out[:, 1])
        z_in, top_in = surface_heights(board, inn[:, 0], inn[:, 1])
        on_table = (out[:, 0] > 0) & (out[:, 0] < board.width) & (out[:, 1] > 0) & (out[:, 1] < board.height)
        wall = np.array(
            [terrain[i].kind == "wall" and terrain[i].height > self.free + EPS for i in range(len(terrain))] + [False]
        )
        ok = on_table & ~wall[top_out] & (z_in - z_out > self.free + EPS) & (np.abs(z_in - H) <= EPS) & (top_in >= 0)
        self.ledge_at = E[ok]
        self.ledge_n = N[ok]  # outward: from the top towards the foot
        self.ledge_hi = z_in[ok]
        self.ledge_lo = z_out[ok]
        self.ledge_piece = top_in[ok]  # the piece whose edge it is (climbed, jumped from)
        self.ledge_band_hi = self.bands_at(inn[ok, 0], inn[ok, 1])
        self.ledge_band_lo = self.bands_at(out[ok, 0], out[ok, 1])
        for b in set(self.ledge_band_hi.tolist()):
            if b >= 0:
                self.bands[b].has_ledge = True
        # M10: a ladder to the top piece with its foot within ladder_reach of the crossing.
        lad = np.full(len(self.ledge_at), -1, dtype=np.int64)
        for k, ladder in enumerate(ladders):
            top = board.by_id.get(ladder.top, -2)
            near = (
                np.hypot(self.ledge_at[:, 0] - ladder.foot[0], self.ledge_at[:, 1] - ladder.foot[1])
                <= ladder_reach + EPS
            )
            lad[(self.ledge_piece == top) & near & (lad < 0)] = k
        self.ledge_ladder = lad


def convex_corners(ring_xy: np.ndarray):
    """Corners where a closed ring (solid on its left) turns left, with the range of outward
    normals there: (corners (n, 2), start angle, sweep angle)."""
    xy = np.asarray(ring_xy, dtype=float)
    if len(xy) > 1 and xy[0, 0] == xy[-1, 0] and xy[0, 1] == xy[-1, 1]:
        xy = xy[:-1]
    # drop repeated points
    keep = np.hypot(*(xy - np.roll(xy, 1, axis=0)).T) > 1e-12
    xy = xy[keep]
    if len(xy) < 3:
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0)
    d_in = xy - np.roll(xy, 1, axis=0)  # edge arriving at each vertex
    d_out = np.roll(xy, -1, axis=0) - xy  # edge leaving it
    cross = d_in[:, 0] * d_out[:, 1] - d_in[:, 1] * d_out[:, 0]
    dot = (d_in * d_out).sum(axis=1)
    turn = np.arctan2(cross, dot)  # > 0: a left turn (convex for the solid on the left)
    convex = turn > 1e-9
    # outward (right-hand) normal of the arriving edge
    start = np.arctan2(-d_in[:, 0], d_in[:, 1])
    return xy[convex], start[convex], turn[convex]
