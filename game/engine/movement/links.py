"""Straight segments a base may walk from a point of the visibility graph (a circle left one
way round, a transition node, the start) to what lies in range on its band, for the
search (:mod:`.search`): the fixed targets (every circle both ways round, every node) are
worked out when a query first asks for them and kept in :class:`Links`; the bases, the
goal and the nodes a query adds are applied per query.
"""

from __future__ import annotations

import math

import numpy as np

from game.engine.movement.geom import TAU, entry, hits_discs, tangents_from
from game.engine.tolerance import EPS


#: Sources x bases whose tangents _base_lines keeps per band space (a bound on memory).
_BASE_LINES = 4096
#: Points (and bases) whose tangents _point_table keeps per band space (a bound on memory).
_POINTS = 128

#: Inches: the fixed targets whose straight stretch may end where it enters a goal region
#: (the spots in contact with a target, E1) are those within this of the region, at any
#: limit. A stretch ends there on its way to its target, so taking the targets the
#: search's limit keeps would give a larger limit more ways in, and a refusal's measure
#: would depend on the limit (it did, by up to 0.9":
#: docs/decisions/0002-ways-into-contact.md). With 3" the 49,009 answers of tools/legality_answers.py are those
#: of every target on the table; with 2" north-ogre's in tests/scripts/rim-limit-ogre.yaml
#: measures 11.01" for 10.82".
RIM_NEAR = 3.0


class Links:
    """Straight segments a base may walk from one source (a circle leaving it one way round,
    or a transition node) to the fixed targets of its band (every circle both ways round,
    every transition node): worked out as queries ask for them, then kept (they depend on
    the terrain only; bases and goals are applied per query)."""

    def __init__(self, n: int):
        self.done = np.zeros(n, dtype=bool)
        self.parts: list = []
        self.rows = None
        self._out: list = []  # the rows as links_from gives them, made once each

    def out(self, S: np.ndarray, C: np.ndarray, N: np.ndarray) -> list:
        """The rows as :func:`links_from` gives them (a_from, (x, y), target), for a query
        without a goal region (the targets are then what they are)."""
        out = self._out
        k = len(out)
        rows = self.rows
        if k < len(rows[0]):
            tid, T1, T2, a1, a2, iv2, off2 = (r[k:] for r in rows[:7])
            circ = (C[tid] >= 0).tolist()
            ids = np.where(C[tid] >= 0, C[tid], N[tid]).tolist()
            out += [
                (a, (x1, y1), ("circ", i, int(s2), v, s2 * o, a_2, x2, y2) if c else ("node", i, x2, y2))
                for a, x1, y1, x2, y2, c, i, s2, v, o, a_2 in zip(
                    a1.tolist(),
                    T1[:, 0].tolist(),
                    T1[:, 1].tolist(),
                    T2[:, 0].tolist(),
                    T2[:, 1].tolist(),
                    circ,
                    ids,
                    S[tid].tolist(),
                    iv2.tolist(),
                    off2.tolist(),
                    a2.tolist(),
                )
            ]
        return out

    def get(self, want: np.ndarray, compute) -> tuple:
        missing = want[~self.done[want]]
        if len(missing):
            self.parts.append(compute(missing))
            self.done[missing] = True
            self.rows = None
        if self.rows is None:
            self.rows = tuple(np.concatenate([p[k] for p in self.parts]) for k in range(8)) if self.parts else None
        return self.rows


class Tangents:
    """The tangents from one source to the fixed targets of its band, as :func:`_lines`
    gives them, worked out as first asked for and kept with the band space for every game
    (each depends on the source and its target only). :class:`Links` takes its rows from
    here, in the order its own game asks for them."""

    def __init__(self, n: int):
        self.pos = np.full(n, -1, dtype=np.int64)  # target -> its row here (-1: not yet)
        self.parts: list = []
        self.size = 0
        self.cols = None

    def get(self, idx: np.ndarray, work) -> tuple:
        """Rows as Links' compute gives them for targets ``idx``: those a base may walk
        (target, T1, T2, a1, a2, iv2, off2, 0). ``work(targets)``: :func:`_lines` for them."""
        miss = idx[self.pos[idx] < 0]
        if len(miss):
            self.parts.append(work(miss))
            self.pos[miss] = self.size + np.arange(len(miss))
            self.size += len(miss)
            self.cols = None
        if self.cols is None:
            self.cols = tuple(np.concatenate([p[k] for p in self.parts]) for k in range(7))
        at = self.pos[idx]
        ok = self.cols[0][at]
        at = at[ok]
        return (idx[ok],) + tuple(c[at] for c in self.cols[1:]) + (np.zeros(len(at)),)


def _lines(B: "object", x0: float, y0: float, r0: float, s0: int, X2, Y2, R2, S2, circ_ids, kept: bool = False):
    """Tangents from circle (x0, y0, r0, s0) to targets; circ_ids: the circle of each target
    (-1: a point). Returns (ok, T1, T2, a1, a2, iv2, off2), ok meaning the base may walk it.
    ``kept``: the band space remembers each segment's answer (for targets that change per
    query, so :class:`Links` does not keep them)."""
    m = len(X2)
    ok, T1, T2, a1, a2 = tangents_from(x0, y0, r0, float(s0), X2, Y2, R2, S2)
    iv2 = np.full(m, -1, dtype=np.int64)
    off2 = np.zeros(m)
    circ = circ_ids >= 0
    if circ.any():
        iv2[circ], off2[circ] = B.locate(circ_ids[circ], a2[circ])
        ok &= ~circ | (iv2 != -1)
    idx = np.nonzero(ok)[0]
    if len(idx):
        ok[idx] = (B.bs.ok_segments_kept if kept else B.bs.ok_segments)(T1[idx], T2[idx])
    return ok, T1, T2, a1, a2, iv2, off2


def _point_table(bs, key: tuple, n: int) -> Tangents:
    """The :class:`Tangents` kept with the band space for a source that is no fixed one
    (x, y, radius, orientation): the most recent :data:`_POINTS` of them."""
    kept = bs.tangents_at
    out = kept.pop(key, None)
    if out is None:
        out = Tangents(n)
        if len(kept) >= _POINTS:
            del kept[next(iter(kept))]  # the one asked for least recently
    kept[key] = out
    return out


def _base_lines(B: "object", source, x0: float, y0: float, r0: float, s0: int, EX, EY, ER, ES, EK, EID) -> tuple:
    """:func:`links_from`'s rows from a source to the blocking bases (targets ``EX``.. of
    :meth:`_Band.base_targets`) that a base may walk, as its parts are (T1, T2, a1, a2,
    iv2, off2, kind, circle, orientation): :func:`_lines`, kept with the band space per
    source and bases (where a tangent leaves a base depends on the other bases,
    :meth:`_Band.locate`): the same bases stand in many queries. ``source`` None: a point
    or a base's circle, known by where it is (the unit's start and the bases round it, for
    each of its targets). The arrays are shared: read only."""
    kept = B.bs.base_lines
    key = (source if source is not None else ("at", x0, y0, r0, s0), B.blk_key)
    out = kept.get(key)
    if out is None:
        ok, T1, T2, a1, a2, iv2, off2 = _lines(B, x0, y0, r0, s0, EX, EY, ER, ES, EID, kept=True)
        out = tuple(c[ok] for c in (T1, T2, a1, a2, iv2, off2, EK, EID, ES))
        for c in out:
            c.flags.writeable = False
        if len(kept) >= _BASE_LINES:
            kept.clear()
        kept[key] = out
    return out


def _fixed_targets(q, B: "object", b: int):
    """Targets of band b that stay: (x, y, radius, orientation, circle id or -1, node id or
    -1) indexed 2 c + (orientation < 0) for circles, then the band's nodes."""
    bs = B.bs
    # kept per game with the links when the query says so (they follow its transitions)
    kept = q.links.setdefault(b, {}) if q.links is not None else None
    got = bs.fixed if kept is None else kept.get("fixed")
    if got is None:
        n = len(bs.cx)
        nodes = np.nonzero(q.trans.band == b)[0]
        c2 = np.repeat(np.arange(n), 2)
        X = np.concatenate([bs.cx[c2], q.trans.X[nodes]])
        Y = np.concatenate([bs.cy[c2], q.trans.Y[nodes]])
        R = np.concatenate([bs.rho[c2], np.zeros(len(nodes))])
        S = np.concatenate([np.tile([1.0, -1.0], n), np.ones(len(nodes))])
        C = np.concatenate([c2, np.full(len(nodes), -1)])
        N = np.concatenate([np.full(2 * n, -1), nodes])
        local = np.full(len(q.trans.X), -1, dtype=np.int64)
        local[nodes] = 2 * n + np.arange(len(nodes))
        got = (X, Y, R, S, C, N, local)
        if kept is None:
            bs.fixed = got
        else:
            kept["fixed"] = got
    return got


def _near_goal(B: "object", X, Y, R) -> np.ndarray:
    """Which fixed targets of the band come within :data:`RIM_NEAR` of the goal region
    (their circle, or their point): a stretch towards one of them that enters the region
    ends there; a stretch towards any other does not count (kept per query)."""
    got = B.fixed_in_range.get("near")
    if got is None:
        g = B.goal
        got = B.fixed_in_range["near"] = np.hypot(X - g.x, Y - g.y) - R <= g.reach + RIM_NEAR
    return got


def _rim_targets(
    q,
    B: "object",
    X,
    Y,
    R,
    C,
    N,
    x0: float,
    y0: float,
    r0: float,
    g0: float,
    circles: bool,
    skip_circle: int,
    skip_node: int,
    want: np.ndarray,
):
    """The fixed targets near the goal region (:func:`_near_goal`) that are not in
    ``want`` (out of the limit's range): a stretch from the source (circle x0, y0, r0)
    towards one may enter the region within the limit though the target lies beyond it.
    :func:`links_from` keeps the rows towards them that enter the region. None: no such
    target, or no stretch from the source may enter the region within the limit."""
    g = B.goal
    if g0 + math.hypot(x0 - g.x, y0 - g.y) - g.reach - r0 > q.limit + EPS:
        return None
    got = B.fixed_in_range.get(("rim", circles))
    if got is None:
        node = N >= 0
        ok = np.zeros(len(X), dtype=bool)
        ok[node] = q.trans.used[N[node]]
        if circles:
            ok[~node] = True
        ok &= _near_goal(B, X, Y, R)
        idx = np.nonzero(ok)[0]
        got = B.fixed_in_range[("rim", circles)] = (idx, C[idx], N[idx])
    idx, Cc, Nc = got
    keep = np.ones(len(idx), dtype=bool)
    if len(want):
        wanted = np.zeros(len(X), dtype=bool)
        wanted[want] = True
        keep &= ~wanted[idx]
    if skip_circle >= 0:
        keep &= Cc != skip_circle
    if skip_node >= 0:
        keep &= Nc != skip_node
    idx = idx[keep]
    return idx if len(idx) else None


def _into_region(x0: float, y0: float, r0: float, s0: int, pts) -> tuple:
    """A part of :func:`links_from`'s rows: from the source towards points of the goal
    region (its centre, its corners), each kept; the segments are tested up to where they
    enter the region, not whole. :func:`.geom.tangents_from` to points (radius 0), with
    its sums on arrays, bit for bit, less the ones a point's zero radius makes void (a few
    points a call, where each numpy call costs more than its sums)."""
    n = len(pts)
    P = np.array(pts, dtype=float)
    dx, dy = P[:, 0] - x0, P[:, 1] - y0
    d = np.hypot(dx, dy)
    f1 = float(s0) * r0
    beta = np.arctan2(dy, dx) + np.arccos(np.minimum(np.maximum((0.0 - f1) / np.where(d > 0, d, 1.0), -1.0), 1.0))
    T1 = np.empty((n, 2))
    T1[:, 0] = x0 - f1 * np.cos(beta)
    T1[:, 1] = y0 - f1 * np.sin(beta)
    back = beta + math.pi
    return (
        T1,
        P,
        (back if s0 > 0 else beta) % TAU,
        back % TAU,
        np.full(n, -1, dtype=np.int64),
        np.zeros(n),
        np.full(n, 2, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.ones(n),
    )


def links_from(
    q,
    b: int,
    source,
    x0: float,
    y0: float,
    r0: float,
    s0: int,
    g0: float = 0.0,
    skip_circle: int = -1,
    skip_node: int = -1,
    circles: bool = True,
    to_circles: bool = True,
) -> list:
    """Segments a base may walk from a source to what lies in range on band b, as rows
    (a_from, (x_from, y_from), target) with target as :meth:`Search._follow` takes it: the
    fixed targets (kept in :class:`Links` when the source is fixed too), the bases, the
    goal (a segment that enters the goal region ends there) and nodes added by the query;
    none that could not end a path within the limit after ``g0`` inches. ``circles=False``:
    none to the band's own circles (a circle's chain has those). ``to_circles=False``
    (with a goal region): the stretches towards the band's own circles only where they
    enter the region (a circle's chain has the rest)."""
    B = q.band(b)
    X, Y, R, S, C, N, local = _fixed_targets(q, B, b)
    fixed_part, fixed, fixed_at, links, ftid, ext = _fixed_rows(
        q, B, b, source, (X, Y, R, S, C, N, local), x0, y0, r0, s0, g0, skip_circle, skip_node, circles
    )
    parts = [] if fixed_part is None else [fixed_part]
    parts += _query_parts(q, B, b, source, x0, y0, r0, s0, skip_circle, skip_node)
    if fixed and B.blk:
        every = links.rows
        fixed = [
            f
            for f, bad in zip(fixed, hits_discs(every[1][fixed_at], every[2][fixed_at], B.blk_arr).tolist())
            if not bad
        ]
    if not parts:
        return fixed
    return fixed + _as_rows(q, B, parts, ftid, ext, X, Y, R, to_circles)


def _fixed_in_range(q, B, b: int, fx: tuple, circles: bool) -> tuple:
    """The band's fixed targets a path may reach at all (with or without ``circles``), with
    their centres, radii, heuristic less radius, circles and nodes; kept on the band."""
    inr = B.fixed_in_range.get(circles)
    if inr is not None:
        return inr
    X, Y, R, S, C, N, local = fx
    want = np.concatenate([2 * B.in_range, 2 * B.in_range + 1]) if circles else np.zeros(0, dtype=np.int64)
    nodes = q.nodes_by_band.get(b)
    if nodes is not None:
        want = np.concatenate([want, local[nodes]])
    inr = B.fixed_in_range[circles] = (
        want,
        X[want],
        Y[want],
        R[want],
        q.hx(X[want], Y[want]) - R[want],
        C[want],
        N[want],
    )
    return inr


def _fixed_wanted(
    q,
    B,
    b: int,
    fx: tuple,
    x0: float,
    y0: float,
    r0: float,
    g0: float,
    skip_circle: int,
    skip_node: int,
    circles: bool,
) -> tuple:
    """The fixed targets :func:`_fixed_rows` links to: those that could end a path within
    the limit after ``g0`` inches (less the skipped circle and node), then those past the
    limit whose stretch may enter the goal region; and a mask of the latter (None if none)."""
    X, Y, R, S, C, N, local = fx
    want, Xw, Yw, Rw, hx, Cw, Nw = _fixed_in_range(q, B, b, fx, circles)
    keep = g0 + np.hypot(Xw - x0, Yw - y0) - Rw - r0 + hx <= q.limit + EPS
    if skip_circle >= 0:
        keep &= Cw != skip_circle
    if skip_node >= 0:
        keep &= Nw != skip_node
    want = want[keep]
    ext = None  # targets past the limit whose stretch may enter the goal region (_rim_targets)
    if B.goal is not None:
        more = _rim_targets(q, B, X, Y, R, C, N, x0, y0, r0, g0, circles, skip_circle, skip_node, want)
        if more is not None:
            ext = np.zeros(len(X), dtype=bool)
            ext[more] = True
            want = np.concatenate([want, more])
    return want, ext


def _tangent_maker(B, x0: float, y0: float, r0: float, s0: int, fx: tuple):
    """The function of target ids that gives the rows of the tangents from (x0, y0, r0, s0)
    to those targets, with no goal inches (the rows a :class:`Links` keeps)."""
    X, Y, R, S, C, N, local = fx

    def compute(idx):
        ok, T1, T2, a1, a2, iv2, off2 = _lines(B, x0, y0, r0, s0, X[idx], Y[idx], R[idx], S[idx], C[idx])
        return idx[ok], T1[ok], T2[ok], a1[ok], a2[ok], iv2[ok], off2[ok], np.zeros(int(ok.sum()))

    return compute


def _point_rows(q, B, fx: tuple, want, x0: float, y0: float, r0: float, s0: int):
    """The rows to ``want`` from a point or base of this query (no source node)."""
    X, Y, R, S, C, N, local = fx
    if q.links is not None:
        # a point or base of this query: the same one is often asked again (the unit's
        # start, for every destination looked at), its tangents are kept for a while
        table = _point_table(B.bs, (x0, y0, r0, s0), len(X))
        return table.get(want, lambda m: _lines(B, x0, y0, r0, s0, X[m], Y[m], R[m], S[m], C[m]))
    return _tangent_maker(B, x0, y0, r0, s0, fx)(want)


def _source_rows(q, B, b: int, source, fx: tuple, want, x0: float, y0: float, r0: float, s0: int) -> tuple:
    """The rows to ``want`` from a fixed ``source`` (a node or circle of the band), kept
    in its :class:`Links`: (rows still to make into a part, or None; that Links; the rows
    ready-made by the Links without a goal region; where they stand in it)."""
    X, Y, R, S, C, N, local = fx
    fixed, fixed_at = [], None
    kept = B.bs.links if q.links is None else q.links.setdefault(b, {})
    links = kept.get(source)
    if links is None:
        links = kept[source] = Links(len(X))
    if q.links is not None:
        # the tangents themselves are the same whichever game asks: kept with the band space
        table = B.bs.tangents.get(source)
        if table is None:
            table = B.bs.tangents[source] = Tangents(len(X))
        rows = links.get(
            want, lambda idx: table.get(idx, lambda m: _lines(B, x0, y0, r0, s0, X[m], Y[m], R[m], S[m], C[m]))
        )
    else:
        rows = links.get(want, _tangent_maker(B, x0, y0, r0, s0, fx))
    if rows is not None:
        inw = np.zeros(len(X), dtype=bool)
        inw[want] = True
        if B.goal is None:
            fixed_at = np.nonzero(inw[rows[0]])[0]
            made = links.out(S, C, N)
            fixed = [made[i] for i in fixed_at.tolist()]
            rows = None
        else:
            m_ = inw[rows[0]]
            rows = tuple(r[m_] for r in rows)
    return rows, links, fixed, fixed_at


def _fixed_rows(
    q,
    B,
    b: int,
    source,
    fx: tuple,
    x0: float,
    y0: float,
    r0: float,
    s0: int,
    g0: float,
    skip_circle: int,
    skip_node: int,
    circles: bool,
) -> tuple:
    """:func:`links_from`'s rows to the band's fixed targets in range (``fx``: what
    :func:`_fixed_targets` gives): their part of the rows (or None), the rows kept
    ready-made in a :class:`Links` (no goal region) with where they stand in it and that
    Links, the part's target ids, and the targets past the limit whose stretch may enter
    the goal region."""
    X, Y, R, S, C, N, local = fx
    want, ext = _fixed_wanted(q, B, b, fx, x0, y0, r0, g0, skip_circle, skip_node, circles)
    part = None
    links = None
    ftid = None  # the fixed rows' targets (they come first in the rows below)
    fixed, fixed_at, rows = [], None, None  # without a goal region: rows made once (Links.out)
    if len(want):
        if source is None:
            rows = _point_rows(q, B, fx, want, x0, y0, r0, s0)
        else:
            rows, links, fixed, fixed_at = _source_rows(q, B, b, source, fx, want, x0, y0, r0, s0)
        if rows is not None and len(rows[0]):
            tid = rows[0]
            ftid = tid
            part = (
                rows[1],
                rows[2],
                rows[3],
                rows[4],
                rows[5],
                rows[6],
                np.where(C[tid] >= 0, 0, 1),
                np.where(C[tid] >= 0, C[tid], N[tid]),
                S[tid],
            )
    return part, fixed, fixed_at, links, ftid, ext


def _query_parts(
    q, B, b: int, source, x0: float, y0: float, r0: float, s0: int, skip_circle: int, skip_node: int
) -> list:
    """:func:`links_from`'s rows to what the query adds (the bases, nodes it added, the
    goal and its region's corners), as parts of rows."""
    n_static = B.n_static
    parts = []
    # what the query adds: bases, the goal, new nodes (each part's rows those a base may
    # walk, in that order; all parts made into one set of arrays below, at once)
    EX, EY, ER, ES, EK, EID = B.base_targets()
    if skip_circle >= n_static:
        keep = EID != skip_circle
        EX, EY, ER, ES, EK, EID = EX[keep], EY[keep], ER[keep], ES[keep], EK[keep], EID[keep]
    if len(EX):
        parts.append(
            _base_lines(B, source if skip_circle < n_static else None, x0, y0, r0, s0, EX, EY, ER, ES, EK, EID)
        )
    ex, ey, ek, eid = [], [], [], []
    for nn in range(q.START + 1, len(q.nx)):  # nodes the query added (far landings), not the start
        if q.nband[nn] == b and nn != skip_node:
            ex.append(q.nx[nn]), ey.append(q.ny[nn]), ek.append(1), eid.append(nn)
    g = q.goal
    goal_here = g is not None and b in g.bands
    region = goal_here and g.reach > 0
    corners = B.goal_corners() if goal_here else ()
    if region and not ex:
        # a goal region's centre and its corners (the spots in contact beside a base that
        # stands by the target, _Band.goal_corners), in one tangent call
        parts.append(_into_region(x0, y0, r0, s0, [(g.x, g.y)] + list(corners)))
    else:
        memo = q.memo if goal_here and not ex else None  # the goal's centre alone: kept for the query
        if goal_here:
            ex.append(g.x), ey.append(g.y), ek.append(2), eid.append(0)
        if ex:
            m = len(ex)
            XX, YY, RR, SS = np.array(ex, dtype=float), np.array(ey, dtype=float), np.zeros(m), np.ones(m)
            KK, II = np.array(ek, dtype=np.int64), np.array(eid, dtype=np.int64)
            if memo is not None:
                key = ("goal", id(B.bs), x0, y0, r0, s0, g.x, g.y)  # a query may search for several points
                lines = memo.get(key)
                if lines is None:
                    lines = memo[key] = _lines(B, x0, y0, r0, s0, XX, YY, RR, SS, np.full(1, -1), kept=True)
            else:
                lines = _lines(B, x0, y0, r0, s0, XX, YY, RR, SS, np.full(m, -1), kept=True)
            ok, T1, T2, a1, a2, iv2, off2 = lines
            if region:
                ok = ok | (KK == 2)  # the region's centre is no end: the segment stops where it enters it
            parts.append((T1[ok], T2[ok], a1[ok], a2[ok], iv2[ok], off2[ok], KK[ok], II[ok], SS[ok]))
        if corners:
            parts.append(_into_region(x0, y0, r0, s0, corners))
    return parts


def _as_rows(q, B, parts: list, ftid, ext, X, Y, R, to_circles: bool = True) -> list:
    """:func:`links_from`'s parts as its rows: a segment that enters the goal region ends
    there, the ones crossing a blocking base are dropped, the rest as Python numbers.
    ``to_circles=False`` (with a goal region): none that ends on a circle of the band."""
    g = q.goal
    T1, T2, a1, a2, iv2, off2, K, ID, S2 = (
        np.concatenate([p[k] for p in parts]) if len(parts) > 1 else parts[0][k] for k in range(9)
    )
    end = K.copy()
    keep = None  # the rows kept, when some are not (taken out once, at the end)
    if B.goal is not None:
        t = entry(T1, T2, g.x, g.y, g.reach)
        into = ~np.isnan(t)
        T2 = T2.copy()
        T2[into] = T1[into] + t[into, None] * (T2[into] - T1[into])
        end[into] = 2
        # a segment to the region's centre is only good up to the region; a fixed row
        # that enters it only towards a target near it, and one to a target past the
        # limit only when it enters it
        bad = (K == 2) & ~into
        if ftid is not None:
            nf = len(ftid)
            bad[:nf] |= np.where(into[:nf], ~_near_goal(B, X, Y, R)[ftid], False if ext is None else ext[ftid])
        keep = ~bad
        # a stretch towards the region's centre or a corner, up to where it enters the
        # region, is tested against the terrain only if the search comes to its end
        # (Search._push's ``test``): most never are
        end[keep & (K == 2) & (end == 2)] = 3
        if not to_circles:
            keep &= (end != 0) | (ID >= B.n_static)
    if B.blk and len(T1):
        if keep is None:
            keep = ~hits_discs(T1, T2, B.blk_arr)
        else:
            at = np.nonzero(keep)[0]
            keep[at[hits_discs(T1[at], T2[at], B.blk_arr)]] = False
    if keep is not None and not keep.all():
        T1, T2, a1, a2, iv2, off2, ID, S2, end = (x[keep] for x in (T1, T2, a1, a2, iv2, off2, ID, S2, end))
    out = []
    # as Python numbers (the rows are compared and hashed as such)
    for e, i, s2, v, o, a_2, (x1, y1), (x2, y2), a in zip(
        end.tolist(),
        ID.tolist(),
        S2.astype(np.int64).tolist(),
        iv2.tolist(),
        off2.tolist(),
        a2.tolist(),
        T1.tolist(),
        T2.tolist(),
        a1.tolist(),
    ):
        if e == 3:
            target = ("goal?", x2, y2)
        elif e == 2:
            target = ("goal", x2, y2)
        elif e == 1:
            target = ("node", i, x2, y2)
        else:
            target = ("circ", i, s2, v, s2 * o, a_2, x2, y2)
        out.append((a, (x1, y1), target))
    return out
