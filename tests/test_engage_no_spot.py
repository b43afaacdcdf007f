"""An Engage whose target has no free spot in contact (E1): every point where the engager
would touch it lies under another base (or within reach of impassable terrain), so no
path search can end anywhere and ``NavCache._find_contact`` refuses it without the far
searches (``nav._contact_taken``). The answer must be the very one the searches give:
these tests compare it with the searches run regardless, on built and random positions.
"""

from __future__ import annotations

import math
import random

import pytest

from game.engine.errors import IllegalAction
from game.engine.movement import nav as nav_mod
from tests.factories import area, bare_unit, build

R25 = 25 / 25.4 / 2


def ring(n: int, cx: float, cy: float, d: float, skip=(), start: float = 0.0):
    """``n`` blue bases round (cx, cy), centres ``d`` away, but for the indices ``skip``."""
    return [
        bare_unit(
            f"o{k}", (cx + d * math.cos(start + 2 * math.pi * k / n), cy + d * math.sin(start + 2 * math.pi * k / n))
        )
        for k in range(n)
        if k not in skip
    ]


def answer(m, sc, uid="a", tid="b"):
    """What _find_contact says (the trace's points and cost, or the refusal), asked afresh."""
    st = sc.state
    u, t = st.units[uid], st.units[tid]
    allow = m.allowance(st, uid, engage=True)
    try:
        tr = m.nav._find_contact(st, u, t, allow, "climb")
    except IllegalAction as exc:
        return ("refused", exc.rule, exc.reason)
    return ("path", [tuple(p) for p in tr.points], tr.cost, tr.n_checks)


def both(m, sc, monkeypatch, uid="a", tid="b"):
    """(the answer, the answer with the shortcut never taken)."""
    got = answer(m, sc, uid, tid)
    with monkeypatch.context() as mp:
        mp.setattr(nav_mod, "_contact_taken", lambda *a: False)
        full = answer(m, sc, uid, tid)
    return got, full


def taken(m, sc, uid="a", tid="b"):
    st = sc.state
    return nav_mod._contact_taken(m, m.base_field(st), st.units[uid], st.units[tid])


def test_a_target_ringed_by_bases_is_refused_as_the_searches_refuse_it(monkeypatch):
    sc, m = build(
        red=[bare_unit("a", (4, 10), stats={"move": 6})],
        blue=[bare_unit("b", (10, 10))] + ring(6, 10, 10, 2 * R25 + 0.01),
    )
    assert taken(m, sc)
    got, full = both(m, sc, monkeypatch)
    assert got == full and got[0] == "refused" and got[1] == "E1" and "no way into base contact" in got[2]


def test_one_gap_in_the_ring_is_a_spot_and_nothing_is_decided(monkeypatch):
    sc, m = build(
        red=[bare_unit("a", (4, 10), stats={"move": 6})],
        blue=[bare_unit("b", (10, 10))] + ring(6, 10, 10, 2 * R25 + 0.3, skip=(3,)),
    )
    assert not taken(m, sc)
    got, full = both(m, sc, monkeypatch)
    assert got == full


def test_impassable_ground_and_bases_together_take_every_spot(monkeypatch):
    # the bases on one side, impassable ground on the other (the engager may not end within
    # its reach, M5): the ring is taken by the two together, by neither alone
    blue = [bare_unit("b", (10, 10))] + ring(6, 10, 10, 2 * R25 + 0.01, skip=(0, 1, 5))
    sc, m = build(
        red=[bare_unit("a", (4, 10), stats={"move": 6})],
        blue=blue,
        terrain=[area("w", 10 + R25 + 0.05, 8, 13, 12, "impassable")],
    )
    assert taken(m, sc)
    got, full = both(m, sc, monkeypatch)
    assert got == full and got[0] == "refused" and got[1] == "E1"
    sc, m = build(red=[bare_unit("a", (4, 10), stats={"move": 6})], blue=blue)
    assert not taken(m, sc)


@pytest.mark.parametrize("seed", range(4))
def test_random_crowds_round_a_target_give_the_same_answers(seed, monkeypatch):
    rng = random.Random(seed)
    seen = 0
    for _case in range(12):
        bases, placed = [], [(10.0, 10.0, R25)]
        for k in range(rng.randint(3, 8)):
            r = rng.choice([R25, 32 / 25.4 / 2, 40 / 25.4 / 2])
            for _try in range(30):
                a, d = rng.uniform(0, 2 * math.pi), R25 + r + rng.uniform(0.0, 0.4)
                x, y = 10 + d * math.cos(a), 10 + d * math.sin(a)
                if all(math.hypot(x - px, y - py) >= r + pr + 1e-3 for px, py, pr in placed):
                    placed.append((x, y, r))
                    bases.append(bare_unit(f"o{k}", (x, y), base_mm=round(r * 2 * 25.4, 6)))
                    break
        sc, m = build(
            red=[bare_unit("a", (10 - 4.5, 10 + rng.uniform(-2, 2)), stats={"move": 6})],
            blue=[bare_unit("b", (10, 10))] + bases,
        )
        got, full = both(m, sc, monkeypatch)
        assert got == full
        seen += taken(m, sc)
    assert seen >= 1  # the shortcut is taken in some of them (4 to 6 of 12 with these seeds)


@pytest.mark.parametrize("seed", range(3))
def test_a_clear_point_on_the_ring_decides_as_the_polygons_do(seed, monkeypatch):
    """``nav._ring_point_clear`` says "not taken" at once when a point of the ring of contact
    points is clear of every base and every wall's reach; the answer is the one the
    polygons give (the helper turned off), on random bases and impassable ground round
    the target, and it is taken in some of them, not in all."""
    from game.engine.errors import LoadError

    rng = random.Random(100 + seed)
    told = answers = cases = 0
    for _try in range(300):
        if cases == 15:
            break
        # bases round the target but for a gap on one side, and impassable ground on that
        # side (its near edge within reach of the gap's contact points or not), sometimes
        # on a second side too
        n = rng.randint(5, 8)
        side = rng.randrange(4)
        gap = (0,) + tuple(rng.sample([1, n - 1], rng.randint(0, 2)))
        bases = ring(
            n,
            10,
            10,
            2 * R25 + rng.uniform(0.005, 0.2),
            skip=gap,
            start=(0.0, math.pi, math.pi / 2, 3 * math.pi / 2)[side] + rng.uniform(-0.2, 0.2),
        )
        walls = []
        for k, s_ in enumerate([side] + rng.sample([q for q in range(4) if q != side], rng.randint(0, 1))):
            e, w = R25 + rng.uniform(0.05, 1.6), rng.uniform(0.3, 2.0)
            box = [
                (10 + e, 10 - w, 13, 10 + w),
                (7, 10 - w, 10 - e, 10 + w),
                (10 - w, 10 + e, 10 + w, 13),
                (10 - w, 7, 10 + w, 10 - e),
            ][s_]
            walls.append(area(f"w{k}", *box, "impassable"))
        try:
            sc, m = build(
                red=[bare_unit("a", (3, 3), stats={"move": 6})], blue=[bare_unit("b", (10, 10))] + bases, terrain=walls
            )
        except LoadError:
            continue  # a unit inside a wall: not a position
        cases += 1
        calls = []

        def clear(*a, _f=nav_mod._ring_point_clear):
            calls.append(_f(*a))
            return calls[-1]

        with monkeypatch.context() as mp:
            mp.setattr(nav_mod, "_ring_point_clear", clear)
            got = taken(m, sc)
        with monkeypatch.context() as mp:
            mp.setattr(nav_mod, "_ring_point_clear", lambda *a: False)
            assert taken(m, sc) == got
        told += any(calls)
        answers += got
    assert cases == 15 and told >= 1 and answers >= 1 and told + answers < cases, (cases, told, answers)
