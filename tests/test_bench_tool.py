"""`make bench`'s machinery (tools/bench.py, tools/bench_ladder.py), without timing anything:
the arguments, the baseline's export and its cleanup, which code a child measures, the
alternation of the trees, the ratio tables, the page's generated blocks, and the ladder's
scoring of game records."""

from __future__ import annotations

import contextlib
import pathlib
import subprocess
import sys
import tempfile

import pytest

from tools import bench
from tools import bench_ladder as ladder


# --- arguments ----------------------------------------------------------------------------------

AREAS = ["ladder", "legality", "sim"]


def test_defaults_run_every_area_against_the_previous_commit_three_rounds():
    opts = bench.parse_args([], known=AREAS)
    assert (opts.areas, opts.base, opts.rounds, opts.quick) == (AREAS, "HEAD~1", 3, False)
    assert opts.out == bench.PAGE


def test_quick_means_one_round_and_areas_and_base_are_chosen():
    opts = bench.parse_args(["sim", "--quick", "--base", "abc123"], known=AREAS)
    assert (opts.areas, opts.base, opts.rounds, opts.quick) == (["sim"], "abc123", 1, True)
    assert bench.parse_args(["--no-base", "--rounds", "5"], known=AREAS).base is None
    assert bench.parse_args(["--quick", "--rounds", "2"], known=AREAS).rounds == 2


@pytest.mark.parametrize("argv", [["simm"], ["--rounds", "0"], ["--rounds", "x"]])
def test_a_typo_or_a_bad_count_is_refused_before_anything_runs(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        bench.parse_args(argv, known=AREAS)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert ("unknown area(s): simm" in err) if argv == ["simm"] else "rounds" in err


def test_the_header_says_the_rounds_the_areas_ran():
    """A ladder-only run plays one round a tree, whatever ``--rounds`` asked."""
    assert bench.rounds_text({"ladder": 1}) == "1 round(s)"
    assert bench.rounds_text({"sim": 3, "ui": 3}) == "3 round(s)"
    assert bench.rounds_text({"ladder": 1, "sim": 3}) == "round(s): ladder 1, sim 3"


def test_every_bench_file_is_an_area_and_the_ladder_is_one():
    areas = bench.all_areas()
    assert "ladder" in areas and "sim" in areas and "bench" not in areas
    assert bench.area_rounds(bench.HERE / "bench_ladder.py", 3) == 1  # the same games every run
    assert bench.area_rounds(bench.HERE / "bench_sim.py", 3) == 3


# --- the baseline's export ------------------------------------------------------------------------


def _repo(tmp: pathlib.Path) -> pathlib.Path:
    """A git repository with two commits of game/__init__.py ("old", then "new")."""
    repo = tmp / "repo"
    (repo / "game").mkdir(parents=True)
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    for word in ("old", "new"):
        (repo / "game" / "__init__.py").write_text(f"WORD = {word!r}\n")
        (repo / "notes.txt").write_text(word)
        run("add", "-A")
        run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", word)
    return repo


def test_the_baseline_is_the_previous_commit_s_code_and_is_removed_afterwards(tmp_path):
    repo = _repo(tmp_path)
    with bench.baseline_tree("HEAD~1", repo=repo) as (folder, commit):
        assert (folder / "game" / "__init__.py").read_text() == "WORD = 'old'\n"
        assert not (folder / "notes.txt").exists()  # only the code under test
        assert commit == bench.git("rev-parse", "--short", "HEAD~1", repo=repo)
        kept = folder
    assert not kept.exists()


def test_the_baseline_folder_is_removed_when_the_bench_fails(tmp_path):
    repo = _repo(tmp_path)
    with pytest.raises(KeyError):
        with bench.baseline_tree("HEAD~1", repo=repo) as (folder, _):
            kept = folder
            raise KeyError("a bench broke")
    assert not kept.exists()


def test_an_unknown_baseline_is_an_error_and_leaves_no_folder(tmp_path):
    repo = _repo(tmp_path)
    before = set(pathlib.Path(tempfile.gettempdir()).glob("speedheim-bench-*"))
    with pytest.raises(RuntimeError, match="no-such-rev"):
        with bench.baseline_tree("no-such-rev", repo=repo):
            pass
    assert set(pathlib.Path(tempfile.gettempdir()).glob("speedheim-bench-*")) == before


def test_this_tree_is_described_with_its_uncommitted_changes(tmp_path):
    repo = _repo(tmp_path)
    head = bench.git("rev-parse", "--short", "HEAD", repo=repo)
    assert bench.describe_head(repo) == head
    (repo / "notes.txt").write_text("edited")
    assert bench.describe_head(repo) == head + " + uncommitted changes"


# --- which code a child measures ----------------------------------------------------------------------

BENCH_FILE = """
import game
from dataclasses import dataclass


@dataclass
class Kept:          # a dataclass needs its module registered in sys.modules
    n: int = 0


def run():
    return [{"name": "which", "value": 1.0, "unit": "x", "target": getattr(game, "WHERE", "?"), "ok": True}]
"""


def _code(tmp: pathlib.Path, where: str) -> pathlib.Path:
    (tmp / where / "game").mkdir(parents=True)
    (tmp / where / "game" / "__init__.py").write_text(f"WHERE = {where!r}\n")
    return tmp / where


def test_a_child_measures_the_game_package_of_the_tree_it_is_given(tmp_path):
    script = tmp_path / "bench_which.py"
    script.write_text(BENCH_FILE)
    rows = bench.run_isolated(script, _code(tmp_path, "old"))
    assert rows[0]["target"] == "old"


CACHE_FILE = """
import os


def run():
    return [{"name": "cache", "value": 1.0, "unit": "x", "target": os.environ.get("SPEEDHEIM_NAV_CACHE"), "ok": True}]
"""


def test_each_tree_keeps_the_engine_cache_in_a_folder_of_its_own(tmp_path, monkeypatch):
    """The disk cache is found by a stamp of the engine's code: the baseline's file, grown
    by every earlier run on its code, must not stand against a new tree's empty one."""
    monkeypatch.delenv("SPEEDHEIM_NAV_CACHE", raising=False)
    trees = {"this": tmp_path / "this", "base": tmp_path / "base"}
    with contextlib.ExitStack() as stack:
        caches = bench.nav_caches(stack, trees)
        assert set(caches) == {"this", "base"} and caches["this"] != caches["base"]
        assert all(c.is_dir() and not any(c.iterdir()) for c in caches.values())
        script = tmp_path / "bench_cache.py"
        script.write_text(CACHE_FILE)
        rows = bench.run_isolated(script, _code(tmp_path, "old"), cache=caches["base"])
        assert rows[0]["target"] == str(caches["base"])
    assert not any(c.exists() for c in caches.values())
    # a folder (or 0) the caller names is kept for both
    monkeypatch.setenv("SPEEDHEIM_NAV_CACHE", "0")
    with contextlib.ExitStack() as stack:
        assert bench.nav_caches(stack, trees) == {}


def test_a_script_that_puts_this_tree_first_is_caught_not_measured(tmp_path):
    script = tmp_path / "bench_which.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(bench.ROOT)!r})\n" + BENCH_FILE)
    with pytest.raises(RuntimeError, match="measured the game package at"):
        bench.run_isolated(script, _code(tmp_path, "old"))


def test_the_trees_alternate_and_a_failing_tree_is_reported_not_rerun(monkeypatch, tmp_path):
    (tmp_path / "bench_x.py").write_text("def run():\n    return []\n")
    calls = []

    def fake(path, code, quick=False, cache=None):
        calls.append(code.name)
        if code.name == "base":
            raise RuntimeError("ImportError: no such thing")
        return [{"name": "t", "value": 1.0, "unit": "s", "target": "", "ok": True}]

    monkeypatch.setattr(bench, "run_isolated", fake)
    trees = {"this": tmp_path / "this", "base": tmp_path / "base"}
    m = bench.measure("x", trees, 3, False, folder=tmp_path)
    assert calls == ["this", "base", "this", "this"]
    assert len(m.runs["this"]) == 3 and "ImportError" in m.failed["base"]

    calls.clear()
    monkeypatch.setattr(
        bench, "run_isolated", lambda path, code, quick=False, cache=None: calls.append(code.name) or []
    )
    bench.measure("x", trees, 4, False, folder=tmp_path)
    assert calls == ["this", "base", "base", "this", "this", "base", "base", "this"]


# --- figures and tables -----------------------------------------------------------------------------


def _row(name, value, ok=True, unit="ms"):
    return {"name": name, "value": value, "unit": unit, "target": "<= 16", "ok": ok}


def test_a_figure_is_the_median_of_its_rounds_with_their_range_and_the_median_round_s_verdict():
    runs = [
        [_row("a (12 calls)", 10.0, True), _row("pair", "3 / 9")],
        [_row("a (13 calls)", 30.0, False), _row("pair", "4 / 8")],
        [_row("a (12 calls)", 20.0, False), _row("pair", "5 / 7")],
    ]
    a, pair = bench.combine(runs)
    assert (a.value, a.low, a.high, a.ok, a.rounds) == (20.0, 10.0, 30.0, False, 3)
    assert a.name == "a (12 calls)"  # the last round's words
    assert pair.value == "5 / 7" and pair.low is None
    assert bench.shown(a) == "20 ms (10-30)"
    assert bench.shown(bench.combine(runs[:1])[0]) == "10 ms"


def test_the_table_shows_each_figure_beside_the_baseline_s_with_the_ratio():
    now = bench.combine([[_row("one game", 0.6, unit="s"), _row("games/s", 3.0, unit="games/s"), _row("p", "1 / 2")]])
    base = bench.combine([[_row("one game", 1.2, unit="s"), _row("games/s", 0.0, unit="games/s"), _row("p", "1 / 3")]])
    lines = bench.area_table(now, base).splitlines()
    assert lines[0] == "| figure | this tree | baseline | ratio | target | met |"
    assert lines[2] == "| one game | 0.6 s | 1.2 s | 0.50x | <= 16 | yes |"
    assert lines[3].split(" | ")[3] == "-"  # a zero baseline has no ratio
    assert lines[4] == "| p | 1 / 2 ms | 1 / 3 ms | - | <= 16 | yes |"


def test_a_ratio_within_the_rounds_spread_says_so():
    now = bench.combine([[_row("a", 10.0)], [_row("a", 14.0)], [_row("a", 12.0)]])
    near = bench.combine([[_row("a", 13.0)], [_row("a", 15.0)], [_row("a", 16.0)]])
    far = bench.combine([[_row("a", 20.0)], [_row("a", 22.0)], [_row("a", 24.0)]])
    assert bench.area_table(now, near).splitlines()[2].split(" | ")[3] == "0.80x (within the spread)"
    assert bench.area_table(now, far).splitlines()[2].split(" | ")[3] == "0.55x"
    assert not bench.overlap(bench.combine([[_row("a", 10.0)]])[0], bench.combine([[_row("a", 10.0)]])[0])


def test_without_a_baseline_or_with_a_failed_run_the_table_says_so():
    now = bench.combine([[_row("a|b", 2.0, None)]])
    assert bench.area_table(now, None).splitlines()[2] == "| a\\|b | 2 ms | <= 16 | too few to tell |"
    lines = bench.area_table(now, [], {"base": "ImportError: x"}).splitlines()
    assert lines[2] == "| a\\|b | 2 ms | - | - | <= 16 | too few to tell |"
    assert lines[3].startswith("| (failed to run on the baseline) | ImportError: x |")


def test_the_page_keeps_its_prose_and_rewrites_only_its_blocks():
    page = (
        "# Benchmarks\n\nWhy these figures.\n\n<!-- bench:header -->\nold header\n<!-- /bench:header -->\n\n"
        "## Sim\n\nWhat sim measures.\n\n<!-- bench:sim -->\n| old |\n<!-- /bench:sim -->\n\nAfter.\n"
    )
    new = bench.update_page(page, {"sim": "| new |", "header": "new header", "ladder": "| ladder |"})
    assert "Why these figures." in new and "What sim measures." in new and "\nAfter.\n" in new
    assert "<!-- bench:sim -->\n| new |\n<!-- /bench:sim -->" in new and "| old |" not in new
    assert "<!-- bench:header -->\nnew header\n<!-- /bench:header -->" in new
    assert new.rstrip().endswith("## Area `ladder`\n\n<!-- bench:ladder -->\n| ladder |\n<!-- /bench:ladder -->")
    assert bench.update_page(new, {"sim": "| new |"}) == new  # stable when nothing changed


def test_the_page_has_a_block_for_every_area():
    page = bench.PAGE.read_text(encoding="utf-8")
    for name in ["header"] + bench.all_areas():
        assert f"<!-- bench:{name} -->" in page and f"<!-- /bench:{name} -->" in page, name


# --- the ladder ----------------------------------------------------------------------------------


def _game(bots, seats, winner, decided_by="rout", illegal=0):
    return {
        "bots": list(bots),
        "seats": list(seats),
        "winner": winner,
        "draw": winner is None,
        "decided_by": decided_by if winner else None,
        "illegal": illegal,
    }


def test_a_game_is_scored_for_the_bot_of_the_winning_warband_s_seat():
    g = _game(("planner", "utility"), ("south", "north"), "north", "turn_limit")
    assert (ladder.score(g, "utility", "planner").won, ladder.score(g, "planner", "utility").lost) == (1, 1)
    assert ladder.score(g, "utility", "planner").how == {"turn_limit": 1}
    assert ladder.score(_game(("planner", "utility"), ("south", "north"), None), "planner", "utility").drawn == 1
    with pytest.raises(ValueError):
        ladder.score(g, "planner:2s", "utility")


def test_the_ladder_rows_count_decided_games_draws_and_how_with_their_interval():
    cells = {}
    for bots, seats, winner, how in [
        (("planner", "utility"), ("a", "b"), "a", "rout"),
        (("utility", "planner"), ("a", "b"), "b", "turn_limit"),
        (("planner", "utility"), ("b", "a"), None, None),
        (("utility", "planner"), ("b", "a"), "b", "rout"),
    ]:
        g = _game(bots, seats, winner, how, illegal=1 if winner is None else 0)
        for bot, other in ((bots[0], bots[1]), (bots[1], bots[0])):
            cells.setdefault(("default", bot, other), ladder.Cell()).add(ladder.score(g, bot, other))
    rows = ladder.rows_of(cells, ("utility", "planner"), ("default",), games=1)
    pooled, by_map, refused = rows
    assert pooled["value"] == 66.7 and pooled["target"] == ">= 80" and pooled["ok"] is None  # 2 of 3: too few
    assert pooled["name"].startswith("planner vs utility, 1 map (4 games): won 2, lost 1, drawn 1 of 4; 95% CI")
    assert "decided by rout 2, turn limit 1" in pooled["name"]
    assert by_map["name"].startswith("planner vs utility, default.yaml (4 games)")
    assert (refused["value"], refused["ok"]) == (1, False)
    table = ladder.matrix(cells, ("utility", "planner"), ("default",))
    assert "| planner | 67% (" in table and "| utility | - | 33% (" in table


def test_the_ladder_rows_say_what_each_seat_won():
    """The first player's edge is large on the bundled maps: each row counts the games
    from seat 1 and from seat 2 apart, pooled over the maps and map by map."""
    cells = {}
    for bots, seats, winner in [
        (("planner", "utility"), ("a", "b"), "a"),  # planner in seat 1, won
        (("utility", "planner"), ("a", "b"), "a"),  # planner in seat 2, lost
        (("utility", "planner"), ("b", "a"), None),  # planner in seat 2, drawn
    ]:
        g = _game(bots, seats, winner, "turn_limit" if winner else None, illegal=0 if winner else 1)
        for seat, (bot, other) in enumerate(((bots[0], bots[1]), (bots[1], bots[0])), start=1):
            for key in (("mirror", bot, other), ("mirror", bot, other, seat)):
                cells.setdefault(key, ladder.Cell()).add(ladder.score(g, bot, other))
    pooled, by_map, refused = ladder.rows_of(cells, ("utility", "planner"), ("mirror",), games=1)
    for r in (pooled, by_map):
        assert r["name"].endswith("; from seat 1 1-0-0, from seat 2 0-1-1 (won-drawn-lost)"), r["name"]
    assert pooled["value"] == 50.0 and refused["value"] == 1  # the seats' cells are not counted twice


def test_the_ladder_plays_every_bot_with_both_warbands_in_both_seats():
    jobs = [job for _, job in ladder.plan_jobs(("default",), ("utility", "random"), games=1)]
    assert len(jobs) == 4
    arrangements = {(job.bots, job.swapped) for job in jobs}
    assert arrangements == {
        (("utility", "random"), False),
        (("random", "utility"), True),
        (("random", "utility"), False),
        (("utility", "random"), True),
    }


def test_the_ladder_s_controls_play_themselves_on_the_same_seeds_from_both_seats():
    jobs = [job for _, job in ladder.plan_jobs(("default",), ("utility", "random"), games=1, controls=("utility",))]
    assert len(jobs) == 6
    own = [job for job in jobs if job.bots == ("utility", "utility")]
    assert sorted(job.swapped for job in own) == [False, True]
    assert {job.seed for job in jobs} == {own[0].seed}
    # a control that is not on the ladder plays nothing
    assert len(ladder.plan_jobs(("default",), ("utility", "random"), games=1, controls=("planner",))) == 4


def _paired_game(bots, swapped, winner, seed=0, line=None):
    seats = ["b", "a"] if swapped else ["a", "b"]
    g = _game(bots, seats, winner, "turn_limit")
    return g | {"variant": "default", "seed": seed, "swapped": swapped, "line": line or f"{bots}{swapped}{seed}"}


def test_the_target_pairings_are_paired_with_the_weaker_bot_s_own_games(monkeypatch):
    """Warband a wins whoever plays it; the planner, given a's opponent b, draws where
    utility lost: one pair better, the other the same, from the planner's side."""
    monkeypatch.setattr(ladder, "TARGETS", {("planner", "utility"): 0.8})
    records = {
        "default": [
            _paired_game(("utility", "planner"), False, None),  # planner b, seat 2: drew
            _paired_game(("planner", "utility"), True, "a"),  # planner b, seat 1: lost
            _paired_game(("utility", "utility"), False, "a"),  # utility b there: lost -> better
            _paired_game(("utility", "utility"), True, "a"),  # utility b there: lost -> same
        ]
    }
    paired = ladder.paired_counts(records)
    assert paired == {("default", "planner", "utility"): {"better": 1, "same": 1, "worse": 0}}
    row = ladder.paired_row("planner", "utility", ("default", "mirror"), paired)
    assert row["value"] == 100.0 and row["ok"] is True and row["target"] == "(information)"
    assert "planner's side did better in 1, the same in 1, worse in 0 (exact sign test p = 1)" in row["name"]
    assert "(default)" in row["name"]  # the maps it was paired on
    assert ladder.paired_row("planner", "utility", ("mirror",), paired) is None
    cells = {("default", "utility", "utility"): ladder.Cell(refused=2)}
    rows = ladder.rows_of(cells, ("utility", "planner"), ("default",), games=1, paired=paired)
    assert [r["unit"] for r in rows][-2:] == ["% of moved pairs up", "actions"]
    assert rows[-1]["value"] == 2  # a control's refused actions count too


def test_ladder_settings_come_from_the_environment():
    assert ladder.settings({}) == (1, ladder.BOTS, ladder.MAPS, None)
    env = {"LADDER_GAMES": "3", "LADDER_BOTS": "utility, planner:250ms", "LADDER_MAPS": "mirror", "LADDER_WORKERS": "1"}
    assert ladder.settings(env) == (3, ("utility", "planner:250ms"), ("mirror",), 1)


def test_the_bench_tool_runs_as_a_script_and_explains_itself():
    out = subprocess.run([sys.executable, str(bench.HERE / "bench.py"), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--base" in out.stdout and "--quick" in out.stdout


def test_quick_plays_fewer_games_unless_the_environment_says_how_many(tmp_path, monkeypatch):
    script = tmp_path / "bench_env.py"
    script.write_text(
        "import os\ndef run():\n    return [{'name': k, 'value': os.environ.get(k), 'unit': '',"
        " 'target': '', 'ok': True} for k in ('SPEEDHEIM_BOT_GAMES', 'SPEEDHEIM_PLANNER_GAMES')]\n"
    )
    code = _code(tmp_path, "old")
    monkeypatch.delenv("SPEEDHEIM_BOT_GAMES", raising=False)
    monkeypatch.setenv("SPEEDHEIM_PLANNER_GAMES", "9")
    assert [r["value"] for r in bench.run_isolated(script, code, quick=True)] == ["6", "9"]
    assert [r["value"] for r in bench.run_isolated(script, code, quick=False)] == [None, "9"]


def test_a_script_s_page_note_comes_under_its_table_for_each_tree(monkeypatch, tmp_path):
    script = tmp_path / "bench_n.py"
    script.write_text(
        "import game\nPAGE_NOTE = ''\ndef run():\n    global PAGE_NOTE\n"
        "    PAGE_NOTE = '| matrix of ' + getattr(game, 'WHERE', '?') + ' |'\n"
        "    return [{'name': 'r', 'value': 1.0, 'unit': 's', 'target': '', 'ok': True}]\n"
    )
    assert bench.run_isolated(script, _code(tmp_path, "old"))[-1] == {"note": "| matrix of old |"}
    trees = {"this": _code(tmp_path, "new"), "base": _code(tmp_path, "base")}
    m = bench.measure("n", trees, 1, False, folder=tmp_path)
    assert m.runs["this"] == [[{"name": "r", "value": 1.0, "unit": "s", "target": "", "ok": True}]]
    body = bench.area_body("n", m, "now", "abc", "def", 1)
    assert (
        body.index("| r | 1 s | 1 s | 1.00x |")
        < body.index("This tree:\n\n| matrix of new |")
        < body.index("Baseline:\n\n| matrix of base |")
    )


def test_a_terminated_bench_removes_the_baseline_folder(tmp_path):
    """SIGTERM while the bench runs (a timeout, a killed make): the baseline's temporary
    folder goes too."""
    repo = _repo(tmp_path)
    child = (
        f"import sys, time, pathlib, signal\nsys.path.insert(0, {str(bench.ROOT)!r})\nfrom tools import bench\n"
        "signal.signal(signal.SIGTERM, bench._exit_on_term)\n"
        f"with bench.baseline_tree('HEAD~1', repo=pathlib.Path({str(repo)!r})) as (folder, _):\n"
        "    print(folder, flush=True)\n    time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    folder = pathlib.Path(proc.stdout.readline().strip())
    assert folder.is_dir()
    proc.terminate()
    assert proc.wait(timeout=30) == 128 + 15
    assert not folder.exists()
