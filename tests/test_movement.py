"""Move phase rules M1-M12 at their boundaries (exact paths, allowances, dice)."""

import json
import math

import pytest

from game.engine.events import ClimbStopped, FallRolled, GapJumpFailed
from tests.factories import area, bare_unit, block, build, dice, refused


# --- M1 / M2 allowance ---------------------------------------------------------------


def test_move_exactly_six_inches_is_legal_and_a_tenth_more_is_not():
    sc, m = build(red=[bare_unit("a", (5, 5))])
    st = sc.state
    assert m.plan(st, "a", path=[(11, 5)]).cost == pytest.approx(6.0)
    assert m.plan(st, "a", path=[(10.9, 5)]).cost == pytest.approx(5.9)
    msg = refused(lambda: m.plan(st, "a", path=[(11.1, 5)]), "M1")
    assert 'the path costs 6.10", more than the 6.00" Move allowance' in msg


def test_run_exactly_nine_inches_and_not_more():
    sc, m = build(red=[bare_unit("a", (5, 5))])
    st = sc.state
    plan = m.plan(st, "a", path=[(14, 5)], run=True)
    assert plan.cost == pytest.approx(9.0) and plan.allowance == pytest.approx(9.0)
    msg = refused(lambda: m.plan(st, "a", path=[(14.1, 5)], run=True), "M2")
    assert 'the path costs 9.10", more than the 9.00" Run allowance' in msg


@pytest.mark.parametrize("gap, denied", [(8.0, True), (7.9, True), (8.1, False)])
def test_run_denied_by_opposing_unit_within_eight_inches(gap, denied):
    r = 25 / 25.4 / 2
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("ogre", (5 + 2 * r + gap, 5))])
    st = sc.state
    if denied:
        msg = refused(lambda: m.allowance(st, "a", run=True), "M2")
        assert f'ogre is {gap:.2f}" away (8" or less)' in msg
        assert m.run_denial(st, "a").rule == "M2"
    else:
        assert m.run_denial(st, "a") is None
        assert m.allowance(st, "a", run=True).inches == pytest.approx(9.0)


def test_run_denial_counts_height_in_3d():
    r = 25 / 25.4 / 2
    # 6" apart across the table, 7" up on a tower: sqrt(36 + 49) = 9.22 > 8.
    sc, m = build(
        red=[bare_unit("a", (2, 5))],
        blue=[bare_unit("ogre", (2 + 2 * r + 6 + 2, 5))],
        terrain=[block("tower", 2 + 2 * r + 6 - 0.5, 3, 2 + 2 * r + 6 + 4, 8, 7)],
    )
    assert m.run_denial(sc.state, "a") is None


@pytest.mark.parametrize("dx, up", [(6.0, 7.0), (6.0, 3.0), (7.9, 0.0), (8.1, 0.0), (0.5, 7.9), (0.5, 8.1)])
def test_run_denier_is_the_run_denial_as_a_yes_no(dx, up):
    """The planner asks M2 through ``run_denier`` (with its discs, or without): the nearest
    opposing unit and its distance, exactly as ``run_denial`` names them, height included
    (the gap across the table alone would deny at 6" + 7" up; the distance is 9.22")."""
    from game.engine.geometry import disc_distance

    r = 25 / 25.4 / 2
    far = 2 + 2 * r + dx
    terrain = [block("tower", far - 0.5, 3, far + 4, 8, up)] if up else []
    sc, m = build(
        red=[bare_unit("a", (2, 5))], blue=[bare_unit("ogre", (far, 5)), bare_unit("imp", (2, 34))], terrain=terrain
    )
    st = sc.state
    a, ogre = st.units["a"], st.units["ogre"]
    d = disc_distance(m.board.disc(a), m.board.disc(ogre))
    discs = {u.id: m.board.disc(u) for u in st.units.values()}
    got, with_discs = m.run_denier(st, a), m.run_denier(st, a, discs)
    assert got == with_discs
    refusal = m.run_denial(st, "a")
    if d <= 8.0 + 1e-9:
        assert got == (pytest.approx(d), "ogre") and refusal.rule == "M2" and f'ogre is {d:.2f}"' in refusal.reason
    else:
        assert got is None and refusal is None


def test_incapacitated_and_off_table_units_do_not_deny_run():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("ogre", (8, 5), status="incapacitated")])
    assert m.run_denial(sc.state, "a") is None
    sc.state.units["ogre"].status = "normal"
    assert m.run_denial(sc.state, "a") is not None
    sc.state.units["ogre"].on_table = False
    assert m.run_denial(sc.state, "a") is None


def test_carrier_may_not_run():
    sc, m = build(red=[bare_unit("a", (5, 5))])
    sc.state.units["a"].carrying = "t1"
    assert "carries treasure t1" in refused(lambda: m.allowance(sc.state, "a", run=True), "U6")
    assert m.allowance(sc.state, "a").inches == 6


@pytest.mark.parametrize("status, walk", [("normal", 6), ("staggered", 3), ("dazed", 3)])
def test_status_halves_move(status, walk):
    sc, m = build(red=[bare_unit("a", (5, 5), status=status)])
    st = sc.state
    assert m.allowance(st, "a").inches == pytest.approx(walk)
    m.plan(st, "a", path=[(5 + walk, 5)])
    refused(lambda: m.plan(st, "a", path=[(5 + walk + 0.1, 5)]), "M1")
    assert m.allowance(st, "a", run=True).inches == pytest.approx(walk * 1.5)


def test_stunned_engaged_reloaded_and_moved_units_do_not_move():
    sc, m = build(red=[bare_unit("a", (5, 5), status="stunned")])
    st = sc.state
    assert "Stunned" in refused(lambda: m.allowance(st, "a"), "M1")
    st.units["a"].status = "normal"
    st.units["a"].engage_attempted = True
    assert "Engage" in refused(lambda: m.plan(st, "a", path=[(6, 5)]), "M1")
    st.units["a"].engage_attempted = False
    st.units["a"].reloaded = True
    refused(lambda: m.plan(st, "a", path=[(6, 5)]), "M11")
    st.units["a"].reloaded = False
    m.apply(st, m.plan(st, "a", path=[(6, 5)]), dice())
    assert "already moved" in refused(lambda: m.plan(st, "a", path=[(7, 5)]), "M1")


def test_dazed_variant_none_cannot_move():
    sc, m = build(red=[bare_unit("a", (5, 5), status="dazed")], rules={"dazed_move": "none"})
    refused(lambda: m.allowance(sc.state, "a"), "M1")


# --- M4 / M6 heights -------------------------------------------------------------------


@pytest.mark.parametrize("height, kind", [(1.0, "free"), (1.1, "climb_up")])
def test_one_inch_is_free_and_more_is_a_climb(height, kind):
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[block("step", 7, 2, 12, 8, height)])
    plan = m.plan(sc.state, "a", path=[(9, 5)])
    if kind == "free":
        assert plan.cost == pytest.approx(4.0) and not plan.checks
    else:
        assert [t.kind for t in plan.checks] == ["climb_up"]
        assert plan.cost == pytest.approx(4.0 + height)
        assert plan.checks[0].rule == "M6"


def test_climb_pays_vertical_inches_up_and_down():
    sc, m = build(red=[bare_unit("a", (2, 5))], terrain=[block("crate", 4, 2, 5, 8, 1.5)])
    plan = m.plan(sc.state, "a", path=[(7, 5)], run=True)
    assert [t.kind for t in plan.transitions] == ["climb_up", "climb_down"]
    assert plan.cost == pytest.approx(5 + 1.5 + 1.5)


def test_failed_climb_up_stops_at_the_foot_and_ends_the_move():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[block("tower", 7, 2, 12, 8, 2)])
    st = sc.state
    plan = m.plan(st, "a", path=[(8, 5)])
    out = m.apply(st, plan, dice(20))
    u = st.units["a"]
    assert not out.completed and out.rolls[0].rule == "M6" and not out.rolls[0].success
    assert (u.x, u.y) == pytest.approx((7 - u.r, 5))
    assert out.events == [ClimbStopped("M6", "up", "tower")]  # typed: what failed, where
    assert out.events[0].text() == "M6 climb up failed: stops at the foot of tower"
    assert u.used == pytest.approx(2 - u.r) and u.moved


@pytest.mark.parametrize("variant, falls", [("stop", False), ("fall", True)])
def test_failed_climb_down_per_ruleset_variant(variant, falls):
    sc, m = build(
        red=[bare_unit("a", (9, 5), stats={"move": 20})],
        terrain=[block("tower", 7, 2, 12, 8, 5)],
        rules={"climb_down_fail": variant},
    )
    st = sc.state
    plan = m.plan(st, "a", path=[(5, 5)])
    assert [t.kind for t in plan.checks] == ["climb_down"]
    out = m.apply(st, plan, dice(20, 10))
    u = st.units["a"]
    if falls:
        assert out.rolls[-1].rule == "M7" and u.x == pytest.approx(7 - u.r)
        assert st.units["a"].x < 7
    else:
        assert len(out.rolls) == 1 and u.x == pytest.approx(7 + u.r)


def test_may_not_end_part_way_up_a_surface():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[block("tower", 7, 2, 12, 8, 3)])
    refused(lambda: m.plan(sc.state, "a", path=[(7.1, 5)]), "M6")


def test_dazed_unit_may_not_climb():
    sc, m = build(red=[bare_unit("a", (5, 5), status="dazed")], terrain=[block("step", 6, 2, 12, 8, 1.5)])
    assert "Dazed" in refused(lambda: m.plan(sc.state, "a", path=[(7, 5)]), "M6")


# --- M7 falls ------------------------------------------------------------------------------


@pytest.mark.parametrize("drop, disadvantage, modifier", [(4.0, True, 4), (3.9, False, 2), (2.0, False, 0)])
def test_jump_down_disadvantage_from_four_inches_and_fall_modifier(drop, disadvantage, modifier):
    sc, m = build(red=[bare_unit("a", (9, 5))], terrain=[block("roof", 7, 2, 12, 8, drop)])
    st = sc.state
    plan = m.plan(st, "a", path=[(5, 5)], descend="jump")
    (t,) = plan.checks
    assert t.kind == "jump_down" and t.disadvantage is disadvantage and t.rule == "M9"
    assert plan.cost == pytest.approx(4.0)  # no vertical cost
    out = m.apply(st, plan, dice(20, 20, 11) if disadvantage else dice(20, 11))
    fall = out.rolls[-1]
    assert fall.rule == "M7" and fall.modifier == modifier
    expected = sc.ruleset.injury_result(11 + modifier)
    assert st.units["a"].status == (expected if expected != "none" else "normal")


def test_fall_that_incapacitates_is_reported():
    sc, m = build(red=[bare_unit("a", (9, 5))], terrain=[block("roof", 7, 2, 12, 8, 6)])
    st = sc.state
    out = m.apply(st, m.plan(st, "a", path=[(5, 5)], descend="jump"), dice(20, 20, 20))
    assert out.incapacitated == ["a"] and st.units["a"].status == "incapacitated"


# --- M8 gaps -------------------------------------------------------------------------------


def _gap(width, other_height=3.0):
    return [block("left", 1, 1, 10, 10, 3), block("right", 10 + width, 1, 20 + width, 10, other_height)]


@pytest.mark.parametrize("width, jumps", [(3.0, True), (2.9, True), (3.1, False)])
def test_gap_of_exactly_three_inches_is_jumped(width, jumps):
    sc, m = build(red=[bare_unit("a", (8, 5), stats={"move": 20})], terrain=_gap(width))
    plan = m.plan(sc.state, "a", path=[(12 + width, 5)], descend="climb")
    kinds = [t.kind for t in plan.checks]
    if jumps:
        assert kinds == ["jump_gap"] and plan.checks[0].gap == pytest.approx(width)
        assert plan.cost == pytest.approx(4 + width)
    else:
        assert kinds == ["climb_down", "climb_up"] and plan.cost == pytest.approx(4 + width + 6)


@pytest.mark.parametrize("other, jumps", [(4.0, True), (4.1, False)])
def test_gap_jump_height_difference_at_most_one_inch(other, jumps):
    sc, m = build(red=[bare_unit("a", (8, 5), stats={"move": 20})], terrain=_gap(2.0, other))
    plan = m.plan(sc.state, "a", path=[(13, 5)])
    assert ("jump_gap" in [t.kind for t in plan.checks]) is jumps


def test_failed_gap_jump_falls():
    sc, m = build(red=[bare_unit("a", (8, 5))], terrain=_gap(2.0))
    st = sc.state
    out = m.apply(st, m.plan(st, "a", path=[(13, 5)]), dice(20, 1))
    assert [r.rule for r in out.rolls] == ["M8", "M7"] and st.units["a"].x == pytest.approx(11)


NO_ROOM = {
    "narrow": (_gap(1.5), 50, [], (13.5, 5)),  # a 50 mm base is wider than the gap
    "chasm": (_gap(2.0) + [area("chasm", 10, 1, 12, 10, "impassable")], 25, [], (13, 5)),  # nowhere to stand below
    "taken": (_gap(2.0), 25, [bare_unit("e", (11, 5), base_mm=50)], (13, 5)),  # a base fills the gap
}


@pytest.mark.parametrize("case", sorted(NO_ROOM))
def test_failed_gap_jump_with_no_room_in_the_gap_falls_back_onto_the_ledge(case):
    """Issue 22 (5): the rules say a failed M8 jump Falls; with no room in the gap for the
    base, the ruling gap_fall_no_room (default fall_back) says what happens, and the log
    says which: the unit takes the fall (M7, the gap's depth) and is put back on the ledge
    it jumped from, at the edge; its move ends."""
    terrain, base, blue, end = NO_ROOM[case]
    sc, m = build(red=[bare_unit("a", (8, 5), base_mm=base, stats={"move": 20})], blue=blue, terrain=terrain)
    st = sc.state
    plan = m.plan(st, "a", path=[end])
    assert [t.kind for t in plan.checks] == ["jump_gap"]
    out = m.apply(st, plan, dice(20, 15))  # the jump fails, the fall rolls 15
    u = st.units["a"]
    assert [r.rule for r in out.rolls] == ["M8", "M7"]
    assert m.board.height_at(u.x, u.y) == pytest.approx(3)  # on the ledge, not in the gap
    assert u.x == pytest.approx(10 - u.r, abs=0.06) and not out.completed
    assert u.status == sc.ruleset.injury_result(15 + 2)  # 3" fallen: +2 (M7)
    jump, fall = out.events
    assert isinstance(jump, GapJumpFailed) and jump.result == "put_back" and jump.height == pytest.approx(3)
    assert isinstance(fall, FallRolled) and (fall.roll, fall.modifier) == (15, 2)
    text = " ".join(e.text() for e in out.events)
    assert "no room" in text and "gap_fall_no_room: fall_back" in text and 'falls 3.00"' in text
    assert "into the gap" not in text


def test_failed_gap_jump_with_no_room_variant_stop_stays_on_the_ledge_without_a_fall():
    terrain, base, blue, end = NO_ROOM["narrow"]
    sc, m = build(
        red=[bare_unit("a", (8, 5), base_mm=base, stats={"move": 20})],
        terrain=terrain,
        rules={"gap_fall_no_room": "stop"},
    )
    st = sc.state
    out = m.apply(st, m.plan(st, "a", path=[end]), dice(20, 15))
    u = st.units["a"]
    assert [r.rule for r in out.rolls] == ["M8"] and u.status == "normal"
    assert m.board.height_at(u.x, u.y) == pytest.approx(3) and u.x == pytest.approx(10 - u.r, abs=0.06)
    (jump,) = out.events
    assert isinstance(jump, GapJumpFailed) and jump.result == "stays" and jump.height == 0
    assert "gap_fall_no_room: stop" in jump.text()


def test_a_waypoint_in_the_gap_means_climbing_down():
    sc, m = build(red=[bare_unit("a", (8, 5), stats={"move": 20})], terrain=_gap(3.0))
    plan = m.plan(sc.state, "a", path=[(11.5, 5), (14, 5)])
    assert [t.kind for t in plan.checks] == ["climb_down", "climb_up"]


def test_gap_over_impassable_chasm_only_by_jumping():
    terrain = _gap(2.0) + [area("chasm", 10, 1, 12, 10, "impassable")]
    sc, m = build(red=[bare_unit("a", (8, 5))], terrain=terrain)
    assert [t.kind for t in m.plan(sc.state, "a", path=[(13, 5)]).checks] == ["jump_gap"]
    terrain = _gap(3.5) + [area("chasm", 10, 1, 13.5, 10, "impassable")]
    sc, m = build(red=[bare_unit("a", (8, 5))], terrain=terrain)
    refused(lambda: m.plan(sc.state, "a", path=[(14.5, 5)], run=True), "M5")


# --- M9 jump down over enemies ----------------------------------------------------------


def test_jump_down_passes_over_enemies_within_landing_distance():
    sc, m = build(
        red=[bare_unit("a", (9, 5))], blue=[bare_unit("e", (6, 5))], terrain=[block("roof", 7.5, 2, 12, 8, 2)]
    )
    st = sc.state
    refused(lambda: m.plan(st, "a", path=[(4.5, 5)]), "M5")  # climbing down: blocked by e
    plan = m.plan(st, "a", path=[(4.5, 5)], descend="jump")  # lands 3" out, past e
    assert [t.kind for t in plan.checks] == ["jump_down"]


# --- M10 ladders --------------------------------------------------------------------------


def test_ladder_costs_height_without_check_but_not_for_animals():
    terrain = [block("tower", 10, 2, 14, 8, 3)]
    ladders = [{"id": "lad", "foot": [9.5, 5], "top": "tower"}]
    sc, m = build(
        red=[
            bare_unit("a", (7, 5), stats={"move": 20}),
            bare_unit("dog", (7, 10), keywords=["animal"], stats={"move": 20}),
        ],
        terrain=terrain,
        ladders=ladders,
    )
    plan = m.plan(sc.state, "a", path=[(11, 5)])
    assert [t.kind for t in plan.transitions] == ["ladder"] and not plan.checks
    assert plan.cost == pytest.approx(4 + 3) and plan.transitions[0].rule == "M10"
    sc.state.units["dog"].x, sc.state.units["dog"].y = 7, 5.0
    sc.state.units["a"].x = 3
    plan = m.plan(sc.state, "dog", path=[(10.6, 5)])
    assert [t.kind for t in plan.checks] == ["climb_up"]


# --- M12 difficult ground -------------------------------------------------------------------


def test_difficult_ground_takes_two_inches_after_other_modifiers():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[area("rubble", 7, 2, 8, 8, "difficult")])
    st = sc.state
    plan = m.plan(st, "a", path=[(9, 5)])
    assert plan.difficult and plan.allowance == pytest.approx(4.0)
    msg = refused(lambda: m.plan(st, "a", path=[(9.1, 5)]), "M12")
    assert 'the path costs 4.10", more than the 4.00" Move allowance (difficult ground -2")' in msg
    run = m.plan(st, "a", path=[(12, 5)], run=True)
    assert run.allowance == pytest.approx(7.0)
    refused(lambda: m.plan(st, "a", path=[(12.1, 5)], run=True), "M12")


def test_difficult_counts_when_the_base_edge_passes_through():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[area("rubble", 6, 5.3, 8, 8, "difficult")])
    assert m.plan(sc.state, "a", path=[(9, 5)]).difficult
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[area("rubble", 6, 5.6, 8, 8, "difficult")])
    assert not m.plan(sc.state, "a", path=[(9, 5)]).difficult


# --- M5 blocking and base fit ----------------------------------------------------------------


def test_enemy_bases_block_and_friends_may_be_passed_through_but_not_ended_on():
    sc, m = build(red=[bare_unit("a", (5, 5)), bare_unit("f", (8, 5))], blue=[bare_unit("e", (8, 9))])
    st = sc.state
    assert m.plan(st, "a", path=[(10, 5)]).cost == pytest.approx(5)
    assert "may not end" in refused(lambda: m.plan(st, "a", path=[(8.5, 5)]), "M5")
    st.units["a"].y = 9
    assert "blocked by e" in refused(lambda: m.plan(st, "a", path=[(10, 9)]), "M5")


@pytest.mark.parametrize("status", ["stunned", "dazed"])
def test_stunned_or_dazed_friends_block(status):
    sc, m = build(red=[bare_unit("a", (5, 5)), bare_unit("f", (8, 5), status=status)])
    refused(lambda: m.plan(sc.state, "a", path=[(10, 5)]), "M5")


def test_engaged_friend_blocks():
    sc, m = build(red=[bare_unit("a", (5, 5)), bare_unit("f", (8, 5))])
    sc.state.units["f"].engaged_with = ["x"]
    refused(lambda: m.plan(sc.state, "a", path=[(10, 5)]), "M5")


def test_grazing_an_enemy_base_is_not_blocked():
    r = 25 / 25.4 / 2
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("e", (8, 5 + 2 * r + 0.001))])
    m.plan(sc.state, "a", path=[(10, 5)])


@pytest.mark.parametrize("base, fits", [(25, True), (40, False)])
def test_base_must_fit_through_a_gap(base, fits):
    # Two towers 1.2" apart; the path goes down the middle of the gap.
    terrain = [block("t1", 8, 0, 12, 10.4, 3), block("t2", 8, 11.6, 12, 20, 3)]
    sc, m = build(red=[bare_unit("a", (5, 11), base_mm=base)], terrain=terrain)
    if fits:
        plan = m.plan(sc.state, "a", path=[(13, 11)], run=True)
        assert not plan.checks and plan.cost == pytest.approx(8)
    else:
        assert "does not fit" in refused(lambda: m.plan(sc.state, "a", path=[(13, 11)], run=True), "M5")


# --- walls and impassable terrain -----------------------------------------------------------------


def test_low_wall_is_stepped_over_freely():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[block("fence", 7, 2, 7.25, 8, 0.75, kind="wall")])
    plan = m.plan(sc.state, "a", path=[(9, 5)])
    assert plan.cost == pytest.approx(4) and not plan.checks


def test_thin_high_wall_is_climbed_over_and_thick_one_is_not():
    sc, m = build(
        red=[bare_unit("a", (5, 5), stats={"move": 20})], terrain=[block("wall", 7, 2, 8, 8, 1.5, kind="wall")]
    )
    plan = m.plan(sc.state, "a", path=[(9, 5)])
    assert [t.kind for t in plan.checks] == ["climb_up", "climb_down"] and plan.cost == pytest.approx(4 + 3)
    sc, m = build(
        red=[bare_unit("a", (5, 5), stats={"move": 20})], terrain=[block("wall", 7, 2, 8.1, 8, 1.5, kind="wall")]
    )
    assert "not walkable" in refused(lambda: m.plan(sc.state, "a", path=[(9.5, 5)]), "M6")


def test_impassable_is_never_entered():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[area("lake", 7, 2, 8, 8, "impassable")])
    assert "impassable" in refused(lambda: m.plan(sc.state, "a", path=[(10, 5)]), "M5")


def test_path_implicit_start_and_table_edge():
    sc, m = build(red=[bare_unit("a", (5, 5))])
    p1 = m.plan(sc.state, "a", path=[(5, 5), (7, 5)])
    p2 = m.plan(sc.state, "a", path=[(7, 5)])
    assert p1.points == p2.points and p1.to_dict()["path"] == [[5, 5], [7, 5]]
    refused(lambda: m.plan(sc.state, "a", path=[(0.2, 5)]), "M5")


# --- apply ------------------------------------------------------------------------------------------


def test_apply_updates_unit_and_logs_rolls():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[block("tower", 7, 2, 12, 8, 2)])
    st = sc.state
    d = dice(3)
    plan = m.plan(st, "a", path=[(8, 5)], run=True)
    out = m.apply(st, plan, d)
    u = st.units["a"]
    assert out.completed and (u.x, u.y) == (8, 5) and u.ran and u.moved
    assert u.used == pytest.approx(plan.cost) and u.trail == [[(5.0, 5.0), (8.0, 5.0)]]
    assert d.log == out.rolls and out.rolls[0].success
    js = out.to_dict()
    assert js["final"] == [8, 5] and js["rolls"][0]["rule"] == "M6"
    assert plan.to_dict()["checks"][0]["kind"] == "climb_up"


def test_failed_climb_never_leaves_the_unit_on_a_friend():
    # A friend stands right at the foot of the tower where the climb would start.
    sc, m = build(red=[bare_unit("a", (3, 5)), bare_unit("f", (6.0, 5.6))], terrain=[block("tower", 7, 2, 12, 8, 1.5)])
    st = sc.state
    plan = m.plan(st, "a", path=[(8, 5)], run=True)
    out = m.apply(st, plan, dice(20))
    u, f = st.units["a"], st.units["f"]
    assert not out.completed
    assert math.hypot(u.x - f.x, u.y - f.y) >= u.r + f.r - 1e-6
    assert u.x < 7 - u.r + 1e-9


def test_plan_to_dict_is_json_and_rounded():
    sc, m = build(red=[bare_unit("a", (5, 5))], terrain=[block("tower", 7, 2, 12, 8, 1.5)])
    d = m.plan(sc.state, "a", path=[(7.6666, 5)]).to_dict()
    json.dumps(d)
    assert d["cost"] == round(2.6666 + 1.5, 2) and d["path"][-1] == [7.67, 5]
    assert d["checks"][0]["rule"] == "M6" and d["allowance"] == 6


def test_a_move_that_goes_nowhere_is_refused_and_changes_nothing():
    sc, m = build(red=[bare_unit("a", (5, 5))])
    st = sc.state
    before = st.hash()
    assert "does not leave" in refused(lambda: m.plan(st, "a", path=[(5, 5)]), "M1")
    refused(lambda: m.plan(st, "a", to=(5, 5)), "M1")
    assert st.hash() == before


def test_apply_refuses_a_plan_made_for_another_position():
    sc, m = build(red=[bare_unit("a", (5, 5))])
    st = sc.state
    plan = m.plan(st, "a", path=[(7, 5)])
    st.units["a"].x = 6
    refused(lambda: m.apply(st, plan, dice()), "M1")
    assert st.units["a"].x == 6 and not st.units["a"].moved
