"""Bases against bases (M5, G4): overlap, sweeps, sliding into contact."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine.movement.bases import BaseField, contact_interval, first_contact, slide_into_contact
from game.engine.tolerance import EPS
from tests.factories import bare_unit, build

R25 = 25 / 25.4 / 2
R40 = 40 / 25.4 / 2


def test_overlap_is_exact_and_touching_is_not_overlap():
    sc, m = build(red=[bare_unit("a", (5, 5))], blue=[bare_unit("b", (10, 5), base_mm=40)])
    f = BaseField(m.board, sc.state, exclude=("a",))
    assert f.overlapping(10 - R40 - R25 + 0.01, 5, R25) == ["b"]
    assert f.overlapping(10 - R40 - R25, 5, R25) == []  # touching
    assert f.overlapping(10 - R40 - R25 - 0.01, 5, R25) == []


def test_sweep_finds_bases_beside_the_line_not_only_on_it():
    sc, m = build(red=[bare_unit("a", (2, 5))], blue=[bare_unit("b", (12, 5), base_mm=40), bare_unit("c", (6, 5.5))])
    f = BaseField(m.board, sc.state, exclude=("a",))
    hits = f.sweep((2, 5), (14, 5), R25)
    assert [uid for _, uid in hits] == ["c", "b"]
    t, _ = hits[0]
    x = 2 + 12 * t
    assert math.hypot(x - 6, 0.5) == pytest.approx(2 * R25, abs=1e-4)


def test_contact_interval_and_first_contact_agree():
    iv = contact_interval(0, 0, 10, 0, 5, 0, 1)
    assert iv[0] == pytest.approx(0.4, abs=1e-5) and iv[1] == pytest.approx(0.6, abs=1e-5)
    assert first_contact(0, 0, 10, 0, 5, 0, 1) == pytest.approx(0.4, abs=1e-5)
    assert contact_interval(0, 0, 10, 0, 5, 1.0, 1) is None  # grazing


def test_slide_into_contact_stops_touching_the_target():
    sc, m = build(red=[bare_unit("a", (2, 5))], blue=[bare_unit("b", (10, 8), base_mm=40)])
    x, y = slide_into_contact(m.board, sc.state, "a", "b", tolerance=sc.ruleset.contact_tolerance)
    gap = math.hypot(10 - x, 8 - y) - R25 - R40
    assert 0 <= gap <= sc.ruleset.contact_tolerance
    # on the straight line from the start to the target
    assert (y - 5) / (x - 2) == pytest.approx(3 / 8)
    assert (sc.state.units["a"].x, sc.state.units["a"].y) == (2, 5)  # state untouched


def test_slide_stops_at_first_base_in_the_way():
    sc, m = build(red=[bare_unit("a", (2, 5)), bare_unit("f", (6, 5.4))], blue=[bare_unit("b", (12, 5))])
    x, y = slide_into_contact(m.board, sc.state, "a", "b", tolerance=0.05)
    assert y == 5 and math.hypot(6 - x, 0.4) == pytest.approx(2 * R25, abs=1e-3)
    assert math.hypot(6 - x, 0.4) >= 2 * R25 - 1e-6


def test_slide_from_within_tolerance_does_not_move():
    sc, m = build(red=[bare_unit("a", (2, 5))], blue=[bare_unit("b", (2 + 2 * R25 + 0.05, 5))])
    assert slide_into_contact(m.board, sc.state, "a", "b", tolerance=0.05) == (2, 5)
    x, _ = slide_into_contact(m.board, sc.state, "a", "b", tolerance=0.04)
    assert x == pytest.approx(2.05, abs=1e-4)


coord = st.floats(0.5, 23.5, allow_nan=False)
#: Bases on cells 4" apart, each a little off its cell's centre: they never overlap.
spot = st.tuples(
    st.integers(1, 5), st.integers(1, 5), st.floats(-0.6, 0.6), st.floats(-0.6, 0.6), st.sampled_from([25, 32, 40])
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(spot, min_size=1, max_size=6, unique_by=lambda s: s[:2]),
    st.lists(st.tuples(coord, coord), min_size=2, max_size=6),
    st.data(),
)
def test_a_whole_paths_broad_phase_loses_no_base_a_segment_sweep_finds(bases, path, data):
    """check_path asks near_path once for a path, then sweep_near for each segment: the
    same bases, at the same t, as sweep's own broad phase finds segment by segment."""
    blue = [bare_unit(f"b{k}", (4 * i + dx, 4 * j + dy), base_mm=mm) for k, (i, j, dx, dy, mm) in enumerate(bases)]
    sc, m = build(red=[bare_unit("a", (0.6, 0.6))], blue=blue)
    f = BaseField(m.board, sc.state, exclude=("a",))
    among = set(data.draw(st.sets(st.sampled_from([u["id"] for u in blue]))))
    near = f.near_path(path, R25, among)
    for a, b in zip(path, path[1:]):
        if a == b:
            continue
        assert f.sweep_near(a, b, R25, near) == f.sweep(a, b, R25, among=among)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(spot, min_size=1, max_size=12, unique_by=lambda s: s[:2]),
    st.tuples(coord, coord),
    st.tuples(coord, coord),
    st.sampled_from([R25, R40]),
    st.data(),
)
def test_the_index_answers_as_testing_every_base(bases, a, b, r, data):
    """The index (the bases sorted by x, a query looking at its slab) finds what the exact
    test of every base finds: the overlaps at a point, the bases a sweep meets and where."""
    blue = [bare_unit(f"b{k}", (4 * i + dx, 4 * j + dy), base_mm=mm) for k, (i, j, dx, dy, mm) in enumerate(bases)]
    sc, m = build(red=[bare_unit("a", (0.6, 0.6))], blue=blue)
    f = BaseField(m.board, sc.state, exclude=("a",))
    among = data.draw(st.none() | st.sets(st.sampled_from([u["id"] for u in blue])))
    every = [uid for uid in sorted(f.units) if among is None or uid in among]
    x, y = a
    want = [uid for uid in every if math.hypot(f.units[uid][0] - x, f.units[uid][1] - y) < r + f.units[uid][2] - EPS]
    assert f.overlapping(x, y, r, among=among) == want
    assert f.sweep(a, b, r, among=among) == f.sweep_near(a, b, r, every)
