"""Rout variants as ruleset files: one starting position, three different decisions."""

import pytest

from tests.factories import game, unit

RED = [
    unit("red-captain", [4, 4], morale=14),
    unit("red-mage", [6, 4], morale=11),
    unit("red-c", [8, 4], morale=10, keywords=[]),
    unit("red-d", [10, 4], morale=10, keywords=[]),
    unit("red-lost1", [4, 8], on_table=False, keywords=[]),
    unit("red-lost2", [6, 8], on_table=False, keywords=[]),
]
BLUE = [unit("blue-boss", [30, 30], carrying="t1"), unit("blue-thug", [26, 30], keywords=[])]
TOKENS = [{"id": "t1", "at": [30, 30]}]
STATE = {"turn": 2, "player": 1, "phase": "upkeep", "lost": {"red": 2}}


def position(ruleset, dice):
    return game(RED, BLUE, TOKENS, state=STATE, ruleset=ruleset, dice=dice)


def test_standard_2_lost_plus_1_held_is_no_rout_check():
    g = position(None, [20])
    assert not g.dice.log and g.outcome() is None and g.state.phase == "engage"


def test_legacy_6_units_check_from_2_lost():
    g = position("rout-legacy", [20])
    (roll,) = g.dice.log
    assert roll.rule == "U2" and roll.unit == "red-captain" and not roll.success
    assert g.winner == "blue"


def test_legacy_does_not_check_below_the_table_value():
    state = {**STATE, "lost": {"red": 1}}
    g = game(RED, BLUE, TOKENS, state=state, ruleset="rout-legacy", dice=[20])
    assert not g.dice.log and g.outcome() is None


def test_break_point_every_unit_rolls_on_the_unit_morale_table():
    g = position("rout-breakpoint", [1, 1, 6, 6, 3, 3, 4, 4])
    rolls = g.dice.log
    assert [(r.unit, r.count if hasattr(r, "count") else len(r.values)) for r in rolls] == [
        ("red-captain", 2),
        ("red-mage", 2),
        ("red-c", 2),
        ("red-d", 2),
    ]
    assert [r.modifier for r in rolls] == [1, -1, -1, -1]
    st = g.state.units
    assert not st["red-captain"].on_table  # 2 + 1 = 3: flee
    assert st["red-mage"].on_table and st["red-mage"].status == "normal"  # 12 - 1 = 11: stand firm
    assert not st["red-c"].on_table  # 6 - 1 = 5: flee
    assert st["red-d"].status == "staggered"  # 8 - 1 = 7: waver
    assert g.state.lost["red"] == 4 and g.outcome() is None


def test_break_point_all_rout_means_the_warband_routs():
    g = position("rout-breakpoint", [1] * 8)
    assert g.winner == "blue" and g.state.routed == ["red"]


def test_break_point_needs_a_new_loss_to_roll_again():
    g = position("rout-breakpoint", [6] * 8)  # everyone rallies or stands firm
    n = len(g.dice.log)
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})  # red's next upkeep: no new loss, no rolls
    assert len(g.dice.log) == n and any("no new loss" in a["text"] for a in g.log[-1].automatic)


@pytest.mark.parametrize("ruleset, decided", [(None, None), ("rout-legacy", "blue"), ("rout-breakpoint", None)])
def test_same_position_three_decisions(ruleset, decided):
    g = position(ruleset, [20, 1, 1, 6, 6, 3, 3, 4, 4][(0 if ruleset != "rout-breakpoint" else 1) :])
    assert g.winner == decided
