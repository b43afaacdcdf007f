"""The exact cheapest-path search: A* over the visibility graph of one base radius.

States are the start, transition nodes (points on bands), the goal, and *departures*: a
tangent point on a circle of :class:`.space.BandSpace` where the path leaves the circle
along a tangent. A path reaching a circle goes round it (arc inches = radius x angle) to
one of the departures ahead of it in its direction of travel; departures of a circle are
chained in that order, so each state has few successors. Costs are (inches, checks),
compared with the inches first and the checks on a tie.

Per query the search adds, lazily and vectorised: tangents from points (the start,
transition nodes) to circles and between points; the goal (a point, or the contact
region round a target base for an Engage: every point within ``reach`` of its centre);
the blocking bases (M5) as circles of radius r + their radius, which also cut the
tangents and arcs that pass through them. Only what lies within ``limit`` (by the
straight-line bound) is looked at. A path that enters a contact region where its base
may not end (on a friend it may cross) goes on round the target along the region's rim
to the free spots there.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from game.engine.movement.geom import TAU, arc_polyline, crossings, dedup, entry, hits_discs, overlap_cos, runs, travel
from game.engine.movement.links import links_from
from game.engine.movement.space import RING_SAMPLES, BandSpace, Space
from game.engine.movement.transitions import HAIR, Transitions
from game.engine.tolerance import EPS

_TIE = 1e-9
#: A start this close to a blocking base's circle is on it (:meth:`Search._round_touched`).
TOUCH = 1e-4
#: Bases (with the bases near them) whose free arcs a band space keeps
#: (:meth:`_Band._blockers`; a bound on memory, an engine setting).
FREE_ARCS = 1024


@dataclass
class SearchGoal:
    """Where a path may end: within ``reach`` of (x, y) (0: that point) on one of ``bands``;
    ``end_ok`` says whether a centre may end at a point found there (contact regions).
    ``kept_off``: discs (x, y, R, band) of the bases a centre may cross but not end within
    (those that do not block the way, M5); where the region's rim crosses one is a spot
    to end at (:meth:`_Band.goal_corners`), as where it crosses a blocking base."""

    x: float
    y: float
    reach: float
    bands: frozenset
    end_ok: Callable[[float, float], bool] | None = None
    kept_off: tuple = ()

    def beyond(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """How far each point lies outside the region, straight (0 inside): a bound on
        what a path from there still costs (the search's heuristic)."""
        return np.maximum(0.0, np.hypot(X - self.x, Y - self.y) - self.reach)

    @property
    def rim(self) -> float:
        """The radius of the region's rim as paths end on it: a hair (:data:`RIM_HAIR`)
        inside ``reach``."""
        return self.reach * (1 - RIM_HAIR)


@dataclass
class Found:
    """A path found: waypoints (the start first), its cost and checks by the search, the
    transition edges it takes (ids, or ("far", ledge)), and the arcs it follows between
    waypoints: (index of the waypoint where it starts, centre, radius, start angle,
    orientation, sweep)."""

    points: list[tuple[float, float]]
    cost: float
    checks: int
    edges: list = field(default_factory=list)
    arcs: list[tuple] = field(default_factory=list)


def level_step(longest_move: float, r: float) -> float:
    """The most a change of level may cost on a route of moves of at most ``longest_move``
    inches by a base of radius ``r``: no move ends part-way up one (M6, M10), so a move
    takes it whole, from its foot (the centre a radius short of the edge) to a radius past
    the edge: its inches and the base's width."""
    return longest_move - 2 * r


class SearchContext:
    """One query's unit and bases: who blocks (M5), what the unit may do."""

    def __init__(self, nav, state, unit, descend: str, ignore=(), known: tuple | None = None):
        """``known``: ``(field, blockers, discs)`` of another context of the same unit
        and bases, without ``ignore`` (they depend on nothing else; shared, read only)."""
        mover = nav.mover
        rs = mover.rs
        self.state, self.unit, self.descend = state, unit, descend
        if known is not None:
            self.field, self.blockers, self.discs = known
        else:
            self.field = mover.base_field(state)
            self.blockers = [b for b in mover.blockers(state, unit) if b not in ignore]
            self.discs = _discs(nav, self.field, self.blockers, unit)
        self.may_climb = not (unit.status == "dazed" and not rs.dazed_may_climb)
        self.ladders = not (unit.is_animal and not rs.animals_use_ladders)
        self.far_reach = float(rs.jump_down_landing_max) + unit.r - HAIR
        #: The longest move the unit makes, for a route over several moves (inf: any):
        #: a change of level no such move takes whole is left out (:meth:`Search.step`).
        self.longest_move = math.inf
        #: What the searches of this query found, per goal (NavCache._search_result), and those
        #: paths checked by the tracer (NavCache._traced_path): the same query asks again.
        self.runs: dict = {}
        self.traced: dict = {}
        #: What this query's searches work out per source and the goal, the same in each
        #: (links_from: the tangent to the goal's centre; may_transit's answer per limit).
        self.memo: dict = {}
        #: A limit of this query's searches -> the wider one whose search answers for it
        #: (NavCache._search_result).
        self.widen: dict = {}
        #: The goals those are filed under (by id): held here so that no goal's id is given
        #: to another while this query lasts (a goal made for one search and dropped, as
        #: rim_spots makes one per spot, would hand its id, and its answers, to the next).
        self.goals: dict[int, SearchGoal] = {}

    def goal_key(self, goal: SearchGoal) -> int:
        """The id this query files ``goal``'s answers under, the goal kept alive with it."""
        self.goals.setdefault(id(goal), goal)
        return id(goal)


def _discs(nav, field, blockers: list, unit) -> list:
    """The blocking bases as discs the unit's centre may not enter ``(x, y, R, band)``,
    less those its base overlaps where it stands."""
    at_start = set(field.overlapping(unit.x, unit.y, unit.r))
    discs = []
    for uid in blockers:
        if uid in at_start:
            continue
        ox, oy, orr, _oz = field.units[uid]
        b = nav.band_at(ox, oy)
        if b is not None:
            discs.append((ox, oy, unit.r + orr, b))
    return discs


#: How far inside the goal region's rim a corner target lies (a share of its radius): a
#: straight stretch to it crosses the rim just before it.
RIM_HAIR = 1e-9


def _ends_near(arcs, a: float):
    """The free arcs ``(lo, width)`` of a base with an end within one sample of angle
    ``a`` (they are found on :data:`RING_SAMPLES` points), in order: ``(index, the
    offset of a from lo, the offset of that end)``; the offset is past the width just past
    the arc's end, negative just before its start."""
    step = TAU / RING_SAMPLES
    for m, (lo, w) in enumerate(arcs):
        p = (a - lo) % TAU
        if w < p <= w + step:
            yield m, p, w
        elif p >= TAU - step:
            yield m, p - TAU, 0.0


def _offset(a: float, lo: float, step: float) -> float:
    """How far round from ``lo`` angle ``a`` lies (0 .. 2 pi), up to one ``step`` before it
    as a negative offset."""
    p = (a - lo) % TAU
    return p - TAU if p > TAU - step else p


class _Band:
    """Per-query data of one band: circles in range, blocking bases, cut tangents."""

    def __init__(self, q: "Search", bs: BandSpace):
        self.bs = bs.graph()
        n = len(bs.cx)
        self.n_static = n
        self.in_range = np.nonzero(q.within(bs.centres, bs.rho))[0] if n else np.zeros(0, dtype=np.int64)
        blk = [b for b in q.blockers if b[3] == bs.band.id]
        if blk:
            D = np.array(blk, dtype=float)
            blk = [b for b, ok in zip(blk, q.within(D[:, :2], D[:, 2]).tolist()) if ok]
        self.blk = [b[:3] for b in blk]
        self.blk_arr = np.array(self.blk)
        self.blk_key = tuple(self.blk)
        self._base_targets = None
        self.cx = np.concatenate([bs.cx, np.array([b[0] for b in self.blk])])
        self.cy = np.concatenate([bs.cy, np.array([b[1] for b in self.blk])])
        self.rho = np.concatenate([bs.rho, np.array([b[2] for b in self.blk])])
        self.circles = np.concatenate([self.in_range, n + np.arange(len(self.blk))]).astype(np.int64)
        self.cut: dict[int, list[tuple[float, float]]] = {}  # static circle -> arcs inside a base
        self.blk_iv: list[list[tuple[float, float]]] = []
        self.goal = q.goal if (q.goal is not None and bs.band.id in q.goal.bands and q.goal.reach > 0) else None
        if self.blk:
            self._blockers()
        self.dyn: dict[int, list] = {}  # slot -> departures computed for this query
        self.fixed_in_range: dict = {}  # links_from: the fixed targets in range (with circles or not)
        self._bad: dict[int, list] = {}  # slot -> its static tangents that pass through a base
        self._goal_t: dict[int, list] = {}  # slot -> where its static tangents enter the goal region
        self._corners: list | None = None  # goal_corners
        self._rim: tuple | None = None  # rim: its free runs and the corners on it

    def goal_corners(self) -> list[tuple[float, float]]:
        """Where the goal region's rim crosses a base's circle (grown by the unit's
        radius): a blocking base's, or one the path may cross but not end on
        (``SearchGoal.kept_off``): the spots in contact beside a base that stands by the target,
        the nearest ones when the straight way in ends on that base. And where terrain,
        the table's edge or the band's bounds the rim (:meth:`.BandSpace.ring_ends`): the
        spots in contact beside a wall or off difficult ground. Targets a straight stretch
        may end at (:func:`.links.links_from`), a hair inside the rim."""
        if self._corners is None:
            out = []
            g = self.goal
            if g is not None:
                band = self.bs.band.id
                for bx, by, R in self.blk + [k[:3] for k in g.kept_off if k[3] == band]:
                    for x, y in crossings(g.x, g.y, g.reach, bx, by, R):
                        out.append((g.x + (x - g.x) * (1 - RIM_HAIR), g.y + (y - g.y) * (1 - RIM_HAIR)))
                # where terrain, the table's edge or the band's bounds the rim: the last
                # free sample before it (BandSpace.ring_ends)
                out += [
                    (g.x + g.rim * math.cos(a), g.y + g.rim * math.sin(a)) for a in self.bs.ring_ends(g.x, g.y, g.reach)
                ]
            self._corners = out
        return self._corners

    def rim(self) -> tuple[list, list]:
        """The goal region's rim (a hair inside it, round the target): its free runs ``(lo,
        width)``, off every blocking base and where a base may be (on :data:`RING_SAMPLES`
        points, :meth:`.BandSpace.ring_free`), and the corners on it
        (:meth:`goal_corners`) as ``(angle, x, y)``. A base in contact walks round the
        target along a free run (:meth:`Search._round_rim`), across the bases of
        ``SearchGoal.kept_off`` (friends it may cross, M5). No corner: no walk, nothing sampled."""
        if self._rim is None:
            g = self.goal
            corners = [(math.atan2(y - g.y, x - g.x) % TAU, x, y) for x, y in self.goal_corners()]
            if not corners:
                self._rim = ([], [])
                return self._rim
            a, ok = self.bs.ring_off(g.x, g.y, g.reach, self.blk)
            self._rim = (runs(a, ok) if ok.any() else [], corners)
        return self._rim

    def round_rim(self, a0: float) -> list[tuple[float, int, float, float]]:
        """From the rim's point at angle ``a0``, round the rim within its free run to each
        corner on that run (:meth:`rim`): ``(sweep, orientation, x, y)``. A point up to one
        sample past a run's end belongs to it (the runs are found on samples; the tracer
        checks the path found, as every path)."""
        runs_, corners = self.rim()
        step = TAU / RING_SAMPLES
        for lo, w in runs_:
            if w >= TAU - 1e-9:
                return [(travel(a0, ca, s), s, cx, cy) for ca, cx, cy in corners for s in (1, -1)]
            p0 = _offset(a0, lo, step)
            if p0 > w + step:
                continue
            out = []
            for ca, cx, cy in corners:
                pc = _offset(ca, lo, step)
                if pc <= w + step:
                    out.append((abs(pc - p0), 1 if pc >= p0 else -1, cx, cy))
            return out
        return []

    def base_targets(self) -> tuple:
        """The blocking bases as targets of :func:`.links.links_from`, each both ways round
        (x, y, radius, orientation, kind 0, circle), made once per query."""
        if self._base_targets is None:
            c = np.repeat(self.n_static + np.arange(len(self.blk), dtype=np.int64), 2)
            self._base_targets = (
                self.cx[c],
                self.cy[c],
                self.rho[c],
                np.tile([1.0, -1.0], len(self.blk)),
                np.zeros(len(c), dtype=np.int64),
                c,
            )
        return self._base_targets

    def bad(self, slot: int, ch) -> list | None:
        if not self.blk:
            return None
        out = self._bad.get(slot)
        if out is None:
            out = self._bad[slot] = hits_discs(ch.A, ch.B, self.blk_arr).tolist() if len(ch.q) else []
        return out

    def goal_t(self, slot: int, ch) -> list | None:
        g = self.goal
        if g is None:
            return None
        out = self._goal_t.get(slot)
        if out is None:
            out = self._goal_t[slot] = entry(ch.A, ch.B, g.x, g.y, g.reach).tolist() if len(ch.q) else []
        return out

    def _blockers(self) -> None:
        """The arcs of the static circles in range that lie inside a blocking base
        (``cut``) and the free arcs of each base (``blk_iv``)."""
        bs = self.bs
        # arcs of static circles inside a base (the circles a base comes near picked out
        # at once; each arc worked out as before)
        C = self.in_range
        if len(C):
            cx, cy, rho_c = bs.cx[C], bs.cy[C], bs.rho[C]
            near = np.zeros(len(C), dtype=bool)
            for bx, by, R in self.blk:
                near |= np.hypot(bx - cx, by - cy) <= R + rho_c + 1e-9
            for c in C[near].tolist():
                rho = bs.rho[c]
                for bx, by, R in self.blk:
                    D = math.hypot(bx - bs.cx[c], by - bs.cy[c])
                    if D + rho <= R:
                        self.cut.setdefault(c, []).append((0.0, TAU))
                    elif abs(D - rho) < R < D + rho and rho > 0:
                        half = math.acos(max(-1.0, min(1.0, overlap_cos(rho, D, R))))
                        mid = math.atan2(by - bs.cy[c], bx - bs.cx[c])
                        self.cut.setdefault(c, []).append(((mid - half) % TAU, 2 * half))
        # the free arcs of each base: off the other bases near it and where the base may
        # walk, kept with the band space (the same for every query with those bases)
        kept = bs.free_arcs
        self.blk_iv = []
        for k, (bx, by, R) in enumerate(self.blk):
            near = tuple(
                o for j, o in enumerate(self.blk) if j != k and math.hypot(o[0] - bx, o[1] - by) < R + o[2] + 1e-9
            )
            key = (bx, by, R, near)
            iv = kept.get(key)
            if iv is None:
                iv = runs(*bs.ring_off(bx, by, R, near))
                if len(kept) >= FREE_ARCS:
                    del kept[next(iter(kept))]
                kept[key] = iv
            self.blk_iv.append(list(iv))

    # --- circles: where a tangent point is ---------------------------------------------------
    def locate(self, circ: np.ndarray, ang: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = self.n_static
        iv = np.full(len(circ), -1, dtype=np.int64)
        off = np.zeros(len(circ))
        st = circ < n
        if st.any():
            iv[st], off[st] = self.bs.locate(circ[st], ang[st])
        for k in np.nonzero(~st)[0].tolist():
            for m, (lo, w) in enumerate(self.blk_iv[circ[k] - n]):
                p = (ang[k] - lo) % TAU
                if p <= w + 1e-9:
                    iv[k], off[k] = -2 - m, min(p, w)  # intervals of bases: -2, -3, ...
                    break
            else:
                iv[k], off[k] = self._past_end(circ[k] - n, float(ang[k]))
        return iv, off

    def _past_end(self, j: int, a: float) -> tuple[int, float]:
        """Base ``j``'s free arc whose end lies within one sample of angle ``a``, when the
        point of its circle there is one where a base may be (an exact test): ``(interval,
        offset)`` as :meth:`locate` gives them, the offset past the arc's width or before
        its start; ``(-1, 0.0)`` when there is none. The free arcs are found on
        :data:`RING_SAMPLES` points, so the true end of one lies up to a sample past its
        last free sample: a tangent to a corner that pokes out of the base's circle
        touches the circle there (the way round a base standing in difficult ground, just
        off its edge)."""
        bx, by, R = self.blk[j]
        x, y = bx + R * math.cos(a), by + R * math.sin(a)
        for m, p, _end in _ends_near(self.blk_iv[j], a):
            if (
                all(math.hypot(x - ox, y - oy) >= oR - EPS for k, (ox, oy, oR) in enumerate(self.blk) if k != j)
                and self.bs.ok_points(np.array([x]), np.array([y]))[0]
            ):
                return -2 - m, p
        return -1, 0.0

    def arc_limit(self, c: int, a_from: float, s: int) -> float:
        """How far round circle c from angle a_from (orientation s) before a blocking base."""
        out = TAU
        for clo, cw in self.cut.get(c, ()):
            if cw >= TAU - 1e-12:
                return 0.0
            start = (s * (clo - a_from)) % TAU if s > 0 else (s * ((clo + cw) - a_from)) % TAU
            out = min(out, start)
        return out

    def arc_free(self, c: int, a_from: float, s: int, sweep: float) -> bool:
        """Is the arc of circle c from angle a_from, sweeping ``sweep`` with orientation s,
        clear of every blocking base?"""
        cuts = self.cut.get(c)
        if not cuts or sweep <= 1e-12:
            return True
        lo = a_from if s > 0 else (a_from - sweep) % TAU
        for clo, cw in cuts:
            if cw >= TAU - 1e-12:
                return False
            # two arcs [lo, lo+sweep] and [clo, clo+cw] on the circle overlap?
            if (clo - lo) % TAU < sweep or (lo - clo) % TAU < cw:
                return False
        return True


class Search:
    """One query: A* from a start point to a goal (or everywhere within ``limit``).

    ``blockers``: (x, y, R, band) discs the centre may not enter (R = r + their radius).
    ``checks``: may the path take transitions that need a check. ``descend``, ``ladders``
    (may use ladders, M10) and ``may_climb`` price the transitions (:meth:`Transitions.price`).
    """

    def __init__(
        self,
        space: Space,
        trans: Transitions,
        start: tuple[float, float],
        start_band: int,
        goal: SearchGoal | None,
        limit: float,
        checks: bool,
        descend: str,
        ladders: bool,
        may_climb: bool,
        blockers=(),
        far_reach: float | None = None,
        links: dict | None = None,
        memo: dict | None = None,
        longest_move: float = math.inf,
    ):
        self.space, self.trans = space, trans
        self.links = links  # band -> source -> links.Links (None: kept with the band space)
        self.memo = memo  # the query's (SearchContext.memo; None: nothing kept)
        self.far_reach = far_reach  # M9: how far out (centre from the ledge) a jump may land
        self.step = level_step(longest_move, space.r)
        self.sx, self.sy = start
        self.start_band = start_band
        self.goal = goal
        self.limit = limit
        self.checks, self.descend, self.ladders, self.may_climb = checks, descend, ladders, may_climb
        self.blockers = list(blockers)
        self.bands: dict[int, _Band] = {}
        tr = trans
        # point nodes: transition ends in range (not inside a base), then the start
        P = tr.P
        ok = tr.used & self.within(P, np.zeros(len(P)))
        if self.blockers and ok.any():
            idx = np.nonzero(ok)[0]
            D = np.array(self.blockers, dtype=float)
            inside = (tr.band[idx, None] == D[None, :, 3]) & (
                np.hypot(P[idx, 0, None] - D[None, :, 0], P[idx, 1, None] - D[None, :, 1]) < D[None, :, 2] - EPS
            )
            ok[idx[inside.any(axis=1)]] = False
        self.node_ok = ok
        nodes = np.nonzero(ok)[0]
        self.nodes_by_band: dict[int, np.ndarray] = {}
        for b in np.unique(tr.band[nodes]).tolist():
            self.nodes_by_band[b] = nodes[tr.band[nodes] == b]
        self.nx, self.ny, self.nband = list(tr.X_l), list(tr.Y_l), list(tr.band_l)
        self.n_nodes = len(tr.X)
        self.START = self._add_node(start, start_band)
        self.best: dict = {}
        self.parent: dict = {}
        self.heap: list = []
        self.count = 0
        self.found = None
        self.untested: dict = {}  # goal state -> where its stretch starts (see _push)
        self.record = False  # keep every arrival on a circle (the reachable area's fans)
        self.arrivals: list = []
        self.skipped = False  # was a transition needing a check within the limit left out?
        self.left_out = False  # ... or one a run with checks would have taken up (see _transitions)?

    def rerun(self, checks: bool):
        """The same query again with transitions needing a check allowed or not: the
        tangents worked out for the first run are kept."""
        self.checks = checks
        self.best, self.parent, self.heap = {}, {}, []
        self.found = None
        self.untested = {}
        self.arrivals = []
        self.skipped = self.left_out = False
        return self.run()

    # --- range -----------------------------------------------------------------------------
    def h(self, x: float, y: float) -> float:
        g = self.goal
        if g is None:
            return 0.0
        return max(0.0, math.hypot(x - g.x, y - g.y) - g.reach)

    def hx(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        g = self.goal
        if g is None:
            return np.zeros(len(X))
        return g.beyond(X, Y)

    def within(self, P: np.ndarray, rho: np.ndarray) -> np.ndarray:
        """Could a path within the limit come within rho of these points?"""
        d = np.hypot(P[:, 0] - self.sx, P[:, 1] - self.sy)
        if self.goal is not None:
            d = d + self.goal.beyond(P[:, 0], P[:, 1])
        return d - 2 * rho <= self.limit + EPS

    def _add_node(self, p: tuple[float, float], band: int) -> int:
        k = len(self.nx)
        self.nx.append(float(p[0]))
        self.ny.append(float(p[1]))
        self.nband.append(band)
        return k

    def band(self, b: int) -> _Band:
        out = self.bands.get(b)
        if out is None:
            out = self.bands[b] = _Band(self, self.space.bands[b])
        return out

    # --- the search ------------------------------------------------------------------------------
    def _push(self, key, g: float, k: int, x: float, y: float, via, test=None) -> None:
        """``test``: the start of a straight stretch to this goal state not yet tested
        against the terrain (:meth:`_loop` does when it comes to the state)."""
        old = self.best.get(key)
        if old is not None and (g > old[0] - _TIE and not (g < old[0] + _TIE and k < old[1])):
            return
        f = g + self.h(x, y)
        if f > self.limit + EPS + 1e-9:
            return
        self.best[key] = (g, k)
        self.parent[key] = via
        self.count += 1
        heapq.heappush(self.heap, (f, k, self.count, g, key))
        if test is not None:
            self.untested[key] = test
        elif self.untested:
            self.untested.pop(key, None)

    def add_checks(self) -> None:
        """After a run without a goal and without checks: the labels (and arrivals) of a run
        with checks, by going on from the labels there are. Only the transitions the first
        run left out are new, so only what they make cheaper is searched again (the labels
        are those of a fresh run with checks; the arrivals are that run's, and also some a
        later arrival at the same place with fewer inches makes redundant)."""
        assert self.goal is None and not self.checks
        self.checks = True
        self.found = None
        for key, (g, k) in list(self.best.items()):
            if key[0] == "L" or key[0] == "N":
                self._transitions(key[1], g, k, key, True)
        self._loop()

    def run(self):
        """Search; returns the goal state's (cost, checks) or None. Without a goal, every
        state within the limit is labelled (``best``)."""
        self._push(("L", self.START), 0.0, 0, self.sx, self.sy, None)
        return self._loop()

    def _loop(self):
        pop = heapq.heappop
        while self.heap:
            f, k, _c, g, key = pop(self.heap)
            if self.best.get(key) != (g, k):
                continue
            kind = key[0]
            if kind == "G":
                if self.untested and not self._walkable(key):
                    continue
                if self._goal_ok(key):
                    self.found = key
                    return g, k
                if self.goal.reach > 0 and self.parent[key][0] != "rim":
                    self._round_rim(key, g, k)
                continue
            if kind == "N" or kind == "L":
                self._expand_node(key[1], g, k, kind == "L")
            elif kind == "C":
                self._chain(key, g, k)
            elif kind == "A":
                _t, b, slot, iv, q, a = key
                self._depart(b, slot // 2, 1 if slot % 2 == 0 else -1, iv, q, a, g, k, self.parent[key])
            else:
                self._dyn(key, g, k)
        return None

    def _walkable(self, key) -> bool:
        """May a base walk the straight stretch that ends at goal state ``key``? (True when
        it was tested before it was pushed.)"""
        start = self.untested.pop(key, None)
        if start is None:
            return True
        return bool(self.bands[key[1]].bs.ok_segments(np.array([start]), np.array([key[2:4]]))[0])

    def _goal_ok(self, key) -> bool:
        """May the path end at goal state ``key``: where the goal says (``end_ok``) and,
        keeping off difficult ground (``Space(avoid=True)``), off it. A spot on the rim
        walked to within a sample of a free run's end (:meth:`_Band.round_rim`) may lie
        on difficult ground; the tracer would count such a path as crossing it (M12)."""
        g = self.goal
        x, y = key[2], key[3]
        if self.space.avoid and not self.bands[key[1]].bs.ok_points(np.array([x]), np.array([y]))[0]:
            return False
        return g.end_ok is None or g.end_ok(x, y)

    # --- successors --------------------------------------------------------------------------------
    def _round_rim(self, key, g: float, k: int) -> None:
        """A path entered the goal region where the base may not end (a friend stands there,
        M5): it goes on round the target along the region's rim to the spots in contact
        beside the bases, terrain and the table's edge there (:meth:`_Band.round_rim`)."""
        _t, b, x, y = key
        goal = self.goal
        a0 = math.atan2(y - goal.y, x - goal.x) % TAU
        for sweep, s, cx, cy in self.bands[b].round_rim(a0):
            self._push(("G", b, cx, cy), g + goal.rim * sweep, k, cx, cy, ("rim", key, s, a0))

    def _arrive(self, b: int, circ: int, s: int, iv: int, q: float, a: float, g: float, k: int, via) -> None:
        """The path reaches circle circ (orientation s) at angle a: go round to the departures
        ahead: the first of the static chain at once, and every dynamic one
        (:meth:`_depart`) at once without a goal, else when the search comes back to the
        arrival (its state ``("A", ...)`` waits in the heap)."""
        B = self.band(b)
        bs = B.bs
        slot = 2 * circ + (s < 0)
        rho = B.rho[circ]
        if self.record:
            self.arrivals.append((b, circ, s, iv, q, a, g))
        if circ < B.n_static:
            ch = bs.chain(slot)
            rng = ch.ranges.get(iv)
            if rng is not None:
                i = bisect_left(ch.q, q - 1e-12, rng[0], rng[1])
                if i < rng[1]:
                    sweep = ch.q[i] - q
                    if B.arc_free(circ, a, s, sweep):
                        self._push(
                            ("C", b, slot, i),
                            g + rho * max(0.0, sweep),
                            k,
                            ch.Ax[i],
                            ch.Ay[i],
                            ("arc", via, b, circ, s, a),
                        )
        if self.goal is not None:
            # the departures worked out only if the search comes back to this arrival (an
            # A* towards a goal leaves most of them: its goal is found first, or they lie
            # out of range): the arrival waits in the heap as it is
            self._push(
                ("A", b, slot, iv, q, a),
                g,
                k,
                float(B.cx[circ]) + rho * math.cos(a),
                float(B.cy[circ]) + rho * math.sin(a),
                via,
            )
            return
        self._depart(b, circ, s, iv, q, a, g, k, via)

    def _depart(self, b: int, circ: int, s: int, iv: int, q: float, a: float, g: float, k: int, via) -> None:
        """From an arrival on circle circ (:meth:`_arrive`): round it to each departure ahead
        that its path comes on first (this query's: tangents to the bases, the goal, ...)."""
        B = self.bands[b]
        slot = 2 * circ + (s < 0)
        rho = B.rho[circ]
        full = iv <= -2 and B.blk_iv[circ - B.n_static][-2 - iv][1] >= TAU - 1e-9
        for m, d in enumerate(self._departures(b, circ, s)):
            if d[0] != iv:
                continue
            sweep = travel(a, d[2], s) if full else d[1] - q
            if sweep < -1e-12 or not B.arc_free(circ, a, s, sweep):
                continue
            self._push(("D", b, slot, m), g + rho * max(0.0, sweep), k, d[3], d[4], ("arc", via, b, circ, s, a))

    def _chain(self, key, g: float, k: int) -> None:
        _t, b, slot, i = key
        B = self.bands[b]
        ch = B.bs.chain(slot)
        # along the tangent (into the goal region on the way, or to its circle)
        bad = B.bad(slot, ch)
        if bad is None or not bad[i]:
            gt = B.goal_t(slot, ch)
            t = gt[i] if gt is not None else math.nan
            if t == t:
                x = ch.Ax[i] + t * (ch.Bx[i] - ch.Ax[i])
                y = ch.Ay[i] + t * (ch.By[i] - ch.Ay[i])
                self._push(("G", b, x, y), g + t * ch.length[i], k, x, y, ("line", key))
            else:
                to = ch.to[i]
                self._arrive(
                    b,
                    to // 2,
                    1 if to % 2 == 0 else -1,
                    ch.to_iv[i],
                    ch.to_q[i],
                    ch.to_a[i],
                    g + ch.length[i],
                    k,
                    ("line", key),
                )
        # or on round the circle to the next departure
        if i + 1 < ch.end[i]:
            circ, s = slot // 2, (1 if slot % 2 == 0 else -1)
            sweep = ch.q[i + 1] - ch.q[i]
            if B.arc_free(circ, ch.a[i], s, sweep):
                self._push(
                    ("C", b, slot, i + 1),
                    g + B.rho[circ] * sweep,
                    k,
                    ch.Ax[i + 1],
                    ch.Ay[i + 1],
                    ("arc", ("at", key), b, circ, s, ch.a[i]),
                )

    def _dyn(self, key, g: float, k: int) -> None:
        _t, b, slot, m = key
        d = self.bands[b].dyn[slot][m]
        self._follow(b, d[5], d[3], d[4], g, k, key)

    def _follow(self, b: int, target, x0: float, y0: float, g: float, k: int, via) -> None:
        """Follow a dynamic segment from (x0, y0) to its target: ('node', n, x, y), ('goal',
        x, y) or ('circ', c, s, iv, q, a, x, y)."""
        kind = target[0]
        if kind == "node":
            _k, n, x, y = target
            self._push(("N", n), g + math.hypot(x - x0, y - y0), k, x, y, ("line", via))
        elif kind == "goal" or kind == "goal?":  # goal?: the stretch not tested yet
            _k, x, y = target
            self._push(
                ("G", b, x, y),
                g + math.hypot(x - x0, y - y0),
                k,
                x,
                y,
                ("line", via),
                (x0, y0) if kind == "goal?" else None,
            )
        else:
            _k, c, s, iv, q, a, x, y = target
            self._arrive(b, c, s, iv, q, a, g + math.hypot(x - x0, y - y0), k, ("line", via))

    def _departures(self, b: int, circ: int, s: int) -> list:
        """Departures of a circle computed for this query: (interval, q, angle, x, y, target)."""
        B = self.band(b)
        slot = 2 * circ + (s < 0)
        out = B.dyn.get(slot)
        if out is None:
            fixed = circ < B.n_static
            if fixed:
                # tangents between fixed circles are the chain's: here only the rest (and, with
                # a goal region, those that enter it, maybe before a base the chain's meets)
                rows = links_from(
                    self,
                    b,
                    ("slot", slot),
                    float(B.cx[circ]),
                    float(B.cy[circ]),
                    float(B.rho[circ]),
                    s,
                    skip_circle=circ,
                    circles=B.goal is not None,
                    to_circles=False,
                )
            else:
                rows = links_from(
                    self, b, None, float(B.cx[circ]), float(B.cy[circ]), float(B.rho[circ]), s, skip_circle=circ
                )
            out = []
            if rows:
                # where the tangents leave the circle: kept for a fixed circle's fixed targets
                seen = B.bs.located.setdefault(slot, {}) if fixed else {}
                new = [r for r in rows if r not in seen]
                if new:
                    iv, off = B.locate(np.full(len(new), circ), np.array([r[0] for r in new]))
                    found = dict(zip(new, zip(iv.tolist(), off.tolist())))
                    if fixed:
                        seen.update((r, v) for r, v in found.items() if r[2][0] == "node" and r[2][1] < self.n_nodes)
                else:
                    found = {}
                for r in rows:
                    i, o = seen[r] if r in seen else found[r]
                    if i != -1:
                        a1, (x1, y1), target = r
                        out.append((i, s * o, a1, x1, y1, target))
            out += _arc_ends(B, circ, s)
            B.dyn[slot] = out
        return out

    def _expand_node(self, n: int, g: float, k: int, full: bool) -> None:
        """From a point node: walking on (only from the start and where a transition lands:
        a node walked to is worth it only for its transitions, the walk could go straight on
        without it), and its transitions."""
        b = self.nband[n]
        x0, y0 = self.nx[n], self.ny[n]
        key = ("L" if full else "N", n)
        if full and b >= 0:
            src = ("node", n) if n < self.n_nodes else None
            for _a1, _p, target in links_from(self, b, src, x0, y0, 0.0, 1, g0=g, skip_node=n):
                self._follow(b, target, x0, y0, g, k, key)
            if n == self.START:
                self._round_touched(b, x0, y0, g, k, key)
        self._transitions(n, g, k, key, False)

    def _round_touched(self, b: int, x0: float, y0: float, g: float, k: int, key) -> None:
        """The start on the circle of a base it touches (an engaged unit stands
        ``CONTACT_GAP`` off its enemy): no tangent leaves a point on its own circle, so the
        path goes round the circle from there, either way. Touching two bases, the start is
        where their circles cross, at an end of each one's free arcs, which are found on
        :data:`RING_SAMPLES` points: an end up to one step away is taken as the start's
        (the tracer checks the path found, as every path)."""
        B = self.band(b)
        n = B.n_static
        for j, (bx, by, R) in enumerate(B.blk):
            if abs(math.hypot(x0 - bx, y0 - by) - R) > TOUCH:
                continue
            a = math.atan2(y0 - by, x0 - bx) % TAU
            iv, off = B.locate(np.array([n + j]), np.array([a]))
            iv, off = int(iv[0]), float(off[0])
            if iv == -1:
                for m, _p, at_end in _ends_near(B.blk_iv[j], a):
                    iv, off = -2 - m, at_end  # at the arc's end (the last one near)
                if iv == -1:
                    continue
            for s in (1, -1):
                self._arrive(b, n + j, s, iv, s * off, a, g, k, ("line", key))

    def _transitions(self, n: int, g: float, k: int, key, only_checks: bool) -> None:
        """The transitions from point node n (``only_checks``: only those needing a check)."""
        if n >= self.n_nodes:
            return
        tr = self.trans
        node_ok = self.node_ok
        for e, to, cost, checks in tr.priced(n, self.descend, self.ladders, self.may_climb):
            if only_checks and not checks and node_ok[to]:
                continue
            if self.step < math.inf and cost > self.step + EPS:
                continue  # no move takes it whole
            if checks and not self.checks:
                self.skipped = self.skipped or g + cost <= self.limit + EPS
                # a run with checks pushes it (as _push bounds it) or lands a jump further out
                self.left_out = (
                    self.left_out
                    or (not node_ok[to] and self.descend == "jump")
                    or g + cost + self.h(self.nx[to], self.ny[to]) <= self.limit + EPS + 1e-9
                )
                continue
            if not node_ok[to]:
                if tr.e_kind[e] == 1 and self.descend == "jump" and self.checks and self.may_climb:
                    self._far_landing(e, g, k, key)
                continue
            self._push(("L", to), g + cost, k + checks, self.nx[to], self.ny[to], ("trans", key, e))

    def _far_landing(self, e: int, g: float, k: int, key) -> None:
        """M9: a jump down whose foot is taken by a base lands as far out as it may instead."""
        tr, surf = self.trans, self.space.surf
        ledge = int(tr.e_ledge[e])
        if ledge < 0 or self.far_reach is None:
            return
        b = int(surf.ledge_band_lo[ledge])
        p = surf.ledge_at[ledge] + surf.ledge_n[ledge] * self.far_reach
        x, y = float(p[0]), float(p[1])
        if any(bb == b and math.hypot(x - bx, y - by) < R - EPS for bx, by, R, bb in self.blockers):
            return
        if b < 0 or not self.space.bands[b].ok_points(np.array([x]), np.array([y]))[0]:
            return
        n = self._add_node((x, y), b)
        frm = int(tr.e_from[e])
        self._push(
            ("L", n), g + math.hypot(x - self.nx[frm], y - self.ny[frm]), k + 1, x, y, ("trans", key, ("far", ledge))
        )


def _arc_ends(B: _Band, circ: int, s: int) -> list:
    """Where going round the circle enters the goal region (its circle crosses the
    region's rim): ends of a path as departures with no line after them. A tangent
    into the region reaches only the spots its line crosses; the spot next to a
    base or a corner, where the contact ring meets the circle round it, is reached
    round that circle."""
    g = B.goal
    rho = float(B.rho[circ])
    if g is None or rho <= 0:
        return []
    cx, cy = float(B.cx[circ]), float(B.cy[circ])
    pts = crossings(cx, cy, rho, g.x, g.y, g.reach)
    if not pts:
        return []
    ang = np.array([math.atan2(y - cy, x - cx) % TAU for x, y in pts])
    iv, off = B.locate(np.full(len(pts), circ), ang)
    out = []
    for (x, y), a, i, o in zip(pts, ang.tolist(), iv.tolist(), off.tolist()):
        if i == -1 and circ >= B.n_static:
            # a spot up to one sample past an end of a base's free arc belongs to it,
            # the arc measured to the spot itself (the tracer checks the path)
            near = next(_ends_near(B.blk_iv[circ - B.n_static], a), None)
            if near is not None:
                i, o = -2 - near[0], near[1]
        if i != -1:
            out.append((int(i), s * float(o), float(a), x, y, ("goal", x, y)))
    return out


def result(q: Search) -> Found | None:
    """The path to the goal state found: waypoints (the start, the ends of tangents and
    transitions) with the arcs between them."""
    if q.found is None:
        return None
    g, k = q.best[q.found]
    rev: list = []  # from the goal back: ("p", x, y) | ("arc", centre, rho, a_in, s) | ("edge", e)
    key = q.found
    while key is not None:
        rev.append(("p",) + _position(q, key))
        via = q.parent[key]
        if via is not None and via[0] == "arc":
            # departures passed on the same circle (the chain) belong to one arc
            while via[1][0] == "at":
                via = q.parent[via[1][1]]
            _t, inner, b, c, s, a_in = via
            B = q.bands[b]
            if B.rho[c] > 0:
                rev.append(("arc", (float(B.cx[c]), float(B.cy[c])), float(B.rho[c]), a_in, s))
            via = inner
        if via is None:
            key = None
        elif via[0] == "line":
            key = via[1]
        elif via[0] == "rim":  # round the target along the goal region's rim
            _t, key, s, a_in = via
            rev.append(("arc", (q.goal.x, q.goal.y), q.goal.rim, a_in, s))
        else:  # ("trans", from, edge)
            rev.append(("edge", via[2]))
            key = via[1]
    items = rev[::-1]
    pts, edges, arcs = [], [], []
    for i, it in enumerate(items):
        if it[0] == "p":
            pts.append((it[1], it[2]))
        elif it[0] == "edge":
            edges.append(it[1])
        else:
            _t, (cx, cy), rho, a_in, s = it
            nxt = next(x for x in items[i + 1 :] if x[0] == "p")
            a_out = math.atan2(nxt[2] - cy, nxt[1] - cx)
            pts.append((cx + rho * math.cos(a_in), cy + rho * math.sin(a_in)))
            arcs.append((len(pts) - 1, (cx, cy), rho, a_in, s, travel(a_in, a_out, s)))
    return Found(pts, g, k, edges, arcs)


def polyline(found: Found, excess: float) -> list[tuple[float, float]]:
    """The waypoints of a path found, each arc followed from outside within ``excess``."""
    out = []
    arcs = {a[0]: a for a in found.arcs}
    for i, p in enumerate(found.points):
        out.append(p)
        a = arcs.get(i)
        if a is not None:
            _i, c, rho, a_in, s, sweep = a
            out += arc_polyline(c, rho, a_in, s, sweep, excess)
    return dedup(out)


def _position(q: Search, key) -> tuple[float, float]:
    kind = key[0]
    if kind == "N" or kind == "L":
        return (q.nx[key[1]], q.ny[key[1]])
    if kind == "G":
        return (key[2], key[3])
    if kind == "C":
        ch = q.bands[key[1]].bs.chain(key[2])
        return (ch.Ax[key[3]], ch.Ay[key[3]])
    d = q.bands[key[1]].dyn[key[2]][key[3]]
    return (d[3], d[4])
