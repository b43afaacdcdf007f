"""Routes: the cheapest legal path to a point over any number of moves.

``route(mover, state, uid, to)`` is ``Mover.plan(to=)`` without an allowance: the way a
unit goes for a place it reaches in later turns (a bot's route; docs/movement.md, "Routes
over several moves"). It runs the same searches of the map's :class:`NavCache` (and
keeps its answers in the same memo), widened in steps as a refusal's measure is. Each
stretch between two transitions is walked as a move would (M4 to M10); where the unit
stops at the end of each turn is the caller's question (``Mover.plan`` of a point on the
route: no unit ends part-way up a ladder or a climb, M6, M10).
"""

from __future__ import annotations

import math
from typing import Sequence

from shapely.geometry import Point as ShPoint

from game.engine.errors import IllegalAction
from game.engine.model import GameState, Unit
from game.engine.movement.nav import NavCache, _cheaper, answer_or_refusal, handed_out
from game.engine.movement.search import SearchContext, SearchGoal, level_step
from game.engine.movement.types import MovePlan, Trace
from game.engine.rule_ids import RuleId
from game.engine.tolerance import EPS


#: A stop this close to a change of level, past a base's radius, is on it (an engine
#: setting): a route over several moves stops between two only with this much room.
STAND_HAIR = 0.05


def route(
    mover,
    state: GameState,
    uid: str,
    to: Sequence[float],
    descend: str = "climb",
    checks: bool = True,
    within: float | None = None,
    longest_move: float | None = None,
) -> MovePlan:
    """The cheapest legal path for ``uid`` to ``to`` over any number of moves: a
    :class:`MovePlan` whose ``allowance`` is its own cost (no allowance applies, so the
    unit may be one that has moved this turn). ``checks``: may it take transitions that
    need a check (M6, M8, M9); without, the cheapest way round them (a ladder, M10).
    ``within``: only a route of at most that many inches (the search is bounded by it).
    ``longest_move``: the longest move the unit makes (its Run, say): only a route whose
    every change of level one such move takes whole, from its foot to a base's width past
    its edge (no move ends part-way up one, M6, M10): a 6" wall is no way for a unit that
    Runs 6", two 3" steps may be.
    Raises IllegalAction when the unit may not end at ``to`` or no path leads there."""
    if descend not in ("climb", "jump"):
        raise IllegalAction(RuleId.M9, f"descend must be climb or jump, not {descend!r}")
    if uid not in state.units:
        raise IllegalAction(RuleId.M1, f"there is no unit {uid!r}")
    unit = state.units[uid]
    if not unit.on_table or unit.status == "incapacitated":
        raise IllegalAction(RuleId.M1, f"{uid} is not on the table or is Incapacitated")
    pts = mover._normalise(unit, [to])
    if len(pts) < 2:
        raise IllegalAction(RuleId.M1, f"the route does not leave [{unit.x:.2f}, {unit.y:.2f}]")
    tr = nav_route(mover.nav, state, unit, pts[-1], descend, checks, within, longest_move)
    pts3 = tuple((x, y, mover.board.height_at(x, y)) for x, y in tr.points)
    return MovePlan(
        unit.id, False, pts3, tr.cost, tr.cost, tuple(tr.transitions), tr.difficult, descend, tr.length, tuple(tr.cum)
    )


def ladder_tops(mover, unit: Unit, longest_move: float | None = None) -> list[tuple[float, float]]:
    """A spot atop each ladder (M10) for ``unit``'s base: on the piece the ladder reaches,
    its centre a radius and :data:`STAND_HAIR` in from the edge nearest the ladder's foot.
    Where a route over several moves may stop on its way up in steps (a 3" hall by its
    ladder, then the 6" tower on it by a 3" climb), whether or not a base may stand there
    now (the route there says). ``longest_move``: only the ladders a move of that many
    inches climbs whole (:func:`.search.level_step`)."""
    step = math.inf if longest_move is None else level_step(float(longest_move), unit.r)
    board = mover.board
    pieces = {t.id: k for k, t in enumerate(board.terrain)}
    out = []
    for lad in mover.ladders:
        k = pieces.get(lad.top)
        if k is None:
            continue
        poly = board.polygons[k]
        if float(board.terrain[k].height) - board.height_at(*lad.foot) > step + EPS:
            continue
        foot = ShPoint(lad.foot)
        edge = poly.exterior.interpolate(poly.exterior.project(foot))
        dx, dy = edge.x - foot.x, edge.y - foot.y
        d = math.hypot(dx, dy)
        if d <= EPS:
            continue
        inward = unit.r + 2 * STAND_HAIR
        out.append((edge.x + dx / d * inward, edge.y + dy / d * inward))
    return out


def nav_route(
    nav: NavCache,
    state: GameState,
    unit: Unit,
    goal: tuple[float, float],
    descend: str,
    checks: bool = True,
    within: float | None = None,
    longest_move: float | None = None,
) -> Trace:
    """:func:`route`'s path (a Trace), from the map's memo when asked before (holding the
    map's lock, as every search of the NavCache does). Its memo (``nav.routes``) keeps one
    :class:`_Bounds` per query whatever its bound: a route asked within 54" answers the
    same asked within 36" when it costs 30", and a refusal within 36" answers within 28"."""
    query = ("route", (float(goal[0]), float(goal[1])), bool(checks), descend, longest_move)
    with nav._lock:
        known = nav.routes.recall(nav.routes.key(query, state, unit), _Bounds)
        answer = known.answer(within)
        if answer is _UNKNOWN:
            answer = answer_or_refusal(lambda: _route(nav, state, unit, goal, descend, checks, within, longest_move))
            known.keep(within, answer)
    if answer is None:
        raise _no_path(unit, goal, within, longest_move)
    return handed_out(answer)


#: :meth:`_Bounds.answer` when the bound asked is one the searches so far do not answer.
_UNKNOWN = object()


class _Bounds:
    """What the searches of one route query (its unit, bases, goal and kind) found, at
    whatever bound each was asked: the cheapest path (it answers every bound it fits,
    and refuses every bound it does not: no path is cheaper), the widest bound with no
    path, or a refusal no bound changes (the unit may not end at the goal)."""

    def __init__(self):
        self.found: Trace | None = None
        self.none_within = -math.inf  # the widest bound searched in vain (inf: unbounded)
        self.refusal: IllegalAction | None = None

    def answer(self, within: float | None):
        """The Trace, None (no path within the bound), the refusal, or :data:`_UNKNOWN`."""
        if self.refusal is not None:
            return self.refusal
        if self.found is not None:
            return self.found if within is None or self.found.cost <= within + EPS else None
        bound = math.inf if within is None else float(within)
        return None if bound <= self.none_within + EPS else _UNKNOWN

    def keep(self, within: float | None, answer) -> None:
        if isinstance(answer, IllegalAction):
            self.refusal = answer
        elif answer is None:
            self.none_within = max(self.none_within, math.inf if within is None else float(within))
        else:
            self.found = answer


def _no_path(unit: Unit, goal, within: float | None, longest_move: float | None) -> IllegalAction:
    bound = f' within {within:.2f}"' if within is not None else ""
    if longest_move is not None:
        bound += f' taking each change of level in a move of {float(longest_move):.2f}"'
    return IllegalAction(
        RuleId.M5,
        f"no legal path{bound} for {unit.id} from [{unit.x:.2f}, {unit.y:.2f}] to [{goal[0]:.2f}, {goal[1]:.2f}]",
    )


def _route(
    nav: NavCache,
    state: GameState,
    unit: Unit,
    goal: tuple[float, float],
    descend: str,
    checks: bool,
    within: float | None,
    longest_move: float | None = None,
) -> Trace | None:
    """The cheapest path, or None when there is none within the bound (:func:`_no_path`
    says so); raises IllegalAction when no bound would change that."""
    ctx, straight, _error = nav._straight_first(state, unit, goal, descend)
    step = math.inf
    if longest_move is not None:
        ctx.longest_move = float(longest_move)
        step = level_step(float(longest_move), unit.r)
    if straight is not None and not _in_moves(straight, step, unit.r):
        straight = None
    if straight is not None and not straight.n_checks:
        return straight  # no path is shorter, and it takes no check
    if not checks:
        straight = None
    start = (unit.x, unit.y)
    target = nav._point_goal(goal)
    tr = _search(nav, ctx, target, start, goal, checks, within, step)
    tr = _cheaper(tr, straight)
    if tr is not None and within is not None and tr.cost > within + EPS:
        tr = None
    return tr


def _in_moves(tr: Trace, step: float, r: float) -> bool:
    """Can moves whose changes of level cost at most ``step`` (:func:`.search.level_step`)
    walk ``tr``: is each that cheap, and is there room to stop between two (a base's width
    and :data:`STAND_HAIR` either side) unless one move takes both? The search leaves out
    the dearer transitions; a straight stretch the tracer checks may still climb one, or
    two with no room between."""
    if step == math.inf:
        return True
    ts = sorted(tr.transitions, key=lambda t: t.s)
    if any(t.cost > step + EPS for t in ts):
        return False
    room = 2 * (r + STAND_HAIR)
    return all(b.s - a.s >= room or a.cost + b.cost + (b.s - a.s) <= step + EPS for a, b in zip(ts, ts[1:]))


def _search(
    nav: NavCache,
    ctx: SearchContext,
    target: SearchGoal,
    start,
    goal,
    checks: bool,
    within: float | None,
    step: float = math.inf,
):
    """The cheapest path the searches find, their bound widened in steps (not a rule):
    every path worth walking is shorter than the last, round the table's edge twice and
    up every piece. A path with checks that the tracer refuses hides none without: that
    search is asked next. A path that moves of ``step`` cannot walk (:func:`_in_moves`) is
    the cheapest there is, with or without checks as it was asked: a wider bound finds it
    again, so only the other kind is searched on. No search without checks is made where
    no band joined to the unit's without a check holds the goal
    (:meth:`.transitions.Transitions.bands_without_checks`)."""
    board = nav.mover.board
    d = math.hypot(goal[0] - start[0], goal[1] - start[1])
    tall = max((float(t.height) for t in board.terrain), default=0.0)
    last = 4.0 * (board.width + board.height) + sum(float(t.height) for t in board.terrain)
    limits = (1.5 * d + 2 * tall + 4, 3 * d + 4 * tall + 8, last)
    if within is not None:
        limits = tuple(lim for lim in limits if lim < within) + (float(within),)
    kinds = [True, False] if checks else [False]
    here = nav.band_at(*start)
    if (
        here is not None
        and target.bands
        and not target.bands & nav.layer(ctx.unit.r).trans.bands_without_checks(here, ctx.ladders, step)
    ):
        kinds.remove(False)  # no way there without a check: no search without checks finds one
    for limit in limits:
        for with_checks in list(kinds):
            tr = nav._traced_path(ctx, target, min(limit, last), with_checks, False)
            if tr is None:
                continue
            if _in_moves(tr, step, ctx.unit.r):
                return tr
            kinds.remove(with_checks)
    return None
