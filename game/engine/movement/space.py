"""The configuration space of one base radius on one band, and its visibility graph.

A base of radius r walks a band (:mod:`.surfaces`) wherever its centre keeps at least r
from every piece that is an obstacle at the level it stands on (solid pieces more than
free_height higher, impassable ground; difficult ground too when avoiding it, M12), stays
r inside the table, and stays on the band's surfaces. Tests here are exact: distances
from segments and points to the pieces' polygons (Shapely), never buffered shapes.

The shortest walk among obstacles grown by r bends only round their convex corners, on
circles of radius r, and at convex corners of the band's own edge where it drops away
(circles of radius 0). :class:`BandSpace` keeps those circles, the arcs of them that are
free (tested at ``_ARC_STEP`` intervals where something else is near), and every common
tangent of two circles that a base can walk: the static part of the visibility graph
(:mod:`.search` adds the start, the goal, transitions and other bases per query).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.strtree import STRtree

from game.engine.movement.geom import TAU, runs
from game.engine.movement.surfaces import Band, Surfaces
from game.engine.tolerance import EPS

#: Angular step (radians) at which an arc near other obstacles is tested.
_ARC_STEP = math.radians(0.5)
#: Answers kept per band space by ok_segments_kept and ring_ok (a bound on memory; the
#: terrain's answers are then worked out again).
_MEMO = 20_000
#: Samples round a blocking base where the search tests where a base may walk round it.
RING_SAMPLES = 256


def _ring_points(x: float, y: float, R: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The angles of :data:`RING_SAMPLES` points evenly round circle (x, y, R), and the points."""
    a = np.linspace(0.0, TAU, RING_SAMPLES + 1)[:-1]
    return a, x + R * np.cos(a), y + R * np.sin(a)


#: Up to this many segments, :meth:`BandSpace.ok_segments` tests the table's edges in Python
#: (and :meth:`BandSpace.ok_points` asks every point of the obstacles).
_FEW = 8
#: Inches added to the gap by :meth:`BandSpace._near_boxes` (the merged obstacles' corners may
#: lie outside their pieces' boxes by a rounding error).
_BOX_MARGIN = 1e-6


class BandSpace:
    """Where a base of radius r may be on one band: exact tests, circles, static tangents."""

    def __init__(
        self,
        surf: Surfaces,
        band: Band,
        r: float,
        near_parts: dict[int, list[int]],
        is_obstacle,
        width: float,
        height: float,
    ):
        board = surf.board
        self.band = band
        self.r = r
        self.gap = r - EPS  # nearer than this to an obstacle is an overlap
        self.width, self.height = width, height
        polys = board.polygons
        core, extra = [], []
        self.cover = band.has_ledge  # must the test also keep to the band's area?
        for i, near in near_parts.items():  # the pieces within r of a surface of this band
            levels = {surf.part_z[a] for a in near}
            obst = {z for z in levels if is_obstacle(i, z)}
            if obst == levels:
                core.append(i)
            elif obst:
                low = shapely.union_all([surf.parts[a] for a in near if surf.part_z[a] in obst])
                shapely.prepare(low)
                extra.append((i, low))
            elif i in surf.wall_tops:
                self.cover = True  # a wall top a base may overhang, never stand on
        self.core = core
        self.core_union = shapely.union_all([polys[i] for i in core]) if core else None
        if self.core_union is not None:
            shapely.prepare(self.core_union)
        self.extra = extra
        self.polys = polys
        self._boxes = None  # _near_boxes: the obstacles' bounding boxes
        self._surf = surf
        self.cx = None  # the circles: see graph()
        if band.ground:
            self.graph()
        self._chains: dict[int, Chain] = {}
        self._prims = None
        self.ray_cache: dict = {}  # rays.Caster: what does not depend on the query
        self._no_end = None
        self.links: dict = {}  # search.Links per source (a slot or a transition node)
        self.tangents: dict = {}  # links.Tangents per source, for every game
        self.tangents_at: dict = {}  # links.Tangents per point or base queries start from (recent ones)
        self.base_lines: dict = {}  # links._base_lines: (source, bases) -> tangents to the bases
        self.located: dict = {}  # slot -> {row to a fixed target: (interval, offset) where it leaves}
        self.free_arcs: dict = {}  # search._Band._blockers: a base and those near it -> its free arcs
        self.fixed = None  # search._fixed_targets
        self._seg_memo: dict = {}  # ok_segments_kept: segment (x1, y1, x2, y2) -> may a base walk it
        self._ring_memo: dict = {}  # ring_ok: disc (x, y, R) -> samples round it where a base may be
        self._ends_memo: dict = {}  # ring_ends: circle (x, y, R) -> where its free runs end
        self._clear_memo: dict = {}  # _ring_clear: circle (x, y, R) -> is it all free

    def forget_transitions(self) -> None:
        """Drop what was kept against the transitions' nodes (the links and tangents from
        and to them, the fixed targets, where rows to those leave a circle): the nodes are
        numbered afresh when the transitions are rebuilt. What depends on the terrain
        only (circles, chains, rays, segment answers) stays."""
        self.links, self.tangents, self.tangents_at, self.base_lines, self.located = {}, {}, {}, {}, {}
        self.fixed = None

    # --- exact tests ----------------------------------------------------------------------
    def _table_box(self) -> tuple[float, float, float]:
        """Where a base's centre may be on the table: (least x and y, most x, most y)."""
        r = self.r
        return r - 1e-9, self.width - r + 1e-9, self.height - r + 1e-9

    def _on_table(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        lo, hx, hy = self._table_box()
        return (X >= lo) & (X <= hx) & (Y >= lo) & (Y <= hy)

    def ok_geoms(self, geoms: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Refine ``ok`` (bool per geometry): keep those clear of every obstacle and on the band."""
        idx = np.nonzero(ok)[0]
        if not len(idx):
            return ok
        g = geoms[idx]
        if self.core_union is not None:
            # crossing an obstacle (fast on the prepared union), then coming too near one
            bad = shapely.intersects(self.core_union, g)
            ok[idx[bad]] = False
            rest = ~bad
            ok[idx[rest][shapely.dwithin(self.core_union, g[rest], self.gap)]] = False
        for i, low in self.extra:
            sel = idx[ok[idx]]
            if not len(sel):
                break
            near = sel[shapely.dwithin(self.polys[i], geoms[sel], self.gap)]
            if len(near):
                part = shapely.intersection(geoms[near], low)
                bad = ~shapely.is_empty(part) & shapely.dwithin(self.polys[i], part, self.gap)
                ok[near[bad]] = False
        if self.cover:
            sel = idx[ok[idx]]
            if len(sel):
                ok[sel[~shapely.covered_by(geoms[sel], self.band.area)]] = False
        return ok

    def ok_segments(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        AB = np.concatenate([A, B], axis=1)  # rows (ax, ay, bx, by)
        if len(AB) <= _FEW:
            # the search asks for one to a few at a time: :meth:`_on_table`'s tests in Python
            lo, hx, hy = self._table_box()
            ok = np.array(
                [
                    lo <= ax <= hx and lo <= ay <= hy and lo <= bx <= hx and lo <= by <= hy
                    for ax, ay, bx, by in AB.tolist()
                ],
                dtype=bool,
            )
        else:
            ok = self._on_table(A[:, 0], A[:, 1]) & self._on_table(B[:, 0], B[:, 1])
        if not ok.any():
            return ok
        return self.ok_geoms(shapely.linestrings(AB.reshape(-1, 2, 2)), ok)

    def ok_segments_kept(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """:meth:`ok_segments`, remembering each segment's answer (it depends on the terrain
        only): for the segments a search works out per query (to the bases, which stand
        still between most queries) that are asked for again and again."""
        memo = self._seg_memo
        keys = list(zip(A[:, 0].tolist(), A[:, 1].tolist(), B[:, 0].tolist(), B[:, 1].tolist()))
        got = [memo.get(k) for k in keys]
        new = [i for i, v in enumerate(got) if v is None]
        if new:
            if len(memo) + len(new) > _MEMO:
                memo.clear()
            idx = np.array(new, dtype=np.int64)
            for i, v in zip(new, self.ok_segments(A[idx], B[idx]).tolist()):
                memo[keys[i]] = got[i] = v
        return np.array(got, dtype=bool)

    def ok_points(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        ok = self._on_table(X, Y)
        if not ok.any():
            return ok
        if len(X) > _FEW and not self.cover:
            # many points (a ring round a base, an arc's samples): only those that may come
            # within the gap of an obstacle's bounding box are asked of the obstacles (the
            # others are farther from every obstacle: ok_geoms would keep them)
            idx = np.nonzero(ok & self._near_boxes(X, Y))[0]
            if len(idx):
                ok[idx] = self.ok_geoms(shapely.points(X[idx], Y[idx]), np.ones(len(idx), dtype=bool))
            return ok
        return self.ok_geoms(shapely.points(X, Y), ok)

    def _near_boxes(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Which points lie within the gap (and :data:`_BOX_MARGIN`) of the bounding box of
        an obstacle (:meth:`ok_geoms`'s pieces): a point farther than that from every box
        is farther than the gap from every obstacle."""
        boxes = self._boxes
        if boxes is None:
            pieces = self.core + [i for i, _low in self.extra]
            boxes = self._boxes = (
                shapely.bounds(np.array([self.polys[i] for i in pieces], dtype=object)) if pieces else np.zeros((0, 4))
            )
        if not len(boxes):
            return np.zeros(len(X), dtype=bool)
        dx = np.maximum(np.maximum(boxes[:, 0, None] - X[None, :], X[None, :] - boxes[:, 2, None]), 0.0)
        dy = np.maximum(np.maximum(boxes[:, 1, None] - Y[None, :], Y[None, :] - boxes[:, 3, None]), 0.0)
        return (np.hypot(dx, dy) <= self.gap + _BOX_MARGIN).any(axis=0)

    def ring_ok(self, x: float, y: float, R: float):
        """Angles of :data:`RING_SAMPLES` points evenly round the circle (x, y, R), the points
        and whether a base may be at each (:meth:`ok_points`), kept per circle (the terrain's
        answer; bases stand still between most queries). The arrays are shared: copy before
        changing them."""
        key = (x, y, R)
        out = self._ring_memo.get(key)
        if out is None:
            if len(self._ring_memo) >= _MEMO // RING_SAMPLES:
                self._ring_memo.clear()
            a, X, Y = _ring_points(x, y, R)
            out = self._ring_memo[key] = (a, X, Y, self.ok_points(X, Y))
        return out

    def ring_free(self, x: float, y: float, R: float):
        """:meth:`ring_ok`'s angles, points and answers, without testing the samples of a
        ring no obstacle comes near (:meth:`_ring_clear`, one exact test): all free. Fresh
        arrays (callers may change them)."""
        if self._ring_clear(x, y, R):
            return _ring_points(x, y, R) + (np.ones(RING_SAMPLES, dtype=bool),)
        a, X, Y, ok = self.ring_ok(x, y, R)
        return a, X, Y, ok.copy()

    def ring_off(self, x: float, y: float, R: float, discs) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`ring_free`'s angles and answers, with the samples within a disc ``(x, y,
        R)`` of ``discs`` (bases) taken out (nearer than its R, less EPS)."""
        a, X, Y, ok = self.ring_free(x, y, R)
        for ox, oy, oR in discs:
            ok &= np.hypot(X - ox, Y - oy) >= oR - EPS
        return a, ok

    def ring_ends(self, x: float, y: float, R: float) -> list[float]:
        """The angles where the free runs of circle (x, y, R) end (:meth:`ring_ok`: the last
        sample of each run where a base may be): where terrain, the table's edge or the
        band's bounds the circle. Empty when the whole circle is free or none of it is. A
        circle no obstacle comes near (one exact test) is whole without its samples."""
        key = (x, y, R)
        out = self._ends_memo.get(key)
        if out is None:
            if len(self._ends_memo) >= _MEMO:
                self._ends_memo.clear()
            a, _X, _Y, ok = self.ring_free(x, y, R)
            out = self._ends_memo[key] = (
                [] if ok.all() else [end for lo, w in runs(a, ok) for end in dict.fromkeys((lo, lo + w))]
            )
        return out

    def _ring_clear(self, x: float, y: float, R: float) -> bool:
        """Is every point of circle (x, y, R) one where a base may be? Only a sure yes: the
        whole ring on the table and farther than the gap from every obstacle (a band
        whose area bounds the base is not judged here). Kept per circle, as
        :meth:`ring_ok` (the rings round the bases are asked of again and again)."""
        key = (x, y, R)
        out = self._clear_memo.get(key)
        if out is None:
            if len(self._clear_memo) >= _MEMO:
                self._clear_memo.clear()
            out = self._clear_memo[key] = self._ring_clear_worked_out(x, y, R)
        return out

    def _ring_clear_worked_out(self, x: float, y: float, R: float) -> bool:
        if self.cover or not self._on_table(np.array([x - R, x + R]), np.array([y - R, y + R])).all():
            return False
        far = R + self.gap
        c = shapely.Point(x, y)
        if self.core_union is not None and shapely.dwithin(self.core_union, c, far):
            return False
        return not any(shapely.dwithin(self.polys[i], c, far) for i, _low in self.extra)

    # --- circles ---------------------------------------------------------------------------
    def graph(self) -> "BandSpace":
        """Make sure the circles and their free arcs are there (the ground's when the space
        is built, a roof's when a search first comes onto it)."""
        if self.cx is None:
            self._circles(self._surf, self.core + [i for i, _low in self.extra])
        return self

    def _circles(self, surf: Surfaces, pieces: list[int]) -> None:
        cs = [surf.corners(i) for i in pieces]
        n_solid = sum(len(c[0]) for c in cs)
        if self.cover:
            cs.append(surf.band_corners(self.band.id))
        C = np.concatenate([c[0] for c in cs]) if cs else np.zeros((0, 2))
        lo_a = np.concatenate([c[1] for c in cs]) if cs else np.zeros(0)
        w_a = np.concatenate([c[2] for c in cs]) if cs else np.zeros(0)
        rho_a = np.where(np.arange(len(C)) < n_solid, self.r, 0.0)
        if len(C):
            # a corner matters only if its arc can lie on the band; a corner of the band's edge
            # only where the base may stand
            keep = shapely.dwithin(self.band.area, shapely.points(C[:, 0], C[:, 1]), self.r)
            zero = rho_a == 0
            if zero.any():
                keep[zero] &= self.ok_points(C[zero, 0], C[zero, 1])
            # the same corner twice (pieces sharing it): once
            seen = set()
            for k, key in enumerate(
                zip(
                    C[:, 0].round(9).tolist(),
                    C[:, 1].round(9).tolist(),
                    rho_a.tolist(),
                    lo_a.round(9).tolist(),
                    w_a.round(9).tolist(),
                )
            ):
                if keep[k]:
                    keep[k] = key not in seen
                    seen.add(key)
            C, rho_a, lo_a, w_a = C[keep], rho_a[keep], lo_a[keep], w_a[keep]
        self.cx, self.cy, self.rho = C[:, 0].copy(), C[:, 1].copy(), rho_a
        self.centres = np.stack([self.cx, self.cy], axis=1)
        self._arcs(lo_a, w_a)

    def _arcs(self, lo: np.ndarray, w: np.ndarray) -> None:
        """The free parts of each circle's span: intervals (start angle, sweep) per circle,
        flattened into iv_circle / iv_lo / iv_w (a circle's intervals are consecutive)."""
        n = len(self.cx)
        C = np.stack([self.cx, self.cy], axis=1)
        crowded = np.zeros(n, dtype=bool)
        if n:
            pts = shapely.points(C[:, 0], C[:, 1])
            reach = 2 * self.r + EPS
            if self.core:
                hit, _p = STRtree([self.polys[i] for i in self.core]).query(pts, predicate="dwithin", distance=reach)
                crowded[np.unique(hit[np.bincount(hit, minlength=n)[hit] > 1])] = True
            for i, _low in self.extra:
                crowded |= shapely.dwithin(self.polys[i], pts, reach)
            crowded |= ~self._on_table(C[:, 0] - reach, C[:, 1] - reach) | ~self._on_table(
                C[:, 0] + reach, C[:, 1] + reach
            )
            if self.cover:
                crowded |= shapely.dwithin(self.band.edge, pts, reach)
            crowded &= self.rho > 0
        # free runs of samples on the crowded circles (vectorised), whole spans elsewhere
        crowd = np.nonzero(crowded)[0]
        ivc, ivl, ivw = [np.nonzero(~crowded)[0]], [lo[~crowded]], [w[~crowded]]
        if len(crowd):
            k = np.maximum(2, np.ceil(w[crowd] / _ARC_STEP).astype(np.int64) + 1)
            owner = np.repeat(crowd, k)
            first = np.repeat(np.cumsum(k) - k, k)
            t = (np.arange(len(owner)) - first) / np.repeat(k - 1, k)
            ang = lo[owner] + w[owner] * t
            ok = self.ok_points(
                self.cx[owner] + self.rho[owner] * np.cos(ang), self.cy[owner] + self.rho[owner] * np.sin(ang)
            )
            # a run starts where ok begins (or a circle's samples begin), ends where it stops
            new_circle = np.r_[True, owner[1:] != owner[:-1]]
            end_circle = np.r_[owner[1:] != owner[:-1], True]
            starts = np.flatnonzero(ok & (new_circle | ~np.r_[False, ok[:-1]]))
            ends = np.flatnonzero(ok & (end_circle | ~np.r_[ok[1:], False]))
            long = ends > starts
            ivc.append(owner[starts[long]])
            ivl.append(ang[starts[long]])
            ivw.append(ang[ends[long]] - ang[starts[long]])
        ivc, ivl, ivw = np.concatenate(ivc), np.concatenate(ivl), np.concatenate(ivw)
        order = np.argsort(ivc, kind="stable")
        ivc, ivl, ivw = ivc[order], ivl[order], ivw[order]
        self.iv_circle = np.array(ivc, dtype=np.int64)
        self.iv_lo = np.array(ivl, dtype=float) % TAU
        self.iv_w = np.array(ivw, dtype=float)
        self.iv_first = np.searchsorted(self.iv_circle, np.arange(n + 1))

    def locate(self, circle: np.ndarray, angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For tangent points (circle, angle): the free interval holding it (-1: none) and
        the offset of the angle in it (radians, counter-clockwise from its start)."""
        iv = np.full(len(circle), -1, dtype=np.int64)
        off = np.zeros(len(circle))
        if not len(circle):
            return iv, off
        first, last = self.iv_first[circle], self.iv_first[circle + 1]
        most = int((last - first).max()) if len(first) else 0
        for k in range(most):
            j = first + k
            has = j < last
            jj = np.where(has, j, 0)
            p = (angle - self.iv_lo[jj]) % TAU
            p = np.where(p > TAU - 1e-9, 0.0, p)
            inside = has & (iv < 0) & (p <= self.iv_w[jj] + 1e-9)
            iv[inside] = jj[inside]
            off[inside] = np.minimum(p[inside], self.iv_w[jj[inside]])
        return iv, off

    # --- for the reachable area -------------------------------------------------------------
    def ray_prims(self):
        """What a ray of the base's centre may not cross: segments (the pieces' edges moved
        out by r, the band's edge where it drops away, the table's edge r in) and circles
        (radius r round the pieces' corners). Cached."""
        if self._prims is None:
            P, Q, C = [], [], []
            r, W, H = self.r, self.width, self.height
            for i in self.core + [i for i, _low in self.extra]:
                poly = shapely.orient_polygons(self.polys[i])
                for ring in [poly.exterior, *poly.interiors]:
                    xy = np.asarray(ring.coords)
                    d = xy[1:] - xy[:-1]
                    L = np.hypot(d[:, 0], d[:, 1])
                    ok = L > 1e-12
                    n = np.stack([d[ok, 1], -d[ok, 0]], axis=1) / L[ok, None]
                    P.append(xy[:-1][ok] + r * n)
                    Q.append(xy[1:][ok] + r * n)
                    C.append(xy[:-1])
            if self.cover:
                for poly in shapely.get_parts(self.band.area):
                    for ring in [poly.exterior, *poly.interiors]:
                        xy = np.asarray(ring.coords)
                        P.append(xy[:-1])
                        Q.append(xy[1:])
            corners = np.array([[r, r], [W - r, r], [W - r, H - r], [r, H - r], [r, r]])
            P.append(corners[:-1])
            Q.append(corners[1:])
            C = np.concatenate(C) if C else np.zeros((0, 2))
            self._prims = (np.concatenate(P), np.concatenate(Q), C, np.full(len(C), r))
        return self._prims

    def no_end(self):
        """Where the base's centre may not end on this band (polygons that contain the true
        shapes): near obstacles (M5) and straddling the band's edge where it drops (M6)."""
        if self._no_end is None:
            r = self.r * 1.0 / math.cos(math.pi / 32)
            parts = [shapely.buffer(self.polys[i], r, quad_segs=8) for i in self.core + [i for i, _low in self.extra]]
            if self.cover:
                parts.append(shapely.buffer(self.band.edge, r, quad_segs=8))
            W, H = self.width, self.height
            parts.append(
                shapely.difference(
                    shapely.box(-1, -1, W + 1, H + 1), shapely.box(self.r, self.r, W - self.r, H - self.r)
                )
            )
            self._no_end = shapely.union_all(parts)
            shapely.prepare(self._no_end)
        return self._no_end

    # --- the static tangents ------------------------------------------------------------------
    def chain(self, slot: int) -> "Chain":
        """The departures of a slot (slot = 2 circle + (orientation < 0)): the common tangents
        from that circle, leaving it with that orientation, to every other circle, that a
        base can walk. Worked out for both orientations when a search first reaches the
        circle, then kept (they do not depend on the units)."""
        ch = self._chains.get(slot)
        if ch is None:
            self._tangents_of(slot // 2)
            ch = self._chains[slot]
        return ch

    def _tangents_of(self, c: int) -> None:
        n = len(self.cx)
        others = np.delete(np.arange(n), c)
        m = len(others)
        # per pair: direction and the two opening angles (outer and inner tangents); the
        # tangent line's left normal is at beta, a tangent point at beta (+ pi if s > 0)
        dx, dy = self.cx[others] - self.cx[c], self.cy[others] - self.cy[c]
        d = np.hypot(dx, dy)
        phi = np.arctan2(dy, dx)
        ri, rj = self.rho[c], self.rho[others]
        dd = np.where(d > 0, d, 1.0)
        a_out = np.arccos(np.clip((rj - ri) / dd, -1.0, 1.0))
        a_in = np.arccos(np.clip((ri + rj) / dd, -1.0, 1.0))
        far = d > np.maximum(ri + rj, EPS) + 1e-12
        J = np.tile(others, 4)
        S1 = np.repeat(np.array([1.0, -1.0, 1.0, -1.0]), m)
        S2 = np.repeat(np.array([1.0, -1.0, -1.0, 1.0]), m)
        beta = np.concatenate([phi + a_out, phi + np.pi - a_out, phi + np.pi - a_in, phi + a_in])
        ok = np.concatenate([np.tile(d > EPS, 2), np.tile(far, 2)])
        a1 = (beta + np.where(S1 > 0, np.pi, 0.0)) % TAU
        a2 = (beta + np.where(S2 > 0, np.pi, 0.0)) % TAU
        keep = np.nonzero(ok)[0]
        iv1, p1 = self.locate(np.full(len(keep), c), a1[keep])
        keep, iv1, p1 = keep[iv1 >= 0], iv1[iv1 >= 0], p1[iv1 >= 0]
        iv2, p2 = self.locate(J[keep], a2[keep])
        good = iv2 >= 0
        keep, iv1, p1, iv2, p2 = keep[good], iv1[good], p1[good], iv2[good], p2[good]
        J, S1, S2, b, a1, a2 = J[keep], S1[keep], S2[keep], beta[keep], a1[keep], a2[keep]
        lx, ly = np.cos(b), np.sin(b)
        f1, f2 = S1 * ri, S2 * self.rho[J]
        T1 = np.column_stack([self.cx[c] - f1 * lx, self.cy[c] - f1 * ly])
        T2 = np.column_stack([self.cx[J] - f2 * lx, self.cy[J] - f2 * ly])
        vis = self.ok_segments(T1, T2) if len(keep) else np.zeros(0, dtype=bool)
        for s in (1, -1):
            m_ = vis & (S1 == s)
            self._chains[2 * c + (s < 0)] = Chain(
                iv1[m_], s * p1[m_], a1[m_], T1[m_], T2[m_], 2 * J[m_] + (S2[m_] < 0), iv2[m_], S2[m_] * p2[m_], a2[m_]
            )


class Chain:
    """Departures of one slot in the order of travel round the circle: per free interval
    of the circle a run [lo, hi) of ``q`` (orientation x offset in the interval), each with
    its tangent: start and end points, the slot, interval, q and angle where it arrives."""

    def __init__(self, iv, q, a, A, B, to, to_iv, to_q, to_a):
        order = np.lexsort((q, iv))
        iv = iv[order]
        self.q = q[order].tolist()
        self.a = a[order].tolist()
        self.Ax, self.Ay = A[order, 0].tolist(), A[order, 1].tolist()
        self.Bx, self.By = B[order, 0].tolist(), B[order, 1].tolist()
        self.A, self.B = A[order], B[order]
        self.length = np.hypot(B[order, 0] - A[order, 0], B[order, 1] - A[order, 1]).tolist()
        self.to = to[order].tolist()
        self.to_iv = to_iv[order].tolist()
        self.to_q = to_q[order].tolist()
        self.to_a = to_a[order].tolist()
        starts = np.flatnonzero(np.r_[True, iv[1:] != iv[:-1]]) if len(iv) else np.zeros(0, dtype=np.int64)
        ends = np.r_[starts[1:], len(iv)]
        self.ranges = {
            int(v): (int(lo), int(hi)) for v, lo, hi in zip(iv[starts].tolist(), starts.tolist(), ends.tolist())
        }
        self.end = np.repeat(ends, ends - starts).tolist() if len(iv) else []


class Space:
    """The configuration space of one base radius: a :class:`BandSpace` per band.

    ``avoid``: difficult ground is an obstacle too (the search for a path that keeps off
    it, M12: the tracer's test is the same distance, so such a path is never difficult)."""

    def __init__(self, board, surf: Surfaces, r: float, avoid: bool = False):
        free = surf.free
        terrain = board.terrain
        self.r = r
        self.avoid = avoid
        self.surf = surf

        def is_obstacle(i: int, z: float) -> bool:
            t = terrain[i]
            if t.solid:
                return t.height > z + free + EPS
            if t.kind == "impassable":
                return z <= t.height + free + EPS
            return avoid and t.kind == "difficult"

        pieces = [
            i for i, t in enumerate(terrain) if t.solid or t.kind == "impassable" or (avoid and t.kind == "difficult")
        ]
        near: list[dict[int, list[int]]] = [{} for _ in surf.bands]
        if pieces:
            pi, ai = surf._tree.query(
                np.array([board.polygons[i] for i in pieces], dtype=object), predicate="dwithin", distance=r
            )
            for p, a in zip(pi.tolist(), ai.tolist()):
                near[surf.part_band[a]].setdefault(pieces[p], []).append(a)
        self.bands = [
            BandSpace(surf, band, r, near[band.id], is_obstacle, board.width, board.height) for band in surf.bands
        ]

    def forget_transitions(self) -> None:
        """:meth:`BandSpace.forget_transitions` for every band."""
        for bs in self.bands:
            bs.forget_transitions()
