"""The cheap bound of an Engage (issue 21, item 4): a question (``why_illegal``,
``legal_actions``) refuses a target beyond the largest allowance in a straight line at
once, with E1 and that distance, and stops its search at the allowance. These tests
compare it with the full path search (``Mover.plan_engage`` as ``apply`` runs it) on
sampled positions: the bound never refuses an Engage the search finds, the verdict and
the rule are always the same, and the distance it states is the measured one."""

from __future__ import annotations

import math
import os
import random
import re

import pytest

from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.game import Game
from game.engine.movement.mover import engage_gap, engage_inches, may_engage
from game.engine.scenario import load_scenario
from tests.factories import game, unit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUND = re.compile(
    r'^(\S+) is (\d+\.\d\d)" away in a straight line, base edge to base edge: beyond any path '
    r'into contact \((\S+) may engage up to (\d+(?:\.\d+)?)"\)$'
)


def engage_phase(path: str) -> Game:
    g = Game(load_scenario(path), dice=Dice(seed=0), history=False)
    while g.state.phase != "engage":
        g.apply({"end_phase": {}})
    return g


def full(g: Game, uid: str, tid: str):
    """The full search, as ``apply`` checks it: the plan, or the refusal."""
    try:
        return g.mover.plan_engage(g.state, uid, tid)
    except IllegalAction as exc:
        return exc


def samples(g: Game, n: int, seed: int):
    """(unit, target) placed at random on the table, the gap between them drawn round the
    unit's Engage allowance (half of them within it, half beyond)."""
    rng = random.Random(seed)
    st = g.state
    p1 = [u for u in st.units.values() if g.warband_player(u.warband) == st.player and u.active]
    foes = [u for u in st.units.values() if g.warband_player(u.warband) not in (0, st.player) and u.active]
    w, h = g.scenario.width, g.scenario.height
    for _ in range(n):
        u, t = rng.choice(p1), rng.choice(foes)
        inches = engage_inches(g.rs, u)
        gap = rng.uniform(0.0, inches) if rng.random() < 0.5 else rng.uniform(inches - 0.05, inches + 2.0)
        for _try in range(50):
            x, y = rng.uniform(u.r, w - u.r), rng.uniform(u.r, h - u.r)
            a = rng.uniform(0, 2 * math.pi)
            d = max(gap, 0.0) + u.r + t.r
            tx, ty = x + d * math.cos(a), y + d * math.sin(a)
            if t.r <= tx <= w - t.r and t.r <= ty <= h - t.r:
                break
        yield u.id, t.id, (x, y), (tx, ty)


def check_pair(g: Game, uid: str, tid: str) -> str:
    """Compare the question with the full search for one placed pair; the outcome's kind."""
    st = g.state
    u, t = st.units[uid], st.units[tid]
    action = {"engage": {"unit": uid, "target": tid}}
    g.mover.nav.forget()
    why = g.why_illegal(action)
    plan = full(g, uid, tid)
    if not isinstance(plan, IllegalAction):
        assert may_engage(g.rs, u, t), (uid, tid, engage_gap(u, t))  # the bound never refuses a reachable one
        assert (
            plan.cost >= engage_gap(u, t) - g.rs.contact_tolerance - 1e-6
        )  # less G4's tolerance, a lower bound of the cost
        assert why is None, (uid, tid, why)
        return "legal"
    assert why is not None and why.rule == plan.rule, (uid, tid, why, plan)
    m = BOUND.match(why.reason)
    if m is not None:  # refused by the bound: the distance stated is the one measured
        assert not may_engage(g.rs, u, t)
        assert m.group(1) == tid and m.group(3) == uid
        assert float(m.group(2)) == pytest.approx(engage_gap(u, t), abs=0.006)
        assert float(m.group(4)) == pytest.approx(engage_inches(g.rs, u))
        return "bound"
    assert may_engage(g.rs, u, t)  # a search ran: the bound let it through
    return "searched"


@pytest.mark.parametrize("name, n", [("default.yaml", 40), ("teach-climb.yaml", 25)])
def test_the_bound_never_refuses_an_engage_the_full_search_finds(name, n):
    g = engage_phase(os.path.join(ROOT, "maps", name))
    kinds = []
    for uid, tid, (x, y), (tx, ty) in samples(g, n, seed=21):
        u, t = g.state.units[uid], g.state.units[tid]
        old = (u.x, u.y, t.x, t.y)
        u.x, u.y, t.x, t.y = x, y, tx, ty
        try:
            kinds.append(check_pair(g, uid, tid))
        finally:
            u.x, u.y, t.x, t.y = old
    # the samples reach every case: legal engages, bound refusals, searched refusals or not
    assert kinds.count("legal") >= 3 and kinds.count("bound") >= 3, kinds


def test_an_engage_out_of_reach_is_refused_at_once_with_its_distance():
    g = game([unit("a", (5, 5))], [unit("b", (5, 16), keywords=[])], state={"turn": 2, "player": 1, "phase": "engage"})
    u, t = g.state.units["a"], g.state.units["b"]
    why = g.why_illegal({"engage": {"unit": "a", "target": "b"}})
    m = BOUND.match(why.reason)
    assert why.rule == "E1" and m is not None
    assert float(m.group(2)) == pytest.approx(11 - u.r - t.r, abs=0.006)
    legal = g.legal_actions("a")
    assert "engage" not in legal.kinds and legal.refused["engage"].reason == why.reason
    # apply refuses in the same words (the log says what the question said)
    r = g.try_apply({"engage": {"unit": "a", "target": "b"}})
    assert not r.ok and (r.rule, r.reason) == (why.rule, why.reason)


def test_the_bound_is_taken_before_any_path_search(monkeypatch):
    g = game([unit("a", (5, 5))], [unit("b", (5, 30), keywords=[])], state={"turn": 2, "player": 1, "phase": "engage"})

    def no_search(*_a, **_k):
        raise AssertionError("searched a path for an Engage the straight line refuses")

    monkeypatch.setattr(g.mover.nav, "find_contact", no_search)
    assert g.why_illegal({"engage": {"unit": "a", "target": "b"}}).rule == "E1"
    assert g.legal_actions("a").refused["engage"].rule == "E1"


def test_a_question_that_finds_a_path_leaves_it_for_apply():
    g = game([unit("a", (5, 5))], [unit("b", (5, 9), keywords=[])], state={"turn": 2, "player": 1, "phase": "engage"})
    assert g.why_illegal({"engage": {"unit": "a", "target": "b"}}) is None
    calls = []
    real = g.mover.nav._find_contact
    g.mover.nav._find_contact = lambda *a, **k: calls.append(1) or real(*a, **k)
    g.apply({"engage": {"unit": "a", "target": "b"}})
    assert calls == [] and "b" in g.state.units["a"].engaged_with
