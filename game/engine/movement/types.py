"""Value types of the movement engine: allowances, transitions, plans, outcomes, reach.

They carry no behaviour beyond describing themselves; :mod:`.tracer` builds traces,
:mod:`.nav` searches paths and :mod:`.mover` checks and resolves moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from shapely.geometry import LineString
from shapely.geometry import Point as ShPoint

from game.engine.dice import Roll
from game.engine.errors import IllegalAction
from game.engine.events import MoveNote
from game.engine.rule_ids import RuleId
from game.engine.tolerance import EPS

Point = tuple[float, float]

CHECK_KINDS = ("climb_up", "climb_down", "jump_gap", "jump_down")
RULE_OF = {
    "free": RuleId.M4,
    "climb_up": RuleId.M6,
    "climb_down": RuleId.M6,
    "ladder": RuleId.M10,
    "jump_gap": RuleId.M8,
    "jump_down": RuleId.M9,
}


def _fmt(v: float) -> str:
    return f'{v:.2f}"'


# --- value types ------------------------------------------------------------------------


@dataclass(frozen=True)
class Allowance:
    """How far a unit may move this phase. ``inches`` is before the difficult-ground
    penalty (M12), which :meth:`total` takes off after every other modifier."""

    unit: str
    run: bool
    move: float  # the Move characteristic
    inches: float  # after status (M1) and Run (M2)
    difficult_penalty: float
    notes: tuple[str, ...] = ()

    def total(self, difficult: bool) -> float:
        return max(0.0, self.inches - self.difficult_penalty) if difficult else self.inches

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "run": self.run,
            "move": self.move,
            "inches": round(self.inches, 2),
            "difficult_penalty": self.difficult_penalty,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Transition:
    """A change of height along a path, at arc length ``s`` (inches from the start)."""

    kind: str  # free | climb_up | climb_down | ladder | jump_gap | jump_down
    at: Point
    s: float
    height: float  # vertical inches (absolute), or the height difference across a gap
    z_from: float
    z_to: float
    gap: float = 0.0  # jump_gap: inches across
    needs_check: bool = False
    disadvantage: bool = False
    rule: str = RuleId.M4
    piece: str | None = None  # terrain climbed / jumped from
    cost: float = 0.0  # vertical inches paid

    def to_dict(self) -> dict[str, Any]:
        d = {
            "kind": self.kind,
            "at": [round(self.at[0], 2), round(self.at[1], 2)],
            "height": round(self.height, 2),
            "rule": self.rule,
            "needs_check": self.needs_check,
        }
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
            return f'jump a {self.gap:.2f}" gap{where}'
        word = {
            "climb_up": "climb up",
            "climb_down": "climb down",
            "jump_down": "jump down",
            "ladder": "ladder",
            "free": "step",
        }[self.kind]
        return f'{word} {self.height:.2f}"{where}'


@dataclass(frozen=True)
class MovePlan:
    unit: str
    run: bool
    points: tuple[tuple[float, float, float], ...]  # x, y, z of every waypoint, the start first
    cost: float
    allowance: float  # the total that applies (after M12 if difficult)
    transitions: tuple[Transition, ...]
    difficult: bool
    descend: str = "climb"
    length: float = 0.0  # horizontal inches
    cum: tuple[float, ...] = ()  # arc length at each waypoint
    engage: str | None = None  # the target's id when this is an Engage (E1): a move into contact

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
            **({"engage": self.engage} if self.engage is not None else {}),
        }


@dataclass
class MoveOutcome:
    unit: str
    final: Point
    rolls: list[Roll] = field(default_factory=list)
    events: list[MoveNote] = field(default_factory=list)  # typed: a failed check, a fall
    incapacitated: list[str] = field(default_factory=list)
    cost: float = 0.0
    completed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "final": [round(self.final[0], 2), round(self.final[1], 2)],
            "paid": round(self.cost, 2),
            "completed": self.completed,
            "events": [e.text() for e in self.events],
            "rolls": [r.to_dict() for r in self.rolls],
            "incapacitated": list(self.incapacitated),
        }


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


# --- traces ------------------------------------------------------------------------


@dataclass
class Stretch:
    s0: float
    s1: float
    z: float
    piece: int | None  # index into board.terrain of the surface piece, None on the table
    wall_top: bool


@dataclass
class Trace:
    points: list[Point]
    cum: list[float]
    length: float
    transitions: list[Transition]
    vertical: float
    difficult: bool
    airborne: list[tuple[float, float]]
    stretches: list[Stretch]

    @property
    def cost(self) -> float:
        return self.length + self.vertical

    @property
    def n_checks(self) -> int:
        return sum(1 for t in self.transitions if t.needs_check)

    def point_at(self, s: float) -> Point:
        return point_at(self.points, self.cum, s)

    def z_at(self, s: float) -> float:
        for st in self.stretches:
            if st.s0 - EPS <= s <= st.s1 + EPS:
                return st.z
        return self.stretches[-1].z if self.stretches else 0.0


def point_at(points: Sequence[Point], cum: Sequence[float], s: float) -> Point:
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


def sub_line(points: Sequence[Point], cum: Sequence[float], a: float, b: float):
    """The part of the polyline between arc lengths a <= b, as a shapely geometry."""
    pa = point_at(points, cum, a)
    if b - a <= EPS:
        return ShPoint(pa)
    coords = [pa]
    for i in range(1, len(points) - 1):
        if a < cum[i] < b:
            coords.append(points[i])
    coords.append(point_at(points, cum, b))
    return LineString(coords)


def minus_intervals(a: float, b: float, holes: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    parts = [(a, b)]
    for x0, x1 in holes:
        nxt = []
        for p0, p1 in parts:
            if x1 <= p0 or x0 >= p1:
                nxt.append((p0, p1))
                continue
            if x0 > p0:
                nxt.append((p0, x0))
            if x1 < p1:
                nxt.append((x1, p1))
        parts = nxt
    return parts
