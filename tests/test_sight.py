"""Line of sight (L1) and cover (L2), issue 10 part 1: pictures worked out by hand.

Table 36" x 36"; the units stand on a line y = 18 unless said otherwise. A 25 mm base has
radius R25 = 0.492"; with the default 9 samples a pair has 81 sight lines.
"""

import json
import math
import random

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from game.bundled import bundled_map
from game.cli import main
from game.engine.geometry import Board
from game.engine.model import GameState, Terrain, Unit
from game.engine.ruleset import load_ruleset
from game.engine.scenario import load_scenario
from game.engine.errors import LoadError
from game.engine.sight import Sight, sample_offsets
from tests.factories import PAIR, STATS, WIDE_BLOCK, rect, sight_scenario

R25 = 25 / 25.4 / 2
DEFAULT = bundled_map("default.yaml")


def los(sc, a="a", b="b"):
    return Sight(sc).between(sc.state, a, b)


# --- L1 blocking -------------------------------------------------------------------------------


def test_a_3_inch_block_between_two_ground_units_hides_them():
    res = los(sight_scenario([rect("house", "block", *WIDE_BLOCK, height=3)], **PAIR))
    assert (res.visible, res.cover, res.clear_lines, res.lines) == (False, False, 0, 81)
    assert res.blockers == ("house",)
    assert res.distance == pytest.approx(26 - 2 * R25)


def test_the_same_pair_sees_over_a_1_inch_block_the_line_grazes_its_top():
    """Both eyes at 1": every line runs exactly at the 1" top: it grazes, not blocked."""
    res = los(sight_scenario([rect("crates", "block", *WIDE_BLOCK, height=1)], **PAIR))
    assert (res.visible, res.cover, res.clear_lines) == (True, False, 81)
    assert res.blockers == ()


@pytest.mark.parametrize("eye,visible", [(1.0, True), (0.99, False), (1.01, True)])
def test_eye_height_at_the_top_of_a_piece_and_just_below(eye, visible):
    res = los(sight_scenario([rect("crates", "block", *WIDE_BLOCK, height=1)], rules={"eye_height": eye}, **PAIR))
    assert res.visible is visible
    assert res.clear_lines == (81 if visible else 0)


@pytest.mark.parametrize("height,visible", [(1.0, True), (1.01, False)])
def test_a_piece_0_01_higher_than_the_eyes_blocks(height, visible):
    assert los(sight_scenario([rect("crates", "block", *WIDE_BLOCK, height=height)], **PAIR)).visible is visible


ROOF = rect("roof", "block", 0.0, 10.0, 10.0, 26.0, height=4)


def test_a_unit_on_a_4_inch_roof_sees_over_a_3_inch_block():
    """Eye at 5" on the roof (x = 8), target's eye at 1" (x = 30); the 3" block's far face is
    at x = 14: t = 6/22 there, the line is at 5 - 4 * 6/22 = 3.91" > 3" (and leaves the roof
    at 4.64" > 4"). Every line clears it, and the other way round too."""
    sc = sight_scenario(
        [ROOF, rect("shed", "block", 12.0, 10.0, 14.0, 26.0, height=3)],
        red=[("a", 8.0, 18.0)],
        blue=[("b", 30.0, 18.0)],
    )
    for a, b in (("a", "b"), ("b", "a")):
        res = los(sc, a, b)
        assert (res.visible, res.cover, res.clear_lines) == (True, False, 81)
    # from the ground (no roof) the same block hides the target
    assert (
        los(
            sight_scenario(
                [rect("shed", "block", 12.0, 10.0, 14.0, 26.0, height=3)],
                red=[("a", 8.0, 18.0)],
                blue=[("b", 30.0, 18.0)],
            )
        ).visible
        is False
    )


def test_a_roof_unit_cannot_see_the_foot_of_its_own_wall_nor_just_behind_a_block():
    """From the 4" roof (eye 5" at x = 5) to a ground unit at x = 11: the line leaves the
    roof at x = 10, t = 5/6, at 5 - 4 * 5/6 = 1.67" < 4": the roof's own edge hides it.
    Behind the 3" block (x 12-14) at x = 16: at x = 14 the line is at 5 - 4 * 9/11 = 1.73"."""
    assert los(sight_scenario([ROOF], red=[("a", 5.0, 18.0)], blue=[("b", 11.0, 18.0)])).visible is False
    shed = rect("shed", "block", 12.0, 10.0, 14.0, 26.0, height=3)
    res = los(sight_scenario([ROOF, shed], red=[("a", 5.0, 18.0)], blue=[("b", 16.0, 18.0)]))
    assert res.visible is False and "shed" in res.blockers


def test_difficult_and_impassable_ground_never_block():
    terrain = [rect("bog", "difficult", *WIDE_BLOCK), rect("pool", "impassable", 22.0, 10.0, 26.0, 26.0)]
    res = los(sight_scenario(terrain, **PAIR))
    assert (res.visible, res.cover, res.clear_lines) == (True, False, 81)


def test_some_lines_blocked_means_cover():
    """A 3" block whose edge (y = 17.9) runs just below the centre line: lines from samples
    below it are blocked, the rest clear."""
    res = los(sight_scenario([rect("corner", "block", 16.0, 10.0, 20.0, 17.9, height=3)], **PAIR))
    assert res.visible and res.cover
    assert 0 < res.clear_lines < 81
    assert len(res.clear) == res.clear_lines and len(res.blocked) == 81 - res.clear_lines
    assert all(seg[0][2] == 1.0 and seg[1][2] == 1.0 for seg in res.clear)


@pytest.mark.parametrize("edge,visible", [(18.0, True), (18.01, True), (17.99, False)])
def test_a_line_along_a_footprint_edge_only_touches_it(edge, visible):
    """One sample per base (los_samples 1): the single line runs at y = 18. A 3" block whose
    edge lies exactly on it is touched, not crossed; 0.01 over the line it blocks."""
    sc = sight_scenario([rect("house", "block", 16.0, edge, 20.0, 26.0, height=3)], rules={"los_samples": 1}, **PAIR)
    res = los(sc)
    assert res.lines == 1 and res.visible is visible


# --- L2 cover: low walls near the target ------------------------------------------------------------


def wall_at(right_face, height=0.5):
    """A thin wall across the corridor whose face towards b is at x = right_face."""
    return rect("hedge", "wall", right_face - 0.2, 10.0, right_face, 26.0, height=height)


@pytest.mark.parametrize("gap,cover", [(0.5, True), (1.5, False)])
def test_a_low_wall_near_the_target_gives_cover(gap, cover):
    """b's base edge is at x = 31 - R25; the wall's face is gap inches from it."""
    res = los(sight_scenario([wall_at(31 - R25 - gap)], **PAIR))
    assert (res.visible, res.clear_lines, res.cover) == (True, 81, cover)
    assert res.cover_walls == (("hedge",) if cover else ())


@pytest.mark.parametrize("delta,cover", [(0.0, True), (-0.01, True), (0.01, False)])
def test_cover_wall_range_boundary(delta, cover):
    """One line (los_samples 1), centre to centre: it crosses the wall's face exactly
    cover_wall_range (1") + delta from b's base edge."""
    sc = sight_scenario([wall_at(31 - R25 - 1.0 - delta)], rules={"los_samples": 1}, **PAIR)
    assert los(sc).cover is cover


def test_cover_wall_range_is_a_ruleset_parameter():
    sc = sight_scenario([wall_at(31 - R25 - 1.5)], rules={"cover_wall_range": 2}, **PAIR)
    assert los(sc).cover is True


@pytest.mark.parametrize("height,low", [(1.0, True), (1.01, False)])
def test_the_1_inch_free_height_wall(height, low):
    """A wall exactly free_height (1") high is low: the eye lines graze it and it gives
    cover near the target. 0.01" higher it is a wall like any other: it blocks."""
    near = los(sight_scenario([wall_at(31 - R25 - 0.5, height)], **PAIR))
    far = los(sight_scenario([wall_at(12.0, height)], **PAIR))
    if low:
        assert (near.visible, near.cover) == (True, True)
        assert (far.visible, far.cover) == (True, False)
    else:
        assert near.visible is False and far.visible is False


def test_a_low_wall_near_the_viewer_gives_no_cover():
    res = los(sight_scenario([wall_at(5 + R25 + 0.7)], **PAIR))
    assert (res.visible, res.cover) == (True, False)


# --- bases_block_los --------------------------------------------------------------------------------


def test_bases_block_only_in_the_variant():
    """A 50 mm base (radius 0.98") between a and b covers the whole 0.98"-wide corridor."""
    units = dict(red=[("a", 5.0, 18.0), ("big", 18.0, 18.0, 50)], blue=[("b", 31.0, 18.0)])
    assert los(sight_scenario(**units)).clear_lines == 81
    res = los(sight_scenario(rules={"bases_block_los": True}, **units))
    assert (res.visible, res.blockers) == (False, ("big",))
    # the model top at the eyes' height: the lines graze it
    assert los(sight_scenario(rules={"bases_block_los": True, "base_height": 1.0}, **units)).visible is True
    assert los(sight_scenario(rules={"bases_block_los": True, "base_height": 1.01}, **units)).visible is False


def test_bases_beside_the_lines_or_incapacitated_do_not_block():
    units = dict(red=[("a", 5.0, 18.0), ("side", 18.0, 20.0, 50)], blue=[("b", 31.0, 18.0)])
    assert los(sight_scenario(rules={"bases_block_los": True}, **units)).clear_lines == 81
    sc = sight_scenario(
        rules={"bases_block_los": True}, red=[("a", 5.0, 18.0), ("big", 18.0, 18.0, 50)], blue=[("b", 31.0, 18.0)]
    )
    state = sc.state.copy()
    state.units["big"].status = "incapacitated"
    assert Sight(sc).between(state, "a", "b").visible is True


# --- symmetry, batches, samples -----------------------------------------------------------------------


def _random_world(seed):
    rng = random.Random(seed)
    terrain = []
    for i in range(rng.randint(0, 8)):
        x, y = rng.uniform(0, 30), rng.uniform(0, 30)
        w, h = rng.uniform(0.3, 6), rng.uniform(0.3, 6)
        kind = rng.choice(["block", "block", "wall", "difficult"])
        height = rng.choice([0.5, 1, 2, 3, 4.5]) if kind != "difficult" else 0.0
        terrain.append(Terrain(f"t{i}", kind, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)], height))
    units = {}
    for uid in ("a", "b"):
        units[uid] = Unit(
            uid, uid, "red" if uid == "a" else "blue", rng.uniform(1, 35), rng.uniform(1, 35), 25, R25, dict(STATS)
        )
    return Board(36, 36, terrain), GameState(units=units)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_symmetry_a_sees_b_iff_b_sees_a(seed):
    board, state = _random_world(seed)
    sight = Sight(board, load_ruleset())
    ab, ba = sight.between(state, "a", "b"), sight.between(state, "b", "a")
    assert ab.visible == ba.visible
    assert ab.clear_lines == ba.clear_lines
    assert ab.distance == pytest.approx(ba.distance)


def test_from_unit_agrees_with_between_on_the_default_map():
    sc = load_scenario(DEFAULT)
    sight = Sight(sc)
    many = sight.from_unit(sc.state, "red-crossbow")
    assert set(many) == set(sc.state.units) - {"red-crossbow"}
    for uid, res in many.items():
        one = sight.between(sc.state, "red-crossbow", uid)
        assert (one.visible, one.cover, one.clear_lines, one.blockers, one.cover_walls) == (
            res.visible,
            res.cover,
            res.clear_lines,
            res.blockers,
            res.cover_walls,
        )
    assert any(r.visible for r in many.values()) and any(not r.visible for r in many.values())


def test_samples_are_the_centre_and_evenly_spaced_rim_points():
    offs = sample_offsets(9)
    assert offs[0].tolist() == [0.0, 0.0]
    assert offs[1] == pytest.approx([1.0, 0.0])
    assert [math.hypot(*o) for o in offs[1:]] == pytest.approx([1.0] * 8)
    assert sample_offsets(1).tolist() == [[0.0, 0.0]]
    res = los(sight_scenario(rules={"los_samples": 5}, **PAIR))
    assert res.lines == 25


def test_between_points_for_the_ruler():
    sc = sight_scenario([rect("house", "block", *WIDE_BLOCK, height=3)], **PAIR)
    sight = Sight(sc)
    assert sight.between_points((5, 18), (31, 18)).visible is False
    assert sight.between_points((5, 5), (31, 5)).visible is True
    res = sight.between_points((5, 5), (31, 5))
    assert (res.lines, res.distance) == (1, pytest.approx(26.0))
    # from the 3" roof (eye 4"): 1" in from its edge (y = 26) down to y = 35 the line
    # leaves the roof at 4 - 3 * 1/10 = 3.7" > 3"; from its middle (y = 18) to y = 30 at
    # 4 - 3 * 8/12 = 2" < 3": the roof's edge hides that ground
    assert sight.between_points((18, 25), (18, 35)).visible is True
    assert sight.between_points((18, 18), (18, 30)).visible is False


def test_unknown_or_off_table_units_are_refused():
    sc = sight_scenario(**PAIR)
    sight = Sight(sc)
    with pytest.raises(KeyError):
        sight.between(sc.state, "a", "nobody")
    with pytest.raises(ValueError):
        sight.between(sc.state, "a", "a")
    state = sc.state.copy()
    state.units["b"].on_table = False
    with pytest.raises(ValueError):
        sight.between(state, "a", "b")


@pytest.mark.parametrize("value", [0, 2.5, -1])
def test_los_samples_must_be_a_whole_number_of_at_least_1(value):
    with pytest.raises(LoadError):
        sight_scenario(rules={"los_samples": value}, **PAIR)


# --- the unseen ground (visibility_region) ----------------------------------------------------------


def _agrees(sight, state, uid, points):
    unit = state.units[uid]
    region = sight.visibility_region(state, uid)
    shapely.prepare(region)
    walls = shapely.union_all(
        [sight.board.polygons[i] for i, t in enumerate(sight.board.terrain) if t.kind == "wall"] or [shapely.Polygon()]
    )
    checked = 0
    for x, y in points:
        p = shapely.Point(x, y)
        if walls.intersects(p) or region.boundary.distance(p) < 1e-6:
            continue
        hidden = not sight.between_points((unit.x, unit.y), (x, y)).visible
        assert region.contains(p) == hidden, (uid, x, y)
        checked += 1
    return checked


def test_the_unseen_ground_is_what_the_eye_line_calls_hidden():
    """The region's definition: a point is in it iff the line from the unit's centre eye to
    the eye above the point is blocked (walls' footprints aside: nobody stands there)."""
    rng = random.Random(7)
    sc = load_scenario(DEFAULT)
    sight = Sight(sc)
    pts = [(rng.uniform(0, 36), rng.uniform(0, 36)) for _ in range(400)]
    for uid in ("red-crossbow", "blue-archer", "red-ogre"):
        assert _agrees(sight, sc.state, uid, pts) > 300
    # a viewer up on the 4" roof of the L building (the shadows of lower pieces are bounded)
    state = sc.state.copy()
    state.units["red-crossbow"].x, state.units["red-crossbow"].y = 26.0, 10.0
    assert sight.board.height_at(26.0, 10.0) == 4
    assert _agrees(sight, state, "red-crossbow", pts) > 300


def test_the_unseen_ground_behind_a_block_by_hand():
    sc = sight_scenario([rect("house", "block", *WIDE_BLOCK, height=3)], **PAIR)
    region = Sight(sc).visibility_region(sc.state, "a")
    assert region.contains(shapely.Point(25, 18))  # right behind the house
    assert not region.contains(shapely.Point(25, 2))  # off to the side
    assert not region.contains(shapely.Point(10, 18))  # in front of it
    # its roof: the line up to the 4" eye on it enters over the edge (x = 16) at
    # 1 + 3 * 11/13 = 3.54" > 3": seen
    assert not region.contains(shapely.Point(18, 18))
    # the shadow's side: the ray from a's centre through the house's corner (16, 10)
    y = 18 + (10 - 18) / (16 - 5) * (25 - 5)
    assert region.contains(shapely.Point(25, y + 0.01))
    assert not region.contains(shapely.Point(25, y - 0.01))


# --- speedheim los ----------------------------------------------------------------------------------


def test_los_command(tmp_path, capsys):
    sc = sight_scenario([rect("house", "block", 16.0, 10.0, 20.0, 17.9, height=3)], tmp_path=tmp_path, **PAIR)
    path = sc.file
    assert main(["los", path, "a", "b"]) == 0
    out = capsys.readouterr().out
    assert "visible: yes" in out and "cover: yes" in out and "/81" in out and "distance: 25.02" in out
    assert main(["los", path, "a", "b", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"visible", "cover", "clear_lines", "lines", "distance"} <= set(data)
    assert data["visible"] is True and data["cover"] is True and data["lines"] == 81 and data["distance"] == 25.02
    assert data["blockers"] == ["house"]


def test_los_command_bad_input(tmp_path, capsys):
    sc = sight_scenario(tmp_path=tmp_path, **PAIR)
    assert main(["los", sc.file, "a", "ghost"]) == 2
    assert "ghost" in capsys.readouterr().err
    assert main(["los", sc.file, "a", "a"]) == 2
    assert "same unit" in capsys.readouterr().err
    assert main(["los", str(tmp_path / "missing.yaml"), "a", "b"]) == 2
    assert "missing.yaml:" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntable: {width: 36, height: 36}\nwarbands: 3\n")
    assert main(["los", str(bad), "a", "b"]) == 2
    assert "bad.yaml:" in capsys.readouterr().err


def test_an_empty_table():
    sc = sight_scenario(**PAIR)
    sight = Sight(sc)
    res = sight.between(sc.state, "a", "b")
    assert (res.visible, res.cover, res.clear_lines, res.blockers) == (True, False, 81, ())
    assert sight.visibility_region(sc.state, "a").is_empty
    assert set(sight.from_unit(sc.state, "a")) == {"b"}


def test_the_unseen_ground_behind_a_base_only_in_the_variant():
    units = dict(red=[("a", 5.0, 18.0), ("big", 18.0, 18.0, 50)], blue=[("b", 31.0, 4.0)])
    behind = shapely.Point(25, 18)
    assert not Sight(sight_scenario(**units)).visibility_region(sight_scenario(**units).state, "a").contains(behind)
    sc = sight_scenario(rules={"bases_block_los": True}, **units)
    region = Sight(sc).visibility_region(sc.state, "a")
    assert region.contains(behind) and not region.contains(shapely.Point(25, 22))
