"""Hold the Engage answers to the plain reference on many crowded tables (issue 41).

For each seed, the crowded table of game/engine/reference/crowded.py in its first Engage
phase: every unit of the side to act with an enemy in reach by the straight line is asked
every way (``legal_actions``, ``why_illegal`` without a path, its own path given back, the
reference's best explicit path: ``game.engine.reference.engage.disagreements``).
``--stress``: also every Engage phase of utility games on maps/stress.yaml (turns 1-6).

    python tools/engage_reference.py --seeds 0:2000 --workers 2
    python tools/engage_reference.py --stress 0,1,2

Prints each disagreement as it is found and a summary line; exits 1 if any.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def crowded(seed: int) -> tuple[int, int, list[str]]:
    """(units asked, targets in reach, disagreements) on crowded table ``seed``."""
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.legal import side_to_act
    from game.engine.reference.crowded import crowded_text
    from game.engine.reference.engage import disagreements, enemies_in_reach
    from game.engine.scenario import load_scenario

    g = Game(load_scenario(f"crowded-{seed}.yaml", text=crowded_text(seed)), dice=Dice(seed=seed), history=False)
    while g.state.phase != "engage":
        g.apply({"end_phase": {}})
    units = targets = 0
    found: list[str] = []
    for uid in side_to_act(g):
        near = enemies_in_reach(g, uid)
        if not near:
            continue
        units += 1
        targets += len(near)
        found += [f"crowded {seed}: {d}" for d in disagreements(g, uid)]
    return units, targets, found


def stress(seed: int, turns: int = 6) -> tuple[int, int, list[str]]:
    """The same questions at every Engage phase of a utility game on maps/stress.yaml."""
    from game.bots import UtilityBot, with_neutrals
    from game.bots.driver import bot_scenario, step
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.legal import side_to_act
    from game.engine.reference.engage import disagreements, enemies_in_reach
    from game.engine.scenario import load_scenario

    g = Game(bot_scenario(load_scenario(os.path.join(ROOT, "maps", "stress.yaml"))), dice=Dice(seed=seed))
    bots = with_neutrals({1: UtilityBot(), 2: UtilityBot()})
    units = targets = 0
    found: list[str] = []
    asked = set()
    while not g.is_over() and g.state.turn <= turns:
        st = g.state
        key = (st.turn, st.player)
        if st.phase == "engage" and g.pending is None and key not in asked:
            asked.add(key)
            for uid in side_to_act(g):
                near = enemies_in_reach(g, uid)
                if near:
                    units += 1
                    targets += len(near)
                    found += [f"stress seed {seed} turn {st.turn}: {d}" for d in disagreements(g, uid)]
        step(g, bots)
    return units, targets, found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:50", help="crowded tables, as FIRST:LAST (LAST excluded)")
    ap.add_argument("--stress", default="", help="comma-separated seeds of utility games on maps/stress.yaml")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    first, last = (int(x) for x in args.seeds.split(":"))
    jobs = [(crowded, s) for s in range(first, last)] + [(stress, int(s)) for s in args.stress.split(",") if s]
    t0 = time.perf_counter()
    units = targets = tables = 0
    bad: list[str] = []
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for u, t, found in pool.map(_run, jobs, chunksize=4):
            tables += 1
            units += u
            targets += t
            for line in found:
                print(line, flush=True)
            bad += found
    print(
        f"{tables} tables ({last - first} crowded, {len(jobs) - (last - first)} stress games), {units} units asked, "
        f"{targets} targets in reach: {len(bad)} disagreements ({time.perf_counter() - t0:.0f} s)"
    )
    return 1 if bad else 0


def _run(job):
    fn, seed = job
    return fn(seed)


if __name__ == "__main__":
    sys.exit(main())
