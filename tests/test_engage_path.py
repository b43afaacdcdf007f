"""E1 Engage on the movement engine (issue 16, parts 1 and 3): Mover.plan_engage / apply.

The goal of an Engage is a region: every spot where the engager's base is in base contact
with the target (G4: edge to edge at most contact_tolerance, 0.05") at the target's level.
The cheapest way into it therefore ends 0.05" short of touching: "cost" below is that path's
inches, the edge-to-edge distance minus 0.05" on open ground.
"""

import math

import pytest

from tests.factories import area, bare_unit, block, build, dice, refused

from game.engine.movement.space import RING_SAMPLES

R25 = 25 / 25.4 / 2
#: The search ends an engage where contact begins (G4, E1: ``contact_tolerance``, 0.05" edge
#: to edge), as a path the player gives may.
TOL = 0.05


def seg_dist(p, a, b):
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def ends_in_contact(m, sc, plan, a="a", b="b"):
    u, t = sc.state.units[a], sc.state.units[b]
    x, y = plan.end
    return m.in_contact(x, y, u, t) and math.hypot(x - t.x, y - t.y) >= u.r + t.r - 1e-9


# --- open ground -------------------------------------------------------------------------------


def test_engage_on_open_ground_goes_straight_into_contact():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 10))])
    plan = m.plan_engage(sc.state, "a", "b")
    gap = 5 - 2 * R25
    assert plan.engage == "b" and plan.to_dict()["engage"] == "b"
    assert plan.cost == pytest.approx(gap - TOL, abs=1e-9) and not plan.checks
    assert ends_in_contact(m, sc, plan)
    # the found path is legal as a path: plan_engage(path=) gives the same
    again = m.plan_engage(sc.state, "a", "b", path=[p[:2] for p in plan.points])
    assert again.cost == pytest.approx(plan.cost)


@pytest.mark.parametrize("extra, ok", [(0.0, True), (0.01, False)])
def test_engage_allowance_boundary(extra, ok):
    # cost exactly 6" (edge to edge 6.05": the path ends where contact begins) and 0.01" more
    y = 5 + 2 * R25 + 6 + TOL + extra
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, y))])
    if ok:
        assert m.plan_engage(sc.state, "a", "b").cost == pytest.approx(6.0, abs=1e-9)
    else:
        assert refused(lambda: m.plan_engage(sc.state, "a", "b"), "E1").startswith(
            f'E1: b is {6 + TOL + extra:.2f}" away in a straight line, base edge to base edge: '
            'beyond any path into contact (a may engage up to 6")'
        )


def test_already_in_contact_is_an_engage_without_moving():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5 + 2 * R25 + 0.03, 5))])
    plan = m.plan_engage(sc.state, "a", "b")
    assert plan.cost == 0 and plan.end == (5, 5)
    out = m.apply(sc.state, plan, dice())
    assert out.completed and sc.state.units["a"].engage_attempted and not sc.state.units["a"].moved


# --- part 1: terrain --------------------------------------------------------------------------


def test_through_a_wall_is_refused_with_the_cheapest_cost():
    # The issue's example: a 4" wall between them. Over it: 4" up, 4" down and 2.97" across.
    sc, m = build(
        red=[bare_unit("a", (5, 5))],
        blue=[bare_unit("b", (5, 9))],
        terrain=[block("wall", 0, 6.9, 10, 7.1, 4, kind="wall")],
    )
    over = 4 + 4 + (9 - 2 * R25 - TOL - 5)
    assert f'the cheapest way into contact with b is {over:.2f}" (a may engage up to 6")' in refused(
        lambda: m.plan_engage(sc.state, "a", "b"), "E1"
    )


@pytest.mark.parametrize("height, ok", [(1.51, True), (1.52, False)])  # 2h + 2.966" within 6"
def test_a_wall_low_enough_is_climbed_over_with_its_checks(height, ok):
    sc, m = build(
        red=[bare_unit("a", (5, 5))],
        blue=[bare_unit("b", (5, 9))],
        terrain=[block("wall", 0, 6.9, 10, 7.1, height, kind="wall")],
    )
    cost = 2 * height + (9 - 2 * R25 - TOL - 5)
    if ok:
        plan = m.plan_engage(sc.state, "a", "b")
        assert [t.kind for t in plan.checks] == ["climb_up", "climb_down"] and [t.rule for t in plan.checks] == [
            "M6",
            "M6",
        ]
        assert plan.cost == pytest.approx(cost, abs=1e-6) and ends_in_contact(m, sc, plan)
    else:
        assert f'is {cost:.2f}"' in refused(lambda: m.plan_engage(sc.state, "a", "b"), "E1")


def test_across_impassable_ground_is_refused_and_round_it_is_taken_when_within_move():
    terrain = [area("lake", 0, 6.5, 10, 8, "impassable")]
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 10))], terrain=terrain)
    reason = refused(lambda: m.plan_engage(sc.state, "a", "b"), "E1")
    assert "the cheapest way into contact with b is" in reason
    cost = float(reason.split(" is ")[1].split('"')[0])
    assert cost > 10  # round the lake's end, not across it
    sc, m = build(
        red=[bare_unit("a", (5, 5), stats={"move": math.ceil(cost)})], blue=[bare_unit("b", (5, 10))], terrain=terrain
    )
    plan = m.plan_engage(sc.state, "a", "b")
    assert plan.cost == pytest.approx(cost, abs=0.01) and ends_in_contact(m, sc, plan)
    lake_x = max(p[0] for p in plan.points)
    assert lake_x > 10  # it went round
    m.plan(sc.state, "a", path=[p[:2] for p in plan.points])  # every bit of it a legal move


@pytest.mark.parametrize("height, ok", [(5.0, False), (3.034, True), (3.04, False)])  # 1.5 + h + 1.466 within 6"
def test_up_a_tower_pays_the_climb(height, ok):
    # b on a block that starts at y 6.5: 1.5" to its foot, the climb, then 1.47" on the roof.
    sc, m = build(
        red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 9))], terrain=[block("tower", 0, 6.5, 10, 12, height)]
    )
    cost = 1.5 + height + (9 - 2 * R25 - TOL - 6.5)
    if ok:
        plan = m.plan_engage(sc.state, "a", "b")
        assert [t.kind for t in plan.checks] == ["climb_up"] and plan.cost == pytest.approx(cost, abs=1e-6)
        assert plan.points[-1][2] == height and ends_in_contact(m, sc, plan)
    else:
        assert f'is {cost:.2f}" (a may engage up to 6")' in refused(lambda: m.plan_engage(sc.state, "a", "b"), "E1")


def test_the_target_on_a_tower_is_not_in_contact_from_below():
    # Right at the foot of b's tower, edge to edge across the table within 0.05", but 5" below.
    sc, m = build(
        red=[bare_unit("a", (5, 6.5 - R25 - 0.01), stats={"move": 20})],
        blue=[bare_unit("b", (5, 6.5 + R25 + 0.02))],
        terrain=[block("tower", 0, 6.5, 10, 12, 5)],
    )
    plan = m.plan_engage(sc.state, "a", "b")
    assert [t.kind for t in plan.checks] == ["climb_up"] and plan.points[-1][2] == 5


def test_an_enemy_in_the_way_is_walked_round():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 10)), bare_unit("c", (5, 7.5))])
    plan = m.plan_engage(sc.state, "a", "b")
    c = sc.state.units["c"]
    pts = [p[:2] for p in plan.points]
    assert len(pts) > 2 and ends_in_contact(m, sc, plan)
    for p, q in zip(pts, pts[1:]):
        assert seg_dist((c.x, c.y), p, q) >= 2 * R25 - 1e-6
    straight = 5 - 2 * R25 - TOL
    assert straight < plan.cost < 6
    # with exactly that much Move it fits, with 0.01" less it does not
    cost = plan.cost
    sc, m = build(
        red=[bare_unit("a", (5, 5), stats={"move": cost})], blue=[bare_unit("b", (5, 10)), bare_unit("c", (5, 7.5))]
    )
    assert m.plan_engage(sc.state, "a", "b").cost == pytest.approx(cost)
    sc, m = build(
        red=[bare_unit("a", (5, 5), stats={"move": cost - 0.01})],
        blue=[bare_unit("b", (5, 10)), bare_unit("c", (5, 7.5))],
    )
    refused(lambda: m.plan_engage(sc.state, "a", "b"), "E1")


def test_a_stunned_friend_blocks_and_a_normal_friend_does_not():
    blue = [bare_unit("b", (5, 10))]
    sc, m = build(red=[bare_unit("a", (5, 5)), bare_unit("f", (5, 7.5))], blue=blue)
    assert m.plan_engage(sc.state, "a", "b").cost == pytest.approx(5 - 2 * R25 - TOL)
    sc, m = build(red=[bare_unit("a", (5, 5)), bare_unit("f", (5, 7.5), status="stunned")], blue=blue)
    assert m.plan_engage(sc.state, "a", "b").cost > 5 - 2 * R25 - TOL + 0.1


def test_the_end_spot_must_be_free():
    # A friend stands where the straight approach would end: the engager ends beside it.
    sc, m = build(red=[bare_unit("a", (5, 5)), bare_unit("f", (5, 10 - 4 * R25 - TOL))], blue=[bare_unit("b", (5, 10))])
    plan = m.plan_engage(sc.state, "a", "b")
    f = sc.state.units["f"]
    assert ends_in_contact(m, sc, plan)
    assert math.hypot(plan.end[0] - f.x, plan.end[1] - f.y) >= 2 * R25 - 1e-9


def _round_then_along(a, c, rho, b, reach):
    """The length of the tangent from point a to circle (c, rho), then round that circle
    (the side towards +x) to where it meets the circle (b, reach)."""
    d = math.hypot(a[0] - c[0], a[1] - c[1])
    tangent = math.atan2(a[1] - c[1], a[0] - c[0]) + math.acos(rho / d)
    bc = math.hypot(b[0] - c[0], b[1] - c[1])
    meet = math.atan2(b[1] - c[1], b[0] - c[0]) - math.acos((rho * rho + bc * bc - reach * reach) / (2 * rho * bc))
    return math.sqrt(d * d - rho * rho) + rho * abs(meet - tangent)


def test_the_spot_beside_a_base_at_the_target_is_reached_round_that_base():
    # c stands against b on a's side. The nearest spots in contact with b are where a's
    # base, going round c, meets b's contact ring: the tangent to c, then round c. Before,
    # the search only ended where a straight line crossed the ring, and said 7.08".
    c = (5, 10 - 2 * R25)
    sc, m = build(red=[bare_unit("a", (5, 3), stats={"move": 10})], blue=[bare_unit("b", (5, 10)), bare_unit("c", c)])
    best = _round_then_along((5, 3), c, 2 * R25, (5, 10), 2 * R25 + TOL)
    plan = m.plan_engage(sc.state, "a", "b")
    assert plan.cost == pytest.approx(best, abs=0.002)  # an arc is walked as a polyline (ARC_EXCESS)
    assert ends_in_contact(m, sc, plan) and best < 6.62
    # a Move of 6.62" is enough
    sc, m = build(red=[bare_unit("a", (5, 3), stats={"move": 6.62})], blue=[bare_unit("b", (5, 10)), bare_unit("c", c)])
    assert m.plan_engage(sc.state, "a", "b").cost == pytest.approx(plan.cost)


@pytest.mark.parametrize("whose", ["enemy", "friend"])
def test_the_spot_beside_a_base_by_the_target_is_walked_to_straight(whose):
    # c stands by b (not touching it) where a's straight way in would end on c's base:
    # the nearest free spot in contact is where b's contact ring meets c's circle, and a
    # walks straight there (before, the search went round b: 5.00"). c may be a friend of
    # a's, whose base a may cross but not end on (M5): the same spot (before, 5.00" too).
    reach = 2 * R25 + TOL
    c = (10 - reach, 10.6)
    if whose == "enemy":
        sc, m = build(red=[bare_unit("a", (5, 9))], blue=[bare_unit("b", (10, 10)), bare_unit("c", c)])
    else:
        sc, m = build(red=[bare_unit("a", (5, 9)), bare_unit("c", c)], blue=[bare_unit("b", (10, 10))])
    d = math.hypot(c[0] - 10, c[1] - 10)
    along = (reach**2 - (2 * R25) ** 2 + d * d) / (2 * d)
    h = math.sqrt(reach**2 - along * along)
    ux, uy = (c[0] - 10) / d, (c[1] - 10) / d
    crossings = [(10 + along * ux + k * h * uy, 10 + along * uy - k * h * ux) for k in (1, -1)]
    corner = min(crossings, key=lambda p: p[1])  # the lower one, a's side
    plan = m.plan_engage(sc.state, "a", "b")
    assert plan.cost == pytest.approx(math.hypot(corner[0] - 5, corner[1] - 9), abs=1e-6)
    assert ends_in_contact(m, sc, plan) and plan.cost < 4.2


def test_a_ring_of_friends_is_walked_round_to_the_free_spot_behind_the_target():
    # Three of a's friends stand against b, east, south and west: every spot in contact
    # with b is on one of them (M5: a may cross a friend's base, not end on it) but the
    # arc north of b, 60 to 120 degrees round. a comes from the south: the cheapest way
    # in is the tangent to b's contact ring, then round the ring past the east friend to
    # where its base leaves the ring. Before, a path entering the ring on a friend went
    # no further, and the Engage was refused: "there is no way into base contact".
    b = (5.0, 8.0)
    reach = 2 * R25 + TOL
    at = [(b[0] + 2 * R25 * math.cos(t), b[1] + 2 * R25 * math.sin(t)) for t in (0.0, -math.pi / 2, math.pi)]
    sc, m = build(
        red=[bare_unit("a", (5.0, 5.0))] + [bare_unit(f"f{k}", p) for k, p in enumerate(at)], blue=[bare_unit("b", b)]
    )
    plan = m.plan_engage(sc.state, "a", "b")
    d = 3.0
    tangent = -math.pi / 2 + math.acos(reach / d)  # the east one
    corner = max(_crossings(b, reach, at[0], 2 * R25), key=lambda p: p[1])
    arc = math.atan2(corner[1] - b[1], corner[0] - b[0]) - tangent
    best = math.sqrt(d * d - reach * reach) + reach * arc
    assert plan.cost == pytest.approx(best, abs=0.004) and best < 4.25
    assert ends_in_contact(m, sc, plan)
    assert all(math.hypot(plan.end[0] - x, plan.end[1] - y) >= 2 * R25 - 1e-9 for x, y in at)
    # the path is one a given path: the same cost
    again = m.plan_engage(sc.state, "a", "b", path=[p[:2] for p in plan.points])
    assert again.cost == pytest.approx(plan.cost)


def _crossings(c1, r1, c2, r2):
    d = math.hypot(c2[0] - c1[0], c2[1] - c1[1])
    along = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(r1 * r1 - along * along)
    ux, uy = (c2[0] - c1[0]) / d, (c2[1] - c1[1]) / d
    return [(c1[0] + along * ux + k * h * uy, c1[1] + along * uy - k * h * ux) for k in (1, -1)]


def test_the_spot_where_terrain_bounds_the_contact_ring_is_walked_to_straight():
    # b stands in mud, 0.3" in from its west edge. With a Move of 4 the mud's -2" (M12)
    # leaves 2", too little for any way in that crosses it (3.40" straight), so a must end
    # off the mud. The only such spots in contact lie west of b, where b's contact ring
    # meets the line a base's radius off the mud; a's straight line to b would meet the
    # ring on the mud. The nearest of those spots is where the ring leaves that line:
    # the search ends paths where terrain bounds the ring (BandSpace.ring_ends), at the
    # last free sample of RING_SAMPLES round it. Before, it had no such end and refused.
    a, b = (8.5, 8.0), (10.3, 12.0)
    sc, m = build(
        red=[bare_unit("a", a, stats={"move": 4})],
        blue=[bare_unit("b", b)],
        terrain=[area("mud", 10, 10, 14, 14, "difficult")],
    )
    plan = m.plan_engage(sc.state, "a", "b")
    reach = 2 * R25 + TOL
    x = 10 - R25  # a base's radius off the mud
    spot = (x, b[1] - math.sqrt(reach**2 - (b[0] - x) ** 2))
    best = math.hypot(spot[0] - a[0], spot[1] - a[1])
    sample = 2 * math.pi * reach / RING_SAMPLES
    assert not plan.difficult and plan.allowance == pytest.approx(4)
    assert best - 1e-9 <= plan.cost <= best + sample and plan.cost < 3.6
    assert ends_in_contact(m, sc, plan) and plan.end[0] <= x + 1e-9


def test_ring_ends_are_the_last_free_samples_where_terrain_bounds_a_circle():
    # A wall 2" wide, x 10-12: a circle round (9, 5) of radius 2 runs into it, one round
    # (4, 5) does not (no samples are taken for it), one round (11, 5) lies mostly in it.
    sc, m = build(red=[bare_unit("a", (2, 2))], terrain=[block("wall", 10, 0, 12, 36, 6, kind="wall")])
    bs = m.nav.layer(R25).space.bands[0]
    assert bs.ring_ends(4.0, 5.0, 2.0) == [] and (4.0, 5.0, 2.0) not in bs._ring_memo
    ends = bs.ring_ends(9.0, 5.0, 2.0)
    a, X, Y, ok = bs.ring_ok(9.0, 5.0, 2.0)
    step = 2 * math.pi / RING_SAMPLES
    assert len(ends) == 2 and not ok.all()
    for e in ends:
        k = round((e % (2 * math.pi)) / step) % RING_SAMPLES
        assert ok[k] and not (ok[(k - 1) % RING_SAMPLES] and ok[(k + 1) % RING_SAMPLES])
        # on the line a base's radius off the wall, within a sample (an arc of 2" x step)
        assert 10 - R25 - 2.0 * step <= 9.0 + 2.0 * math.cos(e) <= 10 - R25
    assert bs.ring_ends(30.0, 30.0, 0.5) == []  # whole
    assert bs.ring_ends(11.0, 5.0, 0.3) == []  # none of it free


# --- part 3: difficult ground (M12) -------------------------------------------------------------


@pytest.mark.parametrize("extra, ok", [(0.0, True), (0.01, False)])
def test_difficult_ground_takes_two_inches_off_an_engage(extra, ok):
    # A band of difficult ground y 7-9 across the table: allowance 6 - 2 = 4".
    y = 5 + 2 * R25 + TOL + 4 + extra
    sc, m = build(
        red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, y))], terrain=[area("mud", 0, 7, 36, 9, "difficult")]
    )
    if ok:
        plan = m.plan_engage(sc.state, "a", "b")
        assert plan.difficult and plan.allowance == pytest.approx(4) and plan.cost == pytest.approx(4, abs=1e-9)
    else:
        reason = refused(lambda: m.plan_engage(sc.state, "a", "b"), "M12")
        assert '4.01" (a may engage up to 4" (difficult ground -2")' in reason


@pytest.mark.parametrize(
    "bx, by, within",
    [(8.5, 9.4, True), (9.5, 9.2, True), (1.5, 9.3, True), (4, 9.2, True), (5, 10.4, False), (6.5, 10.9, False)],
)
def test_a_refusal_names_the_path_taken_with_enough_move(bx, by, within):
    # Mud across the table and a wall to go round. Within: the cheapest way in fits the 6"
    # of the allowance but not the 4" left after the mud (M12), and the search within the
    # 6" names it; else the wider search does (E1). Either way the refusal names the path
    # that a unit with Move enough takes (the same search with a larger limit finds the
    # same path first).
    terrain = [area("mud", 0, 7, 36, 9, "difficult"), block("wall", 3, 6.2, 7.5, 6.4, 4, kind="wall")]
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (bx, by))], terrain=terrain)
    reason = refused(lambda: m.plan_engage(sc.state, "a", "b"), "M12" if within else "E1")
    cost = float(reason.split("is ")[1].split('"')[0])
    assert (4 < cost <= 6) if within else (cost > 6)
    sc, m = build(red=[bare_unit("a", (5, 5), stats={"move": 10})], blue=[bare_unit("b", (bx, by))], terrain=terrain)
    plan = m.plan_engage(sc.state, "a", "b")
    assert plan.difficult and f"{plan.cost:.2f}" == f"{cost:.2f}"


def test_the_issue_example_of_difficult_ground_is_refused():
    sc, m = build(
        red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 10.98))], terrain=[area("mud", 0, 7, 36, 9, "difficult")]
    )
    refused(lambda: m.plan_engage(sc.state, "a", "b"), "M12")


# --- a given path ---------------------------------------------------------------------------------


def test_a_given_path_must_end_in_contact():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (7, 8))])
    k = 1 / math.sqrt(2)
    end = (7 - (2 * R25 + 0.04) * k, 8 - (2 * R25 + 0.04) * k)
    plan = m.plan_engage(sc.state, "a", "b", path=[(6, 5), end])
    assert plan.points[1][:2] == (6, 5) and ends_in_contact(m, sc, plan)
    short = (7 - (2 * R25 + 0.06) * k, 8 - (2 * R25 + 0.06) * k)
    assert "not in base contact" in refused(lambda: m.plan_engage(sc.state, "a", "b", path=[(6, 5), short]), "E1")
    # onto the target: bases never overlap
    refused(lambda: m.plan_engage(sc.state, "a", "b", path=[(6.8, 7.8)]), "M5")
    # in contact but too far
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (10, 10))])
    far = (10 - (2 * R25) * k, 10 - (2 * R25) * k)
    assert "the path into contact with b costs" in refused(
        lambda: m.plan_engage(sc.state, "a", "b", path=[(8, 5), far]), "E1"
    )


def test_a_given_path_obeys_the_move_rules():
    sc, m = build(
        red=[bare_unit("a", (5, 5))],
        blue=[bare_unit("b", (5, 9))],
        terrain=[block("wall", 0, 6.9, 10, 7.1, 4, kind="wall")],
    )
    cost = 8 + (9 - 2 * R25 - 0.02 - 5)
    assert f'costs {cost:.2f}"' in refused(
        lambda: m.plan_engage(sc.state, "a", "b", path=[(5, 9 - 2 * R25 - 0.02)]), "E1"
    )


# --- who may engage whom ------------------------------------------------------------------------


def test_allowance_for_an_engage():
    sc, m = build(
        red=[bare_unit("a", (5, 5)), bare_unit("s", (5, 8), status="staggered")], blue=[bare_unit("b", (20, 20))]
    )
    st = sc.state
    assert m.allowance(st, "a", engage=True).inches == 6
    assert m.allowance(st, "s", engage=True).inches == 3
    assert "may not Run" in refused(lambda: m.allowance(st, "a", run=True, engage=True), "E1")
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (20, 20))], rules={"engage_move_factor": 1.5})
    assert m.allowance(sc.state, "a", engage=True).inches == 9


@pytest.mark.parametrize("status", ["stunned", "dazed"])
def test_stunned_and_dazed_units_may_not_engage(status):
    sc, m = build(red=[bare_unit("a", (5, 5), status=status)], blue=[bare_unit("b", (5, 8))])
    assert status.capitalize() in refused(lambda: m.plan_engage(sc.state, "a", "b"), "U5")


def test_a_unit_that_moved_or_attempted_may_not_engage():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 8))])
    st = sc.state
    st.units["a"].engage_attempted = True
    assert "already attempted" in refused(lambda: m.plan_engage(st, "a", "b"), "E1")
    st.units["a"].engage_attempted = False
    m.apply(st, m.plan(st, "a", path=[(5, 5.5)]), dice())
    assert "already moved" in refused(lambda: m.plan_engage(st, "a", "b"), "E1")


def test_the_target_must_be_an_opposing_unit_on_the_table():
    sc, m = build(
        red=[bare_unit("a", (5, 5)), bare_unit("f", (5, 8))],
        blue=[bare_unit("b", (8, 8), status="incapacitated"), bare_unit("c", (9, 9))],
    )
    st = sc.state
    assert "own warband" in refused(lambda: m.plan_engage(st, "a", "f"), "E1")
    assert "Incapacitated" in refused(lambda: m.plan_engage(st, "a", "b"), "E1")
    assert "no unit" in refused(lambda: m.plan_engage(st, "a", "zz"), "E1")
    st.units["c"].on_table = False
    assert "not on the table" in refused(lambda: m.plan_engage(st, "a", "c"), "E1")


# --- resolution -----------------------------------------------------------------------------------


def test_apply_spends_the_attempt_not_the_move():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 10))])
    st = sc.state
    out = m.apply(st, m.plan_engage(st, "a", "b"), dice())
    u = st.units["a"]
    assert out.completed and u.engage_attempted and not u.moved
    assert m.in_contact(u.x, u.y, u, st.units["b"])
    assert "attempted to Engage" in refused(lambda: m.plan(st, "a", path=[(6, 6)]), "M1")


def test_a_failed_climb_on_the_way_ends_the_engage_at_the_foot():
    sc, m = build(
        red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (5, 9))], terrain=[block("tower", 0, 6.5, 10, 12, 2.9)]
    )
    st = sc.state
    plan = m.plan_engage(st, "a", "b")
    out = m.apply(st, plan, dice(20))
    u = st.units["a"]
    assert not out.completed and out.rolls[0].rule == "M6" and u.engage_attempted
    assert (u.x, u.y) == pytest.approx((5, 6.5 - u.r))
    assert not m.in_contact(u.x, u.y, u, st.units["b"])


def test_engage_jumping_down_onto_a_target_below():
    # From a 2" roof down to a target 1.5" out from the ledge (descend: jump: no vertical cost)
    sc, m = build(
        red=[bare_unit("a", (8, 5))],
        blue=[bare_unit("b", (10 + 1.5 + R25, 5))],
        terrain=[block("roof", 0, 0, 10, 10, 2)],
    )
    jump = m.plan_engage(sc.state, "a", "b", descend="jump")
    climb = m.plan_engage(sc.state, "a", "b")
    assert [t.kind for t in jump.checks] == ["jump_down"] and [t.kind for t in climb.checks] == ["climb_down"]
    assert climb.cost == pytest.approx(jump.cost + 2)


def test_a_unit_touching_two_enemies_walks_out_round_them():
    """random-close before its action 214: red-hound stands 0.05" (G4) off blue-ogre and
    blue-xbow, where their circles cross, and blue-thug is 1.41" away behind blue-xbow. The
    search leaves the start round the base it touches (no tangent leaves a point on its own
    circle): a walk of 3.78" with no check, where it once found only a climb onto the tower
    pulled tight (5.63")."""
    import os

    from game.engine.actions import load_script
    from game.engine.game import Game
    from game.engine.replay import dice_for
    from game.engine.scenario import load_scenario

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = load_script(os.path.join(root, "tests/scripts/random-close.yaml"))
    g = Game(load_scenario(os.path.join(root, "tests/scripts/close.yaml")), dice=dice_for(script), history=False)
    for a in script.actions[:214]:
        g.try_apply(a)
    st = g.state
    hound = st.units["red-hound"]
    for other in ("blue-ogre", "blue-xbow"):
        o = st.units[other]
        assert abs(math.hypot(hound.x - o.x, hound.y - o.y) - hound.r - o.r - TOL) < 1e-6
    plan = g.mover.plan_engage(st, "red-hound", "blue-thug")
    assert not plan.transitions and plan.cost < 3.8
