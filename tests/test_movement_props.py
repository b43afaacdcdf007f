"""Property tests of the movement engine (hypothesis)."""

import math
import os

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from game.engine.errors import IllegalAction, LoadError
from tests.factories import area, bare_unit, block, build, dice

# MOVEMENT_EXAMPLES=500 for a longer local run; CI keeps it quick.
SETTINGS = settings(
    max_examples=int(os.environ.get("MOVEMENT_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
PRECISION = 0.01
coord = st.floats(min_value=1.0, max_value=23.0, allow_nan=False)
TERRAIN = [
    block("tower", 8, 8, 12, 12, 3),
    block("crate", 15, 3, 17, 6, 1.5),
    block("fence", 3, 16, 10, 16.25, 1.5, kind="wall"),
    area("mud", 16, 14, 20, 19, "difficult"),
]


def _seg_dist(p, a, b):
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


@SETTINGS
@given(st.lists(st.tuples(coord, coord), min_size=1, max_size=5), st.sampled_from(["climb", "jump"]))
def test_cost_is_at_least_the_straight_line(path, descend):
    sc, m = build(red=[bare_unit("a", (2, 2), stats={"move": 60})], terrain=TERRAIN, size=(24, 24))
    try:
        plan = m.plan(sc.state, "a", path=path, descend=descend, run=True)
    except IllegalAction:
        return
    end = plan.points[-1]
    assert plan.cost >= math.hypot(end[0] - 2, end[1] - 2) - 1e-9
    assert plan.cost >= plan.length - 1e-9


@SETTINGS
@given(coord, coord, coord, coord)
def test_found_path_never_crosses_an_enemy_base(ex, ey, gx, gy):
    assume(math.hypot(ex - 2, ey - 2) > 2.0)
    try:
        sc, m = build(
            red=[bare_unit("a", (2, 2), stats={"move": 40})],
            blue=[bare_unit("e", (ex, ey), base_mm=40)],
            terrain=TERRAIN,
            size=(24, 24),
        )
    except LoadError:  # the enemy cannot stand there
        assume(False)
    e = sc.state.units["e"]
    a = sc.state.units["a"]
    if math.hypot(ex - 2, ey - 2) < a.r + e.r + 0.01:
        return
    try:
        plan = m.plan(sc.state, "a", to=(gx, gy))
    except IllegalAction:
        return
    pts = [p[:2] for p in plan.points]
    for p, q in zip(pts, pts[1:]):
        assert _seg_dist((ex, ey), p, q) >= a.r + e.r - 1e-6


@SETTINGS
@given(
    coord,
    coord,
    st.floats(min_value=3, max_value=20),
    st.floats(min_value=3, max_value=20),
    st.floats(min_value=0.5, max_value=4),
    st.floats(min_value=0.5, max_value=4),
)
def test_adding_an_obstacle_never_makes_the_cheapest_path_shorter(gx, gy, ox, oy, w, h):
    goal = (gx, gy)
    sc, m = build(red=[bare_unit("a", (2, 2), stats={"move": 40})], terrain=TERRAIN, size=(24, 24))
    try:
        before = m.plan(sc.state, "a", to=goal).cost
    except IllegalAction:
        before = None
    rock = area("rock", ox, oy, ox + w, oy + h, "impassable")
    sc2, m2 = build(red=[bare_unit("a", (2, 2), stats={"move": 40})], terrain=TERRAIN + [rock], size=(24, 24))
    try:
        after = m2.plan(sc2.state, "a", to=goal).cost
    except IllegalAction:
        return
    assert before is not None, "the obstacle opened a path that did not exist"
    # Bends round corners are placed to within about 0.005" (polygons standing in for
    # the round bases): compare with that precision.
    assert after >= before - PRECISION


@SETTINGS
@given(coord, coord, st.integers(min_value=1, max_value=20), st.booleans())
def test_move_then_undo_restores_the_state_exactly(gx, gy, roll, run):
    sc, m = build(red=[bare_unit("a", (2, 2))], blue=[bare_unit("e", (20, 20))], terrain=TERRAIN, size=(24, 24))
    state = sc.state
    before = state.hash()
    snapshot = state.copy()
    try:
        plan = m.plan(state, "a", to=(gx, gy), run=run)
    except IllegalAction:
        assert state.hash() == before  # a refusal leaves the state untouched
        return
    assert state.hash() == before  # planning never changes the state
    m.apply(state, plan, dice(roll, roll, roll))
    assert state.units["a"].moved
    state = snapshot  # undo by snapshot
    assert state.hash() == before
