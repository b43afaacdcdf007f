"""The report's numbers, checked by hand on a fixed games.jsonl (tests/data/sim-games.jsonl):
three variants on seeds 0-4, both seats; ``same`` repeats ``default`` game for game and
``rout_threshold=3`` ends every game sooner."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from game.cli import main
from game.sim.report import write_report
from game.sim.results import GamesFile
from game.sim.stats import Diff, mcnemar, paired_counts, summarize, wilson

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXED = os.path.join(ROOT, "tests", "data", "sim-games.jsonl")


def close(a, b, tol=1e-4):
    return abs(a - b) <= tol


@pytest.fixture(scope="module")
def summary():
    return summarize(GamesFile(FIXED).read())


def test_wilson_by_hand():
    # p = k/n, z = 1.96: centre = (p + z^2/2n) / (1 + z^2/n), half = z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)
    # 5/10: centre 0.5, half 1.96 * sqrt(0.025 + 0.0096) / 1.3841 = 0.2634
    assert all(map(close, wilson(5, 10), (0.2366, 0.7634)))
    # 3/10: centre 0.4921 / 1.3841 = 0.3556, half 1.96 * sqrt(0.021 + 0.0096) / 1.3841 = 0.2477
    assert all(map(close, wilson(3, 10), (0.1078, 0.6032)))
    assert all(map(close, wilson(2, 10), (0.0567, 0.5098)))
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)


def test_mcnemar_exact_known_values():
    """The issue's case: 4 flipped pairs of 1,000, all one way, is not clear (McNemar's exact
    p = 2 * 0.5^4 = 0.125); 20 of 1,000 all one way is (p = 2 * 0.5^20)."""
    base = [False] * 1000
    four = mcnemar([True] * 4 + [False] * 996, base)
    assert four.flipped == (4, 0) and four.p == pytest.approx(0.125) and not four.clear
    assert four.mean == pytest.approx(0.004) and four.low < 0 < four.high
    twenty = mcnemar([True] * 20 + [False] * 980, base)
    assert twenty.flipped == (20, 0) and twenty.p == pytest.approx(2 * 0.5**20) and twenty.clear
    assert 0 < twenty.low < twenty.mean < twenty.high and twenty.mean == pytest.approx(0.02)
    # Newcombe's interval by hand for 4 of 1,000: the Wilson intervals of 4/1000 [0.001556, 0.010240] and
    # 0/1000 [0, 0.003827]; no pair has both, so the correlation term is 0:
    # 0.004 - sqrt(0.002444^2 + 0.003827^2) = -0.000540, 0.004 + sqrt(0.006240^2 + 0) = 0.010240
    assert close(four.low, -0.000540, 2e-6) and close(four.high, 0.010240, 2e-6)
    # both ways: 10 up and 10 down is no difference at all (p = 1)
    both = mcnemar([True] * 10 + [False] * 990, [False] * 10 + [True] * 10 + [False] * 980)
    assert both.flipped == (10, 10) and both.mean == 0 and both.p == pytest.approx(1.0) and not both.clear
    # 9 of 10 one way: binomial two-sided p = 2 * 11 / 1024
    nine = mcnemar([True] * 9 + [False], [False] * 9 + [True])
    assert nine.flipped == (9, 1) and nine.p == pytest.approx(22 / 1024) and nine.clear
    same = mcnemar([True, False], [True, False])
    assert same.identical and same.flipped == (0, 0) and not same.clear


def test_paired_counts_t_interval_and_wilcoxon():
    # differences 1..5: mean 3, sd sqrt(2.5), se 0.7071, t(0.975, 4) = 2.7764: 3 +- 1.9632
    d = paired_counts([1.0, 2.0, 3.0, 4.0, 5.0])
    assert d.mean == 3 and close(d.low, 1.0368) and close(d.high, 4.9632)
    assert d.p == pytest.approx(0.0625) and not d.clear  # exact Wilcoxon, n = 5: 2 / 32
    six = paired_counts([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert six.p == pytest.approx(2 / 64) and six.clear
    assert paired_counts([0.0, 0.0, 0.0]).identical and not paired_counts([0.0, 0.0]).clear


def test_per_variant_numbers_by_hand(summary):
    assert summary["warbands"] == ["red", "blue"] and summary["games"] == 30
    d = summary["variants"][0]
    assert d["variant"] == "default" and d["games"] == 10
    # red wins seeds 0, 1 and 4 in seat 1 and seeds 2 and 3 in seat 2: 5 of 10
    assert d["wins"]["red"]["n"] == 5 and all(map(close, d["wins"]["red"]["ci"], (0.2366, 0.7634)))
    assert d["wins"]["blue"]["n"] == 3 and all(map(close, d["wins"]["blue"]["ci"], (0.1078, 0.6032)))
    assert d["draws"]["n"] == 2 and all(map(close, d["draws"]["ci"], (0.0567, 0.5098)))
    # seat 1 won 0 (red), 0 swapped (blue), 1 (red), 4 (red), 4 swapped (blue); seat 2 won 2, 2 swapped, 3 swapped
    assert d["first_seat"]["n"] == 5 and d["second_seat"]["n"] == 3
    assert d["turns"]["mean"] == pytest.approx(8.2)  # (6+8+5+12+7+9+12+6+10+7) / 10
    assert d["turns"]["histogram"] == {"5": 1, "6": 2, "7": 2, "8": 1, "9": 1, "10": 1, "12": 2}
    assert d["rout_turn"]["games_with_rout"] == 8 and d["rout_turn"]["no_rout"] == 2
    assert d["treasure"]["red"] == {"mean": 0.5, "histogram": {"0": 5, "1": 5}}
    assert d["treasure"]["blue"] == {"mean": pytest.approx(0.6), "histogram": {"0": 7, "2": 3}}
    assert d["lost_types"]["red"] == {"Swordsman": {"total": 9, "per_game": 0.9}}
    assert d["lost_types"]["blue"] == {"Cultist": {"total": 18, "per_game": 1.8}}
    assert d["lost"]["blue"]["mean"] == pytest.approx(1.8)
    r3 = summary["variants"][1]
    assert r3["variant"] == "rout_threshold=3" and r3["wins"]["red"]["n"] == 6 and r3["draws"]["n"] == 0
    assert r3["turns"]["mean"] == pytest.approx(5.2)


def test_paired_differences_by_hand(summary):
    c = summary["comparisons"][0]
    assert (c["variant"], c["against"], c["pairs"]) == ("rout_threshold=3", "default", 10)
    # turns, rout_threshold=3 minus default per (seed, seats): -2 -3 -1 -6 -2 -3 -5 -2 -4 -2: mean -3,
    # variance 22/9, standard error sqrt(22/9/10) = 0.4944, t(0.975, 9) = 2.262: -3 +- 1.1184
    t = c["turns"]
    assert t["mean"] == pytest.approx(-3.0) and all(map(close, t["ci"], (-4.1184, -1.8816)))
    assert t["clear"] is True
    assert t["p"] == pytest.approx(2 / 1024)  # the exact sign test: all ten pairs shorter
    assert t["sentence"] == (
        "rout_threshold=3 shortens games: -3.0 turns (95% CI -4.1 to -1.9, p = 0.002, 0 pairs up "
        "and 10 down) compared with default, over 10 paired games."
    )
    # red: won seed 1 swapped only under rout_threshold=3: one pair flipped, none back: McNemar p = 1.
    # Newcombe: red wins 6/10 [0.3127, 0.8318] against 5/10 [0.2366, 0.7634]; pairs: 5 both, 1 + 0 flipped,
    # 4 neither: phi = (5*4 - 0) / sqrt(6*4*5*5) = 0.8165;
    # low = 0.1 - sqrt(0.2873^2 - 2*0.8165*0.2873*0.2634 + 0.2634^2) = -0.0684, high = 0.1 + 0.1530 = 0.2530
    red = c["win_rate"]["red"]
    assert red["flipped"] == [1, 0] and red["p"] == pytest.approx(1.0) and red["clear"] is False
    assert red["mean"] == pytest.approx(0.1) and all(map(close, red["ci"], (-0.0684, 0.2530)))
    assert red["sentence"] == (
        "rout_threshold=3: no clear difference in the win rate of red: +10.0 points "
        "(95% CI -6.8 to +25.3, p = 1, 1 pair flipped up and 0 down) compared with default, "
        "over 10 paired games."
    )
    # coverage: the variant changes U2, which fired (a rout) in all ten pairs
    assert (c["rules_changed"], c["fired_pairs"], c["tested"], c["changed_pairs"]) == (["U2"], 10, True, 10)
    same = summary["comparisons"][1]
    assert same["variant"] == "same" and same["tested"] is False and same["rules_changed"] == []
    assert same["changed_pairs"] == 0
    assert same["turns"]["verdict"] == "untested" and not same["turns"]["clear"]
    assert not any("no clear difference" in x for x in same["sentences"] + [same["turns"]["sentence"]])
    assert "changes no rule" in same["sentences"][0]


def test_untested_when_the_changed_rule_never_fires():
    """A variant whose rule cannot fire (U2 with a threshold no game reaches): "untested",
    never "no clear difference", even though its games differ by chance."""

    def recs(label, index, rules, turns):
        return [
            {
                "variant": label,
                "variant_index": index,
                "seed": k,
                "swapped": False,
                "winner": "red",
                "draw": False,
                "turns": t,
                "seats": ["red", "blue"],
                "lost": {"red": 0, "blue": 0},
                "treasure": {"red": 1, "blue": 0},
                "rout_turn": None,
                "rules_fired": {"M2": 3, "U6": 2},
                "variant_rules": rules,
                "end": "turn_limit",
                "bots": ["utility", "utility"],
            }
            for k, t in enumerate(turns)
        ]

    s = summarize(recs("default", 0, [], [12] * 8) + recs("rout_threshold=99", 1, ["U2"], [12] * 7 + [11]))
    c = s["comparisons"][0]
    assert (c["rules_changed"], c["fired_pairs"], c["tested"], c["changed_pairs"]) == (["U2"], 0, False, 1)
    assert all(d["verdict"] == "untested" for d in c["win_rate"].values())
    assert c["turns"]["verdict"] == "untested"
    assert c["sentences"] == [
        "rout_threshold=99: untested against default: the changed rule (U2) never came into "
        "play in any of the 8 paired games; its outcomes say nothing about the rule (1 of 8 "
        "paired games differ at all)."
    ]
    from game.sim.report import render_html

    page = render_html(s)
    assert "never came into play" in page and "no clear difference" not in page


def _records(label: str, winners: list, turns: list[int], index: int) -> list[dict]:
    return [
        {
            "variant": label,
            "variant_index": index,
            "seed": k,
            "swapped": False,
            "winner": w,
            "draw": w is None,
            "turns": t,
            "seats": ["red", "blue"],
            "lost": {"red": 0, "blue": 0},
            "treasure": {"red": 0, "blue": 0},
            "rout_turn": t if w else None,
            "illegal": 0,
            "actions": 1,
            "seconds": 0.1,
            "bots": ["utility", "utility"],
        }
        for k, (w, t) in enumerate(zip(winners, turns))
    ]


def test_variants_that_differ_are_told_apart_and_identical_ones_are_not():
    n = 40
    base_w = ["red" if k % 4 else "blue" for k in range(n)]  # red wins 30 of 40
    base_t = [9 + (k % 3) for k in range(n)]  # 9, 10, 11 ...
    low_w = ["blue" if k % 4 else "red" for k in range(n)]  # rout_threshold=3: blue wins 30 of 40
    low_t = [t - 3 - (k % 2) for k, t in enumerate(base_t)]  # 3 or 4 turns shorter
    recs = (
        _records("rout_threshold=9", base_w, base_t, 0)
        + _records("rout_threshold=3", low_w, low_t, 1)
        + _records("rout_threshold=9 again", base_w, base_t, 2)
    )
    s = summarize(recs)
    differ, same = s["comparisons"]
    assert differ["turns"]["clear"] and differ["turns"]["ci"][1] < 0
    assert differ["turns"]["sentence"].startswith(
        "rout_threshold=3 shortens games: -3.5 turns (95% CI -3.7 to -3.3, p < 0.001"
    )
    red = differ["win_rate"]["red"]
    assert red["clear"] and red["ci"][1] < 0 and red["mean"] == pytest.approx(-0.5)
    assert red["sentence"].startswith("rout_threshold=3 lowers the win rate of red: -50.0 points")
    assert differ["win_rate"]["blue"]["sentence"].startswith(
        "rout_threshold=3 raises the win rate of blue: +50.0 points"
    )
    assert not same["turns"]["clear"] and not any(w["clear"] for w in same["win_rate"].values())
    assert (
        same["turns"]["sentence"]
        == "rout_threshold=9 again: game length is identical in all 40 paired games with rout_threshold=9."
    )
    # one game of forty that differs is not a clear difference either
    one_w = list(base_w)
    one_w[0] = "red"
    s = summarize(_records("a", base_w, base_t, 0) + _records("b", one_w, base_t, 1))
    assert not s["comparisons"][0]["win_rate"]["red"]["clear"]


def test_clear_needs_p_and_an_interval_that_leaves_out_zero():
    assert not Diff(10, 0.5, 0.0, 1.0, 0.01).clear and Diff(10, 0.5, 1e-9, 1.0, 0.01).clear
    assert not Diff(10, -0.5, -1.0, 0.0, 0.01).clear and Diff(10, -0.5, -1.0, -1e-9, 0.01).clear
    assert not Diff(10, 0.5, 0.1, 1.0, 0.05).clear  # the interval alone is not enough
    assert not paired_counts([1.0]).clear and paired_counts([]).n == 0
    # every pair moved the same way by the same amount: clear only with enough pairs (Wilcoxon 2 / 2^n)
    assert not paired_counts([1.0, 1.0]).clear and paired_counts([1.0] * 6).clear


def test_a_clear_interval_never_shows_a_bound_of_zero():
    # a bound of 0.004 units is no 0: "0.00" would read as an interval touching 0
    from game.sim.stats import sentence

    text = sentence(
        "v", "default", Diff(20, 0.3, 0.004, 0.7, 0.03), "units lost", "raises", "lowers", "units per game", digits=2
    )
    assert "95% CI +0.004 to +0.70" in text
    assert "0.00 " not in text
    down = sentence(
        "v", "default", Diff(20, -0.3, -0.7, -0.004, 0.03), "units lost", "raises", "lowers", "units per game", digits=2
    )
    assert "95% CI -0.70 to -0.004" in down
    # the same holds for a difference that is not clear: "CI -0.87 to -0.00" is never written
    unclear = sentence(
        "v", "default", Diff(20, -0.4, -0.87, -0.0004, 0.07), "tokens", "raises", "lowers", "tokens", digits=2
    )
    assert "no clear difference" in unclear and "-0.00 " not in unclear and "-0.0004" in unclear


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One report of FIXED (a report takes seconds: its tests share it), written under the
    usual umask 022: (folder, path of report.html)."""
    folder = tmp_path_factory.mktemp("report")
    old = os.umask(0o022)
    try:
        html = write_report(FIXED, str(folder / "summary.json"), str(folder / "report.html"))
    finally:
        os.umask(old)
    return folder, html


def test_report_files_are_self_contained(report, summary):
    folder, html = report
    page = open(html, encoding="utf-8").read()
    assert json.loads((folder / "summary.json").read_text()) == json.loads(json.dumps(summary))
    assert page.count("src='data:image/png;base64,") == 5
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "rout_threshold=3 shortens games: -3.0 turns (95% CI -4.1 to -1.9, p = 0.002" in page
    assert "same changes no rule of default" in page and "untested" in page
    assert "50.0% <span class=ci>[23.7–76.3]</span>" in page  # red's wins under default


def test_report_files_take_their_mode_from_the_umask(report, tmp_path):
    folder, _ = report
    modes = {name: os.stat(folder / name).st_mode & 0o777 for name in ("summary.json", "report.html")}
    assert modes == {"summary.json": 0o644, "report.html": 0o644}
    old = os.umask(0o027)
    try:
        write_report(FIXED, str(tmp_path / "summary.json"), str(tmp_path / "report.html"))
        assert os.stat(tmp_path / "report.html").st_mode & 0o777 == 0o640
        assert os.stat(tmp_path / "summary.json").st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def test_report_command_rebuilds_from_games_alone(tmp_path, capsys):
    shutil.copy(FIXED, tmp_path / "games.jsonl")
    assert main(["simulate", "--report", str(tmp_path)]) == 0
    rebuilt = json.loads((tmp_path / "summary.json").read_text())
    c = rebuilt["comparisons"][0]
    assert (c["rules_changed"], c["fired_pairs"], c["tested"], c["changed_pairs"]) == (["U2"], 10, True, 10)
    assert c["win_rate"]["red"]["flipped"] == [1, 0] and "p" in c["turns"] and "robust" in c["turns"]
    assert rebuilt["by_bots"][0]["bots"] == ["utility", "utility"] and rebuilt["bots"] == [["utility", "utility"]]
    assert (tmp_path / "report.html").exists()
    assert json.loads((tmp_path / "summary.json").read_text())["comparisons"][0]["turns"]["clear"] is True
    assert main(["simulate", "--report", str(tmp_path / "nothing")]) == 2
    assert "games.jsonl is missing" in capsys.readouterr().err


def test_latest_report_is_the_newest(tmp_path):
    from game.sim.report import latest_report

    assert latest_report(str(tmp_path)) is None
    old, new = tmp_path / "a" / "report.html", tmp_path / "b" / "c" / "report.html"
    for i, path in enumerate((old, new)):
        path.parent.mkdir(parents=True)
        path.write_text("<html></html>")
        os.utime(path, (1000 + i, 1000 + i))
    assert latest_report(str(tmp_path)) == str(new)


def test_stalls_and_rule_gaps_are_listed_with_the_commands_that_replay_them():
    from game.sim.gaps import find_gaps

    def rec(seed, quiet, gaps=(), end="turn_limit"):
        return {
            "variant": "default",
            "seed": seed,
            "swapped": seed == 2,
            "bots": ["greedy", "utility"],
            "quiet": {"turns": quiet, "from": 4},
            "gaps": list(gaps),
            "end": end,
            "scenario_file": "scenarios/v0-default" + ("-swapped" if seed == 2 else "") + ".yaml",
        }

    g = find_gaps(
        [
            rec(1, 2),
            rec(2, 5),
            rec(3, 0, [{"turn": 3, "reason": "internal error (KeyError)"}]),
            rec(4, 0, end="capped"),
        ],
        3,
        root="runs/a",
    )
    assert g["stalls"] == 1 and [x["seed"] for x in g["stall_games"]] == [2]
    assert g["stall_games"][0]["quiet_turns"] == 5 and g["stall_games"][0]["from_turn"] == 4
    play, replay = g["stall_games"][0]["commands"]
    assert play == (
        "speedheim simulate runs/a/scenarios/v0-default-swapped.yaml --games 1 --seed 2 --bots greedy,utility "
        "--workers 1 --keep-logs --out sim-out/replay/v0-default-swapped-seed-2-greedy-vs-utility"
    )
    assert replay == (
        "speedheim replay runs/a/scenarios/v0-default-swapped.yaml "
        "sim-out/replay/v0-default-swapped-seed-2-greedy-vs-utility/logs/v0-default/seed-2.yaml"
    )
    assert g["rule_gaps"] == 2 and [x["seed"] for x in g["gap_games"]] == [3, 4]
    assert "internal error" in g["gap_games"][0]["problems"][0]["reason"]


def test_a_tested_change_with_identical_games_is_written_out_not_drawn():
    """The changed rule fired, but every pair ended the same: "identical in all N pairs",
    never a zero-width interval, and never "untested"."""

    def recs(label, index, rules):
        return [
            {
                "variant": label,
                "variant_index": index,
                "seed": k,
                "swapped": False,
                "winner": "red",
                "draw": False,
                "turns": 12,
                "seats": ["red", "blue"],
                "lost": {"red": 1, "blue": 0},
                "treasure": {"red": 1, "blue": 0},
                "rout_turn": None,
                "rules_fired": {"U6": 2},
                "variant_rules": rules,
                "end": "turn_limit",
                "bots": ["utility", "utility"],
            }
            for k in range(8)
        ]

    s = summarize(recs("default", 0, []) + recs("treasure_denial_range=1", 1, ["U6"]))
    c = s["comparisons"][0]
    assert (c["tested"], c["fired_pairs"], c["changed_pairs"]) == (True, 8, 0)
    assert c["turns"]["verdict"] == "identical" and c["win_rate"]["red"]["verdict"] == "identical"
    assert (
        c["turns"]["sentence"]
        == "treasure_denial_range=1: game length is identical in all 8 paired games with default."
    )
    from game.sim.report import render_html

    page = render_html(s)
    assert "identical in all 8 pairs" in page and "never came into play" not in page
    assert "game length is identical in all 8 paired games" in page


def test_a_check_fires_check_and_a_flow_action_fires_turn():
    """A variant of check_die names ``check`` and one of the phases ``turn``: both must be able
    to fire, or such a variant would always read as untested."""
    from types import SimpleNamespace

    from game.engine.dice import Roll
    from game.sim.coverage import fired

    climb = Roll(20, [7], 7, "climb", rule="M6", unit="a", stat="agility", target=12, success=True)
    injury = Roll(6, [3], 3, "injury", rule="M7")
    move = SimpleNamespace(ok=True, rule=None, action={"move": {"unit": "a"}}, rolls=[climb, injury], events=[])
    assert fired(move) == {"M6": 1, "M7": 1, "check": 1}
    end = SimpleNamespace(ok=True, rule=None, action={"end_phase": {}}, rolls=[], events=[])
    assert fired(end) == {"turn": 1}


def test_the_tie_break_note_counts_its_flipped_games_in_words():
    from game.sim.stats import tie_break_note

    assert tie_break_note({"turn_limit": [1, 0]}).startswith(" The 1 flipped game was won at the turn limit")
    assert tie_break_note({"turn_limit": [2, 1]}, clear=False).startswith(" All 3 flipped games were won")
    assert tie_break_note({"turn_limit": [1, 0], "rout": [0, 1]}) == ""
