"""Line of sight benchmarks (issue 10) on maps/stress.yaml (48" x 48", 60 pieces, 40 units).

Rows: L1/L2 between two units (100 random pairs), from one unit to all 39 others (every
unit in turn), and the unseen ground of one unit for the ``L`` overlay (every unit, and
units moved onto roofs, whose shadows are bounded). Each query is timed REPEATS times
and its fastest time kept (the usual guard against a busy machine); the row is the
median over the queries.
"""

from __future__ import annotations

import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # tools/bench.py may put another tree's game first
    sys.path.insert(0, str(ROOT))

from game.bundled import bundled_map  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.engine.sight import Sight  # noqa: E402

REPEATS = 3


def fastest(fn) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def row(name, seconds, limit_ms):
    value = seconds * 1e3
    return {"name": name, "value": value, "unit": "ms", "target": f"<= {limit_ms:g} ms", "ok": value <= limit_ms}


def run() -> list[dict]:
    sc = load_scenario(bundled_map("stress.yaml"))
    t0 = time.perf_counter()
    sight = Sight(sc)
    prep = time.perf_counter() - t0
    state = sc.state
    ids = [uid for uid, u in state.units.items() if u.on_table]
    rng = random.Random(10)
    pairs = [tuple(rng.sample(ids, 2)) for _ in range(100)]
    sight.visibility_region(state, ids[0])  # builds the overlay's structures once
    rows = [row("prepare Sight for stress.yaml (once per map)", prep, 100)]
    rows.append(
        row(
            "LOS between two units, 81 lines (median)",
            statistics.median(fastest(lambda: sight.between(state, a, b)) for a, b in pairs),
            0.2,
        )
    )
    rows.append(
        row(
            f"LOS one unit to all {len(ids) - 1} others (median)",
            statistics.median(fastest(lambda: sight.from_unit(state, a)) for a in ids),
            3,
        )
    )
    rows.append(
        row(
            "unseen ground of one unit, L overlay (median)",
            statistics.median(fastest(lambda: sight.visibility_region(state, a)) for a in ids),
            16,
        )
    )
    # viewers on roofs: move each unit in turn onto a block top
    roofs = [(t, sight.board.polygons[i]) for i, t in enumerate(sight.board.terrain) if t.kind == "block"]
    high = state.copy()
    times = []
    for k, (t, poly) in enumerate(roofs[:20]):
        p = poly.representative_point()
        u = high.units[ids[k]]
        u.x, u.y = p.x, p.y
        times.append(fastest(lambda: sight.visibility_region(high, u.id)))
    rows.append(row("unseen ground of a unit on a roof (median)", statistics.median(times), 16))
    return rows


if __name__ == "__main__":
    for r in run():
        print(f"{r['name']}: {r['value']:.3g} {r['unit']} ({r['target']}) {'ok' if r['ok'] else 'MISSED'}")
