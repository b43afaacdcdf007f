"""``speedheim advise`` and the window's hint (issue 21), rows of ``make bench``.

The time of :func:`game.bots.advise.advise` (top 3, a copy of the game with a movement
engine of its own, as the hint's worker asks it) at every decision of the first
``TURNS`` turns of a utility-against-utility bot game on maps/default.yaml: median and
worst, for the utility bot and the random bot. The hint is worked out off the frame, so
the target is only that a hint comes within a second.

``python tools/bench_advise.py`` prints the rows; ``run()`` returns them.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import UtilityBot, with_neutrals  # noqa: E402
from game.bots.advise import advise  # noqa: E402
from game.bots.driver import bot_scenario, step  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.movement import Mover  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402

TURNS = 3
TARGET_MS = 1000.0


def times(turns: int = TURNS, seed: int = 3) -> dict[str, list[float]]:
    g = Game(bot_scenario(load_scenario(os.path.join(ROOT, "maps", "default.yaml"))), dice=Dice(seed=seed))
    mover = Mover(g.scenario, g.board)  # the worker's own, built once (as the hint's)
    bots = with_neutrals({1: UtilityBot(), 2: UtilityBot()})
    out: dict[str, list[float]] = {"utility": [], "random": []}
    while not g.is_over() and g.state.turn <= turns:
        for name in out:
            t0 = time.perf_counter()
            advise(g, name, 3, mover=mover)
            out[name].append((time.perf_counter() - t0) * 1e3)
        step(g, bots)
    return out


def run() -> list[dict]:
    rows = []
    for name, ms in times().items():
        med, worst = statistics.median(ms), max(ms)
        rows.append(
            {
                "name": f"advise --bot {name} --top 3, median ({len(ms)} decisions, default.yaml, {TURNS} turns)",
                "value": round(med, 1),
                "unit": "ms",
                "target": f"<= {TARGET_MS:g}",
                "ok": med <= TARGET_MS,
            }
        )
        rows.append(
            {
                "name": f"advise --bot {name} --top 3, worst",
                "value": round(worst, 1),
                "unit": "ms",
                "target": f"<= {TARGET_MS:g}",
                "ok": worst <= TARGET_MS,
            }
        )
    return rows


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<80} {row['value']:>8} {row['unit']:<4} "
            f"target {row['target']:<8} {'ok' if row['ok'] else 'NO'}"
        )
