"""The forward model's speed (issue 43): four figures, each measured in a fresh process,
and side by side with another checkout, alternating runs. Times are CPU time of the
process where it can be (the machine is shared: wall time counts the others' work).

- ``game``: one utility-against-utility game on maps/default.yaml (seed 0), seconds;
- ``legal``: ``legal_report`` (what ``speedheim legal`` prints) on a crowded 40-unit
  table in its first Engage phase (game/engine/reference/crowded.py, seed 4), seconds,
  the map's navigation structures included;
- ``tail``: the worst Engage ``legal_actions`` call, first asked in the game, of a
  utility game on maps/stress.yaml (``tools/bench_legality.game_phases``, seed 0), ms;
- ``tailsum``: the same calls' total, ms (steadier than the worst on a busy machine);
- ``planner``: a planner player-turn at the default budget on maps/default.yaml
  (``tools/bench_planner.bench_turns``, without the opening look, which plays some
  thousand more decisions once a game), median seconds: the budget is a number of
  rollout decisions, so the ratio of two checkouts' times is the ratio of the decisions
  each could play in the same time.

    python tools/forward_speed.py game                     # one figure, this checkout
    python tools/forward_speed.py --base /path/to/old --runs 5 game legal tail planner

With ``--base`` each figure is measured ``--runs`` times in each checkout, alternating
(the order swapped every run), and the medians are printed with their ratio (this
checkout / the base). Each checkout keeps the movement engine's disk cache in a fresh
folder of its own, removed afterwards, unless ``SPEEDHEIM_NAV_CACHE`` is set (``0``: none,
every run cold): its file is found by a stamp of the engine's code, and the one every
earlier run of the base has grown would otherwise stand against a new one
(``tools/bench.py``'s ``nav_caches``).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = ("game", "legal", "tail", "tailsum", "planner")
#: The environment variable naming the crowded tables' module for a checkout without one.
CROWDED = "FORWARD_SPEED_CROWDED"


def _cpu_ms(fn) -> float:
    """CPU milliseconds of ``fn()`` (the machine is shared: wall time counts the others)."""
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1e3


def _crowded_text():
    """game/engine/reference/crowded.py's ``crowded_text``: this checkout's, or, in an
    older checkout that has none, the one of the checkout comparing with it (``CROWDED``
    in the environment: its path), so that both time the same table."""
    try:
        from game.engine.reference.crowded import crowded_text
    except ImportError:
        import importlib.util

        path = os.environ.get(CROWDED)
        if not path:
            raise
        spec = importlib.util.spec_from_file_location("_forward_speed_crowded", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        crowded_text = mod.crowded_text
    return crowded_text


def figure(name: str) -> float:
    """One figure, measured in this process (see the module's docstring)."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from game.engine.scenario import load_scenario

    if name == "game":
        from game.bots import UtilityBot
        from game.bots.driver import play_game

        sc = load_scenario(os.path.join(ROOT, "maps", "default.yaml"))
        t0 = time.process_time()
        play_game(sc, {1: UtilityBot(), 2: UtilityBot()}, seed=0)
        return time.process_time() - t0
    if name == "legal":
        from game.engine.dice import Dice
        from game.engine.game import Game
        from game.engine.legal import legal_report

        crowded_text = _crowded_text()
        g = Game(load_scenario("crowded-4.yaml", text=crowded_text(4)), dice=Dice(seed=4), history=False)
        while g.state.phase != "engage":
            g.apply({"end_phase": {}})
        t0 = time.process_time()
        legal_report(g)
        return time.process_time() - t0
    if name in ("tail", "tailsum"):
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import bench_legality

        bench_legality.REPEATS = 1
        bench_legality._ms = _cpu_ms
        times, _again, _reach = bench_legality.game_phases(seed=0, map_path=bench_legality.CROWDED)
        return max(times) if name == "tail" else sum(times)
    if name == "planner":
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import types

        import bench_planner

        from game.bots import driver

        driver.time = types.SimpleNamespace(perf_counter=time.process_time)  # its steps' seconds in CPU time
        # the search's turns alone: the opening look (once a game, at turn 1) is not its
        # speed; a checkout from before the look has no such switch
        if "look" in inspect.signature(bench_planner.bench_turns).parameters:
            secs, _refused = bench_planner.bench_turns(look=False)
        else:
            secs, _refused = bench_planner.bench_turns()

        return statistics.median(secs)
    raise SystemExit(f"unknown figure {name!r} (one of {', '.join(FIGURES)})")


def _run(checkout: str, name: str, cache: os.PathLike | None = None) -> float:
    env = dict(os.environ, PYTHONPATH=checkout, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    if cache is not None:
        env["SPEEDHEIM_NAV_CACHE"] = str(cache)
    env.setdefault(CROWDED, os.path.join(ROOT, "game", "engine", "reference", "crowded.py"))
    out = subprocess.run(
        [sys.executable, os.path.join(checkout, "tools", "forward_speed.py"), name],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"{checkout} {name}: {out.stderr[-2000:]}")
    return float(json.loads(out.stdout.strip().splitlines()[-1])[name])


def compare(base: str, names: list[str], runs: int) -> None:
    """Each figure ``runs`` times per checkout, alternating; medians and their ratio."""
    if not os.path.exists(os.path.join(base, "tools", "forward_speed.py")):
        raise SystemExit(f"{base}: copy tools/forward_speed.py there first (it runs each checkout's own code)")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from bench import nav_caches  # make bench's: a fresh folder a side, unless the environment names one

    with contextlib.ExitStack() as stack:
        caches = nav_caches(stack, {"base": base, "this": ROOT})
        for name in names:
            _compare(base, name, runs, caches.get("base"), caches.get("this"))


def _compare(base: str, name: str, runs: int, base_cache: os.PathLike | None, own_cache: os.PathLike | None) -> None:
    """One figure of :func:`compare`, each checkout's disk cache in its folder (None: as set)."""
    mine, theirs = [], []
    for k in range(runs):
        # the order swapped every run (base, this; this, base; ...), as make bench does
        for side in ("base", "this") if k % 2 == 0 else ("this", "base"):
            if side == "base":
                theirs.append(_run(base, name, base_cache))
            else:
                mine.append(_run(ROOT, name, own_cache))
    a, b = statistics.median(mine), statistics.median(theirs)
    print(
        f"{name:<8} this {a:9.4f}  base {b:9.4f}  ratio {a / b:5.2f}   "
        f"(this {' '.join(f'{v:.3f}' for v in mine)}; base {' '.join(f'{v:.3f}' for v in theirs)})",
        flush=True,
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="+", choices=FIGURES)
    ap.add_argument("--base", help="another checkout to compare with, alternating")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    if args.base:
        compare(os.path.abspath(args.base), args.names, args.runs)
        return 0
    print(json.dumps({n: figure(n) for n in args.names}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
