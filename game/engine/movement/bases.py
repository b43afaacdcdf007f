"""Round bases against each other (M5, G4).

A :class:`BaseField` is an index of the bases' circles for overlap tests, swept-base
tests (a base moving along a segment) and sliding a base into contact. It is never the
record of where units are: it is a snapshot of the state's bases, rebuilt when the state
changes, and every answer is exact circle arithmetic (centre distance minus radii).

The index is the bases sorted by x: a query tests, exactly, the few whose centre lies in
the slab of x it could touch. It was a pymunk space until issue 43: building the space's
circles cost 83 us a snapshot on maps/default.yaml (17 bases), the sorted list costs 7 us,
and a query costs about 1 us either way; a planner's turn builds some hundreds of
snapshots. pymunk stays where a base is slid out of others with contact normals (the
editor, game/editor/placement.py).

Public helpers
--------------
``BaseField(board, state, exclude=())``
    the active bases (on the table, not Incapacitated) of ``state``.
``field.overlapping(x, y, r, z=None, among=None) -> list[str]``
    unit ids whose base overlaps a base of radius ``r`` at ``(x, y)``. Touching is
    not overlapping (bases may be in contact). With ``z`` (and a ``level_gap``),
    bases standing more than ``level_gap`` above or below are ignored.
``field.sweep(a, b, r, among=None) -> list[(t, uid)]``
    bases a base of radius ``r`` moving from ``a`` to ``b`` would overlap, with the
    fraction ``t`` (0..1) of the segment at which it first touches each, sorted.
``slide_into_contact(board, state, uid, target_uid, tolerance=None) -> (x, y)``
    slides the unit's base along the straight line from its centre towards the
    target's centre and returns where it stops: in base contact with the target
    (edge to edge 0, which is within the G4 tolerance), or earlier, at first contact
    with any other base in the way, or at the table edge. A unit already within
    ``tolerance`` (G4, pass ``scenario.ruleset.contact_tolerance``) of the target
    does not move. The state is not changed; terrain is not considered: validate the
    move with ``Mover.plan(state, uid, path=[(x, y)])`` if terrain matters.
"""

from __future__ import annotations

import bisect
import math
from typing import Iterable, Sequence

from game.engine.geometry import Board
from game.engine.model import GameState

#: Float slack for "overlapping" (inches): bases closer than r1 + r2 - EPS overlap.
from game.engine.tolerance import EPS

#: Where a slide stops short of exact contact, so float error never makes an overlap.
CONTACT_GAP = 1e-5


class BaseField:
    """The active bases of a state (a snapshot), as an index of circles."""

    def __init__(self, board: Board, state: GameState, exclude: Iterable[str] = (), level_gap: float | None = None):
        self.board = board
        self.level_gap = level_gap
        self.units: dict[str, tuple[float, float, float, float]] = {}  # uid -> (x, y, r, z)
        skip = set(exclude)
        for uid, u in state.units.items():
            if uid in skip or not u.active:
                continue
            self.units[uid] = (u.x, u.y, u.r, board.height_at(u.x, u.y))
        # sorted by x: a query looks only at the bases in the slab of x it could touch
        order = sorted((x, uid) for uid, (x, _y, _r, _z) in self.units.items())
        self._xs = [x for x, _uid in order]
        self._ids = [uid for _x, uid in order]
        self._rmax = max((v[2] for v in self.units.values()), default=0.0)

    def _slab(self, x0: float, x1: float) -> list[str]:
        """The bases whose centre lies between x0 and x1 (inclusive)."""
        xs = self._xs
        return self._ids[bisect.bisect_left(xs, x0) : bisect.bisect_right(xs, x1)]

    def __contains__(self, uid: str) -> bool:
        return uid in self.units

    def _level_ok(self, uid: str, z: float | None) -> bool:
        if z is None or self.level_gap is None:
            return True
        return abs(self.units[uid][3] - z) <= self.level_gap + EPS

    def overlapping(
        self, x: float, y: float, r: float, z: float | None = None, among: Iterable[str] | None = None
    ) -> list[str]:
        """Bases that a base of radius r at (x, y) would overlap (touching is fine)."""
        allowed = None if among is None else set(among)
        out = []
        units = self.units
        for uid in self._slab(x - r - self._rmax, x + r + self._rmax):
            if (allowed is not None and uid not in allowed) or not self._level_ok(uid, z):
                continue
            ox, oy, orad, _oz = units[uid]
            if math.hypot(ox - x, oy - y) < r + orad - EPS:
                out.append(uid)
        return sorted(out)

    def sweep(
        self,
        a: Sequence[float],
        b: Sequence[float],
        r: float,
        among: Iterable[str] | None = None,
        z: float | None = None,
    ) -> list[tuple[float, str]]:
        """Bases overlapped by a base of radius r swept from a to b: [(t, uid)], by t."""
        allowed = None if among is None else set(among)
        ax, ay = float(a[0]), float(a[1])
        bx, by = float(b[0]), float(b[1])
        if (ax, ay) == (bx, by):
            return [(0.0, uid) for uid in self.overlapping(ax, ay, r, z, allowed)]
        slab = self._slab(min(ax, bx) - r - self._rmax, max(ax, bx) + r + self._rmax)
        cands = [uid for uid in slab if (allowed is None or uid in allowed) and self._level_ok(uid, z)]
        return self.sweep_near((ax, ay), (bx, by), r, self.near_path(((ax, ay), (bx, by)), r, cands))

    def near_path(self, pts: Sequence[Sequence[float]], r: float, among: Iterable[str]) -> list[str]:
        """The bases of ``among`` that a base of radius r on the polyline ``pts`` could
        overlap: :meth:`sweep`'s broad phase for a whole path at once (the path's bounding
        box grown by both radii), for a caller that sweeps each of its segments."""
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        out = []
        for uid in among:
            u = self.units.get(uid)
            if u is not None:
                reach = r + u[2]
                if x0 - reach <= u[0] <= x1 + reach and y0 - reach <= u[1] <= y1 + reach:
                    out.append(uid)
        return out

    def sweep_near(
        self, a: Sequence[float], b: Sequence[float], r: float, uids: Iterable[str]
    ) -> list[tuple[float, str]]:
        """:meth:`sweep` (at any level) among ``uids`` from :meth:`near_path`: the exact test
        only, the broad phase done."""
        ax, ay = float(a[0]), float(a[1])
        bx, by = float(b[0]), float(b[1])
        hits = []
        for uid in uids:
            ox, oy, orr, _oz = self.units[uid]
            t = first_contact(ax, ay, bx, by, ox, oy, r + orr)
            if t is not None:
                hits.append((t, uid))
        return sorted(hits)


def first_contact(ax: float, ay: float, bx: float, by: float, cx: float, cy: float, reach: float) -> float | None:
    """Fraction t in [0, 1] where a point moving a->b first comes within ``reach`` of c
    so that it would go on to overlap (enter the circle deeper than EPS); None if never.

    A path that only grazes the circle (closest approach >= reach - EPS) does not hit.
    """
    dx, dy = bx - ax, by - ay
    fx, fy = ax - cx, ay - cy
    aa = dx * dx + dy * dy
    if aa == 0.0:
        return 0.0 if math.hypot(fx, fy) < reach - EPS else None
    # Closest approach along the whole segment.
    tc = max(0.0, min(1.0, -(fx * dx + fy * dy) / aa))
    closest = math.hypot(fx + tc * dx, fy + tc * dy)
    if closest >= reach - EPS:
        return None
    if math.hypot(fx, fy) < reach - EPS:
        return 0.0  # starts overlapping
    bb = 2 * (fx * dx + fy * dy)
    cc = fx * fx + fy * fy - reach * reach
    disc = bb * bb - 4 * aa * cc
    t = (-bb - math.sqrt(max(0.0, disc))) / (2 * aa)
    return max(0.0, min(1.0, t))


def contact_interval(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, reach: float
) -> tuple[float, float] | None:
    """The part [t_in, t_out] of a->b (fractions) where a point is deeper than EPS inside
    the circle of radius ``reach`` around c; None if it never overlaps."""
    dx, dy = bx - ax, by - ay
    fx, fy = ax - cx, ay - cy
    aa = dx * dx + dy * dy
    inner = reach - EPS
    if inner <= 0:
        return None
    if aa == 0.0:
        return (0.0, 0.0) if math.hypot(fx, fy) < inner else None
    bb = 2 * (fx * dx + fy * dy)
    cc = fx * fx + fy * fy - inner * inner
    disc = bb * bb - 4 * aa * cc
    if disc <= 0:
        return None
    root = math.sqrt(disc)
    t0, t1 = (-bb - root) / (2 * aa), (-bb + root) / (2 * aa)
    if t1 <= 0 or t0 >= 1:
        return None
    return (max(0.0, t0), min(1.0, t1))


def slide_into_contact(
    board: Board, state: GameState, uid: str, target_uid: str, tolerance: float | None = None
) -> tuple[float, float]:
    """Slide ``uid``'s base straight towards ``target_uid`` until first contact.

    Returns the stopping centre (x, y): in contact with the target (edge gap of at
    most ``CONTACT_GAP``, inside any G4 tolerance), or at first contact with another
    base on the way, or where the base would leave the table. If the unit is already
    within ``tolerance`` of the target (G4 inclusive), its position is returned.
    The state is not changed.
    """
    u = state.units[uid]
    tgt = state.units[target_uid]
    gap = math.hypot(tgt.x - u.x, tgt.y - u.y) - u.r - tgt.r
    if tolerance is not None and gap <= tolerance + 1e-9:
        return (u.x, u.y)
    if gap <= CONTACT_GAP:
        return (u.x, u.y)
    dist = math.hypot(tgt.x - u.x, tgt.y - u.y)
    ux, uy = (tgt.x - u.x) / dist, (tgt.y - u.y) / dist
    travel = gap - CONTACT_GAP
    end = (u.x + ux * travel, u.y + uy * travel)
    field = BaseField(board, state, exclude=(uid,))
    hits = field.sweep((u.x, u.y), end, u.r)
    t = 1.0
    if hits:
        t0, _hit = hits[0]
        # Back off so the stop is just short of touching the blocker.
        t = max(0.0, t0 - CONTACT_GAP / travel)
    # Table edges.
    for axis_pos, axis_dir, lo, hi in ((u.x, ux, u.r, board.width - u.r), (u.y, uy, u.r, board.height - u.r)):
        if axis_dir > 0 and axis_pos + axis_dir * travel * t > hi:
            t = min(t, max(0.0, (hi - axis_pos) / (axis_dir * travel)))
        elif axis_dir < 0 and axis_pos + axis_dir * travel * t < lo:
            t = min(t, max(0.0, (lo - axis_pos) / (axis_dir * travel)))
    return (u.x + ux * travel * t, u.y + uy * travel * t)
