"""Bots: opponents for solo playtesting that play any side legally and explain themselves.

Pure Python (no pygame). A bot answers ``bot.choose(view) -> BotDecision`` where the view
(:func:`view`) is what its player sees; the driver (:func:`play_game`, :func:`play_turn`)
applies its decisions. See docs/bots.md.
"""

from __future__ import annotations

from game.bots.base import BOT_KINDS, Bot, BotDecision
from game.bots.driver import (
    BotGame,
    Step,
    bot_scenario,
    decision_path,
    play_game,
    play_turn,
    snapshot,
    think,
    with_neutrals,
)
from game.bots.personality import BUNDLED, Personality, load_personality
from game.bots.random_bot import RandomBot
from game.bots.utility import UtilityBot
from game.bots.view import HIDDEN, View, view
from game.engine.errors import LoadError

#: Bot names for ``make_bot``: ``random``, ``utility`` (the default personality) and
#: ``utility:NAME`` / ``NAME`` for a bundled personality, or ``utility:PATH`` for a file;
#: ``planner`` and ``planner:BUDGET`` (``planner:250ms``, ``planner:2s``).
NAMES = ("random", "utility") + BUNDLED + ("planner",)


def is_bot_name(spec: str) -> bool:
    """Is ``spec`` a bot name ``simulate --bots`` takes: one of :data:`NAMES`, or
    ``planner:BUDGET`` with a well-formed budget?"""
    if spec in NAMES:
        return True
    if spec.startswith("planner:"):
        from game.bots.planner import parse_budget

        try:
            parse_budget(spec.split(":", 1)[1])
        except LoadError:
            return False
        return True
    return False


def make_bot(spec: str) -> Bot:
    """A bot from its name (see :data:`NAMES`); a bad personality raises LoadError."""
    if spec == "random":
        return RandomBot()
    if spec == "planner" or spec.startswith("planner:"):
        from game.bots.planner import make_planner

        return make_planner(spec)
    if spec == "utility":
        return UtilityBot()
    if spec.startswith("utility:"):
        return UtilityBot(spec.split(":", 1)[1])
    return UtilityBot(spec)


__all__ = [
    "BOT_KINDS",
    "Bot",
    "BotGame",
    "BotDecision",
    "HIDDEN",
    "NAMES",
    "Personality",
    "RandomBot",
    "Step",
    "UtilityBot",
    "View",
    "bot_scenario",
    "decision_path",
    "is_bot_name",
    "load_personality",
    "make_bot",
    "play_game",
    "play_turn",
    "snapshot",
    "think",
    "view",
    "with_neutrals",
]
