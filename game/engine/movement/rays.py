"""Rays of the reachable area (:mod:`.reach`): stars from points and fans from arcs, cast
exactly against what a base may not cross on one band.

A *star* is the straight lines from a point, a *fan* the tangents leaving an arc of a
circle; each ray goes as far as the inches left allow or to the first obstacle it meets
(:class:`Caster`: exact hits on the obstacles grown by the base radius, on bases, the
table's edge and the band's edge). Rays are cast at every direction where what they meet
changes (the tangents to every circle near), where the curve their ends would trace
unhindered (the circle of reach of a star, for each budget) crosses a straight edge
(:func:`_crossings`: else the chord between two rays there cuts the corner off), and
evenly between, so the polygon through their ends is right to :data:`SAGITTA`. A
:class:`Bundle` casts the rays of every root on a band in one go and gives each root's
polygon for any budget (less the corners a pair of rays adds where nothing changes,
:data:`TIDY`). Where the tangents from the band's corners graze its other corners is kept
with the band (``BandSpace.ray_cache``).
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from game.engine import kernels
from game.engine.movement.geom import TAU, bitangents
from game.engine.movement.space import BandSpace
from game.engine.tolerance import EPS

#: Largest gap (inches) between the true edge of the area and the chords of its polygon.
SAGITTA = 0.008
#: Corners nearer than this (inches) to the line through their neighbours are left out of
#: the polygons (the pairs of rays either side of a direction where nothing changes).
TIDY = 1e-7
#: Fans' shadow edges kept per band (a bound: a band has far fewer corners).
_KEEP = 4096
#: Halvings that find where the curve of a root's reach crosses a straight edge, between
#: two even rays, before a last step by linear interpolation: the even rays are spaced so
#: that the curve is within SAGITTA of their chord, so within SAGITTA / 4^6 (2e-6") of the
#: chord after the halvings.
_HALVINGS = 6
#: Rays cast together (the size of the arrays: rays x obstacles near them).
_CHUNK = 512


class Caster:
    """Exact first hits of rays on what a base may not cross on one band, near a point."""

    def __init__(self, bs: BandSpace, discs, centre: tuple[float, float], radius: float):
        P, Q, C, R = bs.ray_prims()
        cx, cy = centre
        far = radius + 2 * bs.r + 1.0
        near_s = (
            (np.minimum(P[:, 0], Q[:, 0]) <= cx + far)
            & (np.maximum(P[:, 0], Q[:, 0]) >= cx - far)
            & (np.minimum(P[:, 1], Q[:, 1]) <= cy + far)
            & (np.maximum(P[:, 1], Q[:, 1]) >= cy - far)
        )
        near_c = np.hypot(C[:, 0] - cx, C[:, 1] - cy) <= far + R
        self.bs = bs
        self._near_c = near_c
        self.P, self.Q = P[near_s], Q[near_s]
        self.C, self.R = C[near_c], R[near_c]
        self._D = np.array(discs, dtype=float).reshape(-1, 3)
        if discs:
            self.C = np.vstack([self.C, self._D[:, :2]])
            self.R = np.concatenate([self.R, self._D[:, 2]])
        self._box = (np.minimum(self.P, self.Q), np.maximum(self.P, self.Q))
        self._E = self.Q - self.P  # the segments' directions, for cast
        self._R2 = self.R**2
        self._tree = None  # the segments' boxes: see boxes()

    def boxes(self) -> shapely.STRtree:
        """A tree of the segments' bounding boxes (for :func:`_crossings`)."""
        if self._tree is None:
            lo, hi = self._box
            self._tree = shapely.STRtree(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))
        return self._tree

    def cast(self, origins: np.ndarray, U: np.ndarray, reach=None) -> np.ndarray:
        """Distance along each ray (from ``origins``, unit direction U) to its first hit (inf: none;
        with ``reach``, a number or one per ray, hits beyond it may be missed: rays of a star
        or fan are cut there). A compiled kernel (:func:`.kernels.cast_kernel`) where
        numba is, else :meth:`cast_numpy`: the same answers."""
        if not kernels.use():
            return self.cast_numpy(origins, U, reach)
        n, f = len(origins), kernels.f64
        clip = reach is not None
        rr = f(np.broadcast_to(np.asarray(reach, dtype=float), (n,))) if clip else np.zeros(n)
        lo_s, hi_s = self._box
        return kernels.cast_kernel(
            f(origins),
            f(U),
            rr,
            f(self.P),
            f(self._E),
            f(lo_s),
            f(hi_s),
            f(self.C),
            f(self.R),
            f(self._R2),
            _CHUNK,
            clip,
        )

    def cast_numpy(self, origins: np.ndarray, U: np.ndarray, reach=None) -> np.ndarray:
        """:meth:`cast` in numpy (the reference of its kernel)."""
        n = len(origins)
        best = np.full(n, np.inf)
        if reach is not None:
            reach = np.broadcast_to(np.asarray(reach, dtype=float), (n,))
        lo_s, hi_s = self._box
        with np.errstate(divide="ignore", invalid="ignore"):
            for lo in range(0, n, _CHUNK):
                o, u = origins[lo : lo + _CHUNK], U[lo : lo + _CHUNK]
                P, E, C, R2 = self.P, self._E, self.C, self._R2
                if reach is not None:
                    # only what lies within reach of these origins' box
                    rr = reach[lo : lo + _CHUNK]
                    x0, y0 = (o - rr[:, None]).min(axis=0)
                    x1, y1 = (o + rr[:, None]).max(axis=0)
                    ks = (hi_s[:, 0] >= x0) & (lo_s[:, 0] <= x1) & (hi_s[:, 1] >= y0) & (lo_s[:, 1] <= y1)
                    R = self.R
                    kc = (C[:, 0] + R >= x0) & (C[:, 0] - R <= x1) & (C[:, 1] + R >= y0) & (C[:, 1] - R <= y1)
                    P, E, C, R2 = P[ks], E[ks], C[kc], R2[kc]
                ox, oy = o[:, 0, None], o[:, 1, None]
                ux, uy = u[:, 0, None], u[:, 1, None]
                t = np.full(len(o), np.inf)
                if len(P):
                    ex, ey = E[None, :, 0], E[None, :, 1]
                    den = ux * ey - uy * ex
                    wx = P[None, :, 0] - ox
                    wy = P[None, :, 1] - oy
                    tt = (wx * ey - wy * ex) / den
                    ss = (wx * uy - wy * ux) / den
                    # a hit: the segment crossed ahead (den = 0, the only nan, is no hit)
                    tt[(np.abs(den) <= 1e-12) | (tt <= 1e-7) | (ss < -1e-12) | (ss > 1 + 1e-12)] = np.inf
                    t = np.minimum(t, tt.min(axis=1))
                if len(C):
                    fx = ox - C[None, :, 0]
                    fy = oy - C[None, :, 1]
                    b = fx * ux + fy * uy
                    c = fx * fx + fy * fy - R2[None, :]
                    disc = b * b - c
                    tt = -b - np.sqrt(disc)
                    on = c <= 1e-9
                    tt[(disc <= 0) | on | (tt <= 1e-7)] = np.inf  # nan (disc < 0) is caught by the first
                    # from on a circle (where an arc is cut by a base, a base touched), a ray
                    # that heads into it is stopped where it starts; one leaving it is not
                    tt[on & (b < -1e-9)] = 0.0
                    t = np.minimum(t, tt.min(axis=1))
                best[lo : lo + _CHUNK] = t
        return best

    def grazes(self, keys) -> np.ndarray:
        """For each circle (c, rho, s) of ``keys``: the angles on it where a tangent leaving
        it with orientation s grazes another circle (the edges of the shadows a fan from it
        casts), a row each, nan-padded. Those on the band's corners are kept with the band,
        for every query."""
        kept = self.bs.ray_cache
        bases = {(x, y, R) for x, y, R in self._D.tolist()}
        here: dict = {}  # circles round bases: for this query only (bases move)
        new = [k for k in dict.fromkeys(keys) if k not in kept]
        if new:
            if len(kept) + len(new) > _KEEP:
                kept.clear()
            _P, _Q, C, R = self.bs.ray_prims()
            for k, a in zip(new, _graze_angles(new, C, R)):
                (here if (k[0][0], k[0][1], k[1]) in bases else kept)[k] = a
        out = np.stack([here[k] if k in here else kept[k] for k in keys])[:, :, self._near_c].reshape(len(keys), -1)
        if len(self._D):
            out = np.concatenate(
                [out, _graze_angles(keys, self._D[:, :2], self._D[:, 2]).reshape(len(keys), -1)], axis=1
            )
        return out

    def silhouettes(self, X: np.ndarray, Y: np.ndarray, top: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Directions from each point (X, Y) that graze a circle (within its top) or end at a
        segment's end, a hair either side: (which point, angle)."""
        k = len(X)
        own, out = [], []
        if len(self.C):
            fx, fy = self.C[None, :, 0] - X[:, None], self.C[None, :, 1] - Y[:, None]
            f = np.hypot(fx, fy)
            ok = (f > self.R[None, :] + 1e-9) & (f <= top[:, None] + self.R[None, :])
            i, j = np.nonzero(ok)
            phi = np.arctan2(fy[i, j], fx[i, j])
            half = np.arcsin(np.clip(self.R[j] / f[i, j], -1, 1))
            own += [i, i]
            out += [phi - half, phi + half]
        if len(self.P):
            for E in (self.P, self.Q):
                own.append(np.repeat(np.arange(k), len(E)))
                out.append(np.arctan2(E[None, :, 1] - Y[:, None], E[None, :, 0] - X[:, None]).ravel())
        if not out:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        own, a = np.concatenate(own), np.concatenate(out)
        return np.concatenate([own, own]), np.concatenate([a - 1e-6, a + 1e-6])


def _graze_angles(keys, C: np.ndarray, R: np.ndarray) -> np.ndarray:
    """For each circle (c, rho, s) of ``keys``: the angles on it of the tangents leaving it
    with orientation s that go round each circle (C, R) one way (row 0) or the other (row
    1); nan where there is none. Shape (len(keys), 2, len(C))."""
    k, m = len(keys), len(C)
    c1 = np.repeat(np.array([key[0] for key in keys], dtype=float).reshape(k, 2), 2 * m, axis=0)
    r1 = np.repeat(np.array([key[1] for key in keys], dtype=float), 2 * m)
    s1 = np.repeat(np.array([key[2] for key in keys], dtype=float), 2 * m)
    ok, _T1, _T2, a1, _a2 = bitangents(
        c1, r1, s1, np.tile(C, (2 * k, 1)), np.tile(R, 2 * k), np.tile(np.repeat([1.0, -1.0], m), k)
    )
    return np.where(ok, a1, np.nan).reshape(k, 2, m)


def _ends(curve, k: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the rays of the rows k of ``curve`` (see :func:`_crossings`) at t end, unhindered."""
    cx, cy, rho, a_in, s, left = (v[k] for v in curve)
    ang = a_in + s * t
    c, sn = np.cos(ang), np.sin(ang)
    L = np.maximum(left - rho * t, 0.0)
    return cx + rho * c - s * L * sn, cy + rho * sn + s * L * c


#: No crossings (rows, t): what :func:`stars` and :func:`fans` use with ``edges=False``.
_NONE = (np.zeros(0, dtype=np.int64), np.zeros(0))


def _crossings(caster: Caster, curve, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the curve traced by the unhindered ends of a root's rays crosses a segment of
    ``caster`` (a piece's edge grown by the base radius, the band's edge, the table's edge),
    between the rays at lo and hi (consecutive even rays): (which row, t). A row of
    ``curve`` (arrays cx, cy, rho, a_in, s, left) is the tangent at angle a_in + s t on the
    circle (cx, cy, rho) going left - rho t (a star is one of radius 0 with a_in = -pi/2
    and s = 1, so t is its direction; its curve is its circle of reach).

    Why: there the edge of the area turns from the curve to the segment, a corner the
    chord between the rays either side cuts off (up to a quarter of an inch at 9" left);
    a ray at the crossing puts the corner in. Found on the chords between even rays whose
    boxes meet a segment's, where the curve's ends are either side of the segment's line
    (two crossings between them cut off less than SAGITTA), by halving and a last linear
    step; a crossing of the line beyond the segment is not one (its ends have rays).
    Circles (the pieces' corners, bases) are left out: where the curve crosses one the
    area is not convex, and a ray there makes the chord along the circle cut into it."""
    if not len(lo):
        return np.zeros(0, dtype=np.int64), lo
    rows = np.arange(len(lo))
    ax, ay = _ends(curve, rows, lo)
    bx, by = _ends(curve, rows, hi)
    chords = shapely.box(np.minimum(ax, bx), np.minimum(ay, by), np.maximum(ax, bx), np.maximum(ay, by))
    ci, js = caster.boxes().query(chords)
    PX, PY, DX, DY = caster.P[js, 0], caster.P[js, 1], caster._E[js, 0], caster._E[js, 1]

    def side(t):
        """The signed side of the curve (at t, of each pair's row) of its segment's line."""
        ex, ey = _ends(curve, ci, t)
        return DX * (ey - PY) - DY * (ex - PX)

    a, b = lo[ci], hi[ci]
    fa, fb = side(a), side(b)
    keep = (fa < 0) != (fb < 0)
    ci, a, b, fa, fb = ci[keep], a[keep], b[keep], fa[keep], fb[keep]
    PX, PY, DX, DY = PX[keep], PY[keep], DX[keep], DY[keep]
    for _ in range(_HALVINGS):
        t = 0.5 * (a + b)
        ft = side(t)
        same = (ft < 0) == (fa < 0)
        a, fa = np.where(same, t, a), np.where(same, ft, fa)
        b, fb = np.where(same, b, t), np.where(same, fb, ft)
    t = a + (b - a) * fa / (fa - fb)  # fa, fb of opposite signs: t between a and b
    ex, ey = _ends(curve, ci, t)
    u = ((ex - PX) * DX + (ey - PY) * DY) / (DX * DX + DY * DY)
    ok = (u >= 0) & (u <= 1)  # on the segment itself
    return ci[ok], t[ok]


def _ragged(n: np.ndarray) -> np.ndarray:
    """0 .. n[i] - 1 for each i, one after the other."""
    return np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)


def _sorted_unique(own: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values a of each owner, sorted and without repeats (owners in order)."""
    order = np.lexsort((a, own))
    own, a = own[order], a[order]
    keep = np.r_[True, (own[1:] != own[:-1]) | (a[1:] != a[:-1])]
    return own[keep], a[keep]


def stars(caster: Caster, points, top: float, budgets=None, edges: bool = True):
    """Straight lines from each point root (band, x, y, inches), to be cast as far as
    ``top`` less its inches: the directions are every 2 sqrt(2 SAGITTA / left) radians,
    a hair either side of where what the rays meet changes, and where the circle of reach
    for each of ``budgets`` (the polygons that will be asked for; default: top) crosses
    a straight edge (:func:`_crossings`; not with ``edges=False``: a coarser polygon that
    may cut those corners, for callers that only sample the area). Returns the rays as
    :meth:`Bundle.add` takes them, or None."""
    pts = [p for p in points if top - p[3] > EPS]
    if not pts:
        return None
    X = np.array([p[1] for p in pts])
    Y = np.array([p[2] for p in pts])
    g = np.array([p[3] for p in pts])
    left = top - g
    n = np.array([max(24, int(math.ceil(TAU / (2 * math.sqrt(2 * SAGITTA / t))))) for t in left.tolist()])
    own_e = np.repeat(np.arange(len(pts)), n)
    even = _ragged(n) * np.repeat(TAU / n, n)  # = linspace(0, TAU, n, endpoint=False)
    own_s, sil = caster.silhouettes(X, Y, left)
    # where each budget's circle of reach crosses a segment, between the even rays (the last
    # chord closing the circle)
    nxt = np.r_[even[1:], 0.0]
    nxt[np.cumsum(n) - 1] = TAU
    budgets = budgets if budgets is not None else [top]
    rows = np.tile(own_e, len(budgets))
    radius = np.concatenate([budget - g[own_e] for budget in budgets])
    use = radius > EPS
    rows, m = rows[use], int(use.sum())
    curve = (X[rows], Y[rows], np.zeros(m), np.full(m, -math.pi / 2), np.ones(m), radius[use])
    at, cross = (
        _crossings(caster, curve, np.tile(even, len(budgets))[use], np.tile(nxt, len(budgets))[use]) if edges else _NONE
    )
    own, a = _sorted_unique(np.concatenate([own_e, own_s, rows[at]]), np.concatenate([even, sil % TAU, cross % TAU]))
    U = np.stack([np.cos(a), np.sin(a)], axis=1)
    origins = np.stack([X[own], Y[own]], axis=1)
    return origins, U, np.zeros(len(a)), np.bincount(own, minlength=len(pts)), g, False


def fans(caster: Caster, arcs, top: float, budgets=None, edges: bool = True):
    """Tangents leaving the arc of each arc root (band, centre, rho, a_in, s, sweep, inches)
    from angle a_in (orientation s, at most sweep radians on), the arc's inches paid out of
    ``top`` less the root's: every sqrt(8 SAGITTA / left) radians, a hair either side of
    where a tangent grazes another circle, and where the curve the rays' ends trace for
    each of ``budgets`` (default: top) crosses a straight edge (unless ``edges`` is
    False). As :func:`stars`."""
    keep, sweeps, ns = [], [], []
    for arc in arcs:
        _b, _c, rho, _a, _s, sweep, g = arc
        t = top - g
        if t <= EPS:
            continue
        if rho > 0:
            sweep = min(sweep, t / rho)
        if sweep <= 1e-9:
            continue
        keep.append(arc)
        sweeps.append(sweep)
        ns.append(max(2, int(math.ceil(sweep / math.sqrt(8 * SAGITTA / t))) + 1))
    if not keep:
        return None
    k = len(keep)
    sweep, n = np.array(sweeps), np.array(ns)
    cx = np.array([a[1][0] for a in keep])
    cy = np.array([a[1][1] for a in keep])
    rho = np.array([a[2] for a in keep])
    a_in = np.array([a[3] for a in keep])
    s = np.array([a[4] for a in keep], dtype=float)
    g = np.array([a[6] for a in keep])
    # evenly (= linspace(0, sweep, n)), then the shadows' edges within the sweep
    own_e = np.repeat(np.arange(k), n)
    even = _ragged(n) * np.repeat(sweep / (n - 1), n)
    last = np.cumsum(n) - 1
    even[last] = sweep
    d = (s[:, None] * (caster.grazes([(a[1], a[2], a[4]) for a in keep]) - a_in[:, None])) % TAU
    own_g, col = np.nonzero(d <= sweep[:, None])  # (nan: no such tangent)
    d = d[own_g, col]
    # where each budget's curve of the rays' ends crosses a segment, between the even rays
    budgets = budgets if budgets is not None else [top]
    rows = np.tile(own_e, len(budgets))
    left = np.concatenate([budget - g[own_e] for budget in budgets])
    lo = np.tile(even, len(budgets))
    hi = np.tile(np.r_[even[1:], 0.0], len(budgets))
    inner = np.ones(len(even), dtype=bool)
    inner[last] = False  # no chord after a fan's last ray
    use = np.tile(inner, len(budgets)) & (left - rho[rows] * lo > EPS)
    r = rows[use]
    at, cross = (
        _crossings(caster, (cx[r], cy[r], rho[r], a_in[r], s[r], left[use]), lo[use], hi[use]) if edges else _NONE
    )
    own, th = _sorted_unique(
        np.concatenate([own_e, own_g, own_g, r[at]]), np.concatenate([even, d - 1e-6, d + 1e-6, cross])
    )
    ok = (th >= 0) & (th <= sweep[own])
    own, th = own[ok], th[ok]
    ang = a_in[own] + s[own] * th
    T = np.stack([cx[own] + rho[own] * np.cos(ang), cy[own] + rho[own] * np.sin(ang)], axis=1)
    U = s[own, None] * np.stack([-np.sin(ang), np.cos(ang)], axis=1)
    return T, U, rho[own] * th, np.bincount(own, minlength=k), g, True


class Bundle:
    """The rays of many roots on one band, cast in one go: each root's polygon (a star's,
    or a fan's between its arc and the rays' ends) for any budgets, by group of roots."""

    def __init__(self, caster: Caster):
        self.caster = caster
        self._parts: list = []  # (origins, directions, paid, rays per root, inches at the roots, fans?)
        self._groups: list = []  # the group of each part's roots

    def add(self, rays, group: int = 0) -> None:
        """Add the rays of some roots (:func:`stars`, :func:`fans`), as one of ``group``."""
        if rays is not None:
            self._parts.append(rays)
            self._groups.append(group)

    def cast(self, top: float) -> "Bundle":
        """Cast every ray, each as far as ``top`` less the inches at its root."""
        parts = self._parts
        if parts:
            sizes = np.concatenate([p[3] for p in parts])
            self.T = np.concatenate([p[0] for p in parts])
            self.U = np.concatenate([p[1] for p in parts])
            self.paid = np.concatenate([p[2] for p in parts])
            self.g = np.concatenate([p[4] for p in parts])
            self.arc = np.concatenate([np.full(len(p[3]), p[5]) for p in parts])
            self.group = np.concatenate([np.full(len(p[3]), grp) for p, grp in zip(parts, self._groups)])
            self.start = np.cumsum(sizes) - sizes
            self.g_ray = np.repeat(self.g, sizes)
            self.hit = self.caster.cast(self.T, self.U, top - self.g_ray)
        return self

    def polygons(self, budgets: list[float], groups: int = 1) -> list[list[list]]:
        """For each budget, for each group (0 .. groups - 1), each root's polygon for that
        many inches (those with any area), in the order the roots were added: a star's
        through its rays' ends, a fan's along its arc and back through its rays' ends. The
        rays a root can pay for come first (a fan pays more the farther round its arc), so
        each ring takes the first k of its rays. The rings of every budget are made into
        polygons together (one call each into GEOS, not one per budget)."""
        out = [[[] for _ in range(groups)] for _ in budgets]
        if not self._parts:
            return out
        n = len(self.T)
        coords, sizes, which = [], [], []
        for kb, budget in enumerate(budgets):
            left = budget - self.g_ray - self.paid
            use = left > EPS
            k = np.add.reduceat(use.astype(np.int64), self.start)
            size = np.where(self.arc, 2 * k, k)
            roots = np.nonzero((k >= 2) & (size >= 3))[0]
            if not len(roots):
                continue
            ends = self.T + self.U * np.minimum(self.hit, left)[:, None]
            # pieces of the rings: a fan's arc (forwards) and its rays' ends (backwards); a star's ends
            arc = self.arc[roots]
            owner = np.repeat(roots, 1 + arc)
            first = np.r_[True, owner[1:] != owner[:-1]]
            on_arc = self.arc[owner] & first
            back = self.arc[owner] & ~first
            L = k[owner]
            base = self.start[owner] + np.where(on_arc, 0, n)
            local = _ragged(L)
            local = np.where(np.repeat(back, L), np.repeat(L - 1, L) - local, local)
            coords.append(np.concatenate([self.T, ends])[np.repeat(base, L) + local])
            sizes.append(size[roots])
            which.append(np.stack([np.full(len(roots), kb), self.group[roots]], axis=1))
        if not coords:
            return out
        sizes = np.concatenate(sizes)
        rings = shapely.linearrings(np.concatenate(coords), indices=np.repeat(np.arange(len(sizes)), sizes))
        polys = shapely.simplify(shapely.polygons(rings), TIDY, preserve_topology=False)
        bad = ~shapely.is_valid(polys)
        if bad.any():
            polys[bad] = shapely.make_valid(polys[bad])
        keep = ~shapely.is_empty(polys)
        for (kb, grp), poly in zip(np.concatenate(which)[keep].tolist(), polys[keep].tolist()):
            out[kb][grp].append(poly)
        return out
