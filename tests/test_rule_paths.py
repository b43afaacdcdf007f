"""Rule paths no test ran before the engine-core rework, each at its boundary:
disengaging, a fall during a move that Incapacitates, and a rout that passes the turn."""

from __future__ import annotations

import os

import pytest
import yaml

from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.events import Incapacitated, LeftTable, Routed, TokenDropped, TurnBegan
from game.engine.game import Game
from game.engine.scenario import load_scenario
from tests.factories import SCRIPTS, game, unit


# --- disengage ------------------------------------------------------------------------------


def _engaged_game():
    red = [unit("red-a", [5, 5]), unit("red-b", [5, 10])]
    blue = [unit("blue-x", [6.02, 5], keywords=[]), unit("blue-y", [6.02, 10], keywords=[])]
    g = game(red, blue, state={"turn": 2, "player": 1, "phase": "engage"})
    g.apply({"engage": {"unit": "red-a", "target": "blue-x"}})
    g.apply({"engage": {"unit": "red-b", "target": "blue-y"}})
    return g


def test_disengage_frees_both_sides():
    g = _engaged_game()
    st = g.state
    assert st.units["red-a"].engaged_with == ["blue-x"] and st.units["blue-x"].engaged_with == ["red-a"]
    r = g.apply({"disengage": {"unit": "blue-x", "target": "red-a"}})
    assert st.units["red-a"].engaged_with == [] and st.units["blue-x"].engaged_with == []
    assert [e.text() for e in r.events] == ["blue-x disengages from red-a"]
    assert st.units["red-b"].engaged_with == ["blue-y"]  # the other pair is untouched


def test_disengage_without_a_target_frees_the_unit_from_everyone():
    g = _engaged_game()
    g.apply({"disengage": {"unit": "red-b"}})
    assert g.state.units["red-b"].engaged_with == [] and g.state.units["blue-y"].engaged_with == []


def test_disengage_from_a_unit_it_is_not_engaged_with_is_refused():
    g = _engaged_game()
    why = g.why_illegal({"disengage": {"unit": "red-a", "target": "blue-y"}})
    assert why is not None and why.rule == "action" and "red-a is not engaged with blue-y" in why.reason
    g.apply({"disengage": {"unit": "red-a"}})
    with pytest.raises(IllegalAction) as exc:
        g.apply({"disengage": {"unit": "red-a"}})
    assert "not engaged with anyone" in exc.value.reason


# --- a fall that Incapacitates during a move ----------------------------------------------------

LEDGE = """
name: Ledge
table: {width: 24, height: 24}
terrain:
  - {id: roof, kind: block, height: 5, polygon: [[0, 0], [10, 0], [10, 24], [0, 24]]}
treasure:
  - {id: t1, at: [9, 5], event: none}
warbands:
  - id: red
    player: 1
    units:
      - {id: red-a, name: A, at: [9, 5], base_mm: 25, stats: {move: 6, agility: 12, morale: 14, defence: 10}, \
keywords: [hero], carrying: t1}
  - id: blue
    player: 2
    units:
      - {id: blue-x, name: X, at: [20, 20], base_mm: 25, stats: {move: 6, agility: 12, morale: 14, defence: 10}}
state: {turn: 2, player: 1, phase: move}
"""


def _jump(injury_roll: int) -> Game:
    sc = load_scenario(os.path.join(SCRIPTS, "ledge.yaml"), text=LEDGE)
    # the jump-down check fails (20 > 12; Disadvantage from 4": two dice), then the Injury roll:
    # a 5" drop adds +2 per full inch above 2" = +6.
    g = Game(sc, dice=Dice(seed=1, typed=[20, 20, injury_roll]))
    g.apply({"move": {"unit": "red-a", "path": [[9, 5], [12.5, 5]], "descend": "jump"}})
    return g


def test_a_fall_of_21_on_the_injury_chart_incapacitates_and_drops_the_token():
    g = _jump(15)  # 15 + 6 = 21: Incapacitated (placeholder chart 21+)
    st = g.state
    u = st.units["red-a"]
    assert u.status == "incapacitated" and st.lost["red"] == 1
    assert u.carrying is None and st.treasure["t1"].carried_by is None
    kinds = [type(e) for e in g.log[-1].events]
    assert Incapacitated in kinds and TokenDropped in kinds
    line = g.log[-1].to_json_line(0)
    assert line["incapacitated"] == ["red-a"] and [r["rule"] for r in line["rolls"]] == ["M9", "M7"]
    assert line["rolls"][1]["modifier"] == 6


def test_a_fall_of_20_stuns_and_counts_no_loss():
    g = _jump(14)  # 14 + 6 = 20: Stunned
    st = g.state
    assert st.units["red-a"].status == "stunned" and st.lost["red"] == 0
    assert st.units["red-a"].carrying == "t1"


# --- a rout that passes the turn ----------------------------------------------------------------


def _three_warbands(lost_green: int) -> Game:
    def band(wid, player, y, n=3, hero=True):
        return {
            "id": wid,
            "player": player,
            "units": [
                unit(f"{wid}-{k}", [3 + 4 * k, y], keywords=["hero"] if hero and k == 0 else []) for k in range(n)
            ],
        }

    data = {
        "name": "three",
        "table": {"width": 36, "height": 36},
        "warbands": [band("red", 1, 4), band("green", 2, 18, hero=False), band("blue", 3, 32)],
        "state": {"turn": 1, "player": 1, "phase": "melee", "lost": {"green": lost_green}},
    }
    sc = load_scenario(os.path.join(SCRIPTS, "three.yaml"), text=yaml.safe_dump(data, sort_keys=False))
    return Game(sc, dice=Dice(seed=4))


def test_a_rout_in_a_three_warband_game_passes_the_turn_to_the_next_player():
    g = _three_warbands(lost_green=6)  # 6 lost: a Rout Check; no hero: it fails (rout_no_hero auto_fail)
    r = g.apply({"end_turn": {}})  # red's turn ends; green's upkeep routs it
    st = g.state
    assert "green" in st.routed and g.outcome() is None
    assert (st.turn, st.player, st.phase) == (1, 3, "engage")  # blue plays on, in the same game turn
    kinds = [type(e) for e in r.events]
    assert Routed in kinds and LeftTable in kinds
    began = [e for e in r.events if isinstance(e, TurnBegan)]
    assert began[-1].player == 3 and "(green routed)" in began[-1].message
    assert all(not u.on_table for u in st.units_of("green"))


def test_five_losses_make_no_rout_check_and_green_plays():
    g = _three_warbands(lost_green=5)
    g.apply({"end_turn": {}})
    st = g.state
    assert st.routed == [] and (st.player, st.phase) == (2, "engage")
