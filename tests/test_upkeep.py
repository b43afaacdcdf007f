"""Upkeep rules U1-U8 at their boundaries (RULES.md)."""

import pytest

from game.engine.errors import IllegalAction
from tests.factories import R25, game, unit

UPKEEP2 = {"turn": 2, "player": 1, "phase": "upkeep"}  # red's upkeep, not the first turn
BLUE_UPKEEP = {"turn": 1, "player": 2, "phase": "upkeep"}
FAR_BLUE = [unit("blue-boss", [30, 30]), unit("blue-thug", [33, 30], keywords=[])]
RED = [unit("red-captain", [4, 4]), unit("red-mage", [6, 4], morale=11, keywords=["hero", "caster"])]


def rolls(g, rule):
    return [r for r in g.dice.log if r.rule == rule]


# --- U2 rout check: 5 and 6 -------------------------------------------------------------
@pytest.mark.parametrize("lost, held, checks", [(5, 0, False), (6, 0, True), (4, 1, False), (5, 1, True)])
def test_rout_check_starts_at_six(lost, held, checks):
    blue = [unit("blue-boss", [30, 30], carrying="t1" if held else None), unit("blue-thug", [33, 30], keywords=[])]
    tokens = [{"id": "t1", "at": [30, 30]}]
    g = game(RED, blue, tokens, state={**UPKEEP2, "lost": {"red": lost}}, dice=[1])
    assert bool(rolls(g, "U2")) is checks
    if checks:  # passed on a 1: the voluntary rout decision waits (U3)
        assert g.pending.kind == "voluntary_rout" and g.pending.player == 1
        assert "rout" in g.legal_action_kinds()
    else:
        assert g.pending is None and g.state.phase == "engage"


def test_failed_rout_check_removes_the_warband_and_the_other_wins():
    g = game(RED, FAR_BLUE, state={**UPKEEP2, "lost": {"red": 6}}, dice=[20])
    assert g.winner == "blue"
    assert all(not u.on_table for u in g.state.units_of("red"))
    assert g.state.routed == ["red"]
    assert g.legal_action_kinds() == []
    with pytest.raises(IllegalAction) as exc:
        g.apply({"end_phase": {}})
    assert exc.value.rule == "U2"


def test_rout_check_uses_the_best_hero_that_is_not_incapacitated():
    red = [
        unit("red-captain", [4, 4], status="incapacitated"),
        unit("red-mage", [6, 4], morale=11),
        unit("red-brute", [8, 4], morale=18, keywords=[]),
    ]
    g = game(red, FAR_BLUE, state={**UPKEEP2, "lost": {"red": 6}}, dice=[12])
    (roll,) = rolls(g, "U2")
    assert roll.unit == "red-mage" and roll.target == 11 and roll.success is False
    assert g.winner == "blue"


@pytest.mark.parametrize(
    "rule, routed, rolled", [("auto_fail", True, False), ("pass", False, False), ("best_morale", False, True)]
)
def test_no_hero_rule_is_a_ruleset_choice(rule, routed, rolled):
    red = [unit("red-brute", [8, 4], morale=18, keywords=[])]
    g = game(red, FAR_BLUE, state={**UPKEEP2, "lost": {"red": 6}}, dice=[10], rules={"rout_no_hero": rule})
    assert (g.winner == "blue") is routed
    assert bool(rolls(g, "U2")) is rolled


def test_voluntary_rout_after_a_passed_check():
    g = game(RED, FAR_BLUE, state={**UPKEEP2, "lost": {"red": 6}}, dice=[1])
    bad = g.try_apply({"rout": {"player": 2}})
    assert not bad.ok and bad.rule == "U3"
    g.apply({"rout": {"player": 1}})
    assert g.winner == "blue"


def test_play_on_after_a_passed_check_goes_on_with_the_upkeep():
    g = game(RED, FAR_BLUE, state={**UPKEEP2, "lost": {"red": 6}}, dice=[1])
    g.apply({"play_on": {"player": 1}})
    assert g.outcome() is None and g.state.phase == "engage"


# --- U4 the grab after a rout: 5 and 5.01 -------------------------------------------------
def _grab_game(red, blue, tokens, dice=()):
    """Blue (player 2) fails its Rout Check in its upkeep; red is the winner."""
    return game(red, blue, tokens, state={**BLUE_UPKEEP, "lost": {"blue": 6}}, dice=[20, *dice])


@pytest.mark.parametrize("gap, grabbed", [(5.0, True), (5.01, False)])
def test_winner_alone_within_5_picks_up(gap, grabbed):
    red = [unit("red-captain", [10 + 2 * R25 + gap, 10])]
    g = _grab_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10]}])
    assert g.winner == "red"
    assert (g.state.treasure["t1"].carried_by == "red-captain") is grabbed
    assert not [r for r in rolls(g, "U4")]  # no check for the winner alone


@pytest.mark.parametrize("gap, tried", [(5.0, True), (5.01, False)])
def test_loser_alone_within_5_makes_a_morale_check(gap, tried):
    blue = [unit("blue-boss", [10 + 2 * R25 + gap, 10], morale=12)]
    g = _grab_game([unit("red-captain", [30, 30])], blue, [{"id": "t1", "at": [10, 10]}], dice=[5])
    grab = rolls(g, "U4")
    assert bool(grab) is tried
    if tried:
        assert grab[0].unit == "blue-boss" and grab[0].success
        assert g.state.treasure["t1"].carried_by == "blue-boss"


def test_both_within_5_winner_checks_first_then_loser():
    red = [unit("red-captain", [13, 10], morale=10)]
    blue = [unit("blue-boss", [7, 10], morale=12)]
    g = _grab_game(red, blue, [{"id": "t1", "at": [10, 10]}], dice=[15, 3])
    grab = rolls(g, "U4")
    assert [(r.unit, r.success) for r in grab] == [("red-captain", False), ("blue-boss", True)]
    assert g.state.treasure["t1"].carried_by == "blue-boss"


def test_animal_cannot_grab_but_forces_the_check():
    red = [unit("red-captain", [13, 10], morale=10)]
    blue = [unit("blue-dog", [7, 10], keywords=["animal"]), unit("blue-boss", [30, 30])]
    g = _grab_game(red, blue, [{"id": "t1", "at": [10, 10]}], dice=[4])
    grab = rolls(g, "U4")
    assert [(r.unit, r.success) for r in grab] == [("red-captain", True)]  # a check, not a free pick-up
    # and a winner that is only an animal picks up nothing; the loser then checks
    red = [unit("red-dog", [13, 10], keywords=["animal"])]
    g = _grab_game(red, [unit("blue-boss", [7, 10], morale=12)], [{"id": "t1", "at": [10, 10]}], dice=[2])
    assert [r.unit for r in rolls(g, "U4")] == ["blue-boss"]
    assert g.state.treasure["t1"].carried_by == "blue-boss"


def test_owner_chooses_which_unit_tries():
    red = [unit("red-captain", [13, 10]), unit("red-mage", [10, 13]), unit("red-far", [30, 4])]
    g = _grab_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10]}])
    assert g.pending.kind == "grab" and sorted(g.pending.units) == ["red-captain", "red-mage"]
    assert g.legal_action_kinds()[0] == "grab"
    bad = g.try_apply({"grab": {"unit": "red-far", "token": "t1"}})
    assert not bad.ok and bad.rule == "U4"
    g.apply({"grab": {"unit": "red-mage", "token": "t1"}})
    assert g.state.treasure["t1"].carried_by == "red-mage" and g.winner == "red"


def test_grab_reveals_plague_but_not_events():
    red = [unit("red-captain", [12, 10], defence=10), unit("red-b", [12, 20])]
    tokens = [{"id": "t1", "at": [10, 10], "event": "plague"}, {"id": "t2", "at": [10, 20], "event": "event"}]
    g = _grab_game(red, [unit("blue-boss", [30, 30])], tokens, dice=[18])
    plague = rolls(g, "U7")
    assert len(plague) == 1 and plague[0].stat == "defence" and not plague[0].success
    assert g.state.units["red-captain"].status == g.scenario.ruleset.plague_fail_status
    assert g.state.treasure["t2"].carried_by == "red-b"
    assert g.state.event_triggered_by is None
    assert not any(u.warband == "neutrals" for u in g.state.units.values())


# --- U5 recover -------------------------------------------------------------------------
def test_recover_only_the_current_players_units():
    red = [
        unit("red-a", [4, 4], status="stunned"),
        unit("red-b", [6, 4], status="dazed"),
        unit("red-c", [8, 4], status="staggered"),
    ]
    blue = [unit("blue-a", [30, 30], status="stunned")]
    g = game(red, blue, state=UPKEEP2)
    st = g.state.units
    assert (st["red-a"].status, st["red-b"].status, st["red-c"].status) == ("dazed", "staggered", "normal")
    assert st["blue-a"].status == "stunned"


# --- U6 treasure --------------------------------------------------------------------------
def _treasure_game(red, blue, tokens, state=UPKEEP2, **kw):
    return game(red, blue, tokens, state=state, **kw)


@pytest.mark.parametrize("gap, denied", [(2.0, True), (2.01, False)])
def test_pick_up_denied_by_an_opponent_within_2(gap, denied):
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    blue = [unit("blue-boss", [10 + 2 * R25 + gap, 10])]
    g = _treasure_game(red, blue, [{"id": "t1", "at": [10, 10]}])
    if denied:
        assert g.pending is None  # nothing to decide: the step ran by itself
        g2 = _treasure_game(red, blue, [{"id": "t1", "at": [10, 10]}], state={**UPKEEP2, "step": "treasure"})
        assert any('pick-up denied: blue-boss is 2.00"' in a["text"] for a in g2.start.automatic)
    else:
        assert g.pending.kind == "pick_up"
        assert g.pending.options == (("red-captain", "t1"),)
        g.apply({"pick_up": {"unit": "red-captain", "token": "t1"}})
        assert g.state.units["red-captain"].carrying == "t1"
        assert g.state.phase == "engage"  # nothing else to pick up: the step ended


def test_pick_up_needs_contact():
    red = [unit("red-captain", [10 - 2 * R25 - 0.06, 10]), unit("red-b", [10, 10 + 2 * R25 + 0.05])]
    g = _treasure_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10]}])
    assert g.pending.options == (("red-b", "t1"),)
    r = g.try_apply({"pick_up": {"unit": "red-captain", "token": "t1"}})
    assert not r.ok and r.rule == "U6" and '0.06"' in r.reason and "not in contact" in r.reason


def test_animals_cannot_pick_up_but_deny():
    red = [unit("red-dog", [10 - 2 * R25, 10], keywords=["animal"])]
    g = _treasure_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10]}])
    assert g.pending is None
    r = Game_try(g, {"pick_up": {"unit": "red-dog", "token": "t1"}})
    assert not r.ok
    # a blue animal 1.5" away denies red's pick-up
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    blue = [unit("blue-dog", [10 + 2 * R25 + 1.5, 10], keywords=["animal"])]
    assert _treasure_game(red, blue, [{"id": "t1", "at": [10, 10]}]).pending is None


def Game_try(g, action):
    return g.try_apply(action)


def test_one_token_per_unit():
    red = [unit("red-captain", [10 - 2 * R25, 10], carrying="t2")]
    g = _treasure_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10]}, {"id": "t2", "at": [4, 4]}])
    assert g.pending is None


def test_treasure_step_skipped_in_the_first_players_first_turn_only():
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    tokens = [{"id": "t1", "at": [10, 10]}]
    first = _treasure_game(
        red, [unit("blue-boss", [30, 30])], tokens, state={"turn": 1, "player": 1, "phase": "upkeep"}
    )
    assert first.pending is None and any(
        "skipped in the first player's first turn" in a["text"] for a in first.start.automatic
    )
    blue = [unit("blue-boss", [10 - 2 * R25, 10])]
    second = _treasure_game([unit("red-captain", [30, 30])], blue, tokens, state=BLUE_UPKEEP)
    assert second.pending.kind == "pick_up"


def _melee_state(carrier_kw=None, **kw):
    red = [unit("red-captain", [10, 10], carrying="t1")]
    blue = [unit("blue-boss", [10 + 2 * R25, 10], **(carrier_kw or {})), unit("blue-far", [30, 30])]
    return game(red, blue, [{"id": "t1", "at": [10, 10]}], state={"turn": 1, "player": 2, "phase": "melee"}, **kw)


def test_incapacitated_carrier_drops_its_token():
    g = _melee_state()
    g.apply({"incapacitate": {"unit": "red-captain", "by": "blue-far"}})  # not engaged with it
    tok = g.state.treasure["t1"]
    assert tok.carried_by is None and (tok.x, tok.y) == (10, 10)
    assert g.state.lost["red"] == 1 and g.state.units["red-captain"].status == "incapacitated"


def test_engaged_unit_that_incapacitates_takes_the_token_ignoring_denial():
    g = _melee_state()
    st = g.state
    st.units["red-captain"].engaged_with = ["blue-boss"]
    st.units["blue-boss"].engaged_with = ["red-captain"]
    g.apply({"incapacitate": {"unit": "red-captain", "by": "blue-boss"}})
    assert g.state.treasure["t1"].carried_by == "blue-boss"
    assert g.state.units["blue-boss"].engaged_with == []


# --- U7 events and plague ----------------------------------------------------------------------
def test_event_token_rolls_the_event_table_and_neutrals_act_in_the_triggering_turn():
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    g = _treasure_game(
        red,
        [unit("blue-boss", [30, 30])],
        [{"id": "t1", "at": [10, 10], "event": "event"}],
        dice=[12],
        rules={"neutral_act": "manual"},
    )
    g.apply({"pick_up": {"unit": "red-captain", "token": "t1"}})
    (ev,) = rolls(g, "U7")
    assert ev.sides == 20 and ev.kept == 12
    neutrals = [u for u in g.state.units.values() if u.warband == "neutrals"]
    assert len(neutrals) == 2  # 11-17 Ghoul pack in the placeholder table
    assert g.state.event_triggered_by == 1
    g.apply({"end_turn": {}})  # red's turn ends; blue's upkeep has no Neutrals step
    assert g.state.player == 2 and g.pending is None
    g.apply({"end_turn": {}})  # red's turn 3: Neutrals act first
    assert g.state.player == 1 and g.pending.kind == "neutrals"
    r = g.try_apply({"set_status": {"unit": "red-captain", "status": "stunned"}})
    assert r.ok  # manual results are allowed for anyone while neutrals act
    r = g.try_apply({"engage": {"unit": "red-captain", "target": "blue-boss"}})
    assert not r.ok and r.rule == "U1"
    g.apply({"end_step": {}})
    assert g.pending is None


@pytest.mark.parametrize("far", [False, True])
def test_neutrals_advance_by_themselves_with_the_placeholder_behaviour(far):
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    g = _treasure_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10], "event": "event"}], dice=[12])
    g.apply({"pick_up": {"unit": "red-captain", "token": "t1"}})
    if far:
        g.state.units["red-captain"].x = 25  # carried far away (a test shortcut)
    start = {u.id: (u.x, u.y) for u in g.state.units.values() if u.warband == "neutrals"}
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    assert g.pending is None and g.state.phase == "engage" and g.state.player == 1
    texts = [a["text"] for a in g.log[-1].automatic if a["rule"] == "U1"]
    for uid, (x0, y0) in start.items():
        u = g.state.units[uid]
        if far:
            assert 4.9 < u.x - x0 <= 5.0 + 1e-6 and not u.engaged_with  # Move 5 towards the captain
            assert any(t.startswith(f"{uid} advances towards red-captain") for t in texts)
        else:
            assert u.engaged_with == ["red-captain"] and uid in g.state.units["red-captain"].engaged_with


def test_plague_token_makes_a_plague_check_on_pick_up():
    red = [unit("red-captain", [10 - 2 * R25, 10], defence=10)]
    g = _treasure_game(red, [unit("blue-boss", [30, 30])], [{"id": "t1", "at": [10, 10], "event": "plague"}], dice=[10])
    g.apply({"pick_up": {"unit": "red-captain", "token": "t1"}})
    (p,) = rolls(g, "U7")
    assert p.success and p.target == 10 and g.state.units["red-captain"].status == "normal"


# --- U8 ongoing spells ----------------------------------------------------------------------
@pytest.mark.parametrize("die, kept", [(11, True), (12, False)])
def test_ongoing_spell_needs_a_morale_check(die, kept):
    red = [unit("red-mage", [6, 4], morale=11, keywords=["hero", "caster"])]
    g = game(red, FAR_BLUE, state=UPKEEP2, dice=[die])
    assert g.state.phase == "engage"
    g.apply({"cast": {"unit": "red-mage", "spell": "fog", "ongoing": True}})
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    (u8,) = rolls(g, "U8")
    assert u8.target == 11 and u8.unit == "red-mage"
    assert ("fog" in g.state.units["red-mage"].spells) is kept
