"""What a bigger planner budget buys, decision by decision (issue 47: "more thinking wins
more").

Plays utility-against-utility games on a map (the same positions for every budget) and,
at the first Engage or Move decision of each player-turn, asks the planner at each budget
to search (``PlannerBot.search``). Each budget's chosen plan, and the utility plan, is then
valued on ``--samples`` fresh whole rollouts (the turn and the opponent's reply, the same
dice for every plan: ``Searcher.score`` with a budget that never runs out). It prints, per
decision point, each budget's gain over the utility plan in points (a token is 12) and the
plans it looked at (changed units, plans scored, whole rollouts), then the mean gain of
each budget.

    python tools/budget_choices.py [--map default] [--seeds 1 2] [--turns 5]
                                   [--budgets 250 1200 2000] [--samples 8]

The values are the planner's own (its evaluation after the reply turn): a budget that
gains more here plays what its model prefers, which a game may or may not reward.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import make_bot, play_turn, with_neutrals  # noqa: E402
from game.bots.driver import bot_scenario, step  # noqa: E402
from game.bots.planner import PlannerBot  # noqa: E402
from game.bots.planner.portfolio import Searcher  # noqa: E402
from game.bots.view import view as view_of  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402

#: A budget in decisions that no valuation runs out of.
UNLIMITED = 10**9


@dataclass
class Point:
    """One decision point: where it is, the utility plan's value, and per budget (ms) the
    chosen plan's value and (units changed, plans scored, whole rollouts played)."""

    seed: int
    turn: int
    player: int
    utility: float
    value: dict[int, float]
    looked: dict[int, tuple[int, int, int]]

    def gain(self, budget: int) -> float:
        return self.value[budget] - self.utility


def _to_decision(game: Game, bots: dict) -> None:
    """Play the bots' decisions until the side to act is at its Engage or Move phase."""
    while not game.is_over() and game.state.phase not in ("engage", "move"):
        step(game, bots)


def measure(map_name: str, seeds: list[int], turns: int, budgets: list[int], samples: int) -> list[Point]:
    """The decision points of ``seeds``' first ``turns`` game turns (see the module)."""
    sc = bot_scenario(load_scenario(os.path.join(ROOT, "maps", f"{map_name}.yaml")))
    points: list[Point] = []
    for seed in seeds:
        game = Game(sc, dice=Dice(seed=seed))
        bots = with_neutrals({1: make_bot("utility"), 2: make_bot("utility")})
        while not game.is_over() and game.state.turn <= turns:
            _to_decision(game, bots)
            if game.is_over():
                break
            view = view_of(game, game.state.player)
            bot = None
            chosen = {}
            for budget in budgets:
                bot = PlannerBot(budget)
                s = bot.search(view)
                if s is None:
                    break
                chosen[budget] = (s.best.plan, (len(s.best.plan), len(s.scored), s.rollouts))
            if bot is not None and len(chosen) == len(budgets):
                ref = Searcher(view, s.side, bot.base, bot.cautious, bot.reply, UNLIMITED, samples)
                value = {b: ref.score(plan, samples).mean for b, (plan, _) in chosen.items()}
                points.append(
                    Point(
                        seed,
                        game.state.turn,
                        game.state.player,
                        ref.score({}, samples).mean,
                        value,
                        {b: looked for b, (_, looked) in chosen.items()},
                    )
                )
            play_turn(game, bots)
    return points


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--map", default="default")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--budgets", type=int, nargs="+", default=[250, 1200, 2000], help="milliseconds")
    ap.add_argument("--samples", type=int, default=8)
    a = ap.parse_args(argv)
    points = measure(a.map, a.seeds, a.turns, a.budgets, a.samples)
    for p in points:
        gains = ", ".join(f"{b} ms {p.gain(b):+.1f}" for b in a.budgets)
        looked = ", ".join(f"{b} ms {p.looked[b]}" for b in a.budgets)
        print(f"seed {p.seed} turn {p.turn} player {p.player}: utility plan {p.utility:+.1f}; gains {gains}; {looked}")
    if points:
        for b in a.budgets:
            same = sum(1 for p in points if p.value[b] == p.value[a.budgets[-1]])
            print(
                f"{b} ms: mean gain {statistics.fmean(p.gain(b) for p in points):+.2f} points over "
                f"{len(points)} decision points; the same value as {a.budgets[-1]} ms at {same}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
