"""Scoring a plan: play the rest of this turn and the opponent's reply on a copy.

:func:`rollout` takes a sandbox copy of the game (``View.sandbox``: hidden events masked,
its own dice), plays the rest of the side's turn by a :class:`~game.bots.planner.goals.GoalPolicy`
and then the opponent's whole reply turn by the utility bot (the cheap policy), through
``Game.apply`` like any game, and values the position reached (:func:`evaluate`).

Common random numbers: sample ``i`` of every plan rolls the same dice (the sandbox is
seeded by ``sample_seed(base, i)``), so two plans differ by the plan, not by the luck.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from game.bots.driver import with_neutrals
from game.bots.planner.evaluate import Value, evaluate
from game.bots.view import view as view_of
from game.engine import turnorder
from game.engine.errors import IllegalAction

#: Decisions after which a rollout stops (a policy that never ends its phase is a bug).
MAX_STEPS = 400


@dataclass
class Sample:
    value: Value
    steps: int
    refused: int


def sample_seed(base: str, i: int) -> int:
    """The dice seed of sample ``i`` of a search keyed ``base`` (the same for every plan)."""
    return zlib.crc32(f"{base}:{i}".encode())


def rollout(game, player: int, side: str, policy, reply, with_reply: bool = True, record: list | None = None) -> Sample:
    """Play ``game`` (a sandbox) to the end of the opponent's reply turn: ``policy`` decides
    for ``player`` until its turn passes, ``reply`` (and the Neutrals' bot) after that.
    The turn is ``(game turn, player)`` as the flow moves it, so the order is the real one
    (O1): where the side's next turn comes at once (``alternate``, and ``roll_off`` or
    ``behind_first`` may do it too), that turn is the side's as well, and the reply comes
    after it. Under ``activation: alternating`` (O2) the side's turn is its activation and
    the reply the opponent's next activation.
    ``with_reply=False`` stops when the side's own turn ends (a screening: about half the
    cost; the value then weighs the threats). ``record`` gets the side's decisions of its
    own turn, in order."""
    start = (game.state.turn, game.state.player)
    bots = with_neutrals({player: policy, 3 - player: reply})
    steps = refused = 0
    mine_done = False
    whole_turns = not turnorder.is_alternating(game.rs)  # then the side may play two turns in a row
    while not game.is_over() and steps < MAX_STEPS:
        now = (game.state.turn, game.state.player)
        if now != start:
            if not mine_done and whole_turns and now[1] == player:
                # the side's next turn comes at once (O1 ``alternate``: the second player of
                # a game turn goes first in the next): it is still the side's, by ``policy``,
                # and the reply comes after it
                start = now
            elif not mine_done:
                if not with_reply:
                    break
                mine_done = True
                start_reply = now
            elif now != start_reply:
                break
        who = game.turn_player()
        bot = bots.get(who)
        if bot is None:
            break
        if mine_done and who == player:
            bot = reply  # our own pending decisions in their turn: the cheap policy
        d = decide(bot, game, who)
        steps += 1
        if record is not None and not mine_done and who == player:
            record.append(d)
        done = apply_or_pass(game, d.action)
        refused += not done
        if done is None:
            break
    return Sample(evaluate(game, side), steps, refused)


def decide(bot, game, who: int):
    """``bot``'s decision for player ``who`` on ``game`` (a sandbox): through its view, or
    from the sandbox itself for a bot that reads it (``choose_game``: the reply)."""
    ask = getattr(bot, "choose_game", None)
    return ask(game, who) if ask is not None else bot.choose(view_of(game, who))


def apply_or_pass(game, action) -> bool | None:
    """Apply a policy's ``action`` on a sandbox: True. A refused one (a policy's bug)
    passes the step, phase or turn instead: False; None when not even that is allowed
    (the play-out stops)."""
    try:
        game.apply(action)
        return True
    except IllegalAction:
        for kind in ("end_step", "end_phase", "end_turn"):
            if game.why_illegal({kind: {}}) is None:
                game.apply({kind: {}})
                return False
        return None
