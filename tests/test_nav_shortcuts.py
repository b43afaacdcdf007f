"""The exact shortcuts of the path search (nav.py): each one may only skip work whose
answer is known, so every test compares the shortcut with the full search."""

import math
import pathlib
import random

import pytest
from shapely.geometry import Point

from game.bundled import bundled_map
from game.engine.movement import nav
from game.engine.geometry import Board
from game.engine.movement import Mover
from game.engine.scenario import load_scenario

STRESS = pathlib.Path(bundled_map("stress.yaml"))


@pytest.fixture(scope="module")
def world():
    sc = load_scenario(str(STRESS))
    return sc, Mover(sc, Board(sc.width, sc.height, sc.terrain))


def _queries(sc, mover, n, seed):
    rng = random.Random(seed)
    units = [u for u in sc.state.units.values() if u.active]
    for k in range(n):
        u = units[k % len(units)]
        a, d = rng.uniform(0, 2 * math.pi), rng.uniform(2, 10)
        goal = (min(sc.width - 1, max(1, u.x + d * math.cos(a))), min(sc.height - 1, max(1, u.y + d * math.sin(a))))
        g = mover.nav.grid(u.r)
        blocked = g.blocked(sc.state, u, mover.blockers(sc.state, u))
        b = mover.board
        starts = mover.nav._near_cells(g, u.x, u.y, b.height_at(u.x, u.y), set())
        goals = {c for c, _ in mover.nav._near_cells(g, goal[0], goal[1], b.height_at(*goal), blocked)}
        if starts and goals:
            yield g, starts, goals, blocked, goal


def test_free_labels_never_hide_a_path_without_checks(world):
    sc, mover = world
    seen = {True: 0, False: 0}
    for g, starts, goals, blocked, goal in _queries(sc, mover, 150, 1):
        res = g.search(starts, blocked, checks=False, difficult=True, descend="climb", may_climb=True,
                       limit=60.0, goal=goal, goals=goals)
        connected = g.free_connected(starts, goals)
        seen[connected] += 1
        if not connected:
            assert res[3] is None
        elif res[3] is not None:
            lab = g.free_labels()
            assert lab[res[3]] in {lab[c] for c, _ in starts}
    assert seen[True] and seen[False]   # both answers occur on this map


def test_out_of_reach_only_when_the_search_finds_nothing(world):
    sc, mover = world
    skipped = 0
    for g, starts, goals, blocked, goal in _queries(sc, mover, 150, 2):
        pre = g.search(starts, blocked, checks=True, difficult=True, descend="climb", may_climb=True,
                       limit=9.0, goal=goal, goals=goals)
        if pre[3] is None:
            continue
        for limit in (3.0, 5.0, 7.0, 9.0):
            for checks, difficult in ((True, True), (False, True), (False, False), (True, False)):
                if nav._out_of_reach(g, pre, goal, goals, limit):
                    skipped += 1
                    res = g.search(starts, blocked, checks=checks, difficult=difficult, descend="climb",
                                   may_climb=True, limit=limit, goal=goal, goals=goals)
                    assert res[3] is None
        # the goal the feasibility search found is never declared out of its own reach
        assert not nav._out_of_reach(g, pre, goal, goals, pre[0][pre[3]])
    assert skipped > 0


def test_reachable_is_the_same_with_the_exclusion_cached(world):
    sc, mover = world
    u = next(u for u in sc.state.units.values() if u.active)
    first = mover.reachable(sc.state, u.id)
    again = mover.reachable(sc.state, u.id)
    for a, b in ((first.walk_free, again.walk_free), (first.run_check, again.run_check)):
        assert a.equals_exact(b, 0)
    # Moving another base builds a new field: the cached exclusion is not reused.
    o = next(o for o in sc.state.units.values() if o.active and o.id != u.id)
    before = mover.nav._exclusion(mover.base_field(sc.state), u)
    old = (o.x, o.y)
    try:
        o.x += 0.3
        after = mover.nav._exclusion(mover.base_field(sc.state), u)
        assert not after.equals(before)
        assert after.distance(Point(o.x + (u.r + o.r) * 0.99, o.y)) == 0
        assert before.distance(Point(old[0] - (u.r + o.r) * 0.99, old[1])) == 0
    finally:
        o.x, o.y = old
    assert mover.nav._exclusion(mover.base_field(sc.state), u).equals(before)
