"""Navigation structures for the cheapest path (``to:``) and the reachable area.

A :class:`NavGrid` is a configuration-space grid for one base radius: every cell
centre knows its surface height, whether a base of that radius fits there (no
terrain higher than free_height within the radius, no impassable ground, no wall
top, on the table), whether it may end a move there (the base does not straddle a
height change) and whether the base touches difficult ground. Edges:

* walking: the 8 neighbours at the same level (height change <= free_height, M4);
* transitions: fit cells up to ``r + 1.5 cells`` apart whose heights differ by more
  than free_height: a climb (M6), a ladder (M10) when a ladder's foot is near, or a
  jump down (M9) when ``descend="jump"``. Cost: horizontal + vertical inches (jump
  down: horizontal only); one check each except ladders;
* gap jumps (M8): from a cell at (or one cell in from) a drop, along 16 directions,
  to the first cell of a surface within jump_height_max across a gap of at most
  jump_gap_max. Cost: horizontal inches; one check;
* climbs over walls (M6): from the last cell before a wall top (higher than
  free_height) to the first one after it, along 8 directions, when the line crosses
  the top in at most wall_climb_max_thickness. Cost: horizontal + up + down inches
  (down free with ``descend="jump"``); a check for each step of more than free_height.

The candidate jumps and wall climbs are found once per map on the grid (radius
independent, :class:`_Specials`) and each is classified exactly, with the same rules as
:meth:`Mover.trace`, from the segment's exact height profile (:class:`_Profiles`: the
raised pieces cut into triangles and clipped against all segments at once with numpy).
Each radius keeps the ones its base fits at both ends of (and, for walls, beside the
crossing, M5). Should the exact check still refuse one on a found path (the base
grazing a piece beside the crossing), that edge is left out and the search is run again.

Searches are Dijkstra / A* on (cost, checks). Enemy bases (and blocking friends, M5)
remove the cells they overlap at their level, per query. The grid path is then made
exact:

* walking in the low band (no height change over free_height): a visibility graph
  over the corners of the obstacles grown by the base radius (polygons that contain
  the true round shapes), within ``VIS_CORRIDOR`` of the grid path, gives the
  shortest any-angle path (this also fixes a grid path that went round the wrong
  side of an obstacle);
* otherwise the grid path is pulled straight and its bends slid tight with the
  exact tracer.

The exact tracer (:meth:`Mover.check_path`) has the last word: a path it refuses
is never returned. Preference between results: no check, then cheapest, then
fewest checks (:func:`_key`).

Every path returned has been checked by :meth:`Mover.check_path`, so ``plan(path=...)``
on its points gives the same cost and checks.
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING, Iterable

import numpy as np
import shapely

from game.engine.errors import IllegalAction
from game.engine.model import GameState, Unit

if TYPE_CHECKING:  # pragma: no cover
    from game.engine.movement.mover import Mover
    from game.engine.movement.types import Allowance, Reach, Trace

from game.engine.tolerance import EPS
#: Grid step in inches (an engine setting, not a rule number).
DEFAULT_CELL = 0.5
_SQ2 = math.sqrt(2.0)
#: Round buffers lie inside the true circles. GEOS gives an arc of angle a
#: round(a / quantum) segments (quantum = 90 degrees / quad_segs), so one segment may span
#: 1.5 quanta: scaling the radius by 1 / cos(0.75 quantum) makes every buffer contain the
#: true shape (regions and corners err on the side of "not there").
_OUTER = 1.0 / math.cos(0.75 * math.pi / 2 / 8)    # quad_segs = 8
_OUTER4 = 1.0 / math.cos(0.75 * math.pi / 2 / 4)   # quad_segs = 4
#: The visibility refinement of a found path looks this far (inches) either side of it
#: and gives up above this many corners (then the grid path stands).
VIS_CORRIDOR = 2.0
VIS_MAX_NODES = 90
_NEIGHBOURS = ((1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0), (1, 1, _SQ2), (1, -1, _SQ2), (-1, 1, _SQ2), (-1, -1, _SQ2))


#: Directions of the rays that look for gap jumps and wall climbs (grid steps).
_DIRS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1),
         (2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1))
_TOL = 1e-9


class _Profiles:
    """Exact height profiles of many straight segments at once (radius independent).

    The raised solid pieces are cut into triangles; a segment's stretch over each
    triangle is found by clipping (Cyrus-Beck), all segments together with numpy.
    Used once per map to classify candidate gap jumps (M8) and wall climbs (M6)
    exactly as :meth:`Mover.trace` would (bases and the base's fit aside)."""

    def __init__(self, board, free: float):
        tv, th, tw, tp = [], [], [], []
        for i, t in enumerate(board.terrain):
            if not (t.solid and t.height > 0):
                continue
            for tri in shapely.get_parts(shapely.constrained_delaunay_triangles(board.polygons[i])):
                xy = shapely.get_coordinates(tri)[:3]
                if len(xy) < 3:
                    continue
                (x0, y0), (x1, y1), (x2, y2) = xy
                area2 = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
                if abs(area2) < 1e-12:
                    continue
                if area2 < 0:
                    xy = xy[[0, 2, 1]]
                tv.append(xy)
                th.append(float(t.height))
                tw.append(t.kind == "wall" and t.height > free + EPS)
                tp.append(i)
        self.tv = np.array(tv, dtype=float).reshape(-1, 3, 2)
        self.th = np.array(th, dtype=float)
        self.tw = np.array(tw, dtype=bool)
        self.tp = np.array(tp, dtype=np.int64)
        # Triangles are grouped by piece: piece k owns [p0[k], p0[k] + pn[k]); its box.
        tv = self.tv
        _pieces, self.p0, self.pn = np.unique(self.tp, return_index=True, return_counts=True)
        lo = np.minimum.reduceat(tv.min(axis=1), self.p0, axis=0) if len(tv) else np.zeros((0, 2))
        hi = np.maximum.reduceat(tv.max(axis=1), self.p0, axis=0) if len(tv) else np.zeros((0, 2))
        self.pbox = (lo[:, 0] - 1e-9, lo[:, 1] - 1e-9, hi[:, 0] + 1e-9, hi[:, 1] + 1e-9)

    def intervals(self, A: np.ndarray, B: np.ndarray):
        """For segments A[k] -> B[k]: (segment, t0, t1, height, wall top, piece) of every
        part of a segment over a raised triangle (t in [0, 1])."""
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool),
                 np.zeros(0, dtype=np.int64))
        if not len(self.tv) or not len(A):
            return empty
        # Pairs whose bounding boxes meet (numpy: cheaper than building line geometries).
        sx0, sx1 = np.minimum(A[:, 0], B[:, 0]), np.maximum(A[:, 0], B[:, 0])
        sy0, sy1 = np.minimum(A[:, 1], B[:, 1]), np.maximum(A[:, 1], B[:, 1])
        bx0, by0, bx1, by1 = self.pbox
        si, pi = np.nonzero((sx0[:, None] <= bx1[None, :]) & (sx1[:, None] >= bx0[None, :])
                            & (sy0[:, None] <= by1[None, :]) & (sy1[:, None] >= by0[None, :]))
        # every triangle of each piece met
        cnt = self.pn[pi]
        si = np.repeat(si, cnt)
        first = np.repeat(self.p0[pi], cnt)
        ti = first + (np.arange(len(si)) - np.repeat(np.cumsum(cnt) - cnt, cnt))
        if not len(si):
            return empty
        a = A[si]
        d = B[si] - a
        t0 = np.zeros(len(si))
        t1 = np.ones(len(si))
        ok = np.ones(len(si), dtype=bool)
        tv = self.tv[ti]
        with np.errstate(divide="ignore", invalid="ignore"):
            for k in range(3):
                v0, v1 = tv[:, k], tv[:, (k + 1) % 3]
                nx_, ny_ = v1[:, 1] - v0[:, 1], v0[:, 0] - v1[:, 0]   # outward (counter-clockwise triangle)
                p = nx_ * d[:, 0] + ny_ * d[:, 1]
                q = nx_ * (v0[:, 0] - a[:, 0]) + ny_ * (v0[:, 1] - a[:, 1])
                par = np.abs(p) < 1e-15
                ok &= ~(par & (q < -1e-12))
                r = q / p
                t0 = np.where(~par & (p < 0), np.maximum(t0, r), t0)
                t1 = np.where(~par & (p > 0), np.minimum(t1, r), t1)
        ok &= t1 - t0 > 1e-12
        ti = ti[ok]
        return si[ok], t0[ok], t1[ok], self.th[ti], self.tw[ti], self.tp[ti]


def _union(seg: np.ndarray, t0: np.ndarray, t1: np.ndarray):
    """Merge the intervals of every segment: (segment, start, end), sorted."""
    if not len(seg):
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    k0 = t0 + 2.0 * seg
    k1 = t1 + 2.0 * seg
    o = np.argsort(k0, kind="stable")
    k0, k1, s = k0[o], k1[o], seg[o]
    run = np.maximum.accumulate(k1)
    new = np.ones(len(o), dtype=bool)
    new[1:] = k0[1:] > run[:-1] + _TOL
    starts = np.nonzero(new)[0]
    ends = np.r_[starts[1:], len(o)] - 1
    cs = s[starts]
    return cs, k0[starts] - 2.0 * cs, run[ends] - 2.0 * cs


def _first_last(cs: np.ndarray, c0: np.ndarray, c1: np.ndarray, n: int):
    """Per segment: number of merged intervals, start and end of the first and the last."""
    count = np.bincount(cs, minlength=n) if len(cs) else np.zeros(n, dtype=np.int64)
    s_first = np.full(n, np.nan)
    e_first = np.full(n, np.nan)
    s_last = np.full(n, np.nan)
    e_last = np.full(n, np.nan)
    if len(cs):
        u, fi = np.unique(cs, return_index=True)
        li = np.r_[fi[1:], len(cs)] - 1
        s_first[u], e_first[u] = c0[fi], c1[fi]
        s_last[u], e_last[u] = c0[li], c1[li]
    return count, s_first, e_first, s_last, e_last


def _step_cost(dz: np.ndarray, free: float):
    """Vertical inches, check (0/1) and 'is a way down' of a height change, as _step does
    (ladders aside: they only ever save a check)."""
    big = np.abs(dz) > free + EPS
    return np.where(big, np.abs(dz), 0.0), big.astype(np.int64), big & (dz < 0)


def _gap_edges(prof: _Profiles, A, B, za, zb, rs, free: float) -> np.ndarray:
    """Which segments A -> B are exactly one gap jump (M8) and otherwise flat."""
    n = len(A)
    L = np.hypot(B[:, 0] - A[:, 0], B[:, 1] - A[:, 1])
    si, t0, t1, h, wall, _pc = prof.intervals(A, B)
    H = h >= za[si] - free - EPS
    hs, h0, h1, hh, hw = si[H], t0[H], t1[H], h[H], wall[H]
    count, s_first, e_first, s_last, e_last = _first_last(*_union(hs, h0, h1), n)
    ok = (count == 2) & (s_first <= _TOL) & (e_last >= 1 - _TOL)
    e = np.nan_to_num(e_first)
    f = np.nan_to_num(s_last)
    width = (f - e) * L
    ok &= (width > 0) & (width <= float(rs.jump_gap_max) + EPS) & (np.abs(zb - za) <= float(rs.jump_height_max) + EPS)
    bad_pre = (h0 < e[hs] - _TOL) & ((np.abs(hh - za[hs]) > EPS) | hw)
    bad_post = (h1 > f[hs] + _TOL) & ((np.abs(hh - zb[hs]) > EPS) | hw)
    bad = np.zeros(n, dtype=bool)
    bad[hs[bad_pre | bad_post]] = True
    return ok & ~bad


def _wall_edges(prof: _Profiles, A, B, za, zb, rs, free: float):
    """Which segments A -> B climb over exactly one wall (M6) and are otherwise flat:
    (ok, cost up, check up, cost down, check down, down is a descent, wall piece, t in, t out)."""
    n = len(A)
    L = np.hypot(B[:, 0] - A[:, 0], B[:, 1] - A[:, 1])
    si, t0, t1, h, wall, pc = prof.intervals(A, B)
    W = wall
    count, s_first, e_first, _s_last, _e_last = _first_last(*_union(si[W], t0[W], t1[W]), n)
    e = np.nan_to_num(s_first)
    f = np.nan_to_num(e_first)
    ok = (count == 1) & (e > _TOL) & (f < 1 - _TOL) & ((f - e) * L <= float(rs.wall_climb_max_thickness) + EPS)
    hmax = np.full(n, -np.inf)
    hmin = np.full(n, np.inf)
    piece = np.full(n, -1, dtype=np.int64)
    np.maximum.at(hmax, si[W], h[W])
    np.minimum.at(hmin, si[W], h[W])
    piece[si[W]] = pc[W]
    ok &= hmax - hmin <= EPS
    hwall = np.where(np.isfinite(hmax), hmax, 0.0)
    N = ~W
    ns, n0, n1, nh = si[N], t0[N], t1[N], h[N]
    cnt, sf, ef, sl, el = _first_last(*_union(ns, n0, n1), n)
    pre = n0 < e[ns] - _TOL
    post = n1 > f[ns] + _TOL
    mid = (n1 > e[ns] + _TOL) & (n0 < f[ns] - _TOL)
    bad_n = (pre & (np.abs(nh - za[ns]) > EPS)) | (post & (np.abs(nh - zb[ns]) > EPS)) | (mid & (nh > hwall[ns] + EPS))
    bad = np.zeros(n, dtype=bool)
    bad[ns[bad_n]] = True
    ok &= ~bad
    # Standing on a raised surface: it must cover the whole stretch up to the wall (and after it).
    ok &= (za <= EPS) | ((np.nan_to_num(sf, nan=1.0) <= _TOL) & (np.nan_to_num(ef) >= e - _TOL))
    ok &= (zb <= EPS) | ((np.nan_to_num(el) >= 1 - _TOL) & (np.nan_to_num(sl, nan=1.0) <= f + _TOL))
    cu, nu, _du = _step_cost(hwall - za, free)
    cd, nd, dd = _step_cost(zb - hwall, free)
    return ok, cu, nu, cd, nd, dd, piece, e, f


def _ray_cells(origins: np.ndarray, nx: int, ny: int, di: int, dj: int, steps: int) -> np.ndarray:
    """Cells along rays from ``origins`` in grid direction (di, dj), -1 off the table."""
    oi, oj = np.divmod(origins, ny)
    t = np.arange(1, steps + 1)
    I = oi[:, None] + t[None, :] * di
    J = oj[:, None] + t[None, :] * dj
    inside = (I >= 0) & (I < nx) & (J >= 0) & (J < ny)
    return np.where(inside, I * ny + J, -1)


class _Specials:
    """Candidate gap jumps and wall climbs between cells of one map (radius independent),
    each already classified exactly. :class:`NavGrid` keeps those its base fits at."""

    def __init__(self, mover: "Mover", base: "_Base"):
        board, rs = mover.board, mover.rs
        free = float(rs.free_height)
        cell = base.cell
        nx, ny = base.nx, base.ny
        z = base.z
        terrain = board.terrain
        is_wall = np.array([t.kind == "wall" and t.height > free + EPS for t in terrain] + [False], dtype=bool)
        wall_top = is_wall[base.top]
        z_ext = np.append(z, np.nan)
        wt_ext = np.append(wall_top, False)
        prof = _Profiles(board, free)
        X, Y = base.X, base.Y
        z2 = z.reshape(nx, ny)
        # --- gap jumps (M8): from cells at a drop of more than free_height ---------------
        lower = np.zeros((nx, ny), dtype=bool)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di == dj == 0:
                    continue
                sh = np.full((nx, ny), np.inf)
                sh[max(0, -di):nx - max(0, di), max(0, -dj):ny - max(0, dj)] = \
                    z2[max(0, di):nx - max(0, -di), max(0, dj):ny - max(0, -dj)]
                lower |= sh < z2 - free - EPS
        rim = np.nonzero(lower.ravel() & (z > free + EPS) & ~wall_top)[0]
        gmax = float(rs.jump_gap_max)
        tries: list[list[np.ndarray]] = [[], [], [], [], [], []]   # take-off, landing, back, back ok, on, on ok
        for di, dj in _DIRS:
            step = math.hypot(di, dj) * cell
            T = int(math.ceil((gmax + 3 * cell) / step)) + 1
            cells = _ray_cells(rim, nx, ny, di, dj, T)
            zs = z_ext[cells]
            za = z[rim]
            low = zs < za[:, None] - free - EPS
            idx = np.arange(T)[None, :]
            up = ~low & np.isfinite(zs)
            up[:, 0] = False
            i1 = np.argmax(up, axis=1)
            rows = np.arange(len(rim))
            zb = zs[rows, i1]
            bcell = cells[rows, i1]
            # The gap starts at once and is all low up to a landing within reach.
            keep = low[:, 0] & up.any(axis=1) & (np.abs(zb - za) <= float(rs.jump_height_max) + EPS)
            keep &= ~wt_ext[bcell] & ((i1 - 1) * step <= gmax + EPS)
            keep &= ~((idx < i1[:, None]) & ~low).any(axis=1)
            # Second tries, should the first fail exactly (a cell centred on a piece's edge is
            # not on it): one cell back from the take-off, one cell on from the landing.
            oi, oj = np.divmod(rim, ny)
            bi, bj = oi - di, oj - dj
            back = np.where((bi >= 0) & (bi < nx) & (bj >= 0) & (bj < ny), bi * ny + bj, -1)
            back_ok = (np.abs(z_ext[back] - za) <= EPS) & ~wt_ext[back]
            j1 = np.minimum(i1 + 1, T - 1)
            on = cells[rows, j1]
            on_ok = (j1 > i1) & (np.abs(z_ext[on] - zb) <= EPS) & ~wt_ext[on]
            for lst, arr in zip(tries, (rim, bcell, back, back_ok, on, on_ok)):
                lst.append(arr[keep])
        ga, gb, bk, bk_ok, on, on_ok = (np.concatenate(t) for t in tries)

        def classify(a, b):
            return _gap_edges(prof, np.stack([X[a], Y[a]], axis=1), np.stack([X[b], Y[b]], axis=1), z[a], z[b], rs, free)

        if len(ga):
            ok = classify(ga, gb)
            bad = ~ok
            ka = np.concatenate([bk[bad & bk_ok], ga[bad & on_ok], bk[bad & bk_ok & on_ok]])
            kb = np.concatenate([gb[bad & bk_ok], on[bad & on_ok], on[bad & bk_ok & on_ok]])
            ga, gb = ga[ok], gb[ok]
            if len(ka):
                ok2 = classify(ka, kb)
                ga = np.concatenate([ga, ka[ok2]])
                gb = np.concatenate([gb, kb[ok2]])
        self.gap_a, self.gap_b = ga, gb
        self.gap_w = np.hypot(X[gb] - X[ga], Y[gb] - Y[ga])
        # --- climbing over walls (M6): from cells near a wall top, across it -----------------
        reach = base.reach + cell
        k = int(math.ceil(reach / cell))
        wt2 = wall_top.reshape(nx, ny)
        near = np.zeros((nx, ny), dtype=bool)
        if wt2.any():
            for di in range(-k, k + 1):
                for dj in range(-k, k + 1):
                    if math.hypot(di, dj) * cell > reach + EPS:
                        continue
                    near[max(0, di):nx - max(0, -di), max(0, dj):ny - max(0, -dj)] |= \
                        wt2[max(0, -di):nx - max(0, di), max(0, -dj):ny - max(0, dj)]
        origins = np.nonzero(near.ravel() & ~wall_top)[0]
        wmax = float(rs.wall_climb_max_thickness)
        ray_id, order, wa, wb, nxt = [], [], [], [], []
        nray = 0
        for di, dj in _DIRS[:8]:
            if not len(origins):
                break
            step = math.hypot(di, dj) * cell
            T = int(math.ceil((2 * reach + wmax) / step)) + 2
            cells = _ray_cells(origins, nx, ny, di, dj, T)
            wt = wt_ext[cells]
            has = wt.any(axis=1)
            i0 = np.argmax(wt, axis=1)
            idx = np.arange(T)[None, :]
            after = ~wt & (idx > i0[:, None]) & (cells >= 0)
            i1 = np.where(after.any(axis=1), np.argmax(after, axis=1), T)
            keep = has & (i0 * step <= reach + step) & (i1 < T)
            # the far side: from the first cell after the wall, about as far beyond it as the
            # origin is before it (a base fits at the same distance on both sides)
            cand = keep[:, None] & (idx >= i1[:, None]) & (idx - i1[:, None] <= i0[:, None] + 1) & (cells >= 0) & ~wt
            r_, t_ = np.nonzero(cand)
            ray_id.append(r_ + nray)
            order.append(t_)
            nxt.append(cells[r_, 0])
            wa.append(origins[r_])
            wb.append(cells[r_, t_])
            nray += len(origins)
        empty_i = np.zeros(0, dtype=np.int64)
        wa = np.concatenate(wa) if wa else empty_i
        wb = np.concatenate(wb) if wb else empty_i
        ray_id = np.concatenate(ray_id) if ray_id else empty_i
        order = np.concatenate(order) if order else empty_i
        nxt = np.concatenate(nxt) if nxt else empty_i
        if len(wa):
            A = np.stack([X[wa], Y[wa]], axis=1)
            B = np.stack([X[wb], Y[wb]], axis=1)
            ok, cu, nu, cd, nd, dd, piece, e, f = _wall_edges(prof, A, B, z[wa], z[wb], rs, free)
            o = np.nonzero(ok)[0]
            o = o[np.lexsort((order[o], ray_id[o]))]
            self.wall_a, self.wall_b, self.wall_ray, self.wall_next = wa[o], wb[o], ray_id[o], nxt[o]
            self.wall_w = np.hypot(X[wb[o]] - X[wa[o]], Y[wb[o]] - Y[wa[o]])
            self.wall_cu, self.wall_nu, self.wall_cd, self.wall_nd, self.wall_dd = cu[o], nu[o], cd[o], nd[o], dd[o]
            self.wall_piece, self.wall_e, self.wall_f = piece[o], e[o], f[o]
        else:
            self.wall_a = self.wall_b = self.wall_ray = self.wall_piece = self.wall_next = empty_i
            self.wall_w = self.wall_cu = self.wall_cd = self.wall_e = self.wall_f = np.zeros(0)
            self.wall_nu = self.wall_nd = empty_i
            self.wall_dd = np.zeros(0, dtype=bool)


class _Base:
    """What every radius shares: cell centres, surface heights, distances to pieces."""

    def __init__(self, mover: "Mover", cell: float, reach: float):
        board = mover.board
        self.cell = cell
        self.reach = reach
        nx = max(1, int(math.ceil(board.width / cell)))
        ny = max(1, int(math.ceil(board.height / cell)))
        self.nx, self.ny = nx, ny
        xs = (np.arange(nx) + 0.5) * cell
        ys = (np.arange(ny) + 0.5) * cell
        X, Y = np.meshgrid(xs, ys, indexing="ij")
        self.X, self.Y = X.ravel(), Y.ravel()
        X, Y = self.X, self.Y
        n = nx * ny
        self.z = np.zeros(n)
        self.top = np.full(n, -1, dtype=np.int64)
        terrain = board.terrain
        self.order = sorted((i for i, t in enumerate(terrain) if t.solid and t.height > 0), key=lambda i: terrain[i].height)
        self.pts = shapely.points(X, Y)
        self.near: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for i, poly in enumerate(board.polygons):
            x0, y0, x1, y1 = poly.bounds
            sel = np.nonzero((X >= x0 - reach) & (X <= x1 + reach) & (Y >= y0 - reach) & (Y <= y1 + reach))[0]
            d = shapely.distance(poly, self.pts[sel]) if len(sel) else np.zeros(0)
            self.near[i] = (sel, d)
        for i in self.order:
            sel, d = self.near[i]
            inside = sel[d <= 0.0]
            self.z[inside] = terrain[i].height
            self.top[inside] = i
        self.supports: dict[float, object] = {}
        self._specials: _Specials | None = None

    def specials(self, mover: "Mover") -> "_Specials":
        """Gap jumps and wall climbs between cells, classified once per map."""
        if self._specials is None:
            self._specials = _Specials(mover, self)
        return self._specials


class NavGrid:
    """The configuration-space grid of one map for one base radius."""

    def __init__(self, mover: "Mover", r: float, cell: float, base: _Base):
        self.skipped_checks = False
        board, rs = mover.board, mover.rs
        self.mover = mover
        self.r = r
        self.cell = cell
        free = float(rs.free_height)
        self.free = free
        self.nx, self.ny = nx, ny = base.nx, base.ny
        self.X, self.Y = X, Y = base.X, base.Y
        z, top, pts, order = base.z, base.top, base.pts, base.order
        terrain = board.terrain
        near = base.near
        n = nx * ny
        self.z, self.top = z, top
        is_wall = np.array([t.kind == "wall" and t.height > free + EPS for t in terrain] + [False], dtype=bool)
        wall_top = is_wall[top]  # top == -1 picks the trailing False
        fit = (X >= r - EPS) & (X <= board.width - r + EPS) & (Y >= r - EPS) & (Y <= board.height - r + EPS) & ~wall_top
        standable = fit.copy()
        diff = np.zeros(n, dtype=bool)
        lim = r - 1e-4
        for i, t in enumerate(terrain):
            sel, d = near[i]
            touch = sel[d < lim]
            if t.kind == "impassable":
                bad = touch[z[touch] <= t.height + free + EPS]
                fit[bad] = False
            elif t.kind == "difficult":
                diff[touch] = True
            elif t.solid and t.height > 0:
                higher = touch[z[touch] < t.height - free - EPS]
                fit[higher] = False
                lower = touch[z[touch] > t.height + free + EPS]   # overhanging a lower piece
                standable[lower] = False
        # Overhanging a ledge: at level L the base must lie inside the area no lower than L - free.
        for level in sorted(set(z[top >= 0].tolist())):
            if level <= free + EPS:
                continue
            cells = np.nonzero((top >= 0) & (z == level))[0]
            if level not in base.supports:
                support = shapely.union_all([board.polygons[i] for i in order if terrain[i].height >= level - free - EPS])
                base.supports[level] = support.boundary
            db = shapely.distance(base.supports[level], pts[cells])
            standable[cells[db < lim]] = False
        self.fit = fit
        self.standable = standable & fit
        self.diff = diff
        self._walk: dict[int, list] = {}
        self._ground = None
        self._coarse = None
        self._corners = None
        self._fine = None
        self._mud = None
        self._fp: dict[tuple, set[int]] = {}
        self._labels: list[int] | None = None
        self.fit_l = fit.tolist()
        self.X_l, self.Y_l = X.tolist(), Y.tolist()
        self.z_l = z.tolist()
        self.diff_l = diff.tolist()
        self._build_transitions(mover, r, cell)
        self._build_specials(mover, r, base)
        self.ground_obstacles()
        self.coarse_corners()
        self.fine_inner()

    # --- index helpers ---------------------------------------------------------------
    def cell_of(self, x: float, y: float) -> int:
        i = min(self.nx - 1, max(0, int(x // self.cell)))
        j = min(self.ny - 1, max(0, int(y // self.cell)))
        return i * self.ny + j

    def centre(self, c: int) -> tuple[float, float]:
        return (float(self.X[c]), float(self.Y[c]))

    def _build_specials(self, mover: "Mover", r: float, base: _Base) -> None:
        """Gap jumps (M8) and climbs over walls (M6) this base fits at both ends of: edges
        of the search, one check per jump, one per non-free step of a wall climb."""
        sp = base.specials(mover)
        fit = self.fit
        m = fit[sp.gap_a] & fit[sp.gap_b]
        src = [sp.gap_a[m]]
        dst = [sp.gap_b[m]]
        w = [sp.gap_w[m]]
        k = int(m.sum())
        cu, cd, nn, dd = [np.zeros(k)], [np.zeros(k)], [np.ones(k, dtype=np.int64)], [np.zeros(k, dtype=bool)]
        # From the last cell before the wall this base fits at, to the first one after it.
        fit_ext = np.append(fit, False)
        idx = np.nonzero(fit[sp.wall_a] & fit[sp.wall_b] & ~fit_ext[sp.wall_next])[0]
        if len(idx):
            _u, first = np.unique(sp.wall_ray[idx], return_index=True)
            idx = idx[first]
            # M5 near a wall: the base may touch it only within 2 r of where the path crosses it.
            L = sp.wall_w[idx]
            A = np.stack([self.X[sp.wall_a[idx]], self.Y[sp.wall_a[idx]]], axis=1)
            B = np.stack([self.X[sp.wall_b[idx]], self.Y[sp.wall_b[idx]]], axis=1)
            polys = np.array(mover.board.polygons, dtype=object)[sp.wall_piece[idx]]
            good = np.ones(len(idx), dtype=bool)
            for t in (sp.wall_e[idx] - 2 * r / L, sp.wall_f[idx] + 2 * r / L):
                inside = (t > 0) & (t < 1)
                P = A + np.clip(t, 0, 1)[:, None] * (B - A)
                dist = shapely.distance(polys, shapely.points(P))
                good &= ~inside | (dist >= r - 1e-4)
            idx = idx[good]
            src.append(sp.wall_a[idx])
            dst.append(sp.wall_b[idx])
            w.append(sp.wall_w[idx])
            cu.append(sp.wall_cu[idx])
            cd.append(sp.wall_cd[idx])
            nn.append(sp.wall_nu[idx] + sp.wall_nd[idx])
            dd.append(sp.wall_dd[idx] & (sp.wall_nd[idx] > 0))
        src, dst, w = np.concatenate(src), np.concatenate(dst), np.concatenate(w)
        cu, cd, nn, dd = np.concatenate(cu), np.concatenate(cd), np.concatenate(nn), np.concatenate(dd)
        o = np.argsort(src, kind="stable")
        self.s_ptr = np.searchsorted(src[o], np.arange(self.nx * self.ny + 1)).tolist()
        self.s_dst = dst[o].astype(np.int64).tolist()
        self.s_w = w[o].tolist()
        self.s_cu = cu[o].tolist()
        self.s_cd = cd[o].tolist()
        self.s_n = nn[o].tolist()
        self.s_dd = dd[o].tolist()
        self._special_set: set[tuple[int, int]] | None = None

    def is_special(self, c: int, d: int) -> bool:
        """Is c -> d a gap jump or a wall climb edge?"""
        if self._special_set is None:
            ptr, dst = self.s_ptr, self.s_dst
            self._special_set = {(a, dst[i]) for a in range(len(ptr) - 1) if ptr[a + 1] > ptr[a] for i in range(ptr[a], ptr[a + 1])}
        return (c, d) in self._special_set

    def _build_transitions(self, mover: "Mover", r: float, cell: float) -> None:
        rt = r + 1.5 * cell
        k = int(math.ceil(rt / cell))
        nx, ny = self.nx, self.ny
        fit = self.fit.reshape(nx, ny)
        z = self.z.reshape(nx, ny)
        free = self.free
        lad = [(mover.board.by_id.get(l.top, -1), l.foot) for l in mover.ladders]
        reach = float(mover.rs.ladder_reach)
        S, D, W = [], [], []
        for di in range(-k, k + 1):
            for dj in range(-k, k + 1):
                dist = math.hypot(di, dj) * cell
                if dist == 0 or dist > rt + EPS:
                    continue
                a_sl = (slice(max(0, -di), nx - max(0, di)), slice(max(0, -dj), ny - max(0, dj)))
                b_sl = (slice(max(0, di), nx - max(0, -di)), slice(max(0, dj), ny - max(0, -dj)))
                ok = fit[a_sl] & fit[b_sl] & (np.abs(z[b_sl] - z[a_sl]) > free + EPS)
                ia, ja = np.nonzero(ok)
                if not len(ia):
                    continue
                ia0 = ia + max(0, -di)
                ja0 = ja + max(0, -dj)
                S.append(ia0 * ny + ja0)
                D.append((ia0 + di) * ny + (ja0 + dj))
                W.append(np.full(len(ia), dist))
        n = nx * ny
        if S:
            src, dst, w = np.concatenate(S), np.concatenate(D), np.concatenate(W)
            dz = self.z[dst] - self.z[src]
            higher = np.where(dz > 0, dst, src)
            ladder = np.zeros(len(src), dtype=bool)
            mx, my = (self.X[src] + self.X[dst]) / 2, (self.Y[src] + self.Y[dst]) / 2
            for tp, (fx, fy) in lad:
                ladder |= (self.top[higher] == tp) & (np.hypot(mx - fx, my - fy) <= reach + EPS)
            order = np.argsort(src, kind="stable")
            src, dst, w, dz, ladder = src[order], dst[order], w[order], dz[order], ladder[order]
            ptr = np.searchsorted(src, np.arange(n + 1))
        else:
            dst = w = dz = np.zeros(0)
            ladder = np.zeros(0, dtype=bool)
            ptr = np.zeros(n + 1, dtype=np.int64)
        # Compressed rows: the transitions of cell c are [ptr[c], ptr[c + 1]).
        self.t_ptr = ptr.tolist()
        self.t_dst = dst.astype(np.int64).tolist()
        self.t_w = w.tolist()
        self.t_dz = dz.tolist()
        self.t_lad = ladder.tolist()

    # --- per query --------------------------------------------------------------------
    def blocked(self, state: GameState, unit: Unit, blockers: Iterable[str]) -> set[int]:
        out: set[int] = set()
        board = self.mover.board
        for uid in blockers:
            o = state.units[uid]
            out |= self.footprint(o, board.height_at(o.x, o.y))
        return out

    def difficult_area(self):
        """Difficult ground (M12), prepared, or None when the map has none."""
        if self._mud is None:
            board = self.mover.board
            polys = [board.polygons[i] for i, t in enumerate(board.terrain) if t.kind == "difficult"]
            self._mud = shapely.union_all(polys) if polys else False
            if polys:
                shapely.prepare(self._mud)
        return self._mud or None

    def fine_inner(self):
        """The ground obstacles (8 segments a quarter circle, containing the true shapes)
        and the table's edge, shrunk by a hair and prepared: for fast line of sight."""
        if self._fine is None:
            board, r = self.mover.board, self.r
            frame = shapely.difference(shapely.box(-1, -1, board.width + 1, board.height + 1),
                                       shapely.box(r, r, board.width - r, board.height - r))
            self._fine = shapely.buffer(shapely.union(self.ground_obstacles(), frame), -1e-5)
            shapely.prepare(self._fine)
        return self._fine

    def coarse_corners(self):
        """(corner coordinates, prepared interior) of :meth:`coarse_obstacles`, cached."""
        if self._corners is None:
            obst = self.coarse_obstacles()
            xy = shapely.get_coordinates(shapely.boundary(obst))
            inner = shapely.buffer(obst, -1e-4)
            shapely.prepare(inner)
            self._corners = (xy, inner)
        return self._corners

    def coarse_obstacles(self):
        """Ground obstacles grown by the radius with 4 segments a quarter circle (scaled
        to contain the true circles), and the table's edge: corners for :meth:`find`."""
        if self._coarse is None:
            board, free, r = self.mover.board, self.free, self.r
            polys = [board.polygons[i] for i, t in enumerate(board.terrain)
                     if (t.solid and t.height > free + EPS) or t.kind == "impassable"]
            grown = [shapely.buffer(p, r * _OUTER4, quad_segs=4) for p in polys]
            frame = shapely.difference(shapely.box(-1, -1, board.width + 1, board.height + 1),
                                       shapely.box(r, r, board.width - r, board.height - r))
            self._coarse = shapely.union_all(grown + [frame])
        return self._coarse

    def ground_obstacles(self):
        """Where this base's centre may not stand at ground level (exact circles, for regions)."""
        if self._ground is None:
            board, free = self.mover.board, self.free
            polys = [board.polygons[i] for i, t in enumerate(board.terrain)
                     if (t.solid and t.height > free + EPS) or t.kind == "impassable"]
            self._ground = shapely.union_all([p.buffer(self.r * _OUTER, quad_segs=8) for p in polys]) if polys else shapely.Polygon()
            shapely.prepare(self._ground)
        return self._ground

    def walk_edges(self, c: int) -> list[tuple[int, float, bool]]:
        """Walking neighbours of a cell (same level, base fits, no corner cutting), memoised."""
        out = self._walk.get(c)
        if out is not None:
            return out
        fit, zl, diffl = self.fit_l, self.z_l, self.diff_l
        ny, nx, cell, free = self.ny, self.nx, self.cell, self.free
        ci, cj = divmod(c, ny)
        zc = zl[c]
        out = []
        for di, dj, w in _NEIGHBOURS:
            ni, nj = ci + di, cj + dj
            if ni < 0 or nj < 0 or ni >= nx or nj >= ny:
                continue
            d = ni * ny + nj
            if not fit[d] or abs(zl[d] - zc) > free + EPS:
                continue
            if di and dj and (not fit[ci * ny + nj] or not fit[ni * ny + cj]):
                continue
            out.append((d, w * cell, diffl[d]))
        self._walk[c] = out
        return out

    def free_labels(self) -> list[int]:
        """Connected parts of the graph of steps that need no check (walking, ladders,
        check-free specials), edges taken both ways and every base ignored: cells with
        different labels are never joined by a search that leaves out checks."""
        if self._labels is None:
            nx, ny, free = self.nx, self.ny, self.free
            n = nx * ny
            fit = self.fit.reshape(nx, ny)
            z = self.z.reshape(nx, ny)
            idx = np.arange(n).reshape(nx, ny)
            src, dst = [], []
            for di, dj, _w in _NEIGHBOURS:
                if (di, dj) < (0, 0):
                    continue  # the reverse direction is the same undirected edge
                a_sl = (slice(max(0, -di), nx - max(0, di)), slice(max(0, -dj), ny - max(0, dj)))
                b_sl = (slice(max(0, di), nx - max(0, -di)), slice(max(0, dj), ny - max(0, -dj)))
                za, zb = z[a_sl], z[b_sl]
                # a -> b as walk_edges allows it, or b -> a (either joins the two cells)
                ok_ab = fit[b_sl] & (np.abs(zb - za) <= free + EPS)
                ok_ba = fit[a_sl] & (np.abs(za - zb) <= free + EPS)
                if di and dj:
                    # corner cells: (ci, cj + dj) and (ci + di, cj) for a at (ci, cj)
                    c1 = fit[(a_sl[0], b_sl[1])]
                    c2 = fit[(b_sl[0], a_sl[1])]
                    ok_ab &= c1 & c2
                    ok_ba &= c1 & c2
                ok = ok_ab | ok_ba
                src.append(idx[a_sl][ok])
                dst.append(idx[b_sl][ok])
            t_ptr, t_dst, t_lad = self.t_ptr, self.t_dst, self.t_lad
            s_ptr, s_dst, s_n = self.s_ptr, self.s_dst, self.s_n
            extra_a, extra_b = [], []
            for c in range(n):
                for i in range(t_ptr[c], t_ptr[c + 1]):
                    if t_lad[i]:
                        extra_a.append(c)
                        extra_b.append(t_dst[i])
                for i in range(s_ptr[c], s_ptr[c + 1]):
                    if not s_n[i]:
                        extra_a.append(c)
                        extra_b.append(s_dst[i])
            A = np.concatenate(src + [np.array(extra_a, dtype=np.int64)]).tolist()
            B = np.concatenate(dst + [np.array(extra_b, dtype=np.int64)]).tolist()
            parent = list(range(n))
            for a, b in zip(A, B):
                while parent[a] != a:
                    parent[a] = parent[parent[a]]
                    a = parent[a]
                while parent[b] != b:
                    parent[b] = parent[parent[b]]
                    b = parent[b]
                if a != b:
                    parent[max(a, b)] = min(a, b)
            for c in range(n):
                parent[c] = parent[parent[c]]
            self._labels = parent
        return self._labels

    def free_connected(self, starts, goals) -> bool:
        """Can a search that leaves out checks join a start cell to a goal cell at all?"""
        lab = self.free_labels()
        have = {lab[c] for c, _d in starts}
        return any(lab[c] in have for c in goals)

    def search(self, starts: list[tuple[int, float]], blocked: set[int], *, checks: bool, difficult: bool, descend: str,
               may_climb: bool, limit: float, goal: tuple[float, float] | None = None, goals: set[int] | None = None,
               banned: set[tuple[int, int]] | None = None):
        """Dijkstra (A* towards ``goal``) on (cost, checks).

        Returns (dist, nchk, parent, found goal cell or None, touched difficult ground);
        ``self.skipped_checks`` tells whether an edge needing a check was left out that
        the same search with checks would have taken within ``limit`` (if none was, that
        search gives exactly this answer)."""
        diffl = self.diff_l
        dist: dict[int, float] = {}
        nchk: dict[int, int] = {}
        parent: dict[int, int] = {}
        heap = []
        # Plain lists (not numpy): the heuristic is inlined below, same floats as before.
        X, Y = self.X_l, self.Y_l
        hyp = math.hypot
        if goal is not None:
            gx, gy = goal
            h = True
        else:
            gx = gy = 0.0
            h = False
        for c, d0 in starts:
            if d0 < dist.get(c, math.inf):
                dist[c] = d0
                nchk[c] = 0
                parent[c] = -1
                heapq.heappush(heap, ((d0 + hyp(X[c] - gx, Y[c] - gy)) if h else d0, 0, d0, c))
        done: set[int] = set()
        t_ptr, t_dst, t_w, t_dz, t_lad = self.t_ptr, self.t_dst, self.t_w, self.t_dz, self.t_lad
        s_ptr, s_dst, s_w, s_cu, s_cd, s_n, s_dd = self.s_ptr, self.s_dst, self.s_w, self.s_cu, self.s_cd, self.s_n, self.s_dd
        walk = self._walk
        walk_edges = self.walk_edges
        found = None
        touched = False
        skipped = False
        lim = limit + EPS
        jump = descend == "jump"
        pop, push = heapq.heappop, heapq.heappush
        nodiff = not difficult
        no_checks = not checks or not may_climb
        has_goals = goals is not None
        while heap:
            f, k, g, c = pop(heap)
            if c in done:
                continue
            done.add(c)
            if diffl[c]:
                touched = True
            if has_goals and c in goals:
                found = c
                break
            nbrs = walk.get(c)
            if nbrs is None:
                nbrs = walk_edges(c)
            for d, w, dd in nbrs:
                if d in blocked or (dd and nodiff):
                    continue
                ng = g + w
                if ng > lim:
                    continue
                old = dist.get(d)
                if old is None or ng < old - 1e-9 or (ng <= old + 1e-9 and k < nchk[d]):
                    dist[d] = ng
                    nchk[d] = k
                    parent[d] = c
                    push(heap, ((ng + hyp(X[d] - gx, Y[d] - gy)) if h else ng, k, ng, d))
            lo, hi = t_ptr[c], t_ptr[c + 1]
            if lo != hi:
                for i in range(lo, hi):
                    d, w, dz, ladder = t_dst[i], t_w[i], t_dz[i], t_lad[i]
                    if d in blocked or (diffl[d] and nodiff):
                        continue
                    if ladder:
                        cost, kk = w + abs(dz), 0
                    else:
                        cost = w if (dz < 0 and jump) else w + abs(dz)
                        if no_checks:
                            # left out; it matters only if a search with checks could take it
                            if g + cost <= lim:
                                skipped = True
                            continue
                        kk = 1
                    ng = g + cost
                    nk = k + kk
                    if ng > lim:
                        continue
                    old = dist.get(d)
                    if old is None or ng < old - 1e-9 or (ng <= old + 1e-9 and nk < nchk[d]):
                        dist[d] = ng
                        nchk[d] = nk
                        parent[d] = c
                        push(heap, ((ng + hyp(X[d] - gx, Y[d] - gy)) if h else ng, nk, ng, d))
            # Gap jumps (M8) and climbs over walls (M6).
            lo, hi = s_ptr[c], s_ptr[c + 1]
            if lo != hi:
                for i in range(lo, hi):
                    d = s_dst[i]
                    if d in blocked or (diffl[d] and nodiff):
                        continue
                    kk = s_n[i]
                    if kk and no_checks:
                        if banned and (c, d) in banned:
                            continue
                        if g + s_w[i] + s_cu[i] + (0.0 if (jump and s_dd[i]) else s_cd[i]) <= lim:
                            skipped = True
                        continue
                    if banned and (c, d) in banned:
                        continue
                    ng = g + s_w[i] + s_cu[i] + (0.0 if (jump and s_dd[i]) else s_cd[i])
                    nk = k + kk
                    if ng > lim:
                        continue
                    old = dist.get(d)
                    if old is None or ng < old - 1e-9 or (ng <= old + 1e-9 and nk < nchk[d]):
                        dist[d] = ng
                        nchk[d] = nk
                        parent[d] = c
                        push(heap, ((ng + hyp(X[d] - gx, Y[d] - gy)) if h else ng, nk, ng, d))
        self.skipped_checks = skipped
        return dist, nchk, parent, found, touched

    def footprint(self, o: Unit, oz: float) -> set[int]:
        """Cells where this grid's base would overlap base ``o`` standing at height oz."""
        key = (o.x, o.y, o.r, oz)
        out = self._fp.get(key)
        if out is not None:
            return out
        out = set()
        reach = self.r + o.r - EPS
        i0 = max(0, int((o.x - reach) // self.cell))
        i1 = min(self.nx - 1, int((o.x + reach) // self.cell))
        j0 = max(0, int((o.y - reach) // self.cell))
        j1 = min(self.ny - 1, int((o.y + reach) // self.cell))
        for i in range(i0, i1 + 1):
            cx = (i + 0.5) * self.cell
            for j in range(j0, j1 + 1):
                cy = (j + 0.5) * self.cell
                c = i * self.ny + j
                if math.hypot(cx - o.x, cy - o.y) < reach and abs(self.z_l[c] - oz) <= self.free + EPS:
                    out.add(c)
        if len(self._fp) > 4096:
            self._fp.clear()
        self._fp[key] = out
        return out


class NavCache:
    """Nav grids per base radius for one Mover (built lazily, kept until the map changes)."""

    def __init__(self, mover: "Mover", cell: float | None = None):
        self.mover = mover
        self.cell = cell or DEFAULT_CELL
        self.grids: dict[float, NavGrid] = {}
        self._base: _Base | None = None
        self._base_reach = 0.0
        self._piece_memo: dict | None = None   # (cost, checks) of bends, during one find()
        self._excl_field = None                 # the BaseField _excl was built for
        self._excl: dict[tuple, object] = {}

    def prepare(self, radii: Iterable[float]) -> None:
        for r in sorted(set(round(float(r), 6) for r in radii), reverse=True):
            self.grid(r)

    def grid(self, r: float) -> NavGrid:
        key = round(float(r), 6)
        g = self.grids.get(key)
        if g is None:
            reach = key + self.cell
            if self._base is None or reach > self._base_reach + EPS:
                big = max([reach] + [k + self.cell for k in self.grids])
                self._base = _Base(self.mover, self.cell, max(big, 1.0 + self.cell))
                self._base_reach = self._base.reach
            g = self.grids[key] = NavGrid(self.mover, key, self.cell, self._base)
        return g

    # --- endpoints ------------------------------------------------------------------------
    def _near_cells(self, g: NavGrid, x: float, y: float, z: float, blocked: set[int]) -> list[tuple[int, float]]:
        c0 = g.cell_of(x, y)
        ci, cj = divmod(c0, g.ny)
        out = []
        for k in (1, 2):  # the next ring only if the first has no cell to use
            for di in range(-k, k + 1):
                for dj in range(-k, k + 1):
                    ni, nj = ci + di, cj + dj
                    if 0 <= ni < g.nx and 0 <= nj < g.ny:
                        c = ni * g.ny + nj
                        if g.fit_l[c] and c not in blocked and abs(g.z_l[c] - z) <= g.free + EPS:
                            out.append((c, math.hypot(g.X[c] - x, g.Y[c] - y)))
            if out:
                break
        return out

    # --- cheapest path ----------------------------------------------------------------------
    def find(self, state: GameState, unit: Unit, goal: tuple[float, float], allow: "Allowance", descend: str) -> "Trace":
        self._piece_memo = {}
        try:
            return self._find(state, unit, goal, allow, descend)
        finally:
            self._piece_memo = None

    def _find(self, state: GameState, unit: Unit, goal: tuple[float, float], allow: "Allowance", descend: str) -> "Trace":
        mover = self.mover
        g = self.grid(unit.r)
        board = mover.board
        blockers = mover.blockers(state, unit)
        blocked = g.blocked(state, unit, blockers)
        field = mover.base_field(state)
        start = (unit.x, unit.y)
        zs = board.height_at(*start)
        zg = board.height_at(*goal)
        starts = self._near_cells(g, start[0], start[1], zs, set())
        goals = {c for c, _ in self._near_cells(g, goal[0], goal[1], zg, blocked)}
        may_climb = not (unit.status == "dazed" and not mover.rs.dazed_may_climb)
        problem = mover.end_problem(state, unit, goal[0], goal[1])
        if problem is not None:
            raise problem
        # A straight line first: often legal and always the shortest.
        first_error: IllegalAction | None = None
        try:
            tr = mover.check_path(state, unit, [start, goal], descend, field=field, blockers=blockers)
            if tr.n_checks == 0 and tr.cost <= allow.total(tr.difficult) + 1e-9:
                return tr
            straight = tr
        except IllegalAction as exc:
            first_error = exc
            straight = None
        best = None
        # Can the goal be reached within the allowance at all (any checks, any ground)?
        pre = g.search(starts, blocked, checks=True, difficult=True, descend=descend, may_climb=may_climb,
                       limit=allow.inches, goal=goal, goals=goals) if goals and starts else None
        feasible = pre is not None and pre[3] is not None
        for checks in ((False, True) if feasible else ()):
            for difficult in (True, False):
                limit = allow.inches if difficult is False else allow.total(True)
                if difficult and limit <= 0:
                    continue
                # The feasibility search already is this one when its path needs no check.
                reuse = pre if (difficult and pre[1][pre[3]] == (0 if not checks else pre[1][pre[3]])
                                and pre[0][pre[3]] <= limit + EPS) else None
                if reuse is None and limit <= allow.inches and _out_of_reach(g, pre, goal, goals, limit):
                    tr = None  # that search would find nothing (see _out_of_reach)
                else:
                    tr = self._search_path(g, state, unit, start, goal, starts, goals, blocked, field, blockers, checks=checks,
                                           difficult=difficult, descend=descend, may_climb=may_climb, limit=limit, pre=reuse)
                if tr is not None and tr.cost <= allow.total(tr.difficult) + 1e-9:
                    if best is None or _key(tr) < _key(best):
                        best = tr
                if tr is not None and difficult and not tr.difficult:
                    break  # the search that avoids difficult ground cannot do better
            if best is not None:
                break
        if straight is not None and straight.cost <= allow.total(straight.difficult) + 1e-9:
            if best is None or _key(straight) <= _key(best):
                best = straight
        if best is not None:
            return best
        # Nothing within the allowance: report the cheapest path there is, or why none.
        far = max(2 * allow.inches, 1.5 * math.hypot(goal[0] - start[0], goal[1] - start[1]) + 2)
        tr = self._search_path(g, state, unit, start, goal, starts, goals, blocked, field, blockers, checks=True,
                               difficult=True, descend=descend, may_climb=may_climb, limit=far)
        if tr is not None:
            return tr  # _finish refuses it with the cost and allowance
        if straight is not None:
            return straight
        if first_error is not None and not goals:
            raise first_error
        raise IllegalAction("M5", f"no legal path for {unit.id} from [{start[0]:.2f}, {start[1]:.2f}] to [{goal[0]:.2f}, {goal[1]:.2f}]"
                                  + (f" ({first_error.rule}: {first_error.reason} on the straight line)" if first_error else ""))

    def _search_path(self, g: NavGrid, state, unit, start, goal, starts, goals, blocked, field, blockers, *, checks, difficult,
                     descend, may_climb, limit, pre=None):
        if not goals or not starts:
            return None
        if pre is None and (not checks or not may_climb) and not g.free_connected(starts, goals):
            return None  # no path without checks joins them (the search would find none)
        banned: set[tuple[int, int]] = set()
        for attempt in range(3):
            res = pre if (pre is not None and attempt == 0) else \
                g.search(starts, blocked, checks=checks, difficult=difficult, descend=descend, may_climb=may_climb,
                         limit=limit, goal=goal, goals=goals, banned=banned)
            dist, nchk, parent, found, _touched = res
            if found is None:
                return None
            cells = []
            c = found
            while c != -1:
                cells.append(c)
                c = parent[c]
            cells.reverse()
            tr = self._refine(g, state, unit, start, goal, cells, dist, nchk, field, blockers, difficult=difficult,
                              descend=descend)
            if tr is not None:
                return tr
            # A gap jump or wall climb the grid took may not fit this base (M5 beside the
            # crossing): leave out the ones the exact rules refuse and search again.
            bad = set()
            for a, b in zip(cells, cells[1:]):
                if g.is_special(a, b):
                    try:
                        self.mover.check_path(state, unit, [g.centre(a), g.centre(b)], descend, field=field,
                                              blockers=blockers, final=False)
                    except IllegalAction:
                        bad.add((a, b))
            if not bad:
                return None
            banned |= bad
        return None

    def _refine(self, g: NavGrid, state, unit, start, goal, cells, dist, nchk, field, blockers, *, difficult, descend):
        """Make a grid path exact (see the module notes); None when no version of it is legal."""
        raw = [start] + [g.centre(c) for c in cells] + [goal]
        # Grid estimates of cost and checks up to each raw point (for pulling straight).
        est = [0.0, dist[cells[0]]] + [dist[c] for c in cells[1:]] + [dist[cells[-1]] + math.hypot(goal[0] - g.X[cells[-1]], goal[1] - g.Y[cells[-1]])]
        kk = [0, 0] + [nchk[c] for c in cells[1:]] + [nchk[cells[-1]]]
        # Walking in the low band (every height within free_height of the table, M4): the
        # ground obstacles are a conservative stand-in for the exact rules there.
        low = g.free + EPS
        ground = all(g.z_l[c] <= low for c in cells) and self.mover.board.height_at(*start) <= low \
            and self.mover.board.height_at(*goal) <= low
        los = self._ground_los(g, unit, blockers, field, avoid_difficult=not difficult) if ground else None
        if los is not None:
            pts = [raw[0]]
            i, n = 0, len(raw) - 1
            while i < n:
                j = i + 1
                while j + 1 <= n and los(raw[i], raw[j + 1]):
                    j += 1
                pts.append(raw[j])
                i = j
            pts = _dedup(pts)
        else:
            pts = _dedup(self._pull(g, state, unit, raw, est, kk, descend, field, blockers))
        mover = self.mover
        for cand in (pts, raw):
            try:
                tr = mover.check_path(state, unit, _dedup(cand), descend, field=field, blockers=blockers)
            except IllegalAction:
                continue
            if len(tr.points) < 3:
                return tr
            if not tr.transitions and all(st.z <= g.free + EPS for st in tr.stretches):
                # Walking in the low band: the visibility graph has the last word.
                better = self._visibility(g, state, unit, tr, descend, field, blockers, avoid_difficult=not difficult)
                return better if better is not None else tr
            # Not a plain walk on the ground: pull the bends tight with the exact rules.
            tight = self._round_corners(state, unit, self._tighten(state, unit, tr.points, descend, field, blockers),
                                        descend, field, blockers)
            try:
                new = mover.check_path(state, unit, tight, descend, field=field, blockers=blockers)
            except IllegalAction:
                return tr
            return new if _key(new) <= _key(tr) and (not new.difficult or tr.difficult) else tr
        return None

    def _ground_los(self, g: NavGrid, unit, blockers, field, avoid_difficult: bool = False):
        """A fast conservative line-of-sight test for walking on the ground (z = 0): the
        segment keeps clear of the obstacles grown by a little more than the radius and of
        blocking bases. True means the exact check also passes (difficult ground aside)."""
        inner = g.fine_inner()
        discs = []
        for uid in blockers:
            ox, oy, orr, oz = field.units[uid]
            if abs(oz) <= g.free + EPS:
                discs.append((ox, oy, unit.r + orr))

        mud = g.difficult_area() if avoid_difficult else None
        reach = unit.r

        def los(a, b) -> bool:
            line = shapely.linestrings([a, b])
            if shapely.intersects(inner, line):
                return False
            if mud is not None and shapely.dwithin(mud, line, reach):
                return False
            dx, dy = b[0] - a[0], b[1] - a[1]
            ll = dx * dx + dy * dy
            for cx, cy, rr in discs:
                t = 0.0 if ll == 0 else max(0.0, min(1.0, ((cx - a[0]) * dx + (cy - a[1]) * dy) / ll))
                if math.hypot(a[0] + t * dx - cx, a[1] + t * dy - cy) < rr - 1e-6:
                    return False
            return True

        return los

    def _visibility(self, g: NavGrid, state, unit, tr, descend, field, blockers, avoid_difficult: bool = False):
        """On the ground, the shortest path bends only at corners of the obstacles grown by
        the base radius: search a visibility graph of those corners near the grid path
        (any angle, so it also fixes a grid path that went round the wrong side of a
        corner), pull it tight, and keep it if the exact check finds it cheaper."""
        if len(tr.points) < 3 or tr.transitions or any(st.z > g.free + EPS for st in tr.stretches):
            return None
        board, mover = self.mover.board, self.mover
        r = unit.r
        corridor = shapely.buffer(shapely.linestrings(tr.points), VIS_CORRIDOR)
        static_xy, inner = g.coarse_corners()
        discs = []   # enemy (blocking) bases at ground level: centre and reach
        corners = [static_xy]
        ring = np.array([(math.cos(k * math.pi / 8), math.sin(k * math.pi / 8)) for k in range(16)])
        for uid in blockers:
            ox, oy, orr, oz = field.units[uid]
            if abs(oz) <= g.free + EPS:
                discs.append((ox, oy, r + orr))
                corners.append(np.array([ox, oy]) + ring * (r + orr) * _OUTER4 * (1 + 1e-6))
        coords = np.vstack(corners)
        keep = shapely.contains_xy(corridor, coords[:, 0], coords[:, 1])
        keep &= (coords[:, 0] >= r) & (coords[:, 0] <= board.width - r) & (coords[:, 1] >= r) & (coords[:, 1] <= board.height - r)
        cand = np.unique(np.round(coords[keep], 9), axis=0)
        if len(cand) > VIS_MAX_NODES:
            return None
        nodes = np.vstack([np.array([tr.points[0]]), cand, np.array([tr.points[-1]])])
        n = len(nodes)
        ii, jj = np.triu_indices(n, 1)
        A, B = nodes[ii], nodes[jj]
        lines = shapely.linestrings(np.stack([A, B], axis=1))
        ok = ~shapely.intersects(inner, lines)
        if discs:
            C = np.array([d[:2] for d in discs])
            R = np.array([d[2] for d in discs])
            D = B - A
            L2 = np.maximum((D * D).sum(axis=1), 1e-18)
            # parameter of the closest point of each segment to each centre
            t = np.clip(((C[None, :, 0] - A[:, None, 0]) * D[:, None, 0] + (C[None, :, 1] - A[:, None, 1]) * D[:, None, 1]) / L2[:, None], 0, 1)
            px = A[:, None, 0] + t * D[:, None, 0] - C[None, :, 0]
            py = A[:, None, 1] + t * D[:, None, 1] - C[None, :, 1]
            ok &= ~(np.hypot(px, py) < R[None, :] - 1e-6).any(axis=1)
        length = np.hypot(nodes[jj, 0] - nodes[ii, 0], nodes[jj, 1] - nodes[ii, 1])
        adj: dict[int, list[tuple[int, float]]] = {}
        for a, b, w in zip(ii[ok].tolist(), jj[ok].tolist(), length[ok].tolist()):
            adj.setdefault(a, []).append((b, w))
            adj.setdefault(b, []).append((a, w))
        dist = {0: 0.0}
        prev = {0: -1}
        heap = [(0.0, 0)]
        done = set()
        while heap:
            d, c = heapq.heappop(heap)
            if c in done:
                continue
            done.add(c)
            if c == n - 1:
                break
            for e, w in adj.get(c, ()):
                nd = d + w
                if nd < dist.get(e, math.inf) - 1e-12:
                    dist[e] = nd
                    prev[e] = c
                    heapq.heappush(heap, (nd, e))
        if n - 1 not in done or dist[n - 1] >= tr.cost - 1e-9:
            return None
        path = []
        c = n - 1
        while c != -1:
            path.append((float(nodes[c, 0]), float(nodes[c, 1])))
            c = prev[c]
        path.reverse()
        path[0] = tr.points[0]
        path[-1] = tr.points[-1]
        path = _dedup(path)
        try:
            new = mover.check_path(state, unit, path, descend, field=field, blockers=blockers)
        except IllegalAction:
            return None
        if new.n_checks <= tr.n_checks and new.cost < tr.cost - 1e-9 and (not new.difficult or tr.difficult):
            return new
        return None

    def _tighten(self, state, unit, pts, descend, field, blockers, passes: int = 4, steps: int = 6):
        """Slide every bend towards the straight line between its neighbours as far as the
        path stays legal, no dearer and with no more checks (pulls the path tight round
        corners the grid only approximates). Fixed iteration counts: deterministic."""
        if len(pts) < 3:
            return pts
        mover = self.mover
        pts = list(pts)
        # Same query, same answer: a bend left in place is not traced again on the next pass
        # (nor by the second tightening of _round_corners in the same query).
        memo = self._piece_memo if self._piece_memo is not None else {}

        def piece(a, v, b):
            """(cost, checks) of a -> v -> b, or None when illegal."""
            key = (unit.id, descend, a, v, b)
            if key in memo:
                return memo[key]
            try:
                tr = mover.check_path(state, unit, [a, v, b], descend, field=field, blockers=blockers, final=False)
            except IllegalAction:
                memo[key] = None
                return None
            memo[key] = out = (tr.cost, tr.n_checks)
            return out

        for _ in range(passes):
            moved = False
            for i in range(1, len(pts) - 1):
                a, v, b = pts[i - 1], pts[i], pts[i + 1]
                here = piece(a, v, b)
                if here is None:
                    continue
                # Closest point to v on the chord a-b.
                dx, dy = b[0] - a[0], b[1] - a[1]
                ll = dx * dx + dy * dy
                t = 0.0 if ll == 0 else max(0.0, min(1.0, ((v[0] - a[0]) * dx + (v[1] - a[1]) * dy) / ll))
                target = (a[0] + t * dx, a[1] + t * dy)
                lo, hi = 0.0, 1.0
                best = None
                for _k in range(steps):
                    f = hi if best is None and _k == 0 else (lo + hi) / 2
                    nv = (v[0] + f * (target[0] - v[0]), v[1] + f * (target[1] - v[1]))
                    tr = piece(a, nv, b)
                    if tr is not None and tr[1] <= here[1] and tr[0] < here[0] - 1e-9:
                        best, lo = nv, f
                        if f == 1.0:
                            break
                    else:
                        hi = f
                if best is not None and math.hypot(best[0] - v[0], best[1] - v[1]) > 1e-6:
                    pts[i] = best
                    moved = True
            if not moved:
                break
        return _dedup(pts)

    def _round_corners(self, state, unit, pts, descend, field, blockers):
        """Split each bend in two and tighten again: a path round a base-sized corner is
        an arc, which two bends follow more closely than one. Kept only if cheaper."""
        if len(pts) < 3:
            return pts
        mover = self.mover
        out = [pts[0]]
        for i in range(1, len(pts) - 1):
            a, v, b = out[-1], pts[i], pts[i + 1]
            la = math.hypot(a[0] - v[0], a[1] - v[1])
            lb = math.hypot(b[0] - v[0], b[1] - v[1])
            d = min(unit.r, 0.4 * la, 0.4 * lb)
            if d <= 1e-3:
                out.append(v)
                continue
            v1 = (v[0] + d * (a[0] - v[0]) / la, v[1] + d * (a[1] - v[1]) / la)
            v2 = (v[0] + d * (b[0] - v[0]) / lb, v[1] + d * (b[1] - v[1]) / lb)
            # Shift both out so the new edge passes through v (v was legal: so is the edge).
            ox, oy = v[0] - (v1[0] + v2[0]) / 2, v[1] - (v1[1] + v2[1]) / 2
            out += [(v1[0] + ox, v1[1] + oy), (v2[0] + ox, v2[1] + oy)]
        out.append(pts[-1])
        try:
            old = mover.check_path(state, unit, pts, descend, field=field, blockers=blockers, final=False)
            split = self._tighten(state, unit, out, descend, field, blockers, passes=2, steps=4)
            new = mover.check_path(state, unit, split, descend, field=field, blockers=blockers, final=False)
        except IllegalAction:
            return pts
        if new.n_checks <= old.n_checks and new.cost < old.cost - 1e-9:
            return split
        return pts

    def _pull(self, g, state, unit, raw, est, kk, descend, field, blockers):
        """String pulling: skip waypoints while the straight segment is legal, no dearer and
        needs no more checks than the grid path it replaces."""
        mover = self.mover
        out = [raw[0]]
        i = 0
        n = len(raw) - 1
        while i < n:
            j = i + 1
            while j + 1 <= n:
                try:
                    tr = mover.check_path(state, unit, [raw[i], raw[j + 1]], descend, field=field, blockers=blockers, final=False)
                except IllegalAction:
                    break
                if tr.n_checks > kk[j + 1] - kk[i] or tr.cost > est[j + 1] - est[i] + 1e-6:
                    break
                j += 1
            out.append(raw[j])
            i = j
        return out

    # --- reachable area ----------------------------------------------------------------------
    def _exclusion(self, field, unit: Unit):
        """Where this unit's centre may not end (overlapping another base at any level):
        the union of discs, kept while the bases stay where they are (same BaseField)."""
        if self._excl_field is not field:
            self._excl_field = field
            self._excl = {}
        key = (unit.id, unit.r)
        if key in self._excl:
            return self._excl[key]
        others = [(ox, oy, (unit.r + orr) * _OUTER) for uid, (ox, oy, orr, _oz) in field.units.items() if uid != unit.id]
        if others:
            oth = np.array(others, dtype=float)
            # the same discs as Point(x, y).buffer(d, quad_segs=8), built in one call
            discs = shapely.buffer(shapely.points(oth[:, :2]), oth[:, 2], quad_segs=8)
            exclusion = shapely.union_all(discs)
        else:
            exclusion = None
        if len(self._excl) > 256:
            self._excl.clear()
        self._excl[key] = exclusion
        return exclusion

    def reach(self, state: GameState, unit: Unit, walk: "Allowance", run: "Allowance | None", denied, descend: str) -> "Reach":
        from game.engine.movement.types import Reach

        mover = self.mover
        g = self.grid(unit.r)
        blockers = mover.blockers(state, unit)
        blocked = g.blocked(state, unit, blockers)
        zs = mover.board.height_at(unit.x, unit.y)
        starts = self._near_cells(g, unit.x, unit.y, zs, set())
        may_climb = not (unit.status == "dazed" and not mover.rs.dazed_may_climb)
        top = run.inches if run is not None else walk.inches
        results = {}
        any_skipped = False  # did the no-check search leave out an edge needing a check?
        for checks in (False, True):
            if checks and not any_skipped:
                # No edge needing a check was in reach: the same answer.
                results[(True, True)], results[(True, False)] = results[(False, True)], results[(False, False)]
                break
            dist, _, _, _, touched = g.search(starts, blocked, checks=checks, difficult=True, descend=descend,
                                              may_climb=may_climb, limit=top)
            any_skipped = g.skipped_checks
            results[(checks, True)] = dist
            if touched:
                dist, _, _, _, _ = g.search(starts, blocked, checks=checks, difficult=False, descend=descend,
                                            may_climb=may_climb, limit=top)
                any_skipped = any_skipped or g.skipped_checks
            results[(checks, False)] = dist
        # Cells no other base stands on (a move never ends overlapping a base).
        field = mover.base_field(state)
        occupied = set()
        for uid in field.units:
            if uid == unit.id:
                continue
            occupied |= g.blocked(state, unit, [uid])

        def cells(allow: "Allowance", checks: bool) -> set[int]:
            out = set()
            a0, a1 = allow.inches, allow.total(True)
            for c, d in results[(checks, False)].items():
                if d <= a0 + EPS:
                    out.add(c)
            for c, d in results[(checks, True)].items():
                if d <= a1 + EPS:
                    out.add(c)
            return {c for c in out if g.standable[c] and c not in occupied}

        # Exact exclusion of other bases at the unit's possible levels (a move never ends on one).
        exclusion = self._exclusion(field, unit)

        def region(cs: set[int]):
            if not cs:
                return shapely.Polygon()
            idx = np.fromiter(cs, dtype=np.int64)
            h = g.cell / 2
            boxes = shapely.box(g.X[idx] - h, g.Y[idx] - h, g.X[idx] + h, g.Y[idx] + h)
            ground = g.z[idx] <= EPS
            low = shapely.coverage_union_all(boxes[ground])
            if not low.is_empty:
                low = shapely.difference(low, g.ground_obstacles())
            high = shapely.coverage_union_all(boxes[~ground])
            out = low if high.is_empty else (high if low.is_empty else shapely.union(low, high))
            if exclusion is not None and shapely.intersects(out, exclusion):
                out = shapely.difference(out, exclusion)
            return out

        wf, wa = cells(walk, False), cells(walk, True)
        walk_free, walk_check = region(wf), region(wa - wf)
        if run is not None:
            rf, ra = cells(run, False), cells(run, True)
            run_free, run_check = region(rf), region(ra - rf)
        else:
            run_free = run_check = shapely.Polygon()
        return Reach(unit.id, walk_free, walk_check, run_free, run_check, walk.inches,
                     run.inches if run is not None else None, denied)


def _out_of_reach(g: NavGrid, pre, goal, goals, limit: float) -> bool:
    """Would a search towards ``goal`` with at most ``limit`` inches, on the graph of the
    feasibility search ``pre`` (same starts, blocked cells, climbing) or a part of it (no
    checks, no difficult ground: fewer edges, same costs), certainly find no goal cell?

    ``pre`` is A* with a consistent heuristic (h = straight distance from a cell centre to
    the goal point: every edge costs at least the distance between its cell centres), and
    it stopped at the first goal cell c* it popped, with key f* = g(c*) + h(c*). Any path
    to a goal cell c' that fits a limit no greater than pre's costs at least f* - h(c')
    (every open node's key was >= f*). So when that exceeds ``limit`` for every goal cell
    (with a margin far above rounding), no such path exists: skip the search."""
    dist, _nchk, _parent, found, _touched = pre
    if found is None:
        return False
    gx, gy = goal
    X, Y = g.X_l, g.Y_l
    f_star = dist[found] + math.hypot(X[found] - gx, Y[found] - gy)
    bound = min(f_star - math.hypot(X[c] - gx, Y[c] - gy) for c in goals)
    return bound > limit + EPS + 1e-6


def _dedup(pts):
    out = [pts[0]]
    for p in pts[1:]:
        if math.hypot(p[0] - out[-1][0], p[1] - out[-1][1]) > EPS:
            out.append(p)
    return out


def _key(tr) -> tuple:
    """Order of preference: needs no check, then cheapest, then fewest checks."""
    return (tr.n_checks > 0, round(tr.cost, 6), tr.n_checks)

