"""The confidence of every interval of a study, and the interval of a rate.

Its own module so that every part of :mod:`game.sim` that states a rate (the per-variant
tables, bot against bot, the bench's ladder) gives it the same interval, and every paired
better-or-worse count the same test.
"""

from __future__ import annotations

from scipy import stats as st

#: The significance level of "clear" and the confidence of every interval.
ALPHA = 0.05


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials; (0, 1) for n = 0."""
    if n <= 0:
        return (0.0, 1.0)
    ci = st.binomtest(int(k), int(n)).proportion_ci(confidence_level=1 - ALPHA, method="wilson")
    return (max(0.0, float(ci.low)), min(1.0, float(ci.high)))


def sign_test(up: int, down: int) -> float:
    """The two-sided p of the exact sign test: ``up`` pairs moved one way, ``down`` the
    other (the pairs that did not move left out); 1.0 when none moved."""
    if up + down == 0:
        return 1.0
    return float(st.binomtest(int(up), int(up + down), 0.5).pvalue)
