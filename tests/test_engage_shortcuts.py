"""The work the Engage verdicts leave out or keep must not change an answer: each shortcut
here is compared with the plain way on the questions of a crowded table (30-40 units at
the edge of difficult ground, game/engine/reference/crowded.py), where they matter.

- ``BandSpace.ok_points`` asks the obstacles only of the points near their bounding boxes;
- ``BandSpace._ring_clear`` and ``NavCache._off_difficult`` are kept per circle or start;
- ``nav.rim_spots`` asks where the base may end only of the spots within reach;
- ``Tracer.may_end`` (where a contact spot may end) asks the bases before the ground;
- a circle's departures towards a goal region leave out the stretches to the band's own
  circles before they are made into rows (``links_from(to_circles=False)``);
- ``legal_actions`` does not ask, after the first refused Engage, of the enemies the
  straight-line bound refuses (``Rule.refused``).
"""

from __future__ import annotations

import functools
import re
import math
import os

import numpy as np
import pytest
import shapely

from game.engine.dice import Dice
from game.engine.game import Game
from game.engine.legal import legal_report
from game.engine.movement import nav as nav_mod
from game.engine.movement import search as search_mod
from game.engine.movement import space as space_mod
from game.engine.movement.tracer import forget_kept
from game.engine.reference.crowded import crowded_text
from game.engine.scenario import load_scenario
from tests.factories import left_for_the_collector


def _engage_game(seed: int) -> Game:
    """A crowded random table in its first Engage phase."""
    g = Game(load_scenario(f"crowded-{seed}.yaml", text=crowded_text(seed)), dice=Dice(seed=seed), history=False)
    while g.state.phase != "engage":
        g.apply({"end_phase": {}})
    return g


@pytest.fixture(scope="module")
def crowded() -> Game:
    return _engage_game(4)


def _spaces(g: Game):
    for lay in g.mover.nav.layers.values():
        for space in (lay.space, lay.avoid()):
            yield from space.bands


def test_ok_points_near_the_boxes_only_gives_the_exact_answers(crowded):
    rng = np.random.default_rng(7)
    units = list(crowded.state.units.values())
    asked = refused = 0
    for bs in _spaces(crowded):
        # rings round the bases (as the search asks) and round random points
        circles = [(u.x, u.y, 2 * u.r) for u in units] + [
            (rng.uniform(0, bs.width), rng.uniform(0, bs.height), rng.uniform(0.3, 3.0)) for _ in range(20)
        ]
        for x, y, R in circles:
            _a, X, Y = space_mod._ring_points(x, y, R)
            ok = bs._on_table(X, Y)
            exact = bs.ok_geoms(shapely.points(X, Y), ok.copy()) if ok.any() else ok
            got = bs.ok_points(X, Y)
            assert got.tolist() == exact.tolist()
            asked += len(X)
            refused += int((~got & ok).sum())
    assert refused > 0 and refused < asked  # both answers met, on the table


def test_a_kept_ring_clear_and_start_off_difficult_are_the_worked_out_ones(crowded):
    nav = crowded.mover.nav
    for bs in _spaces(crowded):
        for u in crowded.state.units.values():
            for R in (u.r, 2 * u.r):
                first = bs._ring_clear(u.x, u.y, R)
                assert first == bs._ring_clear_worked_out(u.x, u.y, R) == bs._ring_clear(u.x, u.y, R)
    for u in crowded.state.units.values():
        assert nav._off_difficult(u) == nav_mod.off_difficult(nav.mover.board, u) == nav._off_difficult(u)


@pytest.mark.parametrize("seed", [4, 7])
def test_rim_spots_asks_where_the_base_may_end_only_of_spots_within_reach(monkeypatch, seed):
    """The spots a path that fits could end on lie within the allowance off difficult
    ground in a straight line, and the spots are tried nearest first: asking the others
    (as it did) changed nothing but the time."""
    g = _engage_game(seed)
    real = nav_mod.rim_spots
    asked_in_all = []

    def watched(nav, ctx, goal, allow):
        asked = []
        end_ok = goal.end_ok

        def counted(x, y):
            asked.append(math.hypot(x - ctx.unit.x, y - ctx.unit.y))
            return end_ok(x, y)

        goal.end_ok = counted
        try:
            out = real(nav, ctx, goal, allow)
        finally:
            goal.end_ok = end_ok
        assert all(d <= allow.total(False) + 1e-9 for d in asked)
        assert asked == sorted(asked)
        asked_in_all.extend(asked)
        return out

    monkeypatch.setattr(nav_mod, "rim_spots", watched)
    g.mover.nav.forget()
    legal_report(g)
    assert asked_in_all  # the crowded table asks it


def test_departures_leave_out_the_bands_circles_as_the_filtered_rows_did(monkeypatch):
    crowded = _engage_game(6)  # a table where some are left out
    real = search_mod.links_from
    compared = []

    def both(q, b, source, *args, to_circles=True, **kwargs):
        got = real(q, b, source, *args, to_circles=to_circles, **kwargs)
        if not to_circles:
            every = real(q, b, source, *args, **kwargs)
            n = q.band(b).n_static
            assert got == [r for r in every if not (r[2][0] == "circ" and r[2][1] < n)]
            compared.append(len(every) - len(got))
        return got

    monkeypatch.setattr(search_mod, "links_from", both)
    crowded.mover.nav.forget()
    legal_report(crowded)
    assert compared and max(compared) > 0  # rows to the band's circles were made, and left out


def test_a_units_contact_queries_share_the_bases_worked_out_as_a_fresh_context_has_them(crowded):
    nav = crowded.mover.nav
    state = crowded.state
    nav.forget()
    for u in state.units.values():
        bases = nav._memo.bases(state, u)
        first = nav._context(state, u, "climb", bases)
        again = nav._context(state, u, "climb", bases)
        fresh = search_mod.SearchContext(nav, state, u, "climb")
        assert again.field is first.field and again.blockers is first.blockers and again.discs is first.discs
        assert again.field.units == fresh.field.units
        assert again.blockers == fresh.blockers and again.discs == fresh.discs
    assert nav._contexts
    nav.forget()
    assert not nav._contexts  # a benchmark's cold question works them out again


def test_a_query_searching_several_points_answers_each_as_a_query_of_its_own(crowded):
    """rim_spots searches the rim's spots one after the other in one query, each goal made
    for its search and dropped. Each answer must be the one a fresh query gives for that
    spot: neither a dropped goal's answers (filed by the goal's id, which the next goal may
    be given) nor the tangents to another spot's centre (kept per source for the query)."""
    nav = crowded.mover.nav
    state = crowded.state
    nav.forget()
    compared = ended = 0
    for u in list(state.units.values())[:8]:
        b = nav.band_at(u.x, u.y)
        if b is None:
            continue
        spots = [(u.x + dx, u.y + dy) for dx, dy in ((2.5, 0.0), (0.0, 2.5), (-2.5, 0.0), (0.0, -2.5), (1.8, 1.8))]
        shared = search_mod.SearchContext(nav, state, u, "climb")
        for x, y in spots:
            got = nav._search_result(shared, search_mod.SearchGoal(x, y, 0.0, frozenset([b])), 6.0, True, False)
            fresh_ctx = search_mod.SearchContext(nav, state, u, "climb")
            want = nav._search_result(fresh_ctx, search_mod.SearchGoal(x, y, 0.0, frozenset([b])), 6.0, True, False)
            assert (got is None) == (want is None)
            if got is not None:
                assert got.points == want.points and got.cost == pytest.approx(want.cost, abs=1e-12)
                assert math.dist(got.points[-1], (x, y)) < 1e-6  # it ends at its own spot
                ended += 1
            compared += 1
    assert compared >= 20 and ended >= 5


@pytest.mark.parametrize("seed", [4, 7])
def test_may_end_says_what_end_problem_says(seed):
    """``Tracer.may_end`` refuses a spot a base at its level overlaps before the ground's
    questions (the contact goal's test of every spot it tries): the same answer as
    ``end_problem(...) is None``, on every unit of a crowded table at spots round every
    other base (touching, overlapping a little, a hair apart) and over a grid of the table,
    which covers roofs, walls, impassable and difficult ground."""
    g = _engage_game(seed)
    mover, st = g.mover, g.state
    field = mover.base_field(st)
    units = [u for u in st.units.values() if u.active]
    w, h = float(g.board.width), float(g.board.height)
    grid = [(x, y) for x in np.linspace(0.3, w - 0.3, 23) for y in np.linspace(0.3, h - 0.3, 23)]
    seen = {True: 0, False: 0}
    for u in units[::3]:
        spots = list(grid)
        for o in units:
            if o is u:
                continue
            for k in range(8):
                a = k * math.pi / 4
                for d in (u.r + o.r - 0.05, u.r + o.r, u.r + o.r + 1e-9, u.r + o.r + 0.3):
                    spots.append((o.x + d * math.cos(a), o.y + d * math.sin(a)))
        for x, y in spots:
            x, y = float(x), float(y)
            want = mover.end_problem(st, u, x, y, field) is None
            assert mover.may_end(st, u, x, y, field) is want, (u.id, x, y)
            seen[want] += 1
    assert seen[True] > 100 and seen[False] > 100


def test_may_end_lets_a_base_at_another_level_overlap_as_end_problem_does():
    """Only a base at the spot's level refuses it (M5 counts bases within free_height).
    Legal tables never put two bases' discs over each other at different levels, so the
    state is made by hand: a base on the town hall's 3" roof whose disc hangs over the
    edge, and a spot on the ground beside it that overlaps that disc."""
    g = Game(load_scenario("maps/default.yaml"), dice=Dice(seed=1), history=False)
    st = g.state
    roof, ground = [u for u in st.units.values() if u.base_mm == 25][:2]
    roof.x, roof.y = 12.0 - roof.r / 2, 12.0  # on the roof (x <= 12), half a radius over its edge
    x, y = 12.0 + ground.r + 0.01, 12.0  # on the ground, its base clear of the wall
    assert math.hypot(x - roof.x, y - roof.y) < roof.r + ground.r  # the two discs overlap
    field = g.mover.base_field(st)
    assert g.mover.end_problem(st, ground, x, y, field) is None
    assert g.mover.may_end(st, ground, x, y, field) is True
    roof.x = 12.0 + ground.r * 2 + 0.3  # the same base on the ground beside the spot
    field = g.mover.base_field(st)
    assert g.mover.end_problem(st, ground, x, y, field) is not None
    assert g.mover.may_end(st, ground, x, y, field) is False


def test_a_game_dropped_after_its_engage_questions_leaves_no_cycles():
    """A crowded table's Engage questions leave nothing in reference cycles: the refusals
    kept hold no traceback, and a contact goal's test holds the query's bases, not the
    query (which keeps the goal). And a game dropped after them is freed at once by
    reference counting, its rules context holding it weakly. A cycle waits for the cycle
    collector, whose full passes paused the game, and one a map's freeze catches is never
    freed (docs/decisions/0007)."""
    import weakref

    g = _engage_game(5)
    legal_report(g)  # the map's structures built (a map they displace is garbage)

    def ask_and_let_go(game: Game) -> None:
        game.mover.nav.forget()
        legal_report(game)
        game.mover.nav.forget()  # the kept answers let go: what they held is garbage now
        forget_kept(game.mover)

    left = left_for_the_collector(functools.partial(ask_and_let_go, g))
    assert not left & {"SearchContext", "SearchGoal", "frame", "traceback"}, sorted(left)
    game = weakref.ref(g)
    del g
    assert game() is None


def _first_engage_phase(name: str) -> Game:
    """A bundled map in its first Engage phase (every enemy out of reach)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "maps", name)
    g = Game(load_scenario(path), dice=Dice(seed=0), history=False)
    while g.state.phase != "engage":
        g.apply({"end_phase": {}})
    return g


@pytest.mark.parametrize("table", ["crowded-4", "crowded-9", "default.yaml"])
def test_legal_actions_skips_only_engages_refused_for_certain_and_answers_the_same(monkeypatch, table):
    """After the first refused Engage, ``legal_actions`` leaves out the enemies the rule's
    straight-line bound refuses (``Rule.refused``) instead of asking each: the answers are
    those of asking every one (the refusal told, too: the nearest enemy's, where every
    one is out of reach), and each one left out is refused, by E1, with its distance."""
    from dataclasses import replace

    from game.engine import rules
    from game.engine.legal import side_to_act

    rule = rules.ACTIONS["engage"]
    skipped = []

    def counting(ctx, u, args):
        out = rule.refused(ctx, u, args)
        if out:
            skipped.append((u.id, args["target"]))
        return out

    make = _first_engage_phase if table.endswith(".yaml") else (lambda t: _engage_game(int(t.split("-")[1])))
    g, plain = make(table), make(table)
    units = side_to_act(g)
    monkeypatch.setitem(rules.ACTIONS, "engage", replace(rule, refused=counting))
    fast = [g.legal_actions(uid).to_json() for uid in units]
    monkeypatch.setitem(rules.ACTIONS, "engage", replace(rule, refused=None))
    assert fast == [plain.legal_actions(uid).to_json() for uid in units]
    assert len(skipped) > 2 * len(units)  # most enemies of a crowded table are out of reach
    for uid, target in skipped:
        why = plain.why_illegal({"engage": {"unit": uid, "target": target}})
        assert why is not None and why.rule == "E1" and re.search(r'is \d+\.\d\d" away in a straight line', why.reason)
