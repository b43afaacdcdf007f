"""Playing games with bots: the loop, the rules of bot games, and thinking on a copy.

* :func:`play_game` plays a whole game between bots and returns a :class:`BotGame`: the
  finished :class:`~game.engine.game.Game` (its log replays it exactly) and the counts
  (decisions, refused bot actions: a refusal is a bug and should be 0, time per decision).
* :func:`play_turn` plays until the turn passes (the window may use it for a demo).
* :func:`bot_scenario` gives a scenario the rules bot games need: placeholder combat
  (``combat: placeholder``) and a turn limit (T1: ``turn_limit``, won on treasure), and
  the Neutrals played by a bot (``neutral_act: bot``), unless the ruleset says otherwise
  or the caller overrides them.
* For the window: the engine is not thread-safe. Take a copy on the window's thread
  (:func:`snapshot`, a cheap ``Game.clone``), let the bot think on the copy in a worker
  (:func:`think`), and apply the returned action to the real game on the window's
  thread. :func:`decision_path` gives the path a move or engage took, for animation.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from game.bots.base import Bot, BotDecision, end_decision
from game.bots.view import view as view_of
from game.engine.dice import Dice
from game.engine.errors import IllegalAction, LoadError
from game.engine.events import Engaged, Moved
from game.engine.game import ActionResult, Game
from game.engine.model import Scenario
from game.engine.ruleset import check_overrides
from game.engine.yamlsrc import dump_yaml, load_yaml

#: T1 for bot games when the ruleset sets none.
DEFAULT_TURN_LIMIT = 10
#: Decisions after which a game is stopped (a bot that never ends its phase is a bug).
DEFAULT_MAX_DECISIONS = 20_000


def bot_rules(
    scenario: Scenario,
    turn_limit: int | None = None,
    rules: Mapping[str, Any] | None = None,
    default_limit: int = DEFAULT_TURN_LIMIT,
) -> dict[str, Any]:
    """The ruleset overrides a bot game plays with (see the module's docstring): placeholder
    combat where the ruleset leaves combat to the players, the Neutrals played by a bot,
    and a turn limit (``default_limit`` where the ruleset sets none, then won on treasure).
    The window's bot games and ``speedheim simulate`` both play under these."""
    rs = scenario.ruleset
    out: dict[str, Any] = {}
    if rs.combat == "manual":
        out["combat"] = "placeholder"
    if rs.neutral_act == "advance":
        out["neutral_act"] = "bot"
    if turn_limit is not None:
        out["turn_limit"] = int(turn_limit)
    elif rs.turn_limit is None:
        out["turn_limit"] = default_limit
    if rs.turn_limit is None and "turn_limit_winner" not in scenario.rules_overrides:
        if rs.turn_limit_winner == "draw":
            out["turn_limit_winner"] = "treasure"
    out.update(rules or {})
    return out


def bot_scenario(scenario: Scenario, turn_limit: int | None = None, rules: Mapping[str, Any] | None = None) -> Scenario:
    """``scenario`` under the rules of a bot game; bad overrides raise LoadError."""
    overrides = bot_rules(scenario, turn_limit, rules)
    if not overrides:
        return scenario
    src = load_yaml(dump_yaml(overrides), "bot rules")
    good, problems = check_overrides(scenario.ruleset, src.data, src, ())
    if problems:
        raise LoadError(problems)
    return dataclasses.replace(
        scenario, ruleset=scenario.ruleset.with_overrides(good), rules_overrides={**scenario.rules_overrides, **good}
    )


@dataclass
class Step:
    """One bot decision as it was played: who, the decision, and the game's answer."""

    player: int
    bot: str
    decision: BotDecision
    result: ActionResult | None
    seconds: float
    refused: str | None = None  # "RULE: reason" when the game refused it (a bug)


@dataclass
class BotGame:
    """A finished (or stopped) bot game: the game with its log, and the counts."""

    game: Game
    steps: list[Step] = field(default_factory=list)
    capped: bool = False

    @property
    def refused(self) -> int:
        return sum(1 for s in self.steps if s.refused)

    @property
    def decisions(self) -> int:
        return len(self.steps)

    @property
    def winner(self) -> str | None:
        return self.game.winner

    @property
    def outcome(self):
        return self.game.outcome()

    @property
    def seconds(self) -> list[float]:
        return [s.seconds for s in self.steps]

    def counts(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "decisions": self.decisions,
            "refused": self.refused,
            "actions": len(self.game.log),
            "turn": self.game.state.turn,
            "winner": o.winner if o else None,
            "end": o.reason if o else "stopped",
            "capped": self.capped,
        }


def with_neutrals(bots: Mapping[int, Bot]) -> dict[int, Bot]:
    """``bots`` with a bot for the Neutrals (player 0, ``neutral_act: bot``) if it has none:
    the utility bot with the aggressive personality."""
    out = dict(bots)
    if 0 not in out:
        from game.bots.utility import UtilityBot

        out[0] = UtilityBot("aggressive")
    return out


def step(game: Game, bots: Mapping[int, Bot], on_step: Callable[[Step], None] | None = None) -> Step:
    """One decision of whoever must decide now (``bots`` must have a bot for that player:
    see :func:`with_neutrals`), applied. A refused action (a bot's bug) is counted and
    the step or phase is ended instead, so the game goes on."""
    player = game.turn_player()
    bot = bots[player]
    t0 = time.perf_counter()
    decision = bot.choose(view_of(game, player))
    seconds = time.perf_counter() - t0
    try:
        rec = Step(player, bot.name, decision, game.apply(decision.action), seconds)
    except IllegalAction as why:  # apply runs the very checks of why_illegal, first
        rec = Step(player, bot.name, decision, None, seconds, f"{why.rule}: {why.reason}")
        fallback = end_decision(view_of(game, player), "the bot's action was refused")
        if game.why_illegal(fallback.action) is None:
            rec.result = game.apply(fallback.action)
    if on_step is not None:
        on_step(rec)
    return rec


def play_turn(
    game: Game,
    bots: Mapping[int, Bot],
    *,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    on_step: Callable[[Step], None] | None = None,
) -> list[Step]:
    """Play until the turn passes to the next player (or the game ends)."""
    start = (game.state.turn, game.state.player)
    bots = with_neutrals(bots)
    steps: list[Step] = []
    while not game.is_over() and (game.state.turn, game.state.player) == start and len(steps) < max_decisions:
        steps.append(step(game, bots, on_step))
    return steps


def play_game(
    scenario: Scenario,
    bots: Mapping[int, Bot],
    seed: int = 0,
    *,
    turn_limit: int | None = None,
    rules: Mapping[str, Any] | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    on_step: Callable[[Step], None] | None = None,
    game: Game | None = None,
    mover: Any = None,
) -> BotGame:
    """Play a whole game: ``bots`` maps a player (1, 2; 0 for the Neutrals, optional) to
    its bot. The scenario plays under :func:`bot_scenario` (``turn_limit`` and ``rules``
    override). ``game`` continues a game already under way instead; ``mover`` shares a
    movement engine already built for this map (the nav grids take a moment)."""
    if game is None:
        sc = bot_scenario(scenario, turn_limit, rules)
        game = Game(sc, dice=Dice(seed=seed), history=True, mover=mover)
    out = BotGame(game)
    bots = with_neutrals(bots)
    while not game.is_over():
        if len(out.steps) >= max_decisions:
            out.capped = True
            break
        out.steps.append(step(game, bots, on_step))
    return out


# --- the window: thinking on a copy -------------------------------------------------------------


def snapshot(game: Game, mover: Any = None) -> Game:
    """A copy of ``game`` for a bot to think on in another thread (take it on the thread
    that owns ``game``). Give the worker its own ``mover`` (``Mover(game.scenario,
    game.board)``, built once) so that the two threads never share the nav caches."""
    return game.clone(mover=mover)


def think(bot: Bot, copy: Game, player: int | None = None) -> BotDecision:
    """The bot's next decision on a copy of the game (safe in a worker thread: it touches
    only ``copy``). Apply ``decision.action`` to the real game on its own thread, after
    checking it with ``why_illegal`` (the real game may have changed meanwhile)."""
    return bot.choose(view_of(copy, player))


def decision_path(result: ActionResult) -> list[tuple[float, float]] | None:
    """The path an applied move, Run or Engage took (for animation), or None."""
    for e in result.events:
        if isinstance(e, Moved):
            return [tuple(p) for p in e.path]
    for e in result.events:
        if isinstance(e, Engaged):
            to = result.extra.get("to")
            if to is not None:
                return [tuple(e.start), tuple(to)]
    path = result.extra.get("path")
    return [tuple(p) for p in path] if path else None
