"""Cheapest paths (to:) and the reachable area."""

import math

import pytest
import shapely
from shapely.geometry import Point

from game.engine.errors import IllegalAction
from game.engine.movement.transitions import GAP, WALL
from tests.factories import area, bare_unit, block, build, dice

R25 = 25 / 25.4 / 2


def seg_dist(p, a, b):
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def test_to_routes_around_an_enemy():
    sc, m = build(red=[bare_unit("a", (5, 10), stats={"move": 12})], blue=[bare_unit("e", (9, 10), base_mm=40)])
    plan = m.plan(sc.state, "a", to=(13, 10))
    e = sc.state.units["e"]
    pts = [p[:2] for p in plan.points]
    assert len(pts) > 2 and plan.cost > 8
    for a, b in zip(pts, pts[1:]):
        assert seg_dist((e.x, e.y), a, b) >= R25 + e.r - 1e-6
    assert plan.cost < 8 + 2.5  # close to the shortest way round


def test_to_prefers_a_path_without_checks():
    # Walking round the crate costs more than climbing over it, but needs no check.
    sc, m = build(red=[bare_unit("a", (5, 10), stats={"move": 16})], terrain=[block("crate", 7, 5, 8, 15, 1.5)])
    plan = m.plan(sc.state, "a", to=(10, 10))
    over = m.plan(sc.state, "a", path=[(10, 10)])
    assert over.checks and over.cost == pytest.approx(8)
    assert not plan.checks and plan.cost > over.cost
    # With too little Move to go round, the climb is taken.
    sc, m = build(red=[bare_unit("a", (5, 10), stats={"move": 9})], terrain=[block("crate", 7, 5, 8, 15, 1.5)])
    assert [t.kind for t in m.plan(sc.state, "a", to=(10, 10)).checks] == ["climb_up", "climb_down"]


def test_to_climbs_when_no_other_way_fits():
    sc, m = build(red=[bare_unit("a", (3, 5))], terrain=[block("tower", 5, 2, 10, 8, 2)])
    plan = m.plan(sc.state, "a", to=(6, 5))
    assert [t.kind for t in plan.checks] == ["climb_up"] and plan.cost == pytest.approx(3 + 2, abs=1e-6)


def test_to_uses_a_ladder_instead_of_climbing():
    terrain = [block("tower", 10, 2, 14, 12, 3)]
    ladders = [{"id": "lad", "foot": [9.5, 5], "top": "tower"}]
    sc, m = build(red=[bare_unit("a", (7, 7), stats={"move": 12})], terrain=terrain, ladders=ladders)
    plan = m.plan(sc.state, "a", to=(11, 7))
    assert not plan.checks and "ladder" in [t.kind for t in plan.transitions]


def test_to_out_of_reach_names_the_cost():
    sc, m = build(red=[bare_unit("a", (3, 5))])
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", to=(13, 5))
    assert exc.value.rule == "M1"
    assert 'the cheapest path costs 10.00", more than the 6.00" Move allowance' in exc.value.reason


def test_to_avoids_difficult_ground_when_that_is_cheaper_overall():
    sc, m = build(red=[bare_unit("a", (3, 10), stats={"move": 8})], terrain=[area("mud", 5, 8.5, 7, 11.5, "difficult")])
    plan = m.plan(sc.state, "a", to=(9, 10))
    # straight through costs 6 but the allowance drops to 6; either way it must be legal
    assert plan.cost <= plan.allowance + 1e-9


def test_to_with_no_way_through_is_refused():
    terrain = [area("lake", 0, 6, 24, 7, "impassable")]
    sc, m = build(red=[bare_unit("a", (5, 3))], terrain=terrain, size=(24, 24))
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", to=(5, 9))
    assert exc.value.rule == "M5"


def test_to_path_can_be_applied():
    sc, m = build(red=[bare_unit("a", (5, 10), stats={"move": 12})], blue=[bare_unit("e", (9, 10), base_mm=40)])
    st = sc.state
    plan = m.plan(st, "a", to=(13, 10))
    out = m.apply(st, plan, dice())
    assert out.completed and (st.units["a"].x, st.units["a"].y) == (13, 10)


# --- reachable ---------------------------------------------------------------------------------


def test_reachable_open_ground_is_a_disc_of_the_allowance():
    sc, m = build(red=[bare_unit("a", (18, 18))])
    reach = m.reachable(sc.state, "a")
    assert reach.walk_free.contains(Point(18 + 5.5, 18)) and not reach.walk_free.contains(Point(18 + 6.6, 18))
    assert reach.run_free.contains(Point(18 + 8.5, 18)) and not reach.run_free.contains(Point(18 + 9.6, 18))
    assert reach.walk_free.area == pytest.approx(math.pi * 36, rel=0.12)
    assert reach.walk_check.is_empty


def test_reachable_layers_checks_and_run_denial():
    sc, m = build(
        red=[bare_unit("a", (5, 5))], blue=[bare_unit("e", (30, 30))], terrain=[block("tower", 7, 2, 12, 8, 2)]
    )
    reach = m.reachable(sc.state, "a")
    assert reach.walk_check.contains(Point(8, 5)) and not reach.walk_free.contains(Point(8, 5))
    assert reach.run_denied is None and not reach.run_free.is_empty
    sc.state.units["e"].x, sc.state.units["e"].y = 5, 12
    reach = m.reachable(sc.state, "a")
    assert reach.run_denied is not None and reach.run_denied.rule == "M2"
    assert reach.run_free.is_empty and reach.run_check.is_empty


def test_reachable_points_can_be_planned():
    sc, m = build(
        red=[bare_unit("a", (10, 10))],
        blue=[bare_unit("e", (13, 10), base_mm=40)],
        terrain=[block("tower", 6, 12, 9, 16, 2), area("mud", 12, 5, 15, 7, "difficult")],
    )
    reach = m.reachable(sc.state, "a")
    region = shapely.union(reach.walk_free, reach.walk_check)
    ok = bad = 0
    for x in range(2, 20):
        for y in range(2, 20):
            if region.contains(Point(x, y)):
                try:
                    m.plan(sc.state, "a", to=(x, y))
                    ok += 1
                except IllegalAction:
                    bad += 1
    assert ok > 50 and bad <= ok * 0.05


def test_reachable_area_never_covers_another_base():
    sc, m = build(red=[bare_unit("a", (10, 10)), bare_unit("f", (12, 10))], blue=[bare_unit("e", (8, 12))])
    reach = m.reachable(sc.state, "a")
    region = shapely.union_all([reach.walk_free, reach.walk_check, reach.run_free, reach.run_check])
    f = sc.state.units["f"]
    assert not region.contains(Point(f.x, f.y))
    assert region.distance(Point(f.x, f.y)) >= f.r + R25 - 1e-3
    assert region.contains(Point(14, 10))  # beyond the friend: passed through


def test_to_jump_down_pays_no_vertical_inches():
    sc, m = build(red=[bare_unit("a", (9, 5))], terrain=[block("roof", 7, 2, 12, 8, 4)])
    climb = m.plan(sc.state, "a", to=(5.5, 5), run=True)
    jump = m.plan(sc.state, "a", to=(5.5, 5), descend="jump")
    assert [t.kind for t in climb.checks] == ["climb_down"]
    assert [t.kind for t in jump.checks] == ["jump_down"] and jump.checks[0].disadvantage
    assert jump.cost == pytest.approx(3.5, abs=1e-6) and climb.cost == pytest.approx(7.5, abs=1e-6)


def test_found_paths_recheck_exactly_on_the_stress_map():
    import random

    from game.bundled import bundled_map
    from game.engine.geometry import Board
    from game.engine.movement import Mover
    from game.engine.scenario import load_scenario

    sc = load_scenario(bundled_map("stress.yaml"))
    m = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    st = sc.state
    rng = random.Random(5)
    units = [u for u in st.units.values() if u.active]
    found = 0
    for k in range(60):
        u = units[k % len(units)]
        goal = (u.x + rng.uniform(-6, 6), u.y + rng.uniform(-6, 6))
        try:
            plan = m.plan(st, u.id, to=goal, run=True)
        except IllegalAction:
            continue
        found += 1
        again = m.plan(st, u.id, path=[p[:2] for p in plan.points], run=True)
        assert again.cost == pytest.approx(plan.cost) and again.checks == plan.checks
    assert found >= 15


# --- gap jumps (M8) and climbs over walls (M6) in the search --------------------------------------


def _island(gap):
    """A deck (3" high, with a ladder) and an island roof (3" high) `gap` inches east of it,
    in a lake (impassable) wider than any jump on every other side."""
    east = 13 + gap
    terrain = [
        block("deck", 10, 10, 13, 20, 3),
        area("lake", 13, 6, east + 10, 24, "impassable"),
        block("island", east, 10, east + 6, 20, 3),
    ]
    ladders = [{"id": "lad", "foot": [9.5, 15], "top": "deck"}]
    return build(red=[bare_unit("a", (7, 15), stats={"move": 16})], terrain=terrain, ladders=ladders)


def test_to_finds_a_gap_jump_from_a_roof_reached_by_ladder():
    sc, m = _island(3.0)
    goal = (18, 15)
    plan = m.plan(sc.state, "a", to=goal)
    kinds = [t.kind for t in plan.transitions]
    assert "ladder" in kinds and [t.kind for t in plan.checks] == ["jump_gap"]
    assert [t.rule for t in plan.checks] == ["M8"] and plan.checks[0].gap == pytest.approx(3.0, abs=0.2)
    assert plan.cost <= plan.allowance + 1e-9 and plan.end == goal
    again = m.plan(sc.state, "a", path=[p[:2] for p in plan.points])
    assert again.cost == pytest.approx(plan.cost) and again.checks == plan.checks


def test_to_refuses_a_gap_a_tenth_too_wide():
    sc, m = _island(3.1)
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", to=(18.1, 15))
    assert exc.value.rule == "M5" and "no legal path" in exc.value.reason and "impassable" in exc.value.reason
    # Straight over the gap by hand is refused too: it would climb down into the lake.
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", path=[(9.5, 15), (12, 15), (18.1, 15)])
    assert exc.value.rule == "M5"


def test_reachable_includes_a_roof_reached_only_by_a_jump_in_the_check_layer():
    sc, m = _island(3.0)
    reach = m.reachable(sc.state, "a")
    island = Point(18, 15)
    assert reach.walk_check.contains(island) and not reach.walk_free.contains(island)
    assert reach.walk_free.contains(Point(11.5, 15))  # the deck: by ladder, no check
    sc, m = _island(3.1)
    reach = m.reachable(sc.state, "a")
    assert not shapely.union(reach.walk_check, reach.walk_free).contains(Point(18.1, 15))


def test_to_climbs_over_a_thin_wall_when_there_is_no_way_round():
    # A 2" high, 0.5" thick wall from edge to edge; the straight line crosses it too
    # obliquely (1.39" of its top), so the search must find the crossing.
    wall = block("wall", 0, 12, 24, 12.5, 2, kind="wall")
    sc, m = build(red=[bare_unit("a", (4, 9), stats={"move": 30})], terrain=[wall], size=(24, 24))
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", path=[(20, 15)])
    assert exc.value.rule == "M6" and "not walkable" in exc.value.reason
    plan = m.plan(sc.state, "a", to=(20, 15))
    assert [t.kind for t in plan.checks] == ["climb_up", "climb_down"] and [t.rule for t in plan.checks] == ["M6", "M6"]
    assert plan.cost == pytest.approx(math.hypot(16, 6) + 4, abs=0.6)
    again = m.plan(sc.state, "a", path=[p[:2] for p in plan.points])
    assert again.cost == pytest.approx(plan.cost) and again.checks == plan.checks
    # With descend: jump the way down costs nothing (still a check).
    jump = m.plan(sc.state, "a", to=(20, 15), descend="jump")
    assert [t.kind for t in jump.checks] == ["climb_up", "jump_down"] and jump.cost < plan.cost - 1.5
    # The far side is reachable, only with checks.
    reach = m.reachable(sc.state, "a")
    assert reach.walk_check.contains(Point(12, 16)) and not reach.walk_free.contains(Point(12, 16))
    # A Dazed unit may not climb (note 13-04-25): no way across.
    sc.state.units["a"].status = "dazed"
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", to=(6, 15))
    assert "Dazed" in exc.value.reason
    # Not enough Move for the climb: refused with the cost.
    sc, m = build(red=[bare_unit("a", (4, 9), stats={"move": 12})], terrain=[wall], size=(24, 24))
    with pytest.raises(IllegalAction) as exc:
        m.plan(sc.state, "a", to=(20, 15))
    assert exc.value.rule == "M1" and 'more than the 12.00" Move allowance' in exc.value.reason


def test_to_climbs_a_wall_when_walking_round_is_too_long():
    wall = block("wall", 0, 12, 30, 12.5, 2, kind="wall")
    sc, m = build(red=[bare_unit("a", (8, 10), stats={"move": 10})], terrain=[wall])
    plan = m.plan(sc.state, "a", to=(10, 15))
    assert [t.kind for t in plan.checks] == ["climb_up", "climb_down"] and plan.cost <= 10 + 1e-9
    # With Move enough to walk round, the way with no check is preferred.
    sc, m = build(red=[bare_unit("a", (26, 10), stats={"move": 16})], terrain=[wall])
    assert not m.plan(sc.state, "a", to=(28, 15)).checks


def test_teaching_map_jumper_still_jumps():
    from game.bundled import bundled_map
    from game.engine.geometry import Board
    from game.engine.movement import Mover
    from game.engine.scenario import load_scenario

    sc = load_scenario(bundled_map("teach-climb.yaml"))
    m = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    plan = m.plan(sc.state, "red-jumper", to=(21, 7), run=True)
    assert [t.kind for t in plan.checks] == ["jump_gap"] and plan.cost == pytest.approx(6.0, abs=1e-6)


@pytest.mark.parametrize("mapname", ["stress.yaml", "teach-climb.yaml"])
def test_jump_and_wall_edges_agree_with_the_exact_rules(mapname):
    """Every gap-jump and wall-climb edge of the search is what plan(path=...) says."""
    from game.bundled import bundled_map
    from game.engine.geometry import Board
    from game.engine.movement import Mover
    from game.engine.scenario import load_scenario

    sc = load_scenario(bundled_map(mapname))
    m = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    proto = next(iter(sc.state.units.values()))
    seen = agree = unfit = jumps = 0
    for r, lay in m.nav.layers.items():
        u = proto.__class__(**{**proto.__dict__, "keywords": [], "status": "normal"})
        u.r = r
        tr_ = lay.trans
        for e in range(len(tr_.e_from)):
            if tr_.e_kind[e] not in (GAP, WALL):
                continue
            a, b = int(tr_.e_from[e]), int(tr_.e_to[e])
            seen += 1
            try:
                tr = m.trace(u, [(tr_.X[a], tr_.Y[a]), (tr_.X[b], tr_.Y[b])])
            except IllegalAction as exc:
                # Candidates are kept where the base fits at both ends; the search leaves out
                # an edge the exact rules refuse (M5 beside the crossing).
                assert exc.rule == "M5", str(exc)
                unfit += 1
                continue
            kinds = [t.kind for t in tr.transitions if t.needs_check]
            jumps += kinds == ["jump_gap"]
            if len(kinds) == tr_.e_n[e] and tr.cost == pytest.approx(
                tr_.e_len[e] + tr_.e_dz[e] + tr_.e_dz2[e], abs=1e-6
            ):
                agree += 1
    assert jumps > 20 and agree == seen - unfit and unfit <= 0.05 * seen


def test_the_query_memo_key_holds_every_unit_field_the_movement_engine_reads():
    """NavCache gives a remembered answer again when the units' UNIT_FIELDS are the same,
    so a query must read no other field of any unit: plans, contact searches and
    reachable areas are asked with every unit watched."""
    import dataclasses

    from game.bundled import bundled_map
    from game.engine.geometry import Board
    from game.engine.model import Unit
    from game.engine.movement import Mover
    from game.engine.movement.nav import UNIT_FIELDS
    from game.engine.scenario import load_scenario

    fields = {f.name for f in dataclasses.fields(Unit)}
    read: set[str] = set()

    class Watched(Unit):
        def __getattribute__(self, name):
            if name in fields:
                read.add(name)
            return object.__getattribute__(self, name)

    sc = load_scenario(bundled_map("default.yaml"))
    st = sc.state
    for uid, u in list(st.units.items()):
        w = object.__new__(Watched)
        w.__dict__.update(u.__dict__)
        st.units[uid] = w
    m = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    units = [u for u in st.units.values() if u.on_table]
    a, b = units[0], next(u for u in units if u.warband != units[0].warband)
    nav_reads: set[str] = set()

    def ask(query, *args):
        """The unit fields one query reads (a refusal is an answer too)."""
        read.clear()
        try:
            query(st, *args)
        except IllegalAction:
            pass
        nav_reads.update(read)

    for u in units[:4]:
        walk, run = m.allowance(st, u.id, False), m.allowance(st, u.id, True)  # the Mover's part
        ask(m.nav.reach, u, walk, run, None, "climb")
        for goal in ((u.x + 3, u.y + 2), (u.x - 2, u.y - 3)):
            ask(m.nav.find, u, goal, run, "climb")
    ask(m.nav.find_contact, a, b, m.allowance(st, a.id, engage=True), "climb")
    assert {"x", "y", "status"} <= nav_reads  # the watch sees reads
    assert nav_reads <= set(UNIT_FIELDS), sorted(nav_reads - set(UNIT_FIELDS))


def test_a_larger_base_radius_added_mid_game_answers_as_if_prepared_from_the_start():
    """Issue 22 (4): a base radius larger than any prepared, added after the game began
    (an Event's Neutrals), rebuilds every radius's transitions; what the search keeps
    from the old ones (the nodes kept off difficult ground, the fixed targets, the links,
    the tangents from nodes) must be rebuilt with them: the same queries then answer as
    on a map prepared with every radius from the start, and never raise."""
    import dataclasses

    from game.bundled import bundled_map
    from game.engine.geometry import Board
    from game.engine.movement import Mover
    from game.engine.scenario import load_scenario

    def setup(with_big: bool):
        sc = load_scenario(bundled_map("default.yaml"))
        st = sc.state
        u = st.units["red-sergeant"]
        # beside the rubble, with too little Move to cross it (M12): the search keeps off it
        st.units["red-sergeant"] = dataclasses.replace(u, x=14.0, y=14.6, stats=dict(u.stats, move=7))
        big = dataclasses.replace(u, id="big", name="big", r=2.0, base_mm=101.6, x=19.0, y=22.0)
        if with_big:
            st.units["big"] = big  # prepared with the map
        return sc, st, big

    goals = [(14, 20.5), (17, 20), (16.8, 19.6), (11, 17)]

    def answers(m, st):
        out = []
        for g in goals:
            try:
                p = m.plan(st, "red-sergeant", to=g)
                out.append((round(p.cost, 6), [tuple(round(c, 6) for c in q) for q in p.points], p.difficult))
            except IllegalAction as exc:
                out.append((exc.rule, exc.reason))
        return out

    sc, st, big = setup(False)
    m = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    first = answers(m, st)
    assert any(isinstance(a[0], float) and not a[2] and len(a[1]) > 2 for a in first)  # a way round the rubble
    st.units["big"] = big  # a larger base arrives mid-game
    assert big.r > max(m.nav.layers)
    m.reachable(st, "big")  # the window asks where it may go
    assert round(big.r, 6) in m.nav.layers
    later = answers(m, st)
    sc2, st2, _ = setup(True)
    fresh = answers(Mover(sc2, Board(sc2.width, sc2.height, sc2.terrain)), st2)
    assert later == fresh
    assert later == first


def test_every_query_of_the_map_structures_holds_the_maps_lock():
    """The structures kept for a map serve every game on it, and the window runs the bot's
    game in a thread of its own (nav._locked): every public query of NavCache that
    searches or builds holds the map's lock while it does."""
    import inspect

    from game.engine.movement import nav

    queries = [
        name
        for name, f in inspect.getmembers(nav.NavCache, inspect.isfunction)
        if not name.startswith("_") and name not in ("band_at", "forget")
    ]
    assert {"find", "find_contact", "contact_verdict", "reach", "layer", "prepare"} <= set(queries)
    unlocked = [name for name in queries if getattr(getattr(nav.NavCache, name), "__wrapped__", None) is None]
    assert not unlocked, unlocked


def test_a_search_towards_a_goal_works_out_departures_only_where_it_goes_on(monkeypatch):
    """An arrival on a base's circle waits in the heap: its departures (the tangents from
    that circle, the costly part of a search) are worked out only if the A* comes back to
    it. Bases scattered round the way to the target are arrived at, most never left."""
    from game.engine.game import Game
    from game.engine.dice import Dice
    from game.engine.movement import search

    blue = [bare_unit("b", (6, 12))] + [
        bare_unit(f"x{i}", (x, y))
        for i, (x, y) in enumerate([(6, 8), (3, 9), (9, 9), (2, 4), (10, 4), (4, 15), (8, 15), (12, 12)])
    ]
    sc, m = build(red=[bare_unit("a", (6, 4), stats={"move": 8})], blue=blue)
    g = Game(sc, dice=Dice(seed=0))
    arrived, left = set(), set()

    def arrive(self, b, circ, s, *args, _f=search.Search._arrive):
        arrived.add((id(self), b, circ, s))
        return _f(self, b, circ, s, *args)

    def departures(self, b, circ, s, _f=search.Search._departures):
        left.add((id(self), b, circ, s))
        return _f(self, b, circ, s)

    monkeypatch.setattr(search.Search, "_arrive", arrive)
    monkeypatch.setattr(search.Search, "_departures", departures)
    st = g.state
    tr = g.mover.nav.find_contact(st, st.units["a"], st.units["b"], g.mover.allowance(st, "a", engage=True), "climb")
    assert tr.cost <= 8 and math.hypot(tr.points[-1][0] - 6, tr.points[-1][1] - 12) <= 2.01
    assert left < arrived and len(left) <= len(arrived) // 2, (len(left), len(arrived))
