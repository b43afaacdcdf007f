"""Shooting (S1) under placeholder combat, with line of sight (L1) and cover (L2), at its
boundaries: range exactly at the limit and 0.01" past it, long range, a blocking tower,
a low wall near the target, Run, Engaged, reload (M11)."""

from __future__ import annotations

import os

import yaml

from game.engine.dice import Dice
from game.engine.game import Game
from game.engine.scenario import load_scenario
from tests.factories import R25, SCRIPTS

STATS = {"move": 6, "agility": 12, "morale": 10, "defence": 10}


def shoot_game(
    blue_at=(5, 35),
    *,
    terrain=(),
    red_keywords=("crossbow",),
    blue_status="normal",
    red_status="normal",
    dice=(),
    rules=None,
    phase="shoot",
    extra_blue=(),
):
    red = [
        {
            "id": "red-x",
            "at": [5, 5],
            "base_mm": 25,
            "stats": STATS,
            "keywords": list(red_keywords),
            "status": red_status,
        }
    ]
    blue = [{"id": "blue-o", "at": list(blue_at), "base_mm": 25, "stats": STATS, "keywords": [], "status": blue_status}]
    blue += list(extra_blue)
    data = {
        "name": "range",
        "table": {"width": 40, "height": 48},
        "rules": {"combat": "placeholder", **(rules or {})},
        "terrain": list(terrain),
        "warbands": [{"id": "red", "player": 1, "units": red}, {"id": "blue", "player": 2, "units": blue}],
        "state": {"turn": 2, "player": 1, "phase": phase},
    }
    sc = load_scenario(os.path.join(SCRIPTS, "range.yaml"), text=yaml.safe_dump(data, sort_keys=False))
    return Game(sc, dice=Dice(seed=1, typed=list(dice)))


SHOT = {"shoot": {"unit": "red-x", "target": "blue-o"}}


def at_gap(gap: float) -> tuple[float, float]:
    """blue-o straight south of red-x with ``gap`` inches between the bases."""
    return (5, 5 + 2 * R25 + gap)


def test_range_exactly_at_the_limit_and_just_past_it():
    g = shoot_game(at_gap(30.0))
    assert g.why_illegal(SHOT) is None
    why = shoot_game(at_gap(30.01)).why_illegal(SHOT)
    assert why.rule == "S1" and why.reason == 'blue-o is 30.01" away (crossbow range 30")'


def test_beyond_half_range_gives_disadvantage_and_at_half_it_does_not():
    g = shoot_game(at_gap(15.0), dice=[5])
    r = g.apply(SHOT)
    assert r.rolls[0].mode == "normal"
    g = shoot_game(at_gap(15.01), dice=[5, 14])
    r = g.apply(SHOT)
    assert r.rolls[0].mode == "disadvantage" and r.rolls[0].kept == 14 and 'long range, beyond 15"' in r.rolls[0].reason


def test_a_tower_between_blocks_the_shot_and_a_low_block_does_not():
    tower = {"id": "tower", "kind": "block", "height": 3, "polygon": [[3, 12], [7, 12], [7, 16], [3, 16]]}
    why = shoot_game(at_gap(20), terrain=[tower]).why_illegal(SHOT)
    assert why.rule == "L1" and "cannot see blue-o" in why.reason
    low = dict(tower, id="rubble", height=1)
    assert shoot_game(at_gap(20), terrain=[low]).why_illegal(SHOT) is None


def test_a_low_wall_next_to_the_target_is_cover():
    bx, by = at_gap(10)
    wall = {
        "id": "fence",
        "kind": "wall",
        "height": 0.75,
        "polygon": [[0, by - R25 - 0.6], [10, by - R25 - 0.6], [10, by - R25 - 0.5], [0, by - R25 - 0.5]],
    }
    g = shoot_game((bx, by), terrain=[wall], dice=[3, 18])
    assert g.sight.between(g.state, "red-x", "blue-o").cover
    r = g.apply(SHOT)
    assert r.rolls[0].mode == "disadvantage" and "cover (L2)" in r.rolls[0].reason
    line = r.to_json_line(0)
    assert line["visible"] is True and line["cover"] is True and line["distance"] == 10.0 and line["hit"] is False


def test_a_dazed_target_gives_advantage_and_a_hit_wounds_it():
    g = shoot_game(at_gap(5), blue_status="dazed", dice=[19, 2, 15])  # keep 2: hit; Defence 15 fails: out
    r = g.apply(SHOT)
    assert r.rolls[0].mode == "advantage" and g.state.units["blue-o"].status == "incapacitated"
    assert g.state.lost["blue"] == 1 and r.to_json_line(0)["status"] == "incapacitated"


def test_the_shooter_may_not_have_run_be_engaged_or_unarmed():
    g = shoot_game(at_gap(5))
    g.state.units["red-x"].ran = True
    assert g.why_illegal(SHOT).reason == "red-x Ran this turn and may not shoot (M2)"
    g = shoot_game(at_gap(5), red_keywords=())
    why = g.why_illegal(SHOT)
    assert why.rule == "S1" and "no ranged weapon" in why.reason and "bow, crossbow" in why.reason
    g = shoot_game(at_gap(5), red_status="dazed")
    assert g.why_illegal(SHOT).rule == "U5"


def test_an_engaged_target_may_not_be_shot_unless_the_ruleset_allows_it():
    for allowed in (False, True):
        g = shoot_game(at_gap(8), rules={"shoot_into_melee": allowed})
        g.state.units["blue-o"].engaged_with.append("red-x-friend")
        why = g.why_illegal(SHOT)
        assert (why is None) is allowed
        if not allowed:
            assert why.rule == "S1" and "shoot_into_melee: false" in why.reason


def test_a_crossbow_that_fired_must_reload_in_the_move_phase():
    g = shoot_game(at_gap(5), dice=[20])
    g.apply(SHOT)
    assert g.why_illegal(SHOT).reason == "red-x has already shot this turn (1 shot per turn)"
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})  # red's next turn, engage phase
    g.apply({"end_phase": {}})  # move
    g.apply({"end_phase": {}})  # shoot
    why = g.why_illegal(SHOT)
    assert why.rule == "S1" and "must be Reloaded in the Move phase first (M11)" in why.reason
    g.undo()
    g.apply({"reload": {"unit": "red-x"}})
    g.apply({"end_phase": {}})
    assert g.why_illegal(SHOT) is None
    bow = shoot_game(at_gap(5), red_keywords=("bow",), dice=[20])
    bow.apply(SHOT)
    assert bow.state.units["red-x"].loaded  # a bow needs no reload


def test_shooting_is_refused_under_manual_combat():
    g = shoot_game(at_gap(5), rules={"combat": "manual"})
    why = g.why_illegal(SHOT)
    assert why.rule == "S1" and "combat is manual" in why.reason


def test_legal_actions_lists_the_targets_in_range_and_in_sight():
    far = {"id": "blue-far", "at": list(at_gap(35)), "base_mm": 25, "stats": STATS, "keywords": []}
    g = shoot_game(at_gap(10), extra_blue=[far])
    legal = g.legal_actions("red-x")
    assert legal.targets["shoot"] == ("blue-o",)
    odds = g.odds(SHOT)
    assert odds.hit == __import__("fractions").Fraction(12, 20)
