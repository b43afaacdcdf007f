"""Bots never submit an illegal action: by hypothesis, over game states on the bundled maps.

States are the golden random scripts' prefixes (as in tests/test_legality.py) replayed
under the rules of bot games (placeholder combat, a turn limit, bot Neutrals), and states
reached by random-bot play on the mirror map. At each, every bot decides for whoever
must decide, several decisions in a row: each action must pass ``why_illegal`` and
``apply``, and deciding must change nothing in the game.
"""

from __future__ import annotations

import functools
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from game.bots import RandomBot, UtilityBot, view
from game.bots.driver import bot_scenario, play_turn, with_neutrals
from game.engine.actions import load_script
from game.engine.dice import Dice
from game.engine.game import Game
from game.engine.geometry import board_for
from game.engine.movement import Mover
from game.engine.scenario import load_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIRS = [
    ("maps/default.yaml", "tests/scripts/random-default.yaml"),
    ("maps/teach-climb.yaml", "tests/scripts/random-climb.yaml"),
    ("maps/teach-treasure.yaml", "tests/scripts/random-treasure.yaml"),
    ("maps/stress.yaml", "tests/scripts/random-stress.yaml"),
    ("tests/scripts/duel.yaml", "tests/scripts/random-duel.yaml"),
    ("tests/scripts/close.yaml", "tests/scripts/random-close.yaml"),
    ("maps/mirror.yaml", None),
]
BOTS = {
    "random": RandomBot(),
    "utility": UtilityBot(),
    "cautious": UtilityBot("cautious"),
    "aggressive": UtilityBot("aggressive"),
}


@functools.lru_cache(maxsize=None)
def _map(i: int):
    scen, script = PAIRS[i]
    sc = bot_scenario(load_scenario(os.path.join(ROOT, scen)))
    board = board_for(sc)
    return sc, board, Mover(sc, board), load_script(os.path.join(ROOT, script)) if script else None


def game_at(i: int, n: int, seed: int) -> Game:
    """Map ``i`` after ``n`` actions: of its random script, or of random bots (seeded)."""
    sc, board, mover, script = _map(i)
    g = Game(sc, dice=Dice(seed=script.seed if script else seed), board=board, mover=mover)
    if script:
        for a in script.actions[:n]:
            g.try_apply(a)
    else:
        bots = with_neutrals({1: RandomBot(), 2: RandomBot()})
        for _ in range(n // 20):
            if g.is_over():
                break
            play_turn(g, bots)
    return g


def _fingerprint(g: Game):
    return g.state.hash(), g.dice.getstate()[1:], len(g.dice.log), len(g.log), g.can_undo, g.can_redo


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hs.integers(0, len(PAIRS) - 1), hs.integers(0, 200), hs.integers(0, 10_000), hs.sampled_from(sorted(BOTS)))
def test_bots_only_submit_what_why_illegal_accepts(i, n, seed, name):
    g = game_at(i, n, seed)
    bot = BOTS[name]
    for _ in range(4):
        if g.is_over():
            break
        before = _fingerprint(g)
        d = bot.choose(view(g))
        assert _fingerprint(g) == before, d
        why = g.why_illegal(d.action)
        assert why is None, (PAIRS[i][0], n, name, d.action, d.reason, why)
        result = g.try_apply(d.action)
        assert result.ok, (d.action, result.rule, result.reason)
