"""Terrain queries and measurement in inches (G1-G4).

:class:`Board` indexes a map's terrain once (Shapely 2, prepared geometry and an
``STRtree``) and answers the questions measurement needs: the surface height under a
point, the distance from a base to a terrain piece, the heights a base straddles.

Distances between bases are exact circle arithmetic, never buffered polygons: the
closest points of two round bases are ``centre distance - r1 - r2`` apart across the
table, and with heights (G2) the two horizontal discs are ``sqrt(gap^2 + dz^2)`` apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon, box
from shapely.strtree import STRtree

from game.engine.model import Scenario, Terrain, Token, Unit
from game.engine.tolerance import EPS

#: Size of the buckets of the point-height index, inches.
_CELL = 2.0
#: Point heights kept by :meth:`Board.height_at` (all dropped when full).
_HEIGHTS = 65536


@dataclass(frozen=True)
class Disc:
    """A round footprint: a base, a token or (r = 0) a point, standing at height z."""

    x: float
    y: float
    r: float
    z: float = 0.0


def disc_gap(ax: float, ay: float, ar: float, bx: float, by: float, br: float) -> float:
    """Edge-to-edge distance across the table between two circles (0 if they overlap)."""
    return max(0.0, math.hypot(ax - bx, ay - by) - ar - br)


def disc_distance(a: Disc, b: Disc, use_height: bool = True) -> float:
    """G1/G2: distance between the closest points of two horizontal discs."""
    gap = disc_gap(a.x, a.y, a.r, b.x, b.y, b.r)
    if not use_height:
        return gap
    dz = a.z - b.z
    return math.hypot(gap, dz) if dz else gap


#: :meth:`Board.heights_at` asks the index of fewer points than this, and tests more as arrays.
_FEW_POINTS = 16


def _is_box(poly: Polygon) -> bool:
    """Is the polygon exactly its bounding box (four corners, no holes)? Then a point lies
    on it (boundary included) exactly when it lies within the box."""
    if len(poly.interiors) or poly.is_empty:
        return False
    x0, y0, x1, y1 = poly.bounds
    corners = set(poly.exterior.coords)
    return (
        x0 < x1 and y0 < y1 and len(poly.exterior.coords) == 5 and corners == {(x0, y0), (x1, y0), (x1, y1), (x0, y1)}
    )


class Board:
    """The terrain of one map, indexed for fast queries. Immutable once built."""

    def __init__(self, width: float, height: float, terrain: Sequence[Terrain], use_height: bool = True):
        self.width = float(width)
        self.height = float(height)
        self.use_height = use_height
        self.terrain = list(terrain)
        self.table = box(0.0, 0.0, self.width, self.height)
        self.polygons: list[Polygon] = [Polygon(t.polygon) for t in self.terrain]
        for poly in self.polygons:
            shapely.prepare(poly)
        self.tree = STRtree(self.polygons) if self.polygons else None
        self.by_id = {t.id: i for i, t in enumerate(self.terrain)}
        # Pieces that give the surface a height: blocks (walkable top) and walls (not walkable).
        self._raised = [i for i, t in enumerate(self.terrain) if t.solid and t.height > 0]
        self._raised_set = set(self._raised)
        self._heights = np.array([t.height if t.solid else 0.0 for t in self.terrain], dtype=float)
        self._raised_low_first = sorted(self._raised, key=lambda p: self._heights[p])  # for heights_at
        self._height_l = self._heights.tolist()
        self._heights_raised = np.where([i in self._raised_set for i in range(len(self.terrain))], self._heights, 0.0)
        # per piece: its bounding box, and whether it is that box (an axis-aligned rectangle)
        self._bounds = [tuple(poly.bounds) for poly in self.polygons]
        self._is_box = [_is_box(poly) for poly in self.polygons]
        # heights_at: the raised boxes' bounds and heights (tested as arrays), the other raised pieces lowest first
        boxes = [p for p in self._raised if self._is_box[p]]
        self._box_bounds = np.array([self._bounds[p] for p in boxes], dtype=float).reshape(-1, 4)
        self._box_heights = self._heights[boxes]
        self._raised_shapes = [p for p in self._raised_low_first if not self._is_box[p]]
        self._build_buckets()
        self._height_kept: dict[tuple[float, float], float] = {}
        self._under_kept: dict[tuple[float, float, float], tuple[float, ...]] = {}

    # --- index ------------------------------------------------------------------------
    def _build_buckets(self) -> None:
        nx = max(1, math.ceil(self.width / _CELL))
        ny = max(1, math.ceil(self.height / _CELL))
        self._nx, self._ny = nx, ny
        buckets: list[list[list[int]]] = [[[] for _ in range(ny)] for _ in range(nx)]
        if self.tree is not None:
            raised = set(self._raised)
            ii, jj = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")  # cell c = i * ny + j
            ii, jj = ii.ravel() * _CELL, jj.ravel() * _CELL
            cells = shapely.box(ii, jj, ii + _CELL, jj + _CELL)  # vectorised: fast on big tables
            cell_idx, poly_idx = self.tree.query(cells, predicate="intersects")
            for c, p in zip(cell_idx.tolist(), poly_idx.tolist()):
                if p in raised:
                    buckets[c // ny][c % ny].append(p)
        # Highest first, so the first hit is the surface.
        self._buckets = [[sorted(b, key=lambda p: -self._heights[p]) for b in col] for col in buckets]

    def _candidates(self, x: float, y: float) -> list[int]:
        i = int(x // _CELL)
        j = int(y // _CELL)
        if 0 <= i < self._nx and 0 <= j < self._ny:
            return self._buckets[i][j]
        return []

    def _covers(self, p: int, x: float, y: float) -> bool:
        """Does piece p cover the point (its boundary included)? The same answer as
        ``shapely.intersects_xy``, without calling it where the piece's bounding box says
        (outside the box: no; inside a piece that is its box: yes). Called per point by
        callers that loop, so the cheap tests come first."""
        x0, y0, x1, y1 = self._bounds[p]
        if x < x0 or x > x1 or y < y0 or y > y1:
            return False
        return self._is_box[p] or shapely.intersects_xy(self.polygons[p], x, y)

    # --- heights ------------------------------------------------------------------------
    def height_at(self, x: float, y: float) -> float:
        """Surface height under a point: the highest block or wall covering it, else 0.
        The most recent :data:`_HEIGHTS` answers are kept by point (the board never
        changes; the bots and the movement engine ask of the bases' centres again and
        again)."""
        kept = self._height_kept
        z = kept.get((x, y))
        if z is None:
            if len(kept) >= _HEIGHTS:
                kept.clear()
            z = kept[(x, y)] = self._height_worked_out(x, y)
        return z

    def _height_worked_out(self, x: float, y: float) -> float:
        for p in self._candidates(x, y):
            if self._covers(p, x, y):
                return self._height_l[p]
        return 0.0

    def heights_at(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """:meth:`height_at` of many points at once (arrays of x and y): the same answers.
        A few points: from one query of the index (each point's pieces that cover it,
        boundary included; the highest raised one wins). More: the raised boxes tested by
        their bounds as arrays, each other raised piece on the points within its bounds
        (no point geometries made: they cost more than the tests)."""
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        Z = np.zeros(X.shape)
        if not X.size or not self._raised:
            return Z
        if X.size < _FEW_POINTS:
            at, piece = self.tree.query(shapely.points(X.ravel(), Y.ravel()), predicate="intersects")
            h = self._heights_raised[piece]
            np.maximum.at(Z.reshape(-1), at, h)
            return Z
        x, y = X.reshape(-1, 1), Y.reshape(-1, 1)
        B = self._box_bounds
        on = (x >= B[:, 0]) & (x <= B[:, 2]) & (y >= B[:, 1]) & (y <= B[:, 3])
        z = np.where(on, self._box_heights, 0.0).max(axis=1, initial=0.0)
        x, y = x.ravel(), y.ravel()
        for p in self._raised_shapes:
            x0, y0, x1, y1 = self._bounds[p]
            at = np.flatnonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1))
            if len(at):
                at = at[shapely.intersects_xy(self.polygons[p], x[at], y[at])]
                z[at] = np.maximum(z[at], self._heights[p])
        return z.reshape(X.shape)

    def heights_at_by_piece(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """:meth:`heights_at` one vectorised test per raised piece, lowest first so that
        the highest wins (the reference of the one-query version)."""
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        Z = np.zeros(X.shape)
        if not X.size:
            return Z
        for p in self._raised_low_first:
            Z[shapely.intersects_xy(self.polygons[p], X, Y)] = self._heights[p]
        return Z

    def piece_at(self, x: float, y: float) -> Terrain | None:
        """The highest raised piece covering the point, or None on the ground."""
        for p in self._candidates(x, y):
            if self._covers(p, x, y):
                return self.terrain[p]
        return None

    def heights_under_disc(self, x: float, y: float, r: float) -> list[float]:
        """Every surface height a base of radius r at (x, y) stands over, sorted. The most
        recent :data:`_HEIGHTS` answers are kept by disc (the tracer asks it of the end of
        every path it checks, and the same ends come again)."""
        kept = self._under_kept
        levels = kept.get((x, y, r))
        if levels is None:
            if len(kept) >= _HEIGHTS:
                kept.clear()
            levels = kept[(x, y, r)] = tuple(self._heights_under_disc(x, y, r))
        return list(levels)

    def _heights_under_disc(self, x: float, y: float, r: float) -> list[float]:
        if self.tree is not None:
            # fast answers: no raised piece within r, or the base wholly on one piece's top
            # with nothing else near (the same answers as the general case below)
            near = [
                int(i)
                for i in self.tree.query(ShPoint(x, y), predicate="dwithin", distance=r)
                if int(i) in self._raised_set
            ]
            if not near:
                return [0.0]
            if len(near) == 1:
                poly = self.polygons[near[0]]
                if shapely.contains_xy(poly, x, y) and float(shapely.distance(poly.boundary, ShPoint(x, y))) > r:
                    return [float(self._heights[near[0]])]
        disc = ShPoint(x, y).buffer(r, quad_segs=16)
        levels: set[float] = set()
        covered = None
        if self.tree is not None:
            hits = sorted(
                (int(i) for i in self.tree.query(disc, predicate="intersects") if int(i) in set(self._raised)),
                key=lambda p: -self._heights[p],
            )
            for p in hits:
                poly = self.polygons[p]
                visible = poly if covered is None else poly.difference(covered)
                if visible.intersection(disc).area > 1e-9:
                    levels.add(float(self._heights[p]))
                covered = poly if covered is None else covered.union(poly)
            if covered is None or disc.difference(covered).area > 1e-9:
                levels.add(0.0)
        else:
            levels.add(0.0)
        return sorted(levels)

    def disc(self, thing: Unit | Token) -> Disc:
        return Disc(thing.x, thing.y, thing.r, self.height_at(thing.x, thing.y))

    def point_disc(self, x: float, y: float) -> Disc:
        return Disc(x, y, 0.0, self.height_at(x, y))

    # --- measurement (G1-G4) -------------------------------------------------------------
    def distance(self, a: Unit | Token | Disc, b: Unit | Token | Disc) -> float:
        """Edge-to-edge distance, with height per the ruleset's G2 mode."""
        da = a if isinstance(a, Disc) else self.disc(a)
        db = b if isinstance(b, Disc) else self.disc(b)
        return disc_distance(da, db, self.use_height)

    def distance_table(self, things: Sequence[Unit | Token | Disc]) -> np.ndarray:
        """All-pairs edge-to-edge distances (vectorised)."""
        discs = [t if isinstance(t, Disc) else self.disc(t) for t in things]
        xs = np.array([d.x for d in discs])
        ys = np.array([d.y for d in discs])
        rs = np.array([d.r for d in discs])
        gap = np.hypot(xs[:, None] - xs[None, :], ys[:, None] - ys[None, :]) - rs[:, None] - rs[None, :]
        np.maximum(gap, 0.0, out=gap)
        if self.use_height:
            zs = np.array([d.z for d in discs])
            gap = np.hypot(gap, zs[:, None] - zs[None, :])
        np.fill_diagonal(gap, 0.0)
        return gap

    def in_contact(self, a: Unit | Token | Disc, b: Unit | Token | Disc, tolerance: float) -> bool:
        """G4: base contact is an edge-to-edge distance of at most the tolerance."""
        return self.distance(a, b) <= tolerance + EPS

    def distance_to_terrain(self, x: float, y: float, r: float, terrain_id: str) -> float:
        """Base edge to a terrain piece, across the table (0 when touching or over it)."""
        poly = self.polygons[self.by_id[terrain_id]]
        return max(0.0, float(shapely.distance(ShPoint(x, y), poly)) - r)

    # --- placement ---------------------------------------------------------------------
    def pieces_touching_disc(self, x: float, y: float, r: float, kinds: Iterable[str]) -> list[Terrain]:
        """Terrain of the given kinds that a base overlaps (touching edges do not count)."""
        if self.tree is None:
            return []
        kinds = set(kinds)
        centre = ShPoint(x, y)
        out = []
        for i in self.tree.query(centre, predicate="dwithin", distance=r):
            t = self.terrain[int(i)]
            if t.kind in kinds and float(shapely.distance(centre, self.polygons[int(i)])) < r - EPS:
                out.append(t)
        return out

    def disc_on_table(self, x: float, y: float, r: float) -> bool:
        eps = EPS
        return r - eps <= x <= self.width - r + eps and r - eps <= y <= self.height - r + eps


def board_for(sc: Scenario, ignore_height: bool = False) -> Board:
    """The board of a scenario, measuring height per its ruleset (G2) unless told not to."""
    use_height = sc.ruleset.height_mode == "3d" and not ignore_height
    return Board(sc.width, sc.height, sc.terrain, use_height=use_height)
