"""Placeholder combat: melee (F1), wounds (S2), their exact odds, and the turn limit (T1).
Shooting (S1, with line of sight) is in tests/test_shoot.py."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from fractions import Fraction
from itertools import product

import pytest

from game.engine.errors import IllegalAction
from game.engine.events import Incapacitated, StatusChanged, Won
from game.engine.rules import wounds
from game.cli import main
from tests.factories import R25, SCRIPTS, game, unit

PLACEHOLDER = {"combat": "placeholder"}


def melee_game(*, red_status="normal", blue_status="normal", carrying=None, dice=(), rules=None, **blue_stats):
    """red-a and blue-x Engaged with each other, red's Melee phase."""
    red = [unit("red-a", [5, 5], status=red_status, agility=12), unit("red-b", [5, 10], agility=12)]
    blue = [
        unit("blue-x", [5 + 2 * R25 + 0.02, 5], keywords=[], status=blue_status, carrying=carrying, **blue_stats),
        unit("blue-y", [20, 20], keywords=[]),
    ]
    tokens = [{"id": "t1", "at": [5 + 2 * R25 + 0.02, 5]}] if carrying else []
    g = game(
        red,
        blue,
        tokens,
        state={"turn": 2, "player": 1, "phase": "engage"},
        rules={**PLACEHOLDER, **(rules or {})},
        dice=dice,
    )
    g.state.units["red-a"].engaged_with.append("blue-x")
    g.state.units["blue-x"].engaged_with.append("red-a")
    g.apply({"end_phase": {}})  # -> move
    g.apply({"end_phase": {}})  # -> shoot
    g.apply({"end_phase": {}})  # -> melee
    assert g.state.phase == "melee"
    return g


def test_attack_is_refused_under_manual_combat_with_the_reason():
    g = melee_game(rules={"combat": "manual"})
    why = g.why_illegal({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert why.rule == "F1" and "combat is manual" in why.reason


def test_attack_needs_an_engagement_with_that_target():
    g = melee_game()
    assert g.why_illegal({"attack": {"unit": "red-b", "target": "blue-x"}}).reason == "red-b is not Engaged with anyone"
    why = g.why_illegal({"attack": {"unit": "red-a", "target": "blue-y"}})
    assert why.rule == "F1" and "not Engaged with blue-y" in why.reason


def test_a_hit_and_a_failed_defence_roll_the_injury_chart():
    # to hit 12 vs agility 12 (pass, exactly at the stat); Defence 11 vs 10 (fail); Injury 16: Dazed
    g = melee_game(dice=[12, 11, 16])
    r = g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert [(x.rule, x.kept) for x in r.rolls] == [("F1", 12), ("S2", 11), ("S2", 16)]
    assert g.state.units["blue-x"].status == "dazed"
    assert any(isinstance(e, StatusChanged) and e.after == "dazed" for e in r.events)
    line = r.to_json_line(0)
    assert line["hit"] is True and line["status"] == "dazed"


def test_a_miss_one_over_the_stat_does_nothing():
    g = melee_game(dice=[13])
    r = g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert [x.kept for x in r.rolls] == [13] and g.state.units["blue-x"].status == "normal"
    assert r.to_json_line(0)["hit"] is False


def test_a_passed_defence_at_the_stat_is_no_effect():
    g = melee_game(dice=[1, 10])
    g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert g.state.units["blue-x"].status == "normal"


def test_an_injury_no_worse_than_the_status_changes_nothing():
    g = melee_game(blue_status="staggered", dice=[1, 20, 12])  # Injury 12: Staggered, already Staggered
    r = g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert g.state.units["blue-x"].status == "staggered" and not any(isinstance(e, StatusChanged) for e in r.events)


def test_a_stunned_target_is_incapacitated_at_once_and_its_token_goes_to_the_attacker():
    g = melee_game(blue_status="stunned", carrying="t1")
    r = g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    st = g.state
    assert r.rolls == [] and st.units["blue-x"].status == "incapacitated" and st.lost["blue"] == 1
    assert st.units["red-a"].carrying == "t1"  # U6: the Engaged unit that did it takes it at once
    assert any(isinstance(e, Incapacitated) and e.by == "red-a" for e in r.events)


def test_a_dazed_target_gives_advantage_and_is_incapacitated_on_a_failed_defence():
    g = melee_game(blue_status="dazed", dice=[19, 3, 15])  # two dice, keep the better (3); Defence 15 fails
    r = g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert r.rolls[0].mode == "advantage" and r.rolls[0].kept == 3
    assert g.state.units["blue-x"].status == "incapacitated" and len(r.rolls) == 2


def test_a_staggered_attacker_has_disadvantage_and_both_cancel():
    g = melee_game(red_status="staggered", dice=[3, 19])
    r = g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert r.rolls[0].mode == "disadvantage" and r.rolls[0].kept == 19 and r.rolls[0].success is False
    g2 = melee_game(red_status="staggered", blue_status="dazed", dice=[19])
    r2 = g2.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert r2.rolls[0].mode == "normal" and len(r2.rolls[0].values) == 1


def test_one_attack_per_turn():
    g = melee_game(dice=[13])
    g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})
    why = g.why_illegal({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert why.rule == "F1" and "already attacked this turn" in why.reason


def test_legal_actions_lists_the_attack_and_its_target():
    g = melee_game()
    legal = g.legal_actions("red-a")
    assert "attack" in legal.kinds and legal.targets["attack"] == ("blue-x",)
    assert legal.refused["shoot"].rule == "turn"
    assert g.legal_actions("red-b").refused["attack"].reason == "red-b is not Engaged with anyone"


# --- exact odds ----------------------------------------------------------------------------------


def test_check_chances_are_exact():
    g = melee_game()
    rs = g.rs
    assert wounds.check_chance(rs, 12) == Fraction(12, 20)
    assert wounds.check_chance(rs, 12, "advantage") == 1 - Fraction(8, 20) ** 2
    assert wounds.check_chance(rs, 12, "disadvantage") == Fraction(12, 20) ** 2
    assert wounds.check_chance(rs, 0) == 0 and wounds.check_chance(rs, 25) == 1


def test_attack_odds_by_hand():
    g = melee_game(defence=10)
    odds = g.odds({"attack": {"unit": "red-a", "target": "blue-x"}})
    hit, save = Fraction(12, 20), Fraction(10, 20)
    assert odds.hit == hit
    assert odds.results == {
        "miss": 1 - hit,
        "no effect": hit * (save + (1 - save) * Fraction(11, 20)),
        "staggered": hit * (1 - save) * Fraction(4, 20),
        "dazed": hit * (1 - save) * Fraction(3, 20),
        "stunned": hit * (1 - save) * Fraction(2, 20),
    }
    assert sum(odds.results.values()) == 1


def test_odds_match_every_outcome_of_the_dice_counted_one_by_one():
    """All 20 x 20 x 20 dice of one attack, applied for real: the counts are the odds."""
    g = melee_game(defence=9)
    action = {"attack": {"unit": "red-a", "target": "blue-x"}}
    odds = g.odds(action)
    counts: dict[str, int] = {}
    for hit, defence, injury in product(range(1, 21), repeat=3):
        g.dice.typed[:] = [hit, defence, injury]
        g.dice._typed_pos = 0
        r = g.apply(action)
        status = g.state.units["blue-x"].status
        key = "miss" if not r.extra["hit"] else ("no effect" if status == "normal" else status)
        counts[key] = counts.get(key, 0) + 1
        g.undo()
    assert {k: Fraction(v, 8000) for k, v in counts.items()} == {k: v for k, v in odds.results.items() if v}


def test_a_stunned_target_has_certain_odds():
    g = melee_game(blue_status="stunned")
    odds = g.odds({"attack": {"unit": "red-a", "target": "blue-x"}})
    assert odds.results == {"incapacitated": 1} and odds.mode == "no roll"


# --- the turn limit (T1) --------------------------------------------------------------------------


def limit_game(limit=2, winner="draw", red_carrying=False, blue_carrying=False, lost=None):
    tokens = []
    red = [unit("red-a", [5, 5]), unit("red-b", [9, 5])]
    blue = [unit("blue-x", [30, 30], keywords=[]), unit("blue-y", [26, 30], keywords=[])]
    if red_carrying:
        tokens.append({"id": "t1", "at": [5, 5]})
        red[0]["carrying"] = "t1"
    if blue_carrying:
        tokens.append({"id": "t2", "at": [30, 30]})
        blue[0]["carrying"] = "t2"
    state = {"turn": 1, "player": 1, "phase": "engage", "lost": lost or {}}
    return game(red, blue, tokens, state=state, rules={"turn_limit": limit, "turn_limit_winner": winner})


def test_the_game_ends_at_the_end_of_the_last_game_turn_as_a_draw():
    g = limit_game(limit=2)
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    assert (g.state.turn, g.state.player) == (2, 1) and g.outcome() is None
    g.apply({"end_turn": {}})
    assert (g.state.turn, g.state.player) == (2, 2) and g.outcome() is None  # the last turn is played in full
    r = g.apply({"end_turn": {}})
    o = g.outcome()
    assert o is not None and o.draw and o.winner is None and "turn limit (2 game turns, T1)" in o.reason
    assert any(isinstance(e, Won) and e.warband is None for e in r.events)
    why = g.why_illegal({"end_turn": {}})
    assert why.rule == "U2" and "a draw" in why.reason
    final = g.final_json()["final"]
    assert final["draw"] is True and final["winner"] is None and "T1" in final["end"]


def test_treasure_decides_at_the_turn_limit_then_losses():
    g = limit_game(limit=1, winner="treasure", red_carrying=True)
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    assert g.winner == "red" and "most treasure held (1)" in g.outcome().reason
    g = limit_game(limit=1, winner="treasure", red_carrying=True, blue_carrying=True, lost={"red": 1})
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    assert g.winner == "blue"
    g = limit_game(limit=1, winner="treasure", red_carrying=True, blue_carrying=True)
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    assert g.outcome().draw and "level" in g.outcome().reason


def test_a_scenario_turn_limit_and_a_bad_one():
    import os

    from game.engine.errors import LoadError
    from game.engine.scenario import load_scenario
    from tests.factories import SCRIPTS

    text = open(os.path.join(SCRIPTS, "duel.yaml")).read()
    sc = load_scenario(os.path.join(SCRIPTS, "t.yaml"), text=text.replace("name: Duel", "name: Duel\nturn_limit: 5"))
    assert sc.ruleset.turn_limit == 5
    with pytest.raises(LoadError) as exc:
        load_scenario(os.path.join(SCRIPTS, "t.yaml"), text=text.replace("name: Duel", "name: Duel\nturn_limit: 0"))
    (p,) = exc.value.problems
    assert p.line == 3 and "turn_limit must be a whole number" in p.message


def test_no_turn_limit_by_default():
    g = game([unit("red-a", [5, 5])], [unit("blue-x", [30, 30])])
    assert g.rs.turn_limit is None
    for _ in range(30):
        g.apply({"end_turn": {}})
    assert g.outcome() is None and g.state.turn == 16


def test_manual_combat_stays_the_default():
    g = game([unit("red-a", [5, 5])], [unit("blue-x", [30, 30])])
    assert g.rs.combat == "manual"
    with pytest.raises(IllegalAction):
        g.apply({"attack": {"unit": "red-a", "target": "blue-x"}})


def test_a_whole_bot_game_on_the_default_map_replays_to_the_turn_limit():
    """Issue 10: a whole game under placeholder combat plays out by replay (the script is
    a bot game kept in tests/scripts; its every line is also a golden replay)."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert (
            main(
                [
                    "replay",
                    os.path.join(SCRIPTS, "placeholder-default.yaml"),
                    os.path.join(SCRIPTS, "placeholder-game.yaml"),
                    "--json",
                ]
            )
            == 0
        )
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert all(x["ok"] for x in lines[:-1])
    kinds = {next(iter(x["action"])) for x in lines[:-1]}
    assert {"shoot", "attack", "engage", "pick_up"} <= kinds
    assert any("S2" in [r["rule"] for r in x["rolls"]] for x in lines[:-1])
    final = lines[-1]["final"]
    assert final["winner"] == "gaolers" and final["turn"] == 8 and "turn limit (8 game turns, T1)" in final["end"]
