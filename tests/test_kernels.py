"""The compiled kernels (game/engine/kernels.py) and the one-query ``Board.heights_at`` give,
bit for bit, the answers of the numpy functions they stand in for."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine import kernels
from game.engine.movement import geom, rays
from game.engine.movement.rays import Caster

pytestmark = pytest.mark.skipif(not kernels.enable(), reason="numba is not installed (the numpy references are in use)")

#: Coordinates on and around a table, with round values that make exact ties (a ray along
#: a segment, a point on a circle) likely.
coord = st.one_of(
    st.floats(-5, 35, allow_nan=False), st.integers(-5, 35).map(float), st.sampled_from([0.0, 0.5, 1.0, 10.0, 10.25])
)
radius = st.one_of(st.floats(0, 3, allow_nan=False), st.sampled_from([0.0, 0.5, 0.4921, 1.0]))
sign = st.sampled_from([1.0, -1.0])


def points(n_min: int, n_max: int):
    return st.lists(st.tuples(coord, coord), min_size=n_min, max_size=n_max).map(
        lambda xs: np.array(xs, dtype=float).reshape(-1, 2)
    )


def same(a, b) -> None:
    """Equal bit for bit (nan equal to nan, -0.0 not to 0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if a.dtype.kind == "f":
        assert np.array_equal(np.signbit(a), np.signbit(b))
        np.testing.assert_array_equal(a, b)
    else:
        assert np.array_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(A=points(1, 12), data=st.data())
def test_hits_discs_kernel_is_the_numpy_function(A, data):
    B = data.draw(points(len(A), len(A)))
    if data.draw(st.booleans()):
        B[: len(B) // 2] = A[: len(A) // 2]  # segments of no length
    discs = np.array(data.draw(st.lists(st.tuples(coord, coord, radius), min_size=1, max_size=10)), dtype=float)
    same(geom.hits_discs(A, B, discs), geom.hits_discs_numpy(A, B, discs))


@settings(max_examples=300, deadline=None)
@given(
    x1=coord,
    y1=coord,
    r1=radius,
    s1=sign,
    targets=st.lists(st.tuples(coord, coord, radius, sign), min_size=1, max_size=12),
)
def test_tangents_kernel_is_the_numpy_function(x1, y1, r1, s1, targets):
    T = np.array(targets, dtype=float)
    X2, Y2, R2, S2 = T[:, 0].copy(), T[:, 1].copy(), T[:, 2].copy(), T[:, 3].copy()
    got = geom.tangents_from(x1, y1, r1, s1, X2, Y2, R2, S2)
    want = geom.tangents_numpy(x1, y1, r1, s1, X2, Y2, R2, S2)
    for a, b in zip(got, want):
        same(a, b)


def _caster(P: np.ndarray, Q: np.ndarray, C: np.ndarray, R: np.ndarray) -> Caster:
    """A caster over these segments and circles (what :meth:`Caster.cast` reads of it)."""
    c = Caster.__new__(Caster)
    c.P, c.Q, c.C, c.R = P, Q, C, R
    c._box = (np.minimum(P, Q), np.maximum(P, Q))
    c._E = Q - P
    c._R2 = R**2
    return c


@settings(max_examples=300, deadline=None)
@given(P=points(0, 12), data=st.data(), chunk=st.sampled_from([512, 3]))
def test_cast_kernel_is_the_numpy_function(P, data, chunk):
    Q = data.draw(points(len(P), len(P)))
    if len(P) and data.draw(st.booleans()):
        Q[0] = P[0] + (3.0, 0.0)  # an axis-aligned segment: rays along it
    circles = np.array(data.draw(st.lists(st.tuples(coord, coord, radius), max_size=8)), dtype=float).reshape(-1, 3)
    origins = data.draw(points(1, 20))
    if len(circles) and data.draw(st.booleans()):
        origins[0] = circles[0, :2] + (circles[0, 2], 0.0)  # an origin on a circle
    a = np.array(
        data.draw(
            st.lists(
                st.one_of(st.floats(0, 2 * math.pi), st.sampled_from([0.0, math.pi / 2, math.pi])),
                min_size=len(origins),
                max_size=len(origins),
            )
        )
    )
    U = np.stack([np.cos(a), np.sin(a)], axis=1)
    reach = data.draw(
        st.one_of(
            st.none(),
            st.floats(0.1, 20),
            st.lists(st.floats(0, 20), min_size=len(origins), max_size=len(origins)).map(np.array),
        )
    )
    c = _caster(P, Q, circles[:, :2].copy(), circles[:, 2].copy())
    old = rays._CHUNK
    rays._CHUNK = chunk
    try:
        with np.errstate(over="ignore"):  # the reference's sums overflow on near-parallel rays (no hit)
            same(c.cast(origins, U, reach), c.cast_numpy(origins, U, reach))
    finally:
        rays._CHUNK = old


def _boards():
    from game.engine.geometry import board_for
    from game.engine.reference.crowded import crowded_text
    from game.engine.scenario import load_scenario

    out = [board_for(load_scenario(f"maps/{m}")) for m in ("default.yaml", "stress.yaml")]
    return out + [board_for(load_scenario("crowded-0.yaml", text=crowded_text(0)))]


BOARDS: list = []


@settings(max_examples=200, deadline=None)
@given(which=st.integers(0, 2), data=st.data())
def test_heights_at_one_query_is_the_test_per_piece(which, data):
    if not BOARDS:
        BOARDS.extend(_boards())
    board = BOARDS[which]
    # points anywhere, and on the pieces' corners and edges (boundary included)
    corners = [c for t in board.terrain for c in t.polygon]
    pts = data.draw(
        st.lists(
            st.one_of(
                st.tuples(coord, coord),
                st.sampled_from(corners),
                st.tuples(st.sampled_from(corners), st.sampled_from(corners), st.floats(0, 1)).map(
                    lambda t: (t[0][0] + t[2] * (t[1][0] - t[0][0]), t[0][1] + t[2] * (t[1][1] - t[0][1]))
                ),
            ),
            min_size=0,
            max_size=40,
        )
    )
    X = np.array([p[0] for p in pts], dtype=float)
    Y = np.array([p[1] for p in pts], dtype=float)
    same(board.heights_at(X, Y), board.heights_at_by_piece(X, Y))
    assert [board.height_at(x, y) for x, y in pts] == board.heights_at(X, Y).tolist()


_FRESH = """
import os
from game.bots.planner import PlannerBot
from game.bots import view
from game.engine import kernels
from tools.puzzles import load_puzzle, start

g = start(load_puzzle(os.path.join("tests", "puzzles", "hound-race.yaml")))
before = kernels._ENABLED
PlannerBot(250).choose(view(g, 2))
print(before, kernels._ENABLED, kernels._asked)
"""


@pytest.mark.parametrize("jit, after", [(None, "True"), ("0", "False")])
def test_a_planner_that_plays_switches_a_fresh_process_to_the_kernels_at_once(jit, after):
    """A planner asks thousands of the kernels' questions a turn: its first search as a
    player compiles them before its first question (not after WARM of them), unless
    SPEEDHEIM_JIT says 0."""
    env = {k: v for k, v in os.environ.items() if k != "SPEEDHEIM_JIT"}
    if jit is not None:
        env["SPEEDHEIM_JIT"] = jit
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", _FRESH], cwd=root, env=env, capture_output=True, text=True, timeout=300, check=True
    )
    before, enabled, asked = out.stdout.split()
    assert (before, enabled) == ("False", after)
    assert int(asked) < kernels.WARM  # switched by the search, not by counting questions
