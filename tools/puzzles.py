"""Bot puzzles (issue 21): small positions with the answer a strong player gives.

    python tools/puzzles.py                      # planner and utility, every puzzle
    python tools/puzzles.py --bots utility,planner:2s tests/puzzles/hound-race.yaml

A puzzle file (``tests/puzzles/*.yaml``) holds a scenario (``scenario:``, the format of
FORMATS.md, started mid-game with ``state:``), the player to act (``side:``) and the
answer (``answer:``): ``any_of`` a list of conditions, any one of which solves it, and
optionally ``none_of`` conditions that fail it. The bot plays the side's whole turn
(the game under the bot rules: placeholder combat, the turn limit won on treasure); the
conditions are read from that turn's log and the position it leaves:

* ``{engage: {target: T, unit: U?, count: N?}}``: N (default 1) Engage attempts on T
  (by U when given) this turn;
* ``{near: {unit: U, token: T | unit_target: V, within: D}}``: after the turn U stands
  within D inches (edge to edge) of T (or of the unit V); D is a number or the name of a
  ruleset parameter (``treasure_denial_range``);
* ``{carries: {unit: U}}`` (any token) / ``{side_holds: N}`` (tokens held by the side);
* ``{out_of_reach: {unit: U, of: [E...]}}``: U ends beyond each E's Engage reach next
  turn (the engine's ``engage_inches``), edge to edge;
* ``{in_reach: {unit: U, of: T}}``: U ends within its own Engage reach of T for next turn.

A puzzle over several turns (``turns: N``, a route to a place several moves away) is
solved when a condition holds after any of the side's first N turns (or the opponent's
turn after it: a token in contact is picked up at the next upkeep, U6), the opponent
played by the utility bot; the answer says in how many turns.

It prints, per bot, which puzzles it solves and the count. The tests (tests/test_puzzles.py)
assert that the planner solves every one.
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import sys
from dataclasses import dataclass
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import make_bot, play_turn  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.bots.sense import next_status  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.errors import LoadError, Problem  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.movement.mover import engage_inches  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.engine.yamlsrc import dump_yaml, load_yaml, read_text  # noqa: E402

PUZZLE_DIR = os.path.join(ROOT, "tests", "puzzles")
CONDITIONS = ("engage", "near", "carries", "side_holds", "out_of_reach", "in_reach")


@dataclass
class Puzzle:
    path: str
    name: str
    side: int
    answer: dict[str, list[dict[str, Any]]]
    scenario: Any
    turn_limit: int
    seed: int
    turns: int = 1


def load_puzzle(path: str) -> Puzzle:
    src = load_yaml(read_text(path), path)
    d = src.data
    if not isinstance(d, dict) or not {"name", "side", "answer", "scenario"} <= set(d):
        raise LoadError([Problem(path, 1, "a puzzle needs name, side, answer and scenario")])
    answer = d["answer"]
    for key in ("any_of", "none_of"):
        for cond in answer.get(key, []) or []:
            if not isinstance(cond, dict) or len(cond) != 1 or next(iter(cond)) not in CONDITIONS:
                raise LoadError(
                    [
                        Problem(
                            path,
                            src.line_of(("answer", key)) if hasattr(src, "line_of") else 1,
                            f"{key}: a condition is one of {', '.join(CONDITIONS)}, not {cond!r}",
                        )
                    ]
                )
    sc = load_scenario(path, dump_yaml(d["scenario"]))
    return Puzzle(
        path,
        str(d["name"]),
        int(d["side"]),
        answer,
        sc,
        int(d.get("turn_limit", 10)),
        int(d.get("seed", 1)),
        int(d.get("turns", 1)),
    )


def start(pz: Puzzle, seed: int | None = None) -> Game:
    return Game(
        bot_scenario(pz.scenario, pz.turn_limit), dice=Dice(seed=pz.seed if seed is None else seed), history=False
    )


def _gap(a, b) -> float:
    return math.hypot(a.x - b.x, a.y - b.y) - a.r - b.r


def holds(game: Game, turn_log: list, side: int, cond: dict[str, Any]) -> bool:
    """Does the condition hold after the side's turn (``turn_log``: its log entries)?"""
    ((kind, arg),) = cond.items()
    st, rs = game.state, game.rs
    if kind == "engage":
        n = sum(
            1
            for e in turn_log
            if isinstance(e.action, dict)
            and "engage" in e.action
            and e.action["engage"].get("target") == arg["target"]
            and (arg.get("unit") is None or e.action["engage"].get("unit") == arg["unit"])
        )
        return n >= int(arg.get("count", 1))
    if kind == "near":
        u = st.units[arg["unit"]]
        other = st.treasure[arg["token"]] if "token" in arg else st.units[arg["unit_target"]]
        within = arg["within"]
        lim = float(rs.get(within)) if isinstance(within, str) else float(within)
        return u.active and _gap(u, other) <= lim + 1e-6
    if kind == "carries":
        return bool(st.units[arg["unit"]].carrying)
    if kind == "side_holds":
        wid = game.scenario.warband_of_player(side).id
        return sum(1 for u in st.units.values() if u.warband == wid and u.carrying and u.on_table) >= int(arg)
    if kind == "out_of_reach":
        u = st.units[arg["unit"]]
        for eid in arg["of"]:
            e = st.units[eid]
            if e.active and _gap(u, e) <= engage_inches(rs, e, next_status(e.status)):
                return False
        return True
    if kind == "in_reach":
        u, t = st.units[arg["unit"]], st.units[arg["of"]]
        return u.active and t.active and _gap(u, t) <= engage_inches(rs, u, next_status(u.status))
    raise ValueError(kind)


def solve(pz: Puzzle, bot_name: str, seed: int | None = None, opponent: str = "utility") -> tuple[bool, list, str]:
    """Play the side's turn with the bot (its first ``pz.turns`` turns, the opponent's
    between them): (solved, the steps, why)."""
    if pz.turns > 1:
        ok, _turns, steps, why = solve_in_turns(pz, bot_name, seed, opponent)
        return ok, steps, why
    game = start(pz, seed)
    if game.turn_player() != pz.side:
        raise LoadError([Problem(pz.path, 1, f"player {game.turn_player()} acts first, not side {pz.side}")])
    bot = make_bot(bot_name)
    n = len(game.log)
    steps = [s for s in play_turn(game, {pz.side: bot, 3 - pz.side: make_bot("utility")}) if s.player == pz.side]
    refused = [s for s in steps if s.refused]
    if refused:
        return False, steps, f"refused: {refused[0].refused}"
    turn_log = game.log[n:]
    bad = [c for c in pz.answer.get("none_of", []) or [] if holds(game, turn_log, pz.side, c)]
    if bad:
        return False, steps, f"did what it should not: {bad[0]}"
    good = [c for c in pz.answer.get("any_of", []) or [] if holds(game, turn_log, pz.side, c)]
    if not good and pz.answer.get("any_of"):
        return False, steps, "none of the answers"
    return True, steps, f"solved: {good[0] if good else 'avoided every wrong move'}"


def solve_in_turns(
    pz: Puzzle, bot_name: str, seed: int | None = None, opponent: str = "utility"
) -> tuple[bool, int, list, str]:
    """Play up to ``pz.turns`` of the side's turns (``opponent`` plays the other side):
    (solved, the side's turns it took, the side's steps, why). A refused action or a
    condition of ``none_of`` fails it."""
    game = start(pz, seed)
    if game.turn_player() != pz.side:
        raise LoadError([Problem(pz.path, 1, f"player {game.turn_player()} acts first, not side {pz.side}")])
    bots = {pz.side: make_bot(bot_name), 3 - pz.side: make_bot(opponent)}
    mine: list = []
    turns = 0
    while turns < pz.turns and not game.is_over():
        n = len(game.log)
        steps = play_turn(game, bots)
        ours = [s for s in steps if s.player == pz.side]
        turns += 1 if ours else 0
        mine += ours
        refused = [s for s in steps if s.refused]
        if refused:
            return False, turns, mine, f"refused: {refused[0].refused}"
        turn_log = game.log[n:]
        bad = [c for c in pz.answer.get("none_of", []) or [] if holds(game, turn_log, pz.side, c)]
        if bad:
            return False, turns, mine, f"did what it should not: {bad[0]}"
        good = [c for c in pz.answer.get("any_of", []) or [] if holds(game, turn_log, pz.side, c)]
        if good:
            return True, turns, mine, f"solved in {turns} turn(s): {good[0]}"
    return False, turns, mine, f"none of the answers in {turns} turn(s)"


def puzzle_paths() -> list[str]:
    return sorted(glob.glob(os.path.join(PUZZLE_DIR, "*.yaml")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--bots", default="utility,planner")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args(argv)
    paths = args.paths or puzzle_paths()
    puzzles = [load_puzzle(p) for p in paths]
    for bot in args.bots.split(","):
        solved = 0
        for pz in puzzles:
            ok, steps, why = solve(pz, bot)
            solved += ok
            print(f"{bot:12s} {'SOLVED' if ok else 'failed':7s} {os.path.basename(pz.path):28s} {why}")
            if args.verbose:
                for s in steps:
                    print(f"{'':14s}{s.decision.reason[:240]}")
        print(f"{bot}: solves {solved} of {len(puzzles)} puzzles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
