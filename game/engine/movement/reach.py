"""The reachable area (walk and run, with and without checks) from the exact distances.

The search (:mod:`.search`) labels, within the largest allowance, the start, every node a
transition lands on and every arrival on a circle with the cheapest (inches, checks) to
get there. Every point of the area is reached by a straight line from one of them: from
a point in any direction, from an arc along the tangent where the path leaves it. So the
area is the union of *stars* (from points) and *fans* (from arcs), each ray going as far
as the inches left allow or as the first obstacle it meets (:class:`.rays.Caster`: exact hits
on the obstacles grown by the base radius, on bases, the table's edge and the band's
edge). Rays are cast at every direction where what they meet changes (the tangents to
every circle near) and evenly between, so the edge of the area is right to a few
thousandths of an inch; then it is cut to where a move may end (M5, M6).
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from game.engine.movement.geom import TAU
from game.engine.movement.rays import Bundle, Caster, fans, stars
from game.engine.tolerance import EPS

#: Polygons standing in for round shapes when cutting the area are scaled by this so that
#: they contain the true circles (GEOS puts a buffer's corners on the circle, 8 a quarter).
_OUTER = 1.0 / math.cos(math.pi / 32)


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
            # (an arrival up to a sample past its arc's end, _Band.locate, has none of it left)
            sweep = min(max(0.0, end - qq), TAU) if end != math.inf else TAU
            sweep = min(sweep, B.arc_limit(circ, a, s))
            arcs.append((b, (float(B.cx[circ]), float(B.cy[circ])), rho, a, s, sweep, g))
    return points, arcs


def _areas(
    ctx, space, roots, more, budgets: list[float], cache: dict, free: list[dict], check: list[dict], exact: bool = True
) -> None:
    """Add to ``free[k]`` (band -> polygons), for each budget k, the stars and fans of
    ``roots``, and to ``check[k]`` those of ``more`` (but those also in ``roots``). The
    rays of both are cast once on each band, for the largest budget."""
    points, arcs = roots
    if more is not None:
        seen_p, seen_a = set(points), set(arcs)
        more_p = [p for p in more[0] if p not in seen_p]
        more_a = [a for a in more[1] if a not in seen_a]
    else:
        more_p, more_a = [], []
    top = max(budgets)
    unit = ctx.unit
    for b in {p[0] for p in points} | {a[0] for a in arcs} | {p[0] for p in more_p} | {a[0] for a in more_a}:
        key = (id(space), b)
        caster = cache.get(key)
        if caster is None:
            discs = [d[:3] for d in ctx.discs if d[3] == b]
            caster = cache[key] = Caster(space.bands[b], discs, (unit.x, unit.y), top)
        rays = Bundle(caster)
        for group, (pts, arcs_) in enumerate(((points, arcs), (more_p, more_a))):
            rays.add(stars(caster, [p for p in pts if p[0] == b], top, budgets, edges=exact), group)
            rays.add(fans(caster, [a for a in arcs_ if a[0] == b], top, budgets, edges=exact), group)
        rays.cast(top)
        for k, (f, c) in enumerate(rays.polygons(budgets, 2)):
            if f:
                free[k].setdefault(b, []).extend(f)
            if c:
                check[k].setdefault(b, []).extend(c)


def _region(nav, ctx, space, parts: dict, cache: dict, top: float):
    """The union of the polygons per band, cut to where the base may end there (M5, M6)."""
    out = []
    for b, polys in parts.items():
        if not polys:
            continue
        cut = cache.get(("cut", b))
        if cut is None:
            # only the part within reach (no path goes farther than top)
            unit, far = ctx.unit, top + 2 * ctx.unit.r + 1.0
            no_end = shapely.clip_by_rect(
                space.bands[b].no_end(), unit.x - far, unit.y - far, unit.x + far, unit.y + far
            )
            discs = _exclusion(nav, ctx, b, top)
            cut = cache[("cut", b)] = no_end if not len(discs) else shapely.union_all(np.append(discs, no_end))
        area = shapely.union_all(polys)
        # cut with only the part of the cut near the area (far cheaper than the whole)
        out.append(shapely.difference(area, shapely.clip_by_rect(cut, *area.bounds)))
    if len(out) == 1:
        return out[0]
    return shapely.union_all(out) if out else shapely.Polygon()


def _exclusion(nav, ctx, band: int, top: float):
    """Where the unit's centre may not end because another base stands there (M5), within
    ``top`` inches of where it stands (no path goes farther): a polygon round each such
    base (they may overlap), to be unioned with the rest of the cut in one go."""
    unit, field = ctx.unit, ctx.field
    discs = [
        (ox, oy, (unit.r + orr) * _OUTER)
        for uid, (ox, oy, orr, _oz) in field.units.items()
        if uid != unit.id
        and math.hypot(ox - unit.x, oy - unit.y) <= top + (unit.r + orr) * _OUTER + 1.0
        and nav.band_at(ox, oy) == band
    ]
    if not discs:
        return np.empty(0, dtype=object)
    d = np.array(discs)
    return shapely.buffer(shapely.points(d[:, 0], d[:, 1]), d[:, 2], quad_segs=8)


def _mud(nav):
    """All the difficult ground of the map (prepared), or None (kept with the nav cache)."""
    if "mud" not in nav.reach_cache:
        board = nav.mover.board
        mud = [board.polygons[i] for i, t in enumerate(board.terrain) if t.kind == "difficult"]
        mud = shapely.union_all(mud) if mud else None
        if mud is not None:
            shapely.prepare(mud)
        nav.reach_cache["mud"] = mud
    return nav.reach_cache["mud"]


def _touches(mud, roots, top: float, r: float) -> bool:
    """Could a path from these roots within ``top`` inches come near difficult ground?"""
    points, arcs = roots
    X = [p[1] for p in points] + [a[1][0] for a in arcs]
    Y = [p[2] for p in points] + [a[1][1] for a in arcs]
    left = [top - p[3] for p in points] + [top - a[6] + a[2] for a in arcs]
    if not X:
        return False
    d = shapely.distance(mud, shapely.points(np.array(X), np.array(Y)))
    return bool(np.any(d < np.array(left) + r + EPS))


def reach(nav, state, unit, walk, run, denied, descend, exact: bool = True):
    from game.engine.movement.search import SearchContext
    from game.engine.movement.types import Reach

    ctx = SearchContext(nav, state, unit, descend)
    top = run.inches if run is not None else walk.inches
    pen = walk.difficult_penalty
    # difficult ground within reach: also the area that keeps off it (full allowance)
    mud = _mud(nav)
    muddy = mud is not None and bool(shapely.dwithin(mud, shapely.points(unit.x, unit.y), top + unit.r))
    lay = nav.layer(unit.r)
    allowances = [walk.inches] + ([run.inches] if run is not None else [])
    free: list[dict] = [{} for _ in allowances]
    check: list[dict] = [{} for _ in allowances]
    cache: dict = {}
    for avoid in (False, True) if muddy else (False,):
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
            q.add_checks()
            more = _roots(q)
        if (
            not avoid
            and muddy
            and not _touches(mud, roots, top, unit.r)
            and (more is None or not _touches(mud, more, top, unit.r))
        ):
            muddy = False  # no path within the allowance comes near difficult ground
        space = lay.avoid() if avoid else lay.space
        budgets = [a - pen if (muddy and not avoid) else a for a in allowances]
        _areas(ctx, space, roots, more, budgets, cache, free, check, exact)
        if not muddy:
            break
    space = lay.space
    free = [_region(nav, ctx, space, f, cache, top) for f in free]
    check = [
        shapely.difference(_region(nav, ctx, space, c, cache, top), f) if c else shapely.Polygon()
        for c, f in zip(check, free)
    ]
    run_free = free[1] if run is not None else shapely.Polygon()
    run_check = check[1] if run is not None else shapely.Polygon()
    return Reach(
        unit.id, free[0], check[0], run_free, run_check, walk.inches, run.inches if run is not None else None, denied
    )
