"""Line of sight (L1) and cover (L2): exact, height-aware, many lines at once.

Definitions (docs/sight.md has them with pictures in words):

* Samples. A base has ``los_samples`` sample points: its centre, then ``los_samples - 1``
  points evenly spaced on its rim, the first due east (+x). Every sample of a base stands
  ``eye_height`` above the surface under the base's *centre* (the unit's z, G2), also a
  rim sample that hangs over a ledge.
* Sight lines. Every sample of the viewer to every sample of the target: ``n * n`` straight
  3-D segments.
* Blocking. A line is blocked by a block or wall piece when its ground projection crosses the
  piece's footprint and, somewhere over the footprint, the line is lower than the piece's
  top. Along a segment the height is linear and the top is flat, so over a crossing
  [t0, t1] that is ``min(z(t0), z(t1)) < top``. A line exactly at the top grazes it and is
  clear; so is a line that only touches a footprint's outline (a corner, or along an
  edge). A line that starts inside the footprint of the piece its unit stands on starts
  above that piece's top, so that piece only blocks where the line dips below its top
  further on (looking steeply down over the roof's edge). Difficult and impassable ground
  never block.
* Variant ``bases_block_los``: every other base that is on the table and not Incapacitated
  (viewer and target aside) is an upright cylinder from the surface under its centre up to
  ``base_height``; a line blocked by it as by a piece (exact circles).
* Visible: at least one clear line. Cover (L2), for a visible target: some lines are
  blocked, or every clear line crosses a low wall (a wall no higher than ``free_height``)
  where the crossed stretch comes within ``cover_wall_range`` of the target's base edge
  (G1, across the table).

:class:`Sight` is built once per map; its queries take the game state (unit positions).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import shapely

from game.engine.errors import LoadError
from game.engine.footprints import Footprints
from game.engine.geometry import Board, Disc, board_for
from game.engine.model import GameState, Scenario
from game.engine.ruleset import Ruleset
from game.engine.tolerance import EPS

#: A line this little below a top (inches) is still at the top: it grazes, it is not blocked.
ZTOL = 1e-9

Point3 = tuple[float, float, float]
Segment3 = tuple[Point3, Point3]


@dataclass(frozen=True)
class SightResult:
    """L1/L2 between a viewer and a target (two bases, or two points)."""

    visible: bool
    cover: bool
    clear_lines: int
    lines: int
    distance: float  # G1/G2 edge to edge, as board.distance
    #: Terrain ids (and, variant bases_block_los, unit ids) that block at least one line.
    blockers: tuple[str, ...] = ()
    #: Low walls near the target crossed by clear lines (the L2 wall cover).
    cover_walls: tuple[str, ...] = ()
    #: Every line as (lines, 2, 3): from (x, y, z) to (x, y, z); and which are blocked.
    segments: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)), compare=False, repr=False)
    blocked_mask: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), compare=False, repr=False)

    @property
    def status(self) -> str:
        """``hidden``, ``cover`` (visible, in cover) or ``visible`` (in the open)."""
        return "hidden" if not self.visible else ("cover" if self.cover else "visible")

    @property
    def clear(self) -> list[Segment3]:
        """The clear sight lines, for drawing."""
        return _as_segments(self.segments[~self.blocked_mask])

    @property
    def blocked(self) -> list[Segment3]:
        """The blocked sight lines, for drawing."""
        return _as_segments(self.segments[self.blocked_mask])

    def to_dict(self) -> dict:
        """The ``speedheim los --json`` object."""
        return {
            "visible": self.visible,
            "cover": self.cover,
            "clear_lines": self.clear_lines,
            "lines": self.lines,
            "distance": round(self.distance, 2),
            "status": self.status,
            "blockers": list(self.blockers),
            "cover_walls": list(self.cover_walls),
        }


def _as_segments(arr: np.ndarray) -> list[Segment3]:
    return [(tuple(map(float, s[0])), tuple(map(float, s[1]))) for s in arr]  # type: ignore[misc]


def sample_offsets(n: int) -> np.ndarray:
    """L1 sample points of a base of radius 1: the centre, then n - 1 evenly on the rim."""
    n = max(1, int(n))
    ang = 2.0 * math.pi * np.arange(n - 1) / max(1, n - 1)
    return np.vstack([np.zeros((1, 2)), np.column_stack([np.cos(ang), np.sin(ang)])])


@dataclass
class _Targets:
    """The far ends of a batch of lines: per target its id, centre, radius and surface z."""

    ids: list[str]
    xy: np.ndarray  # (T, 2)
    r: np.ndarray
    z: np.ndarray  # the surface under the centre


class Sight:
    """Line of sight and cover on one map. Build once (prepared terrain); query often."""

    def __init__(self, source: Scenario | Board, other: Ruleset | Board | None = None):
        """``Sight(scenario)``, ``Sight(scenario, board)`` (a board already built for it)
        or ``Sight(board, ruleset)``."""
        if isinstance(source, Scenario):
            ruleset = source.ruleset
            board = other if isinstance(other, Board) else board_for(source)
        else:
            board, ruleset = source, other
        if not isinstance(ruleset, Ruleset):
            raise TypeError("Sight(board, ruleset): a board needs the ruleset")
        self.board = board
        self.rules = ruleset
        self.eye = float(ruleset.eye_height)
        self.free = float(ruleset.free_height)
        self.wall_range = float(ruleset.cover_wall_range)
        self.bases_block = bool(ruleset.bases_block_los)
        self.base_height = float(ruleset.base_height)
        self.offsets = sample_offsets(int(ruleset.los_samples))
        self.footprints = Footprints(board, self.free)
        self._terrain_ids = [t.id for t in board.terrain]
        self._low_wall = np.array(
            [t.kind == "wall" and 0 < t.height <= self.free + EPS for t in board.terrain] or [False]
        )
        fp = self.footprints
        bx0, by0, bx1, by1 = fp.pbox
        self._box_cx, self._box_cy = (bx0 + bx1) / 2, (by0 + by1) / 2
        self._box_hx, self._box_hy = (bx1 - bx0) / 2, (by1 - by0) / 2
        self._piece_top = fp.height
        self._piece_low_wall = self._low_wall[fp.pieces] if len(fp.pieces) else np.zeros(0, dtype=bool)
        self._any_low_wall = bool(self._piece_low_wall.any())
        self._polys = np.array([board.polygons[i] for i in fp.pieces], dtype=object)  # prepared by the board
        # line k of a pair runs from viewer sample _from[k] to target sample _to[k]
        n = len(self.offsets)
        self._from, self._to = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
        self._lines = np.arange(n * n)[None, :]
        self._shadows = None

    # --- queries -------------------------------------------------------------------------
    def between(self, state: GameState, a_id: str, b_id: str) -> SightResult:
        """L1/L2 from unit ``a_id`` to unit ``b_id``."""
        if b_id == a_id:
            raise ValueError(f"{a_id} and {b_id} are the same unit")
        return self.from_unit(state, a_id, [b_id])[b_id]

    def from_unit(self, state: GameState, a_id: str, targets: Iterable[str] | None = None) -> dict[str, SightResult]:
        """L1/L2 from unit ``a_id`` to each target (default: every other unit on the table),
        all lines of all targets in one vectorised pass."""
        a = self._unit(state, a_id)
        if targets is None:
            ids = [uid for uid, u in state.units.items() if u.on_table and uid != a_id]
        else:
            ids = list(targets)
        units = [self._unit(state, uid) for uid in ids]
        board = self.board
        tg = _Targets(
            ids,
            np.array([(u.x, u.y) for u in units], dtype=float).reshape(-1, 2),
            np.array([u.r for u in units], dtype=float),
            np.array([board.height_at(u.x, u.y) for u in units]),
        )
        viewer = board.disc(a)
        return self._batch(viewer, tg, state, exclude={a_id})

    def between_points(self, p: Sequence[float], q: Sequence[float], state: GameState | None = None) -> SightResult:
        """L1/L2 between two table points (each at eye height above the surface under it),
        for the ruler: one line. With ``state`` and bases_block_los, bases block too (not
        one standing on either end)."""
        board = self.board
        tg = _Targets(
            ["q"], np.array([[float(q[0]), float(q[1])]]), np.zeros(1), np.array([board.height_at(q[0], q[1])])
        )
        return self._batch(board.point_disc(float(p[0]), float(p[1])), tg, state, exclude=set(), points=True)["q"]

    def visibility_region(self, state: GameState, a_id: str):
        """The ground a unit cannot see, as a shapely geometry (see
        :mod:`game.engine.shadows` for the exact definition)."""
        if self._shadows is None:
            from game.engine.shadows import Shadows

            self._shadows = Shadows(self)
        return self._shadows.hidden(state, a_id)

    # --- the batch -----------------------------------------------------------------------
    def _unit(self, state: GameState, uid: str):
        u = state.units.get(uid)
        if u is None:
            raise KeyError(f"no unit {uid!r}")
        if not u.on_table:
            raise ValueError(f"{uid} is not on the table")
        return u

    def _batch(
        self, viewer: Disc, tg: _Targets, state: GameState | None, exclude: set[str], points: bool = False
    ) -> dict[str, SightResult]:
        """All lines from the viewer's samples to every target's samples, at once."""
        T = len(tg.ids)
        if points:
            per, SA, SB = 1, np.array([[viewer.x, viewer.y]]), tg.xy
            A, B = np.repeat(SA, T, axis=0), SB
        else:
            n = len(self.offsets)
            per = n * n
            SA = np.array([viewer.x, viewer.y]) + viewer.r * self.offsets  # (n, 2)
            SB = tg.xy[:, None, :] + tg.r[:, None, None] * self.offsets  # (T, n, 2)
            A = SA[self._from][None].repeat(T, axis=0).reshape(-1, 2)
            B = SB[:, self._to].reshape(-1, 2)
        za = viewer.z + self.eye
        zb = np.repeat(tg.z + self.eye, per)
        blocked, block_pairs, (ws, wt, wp) = self._trace(viewer, A, B, za, zb, tg, per)
        if self.bases_block and state is not None:
            hit, pairs = self._bases(A, B, za, zb, tg, per, state, exclude, points)
            blocked |= hit
            block_pairs |= pairs
        seg3 = np.empty((len(A), 2, 3))
        seg3[:, 0, :2], seg3[:, 0, 2], seg3[:, 1, :2], seg3[:, 1, 2] = A, za, B, zb
        blocked = blocked.reshape(T, per)
        clear = (per - blocked.sum(axis=1)).tolist()
        # L2 walls: the lines crossing a low wall near the target, and the walls so crossed
        cover_walls: list[set[str]] = [set() for _ in range(T)]
        wall_cover = [False] * T
        if len(ws):
            covered = np.zeros((T, per), dtype=bool)
            covered.ravel()[ws] = True
            clear_wall = ~blocked.ravel()[ws]
            for t, piece in set(zip(wt[clear_wall].tolist(), wp[clear_wall].tolist())):
                cover_walls[t].add(self._terrain_ids[piece])
            wall_cover = (covered | blocked).all(axis=1).tolist()
        blockers: list[set[str]] = [set() for _ in range(T)]
        for t, name in block_pairs:
            blockers[t].add(name)
        distance = self.board.distance
        out = {}
        for k, uid in enumerate(tg.ids):
            vis = clear[k] > 0
            cov = vis and (clear[k] < per or wall_cover[k])
            dist = distance(viewer, Disc(float(tg.xy[k, 0]), float(tg.xy[k, 1]), float(tg.r[k]), float(tg.z[k])))
            out[uid] = SightResult(
                vis,
                cov,
                clear[k],
                per,
                dist,
                tuple(sorted(blockers[k])),
                tuple(sorted(cover_walls[k])),
                seg3[k * per : (k + 1) * per],
                blocked[k],
            )
        return out

    def _trace(self, viewer: Disc, A: np.ndarray, B: np.ndarray, za: float, zb: np.ndarray, tg: _Targets, per: int):
        """Terrain: which lines are blocked; the (target, piece id) blocking pairs; and the
        (line, target, terrain index) crossings of low walls near the target (L2)."""
        blocked = np.zeros(len(A), dtype=bool)
        none = np.zeros(0, dtype=np.int64)
        pairs = self._corridor_pairs(viewer, za, tg, per)
        if not len(pairs[0]):
            return blocked, set(), (none, none, none)
        si, t0, t1, h, _wall, pc = self.footprints.intervals(A, B, touching=False, pairs=pairs)
        if not len(si):
            return blocked, set(), (none, none, none)
        dz = zb[si] - za
        blk = za + np.minimum(dz * t0, dz * t1) < h - ZTOL
        hit = si[blk]
        blocked[hit] = True
        ids, m = self._terrain_ids, len(self._terrain_ids)
        keys = (hit // per) * m + pc[blk]
        keys = set(keys.tolist()) if len(keys) < 512 else np.unique(keys).tolist()
        pairs = {(k // m, ids[k % m]) for k in keys}
        walls = (none, none, none)
        lw = self._low_wall[pc] & ~blk
        if lw.any():
            s = si[lw]
            d = B[s] - A[s]
            p0 = A[s] + d * t0[lw][:, None]
            p1 = A[s] + d * t1[lw][:, None]
            t = s // per
            near = _point_segment_distance(tg.xy[t], p0, p1) - tg.r[t] <= self.wall_range + EPS
            walls = (s[near], t[near], pc[lw][near])
        return blocked, pairs, walls

    def _corridor_pairs(self, viewer: Disc, za: float, tg: _Targets, per: int):
        """(line, piece number) pairs worth clipping, lines numbered target by target: the
        pieces whose box meets the hull of the viewer's and the target's base (every line
        of the pair lies in it) and that either stand higher than the lower end of the
        lines or are low walls near the target (L2)."""
        vr = viewer.r if per > 1 else 0.0
        if len(tg.ids) == 1:
            # one pair: the pieces within the wider radius of the centre line (exact distances)
            line = shapely.linestrings(np.array([(viewer.x, viewer.y), tg.xy[0]]))
            pi = np.flatnonzero(shapely.dwithin(self._polys, line, max(vr, float(tg.r[0])) + 1e-9))
            ti = np.zeros(len(pi), dtype=np.int64)
        else:
            ti, pi = np.nonzero(self._corridor_boxes(viewer, vr, tg))
        keep = self._piece_top[pi] > np.minimum(za, tg.z[ti] + self.eye) - ZTOL
        if self._any_low_wall and self._piece_low_wall[pi].any():
            gx = np.maximum(np.abs(self._box_cx[pi] - tg.xy[ti, 0]) - self._box_hx[pi], 0.0)
            gy = np.maximum(np.abs(self._box_cy[pi] - tg.xy[ti, 1]) - self._box_hy[pi], 0.0)
            keep |= self._piece_low_wall[pi] & (np.hypot(gx, gy) <= tg.r[ti] + self.wall_range + EPS)
        ti, pi = ti[keep], pi[keep]
        if per == 1:
            return ti, pi
        return ((ti * per)[:, None] + self._lines).ravel(), np.repeat(pi, per)

    def _corridor_boxes(self, viewer: Disc, vr: float, tg: _Targets) -> np.ndarray:
        """(targets, pieces): the piece's box meets the box round the centre line grown by
        the wider radius (which holds the hull of the two bases)."""
        d = tg.xy - (viewer.x, viewer.y)
        L = np.hypot(d[:, 0], d[:, 1])[:, None]
        u = d / np.where(L > 0, L, 1.0)
        ux, uy = u[:, :1], u[:, 1:]
        ax, ay = np.abs(ux), np.abs(uy)
        # each piece's box: centre (cx, cy) from the viewer, half sizes (hx, hy)
        cx, cy, hx, hy = self._box_cx - viewer.x, self._box_cy - viewer.y, self._box_hx, self._box_hy
        along, half_along = cx * ux + cy * uy, hx * ax + hy * ay  # (T, P)
        across, half_across = np.abs(cy * ux - cx * uy), hx * ay + hy * ax
        return (
            (across <= half_across + np.maximum(vr, tg.r)[:, None] + 1e-9)
            & (along + half_along >= -vr - 1e-9)
            & (along - half_along <= L + tg.r[:, None] + 1e-9)
        )

    def _bases(self, A, B, za, zb, tg: _Targets, per: int, state: GameState, exclude: set[str], points: bool):
        """Variant bases_block_los: lines through other bases (upright cylinders)."""
        board = self.board
        others = [u for uid, u in state.units.items() if u.active and uid not in exclude]
        if points:  # the ruler: not a base standing on either end
            ends = (A[0], B[0])
            others = [u for u in others if all(math.hypot(u.x - e[0], u.y - e[1]) >= u.r for e in ends)]
        hit = np.zeros(len(A), dtype=bool)
        if not others:
            return hit, set()
        ox = np.array([u.x for u in others])
        oy = np.array([u.y for u in others])
        orr = np.array([u.r for u in others])
        top = np.array([board.height_at(u.x, u.y) for u in others]) + self.base_height
        own = np.array([u.id for u in others], dtype=object)
        si, bi, t0, t1 = _circle_crossings(A, B, ox, oy, orr)
        t = si // per
        if not points:  # a target's own base does not hide it
            keep = own[bi] != np.array(tg.ids, dtype=object)[t]
            si, bi, t0, t1, t = si[keep], bi[keep], t0[keep], t1[keep], t[keep]
        dz = zb[si] - za
        blk = za + np.minimum(dz * t0, dz * t1) < top[bi] - ZTOL
        hit[si[blk]] = True
        return hit, {(k, str(own[b])) for k, b in zip(t[blk].tolist(), bi[blk].tolist())}


def _point_segment_distance(c: np.ndarray, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    d = p1 - p0
    L2 = np.einsum("ij,ij->i", d, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip(np.einsum("ij,ij->i", c - p0, d) / L2, 0.0, 1.0)
    u = np.where(L2 > 0, u, 0.0)
    return np.hypot(*(p0 + d * u[:, None] - c).T)


def _circle_crossings(A: np.ndarray, B: np.ndarray, cx: np.ndarray, cy: np.ndarray, r: np.ndarray):
    """Segments A -> B through the open discs (centre cx, cy, radius r): (segment, disc,
    t0, t1) of each stretch strictly inside a disc; a tangent line does not cross."""
    close = (
        (np.minimum(A[:, 0], B[:, 0])[:, None] < (cx + r)[None])
        & (np.maximum(A[:, 0], B[:, 0])[:, None] > (cx - r)[None])
        & (np.minimum(A[:, 1], B[:, 1])[:, None] < (cy + r)[None])
        & (np.maximum(A[:, 1], B[:, 1])[:, None] > (cy - r)[None])
    )
    si, bi = np.nonzero(close)
    a = A[si]
    d = B[si] - a
    fx, fy = a[:, 0] - cx[bi], a[:, 1] - cy[bi]
    qa = d[:, 0] ** 2 + d[:, 1] ** 2
    qb = fx * d[:, 0] + fy * d[:, 1]
    qc = fx * fx + fy * fy - r[bi] ** 2
    disc = qb * qb - qa * qc
    ok = (qa > 0) & (disc > 0)
    root = np.sqrt(np.where(ok, disc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.clip((-qb - root) / qa, 0.0, 1.0)
        t1 = np.clip((-qb + root) / qa, 0.0, 1.0)
    ok &= t1 - t0 > 1e-12
    return si[ok], bi[ok], t0[ok], t1[ok]


# --- speedheim los ---------------------------------------------------------------------------


def los_cli(path: str, a: str, b: str, as_json: bool = False) -> int:
    """``speedheim los SCENARIO A B [--json]``: 0, or 2 for bad input."""
    from game.engine.scenario import load_scenario

    try:
        sc = load_scenario(path)
    except LoadError as exc:
        return exc.report()
    state = sc.state
    for uid in (a, b):
        if uid not in state.units:
            known = sorted(state.units)
            more = " ..." if len(known) > 12 else ""
            print(
                f"speedheim los: {uid!r} is not a unit id (units here: {', '.join(known[:12])}{more})", file=sys.stderr
            )
            return 2
    try:
        res = Sight(sc).between(state, a, b)
    except ValueError as exc:
        print(f"speedheim los: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps({"a": a, "b": b, **res.to_dict()}))
        return 0
    word = {"hidden": "hidden", "cover": "visible, in cover", "visible": "visible, in the open"}[res.status]
    print(f"{a} -> {b}: {word}")
    print(f"visible: {'yes' if res.visible else 'no'}")
    print(f"cover: {'yes' if res.cover else 'no'}")
    print(f"clear lines: {res.clear_lines}/{res.lines}")
    print(f"distance: {res.distance:.2f}")
    if res.blockers:
        print(f"blocked by: {', '.join(res.blockers)}")
    if res.cover_walls:
        print(f"low walls giving cover: {', '.join(res.cover_walls)}")
    return 0
