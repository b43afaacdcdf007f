"""E1 (Engage) by brute force, for tests: no bound, no memo, no verdict without a search.

For a unit and a target, the reference builds the plain free space of the unit's centre
twice, in the spirit of M12: once with difficult ground as an obstacle and the whole
allowance, once through it with the allowance less ``difficult_penalty``. Obstacles are
the bases that block (M5, the target among them until contact), raised pieces and
impassable ground, each grown by the unit's radius into a polygon that contains the true
grown shape (so a path found clears it). The shortest path to each sampled spot of the
target's contact ring (G4: ``0.8 x contact_tolerance`` edge to edge, the spot free of
every base) comes from extremitypathfinder, an exact visibility-graph method independent
of the movement engine. The cheapest few are then given to the engine as explicit paths:
their own verdict (``why_illegal`` with ``path``) decides, so the reference can miss a
legal Engage (a wall climbed over, a squeeze closer than the polygons allow) but never
invents one.

:func:`disagreements` asks the engine every way for one unit and lists where its answers
part: ``legal_actions`` against ``why_illegal`` without a path; an accepted Engage whose
own path is refused when given; an explicit path the engine accepts for an Engage it
refuses without one.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import shapely
from shapely.geometry import Point, box

from game.engine.movement.mover import engage_gap, engage_inches, engage_within
from game.engine.movement.tracer import stands_in_difficult

#: Polygon segments per quarter circle of a grown base or corner.
QUAD = 6
#: Inches added to every grown obstacle beyond the tolerances the tracer allows.
MARGIN = 2e-3
#: Spots sampled on the target's contact ring.
RING_SAMPLES = 120
#: Explicit paths tried per way (through / round difficult ground), cheapest first.
TRIES = 4


@dataclass
class Answer:
    """The reference's answer for one Engage: ``legal`` with the explicit path the engine
    accepted, or not, with the cheapest path length found each way (``inf``: none)."""

    legal: bool
    path: list[tuple[float, float]] | None = None
    cost: float = math.inf
    way: str = ""
    cheapest: dict[str, float] = field(default_factory=dict)


def _grown(geom, d: float):
    """``geom`` grown by ``d``, as a polygon containing the exact grown shape."""
    return shapely.buffer(geom, d / math.cos(math.pi / (4 * QUAD)), quad_segs=QUAD)


def _obstacles(game, unit, round_difficult: bool):
    """The grown obstacles of ``unit``'s centre: every base that blocks it (M5: the
    enemies, the target among them, and friends that are Engaged, Stunned or Dazed),
    raised pieces and impassable ground, and difficult ground when going round it."""
    board, mover, st = game.board, game.mover, game.state
    r = unit.r
    out = []
    for oid in mover.blockers(st, unit):
        o = st.units[oid]
        out.append(_grown(Point(o.x, o.y), r + o.r + MARGIN))
    free = float(game.rs.free_height)
    for t, poly in zip(board.terrain, board.polygons):
        if t.kind == "impassable" or (t.solid and t.height > free):
            out.append(_grown(poly, r + MARGIN))
        elif t.kind == "difficult" and round_difficult:
            out.append(_grown(poly, r + MARGIN))
    return out


def _free_part(game, unit, reach: float, obstacles):
    """The part of the free space that holds the unit's centre, within ``reach`` of it
    (a path within the allowance never leaves that disc)."""
    r = unit.r + MARGIN
    start = Point(unit.x, unit.y)
    table = box(r, r, game.board.width - r, game.board.height - r)
    space = shapely.difference(
        shapely.intersection(table, start.buffer(reach, quad_segs=8)), shapely.union_all(obstacles)
    )
    # a base touching another at its start sits on that base's grown edge: let it step off
    space = shapely.union(space, shapely.intersection(start.buffer(0.01), table))
    for part in shapely.get_parts(space):
        if part.covers(start):
            return shapely.orient_polygons(part)
    return None


def _env(part):
    from extremitypathfinder import PolygonEnvironment

    env = PolygonEnvironment()
    env.store(list(part.exterior.coords)[:-1], [list(i.coords)[:-1] for i in part.interiors], validate=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.prepare()
    return env


def _ring(game, unit, target, part) -> list[tuple[float, float]]:
    """Spots of the target's contact ring a path may end on, nearest the unit first."""
    st = game.state
    d = unit.r + target.r + 0.8 * float(game.rs.contact_tolerance)
    others = [o for o in st.units.values() if o.active and o.id not in (unit.id, target.id)]
    spots = []
    for k in range(RING_SAMPLES):
        a = 2 * math.pi * k / RING_SAMPLES
        x, y = target.x + d * math.cos(a), target.y + d * math.sin(a)
        if not part.covers(Point(x, y)):
            continue
        if any(math.hypot(x - o.x, y - o.y) < unit.r + o.r + MARGIN for o in others):
            continue
        spots.append((x, y))
    return sorted(spots, key=lambda p: math.dist(p, (unit.x, unit.y)))


def _engage(unit_id: str, target_id: str, path=None) -> dict:
    body = {"unit": unit_id, "target": target_id}
    if path is not None:
        body["path"] = [[float(x), float(y)] for x, y in path]
    return {"engage": body}


class EngageReference:
    """The reference for one unit in the current position: its free spaces (through and
    round difficult ground) are built once, for every target (an enemy blocks as any
    other until contact, so every target has the same obstacles)."""

    def __init__(self, game, unit_id: str):
        self.game = game
        self.unit = game.state.units[unit_id]
        self.allow = game.mover.allowance(game.state, unit_id, engage=True)
        self.ways = {
            "round difficult ground": (self.allow.total(False), True),
            "through difficult ground": (self.allow.total(True), False),
        }
        if stands_in_difficult(game.mover, self.unit):  # every path crosses it (M12)
            del self.ways["round difficult ground"]
        self._parts: dict = {}
        self._envs: dict = {}

    def _part(self, way: str):
        if way not in self._parts:
            limit, round_difficult = self.ways[way]
            self._parts[way] = (
                _free_part(self.game, self.unit, limit + 0.3, _obstacles(self.game, self.unit, round_difficult))
                if limit > 0
                else None
            )
        return self._parts[way]

    def _env(self, way: str):
        if way not in self._envs:
            self._envs[way] = _env(self._parts[way])
        return self._envs[way]

    def answer(self, target_id: str) -> Answer:
        """The reference's answer for an Engage of ``target_id`` (see the module)."""
        game, unit = self.game, self.unit
        target = game.state.units[target_id]
        answer = Answer(legal=False)
        for way, (limit, _round) in self.ways.items():
            answer.cheapest[way] = math.inf
            part = self._part(way)
            if part is None:
                continue
            spots = [p for p in _ring(game, unit, target, part) if math.dist(p, (unit.x, unit.y)) <= limit + 1e-6]
            if not spots:
                continue
            env = self._env(way)
            found = []
            for spot in spots:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    path, length = env.find_shortest_path((unit.x, unit.y), spot, verify=False)
                if path and length is not None:
                    found.append((length, [tuple(p) for p in path]))
            found.sort(key=lambda f: f[0])
            if found:
                answer.cheapest[way] = found[0][0]
            for length, path in [f for f in found if f[0] <= limit + 1e-6][:TRIES]:
                if game.why_illegal(_engage(unit.id, target_id, path)) is None:
                    return Answer(True, path, length, way, answer.cheapest)
        return answer


def reference_engage(game, unit_id: str, target_id: str) -> Answer:
    """The reference's answer for ``unit_id`` engaging ``target_id`` now (see the module)."""
    return EngageReference(game, unit_id).answer(target_id)


@dataclass
class Disagreement:
    unit: str
    target: str
    what: str

    def __str__(self) -> str:
        return f"{self.unit} -> {self.target}: {self.what}"


def enemies_in_reach(game, unit_id: str) -> list[str]:
    """The opposing units ``unit_id`` might reach with an Engage by the straight line."""
    st = game.state
    u = st.units[unit_id]
    inches, contact = engage_inches(game.rs, u), float(game.rs.contact_tolerance)
    return [
        o.id
        for o in st.units.values()
        if o.active and o.warband != u.warband and engage_within(engage_gap(u, o), inches, contact)
    ]


def disagreements(game, unit_id: str) -> list[Disagreement]:
    """Every way the engine's Engage answers for ``unit_id`` part now (see the module)."""
    out: list[Disagreement] = []
    legal = game.legal_actions(unit_id)
    listed = set(legal.targets.get("engage", ()))
    ref_of = None
    if "engage" in legal.kinds and not listed:
        out.append(Disagreement(unit_id, "-", "legal_actions lists Engage with no target"))
    for tid in enemies_in_reach(game, unit_id):
        why = game.why_illegal(_engage(unit_id, tid))
        if (why is None) != (tid in listed):
            out.append(
                Disagreement(
                    unit_id,
                    tid,
                    f"legal_actions {'lists' if tid in listed else 'leaves out'} the target, "
                    f"why_illegal says {why or 'legal'}",
                )
            )
        if why is None:
            plan = game.mover.plan_engage(game.state, unit_id, tid)
            given = [(x, y) for x, y, _z in plan.points]
            if len(given) > 1:
                again = game.why_illegal(_engage(unit_id, tid, given))
                if again is not None:
                    out.append(
                        Disagreement(unit_id, tid, f"accepted without a path, but its own path is refused: {again}")
                    )
            continue
        if ref_of is None:
            ref_of = EngageReference(game, unit_id)
        ref = ref_of.answer(tid)
        if ref.legal:
            out.append(
                Disagreement(
                    unit_id,
                    tid,
                    f"refused without a path ({why}), but the explicit path "
                    f'{[[round(x, 4), round(y, 4)] for x, y in ref.path]} ({ref.cost:.2f}", '
                    f"{ref.way}) is accepted",
                )
            )
    return out
