"""Benchmarks of the ``planner`` bot (issue 21), rows of ``make bench``.

- one planner player-turn at the default budget on maps/default.yaml (planner against
  utility, the planner's turns of the first ``TURNS`` game turns, both seats): median
  <= 1.5 s on the 2-core machine; the same at ``planner:250ms`` and ``planner:2s``, whose
  median must stay within 25% of the budget (what ``tools/calibrate_planner.py``
  measured a decision to cost on a quiet machine);
- planner against utility on maps/default.yaml and maps/mirror.yaml, both seats: the share
  of the decided games the planner wins (>= 75%, with its 95% Wilson interval) and the
  draws (<= 20%);
- refused bot actions over every game played here: 0.

A rate's row is judged by its interval (``bot_eval.judged``): met when the interval lies
on the target's side, missed when it lies wholly on the other, and "too few to tell" when
it holds the target, which a handful of games usually does.

The win rates play ``SPEEDHEIM_PLANNER_GAMES`` games per map (default 4: a planner game
takes about 20 s here, and ``make bench`` must stay short on a shared machine);
``tools/bot_eval.py --a planner --b utility --games 200`` gives the full figures
(docs/bots.md keeps what was measured, with the sample sizes).

``python tools/bench_planner.py`` prints the rows; ``run()`` returns them.
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

from game.bots import make_bot, play_turn, with_neutrals  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.sim.stats import wilson  # noqa: E402

GAMES = int(os.environ.get("SPEEDHEIM_PLANNER_GAMES", "4"))
TURNS = 4


def bench_turns(
    turns: int = TURNS, seeds: tuple[int, ...] = (1, 2), bot: str = "planner", look: bool = True
) -> tuple[list[float], int]:
    """Seconds per planner player-turn (the sum of its decisions in that turn) and refusals.
    ``look=False``: without the opening look (game/bots/planner/opening.py), whose first
    turn plays some thousand decisions more: the search's turns alone."""
    sc = bot_scenario(load_scenario(os.path.join(ROOT, "maps", "default.yaml")))
    out, refused = [], 0
    for seed in seeds:
        seat = 1 + seed % 2
        g = Game(sc, dice=Dice(seed=seed))
        me = make_bot(bot)
        if not look:
            me.opening = False
        bots = with_neutrals({seat: me, 3 - seat: make_bot("utility")})
        while not g.is_over() and g.state.turn <= turns:
            steps = play_turn(g, bots)
            mine = [s for s in steps if s.player == seat]
            refused += sum(1 for s in steps if s.refused)
            if mine:
                out.append(sum(s.seconds for s in mine))
    return out, refused


def run() -> list[dict]:
    rows = []
    secs, refused = bench_turns()
    med = statistics.median(secs)
    rows.append(
        {
            "name": f"planner player-turn at the default budget, median (default.yaml, {len(secs)} turns)",
            "value": round(med, 2),
            "unit": "s",
            "target": "<= 1.5",
            "ok": med <= 1.5,
        }
    )
    for spec, cap in (("planner:250ms", 0.25), ("planner:2s", 2.0)):
        more, r = bench_turns(bot=spec)
        refused += r
        med = statistics.median(more)
        # The budget is what a turn's planning takes on a quiet machine, at the measured cost
        # of a decision; the wall clock of a loaded one stretches it (2026-11-25, planner:2s:
        # 2.05 s median over 16 turns of calibrate_planner at load 1.8, 2.31 s here at 2.8).
        limit = 1.25 * cap
        rows.append(
            {
                "name": f"{spec} player-turn, median (default.yaml, {len(more)} turns)",
                "value": round(med, 2),
                "unit": "s",
                "target": f"<= {limit:.2f}",
                "ok": med <= limit,
            }
        )
    for name in ("default", "mirror"):
        t = evaluate(os.path.join(ROOT, "maps", f"{name}.yaml"), "planner", "utility", GAMES)
        decided = t.games - t.draws
        lo, hi = wilson(t.a_wins, decided)
        share = t.a_wins / decided if decided else 0.0
        rows.append(
            {
                "name": f"planner beats utility, {name}.yaml, both seats ({GAMES} games, {t.draws} drawn; "
                f"95% CI {lo:.0%}-{hi:.0%} of the decided)",
                "value": round(100 * share, 1),
                "unit": "% won",
                "target": ">= 75",
                "ok": judged(t.a_wins, decided, 0.75),
            }
        )
        dlo, dhi = wilson(t.draws, t.games)
        rows.append(
            {
                "name": f"planner vs utility draws, {name}.yaml ({GAMES} games; 95% CI {dlo:.0%}-{dhi:.0%})",
                "value": round(100 * t.draws / t.games, 1),
                "unit": "%",
                "target": "<= 20",
                "ok": judged(t.draws, t.games, 0.2, at_most=True),
            }
        )
        refused += t.refused
    rows.append(
        {
            "name": "refused planner-game actions (every game above)",
            "value": refused,
            "unit": "actions",
            "target": "0",
            "ok": refused == 0,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<100} {row['value']:>8} {row['unit']:<8} target {row['target']:<8} {met(row['ok'])}")
