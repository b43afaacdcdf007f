"""The exact path tracer: a polyline's height profile, its transitions and its checks.

:class:`Tracer` classifies every change of height along a path (M4 free, M6 climbs, M8
gap jumps, M9 jumps down, M10 ladders, walls climbed over) and checks the base against
terrain and other bases (M5) and the end of the move (M5, M6). It is the last word on a
path: the search (:mod:`.nav`) only ever returns paths it accepts.
"""

from __future__ import annotations

import math
from dataclasses import replace
from operator import attrgetter
from typing import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry import Point as ShPoint

from game.engine.errors import IllegalAction, as_value
from game.engine.geometry import Board
from game.engine.model import BLOCKING_STATUSES, GameState, Scenario, Unit
from game.engine.movement.bases import BaseField, contact_interval
from game.engine.movement.geom import first_exit
from game.engine.movement.types import Point, Transition, minus_intervals, point_at, Stretch, sub_line, Trace
from game.engine.rule_ids import RuleId
from game.engine.tolerance import EPS


#: Base indexes (:meth:`Tracer.base_field`) and traces (:meth:`Tracer.trace`) kept.
FIELDS = 64
TRACES = 4096
#: Answers of end_problem's questions of the map kept (all dropped when full).
ENDS = 16384
#: The fields of a unit that :meth:`Tracer.trace` reads (its id and base size name it in a
#: refusal; its radius, status and keywords decide). A field read there later must be added.
TRACE_FIELDS = ("id", "r", "base_mm", "status", "keywords")
_get_trace_fields = attrgetter(*TRACE_FIELDS)


def _trace_fields(u: Unit) -> tuple:
    """The unit's :data:`TRACE_FIELDS`, lists as tuples (hashable)."""
    return tuple(tuple(v) if type(v) is list else v for v in _get_trace_fields(u))


def copy_trace(tr: Trace) -> Trace:
    """A copy of ``tr`` its caller may change (its lists and stretches its own)."""
    return Trace(
        list(tr.points),
        list(tr.cum),
        tr.length,
        list(tr.transitions),
        tr.vertical,
        tr.difficult,
        list(tr.airborne),
        [replace(st) for st in tr.stretches],
    )


class Tracer:
    """Path tracing and base checks for one scenario's map."""

    def __init__(self, scenario: Scenario, board: Board):
        self.scenario = scenario
        self.board = board
        self.rs = scenario.ruleset
        self.ladders = list(scenario.ladders)
        self._raised = {i for i, t in enumerate(board.terrain) if t.solid and t.height > 0}
        self._fields: dict[tuple, BaseField] = {}  # recent base indexes, by where the bases stand
        self._traces: dict[tuple, Trace | IllegalAction] = {}  # recent traces, by what they read
        self._ends: dict[tuple, object] = {}  # end_problem's answers on the map alone, by spot and unit

    # --- parameters ----------------------------------------------------------------------
    @property
    def free(self) -> float:
        return float(self.rs.free_height)

    def _is_wall_top(self, piece: int | None) -> bool:
        if piece is None:
            return False
        t = self.board.terrain[piece]
        return t.kind == "wall" and t.height > self.free + EPS

    # --- who is who ------------------------------------------------------------------------
    @staticmethod
    def opposing(a: Unit, b: Unit) -> bool:
        """Units of different warbands oppose each other (Neutrals oppose everyone)."""
        return a.warband != b.warband

    def blockers(self, state: GameState, unit: Unit) -> list[str]:
        """M5: enemy bases, and friendly bases that are Engaged, Stunned or Dazed."""
        out = []
        for uid, o in state.units.items():
            if uid == unit.id or not o.active:
                continue
            if self.opposing(unit, o) or o.status in BLOCKING_STATUSES or o.engaged_with:
                out.append(uid)
        return out

    def base_field(self, state: GameState) -> BaseField:
        """An index of every active base (:class:`BaseField`). The most recent
        :data:`FIELDS` are kept by where the bases stand (a field is only read once built):
        a planner's rollouts start from the same positions again and again."""
        key = tuple((uid, u.x, u.y, u.r, u.active) for uid, u in state.units.items())
        fields = self._fields
        field = fields.pop(key, None)
        if field is None:
            field = BaseField(self.board, state)
            if len(fields) >= FIELDS:
                del fields[next(iter(fields))]  # the one asked for least recently
        fields[key] = field
        return field

    # --- tracing a path ---------------------------------------------------------------------------
    def _profile(self, points: Sequence[Point], cum: Sequence[float]) -> list[Stretch]:
        """The surface under the path: stretches of one piece (or the table) and height."""
        board = self.board
        stretches: list[Stretch] = []
        ks = [k for k in range(1, len(points)) if cum[k] - cum[k - 1] > EPS]
        cuts: dict[int, set[float]] = {k: {0.0, 1.0} for k in ks}
        if board.tree is not None and ks:
            # every segment against every raised piece at once: the crossings cut the segment
            A = np.array([points[k - 1] for k in ks], dtype=float)
            B = np.array([points[k] for k in ks], dtype=float)
            lines = shapely.linestrings(np.stack([A, B], axis=1))
            si, pi = board.tree.query(lines, predicate="intersects")
            raised = np.array([int(i) in self._raised for i in pi.tolist()], dtype=bool)
            si, pi = si[raised], pi[raised]
            if len(si):
                inter = shapely.intersection(lines[si], np.asarray(board.polygons, dtype=object)[pi])
                xy, owner = shapely.get_coordinates(inter, return_index=True)
                seg = si[owner]
                d = B[seg] - A[seg]
                t = ((xy[:, 0] - A[seg, 0]) * d[:, 0] + (xy[:, 1] - A[seg, 1]) * d[:, 1]) / (d * d).sum(axis=1)
                for j, tt in zip(seg.tolist(), t.tolist()):
                    if 0.0 < tt < 1.0:
                        cuts[ks[j]].add(tt)
        for k in ks:
            (ax, ay), (bx, by) = points[k - 1], points[k]
            seg = cum[k] - cum[k - 1]
            ts = sorted(cuts[k])
            for t0, t1 in zip(ts, ts[1:]):
                if t1 - t0 <= 1e-12:
                    continue
                m = (t0 + t1) / 2
                mx, my = ax + (bx - ax) * m, ay + (by - ay) * m
                piece = board.piece_at(mx, my)
                pi = board.by_id[piece.id] if piece is not None else None
                z = float(piece.height) if piece is not None else 0.0
                s0, s1 = cum[k - 1] + t0 * seg, cum[k - 1] + t1 * seg
                if stretches and stretches[-1].z == z and stretches[-1].piece == pi:
                    stretches[-1].s1 = s1
                else:
                    stretches.append(Stretch(s0, s1, z, pi, self._is_wall_top(pi)))
        if not stretches:
            x, y = points[0]
            piece = board.piece_at(x, y)
            pi = board.by_id[piece.id] if piece is not None else None
            stretches.append(Stretch(0.0, 0.0, float(piece.height) if piece else 0.0, pi, self._is_wall_top(pi)))
        return stretches

    def _ladder_at(self, at: Point, block: int | None, unit: Unit) -> str | None:
        if block is None or not self.ladders:
            return None
        if unit.is_animal and not self.rs.animals_use_ladders:
            return None
        bid = self.board.terrain[block].id
        reach = float(self.rs.ladder_reach)
        for lad in self.ladders:
            if lad.top == bid and math.hypot(lad.foot[0] - at[0], lad.foot[1] - at[1]) <= reach + EPS:
                return lad.id
        return None

    def _step(
        self, unit: Unit, s: float, at: Point, z0: float, z1: float, p0: int | None, p1: int | None, descend: str
    ) -> Transition:
        dz = z1 - z0
        rs = self.rs
        name = lambda p: self.board.terrain[p].id if p is not None else None  # noqa: E731
        if abs(dz) <= self.free + EPS:
            return Transition("free", at, s, abs(dz), z0, z1, rule=RuleId.M4, piece=name(p1 if dz > 0 else p0))
        if dz > 0:
            lad = self._ladder_at(at, p1, unit)
            if lad:
                return Transition("ladder", at, s, dz, z0, z1, rule=RuleId.M10, piece=lad, cost=dz)
            self._no_dazed(unit, "climb", RuleId.M6)
            return Transition("climb_up", at, s, dz, z0, z1, needs_check=True, rule=RuleId.M6, piece=name(p1), cost=dz)
        lad = self._ladder_at(at, p0, unit)
        if lad:
            return Transition("ladder", at, s, -dz, z0, z1, rule=RuleId.M10, piece=lad, cost=-dz)
        if descend == "jump":
            self._no_dazed(unit, "jump", RuleId.M9)
            dis = -dz >= float(rs.jump_down_disadvantage_from) - EPS
            return Transition(
                "jump_down", at, s, -dz, z0, z1, needs_check=True, disadvantage=dis, rule=RuleId.M9, piece=name(p0)
            )
        self._no_dazed(unit, "climb", RuleId.M6)
        return Transition("climb_down", at, s, -dz, z0, z1, needs_check=True, rule=RuleId.M6, piece=name(p0), cost=-dz)

    def _stacked(self, at: Point, z0: float, z1: float, piece: int | None) -> list[int]:
        """The other solid pieces whose edge runs through the crossing ``at`` with a top
        between the two levels: one climb (or ladder) from ``z0`` to ``z1`` passes them too
        (a tower flush with the hall it stands on: its ladder climbs past the hall's wall)."""
        board = self.board
        if board.tree is None:
            return []
        lo, hi = min(z0, z1) + self.free + EPS, max(z0, z1) + EPS
        out = []
        for h in board.tree.query(ShPoint(at), predicate="dwithin", distance=10 * EPS).tolist():
            t = board.terrain[h]
            if h != piece and t.solid and lo < t.height <= hi:
                out.append(h)
        return out

    def _no_dazed(self, unit: Unit, what: str, rule: str) -> None:
        if unit.status == "dazed" and not self.rs.dazed_may_climb:
            raise IllegalAction(rule, f"{unit.id} is Dazed and may not {what} (note 13-04-25)")

    def trace(self, unit: Unit, points: Sequence[Point], descend: str = "climb") -> Trace:
        """Classify a polyline (the unit's position first) for ``unit``. Raises IllegalAction
        for impossible terrain (walls, impassable ground, wide gaps, base fit). Bases
        and end-of-move rules are checked by :meth:`check_path`.

        A trace reads the map, the ruleset, the points, ``descend`` and of the unit only
        :data:`TRACE_FIELDS`: the most recent :data:`TRACES` answers are kept by those
        (each caller gets its own copy of the trace), since the bots and the planner's
        rollouts trace the same paths again and again."""
        return _kept_trace(self, unit, [(float(x), float(y)) for x, y in points], descend)

    def _gap_landing(self, st: list, i: int, waypoints: list[float]) -> int | None:
        """The stretch a gap jump (M8) from the end of stretch ``i`` lands on: down by more
        than the free height, then back up to within the jump height of the take-off, across
        no more than the widest gap, with no waypoint inside and not onto a wall top. None
        where the path does not jump a gap there."""
        a = st[i]
        if st[i + 1].z - a.z >= -self.free - EPS:
            return None
        j = i + 1
        while j < len(st) and st[j].z < a.z - self.free - EPS:
            j += 1
        if j >= len(st):
            return None
        c = st[j]
        s = a.s1
        inside = any(s + EPS < w < c.s0 - EPS for w in waypoints)
        if (
            c.s0 - s <= float(self.rs.jump_gap_max) + EPS
            and abs(c.z - a.z) <= float(self.rs.jump_height_max) + EPS
            and not inside
            and not c.wall_top
        ):
            return j
        return None

    def _gap_jump(self, a, c, at: Point) -> Transition:
        """The M8 transition of a gap jump from the end of stretch ``a`` (at ``at``) to the start of ``c``."""
        s = a.s1
        pc = a.piece
        return Transition(
            "jump_gap",
            at,
            s,
            abs(c.z - a.z),
            a.z,
            c.z,
            gap=c.s0 - s,
            needs_check=True,
            rule=RuleId.M8,
            piece=self.board.terrain[pc].id if pc is not None else None,
        )

    def _over_wall(
        self, unit: Unit, pts: list[Point], cum: list[float], st: list, i: int, descend: str
    ) -> tuple[list[Transition], list[tuple[float, float]]]:
        """Climbing over the wall whose top is stretch i + 1 (M6): the transitions that are
        not free (up, then down) and the airborne stretch of a jump down from its top.
        Raises IllegalAction where the path ends on the wall or its top is too thick."""
        a, b = st[i], st[i + 1]
        s = a.s1
        wall = self.board.terrain[b.piece]
        if i + 2 >= len(st):
            raise IllegalAction(RuleId.M6, f"{unit.id} may not end on top of wall {wall.id}")
        thick = b.s1 - b.s0
        if thick > float(self.rs.wall_climb_max_thickness) + EPS:
            raise IllegalAction(
                RuleId.M6,
                f'the top of wall {wall.id} is not walkable: the path crosses {thick:.2f}" of it '
                f'(climbing over allows {float(self.rs.wall_climb_max_thickness):g}" or less)',
            )
        c = st[i + 2]
        up = self._step(unit, s, point_at(pts, cum, s), a.z, b.z, a.piece, b.piece, descend)
        down = self._step(unit, b.s1, point_at(pts, cum, b.s1), b.z, c.z, b.piece, c.piece, descend)
        over = [t for t in (up, down) if t.kind != "free"]
        air = [(b.s1, self._landing(pts, cum, b.s1, b.piece, unit.r))] if down.kind == "jump_down" else []
        return over, air

    def _trace(self, unit: Unit, pts: list[Point], descend: str) -> Trace:
        """:meth:`trace`, worked out."""
        cum = [0.0]
        for (ax, ay), (bx, by) in zip(pts, pts[1:]):
            cum.append(cum[-1] + math.hypot(bx - ax, by - ay))
        length = cum[-1]
        for x, y in pts:
            if not self.board.disc_on_table(x, y, unit.r):
                raise IllegalAction(RuleId.M5, f"the base of {unit.id} would leave the table at [{x:.2f}, {y:.2f}]")
        st = self._profile(pts, cum)
        waypoints = cum[1:-1]
        transitions: list[Transition] = []
        airborne: list[tuple[float, float]] = []
        anchors: list[tuple[float, int | None]] = []  # non-free crossings: (s, piece crossed)
        i = 0
        if st[0].wall_top:
            raise IllegalAction(RuleId.M6, f"{unit.id} stands on a wall top")
        while i < len(st) - 1:
            a, b = st[i], st[i + 1]
            s = a.s1
            at = point_at(pts, cum, s)
            dz = b.z - a.z
            # M8: a gap jump - down, then back up to about the same height, no waypoint inside.
            j = self._gap_landing(st, i, waypoints)
            if j is not None:
                self._no_dazed(unit, "jump", RuleId.M8)
                c = st[j]
                transitions.append(self._gap_jump(a, c, at))
                airborne.append((s, c.s0))
                anchors.append((s, None))
                anchors.append((c.s0, None))
                i = j
                continue
            if b.wall_top:
                over, air = self._over_wall(unit, pts, cum, st, i, descend)
                transitions.extend(over)
                airborne.extend(air)
                anchors.append((s, b.piece))
                anchors.append((b.s1, b.piece))
                i += 2
                continue
            t = self._step(unit, s, at, a.z, b.z, a.piece, b.piece, descend)
            if t.kind != "free":
                transitions.append(t)
                anchors.append((s, b.piece if dz > 0 else a.piece))
                anchors.extend((s, h) for h in self._stacked(at, a.z, b.z, b.piece if dz > 0 else a.piece))
                if t.kind == "jump_down":
                    airborne.append((s, self._landing(pts, cum, s, a.piece, unit.r)))
            i += 1
        if st[-1].wall_top:
            raise IllegalAction(
                RuleId.M6, f"{unit.id} may not end on top of wall {self.board.terrain[st[-1].piece].id}"
            )
        vertical = sum(t.cost for t in transitions)
        self._check_fit(unit, pts, cum, st, anchors, airborne)
        difficult = self.touches_difficult(unit, pts)
        return Trace(pts, cum, length, transitions, vertical, difficult, airborne, st)

    def _landing(self, pts: Sequence[Point], cum: Sequence[float], s: float, ledge: int | None, r: float) -> float:
        """M9 (ruling): where a jump down from ``ledge`` at arc length ``s`` lands at the latest.

        The jump is one straight flight: it ends at the next waypoint, or where the base's
        nearest edge is ``jump_down_landing_max`` out from the ledge (G1, ledge to base
        edge: the centre ``landing_max + r`` from the piece), whichever comes first."""
        k = next((i for i in range(1, len(pts)) if cum[i] > s + EPS), len(pts) - 1)
        end = cum[k]
        if ledge is None:
            return end
        reach = float(self.rs.jump_down_landing_max) + r
        a = point_at(pts, cum, s)
        b = pts[k]
        out = first_exit(a, b, self.board.polygons[ledge], reach)
        return end if out is None else min(end, s + out * (end - s))

    def _check_fit(self, unit: Unit, pts, cum, st: list[Stretch], anchors, airborne) -> None:
        """M5 against terrain: the base must fit along every stretch it walks."""
        board = self.board
        if board.tree is None:
            return
        r = unit.r
        near = 2 * r
        free = self.free
        for k, stc in enumerate(st):
            if stc.wall_top:
                continue
            a, b = stc.s0, stc.s1
            for p0, p1 in minus_intervals(a, b, airborne):  # skip airborne parts
                geom = sub_line(pts, cum, p0, p1)
                hits = board.tree.query(geom, predicate="dwithin", distance=max(0.0, r - 1e-4)).tolist()
                for h in hits:
                    t = board.terrain[h]
                    if t.kind == "impassable" and stc.z <= t.height + free + EPS:
                        raise IllegalAction(RuleId.M5, f"{unit.id} may not enter impassable terrain {t.id}")
                    if not (t.solid and t.height > stc.z + free + EPS):
                        continue
                    if t.kind == "wall" and stc.z + EPS >= t.height:
                        continue
                    # Allowed where the overlap is within `near` of a crossing of this piece.
                    windows = [(s_an - near, s_an + near) for (s_an, piece) in anchors if piece == h]
                    if windows:
                        rest = minus_intervals(p0, p1, windows)
                        if all(
                            float(shapely.distance(sub_line(pts, cum, q0, q1), board.polygons[h])) >= r - 1e-4
                            for q0, q1 in rest
                        ):
                            continue
                    d = float(shapely.distance(geom, board.polygons[h]))
                    raise IllegalAction(
                        RuleId.M5,
                        f"the {unit.base_mm:g} mm base of {unit.id} does not fit past {t.kind} {t.id} "
                        f'({d:.2f}" from its centre line, needs {r:.2f}")',
                    )
        # Impassable ground in the air is fine (jumping), elsewhere checked above.

    def touches_difficult(self, unit: Unit, pts: Sequence[Point]) -> bool:
        """Does the base come within its radius (less EPS) of difficult ground along ``pts``
        (one point: standing there)? M12's test, the very one by which ``Space(avoid=True)``
        takes difficult ground for an obstacle, so the search off it agrees with it."""
        board = self.board
        if board.tree is None:
            return False
        geom = LineString(pts) if len(pts) > 1 and any(p != pts[0] for p in pts) else ShPoint(pts[0])
        for h in board.tree.query(geom, predicate="dwithin", distance=unit.r).tolist():
            t = board.terrain[h]
            if t.kind == "difficult" and float(shapely.distance(geom, board.polygons[h])) <= unit.r - EPS:
                return True
        return False

    # --- the whole check -----------------------------------------------------------------------------
    def _normalise(self, unit: Unit, path: Iterable[Sequence[float]]) -> list[Point]:
        pts: list[Point] = []
        for p in path:
            try:
                x, y = float(p[0]), float(p[1])
            except (TypeError, ValueError, IndexError):
                raise IllegalAction(RuleId.M1, f"bad path point {p!r}: expected [x, y]") from None
            if not (math.isfinite(x) and math.isfinite(y)):
                raise IllegalAction(RuleId.M1, f"bad path point {p!r}: not a finite number")
            pts.append((x, y))
        if not pts or math.hypot(pts[0][0] - unit.x, pts[0][1] - unit.y) > EPS:
            pts.insert(0, (unit.x, unit.y))
        else:
            pts[0] = (unit.x, unit.y)
        # Drop repeated points.
        out = [pts[0]]
        for p in pts[1:]:
            if math.hypot(p[0] - out[-1][0], p[1] - out[-1][1]) > EPS:
                out.append(p)
        return out

    def check_path(
        self,
        state: GameState,
        unit: Unit,
        pts: Sequence[Point],
        descend: str,
        field: BaseField | None = None,
        blockers: Iterable[str] | None = None,
        final: bool = True,
    ) -> Trace:
        """Trace and check bases (M5) and the end of the move (M5, M6)."""
        tr = self.trace(unit, pts, descend)
        field = field or self.base_field(state)
        blocking = set(self.blockers(state, unit) if blockers is None else blockers)
        free = self.free
        start = pts[0]
        at_start = set(field.overlapping(start[0], start[1], unit.r)) | {unit.id}
        near = [uid for uid in field.near_path(tr.points, unit.r, blocking) if uid not in at_start]
        for k in range(1, len(tr.points) if near else 0):
            (ax, ay), (bx, by) = tr.points[k - 1], tr.points[k]
            seg = tr.cum[k] - tr.cum[k - 1]
            if seg <= EPS:
                continue
            for _t, uid in field.sweep_near((ax, ay), (bx, by), unit.r, near):
                ox, oy, orr, oz = field.units[uid]
                iv = contact_interval(ax, ay, bx, by, ox, oy, unit.r + orr)
                if iv is None:
                    continue
                s_in, s_out = tr.cum[k - 1] + iv[0] * seg, tr.cum[k - 1] + iv[1] * seg
                # Is some overlapped part at the other base's level and not in the air?
                for s0, s1 in minus_intervals(s_in, s_out, tr.airborne):
                    # Blocked where the base overlaps the other one over some length while
                    # standing at its level (a stretch that only touches [s0, s1] does not count:
                    # a jump from the ledge above a base at the foot is not blocked by it).
                    level = [
                        (max(s0, stc.s0), min(s1, stc.s1)) for stc in tr.stretches if abs(stc.z - oz) <= free + EPS
                    ]
                    hit = next(((q0, q1) for q0, q1 in level if q1 - q0 > EPS), None)
                    if hit is not None:
                        s0 = hit[0]
                        o = state.units[uid]
                        why = (
                            "an enemy"
                            if self.opposing(unit, o)
                            else f"a friendly unit that is {'Engaged' if o.engaged_with else o.status.capitalize()}"
                        )
                        raise IllegalAction(
                            RuleId.M5,
                            f"the path of {unit.id} is blocked by {uid} ({why}) at "
                            f"[{tr.point_at(s0)[0]:.2f}, {tr.point_at(s0)[1]:.2f}]",
                        )
        if not final:
            return tr
        ex, ey = tr.points[-1]
        ez = tr.stretches[-1].z
        for uid in field.overlapping(ex, ey, unit.r):
            if abs(field.units[uid][3] - ez) <= free + EPS and uid not in at_start:
                raise IllegalAction(RuleId.M5, f"{unit.id} may not end its move on {uid} (bases never overlap)")
        levels = self.board.heights_under_disc(ex, ey, unit.r)
        if levels[-1] - levels[0] > free + EPS:
            raise IllegalAction(
                RuleId.M6,
                f"{unit.id} may not end part-way up a surface: its base at [{ex:.2f}, {ey:.2f}] "
                f'straddles {levels[-1] - levels[0]:.2f}" (more than {free:g}")',
            )
        return tr

    def in_contact(self, x: float, y: float, unit: Unit, target: Unit) -> bool:
        """G4 at the target's level: edge to edge within contact_tolerance (centres at least
        the two radii apart: touching, not overlapping) and within free_height of its height."""
        d = math.hypot(x - target.x, y - target.y) - unit.r - target.r
        dz = abs(self.board.height_at(x, y) - self.board.height_at(target.x, target.y))
        return -EPS <= d <= float(self.rs.contact_tolerance) + 1e-9 and dz <= self.free + EPS

    def end_problem(
        self, state: GameState, unit: Unit, x: float, y: float, field: BaseField | None = None
    ) -> IllegalAction | None:
        """Why a move may not end with the unit's centre at (x, y), or None (M5, M6).
        ``field``: :meth:`base_field` of ``state``, when the caller has it."""
        why, z = _ground_end(self, unit, x, y)
        if why is not None:
            return IllegalAction(*why)
        on = self._base_on(field or self.base_field(state), unit, x, y, z)
        if on is not None:
            return IllegalAction(RuleId.M5, f"{unit.id} may not end its move on {on} (bases never overlap)")
        why = _ground_level(self, unit, x, y)
        return IllegalAction(*why) if why is not None else None

    def may_end(self, state: GameState, unit: Unit, x: float, y: float, field: BaseField) -> bool:
        """``end_problem(...) is None``, the bases asked first: a base at the spot's level
        that it would overlap refuses it (M5) whatever the ground says, and costs less to
        find than the ground's questions. The spot's level is :meth:`Board.height_at`, the
        height ``end_problem`` measures the bases against when the ground allows the spot;
        where the ground refuses it, the answer is False either way."""
        if self._base_on(field, unit, x, y, self.board.height_at(x, y)) is not None:
            return False
        return self.end_problem(state, unit, x, y, field) is None

    def _base_on(self, field: BaseField, unit: Unit, x: float, y: float, z: float) -> str | None:
        """The first base (by id) at level ``z`` (within free_height) that ``unit``'s base
        at (x, y) would overlap (M5), or None."""
        level = self.free + EPS
        units = field.units
        for uid in field.overlapping(x, y, unit.r):
            if uid != unit.id and abs(units[uid][3] - z) <= level:
                return uid
        return None


def forget_kept(tracer: Tracer) -> None:
    """Drop what ``tracer`` keeps of answers asked before (its traces, end spots and base
    indexes): a benchmark times a question, not what an earlier one left."""
    tracer._traces.clear()
    tracer._ends.clear()
    tracer._fields.clear()


def _kept_trace(tracer: Tracer, unit: Unit, pts: list[Point], descend: str) -> Trace:
    """:meth:`Tracer.trace` from the kept answers, else worked out and kept."""
    if any(0.0 in p for p in pts):
        return tracer._trace(unit, pts, descend)  # 0.0 and -0.0 are equal keys, not equal answers
    key = (_trace_fields(unit), descend, tuple(pts))
    traces = tracer._traces
    answer = traces.pop(key, None)
    if answer is None:
        try:
            answer = tracer._trace(unit, pts, descend)
        except IllegalAction as exc:
            if type(exc) is not IllegalAction:
                raise
            answer = as_value(exc)
        if len(traces) >= TRACES:
            del traces[next(iter(traces))]  # the one asked for least recently
    traces[key] = answer
    if isinstance(answer, IllegalAction):
        raise IllegalAction(answer.rule, answer.reason)
    return copy_trace(answer)


def _ground_end(tracer: Tracer, unit: Unit, x: float, y: float) -> tuple[tuple[str, str] | None, float]:
    """:meth:`Tracer.end_problem`'s questions of the map before the bases: the refusal (rule,
    reason) or None, and the height of the ground the centre stands on. Kept (the
    most recent :data:`ENDS`) by the point and the unit's id, base and radius: the
    searches into contact ask it of the same spots again and again."""
    if x == 0.0 or y == 0.0:
        return _ground_end_worked_out(tracer, unit, x, y)  # 0.0 and -0.0: equal keys, not equal reasons
    key = ("end", x, y, unit.r, unit.base_mm, unit.id)
    ends = tracer._ends
    hit = ends.get(key)
    if hit is None:
        if len(ends) >= ENDS:
            ends.clear()
        hit = ends[key] = _ground_end_worked_out(tracer, unit, x, y)
    return hit


def _ground_end_worked_out(tracer: Tracer, unit: Unit, x: float, y: float) -> tuple[tuple[str, str] | None, float]:
    board = tracer.board
    free = tracer.free
    if not board.disc_on_table(x, y, unit.r):
        return (RuleId.M5, f"the base of {unit.id} would leave the table at [{x:.2f}, {y:.2f}]"), 0.0
    piece = board.piece_at(x, y)
    pi = board.by_id[piece.id] if piece is not None else None
    if tracer._is_wall_top(pi):
        return (RuleId.M6, f"{unit.id} may not end on top of wall {piece.id}"), 0.0
    z = float(piece.height) if piece is not None else 0.0
    if board.tree is not None:
        centre = ShPoint(x, y)
        for h in board.tree.query(centre, predicate="dwithin", distance=max(0.0, unit.r - 1e-4)).tolist():
            t = board.terrain[h]
            if t.kind == "impassable" and z <= t.height + free + EPS:
                return (RuleId.M5, f"{unit.id} may not enter impassable terrain {t.id}"), z
            if t.solid and t.height > z + free + EPS:
                return (
                    RuleId.M5,
                    f"the {unit.base_mm:g} mm base of {unit.id} does not fit at [{x:.2f}, {y:.2f}] "
                    f"beside {t.kind} {t.id}",
                ), z
    return None, z


def _ground_level(tracer: Tracer, unit: Unit, x: float, y: float) -> tuple[str, str] | None:
    """:meth:`Tracer.end_problem`'s last question (M6: the base may not straddle more than
    free_height), kept as :meth:`_ground_end`."""
    key = ("level", x, y, unit.r, unit.id)
    ends = tracer._ends
    hit = ends.get(key, False) if x != 0.0 and y != 0.0 else False
    if hit is False:
        if len(ends) >= ENDS:
            ends.clear()
        levels = tracer.board.heights_under_disc(x, y, unit.r)
        hit = None
        if levels[-1] - levels[0] > tracer.free + EPS:
            hit = (
                RuleId.M6,
                f"{unit.id} may not end part-way up a surface: its base at [{x:.2f}, {y:.2f}] "
                f'straddles {levels[-1] - levels[0]:.2f}" (more than {tracer.free:g}")',
            )
        ends[key] = hit
    return hit


def stands_in_difficult(tracer: Tracer, unit: Unit) -> bool:
    """M12: does ``unit``'s base touch difficult ground where it stands? Then every path
    from there crosses it, as :meth:`Tracer.touches_difficult` counts a path (its start
    is on it)."""
    return tracer.touches_difficult(unit, [(unit.x, unit.y)])


def difficult_stretches(tracer: Tracer, unit: Unit, pts: Sequence[Point]) -> list[list[Point]]:
    """The stretches of the polyline ``pts``, in order along it, where the base comes
    within its radius (less EPS) of difficult ground: where :meth:`Tracer.touches_difficult`
    finds M12's difficult ground on a path, piece by piece (for showing it on the table).
    Each segment is cut on its own, so a path that crosses itself keeps its order. The
    base's reach is a buffer of the ground (a polygon of many sides): a stretch's ends may
    differ from the exact ones by a thousandth of the base's radius."""
    board = tracer.board
    if board.tree is None or len(pts) < 2:
        return []
    line = LineString(pts)
    zones = [
        board.polygons[h].buffer(unit.r - EPS)
        for h in board.tree.query(line, predicate="dwithin", distance=unit.r).tolist()
        if board.terrain[h].kind == "difficult"
    ]
    if not zones:
        return []
    zone = shapely.union_all(zones)
    cum = [0.0]
    for a, b in zip(pts, pts[1:]):
        cum.append(cum[-1] + math.hypot(b[0] - a[0], b[1] - a[1]))
    spans: list[list[float]] = []  # arc-length intervals inside the zone, in order
    for i, (a, b) in enumerate(zip(pts, pts[1:])):
        seg = LineString([a, b])
        if seg.length <= 0:
            continue
        cuts = sorted(
            (cum[i] + seg.project(ShPoint(g.coords[0])), cum[i] + seg.project(ShPoint(g.coords[-1])))
            for g in shapely.get_parts(seg.intersection(zone))
            if g.geom_type == "LineString" and g.length > 1e-9
        )
        for s0, s1 in cuts:
            s0, s1 = min(s0, s1), max(s0, s1)
            if spans and s0 <= spans[-1][1] + 1e-9:
                spans[-1][1] = max(spans[-1][1], s1)
            else:
                spans.append([s0, s1])
    return [[(float(x), float(y)) for x, y in sub_line(pts, cum, s0, s1).coords] for s0, s1 in spans]
