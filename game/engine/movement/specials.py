"""Candidate gap jumps (M8) and climbs over walls (M6) of one map, radius independent.

The candidates are found on a grid of cell centres (``cell`` inches, an engine setting,
not a rule number): rays from every cell at a drop look for a surface within
``jump_gap_max`` (16 directions), rays from cells near a wall top look across it (8
directions). Each candidate is then classified exactly, with the same rules as
:meth:`Tracer.trace`, from the segment's exact height profile (the raised pieces' convex
parts clipped against all segments at once, :class:`~game.engine.footprints.Footprints`).
:mod:`.transitions` keeps, per base radius, those the base fits at.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely

from game.engine.footprints import Footprints
from game.engine.tolerance import EPS

if TYPE_CHECKING:  # pragma: no cover
    from game.engine.movement.tracer import Tracer


#: Directions of the rays that look for gap jumps and wall climbs (grid steps).
_DIRS = (
    (1, 0),
    (0, 1),
    (-1, 0),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
    (2, 1),
    (1, 2),
    (-1, 2),
    (-2, 1),
    (-2, -1),
    (-1, -2),
    (1, -2),
    (2, -1),
)
_TOL = 1e-9


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


def _gap_edges(prof: Footprints, A, B, za, zb, rs, free: float) -> np.ndarray:
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


def _wall_edges(prof: Footprints, A, B, za, zb, rs, free: float):
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
    cell_i = oi[:, None] + t[None, :] * di
    cell_j = oj[:, None] + t[None, :] * dj
    inside = (cell_i >= 0) & (cell_i < nx) & (cell_j >= 0) & (cell_j < ny)
    return np.where(inside, cell_i * ny + cell_j, -1)


class Specials:
    """Candidate gap jumps and wall climbs between cells of one map (radius independent),
    each already classified exactly. :mod:`.transitions` keeps those a base fits at.

    ``gap_a``/``gap_b``: cells of take-off and landing of each gap jump; ``wall_*``: per
    climb over a wall, its cells, horizontal inches, vertical inches up and down, checks up
    and down, whether the way down is a descent (free when jumping), the wall piece, and
    the fractions of the segment where it enters and leaves the wall top."""

    def __init__(self, mover: "Tracer", base: CellGrid):
        board, rs = mover.board, mover.rs
        free = float(rs.free_height)
        is_wall = np.array([t.kind == "wall" and t.height > free + EPS for t in board.terrain] + [False], dtype=bool)
        wall_top = is_wall[base.top]
        prof = Footprints(board, free)
        ga, gb = _gap_jumps(base, rs, free, wall_top, prof)
        self.gap_a, self.gap_b = ga, gb
        self.gap_w = np.hypot(base.X[gb] - base.X[ga], base.Y[gb] - base.Y[ga])
        for name, value in _wall_climbs(base, rs, free, wall_top, prof).items():
            setattr(self, name, value)


def _gap_jumps(base: "CellGrid", rs, free: float, wall_top: np.ndarray, prof: Footprints):
    """Gap jumps (M8) between cells: take-off and landing cells of each, classified
    exactly (a second try one cell back or on where the first fails on an edge)."""
    cell = base.cell
    nx, ny = base.nx, base.ny
    z = base.z
    X, Y = base.X, base.Y
    wt_ext = np.append(wall_top, False)
    z_ext = np.append(z, np.nan)
    z2 = z.reshape(nx, ny)
    lower = np.zeros((nx, ny), dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di == dj == 0:
                continue
            sh = np.full((nx, ny), np.inf)
            sh[max(0, -di) : nx - max(0, di), max(0, -dj) : ny - max(0, dj)] = z2[
                max(0, di) : nx - max(0, -di), max(0, dj) : ny - max(0, -dj)
            ]
            lower |= sh < z2 - free - EPS
    rim = np.nonzero(lower.ravel() & (z > free + EPS) & ~wall_top)[0]
    gmax = float(rs.jump_gap_max)
    tries: list[list[np.ndarray]] = [[], [], [], [], [], []]  # take-off, landing, back, back ok, on, on ok
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
    return ga, gb


def _wall_climbs(base: "CellGrid", rs, free: float, wall_top: np.ndarray, prof: Footprints) -> dict:
    """Climbs over walls (M6) between cells near a wall top and across it, classified
    exactly: :class:`Specials`' ``wall_*`` attributes by name, in ray order."""
    cell = base.cell
    nx, ny = base.nx, base.ny
    z = base.z
    X, Y = base.X, base.Y
    wt_ext = np.append(wall_top, False)
    reach = base.reach + cell
    k = int(math.ceil(reach / cell))
    wt2 = wall_top.reshape(nx, ny)
    near = np.zeros((nx, ny), dtype=bool)
    if wt2.any():
        for di in range(-k, k + 1):
            for dj in range(-k, k + 1):
                if math.hypot(di, dj) * cell > reach + EPS:
                    continue
                near[max(0, di) : nx - max(0, -di), max(0, dj) : ny - max(0, -dj)] |= wt2[
                    max(0, -di) : nx - max(0, di), max(0, -dj) : ny - max(0, dj)
                ]
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
        return dict(
            wall_a=wa[o],
            wall_b=wb[o],
            wall_ray=ray_id[o],
            wall_next=nxt[o],
            wall_w=np.hypot(X[wb[o]] - X[wa[o]], Y[wb[o]] - Y[wa[o]]),
            wall_cu=cu[o],
            wall_nu=nu[o],
            wall_cd=cd[o],
            wall_nd=nd[o],
            wall_dd=dd[o],
            wall_piece=piece[o],
            wall_e=e[o],
            wall_f=f[o],
        )
    return dict(
        wall_a=empty_i,
        wall_b=empty_i,
        wall_ray=empty_i,
        wall_piece=empty_i,
        wall_next=empty_i,
        wall_w=np.zeros(0),
        wall_cu=np.zeros(0),
        wall_cd=np.zeros(0),
        wall_e=np.zeros(0),
        wall_f=np.zeros(0),
        wall_nu=empty_i,
        wall_nd=empty_i,
        wall_dd=np.zeros(0, dtype=bool),
    )


class CellGrid:
    """Cell centres of the table and the surface under each (height, top piece)."""

    def __init__(self, board, cell: float, reach: float):
        self.cell = cell
        self.reach = reach
        nx = max(1, int(math.ceil(board.width / cell)))
        ny = max(1, int(math.ceil(board.height / cell)))
        self.nx, self.ny = nx, ny
        xs = (np.arange(nx) + 0.5) * cell
        ys = (np.arange(ny) + 0.5) * cell
        X, Y = np.meshgrid(xs, ys, indexing="ij")
        self.X, self.Y = X.ravel(), Y.ravel()
        n = nx * ny
        self.z = np.zeros(n)
        self.top = np.full(n, -1, dtype=np.int64)
        terrain = board.terrain
        order = sorted((i for i, t in enumerate(terrain) if t.solid and t.height > 0), key=lambda i: terrain[i].height)
        for i in order:
            inside = shapely.intersects_xy(board.polygons[i], self.X, self.Y)
            self.z[inside] = terrain[i].height
            self.top[inside] = i
