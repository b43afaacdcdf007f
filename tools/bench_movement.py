"""Movement benchmarks (issue 3) on maps/stress.yaml (48" x 48", 60 pieces, 40 units).

Rows: preparing the nav structures, checking an exact 10-waypoint path, the cheapest
path to a destination (median and 95th percentile; also for destinations that need a
detour, and for ones whose path jumps a gap or climbs over a wall), the reachable area
(both layers).
If maps/stress.yaml is missing, a synthetic map of the same size is used.

Every query is timed REPEATS times and its fastest time kept (the usual guard against
a busy machine; the caches a drag preview warms up are warm then too).
"""

from __future__ import annotations

import json
import math
import pathlib
import random
import statistics
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # tools/bench.py may put another tree's game first
    sys.path.insert(0, str(ROOT))

from game.bundled import bundled_map  # noqa: E402
from game.engine.errors import IllegalAction  # noqa: E402
from game.engine.geometry import Board  # noqa: E402
from game.engine.movement import Mover, nav  # noqa: E402
from game.engine.movement.transitions import GAP, WALL  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402


def _synthetic():
    rng = random.Random(48)
    terrain = []
    for i in range(60):
        x, y = rng.uniform(2, 42), rng.uniform(2, 42)
        w, h = rng.uniform(1.5, 5), rng.uniform(1.5, 5)
        kind = rng.choice(["block", "block", "block", "wall", "difficult", "impassable"])
        if kind == "wall":
            w, h = (w, 0.25) if rng.random() < 0.5 else (0.25, h)
        t = {"id": f"t{i}", "kind": kind, "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]}
        if kind in ("block", "wall"):
            t["height"] = rng.choice([0.5, 1, 2, 3, 4])
        terrain.append(t)
    board = Board(48, 48, [])
    units = {"red": [], "blue": []}
    placed = []
    from game.engine.model import Terrain

    tb = Board(
        48, 48, [Terrain(t["id"], t["kind"], [tuple(p) for p in t["polygon"]], t.get("height", 0)) for t in terrain]
    )
    while sum(len(v) for v in units.values()) < 40:
        x, y = rng.uniform(1, 47), rng.uniform(1, 47)
        if tb.pieces_touching_disc(x, y, 0.6, ("block", "wall", "impassable")) or tb.piece_at(x, y):
            continue
        if any(math.hypot(x - px, y - py) < 1.5 for px, py in placed):
            continue
        placed.append((x, y))
        side = "red" if len(units["red"]) < 20 else "blue"
        units[side].append(
            {
                "id": f"{side}-{len(units[side])}",
                "name": "u",
                "at": [x, y],
                "base_mm": rng.choice([25, 25, 32, 40]),
                "stats": {"move": 6, "agility": 12, "morale": 10, "defence": 10},
            }
        )
    del board
    doc = {
        "name": "synthetic stress",
        "table": {"width": 48, "height": 48},
        "terrain": terrain,
        "warbands": [
            {"id": "red", "player": 1, "units": units["red"]},
            {"id": "blue", "player": 2, "units": units["blue"]},
        ],
    }
    return load_scenario("synthetic-stress.yaml", text=json.dumps(doc))


def issue_map(seed: int = 13, size: float = 48.0, count: int = 45, gap: float = 1.3):
    """Issue 13's setting: a size x size table with `count` rectangles at least `gap` apart
    (one per cell of a jittered 7 x 7 grid, some cells left empty). Returns (rects, size)."""
    rng = random.Random(seed)
    n = 7
    cell = size / n
    cells = [(i, j) for i in range(n) for j in range(n)]
    rng.shuffle(cells)
    rects = []
    for i, j in sorted(cells[:count]):
        w, h = rng.uniform(1.5, cell - gap), rng.uniform(1.5, cell - gap)
        x0 = i * cell + gap / 2 + rng.uniform(0, cell - gap - w)
        y0 = j * cell + gap / 2 + rng.uniform(0, cell - gap - h)
        rects.append((round(x0, 3), round(y0, 3), round(x0 + w, 3), round(y0 + h, 3)))
    return rects, (size, size)


def _hop_cases(mover, state, units, rng, want: int = 30):
    """(unit, start, destination, run) whose cheapest path jumps a gap or climbs a wall."""
    out = []
    board = mover.board
    takeoff = {}
    for k in range(400):
        if len(out) >= want:
            break
        u = units[k % len(units)]
        lay = mover.nav.layer(u.r)
        tr = lay.trans
        if lay.r not in takeoff:
            takeoff[lay.r] = [e for e in range(len(tr.e_from)) if tr.e_kind[e] in (GAP, WALL)]
        if not takeoff[lay.r]:
            continue
        # a random jump or wall climb: start before its take-off, aim beyond its landing
        e = rng.choice(takeoff[lay.r])
        a, b = int(tr.e_from[e]), int(tr.e_to[e])
        ax, ay, bx, by = float(tr.X[a]), float(tr.Y[a]), float(tr.X[b]), float(tr.Y[b])
        dx, dy = bx - ax, by - ay
        ll = math.hypot(dx, dy)
        back = rng.uniform(0.5, 2.5)
        start = (ax - dx / ll * back, ay - dy / ll * back)
        to = (bx + dx / ll * back, by + dy / ll * back)
        if board.height_at(*start) != board.height_at(ax, ay) or board.height_at(*to) != board.height_at(bx, by):
            continue
        old = (u.x, u.y)
        u.x, u.y = start
        try:
            if mover.end_problem(state, u, *start) is not None:
                continue
            run = mover.run_denial(state, u.id) is None
            plan = mover.plan(state, u.id, to=to, run=run)
        except IllegalAction:
            continue
        finally:
            u.x, u.y = old
        kinds = [t.kind for t in plan.checks]
        walls = [
            t for t in plan.checks if t.piece in board.by_id and board.terrain[board.by_id[t.piece]].kind == "wall"
        ]
        if "jump_gap" in kinds or walls:
            out.append((u.id, start, to, run))
    return out


REPEATS = 3


def _timed(fn, mover=None) -> float:
    """Best of REPEATS runs of ``fn``, each a cold query: the mover's memo of recent
    answers is emptied first (the navigation structures of the map stay, as in a game)."""
    best = math.inf
    for _ in range(REPEATS):
        if mover is not None:
            mover.nav.forget()
        t0 = time.perf_counter()
        try:
            fn()
        except IllegalAction:
            pass
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best


def _row(name, ms, limit):
    return {"name": name, "value": round(ms, 3), "unit": "ms", "target": f"<= {limit:g} ms", "ok": ms <= limit}


def _p(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(math.ceil(q * len(s))) - 1)]


def run() -> list[dict]:
    stress = pathlib.Path(bundled_map("stress.yaml"))
    sc = load_scenario(str(stress)) if stress.exists() else _synthetic()
    label = "stress.yaml" if stress.exists() else "synthetic 48x48"
    board = Board(sc.width, sc.height, sc.terrain)
    rows = []
    prep = []
    for _ in range(REPEATS):
        nav._MAPS.clear()  # a map no game has prepared yet (games on one map share them)
        t0 = time.perf_counter()
        mover = Mover(sc, board)
        mover.nav.prepare([u.r for u in sc.state.units.values()])
        prep.append((time.perf_counter() - t0) * 1e3)
    rows.append(_row(f"prepare nav structures, {label} (best of {REPEATS})", min(prep), 200))
    state = sc.state
    units = [u for u in state.units.values() if u.active]
    rng = random.Random(7)
    rows += _exact_path_rows(mover, sc, state, units, rng)
    rows += _destination_rows(mover, sc, state, units, rng)
    rows += _detour_rows(mover, sc, state, units, rng)
    rows += _hop_rows(mover, sc, state, units, rng)
    rows += _reach_rows(mover, sc, state, units, rng)
    rows += _engage_rows(mover, state, units, rng)
    rows += flat_rows()
    return rows


def _exact_path_rows(mover, sc, state, units, rng) -> list[dict]:
    """Checking an exact path of 10 waypoints (a random walk of ~0.8" steps)."""
    rows = []
    # Exact paths of 10 waypoints (a random walk of ~0.8" steps).
    times = []
    for k in range(300):
        u = units[k % len(units)]
        x, y = u.x, u.y
        path = []
        for _ in range(10):
            a = rng.uniform(0, 2 * math.pi)
            x = min(sc.width - 1, max(1, x + 0.8 * math.cos(a)))
            y = min(sc.height - 1, max(1, y + 0.8 * math.sin(a)))
            path.append((x, y))
        times.append(_timed(lambda: mover.plan(state, u.id, path=path, run=True), mover))
    rows.append(_row("check an exact 10-waypoint path (median)", statistics.median(times), 2))
    return rows


def _destination_rows(mover, sc, state, units, rng) -> list[dict]:
    """The cheapest path to a destination within about a Run."""
    rows = []
    # Cheapest path to a destination within about a Run.
    times = []
    for k in range(200):
        u = units[k % len(units)]
        a = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(2, 9)
        to = (min(sc.width - 1, max(1, u.x + d * math.cos(a))), min(sc.height - 1, max(1, u.y + d * math.sin(a))))
        times.append(_timed(lambda: mover.plan(state, u.id, to=to), mover))
    rows.append(_row("cheapest path to a destination (median)", statistics.median(times), 10))
    rows.append(_row("cheapest path to a destination (95th percentile)", _p(times, 0.95), 16))
    return rows


def _detour_rows(mover, sc, state, units, rng) -> list[dict]:
    """The hard case: legal destinations that need a detour (the found path bends)."""
    rows = []
    # The hard case: legal destinations that need a detour (the found path bends).
    bent = []
    for k in range(3000):
        if len(bent) >= 40:
            break
        u = units[k % len(units)]
        a = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(3, 9)
        to = (min(sc.width - 1, max(1, u.x + d * math.cos(a))), min(sc.height - 1, max(1, u.y + d * math.sin(a))))
        try:
            plan = mover.plan(state, u.id, to=to, run=True)
        except IllegalAction:
            continue
        if len(plan.points) > 2:
            bent.append((u.id, to))
    if bent:
        times = [_timed(lambda: mover.plan(state, uid, to=to, run=True), mover) for uid, to in bent]
        rows.append(_row(f"cheapest path needing a detour, {len(bent)} cases (median)", statistics.median(times), 10))
        rows.append(_row("cheapest path needing a detour (95th percentile)", _p(times, 0.95), 16))
    return rows


def _hop_rows(mover, sc, state, units, rng) -> list[dict]:
    """Paths that jump a gap (M8) or climb over a wall (M6)."""
    rows = []
    # Paths that jump a gap (M8) or climb over a wall (M6): a unit is put on a roof (or
    # beside a wall) and sent to a roof (or the far side) that such an edge reaches.
    hops = _hop_cases(mover, state, units, rng)
    if hops:
        times = []
        for uid, start, to, run in hops:
            u = state.units[uid]
            old = (u.x, u.y)
            u.x, u.y = start
            times.append(_timed(lambda: mover.plan(state, uid, to=to, run=run), mover))
            u.x, u.y = old
        rows.append(
            _row(
                f"cheapest path with a gap jump or wall climb, {len(hops)} cases (median)", statistics.median(times), 10
            )
        )
        rows.append(_row("cheapest path with a gap jump or wall climb (95th percentile)", _p(times, 0.95), 16))
    return rows


def _reach_rows(mover, sc, state, units, rng) -> list[dict]:
    """The reachable area of every unit."""
    rows = []
    times = []
    for u in units:
        times.append(_timed(lambda: mover.reachable(state, u.id), mover))
    rows.append(_row("reachable area, both layers (median)", statistics.median(times), 30))
    rows.append(_row("reachable area, both layers (worst unit)", max(times), 30))
    return rows


def _engage_rows(mover, state, units, rng) -> list[dict]:
    """E1: an engage with its path search. An enemy is put 2" to 8" from the engager (where
    a base may stand) and the cheapest way into contact is looked for (accepted or not)."""
    cases = []
    for k in range(4000):
        if len(cases) >= 60:
            break
        u = units[k % len(units)]
        e = next(o for o in units if o.warband != u.warband)
        a, d = rng.uniform(0, 2 * math.pi), rng.uniform(2, 8) + u.r + e.r
        spot = (u.x + d * math.cos(a), u.y + d * math.sin(a))
        old = (e.x, e.y)
        e.x, e.y = spot
        try:
            if mover.end_problem(state, e, *spot) is None:
                cases.append((u.id, e.id, spot))
        finally:
            e.x, e.y = old
    times, found = [], 0
    for uid, eid, spot in cases:
        e = state.units[eid]
        old = (e.x, e.y)
        e.x, e.y = spot
        try:
            times.append(_timed(lambda: mover.plan_engage(state, uid, eid), mover))
            try:
                mover.plan_engage(state, uid, eid)
                found += 1
            except IllegalAction:
                pass
        finally:
            e.x, e.y = old
    if not times:
        return []
    return [
        _row(
            f"engage with its path search, {len(times)} cases, {found} accepted (median)", statistics.median(times), 10
        ),
        _row("engage with its path search (95th percentile)", _p(times, 0.95), 16),
    ]


def flat_rows(queries: int = 40) -> list[dict]:
    """Issue 13's comparison: long queries across a 48" table of 45 rectangles at least 1.3"
    apart, a 25 mm base; the same queries with extremitypathfinder on the rectangles grown
    by the radius (polygons with 4 segments a quarter circle, containing the true shapes)."""
    import json

    try:
        from extremitypathfinder import PolygonEnvironment
    except ImportError:  # pragma: no cover - a dev dependency
        return [
            {
                "name": "long flat queries vs extremitypathfinder",
                "value": float("nan"),
                "unit": "ratio",
                "target": "< 1",
                "ok": False,
            }
        ]
    import shapely

    rects, (w, h) = issue_map()
    terrain = [
        {"id": f"r{k}", "kind": "impassable", "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}
        for k, (x0, y0, x1, y1) in enumerate(rects)
    ]
    rng = random.Random(41)
    r = 25 / 25.4 / 2
    starts = []
    while len(starts) < 2 * queries:
        p = (rng.uniform(1, w - 1), rng.uniform(1, h - 1))
        if all(shapely.distance(shapely.box(*b), shapely.Point(p)) > r + 0.05 for b in rects):
            starts.append(p)
    pairs = [(a, b) for a, b in zip(starts[::2], starts[1::2]) if math.dist(a, b) >= 24]
    while len(pairs) < queries:  # long queries only: more random pairs until there are enough
        a = (rng.uniform(1, w - 1), rng.uniform(1, h - 1))
        b = (rng.uniform(1, w - 1), rng.uniform(1, h - 1))
        if math.dist(a, b) >= 24 and all(
            shapely.distance(shapely.box(*q), shapely.Point(p)) > r + 0.05 for q in rects for p in (a, b)
        ):
            pairs.append((a, b))
    doc = {
        "name": "issue 13",
        "table": {"width": w, "height": h},
        "terrain": terrain,
        "warbands": [
            {
                "id": "red",
                "player": 1,
                "units": [
                    {
                        "id": "a",
                        "name": "a",
                        "at": list(pairs[0][0]),
                        "base_mm": 25,
                        "stats": {"move": 500, "agility": 10, "morale": 10, "defence": 10},
                    }
                ],
            },
            {"id": "blue", "player": 2, "units": []},
        ],
    }
    sc = load_scenario("issue13.yaml", text=json.dumps(doc))
    t0 = time.perf_counter()
    mover = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    mover.nav.prepare([u.r for u in sc.state.units.values()])
    ours_prep = (time.perf_counter() - t0) * 1e3
    u = sc.state.units["a"]
    # extremitypathfinder on the same free space (grown by the radius, polygons containing the circles)
    grown = shapely.union_all([shapely.buffer(shapely.box(*b), r / math.cos(math.pi / 16), quad_segs=4) for b in rects])
    free = shapely.orient_polygons(shapely.difference(shapely.box(r, r, w - r, h - r), grown))
    free = max(shapely.get_parts(free), key=lambda p: p.area)
    t0 = time.perf_counter()
    env = PolygonEnvironment()
    env.store(list(free.exterior.coords)[:-1], [list(i.coords)[:-1] for i in free.interiors], validate=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.prepare()
    their_prep = (time.perf_counter() - t0) * 1e3
    ours, theirs, shorter = [], [], 0
    for a, b in pairs[:queries]:
        u.x, u.y = a
        try:
            cost = mover.plan(sc.state, "a", to=b).cost
        except IllegalAction:
            continue
        ours.append(_timed(lambda: mover.plan(sc.state, "a", to=b), mover))
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _path, length = env.find_shortest_path(a, b)
        theirs.append((time.perf_counter() - t0) * 1e3)
        shorter += cost <= length + 1e-9
    mo, mt = statistics.median(ours), statistics.median(theirs)
    return [
        {
            "name": f'long flat query, 48" table, 45 obstacles, {len(ours)} queries (median)',
            "value": round(mo, 3),
            "unit": "ms",
            "target": "-",
            "ok": True,
        },
        {
            "name": "extremitypathfinder, the same queries (median)",
            "value": round(mt, 3),
            "unit": "ms",
            "target": "-",
            "ok": True,
        },
        {
            "name": f"long flat queries: ours / extremitypathfinder (ours no longer in {shorter} of {len(ours)})",
            "value": round(mo / mt, 3),
            "unit": "ratio",
            "target": "< 1",
            "ok": mo / mt < 1,
        },
        {
            "name": "long flat map: preparing ours / extremitypathfinder's",
            "value": round(ours_prep / their_prep, 4),
            "unit": "ratio",
            "target": "-",
            "ok": True,
        },
    ]


if __name__ == "__main__":
    for r in run():
        print(f"{r['name']}: {r['value']:.3g} {r['unit']} ({r['target']}) {'ok' if r['ok'] else 'MISSED'}")
