"""Benchmarks of batch simulation (issue 12), on maps/default.yaml with placeholder combat
and the 12-turn limit, through :func:`game.sim.match.play_job` (the utility bot on both
sides, as `speedheim simulate` plays them):

- the median wall time of one game: <= 1 s per core
- 1,000 games with --workers 2 (this machine has 2 cores): <= 10 minutes
- games/s with --workers 1 and --workers 2 once running, and the pool's start, for information
- games/s on a Dask LocalCluster of 1 and 2 worker processes, for information
- the main process's memory over 10 and 40 games: flat (no game is held)
- report.html of a one-game run, in a fresh process, from the game's end to the page
  written (where the code loads matplotlib while the games play, as ``speedheim
  simulate`` does, that load is done before the clock starts): less than one game

``python tools/bench_sim.py`` prints the rows; ``run()`` returns them.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.sim.match import play_job  # noqa: E402
from game.sim.runner import run_jobs  # noqa: E402
from game.sim.study import Plan, resolve  # noqa: E402

MAP = os.path.join(ROOT, "maps", "default.yaml")


def jobs(n: int, seed: int = 1000) -> list:
    spec, texts = resolve(Plan(scenario=MAP, games=n, seed=seed, bots=[("utility", "utility")]))
    return list(spec.jobs(texts, lambda slug, swapped: f"{slug}.yaml", set()))


def rate(n: int, **where) -> tuple[float, float]:
    """(games/s once running, seconds until the first game finished: pool start included)."""
    todo = jobs(n)
    stamps = []
    t0 = time.perf_counter()
    result = run_jobs(todo, n, lambda job, rec, log: stamps.append(time.perf_counter()), progress=False, **where)
    assert result.done == n and not result.failed, result.failed
    return (n - 1) / (stamps[-1] - stamps[0]), stamps[0] - t0


def cluster_rate(workers: int, n: int) -> float:
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        rate(workers + 1, cluster=cluster.scheduler_address)  # workers warm: imports, scenario parsed
        return rate(n, cluster=cluster.scheduler_address)[0]


def main_memory(n: int) -> float:
    """Peak Python memory (MB) of the process that runs the pool, over ``n`` games."""
    tracemalloc.start()
    rate(n, workers=2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


_REPORT = """
import sys, time
import game.sim.report as r
prefetch = getattr(r, "prefetch_plotting", None)   # the simulate command starts it before the games
if prefetch:
    prefetch().join()
t0 = time.perf_counter()
r.write_report(sys.argv[1], sys.argv[2], sys.argv[3])
print(time.perf_counter() - t0)
"""


def report_seconds(record: dict, repeats: int = 3) -> float:
    """Median seconds to write summary.json and report.html of a run of one game (``record``),
    each time in a fresh process on the code first on this process's path."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
        games = os.path.join(folder, "games.jsonl")
        with open(games, "w", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        times = []
        for _ in range(repeats):
            out = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _REPORT,
                    games,
                    os.path.join(folder, "summary.json"),
                    os.path.join(folder, "report.html"),
                ],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def run() -> list[dict]:
    rows = []
    times = []
    for job in jobs(7):
        t0 = time.perf_counter()
        record = play_job(job)
        times.append(time.perf_counter() - t0)
    median = statistics.median(times[1:])  # the first parses the map
    rows.append(
        {
            "name": "one game, utility vs utility, default map (median of 6)",
            "value": median,
            "unit": "s",
            "target": "<= 1 s per core",
            "ok": median <= 1.0,
        }
    )
    report = report_seconds(record)
    rows.append(
        {
            "name": "report.html of a one-game run, after the game (fresh process, median of 3)",
            "value": report,
            "unit": "s",
            "target": "< one game (the row above)",
            "ok": report < median,
        }
    )
    (r1, _), (r2, start2) = rate(8, workers=1), rate(16, workers=2)
    rows.append(
        {
            "name": "games/s, --workers 1 (8 games)",
            "value": r1,
            "unit": "games/s",
            "target": "(information)",
            "ok": True,
        }
    )
    rows.append(
        {
            "name": "games/s, --workers 2 (16 games)",
            "value": r2,
            "unit": "games/s",
            "target": "(information)",
            "ok": True,
        }
    )
    rows.append(
        {
            "name": "local pool start to the first finished game, --workers 2",
            "value": start2,
            "unit": "s",
            "target": "(information)",
            "ok": True,
        }
    )
    thousand = (start2 + 1000 / r2) / 60
    rows.append(
        {
            "name": "1,000 games, --workers 2 (pool start + 1,000 / rate)",
            "value": thousand,
            "unit": "min",
            "target": "<= 10 min",
            "ok": thousand <= 10,
        }
    )
    c1, c2 = cluster_rate(1, 8), cluster_rate(2, 16)
    rows.append(
        {
            "name": "games/s, Dask LocalCluster, 1 worker process",
            "value": c1,
            "unit": "games/s",
            "target": "(information)",
            "ok": True,
        }
    )
    rows.append(
        {
            "name": "games/s, Dask LocalCluster, 2 worker processes",
            "value": c2,
            "unit": "games/s",
            "target": "(information)",
            "ok": True,
        }
    )
    rows.append(
        {
            "name": "LocalCluster scaling, 2 workers / 1 worker",
            "value": c2 / c1,
            "unit": "x",
            "target": "(information; 2 cores)",
            "ok": True,
        }
    )
    small, big = main_memory(10), main_memory(40)
    rows.append(
        {
            "name": "main process peak memory, 40 games minus 10 games",
            "value": big - small,
            "unit": "MB",
            "target": "flat (<= 5 MB)",
            "ok": big - small <= 5,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']}: {row['value']:.3g} {row['unit']} "
            f"(target {row['target']}) {'ok' if row['ok'] else 'NOT MET'}"
        )
