"""The one numeric tolerance of the engine.

Lengths are inches. Two lengths closer than :data:`EPS` are equal: far below the 0.01"
that the rules, the window and the logs show, far above floating-point noise. Thresholds
are inclusive (G3), so "within 8\"" is :func:`within` ``(d, 8)``.
"""

EPS = 1e-6


def within(d: float, limit: float) -> bool:
    """G3: ``d`` is within ``limit`` (inclusive, up to :data:`EPS`)."""
    return d <= limit + EPS


def beyond(d: float, limit: float) -> bool:
    """The opposite of :func:`within`."""
    return d > limit + EPS
