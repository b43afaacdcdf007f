"""Benchmarks of the phase controller (issue 4): replay speed and undo/redo.

- replaying 10,000 non-move actions (the replay path: no undo stack) >= 5,000 actions/s
- the same with the undo stack kept (the play window's path), for information
- undo and redo of one action on maps/stress.yaml: median <= 1 ms

``python tools/bench_controller.py`` prints the rows; ``run()`` returns them.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bundled import bundled_map  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402

N_ACTIONS = 10_000


def _scenario():
    return load_scenario(bundled_map("stress.yaml"))


def non_move_actions(sc, n: int = N_ACTIONS) -> list[dict]:
    """A legal cycle of manual-phase actions, rolls, checks and phase ends."""
    by_player = {w.player: [u.id for u in sc.state.units_of(w.id)] for w in sc.warbands}
    out: list[dict] = []
    k = 0
    while len(out) < n:
        for player in sorted(p for p in by_player if p > 0):
            mine = by_player[player]
            theirs = [u for p, us in by_player.items() if p != player for u in us]
            a, b = mine[k % len(mine)], theirs[k % len(theirs)]
            k += 1
            out += [  # engage phase
                {"roll": {"sides": 6, "count": 2, "reason": "bench"}},
                {"set_status": {"unit": b, "status": "dazed"}},
                {"set_status": {"unit": b, "status": "normal"}},
                {"end_phase": {}},
                # move phase
                {"check": {"unit": a, "stat": "agility", "reason": "bench"}},
                {"end_phase": {}},
                # shoot phase
                {"check": {"unit": a, "stat": "agility", "advantage": True}},
                {"roll": {"sides": 20}},
                {"end_phase": {}},
                # melee phase
                {"check": {"unit": b, "stat": "defence"}},
                {"end_phase": {}},
            ]
    return out[:n]


def bench_replay(history: bool) -> float:
    sc = _scenario()
    actions = non_move_actions(sc)
    g = Game(sc, dice=Dice(seed=1), history=history)
    t0 = time.perf_counter()
    for a in actions:
        r = g.try_apply(a)
        if not r.ok:
            raise RuntimeError(f"bench action refused: {a}: {r.rule} {r.reason}")
    return len(actions) / (time.perf_counter() - t0)


def bench_undo_redo(samples: int = 300) -> tuple[float, float]:
    sc = _scenario()
    g = Game(sc, dice=Dice(seed=1))
    actions = non_move_actions(sc, samples)
    undo_t, redo_t = [], []
    for a in actions:
        g.apply(a)
        t0 = time.perf_counter()
        g.undo()
        t1 = time.perf_counter()
        g.redo()
        t2 = time.perf_counter()
        undo_t.append((t1 - t0) * 1000)
        redo_t.append((t2 - t1) * 1000)
    return statistics.median(undo_t), statistics.median(redo_t)


def run() -> list[dict]:
    rows = []
    rate = bench_replay(history=False)
    rows.append(
        {
            "name": "replay 10,000 non-move actions",
            "value": round(rate, 1),
            "unit": "actions/s",
            "target": ">= 5000",
            "ok": rate >= 5000,
        }
    )
    rate_h = bench_replay(history=True)
    rows.append(
        {
            "name": "apply 10,000 non-move actions with undo stack",
            "value": round(rate_h, 1),
            "unit": "actions/s",
            "target": "(info)",
            "ok": True,
        }
    )
    undo_ms, redo_ms = bench_undo_redo()
    rows.append(
        {
            "name": "undo one action (median, stress.yaml)",
            "value": round(undo_ms, 4),
            "unit": "ms",
            "target": "<= 1",
            "ok": undo_ms <= 1,
        }
    )
    rows.append(
        {
            "name": "redo one action (median, stress.yaml)",
            "value": round(redo_ms, 4),
            "unit": "ms",
            "target": "<= 1",
            "ok": redo_ms <= 1,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<50} {row['value']:>12} {row['unit']:<10} "
            f"target {row['target']:<8} {'ok' if row['ok'] else 'SLOW'}"
        )
