"""The vectorised plane geometry the path search runs on (game.engine.movement.geom),
against the same sums done one segment at a time in Python."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine.movement.geom import entry, hits_discs, tangents_from
from game.engine.tolerance import EPS

x = st.floats(0, 24, allow_nan=False)
seg = st.tuples(x, x, x, x)


def first_within(ax, ay, bx, by, cx, cy, R):
    """Where a -> b first comes within R of c, as a fraction (None: never)."""
    dx, dy, fx, fy = bx - ax, by - ay, ax - cx, ay - cy
    if fx * fx + fy * fy <= R * R:
        return 0.0
    a, b, c = dx * dx + dy * dy, 2 * (fx * dx + fy * dy), fx * fx + fy * fy - R * R
    disc = b * b - 4 * a * c
    if a == 0 or disc < 0:
        return None
    t = (-b - math.sqrt(disc)) / (2 * a)
    return t if 0 <= t <= 1 else None


@settings(max_examples=200, deadline=None)
@given(st.lists(seg, min_size=1, max_size=8), x, x, st.floats(0, 6))
def test_entry_is_where_each_segment_first_comes_within_the_radius(segs, cx, cy, R):
    A = np.array([s[:2] for s in segs], dtype=float)
    B = np.array([s[2:] for s in segs], dtype=float)
    got = entry(A, B, cx, cy, R)
    for (ax, ay, bx, by), t in zip(segs, got.tolist()):
        want = first_within(ax, ay, bx, by, cx, cy, R)
        if want is None:
            assert math.isnan(t)
        else:
            assert t == pytest.approx(want, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(seg, min_size=1, max_size=8), st.lists(st.tuples(x, x, st.floats(0.1, 3)), max_size=5))
def test_a_segment_hits_a_disc_when_it_passes_deeper_than_eps_inside(segs, discs):
    A = np.array([s[:2] for s in segs], dtype=float)
    B = np.array([s[2:] for s in segs], dtype=float)
    got = hits_discs(A, B, np.array(discs, dtype=float)).tolist()
    for (ax, ay, bx, by), hit in zip(segs, got):

        def closest(cx, cy):
            dx, dy = bx - ax, by - ay
            L2 = max(dx * dx + dy * dy, 1e-18)
            t = min(1.0, max(0.0, ((cx - ax) * dx + (cy - ay) * dy) / L2))
            return math.hypot(ax + t * dx - cx, ay + t * dy - cy)

        assert hit == any(closest(cx, cy) < R - EPS for cx, cy, R in discs)


@settings(max_examples=200, deadline=None)
@given(
    x,
    x,
    st.floats(0, 2),
    st.sampled_from([1.0, -1.0]),
    st.lists(st.tuples(x, x, st.floats(0, 2), st.sampled_from([1.0, -1.0])), min_size=1, max_size=6),
)
def test_a_tangent_touches_both_circles_at_right_angles_to_their_radii(x1, y1, r1, s1, targets):
    X, Y, R, S = (np.array(c, dtype=float) for c in zip(*targets))
    ok, T1, T2, a1, a2 = tangents_from(x1, y1, r1, s1, X, Y, R, S)
    for k in np.nonzero(ok)[0].tolist():
        (px, py), (qx, qy) = T1[k], T2[k]
        assert math.hypot(px - x1, py - y1) == pytest.approx(r1, abs=1e-9)
        assert math.hypot(qx - X[k], qy - Y[k]) == pytest.approx(R[k], abs=1e-9)
        assert (px, py) == pytest.approx((x1 + r1 * math.cos(a1[k]), y1 + r1 * math.sin(a1[k])), abs=1e-9)
        assert (qx, qy) == pytest.approx((X[k] + R[k] * math.cos(a2[k]), Y[k] + R[k] * math.sin(a2[k])), abs=1e-9)
        dx, dy = qx - px, qy - py
        if math.hypot(dx, dy) > 1e-6:
            # the line leaves each circle along its tangent: at right angles to the radius there
            for (cx, cy), (tx, ty), r in (((x1, y1), (px, py), r1), ((X[k], Y[k]), (qx, qy), R[k])):
                if r > 1e-3:
                    assert ((tx - cx) * dx + (ty - cy) * dy) / (r * math.hypot(dx, dy)) == pytest.approx(0, abs=1e-6)


@settings(max_examples=200, deadline=None)
@given(x, x, st.floats(0, 2), st.sampled_from([1, -1]), st.lists(st.tuples(x, x), min_size=1, max_size=9))
def test_the_rows_into_a_goal_region_are_tangents_from_bit_for_bit(x0, y0, r0, s0, pts):
    # links._into_region works the tangents to the region's centre and corners out with
    # fewer sums; the search's answers stay those of tangents_from only if every bit is
    from game.engine.movement.links import _into_region

    n = len(pts)
    _ok, T1, T2, a1, a2 = tangents_from(
        x0, y0, r0, float(s0), np.array([p[0] for p in pts]), np.array([p[1] for p in pts]), np.zeros(n), np.ones(n)
    )
    got = _into_region(x0, y0, r0, s0, pts)
    for want, have in zip((T1, T2, a1, a2), got[:4]):
        assert want.shape == have.shape and want.dtype == have.dtype
        assert np.array_equal(want, have), (want, have)
