"""Exact crossings of many straight segments with the raised terrain footprints (numpy).

The raised solid pieces (blocks and walls higher than 0) are cut into convex parts once per
map: a convex piece is one part, any other piece is cut into triangles. The stretch of
every segment over every part is found by clipping (Cyrus-Beck), all segments together.
Movement (:mod:`game.engine.nav`: gap jumps and wall climbs) and line of sight
(:mod:`game.engine.sight`) read their height profiles from here.

A segment's stretch over a piece is the union of its stretches over the piece's parts; the
parts of a piece share their inner edges, so a segment along an inner edge is inside the
piece. Whether a segment that only runs along the piece's outline counts as crossing it is
the caller's choice (``touching``); a segment that only touches a corner never does.
"""

from __future__ import annotations

import numpy as np
import shapely

from game.engine.tolerance import EPS

#: Above this many (segment, piece) pairs a separating-axis test thins them out first.
_MANY = 1024


def _ccw_ring(poly) -> np.ndarray:
    """The outline's vertices, counter-clockwise, without repeats or straight-through ones."""
    xy = np.asarray(poly.exterior.coords)[:-1]
    xy = xy[np.any(xy != np.roll(xy, 1, axis=0), axis=1)]
    x, y = xy[:, 0], xy[:, 1]
    if np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) < 0:
        xy = xy[::-1]
    e_in, e_out = xy - np.roll(xy, 1, axis=0), np.roll(xy, -1, axis=0) - xy
    turn = e_in[:, 0] * e_out[:, 1] - e_in[:, 1] * e_out[:, 0]
    return xy[np.abs(turn) > 1e-12] if len(xy) > 3 else xy


def _is_convex(xy: np.ndarray) -> bool:
    e = np.roll(xy, -1, axis=0) - xy
    turn = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    return len(xy) >= 3 and bool(np.all(turn >= -1e-12))


def _triangles(poly) -> list[tuple[np.ndarray, list[bool]]]:
    """A non-convex outline cut into counter-clockwise triangles, with their outline edges
    (an edge two triangles share is inside the piece)."""
    tris = []
    for tri in shapely.get_parts(shapely.constrained_delaunay_triangles(poly)):
        xy = shapely.get_coordinates(tri)[:3]
        if len(xy) < 3:
            continue
        (x0, y0), (x1, y1), (x2, y2) = xy
        area2 = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if abs(area2) >= 1e-12:
            tris.append(xy[[0, 2, 1]] if area2 < 0 else xy)
    keys = [[tuple(sorted((tuple(xy[e]), tuple(xy[(e + 1) % 3])))) for e in range(3)] for xy in tris]
    seen: dict[tuple, int] = {}
    for ks in keys:
        for key in ks:
            seen[key] = seen.get(key, 0) + 1
    return [(xy, [seen[key] == 1 for key in ks]) for xy, ks in zip(tris, keys)]


def convex_parts(board, index: int) -> list[tuple[np.ndarray, list[bool]]]:
    """A piece's footprint as convex counter-clockwise rings with their outline edges (edge
    e from vertex e to e + 1): the whole outline if it is convex, else triangles."""
    ring = _ccw_ring(board.polygons[index])
    if _is_convex(ring):
        return [(ring, [True] * len(ring))]
    return _triangles(board.polygons[index])


def _quads(ring: np.ndarray, outer: list[bool]) -> list[tuple[np.ndarray, list[bool]]]:
    """A convex ring fanned from its first vertex into parts of at most 4 vertices (the fan's
    diagonals are inner edges)."""
    n = len(ring)
    if n <= 4:
        return [(ring, outer)]
    out, i = [], 1
    while i < n - 1:
        j = min(i + 2, n - 1)
        idx = [0] + list(range(i, j + 1))
        flags = [i == 1 and outer[0]] + [outer[e] for e in range(i, j)] + [j == n - 1 and outer[n - 1]]
        out.append((ring[idx], flags))
        i = j
    return out


class Parts:
    """Convex parts as (k, n) rows, k edges each (fewer-sided parts are padded with empty
    edges): vertex k of part j is ``(vx[k, j], vy[k, j])``; edge k runs from vertex k to
    k + 1 with outward normal ``(nx, ny)[k, j]`` as long as the edge; ``outer[k, j]``:
    edge k lies on the piece's outline. ``owner[j]``: the part's piece number; a piece's
    parts are the run ``first[piece]``, ``count[piece]``."""

    def __init__(self, parts: list, pieces: int):
        size = max(len(r) for r, _k, _o in parts)
        v = np.stack([np.vstack([r] + [r[-1:]] * (size - len(r))) for r, _k, _o in parts])  # (n, k, 2)
        nxt = np.roll(v, -1, axis=1)
        self.vx, self.vy = np.ascontiguousarray(v[..., 0].T), np.ascontiguousarray(v[..., 1].T)
        self.nx = np.ascontiguousarray((nxt[..., 1] - v[..., 1]).T)
        self.ny = np.ascontiguousarray((v[..., 0] - nxt[..., 0]).T)
        self.length = np.hypot(self.nx, self.ny)
        self.packed = np.vstack([self.nx, self.ny, self.vx, self.vy])  # one gather for the clipping
        outer = [list(o) + [False] * (size - len(o)) for _r, _k, o in parts]
        self.outer = np.ascontiguousarray(np.array(outer, dtype=bool).T) & (self.length > 0)
        self.owner = np.array([k for _r, k, _o in parts], dtype=np.int64)
        self.first = np.zeros(pieces, dtype=np.int64)
        self.count = np.zeros(pieces, dtype=np.int64)
        ks, first, count = np.unique(self.owner, return_index=True, return_counts=True)
        self.first[ks], self.count[ks] = first, count
        self.single = bool((count == 1).all())
        self.size = size


class Footprints:
    """The raised pieces of a :class:`~game.engine.geometry.Board` as convex parts.

    Piece numbers k = 0, 1 ... are the raised pieces in map order: ``pieces[k]`` is the
    index in ``board.terrain``, ``pbox`` their boxes (x0, y0, x1, y1 arrays), ``height``
    their tops, ``high_wall`` whether a piece is a wall higher than ``free`` (M6 climbs).
    ``parts``: the pieces cut into convex parts of at most 4 corners (the clipping's);
    ``convex``: into convex parts as large as they come (whole convex pieces)."""

    def __init__(self, board, free: float):
        pieces = [i for i, t in enumerate(board.terrain) if t.solid and t.height > 0]
        whole = [(ring, k, outer) for k, i in enumerate(pieces) for ring, outer in convex_parts(board, i)]
        self.pieces = np.array(pieces, dtype=np.int64)
        self.height = np.array([float(board.terrain[i].height) for i in pieces])
        self.high_wall = np.array(
            [board.terrain[i].kind == "wall" and board.terrain[i].height > free + EPS for i in pieces], dtype=bool
        )
        self.convex = Parts(whole, len(pieces)) if whole else None
        quads = [(q, k, o) for ring, k, outer in whole for q, o in _quads(ring, outer)]
        self.parts = Parts(quads, len(pieces)) if quads else None
        lo = np.array([shapely.get_coordinates(board.polygons[i]).min(axis=0) for i in pieces]).reshape(-1, 2)
        hi = np.array([shapely.get_coordinates(board.polygons[i]).max(axis=0) for i in pieces]).reshape(-1, 2)
        self.pbox = (lo[:, 0] - 1e-9, lo[:, 1] - 1e-9, hi[:, 0] + 1e-9, hi[:, 1] + 1e-9)

    def intervals(self, A: np.ndarray, B: np.ndarray, touching: bool = True, pairs=None):
        """For segments A[k] -> B[k]: (segment, t0, t1, height, high wall, terrain index) of
        every stretch of a segment over a part of a raised piece (t in [0, 1]). With
        ``touching=False`` a segment running along a piece's outline is not over it.

        ``pairs``: (segments, piece numbers) to try, when the caller has narrowed them down;
        by default every segment meets every piece whose box its box meets."""
        none = np.zeros(0, dtype=np.int64)
        if not len(self.pieces) or not len(A):
            return none, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool), none
        bx0, by0, bx1, by1 = self.pbox
        ends = np.concatenate([A.T, B.T])  # (4, segments): ax, ay, bx, by
        Ax, Ay, Bx, By = ends
        if pairs is None:
            # Pairs whose bounding boxes meet (numpy: cheaper than building line geometries).
            sx0, sx1 = np.minimum(Ax, Bx), np.maximum(Ax, Bx)
            sy0, sy1 = np.minimum(Ay, By), np.maximum(Ay, By)
            si, pi = np.nonzero(
                (sx0[:, None] <= bx1[None, :])
                & (sx1[:, None] >= bx0[None, :])
                & (sy0[:, None] <= by1[None, :])
                & (sy1[:, None] >= by0[None, :])
            )
        else:
            si, pi = pairs
        if len(si) > _MANY:
            # ... and whose line does not leave the whole box on one side (separating axis).
            ax, ay = Ax[si], Ay[si]
            dx, dy = Bx[si] - ax, By[si] - ay
            side = np.stack(
                [dx * (cy[pi] - ay) - dy * (cx[pi] - ax) for cx, cy in ((bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1))]
            )
            meet = ~((side > 0).all(axis=0) | (side < 0).all(axis=0))
            si, pi = si[meet], pi[meet]
        seg, t0, t1, piece = self._clip(si, pi, ends, touching)
        return seg, t0, t1, self.height[piece], self.high_wall[piece], self.pieces[piece]

    def _clip(self, si, pi, ends, touching: bool):
        """Cyrus-Beck of segments si against every part of pieces pi."""
        grp = self.parts
        if grp.single:  # every piece is one part here
            part = grp.first.take(pi)
        else:
            cnt = grp.count.take(pi)
            si = np.repeat(si, cnt)
            part = np.repeat(grp.first[pi], cnt) + (np.arange(len(si)) - np.repeat(np.cumsum(cnt) - cnt, cnt))
        ax, ay, bx, by = ends.take(si, axis=1)
        dx, dy = bx - ax, by - ay
        k = grp.size
        edges = grp.packed.take(part, axis=1)  # (4 k, m)
        nx, ny, vx, vy = edges[:k], edges[k : 2 * k], edges[2 * k : 3 * k], edges[3 * k :]
        p = nx * dx + ny * dy
        q = nx * (vx - ax) + ny * (vy - ay)
        enter, leave = p < -1e-15, p > 1e-15
        par = ~(enter | leave)
        r = q / np.where(par, 1.0, p)
        t0 = np.where(enter, r, 0.0).max(axis=0)
        t1 = np.where(leave, r, 1.0).min(axis=0)
        ok = t1 - t0 > 1e-12
        if par.any():  # parallel to an edge: outside its line, or (not touching) along the outline
            bad = par & (q < -1e-12)
            if not touching:
                bad |= par & (np.abs(q) <= 1e-9 * grp.length.take(part, axis=1)) & grp.outer.take(part, axis=1)
            ok &= ~bad.any(axis=0)
        return si[ok], t0[ok], t1[ok], grp.owner[part[ok]]
