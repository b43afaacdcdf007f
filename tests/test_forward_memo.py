"""What the movement engine keeps to not work a thing out twice (issue 43) gives the
answer it would work out: kept traces are keyed on everything a trace reads."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from game.engine.errors import IllegalAction
from game.engine.game import Game
from game.engine.dice import Dice
from game.engine.movement.tracer import Tracer
from game.engine.scenario import load_scenario


@pytest.fixture(scope="module")
def climb():
    sc = load_scenario("maps/teach-climb.yaml")
    return Game(sc, dice=Dice(seed=0), history=False)


def _answer(tracer: Tracer, unit, pts):
    try:
        return dataclasses.asdict(tracer.trace(unit, pts))
    except IllegalAction as exc:
        return (exc.rule, exc.reason)


def test_a_kept_trace_is_the_one_worked_out_and_keyed_on_the_unit(climb):
    fresh = lambda: Tracer(climb.scenario, climb.board)  # noqa: E731
    tracer = fresh()
    u = climb.state.units["red-climber"]
    dazed = copy.copy(u)
    dazed.status = "dazed"
    other = copy.copy(u)
    other.id = "red-other"
    up = [(7.0, 12.0), (7.0, 8.0)]  # climbs the keep (3")
    first = _answer(tracer, u, up)
    assert first["transitions"][0]["kind"] == "climb_up"
    # the same path for a Dazed unit is refused (not the kept climb), for another unit named
    refused = _answer(tracer, dazed, up)
    assert refused[0] == "M6" and "Dazed" in refused[1]
    assert _answer(tracer, dazed, up) == refused == _answer(fresh(), dazed, up)
    assert _answer(tracer, other, up) == _answer(fresh(), other, up)
    assert _answer(tracer, u, up) == first == _answer(fresh(), u, up)


def test_a_kept_trace_is_a_copy_its_caller_may_change(climb):
    tracer = Tracer(climb.scenario, climb.board)
    u = climb.state.units["red-climber"]
    pts = [(7.0, 12.0), (7.0, 8.0)]
    tr = tracer.trace(u, pts)
    want = dataclasses.asdict(tr)
    tr.points.append((0.5, 0.5))
    tr.transitions.clear()
    tr.stretches[0].z = 99.0
    assert dataclasses.asdict(tracer.trace(u, pts)) == want


def _why(e):
    return None if e is None else (e.rule, e.reason)


def test_kept_end_spots_answer_as_worked_out_for_each_unit_and_state(climb):
    """end_problem keeps its questions of the map by spot and unit: a unit with another
    id, base or radius, and a state with other bases, get their own answers."""
    from game.engine.movement.tracer import forget_kept

    g = climb
    tracer = Tracer(g.scenario, g.board)
    u = g.state.units["red-climber"]
    hound = g.state.units["red-hound"]  # a 40 mm base
    spots = [(7.0, 7.0), (12.1, 17.0), (9.9, 7.0), (0.3, 5.0), (hound.x, hound.y), (u.x, u.y), (16.0, 12.0)]
    for unit in (u, hound):
        for x, y in spots:
            first = _why(tracer.end_problem(g.state, unit, x, y))
            again = _why(tracer.end_problem(g.state, unit, x, y, tracer.base_field(g.state)))
            forget_kept(tracer)
            assert first == again == _why(Tracer(g.scenario, g.board).end_problem(g.state, unit, x, y))
    # a base moved onto a kept spot: the bases are asked again, not kept
    moved = g.state.copy()
    moved.units["red-hound"].x, moved.units["red-hound"].y = 16.0, 12.0
    assert tracer.end_problem(g.state, u, 16.0, 12.0) is None
    assert "red-hound" in tracer.end_problem(moved, u, 16.0, 12.0).reason
