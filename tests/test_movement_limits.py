"""A refused move names its real limit (issue 23): a ladder up a tower that stands flush
on the hall below it is climbed past the hall's wall, and a destination out of reach is
refused with the cheapest path's cost against the allowance, not a base-fit problem."""

from __future__ import annotations

import pytest

from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.game import Game
from game.engine.scenario import load_scenario
from tests.factories import bare_unit, block, build


def refusal(fn) -> IllegalAction:
    with pytest.raises(IllegalAction) as exc:
        fn()
    return exc.value


def flush_tower(move: float):
    """A 3" hall with a 6" tower on its west end, their west walls in line; the tower's
    ladder stands at that shared wall."""
    terrain = [block("hall", 10, 2, 20, 10, 3), block("tower", 10, 2, 14, 6, 6)]
    ladders = [{"id": "lad", "foot": [9.5, 4], "top": "tower"}]
    return build(red=[bare_unit("a", (7, 4), stats={"move": move})], terrain=terrain, ladders=ladders)


def test_a_ladder_up_a_tower_flush_with_the_hall_below_climbs_past_the_halls_wall():
    sc, m = flush_tower(move=20)
    plan = m.plan(sc.state, "a", path=[(12, 4)])
    assert [t.kind for t in plan.transitions] == ["ladder"] and not plan.checks
    assert plan.cost == pytest.approx(5 + 6)  # 5" across, 6" up the ladder
    found = m.plan(sc.state, "a", to=(12, 4))  # the search finds the ladder too
    assert [t.kind for t in found.transitions] == ["ladder"] and found.cost == pytest.approx(11, abs=0.05)


def test_a_tower_top_out_of_reach_is_refused_with_the_cheapest_paths_cost_against_the_allowance():
    sc, m = flush_tower(move=4)
    walk = refusal(lambda: m.plan(sc.state, "a", to=(12, 4)))
    assert walk.rule == "M1"
    assert walk.reason == 'the cheapest path costs 11.00" (6.00" of it climbing), more than the 4.00" Move allowance'
    run = refusal(lambda: m.plan(sc.state, "a", to=(12, 4), run=True))
    assert run.rule == "M2" and 'more than the 6.00" Run allowance' in run.reason and "fit" not in run.reason


def test_the_captain_at_the_foot_of_the_default_maps_tower_ladder():
    """The case of the issue, on maps/default.yaml: the tower top costs more than the Run."""
    game = Game(load_scenario("maps/default.yaml"), dice=Dice(seed=1))
    st = game.state
    st.phase = "move"
    cap = st.units["red-captain"]
    cap.x, cap.y = 2.31, 9.21
    exc = refusal(lambda: game.mover.plan(st, "red-captain", to=(5.0, 10.5), run=True))
    assert exc.rule == "M2", exc.reason
    assert exc.reason.startswith("the cheapest path costs ")
    assert 'of it climbing), more than the 6.00" Run allowance' in exc.reason
    cost = float(exc.reason.split()[4].rstrip('"'))
    assert 6.0 + 2.0 < cost < 12.0  # 6" up the ladder and some inches across
