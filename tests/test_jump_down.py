"""M9 jump down (ruling: the 3" landing is measured by G1 from the ledge to the nearest edge of
the landing base; bases passed over in the air never block; only the landing spot must be
free), and M8 gap jumps over bases (issue 16, part 2)."""

import pytest

from tests.factories import bare_unit, block, build, dice, refused

R25 = 25 / 25.4 / 2
LEDGE = [block("ledge", 0, 0, 10, 10, 4)]


def test_the_issue_example_jumps_over_a_base_at_the_foot():
    sc, m = build(red=[bare_unit("a", (9.4, 5))], blue=[bare_unit("b", (10.5, 5))], terrain=LEDGE)
    st = sc.state
    # Climbing down instead is blocked by b (the climb ends at the foot, on b's level).
    refused(lambda: m.plan(st, "a", path=[(9.4, 5), (12, 5)], descend="climb"), "M5")
    plan = m.plan(st, "a", path=[(9.4, 5), (12, 5)], descend="jump")
    assert [t.kind for t in plan.checks] == ["jump_down"] and plan.checks[0].disadvantage
    out = m.apply(st, plan, dice(5, 5))
    assert out.completed and (st.units["a"].x, st.units["a"].y) == (12, 5)


@pytest.mark.parametrize("out, ok", [(2.9, True), (3.0, True), (3.1, False)])
def test_landing_is_measured_from_the_ledge_to_the_nearest_edge_of_the_base(out, ok):
    # The path ends where the base's nearest edge is `out` inches from the ledge (x = 10).
    # b stands just behind that spot, so every point of the path before it overlaps b:
    # only a flight that reaches the spot passes over b (landing at most 3" out).
    end = 10 + out + R25
    b = end - 2 * R25 - 0.01
    sc, m = build(red=[bare_unit("a", (9.4, 5))], blue=[bare_unit("b", (b, 5))], terrain=LEDGE)
    if ok:
        plan = m.plan(sc.state, "a", path=[(end, 5)], descend="jump")
        assert [t.kind for t in plan.checks] == ["jump_down"] and plan.cost == pytest.approx(end - 9.4)
    else:
        assert "blocked by b" in refused(lambda: m.plan(sc.state, "a", path=[(end, 5)], descend="jump"), "M5")


def test_the_landing_spot_must_be_free():
    sc, m = build(red=[bare_unit("a", (9.4, 5))], blue=[bare_unit("b", (12, 5))], terrain=LEDGE)
    assert "may not end" in refused(lambda: m.plan(sc.state, "a", path=[(12.5, 5)], descend="jump"), "M5")


def test_a_waypoint_ends_the_flight():
    # One straight flight: landing at the waypoint (x 11), then walking into b.
    sc, m = build(red=[bare_unit("a", (9.4, 5))], blue=[bare_unit("b", (12.4, 5))], terrain=LEDGE)
    m.plan(sc.state, "a", path=[(13.5, 5)], descend="jump")
    refused(lambda: m.plan(sc.state, "a", path=[(11, 5), (13.5, 5)], descend="jump"), "M5")


def test_a_stunned_friend_below_is_jumped_over():
    sc, m = build(red=[bare_unit("a", (9.4, 5)), bare_unit("f", (10.5, 5), status="stunned")], terrain=LEDGE)
    plan = m.plan(sc.state, "a", path=[(12, 5)], descend="jump")
    assert [t.kind for t in plan.checks] == ["jump_down"]
    refused(lambda: m.plan(sc.state, "a", path=[(12, 5)]), "M5")  # climbing down: blocked


@pytest.mark.parametrize("base_mm", [25, 40])
def test_a_gap_jump_passes_over_a_base_in_the_gap(base_mm):
    terrain = [block("left", 1, 1, 10, 10, 3), block("right", 12, 1, 20, 10, 3)]
    sc, m = build(
        red=[bare_unit("a", (8, 5), stats={"move": 20})],
        blue=[bare_unit("e", (11, 5), base_mm=base_mm)],
        terrain=terrain,
    )
    plan = m.plan(sc.state, "a", path=[(14, 5)])
    assert [t.kind for t in plan.checks] == ["jump_gap"] and plan.cost == pytest.approx(6)
    # Climbing down into the gap instead meets e there.
    refused(lambda: m.plan(sc.state, "a", path=[(11, 5), (14, 5)]), "M5")


def test_the_search_jumps_over_a_base_at_the_foot():
    # The foot of the ledge is taken by b all along its front: to: with descend: jump lands
    # beyond it (the search knows a jump may land up to 3" + r out), climbing down cannot.
    blue = [bare_unit(f"b{k}", (10.5, 1 + 1.0 * k)) for k in range(9)]
    sc, m = build(red=[bare_unit("a", (9.4, 5))], blue=blue, terrain=LEDGE)
    plan = m.plan(sc.state, "a", to=(12.5, 5), descend="jump")
    assert [t.kind for t in plan.checks] == ["jump_down"] and plan.cost == pytest.approx(3.1, abs=0.05)
    refused(lambda: m.plan(sc.state, "a", to=(12.5, 5)), "M1")  # round the wall of bases: too far


@pytest.mark.parametrize("cell", [0.25, 1.0])
def test_another_grid_step_finds_the_same_jumps_and_climbs(cell):
    from game.engine.geometry import Board
    from game.engine.movement import Mover

    sc, m = build(
        red=[bare_unit("a", (8, 5), stats={"move": 20})],
        terrain=[block("left", 1, 1, 10, 10, 3), block("right", 12, 1, 20, 10, 3)],
    )
    other = Mover(sc, Board(sc.width, sc.height, sc.terrain), cell=cell)
    for mover in (m, other):
        plan = mover.plan(sc.state, "a", to=(14, 5))
        assert [t.kind for t in plan.checks] == ["jump_gap"] and plan.cost == pytest.approx(6)
