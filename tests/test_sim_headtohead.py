"""Bot against bot in a study's summary and report: which bot won, over distinct games,
from which seat (records name their bots by seat, ``bots``, and the study's order as
``pairing``: a swapped game's seat 1 is the second warband, with its bot)."""

from __future__ import annotations

import pytest

from game.sim.headtohead import head_to_head, score, sentence
from game.sim.report import render_html
from game.sim.stats import summarize, wilson


def rec(seed, swapped, winner, line, decided_by="turn_limit", pairing=("planner", "utility"), illegal=0):
    bots = list(pairing[::-1] if swapped else pairing)
    seats = ["south", "north"] if swapped else ["north", "south"]
    return {
        "variant": "default",
        "seed": seed,
        "swapped": swapped,
        "bots": bots,
        "pairing": list(pairing),
        "seats": seats,
        "winner": winner,
        "draw": winner is None,
        "turns": 12,
        "lost": {"north": 0, "south": 0},
        "treasure": {"north": 1, "south": 1},
        "rout_turn": None,
        "illegal": illegal,
        "actions": 10,
        "seconds": 1.0,
        "end": "turn_limit",
        "line": line,
        "decided_by": decided_by if winner else None,
        "rules_fired": {},
    }


def test_a_swapped_game_is_won_by_the_bot_of_the_winning_warband():
    """Swapped: the planner keeps north and plays from seat 2; south (utility) wins from seat 1."""
    r = rec(0, True, "south", "a")
    assert r["bots"] == ["utility", "planner"]
    t = score(r, "planner", "utility")
    assert (t.won, t.lost, t.drawn) == (0, 1, 0)
    [m] = head_to_head([r])
    assert m["bots"] == ["planner", "utility"] and (m["won"], m["lost"]) == (0, 1)
    assert m["by_seat"]["2"]["lost"] == 1 and m["by_seat"]["1"]["lost"] == 0


def test_counts_distinct_games_by_seat_with_the_interval_and_how_decided():
    records = [
        rec(0, False, "north", "a"),  # planner, seat 1, wins at the turn limit
        rec(1, False, "north", "a"),  # the same line again: counts once
        rec(2, False, "north", "b", decided_by="rout"),
        rec(0, True, "south", "c"),  # utility (south, seat 1) wins
        rec(1, True, "north", "d"),  # planner (north, seat 2) wins
        rec(2, True, None, "e", illegal=2),  # a draw
        rec(3, False, "north", "f", pairing=("utility", "utility")),  # a bot against itself: not here
    ]
    [m] = head_to_head(records)
    assert (m["games"], m["distinct"]) == (6, 5)
    assert (m["won"], m["drawn"], m["lost"], m["decided"]) == (3, 1, 1, 4)
    assert m["share"] == pytest.approx(0.75) and m["ci"] == pytest.approx(list(wilson(3, 4)))
    assert m["by_seat"]["1"] | {"ci": None} == {
        "won": 2,
        "drawn": 0,
        "lost": 0,
        "decided": 2,
        "share": 1.0,
        "ci": None,
        "decided_by": {"rout": 1, "turn_limit": 1},
        "refused": 0,
    }
    assert (m["by_seat"]["2"]["won"], m["by_seat"]["2"]["drawn"], m["by_seat"]["2"]["lost"]) == (1, 1, 1)
    assert m["decided_by"] == {"rout": 1, "turn_limit": 3} and m["refused"] == 2
    # the planner played north in every game (a bot keeps its warband when the seats swap)
    assert list(m["by_warband"]) == ["north"] and (
        m["by_warband"]["north"]["won"],
        m["by_warband"]["north"]["lost"],
    ) == (
        3,
        1,
    )
    assert sentence(m) == (
        "planner against utility: won 3, drew 1, lost 1 of 5 distinct games of 6 played: 75% of the decided "
        f"(95% CI {100 * m['ci'][0]:.0f}-{100 * m['ci'][1]:.0f}%); from seat 1 2-0-0, from seat 2 1-1-1 "
        "(won-drawn-lost); as north 3-1-1; decided: 1 by rout, 3 at the turn limit"
    )


def test_the_summary_and_the_report_carry_it_only_when_bots_differ():
    mixed = [rec(0, False, "north", "a"), rec(0, True, "south", "b")]
    s = summarize(mixed)
    assert [(m["bots"], m["won"], m["lost"]) for m in s["head_to_head"]] == [(["planner", "utility"], 1, 1)]
    page = render_html(s)
    assert "<h2>Bot against bot</h2>" in page and "<td>1-0-1</td>" in page and "<th>as north</th>" in page
    # a pairing where each bot takes each warband: the planner's record as each
    both = mixed + [rec(1, False, "north", "c", pairing=("utility", "planner"))]
    [m] = summarize(both)["head_to_head"]
    assert {w: (t["won"], t["lost"]) for w, t in m["by_warband"].items()} == {"north": (1, 1), "south": (0, 1)}
    alone = summarize([rec(0, False, "north", "a", pairing=("utility", "utility"))])
    assert alone["head_to_head"] == [] and "Bot against bot" not in render_html(alone)


def test_games_are_paired_with_each_bots_own_games_on_the_same_seed_and_seats():
    """Two seeds, each from both seats, planner against utility; utility's own games on the
    same seeds and seats, and one planner game against itself. North wins most games
    whoever plays it (the table's edge): the pairs say what the planner changed."""
    ours = [
        rec(0, False, "north", "a"),  # planner north: won; utility north in its own game: won -> same
        rec(0, True, None, "b"),  # planner north (seat 2): drew; utility north: lost -> better
        rec(1, False, "north", "c"),  # planner north: won; utility north: drew -> better
        rec(1, True, "south", "d"),  # planner north: lost; utility north: won -> worse
    ]
    utility = [
        rec(0, False, "north", "u0", pairing=("utility", "utility")),
        rec(0, True, "south", "u1", pairing=("utility", "utility")),
        rec(1, False, None, "u2", pairing=("utility", "utility")),
        rec(1, True, "north", "u3", pairing=("utility", "utility")),
    ]
    # the planner's own game of seed 0, seats not swapped: south is the planner's too, and
    # it lost there as utility lost it in game "a" -> same; no own game for the others
    planner = [rec(0, False, "north", "p0", pairing=("planner", "planner"))]
    [m] = head_to_head(ours + utility + planner)
    assert (m["won"], m["drawn"], m["lost"]) == (2, 1, 1)  # the matchup itself is unchanged
    by = {p["control"]: p for p in m["paired"]}
    u = by["utility"]
    assert (u["pairs"], u["better"], u["same"], u["worse"]) == (4, 2, 1, 1)
    assert u["p"] == pytest.approx(1.0) and u["test"] == "exact sign test"
    p = by["planner"]
    assert (p["pairs"], p["better"], p["same"], p["worse"]) == (1, 0, 1, 0)
    assert "against utility, planner did better than utility in 2 of 4 paired games and worse in 1" in sentence(m)
    # a repeated pair counts once; a seat's own game of another seed is no control
    [m2] = head_to_head(ours + [ours[0]] + utility[:1] + [rec(5, False, "south", "u5", pairing=("utility", "utility"))])
    [u2] = m2["paired"]
    assert (u2["pairs"], u2["same"]) == (1, 1)
    page = render_html(summarize(ours + utility))
    assert "<h3>Paired with the bots' own games</h3>" in page
    assert "did better than utility in 2 of 4 paired games" in page


def test_pairs_are_also_counted_by_the_warband_and_the_seat_of_the_side_they_are_about():
    """The planner plays north from seat 1 (seeds 0 and 3) and south from seat 2 (seeds 1
    and 2, the other pairing): each pair counts under the warband and seat the planner's
    side had, where utility took that side in its own game."""
    ours = [
        rec(0, False, "north", "a"),  # planner north won; utility's north lost -> better
        rec(1, False, "north", "b", pairing=("utility", "planner")),  # planner south lost; so did utility's -> same
        rec(2, False, None, "c", pairing=("utility", "planner")),  # planner south drew; utility's lost -> better
        rec(3, False, "south", "d"),  # planner north lost; utility's north won -> worse
    ]
    utility = [
        rec(0, False, "south", "u0", pairing=("utility", "utility")),
        rec(1, False, "north", "u1", pairing=("utility", "utility")),
        rec(2, False, "north", "u2", pairing=("utility", "utility")),
        rec(3, False, "north", "u3", pairing=("utility", "utility")),
    ]
    [m] = head_to_head(ours + utility)
    assert m["bots"] == ["planner", "utility"]
    [u] = m["paired"]
    assert (u["better"], u["same"], u["worse"]) == (2, 1, 1)
    counts = {w: (t["better"], t["same"], t["worse"]) for w, t in u["by_warband"].items()}
    assert counts == {"north": (1, 0, 1), "south": (1, 1, 0)}
    seats = {s: (t["better"], t["same"], t["worse"]) for s, t in u["by_seat"].items()}
    assert seats == {"1": (1, 0, 1), "2": (1, 1, 0)}
    assert u["by_warband"]["south"]["p"] == pytest.approx(1.0)
    assert "; as north better in 1 and worse in 1 (p = 1), as south better in 1 and worse in 0 (p = 1)" in sentence(m)
    # one warband only: no split in the sentence
    [one] = head_to_head(ours[:1] + ours[3:] + utility)
    assert "as north" not in sentence(one).split("paired")[-1]


def test_without_own_games_nothing_is_paired_and_the_report_has_no_column_for_it():
    [m] = head_to_head([rec(0, False, "north", "a"), rec(0, True, "south", "b")])
    assert m["paired"] == []
    assert "paired with the bots" not in render_html(summarize([rec(0, False, "north", "a")]))


def test_the_sign_test_is_exact_and_clear_only_when_most_pairs_move_one_way():
    from game.sim.rates import sign_test

    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(0.0625)  # five of five one way: not clear
    assert sign_test(9, 1) == pytest.approx(0.021484375)
    assert sign_test(3, 3) == pytest.approx(1.0)


def test_a_bot_that_played_one_warband_only_gets_a_warning_naming_the_missing_pairing():
    one = [rec(0, False, "north", "a"), rec(0, True, "south", "b")]  # the planner keeps north
    page = render_html(summarize(one))
    assert "planner played only the north against utility" in page
    assert "Add --bots utility,planner to play it as the south too." in page
    both = one + [rec(1, False, "north", "c", pairing=("utility", "planner"))]
    assert "played only the" not in render_html(summarize(both))


def test_the_first_bot_is_the_one_the_study_names_first_whichever_game_ended_first():
    """Records are written as games end: the second pairing's game may come first."""
    later = rec(0, False, "north", "a", pairing=("utility", "planner")) | {"pairing_index": 1}
    sooner = rec(0, False, "south", "b", pairing=("planner", "utility")) | {"pairing_index": 0}
    [m] = head_to_head([later, sooner])
    assert m["bots"] == ["planner", "utility"]
    assert (m["won"], m["lost"]) == (0, 2)  # utility won both: north in "a", south in "b"
    assert summarize([later, sooner])["bots"] == [["planner", "utility"], ["utility", "planner"]]
    # records from before the index: the order met, as before
    old = [{k: v for k, v in r.items() if k != "pairing_index"} for r in (later, sooner)]
    assert head_to_head(old)[0]["bots"] == ["utility", "planner"]
