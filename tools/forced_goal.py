"""What one goal held from the start does for a seat: utility bots, one unit's goal forced.

    python tools/forced_goal.py --map maps/mirror.yaml --seat 2 --unit south-hound \\
        --goal deny:t-east --turns 3 --games 6

Plays ``--games`` games (seed = game number) of the utility bot against the utility bot;
in its first ``--turns`` game turns the seat ``--seat`` plays by the planner's goal policy
(``game.bots.planner.goals.GoalPolicy``) with ``--unit`` pursuing ``--goal`` (``KIND`` or
``KIND:TARGET``: ``deny:t-east``, ``take:t-west``, ``engage:north-ogre``, ``hold``), and
its other units as the utility bot would. Prints one line a game (the winner, the tokens
held by each warband at the end) and the tally. This is how docs/bots.md measured the
issue's Hound race on the mirror table ("What the mirror figures say about the rules").
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import make_bot, play_game  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.bots.planner.goals import KINDS, Goal, GoalPolicy  # noqa: E402
from game.bots.utility import UtilityBot  # noqa: E402
from game.engine.errors import LoadError  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402


class ForcedGoal:
    """The utility bot, but for ``turns`` game turns one unit pursues ``goal``."""

    def __init__(self, goal: Goal, turns: int):
        self.goal, self.turns = goal, turns
        self.base, self.cautious = UtilityBot(), UtilityBot("cautious")
        self.name = f"utility+{goal.kind}"

    def choose(self, view):
        st = view.state
        if st.turn <= self.turns and view.player == st.player:
            return GoalPolicy({self.goal.unit: self.goal}, self.base, self.cautious).choose(view)
        return self.base.choose(view)


def run(
    map_path: str,
    seat: int,
    unit: str,
    goal: str,
    turns: int,
    games: int,
    first_seed: int = 0,
    turn_limit: int | None = None,
    out=sys.stdout,
) -> dict:
    sc = bot_scenario(load_scenario(map_path), turn_limit)
    kind, _, target = goal.partition(":")
    if kind not in KINDS:
        raise SystemExit(f"--goal: {kind!r} is not one of {', '.join(KINDS)}")
    if unit not in sc.state.units:
        raise SystemExit(f"--unit: no unit {unit!r} in {map_path}")
    bands = {w.player: w.id for w in sc.warbands if w.player > 0}
    tally = {"won": 0, "drawn": 0, "lost": 0}
    for seed in range(first_seed, first_seed + games):
        bots = {seat: ForcedGoal(Goal(kind, unit, target or None), turns), 3 - seat: make_bot("utility")}
        bg = play_game(sc, bots, seed=seed)
        st = bg.game.state
        held = {
            w: sum(1 for u in st.units.values() if u.warband == w and u.carrying and u.on_table) for w in bands.values()
        }
        res = "drawn" if bg.winner is None else ("won" if bg.winner == bands[seat] else "lost")
        tally[res] += 1
        print(f"seed {seed}: {res} (winner {bg.winner}; held {held}; refused {bg.refused})", file=out)
    print(
        f"seat {seat} with {unit} pursuing {goal} for {turns} turns: {tally['won']} won, {tally['drawn']} drawn, "
        f"{tally['lost']} lost of {games}",
        file=out,
    )
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default=os.path.join(ROOT, "maps", "mirror.yaml"))
    ap.add_argument("--seat", type=int, choices=(1, 2), default=2)
    ap.add_argument("--unit", default="south-hound")
    ap.add_argument("--goal", default="deny:t-east")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--turn-limit", type=int, default=None)
    args = ap.parse_args(argv)
    try:
        run(args.map, args.seat, args.unit, args.goal, args.turns, args.games, args.first_seed, args.turn_limit)
    except LoadError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
