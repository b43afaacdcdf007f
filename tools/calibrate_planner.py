"""Calibrating the planner's budget (issue 21): what one decision played in a rollout
costs, and what a planner player-turn spends outside the rollouts.

    python tools/calibrate_planner.py [--budget 1200ms] [--turns 4] [--seeds 1 2] [--maps default mirror]

Plays planner (at ``--budget``) against utility on each map, the first ``--turns`` game
turns of each seed (the planner in seat 1 + seed % 2), and times, per planner
player-turn: the whole turn (every decision of the planner's seat, as
``bench_planner.bench_turns`` does), the rollouts of its search (``Searcher.score``:
the sandbox copy, the decisions played, the value at the end) and the decisions played
in them. It prints the cost of one rollout decision (rollout time / decisions, over all
turns) and the fixed part of a turn (turn time - rollout time: the utility choices, the
sense, the candidates, the turn's own moves), with medians: the figures behind
``STEP_MS`` and ``OVERHEAD_MS`` in ``game/bots/planner/__init__.py``. Run it when the
machine is quiet (``uptime``): the figures are wall-clock.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import make_bot, play_turn, with_neutrals  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.bots.planner import portfolio  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402


class _Meter:
    """Rollout seconds and decisions (a replayed action counts ``REPLAYED`` of one, as the
    budget does), accumulated by the wrapped ``Searcher.score`` and ``Searcher.screen``
    (a screening counts as a rollout)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu = 0.0
        self.steps = 0
        self.rollouts = 0

    def install(self):
        meter = self
        orig = (portfolio.Searcher.score, portfolio.Searcher.screen)

        def wrap(method):
            def timed(self, *a, **k):
                s0, u0, t0, c0 = self.steps, self.used + self.screens, time.perf_counter(), time.process_time()
                try:
                    return method(self, *a, **k)
                finally:
                    meter.seconds += time.perf_counter() - t0
                    meter.cpu += time.process_time() - c0
                    meter.steps += self.steps - s0
                    meter.rollouts += self.used + self.screens - u0

            return timed

        portfolio.Searcher.score, portfolio.Searcher.screen = wrap(orig[0]), wrap(orig[1])
        return orig


class _Timed:
    """A bot whose decisions are timed (wall and CPU seconds)."""

    def __init__(self, bot) -> None:
        self.bot, self.name = bot, bot.name
        self.seconds = self.cpu = 0.0

    def choose(self, view):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return self.bot.choose(view)
        finally:
            self.seconds += time.perf_counter() - t0
            self.cpu += time.process_time() - c0


def measure(map_name: str, bot: str, turns: int, seeds: list[int]) -> list[dict]:
    """One row per planner player-turn: seconds (whole turn), rollout seconds, decisions."""
    sc = bot_scenario(load_scenario(os.path.join(ROOT, "maps", f"{map_name}.yaml")))
    meter = _Meter()
    orig = meter.install()
    rows = []
    try:
        for seed in seeds:
            seat = 1 + seed % 2
            g = Game(sc, dice=Dice(seed=seed))
            me = _Timed(make_bot(bot))
            bots = with_neutrals({seat: me, 3 - seat: make_bot("utility")})
            while not g.is_over() and g.state.turn <= turns:
                r0, c0, s0, n0 = meter.seconds, meter.cpu, meter.steps, meter.rollouts
                t0, tc0 = me.seconds, me.cpu
                steps = play_turn(g, bots)
                if any(s.player == seat for s in steps):
                    rows.append(
                        {
                            "turn": me.seconds - t0,
                            "turn_cpu": me.cpu - tc0,
                            "rollout": meter.seconds - r0,
                            "rollout_cpu": meter.cpu - c0,
                            "steps": meter.steps - s0,
                            "rollouts": meter.rollouts - n0,
                        }
                    )
    finally:
        portfolio.Searcher.score, portfolio.Searcher.screen = orig
    return rows


def summary(rows: list[dict]) -> dict:
    steps = sum(r["steps"] for r in rows)
    return {
        "turns": len(rows),
        "step_ms": 1000 * sum(r["rollout"] for r in rows) / max(1, steps),
        "step_ms_median": 1000 * statistics.median(r["rollout"] / r["steps"] for r in rows if r["steps"]),
        "step_cpu_ms": 1000 * sum(r["rollout_cpu"] for r in rows) / max(1, steps),
        "overhead_cpu_ms_median": 1000 * statistics.median(r["turn_cpu"] - r["rollout_cpu"] for r in rows),
        "turn_cpu_s_median": statistics.median(r["turn_cpu"] for r in rows),
        "overhead_ms_median": 1000 * statistics.median(r["turn"] - r["rollout"] for r in rows),
        "overhead_ms_max": 1000 * max(r["turn"] - r["rollout"] for r in rows),
        "turn_s_median": statistics.median(r["turn"] for r in rows),
        "turn_s_range": (min(r["turn"] for r in rows), max(r["turn"] for r in rows)),
        "steps_median": statistics.median(r["steps"] for r in rows),
        "rollouts_median": statistics.median(r["rollouts"] for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", default="", help="planner budget (e.g. 1200ms, 2s); default: the planner's default")
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--maps", nargs="+", default=["default", "mirror"])
    a = ap.parse_args(argv)
    bot = f"planner:{a.budget}" if a.budget else "planner"
    for m in a.maps:
        s = summary(measure(m, bot, a.turns, a.seeds))
        lo, hi = s["turn_s_range"]
        print(
            f"{m}.yaml {bot}: {s['turns']} player-turns; rollout decision {s['step_ms']:.2f} ms "
            f"(median a turn {s['step_ms_median']:.2f}); outside rollouts {s['overhead_ms_median']:.0f} ms median "
            f"(max {s['overhead_ms_max']:.0f}); player-turn median {s['turn_s_median']:.2f} s ({lo:.2f}-{hi:.2f}); "
            f"{s['steps_median']:.0f} decisions, {s['rollouts_median']:.0f} rollouts a turn (median)\n"
            f"    CPU time: rollout decision {s['step_cpu_ms']:.2f} ms, "
            f"outside rollouts {s['overhead_cpu_ms_median']:.0f} ms, "
            f"player-turn median {s['turn_cpu_s_median']:.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
