"""The shortcuts of the path search (nav.py, search.py): each one may only skip work whose
answer is known, so every test compares the shortcut with the work done in full."""

import math
import pathlib
import random

import pytest
from shapely.geometry import Point

from game.bundled import bundled_map
from game.engine.geometry import Board
from game.engine.movement import Mover
from game.engine.movement.search import SearchContext
from game.engine.movement.search import SearchGoal
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
        b = mover.nav.band_at(*goal)
        if b is not None:
            yield u, SearchGoal(goal[0], goal[1], 0.0, frozenset([b]))


def test_the_limit_never_hides_a_path_within_it(world):
    """Only what could lie on a path within the limit is looked at: a search with a smaller
    limit finds the same cost whenever the full one's path fits that limit."""
    sc, mover = world
    same = 0
    for u, goal in _queries(sc, mover, 60, 1):
        ctx = SearchContext(mover.nav, sc.state, u, "climb")
        wide = mover.nav._search(ctx, goal, 60.0, True, False)
        got = wide.run()
        if got is None:
            continue
        for limit in (got[0] + 1e-6, got[0] + 2.0):
            q = mover.nav._search(ctx, goal, limit, True, False)
            assert q.run() == pytest.approx(got)
            same += 1
        q = mover.nav._search(ctx, goal, got[0] - 0.01, True, False)
        assert q.run() is None
    assert same > 40


def test_a_search_with_checks_that_finds_nothing_answers_the_one_without(world):
    """``_same_run``: a search without checks searches a part of what one with checks does,
    so when that finds nothing within a limit, neither does this (the limits cut paths
    both ways here, so both answers occur)."""
    sc, mover = world
    vain = 0
    for u, goal in _queries(sc, mover, 200, 3):
        ctx = SearchContext(mover.nav, sc.state, u, "climb")
        limit = math.hypot(goal.x - u.x, goal.y - u.y) + 0.3
        if mover.nav._search(ctx, goal, limit, True, False).run() is None:
            vain += 1
            assert mover.nav._search(ctx, goal, limit, False, False).run() is None
            assert mover.nav._search_result(ctx, goal, limit, True, False) is None
            assert mover.nav._search_result(ctx, goal, limit, False, False) is None
    assert vain >= 10


@pytest.mark.parametrize("step", [math.inf, 4.5])
def test_a_goal_on_a_band_no_check_free_transition_joins_is_found_by_no_search_without_checks(step):
    """``Transitions.bands_without_checks``: a search without checks reaches no band it
    leaves out, at any limit (route's searches skip it there). On default.yaml, from
    every fourth unit's place to a point on every band; with ``step`` only the changes of
    level a move of that many inches takes whole (a 6" ladder is none)."""
    sc = load_scenario(bundled_map("default.yaml"))
    mover = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    nav = mover.nav
    rng = random.Random(5)
    spots = {}
    for _ in range(400):
        x, y = rng.uniform(1, sc.width - 1), rng.uniform(1, sc.height - 1)
        spots.setdefault(nav.band_at(x, y), []).append((x, y))
    spots.pop(None, None)
    left_out = joined = 0
    for u in [u for u in sc.state.units.values() if u.active][::4]:
        ctx = SearchContext(nav, sc.state, u, "climb")
        ctx.longest_move = step + 2 * u.r
        free = nav.layer(u.r).trans.bands_without_checks(nav.band_at(u.x, u.y), ctx.ladders, step)
        for band, pts in spots.items():
            x, y = pts[0]
            q = nav._search(ctx, SearchGoal(x, y, 0.0, frozenset([band])), 80.0, False, False)
            found = q.run()
            if band in free:
                joined += 1
            else:
                left_out += 1
                assert found is None, (u.id, band)
    assert left_out >= 3 and joined >= 3


def test_cached_tangents_give_the_answers_of_a_fresh_engine(world):
    """Tangents from circles and nodes are kept between queries: a fresh engine (nothing
    kept) gives the same paths."""
    sc, warm = world
    rng = random.Random(2)
    units = [u for u in sc.state.units.values() if u.active]
    queries = []
    for k in range(40):
        u = units[k % len(units)]
        a, d = rng.uniform(0, 2 * math.pi), rng.uniform(2, 9)
        queries.append((u.id, (min(47, max(1, u.x + d * math.cos(a))), min(47, max(1, u.y + d * math.sin(a))))))
    for uid, to in queries:  # warm every cache
        _plan(warm, sc, uid, to)
    cold = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    for uid, to in queries:
        assert _plan(cold, sc, uid, to) == _plan(warm, sc, uid, to)


def _plan(m, sc, uid, to):
    from game.engine.errors import IllegalAction

    try:
        p = m.plan(sc.state, uid, to=to, run=True)
        return (round(p.cost, 9), [t.kind for t in p.checks])
    except IllegalAction as exc:
        return (exc.rule, exc.reason)


def test_a_rerun_with_checks_is_a_fresh_search_with_checks(world):
    sc, mover = world
    n = 0
    for u, goal in _queries(sc, mover, 60, 3):
        ctx = SearchContext(mover.nav, sc.state, u, "climb")
        q = mover.nav._search(ctx, goal, 12.0, False, False)
        q.run()
        again = q.rerun(True)
        fresh = mover.nav._search(ctx, goal, 12.0, True, False).run()
        assert again == (pytest.approx(fresh) if fresh is not None else None)
        n += fresh is not None
    assert n > 20


def test_reachable_is_the_same_with_everything_cached(world):
    sc, mover = world
    u = next(u for u in sc.state.units.values() if u.active)
    first = mover.reachable(sc.state, u.id)
    again = mover.reachable(sc.state, u.id)
    for a, b in ((first.walk_free, again.walk_free), (first.run_check, again.run_check)):
        assert a.equals_exact(b, 0)
    # Moving another base changes the area where it stood (the cut is not kept).
    o = min(
        (o for o in sc.state.units.values() if o.active and o.id != u.id),
        key=lambda o: math.hypot(o.x - u.x, o.y - u.y),
    )
    old = (o.x, o.y)
    try:
        o.x += 0.5
        moved = mover.reachable(sc.state, u.id)
        spot = Point(old[0] - (u.r + o.r) * 0.99, old[1])
        assert first.run_free.distance(spot) > 0 and moved.run_free.distance(spot) == 0
    finally:
        o.x, o.y = old


def test_adding_checks_to_a_search_gives_the_labels_of_a_fresh_search_with_checks(world):
    """The reachable area's check layer goes on from the labels of the run without checks
    (Search.add_checks): the labels are those of a fresh run with checks, and its roots
    (points, and arrivals on circles no other arrival makes redundant) are the same."""
    from game.engine.movement.reach import _roots

    sc, mover = world
    n = 0
    for u in [u for u in sc.state.units.values() if u.active]:
        ctx = SearchContext(mover.nav, sc.state, u, "climb")
        q = mover.nav._search(ctx, None, 9.0, False, False)
        q.record = True
        q.run()
        if not q.skipped:
            continue
        q.add_checks()
        fresh = mover.nav._search(ctx, None, 9.0, True, False)
        fresh.record = True
        fresh.run()
        assert q.best.keys() == fresh.best.keys()
        for key, (g, k) in fresh.best.items():
            assert q.best[key][0] == pytest.approx(g, abs=1e-9) and q.best[key][1] == k
        mine, theirs = _roots(q), _roots(fresh)
        assert sorted(mine[0]) == sorted(theirs[0]) and sorted(mine[1]) == sorted(theirs[1])
        n += 1
    assert n >= 5


def test_the_reachable_area_of_a_busy_engine_is_that_of_a_fresh_one(world):
    """What the reachable area keeps with the map (shadow edges of fans, where tangents
    leave circles, priced transitions, tangents) changes nothing: a fresh engine gives the
    same regions as one that has answered many queries."""
    sc, warm = world
    units = [u for u in sc.state.units.values() if u.active]
    for u in units:
        warm.reachable(sc.state, u.id)
    cold = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    for u in units[::3]:
        a, b = warm.reachable(sc.state, u.id), cold.reachable(sc.state, u.id)
        for layer in ("walk_free", "walk_check", "run_free", "run_check"):
            assert getattr(a, layer).equals_exact(getattr(b, layer), 0), (u.id, layer)
