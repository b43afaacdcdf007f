"""why_illegal says what apply does under other turn orders and alternating activations
(the property of tests/test_legality.py, on a game the utility bots played under O1-O3)."""

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from game.bots.driver import play_game
from game.bots.utility import UtilityBot
from game.engine.dice import Dice
from game.engine.game import Game
from game.engine.legal import side_to_act
from game.engine.scenario import load_scenario
from tests.factories import action_near, says_what_apply_does

RULES = {"activation": "alternating", "turn_order": "roll_off", "first_turn_limits": ["no_run"]}


@functools.lru_cache(maxsize=None)
def _played():
    sc = load_scenario("tests/scripts/duel.yaml", playable=True)
    played = play_game(sc, {1: UtilityBot(), 2: UtilityBot()}, seed=5, rules=RULES, turn_limit=3)
    assert played.refused == 0
    return played.game.scenario, [e.replayable for e in played.game.log]


def game_at(n: int) -> Game:
    sc, actions = _played()
    g = Game(sc, dice=Dice(seed=5))
    for a in actions[:n]:
        g.apply(a)
    return g


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hs.integers(0, 150), hs.data())
def test_why_illegal_says_what_apply_does_under_alternating(n, data):
    g = game_at(min(n, len(_played()[1])))
    for _ in range(4):
        says_what_apply_does(g, data.draw(action_near(g)))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(0, 150))
def test_legal_actions_agree_with_apply_under_alternating(n):
    g = game_at(min(n, len(_played()[1])))
    for uid in side_to_act(g):
        legal = g.legal_actions(uid)
        for kind in legal.kinds:
            result = g.try_apply(legal.examples[kind])
            assert result.ok, (legal.examples[kind], result.rule, result.reason)
            g.undo()
