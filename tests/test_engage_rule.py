"""The Engage action (E1) through the game: the same path search and checks as a move,
refusals with the cheapest cost, a given path, a failed check spending the attempt, and
difficult ground taken off the allowance (M12). The movement engine's own tests of the
search are in tests/test_engage_path.py."""

from __future__ import annotations

import os

import pytest
import yaml

from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.events import Engaged
from game.engine.game import Game
from game.engine.scenario import load_scenario
from tests.factories import R25, SCRIPTS, game, unit


def wall(y0, y1, height, kind="wall", x0=0, x1=10):
    return {"id": "wall", "kind": kind, "height": height, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def engage_game(red_at, blue_at, terrain=(), dice=(), **kw) -> Game:
    data = {
        "name": "engage",
        "table": {"width": 36, "height": 36},
        "terrain": list(terrain),
        "warbands": [
            {"id": "red", "player": 1, "units": [unit("a", red_at, **kw)]},
            {"id": "blue", "player": 2, "units": [unit("b", blue_at, keywords=[])]},
        ],
        "state": {"turn": 2, "player": 1, "phase": "engage"},
    }
    sc = load_scenario(os.path.join(SCRIPTS, "engage.yaml"), text=yaml.safe_dump(data, sort_keys=False))
    return Game(sc, dice=Dice(seed=1, typed=list(dice)))


ENGAGE = {"engage": {"unit": "a", "target": "b"}}


def test_an_engage_through_a_4_inch_wall_is_refused_with_the_cheapest_way():
    g = engage_game((5, 5), (5, 9), terrain=[wall(6.9, 7.1, 4)])
    why = g.why_illegal(ENGAGE)
    assert why.rule == "E1" and why.reason.startswith("the cheapest way into contact with b is")
    cost = float(why.reason.split(" is ")[1].split('"')[0])
    assert cost > 6
    with pytest.raises(IllegalAction) as exc:
        g.apply(ENGAGE)  # apply refuses in the same words
    assert (exc.value.rule, exc.value.reason) == (why.rule, why.reason)
    assert (g.state.units["a"].x, g.state.units["a"].y) == (5, 5)


def test_an_engage_round_an_enemy_in_the_way():
    red = [unit("a", (5, 5))]
    blue = [unit("b", (5, 10), keywords=[]), unit("c", (5, 7.5), keywords=[])]
    g = game(red, blue, state={"turn": 2, "player": 1, "phase": "engage"})
    r = g.apply(ENGAGE)
    path = r.extra["path"]
    assert r.extra["engaged"] and max(abs(p[0] - 5) for p in path) > 2 * R25  # it went round c
    assert g.state.units["a"].engaged_with == ["b"] and any(isinstance(e, Engaged) for e in r.events)


@pytest.mark.parametrize("extra, ok", [(0.05, True), (0.06, False)])
def test_difficult_ground_takes_2_inches_off_an_engage(extra, ok):
    # b 4" (plus extra) away edge to edge, a difficult band between: the allowance is 6 - 2 = 4
    # (M12), and contact (G4) begins 0.05" short of touching
    band = {"id": "mud", "kind": "difficult", "polygon": [[0, 7], [10, 7], [10, 9], [0, 9]]}
    g = engage_game((5, 5), (5, 5 + 2 * R25 + 4 + extra), terrain=[band])
    why = g.why_illegal(ENGAGE)
    if ok:
        assert why is None
        r = g.apply(ENGAGE)
        assert r.extra["allowance"] == 4 and r.extra["difficult"] is True
    else:
        assert why.rule == "M12" and '4.01"' in why.reason


def test_an_engage_up_a_tower_rolls_its_climb_and_a_failure_spends_the_attempt():
    tower = wall(6.5, 12, 2.9, kind="block")
    g = engage_game((5, 5), (5, 9), terrain=[tower], dice=[20])
    r = g.apply(ENGAGE)
    u = g.state.units["a"]
    assert [x.rule for x in r.rolls] == ["M6"] and r.extra["completed"] is False and r.extra["engaged"] is False
    assert u.engaged_with == [] and u.engage_attempted and (u.x, u.y) == pytest.approx((5, 6.5 - u.r))
    g.apply({"end_phase": {}})
    why = g.why_illegal({"move": {"unit": "a", "to": [5, 3]}})
    assert why.rule == "M1" and "attempted to Engage" in why.reason


def test_a_given_path_must_end_in_contact_and_is_pinned_in_the_save():
    g = engage_game((5, 5), (5, 9))
    short = {"engage": {"unit": "a", "target": "b", "path": [[5, 5], [5, 6]]}}
    why = g.why_illegal(short)
    assert why.rule == "E1" and "not in base contact" in why.reason
    end = 9 - 2 * R25
    r = g.apply({"engage": {"unit": "a", "target": "b", "path": [[5, 5], [6, 6.5], [5, end]]}})
    assert r.extra["engaged"] and r.replayable["engage"]["path"][-1] == pytest.approx([5, end])
    g2 = engage_game((5, 5), (5, 9))
    r2 = g2.apply(ENGAGE)
    assert r2.replayable == {"engage": {"unit": "a", "target": "b", "path": r2.replayable["engage"]["path"]}}
    assert len(r2.replayable["engage"]["path"]) == 2


def test_a_dazed_unit_may_not_engage():
    g = engage_game((5, 5), (5, 9), status="dazed")
    assert g.why_illegal(ENGAGE).rule == "U5"
