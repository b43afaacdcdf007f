"""The Move phase (M1-M12): allowances, legal paths, resolution with dice.

``Mover(scenario, board)`` answers, for a unit and a path (``path=``) or a
destination (``to=``): is the move legal (else :class:`IllegalAction` naming the rule
and the numbers), what does it cost against which allowance, and which checks does it
need in which order. :meth:`Mover.apply` then resolves it with dice.

The model is 2.5-D: a path is a polyline in x, y; the height under every point is the
board's surface height. Every change of height along the path is a *transition*:

* ``free``       |dz| <= free_height (M4): no cost, no check;
* ``ladder``     the edge is crossed within ``ladder_reach`` of a ladder's foot (M10):
                 vertical inches paid, no check; never for Animals;
* ``climb_up`` / ``climb_down``  (M6): vertical inches paid, Agility check;
* ``jump_down``  (M9, ``descend="jump"``): no vertical cost, Agility check with
                 Disadvantage from ``jump_down_disadvantage_from``; the unit is in the
                 air for ``jump_down_landing_max`` inches after the ledge (bases there do
                 not block it);
* ``jump_gap``   (M8): the path drops more than free_height and comes back up within
                 ``jump_gap_max`` inches to within ``jump_height_max`` of the height it
                 left, with no waypoint inside the gap: horizontal inches only, check.

A wall (kind ``wall``) higher than free_height has a top that cannot be stood on: it is
climbed over (up, then down on the far side) when the path crosses its top in at most
``wall_climb_max_thickness`` inches, and is impossible otherwise. Impassable terrain is
never entered. See docs/movement.md.
"""

from __future__ import annotations

import contextlib
import math
import threading
from typing import Sequence

from game.engine.dice import Dice
from game.engine.errors import IllegalAction, UnmeasuredRefusal, as_value
from game.engine.events import CheckFell, ClimbStopped, FallRolled, GapJumpFailed
from game.engine.geometry import Board
from game.engine.model import STATUSES, GameState, Scenario, Unit
from game.engine.movement.nav import NavCache
from game.engine.movement.tracer import Tracer, stands_in_difficult
from game.engine.movement.types import Allowance, MoveOutcome, MovePlan, Reach, Trace, Transition, point_at
from game.engine.rule_ids import RuleId
from game.engine.tolerance import EPS


def engage_inches(rs, u: Unit, status: str | None = None) -> float:
    """E1: how far ``u`` may move to Engage with ``status`` (default: its own), before M12:
    Move x engage_move_factor, x staggered_move_factor when Staggered; 0 when it may not
    Engage at all (Stunned, Dazed: U5; Incapacitated). Also for a bot weighing a status a
    unit will have next turn."""
    status = status or u.status
    if status in ("stunned", "dazed", "incapacitated"):
        return 0.0
    inches = float(u.stats.get("move", 0)) * float(rs.engage_move_factor)
    return inches * float(rs.staggered_move_factor) if status == "staggered" else inches


def engage_gap(u: Unit, t: Unit) -> float:
    """E1's cheap bound: the inches between the two bases' edges in a straight line across
    the table (no height). No path into contact is shorter than this less the contact
    tolerance (G4): a path may end that far short of touching, and every inch along it is
    paid."""
    return max(0.0, math.hypot(u.x - t.x, u.y - t.y) - u.r - t.r)


def engage_within(gap: float, inches: float, contact: float) -> bool:
    """Whether an Engage over ``gap`` (:func:`engage_gap`) may fit ``inches`` (the largest
    allowance, before M12), a path ending up to ``contact`` (``contact_tolerance``, G4)
    short of touching. False means refused for certain, without a path search."""
    return gap - contact <= inches + 1e-9


def past_difficult(tracer: Tracer, unit: Unit, target: Unit, allow: Allowance) -> bool:
    """M12 by the straight-line bound, for a verdict: a unit whose base touches difficult
    ground where it stands crosses it on every path (the tracer's test of a path includes
    its start), so every path has M12's allowance, and no path into contact is shorter
    than the straight line (:func:`engage_within`, with a margin against rounding).
    Beyond that no path fits: refused without a search (measured only if it is told)."""
    return not engage_within(
        engage_gap(unit, target), allow.total(True) + 1e-6, float(tracer.rs.contact_tolerance)
    ) and stands_in_difficult(tracer, unit)


def engaged_refusal(u: Unit) -> IllegalAction:
    """E2: an Engaged unit may not move or Run in the Move phase."""
    return IllegalAction(
        RuleId.E2, f"{u.id} is Engaged with {', '.join(u.engaged_with)} and may not move or Run (it may Reload, M11)"
    )


def may_engage(rs, u: Unit, t: Unit, status: str | None = None) -> bool:
    """The bound for a bot's engage candidates: ``u`` (with ``status``) might reach ``t``
    with an Engage (E1); False when no path could, True when a search must say."""
    return engage_within(engage_gap(u, t), engage_inches(rs, u, status), float(rs.contact_tolerance))


class _Asking(threading.local):
    """What the questions of this thread want (clones of a game share its mover):
    ``verdicts``, only whether an Engage is legal (:meth:`Mover.verdicts`)."""

    verdicts = False

    @contextlib.contextmanager
    def only_verdicts(self, on: bool):
        before, self.verdicts = self.verdicts, on
        try:
            yield
        finally:
            self.verdicts = before


class Mover(Tracer):
    """Movement rules for one scenario's map. Build once per map (nav is cached)."""

    def __init__(self, scenario: Scenario, board: Board, cell: float | None = None):
        super().__init__(scenario, board)
        self._cell = cell
        self._radii = {u.r for u in scenario.state.units.values()}
        self._nav: NavCache | None = None
        self._nav_lock = threading.Lock()
        self._asking = _Asking()

    def verdicts(self):
        """A context: within it, an Engage that does not fit is refused with
        :class:`UnmeasuredRefusal`, whose measured refusal is worked out only when asked
        (``measure()``), and its verdict comes without the wider search
        (:meth:`NavCache.contact_verdict`). For questions that list what is legal
        (:meth:`Game.legal_actions`)."""
        return self._asking.only_verdicts(True)

    @property
    def nav(self) -> NavCache:
        """The map's navigation structures, built when a path is first searched for (a
        question answered without a search, such as an Engage refused by the straight-line
        bound, does not build them; a game on a map prepared before takes them from it)."""
        nav = self._nav
        if nav is None:
            with self._nav_lock:
                nav = self._nav
                if nav is None:
                    nav = NavCache(self, cell=self._cell)
                    nav.prepare(self._radii)
                    self._nav = nav
        return nav

    # --- allowance (M1, M2, M11, M12) --------------------------------------------------------
    def failure_falls(self, t: Transition) -> bool:
        """Does a failed check of ``t`` make the unit Fall (M7)? A climb up does not (M6:
        at the foot, its movement ends), nor a climb down unless the ruleset says so (M6's
        open reading); a jump does (M8, M9)."""
        if t.kind == "climb_up":
            return False
        if t.kind == "climb_down":
            return self.rs.climb_down_fail != "stop"
        return True

    def run_denial(self, state: GameState, uid: str) -> IllegalAction | None:
        u = state.units[uid]
        if u.carrying:
            return IllegalAction(RuleId.U6, f"run denied: {uid} carries treasure {u.carrying} (a carrier may not Run)")
        nearest = self.run_denier(state, u)
        if nearest:
            limit = float(self.rs.run_denial_range)
            return IllegalAction(RuleId.M2, f'run denied: {nearest[1]} is {nearest[0]:.2f}" away ({limit:g}" or less)')
        return None

    def run_denier(self, state: GameState, u: Unit, discs: dict | None = None) -> tuple[float, str] | None:
        """M2 as a yes/no for those who ask it often (the planner's evaluation): the nearest
        opposing unit within ``run_denial_range`` of ``u`` (inclusive, G3) as ``(distance,
        id)``, or None. Carrying (U6) is :meth:`run_denial`'s. ``discs``: the active units'
        :class:`Disc` by id, when the caller has them (then only those are looked at). The
        gap across the table is a lower bound of the distance (G2: height only adds to
        it), so it is asked first."""
        limit = float(self.rs.run_denial_range) + 1e-9
        board, units, opposing = self.board, state.units, self.opposing
        if discs is None:
            discs = {o.id: board.disc(o) for o in units.values() if o.active and o.id != u.id and opposing(u, o)}
            du = board.disc(u)
        else:
            du = discs[u.id]
        x, y, r = du.x, du.y, du.r
        nearest = None
        for oid, do in discs.items():
            if oid == u.id or math.hypot(x - do.x, y - do.y) - r - do.r > limit or not opposing(u, units[oid]):
                continue
            d = board.distance(du, do)
            if d <= limit and (nearest is None or d < nearest[0]):
                nearest = (d, oid)
        return nearest

    def allowance(self, state: GameState, uid: str, run: bool = False, engage: bool = False) -> Allowance:
        """How far the unit may move now (M1, M2, M11, E2), or Engage (``engage``: E1, U5);
        M12's penalty is taken off by :meth:`Allowance.total`."""
        if uid not in state.units:
            raise IllegalAction(RuleId.E1 if engage else RuleId.M1, f"there is no unit {uid!r}")
        u = state.units[uid]
        if not u.on_table:
            raise IllegalAction(RuleId.M1, f"{uid} is not on the table")
        if u.status == "incapacitated":
            raise IllegalAction(RuleId.M1, f"{uid} is Incapacitated")
        if engage:
            return self._engage_allowance(u, run)
        if u.status == "stunned":
            raise IllegalAction(RuleId.M1, f"{uid} is Stunned and cannot move")
        if u.engage_attempted:
            raise IllegalAction(RuleId.M1, f"{uid} attempted to Engage this turn and cannot move")
        if u.reloaded:
            raise IllegalAction(RuleId.M11, f"{uid} reloaded this turn instead of moving")
        if u.used > 0 or u.moved:
            raise IllegalAction(RuleId.M1, f'{uid} has already moved this phase ({u.used:.2f}" used)')
        if u.engaged_with:
            raise engaged_refusal(u)
        move = float(u.stats.get("move", 0))
        inches = move
        notes = []
        if u.status == "staggered":
            inches *= float(self.rs.staggered_move_factor)
            notes.append(f"staggered x{self.rs.staggered_move_factor:g}")
        elif u.status == "dazed":
            if self.rs.dazed_move == "none":
                raise IllegalAction(RuleId.M1, f"{uid} is Dazed and cannot move (dazed_move: none)")
            inches *= float(self.rs.dazed_move_factor)
            notes.append(f"dazed x{self.rs.dazed_move_factor:g}")
        if run:
            denied = self.run_denial(state, uid)
            if denied is not None:
                raise denied
            inches *= float(self.rs.run_multiplier)
            notes.append(f"run x{self.rs.run_multiplier:g}")
        return Allowance(uid, run, move, inches, float(self.rs.difficult_penalty), tuple(notes))

    def _engage_allowance(self, u: Unit, run: bool) -> Allowance:
        """E1: Move x engage_move_factor, Staggered at half, never a Run; not after moving or
        an earlier attempt, not Stunned or Dazed (U5)."""
        if u.status in ("stunned", "dazed"):
            raise IllegalAction(RuleId.U5, f"{u.id} is {u.status.capitalize()} and may not Engage")
        if u.engage_attempted:
            raise IllegalAction(RuleId.E1, f"{u.id} already attempted to Engage this turn")
        if u.used > 0 or u.moved:
            raise IllegalAction(
                RuleId.E1, f'{u.id} has already moved this turn ({u.used:.2f}" used) and may not Engage'
            )
        if run:
            raise IllegalAction(RuleId.E1, f"{u.id} may not Run into an Engage")
        move = float(u.stats.get("move", 0))
        factor = float(self.rs.engage_move_factor)
        notes = [f"engage x{factor:g}"] if factor != 1 else []
        if u.status == "staggered":
            notes.append(f"staggered x{self.rs.staggered_move_factor:g}")
        return Allowance(u.id, False, move, engage_inches(self.rs, u), float(self.rs.difficult_penalty), tuple(notes))

    def plan(
        self,
        state: GameState,
        uid: str,
        to: Sequence[float] | None = None,
        path: Sequence[Sequence[float]] | None = None,
        run: bool = False,
        descend: str = "climb",
    ) -> MovePlan:
        """Check a move (``path``: exactly that polyline; ``to``: the cheapest legal path)."""
        if descend not in ("climb", "jump"):
            raise IllegalAction(RuleId.M9, f"descend must be climb or jump, not {descend!r}")
        allow = self.allowance(state, uid, run)
        unit = state.units[uid]
        if (to is None) == (path is None):
            raise IllegalAction(RuleId.M1, "give either a destination (to) or a path, not both or neither")
        pts = self._normalise(unit, path if path is not None else [to])
        if len(pts) < 2:
            raise IllegalAction(RuleId.M1, f"the move does not leave [{unit.x:.2f}, {unit.y:.2f}]")
        if path is not None:
            tr = self.check_path(state, unit, pts, descend)
        else:
            tr = self.nav.find(state, unit, pts[-1], allow, descend)
        return self._finish(unit, allow, tr, descend, given=path is not None)

    def plan_engage(
        self,
        state: GameState,
        uid: str,
        target_id: str,
        path: Sequence[Sequence[float]] | None = None,
        descend: str = "climb",
    ) -> MovePlan:
        """E1: the cheapest legal way into base contact with ``target_id`` (G4: edge to edge
        within contact_tolerance, at the target's level within free_height, the end spot
        free), or exactly ``path`` (which must end in contact). Every Move-phase rule holds
        on the way (M4-M10, M5 for every base: the target blocks until contact); the
        allowance is :meth:`allowance` with ``engage=True`` (M12 after every modifier).

        A target beyond the largest allowance in a straight line (:func:`engage_within`:
        no path is shorter than the straight line) is refused at once with that distance,
        before any path search; otherwise the refusal names the cheapest path's cost."""
        if descend not in ("climb", "jump"):
            raise IllegalAction(RuleId.M9, f"descend must be climb or jump, not {descend!r}")
        allow = self.allowance(state, uid, engage=True)
        unit = state.units[uid]
        target = self._engage_target(state, unit, target_id)
        if path is None:
            if self.in_contact(unit.x, unit.y, unit, target):
                pts3 = ((unit.x, unit.y, self.board.height_at(unit.x, unit.y)),)
                return MovePlan(
                    uid, False, pts3, 0.0, allow.total(False), (), False, descend, 0.0, (0.0,), engage=target.id
                )
            self.refuse_far_engage(unit, target, allow)
            if self._asking.verdicts:
                tr = (
                    None
                    if past_difficult(self, unit, target, allow)
                    else self.nav.contact_verdict(state, unit, target, allow, descend)
                )
                if tr is None:
                    raise UnmeasuredRefusal(
                        RuleId.E1,
                        f"no way into contact with {target.id} fits {unit.id}'s {allow.inches:g}\" (not measured)",
                        lambda: self._measured_engage(state, uid, target_id, descend),
                    )
            else:
                tr = self.nav.find_contact(state, unit, target, allow, descend)
            return self._finish(unit, allow, tr, descend, engage=target.id)
        pts = self._normalise(unit, path)
        if len(pts) < 2:
            if self.in_contact(unit.x, unit.y, unit, target):
                pts3 = ((unit.x, unit.y, self.board.height_at(unit.x, unit.y)),)
                return MovePlan(
                    uid, False, pts3, 0.0, allow.total(False), (), False, descend, 0.0, (0.0,), engage=target.id
                )
            raise IllegalAction(
                RuleId.E1,
                f"the Engage of {uid} does not leave [{unit.x:.2f}, {unit.y:.2f}] "
                f'and {target.id} is {self.board.distance(unit, target):.2f}" away',
            )
        tr = self.check_path(state, unit, pts, descend)
        ex, ey = tr.points[-1]
        if not self.in_contact(ex, ey, unit, target):
            gap = math.hypot(ex - target.x, ey - target.y) - unit.r - target.r
            dz = abs(self.board.height_at(ex, ey) - self.board.height_at(target.x, target.y))
            where = f'{gap:.2f}" from {target.id}' + (f', {dz:.2f}" below or above it' if dz > self.free + EPS else "")
            raise IllegalAction(
                RuleId.E1,
                f"the path of {uid} ends {where}, not in base contact "
                f'({float(self.rs.contact_tolerance):g}" or less, at its level)',
            )
        return self._finish(unit, allow, tr, descend, engage=target.id, given=True)

    def _measured_engage(self, state: GameState, uid: str, target_id: str, descend: str) -> IllegalAction | None:
        """The refusal of an Engage as ``apply`` gives it, measured (None: it is legal)."""
        with self._asking.only_verdicts(False):
            try:
                self.plan_engage(state, uid, target_id, descend=descend)
            except IllegalAction as exc:
                return as_value(exc)
        return None

    def refuse_far_engage(self, unit: Unit, target: Unit, allow: Allowance) -> None:
        """E1 by the straight-line bound: raises when ``target`` lies beyond ``allow``'s
        inches (before M12, the most any path may cost) edge to edge in a straight line,
        less the contact tolerance (G4) a path may end short of touching."""
        gap = engage_gap(unit, target)
        if not engage_within(gap, allow.inches, float(self.rs.contact_tolerance)):
            raise IllegalAction(
                RuleId.E1,
                f'{target.id} is {gap:.2f}" away in a straight line, base edge to base edge: '
                f'beyond any path into contact ({unit.id} may engage up to {allow.inches:g}")',
            )

    def _engage_target(self, state: GameState, unit: Unit, target_id: str) -> Unit:
        target = state.units.get(target_id)
        if target is None:
            raise IllegalAction(RuleId.E1, f"there is no unit {target_id!r} to Engage")
        if target.id == unit.id:
            raise IllegalAction(RuleId.E1, f"{unit.id} cannot Engage itself")
        if not self.opposing(unit, target):
            raise IllegalAction(RuleId.E1, f"{target.id} is in {unit.id}'s own warband")
        if not target.on_table:
            raise IllegalAction(RuleId.E1, f"{target.id} is not on the table")
        if target.status == "incapacitated":
            raise IllegalAction(RuleId.E1, f"{target.id} is Incapacitated")
        return target

    def _finish(
        self, unit: Unit, allow: Allowance, tr: Trace, descend: str, engage: str | None = None, given: bool = False
    ) -> MovePlan:
        total = allow.total(tr.difficult)
        if tr.cost > total + 1e-9:
            pen = f' (difficult ground -{allow.difficult_penalty:g}")' if tr.difficult else ""
            rule = RuleId.M12 if tr.difficult and tr.cost <= allow.inches + 1e-9 else None
            if engage is not None:
                what = (
                    f"the path into contact with {engage} costs"
                    if given
                    else f"the cheapest way into contact with {engage} is"
                )
                raise IllegalAction(
                    rule or RuleId.E1, f'{what} {tr.cost:.2f}" ({unit.id} may engage up to {total:g}"{pen})'
                )
            # The real limit, in numbers: what the (cheapest) path costs, what of it is
            # climbing or ladders, against which allowance.
            what = "the path costs" if given else "the cheapest path costs"
            up = sum(t.cost for t in tr.transitions)
            part = f' ({up:.2f}" of it climbing)' if up > 1e-9 else ""
            limit = f'more than the {total:.2f}" {"Run" if allow.run else "Move"} allowance{pen}'
            rule = RuleId.M12 if tr.difficult else (RuleId.M2 if allow.run else RuleId.M1)
            raise IllegalAction(rule, f'{what} {tr.cost:.2f}"{part}, {limit}')
        pts3 = tuple((x, y, self.board.height_at(x, y)) for x, y in tr.points)
        return MovePlan(
            unit.id,
            allow.run,
            pts3,
            tr.cost,
            total,
            tuple(tr.transitions),
            tr.difficult,
            descend,
            tr.length,
            tuple(tr.cum),
            engage=engage,
        )

    # --- resolution --------------------------------------------------------------------------------
    def apply(self, state: GameState, plan: MovePlan, dice: Dice) -> MoveOutcome:
        """Resolve a plan: roll its checks in path order, move the unit, fall (M7)."""
        u = state.units[plan.unit]
        if math.hypot(u.x - plan.points[0][0], u.y - plan.points[0][1]) > EPS:
            raise IllegalAction(
                RuleId.M1,
                f"the plan for {u.id} starts at [{plan.points[0][0]:.2f}, {plan.points[0][1]:.2f}], "
                f"not where the unit stands",
            )
        self.allowance(
            state, u.id, plan.run, engage=plan.engage is not None
        )  # still allowed (raises before any change)
        pts = [(p[0], p[1]) for p in plan.points]
        cum = list(plan.cum)
        out = MoveOutcome(u.id, plan.end)
        stop_s = plan.length
        final = plan.end
        fall = 0.0
        rs = self.rs
        agility = float(u.stats.get("agility", 0))
        for t in plan.transitions:
            if not t.needs_check:
                continue
            what = t.describe()
            roll = dice.check(
                rs,
                agility,
                reason=f"{what} at [{t.at[0]:.2f}, {t.at[1]:.2f}]",
                rule=t.rule,
                unit=u.id,
                stat="agility",
                disadvantage=t.disadvantage,
            )
            out.rolls.append(roll)
            if roll.success:
                continue
            out.completed = False
            if t.kind == "jump_gap":
                stop_s, fall = self._gap_fall(state, u, pts, cum, t, out)
                final = point_at(pts, cum, stop_s)
                break
            if not self.failure_falls(t):
                stop_s = max(0.0, t.s - u.r)
                out.events.append(ClimbStopped(RuleId.M6, "up" if t.kind == "climb_up" else "down", t.piece))
            else:  # climb_down with the fall variant, jump_down
                stop_s = min(plan.length, t.s + u.r)
                fall = t.height
                out.events.append(CheckFell(t.rule, t.kind, fall))
            stop_s = self._free_spot(state, u, pts, cum, stop_s, forward=t.kind == "jump_down" or fall > 0)
            final = point_at(pts, cum, stop_s)
            break
        # Cost actually paid: horizontal up to the stop plus vertical of transitions passed.
        if out.completed:
            paid = plan.cost
            moved = pts
        else:
            paid = stop_s + sum(t.cost for t in plan.transitions if t.s < stop_s - EPS and t.cost)
            moved = [p for p, c in zip(pts, cum) if c < stop_s - EPS] + [final]
        out.final = final
        out.cost = paid
        u.x, u.y = final
        if plan.engage is not None:
            u.engage_attempted = True  # E1: the attempt is spent; the engage rule makes both Engaged
        else:
            u.moved = True
        if plan.run:
            u.ran = True
        u.used += paid
        u.difficult = u.difficult or (plan.difficult if out.completed else self.touches_difficult(u, moved))
        u.trail.append([(float(x), float(y)) for x, y in moved])
        if fall > 0:
            self._fall(u, fall, dice, out)
        return out

    def _free_spot(
        self,
        state: GameState,
        u: Unit,
        pts,
        cum,
        s: float,
        forward: bool,
        lo: float = 0.0,
        hi: float | None = None,
        default: float | None = 0.0,
    ) -> float | None:
        """The nearest arc length to s (backwards first, or forwards first) within [lo, hi]
        at the height found at s, where the base may end (M5, M6); ``default`` when there
        is none: a unit stopped by a failed check never ends on another base."""
        step = 0.05
        total = cum[-1] if hi is None else min(hi, cum[-1])

        z0 = self.board.height_at(*point_at(pts, cum, s))

        def clear(q: float) -> bool:
            x, y = point_at(pts, cum, q)
            z = self.board.height_at(x, y)
            if abs(z - z0) > EPS or self.end_problem(state, u, x, y) is not None:
                return False
            return True

        if lo <= s <= total and clear(s):
            return s
        n = int(max(s - lo, total - s) / step) + 2
        for i in range(1, n):
            for q in (s + i * step, s - i * step) if forward else (s - i * step,):
                if lo <= q <= total and clear(q):
                    return q
        return default

    def _gap_fall(self, state: GameState, u: Unit, pts, cum, t, out: MoveOutcome) -> tuple[float, float]:
        """A failed gap jump (M8: Fall): where the unit ends (an arc length of the path) and
        how far it falls. It falls into the gap, to the nearest spot of the gap's floor
        where its base may stand; with no such spot (the gap narrower than the base, a
        floor of impassable ground, other bases there) the rules are silent and the
        ruling ``gap_fall_no_room`` says: ``fall_back`` (default) - it Falls the gap's
        depth and is put back on the ledge it jumped from, at the edge; ``stop`` - no
        Fall, it stays on the ledge at the edge, as a failed climb up. The move ends."""
        depth = t.z_from - self._floor(pts, cum, t.s, t.s + t.gap)
        inside = self._free_spot(
            state, u, pts, cum, t.s + t.gap / 2, forward=True, lo=t.s, hi=t.s + t.gap, default=None
        )
        if inside is not None:
            fall = t.z_from - self.board.height_at(*point_at(pts, cum, inside))
            out.events.append(GapJumpFailed(RuleId.M8, "into_gap", fall))
            return inside, fall
        ruling = self.rs.gap_fall_no_room
        back = self._free_spot(state, u, pts, cum, max(0.0, t.s - u.r), forward=False)
        x, y = point_at(pts, cum, back)
        why = f"no room in the gap for its {u.base_mm:g} mm base (ruling gap_fall_no_room: {ruling})"
        if ruling == "stop":
            out.events.append(GapJumpFailed(RuleId.M8, "stays", 0.0, why, (x, y)))
            return back, 0.0
        out.events.append(GapJumpFailed(RuleId.M8, "put_back", depth, why, (x, y)))
        return back, depth

    def _floor(self, pts, cum, s0: float, s1: float) -> float:
        lo = None
        n = max(2, int((s1 - s0) / 0.1) + 1)
        for i in range(n + 1):
            x, y = point_at(pts, cum, s0 + (s1 - s0) * i / n)
            z = self.board.height_at(x, y)
            lo = z if lo is None else min(lo, z)
        return lo or 0.0

    def _fall(self, u: Unit, height: float, dice: Dice, out: MoveOutcome) -> None:
        """M7: d20 on the Injury chart, + modifier per full inch above fall_free_height."""
        rs = self.rs
        extra = max(0, math.floor(height - float(rs.fall_free_height) + 1e-9))
        mod = int(extra * rs.fall_modifier_per_inch)
        roll = dice.roll(int(rs.injury_die), f'fall of {height:.2f}" (+{mod})', rule=RuleId.M7, unit=u.id)
        roll = dice.amend(roll, modifier=mod)
        out.rolls.append(roll)
        result = rs.injury_result(roll.kept + mod)
        placeholder = bool(rs.get("injury_table_placeholder"))
        out.events.append(FallRolled(RuleId.M7, height, roll.kept, mod, result, placeholder))
        if result == "none":
            return
        if STATUSES.index(result) > STATUSES.index(u.status):
            u.status = result
        if result == "incapacitated":
            out.incapacitated.append(u.id)

    # --- reachable area -------------------------------------------------------------------------------
    def reachable(self, state: GameState, uid: str, descend: str = "climb", exact: bool = True) -> Reach:
        """Where ``uid`` may end a move now (walk and Run, with and without checks);
        ``exact=False``: a quicker area that may cut corners (``NavCache.reach``)."""
        walk = self.allowance(state, uid, False)
        denied = self.run_denial(state, uid)
        run = None if denied else self.allowance(state, uid, True)
        return self.nav.reach(state, state.units[uid], walk, run, denied, descend, exact)
