"""The cheapest path (``to:``), the cheapest way into contact (Engage, E1) and the
reachable area, exact on every level.

Per map (:class:`NavCache`, built once, valid for every unit): the surfaces and bands
(:mod:`.surfaces`), the candidate gap jumps and wall climbs (:mod:`.specials`, on a grid
of ``cell`` inches); per base radius (:class:`Layer`): the configuration space and its
visibility graph (:mod:`.space`) and the transitions between bands (:mod:`.transitions`).

A query (:mod:`.search`) is an A* over that graph with the start, the goal, transitions
and the blocking bases of the moment (M5) added. On one band the result is the exact
shortest walk: tangents and arcs round the obstacles grown by the base radius. An arc is
walked as a polyline just outside its circle (:func:`.geom.arc_polyline`) whose length
exceeds the arc's by at most :data:`.geom.ARC_EXCESS` (0.002") per arc: ``plan(path=)``
checks polylines. The tracer (:meth:`Tracer.check_path`) has the last word on every path
returned, and the bends next to a transition are then pulled tight with it.

Preference between paths: one that needs no check if one fits the
allowance, else the cheapest, then the one with fewer checks. Difficult ground (M12)
changes the allowance, not the geometry: a search that may cross it, and if that path
crosses it and does not fit, a search that keeps off it (a second space where difficult
ground is an obstacle, built when first needed).
"""

from __future__ import annotations

import copy
import functools
import gc
import itertools
import math
import threading
from dataclasses import replace
from operator import attrgetter

import numpy as np
import shapely
from shapely.geometry import Point as ShPoint

from game.engine.errors import IllegalAction, as_value
from game.engine.model import GameState, Unit
from game.engine.movement.geom import ARC_EXCESS, TAU, dedup, overlap_cos
from game.engine.movement import kept as kept_on_disk
from game.engine.movement.reach import reach
from game.engine.movement.search import Search, SearchContext, SearchGoal, polyline, result
from game.engine.movement.space import Space
from game.engine.movement.specials import CellGrid, Specials
from game.engine.movement.surfaces import Surfaces
from game.engine.movement.tracer import Tracer, copy_trace, stands_in_difficult
from game.engine.movement.transitions import DOWN, Transitions
from game.engine.movement.types import Allowance, Reach, Trace
from game.engine.rule_ids import RuleId
from game.engine.tolerance import EPS


#: Step (inches) of the grid that finds candidate transitions (an engine setting, not a rule).
DEFAULT_CELL = 0.5
#: Answers of recent queries kept (:class:`_Memo`, an engine setting, not a rule).
MEMO_SIZE = 128
#: Route queries kept (:func:`.route.nav_route`'s memo: a bot asks a unit's routes again
#: turns later, with another bound; an engine setting, not a rule).
ROUTES_KEPT = 1024
#: How far past the allowance (inches) a question that wants only the verdict looks for a
#: way into contact when none fits within it (:meth:`NavCache.contact_verdict`; an engine
#: setting, not a rule). A path the search prices above the allowance may fit once pulled
#: tight at its transitions (:func:`pull_tight`). The slack is measured, not proved
#: (docs/decisions/0001-engage-verdicts-at-frame-speed.md).
VERDICT_SLACK = 1.0
#: Verdicts' searches kept for measuring their refusals next (an engine setting).
_UNMEASURED = 16
#: Starts off difficult ground kept (:meth:`NavCache._off_difficult`, a bound on memory).
_OFF_KEPT = 4096
#: Units whose contact queries' bases are kept (:meth:`NavCache._context`, an engine setting).
_CONTEXTS = 16


#: The fields of a unit that the movement engine (this package) reads: what a query's
#: answer depends on besides its arguments. A field read here later must be added.
UNIT_FIELDS = ("id", "x", "y", "r", "status", "on_table", "warband", "base_mm", "engaged_with", "keywords")


_get_fields = attrgetter(*UNIT_FIELDS)


def _unit_key(u: Unit) -> tuple:
    """The unit's :data:`UNIT_FIELDS`, lists as tuples (hashable)."""
    return tuple([tuple(v) if type(v) is list else v for v in _get_fields(u)])


class _Memo:
    """The answers of recent queries (a path, a refusal, a reachable area), given again
    when the same query is asked again: the bots ask it to choose, to check, to plan and
    to apply a move, with nothing moved in between. An answer depends on the query's
    arguments, on the unit and on every base of the state, in their order (the movement
    engine reads nothing else of a state, and of a unit only :data:`UNIT_FIELDS`; the map
    is the cache's own), so that is the key."""

    def __init__(self, size: int):
        self.size = size
        self._d: dict = {}

    @staticmethod
    def key(query: tuple, state: GameState, unit: Unit) -> tuple:
        return query + _Memo.bases(state, unit)

    @staticmethod
    def bases(state: GameState, unit: Unit) -> tuple:
        """The part of a key that is not the query: the unit and every base of the state
        (a query that needs two keys of the same state builds it once)."""
        return (_unit_key(unit),) + tuple(_unit_key(u) for u in state.units.values())

    def clear(self) -> None:
        self._d.clear()

    def recall(self, key: tuple, work):
        """The answer kept for ``key``, else ``work()``'s, kept (the oldest goes when full)."""
        d = self._d
        if key in d:
            return d[key]
        answer = work()
        if len(d) >= self.size:
            del d[next(iter(d))]  # the oldest
        d[key] = answer
        return answer

    def trace(self, query: tuple, state: GameState, unit: Unit, work):
        """The Trace ``work()`` returns (or the IllegalAction it raises) for this query,
        from the memo if it was asked before; a copy each time (callers own their trace)."""
        return self.trace_key(self.key(query, state, unit), work)

    def trace_key(self, key: tuple, work):
        """:meth:`trace` for a key already built (:meth:`key`)."""
        return handed_out(self.recall(key, lambda: answer_or_refusal(work)))


def answer_or_refusal(work):
    """``work()``'s answer, or the refusal (IllegalAction) it raises, to be kept in a memo
    (a subclass of IllegalAction is an engine error: it is raised)."""
    try:
        return work()
    except IllegalAction as exc:
        if type(exc) is not IllegalAction:
            raise
        return as_value(exc)


def handed_out(answer):
    """A kept answer given to a caller: a copy of the trace (callers own theirs), the
    refusal raised afresh, or None."""
    if answer is None:
        return None
    if isinstance(answer, IllegalAction):
        raise IllegalAction(answer.rule, answer.reason)
    return copy_trace(answer)


class Layer:
    """What one base radius needs: its space, the same keeping off difficult ground (built
    when first needed), and its transitions."""

    def __init__(self, nav: "NavCache", r: float):
        self.board, self.surf = nav.mover.board, nav.surf
        self.r = r
        self.space = Space(nav.mover.board, nav.surf, r)
        self.trans = Transitions(nav.mover, nav.surf, self.space, nav.grid, nav.specials, r)
        self._avoid: Space | None = None
        #: The transitions' nodes a base keeping off difficult ground may use (NavCache._avoid_ok).
        self._avoid_nodes = None
        #: What an earlier process kept of the space keeping off difficult ground (:mod:`.kept`).
        self._kept_avoid = None

    def avoid(self) -> Space:
        if self._avoid is None:
            self._avoid = Space(self.board, self.surf, self.r, avoid=True)
            kept_on_disk.fill(self._avoid, self._kept_avoid)
        return self._avoid

    def use_transitions(self, trans: Transitions) -> None:
        """New transitions (a larger radius widened the wall climbs' reach): everything
        kept against the old ones' nodes goes with them, in both spaces."""
        self.trans = trans
        self._avoid_nodes = None
        self._kept_avoid = None  # kept against the old transitions' nodes
        self.space.forget_transitions()
        if self._avoid is not None:
            self._avoid.forget_transitions()


#: Maps whose navigation structures are kept for the games that follow (an engine setting).
MAPS_KEPT = 4
#: Those structures (:meth:`NavCache._keep`), by :func:`_map_key`, the oldest first.
_MAPS: dict = {}
_MAPS_LOCK = threading.Lock()


#: How many more times a process hands what it holds to :func:`gc.freeze` (each new map).
_FREEZES = [4]


def _out_of_the_collectors_way() -> None:
    """A map's structures live as long as the process, and a full collection of the cycle
    collector walks every object it tracks: on stress.yaml one took 80-100 ms in the middle
    of an Engage question (the worst ``legal_actions`` call of a game 123 ms against 36
    ms without it). :func:`gc.freeze` moves what is alive now out of its way for good
    (reference counting still frees it). What is garbage at that moment, or becomes garbage
    in a cycle later, is never collected, so a process does it for its first few maps only
    (the window and a study's workers build one or two)."""
    if _FREEZES[0] > 0:
        _FREEZES[0] -= 1
        gc.freeze()


def _map_key(mover: Tracer, cell: float, radii: tuple) -> tuple:
    """What a map's navigation structures depend on: the table and its terrain and ladders,
    the rules, the cell and the base radii they were prepared for (in that order)."""
    b = mover.board
    return (
        b.width,
        b.height,
        b.use_height,
        repr(b.terrain),
        repr(mover.ladders),
        repr(sorted(mover.rs.items(), key=lambda kv: kv[0])),
        cell,
        radii,
    )


def _own_space(space: Space) -> Space:
    """A copy of a space whose bands' per-query caches set from now on are its own (the
    circles, chains and other answers that depend on the terrain only stay shared)."""
    out = copy.copy(space)
    out.bands = [copy.copy(bs) for bs in space.bands]
    for bs in out.bands:
        # kept against the band's fixed targets and from the transitions' nodes, which the new radius changes
        bs.forget_transitions()
    return out


def _locked(method):
    """Run the method holding the map's lock: the structures kept for a map serve every
    game on it, and the window runs the bot's game in a thread of its own."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return run


class NavCache:
    """Navigation structures of one map (built once), per base radius (built once each).

    A new game on the same map (the same terrain, ladders, rules and base radii) takes
    them from the last one (:data:`_MAPS`): they depend on nothing else, and what they
    keep as queries come is either the same whoever asks (chains, tangents' ends, rays'
    grazes) or kept per game (the links, in ``_links``, whose order follows the queries
    asked). A game that needs a new radius later copies what that changes first."""

    def __init__(self, mover: Tracer, cell: float | None = None):
        self.mover = mover
        self.cell = cell or DEFAULT_CELL
        rs = mover.rs
        self.surf = Surfaces(mover.board, float(rs.free_height), self.cell, mover.ladders, float(rs.ladder_reach))
        self.layers: dict[float, Layer] = {}
        self._grid: CellGrid | None = None
        self._specials: Specials | None = None
        self._reach = 0.0
        self._bands: dict[tuple[float, float], int | None] = {}
        self.reach_cache: dict = {}  # reach.py: what the reachable area keeps per map
        self._memo = _Memo(MEMO_SIZE)
        self.routes = _Memo(ROUTES_KEPT)  # route.nav_route's answers, by query whatever its bound
        self._unmeasured: dict = {}  # _find_contact: verdicts' searches, for measuring their refusals
        self._off: dict = {}  # _off_difficult: (x, y, r) -> where the search off difficult ground starts
        self._contexts: dict = {}  # _context: the memo's key of a unit and state -> its bases worked out
        self._links: dict = {}  # (radius, avoid) -> band -> source -> links.Links, this game's
        self._shared = False  # are the layers also another game's (in _MAPS)?
        self._lock = threading.RLock()  # the map's (shared with the structures, see _locked)

    def _keep(self) -> tuple:
        return (
            self.surf,
            self.layers,
            self._grid,
            self._specials,
            self._reach,
            self._bands,
            self.reach_cache,
            self._lock,
        )

    def _own(self) -> None:
        """Before a new radius changes the layers (their transitions): take copies of the
        layers and spaces kept for other games, so that what changes is this game's."""
        layers = {}
        for k, lay in self.layers.items():
            new = layers[k] = copy.copy(lay)
            new.space = _own_space(lay.space)
            if lay._avoid is not None:
                new._avoid = _own_space(lay._avoid)
        self.layers = layers
        self._shared = False

    def band_at(self, x: float, y: float) -> int | None:
        """Surfaces.band_at, remembered (bases rarely move between queries)."""
        key = (x, y)
        out = self._bands.get(key, -2)
        if out == -2:
            if len(self._bands) > 4096:
                self._bands.clear()
            out = self._bands[key] = self.surf.band_at(x, y)
        return out

    @_locked
    def prepare(self, radii) -> None:
        rs = tuple(sorted({round(float(r), 6) for r in radii}, reverse=True))
        if self.layers or self._specials is not None:
            for r in rs:
                self.layer(r)
            return
        # nothing built yet: the structures of the same map may be kept from another game
        key = _map_key(self.mover, self.cell, rs)
        with _MAPS_LOCK:
            kept = _MAPS.get(key)
        if kept is None:
            for r in rs:
                self.layer(r)
            kept_on_disk.load(key, self.layers)  # what an earlier process worked out for this map
            kept = self._keep()
            _out_of_the_collectors_way()
            with _MAPS_LOCK:
                if len(_MAPS) >= MAPS_KEPT:
                    del _MAPS[next(iter(_MAPS))]
                _MAPS[key] = kept
        self.surf, self.layers, self._grid, self._specials, self._reach, self._bands, self.reach_cache, self._lock = (
            kept
        )
        self._shared = True

    @property
    def grid(self) -> CellGrid:
        return self._grid

    @property
    def specials(self) -> Specials:
        return self._specials

    @_locked
    def layer(self, r: float) -> Layer:
        key = round(float(r), 6)
        out = self.layers.get(key)
        if out is None:
            if self._shared:
                self._own()
            self._memo.clear()  # a new radius may change the transitions of every radius
            self.routes.clear()
            if self._specials is None or key + self.cell > self._reach + EPS:
                # the wall climbs are looked for as far out as the largest base needs
                self._reach = max([key] + list(self.layers)) + self.cell
                self._grid = CellGrid(self.mover.board, self.cell, self._reach)
                self._specials = Specials(self.mover, self._grid)
                for k in list(self.layers):
                    self.layers[k].use_transitions(
                        Transitions(self.mover, self.surf, self.layers[k].space, self._grid, self._specials, k)
                    )
                self._links.clear()  # this game's links and fixed targets name the old nodes
            out = self.layers[key] = Layer(self, key)
        return out

    # --- searching --------------------------------------------------------------------------
    def _search(
        self, ctx: SearchContext, goal: SearchGoal | None, limit: float, checks: bool, avoid: bool
    ) -> Search | None:
        unit = ctx.unit
        lay = self.layer(unit.r)
        b = self.band_at(unit.x, unit.y)
        if b is None:
            return None
        space = lay.avoid() if avoid else lay.space
        start = self._off_difficult(unit) if avoid else (unit.x, unit.y)
        q = Search(
            space,
            lay.trans,
            start,
            b,
            goal,
            limit,
            checks,
            ctx.descend,
            ctx.ladders,
            ctx.may_climb,
            ctx.discs,
            ctx.far_reach,
            links=self._links.setdefault((lay.r, avoid), {}),
            memo=ctx.memo,
            longest_move=ctx.longest_move,
        )
        if avoid:
            q.node_ok &= self._avoid_ok(lay, space)
        return q

    def _off_difficult(self, unit: Unit) -> tuple[float, float]:
        """:func:`off_difficult`, kept by the unit's centre and radius (the map's answer:
        each search that keeps off difficult ground asks it of the unit's start)."""
        x, y = unit.x, unit.y
        if x == 0.0 or y == 0.0:
            return off_difficult(self.mover.board, unit)  # 0.0 and -0.0: equal keys, not equal points
        key = (x, y, unit.r)
        out = self._off.get(key)
        if out is None:
            if len(self._off) >= _OFF_KEPT:
                self._off.clear()
            out = self._off[key] = off_difficult(self.mover.board, unit)
        return out

    def _avoid_ok(self, lay: Layer, space: Space):
        ok = lay._avoid_nodes
        if ok is None:
            tr = lay.trans
            ok = Transitions._valid(space, _xy(tr), tr.band)
            lay._avoid_nodes = ok
        return ok

    def _search_result(self, ctx: SearchContext, goal: SearchGoal, limit: float, checks: bool, avoid: bool):
        """What the search finds (:class:`Found`, or None), or what an earlier search of
        this query for the same goal and limit found when it is the same answer: the same
        search, or one without checks that left out no transition needing a check that
        the search with checks would have taken up (``Search.left_out``), which runs the
        same steps in the same order. (A search finds nothing past its limit; a path both
        limits reach it finds at either, :meth:`_cheapest_path`.)

        A limit the query widened (``SearchContext.widen``, a verdict that may look past the
        allowance: :meth:`_find_contact`): the search within the wider limit answers, up
        to this one (what it finds is this search's answer when its goal state lies
        within this limit, else this search finds nothing), so the verdict runs one
        search where it ran one within the allowance and one past it."""
        wide = None if avoid else ctx.widen.get(limit)
        if wide is not None:
            run = self._search_run(ctx, goal, wide, checks, avoid)
            return run[1] if run is not None and run[1] is not None and run[3] <= limit + EPS + 1e-9 else None
        run = self._search_run(ctx, goal, limit, checks, avoid)
        return None if run is None else run[1]

    def _search_run(self, ctx: SearchContext, goal: SearchGoal, limit: float, checks: bool, avoid: bool):
        """:meth:`_search_result`'s run for this limit, kept in ``ctx.runs`` (``(checks, found,
        left_out, f)``, :func:`_same_run`): an earlier one that answers, else a new
        search; None when the unit stands on no band (no search)."""
        runs = ctx.runs.setdefault((ctx.goal_key(goal), avoid, limit), [])
        run = _same_run(runs, checks)
        if run is not None:
            return run
        q = self._search(ctx, goal, limit, checks, avoid)
        if q is None:
            return None
        found = f = None
        if q.run() is not None:
            found = from_start(result(q), ctx.unit)
            g, _k = q.best[q.found]
            f = g + q.h(q.found[2], q.found[3])  # as Search._push bounds it by the limit
        run = (checks, found, q.left_out, f)
        runs.append(run)
        return run

    def _traced_path(
        self,
        ctx: SearchContext,
        goal: SearchGoal,
        limit: float,
        checks: bool,
        avoid: bool,
        allowance: float | None = None,
    ):
        """The cheapest path the search finds, checked by the tracer once (a Trace), or
        None; for an allowance, :func:`closer`'s."""
        found = self._search_result(ctx, goal, limit, checks, avoid)
        if found is None:
            return None
        key = (id(found), allowance)
        if key not in ctx.traced:
            plain = (id(found), None)
            if plain not in ctx.traced:
                ctx.traced[plain] = self._checked_trace(ctx, found)
            ctx.traced[key] = closer(self.mover, ctx, found, ctx.traced[plain], allowance)
        return ctx.traced[key]

    def _checked_trace(self, ctx: SearchContext, found):
        """The path found, checked by the tracer (a Trace), or None."""
        mover = self.mover
        pts = polyline(found, ARC_EXCESS)
        try:
            tr = mover.check_path(ctx.state, ctx.unit, pts, ctx.descend, field=ctx.field, blockers=ctx.blockers)
        except IllegalAction:
            # an arc's polyline grazing something just outside the arc: follow it closer
            try:
                tr = mover.check_path(
                    ctx.state, ctx.unit, polyline(found, 1e-6), ctx.descend, field=ctx.field, blockers=ctx.blockers
                )
            except IllegalAction:
                return None
        if found.edges:
            tr = pull_tight(self.mover, self.layer(ctx.unit.r).trans, ctx, tr, found)
        return tr

    @_locked
    def find(
        self, state: GameState, unit: Unit, goal: tuple[float, float], allow: "Allowance", descend: str
    ) -> "Trace":
        """The cheapest legal path to a point (``to:``)."""
        key = ("find", (float(goal[0]), float(goal[1])), allow, descend)
        return self._memo.trace(key, state, unit, lambda: self._find(state, unit, goal, allow, descend))

    def _straight_first(
        self, state: GameState, unit: Unit, goal: tuple[float, float], descend: str
    ) -> "tuple[SearchContext, Trace | None, IllegalAction | None]":
        """How a search for a point (``to:``, a route) starts: the end spot is checked
        first (M5, M6: its refusal is raised), then the query's context is built and the
        straight line traced, often legal and then the cheapest. (context, the straight
        line's trace or None, its refusal or None)."""
        problem = self.mover.end_problem(state, unit, goal[0], goal[1])
        if problem is not None:
            raise problem
        ctx = SearchContext(self, state, unit, descend)
        try:
            straight = self.mover.check_path(
                state, unit, [(unit.x, unit.y), goal], descend, field=ctx.field, blockers=ctx.blockers
            )
        except IllegalAction as exc:
            return ctx, None, as_value(exc)
        return ctx, straight, None

    def _point_goal(self, goal: tuple[float, float]) -> SearchGoal:
        """The search's goal for a point: the point on its band."""
        gb = self.surf.band_at(goal[0], goal[1])
        return SearchGoal(goal[0], goal[1], 0.0, frozenset([gb]) if gb is not None else frozenset())

    def _find(
        self, state: GameState, unit: Unit, goal: tuple[float, float], allow: "Allowance", descend: str
    ) -> "Trace":
        ctx, straight, first_error = self._straight_first(state, unit, goal, descend)
        if straight is not None and straight.n_checks == 0 and straight.cost <= allow.total(straight.difficult) + 1e-9:
            return straight
        start = (unit.x, unit.y)
        target = self._point_goal(goal)
        best = self._best(ctx, target, allow, straight)
        if best is not None:
            return best
        # Nothing within the allowance: the cheapest path there is (refused with its cost), or why none.
        tr = _cheaper(
            self._cheapest_path(ctx, target, allow, math.hypot(goal[0] - start[0], goal[1] - start[1])), straight
        )
        if tr is not None:
            return tr
        raise IllegalAction(
            RuleId.M5,
            f"no legal path for {unit.id} from [{start[0]:.2f}, {start[1]:.2f}] to [{goal[0]:.2f}, {goal[1]:.2f}]"
            + (f" ({first_error.rule}: {first_error.reason} on the straight line)" if first_error else ""),
        )

    @_locked
    def find_contact(self, state: GameState, unit: Unit, target: Unit, allow: "Allowance", descend: str) -> "Trace":
        """E1: the cheapest legal path into base contact with ``target``: its goal is every
        point where the unit's base is within contact_tolerance of the target's (G4) at its
        level, where the base may end (M5, M6).

        When no path fits the allowance the answer is the cheapest path there is (its cost
        refuses the Engage). A target beyond any allowance in a straight line is refused
        before this search (:meth:`Mover.plan_engage`)."""
        if state.units.get(target.id) is not target:  # a target the memo does not compare
            return self._find_contact(state, unit, target, allow, descend)
        bases = self._memo.bases(state, unit)
        return self._memo.trace_key(
            _contact_query(target, allow, descend) + bases,
            lambda: self._find_contact(state, unit, target, allow, descend, bases=bases),
        )

    @_locked
    def contact_verdict(
        self, state: GameState, unit: Unit, target: Unit, allow: "Allowance", descend: str
    ) -> "Trace | None":
        """:meth:`find_contact` for a question that wants only the verdict: the same path
        when one fits the allowance, and the same refusal where the searches within it
        measure it (a path that does not fit, no way into contact); else None (refused,
        not measured). The wider search that measures a refusal is not run: a search
        within :data:`VERDICT_SLACK` past the allowance looks for a path that fits once
        pulled tight instead (the wider search's verdict on every question compared,
        ``docs/movement.md``)."""
        if state.units.get(target.id) is not target:
            return self._find_contact(state, unit, target, allow, descend, measure=False)
        bases = self._memo.bases(state, unit)
        return self._memo.trace_key(
            ("verdict", target.id, allow, descend) + bases,
            lambda: self._find_contact(state, unit, target, allow, descend, measure=False, bases=bases),
        )

    def _find_contact(
        self,
        state: GameState,
        unit: Unit,
        target: Unit,
        allow: "Allowance",
        descend: str,
        measure: bool = True,
        bases: tuple | None = None,
    ) -> "Trace | None":
        """:meth:`find_contact` (``measure``) or :meth:`contact_verdict`; ``bases``: the
        memo's key of the unit and the state (:meth:`_Memo.bases`), when the caller has
        built it (None: the target is not the state's, nothing is kept)."""
        key = None if bases is None else _contact_query(target, allow, descend) + bases
        if measure and self._unmeasured:
            if key is None:
                key = self._memo.key(_contact_query(target, allow, descend), state, unit)
            kept = self._unmeasured.pop(key, None)
            if kept is not None:  # a verdict's searches, asked again to measure its refusal
                return self._refusal(*kept)
        ctx = self._context(state, unit, descend, bases)
        goal = self._contact_goal(ctx, target)
        d = math.hypot(unit.x - target.x, unit.y - target.y)
        fits, straight, reason = self._straight_in(ctx, goal, allow, d)
        if fits:
            return straight
        if not measure and may_transit(self.layer(unit.r).trans, ctx, goal, allow.inches + VERDICT_SLACK):
            # the verdict may search VERDICT_SLACK past the allowance (_verdict): that
            # search answers for the one within the allowance too (_search_result), so where
            # nothing fits it is the only one run
            ctx.widen[allow.inches] = allow.inches + VERDICT_SLACK
        best = self._best(ctx, goal, allow, straight) or rim_spots(self, ctx, goal, allow)
        if best is not None:
            return best
        # Every search ends where end_ok holds (Search._goal_ok): where no spot in contact
        # is free, the far searches find nothing (and straight is None), as the ones
        # within the allowance found nothing: the answer is the refusal below.
        none = (
            f"there is no way into base contact with {target.id} for {unit.id}, "
            f'{self.mover.board.distance(unit, target):.2f}" away{reason}'
        )
        if straight is None and _contact_taken(self.mover, ctx.field, unit, target):
            raise IllegalAction(RuleId.E1, none)
        kept = (ctx, goal, allow, d, straight, none)
        if measure:
            return self._refusal(*kept)
        tr = _verdict(self, ctx, goal, allow, straight)
        if tr is None:
            # refused, not measured: measuring it (find_contact, the same query on the same
            # bases) goes on from these searches instead of running them again
            if len(self._unmeasured) >= _UNMEASURED:
                self._unmeasured.clear()
            if key is None:
                key = self._memo.key(_contact_query(target, allow, descend), state, unit)
            self._unmeasured[key] = kept
        return tr

    def _context(self, state: GameState, unit: Unit, descend: str, bases: tuple | None) -> SearchContext:
        """A contact query's :class:`SearchContext`. What it works out of the bases (their
        index, who blocks, their discs) depends on nothing but ``bases`` (the memo's key of
        the unit and the state, :meth:`_Memo.bases`): kept by it for the unit's other
        targets (the same question for each enemy in reach)."""
        if bases is None:
            return SearchContext(self, state, unit, descend)
        kept = self._contexts.get(bases)
        ctx = SearchContext(self, state, unit, descend, known=kept)
        if kept is None:
            if len(self._contexts) >= _CONTEXTS:
                del self._contexts[next(iter(self._contexts))]  # the oldest
            self._contexts[bases] = (ctx.field, ctx.blockers, ctx.discs)
        return ctx

    def _contact_goal(self, ctx: SearchContext, target: Unit) -> SearchGoal:
        """E1's goal: every spot where the unit's base is in contact with ``target`` (G4)
        at its level, where the base may end (M5, M6), with the bases round the target a
        path may cross but not end on (``SearchGoal.kept_off``: the spots beside them are ends too).

        It is all of G4's contact, as for a given path: a path may end up to
        contact_tolerance short of touching (a hair inside it, against rounding), so the
        cheapest way in is never dearer than a path the player could give."""
        mover, state, unit = self.mover, ctx.state, ctx.unit
        free = mover.free
        reach = unit.r + target.r + float(mover.rs.contact_tolerance) - 1e-12
        zt = mover.board.height_at(target.x, target.y)
        bands = frozenset(
            k for k, band in enumerate(self.surf.bands) if any(abs(z - zt) <= free + EPS for z in band.levels)
        )

        field = ctx.field  # not ctx: the goal is kept by the context (SearchContext.goals)

        def end_ok(x: float, y: float) -> bool:
            return mover.in_contact(x, y, unit, target) and mover.may_end(state, unit, x, y, field)

        kept_off = []
        for uid, (ox, oy, orr, _oz) in ctx.field.units.items():
            if (
                uid != unit.id
                and uid != target.id
                and uid not in ctx.blockers
                and math.hypot(ox - target.x, oy - target.y) < reach + unit.r + orr
            ):
                b = self.band_at(ox, oy)
                if b is not None and b in bands:
                    kept_off.append((ox, oy, unit.r + orr, b))
        return SearchGoal(target.x, target.y, reach, bands, end_ok, tuple(kept_off))

    def _straight_in(self, ctx: SearchContext, goal: SearchGoal, allow: "Allowance", d: float) -> tuple:
        """The straight way at the target first (often legal and then the cheapest), from
        the unit's centre ``d`` inches from the target's: ``(fits, straight, reason)``,
        ``fits`` when it needs no check and fits the allowance (it is the answer),
        ``straight`` the path when it is legal and ends where the base may end (else
        None), ``reason`` what refused it on the straight line (or "")."""
        unit = ctx.unit
        if d <= goal.reach:
            return False, None, ""
        tx, ty, reach = goal.x, goal.y, goal.reach
        end = (tx + (unit.x - tx) * reach / d, ty + (unit.y - ty) * reach / d)
        try:
            straight = self.mover.check_path(
                ctx.state, unit, [(unit.x, unit.y), end], ctx.descend, field=ctx.field, blockers=ctx.blockers
            )
            if not goal.end_ok(*end):
                return False, None, ""
        except IllegalAction as exc:
            return False, None, f" ({exc.rule}: {exc.reason} on the straight line)"
        return straight.n_checks == 0 and straight.cost <= allow.total(straight.difficult) + 1e-9, straight, ""

    def _refusal(
        self, ctx: SearchContext, goal: SearchGoal, allow: "Allowance", d: float, straight, none: str
    ) -> "Trace":
        """Nothing fits the allowance: the cheapest way in there is (its cost refuses the
        Engage), or the refusal ``none`` when there is no way in."""
        tr = _cheaper(self._cheapest_path(ctx, goal, allow, d), straight)
        if tr is None:
            raise IllegalAction(RuleId.E1, none)
        return tr

    def _cheapest_path(self, ctx: SearchContext, goal: SearchGoal, allow: "Allowance", d: float):
        """Nothing fits the allowance: the cheapest path there is (to say what it costs),
        looked for within twice the allowance, then further, in steps. A search with a
        larger limit takes the same steps in the same order up to the cost of the path a
        smaller one finds (what it adds costs more; the straight stretches into a contact
        region head for the same targets at any limit, ``links.RIM_NEAR``), so each step
        finds what the widest would. When the search within the allowance's inches (with
        checks, on any ground: one of :meth:`_best`'s) found a path, that is the answer:
        it did not fit, as difficult ground (M12) took inches off the allowance or the
        path measured more than the search's price."""
        if self._search_result(ctx, goal, allow.inches, True, False) is not None:
            return self._traced_path(ctx, goal, allow.inches, True, False)
        far = max(2 * allow.inches, 1.5 * d + 2)
        for limit in (far, 1.5 * far, 2 * far + 4):
            tr = self._traced_path(ctx, goal, limit, True, False)
            if tr is not None:
                return tr
        return None

    def _best(self, ctx: SearchContext, goal: SearchGoal, allow: "Allowance", straight=None):
        """The preferred path within the allowance: no check if one fits, else the cheapest,
        then fewer checks; None if none fits."""
        best = None
        for checks in (False, True):
            for avoid in (False, True):
                if avoid and _no_way_off(self, ctx, goal, allow, checks):
                    break
                tr = self._traced_path(ctx, goal, allow.inches, checks, avoid, allowance=allow.inches)
                if tr is not None and tr.cost <= allow.total(tr.difficult) + 1e-9:
                    if best is None or _key(tr) < _key(best):
                        best = tr
                if tr is None or not tr.difficult or best is not None:
                    break  # keeping off difficult ground cannot do better
            if best is not None:
                break
        if straight is not None and straight.cost <= allow.total(straight.difficult) + 1e-9:
            if best is None or _key(straight) <= _key(best):
                best = straight
        return best

    # --- reachable area -------------------------------------------------------------------------
    def forget(self) -> None:
        """Drop the remembered answers of recent queries (a benchmark times a query, not
        the memo); the map's structures stay, and so does what the tracer keeps of the
        map and the paths (``tracer.forget_kept`` drops that), as play keeps it."""
        self._memo.clear()
        self.routes.clear()
        self._unmeasured.clear()
        self._contexts.clear()

    @_locked
    def reach(
        self,
        state: GameState,
        unit: Unit,
        walk: "Allowance",
        run: "Allowance | None",
        denied,
        descend: str,
        exact: bool = True,
    ) -> "Reach":
        """The reachable area (:mod:`.reach`), from the memo if asked before. ``denied`` only
        goes into the answer (``run`` is None when it is given). ``exact=False``: without
        the rays where the circle of reach crosses a straight edge (the corners there may
        be cut, by up to about half an inch): for a caller that samples the area and plans
        each point it picks, such as a bot."""
        key = self._memo.key(("reach", walk, run, descend, exact), state, unit)
        out = self._memo.recall(key, lambda: reach(self, state, unit, walk, run, denied, descend, exact))
        return out if out.run_denied is denied else replace(out, run_denied=denied)


def _same_run(runs, checks: bool):
    """The run of :meth:`NavCache._search_result` kept in ``runs`` (``(checks, found, left_out,
    f)``, ``f`` the goal state's bound) that answers a search with ``checks``: the same
    search, one without checks that left out no transition needing a check, or, for a
    search without checks, one with checks that found nothing (it searched every path
    the other would, and more); None."""
    return next((r for r in runs if r[0] == checks or (checks and not r[2]) or (r[0] and r[1] is None)), None)


def _verdict(nav: NavCache, ctx: SearchContext, goal: SearchGoal, allow: "Allowance", straight):
    """:meth:`NavCache._cheapest_path` for a question that wants only the verdict: the path it would
    take from the search within the allowance's inches (a refusal measured), else a path
    within :data:`VERDICT_SLACK` past them that fits once pulled tight, else None."""
    if nav._search_result(ctx, goal, allow.inches, True, False) is not None:
        return _cheaper(nav._traced_path(ctx, goal, allow.inches, True, False), straight)
    limit = allow.inches + VERDICT_SLACK
    if not may_transit(nav.layer(ctx.unit.r).trans, ctx, goal, limit):
        # Only a transition pulled tight costs less than the search's price, and no path
        # within the limit can take one: what the search would find costs more than the
        # allowance, on any ground (the straight way in did not fit either, or
        # NavCache._best had taken it).
        return None
    tr = _cheaper(nav._traced_path(ctx, goal, limit, True, False), straight)
    return tr if tr is not None and tr.cost <= allow.total(tr.difficult) + 1e-9 else None


#: Free spots of a contact rim :func:`rim_spots` tries as points, nearest the unit first.
RIM_SPOTS = 6


def rim_spots(nav: NavCache, ctx: SearchContext, goal: SearchGoal, allow: "Allowance"):
    """M12 for an Engage that difficult ground refuses: the search that keeps off it
    ends at the contact region by straight stretches and walks round its rim between
    sampled spots, and can miss a way in to a short free run of the rim along the edge
    of difficult ground (found by the Engage reference, tests/test_engage_reference.py).
    Where the cheapest way in (which crosses it) costs no more than the allowance off
    it, the rim's free spots (off difficult ground, where the base may end), nearest the
    unit first, are tried as points: the cheapest path off difficult ground that fits,
    or None."""
    unit = ctx.unit
    found = nav._search_result(ctx, goal, allow.inches, True, False)
    if found is None or found.cost > allow.total(False) + 1e-9 or stands_in_difficult(nav.mover, unit):
        return None
    b = nav.band_at(goal.x, goal.y)
    if b is None:
        return None
    _a, X, Y, ok = nav.layer(unit.r).avoid().bands[b].ring_free(goal.x, goal.y, goal.rim)
    # nearest first, those within the allowance off difficult ground in a straight line
    # (no path to a spot farther fits); where the base may end asked only of those that
    # may be tried (the spots a base may end on, in this order, are the same)
    far = allow.total(False) + 1e-9
    spots = sorted(
        ((math.hypot(float(x) - unit.x, float(y) - unit.y), float(x), float(y)) for x, y, k in zip(X, Y, ok) if k),
        key=lambda s: s[0],
    )
    near = itertools.takewhile(lambda s: s[0] <= far, spots)
    spots = itertools.islice(((x, y) for _d, x, y in near if goal.end_ok(x, y)), RIM_SPOTS)
    best = None
    for x, y in spots:
        tr = nav._traced_path(
            ctx, SearchGoal(x, y, 0.0, frozenset([b])), allow.inches, True, True, allowance=allow.inches
        )
        if tr is not None and not tr.difficult and tr.cost <= allow.total(False) + 1e-9:
            if best is None or _key(tr) < _key(best):
                best = tr
    return best


#: How far outside difficult ground's grown edge :func:`off_difficult` puts a start.
STEP_OFF = 1e-5


def off_difficult(board, unit: Unit) -> tuple[float, float]:
    """Where the search that keeps off difficult ground starts: the unit's centre, or,
    when its base comes within its radius of difficult ground but not within EPS of that
    (not standing in it, M12: :func:`.tracer.stands_in_difficult`), the nearest point
    :data:`STEP_OFF` outside the edge of the ground grown by the radius. Inside or on
    that edge no tangent leaves the start (a corner's circle); the step out is under
    ``EPS + STEP_OFF`` long (:func:`from_start` puts the centre back)."""
    x, y, r = unit.x, unit.y, unit.r
    if board.tree is None:
        return x, y
    for _ in range(4):  # a corner between two pieces: out of one, then the other
        moved = False
        for h in board.tree.query(ShPoint(x, y), predicate="dwithin", distance=r + STEP_OFF).tolist():
            if board.terrain[h].kind != "difficult":
                continue
            near = shapely.shortest_line(board.polygons[h], ShPoint(x, y))
            (px, py), _q = near.coords
            d = math.hypot(x - px, y - py)
            if 0.0 < d < r + STEP_OFF / 2:
                x, y = px + (x - px) * (r + STEP_OFF) / d, py + (y - py) * (r + STEP_OFF) / d
                moved = True
        if not moved:
            break
    return x, y


def from_start(found, unit: Unit):
    """A path found from :func:`off_difficult`'s start, from the unit's centre again."""
    if found is None or not found.points or found.points[0] == (unit.x, unit.y):
        return found
    step = math.hypot(found.points[0][0] - unit.x, found.points[0][1] - unit.y)
    return replace(
        found,
        points=[(unit.x, unit.y)] + list(found.points),
        cost=found.cost + step,
        arcs=[(a[0] + 1,) + tuple(a[1:]) for a in found.arcs],
    )


def _no_way_off(nav: NavCache, ctx: SearchContext, goal: SearchGoal, allow: "Allowance", checks: bool) -> bool:
    """Can the search that keeps off difficult ground (M12) find nothing that fits,
    after the one that may cross it found a path that did not? Yes when the unit
    stands within its radius of difficult ground (every path from there crosses it, as
    the tracer counts it), that search's price was already over the allowance less the
    penalty, and no transition is in reach: a path keeping off it is priced no lower,
    measures no less than its price (only a transition pulled tight does), and has
    the same allowance."""
    found = nav._search_result(ctx, goal, allow.inches, checks, False)
    return (
        found is not None
        and found.cost > allow.total(True) + 1e-9
        and stands_in_difficult(nav.mover, ctx.unit)
        and not may_transit(nav.layer(ctx.unit.r).trans, ctx, goal, allow.inches)
    )


def closer(mover: Tracer, ctx: SearchContext, found, tr, allowance: float | None):
    """:meth:`NavCache._checked_trace`'s path ``tr``, or, when it measures over the allowance by
    no more than the excess of the path found's arcs, that path with its arcs followed
    closer (the same path for every allowance it does not come near)."""
    if tr is not None and allowance is not None and found.arcs and tr.cost > allowance + 1e-9 >= found.cost:
        room = max(1e-7, (allowance - found.cost) / (2 * len(found.arcs)))
        try:
            return mover.check_path(
                ctx.state, ctx.unit, polyline(found, room), ctx.descend, field=ctx.field, blockers=ctx.blockers
            )
        except IllegalAction:
            pass
    return tr


def pull_tight(mover: Tracer, trans: Transitions, ctx: SearchContext, tr: "Trace", found) -> "Trace":
    """A transition goes straight across a ledge sample (or between cell centres): where
    the tracer allows it, leave out its ends, or one of them, so that the path crosses
    the edge on the straight line from the waypoint before to the one after (no dearer,
    no more checks). Deterministic."""
    pts = list(tr.points)
    X, Y = trans.X_l, trans.Y_l
    # the ends of each transition taken (a far landing's end is where it lands: none)
    ends = [
        ((X[int(trans.e_from[e])], Y[int(trans.e_from[e])]), (X[int(trans.e_to[e])], Y[int(trans.e_to[e])]))
        for e in found.edges
        if not isinstance(e, tuple)
    ]

    def cost(seq):
        try:
            t = mover.check_path(
                ctx.state, ctx.unit, seq, ctx.descend, field=ctx.field, blockers=ctx.blockers, final=False
            )
        except IllegalAction:
            return None
        return (t.n_checks, round(t.cost, 9))

    changed = False
    for a, b in ends:
        i = next((i for i in range(len(pts) - 1) if pts[i] == a and pts[i + 1] == b), None)
        if i is None or i == 0 or i + 2 >= len(pts):
            continue
        here = cost(pts[i - 1 : i + 3])
        best, pick = here, None
        for drop in ((i, i + 1), (i,), (i + 1,)):
            seq = [p for j, p in enumerate(pts[i - 1 : i + 3], start=i - 1) if j not in drop]
            c = cost(seq)
            if c is not None and best is not None and c[0] <= best[0] and c[1] < best[1] - 1e-9:
                best, pick = c, drop
        if pick is not None:
            pts = [p for j, p in enumerate(pts) if j not in pick]
            changed = True
    if not changed:
        return tr
    try:
        new = mover.check_path(ctx.state, ctx.unit, dedup(pts), ctx.descend, field=ctx.field, blockers=ctx.blockers)
    except IllegalAction:
        return tr
    return new if _key(new) <= _key(tr) and (not new.difficult or tr.difficult) else tr


def may_transit(tr: Transitions, ctx: SearchContext, goal: SearchGoal, limit: float) -> bool:
    """Could a path the search prices within ``limit`` take a transition (one needing
    a check or not)? A path through transition e from node u to node v costs at least the
    straight line to u, e's price and the straight line from v to the goal region (no
    step of a path is priced under its length); a jump down that lands farther out
    (M9, ``Search._far_landing``) at least the straight lines to u and on to the
    region. The bound is the search's own (``Search.h``, ``_push``); it looks at every
    transition the search could take up (a superset: bases are not looked at)."""
    key = ("may transit", ctx.goal_key(goal), limit)  # asked again by the query's next search
    out = ctx.memo.get(key)
    if out is None:
        out = ctx.memo[key] = _may_transit(tr, ctx, goal, limit)
    return out


def _may_transit(tr: Transitions, ctx: SearchContext, goal: SearchGoal, limit: float) -> bool:
    P = tr.P
    if not len(P):
        return False
    bound = limit + EPS + 1e-9
    ds = np.hypot(P[:, 0] - ctx.unit.x, P[:, 1] - ctx.unit.y)
    h = goal.beyond(P[:, 0], P[:, 1])
    far = ctx.descend == "jump" and ctx.may_climb
    for n in np.nonzero(tr.used & (ds + h <= bound))[0].tolist():
        for e, to, cost, _checks in tr.priced(n, ctx.descend, ctx.ladders, ctx.may_climb):
            if ds[n] + cost + h[to] <= bound or (far and tr.e_kind[e] == DOWN):
                return True
    return False


def _contact_query(target: Unit, allow: "Allowance", descend: str) -> tuple:
    """The memo's query of :meth:`NavCache.find_contact` (the state and the unit are the
    rest of its key)."""
    return ("contact", target.id, allow, descend)


def _contact_taken(mover: Tracer, field, unit: Unit, target: Unit) -> bool:
    """True when ``unit`` may end in contact with ``target`` nowhere, for certain: every
    point where :meth:`Tracer.in_contact` holds (centres ``r + r'`` apart, less EPS, to
    ``contact_tolerance`` more) lies well inside another unit's base at a level where
    :meth:`Tracer.end_problem` refuses it (bases never overlap, M5) or well within the
    reach of impassable terrain it refuses (M5), whatever the ground there. False when
    that is not shown (nothing is decided then).

    Bases first, exactly: per base, the angles round the target at which the whole radial
    stretch of contact points lies within ``r + its r - EPS`` of its centre (a disc is
    convex: both ends in it suffice), less a margin; taken when those arcs cover the ring.
    With impassable terrain near: polygons, each inside what it stands for (the bases'
    discs inscribed, the terrain grown by a little less than end_problem's reach), must
    cover a polygon round the ring of contact points (outside it)."""
    R = unit.r + target.r
    lo = R - EPS - 1e-7
    hi = R + float(mover.rs.contact_tolerance) + 1e-9 + 1e-7
    tx, ty = target.x, target.y
    board = mover.board
    # the heights end_problem may find under a contact point: the ground, any piece near
    zs = [0.0]
    if board.tree is not None:
        zs += [
            float(board.terrain[h].height)
            for h in board.tree.query(ShPoint(tx, ty), predicate="dwithin", distance=hi + 1e-3).tolist()
        ]
    lim = mover.free + EPS - 1e-9
    taken, discs = _bases_take_ring(field, unit, tx, ty, lo, hi, zs, lim)
    if taken:
        return True
    if board.tree is None:
        return False
    return _walls_take_ring(board, unit, tx, ty, lo, hi, zs, lim, discs)


def _bases_take_ring(field, unit: Unit, tx: float, ty: float, lo: float, hi: float, zs: list, lim: float):
    """:func:`_contact_taken`'s bases: ``(taken, discs)``, ``taken`` when the angles round
    the target at which a base holds the whole radial stretch of the ring (``lo`` to
    ``hi`` from its centre) cover the ring; ``discs`` ``(x, y, C)``: the bases near it at a
    height that counts, each with the distance ``C`` from its centre within which no base
    may end."""
    arcs, discs = [], []
    for uid, (ox, oy, orad, oz) in field.units.items():
        if uid == unit.id or any(abs(oz - z) > lim for z in zs):
            continue
        C = unit.r + orad - EPS - 1e-7
        D = math.hypot(ox - tx, oy - ty)
        if D < 1e-9 or C <= 0 or D - C > hi:
            continue
        discs.append((ox, oy, C))
        w = _held_half_angle(lo, hi, D, C)
        if w <= 0:
            continue
        if w >= math.pi - 1e-6:
            return True, discs
        a = (math.atan2(oy - ty, ox - tx) - w) % TAU
        if a + 2 * w > TAU:
            arcs += [(a, TAU), (0.0, a + 2 * w - TAU)]
        else:
            arcs.append((a, a + 2 * w))
    arcs.sort()
    covered = 0.0
    for a, b in arcs:
        if a > covered:
            break
        covered = max(covered, b)
    return covered >= TAU, discs


def _held_half_angle(lo: float, hi: float, D: float, C: float) -> float:
    """Half the angle round the target (its centre ``D`` from a base's) within which the
    whole radial stretch from ``lo`` to ``hi`` lies within ``C`` of the base's centre (a
    disc is convex: both ends in it suffice), less a margin; not positive: none."""
    w = math.pi
    for rho in (lo, hi):
        c = overlap_cos(rho, D, C)
        if c > 1.0:
            return -1.0 - 1e-6
        if c > -1.0:
            w = min(w, math.acos(c))
    return w - 1e-6


def _walls_take_ring(board, unit: Unit, tx: float, ty: float, lo: float, hi: float, zs: list, lim: float, discs):
    """:func:`_contact_taken` with impassable terrain near: polygons, each inside what it
    stands for (the bases' discs inscribed, the terrain grown by a little less than
    end_problem's reach), cover a polygon round the ring of contact points (outside it)."""
    grow = unit.r - 1e-4 - 1e-6
    walls = [
        h
        for h in board.tree.query(ShPoint(tx, ty), predicate="dwithin", distance=hi + unit.r).tolist()
        if board.terrain[h].kind == "impassable" and all(z <= float(board.terrain[h].height) + lim for z in zs)
    ]
    if not walls or grow <= 0:
        return False
    if _ring_point_clear(board, tx, ty, (lo + hi) / 2, discs, walls, grow):
        return False
    n = 256
    ang = np.linspace(0.0, TAU, n, endpoint=False)
    cos, sin = np.cos(ang), np.sin(ang)
    out = hi / math.cos(math.pi / n) + 1e-9
    ring = shapely.Polygon(np.c_[tx + out * cos, ty + out * sin], [np.c_[tx + lo * cos, ty + lo * sin]])
    cover = [shapely.Polygon(np.c_[ox + C * cos, oy + C * sin]) for ox, oy, C in discs]
    cover += [board.polygons[h].buffer(grow, quad_segs=64) for h in walls]
    return shapely.difference(ring, shapely.unary_union(cover)).is_empty


#: Points round the ring of contact points that :func:`_ring_point_clear` tries.
_CLEAR_SAMPLES = 32


def _ring_point_clear(board, tx: float, ty: float, m: float, discs, walls, grow: float) -> bool:
    """:func:`_contact_taken`'s polygons cannot cover the ring when one of
    :data:`_CLEAR_SAMPLES` points round the target at radius ``m`` (between the ring's
    radii) lies farther than a base's C from its centre and farther than ``grow`` from
    each wall, by a hair: each cover polygon lies inside what it stands for (a disc
    inscribed, a wall's buffer with its vertices on the curve). A sure no, one small test
    instead of the polygons' union (False: not shown, the polygons decide)."""
    a = np.linspace(0.0, TAU, _CLEAR_SAMPLES, endpoint=False)
    X, Y = tx + m * np.cos(a), ty + m * np.sin(a)
    clear = np.ones(_CLEAR_SAMPLES, dtype=bool)
    for ox, oy, C in discs:
        clear &= np.hypot(X - ox, Y - oy) > C + 1e-7
    if not clear.any():
        return False
    pts = shapely.points(X[clear], Y[clear])
    for h in walls:
        clear_of = shapely.distance(board.polygons[h], pts) > grow + 1e-7
        pts = pts[clear_of]
        if not len(pts):
            return False
    return True


def _xy(tr: Transitions):
    import numpy as np

    return np.stack([tr.X, tr.Y], axis=1)


def _cheaper(a, b):
    """The cheaper of two traces (either may be None)."""
    if a is None or (b is not None and b.cost < a.cost):
        return b
    return a


def _key(tr) -> tuple:
    """Order of preference: needs no check, then cheapest, then fewest checks."""
    return (tr.n_checks > 0, round(tr.cost, 6), tr.n_checks)
