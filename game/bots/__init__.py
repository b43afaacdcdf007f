"""Bots: opponents for solo playtesting that play any side legally and explain themselves.

Pure Python (no pygame). A bot answers ``bot.choose(view) -> Decision`` where the view
(:func:`view`) is what its player sees; the driver (:func:`play_game`, :func:`play_turn`)
applies its decisions. See docs/bots.md.
"""

from __future__ import annotations

from game.bots.base import BOT_KINDS, Bot, Decision
from game.bots.driver import (BotGame, Step, bot_scenario, decision_path, play_game, play_turn, snapshot, think,
                              with_neutrals)
from game.bots.personality import BUNDLED, Personality, load_personality
from game.bots.random_bot import RandomBot
from game.bots.utility import UtilityBot
from game.bots.view import HIDDEN, View, view

#: Bot names for ``make_bot``: ``random``, ``utility`` (the default personality) and
#: ``utility:NAME`` / ``NAME`` for a bundled personality, or ``utility:PATH`` for a file.
NAMES = ("random", "utility") + BUNDLED


def make_bot(spec: str) -> Bot:
    """A bot from its name (see :data:`NAMES`); a bad personality raises LoadError."""
    if spec == "random":
        return RandomBot()
    if spec == "utility":
        return UtilityBot()
    if spec.startswith("utility:"):
        return UtilityBot(spec.split(":", 1)[1])
    return UtilityBot(spec)


__all__ = ["BOT_KINDS", "Bot", "BotGame", "Decision", "HIDDEN", "NAMES", "Personality", "RandomBot", "Step",
           "UtilityBot", "View", "bot_scenario", "decision_path", "load_personality", "make_bot", "play_game",
           "play_turn", "snapshot", "think", "view", "with_neutrals"]
