"""A compiled kernel for the utility bot's :meth:`.positions.PositionScorer.score` (numba,
cached on disk, switched on as the engine's kernels are: :mod:`game.engine.kernels`).

The score of a point is a few dozen sums over the tokens, threats, enemies and friends
near the unit; numpy does them as one small array operation each, and a call costs its
per-operation overhead many times over (a few hundred points, some thirty operations per
token). :func:`score_kernel` does, point by point and in the same order, the sums of
:meth:`.positions.PositionScorer.score_numpy`, which stays the reference: the property
test in tests/test_bot_kernels.py holds the kernel to it bit for bit (random scorers, and
positions from a real game). numpy's ``maximum``/``minimum`` are :func:`_np_max` and
:func:`_np_min` here (a nan wins; on a tie the second argument, as numpy returns it).

What is not arithmetic stays in Python: the table's heights at the points (a query of the
board's index), a route's way left (:meth:`.routes.Route.to_go`, given as rows of ``GO``),
and each token's and enemy's scalars (:func:`.positions.packed`).
"""

from __future__ import annotations

import numpy as np

from game.engine.kernels import kernel

# The scalars of one scorer (S[...]), in the order :func:`.positions.packed` writes them.
MOVE, FREE_H, CONTACT, PICKER, CARRYING, LIM, P_CONTACT, APPROACH_MOVE = range(8)
NEG_CAUTION, NEG_RUN_ZONE, SUPPORT, RUN_DENIAL, REACH, HUNT_COST, KEPT_RANGE, SUPPORT_RANGE = range(8, 16)
N_SCALARS = 16  # S has these many, in this order
# The columns of a token's row (TOK): centre, radius, height, its route's row in GO (-1:
# none), the least way to it (nan: not known), value, factor, value's share f (factor and
# a denier's cut), the deny weight (nan: no enemy could take it), its index in the free tokens.
TX, TY, TR, TZ, TROUTE, TBEYOND, TVALUE, TFACTOR, TSHARE, TDENY, TINDEX = range(11)
# A threat's row (THR): centre, radius, the reach it is counted within, loss, the loss's share.
HX, HY, HR, HREACH, HLOSS, HSHARE = range(6)
# An enemy it hunts (OFF): centre, radius, the hunt weight times its value, its route's row.
OX, OY, OR, OWEIGHT, OROUTE = range(5)
# The rows of the result: the terms, then the total.
TERMS = ("treasure", "deny", "_route_left", "_route_tok", "threat", "hunt", "run_zone", "_run_kept", "support")
NEAREST, TOTAL, N_ROWS = len(TERMS), len(TERMS) + 1, len(TERMS) + 2


@kernel
def _np_max(a, b):
    """``np.maximum(a, b)`` of two numbers: nan if either is, ``b`` on a tie (0.0 and -0.0)."""
    return a if (a > b or a != a) else b


@kernel
def _np_min(a, b):
    """``np.minimum(a, b)`` of two numbers: nan if either is, ``b`` on a tie."""
    return a if (a < b or a != a) else b


@kernel
def _tokens_at(x, y, z, ur, S, TOK, GO, i, out):
    """The token terms at point i (out's treasure, deny and route rows); returns the least
    cost to a token worth its full value (inf where none)."""
    treasure, deny, routed, routed_tok, best_cost = 0.0, 0.0, np.nan, -1.0, np.inf
    picker = S[PICKER] != 0.0
    for k in range(TOK.shape[0]):
        flat = np.hypot(x - TOK[k, TX], y - TOK[k, TY]) - ur - TOK[k, TR]
        dz = np.abs(TOK[k, TZ] - z)
        row = int(TOK[k, TROUTE])
        if row >= 0:
            cost = _np_max(GO[row, i] - ur - TOK[k, TR], 0.0)
        else:
            cost = _np_max(flat, 0.0) + (dz if dz > S[FREE_H] else 0.0)
            if TOK[k, TBEYOND] == TOK[k, TBEYOND]:
                cost = _np_max(cost, TOK[k, TBEYOND])
        if picker:
            touching = (flat <= S[CONTACT]) and (dz <= S[FREE_H])
            val = (S[P_CONTACT] if touching else S[APPROACH_MOVE] / (S[MOVE] + cost)) * TOK[k, TVALUE] * TOK[k, TSHARE]
            if val > treasure:  # the token the treasure term is worth most for, its way left if routed
                routed, routed_tok = (cost if row >= 0 else np.nan), TOK[k, TINDEX]
            treasure = _np_max(treasure, val)
            if TOK[k, TFACTOR] >= 1.0:
                best_cost = _np_min(best_cost, cost)
        if TOK[k, TDENY] == TOK[k, TDENY]:
            deny = _np_max(deny, TOK[k, TDENY] if flat <= S[LIM] else 0.0)
    out[0, i], out[1, i], out[2, i], out[3, i] = treasure, deny, routed, routed_tok
    return best_cost


@kernel
def _threat_at(x, y, ur, THR, ENE):
    """(the loss the threats may deal at the point, the distance to the nearest threat or,
    where there is none, the nearest enemy)."""
    threat, nearest = 0.0, np.inf
    for k in range(THR.shape[0]):
        d = np.hypot(x - THR[k, HX], y - THR[k, HY]) - ur - THR[k, HR]
        nearest = _np_min(nearest, d)
        threat = threat + (THR[k, HLOSS] if d <= THR[k, HREACH] else 0.0) * THR[k, HSHARE]
    if THR.shape[0] == 0:
        for k in range(ENE.shape[0]):
            nearest = _np_min(nearest, np.hypot(x - ENE[k, 0], y - ENE[k, 1]) - ur - ENE[k, 2])
    return threat, nearest


@kernel
def _hunt_at(x, y, ur, S, OFF, GO, i, best_cost):
    """(the hunt term at point i, ``best_cost`` lowered by the way to an enemy where the
    unit does not go for tokens)."""
    hunt = 0.0
    move = S[MOVE]
    for k in range(OFF.shape[0]):
        row = int(OFF[k, OROUTE])
        if row >= 0:
            d = GO[row, i] - ur - OFF[k, OR] - S[REACH]
        else:
            d = np.hypot(x - OFF[k, OX], y - OFF[k, OY]) - ur - OFF[k, OR] - S[REACH]
        hunt = _np_max(hunt, OFF[k, OWEIGHT] * (1.0 if d <= 0 else move / (move + _np_max(d, 0.0))))
        if S[HUNT_COST] != 0.0:
            best_cost = _np_min(best_cost, _np_max(d, 0.0))
    return hunt, best_cost


@kernel
def score_kernel(X, Y, Z, ur, S, TOK, THR, ENE, OFF, ALLY, GO):
    """:meth:`.positions.PositionScorer.score_numpy` at each point (X[i], Y[i], height Z[i])
    of a unit of radius ``ur``: rows :data:`TERMS`, then the nearest threat, then the total."""
    n = X.shape[0]
    out = np.empty((N_ROWS, n))
    for i in range(n):
        x, y = X[i], Y[i]
        best_cost = _tokens_at(x, y, Z[i], ur, S, TOK, GO, i, out)
        threat, nearest = _threat_at(x, y, ur, THR, ENE)
        threat_term = S[NEG_CAUTION] * threat
        hunt, best_cost = _hunt_at(x, y, ur, S, OFF, GO, i, best_cost)
        near = nearest <= S[RUN_DENIAL]
        run_wanted = S[CARRYING] == 0.0 and best_cost > S[MOVE] and np.isfinite(best_cost)
        run_zone = S[NEG_RUN_ZONE] * (1.0 if (near and run_wanted) else 0.0)
        kept = 1.0 if ((not near) and run_wanted and nearest <= S[KEPT_RANGE]) else 0.0
        friends = 0.0
        for k in range(ALLY.shape[0]):
            if np.hypot(x - ALLY[k, 0], y - ALLY[k, 1]) - ur - ALLY[k, 2] <= S[SUPPORT_RANGE]:
                friends += 1.0
        support = S[SUPPORT] * _np_min(friends, 2.0) * (1.0 if near else 0.0)
        out[4, i], out[5, i], out[6, i], out[7, i], out[8, i] = threat_term, hunt, run_zone, kept, support
        out[NEAREST, i] = nearest
        out[TOTAL, i] = 0.0 + out[0, i] + out[1, i] + threat_term + hunt + run_zone + support
    return out
