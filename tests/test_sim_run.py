"""Running simulations: determinism, pairing, logs that replay, nothing lost or played twice
(a SIGKILLed run resumed, a torn last line, a killed worker, a game that raises)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from game.cli import main
from game.engine.actions import load_script
from game.engine.replay import replay
from game.engine.scenario import load_scenario
from game.sim.lines import line_hash
from game.sim.match import _Observed, play, unit_type
from game.sim.results import GamesFile, OutDir
from game.sim.runner import run_jobs
from game.sim.study import Plan, resolve

from tests import sim_helpers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "scripts", "duel.yaml")
#: Short games: the duel map, 3 game turns.
FAST = [DUEL, "--turn-limit", "3"]
FORMAT_KEYS = {
    "variant",
    "seed",
    "swapped",
    "bots",
    "winner",
    "draw",
    "turns",
    "lost",
    "treasure",
    "rout_turn",
    "illegal",
    "actions",
    "seconds",
    "end",
    "rules_fired",
    "seats",
}


def records(path) -> list[dict]:
    return list(GamesFile(os.path.join(str(path), "games.jsonl")).read())


def without_seconds(recs: list[dict]) -> list[str]:
    """Order-independent comparison, ignoring the wall time."""
    return sorted(json.dumps({k: v for k, v in r.items() if k != "seconds"}, sort_keys=True) for r in recs)


def keys(recs: list[dict]) -> list[tuple]:
    return [(r["variant"], r["seed"], r["swapped"]) for r in recs]


@pytest.mark.slow
def test_same_seeds_give_the_same_games(tmp_path, capsys):
    args = FAST + ["--games", "3", "--swap", "--seed", "5", "--variant", "default", "--variant", "rout_threshold=2"]
    assert main(["simulate", *args, "--workers", "2", "--out", str(tmp_path / "a")]) == 0
    assert main(["simulate", *args, "--workers", "1", "--out", str(tmp_path / "b")]) == 0
    a, b = records(tmp_path / "a"), records(tmp_path / "b")
    assert len(a) == 12
    assert without_seconds(a) == without_seconds(b)
    for r in a:
        assert FORMAT_KEYS <= set(r)
        assert r["illegal"] == 0 and r["actions"] > 0 and r["turns"] <= 3
        assert sum(r["lost"].values()) == sum(n for t in r["lost_types"].values() for n in t.values())
        assert r["end"] in ("rout", "turn_limit", "eliminated") and 0 <= r["quiet"]["turns"] <= r["turns"]
        assert (r["end"] == "rout") == bool(r["routed"]) and (r["end"] == "turn_limit") == (
            r["rules_fired"].get("T1") == 1
        )
        assert all(isinstance(k, str) and isinstance(n, int) and n > 0 for k, n in r["rules_fired"].items())
        # a loss fires U6 (the loss is counted) at least once per unit lost
        assert r["rules_fired"].get("U6", 0) >= sum(r["lost"].values())
    assert "12 game(s) played" in capsys.readouterr().out


@pytest.mark.slow
def test_variants_play_paired_games(tmp_path):
    assert (
        main(
            [
                "simulate",
                *FAST,
                "--games",
                "3",
                "--swap",
                "--seed",
                "10",
                "--bots",
                "random,utility",
                "--variant",
                "default",
                "--variant",
                "rout-legacy",
                "--variant",
                "treasure_denial_range=3",
                "--workers",
                "2",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    recs = records(tmp_path)
    by_variant: dict[str, set] = {}
    for r in recs:
        by_variant.setdefault(r["variant"], set()).add((r["seed"], r["swapped"]))
    expected = {(s, w) for s in (10, 11, 12) for w in (False, True)}
    assert by_variant == {"default": expected, "rout-legacy": expected, "treasure_denial_range=3": expected}
    for r in recs:  # the bots stay with their warband; swapping hands the first move to the other one
        assert r["bots"] == (["utility", "random"] if r["swapped"] else ["random", "utility"])
        assert r["seats"] == (["blue", "red"] if r["swapped"] else ["red", "blue"])
    assert len(set(keys(recs))) == len(recs) == 18


@pytest.mark.slow
def test_two_bot_pairings_play_every_variant_on_the_same_seeds(tmp_path):
    """--bots twice: each pairing plays each variant on each seed and seats; the summary
    holds each pairing's comparison (by_bots) and marks every pooled difference robust or not."""
    assert (
        main(
            [
                "simulate",
                *FAST,
                "--games",
                "2",
                "--swap",
                "--bots",
                "utility,utility",
                "--bots",
                "random,random",
                "--variant",
                "default",
                "--variant",
                "rout_threshold=2",
                "--workers",
                "2",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    recs = records(tmp_path)
    assert len(recs) == 2 * 2 * 2 * 2
    played = {}
    for r in recs:
        played.setdefault(tuple(r["pairing"]), set()).add((r["variant"], r["seed"], r["swapped"]))
    assert played[("utility", "utility")] == played[("random", "random")] and len(played) == 2
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["bots"] == [["utility", "utility"], ["random", "random"]]
    assert [b["bots"] for b in summary["by_bots"]] == summary["bots"]
    c = summary["comparisons"][0]
    assert c["pairs"] == 8 and all(b["comparisons"][0]["pairs"] == 4 for b in summary["by_bots"])
    for d in list(c["win_rate"].values()) + [c["turns"], c["routs"]]:
        signs = [x["sign"] for x in d["clear_in"]]
        assert d["robust"] == (
            d["clear"] and d["verdict"] != "untested" and all(s == (d["mean"] > 0) - (d["mean"] < 0) for s in signs)
        )
    page = (tmp_path / "report.html").read_text()
    assert "Bots by variant" in page and "random vs random" in page


@pytest.mark.slow
def test_a_variant_whose_rule_cannot_fire_is_untested(tmp_path):
    """jump_gap_max (M8) on a map with no gap to jump: M8 never fires, so the comparison is
    untested, whatever its games did."""
    assert (
        main(
            [
                "simulate",
                *FAST,
                "--games",
                "2",
                "--variant",
                "default",
                "--variant",
                "jump_gap_max=1",
                "--workers",
                "2",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    assert all("M8" not in r["rules_fired"] for r in records(tmp_path))
    c = json.loads((tmp_path / "summary.json").read_text())["comparisons"][0]
    assert (c["rules_changed"], c["fired_pairs"], c["tested"]) == (["M8"], 0, False)
    page = (tmp_path / "report.html").read_text()
    assert "never came into play" in page and "no clear difference" not in page


@pytest.mark.slow
def test_kept_logs_replay_exactly(tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        main(
            [
                "simulate",
                *FAST,
                "--games",
                "2",
                "--swap",
                "--variant",
                "rout_threshold=2",
                "--keep-logs",
                "--workers",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    spec, _ = OutDir(str(out)).read_spec()
    recs = records(out)
    assert len(recs) == 4
    for r in recs:
        slug = spec.variant(r["variant"]).slug
        scen = out / "scenarios" / f"{slug}{'-swapped' if r['swapped'] else ''}.yaml"
        log = out / "logs" / slug / f"seed-{r['seed']}{'-swapped' if r['swapped'] else ''}.yaml"
        script = load_script(str(log))
        assert script.seed == r["seed"] and len(script.actions) == r["actions"]
        game = replay(load_scenario(str(scen)), script)
        assert all(e.ok for e in game.log)
        assert game.state.turn == r["turns"] and game.winner == r["winner"]
        assert dict(game.state.lost) == {**dict(game.state.lost), **r["lost"]}
        assert load_scenario(str(scen)).ruleset.rout_threshold == 2
        # the record's line is the hash of the actions its log replays
        assert r["line"] == line_hash(script.actions) and len(r["line"]) == 12
        assert r["decided_by"] == (r["end"] if r["winner"] else None)
    # the documented command: speedheim replay SCENARIO LOG --json ends on the record's result
    r = recs[0]
    slug = spec.variant(r["variant"]).slug
    sw = "-swapped" if r["swapped"] else ""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "game",
            "replay",
            str(out / "scenarios" / f"{slug}{sw}.yaml"),
            str(out / "logs" / slug / f"seed-{r['seed']}{sw}.yaml"),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    final = json.loads(done.stdout.splitlines()[-1])["final"]
    assert final["turn"] == r["turns"] and final["winner"] == r["winner"]
    assert all(json.loads(line)["ok"] for line in done.stdout.splitlines()[:-1])


def test_losses_by_unit_type_and_rout_turn_follow_the_game():
    sc = load_scenario(DUEL)
    game = _Observed(sc)
    game.apply({"incapacitate": {"unit": "blue-thug"}})
    assert game.lost_types == {"blue": {"Thug": 1}} and game.rout_turn is None
    game.apply({"set_status": {"unit": "red-hound", "status": "incapacitated"}})
    assert game.lost_types == {"blue": {"Thug": 1}, "red": {"Hound": 1}}
    assert unit_type("Cultist 12") == "Cultist" and unit_type("Captain Aldric") == "Captain Aldric"


@pytest.mark.slow
def test_resume_after_sigkill_plays_each_game_once(tmp_path):
    n = 12  # games per variant: the run is killed after 6 of the 24
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "game",
        "simulate",
        *FAST,
        "--games",
        str(n),
        "--variant",
        "default",
        "--variant",
        "rout_threshold=2",
        "--workers",
        "2",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    games = out / "games.jsonl"
    deadline = time.time() + 120
    try:
        while time.time() < deadline and proc.poll() is None:
            if games.exists() and games.read_bytes().count(b"\n") >= 6:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # the run's main process, mid-run
        proc.wait()
    try:  # its worker processes notice and end, instead of waiting for work forever
        assert _wait_group_empty(proc.pid, 15), "worker processes outlived the killed run"
    finally:
        _killpg(proc.pid)
    before = records(out)
    assert 6 <= len(before) < 2 * n
    assert main(["simulate", "--resume", "--out", str(out), "--workers", "2"]) == 0
    after = records(out)
    expected = {(v, s, False) for v in ("default", "rout_threshold=2") for s in range(n)}
    assert len(after) == 2 * n and set(keys(after)) == expected  # none missing, none twice
    assert without_seconds(after[: len(before)]) == without_seconds(before)  # finished games kept as they were
    fresh = tmp_path / "fresh"
    assert (
        main(
            [
                "simulate",
                *FAST,
                "--games",
                str(n),
                "--variant",
                "default",
                "--variant",
                "rout_threshold=2",
                "--workers",
                "2",
                "--out",
                str(fresh),
            ]
        )
        == 0
    )
    assert without_seconds(after) == without_seconds(records(fresh))  # the same games as an uninterrupted run


@pytest.mark.slow
def test_ctrl_c_stops_the_run_and_keeps_the_finished_games(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "game", "simulate", *FAST, "--games", "200", "--workers", "2", "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    games = out / "games.jsonl"
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not (games.exists() and games.read_bytes().count(b"\n") >= 3):
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl+C at a terminal reaches the whole group
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        _killpg(proc.pid)
    assert proc.returncode == 130
    assert f"finish the run with: speedheim simulate --resume --out {out}" in stderr
    assert "Traceback" not in stderr
    recs = records(out)
    assert 3 <= len(recs) < 200 and len(set(keys(recs))) == len(recs)
    assert games.read_bytes().endswith(b"\n")


def _group(pgid: int) -> list[str]:
    ps = subprocess.run(["ps", "-o", "pid=", "-g", str(pgid)], capture_output=True, text=True)
    return ps.stdout.split()


def _wait_group_empty(pgid: int, seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not _group(pgid):
            return True
        time.sleep(0.2)
    return False


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.slow
def test_torn_last_line_is_dropped_and_played_again(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", *FAST, "--games", "4", "--workers", "1", "--out", str(out)]) == 0
    path = out / "games.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    torn = lines[-1][: len(lines[-1]) // 2]
    path.write_bytes(b"".join(lines[:-1]) + torn)  # a crash in the middle of the last write
    assert len(records(out)) == 3
    assert main(["simulate", "--resume", "--out", str(out), "--workers", "1"]) == 0
    assert "dropped a torn last line" in capsys.readouterr().err
    recs = records(out)
    assert sorted(keys(recs)) == [("default", s, False) for s in range(4)]
    assert path.read_bytes().count(b"\n") == 4


def test_bad_line_in_the_middle_is_reported_with_its_line(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(
        '{"variant": "default", "seed": 0, "swapped": false, "turns": 3}\nnot json\n'
        '{"variant": "default", "seed": 1, "swapped": false, "turns": 3}\n'
    )
    assert main(["simulate", "--report", str(tmp_path)]) == 2
    assert f"{path}:2: not a game record" in capsys.readouterr().err


def test_whole_last_record_without_newline_is_kept(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text('{"variant": "v", "seed": 0, "swapped": false}\n{"variant": "v", "seed": 1, "swapped": false}')
    f = GamesFile(str(path))
    assert f.keys() == {("v", 0, False, ("?", "?")), ("v", 1, False, ("?", "?"))}
    assert f.repair() is False
    f.append({"variant": "v", "seed": 2, "swapped": False})
    f.close()
    assert f.keys() == {("v", s, False, ("?", "?")) for s in range(3)}


@pytest.mark.slow
def test_resume_refuses_other_options_and_a_fresh_run_refuses_a_used_folder(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", *FAST, "--games", "2", "--workers", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["simulate", *FAST, "--games", "2", "--out", str(out)]) == 2
    assert "finish it with --resume" in capsys.readouterr().err
    assert (
        main(["simulate", *FAST, "--games", "2", "--variant", "rout_threshold=2", "--resume", "--out", str(out)]) == 2
    )
    assert "other options" in capsys.readouterr().err
    # the same command again with --resume and more games extends the run
    assert main(["simulate", *FAST, "--games", "3", "--resume", "--workers", "1", "--out", str(out)]) == 0
    assert sorted(keys(records(out))) == [("default", s, False) for s in range(3)]


def _jobs(n: int, **plan):
    spec, texts = resolve(Plan(scenario=DUEL, games=n, turn_limit=2, **plan))
    return list(spec.jobs(texts, lambda slug, sw: f"{slug}.yaml", set()))


@pytest.mark.slow
def test_a_killed_worker_is_retried(tmp_path, monkeypatch):
    monkeypatch.setenv(sim_helpers.MARKER, str(tmp_path / "killed"))
    jobs = _jobs(5)
    got = []
    result = run_jobs(
        jobs, len(jobs), lambda job, rec, log: got.append(rec), workers=2, fn=sim_helpers.die_once, progress=False
    )
    assert (tmp_path / "killed").exists()  # a worker really died
    assert result.retried >= 1 and not result.failed
    assert sorted(r["seed"] for r in got) == [0, 1, 2, 3, 4]
    assert without_seconds(got) == without_seconds([play(j)[0] for j in jobs])


def test_a_game_that_raises_is_reported_and_the_run_goes_on(tmp_path):
    jobs = _jobs(3)
    got = []
    result = run_jobs(
        jobs, len(jobs), lambda job, rec, log: got.append(rec), workers=2, fn=sim_helpers.fail_seed_1, progress=False
    )
    assert sorted(r["seed"] for r in got) == [0, 2]
    assert [j.seed for j, _ in result.failed] == [1] and "a bug in seed 1" in result.failed[0][1]


@pytest.mark.slow
def test_memory_window_is_bounded():
    """The runner pulls jobs lazily: it never asks for more than its window ahead."""
    pulled = []

    def jobs():
        for job in _jobs(12):
            pulled.append(job.seed)
            yield job

    seen_at_first_result = []
    run_jobs(jobs(), 12, lambda job, rec, log: seen_at_first_result.append(len(pulled)), workers=1, progress=False)
    assert seen_at_first_result[0] <= 1 * 3 + 1  # window: 3 jobs per worker
    assert len(pulled) == 12


@pytest.mark.parametrize("swapped", [False, True])
def test_job_is_picklable_and_deterministic(swapped):
    import pickle

    job = [j for j in _jobs(2, swap=True) if j.swapped == swapped][0]
    again = pickle.loads(pickle.dumps(job))
    a, b = play(job)[0], play(again)[0]
    a.pop("seconds"), b.pop("seconds")
    assert a == b
