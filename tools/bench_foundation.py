"""Foundation benchmarks (issue 2): loading, measuring, surface height."""

from __future__ import annotations

import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # tools/bench.py may put another tree's game first
    sys.path.insert(0, str(ROOT))

from game.bundled import bundled_map  # noqa: E402
from game.engine.geometry import Board  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def row(name, seconds, unit, target, limit):
    scale = {"ms": 1e3, "us": 1e6}[unit]
    value = seconds * scale
    return {"name": name, "value": value, "unit": unit, "target": f"<= {limit:g} {unit}", "ok": value <= limit}


def run() -> list[dict]:
    default = bundled_map("default.yaml")
    stress = bundled_map("stress.yaml")
    rows = []
    if os.path.exists(default):
        load_scenario(default)
        rows.append(
            row(
                "load + validate default.yaml (median)",
                statistics.median(timed(lambda: load_scenario(default), 15)),
                "ms",
                "",
                150,
            )
        )
    sc = load_scenario(stress)
    board = Board(sc.width, sc.height, sc.terrain)
    units = [u for u in sc.state.units.values() if u.on_table]
    a, b = units[0], units[-1]
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        board.distance(a, b)
    rows.append(row("one unit-to-unit measurement", (time.perf_counter() - t0) / n, "us", "", 20))
    rows.append(
        row(
            f"{len(units)}x{len(units)} all-pairs table, stress.yaml (median)",
            statistics.median(timed(lambda: board.distance_table(units), 50)),
            "ms",
            "",
            5,
        )
    )
    pts = [(x * 0.73 % sc.width, x * 1.37 % sc.height) for x in range(5000)]
    t0 = time.perf_counter()
    for x, y in pts:
        board.height_at(x, y)
    rows.append(row("surface height under a point, stress.yaml", (time.perf_counter() - t0) / len(pts), "us", "", 20))
    return rows


if __name__ == "__main__":
    for r in run():
        print(f"{r['name']}: {r['value']:.3g} {r['unit']} ({r['target']}) {'ok' if r['ok'] else 'MISSED'}")
