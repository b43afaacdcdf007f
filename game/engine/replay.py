"""Replaying an action script: its dice, the game after it, and loading a scenario with
its script.

:meth:`Game.replay` is the only loop that applies a list of actions to a game: the
``replay`` command (:mod:`game.commands.replay`), saved games (:mod:`game.engine.saves`),
``render --actions`` and the tests all go through it.
"""

from __future__ import annotations

from typing import Callable

from game.engine.actions import Script, load_script
from game.engine.dice import Dice
from game.engine.errors import LoadError
from game.engine.game import Game
from game.engine.model import Scenario
from game.engine.scenario import load_scenario

#: The seed used when a script gives neither ``seed`` nor enough ``dice``.
DEFAULT_SEED = 0


def dice_for(script: Script, prompt: Callable[[int, str], int] | None = None) -> Dice:
    """The dice of ``script``: its typed values first, then its seed (or :data:`DEFAULT_SEED`)."""
    return Dice(seed=script.seed if script.seed is not None else DEFAULT_SEED, typed=list(script.dice), prompt=prompt)


def replay(scenario: Scenario, script: Script, *, history: bool = False) -> Game:
    """The game after every action of ``script``."""
    game = Game(scenario, dice=dice_for(script), history=history)
    for _ in game.replay(script.actions):
        pass
    return game


def load_pair(scenario_path: str, actions_path: str | None) -> tuple[Scenario, Script | None]:
    """A scenario and (if given) an action script; LoadError with the problems of both."""
    scenario, script = LoadError.gather(
        lambda: load_scenario(scenario_path), (lambda: load_script(actions_path)) if actions_path else None
    )
    return scenario, script
