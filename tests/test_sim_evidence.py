"""Studies whose evidence is what it claims (FORMATS.md, "Additions: evidence that is what
it claims"): crafted ``games.jsonl`` files read through ``speedheim simulate --report``."""

from __future__ import annotations

import html
import json
import re
import os

import pytest
from scipy import stats as st

from game.cli import main
from game.sim.stats import count_p, mcnemar, paired_counts, sentence, summarize


def rec(label: str, index: int, seed: int, **kw) -> dict:
    """One game record with every key the report reads (red moves first unless swapped)."""
    r = {
        "variant": label,
        "variant_index": index,
        "seed": seed,
        "swapped": False,
        "bots": ["utility", "utility"],
        "winner": "red",
        "draw": False,
        "turns": 12,
        "seats": ["red", "blue"],
        "lost": {"red": 0, "blue": 0},
        "treasure": {"red": 2, "blue": 1},
        "rout_turn": None,
        "routed": [],
        "illegal": 0,
        "actions": 10,
        "seconds": 0.1,
        "end": "turn_limit",
        "decided_by": "turn_limit",
        "rules_fired": {"U2": 1, "U6": 2},
        "variant_rules": ["U2"] if index else [],
        "line": f"{label}-{seed}",
    }
    r.update(kw)
    return r


def report(tmp_path, records: list[dict], extra: str = "") -> dict:
    """``simulate --report`` on these records: the summary it wrote."""
    with open(tmp_path / "games.jsonl", "w", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records) + extra)
    assert main(["simulate", "--report", str(tmp_path)]) == 0
    return json.loads((tmp_path / "summary.json").read_text())


# --- exact tests for counts ------------------------------------------------------------------------


def test_five_differing_count_pairs_of_sixteen_give_no_finding(tmp_path):
    """-4, -2, -2, -1, -1 and eleven ties: no exact test goes below p = 0.0625 on five pairs."""
    moved = {0: -4, 1: -2, 2: -2, 3: -1, 4: -1}
    recs = [rec("default", 0, k, treasure={"red": 4, "blue": 1}) for k in range(16)]
    recs += [rec("rout-legacy", 1, k, treasure={"red": 4 + moved.get(k, 0), "blue": 1}) for k in range(16)]
    s = report(tmp_path, recs)
    d = s["comparisons"][0]["treasure"]["red"]
    assert d["pairs"] == 16 and d["moved"] == [0, 5] and d["test"] == "exact sign test"
    assert d["p"] >= 0.0625 and d["p"] == pytest.approx(0.0625) and not d["clear"]
    page = (tmp_path / "report.html").read_text()
    assert "lowers the tokens held by red" not in page
    assert "no clear difference in the tokens held by red at the end: -0.62 tokens per game" in d["sentence"]


def test_zero_differences_never_push_a_count_to_a_normal_approximation():
    """Eight ties and six pairs up: the p of the six that differ, exactly (2 / 64), where
    scipy's wilcoxon over all fourteen would fall back to its normal approximation."""
    diffs = [0.0] * 8 + [1.0, 2.0, 1.0, 3.0, 1.0, 2.0]
    d = paired_counts(diffs)
    assert d.p == pytest.approx(2 / 64) and d.moved == (6, 0) and d.test == "exact sign test"
    assert d.p == pytest.approx(st.binomtest(6, 6, 0.5).pvalue)
    # 49 differing pairs: still exact; 50: the signed-rank test on the differing pairs only
    assert count_p([1.0] * 30 + [-1.0] * 19)[1] == "exact sign test"
    p, test = count_p([1.0] * 30 + [-2.0] * 20)
    assert test == "Wilcoxon signed-rank"
    assert p == pytest.approx(st.wilcoxon([1.0] * 30 + [-2.0] * 20, method="approx").pvalue)


def test_sentence_table_and_plot_give_the_same_numbers_with_the_same_sign(tmp_path):
    from game.sim.report import _matrix, _shown

    recs = [rec("default", 0, k, treasure={"red": 4, "blue": 1}, turns=12) for k in range(12)]
    recs += [
        rec("rout-legacy", 1, k, treasure={"red": 3 if k < 9 else 4, "blue": 1}, turns=10 + k % 2) for k in range(12)
    ]
    s = report(tmp_path, recs)
    c = s["comparisons"][0]
    for d in (c["treasure"]["red"], c["turns"]):
        assert d["clear"] and d["mean"] < 0
        numbers = _shown(d)  # what the plot writes above the interval
        mean, rest = numbers.split("  ")
        low, high = rest.strip("[]").split(", ")
        assert mean.startswith("-") and low.startswith("-") and high.startswith("-")
        assert f"{mean} " in d["sentence"] and f"95% CI {low} to {high}," in d["sentence"]
    assert (
        "lowers the tokens held by red at the end: -0.75 tokens per game (95% CI " in c["treasure"]["red"]["sentence"]
    )
    red = c["win_rate"]["red"]
    assert red["identical"]
    page = (tmp_path / "report.html").read_text()
    assert html.escape(c["turns"]["sentence"]) in page
    # the bots-by-variant table writes a win-rate difference as the plot does
    moved = [rec("default", 0, k) for k in range(12)] + [
        rec("rout-legacy", 1, k, winner="blue" if k < 10 else "red") for k in range(12)
    ]
    s = summarize(moved)
    d = s["comparisons"][0]["win_rate"]["red"]
    assert d["clear"] and html.escape(_shown(d)) in _matrix(s)
    assert f"{d['shown']['mean']} points (95% CI {d['shown']['ci'][0]} to {d['shown']['ci'][1]}," in d["sentence"]


# --- lines: a repeated game counts once -----------------------------------------------------------


def flips(lines_of) -> list[dict]:
    """100 paired games, red wins every baseline game and loses 30 under the variant;
    ``lines_of(k, label)`` names each game's line."""
    base = [rec("default", 0, k, line=lines_of(k, "default")) for k in range(100)]
    other = [
        rec("rout-legacy", 1, k, winner="blue" if k < 30 else "red", line=lines_of(k, "rout-legacy"))
        for k in range(100)
    ]
    return base + other


def test_thirty_flips_repeating_two_lines_are_not_clear(tmp_path):
    s = report(tmp_path, flips(lambda k, label: f"{label}-{'a' if k < 30 else 'b'}"))
    c = s["comparisons"][0]
    assert c["pairs"] == 100 and c["distinct_pairs"] == 2
    assert [v["distinct_lines"] for v in s["variants"]] == [2, 2]
    red = c["win_rate"]["red"]
    assert red["pairs"] == 2 and red["flipped"] == [0, 1] and not red["clear"]
    assert "over 2 distinct of 100 paired games" in red["sentence"]
    page = (tmp_path / "report.html").read_text()
    assert "default played 2 distinct game(s) in 100" in page and "rout-legacy played 2 distinct game(s) in 100" in page
    assert "default 2 of 100 · rout-legacy 2 of 100" in page
    # the per-variant interval counts a line once too: 2 of 2 distinct games, not 100 of 100
    wins = s["variants"][0]["wins"]["red"]
    assert wins["n"] == 100 and wins["distinct"] == [2, 2] and wins["ci"][0] == pytest.approx(0.3424, abs=1e-4)


def test_thirty_flips_each_its_own_line_are_clear(tmp_path):
    s = report(tmp_path, flips(lambda k, label: f"{label}-{k}"))
    c = s["comparisons"][0]
    assert c["distinct_pairs"] == 100
    red = c["win_rate"]["red"]
    assert red["pairs"] == 100 and red["flipped"] == [0, 30] and red["clear"]
    assert red["sentence"].startswith("rout-legacy lowers the win rate of red: -30.0 points")
    assert "distinct game(s) in" not in (tmp_path / "report.html").read_text()


def test_one_opening_is_said_once_per_pairing(tmp_path):
    recs = [rec(label, i, k, opening="same") for i, label in enumerate(("default", "rout-legacy")) for k in range(4)]
    s = report(tmp_path, recs)
    assert all(v["one_opening"] for v in s["variants"])
    page = (tmp_path / "report.html").read_text()
    assert page.count("opened the same way") == 1 and "utility vs utility opened the same way" in page
    varied = [dict(r, opening=f"o{r['seed']}") for r in recs]
    assert "opened the same way" not in render(varied)


def render(records: list[dict]) -> str:
    from game.sim.report import render_html

    return render_html(summarize(records))


def test_a_rate_whose_games_repeat_says_its_interval_is_over_the_distinct_games():
    recs = [rec("default", 0, k, line="one" if k < 9 else f"x{k}") for k in range(12)]
    page = render(recs)
    assert "100.0% <span class=ci>[51.0–100.0] over 4 of 4 distinct games</span>" in page


# --- how each win was decided ---------------------------------------------------------------------


def test_twenty_flips_decided_by_the_turn_limit_name_the_turn_limit(tmp_path):
    base = [rec("default", 0, k, winner="red", decided_by="turn_limit") for k in range(40)]
    other = [rec("rout-legacy", 1, k, winner="blue" if k < 20 else "red", decided_by="turn_limit") for k in range(40)]
    s = report(tmp_path, base + other)
    red = s["comparisons"][0]["win_rate"]["red"]
    assert red["clear"] and red["flipped"] == [0, 20] and red["by_end"] == {"turn_limit": [0, 20]}
    assert "the difference comes from the turn limit's tie-break" in red["sentence"]
    assert s["comparisons"][0]["win_rate"]["blue"]["by_end"] == {"turn_limit": [20, 0]}
    assert s["variants"][1]["decided_by"]["blue"] == {"rout": 0, "eliminated": 0, "turn_limit": 20}
    page = (tmp_path / "report.html").read_text()
    assert "the difference comes from the turn limit&#x27;s tie-break" in page
    assert "80 of 80 games were won at the turn limit, on T1's tie-break, a placeholder for bot games" in page


def test_flips_won_by_routs_do_not_blame_the_turn_limit(tmp_path):
    base = [rec("default", 0, k, winner="red", decided_by="turn_limit") for k in range(40)]
    other = [
        rec(
            "rout-legacy",
            1,
            k,
            winner="blue" if k < 20 else "red",
            end="rout" if k < 20 else "turn_limit",
            decided_by="rout" if k < 20 else "turn_limit",
        )
        for k in range(40)
    ]
    s = summarize(base + other)
    blue = s["comparisons"][0]["win_rate"]["blue"]
    assert blue["by_end"] == {"rout": [20, 0]} and "turn limit" not in blue["sentence"]
    # older records without decided_by: read off end
    old = [{k: v for k, v in r.items() if k != "decided_by"} for r in base + other]
    assert summarize(old)["comparisons"][0]["win_rate"]["blue"]["by_end"] == {"rout": [20, 0]}


def test_who_wins_comes_first_with_how_each_win_was_decided(tmp_path):
    recs = [
        rec(
            "default",
            0,
            k,
            winner="red" if k < 15 else "blue",
            end="rout" if k == 15 else "turn_limit",
            decided_by="rout" if k == 15 else "turn_limit",
        )
        for k in range(16)
    ]
    page = render(recs)
    assert page.index("<h2>Who wins</h2>") < page.index("<h2>Findings</h2>") < page.index("<h2>Per variant</h2>")
    assert "15: 93.8%" in page and "15 at the turn limit" in page and "1 by rout" in page


# --- decisive coverage -------------------------------------------------------------------------------


def denial(label: str, index: int, seed: int, distances: list[float], param_values) -> dict:
    return rec(
        label,
        index,
        seed,
        variant_rules=["U6"] if index else [],
        rules_fired={"U6": len(distances)},
        measured={"treasure_denial_range": distances},
        params_changed={"treasure_denial_range": param_values} if index else {},
    )


def test_a_pick_up_between_the_two_ranges_is_decisive_and_one_outside_is_not():
    d = [0.02, 1.6285, 3.58]
    s = summarize(
        [denial("default", 0, k, d, None) for k in range(4)]
        + [denial("treasure_denial_range=1", 1, k, d, [2, 1]) for k in range(4)]
        + [denial("treasure_denial_range=2.0001", 2, k, d, [2, 2.0001]) for k in range(4)]
    )
    one, tiny = s["comparisons"]
    assert (one["fired_pairs"], one["decisive_pairs"], one["tested"]) == (4, 4, True)
    assert (tiny["fired_pairs"], tiny["decisive_pairs"], tiny["tested"]) == (4, 0, False)
    assert tiny["decisive_by_parameter"] == {"treasure_denial_range": 0} and tiny["fallback"] == []
    assert "no decision would have gone the other way" in tiny["sentences"][0]
    # a pick-up at exactly 2" is decided the same under 2 and 2.0001 (both within, G3); 2.00005" is not
    assert not summarize([denial("default", 0, 0, [2.0], None), denial("v", 1, 0, [2.0], [2, 2.0001])])["comparisons"][
        0
    ]["tested"]
    assert (
        summarize([denial("default", 0, 0, [2.00005], None), denial("v", 1, 0, [2.00005], [2, 2.0001])])["comparisons"][
            0
        ]["decisive_pairs"]
        == 1
    )


def test_a_rout_count_at_the_new_threshold_is_decisive():
    def r(label, index, counts, values):
        return rec(
            label,
            index,
            0,
            variant_rules=["U2"] if index else [],
            measured={"rout_threshold": counts},
            params_changed={"rout_threshold": values} if index else {},
        )

    assert (
        summarize([r("default", 0, [0, 3, 5], None), r("rout_threshold=5", 1, [0, 3], [6, 5])])["comparisons"][0][
            "decisive_pairs"
        ]
        == 1
    )
    c = summarize([r("default", 0, [0, 3, 4], None), r("rout_threshold=5", 1, [0, 3, 4], [6, 5])])["comparisons"][0]
    assert c["decisive_pairs"] == 0 and not c["tested"] and c["fired_pairs"] == 1


def test_a_change_without_recorded_decisions_falls_back_to_firing_and_says_so():
    base = rec("default", 0, 0, measured={}, params_changed={})
    legacy = rec("rout-legacy", 1, 0, measured={}, params_changed={"rout_variant": None})
    c = summarize([base, legacy])["comparisons"][0]
    assert c["fallback"] == ["U2"] and c["decisive_pairs"] == c["fired_pairs"] == 1 and c["tested"]
    from game.sim.report import render_html

    assert "For U2 no decision is recorded that could tell" in render_html(summarize([base, legacy]))


@pytest.mark.parametrize("scenario", ["maps/default.yaml", "maps/crossroads.yaml", "tests/scripts/duel.yaml"])
def test_a_denial_range_of_2_0001_against_2_is_untested_on_a_real_map(tmp_path, scenario):
    """Played games: the pick-ups U6 decided are measured, and none of them lies between 2"
    and 2.0001", so the variant is untested however often U6 fired."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = tmp_path / "run"
    assert (
        main(
            [
                "simulate",
                os.path.join(root, scenario),
                "--games",
                "1",
                "--workers",
                "1",
                "--turn-limit",
                "6",
                "--variant",
                "default",
                "--variant",
                "treasure_denial_range=2.0001",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    s = json.loads((out / "summary.json").read_text())
    c = s["comparisons"][0]
    assert c["decisive_pairs"] == 0 and c["tested"] is False and c["fallback"] == []
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert games[1]["params_changed"] == {"treasure_denial_range": [2, 2.0001]}
    assert all("treasure_denial_range" in g["measured"] or not g["rules_fired"].get("U6") for g in games)


# --- a first screen that answers --------------------------------------------------------------------


def test_variants_that_played_the_same_games_are_said_once(tmp_path):
    base = [rec("default", 0, k, turns=12, line=f"d{k}") for k in range(16)]
    legacy = [rec("rout-legacy", 1, k, turns=8, line=f"l{k}") for k in range(16)]
    breakpoint = [rec("rout-breakpoint", 2, k, turns=8, line=f"l{k}" if k < 15 else "other") for k in range(16)]
    s = report(tmp_path, base + legacy + breakpoint)
    assert {"variants": ["rout-legacy", "rout-breakpoint"], "same": 15, "pairs": 16} in s["same_games"]
    page = re.sub("</?b>", "", html.unescape((tmp_path / "report.html").read_text()))
    assert "rout-legacy and rout-breakpoint played move for move the same games in 15 of their 16 paired games" in page
    assert page.count("shortens games: -4.0 turns") == 1
    assert (
        "rout-breakpoint: 1 finding(s) word for word the same as rout-legacy's (the two played move for move the "
        "same games in 15 of 16 paired games)."
    ) in page


def test_every_pairing_shows_every_outcome():
    recs = []
    for pairing in (["utility", "utility"], ["greedy", "cautious"]):
        recs += [rec("default", 0, k, pairing=pairing, bots=pairing, line=f"{pairing[0]}d{k}") for k in range(6)]
        recs += [
            rec("rout-legacy", 1, k, pairing=pairing, bots=pairing, turns=9, line=f"{pairing[0]}l{k}") for k in range(6)
        ]
    page = html.unescape(render(recs))
    assert "greedy vs cautious: every outcome" in page and "utility vs utility: every outcome" in page
    assert page.count("difference: the tokens held by blue at the end") == 2
    assert page.count("difference: game length") == 2 and "-3.0  [-3.0, -3.0] turns, p = 0.031 (clear)" in page


# --- stalls worth a look ---------------------------------------------------------------------------


def test_stalls_are_the_longest_first_at_most_ten_each_with_its_own_folder():
    from game.sim.gaps import find_gaps

    recs = [
        {
            "variant": v,
            "seed": k // 2,
            "swapped": False,
            "bots": ["utility", "utility"],
            "end": "turn_limit",
            "quiet": {"turns": 3 + (k * 7) % 9, "from": 2},
            "gaps": [],
            "turns": 12,
            "scenario_file": f"scenarios/v{i}-{v}.yaml",
        }
        for k in range(24)
        for i, v in [(k % 2, ("default", "rl")[k % 2])]
    ]
    g = find_gaps(recs, 3, root="run")
    quiet = [x["quiet_turns"] for x in g["stall_games"]]
    assert g["stalls"] == 24 and len(quiet) == 10 and quiet == sorted(quiet, reverse=True)
    assert quiet[0] == max(r["quiet"]["turns"] for r in recs)
    outs = [x["commands"][0].split("--out ")[1] for x in g["stall_games"]]
    assert len(set(outs)) == len(outs)


def test_every_stall_command_runs_and_replays_its_own_game(tmp_path, monkeypatch, capsys):
    """Two variants on the same seeds (the same seed in two rows): each row's commands, run in
    order from one folder, play that row's game again and replay its own log."""
    import shlex

    from game.sim.gaps import find_gaps
    from game.sim.results import GamesFile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "simulate",
                os.path.join(root, "tests", "scripts", "duel.yaml"),
                "--games",
                "1",
                "--swap",
                "--turn-limit",
                "3",
                "--workers",
                "1",
                "--variant",
                "default",
                "--variant",
                "rout_threshold=2",
                "--out",
                "run",
            ]
        )
        == 0
    )
    recs = list(GamesFile("run/games.jsonl").read())
    listed = find_gaps(recs, 0, root="run")["stall_games"]  # every game is "quiet" for 0 turns or more
    assert len(listed) == 4 and len({x["commands"][0] for x in listed}) == 4
    for x in listed:
        r = next(r for r in recs if (r["variant"], r["seed"], r["swapped"]) == (x["variant"], x["seed"], x["swapped"]))
        play, replay = (shlex.split(c) for c in x["commands"])
        assert play[0] == replay[0] == "speedheim"
        assert main(play[1:]) == 0
        out = play[play.index("--out") + 1]
        again = list(GamesFile(os.path.join(out, "games.jsonl")).read())
        assert len(again) == 1 and again[0]["line"] == r["line"] and again[0]["winner"] == r["winner"]
        capsys.readouterr()
        assert main(replay[1:] + ["--json"]) == 0
        final = json.loads(capsys.readouterr().out.splitlines()[-1])["final"]
        assert final["turn"] == r["turns"] and final["winner"] == r["winner"]


# --- smaller ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["rout_threshold=2.5", "shots_per_turn=1.5", "check_die=19.5"])
def test_a_count_parameter_takes_whole_numbers_only(tmp_path, capsys, spec):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert (
        main(
            [
                "simulate",
                os.path.join(root, "tests", "scripts", "duel.yaml"),
                "--games",
                "1",
                "--variant",
                spec,
                "--out",
                str(tmp_path / "run"),
            ]
        )
        == 2
    )
    key, value = spec.split("=")
    assert f"{key} must be a whole number, not {value}" in capsys.readouterr().err
    assert not (tmp_path / "run" / "games.jsonl").exists()


def test_a_torn_games_file_makes_an_incomplete_report(tmp_path, capsys):
    recs = [rec("default", 0, k) for k in range(4)]
    s = report(tmp_path, recs[:3], extra=json.dumps(recs[3])[:40])
    assert s["skipped_lines"] == 1 and s["games"] == 3
    page = (tmp_path / "report.html").read_text()
    assert "Incomplete:</b> 1 line(s) of games.jsonl could not be read; this report reads 3 game(s)" in page
    assert "the report is incomplete, it reads 3 game(s)" in capsys.readouterr().err
    whole = report(tmp_path, recs)
    assert whole["skipped_lines"] == 0 and "Incomplete" not in (tmp_path / "report.html").read_text()


def test_an_interval_without_zero_and_no_clear_test_says_why():
    """Eight pairs down by two, two up by one, ten ties: the t interval on the mean leaves
    out 0, the exact sign test on the ten that differ gives p = 0.11. Not clear, and the
    sentence says which method disagrees instead of leaving the reader to square them."""
    d = paired_counts([-2.0] * 8 + [1.0] * 2 + [0.0] * 10)
    assert d.high < 0 and d.p == pytest.approx(st.binomtest(2, 10, 0.5).pvalue) and not d.clear
    said = sentence("rout-legacy", "default", d, "the tokens held", "raises", "lowers", "tokens per game")
    assert said.startswith("rout-legacy: no clear difference in the tokens held: -0.7 tokens per game (95% CI -1.2")
    assert said.endswith(
        "; the interval leaves out 0, but only 10 pairs differ and the exact sign test on them does not "
        "reach p < 0.05: clear needs both."
    )
    # an interval that holds 0 needs no such words
    plain = sentence("v", "default", paired_counts([-1.0] * 9 + [1.0] * 3 + [0.0] * 8), "x", "up", "down", "u")
    assert "leaves out 0" not in plain
    # McNemar: 7 pairs flipped up, 1 down, 2 both, 2 neither: Newcombe's interval leaves out 0, p = 0.07
    flips = mcnemar([True] * 7 + [False] + [True] * 2 + [False] * 2, [False] * 7 + [True] + [True] * 2 + [False] * 2)
    assert flips.low > 0 and flips.p == pytest.approx(0.0703125) and not flips.clear
    assert sentence("v", "default", flips, "wins", "raises", "lowers", "points", scale=100).endswith(
        "but only 8 pairs differ and McNemar's exact test on them does not reach p < 0.05: clear needs both."
    )
