"""Routes over several moves: how the bots go for a place they reach in later turns.

A goal (a token, a unit to reach) that lies beyond this turn's move is still a goal. The
movement engine gives the cheapest legal path to it over any number of moves
(``View.route``, :func:`game.engine.movement.route.route`: round walls, up ladders, climbing, jumping down); a
:class:`Route` reads it:

* :meth:`Route.stops`: where the unit stops at the end of each move along it, each move
  going as far as its allowance pays for and never stopping part-way up a ladder or a
  climb (M6, M10): so how many turns the goal takes;
* :meth:`Route.samples`: points along it at each level with the inches still to go, from
  which :meth:`Route.to_go` estimates what the rest costs from any point nearby (a point
  on another level than the route at that place is off the route: the foot of a wall
  under a roof token is not on the way up);
* the stop of this turn is the place the bot plans a move to (``View.plan_move``: the
  engine says whether it is legal, and finds the same path, the route's first stretch).

A route that needs checks (a climb) is compared with the cheapest one without (a ladder
round the back) by the turns each takes, a failed check costing a turn.

:class:`RouteBook` keeps the routes of a game: a route is asked of the engine with only the
unit's own base on the table (the others will have moved by the time it gets there); a
unit that moved along it finds the rest of it again without a search, and one that went
elsewhere, within a move of it, joins it by a straight line (:meth:`Route.join`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np

from game.engine.dice import DISADVANTAGE, NORMAL
from game.engine.errors import IllegalAction
from game.engine.movement.route import STAND_HAIR
from game.engine.movement.search import level_step
from game.engine.movement.types import point_at
from game.engine.rules.wounds import check_chance

#: Spacing (inches) of a route's samples for :meth:`Route.to_go`.
SAMPLE = 1.0
#: How far (inches) from a route's waypoints the unit may stand and still be on it.
ON_ROUTE = 0.05
#: Most routes a book keeps (per game; the oldest go first).
KEEP = 512
#: Most moves looked ahead along a route.
MAX_MOVES = 12
#: A planner's goal is pursued along a route of at most this many moves.
GOAL_MOVES = 6
#: A route that goes up in steps (RouteBook.best) may be this many times the bound of the
#: cheapest way's search (a bot setting: the stepped search is the dearer one).
STEPPED_WITHIN = 1.5
#: :meth:`RouteBook.route`'s answer on a sandbox when it has no route kept (no search made).
UNKNOWN = object()


@dataclass
class Route:
    """The engine's cheapest path to ``goal`` (a :class:`MovePlan` without an allowance)."""

    plan: object
    goal: tuple[float, float]
    r: float  # the unit's base radius
    free_h: float  # M4's free height: a step this high is no change of level
    check_inches: tuple = ()  # per transition: inches a check's expected failures cost (RouteBook.best)
    #: Does it go a dearer way than the cheapest, whose changes of level no move takes whole
    #: (RouteBook.best)? Then the straight line is no measure of the way.
    stepped: bool = False
    #: The inches of each later move (RouteBook.best), for the inches lost at the foot of a
    #: change of level (:meth:`_lost`); 0: none counted.
    per_turn: float = 0.0

    @property
    def cost(self) -> float:
        return float(self.plan.cost)

    @property
    def points(self) -> list[tuple[float, float]]:
        return [(p[0], p[1]) for p in self.plan.points]

    @property
    def cum(self) -> list[float]:
        return list(self.plan.cum)

    @property
    def climbs(self) -> list:
        """The transitions where the level changes (where a move may not stop)."""
        return [t for t in self.plan.transitions if t.kind != "free"]

    def cost_at(self, s: float) -> float:
        """What the route costs from its start to arc length ``s`` (horizontal inches and
        the vertical inches of the transitions passed)."""
        return s + sum(t.cost for t in self.plan.transitions if t.s < s - 1e-9)

    def _blocked(self, s: float) -> bool:
        """Would a stop at ``s`` straddle a change of level (part-way up a climb or a
        ladder, or on a wall's top)?"""
        hair = self.r + STAND_HAIR
        return any(t.s - hair < s < t.s + hair for t in self.climbs)

    def stop(self, s0: float, budget: float) -> float:
        """The furthest arc length a move from ``s0`` with ``budget`` inches reaches (the
        route's end at most), not part-way up a change of level; ``s0`` if none."""
        length = float(self.cum[-1]) if self.cum else 0.0
        base = self.cost_at(s0)
        lo, hi = s0, length
        if self.cost_at(hi) - base > budget + 1e-9:
            # the largest s with cost_at(s) - base <= budget: cost_at is increasing
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                if self.cost_at(mid) - base <= budget + 1e-9:
                    lo = mid
                else:
                    hi = mid
            s = lo
        else:
            s = hi
        while s > s0 + 1e-6 and self._blocked(s):
            s = max(s0, s - 0.25)
        return s

    def stops(self, first: float, per_turn: float) -> list[float]:
        """The arc lengths where the unit stops after each move: ``first`` inches this
        turn, ``per_turn`` each later turn; empty past the first when it cannot go on."""
        length = float(self.cum[-1]) if self.cum else 0.0
        out, s = [], 0.0
        for k in range(MAX_MOVES):
            nxt = self.stop(s, first if k == 0 else per_turn)
            if nxt <= s + 1e-6 and k > 0:
                break
            out.append(nxt)
            s = nxt
            if s >= length - 1e-6:
                break
        return out

    def turns(self, first: float, per_turn: float, agility: float, rs, short: float = 0.0) -> float:
        """The moves it takes to get to the end, or within ``short`` inches of it along the
        route (this one counted), a failed check on the way costing one more (its
        expected retries); inf when a move cannot get past some stretch."""
        length = float(self.cum[-1]) if self.cum else 0.0
        need = length - max(0.0, short)
        if need <= 1e-9:
            return 0.0
        st = self.stops(first, per_turn)
        moves = next((k + 1 for k, s in enumerate(st) if s >= need - 1e-6), None)
        if moves is None:
            return math.inf
        extra = 0.0
        for t in self.plan.transitions:
            if t.needs_check and t.s < need:
                p = float(check_chance(rs, agility, DISADVANTAGE if t.disadvantage else NORMAL))
                extra += math.inf if p <= 0 else (1 - p) / p
        return moves + extra

    def point(self, s: float) -> tuple[float, float]:
        return point_at(self.points, self.cum, s)

    def samples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Points along the route every :data:`SAMPLE` inches (and at every waypoint and
        either side of each change of level): x, y, level, the cost still to go and the
        arc length."""
        cum = self.cum
        length = float(cum[-1]) if cum else 0.0
        ss = set(np.arange(0.0, length, SAMPLE).tolist()) | set(cum) | {length}
        for t in self.climbs:
            ss |= {max(0.0, t.s - 1e-3), min(length, t.s + 1e-3)}
        S = np.array(sorted(ss))
        xy = np.array([self.point(s) for s in S])
        pen = self.check_inches or (0.0,) * len(self.plan.transitions)
        total = self.cost + sum(pen)
        rem = np.array(
            [total - self.cost_at(s) - sum(c for t, c in zip(self.plan.transitions, pen) if t.s < s) for s in S]
        )
        z0 = self.plan.points[0][2] if self.plan.points else 0.0
        Z = np.full(len(S), float(z0))
        for t in sorted(self.plan.transitions, key=lambda t: t.s):
            Z[S > t.s] = float(t.z_to)
        return xy[:, 0], xy[:, 1], Z, rem, S

    @functools.cached_property
    def _ahead(self) -> tuple[np.ndarray, np.ndarray]:
        """Per sample: the cost to the foot of the next change of level (where a move stops
        short of it; less than 0 from a sample between the foot and the edge) and what a
        move from that foot needs to take it whole (no move ends part-way up, M6, M10);
        inf where none is ahead. Worked out when first asked: most routes a rollout makes
        (the rest of a kept one) are never scored along."""
        S = self._samples[4]
        foot, need = np.full(len(S), np.inf), np.full(len(S), np.inf)
        hair = self.r + STAND_HAIR
        climbs = sorted(self.climbs, key=lambda t: t.s)
        for k, s in enumerate(S.tolist()):
            t = next((t for t in climbs if t.s > s + 1e-9), None)
            if t is not None:
                foot[k] = self.cost_at(t.s - hair) - self.cost_at(s)
                need[k] = t.cost + 2 * hair
        return foot, need

    def _lost(self, d: np.ndarray, k: slice | np.ndarray = slice(None)) -> np.ndarray:
        """The inches of a move lost at the foot of the next change of level, for a unit
        ``d`` inches (points x samples) from samples ``k`` at the start of its move: the
        move that gets to the foot stops there when it has too little left to take the
        change of level whole. A goal's cost counts the turns it takes: 2" short of a 3"
        climb that a 6" move takes from its foot, a unit is a turn further than 1" short
        (each move :attr:`per_turn` inches; none counted when that is 0)."""
        if self.per_turn <= 0:
            return np.zeros_like(d)
        foot, need = self._ahead
        foot, need = foot[k], need[k]
        ahead = np.isfinite(foot)
        part = np.mod(d + np.where(ahead, foot, 0.0), self.per_turn)
        return np.where(ahead & (part > 1e-9) & (part + need > self.per_turn + 1e-9), self.per_turn - part, 0.0)

    def to_go(self, X: np.ndarray, Y: np.ndarray, Z: np.ndarray, upto: float = math.inf) -> np.ndarray:
        """Estimated inches from each point (x, y at level z) to the route's end: to the
        nearest sample at the same level (M4's free height) and on along the route; inf
        where no sample is at that level. ``upto``: only the samples up to that arc length
        (as far as this move goes): a point this move reaches joins the route there, not
        further on across a wall the route goes round."""
        sx, sy, sz, rem, S = self._samples
        keep = S <= upto + SAMPLE if upto < math.inf else slice(None)
        sx, sy, sz, rem = sx[keep], sy[keep], sz[keep], rem[keep]
        same = np.abs(Z[:, None] - sz[None, :]) <= self.free_h + 1e-9
        d = np.hypot(X[:, None] - sx[None, :], Y[:, None] - sy[None, :])
        d = d + rem[None, :] + self._lost(d, keep)
        d = np.where(same, d, np.inf)
        return d.min(axis=1) if len(sx) else np.full(len(X), np.inf)

    def __post_init__(self):
        self._samples = self.samples()

    def with_checks(self, agility: float, per_turn: float, rs) -> "Route":
        """This route with each check's expected failures priced in inches (a failed
        check costs a turn: ``per_turn`` inches, (1 - p) / p times on average)."""
        pen = []
        for t in self.plan.transitions:
            if not t.needs_check:
                pen.append(0.0)
                continue
            p = float(check_chance(rs, agility, DISADVANTAGE if t.disadvantage else NORMAL))
            pen.append(per_turn * (1 - p) / p if p > 0 else 1e6)
        return replace(self, check_inches=tuple(pen))

    def checks_before(self, s: float) -> int:
        return sum(1 for t in self.plan.transitions if t.needs_check and t.s < s)

    def rest(self, x: float, y: float) -> "Route | None":
        """The rest of the route from (x, y) when that point lies on it (the unit moved
        along it), else None."""
        pts, cum = self.points, self.cum
        for i in range(1, len(pts)):
            (ax, ay), (bx, by) = pts[i - 1], pts[i]
            dx, dy = bx - ax, by - ay
            seg = dx * dx + dy * dy
            f = 0.0 if seg <= 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / seg))
            px, py = ax + f * dx, ay + f * dy
            if math.hypot(x - px, y - py) <= ON_ROUTE:
                return self._from(i, (px, py), cum[i - 1] + f * (cum[i] - cum[i - 1]))
        return None

    def at(self, s: float) -> "Route":
        """The rest of the route from arc length ``s``."""
        cum = self.cum
        i = next((k for k in range(1, len(cum)) if cum[k] >= s - 1e-12), len(cum) - 1)
        return self._from(i, self.point(s), s)

    def join(self, view, u, near: float) -> "Route | None":
        """The route from where ``u`` stands, off this route (it went elsewhere) but within
        ``near`` inches of a point of it on its own level: the straight line there (asked
        of the engine: legal, no check, no change of level) and the rest of this route
        from there, the join that costs least. Not the cheapest route for sure, but never
        one the unit cannot walk; None when there is no such join."""
        sx, sy, sz, rem, S = self._samples
        z = view.board.height_at(u.x, u.y)
        d = np.hypot(sx - u.x, sy - u.y)
        ok = (np.abs(sz - z) <= self.free_h + 1e-9) & (d <= near)
        if not ok.any():
            return None
        k = int(np.argmin(np.where(ok, d + rem, np.inf)))
        leg = view.route(u.id, (float(sx[k]), float(sy[k])), checks=False, units=[u.id], within=float(d[k]) + 0.05)
        if isinstance(leg, IllegalAction) or leg.transitions:
            return None
        tail = self.at(float(S[k]))
        return replace(tail, plan=_joined(leg, tail.plan))

    def _from(self, i: int, p: tuple[float, float], s: float) -> "Route":
        plan = self.plan
        z = float(plan.points[0][2])
        for t in sorted(plan.transitions, key=lambda t: t.s):
            if t.s < s - 1e-9:
                z = float(t.z_to)
        pts3 = ((p[0], p[1], z),) + tuple(plan.points[i:])
        cum = (0.0,) + tuple(c - s for c in plan.cum[i:])
        trans = tuple(replace(t, s=t.s - s) for t in plan.transitions if t.s >= s - 1e-9)
        cost = self.cost - self.cost_at(s)
        new = replace(plan, points=pts3, cum=cum, transitions=trans, cost=cost, allowance=cost, length=float(cum[-1]))
        pen = tuple(c for t, c in zip(plan.transitions, self.check_inches) if t.s >= s - 1e-9)
        return replace(self, plan=new, check_inches=pen)


def _via_ladder(view, u, goal: tuple[float, float], checks: bool, within: float | None, longest_move: float):
    """The cheapest route to ``goal`` by way of a spot atop a ladder (``view.ladder_tops``),
    each leg taking every change of level whole in a move of ``longest_move`` inches: the
    engine's search finds the cheapest path, and where its changes of level come too close
    to stop between (a 3" hall's edge beside the 6" tower on it) this one goes up by the
    hall's ladder first. None when there is none."""
    best = None
    for spot in view.ladder_tops(u.id, longest_move):
        if within is not None and math.dist((u.x, u.y), spot) + math.dist(spot, goal) > within:
            continue  # even straight there and on, too far
        first = view.route(u.id, spot, checks=checks, units=[u.id], within=within, longest_move=longest_move)
        if isinstance(first, IllegalAction):
            continue
        left = None if within is None else within - float(first.cost)
        if left is not None and left <= 0:
            continue
        rest = view.route(u.id, goal, checks=checks, units=[u.id], within=left, longest_move=longest_move, at=spot)
        if isinstance(rest, IllegalAction):
            continue
        plan = _joined(first, rest)
        if (within is None or plan.cost <= within + 1e-9) and (best is None or plan.cost < best.cost):
            best = plan
    return best


def _joined(first, rest):
    """The MovePlan of ``first`` then ``rest`` (which starts where ``first`` ends)."""
    shift = float(first.length)
    return replace(
        rest,
        points=tuple(first.points) + tuple(rest.points[1:]),
        cum=tuple(first.cum) + tuple(shift + c for c in rest.cum[1:]),
        transitions=tuple(first.transitions) + tuple(replace(t, s=t.s + shift) for t in rest.transitions),
        cost=float(first.cost) + float(rest.cost),
        allowance=float(first.cost) + float(rest.cost),
        length=shift + float(rest.length),
    )


class RouteBook:
    """The routes of one game, by unit and goal (see the module's docstring)."""

    def __init__(self):
        self._board = None
        self._routes: dict[tuple, Route | None] = {}

    def route(
        self,
        view,
        u,
        goal: tuple[float, float],
        checks: bool = True,
        within: float | None = None,
        longest_move: float | None = None,
        per_turn: float = 0.0,
    ):
        """The engine's cheapest route for ``u`` to ``goal``, of at most ``within`` inches,
        each change of level taken whole by a move of ``longest_move`` inches where given
        (None: there is none), its cost counted in moves of ``per_turn`` inches
        (:meth:`Route._lost`). On a planner's sandbox (``view.thinking``) no new search is
        made: a route kept (its rest, or a join to it) or :data:`UNKNOWN`."""
        if view.board is not self._board:
            self._board = view.board
            self._routes.clear()
        key = (
            u.id,
            u.r,
            u.status,
            round(goal[0], 3),
            round(goal[1], 3),
            checks,
            None if within is None else round(within, 3),
            None if longest_move is None else round(longest_move, 3),
            round(per_turn, 3),
        )
        here = key + (round(u.x, 4), round(u.y, 4))
        if here in self._routes:
            return self._routes[here]
        old = self._routes.get(key)
        found = old.rest(u.x, u.y) if old is not None else None
        if found is None and old is not None:
            found = old.join(view, u, float(u.stats.get("move", 0)))
        if found is None and view.thinking:
            return UNKNOWN
        if found is None:
            plan = view.route(u.id, goal, checks=checks, units=[u.id], within=within, longest_move=longest_move)
            if isinstance(plan, IllegalAction):
                plan = _via_ladder(view, u, goal, checks, within, longest_move) if longest_move is not None else None
            if plan is not None:
                free_h = float(view.rules.free_height)
                found = Route(plan, goal, u.r, free_h, stepped=longest_move is not None, per_turn=per_turn)
        if len(self._routes) >= KEEP:
            for k in list(self._routes)[: KEEP // 4]:
                del self._routes[k]
        self._routes[key] = found if found is not None else old
        self._routes[here] = found
        return found

    def best(
        self, view, u, goal: tuple[float, float], first: float, per_turn: float, within: float | None = None
    ) -> tuple[Route | None, float]:
        """The route for ``u`` to ``goal`` (of at most ``within`` inches) that takes the
        fewest turns (a failed check costs a turn): the cheapest, or the cheapest without
        checks; and its turns (nan: not known, on a sandbox with no route kept). When
        neither can be walked (a change of level no move of ``per_turn`` inches takes
        whole: a 6" wall for a unit that Runs 6"), the same asked of the routes whose every
        change of level such a move takes, up to :data:`STEPPED_WITHIN` times as long (up a
        3" hall by its ladder, then 3" up the tower on it); the first answer when there is
        none. A goal higher than one such move climbs is asked the stepped way first."""
        longer = None if within is None else STEPPED_WITHIN * within
        board = view.board
        high = board.height_at(*goal) - board.height_at(u.x, u.y) > level_step(per_turn, u.r) + 1e-9
        if high:
            # higher than one move climbs whole: the stepped way first (the cheapest is it
            # when it can be walked); without one, the cheapest way says how far it is
            stepped = self._best(view, u, goal, first, per_turn, longer, per_turn)
            if stepped[0] is not None or stepped[1] != stepped[1]:
                return stepped
        route, turns = self._best(view, u, goal, first, per_turn, within, None)
        if route is not None and turns == math.inf and not high:
            stepped = self._best(view, u, goal, first, per_turn, longer, per_turn)
            if stepped[0] is not None:
                return stepped
        return route, turns

    def _best(self, view, u, goal, first: float, per_turn: float, within, longest_move):
        rs = view.rules
        agility = float(u.stats.get("agility", 0))
        r1 = self.route(view, u, goal, True, within, longest_move, per_turn)
        if r1 is UNKNOWN:
            return None, math.nan
        if r1 is None:
            return None, math.inf
        t1 = r1.turns(first, per_turn, agility, rs)
        if not any(t.needs_check for t in r1.plan.transitions):
            return r1, t1
        r2 = self.route(view, u, goal, False, within, longest_move, per_turn)
        r2 = None if r2 is UNKNOWN else r2
        t2 = r2.turns(first, per_turn, agility, rs) if r2 is not None else math.inf
        if r2 is not None and (t2 <= t1 or (t2 < math.inf and t1 == math.inf)):
            return r2, t2
        return r1.with_checks(agility, per_turn, rs), t1


def route_move(sense, u, goal: tuple[float, float], short: float, why: str, min_step: float = 0.25):
    """The move (or Run) of ``u`` along its route to ``goal`` as far as this turn's
    allowance reaches, stopping ``short`` inches before the route's end (a base in
    contact with a token, or beside a unit): a BotDecision, or None when there is no route
    or no legal stop on it that gets the unit on by ``min_step`` inches. It Runs when a
    Run gets further along by more than half an inch (else it walks, and keeps its shot)."""
    from game.bots.base import BotDecision

    view = sense.view
    reach = view.reachable(u.id)
    if reach is None:
        return None
    walk, run = float(reach.walk_allowance), reach.run_allowance
    later = float(run) if run else walk
    if u.carrying:
        later = float(u.stats.get("move", 0)) or walk
    later = max(later, walk)
    route, turns = sense.book.routes.best(view, u, goal, float(run or walk), later, GOAL_MOVES * later)
    if route is None or not turns < math.inf:
        return None
    length = float(route.cum[-1]) if route.cum else 0.0
    end = max(0.0, length - short)
    options = []
    for budget, kind in ((walk, "move"), (run, "run")):
        if budget is None or budget <= 0:
            continue
        options.append((min(route.stop(0.0, budget), end), kind))
    if not options:
        return None
    s, kind = options[0]
    if len(options) > 1 and options[1][0] > s + 0.5:
        s, kind = options[1]
    for back in (0.0, 0.5, 1.0, 2.0, 3.5):
        t = s - back
        if t < min_step:
            break
        if route._blocked(t):
            continue
        x, y = route.point(t)
        action = {kind: {"unit": u.id, "to": [round(x, 3), round(y, 3)]}}
        if view.why_illegal(action) is None:
            verb = "runs" if kind == "run" else "moves"
            left = route.cost - route.cost_at(t)
            return BotDecision(
                action,
                f"{sense.name(u.id)} {verb} to [{x:.1f}, {y:.1f}] along its route, {why} "
                f'({left:.1f}" to go, {turns:.0f} turn(s) in all)',
                unit=u.id,
            )
    return None
