"""The phase controller: flow, refusals that leave the state untouched, manual phases, undo."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from game.engine.game import Game
from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from tests.factories import R25, game, unit

RED = [
    unit("red-captain", [4, 4]),
    unit("red-mage", [6, 4], morale=11, keywords=["hero", "caster"]),
    unit("red-dog", [8, 4], keywords=["animal"]),
]
BLUE = [unit("blue-boss", [30, 30]), unit("blue-thug", [12, 4], keywords=[])]


def g_at(phase="engage", player=1, turn=1, **kw):
    return game(RED, BLUE, [{"id": "t1", "at": [20, 20]}], state={"turn": turn, "player": player, "phase": phase}, **kw)


def test_start_runs_automatic_upkeep_and_stops_in_engage():
    g = game(RED, BLUE)
    assert (g.state.turn, g.state.player, g.state.phase, g.state.step) == (1, 1, "engage", None)
    steps = [a["step"] for a in g.start.automatic]
    assert steps[:5] == ["neutrals", "rout", "recover", "treasure", "ongoing_spells"]
    assert "engage" in g.legal_action_kinds() and "move" not in g.legal_action_kinds()


def test_phases_follow_the_ruleset_and_the_turn_passes():
    g = game(RED, BLUE)
    seen = []
    for _ in range(8):
        g.apply({"end_phase": {}})
        seen.append((g.state.turn, g.state.player, g.state.phase))
    assert seen == [
        (1, 1, "move"),
        (1, 1, "shoot"),
        (1, 1, "melee"),
        (1, 2, "engage"),
        (1, 2, "move"),
        (1, 2, "shoot"),
        (1, 2, "melee"),
        (2, 1, "engage"),
    ]


@pytest.mark.parametrize(
    "action, rule",
    [
        ({"set_status": {"unit": "blue-boss", "status": "stunned"}}, "turn"),  # wrong phase (move)
        ({"move": {"unit": "blue-boss", "to": [28, 28]}}, "turn"),  # wrong player
        ({"move": {"unit": "nobody", "to": [28, 28]}}, "action"),  # unknown unit
        ({"move": {"unit": "red-gone", "to": [5, 8]}}, "turn"),  # left the table
        ({"end_step": {}}, "turn"),  # no steps in move
        ({"fly": {}}, "action"),  # not an action
        ({"reload": {"unit": "red-captain"}, "x": 1}, "action"),
    ],
)
def test_illegal_actions_leave_everything_untouched(action, rule):
    red = RED + [unit("red-gone", [5, 10], on_table=False)]
    g = game(red, BLUE, state={"turn": 1, "player": 1, "phase": "move"})
    before, dice_before, n = g.state.hash(), g.dice.getstate(), len(g.log)
    with pytest.raises(IllegalAction) as exc:
        g.apply(action)
    assert exc.value.rule == rule
    assert g.state.hash() == before and g.dice.getstate()[1:] == dice_before[1:] and len(g.log) == n
    r = g.try_apply(action)
    assert not r.ok and r.rule == rule and r.reason and g.state.hash() == before
    assert g.log[-1] is r and not g.can_undo
    line = r.to_json_line(5)
    assert line == {"i": 5, "action": r.action, "ok": False, "rule": rule, "reason": r.reason, "rolls": []}


def test_turn_flags_clear_when_the_owners_turn_begins():
    g = g_at("move")
    u = g.state.units["red-captain"]
    u.ran, u.moved, u.used, u.engage_attempted, u.trail = True, True, 3.0, True, [[(1, 1), (2, 2)]]
    g.apply({"end_turn": {}})
    u = g.state.units["red-captain"]
    assert u.ran and u.moved  # still set during the opponent's turn
    g.apply({"end_turn": {}})
    u = g.state.units["red-captain"]
    assert (u.ran, u.moved, u.used, u.engage_attempted, u.trail) == (False, False, 0.0, False, [])


# --- engage ------------------------------------------------------------------------------
@pytest.mark.parametrize("gap, ok", [(6.05, True), (6.06, False)])
def test_engage_up_to_the_move_allowance(gap, ok):
    # contact (G4) begins 0.05" short of touching: 6" of Move reach a base 6.05" away
    red = [unit("red-captain", [4, 10])]
    blue = [unit("blue-boss", [4 + 2 * R25 + gap, 10])]
    g = game(red, blue)
    r = g.try_apply({"engage": {"unit": "red-captain", "target": "blue-boss"}})
    assert r.ok is ok
    c, b = g.state.units["red-captain"], g.state.units["blue-boss"]
    if ok:
        assert g.board.distance(c, b) <= g.rs.contact_tolerance
        assert c.engaged_with == ["blue-boss"] and b.engaged_with == ["red-captain"] and c.engage_attempted
        assert r.extra["allowance"] == 6
        g.apply({"end_phase": {}})
        with pytest.raises(IllegalAction) as exc:
            g.apply({"move": {"unit": "red-captain", "to": [2, 2]}})
        assert exc.value.rule == "M1"
    else:
        # E1: beyond the allowance in a straight line, refused with that distance before any search
        assert r.rule == "E1" and r.reason.startswith('blue-boss is 6.06" away in a straight line') and c.x == 4


def test_engage_refused_when_dazed_and_half_when_staggered():
    red = [unit("red-captain", [4, 10], status="dazed"), unit("red-b", [4, 20], status="staggered")]
    blue = [unit("blue-boss", [8, 10]), unit("blue-c", [4 + 2 * R25 + 3.5, 20])]
    g = game(red, blue, state={"turn": 1, "player": 1, "phase": "engage"})
    with pytest.raises(IllegalAction) as exc:
        g.apply({"engage": {"unit": "red-captain", "target": "blue-boss"}})
    assert exc.value.rule == "U5"
    with pytest.raises(IllegalAction) as exc:
        g.apply({"engage": {"unit": "red-b", "target": "blue-c"}})
    assert exc.value.rule == "E1" and 'up to 3"' in exc.value.reason


# --- manual results ------------------------------------------------------------------------
def test_set_status_and_incapacitate_count_losses():
    g = g_at("melee")
    g.apply({"set_status": {"unit": "blue-thug", "status": "dazed"}})
    assert g.state.units["blue-thug"].status == "dazed"
    g.apply({"set_status": {"unit": "blue-thug", "status": "incapacitated"}})
    assert g.state.lost["blue"] == 1
    with pytest.raises(IllegalAction):
        g.apply({"incapacitate": {"unit": "blue-thug"}})
    with pytest.raises(IllegalAction):
        g.apply({"set_status": {"unit": "blue-thug", "status": "normal"}})


def test_free_rolls_and_checks_are_logged_with_their_reason():
    g = g_at("shoot", dice=[4, 5, 6, 15, 3])
    r = g.apply({"roll": {"sides": 6, "count": 3, "reason": "scatter"}})
    (roll,) = r.rolls
    assert roll.values == [4, 5, 6] and roll.kept == 15 and roll.reason == "scatter"
    r = g.apply({"check": {"unit": "red-captain", "stat": "agility", "advantage": True, "reason": "shoot"}})
    (roll,) = r.rolls
    assert roll.values == [15, 3] and roll.kept == 3 and roll.success and roll.target == 12
    assert r.to_json_line(0)["rolls"][0]["mode"] == "advantage"
    with pytest.raises(IllegalAction):
        g.apply({"check": {"unit": "red-captain", "stat": "luck"}})


def test_staggered_units_check_with_disadvantage_in_their_own_turn():
    red = [unit("red-captain", [4, 4], status="staggered")]
    g = game(red, BLUE, state={"turn": 1, "player": 1, "phase": "shoot"}, dice=[3, 15])
    r = g.apply({"check": {"unit": "red-captain", "stat": "agility"}})
    assert r.rolls[0].mode == "disadvantage" and r.rolls[0].kept == 15
    g2 = game(red, BLUE, state={"turn": 1, "player": 2, "phase": "shoot"}, dice=[3, 15])
    r = g2.apply({"check": {"unit": "red-captain", "stat": "agility", "advantage": True, "disadvantage": True}})
    assert r.rolls[0].mode == "normal" and r.rolls[0].values == [3]


def test_cast_only_casters():
    g = g_at("shoot")
    with pytest.raises(IllegalAction) as exc:
        g.apply({"cast": {"unit": "red-captain", "spell": "fog"}})
    assert exc.value.rule == "U8"
    g.apply({"cast": {"unit": "red-mage", "spell": "fog", "ongoing": True}})
    assert g.state.units["red-mage"].spells == ["fog"]
    g.apply({"end_spell": {"unit": "red-mage", "spell": "fog"}})
    assert g.state.units["red-mage"].spells == []


def test_reload_instead_of_moving():
    g = g_at("move")
    g.state.units["red-captain"].keywords.append("crossbow")  # M11: only a weapon that reloads
    g.apply({"reload": {"unit": "red-captain"}})
    with pytest.raises(IllegalAction) as exc:
        g.apply({"move": {"unit": "red-captain", "to": [4, 6]}})
    assert exc.value.rule == "M11"


# --- undo / redo ---------------------------------------------------------------------------------
POOL = [
    {"end_phase": {}},
    {"end_turn": {}},
    {"end_step": {}},
    {"roll": {"sides": 20, "reason": "any"}},
    {"check": {"unit": "red-captain", "stat": "morale"}},
    {"set_status": {"unit": "blue-thug", "status": "stunned"}},
    {"set_status": {"unit": "red-mage", "status": "staggered"}},
    {"incapacitate": {"unit": "blue-thug", "by": "red-captain"}},
    {"engage": {"unit": "red-captain", "target": "blue-thug"}},
    {"engage": {"unit": "blue-thug", "target": "red-dog"}},
    {"cast": {"unit": "red-mage", "spell": "fog", "ongoing": True}},
    {"move": {"unit": "red-dog", "to": [10, 8]}},
    {"move": {"unit": "blue-boss", "to": [27, 27]}},
    {"pick_up": {"unit": "red-captain", "token": "t1"}},
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.integers(0, len(POOL) - 1), min_size=1, max_size=14), hs.integers(0, 5))
def test_undo_after_apply_restores_the_exact_state(picks, seed):
    g = Game(g_at().scenario, dice=Dice(seed=seed))
    for k in picks:
        before = g.state.hash()
        dice_before = g.dice.getstate()
        r = g.try_apply(POOL[k])
        if not r.ok:
            assert g.state.hash() == before
            continue
        after = g.state.hash()
        g.undo()
        assert g.state.hash() == before and g.dice.getstate() == dice_before
        g.redo()
        assert g.state.hash() == after


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.integers(0, len(POOL) - 1), min_size=1, max_size=14), hs.integers(0, 5))
def test_same_log_same_seed_same_output(picks, seed):
    outs = []
    for _ in range(2):
        g = Game(g_at().scenario, dice=Dice(seed=seed), history=False)
        for k in picks:
            g.try_apply(POOL[k])
        outs.append(g.json_lines())
    assert outs[0] == outs[1]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.integers(0, len(POOL) - 1), min_size=1, max_size=20), hs.integers(0, 5))
def test_refusals_change_nothing_even_without_snapshots(picks, seed):
    g = Game(g_at().scenario, dice=Dice(seed=seed), history=False)
    for k in picks:
        before = g.state.hash()
        r = g.try_apply(POOL[k])
        assert r.rule != "internal", r.reason
        if not r.ok:
            assert g.state.hash() == before


def test_undo_then_a_new_action_clears_redo_and_rerolls_the_same():
    g = g_at("shoot", seed=11)
    first = g.apply({"roll": {"sides": 20}}).rolls[0].kept
    g.undo()
    assert g.can_redo and not g.can_undo
    again = g.apply({"roll": {"sides": 20}}).rolls[0].kept
    assert again == first and not g.can_redo
    with pytest.raises(IllegalAction):
        g.redo()


def test_phases_are_ruleset_data():
    phases = [
        {"name": "upkeep", "manual": False},
        {"name": "orders", "manual": True, "actions": ["roll", "check"]},
        {"name": "move", "manual": False},
        {"name": "melee", "manual": True},
    ]
    g = game(RED, BLUE, rules={"phases": phases, "upkeep_steps": ["recover", "rout"]})
    assert g.state.phase == "orders" and [a["step"] for a in g.start.automatic][:2] == ["recover", "rout"]
    assert g.legal_action_kinds() == ["roll", "check", "end_phase", "end_turn"]
    with pytest.raises(IllegalAction):
        g.apply({"set_status": {"unit": "blue-thug", "status": "dazed"}})
    seen = []
    for _ in range(4):
        g.apply({"end_phase": {}})
        seen.append((g.state.player, g.state.phase))
    assert seen == [(1, "move"), (1, "melee"), (2, "orders"), (2, "move")]


_IDS = ["red-captain", "red-mage", "red-dog", "blue-boss", "blue-thug", "t1", "nobody", ""]
_VALUES = hs.one_of(
    hs.sampled_from(_IDS),
    hs.integers(-3, 30),
    hs.booleans(),
    hs.none(),
    hs.lists(hs.integers(0, 36), min_size=2, max_size=2),
    hs.sampled_from(["stunned", "jump", "agility"]),
    hs.lists(hs.lists(hs.floats(0, 36), min_size=2, max_size=2), min_size=2, max_size=3),
)


@hs.composite
def any_action(draw):
    from game.engine.actions import SPECS

    name = draw(hs.sampled_from(sorted(SPECS) + ["bogus"]))
    fields = sorted(SPECS.get(name, {})) + ["extra"]
    body = draw(hs.dictionaries(hs.sampled_from(fields), _VALUES, max_size=4))
    return {name: body}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.one_of(any_action(), hs.sampled_from(POOL)), min_size=1, max_size=25))
def test_any_action_is_judged_never_crashes(actions):
    g = Game(g_at().scenario, dice=Dice(seed=2))
    for a in actions:
        before = g.state.hash()
        r = g.try_apply(a)
        assert r.rule != "internal", (a, r.reason)
        if not r.ok:
            assert g.state.hash() == before and r.reason
