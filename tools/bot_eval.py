"""Bot quality bars (issue 11): bot against bot over many games, with the figures.

    python tools/bot_eval.py --map maps/default.yaml --a utility --b random --games 200
    python tools/bot_eval.py --map maps/mirror.yaml --a utility --b utility --games 200

Game ``i`` uses seed ``i``; with ``--seats both`` (the default) bot A plays player 1 in
the even games and player 2 in the odd ones. Prints one line per game (``--quiet`` for
none) and a summary: A's wins, draws and losses with a 95% Wilson interval, the first
seat's win rate among the games not drawn (with its interval), refused bot actions (must be 0) and the time per
decision. ``--jsonl FILE`` keeps one JSON line per game.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import make_bot, play_game  # noqa: E402
from game.engine.movement import Mover  # noqa: E402
from game.engine.geometry import board_for  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.bots.driver import bot_scenario  # noqa: E402
from game.engine.errors import LoadError  # noqa: E402
from game.sim.stats import wilson  # noqa: E402


def judged(k: int, n: int, target: float, at_most: bool = False) -> bool | None:
    """Does a rate of ``k`` in ``n`` meet a target (at least ``target``, or at most with
    ``at_most``)? True when its 95% Wilson interval lies on the target's side, False when
    it lies wholly on the other (the games show it missed), None when it holds the target:
    too few games to tell (a bench's few games, where docs/bots.md keeps the 200-game
    figures)."""
    lo, hi = wilson(k, n)
    if at_most:
        return True if hi <= target else False if lo > target else None
    return True if lo >= target else False if hi < target else None


@dataclass
class Tally:
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    first_seat_wins: int = 0
    refused: int = 0
    capped: int = 0
    seconds: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})
    reasons: dict[str, int] = field(default_factory=dict)

    def summary(self, a: str, b: str) -> dict:
        lo, hi = wilson(self.a_wins, self.games)
        decided = self.games - self.draws
        flo, fhi = wilson(self.first_seat_wins, decided)
        out = {
            "games": self.games,
            "a": a,
            "b": b,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "a_win_rate": self.a_wins / self.games if self.games else 0.0,
            "a_win_ci": [lo, hi],
            "first_seat_win_rate": self.first_seat_wins / decided if decided else 0.0,
            "first_seat_ci": [flo, fhi],
            "refused": self.refused,
            "capped": self.capped,
            "ends": self.reasons,
        }
        for side in ("a", "b"):
            xs = sorted(self.seconds[side])
            if xs:
                out[f"{side}_decision_ms"] = {
                    "median": 1000 * statistics.median(xs),
                    "p95": 1000 * xs[int(0.95 * (len(xs) - 1))],
                    "max": 1000 * xs[-1],
                    "n": len(xs),
                }
        return out


def evaluate(
    map_path: str,
    a: str,
    b: str,
    games: int,
    *,
    seats: str = "both",
    turn_limit: int | None = None,
    first_seed: int = 0,
    rules: dict | None = None,
    log=None,
    jsonl=None,
) -> Tally:
    """Play ``games`` games of bot ``a`` against bot ``b`` on ``map_path``."""
    sc = bot_scenario(load_scenario(map_path), turn_limit, rules)
    mover = Mover(sc, board_for(sc))
    bot_a, bot_b = make_bot(a), make_bot(b)
    bands = {w.player: w.id for w in sc.warbands if w.player > 0}
    t = Tally()
    for i in range(games):
        seed = first_seed + i
        a_seat = 1 if (seats == "first" or (seats == "both" and i % 2 == 0)) else 2
        bots = {a_seat: bot_a, 3 - a_seat: bot_b}
        t0 = time.perf_counter()
        bg = play_game(sc, bots, seed=seed, mover=mover)
        wall = time.perf_counter() - t0
        winner = bg.winner
        t.games += 1
        if winner is None:
            t.draws += 1
        elif winner == bands[a_seat]:
            t.a_wins += 1
        else:
            t.b_wins += 1
        if winner == bands.get(1):
            t.first_seat_wins += 1
        t.refused += bg.refused
        t.capped += bg.capped
        for s in bg.steps:
            if s.player in (1, 2):
                t.seconds["a" if s.player == a_seat else "b"].append(s.seconds)
        end = (bg.outcome.reason if bg.outcome else "stopped").split(":")[0]
        t.reasons[end] = t.reasons.get(end, 0) + 1
        st = bg.game.state
        held = {t.id: st.units[t.carried_by].warband for t in st.treasure.values() if t.carried_by}
        row = {
            "i": i,
            "seed": seed,
            "a_seat": a_seat,
            "winner": winner,
            **bg.counts(),
            "held": held,
            "lost": dict(st.lost),
            "seconds": round(wall, 2),
        }
        if log is not None:
            print(json.dumps(row), file=log, flush=True)
        if jsonl is not None:
            jsonl.write(json.dumps(row) + "\n")
            jsonl.flush()
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default=os.path.join(ROOT, "maps", "default.yaml"))
    ap.add_argument("--a", default="utility")
    ap.add_argument("--b", default="random")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seats", choices=("both", "first", "second"), default="both")
    ap.add_argument("--turn-limit", type=int, default=None)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=YAML",
        help="a ruleset override for these games, e.g. --rule run_denial_range=0",
    )
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    rules = {}
    for item in args.rule:
        key, _, value = item.partition("=")
        rules[key.strip()] = yaml.safe_load(value)
    jsonl = open(args.jsonl, "w") if args.jsonl else None
    try:
        t = evaluate(
            args.map,
            args.a,
            args.b,
            args.games,
            seats=args.seats,
            turn_limit=args.turn_limit,
            first_seed=args.first_seed,
            rules=rules,
            log=None if args.quiet else sys.stdout,
            jsonl=jsonl,
        )
    except LoadError as exc:
        return exc.report()
    finally:
        if jsonl:
            jsonl.close()
    s = t.summary(args.a, args.b)
    print(json.dumps({"summary": s}))
    lo, hi = s["a_win_ci"]
    flo, fhi = s["first_seat_ci"]
    print(
        f"{args.a} vs {args.b} on {os.path.basename(args.map)}: {s['a_wins']} wins, {s['draws']} draws, "
        f"{s['b_wins']} losses in {s['games']} games ({s['a_win_rate']:.1%}, 95% CI {lo:.1%}-{hi:.1%}); "
        f"first seat wins {s['first_seat_win_rate']:.1%} (95% CI {flo:.1%}-{fhi:.1%}); refused {s['refused']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
