"""Issue 48 (3, 6): the files of a simulation run never mix and never crash the command.
One run at a time writes into a folder (a second exits 2 naming the first); --report
refuses duplicate or malformed records with FILE:LINE; a game's log is on disk, whole,
before its record; a file error is one line and exit 2; a run whose every game failed
exits 1 naming errors.log."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from game.cli import main
from game.sim import command
from game.sim.results import OutDir
from tests import sim_helpers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "scripts", "duel.yaml")
GAMES = os.path.join(ROOT, "tests", "data", "sim-games.jsonl")
FAST = [DUEL, "--turn-limit", "2", "--workers", "1"]


def test_a_second_run_into_a_held_folder_exits_2_naming_the_first(tmp_path, capsys):
    out = tmp_path / "run"
    first = OutDir(str(out))
    first.lock()
    try:
        assert main(["simulate", *FAST, "--games", "1", "--out", str(out)]) == 2
    finally:
        first.unlock()
    err = capsys.readouterr().err
    assert f"pid {os.getpid()}" in err and "another simulate" in err
    assert not (out / "games.jsonl").exists() and not (out / "run.json").exists()
    assert main(["simulate", *FAST, "--games", "1", "--out", str(out)]) == 0  # free again


def test_two_runs_started_together_into_one_folder_never_both_succeed(tmp_path):
    out = str(tmp_path / "run")
    env = {**os.environ, "PYTHONPATH": ROOT}
    cmd = [sys.executable, "-m", "game", "simulate", "--games", "2", "--out", out]
    runs = [
        subprocess.Popen(
            cmd + [DUEL, "--turn-limit", "2", "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ),
        subprocess.Popen(
            cmd + [os.path.join(ROOT, "tests", "scripts", "skirmish.yaml"), "--turn-limit", "2", "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ),
    ]
    codes = [(p.wait(timeout=300), p.stderr.read()) for p in runs]
    assert sorted(c for c, _ in codes) == [0, 2], codes
    assert any("another simulate" in e or "already holds" in e for c, e in codes if c == 2)
    recs = [json.loads(line) for line in open(os.path.join(out, "games.jsonl"))]
    assert len(recs) == 2  # one run's games only


def test_report_refuses_a_game_recorded_twice(tmp_path, capsys):
    d = tmp_path / "mixed"
    d.mkdir()
    lines = open(GAMES).read().splitlines()
    (d / "games.jsonl").write_text("\n".join(lines + lines[:1]) + "\n")
    assert main(["simulate", "--report", str(d)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"{d / 'games.jsonl'}:{len(lines) + 1}: game recorded twice (variant 'default', seed 0, bots "
        f"utility,utility; first on line 1): two runs wrote into one folder?"
    )
    assert not (d / "summary.json").exists()


@pytest.mark.parametrize(
    "text,said",
    [
        ("{}\n", ":1: not a game record: 'variant' must be"),
        ('{"variant": "a", "seed": "x", "turns": 3}\n', ":1: not a game record: 'seed' must be a whole number"),
        (
            '{"variant": "a", "seed": 1, "turns": NaN}\n{"variant": "a", "seed": 2, "turns": 1}\n',
            ":1: not a game record",
        ),
        ("", ":1: no game records in it"),
    ],
)
def test_report_on_json_that_is_no_game_is_one_line(tmp_path, capsys, text, said):
    d = tmp_path / "odd"
    d.mkdir()
    (d / "games.jsonl").write_text(text)
    assert main(["simulate", "--report", str(d)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "Traceback" not in err[0]


@pytest.mark.parametrize("where", ["file", "readonly"])
def test_an_out_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, capsys, where):
    if where == "file":
        out = tmp_path / "taken"
        out.write_text("a file, not a folder\n")
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into a read-only folder")
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        out = ro / "run"
    assert main(["simulate", *FAST, "--games", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "cannot write" in err[0]


def test_a_full_disk_while_appending_is_one_line_exit_2_and_keeps_the_games(tmp_path, capsys, monkeypatch):
    from game.sim import results

    real = results.GamesFile.append
    calls = []

    def full(self, record):
        calls.append(record)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        real(self, record)

    monkeypatch.setattr(results.GamesFile, "append", full)
    out = tmp_path / "run"
    assert main(["simulate", *FAST, "--games", "3", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left" in err[0] and "--resume" in err[0]
    assert len((out / "games.jsonl").read_text().splitlines()) == 1


def test_a_log_is_written_whole_before_its_record(tmp_path, monkeypatch):
    from game.sim import results

    seen = []
    real = results.GamesFile.append

    def check(self, record):
        logs = [os.path.join(dp, f) for dp, _, fs in os.walk(tmp_path / "run" / "logs") for f in fs]
        seen.append([os.path.getsize(p) > 0 for p in logs])
        real(self, record)

    monkeypatch.setattr(results.GamesFile, "append", check)
    assert main(["simulate", *FAST, "--games", "2", "--keep-logs", "--out", str(tmp_path / "run")]) == 0
    assert [len(s) for s in seen] == [1, 2] and all(all(s) for s in seen)


def test_a_run_whose_every_game_fails_exits_1_naming_errors_log(tmp_path, capsys, monkeypatch):
    real = command.run_jobs
    monkeypatch.setattr(command, "run_jobs", lambda *a, **k: real(*a, **{**k, "fn": sim_helpers.fail_all}))
    out = tmp_path / "run"
    assert main(["simulate", *FAST, "--games", "2", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert str(out / "errors.log") in err and "a bug in seed" in (out / "errors.log").read_text()
    assert main(["simulate", "--report", str(out)]) == 2
    assert str(out / "errors.log") in capsys.readouterr().err


def test_report_on_a_games_file_that_is_a_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "games.jsonl").mkdir()
    assert main(["simulate", "--report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{tmp_path / 'games.jsonl'}: Is a directory"]
