"""The edge of the reachable area where a straight edge (the table's edge, a piece's edge
grown by the base radius) crosses the circle of reach: no ground the engine's own path
search reaches is left out of the area (beyond :data:`rays.SAGITTA`), and nothing beyond
the allowance is in it."""

import math
import random

import pytest
import shapely

from game.bundled import bundled_map
from game.engine.geometry import Board
from game.engine.movement import Mover
from game.engine.movement.rays import SAGITTA
from game.engine.errors import IllegalAction
from game.engine.scenario import load_scenario

#: How far (inches) a point the search reaches may lie outside the area: the polygon's
#: chords (SAGITTA) and the cut's polygons standing in for circles.
SLACK = SAGITTA + 0.002
#: Points this much (inches) beyond the allowance in a straight line are surely out of reach.
BEYOND = 0.05


def _setup(map_name: str):
    sc = load_scenario(str(bundled_map(map_name)))
    return sc, Mover(sc, Board(sc.width, sc.height, sc.terrain))


@pytest.fixture(scope="module")
def stress():
    return _setup("stress.yaml")


def test_the_corner_where_the_tables_edge_crosses_the_reach_is_in_the_area(stress):
    sc, mover = stress
    reach = mover.reachable(sc.state, "north-03")
    for to in [(20.5, 0.6), (20.0, 0.6)]:
        plan = mover.plan(sc.state, "north-03", to=to, run=True)
        assert plan.cost <= plan.allowance  # the search reaches it (straight, 8.58")
        assert reach.run_free.distance(shapely.Point(to)) <= 0.01, to


def _straight(mover, state, uid, to, run):
    """The plan to ``to`` if it is the straight line with no check on open ground, else None;
    "far" if it is refused as too far."""
    try:
        plan = mover.plan(state, uid, to=to, run=run)
    except IllegalAction as exc:
        return "far" if exc.rule in ("M1", "M2") else None
    if len(plan.points) == 2 and not plan.transitions and not plan.difficult:
        return plan
    return None


@pytest.mark.parametrize("map_name, seed", [("stress.yaml", 1), ("default.yaml", 2)])
def test_points_reached_in_a_straight_line_are_in_the_area(map_name, seed):
    sc, mover = _setup(map_name)
    state = sc.state
    rnd = random.Random(seed)
    units = sorted(u.id for u in state.units.values() if u.active)
    inside = outside = 0
    for uid in rnd.sample(units, min(6, len(units))):
        unit = state.units[uid]
        reach = mover.reachable(state, uid)
        for run, free, allowance in (
            (False, reach.walk_free, reach.walk_allowance),
            (True, reach.run_free, reach.run_allowance),
        ):
            if allowance is None:
                continue
            for _ in range(25):
                # near the circle of reach, where the chords cut corners
                d = allowance + rnd.uniform(-0.4, 0.3)
                a = rnd.uniform(0, 2 * math.pi)
                to = (unit.x + d * math.cos(a), unit.y + d * math.sin(a))
                if not (0 < to[0] < sc.width and 0 < to[1] < sc.height):
                    continue
                got = _straight(mover, state, uid, to, run)
                if got is None:
                    continue
                if got == "far":
                    if d > allowance + BEYOND:
                        outside += 1
                        assert not free.contains(shapely.Point(to)), (uid, run, to, d)
                    continue
                inside += 1
                gap = free.distance(shapely.Point(to))
                assert gap <= SLACK, (uid, run, to, round(gap, 4))
    assert inside > 20 and outside > 10, (inside, outside)


@pytest.mark.parametrize("map_name", ["stress.yaml", "default.yaml"])
def test_the_quicker_area_for_bots_only_cuts_those_corners(map_name):
    """``exact=False`` (what a bot samples) leaves the crossing rays out: its area lies
    inside the exact one (within BEYOND: where a chord cuts across difficult ground the
    crossing rays also trim it), and misses at most the corners they put in; the reported
    corner is one of them."""
    sc, mover = _setup(map_name)
    layers = ("walk_free", "walk_check", "run_free", "run_check")
    worst = 0.0
    for u in [u for u in sc.state.units.values() if u.active][:12]:
        exact = mover.reachable(sc.state, u.id)
        quick = mover.reachable(sc.state, u.id, exact=False)
        for name in layers:
            a, b = getattr(exact, name), getattr(quick, name)
            assert shapely.difference(b, a.buffer(BEYOND)).area <= 1e-6, (u.id, name)
            if not a.is_empty:
                worst = max(worst, a.hausdorff_distance(b) if not b.is_empty else math.inf)
    assert worst <= 2.0
    if map_name == "stress.yaml":
        quick = mover.reachable(sc.state, "north-03", exact=False)
        assert quick.run_free.distance(shapely.Point(20.5, 0.6)) > 0.1


def test_a_ray_leaving_an_arc_where_a_base_cuts_it_does_not_pass_through_that_base():
    """A fan round the corner (24.75, 26.5) of the difficult ground, in the area that keeps
    off it, ends where t's circle (grown by a's radius) cuts the corner's arc: its last
    ray starts on t's circle and heads into it. It stopped at t's circle only when it
    started outside it, so it went straight through t and the area held a sliver beyond
    it (0.001 sq in, from x 20.8 to 22.5) that no path reaches within the allowance."""
    import json

    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.scenario import scenario_to_dict
    from tests.factories import game, unit

    rubble = {
        "id": "rubble",
        "kind": "difficult",
        "polygon": [[26, 25.5], [25.5, 26.25], [24.75, 26.5], [24, 26], [24, 25], [24.75, 24.5], [25.75, 24.5]],
    }
    g = game(
        [unit("a", (26.43, 26.09), keywords=[])],
        [unit("t", (23.54, 26.81), base=32, keywords=[]), unit("u", (24.07, 28.48), keywords=[])],
        state={"turn": 2, "player": 1, "phase": "move"},
    )
    doc = scenario_to_dict(g.scenario, g.state)
    doc["terrain"] = [rubble]
    g = Game(load_scenario("sliver.yaml", text=json.dumps(doc)), dice=Dice(seed=1))
    area = g.mover.reachable(g.state, "a").walk_free
    beyond = shapely.Polygon([(22.4548, 26.5220), (22.4552, 26.5209), (20.7846, 26.1700)]).centroid
    assert g.why_illegal({"move": {"unit": "a", "to": [beyond.x, beyond.y]}}) is not None
    assert not area.contains(beyond)
