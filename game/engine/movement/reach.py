"""The reachable area (walk and run, with and without checks) from the exact distances.

The search (:mod:`.search`) labels, within the largest allowance, the start, every node a
transition lands on and every arrival on a circle with the cheapest (inches, checks) to
get there. Every point of the area is reached by a straight line from one of them: from
a point in any direction, from an arc along the tangent where the path leaves it. So the
area is the union of *stars* (from points) and *fans* (from arcs), each ray going as far
as the inches left allow or as the first obstacle it meets (:class:`Caster`: exact hits
on the obstacles grown by the base radius, on bases, the table's edge and the band's
edge). Rays are cast at every direction where what they meet changes (the tangents to
every circle near) and evenly between, so the edge of the area is right to a few
thousandths of an inch; then it is cut to where a move may end (M5, M6).
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from game.engine.movement.geom import TAU, bitangents
from game.engine.movement.space import BandSpace
from game.engine.tolerance import EPS

#: Polygons standing in for round shapes when cutting the area are scaled by this so that
#: they contain the true circles (GEOS puts a buffer's corners on the circle, 8 a quarter).
_OUTER = 1.0 / math.cos(math.pi / 32)
#: Largest gap (inches) between the true edge of the area and the chords of its polygon.
SAGITTA = 0.008


class Caster:
    """Exact first hits of rays on what a base may not cross on one band, near a point."""

    def __init__(self, bs: BandSpace, discs, centre: tuple[float, float], radius: float):
        P, Q, C, R = bs.ray_prims()
        cx, cy = centre
        far = radius + 2 * bs.r + 1.0
        near_s = (np.minimum(P[:, 0], Q[:, 0]) <= cx + far) & (np.maximum(P[:, 0], Q[:, 0]) >= cx - far) & \
                 (np.minimum(P[:, 1], Q[:, 1]) <= cy + far) & (np.maximum(P[:, 1], Q[:, 1]) >= cy - far)
        near_c = np.hypot(C[:, 0] - cx, C[:, 1] - cy) <= far + R
        self.P, self.Q = P[near_s], Q[near_s]
        self.C, self.R = C[near_c], R[near_c]
        if discs:
            D = np.array(discs, dtype=float)
            self.C = np.vstack([self.C, D[:, :2]])
            self.R = np.concatenate([self.R, D[:, 2]])
        self._grazes: dict = {}

    def cast(self, O: np.ndarray, U: np.ndarray, reach: float | None = None) -> np.ndarray:
        """Distance along each ray (origin O, unit direction U) to its first hit (inf: none;
        with ``reach``, hits beyond it may be missed: rays of a star or fan are cut there)."""
        n = len(O)
        best = np.full(n, np.inf)
        P, Q, C, R = self.P, self.Q, self.C, self.R
        if reach is not None and n:
            # only what lies within reach of the origins' box
            x0, y0 = O.min(axis=0) - reach
            x1, y1 = O.max(axis=0) + reach
            ks = (np.maximum(P[:, 0], Q[:, 0]) >= x0) & (np.minimum(P[:, 0], Q[:, 0]) <= x1) & \
                 (np.maximum(P[:, 1], Q[:, 1]) >= y0) & (np.minimum(P[:, 1], Q[:, 1]) <= y1)
            kc = (C[:, 0] + R >= x0) & (C[:, 0] - R <= x1) & (C[:, 1] + R >= y0) & (C[:, 1] - R <= y1)
            P, Q, C, R = P[ks], Q[ks], C[kc], R[kc]
        for lo in range(0, n, 512):
            o, u = O[lo:lo + 512], U[lo:lo + 512]
            t = np.full(len(o), np.inf)
            if len(P):
                e = Q - P
                den = u[:, None, 0] * e[None, :, 1] - u[:, None, 1] * e[None, :, 0]
                wx = P[None, :, 0] - o[:, None, 0]
                wy = P[None, :, 1] - o[:, None, 1]
                with np.errstate(divide="ignore", invalid="ignore"):
                    tt = (wx * e[None, :, 1] - wy * e[None, :, 0]) / den
                    ss = (wx * u[:, None, 1] - wy * u[:, None, 0]) / den
                ok = (np.abs(den) > 1e-12) & (tt > 1e-7) & (ss >= -1e-12) & (ss <= 1 + 1e-12)
                t = np.minimum(t, np.where(ok, tt, np.inf).min(axis=1))
            if len(C):
                fx = o[:, None, 0] - C[None, :, 0]
                fy = o[:, None, 1] - C[None, :, 1]
                b = fx * u[:, None, 0] + fy * u[:, None, 1]
                c = fx * fx + fy * fy - R[None, :] ** 2
                disc = b * b - c
                with np.errstate(invalid="ignore"):
                    tt = -b - np.sqrt(disc)
                ok = (disc > 0) & (c > 1e-9) & (tt > 1e-7)
                t = np.minimum(t, np.where(ok, tt, np.inf).min(axis=1))
            best[lo:lo + 512] = t
        return best

    def grazes(self, c: tuple[float, float], rho: float, s: int) -> np.ndarray:
        """Angles on circle (c, rho) where a tangent leaving it with orientation s grazes
        another circle: the edges of the shadows a fan from it casts (cached)."""
        key = (c, rho, s)
        out = self._grazes.get(key)
        if out is None:
            m = len(self.C)
            if not m:
                out = np.zeros(0)
            else:
                C1 = np.tile(np.array([c]), (2 * m, 1))
                ok, _T1, _T2, a1, _a2 = bitangents(C1, np.full(2 * m, rho), np.full(2 * m, float(s)), np.vstack([self.C, self.C]),
                                                   np.concatenate([self.R, self.R]), np.repeat([1.0, -1.0], m))
                out = a1[ok]
            self._grazes[key] = out
        return out

    def silhouettes(self, x: float, y: float, top: float) -> np.ndarray:
        """Directions from (x, y) that graze a circle or end at a segment's end (within top)."""
        out = []
        if len(self.C):
            f = np.hypot(self.C[:, 0] - x, self.C[:, 1] - y)
            ok = (f > self.R + 1e-9) & (f <= top + self.R)
            phi = np.arctan2(self.C[ok, 1] - y, self.C[ok, 0] - x)
            half = np.arcsin(np.clip(self.R[ok] / f[ok], -1, 1))
            out += [phi - half, phi + half]
        if len(self.P):
            out += [np.arctan2(self.P[:, 1] - y, self.P[:, 0] - x), np.arctan2(self.Q[:, 1] - y, self.Q[:, 0] - x)]
        if not out:
            return np.zeros(0)
        a = np.concatenate(out)
        return np.concatenate([a - 1e-6, a + 1e-6])


class Rays:
    """Rays from one root, cast once: the polygon for any budget up to ``top``."""

    def __init__(self, T: np.ndarray, U: np.ndarray, hit: np.ndarray, paid: np.ndarray, arc: bool):
        self.T, self.U, self.hit, self.paid, self.arc = T, U, hit, paid, arc

    def polygon(self, budget: float):
        left = budget - self.paid
        use = left > EPS
        if use.sum() < 2:
            return None
        T, U = self.T[use], self.U[use]
        t = np.minimum(self.hit[use], left[use])
        ends = T + U * t[:, None]
        ring = np.vstack([T, ends[::-1]]) if self.arc else ends
        if len(ring) < 3:
            return None
        poly = shapely.polygons(ring)
        return poly if shapely.is_valid(poly) else shapely.make_valid(poly)


def star(caster: Caster, x: float, y: float, top: float) -> Rays | None:
    """Straight lines from (x, y): as far as ``top`` inches or the first obstacle."""
    if top <= EPS:
        return None
    step = 2 * math.sqrt(2 * SAGITTA / top)
    n = max(24, int(math.ceil(TAU / step)))
    a = np.unique(np.concatenate([np.linspace(0.0, TAU, n, endpoint=False), caster.silhouettes(x, y, top) % TAU]))
    U = np.stack([np.cos(a), np.sin(a)], axis=1)
    O = np.tile(np.array([[x, y]]), (len(a), 1))
    return Rays(O, U, caster.cast(O, U, top), np.zeros(len(a)), False)


def fan(caster: Caster, c: tuple[float, float], rho: float, a_in: float, s: int, sweep: float, top: float) -> Rays | None:
    """Tangents leaving the arc of circle (c, rho) from angle a_in (orientation s, at most
    ``sweep`` radians on), the arc's inches paid out of ``top``."""
    if top <= EPS:
        return None
    if rho > 0:
        sweep = min(sweep, top / rho)
    if sweep <= 1e-9:
        return None
    n = max(2, int(math.ceil(sweep / math.sqrt(8 * SAGITTA / top))) + 1)
    th = np.linspace(0.0, sweep, n)
    graze = caster.grazes(c, rho, s)
    if len(graze):
        d = (s * (graze - a_in)) % TAU
        d = d[d <= sweep]
        th = np.unique(np.concatenate([th, d - 1e-6, d + 1e-6]))
        th = th[(th >= 0) & (th <= sweep)]
    ang = a_in + s * th
    T = np.stack([c[0] + rho * np.cos(ang), c[1] + rho * np.sin(ang)], axis=1)
    U = s * np.stack([-np.sin(ang), np.cos(ang)], axis=1)
    return Rays(T, U, caster.cast(T, U, top), rho * th, True)


def _roots(q):
    """Point roots (band, x, y, inches) and arc roots (band, centre, rho, a_in, s, sweep,
    inches) of a search run with ``record``: the arrivals on a circle that no earlier
    arrival on the same free arc makes redundant."""
    points = [(q.nband[k[1]], q.nx[k[1]], q.ny[k[1]], g) for k, (g, _c) in q.best.items() if k[0] == "L"]
    groups: dict = {}
    for b, circ, s, iv, qq, a, g in q.arrivals:
        groups.setdefault((b, circ, s, iv), []).append((qq, g, a))
    arcs = []
    for (b, circ, s, iv), arr in groups.items():
        B = q.bands[b]
        rho = float(B.rho[circ])
        if iv >= 0:
            w = float(B.bs.iv_w[iv])
        else:
            w = B.blk_iv[circ - B.n_static][-2 - iv][1]
        end = (w if s > 0 else 0.0) if w < TAU - 1e-9 else math.inf
        arr.sort()
        kept = []
        for qq, g, a in arr:
            if any(g >= g0 + rho * (qq - q0) - 1e-9 for q0, g0, _a in kept):
                continue
            kept.append((qq, g, a))
            sweep = min(end - qq, TAU) if end != math.inf else TAU
            sweep = min(sweep, B.arc_limit(circ, a, s))
            arcs.append((b, (float(B.cx[circ]), float(B.cy[circ])), rho, a, s, sweep, g))
    return points, arcs


def _areas(ctx, space, roots, budgets: list[float], cache: dict, out: list[dict], skip=None) -> None:
    """Add to ``out[k]`` (band -> polygons), for each budget k, the stars and fans of
    ``roots`` (but those also in ``skip``). The rays are cast once for the largest budget."""
    points, arcs = roots
    if skip is not None:
        points = [p for p in points if p not in skip[0]]
        arcs = [a for a in arcs if a not in skip[1]]
    top = max(budgets)
    unit = ctx.unit
    for b in {p[0] for p in points} | {a[0] for a in arcs}:
        key = (id(space), b)
        caster = cache.get(key)
        if caster is None:
            discs = [d[:3] for d in ctx.discs if d[3] == b]
            caster = cache[key] = Caster(space.bands[b], discs, (unit.x, unit.y), top)
        rays = [(star(caster, x, y, top - g), g) for bb, x, y, g in points if bb == b]
        rays += [(fan(caster, c, rho, a, s, sw, top - g), g) for bb, c, rho, a, s, sw, g in arcs if bb == b]
        for k, budget in enumerate(budgets):
            polys = [r.polygon(budget - g) for r, g in rays if r is not None]
            out[k].setdefault(b, []).extend(p for p in polys if p is not None and not p.is_empty)


def _region(nav, ctx, space, parts: dict, cache: dict):
    """The union of the polygons per band, cut to where the base may end there (M5, M6)."""
    out = []
    for b, polys in parts.items():
        if not polys:
            continue
        cut = cache.get(("cut", b))
        if cut is None:
            excl = _exclusion(nav, ctx, b)
            no_end = space.bands[b].no_end()
            cut = cache[("cut", b)] = no_end if excl is None else shapely.union(no_end, excl)
        area = shapely.union_all(polys)
        # cut with only the part of the cut near the area (far cheaper than the whole)
        out.append(shapely.difference(area, shapely.clip_by_rect(cut, *area.bounds)))
    return shapely.union_all(out) if out else shapely.Polygon()


def _exclusion(nav, ctx, band: int):
    """Where the unit's centre may not end because another base stands there (M5)."""
    unit, field = ctx.unit, ctx.field
    discs = [(ox, oy, (unit.r + orr) * _OUTER) for uid, (ox, oy, orr, _oz) in field.units.items()
             if uid != unit.id and nav.band_at(ox, oy) == band]
    if not discs:
        return None
    d = np.array(discs)
    return shapely.union_all(shapely.buffer(shapely.points(d[:, 0], d[:, 1]), d[:, 2], quad_segs=8))


def _touches(board, roots, top: float, r: float) -> bool:
    """Could a path from these roots within ``top`` inches come near difficult ground?"""
    mud = [board.polygons[i] for i, t in enumerate(board.terrain) if t.kind == "difficult"]
    if not mud:
        return False
    mud = shapely.union_all(mud)
    points, arcs = roots
    X = [p[1] for p in points] + [a[1][0] for a in arcs]
    Y = [p[2] for p in points] + [a[1][1] for a in arcs]
    left = [top - p[3] for p in points] + [top - a[6] + a[2] for a in arcs]
    if not X:
        return False
    d = shapely.distance(mud, shapely.points(np.array(X), np.array(Y)))
    return bool(np.any(d < np.array(left) + r + EPS))


def reach(nav, state, unit, walk, run, denied, descend):
    from game.engine.movement.search import Ctx
    from game.engine.movement.types import Reach

    ctx = Ctx(nav, state, unit, descend)
    top = run.inches if run is not None else walk.inches
    pen = walk.difficult_penalty
    board = nav.mover.board
    # difficult ground within reach: also the area that keeps off it (full allowance)
    here = shapely.points(unit.x, unit.y)
    muddy = any(t.kind == "difficult" and shapely.dwithin(board.polygons[i], here, top + unit.r)
                for i, t in enumerate(board.terrain))
    lay = nav.layer(unit.r)
    allowances = [walk.inches] + ([run.inches] if run is not None else [])
    free: list[dict] = [{} for _ in allowances]
    check: list[dict] = [{} for _ in allowances]
    cache: dict = {}
    for avoid in ((False, True) if muddy else (False,)):
        q = nav._search(ctx, None, top, False, avoid)
        if q is None:
            continue
        q.record = True
        q.run()
        roots = _roots(q)
        more = None
        if q.skipped:
            # a transition needing a check was within reach: what checks add (roots the first
            # run had, with the same inches, add nothing to it)
            q.rerun(True)
            more = _roots(q)
        if not avoid and muddy and not _touches(board, roots, top, unit.r) and (more is None or not _touches(board, more, top, unit.r)):
            muddy = False   # no path within the allowance comes near difficult ground
        space = lay.avoid() if avoid else lay.space
        budgets = [a - pen if (muddy and not avoid) else a for a in allowances]
        _areas(ctx, space, roots, budgets, cache, free)
        if more is not None:
            _areas(ctx, space, more, budgets, cache, check, skip=(set(roots[0]), set(roots[1])))
        if not muddy:
            break
    space = lay.space
    free = [_region(nav, ctx, space, f, cache) for f in free]
    check = [shapely.difference(_region(nav, ctx, space, c, cache), f) if c else shapely.Polygon() for c, f in zip(check, free)]
    run_free = free[1] if run is not None else shapely.Polygon()
    run_check = check[1] if run is not None else shapely.Polygon()
    return Reach(unit.id, free[0], check[0], run_free, run_check, walk.inches,
                 run.inches if run is not None else None, denied)
