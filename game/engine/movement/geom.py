"""Exact plane geometry for the movement engine (no polygon approximations of circles).

* :func:`capsule_interval` / :func:`first_exit`: where a moving point is within a distance
  of a segment / a polygon (M9 landing, G1 from the ledge);
* :func:`bitangents`: the common tangents of circles (the visibility graph of :mod:`.vis`);
* :func:`arc_polyline`: a polyline that follows an arc from outside it, within a stated
  excess length (``plan(path=)`` checks polylines, and a path round a corner is an arc).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import shapely

from game.engine import kernels
from game.engine.tolerance import EPS

Point = tuple[float, float]

TAU = 2 * math.pi

#: Largest extra length (inches) of the polyline that stands in for one arc of a path
#: round a corner, over the arc itself (see :func:`arc_polyline`).
ARC_EXCESS = 0.002


def capsule_interval(a: Point, d: Point, p: Point, q: Point, reach: float) -> tuple[float, float] | None:
    """The values of t for which a + t d is within ``reach`` of the segment p-q (an interval,
    the capsule being convex), or None."""
    ex, ey = q[0] - p[0], q[1] - p[1]
    le = math.hypot(ex, ey)
    out: list[tuple[float, float]] = []
    for c in (p, q):  # the two round ends
        fx, fy = a[0] - c[0], a[1] - c[1]
        aa = d[0] * d[0] + d[1] * d[1]
        bb = 2 * (fx * d[0] + fy * d[1])
        cc = fx * fx + fy * fy - reach * reach
        if aa == 0.0:
            if cc <= 0:
                out.append((-math.inf, math.inf))
            continue
        disc = bb * bb - 4 * aa * cc
        if disc >= 0:
            root = math.sqrt(disc)
            out.append(((-bb - root) / (2 * aa), (-bb + root) / (2 * aa)))
    if le > 0:
        ux, uy = ex / le, ey / le
        lo, hi = -math.inf, math.inf
        fx, fy = a[0] - p[0], a[1] - p[1]
        # 0 <= proj <= le and -reach <= perp <= reach, each linear in t
        for c0, c1, vmin, vmax in (
            (fx * ux + fy * uy, d[0] * ux + d[1] * uy, 0.0, le),
            (-fx * uy + fy * ux, -d[0] * uy + d[1] * ux, -reach, reach),
        ):
            if abs(c1) < 1e-15:
                if not (vmin <= c0 <= vmax):
                    lo, hi = 1.0, 0.0
                continue
            t0, t1 = (vmin - c0) / c1, (vmax - c0) / c1
            lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
        if lo <= hi:
            out.append((lo, hi))
    if not out:
        return None
    return (min(o[0] for o in out), max(o[1] for o in out))


def first_exit(a: Point, b: Point, polygon, reach: float) -> float | None:
    """Moving from a (within ``reach`` of the polygon's boundary) towards b: the fraction t
    in [0, 1] where the point first gets farther than ``reach`` from the boundary, or None
    if it stays within reach all the way to b."""
    d = (b[0] - a[0], b[1] - a[1])
    ivs = []
    for ring in [polygon.exterior, *polygon.interiors]:
        xy = list(ring.coords)
        for p, q in zip(xy, xy[1:]):
            iv = capsule_interval(a, d, p, q, reach)
            if iv is not None and iv[1] >= 0:
                ivs.append(iv)
    ivs.sort()
    end = None
    for lo, hi in ivs:
        if end is None:
            if lo > EPS:
                return 0.0  # a was not within reach after all
            end = hi
        elif lo <= end + 1e-12:
            end = max(end, hi)
        else:
            break
    if end is None:
        return 0.0
    return None if end >= 1.0 else max(0.0, end)


# --- tangents ------------------------------------------------------------------------------


def bitangents(c1: np.ndarray, r1: np.ndarray, s1: np.ndarray, c2: np.ndarray, r2: np.ndarray, s2: np.ndarray):
    """Common tangents of circle pairs, vectorised.

    A path going round circle 1 with orientation s1 (+1: counter-clockwise, the centre on
    its left; -1: clockwise) leaves it along a straight line and goes round circle 2 with
    orientation s2. Radii may be 0 (points). Returns (ok, T1, T2, a1, a2): whether the
    tangent exists, the tangent points and their angles on each circle (radians)."""
    return tangents_from(c1[:, 0], c1[:, 1], r1, s1, c2[:, 0], c2[:, 1], r2, s2)


def tangents_from(x1, y1, r1, s1, X2: np.ndarray, Y2: np.ndarray, r2: np.ndarray, s2: np.ndarray):
    """:func:`bitangents` with the circles given by coordinates: each of circle 1's may be
    one number (from one circle to many, without making arrays of it: the search asks
    this for a few targets at a time, where each numpy call costs more than its sums, so
    from one circle it is a compiled kernel, :func:`.kernels.tangents_kernel`)."""
    if np.ndim(x1) == 0 and np.ndim(s1) == 0 and np.ndim(r1) == 0 and kernels.use():
        f = kernels.f64
        return kernels.tangents_kernel(
            float(x1),
            float(y1),
            float(r1),
            float(s1),
            f(X2),
            f(Y2),
            f(np.broadcast_to(r2, np.shape(X2))),
            f(np.broadcast_to(s2, np.shape(X2))),
            EPS,
        )
    return tangents_numpy(x1, y1, r1, s1, X2, Y2, r2, s2)


def tangents_numpy(x1, y1, r1, s1, X2: np.ndarray, Y2: np.ndarray, r2: np.ndarray, s2: np.ndarray):
    """:func:`tangents_from` in numpy (for circle 1 given by arrays, and the reference of
    the kernel)."""
    dx, dy = X2 - x1, Y2 - y1
    d = np.hypot(dx, dy)
    k = s2 * r2 - s1 * r1
    ok = (d > EPS) & (np.abs(k) <= d - 1e-12)
    beta = np.arctan2(dy, dx) + np.arccos(np.minimum(np.maximum(k / np.where(d > 0, d, 1.0), -1.0), 1.0))
    lx, ly = np.cos(beta), np.sin(beta)  # the left normal of the directed tangent line
    f1, f2 = s1 * r1, s2 * r2
    m = len(beta)
    T1 = np.empty((m, 2))
    T1[:, 0] = x1 - f1 * lx
    T1[:, 1] = y1 - f1 * ly
    T2 = np.empty((m, 2))
    T2[:, 0] = X2 - f2 * lx
    T2[:, 1] = Y2 - f2 * ly
    # the angle of a tangent point on its circle: the normal from the centre, -s * left normal
    back = beta + math.pi
    a1 = ((back if s1 > 0 else beta) if np.ndim(s1) == 0 else np.where(s1 > 0, back, beta)) % TAU
    a2 = np.where(s2 > 0, back, beta) % TAU
    return ok, T1, T2, a1, a2


def overlap_cos(rho: float, D: float, R: float) -> float:
    """The cosine of half the arc of a circle of radius ``rho`` that lies within ``R`` of
    a point ``D`` from its centre (the law of cosines; over 1: none of it, under -1: all
    of it)."""
    return (rho * rho + D * D - R * R) / (2 * rho * D)


def crossings(x1: float, y1: float, r1: float, x2: float, y2: float, r2: float) -> list[Point]:
    """Where circle 1 meets circle 2: none, one (touching) or two points, the one to the
    left of the line from centre 1 to centre 2 first."""
    d = math.hypot(x2 - x1, y2 - y1)
    if d < 1e-12 or d > r1 + r2 or d < abs(r1 - r2):
        return []
    along = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(max(0.0, r1 * r1 - along * along))
    ux, uy = (x2 - x1) / d, (y2 - y1) / d
    px, py = x1 + along * ux, y1 + along * uy
    return [(px - h * uy, py + h * ux)] + ([(px + h * uy, py - h * ux)] if h > 1e-12 else [])


def travel(a_from: float, a_to: float, s: int) -> float:
    """Angle travelled (0 .. 2 pi) going round a circle with orientation s from a_from to a_to."""
    return (s * (a_to - a_from)) % (2 * math.pi)


def arc_polyline(c: Point, rho: float, a0: float, s: int, sweep: float, excess: float = ARC_EXCESS) -> list[Point]:
    """Waypoints that follow the arc of circle (c, rho) from angle a0, sweeping ``sweep``
    radians with orientation s, from outside the circle: the polyline is made of tangents
    to the circle (its corners lie on radius rho / cos(phi), phi = sweep / 2k), so a base
    following it never comes nearer the centre than rho. The arc's end points are not
    included (the tangent segments before and after the arc end there, on the same
    lines). Its length exceeds the arc's by 2 k rho tan(phi) - rho sweep <= ``excess``."""
    if rho <= 0 or sweep <= 1e-9:
        return [] if rho > 0 else [c]

    def over(k: int) -> float:
        return 2 * k * rho * math.tan(sweep / (2 * k)) - rho * sweep

    # excess ~ rho sweep^3 / (12 k^2): start there, then the smallest k that meets the bound
    k = max(1, math.ceil(sweep / 3.0), math.ceil(math.sqrt(rho * sweep**3 / (12 * excess))) - 1)
    while over(k) > excess:
        k += 1
    while k > 1 and sweep / (2 * (k - 1)) < 1.5 and over(k - 1) <= excess:
        k -= 1
    phi = sweep / (2 * k)
    far = rho / math.cos(phi)
    out = []
    for i in range(k):
        a = a0 + s * (2 * i + 1) * phi
        out.append((c[0] + far * math.cos(a), c[1] + far * math.sin(a)))
    return out


def polyline_length(pts: Sequence[Point]) -> float:
    return float(sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:])))


def segments(A: np.ndarray, B: np.ndarray):
    """Shapely line strings for segments A[k] -> B[k] (vectorised)."""
    return shapely.linestrings(np.stack([A, B], axis=1))


def runs(a: np.ndarray, ok: np.ndarray) -> list[tuple[float, float]]:
    """Maximal runs of ok samples on a full circle, as (start, sweep) intervals."""
    if ok.all():
        return [(0.0, TAU)]
    n = len(a)
    out = []
    start = int(np.argmin(ok))  # a blocked sample: runs start after it
    k = 0
    while k < n:
        i = (start + k) % n
        if not ok[i]:
            k += 1
            continue
        j = k
        while j + 1 < n and ok[(start + j + 1) % n]:
            j += 1
        lo = a[i]
        out.append((float(lo), float(a[(start + j) % n] - lo) % TAU))
        k = j + 1
    return out


def hits_discs(A: np.ndarray, B: np.ndarray, discs: np.ndarray) -> np.ndarray:
    """Segments A -> B that pass closer than R - EPS to a disc centre (x, y, R)."""
    C = np.asarray(discs, dtype=float).reshape(-1, 3)
    if not len(C) or not len(A):
        return np.zeros(len(A), dtype=bool)
    if kernels.use():
        return kernels.hits_discs_kernel(kernels.f64(A), kernels.f64(B), kernels.f64(C), EPS)
    return hits_discs_numpy(A, B, C)


def hits_discs_numpy(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """:func:`hits_discs` in numpy (the reference of its compiled kernel; C: n x 3, not
    empty, nor A)."""
    ax, ay = A[:, 0, None], A[:, 1, None]
    dx, dy = B[:, 0, None] - ax, B[:, 1, None] - ay
    L2 = np.maximum(dx * dx + dy * dy, 1e-18)
    x, y = C[None, :, 0], C[None, :, 1]
    # segments x discs at once: the same sums, element by element, as one disc at a time
    t = np.minimum(np.maximum(((x - ax) * dx + (y - ay) * dy) / L2, 0.0), 1.0)
    return (np.hypot(ax + t * dx - x, ay + t * dy - y) < C[None, :, 2] - EPS).any(axis=1)


def entry(A: np.ndarray, B: np.ndarray, x: float, y: float, R: float) -> np.ndarray:
    """Fraction of A -> B where it first comes within R of (x, y) (nan: never, or the
    segment has no length and starts outside)."""
    ax, ay = A[:, 0], A[:, 1]
    dx, dy = B[:, 0] - ax, B[:, 1] - ay
    fx, fy = ax - x, ay - y
    a = dx * dx + dy * dy
    b = 2 * (fx * dx + fy * dy)
    c = (fx * fx + fy * fy) - R * R
    disc = b * b - 4 * a * c
    two_a = 2 * a
    t = np.full(len(a), np.nan)
    solve = (disc >= 0) & (two_a != 0)
    np.divide(-b - np.sqrt(np.where(solve, disc, 0.0)), two_a, out=t, where=solve)
    t[c <= 0] = 0.0
    t[~((t >= 0) & (t <= 1))] = np.nan
    return t


def dedup(pts: Sequence[Point]) -> list[Point]:
    """The points without repeats (consecutive points within EPS of each other)."""
    out = [pts[0]]
    for p in pts[1:]:
        if math.hypot(p[0] - out[-1][0], p[1] - out[-1][1]) > EPS:
            out.append(p)
    return out
