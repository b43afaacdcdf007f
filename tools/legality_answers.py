"""The Engage phase's legality answers, to check that a change leaves them the same.

Plays utility-against-utility games (maps/default.yaml, maps/mirror.yaml and the crowded
maps/stress.yaml, seeds 0-3, turns 1-6, the bench's setting: ``tools/bench_legality.py``),
and takes the first Engage phase of 12 crowded random tables (game/engine/reference/crowded.py,
bases at the edge of difficult ground); at every Engage phase,
for every unit of the side to act (the movement engine's memo emptied before each
question): ``legal_actions(uid).to_json()``; for every enemy, ``why_illegal`` of the
Engage as text; and ``Mover.plan_engage``'s plan (its points, cost, allowance,
transitions) or its refusal. The questions are asked in the same order each time (the
answers of the path search may depend on what was asked before only where two paths
tie exactly).

    python tools/legality_answers.py OUT.json                 # record
    python tools/legality_answers.py OUT.json --compare BASE.json
    python tools/legality_answers.py OUT.json --maps stress.yaml,crossroads.yaml --seeds 0,1,2

``--compare`` prints the differences (the first few in full) and exits 1 if any. Run it
on the code before a change (``git stash``) and after.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.bots import UtilityBot, with_neutrals  # noqa: E402
from game.bots.driver import bot_scenario, step  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.errors import IllegalAction  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.legal import side_to_act  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402

MAPS = ("default.yaml", "mirror.yaml", "stress.yaml")
SEEDS = (0, 1, 2, 3)
TURNS = 6
#: Crowded random tables (game/engine/reference/crowded.py), their first Engage phase:
#: 30-40 units, many at the very edge of difficult ground, where shortcuts broke (issue 41).
CROWDED = tuple(range(12))


def _plan(g: Game, uid: str, tid: str):
    try:
        p = g.mover.plan_engage(g.state, uid, tid)
    except IllegalAction as exc:
        return f"{exc.rule}: {exc.reason}"
    return [
        [list(map(float, q)) for q in p.points],
        float(p.cost),
        float(p.allowance),
        repr(p.transitions),
        p.difficult,
        float(p.length),
    ]


def phase_answers(g: Game, where: list) -> tuple[list, list[float]]:
    """Every question of this Engage phase: [where + [uid, question], answer], and the ms
    of each legal_actions call."""
    out, times = [], []
    for uid in side_to_act(g):
        g.mover.nav.forget()
        t0 = time.perf_counter()
        legal = g.legal_actions(uid).to_json()
        times.append((time.perf_counter() - t0) * 1e3)
        out.append([where + [uid, "legal"], legal])
        u = g.state.units[uid]
        for o in g.state.units.values():
            if o.warband == u.warband:
                continue
            g.mover.nav.forget()
            why = g.why_illegal({"engage": {"unit": uid, "target": o.id}})
            out.append([where + [uid, "why " + o.id], None if why is None else f"{why.rule}: {why.reason}"])
            g.mover.nav.forget()
            out.append([where + [uid, "plan " + o.id], _plan(g, uid, o.id)])
    return out, times


def record(maps=MAPS, seeds=SEEDS, turns: int = TURNS, crowded=CROWDED) -> tuple[list, list[float]]:
    from game.engine.reference.crowded import crowded_text

    answers, times = [], []
    for seed in crowded:
        g = Game(load_scenario(f"crowded-{seed}.yaml", text=crowded_text(seed)), dice=Dice(seed=seed), history=False)
        while g.state.phase != "engage":
            g.apply({"end_phase": {}})
        a, t = phase_answers(g, ["crowded", seed, g.state.turn, g.state.player])
        answers += a
        times += t
    for m in maps:
        sc = bot_scenario(load_scenario(os.path.join(ROOT, "maps", m)))
        for seed in seeds:
            g = Game(sc, dice=Dice(seed=seed))
            bots = with_neutrals({1: UtilityBot(), 2: UtilityBot()})
            while not g.is_over() and g.state.turn <= turns:
                if g.state.phase == "engage" and g.pending is None:
                    a, t = phase_answers(g, [m, seed, g.state.turn, g.state.player])
                    answers += a
                    times += t
                    while g.state.phase == "engage" and not g.is_over():
                        step(g, bots)
                else:
                    step(g, bots)
    # as JSON has them (tuples as lists, keys as strings)
    return json.loads(json.dumps(answers, default=str)), times


def compare(new: list, base: list, show: int = 10) -> int:
    """The number of differences (printed, the first ``show`` in full)."""
    n = 0
    for (kn, an), (kb, ab) in zip(new, base):
        if kn != kb or an != ab:
            n += 1
            if n <= show:
                print("DIFF", kb, "->", kn if kn != kb else "")
                print("  before:", str(ab)[:800])
                print("  after: ", str(an)[:800])
    if len(new) != len(base):
        print(f"{len(base)} answers before, {len(new)} after")
        n += abs(len(new) - len(base))
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="where to write the answers (JSON)")
    ap.add_argument("--compare", metavar="BASE", help="answers recorded before, to compare with")
    ap.add_argument("--maps", default=",".join(MAPS), help="maps/ files, comma-separated (default: %(default)s)")
    ap.add_argument(
        "--seeds", default=",".join(map(str, SEEDS)), help="game seeds, comma-separated (default: %(default)s)"
    )
    ap.add_argument("--crowded", type=int, default=len(CROWDED), help="crowded random tables (default: %(default)s)")
    args = ap.parse_args(argv)
    try:
        seeds = tuple(int(s) for s in args.seeds.split(","))
    except ValueError:
        ap.error(f"--seeds: whole numbers separated by commas, not {args.seeds!r}")
    answers, times = record(tuple(m.strip() for m in args.maps.split(",")), seeds, crowded=tuple(range(args.crowded)))
    with open(args.out, "w") as f:
        json.dump(answers, f)
    ts = sorted(times)
    print(
        f"{len(answers)} answers; {len(ts)} legal_actions calls: median {ts[len(ts) // 2]:.2f} ms, "
        f"p95 {ts[max(0, math.ceil(0.95 * len(ts)) - 1)]:.2f} ms, worst {ts[-1]:.2f} ms "
        "(one run each, first calls cold)"
    )
    if args.compare:
        with open(args.compare) as f:
            base = json.load(f)
        n = compare(answers, base)
        print(f"compared {min(len(answers), len(base))} answers: {n} differences")
        return 1 if n else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
