"""Routes over several moves (issue 47, item 1): the movement engine's cheapest path to a
place several moves away (``game.engine.movement.route``), how a bot reads it (:mod:`game.bots.routes`),
and the route puzzles (tests/puzzles with ``turns:``) that both bots must solve."""

import math
import os
import re

import pytest

from game.bots.routes import Route, RouteBook
from game.bots.sense import OddsBook
from game.bots.view import view
from game.engine.errors import IllegalAction
from game.engine.movement.route import route
from tools.puzzles import load_puzzle, solve_in_turns, start

PUZZLE_DIR = os.path.join(os.path.dirname(__file__), "puzzles")
ROUTE_PUZZLES = ("ladder-roof.yaml", "mirror-hall-ladder.yaml", "round-the-wall.yaml", "tower-in-steps.yaml")


def _puzzle(name: str):
    return load_puzzle(os.path.join(PUZZLE_DIR, name))


def _ladder_game():
    return start(_puzzle("ladder-roof.yaml"))


# --- the engine's answer ------------------------------------------------------------------------


def test_the_engine_routes_round_the_tower_and_up_its_ladder():
    g = _ladder_game()
    plan = route(g.mover, g.state, "red-runner", (15, 13), checks=False)
    assert 22.5 < plan.cost < 24.0  # round the hedge, 8" up the ladder, onto the roof
    assert [t.kind for t in plan.transitions] == ["ladder"]
    assert not plan.checks
    assert plan.points[-1][2] == 8.0 and plan.points[0][2] == 0.0
    # with checks: climbing the same wall nearer the hedge's end, not at it (M5)
    climb = route(g.mover, g.state, "red-runner", (15, 13))
    assert [t.kind for t in climb.transitions] == ["climb_up"] and climb.cost < plan.cost
    assert 12.0 + g.state.units["red-runner"].r < climb.transitions[0].at[0] < 13.5
    # the same place is refused as one move
    with pytest.raises(IllegalAction):
        g.mover.plan(g.state, "red-runner", to=(15, 13), run=True)


def test_a_route_without_checks_keeps_off_the_climb():
    g = start(_puzzle("round-the-wall.yaml"))
    climb = route(g.mover, g.state, "red-sword", (12, 13.5))
    assert climb.checks and climb.cost < 15  # straight over the 4" wall: up and down
    round_it = route(g.mover, g.state, "red-sword", (12, 13.5), checks=False)
    assert not round_it.checks and round_it.cost > climb.cost
    assert max(p[0] for p in round_it.points) > 20  # round the wall's east end


def test_a_route_to_no_place_a_base_may_end_is_refused():
    g = _ladder_game()
    with pytest.raises(IllegalAction) as why:
        route(g.mover, g.state, "red-runner", (15, 11.5))  # in the hedge
    assert why.value.rule == "M5"


def test_a_route_asked_again_with_another_bound_is_answered_without_a_search(monkeypatch):
    """The cheapest path answers every bound it fits and refuses every bound it does not,
    with that bound in the reason; a bound searched in vain answers every narrower one."""
    from game.engine.movement import route as route_mod

    g = _ladder_game()
    wide = route(g.mover, g.state, "red-runner", (15, 13), checks=False, within=40.0)
    searched = []
    real = route_mod._route
    monkeypatch.setattr(route_mod, "_route", lambda *a, **k: searched.append(a[6]) or real(*a, **k))
    again = route(g.mover, g.state, "red-runner", (15, 13), checks=False, within=wide.cost + 0.5)
    assert again.points == wide.points and again.cost == wide.cost
    unbounded = route(g.mover, g.state, "red-runner", (15, 13), checks=False)
    assert unbounded.points == wide.points
    with pytest.raises(IllegalAction) as why:
        route(g.mover, g.state, "red-runner", (15, 13), checks=False, within=wide.cost - 1.0)
    assert why.value.rule == "M5" and f'within {wide.cost - 1.0:.2f}"' in why.value.reason
    assert searched == []
    # another goal: refused within 10", so within 8" too; within 30" is searched
    for bound in (10.0, 8.0):
        with pytest.raises(IllegalAction) as why:
            route(g.mover, g.state, "red-runner", (15, 14), checks=False, within=bound)
        assert f'within {bound:.2f}"' in why.value.reason
    assert searched == [10.0]
    route(g.mover, g.state, "red-runner", (15, 14), checks=False, within=30.0)
    assert searched == [10.0, 30.0]


def test_view_route_answers_with_only_the_units_base_on_the_table():
    g = _ladder_game()
    v = view(g, 1)
    before = {u.id: (u.x, u.y) for u in g.state.units.values()}
    plan = v.route("red-runner", (15, 13), units=["red-runner"])
    assert not isinstance(plan, IllegalAction) and plan.cost > 22
    assert {u.id: (u.x, u.y) for u in g.state.units.values()} == before
    assert isinstance(v.route("red-runner", (15, 11.5)), IllegalAction)


def _tower_game():
    return start(_puzzle("tower-in-steps.yaml"))


def test_a_route_in_moves_leaves_out_a_change_of_level_no_move_takes_whole():
    """The Captain Runs 6": the cheapest way up the 6" tower is one 6" climb, which no move
    of his takes whole with his base's width (M6); asked for moves of 6", the engine
    finds no path up the walls alone (the hall's 3" wall beside the tower's 3" wall leaves
    no room to stop between them) and says so with the move's inches. A 9" move takes
    the 6" climb (the Ogre's Run)."""
    g = _tower_game()
    cheapest = route(g.mover, g.state, "red-captain", (5, 10.5))
    assert [t.height for t in cheapest.transitions] == [6.0]
    with pytest.raises(IllegalAction) as why:
        route(g.mover, g.state, "red-captain", (5, 10.5), longest_move=6.0)
    assert 'in a move of 6.00"' in why.value.reason
    nine = route(g.mover, g.state, "red-captain", (5, 10.5), longest_move=9.0)
    assert nine.cost == pytest.approx(cheapest.cost)


def test_a_ladder_top_is_a_place_on_its_piece_a_route_may_stop_at():
    from game.engine.movement.route import ladder_tops

    g = _tower_game()
    u = g.state.units["red-captain"]
    tops = ladder_tops(g.mover, u)
    assert len(tops) == 2
    hall = next(p for p in tops if p[0] > 10)  # the hall's ladder, on its east wall
    assert g.board.height_at(*hall) == 3.0 and 12.0 - hall[0] == pytest.approx(u.r + 0.1)
    assert g.mover.end_problem(g.state, u, *hall) is None
    # a move of 6" climbs the 3" hall ladder whole, not the 6" tower ladder
    assert ladder_tops(g.mover, u, 6.0) == [hall] and len(ladder_tops(g.mover, u, 9.0)) == 2


def test_the_book_goes_up_in_steps_by_way_of_a_ladder_when_the_cheapest_way_is_no_way():
    """RouteBook.best: the cheapest route takes turns without end for the Captain (a 6"
    wall); the stepped one goes up the hall by its ladder or a 3" climb, then 3" up the
    tower, and takes a few turns."""
    g = _tower_game()
    v = view(g, 1)
    u = g.state.units["red-captain"]
    book = RouteBook()
    r, turns = book.best(v, u, (5, 10.5), 6.0, 6.0)
    assert r is not None and r.stepped and turns < 8
    assert all(t.height <= 3.0 for t in r.climbs) and len(r.climbs) >= 2
    assert r.cost > route(g.mover, g.state, "red-captain", (5, 10.5)).cost


def test_a_stop_short_of_a_climb_that_wastes_the_next_move_counts_a_turn_more():
    """Moves of 6" and a 3" climb from its foot (with the base's width): 2" short of the
    foot the next move stops there (2" + 3" + the width is more than 6"), 1" short it
    climbs on. to_go counts the inches the lost move wastes; without moves (per_turn 0)
    it does not."""
    import dataclasses

    import numpy as np

    g = _tower_game()
    v = view(g, 1)
    u = g.state.units["red-captain"]
    plan = v.route("red-captain", (5, 10.5), units=["red-captain"], longest_move=9.0, at=(14.9, 9.6))
    if isinstance(plan, IllegalAction):
        pytest.fail(str(plan))
    bare = Route(plan, (5, 10.5), u.r, 1.0)
    moves = dataclasses.replace(bare, per_turn=6.0)
    first = min(t.s for t in bare.climbs)
    foot = first - (u.r + 0.05)
    far, near = bare.point(foot - 2.0), bare.point(foot - 1.0)
    X, Y, Z = np.array([far[0], near[0]]), np.array([far[1], near[1]]), np.zeros(2)
    plain, counted = bare.to_go(X, Y, Z), moves.to_go(X, Y, Z)
    assert plain[0] - plain[1] == pytest.approx(1.0, abs=0.01)
    assert counted[1] == pytest.approx(plain[1], abs=1e-6)  # 1" short: nothing lost
    assert counted[0] - plain[0] == pytest.approx(4.0, abs=0.1)  # 2" short: 6 - 2 lost


def test_a_failed_climb_up_is_no_fall_and_a_failed_jump_is():
    from game.engine.movement.types import Transition

    g = _tower_game()
    up = Transition("climb_up", (0, 0), 0.0, 3.0, 0.0, 3.0, needs_check=True)
    down = Transition("climb_down", (0, 0), 0.0, 3.0, 3.0, 0.0, needs_check=True)
    jump = Transition("jump_down", (0, 0), 0.0, 3.0, 3.0, 0.0, needs_check=True)
    assert not g.mover.failure_falls(up) and g.mover.failure_falls(jump)
    assert g.mover.failure_falls(down) == (g.mover.rs.climb_down_fail != "stop")


# --- the search and the tracer agree ------------------------------------------------------------


def test_every_transition_the_search_may_take_is_a_step_the_tracer_accepts():
    """A transition (a climb, a ladder, a jump) is one straight step between two nodes the
    base fits at; the tracer must accept that step on its own, or the search finds a path
    the tracer refuses and it hides the paths behind it. On the ladder roof the foot of a
    climb up the tower's north wall beside the end of a hedge has the base in the hedge
    where it meets the wall (M5)."""
    g = _ladder_game()
    u = g.state.units["red-runner"]
    tr = g.mover.nav.layer(u.r).trans
    taken = 0
    for descend in ("climb", "jump"):
        for n in range(len(tr.X)):
            for _e, to, _cost, _checks in tr.priced(n, descend, True, True):
                g.mover.trace(u, [(tr.X_l[n], tr.Y_l[n]), (tr.X_l[to], tr.Y_l[to])], descend)  # raises if refused
                taken += 1
    assert taken > 10


def test_a_place_up_the_ladder_is_refused_by_its_cost_not_as_out_of_reach():
    """``plan(to=)`` of a place no move reaches measures the cheapest path there (the
    same as the route's): a climb the tracer refuses does not hide it."""
    g = _ladder_game()
    with pytest.raises(IllegalAction) as why:
        g.mover.plan(g.state, "red-runner", to=(15, 13), run=True)
    assert "no legal path" not in why.value.reason
    cost = float(re.search(r'costs ([0-9.]+)"', why.value.reason).group(1))
    assert cost == pytest.approx(route(g.mover, g.state, "red-runner", (15, 13)).cost, abs=0.01)


def test_a_route_with_checks_is_the_cheapest_path_the_tracer_accepts():
    """The route that may take checks is never dearer than the one without, and the tracer
    gives the same path the same cost."""
    g = _ladder_game()
    u = g.state.units["red-runner"]
    for uid in ("red-runner", "red-scout", "blue-runner"):
        u = g.state.units[uid]
        with_checks = route(g.mover, g.state, uid, (15, 13))
        without = route(g.mover, g.state, uid, (15, 13), checks=False)
        assert with_checks.cost <= without.cost + 1e-9
        again = g.mover.check_path(g.state, u, [p[:2] for p in with_checks.points], "climb")
        assert again.cost == pytest.approx(with_checks.cost, abs=1e-9)


# --- reading a route ------------------------------------------------------------------------------


def _route(g, uid="red-runner", goal=(15, 13), checks=False) -> Route:
    """The route up the ladder (``checks=False``: the climb beside it is cheaper)."""
    u = g.state.units[uid]
    return Route(route(g.mover, g.state, uid, goal, checks=checks), goal, u.r, float(g.rs.free_height))


def test_each_move_stops_as_far_as_it_pays_and_never_part_way_up_the_ladder():
    g = _ladder_game()
    r = _route(g)
    ladder = r.plan.transitions[0]
    stops = r.stops(10.5, 10.5)
    assert len(stops) == 3 and stops[-1] == pytest.approx(r.cum[-1])
    assert r.cost_at(stops[0]) == pytest.approx(10.5, abs=1e-6)  # the first Run, all of it
    assert stops[0] < ladder.s - r.r  # still on the ground
    assert stops[1] > ladder.s + r.r  # the second Run goes up
    for s0, s1 in zip([0.0] + stops, stops):
        assert r.cost_at(s1) - r.cost_at(s0) <= 10.5 + 1e-6
    # Move 6 (Run 9"): the 8" ladder and the base onto the roof never fit one move
    assert r.turns(9.0, 9.0, 10, g.rs) == math.inf
    assert r.turns(10.5, 10.5, 10, g.rs) == 3


def test_to_go_follows_the_route_not_the_straight_line():
    import numpy as np

    g = _ladder_game()
    r = _route(g)
    first = r.stop(0.0, 10.5)
    at_stop = r.point(first)
    # the foot of the near wall (behind the hedge) is nearer the token as the crow flies,
    # but off the route: from there the way is longer than from this move's stop
    foot = (15.0, 10.4)
    X, Y = np.array([at_stop[0], foot[0]]), np.array([at_stop[1], foot[1]])
    left = r.to_go(X, Y, np.zeros(2), upto=first)
    assert left[0] == pytest.approx(r.cost - 10.5, abs=0.6)
    assert left[1] > left[0] + 3
    # a point on the roof joins the route up there; the same spot on the ground (were it
    # a place) would join it only where the route is on the ground
    assert r.to_go(np.array([15.0]), np.array([13.0]), np.array([0.0]))[0] > 10
    on_roof = r.to_go(np.array([15.0]), np.array([13.5]), np.array([8.0]))
    assert on_roof[0] < 1.0


def test_the_rest_of_a_route_after_a_move_along_it():
    g = _ladder_game()
    r = _route(g)
    s = r.stop(0.0, 10.5)
    x, y = r.point(s)
    rest = r.rest(x, y)
    assert rest is not None
    assert rest.cost == pytest.approx(r.cost - r.cost_at(s), abs=1e-6)
    assert [t.kind for t in rest.plan.transitions] == ["ladder"]
    assert r.rest(x + 1.0, y - 1.0) is None


def test_the_book_asks_the_engine_once_per_unit_and_goal():
    g = _ladder_game()
    calls = []

    class Counting:
        """The view, counting the routes asked of the engine."""

        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def route(self, *a, **k):
            calls.append(a)
            return self.inner.route(*a, **k)

    v = Counting(view(g, 1))
    book = RouteBook()
    u = g.state.units["red-runner"]
    route, turns = book.best(v, u, (15, 13), 10.5, 10.5)
    assert turns == 3 and not route.plan.checks
    n = len(calls)
    book.best(v, u, (15, 13), 10.5, 10.5)
    assert len(calls) == n  # kept
    s = route.stop(0.0, 10.5)
    u.x, u.y = route.point(s)  # moved along it
    again, turns2 = book.best(v, u, (15, 13), 10.5, 10.5)
    assert len(calls) == n and turns2 == 2  # the rest of it, no search


def test_a_climb_that_fails_half_the_time_loses_to_a_ladder_round_the_back():
    """A route with checks is taken only when its turns, a failed check costing a turn,
    are fewer than the cheapest route without."""
    g = start(_puzzle("mirror-hall-ladder.yaml"))
    v = view(g, 2)
    u = g.state.units["south-witch"]  # Agility 10: half her climbs fail
    book = RouteBook()
    climb = book.route(v, u, (7.5, 24.5), True)
    assert climb.plan.checks
    route, turns = book.best(v, u, (7.5, 24.5), 4.0, 6.0)
    assert turns < math.inf
    ladder = book.route(v, u, (7.5, 24.5), False)
    t_climb = climb.turns(4.0, 6.0, 10, g.rs)
    t_ladder = ladder.turns(4.0, 6.0, 10, g.rs)
    assert turns == min(t_climb, t_ladder)
    assert (not route.plan.checks) == (t_ladder <= t_climb)


def test_every_odds_book_keeps_a_route_book():
    assert isinstance(OddsBook().routes, RouteBook)


# --- the puzzles -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bot", ["utility", "planner"])
@pytest.mark.parametrize("name", ["ladder-roof.yaml", "round-the-wall.yaml"])
@pytest.mark.parametrize("seed", [1, 2])
def test_both_bots_take_the_route(name, bot, seed):
    pz = _puzzle(name)
    ok, turns, steps, why = solve_in_turns(pz, bot, seed)
    assert ok, f"{name} {bot} seed {seed}: {why}\n" + "\n".join(s.decision.reason for s in steps)
    assert turns <= 3
    assert not any(s.refused for s in steps)
    assert any("run" in s.decision.action or "move" in s.decision.action for s in steps)


@pytest.mark.parametrize("bot", ["utility", "planner"])
@pytest.mark.parametrize("seed", [1, 2])
def test_both_bots_go_up_the_tower_in_steps(bot, seed):
    """tests/puzzles/tower-in-steps.yaml: before the stepped routes neither bot moved the
    Captain towards a token he cannot climb to by its cheapest way, in any seed."""
    ok, turns, steps, why = solve_in_turns(_puzzle("tower-in-steps.yaml"), bot, seed)
    assert ok and turns <= 6, f"{why}\n" + "\n".join(s.decision.reason for s in steps if s.player == 1)
    assert not any(s.refused for s in steps)


@pytest.mark.parametrize("bot", ["utility", pytest.param("planner", marks=pytest.mark.slow)])
def test_the_mirror_hall_is_climbed_by_its_ladder_or_wall(bot):
    """docs/bots.md: the South Captain, Sergeant and Witch stood at the foot of their hall,
    their Run denied, for eight turns. Now one of them is on the roof within four turns."""
    ok, turns, steps, why = solve_in_turns(_puzzle("mirror-hall-ladder.yaml"), bot, 1)
    assert ok and turns <= 4, why
    assert not any(s.refused for s in steps)


def test_standing_still_fails_a_route_puzzle():
    """The several-turn checker is not a rubber stamp."""
    import tools.puzzles as tp
    from game.bots.base import end_decision

    class Idle:
        name = "idle"

        def choose(self, v):
            return end_decision(v, "idle")

    real = tp.make_bot
    try:
        tp.make_bot = lambda name: Idle() if name == "idle" else real(name)
        ok, turns, _steps, why = tp.solve_in_turns(_puzzle("ladder-roof.yaml"), "idle")
    finally:
        tp.make_bot = real
    assert not ok and turns == 6 and "none of the answers" in why


def test_an_enemy_on_a_roof_is_hunted_along_the_route_up():
    """The hunting term goes by the route to an enemy on another level: below the tower
    (behind the hedge) is no nearer to it than the foot of the ladder."""
    import numpy as np

    from game.bots.positions import PositionScorer
    from game.bots.sense import Sense
    from game.bots.utility import UtilityBot

    g = _ladder_game()
    g.state.units["blue-runner"].x, g.state.units["blue-runner"].y = 15.0, 14.0  # up on the roof
    g.state.units["blue-runner"].status = "dazed"
    del g.state.treasure["t-roof"]
    v = view(g, 1)
    bot = UtilityBot()
    sc = PositionScorer(Sense(v, "red", bot.personality, bot.book), g.state.units["red-runner"])
    sc.find_routes()
    assert "unit:blue-runner" in sc.routes
    below, ladder = (15.0, 10.4), (14.0, 16.6)
    _, terms = sc.score(np.array([below, ladder]))
    assert terms["hunt"][1] > terms["hunt"][0]


def test_a_unit_off_its_route_joins_it_by_a_straight_line():
    """A unit that went elsewhere (within a move of its route) is not searched for again:
    the straight line back to the route, checked by the engine, and the rest of it."""
    g = _ladder_game()
    v = view(g, 1)
    book = RouteBook()
    u = g.state.units["red-runner"]
    first = book.route(v, u, (15, 13), checks=False)
    u.x, u.y = 9.0, 9.0  # a step aside, west of the route
    joined = book.route(v, u, (15, 13), checks=False)
    assert joined is not None and joined.points[0] == (9.0, 9.0)
    assert [t.kind for t in joined.plan.transitions] == ["ladder"]
    assert first.cost - 3 < joined.cost < first.cost + 3
    assert joined.cum[-1] == pytest.approx(joined.plan.length)
    # what the engine says from there is no cheaper than the join by much
    fresh = route(g.mover, g.state, "red-runner", (15, 13), checks=False)
    assert fresh.cost <= joined.cost + 1e-6 and joined.cost - fresh.cost < 1.5
    # a unit far from every point of its route (more than a move) is searched for again
    u.x, u.y = 30.0, 30.0
    far = book.route(v, u, (15, 13), checks=False)
    assert far is not None and far.points[0] == (30.0, 30.0)


def test_a_planners_sandbox_searches_no_new_route():
    """Rollouts keep to the routes already found (their rest, or a join): a search per
    unit and token on every sandbox would cost more than the planner's budget allows."""
    from game.bots.routes import UNKNOWN

    g = _ladder_game()
    v = view(g, 1)
    assert not v.thinking
    box = view(v.sandbox(7), 1)
    assert box.thinking
    book = RouteBook()
    u_box = box.state.units["red-runner"]
    assert book.route(box, u_box, (15, 13)) is UNKNOWN
    assert book.best(box, u_box, (15, 13), 10.5, 10.5)[1] != book.best(box, u_box, (15, 13), 10.5, 10.5)[1]  # nan
    kept = book.route(v, g.state.units["red-runner"], (15, 13))  # the real game: searched
    assert book.route(box, u_box, (15, 13)).cost == pytest.approx(kept.cost)


def test_a_route_counts_the_moves_to_within_reach_of_its_end():
    """``Route.turns(short=)``: the moves to come within that many inches of the end along
    the route (a base in contact with a token need not stand on it)."""
    g = _ladder_game()
    r = _route(g)
    assert r.turns(10.5, 10.5, 10, g.rs, short=0.0) == r.turns(10.5, 10.5, 10, g.rs) == 3
    assert r.turns(10.5, 10.5, 10, g.rs, short=r.cost - r.stop(0.0, 10.5)) == 1  # the first stop
    assert r.turns(10.5, 10.5, 10, g.rs, short=r.cost + 1) == 0
    assert r.turns(9.0, 9.0, 10, g.rs, short=1.0) == math.inf  # never up the ladder in one move


def test_the_planners_take_goals_count_the_runs_of_the_route():
    """A goal's value counts the turns it takes (issue 47): the Runner is one Run from
    the roof token as the crow flies, three along the route round the hedge and up the
    ladder; the Scout's Run never gets up the 8" ladder and onto the roof in one move."""
    from game.bots.planner.portfolio import candidates
    from game.bots.sense import Sense, gap
    from game.bots.utility import UtilityBot

    g = _ladder_game()
    base = UtilityBot()
    sense = Sense(view(g, 1), "red", base.personality, base.book)
    priors = {(goal.unit, goal.kind, goal.target): prior for prior, goal in candidates(sense, 9)}
    runner, tok = g.state.units["red-runner"], g.state.treasure["t-roof"]
    assert math.ceil((gap(runner.x, runner.y, runner.r, tok) - sense.contact) / 10.5) == 1
    route = _route(g)
    assert math.ceil(route.turns(10.5, 10.5, 10, g.rs, short=runner.r + tok.r + sense.contact)) == 3
    # 3 - its 3 Runs, and 1 as the enemy's Runner is no more than one Run behind
    assert priors[("red-runner", "take", "t-roof")] == pytest.approx(1.0)
    assert ("red-scout", "take", "t-roof") not in priors
