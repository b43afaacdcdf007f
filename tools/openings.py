"""How many distinct openings bot games give over seeds (issue 47, item 4).

    python tools/openings.py                                   # planner vs planner, mirror.yaml, 100 seeds
    python tools/openings.py --seeds 20 --bots planner:250ms,planner maps/default.yaml

An opening is the first game turn: every action both players' bots play in it, in order
(the log's replayable actions, the moves' end points included). Each seed plays that one
game turn under the bot rules (``game.bots.driver.bot_scenario``), so the count is cheap to
take; two seeds give the same opening when every action is the same. It prints the
number of distinct openings, the seeds of the commonest, and the refused bot actions
(``--each``: a line per seed with a hash of its opening, to merge runs over seed ranges).
``--near INCHES`` also counts openings that differ by more than that: two openings are
then the same when they play the same actions by the same units in the same order and
each move ends within INCHES of the other's end (a unit stopping 0.75" further along is
the same opening; going for another token is not).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import make_bot, play_turn, with_neutrals  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402


def opening(scenario, bots: tuple[str, str], seed: int) -> tuple[str, int]:
    """The first game turn of a game with ``seed`` (its actions as one JSON text) and the
    bot actions the game refused in it."""
    game = Game(scenario, dice=Dice(seed=seed))
    players = with_neutrals({1: make_bot(bots[0]), 2: make_bot(bots[1])})
    n = len(game.log)
    refused = 0
    while not game.is_over() and game.state.turn == 1:
        refused += sum(1 for s in play_turn(game, players) if s.refused)
    actions = [e.replayable for e in game.log[n:]]
    return json.dumps(actions, sort_keys=True), refused


def _shape(key: str) -> list[tuple[str, str, tuple[float, float] | None]]:
    """An opening's actions as (kind, every field but the path, the path's end)."""
    out = []
    for action in json.loads(key):
        ((kind, body),) = action.items()
        body = dict(body or {})
        path = body.pop("path", None)
        to = body.pop("to", None)
        end = tuple(path[-1]) if path else (tuple(to) if to else None)
        out.append((kind, json.dumps(body, sort_keys=True), end))
    return out


def same_within(a: str, b: str, inches: float) -> bool:
    """Do openings ``a`` and ``b`` play the same actions, each move ending within
    ``inches`` of the other's end?"""
    sa, sb = _shape(a), _shape(b)
    if len(sa) != len(sb):
        return False
    for (ka, fa, ea), (kb, fb, eb) in zip(sa, sb):
        if ka != kb or fa != fb or (ea is None) != (eb is None):
            return False
        if ea is not None and math.dist(ea, eb) > inches:
            return False
    return True


def groups(openings: list[str], inches: float) -> list[list[str]]:
    """The openings in groups of the same within ``inches`` of the group's first (in
    the order given: each joins the first group it matches)."""
    out: list[list[str]] = []
    for key in openings:
        home = next((g for g in out if same_within(g[0], key, inches)), None)
        if home is None:
            out.append([key])
        else:
            home.append(key)
    return out


def count(
    path: str, bots: tuple[str, str], seeds: range, out=None
) -> tuple[collections.Counter, dict[str, list[int]], int]:
    """(openings by how often they came, the seeds of each, refused bot actions); ``out``
    gets a line per seed as it is played (the seed and a short hash of its opening)."""
    sc = bot_scenario(load_scenario(path))
    seen: collections.Counter = collections.Counter()
    which: dict[str, list[int]] = collections.defaultdict(list)
    refused = 0
    for seed in seeds:
        key, r = opening(sc, bots, seed)
        if out is not None:
            print(f"seed {seed}: opening {zlib.crc32(key.encode()):08x}, refused {r}", file=out, flush=True)
        seen[key] += 1
        which[key].append(seed)
        refused += r
    return seen, which, refused


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("map", nargs="?", default=os.path.join(ROOT, "maps", "mirror.yaml"))
    ap.add_argument("--bots", default="planner,planner", help="player 1's bot,player 2's bot")
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first", type=int, default=0, help="the first seed")
    ap.add_argument("--each", action="store_true", help="a line per seed as it is played")
    ap.add_argument(
        "--near", type=float, metavar="INCHES", help="also count openings whose moves' ends differ by more than INCHES"
    )
    args = ap.parse_args(argv)
    bots = tuple(args.bots.split(","))
    if len(bots) != 2:
        ap.error("--bots takes two names, player 1's and player 2's")
    seeds = range(args.first, args.first + args.seeds)
    seen, which, refused = count(args.map, bots, seeds, sys.stdout if args.each else None)
    print(
        f"{os.path.basename(args.map)}, {bots[0]} vs {bots[1]}, seeds {seeds.start}-{seeds.stop - 1}: "
        f"{len(seen)} distinct openings in {len(seeds)} games; refused bot actions {refused}"
    )
    for key, n in seen.most_common(3):
        print(f"  {n} games: seeds {which[key][:10]}{' ...' if n > 10 else ''}")
    if args.near is not None:
        by_seed = sorted((seed, key) for key, seeds_of in which.items() for seed in seeds_of)
        found = groups([key for _, key in by_seed], args.near)
        sizes = sorted((len(g) for g in found), reverse=True)
        print(f'  {len(found)} openings that differ by more than {args.near:g}" (the largest groups: {sizes[:5]})')
    return 0


if __name__ == "__main__":
    sys.exit(main())
