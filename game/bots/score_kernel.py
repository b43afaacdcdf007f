"""The compiled kernel of :meth:`game.bots.positions.PositionScorer.score` (numba; see
:mod:`game.engine.kernels`): the same sums over every point, element by element and in
the same order, as the numpy version (:meth:`PositionScorer.score_numpy`, its reference
in tests/test_kernels.py). The scorer works out every number that depends on one token,
threat or enemy alone and passes them in rows; the kernel does what depends on the point.
"""

from __future__ import annotations

import math

import numpy as np

from game.engine.kernels import kernel

#: The rows of the terms array the kernel returns, in the order of the numpy version's dict.
TERMS = ("treasure", "deny", "threat", "hunt", "run_zone", "_run_kept", "support", "_nearest")


@kernel
def _max(a, b):
    """numpy's maximum of two numbers (the first when they are equal)."""
    return a if a >= b else b


@kernel
def _min(a, b):
    """numpy's minimum of two numbers (the first when they are equal)."""
    return a if a <= b else b


@kernel
def score_kernel(X, Y, Z, toks, picker, threats, has_threats, enemies, hunts, hunt_cost, allies, s):
    """The terms (rows :data:`TERMS`) and the total of each point (X, Y at height Z).

    ``toks`` rows: x, y, r, z, value, f, counts for the best cost (0/1), has pickers
    (0/1), the denial weight. ``threats`` rows: x, y, r, reach + contact, loss, weight.
    ``enemies`` rows: x, y, r (for the nearest when there are no threats). ``hunts`` rows
    (offence worth something): x, y, r, p.hunt * value. ``allies``: x, y, r of the side's
    other units. ``s``: ur, contact, free_h, move, p.contact, p.approach * move, lim,
    -caution, unit reach, run_denial_range, its + 3, carrying (0/1), -p.run_zone,
    p.support, SUPPORT_RANGE."""
    ur, contact, free_h, move, p_contact, ap_mv, lim, neg_caution = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
    reach, rdr, rdr3, carrying, neg_rz, p_support, support_range = s[8], s[9], s[10], s[11], s[12], s[13], s[14]
    n = X.shape[0]
    out = np.empty((len(TERMS), n))
    total = np.empty(n)
    for i in range(n):
        x, y, z = X[i], Y[i], Z[i]
        treasure = 0.0
        best_cost = np.inf
        deny = 0.0
        for k in range(toks.shape[0]):
            flat = np.hypot(x - toks[k, 0], y - toks[k, 1]) - ur - toks[k, 2]
            dz = abs(toks[k, 3] - z)
            cost = _max(flat, 0.0) + (dz if dz > free_h else 0.0)
            if picker:
                touching = (flat <= contact) and (dz <= free_h)
                w = p_contact if touching else ap_mv / (move + cost)
                treasure = _max(treasure, w * toks[k, 4] * toks[k, 5])
                if toks[k, 6] > 0:
                    best_cost = _min(best_cost, cost)
            if toks[k, 7] > 0:
                deny = _max(deny, toks[k, 8] if flat <= lim else 0.0)
        threat = 0.0
        nearest = np.inf
        for k in range(threats.shape[0]):
            d = np.hypot(x - threats[k, 0], y - threats[k, 1]) - ur - threats[k, 2]
            nearest = _min(nearest, d)
            threat += (threats[k, 4] if d <= threats[k, 3] else 0.0) * threats[k, 5]
        if not has_threats:
            for k in range(enemies.shape[0]):
                nearest = _min(nearest, np.hypot(x - enemies[k, 0], y - enemies[k, 1]) - ur - enemies[k, 2])
        hunt = 0.0
        for k in range(hunts.shape[0]):
            d = np.hypot(x - hunts[k, 0], y - hunts[k, 1]) - ur - hunts[k, 2] - reach
            hunt = _max(hunt, hunts[k, 3] * (1.0 if d <= 0 else move / (move + _max(d, 0.0))))
            if hunt_cost:
                best_cost = _min(best_cost, _max(d, 0.0))
        near_enemy = nearest <= rdr
        run_wanted = carrying == 0 and best_cost > move and math.isfinite(best_cost)
        friends = 0.0
        for k in range(allies.shape[0]):
            friends += 1.0 if (np.hypot(x - allies[k, 0], y - allies[k, 1]) - ur - allies[k, 2]) <= support_range else 0.0
        t_threat = neg_caution * threat
        t_run = neg_rz * (1.0 if (near_enemy and run_wanted) else 0.0)
        t_support = p_support * _min(friends, 2.0) * (1.0 if near_enemy else 0.0)
        out[0, i] = treasure
        out[1, i] = deny
        out[2, i] = t_threat
        out[3, i] = hunt
        out[4, i] = t_run
        out[5, i] = 1.0 if ((not near_enemy) and run_wanted and nearest <= rdr3) else 0.0
        out[6, i] = t_support
        out[7, i] = nearest
        total[i] = 0.0 + treasure + deny + t_threat + hunt + t_run + t_support
    return out, total
