"""E2 and the new M11 sentence (issue 41): an Engaged unit may not move or Run in the Move
phase (it may Reload), contact that ends ends the engagement, a melee attack needs base
contact (F1), and only a unit whose weapon reloads may Reload (M11)."""

from __future__ import annotations

import pytest

from game.engine.errors import IllegalAction
from game.engine.events import ContactEnded
from tests.factories import R25, game, unit

#: Edge to edge 0.03": in contact (G4), Engaged with each other.
TOUCH = 2 * R25 + 0.03


def engaged_pair(phase="move", player=1, red_keywords=("hero",), **extra):
    red = [unit("a", (5, 5), keywords=red_keywords)]
    blue = [unit("b", (5 + TOUCH, 5), keywords=[])]
    g = game(red, blue, state={"turn": 2, "player": player, "phase": phase}, **extra)
    st = g.state
    st.units["a"].engaged_with = ["b"]
    st.units["b"].engaged_with = ["a"]
    return g


def refusal(g, action) -> IllegalAction:
    why = g.why_illegal(action)
    assert why is not None, action
    with pytest.raises(IllegalAction) as exc:
        g.apply(action)
    assert (exc.value.rule, exc.value.reason) == (why.rule, why.reason)
    return why


@pytest.mark.parametrize("kind", ["move", "run"])
def test_an_engaged_unit_may_not_move_or_run_in_the_move_phase(kind):
    g = engaged_pair(phase="move", player=2)
    why = refusal(g, {kind: {"unit": "b", "to": [9.0, 5.0]}})
    assert why.rule == "E2" and "Engaged with a" in why.reason
    assert "move" not in g.legal_actions("b").kinds and g.legal_actions("b").refused["move"].rule == "E2"
    assert (g.state.units["b"].x, g.state.units["b"].y) == (5 + TOUCH, 5)


def test_an_engaged_unit_with_a_crossbow_may_still_reload():
    g = engaged_pair(phase="move", red_keywords=("crossbow",))
    g.state.units["a"].loaded = False
    assert g.why_illegal({"reload": {"unit": "a"}}) is None
    g.apply({"reload": {"unit": "a"}})
    assert g.state.units["a"].loaded and g.state.units["a"].engaged_with == ["b"]


def test_a_melee_attack_needs_base_contact():
    g = engaged_pair(phase="melee", rules={"combat": "placeholder"})
    g.state.units["b"].x = 5 + 2 * R25 + 3.8  # a hand-written state: Engaged, 3.8" apart
    why = refusal(g, {"attack": {"unit": "a", "target": "b"}})
    assert why.rule == "F1" and "not in base contact with b" in why.reason and '3.80"' in why.reason


def test_a_melee_attack_in_contact_is_allowed():
    g = engaged_pair(phase="melee", rules={"combat": "placeholder"})
    assert g.why_illegal({"attack": {"unit": "a", "target": "b"}}) is None


def test_a_move_that_ends_the_contact_ends_the_engagement_and_says_so():
    # a Fall or a move the rules allow: the only way a base moves is the movement engine,
    # and after it every engagement the base left ends (E2)
    from game.engine.rules.move import end_lost_contacts

    g = engaged_pair(phase="move", player=2)
    st = g.state
    st.units["a"].x = 1.0  # as a fall might have put it
    emitted = []
    g.ctx.emit = emitted.append
    end_lost_contacts(g.ctx, "a")
    assert st.units["a"].engaged_with == [] and st.units["b"].engaged_with == []
    assert len(emitted) == 1 and isinstance(emitted[0], ContactEnded) and "E2" in emitted[0].text()


def test_contact_kept_keeps_the_engagement():
    from game.engine.rules.move import end_lost_contacts

    g = engaged_pair(phase="move", player=2)
    end_lost_contacts(g.ctx, "a")
    assert g.state.units["a"].engaged_with == ["b"]


def test_a_unit_with_no_weapon_that_reloads_may_not_reload():
    for keywords in (("hero",), ("bow",)):
        g = game(
            [unit("a", (5, 5), keywords=keywords)],
            [unit("b", (20, 20), keywords=[])],
            state={"turn": 2, "player": 1, "phase": "move"},
        )
        why = refusal(g, {"reload": {"unit": "a"}})
        assert why.rule == "M11" and "no weapon that reloads" in why.reason
        assert "reload" not in g.legal_actions("a").kinds
    g = game(
        [unit("a", (5, 5), keywords=("crossbow",))],
        [unit("b", (20, 20), keywords=[])],
        state={"turn": 2, "player": 1, "phase": "move"},
    )
    assert g.why_illegal({"reload": {"unit": "a"}}) is None
