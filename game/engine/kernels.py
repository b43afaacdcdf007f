"""Compiled kernels for the movement engine's hottest arithmetic (numba, cached on disk).

Each kernel does, element by element and in the same order, the sums of a numpy
function elsewhere in the engine (:func:`.movement.geom.hits_discs`,
:func:`.movement.geom.tangents_from`, :meth:`.movement.rays.Caster.cast`): those stay as
the reference, and a property test (tests/test_kernels.py) holds each kernel to it, bit
for bit. What the kernels save is numpy's cost per call and the arrays of every pair
(rays x segments, segments x discs): the engine asks these for a few elements at a time,
thousands of times a game.

numba costs a process about a second before its first kernel runs (importing it, then
loading the kernels' machine code, kept on disk in ``__pycache__`` by ``cache=True``;
compiling them the very first time takes some seconds more): more than a short process
(``speedheim legal``, one game) would win back. So a process starts on the numpy
references and switches to the kernels once it has asked :data:`WARM` questions of
them (:func:`use`), which only a long run (a study's games, the window) does; the
planner switches at once when it plays (:func:`long_run`). The answers are the same either
way. The environment variable ``SPEEDHEIM_JIT`` says ``0``: never (the references
only), ``1``: from the first question; without numba the references are used.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np

from game.engine.tolerance import EPS

#: Questions asked of the kernels' callers before a process switches to the kernels.
WARM = 20000

TAU = 2 * math.pi

_KERNELS: list[tuple[dict, str, object]] = []  # (its module's globals, name, plain function)
_lock = threading.Lock()
_asked = 0
_ENABLED = False
_on: bool | None = None if os.environ.get("SPEEDHEIM_JIT", "") not in ("0", "1") else os.environ["SPEEDHEIM_JIT"] == "1"


def use() -> bool:
    """Should this call use the compiled kernels? Counts the question; switches to the
    kernels (:func:`enable`) at the :data:`WARM`-th. False without numba."""
    global _asked
    if _ENABLED:
        return True
    if _on is not None:
        return _on and enable()
    _asked += 1
    return _asked >= WARM and enable()


def long_run() -> bool:
    """A caller about to ask a great many questions (a planner that plays: some
    thousands a player-turn) switches the process to the kernels now rather than after
    :data:`WARM` questions (which a planner reaches only late in its first game). False
    without numba or with ``SPEEDHEIM_JIT=0``."""
    if _ENABLED:
        return True
    return _on is not False and enable()


def enable() -> bool:
    """Compile the kernels now (load them from the disk cache); False without numba, or
    with ``SPEEDHEIM_JIT=0``."""
    global _ENABLED, _on
    with _lock:
        if _ENABLED:
            return True
        if os.environ.get("SPEEDHEIM_JIT") == "0":
            return False
        try:
            import numba  # noqa: F401
        except ImportError:
            _on = False
            return False
        # each name in its module becomes the compiled kernel (a kernel that calls another
        # finds the compiled one there when it is compiled)
        for mod, name, fn in _KERNELS:
            mod[name] = _compile(fn)
        _ENABLED = True
        return True


def kernel(fn):
    """Register ``fn`` as a kernel: a plain function (no Python objects, loops over numpy
    arrays) that :func:`enable` compiles with numba (numpy's error model: a division by
    zero gives inf or nan as numpy does; no fast-math, so no fused multiply-adds: the
    same sums as the reference). Until then it is ``fn`` itself, which callers do not
    call (they use their numpy reference). A kernel registered after :func:`enable` (its
    module imported later) is compiled at once."""
    with _lock:
        _KERNELS.append((fn.__globals__, fn.__name__, fn))
        if _ENABLED:
            return _compile(fn)
    return fn


def _compile(fn):
    import numba

    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


@kernel
def hits_discs_kernel(A, B, C, eps):
    """:func:`.movement.geom.hits_discs`: segments A[i] -> B[i] that pass closer than
    R - eps to a disc centre (C[j] = x, y, R)."""
    n, m = A.shape[0], C.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        ax, ay = A[i, 0], A[i, 1]
        dx, dy = B[i, 0] - ax, B[i, 1] - ay
        L2 = max(dx * dx + dy * dy, 1e-18)
        for j in range(m):
            x, y = C[j, 0], C[j, 1]
            t = ((x - ax) * dx + (y - ay) * dy) / L2
            t = min(max(t, 0.0), 1.0)
            if np.hypot(ax + t * dx - x, ay + t * dy - y) < C[j, 2] - eps:
                out[i] = True
                break
    return out


@kernel
def tangents_kernel(x1, y1, r1, s1, X2, Y2, r2, s2, eps):
    """:func:`.movement.geom.tangents_from` from one circle (x1, y1, r1, s1: numbers) to
    each circle (X2, Y2, r2, s2: arrays). Returns (ok, T1, T2, a1, a2)."""
    m = X2.shape[0]
    ok = np.empty(m, dtype=np.bool_)
    T1 = np.empty((m, 2))
    T2 = np.empty((m, 2))
    a1 = np.empty(m)
    a2 = np.empty(m)
    f1 = s1 * r1
    for j in range(m):
        dx, dy = X2[j] - x1, Y2[j] - y1
        d = np.hypot(dx, dy)
        f2 = s2[j] * r2[j]
        k = f2 - f1
        ok[j] = (d > eps) and (abs(k) <= d - 1e-12)
        q = k / (d if d > 0 else 1.0)
        beta = np.arctan2(dy, dx) + np.arccos(min(max(q, -1.0), 1.0))
        lx, ly = np.cos(beta), np.sin(beta)
        T1[j, 0] = x1 - f1 * lx
        T1[j, 1] = y1 - f1 * ly
        T2[j, 0] = X2[j] - f2 * lx
        T2[j, 1] = Y2[j] - f2 * ly
        back = beta + math.pi
        a1[j] = (back if s1 > 0 else beta) % TAU
        a2[j] = (back if s2[j] > 0 else beta) % TAU
    return ok, T1, T2, a1, a2


@kernel
def _reach_box(origins, reach, lo, hi):
    """The box (x0, y0, x1, y1) that holds every point within reach of origins[lo:hi]."""
    x0 = y0 = np.inf
    x1 = y1 = -np.inf
    for i in range(lo, hi):
        x0 = min(x0, origins[i, 0] - reach[i])
        y0 = min(y0, origins[i, 1] - reach[i])
        x1 = max(x1, origins[i, 0] + reach[i])
        y1 = max(y1, origins[i, 1] + reach[i])
    return x0, y0, x1, y1


@kernel
def _mark_in_box(x0, y0, x1, y1, lo_s, hi_s, C, R, use_s, use_c):
    """Set use_s/use_c to whether each segment's bounding box, each circle's square, meets the box."""
    for j in range(lo_s.shape[0]):
        use_s[j] = (hi_s[j, 0] >= x0) and (lo_s[j, 0] <= x1) and (hi_s[j, 1] >= y0) and (lo_s[j, 1] <= y1)
    for j in range(C.shape[0]):
        use_c[j] = (
            (C[j, 0] + R[j] >= x0) and (C[j, 0] - R[j] <= x1) and (C[j, 1] + R[j] >= y0) and (C[j, 1] - R[j] <= y1)
        )


@kernel
def _segment_hit(t, ox, oy, ux, uy, P, E, use_s):
    """t, or the distance along the ray (ox, oy) + s (ux, uy) to a nearer crossing of a used segment."""
    for j in range(P.shape[0]):
        if not use_s[j]:
            continue
        ex, ey = E[j, 0], E[j, 1]
        den = ux * ey - uy * ex
        if abs(den) <= 1e-12:
            continue
        wx = P[j, 0] - ox
        wy = P[j, 1] - oy
        tt = (wx * ey - wy * ex) / den
        ss = (wx * uy - wy * ux) / den
        if tt <= 1e-7 or ss < -1e-12 or ss > 1 + 1e-12:
            continue
        t = min(t, tt)
    return t


@kernel
def _circle_hit(t, ox, oy, ux, uy, C, R2, use_c):
    """t, or the distance along the ray (ox, oy) + s (ux, uy) to a nearer entry into a used circle."""
    for j in range(C.shape[0]):
        if not use_c[j]:
            continue
        fx = ox - C[j, 0]
        fy = oy - C[j, 1]
        b = fx * ux + fy * uy
        c = fx * fx + fy * fy - R2[j]
        if c <= 1e-9:
            # from on a circle: a ray heading into it stops where it starts
            if b < -1e-9:
                t = min(t, 0.0)
            continue
        disc = b * b - c
        if disc <= 0:
            continue
        tt = -b - np.sqrt(disc)
        if tt <= 1e-7:
            continue
        t = min(t, tt)
    return t


@kernel
def cast_kernel(origins, U, reach, P, E, lo_s, hi_s, C, R, R2, chunk, clip):
    """:meth:`.movement.rays.Caster.cast`: the distance along each ray (from origins[i],
    unit direction U[i]) to its first hit on a segment (P, direction E, bounding boxes
    lo_s..hi_s) or a circle (centre C, radius R, R2 = R**2), inf for none. With ``clip``
    (the reference's ``reach`` given), rays are taken ``chunk`` at a time and only what
    lies within reach of the chunk's origins' box is looked at, as the reference does, so
    that a hit beyond reach is found or missed exactly as there."""
    n = origins.shape[0]
    best = np.full(n, np.inf)
    use_s = np.ones(P.shape[0], dtype=np.bool_)
    use_c = np.ones(C.shape[0], dtype=np.bool_)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        if clip:
            x0, y0, x1, y1 = _reach_box(origins, reach, lo, hi)
            _mark_in_box(x0, y0, x1, y1, lo_s, hi_s, C, R, use_s, use_c)
        for i in range(lo, hi):
            ox, oy, ux, uy = origins[i, 0], origins[i, 1], U[i, 0], U[i, 1]
            t = _segment_hit(np.inf, ox, oy, ux, uy, P, E, use_s)
            best[i] = _circle_hit(t, ox, oy, ux, uy, C, R2, use_c)
    return best


def f64(a) -> np.ndarray:
    """``a`` as a C-contiguous float64 array (what the kernels are compiled for)."""
    return np.ascontiguousarray(a, dtype=np.float64)


__all__ = [
    "EPS",
    "WARM",
    "cast_kernel",
    "enable",
    "f64",
    "hits_discs_kernel",
    "kernel",
    "long_run",
    "tangents_kernel",
    "use",
]
