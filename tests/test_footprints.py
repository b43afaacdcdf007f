"""engine/footprints.py: segments clipped against raised footprints (shared by movement and
line of sight) agree with Shapely's exact intersection, for convex pieces (cut into parts
of at most 4 corners) and non-convex ones (cut into triangles)."""

import math
import random

import pytest

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine.footprints import Footprints
from game.engine.geometry import Board
from game.engine.model import Terrain

OCTAGON = [(10 + 3 * math.cos(a), 10 + 3 * math.sin(a)) for a in np.arange(8) * math.pi / 4]
L_SHAPE = [(20, 2), (30, 2), (30, 5), (24, 5), (24, 12), (20, 12)]
PIECES = [
    Terrain("oct", "block", OCTAGON, 3),
    Terrain("ell", "block", L_SHAPE, 2),
    Terrain("wall", "wall", [(2, 20), (12, 20), (12, 20.5), (2, 20.5)], 0.5),
    Terrain("bog", "difficult", [(0, 0), (5, 0), (5, 5), (0, 5)], 0),
]


def _crossed(fp, A, B, touching=True):
    """Per segment and piece: the length of the union of its stretches."""
    seg, t0, t1, _h, _w, piece = fp.intervals(A, B, touching=touching)
    out = {}
    L = np.hypot(*(B - A).T)
    for s in set(seg.tolist()):
        for p in set(piece[seg == s].tolist()):
            m = (seg == s) & (piece == p)
            iv = sorted(zip(t0[m], t1[m]))
            total, end = 0.0, -1.0
            for a, b in iv:
                a = max(a, end)
                if b > a:
                    total += b - a
                end = max(end, b)
            out[(s, p)] = total * L[s]
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_stretches_match_shapely(seed):
    rng = random.Random(seed)
    board = Board(36, 36, PIECES)
    fp = Footprints(board, 1.0)
    A = np.array([(rng.uniform(0, 36), rng.uniform(0, 36)) for _ in range(60)])
    B = np.array([(rng.uniform(0, 36), rng.uniform(0, 36)) for _ in range(60)])
    got = _crossed(fp, A, B)
    for s in range(len(A)):
        line = shapely.LineString([A[s], B[s]])
        for i, t in enumerate(PIECES):
            if not t.solid:
                assert (s, i) not in got
                continue
            want = line.intersection(board.polygons[i]).length
            assert abs(got.get((s, i), 0.0) - want) < 1e-7, (s, t.id)


def test_along_the_outline_and_along_an_inner_edge():
    """Along the octagon's edge 1-2 a segment only touches it (counted with touching=True,
    the movement code's reading; not with touching=False, line of sight's). The chord from
    corner 0 to corner 3 runs along an inner edge of the octagon's parts: it is inside
    either way, as is a segment down the L's long arm."""
    fp = Footprints(Board(36, 36, PIECES), 1.0)
    A = np.array([OCTAGON[1], OCTAGON[0], (22, 3)])
    B = np.array([OCTAGON[2], OCTAGON[3], (22, 11)])
    assert set(_crossed(fp, A, B, touching=True)) == {(0, 0), (1, 0), (2, 1)}
    assert set(_crossed(fp, A, B, touching=False)) == {(1, 0), (2, 1)}
    assert _crossed(fp, A, B)[(1, 0)] == pytest.approx(2 * 3 * math.sin(3 * math.pi / 8))
