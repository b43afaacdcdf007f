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

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import shapely
from shapely.geometry import LineString
from shapely.geometry import Point as ShPoint

from game.engine.bases import BaseField, contact_interval
from game.engine.dice import Dice, Roll
from game.engine.errors import IllegalAction
from game.engine.geometry import Board
from game.engine.model import BLOCKING_STATUSES, STATUSES, GameState, Scenario, Unit

EPS = 1e-6
Point = tuple[float, float]

CHECK_KINDS = ("climb_up", "climb_down", "jump_gap", "jump_down")
RULE_OF = {"free": "M4", "climb_up": "M6", "climb_down": "M6", "ladder": "M10", "jump_gap": "M8", "jump_down": "M9"}


def _fmt(v: float) -> str:
    return f"{v:.2f}\""


# --- value types ------------------------------------------------------------------------

@dataclass(frozen=True)
class Allowance:
    """How far a unit may move this phase. ``inches`` is before the difficult-ground
    penalty (M12), which :meth:`total` takes off after every other modifier."""

    unit: str
    run: bool
    move: float           # the Move characteristic
    inches: float         # after status (M1) and Run (M2)
    difficult_penalty: float
    notes: tuple[str, ...] = ()

    def total(self, difficult: bool) -> float:
        return max(0.0, self.inches - self.difficult_penalty) if difficult else self.inches

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "run": self.run, "move": self.move, "inches": round(self.inches, 2),
                "difficult_penalty": self.difficult_penalty, "notes": list(self.notes)}


@dataclass(frozen=True)
class Transition:
    """A change of height along a path, at arc length ``s`` (inches from the start)."""

    kind: str             # free | climb_up | climb_down | ladder | jump_gap | jump_down
    at: Point
    s: float
    height: float         # vertical inches (absolute), or the height difference across a gap
    z_from: float
    z_to: float
    gap: float = 0.0      # jump_gap: inches across
    needs_check: bool = False
    disadvantage: bool = False
    rule: str = "M4"
    piece: str | None = None   # terrain climbed / jumped from
    cost: float = 0.0     # vertical inches paid

    def to_dict(self) -> dict[str, Any]:
        d = {"kind": self.kind, "at": [round(self.at[0], 2), round(self.at[1], 2)], "height": round(self.height, 2),
             "rule": self.rule, "needs_check": self.needs_check}
        if self.kind == "jump_gap":
            d["gap"] = round(self.gap, 2)
        if self.disadvantage:
            d["disadvantage"] = True
        if self.piece:
            d["piece"] = self.piece
        return d

    def describe(self) -> str:
        where = f" {self.piece}" if self.piece else ""
        if self.kind == "jump_gap":
            return f"jump a {self.gap:.2f}\" gap{where}"
        word = {"climb_up": "climb up", "climb_down": "climb down", "jump_down": "jump down", "ladder": "ladder", "free": "step"}[self.kind]
        return f"{word} {self.height:.2f}\"{where}"


@dataclass(frozen=True)
class MovePlan:
    unit: str
    run: bool
    points: tuple[tuple[float, float, float], ...]  # x, y, z of every waypoint, the start first
    cost: float
    allowance: float      # the total that applies (after M12 if difficult)
    transitions: tuple[Transition, ...]
    difficult: bool
    descend: str = "climb"
    length: float = 0.0   # horizontal inches
    cum: tuple[float, ...] = ()   # arc length at each waypoint

    @property
    def checks(self) -> list[Transition]:
        return [t for t in self.transitions if t.needs_check]

    @property
    def end(self) -> Point:
        return (self.points[-1][0], self.points[-1][1])

    def to_dict(self) -> dict[str, Any]:
        return {
            "cost": round(self.cost, 2),
            "allowance": round(self.allowance, 2),
            "path": [[round(p[0], 2), round(p[1], 2)] for p in self.points],
            "checks": [t.to_dict() for t in self.checks],
            "difficult": self.difficult,
            "run": self.run,
        }


@dataclass
class MoveOutcome:
    unit: str
    final: Point
    rolls: list[Roll] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    incapacitated: list[str] = field(default_factory=list)
    cost: float = 0.0
    completed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"final": [round(self.final[0], 2), round(self.final[1], 2)], "paid": round(self.cost, 2),
                "completed": self.completed, "events": list(self.events),
                "rolls": [r.to_dict() for r in self.rolls], "incapacitated": list(self.incapacitated)}


@dataclass(frozen=True)
class Reach:
    """Where a unit can end its move this phase (shapely geometries, inches).

    ``walk_free``: walking, no check needed; ``walk_check``: walking, only with a check;
    ``run_free`` / ``run_check`` the same for a Run (empty when Run is denied, with the
    refusal in ``run_denied``)."""

    unit: str
    walk_free: Any
    walk_check: Any
    run_free: Any
    run_check: Any
    walk_allowance: float
    run_allowance: float | None
    run_denied: IllegalAction | None = None


# --- the path tracer ------------------------------------------------------------------------

@dataclass
class _Stretch:
    s0: float
    s1: float
    z: float
    piece: int | None     # index into board.terrain of the surface piece, None on the table
    wall_top: bool


@dataclass
class _Trace:
    points: list[Point]
    cum: list[float]
    length: float
    transitions: list[Transition]
    vertical: float
    difficult: bool
    airborne: list[tuple[float, float]]
    stretches: list[_Stretch]

    @property
    def cost(self) -> float:
        return self.length + self.vertical

    @property
    def n_checks(self) -> int:
        return sum(1 for t in self.transitions if t.needs_check)

    def point_at(self, s: float) -> Point:
        return _point_at(self.points, self.cum, s)

    def z_at(self, s: float) -> float:
        for st in self.stretches:
            if st.s0 - EPS <= s <= st.s1 + EPS:
                return st.z
        return self.stretches[-1].z if self.stretches else 0.0


def _point_at(points: Sequence[Point], cum: Sequence[float], s: float) -> Point:
    if s <= 0:
        return points[0]
    for i in range(1, len(points)):
        if s <= cum[i] + 1e-12:
            seg = cum[i] - cum[i - 1]
            if seg <= 0:
                return points[i]
            f = (s - cum[i - 1]) / seg
            (ax, ay), (bx, by) = points[i - 1], points[i]
            return (ax + (bx - ax) * f, ay + (by - ay) * f)
    return points[-1]


def _sub_line(points: Sequence[Point], cum: Sequence[float], a: float, b: float):
    """The part of the polyline between arc lengths a <= b, as a shapely geometry."""
    pa = _point_at(points, cum, a)
    if b - a <= EPS:
        return ShPoint(pa)
    coords = [pa]
    for i in range(1, len(points) - 1):
        if a < cum[i] < b:
            coords.append(points[i])
    coords.append(_point_at(points, cum, b))
    return LineString(coords)


class Mover:
    """Movement rules for one scenario's map. Build once per map (nav is cached)."""

    def __init__(self, scenario: Scenario, board: Board, cell: float | None = None):
        from game.engine.nav import NavCache  # nav imports this module's types

        self.scenario = scenario
        self.board = board
        self.rs = scenario.ruleset
        self.ladders = list(scenario.ladders)
        self._raised = {i for i, t in enumerate(board.terrain) if t.solid and t.height > 0}
        self._field_key: tuple | None = None
        self._field: BaseField | None = None
        self.nav = NavCache(self, cell=cell)
        self.nav.prepare({u.r for u in scenario.state.units.values()})

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
        """A pymunk index of every active base, cached while the bases stay where they are."""
        key = tuple((uid, u.x, u.y, u.r, u.active) for uid, u in state.units.items())
        if self._field_key != key:
            self._field = BaseField(self.board, state)
            self._field_key = key
        return self._field

    # --- allowance (M1, M2, M11, M12) --------------------------------------------------------
    def run_denial(self, state: GameState, uid: str) -> IllegalAction | None:
        u = state.units[uid]
        if u.carrying:
            return IllegalAction("U6", f"run denied: {uid} carries treasure {u.carrying} (a carrier may not Run)")
        limit = float(self.rs.run_denial_range)
        nearest = None
        for o in state.units.values():
            if o.id == uid or not o.active or not self.opposing(u, o):
                continue
            d = self.board.distance(u, o)
            if d <= limit + 1e-9 and (nearest is None or d < nearest[0]):
                nearest = (d, o.id)
        if nearest:
            return IllegalAction("M2", f"run denied: {nearest[1]} is {nearest[0]:.2f}\" away ({limit:g}\" or less)")
        return None

    def allowance(self, state: GameState, uid: str, run: bool = False) -> Allowance:
        if uid not in state.units:
            raise IllegalAction("M1", f"there is no unit {uid!r}")
        u = state.units[uid]
        if not u.on_table:
            raise IllegalAction("M1", f"{uid} is not on the table")
        if u.status == "incapacitated":
            raise IllegalAction("M1", f"{uid} is Incapacitated")
        if u.status == "stunned":
            raise IllegalAction("M1", f"{uid} is Stunned and cannot move")
        if u.engage_attempted:
            raise IllegalAction("M1", f"{uid} attempted to Engage this turn and cannot move")
        if u.reloaded:
            raise IllegalAction("M11", f"{uid} reloaded this turn instead of moving")
        if u.used > 0 or u.moved:
            raise IllegalAction("M1", f"{uid} has already moved this phase ({u.used:.2f}\" used)")
        move = float(u.stats.get("move", 0))
        inches = move
        notes = []
        if u.status == "staggered":
            inches *= float(self.rs.staggered_move_factor)
            notes.append(f"staggered x{self.rs.staggered_move_factor:g}")
        elif u.status == "dazed":
            if self.rs.dazed_move == "none":
                raise IllegalAction("M1", f"{uid} is Dazed and cannot move (dazed_move: none)")
            inches *= float(self.rs.dazed_move_factor)
            notes.append(f"dazed x{self.rs.dazed_move_factor:g}")
        if run:
            denied = self.run_denial(state, uid)
            if denied is not None:
                raise denied
            inches *= float(self.rs.run_multiplier)
            notes.append(f"run x{self.rs.run_multiplier:g}")
        return Allowance(uid, run, move, inches, float(self.rs.difficult_penalty), tuple(notes))

    # --- tracing a path ---------------------------------------------------------------------------
    def _profile(self, points: Sequence[Point], cum: Sequence[float]) -> list[_Stretch]:
        board = self.board
        stretches: list[_Stretch] = []
        for k in range(1, len(points)):
            (ax, ay), (bx, by) = points[k - 1], points[k]
            seg = cum[k] - cum[k - 1]
            if seg <= EPS:
                continue
            cuts = {0.0, 1.0}
            if board.tree is not None:
                line = LineString([(ax, ay), (bx, by)])
                for i in board.tree.query(line, predicate="intersects").tolist():
                    if i not in self._raised:
                        continue
                    inter = shapely.intersection(line, board.polygons[i])
                    for part in getattr(inter, "geoms", [inter]):
                        for cx, cy in part.coords:
                            t = ((cx - ax) * (bx - ax) + (cy - ay) * (by - ay)) / (seg * seg)
                            if 0.0 < t < 1.0:
                                cuts.add(t)
            ts = sorted(cuts)
            for t0, t1 in zip(ts, ts[1:]):
                if t1 - t0 <= 1e-12:
                    continue
                m = (t0 + t1) / 2
                mx, my = ax + (bx - ax) * m, ay + (by - ay) * m
                piece = board.piece_at(mx, my)
                pi = board.by_id[piece.id] if piece is not None else None
                z = float(piece.height) if piece is not None else 0.0
                s0, s1 = cum[k - 1] + t0 * seg, cum[k - 1] + t1 * seg
                wall = self._is_wall_top(pi)
                if stretches and stretches[-1].z == z and stretches[-1].piece == pi:
                    stretches[-1].s1 = s1
                else:
                    stretches.append(_Stretch(s0, s1, z, pi, wall))
        if not stretches:
            x, y = points[0]
            piece = board.piece_at(x, y)
            pi = board.by_id[piece.id] if piece is not None else None
            stretches.append(_Stretch(0.0, 0.0, float(piece.height) if piece else 0.0, pi, self._is_wall_top(pi)))
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

    def _step(self, unit: Unit, s: float, at: Point, z0: float, z1: float, p0: int | None, p1: int | None,
              descend: str) -> Transition:
        dz = z1 - z0
        rs = self.rs
        name = lambda p: self.board.terrain[p].id if p is not None else None  # noqa: E731
        if abs(dz) <= self.free + EPS:
            return Transition("free", at, s, abs(dz), z0, z1, rule="M4", piece=name(p1 if dz > 0 else p0))
        if dz > 0:
            lad = self._ladder_at(at, p1, unit)
            if lad:
                return Transition("ladder", at, s, dz, z0, z1, rule="M10", piece=lad, cost=dz)
            self._no_dazed(unit, "climb", "M6")
            return Transition("climb_up", at, s, dz, z0, z1, needs_check=True, rule="M6", piece=name(p1), cost=dz)
        lad = self._ladder_at(at, p0, unit)
        if lad:
            return Transition("ladder", at, s, -dz, z0, z1, rule="M10", piece=lad, cost=-dz)
        if descend == "jump":
            self._no_dazed(unit, "jump", "M9")
            dis = -dz >= float(rs.jump_down_disadvantage_from) - EPS
            return Transition("jump_down", at, s, -dz, z0, z1, needs_check=True, disadvantage=dis, rule="M9", piece=name(p0))
        self._no_dazed(unit, "climb", "M6")
        return Transition("climb_down", at, s, -dz, z0, z1, needs_check=True, rule="M6", piece=name(p0), cost=-dz)

    def _no_dazed(self, unit: Unit, what: str, rule: str) -> None:
        if unit.status == "dazed" and not self.rs.dazed_may_climb:
            raise IllegalAction(rule, f"{unit.id} is Dazed and may not {what} (note 13-04-25)")

    def trace(self, unit: Unit, points: Sequence[Point], descend: str = "climb") -> _Trace:
        """Classify a polyline (the unit's position first) for ``unit``. Raises IllegalAction
        for impossible terrain (walls, impassable ground, wide gaps, base fit). Bases
        and end-of-move rules are checked by :meth:`check_path`."""
        pts = [(float(x), float(y)) for x, y in points]
        cum = [0.0]
        for (ax, ay), (bx, by) in zip(pts, pts[1:]):
            cum.append(cum[-1] + math.hypot(bx - ax, by - ay))
        length = cum[-1]
        for x, y in pts:
            if not self.board.disc_on_table(x, y, unit.r):
                raise IllegalAction("M5", f"the base of {unit.id} would leave the table at [{x:.2f}, {y:.2f}]")
        st = self._profile(pts, cum)
        rs = self.rs
        free = self.free
        waypoints = cum[1:-1]
        transitions: list[Transition] = []
        airborne: list[tuple[float, float]] = []
        anchors: list[tuple[float, int | None]] = []   # non-free crossings: (s, piece crossed)
        i = 0
        if st[0].wall_top:
            raise IllegalAction("M6", f"{unit.id} stands on a wall top")
        while i < len(st) - 1:
            a, b = st[i], st[i + 1]
            s = a.s1
            at = _point_at(pts, cum, s)
            dz = b.z - a.z
            # M8: a gap jump - down, then back up to about the same height, no waypoint inside.
            if dz < -free - EPS:
                j = i + 1
                while j < len(st) and st[j].z < a.z - free - EPS:
                    j += 1
                if j < len(st):
                    c = st[j]
                    width = c.s0 - s
                    inside = any(s + EPS < w < c.s0 - EPS for w in waypoints)
                    if (width <= float(rs.jump_gap_max) + EPS and abs(c.z - a.z) <= float(rs.jump_height_max) + EPS
                            and not inside and not c.wall_top):
                        self._no_dazed(unit, "jump", "M8")
                        pc = a.piece
                        transitions.append(Transition("jump_gap", at, s, abs(c.z - a.z), a.z, c.z, gap=width, needs_check=True,
                                                      rule="M8", piece=self.board.terrain[pc].id if pc is not None else None))
                        airborne.append((s, c.s0))
                        anchors.append((s, None))
                        anchors.append((c.s0, None))
                        i = j
                        continue
            if b.wall_top:
                if i + 2 >= len(st):
                    raise IllegalAction("M6", f"{unit.id} may not end on top of wall {self.board.terrain[b.piece].id}")
                thick = b.s1 - b.s0
                wall = self.board.terrain[b.piece]
                if thick > float(rs.wall_climb_max_thickness) + EPS:
                    raise IllegalAction("M6", f"the top of wall {wall.id} is not walkable: the path crosses {thick:.2f}\" of it "
                                              f"(climbing over allows {float(rs.wall_climb_max_thickness):g}\" or less)")
                c = st[i + 2]
                up = self._step(unit, s, at, a.z, b.z, a.piece, b.piece, descend)
                down = self._step(unit, b.s1, _point_at(pts, cum, b.s1), b.z, c.z, b.piece, c.piece, descend)
                for t in (up, down):
                    if t.kind != "free":
                        transitions.append(t)
                if down.kind == "jump_down":
                    airborne.append((b.s1, b.s1 + float(rs.jump_down_landing_max)))
                anchors.append((s, b.piece))
                anchors.append((b.s1, b.piece))
                i += 2
                continue
            t = self._step(unit, s, at, a.z, b.z, a.piece, b.piece, descend)
            if t.kind != "free":
                transitions.append(t)
                anchors.append((s, b.piece if dz > 0 else a.piece))
                if t.kind == "jump_down":
                    airborne.append((s, s + float(rs.jump_down_landing_max)))
            i += 1
        if st[-1].wall_top:
            raise IllegalAction("M6", f"{unit.id} may not end on top of wall {self.board.terrain[st[-1].piece].id}")
        vertical = sum(t.cost for t in transitions)
        self._check_fit(unit, pts, cum, st, anchors, airborne)
        difficult = self._touches_difficult(unit, pts)
        return _Trace(pts, cum, length, transitions, vertical, difficult, airborne, st)

    def _check_fit(self, unit: Unit, pts, cum, st: list[_Stretch], anchors, airborne) -> None:
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
            for (p0, p1) in _minus(a, b, airborne):  # skip airborne parts
                geom = _sub_line(pts, cum, p0, p1)
                hits = board.tree.query(geom, predicate="dwithin", distance=max(0.0, r - 1e-4)).tolist()
                for h in hits:
                    t = board.terrain[h]
                    if t.kind == "impassable" and stc.z <= t.height + free + EPS:
                        raise IllegalAction("M5", f"{unit.id} may not enter impassable terrain {t.id}")
                    if not (t.solid and t.height > stc.z + free + EPS):
                        continue
                    if t.kind == "wall" and stc.z + EPS >= t.height:
                        continue
                    # Allowed where the overlap is within `near` of a crossing of this piece.
                    windows = [(s_an - near, s_an + near) for (s_an, piece) in anchors if piece == h]
                    if windows:
                        rest = _minus(p0, p1, windows)
                        if all(float(shapely.distance(_sub_line(pts, cum, q0, q1), board.polygons[h])) >= r - 1e-4 for q0, q1 in rest):
                            continue
                    d = float(shapely.distance(geom, board.polygons[h]))
                    raise IllegalAction("M5", f"the {unit.base_mm:g} mm base of {unit.id} does not fit past {t.kind} {t.id} "
                                              f"({d:.2f}\" from its centre line, needs {r:.2f}\")")
        # Impassable ground in the air is fine (jumping), elsewhere checked above.

    def _touches_difficult(self, unit: Unit, pts: Sequence[Point]) -> bool:
        board = self.board
        if board.tree is None:
            return False
        geom = LineString(pts) if len(pts) > 1 and any(p != pts[0] for p in pts) else ShPoint(pts[0])
        for h in board.tree.query(geom, predicate="dwithin", distance=unit.r).tolist():
            t = board.terrain[h]
            if t.kind == "difficult" and float(shapely.distance(geom, board.polygons[h])) < unit.r - 1e-4:
                return True
        return False

    # --- the whole check -----------------------------------------------------------------------------
    def _normalise(self, unit: Unit, path: Iterable[Sequence[float]]) -> list[Point]:
        pts: list[Point] = []
        for p in path:
            try:
                x, y = float(p[0]), float(p[1])
            except (TypeError, ValueError, IndexError):
                raise IllegalAction("M1", f"bad path point {p!r}: expected [x, y]") from None
            if not (math.isfinite(x) and math.isfinite(y)):
                raise IllegalAction("M1", f"bad path point {p!r}: not a finite number")
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

    def check_path(self, state: GameState, unit: Unit, pts: Sequence[Point], descend: str,
                   field: BaseField | None = None, blockers: Iterable[str] | None = None, final: bool = True) -> _Trace:
        """Trace and check bases (M5) and the end of the move (M5, M6)."""
        tr = self.trace(unit, pts, descend)
        field = field or self.base_field(state)
        blocking = set(self.blockers(state, unit) if blockers is None else blockers)
        free = self.free
        start = pts[0]
        at_start = set(field.overlapping(start[0], start[1], unit.r)) | {unit.id}
        for k in range(1, len(tr.points)):
            (ax, ay), (bx, by) = tr.points[k - 1], tr.points[k]
            seg = tr.cum[k] - tr.cum[k - 1]
            if seg <= EPS:
                continue
            for _t, uid in field.sweep((ax, ay), (bx, by), unit.r, among=blocking):
                if uid in at_start:
                    continue
                ox, oy, orr, oz = field.units[uid]
                iv = contact_interval(ax, ay, bx, by, ox, oy, unit.r + orr)
                if iv is None:
                    continue
                s_in, s_out = tr.cum[k - 1] + iv[0] * seg, tr.cum[k - 1] + iv[1] * seg
                # Is some overlapped part at the other base's level and not in the air?
                for (s0, s1) in _minus(s_in, s_out, tr.airborne):
                    blocked = any(abs(stc.z - oz) <= free + EPS and stc.s0 < s1 + EPS and stc.s1 > s0 - EPS for stc in tr.stretches) \
                        if tr.stretches else True
                    if blocked:
                        o = state.units[uid]
                        why = "an enemy" if self.opposing(unit, o) else f"a friendly unit that is {'Engaged' if o.engaged_with else o.status.capitalize()}"
                        raise IllegalAction("M5", f"the path of {unit.id} is blocked by {uid} ({why}) at "
                                                  f"[{tr.point_at(s0)[0]:.2f}, {tr.point_at(s0)[1]:.2f}]")
        if not final:
            return tr
        ex, ey = tr.points[-1]
        ez = tr.stretches[-1].z
        for uid in field.overlapping(ex, ey, unit.r):
            if abs(field.units[uid][3] - ez) <= free + EPS and uid not in at_start:
                raise IllegalAction("M5", f"{unit.id} may not end its move on {uid} (bases never overlap)")
        levels = self.board.heights_under_disc(ex, ey, unit.r)
        if levels[-1] - levels[0] > free + EPS:
            raise IllegalAction("M6", f"{unit.id} may not end part-way up a surface: its base at [{ex:.2f}, {ey:.2f}] "
                                      f"straddles {levels[-1] - levels[0]:.2f}\" (more than {free:g}\")")
        return tr

    def end_problem(self, state: GameState, unit: Unit, x: float, y: float) -> IllegalAction | None:
        """Why a move may not end with the unit's centre at (x, y), or None (M5, M6)."""
        board = self.board
        free = self.free
        if not board.disc_on_table(x, y, unit.r):
            return IllegalAction("M5", f"the base of {unit.id} would leave the table at [{x:.2f}, {y:.2f}]")
        piece = board.piece_at(x, y)
        pi = board.by_id[piece.id] if piece is not None else None
        if self._is_wall_top(pi):
            return IllegalAction("M6", f"{unit.id} may not end on top of wall {piece.id}")
        z = float(piece.height) if piece is not None else 0.0
        if board.tree is not None:
            centre = ShPoint(x, y)
            for h in board.tree.query(centre, predicate="dwithin", distance=max(0.0, unit.r - 1e-4)).tolist():
                t = board.terrain[h]
                if t.kind == "impassable" and z <= t.height + free + EPS:
                    return IllegalAction("M5", f"{unit.id} may not enter impassable terrain {t.id}")
                if t.solid and t.height > z + free + EPS:
                    return IllegalAction("M5", f"the {unit.base_mm:g} mm base of {unit.id} does not fit at [{x:.2f}, {y:.2f}] "
                                               f"beside {t.kind} {t.id}")
        field = self.base_field(state)
        for uid in field.overlapping(x, y, unit.r):
            if uid != unit.id and abs(field.units[uid][3] - z) <= free + EPS:
                return IllegalAction("M5", f"{unit.id} may not end its move on {uid} (bases never overlap)")
        levels = board.heights_under_disc(x, y, unit.r)
        if levels[-1] - levels[0] > free + EPS:
            return IllegalAction("M6", f"{unit.id} may not end part-way up a surface: its base at [{x:.2f}, {y:.2f}] "
                                       f"straddles {levels[-1] - levels[0]:.2f}\" (more than {free:g}\")")
        return None

    def plan(self, state: GameState, uid: str, to: Sequence[float] | None = None, path: Sequence[Sequence[float]] | None = None,
             run: bool = False, descend: str = "climb") -> MovePlan:
        """Check a move (``path``: exactly that polyline; ``to``: the cheapest legal path)."""
        if descend not in ("climb", "jump"):
            raise IllegalAction("M9", f"descend must be climb or jump, not {descend!r}")
        allow = self.allowance(state, uid, run)
        unit = state.units[uid]
        if (to is None) == (path is None):
            raise IllegalAction("M1", "give either a destination (to) or a path, not both or neither")
        pts = self._normalise(unit, path if path is not None else [to])
        if len(pts) < 2:
            raise IllegalAction("M1", f"the move does not leave [{unit.x:.2f}, {unit.y:.2f}]")
        if path is not None:
            tr = self.check_path(state, unit, pts, descend)
        else:
            tr = self.nav.find(state, unit, pts[-1], allow, descend)
        return self._finish(unit, allow, tr, descend)

    def _finish(self, unit: Unit, allow: Allowance, tr: _Trace, descend: str) -> MovePlan:
        total = allow.total(tr.difficult)
        if tr.cost > total + 1e-9:
            if tr.difficult:
                raise IllegalAction("M12", f"path costs {tr.cost:.2f}\" of {total:.2f}\" (difficult ground -{allow.difficult_penalty:g}\")")
            rule = "M2" if allow.run else "M1"
            raise IllegalAction(rule, f"path costs {tr.cost:.2f}\" of {total:.2f}\"")
        pts3 = tuple((x, y, self.board.height_at(x, y)) for x, y in tr.points)
        return MovePlan(unit.id, allow.run, pts3, tr.cost, total, tuple(tr.transitions), tr.difficult, descend,
                        tr.length, tuple(tr.cum))

    # --- resolution --------------------------------------------------------------------------------
    def apply(self, state: GameState, plan: MovePlan, dice: Dice) -> MoveOutcome:
        """Resolve a plan: roll its checks in path order, move the unit, fall (M7)."""
        u = state.units[plan.unit]
        if math.hypot(u.x - plan.points[0][0], u.y - plan.points[0][1]) > EPS:
            raise IllegalAction("M1", f"the plan for {u.id} starts at [{plan.points[0][0]:.2f}, {plan.points[0][1]:.2f}], "
                                      f"not where the unit stands")
        self.allowance(state, u.id, plan.run)  # still allowed (raises before any change)
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
            roll = dice.check(rs, agility, reason=f"{what} at [{t.at[0]:.2f}, {t.at[1]:.2f}]", rule=t.rule, unit=u.id,
                              stat="agility", disadvantage=t.disadvantage)
            out.rolls.append(roll)
            if roll.success:
                continue
            out.completed = False
            if t.kind == "climb_up":
                stop_s = max(0.0, t.s - u.r)
                out.events.append(f"M6 climb up failed: stops at the foot of {t.piece}")
            elif t.kind == "climb_down" and rs.climb_down_fail == "stop":
                stop_s = max(0.0, t.s - u.r)
                out.events.append(f"M6 climb down failed: stops at the top of {t.piece}")
            elif t.kind == "jump_gap":
                stop_s = t.s + t.gap / 2
                fall = t.z_from - self._floor(pts, cum, t.s, t.s + t.gap)
                out.events.append(f"M8 jump failed: falls {fall:.2f}\" into the gap")
            else:  # climb_down with the fall variant, jump_down
                stop_s = min(plan.length, t.s + u.r)
                fall = t.height
                out.events.append(f"{t.rule} {t.kind.replace('_', ' ')} failed: falls {fall:.2f}\"")
            stop_s = self._free_spot(state, u, pts, cum, stop_s, forward=t.kind in ("jump_gap", "jump_down") or fall > 0)
            final = _point_at(pts, cum, stop_s)
            if t.kind == "jump_gap":
                fall = t.z_from - self.board.height_at(*final) if fall > 0 else fall
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
        u.moved = True
        if plan.run:
            u.ran = True
        u.used += paid
        u.difficult = u.difficult or (plan.difficult if out.completed else self._touches_difficult(u, moved))
        u.trail.append([(float(x), float(y)) for x, y in moved])
        if fall > 0:
            self._fall(u, fall, dice, out)
        return out

    def _free_spot(self, state: GameState, u: Unit, pts, cum, s: float, forward: bool) -> float:
        """The nearest arc length to s (backwards first, or forwards first) where the base
        overlaps no other base: a unit stopped by a failed check never ends on one (M5)."""
        step = 0.05
        total = cum[-1]

        z0 = self.board.height_at(*_point_at(pts, cum, s))

        def clear(q: float) -> bool:
            x, y = _point_at(pts, cum, q)
            z = self.board.height_at(x, y)
            if abs(z - z0) > EPS or self.end_problem(state, u, x, y) is not None:
                return False
            return True

        if clear(s):
            return s
        n = int(max(s, total - s) / step) + 2
        for i in range(1, n):
            for q in ((s + i * step, s - i * step) if forward else (s - i * step,)):
                if 0.0 <= q <= total and clear(q):
                    return q
        return 0.0

    def _floor(self, pts, cum, s0: float, s1: float) -> float:
        lo = None
        n = max(2, int((s1 - s0) / 0.1) + 1)
        for i in range(n + 1):
            x, y = _point_at(pts, cum, s0 + (s1 - s0) * i / n)
            z = self.board.height_at(x, y)
            lo = z if lo is None else min(lo, z)
        return lo or 0.0

    def _fall(self, u: Unit, height: float, dice: Dice, out: MoveOutcome) -> None:
        """M7: d20 on the Injury chart, + modifier per full inch above fall_free_height."""
        rs = self.rs
        extra = max(0, math.floor(height - float(rs.fall_free_height) + 1e-9))
        mod = int(extra * rs.fall_modifier_per_inch)
        roll = dice.roll(int(rs.injury_die), f"fall of {height:.2f}\" (+{mod})", rule="M7", unit=u.id)
        roll.modifier = mod
        out.rolls.append(roll)
        result = rs.injury_result(roll.kept + mod)
        if result == "none":
            out.events.append(f"M7 fall {height:.2f}\": {roll.kept}+{mod} = {roll.kept + mod}, no effect")
            return
        placeholder = " (placeholder chart)" if rs.get("injury_table_placeholder") else ""
        out.events.append(f"M7 fall {height:.2f}\": {roll.kept}+{mod} = {roll.kept + mod}, {result}{placeholder}")
        if STATUSES.index(result) > STATUSES.index(u.status):
            u.status = result
        if result == "incapacitated":
            out.incapacitated.append(u.id)

    # --- reachable area -------------------------------------------------------------------------------
    def reachable(self, state: GameState, uid: str, descend: str = "climb") -> Reach:
        walk = self.allowance(state, uid, False)
        denied = self.run_denial(state, uid)
        run = None if denied else self.allowance(state, uid, True)
        return self.nav.reach(state, state.units[uid], walk, run, denied, descend)


def _minus(a: float, b: float, holes: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    parts = [(a, b)]
    for (x0, x1) in holes:
        nxt = []
        for (p0, p1) in parts:
            if x1 <= p0 or x0 >= p1:
                nxt.append((p0, p1))
                continue
            if x0 > p0:
                nxt.append((p0, x0))
            if x1 < p1:
                nxt.append((x1, p1))
        parts = nxt
    return parts
