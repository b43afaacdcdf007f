"""The utility bot's compiled score (game/bots/kernels.py) gives, bit for bit, the total and
the terms of the numpy reference ``PositionScorer.score_numpy``: on random scorers, and on
every position a real game asks about."""

from __future__ import annotations

import math
import os
from types import SimpleNamespace as NS

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.bots import UtilityBot, load_personality, positions
from game.bots.driver import play_game
from game.bots.positions import PositionScorer, compiled_score
from game.engine import kernels
from game.engine.scenario import load_scenario

pytestmark = pytest.mark.skipif(not kernels.enable(), reason="numba is not installed (the numpy references are in use)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Coordinates near the unit, with round values that make exact ties (a point exactly in
#: contact, at a reach's edge) likely.
coord = st.one_of(st.floats(-2, 14, allow_nan=False), st.integers(-2, 14).map(float), st.sampled_from([0.0, 2.5, 6.0]))
radius = st.sampled_from([0.0, 0.5, 0.4921, 0.7874, 1.0])
weight = st.one_of(st.sampled_from([0.0, 0.3, 1.0, 2.0]), st.floats(0, 5))


def same(a, b) -> None:
    """Equal bit for bit (nan equal to nan, -0.0 not to 0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(np.signbit(a), np.signbit(b))
    np.testing.assert_array_equal(a, b)


def same_score(sc: PositionScorer, P: np.ndarray) -> None:
    want_total, want = sc.score_numpy(P)
    got_total, got = compiled_score(sc, P)
    assert list(got) == list(want)
    for k in want:
        same(got[k], want[k])
    same(got_total, want_total)


class Board:
    """A table with a raised block at x >= 6 (2.5" high) and a step at y >= 9 (0.5")."""

    @staticmethod
    def heights_at(X, Y):
        X, Y = np.asarray(X, float), np.asarray(Y, float)
        return np.where(X >= 6, 2.5, np.where(Y >= 9, 0.5, 0.0))

    def height_at(self, x, y):
        return float(self.heights_at(np.array([x]), np.array([y]))[0])


class FakeRoute:
    """A route whose way left is the distance to a point plus a toll, inf above ``top``."""

    def __init__(self, x, y, toll, top):
        self.x, self.y, self.toll, self.top = x, y, toll, top

    def to_go(self, X, Y, Z, upto=math.inf):
        d = np.hypot(X - self.x, Y - self.y) + self.toll + (0.0 if upto == math.inf else 0.25)
        return np.where(Z > self.top, np.inf, d)


def thing(uid: str):
    return st.builds(lambda x, y, r: NS(id=uid, x=x, y=y, r=r), coord, coord, radius)


def route():
    return st.one_of(st.none(), st.builds(FakeRoute, coord, coord, st.floats(0, 4), st.sampled_from([0.5, 3.0])))


@st.composite
def scorers(draw) -> PositionScorer:
    """A scorer with random tokens, threats, enemies, hunted enemies, friends and routes."""
    u = draw(thing("u"))
    mine = [u] + [draw(thing(f"m{i}")) for i in range(draw(st.integers(0, 4)))]
    enemies = [draw(thing(f"e{i}")) for i in range(draw(st.integers(0, 4)))]
    toks = [draw(thing(f"t{i}")) for i in range(draw(st.integers(0, 4)))]
    sc = PositionScorer.__new__(PositionScorer)
    p = {k: draw(weight) for k in ("contact", "approach", "threat", "carrier_caution", "run_zone", "support", "hunt")}
    p["deny"] = draw(weight)
    rs = NS(
        treasure_denial_range=draw(st.sampled_from([1, 2.0, 3.5])), run_denial_range=draw(st.sampled_from([2, 6.0]))
    )
    sc.s = NS(rs=rs, contact=draw(st.sampled_from([0.0, 0.04, 0.5])), mine=mine, enemies=enemies, free_tokens=toks)
    sc.p, sc.u, sc.board = NS(**p), u, Board()
    sc.move, sc.free_h, sc.reach = draw(st.sampled_from([3.0, 5.0, 6.0])), 1.0, draw(st.sampled_from([0.0, 1.0, 4.0]))
    sc.picker, sc.carrying = draw(st.booleans()), draw(st.booleans())
    sc.tokens, sc.routes, sc.route_upto, sc.beyond = [], {}, {}, {}
    for t in toks:
        pickers = draw(st.lists(st.sampled_from(enemies), max_size=2)) if enemies else []
        denier = draw(st.sampled_from([None] + enemies))
        sc.tokens.append((t, draw(weight), draw(st.sampled_from([1.0, 0.15])), denier, pickers))
        r = draw(route())
        if r is not None:
            sc.routes[t.id], sc.route_upto[t.id] = r, draw(st.sampled_from([math.inf, 3.0]))
        elif draw(st.booleans()):
            sc.beyond[t.id] = draw(st.floats(0, 12))
    how = st.sampled_from(["engage", "shoot"])
    sc.threats = [(e, draw(st.floats(0, 8)), draw(weight), draw(how)) for e in enemies if draw(st.booleans())]
    sc.offense = [(e, draw(st.sampled_from([-1.0, 0.0, 0.5, 3.0]))) for e in enemies if draw(st.booleans())]
    for e, _v in sc.offense:
        r = draw(route())
        if r is not None:
            sc.routes[f"unit:{e.id}"], sc.route_upto[f"unit:{e.id}"] = r, math.inf
    return sc


@pytest.mark.slow  # about 20 s: 400 drawn scorers, each compiled and numpy
@settings(max_examples=400, deadline=None)
@given(sc=scorers(), data=st.data())
def test_the_compiled_score_is_the_numpy_score(sc, data):
    pts = data.draw(st.lists(st.tuples(coord, coord), min_size=1, max_size=25))
    places = [(t.x, t.y) for t, *_ in sc.tokens] + [(e.x, e.y) for e in sc.s.enemies]
    if places and data.draw(st.booleans()):
        # a point exactly in contact with a token or an enemy (edge to edge 0 or ``contact``)
        x, y = data.draw(st.sampled_from(places))
        pts.append((x + sc.u.r + data.draw(radius) + data.draw(st.sampled_from([0.0, sc.s.contact])), y))
    same_score(sc, np.array(pts, dtype=float))


@pytest.mark.parametrize("personality, seed", [("greedy", 0), ("cautious", 3)])
def test_the_compiled_score_is_the_numpy_score_in_a_real_game(monkeypatch, personality, seed):
    """Every position a utility game asks about (its first turns), compiled and in numpy."""
    seen = {"calls": 0, "routes": 0, "threats": 0, "tokens": 0}

    def both(self, P):
        same_score(self, P)
        seen["calls"] += 1
        seen["routes"] += bool(self.routes)
        seen["threats"] += bool(self.threats)
        seen["tokens"] += bool(self.tokens)
        return self.score_numpy(P)

    monkeypatch.setattr(positions.PositionScorer, "score", both)
    sc = load_scenario(os.path.join(ROOT, "maps", "default.yaml"))
    p = load_personality(personality)
    play_game(sc, {1: UtilityBot(p), 2: UtilityBot(p)}, seed=seed, turn_limit=3)
    assert seen["calls"] > 50 and min(seen.values()) > 0, seen
