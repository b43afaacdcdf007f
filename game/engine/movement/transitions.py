"""Candidate height transitions for one base radius: the edges that join bands.

Every transition goes straight from a point on one band to a point on another:

* ``UP`` / ``DOWN``: across a ledge sample (:mod:`.surfaces`), from the foot (r + a hair out
  from the edge, where the base just fits below) to a hair inside the top, and back: a
  climb (M6), a ladder (M10) when the sample is within ladder_reach of a ladder's foot,
  or (down, ``descend: jump``) a jump down (M9);
* ``FAR``: a jump down that lands as far out as M9 allows (the base's nearest edge a hair
  under jump_down_landing_max from the ledge), for a foot where the base may not stand;
* ``GAP`` (M8) and ``WALL`` (M6, over a wall): the exactly classified candidates of
  :class:`.specials.Specials`, between cell centres, kept where the base fits.

The search (:mod:`.search`) prices them for the unit (ladders, Animals, Dazed, descend)
and takes only those the tracer accepts as a step on their own (:meth:`Transitions.fits`:
both ends fit, but the base may still meet another piece on the way, a hedge at the foot
of a climb); the tracer has the last word on the path, and :mod:`.nav` pulls the bends
next to a transition tight afterwards.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from game.engine.errors import IllegalAction
from game.engine.model import Unit
from game.engine.movement.space import Space
from game.engine.movement.specials import CellGrid, Specials
from game.engine.movement.surfaces import Surfaces, surface_heights
from game.engine.tolerance import EPS

UP, DOWN, FAR, GAP, WALL = range(5)
#: Offsets (inches) of the two ends of a ledge crossing from the edge.
HAIR = 1e-3


class Transitions:
    """Point nodes (on bands) and transition edges between them for one base radius."""

    def __init__(self, tracer, surf: Surfaces, space: Space, grid: CellGrid, specials: Specials, r: float):
        rs = tracer.rs
        self.r = r
        xs, ys, bands = [], [], []

        def add(P: np.ndarray, B: np.ndarray) -> np.ndarray:
            start = sum(len(x) for x in xs)
            xs.append(P[:, 0])
            ys.append(P[:, 1])
            bands.append(B)
            return start + np.arange(len(P))

        E, N = surf.ledge_at, surf.ledge_n
        foot = E + N * (r + HAIR)
        top = E - N * HAIR
        far = E + N * (float(rs.jump_down_landing_max) + r - HAIR)
        ok_foot = self._valid(space, foot, surf.ledge_band_lo)
        ok_top = self._valid(space, top, surf.ledge_band_hi)
        ok_far = self._valid(space, far, surf.ledge_band_lo) & ~ok_foot & ok_top
        k_foot = add(foot, surf.ledge_band_lo)
        k_top = add(top, surf.ledge_band_hi)
        k_far = add(far, surf.ledge_band_lo)
        dz = surf.ledge_hi - surf.ledge_lo
        edges = []  # (from, to, kind, vertical inches paid (up), ladder id, piece)
        both = np.nonzero(ok_foot & ok_top)[0]
        edges.append((k_foot[both], k_top[both], UP, dz[both], surf.ledge_ladder[both], surf.ledge_piece[both]))
        edges.append((k_top[both], k_foot[both], DOWN, dz[both], surf.ledge_ladder[both], surf.ledge_piece[both]))
        fo = np.nonzero(ok_far)[0]
        edges.append((k_top[fo], k_far[fo], FAR, dz[fo], np.full(len(fo), -1), surf.ledge_piece[fo]))
        # Gap jumps and climbs over walls, between cell centres the base fits at.
        cells = np.unique(
            np.concatenate([specials.gap_a, specials.gap_b, specials.wall_a, specials.wall_b, specials.wall_next])
        )
        cxy = np.stack([grid.X[cells], grid.Y[cells]], axis=1) if len(cells) else np.zeros((0, 2))
        cband = surf.bands_at(cxy[:, 0], cxy[:, 1]) if len(cells) else np.zeros(0, dtype=np.int64)
        cfit = self._valid(space, cxy, cband)
        fit = np.zeros(grid.nx * grid.ny + 1, dtype=bool)
        fit[cells] = cfit
        knode = np.full(grid.nx * grid.ny + 1, -1, dtype=np.int64)
        knode[cells[cfit]] = add(cxy[cfit], cband[cfit])
        g = np.nonzero(fit[specials.gap_a] & fit[specials.gap_b])[0]
        edges.append(
            (
                knode[specials.gap_a[g]],
                knode[specials.gap_b[g]],
                GAP,
                np.zeros(len(g)),
                np.full(len(g), -1),
                grid.top[specials.gap_a[g]],
            )
        )
        w = self._walls(tracer, grid, specials, fit, r)
        self.X = np.concatenate(xs) if xs else np.zeros(0)
        self.Y = np.concatenate(ys) if ys else np.zeros(0)
        self.band = np.concatenate(bands).astype(np.int64) if bands else np.zeros(0, dtype=np.int64)
        self.e_from = np.concatenate([e[0] for e in edges] + [knode[specials.wall_a[w]]]).astype(np.int64)
        self.e_to = np.concatenate([e[1] for e in edges] + [knode[specials.wall_b[w]]]).astype(np.int64)
        self.e_kind = np.concatenate([np.full(len(e[0]), e[2]) for e in edges] + [np.full(len(w), WALL)]).astype(
            np.int64
        )
        self.e_dz = np.concatenate([e[3] for e in edges] + [specials.wall_cu[w]]).astype(float)
        self.e_dz2 = np.concatenate([np.zeros(len(e[0])) for e in edges] + [specials.wall_cd[w]]).astype(float)
        self.e_n = np.concatenate(
            [np.ones(len(e[0]), dtype=np.int64) for e in edges] + [specials.wall_nu[w] + specials.wall_nd[w]]
        ).astype(np.int64)
        self.e_down_free = np.concatenate(
            [np.zeros(len(e[0]), dtype=bool) for e in edges] + [specials.wall_dd[w] & (specials.wall_nd[w] > 0)]
        )
        self.e_ladder = np.concatenate([e[4] for e in edges] + [np.full(len(w), -1)]).astype(np.int64)
        self.e_piece = np.concatenate([e[5] for e in edges] + [specials.wall_piece[w]]).astype(np.int64)
        self.e_len = np.hypot(self.X[self.e_to] - self.X[self.e_from], self.Y[self.e_to] - self.Y[self.e_from])
        self.e_ledge = np.concatenate([both, both, fo, np.full(len(g) + len(w), -1)]).astype(np.int64)
        order = np.argsort(self.e_from, kind="stable")
        for name in (
            "e_from",
            "e_to",
            "e_kind",
            "e_dz",
            "e_dz2",
            "e_n",
            "e_down_free",
            "e_ladder",
            "e_piece",
            "e_len",
            "e_ledge",
        ):
            setattr(self, name, getattr(self, name)[order])
        self.out_ptr = np.searchsorted(self.e_from, np.arange(len(self.X) + 1)).tolist()
        self.P = np.stack([self.X, self.Y], axis=1)
        self.X_l, self.Y_l, self.band_l = self.X.tolist(), self.Y.tolist(), self.band.tolist()
        self.used = np.zeros(len(self.X), dtype=bool)  # a node some edge starts or ends at
        self.used[self.e_from] = True
        self.used[self.e_to] = True
        # per kind of unit: (descend, ladders, may_climb) -> node -> its edges priced; and
        # (ladders, step) -> band -> the bands a transition needing no check joins it to
        self._priced, self._joined = {}, {}
        self._check_steps_with(tracer)

    @staticmethod
    def _valid(space: Space, P: np.ndarray, bands: np.ndarray) -> np.ndarray:
        ok = np.zeros(len(P), dtype=bool)
        for b in np.unique(bands).tolist():
            if b < 0:
                continue
            m = np.nonzero(bands == b)[0]
            ok[m] = space.bands[b].ok_points(P[m, 0], P[m, 1])
        return ok

    @staticmethod
    def _walls(tracer, grid: CellGrid, sp: Specials, fit: np.ndarray, r: float) -> np.ndarray:
        """Climbs over walls from the last cell before the wall the base fits at to the first
        one after it, where the base clears the wall away from the crossing (M5)."""
        idx = np.nonzero(fit[sp.wall_a] & fit[sp.wall_b] & ~fit[sp.wall_next])[0]  # fit[-1] is False
        if not len(idx):
            return idx
        _u, first = np.unique(sp.wall_ray[idx], return_index=True)
        idx = idx[first]
        # M5 near a wall: the base may touch it only within 2 r of where the path crosses it.
        L = sp.wall_w[idx]
        A = np.stack([grid.X[sp.wall_a[idx]], grid.Y[sp.wall_a[idx]]], axis=1)
        B = np.stack([grid.X[sp.wall_b[idx]], grid.Y[sp.wall_b[idx]]], axis=1)
        polys = np.array(tracer.board.polygons, dtype=object)[sp.wall_piece[idx]]
        good = np.ones(len(idx), dtype=bool)
        for t in (sp.wall_e[idx] - 2 * r / L, sp.wall_f[idx] + 2 * r / L):
            inside = (t > 0) & (t < 1)
            P = A + np.clip(t, 0, 1)[:, None] * (B - A)
            dist = shapely.distance(polys, shapely.points(P[:, 0], P[:, 1]))
            good &= ~inside | (dist >= r - 1e-4)
        return idx[good]

    def _check_steps_with(self, tracer) -> None:
        """Get ready for :meth:`fits`: the tracer that has the word on a step, and the
        edges it is asked about."""
        self._tracer = tracer
        self.e_near = self._near_other(tracer.board, float(tracer.rs.free_height), self.r)
        self._fits: dict = {}  # (edge, descend, ladders) -> does the tracer accept its step

    def _near_other(self, board, free: float, r: float) -> np.ndarray:
        """Per edge: may the tracer refuse its step on its own? Where the straight step
        comes within ``r`` of a piece other than the one it crosses that can stop a base
        walking at the lower end's level or above (impassable ground no more than
        free_height under it, a solid piece more than free_height over it: M5), or an
        end lies within ``r`` of the table's edge. Elsewhere both ends fit and what the
        base meets on the way is the piece the transition crosses (M5 near a crossing)."""
        A, B = self.P[self.e_from], self.P[self.e_to]
        near = np.zeros(len(A), dtype=bool)
        if not len(A):
            return near
        for Q in (A, B):
            near |= (Q[:, 0] < r + 1e-6) | (Q[:, 1] < r + 1e-6)
            near |= (Q[:, 0] > board.width - r - 1e-6) | (Q[:, 1] > board.height - r - 1e-6)
        if board.tree is None:
            return near
        si, pi = board.tree.query(shapely.linestrings(np.stack([A, B], axis=1)), predicate="dwithin", distance=r)
        z = np.minimum(surface_heights(board, A[:, 0], A[:, 1])[0], surface_heights(board, B[:, 0], B[:, 1])[0])[si]
        h = np.array([float(t.height) for t in board.terrain])[pi]
        impassable = np.array([t.kind == "impassable" for t in board.terrain], dtype=bool)[pi]
        solid = np.array([t.solid for t in board.terrain], dtype=bool)[pi]
        stops = (impassable & (z <= h + free + 1e-6)) | (solid & (h > z + free - 1e-6))
        near[si[stops & (pi != self.e_piece[si])]] = True
        return near

    def fits(self, e: int, descend: str, ladders: bool) -> bool:
        """Does the tracer accept edge e's step on its own, for a unit that descends so
        and may (or, an Animal, may not) use ladders (M5 against terrain, as for any
        path: :meth:`Tracer.trace`)? Asked of the tracer where it may refuse it
        (:meth:`_near_other`), once per kind of unit."""
        if not self.e_near[e]:
            return True
        key = (e, descend, ladders)
        ok = self._fits.get(key)
        if ok is None:
            a, b = int(self.e_from[e]), int(self.e_to[e])
            keywords = [] if ladders else ["animal"]
            unit = Unit("transition", "transition", "", self.X_l[a], self.Y_l[a], 0.0, self.r, {}, keywords)
            try:
                self._tracer.trace(unit, [(self.X_l[a], self.Y_l[a]), (self.X_l[b], self.Y_l[b])], descend)
                ok = True
            except IllegalAction:
                ok = False
            self._fits[key] = ok
        return ok

    def bands_without_checks(self, band: int, ladders: bool, step: float = math.inf) -> frozenset:
        """The bands a base gets to from ``band`` by the transitions that need no check
        (:meth:`price`: a ladder, for a unit that may use one, M10; a wall a move steps
        over) and cost at most ``step`` (the search's :attr:`.search.Search.step`). A search
        without checks changes band by those alone, so a goal on any other band is none of
        its paths' end, at any limit: a 6" tower with no ladder a move climbs whole."""
        key = (ladders, round(step, 6) if step < math.inf else math.inf)
        adj = self._joined.get(key)
        if adj is None:
            kind = self.e_kind
            # the least each may cost (a wall jumped down from where M9 lets the base)
            down = np.where(self.e_down_free, 0.0, self.e_dz2)
            free = (kind == WALL) & (self.e_n == 0) & (self.e_len + self.e_dz + down <= step + EPS)
            if ladders:
                free |= ((kind == UP) | (kind == DOWN)) & (self.e_ladder >= 0) & (self.e_len + self.e_dz <= step + EPS)
            adj = self._joined[key] = {}
            for a, b in zip(self.band[self.e_from[free]].tolist(), self.band[self.e_to[free]].tolist()):
                adj.setdefault(a, set()).add(b)
        seen, todo = {band}, [band]
        while todo:
            for b in adj.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return frozenset(seen)

    def priced(self, n: int, descend: str, ladders: bool, may_climb: bool) -> list:
        """The edges from node n a unit may take, in order: (edge, to, cost, checks) (kept
        per kind of unit: the prices and the steps the tracer accepts depend on nothing
        else)."""
        per = self._priced.setdefault((descend, ladders, may_climb), {})
        out = per.get(n)
        if out is None:
            out = per[n] = [
                (e, int(self.e_to[e])) + p
                for e in range(self.out_ptr[n], self.out_ptr[n + 1])
                if (p := self.price(e, descend, ladders, may_climb)) is not None and self.fits(e, descend, ladders)
            ]
        return out

    def price(self, e: int, descend: str, ladders: bool, may_climb: bool) -> tuple[float, int] | None:
        """(cost, checks) of edge e for a unit, or None if it may not take it."""
        kind = int(self.e_kind[e])
        length = float(self.e_len[e])
        dz = float(self.e_dz[e])
        if kind in (UP, DOWN) and self.e_ladder[e] >= 0 and ladders:
            return length + dz, 0
        if kind == WALL:
            n = int(self.e_n[e])
            if n and not may_climb:
                return None
            down = 0.0 if (descend == "jump" and self.e_down_free[e]) else float(self.e_dz2[e])
            return length + dz + down, n
        if not may_climb:
            return None
        if kind == UP:
            return length + dz, 1
        if kind == DOWN:
            return (length if descend == "jump" else length + dz), 1
        if kind == FAR:
            return (length, 1) if descend == "jump" else None
        return length, 1  # GAP
