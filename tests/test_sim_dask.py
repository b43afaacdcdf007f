"""The Dask path: a LocalCluster in this process gives the very games of the local pool."""

from __future__ import annotations

import json
import os

import pytest
from distributed import LocalCluster

from game.cli import main
from game.sim import runner
from game.sim.results import GamesFile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "scripts", "duel.yaml")
ARGS = [
    DUEL,
    "--turn-limit",
    "3",
    "--games",
    "3",
    "--swap",
    "--variant",
    "default",
    "--variant",
    "rout_threshold=2",
    "--keep-logs",
]


def _games(path) -> list[str]:
    recs = GamesFile(os.path.join(str(path), "games.jsonl")).read()
    return sorted(json.dumps({k: v for k, v in r.items() if k != "seconds"}, sort_keys=True) for r in recs)


#: The planner on the cluster (issue 21): its budget is counted in decisions, not read off
#: a clock, so a worker on another machine plays the very game the pool plays.
PLANNER = [DUEL, "--turn-limit", "2", "--games", "1", "--bots", "planner:250ms,utility"]


@pytest.mark.slow
def test_local_cluster_gives_the_same_games_as_the_pool(tmp_path, capsys):
    assert main(["simulate", *ARGS, "--workers", "2", "--out", str(tmp_path / "pool")]) == 0
    assert main(["simulate", *PLANNER, "--workers", "2", "--out", str(tmp_path / "pool-planner")]) == 0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert main(["simulate", *ARGS, "--cluster", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0
        assert (
            main(
                ["simulate", *PLANNER, "--cluster", cluster.scheduler_address, "--out", str(tmp_path / "dask-planner")]
            )
            == 0
        )
    planned = _games(tmp_path / "dask-planner")
    assert len(planned) == 1 and planned == _games(tmp_path / "pool-planner")
    assert all(json.loads(r)["illegal"] == 0 for r in planned)
    assert {tuple(sorted(json.loads(r)["bots"])) for r in planned} == {("planner:250ms", "utility")}
    pool, dask = _games(tmp_path / "pool"), _games(tmp_path / "dask")
    assert len(pool) == 12 and pool == dask
    logs = sorted(p.relative_to(tmp_path / "dask") for p in (tmp_path / "dask" / "logs").rglob("*.yaml"))
    assert len(logs) == 12  # the logs come back from the workers into DIR/logs
    for log in logs:
        assert (tmp_path / "dask" / log).read_text() == (tmp_path / "pool" / log).read_text()
    assert (tmp_path / "dask" / "report.html").exists()


def test_unreachable_scheduler_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", "2s")
    code = main(["simulate", DUEL, "--games", "1", "--cluster", "tcp://127.0.0.1:9", "--out", str(tmp_path)])
    assert code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
