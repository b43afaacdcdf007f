"""Benchmarks of the bots (issue 11), rows of ``make bench``.

- a utility-bot decision on maps/stress.yaml (utility against utility, several turns):
  median <= 150 ms and 95th percentile <= 500 ms, measured per decision;
- utility against random on maps/default.yaml, both seats: wins >= 90%;
- utility against itself on maps/mirror.yaml: the first seat's win rate with its 95%
  Wilson interval (it should contain 50%);
- refused bot actions over every game played here: 0.

The win rates play ``SPEEDHEIM_BOT_GAMES`` games each (default 20, to keep ``make bench``
short on a shared machine); ``tools/bot_eval.py --games 200`` gives the full figures
(docs/bots.md keeps them). The rate against random is judged by its interval
(``bot_eval.judged``): "too few to tell" when 20 games cannot say.

``python tools/bench_bots.py`` prints the rows; ``run()`` returns them.
"""

from __future__ import annotations

import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.bench import met  # noqa: E402
from tools.bot_eval import evaluate, judged  # noqa: E402

from game.bots import UtilityBot, play_turn, with_neutrals  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402

GAMES = int(os.environ.get("SPEEDHEIM_BOT_GAMES", "20"))
STRESS_TURNS = 6


def bench_decisions(turns: int = STRESS_TURNS) -> tuple[list[float], int]:
    """Seconds per decision of utility bots playing ``turns`` game turns on the stress map."""
    sc = bot_scenario(load_scenario(os.path.join(ROOT, "maps", "stress.yaml")))
    g = Game(sc, dice=Dice(seed=1))
    bots = with_neutrals({1: UtilityBot(), 2: UtilityBot("cautious")})
    seconds, refused = [], 0
    while not g.is_over() and g.state.turn <= turns:
        for s in play_turn(g, bots):
            seconds.append(s.seconds)
            refused += s.refused is not None
    return seconds, refused


def run() -> list[dict]:
    rows = []
    secs, refused = bench_decisions()
    xs = sorted(1000 * s for s in secs)
    med, p95 = statistics.median(xs), xs[int(0.95 * (len(xs) - 1))]
    rows.append(
        {
            "name": f"utility decision, median (stress.yaml, {len(xs)} decisions)",
            "value": round(med, 1),
            "unit": "ms",
            "target": "<= 150",
            "ok": med <= 150,
        }
    )
    rows.append(
        {
            "name": "utility decision, 95th percentile (stress.yaml)",
            "value": round(p95, 1),
            "unit": "ms",
            "target": "<= 500",
            "ok": p95 <= 500,
        }
    )
    vs = evaluate(os.path.join(ROOT, "maps", "default.yaml"), "utility", "random", GAMES)
    s = vs.summary("utility", "random")
    lo, hi = s["a_win_ci"]
    rows.append(
        {
            "name": f"utility beats random (default.yaml, both seats, {GAMES} games; 95% CI {lo:.0%}-{hi:.0%})",
            "value": round(100 * s["a_win_rate"], 1),
            "unit": "% won",
            "target": ">= 90",
            "ok": judged(vs.a_wins, vs.games, 0.9),
        }
    )
    refused += vs.refused
    me = evaluate(os.path.join(ROOT, "maps", "mirror.yaml"), "utility", "utility", GAMES)
    m = me.summary("utility", "utility")
    flo, fhi = m["first_seat_ci"]
    rows.append(
        {
            "name": f"utility vs utility, first seat wins of games won (mirror.yaml, {GAMES} games, "
            f"{m['draws']} draws; 95% CI {flo:.0%}-{fhi:.0%})",
            "value": round(100 * m["first_seat_win_rate"], 1),
            "unit": "%",
            "target": "CI holds 50",
            "ok": flo <= 0.5 <= fhi,
        }
    )
    refused += me.refused
    rows.append(
        {
            "name": "refused bot actions (every game above)",
            "value": refused,
            "unit": "actions",
            "target": "0",
            "ok": refused == 0,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<90} {row['value']:>8} {row['unit']:<8} target {row['target']:<12} {met(row['ok'])}")
