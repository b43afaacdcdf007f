"""The reachable area was made faster (issue 13's target: the worst unit of stress.yaml
within 30 ms) without moving it: every layer of every unit of stress.yaml and
default.yaml is within 0.02" of the regions the engine gave before
(tests/golden/reach-regions.jsonl.gz, made by tools/make_reach_reference.py)."""

import math

import pytest
import shapely
from shapely import affinity

from tools.make_reach_reference import LAYERS, MAPS, load, regions

#: How far (inches) a region may move: the edge of the area is right to 0.02" (issue 13).
TOL = 0.02


def _outside(a, b, tol: float) -> float:
    """Area of a farther than tol from b (b's buffer is a polygon inside the true one by
    under 1e-5", so a region within tol leaves only such slivers)."""
    return shapely.difference(a, shapely.buffer(b, tol, quad_segs=32)).area


def close(a, b, tol: float = TOL) -> bool:
    """Every point of each region within tol of the other (the Hausdorff distance of the
    regions as sets: a crack or sliver of no width does not count)."""
    if a.is_empty or b.is_empty:
        return a.is_empty and b.is_empty
    return _outside(a, b, tol) <= 1e-6 and _outside(b, a, tol) <= 1e-6


@pytest.fixture(scope="module")
def reference():
    return load()


def test_the_comparison_sees_a_move_just_beyond_the_tolerance():
    disc = shapely.Point(10, 10).buffer(3, quad_segs=64)
    near = affinity.translate(disc, TOL - 0.001, 0)
    far = affinity.translate(disc, TOL + 0.001, 0)
    assert close(disc, near) and close(near, disc)
    assert not close(disc, far) and not close(far, disc)
    assert not close(disc, shapely.Polygon()) and close(shapely.Polygon(), shapely.Polygon())
    # a hole 0.1" across inside the area is a change, though every edge is near the other's
    holed = shapely.difference(disc, shapely.Point(10, 10).buffer(0.05))
    assert not close(disc, holed)


@pytest.mark.parametrize("map_name", MAPS)
def test_reachable_regions_are_where_they_were(reference, map_name):
    now = regions(map_name)
    want = {u: geoms for (m, u), geoms in reference.items() if m == map_name}
    assert set(now) == set(want)
    moved = []
    for uid, geoms in now.items():
        for layer, got, ref in zip(LAYERS, geoms, want[uid]):
            if not close(got, ref):
                moved.append((uid, layer, round(_outside(got, ref, TOL), 6), round(_outside(ref, got, TOL), 6)))
            # and the areas agree (a change of 0.02" all round a 9" area is about 1.1 sq in)
            assert math.isclose(got.area, ref.area, abs_tol=TOL * max(1.0, ref.length)), (uid, layer)
    assert not moved, moved
