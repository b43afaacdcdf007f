"""``speedheim advise SCENARIO [ACTIONS] [--bot NAME] [--top K] [--json]``: what would a
good player do here? (FORMATS.md, "Additions: ... `advise`").

After the action script (if any), the bot named (``--bot``, every name ``simulate
--bots`` takes; default ``planner``, the strongest: it solves every puzzle of
tests/puzzles, the utility bot 10 of 16) lists its best next actions for the side to act,
best first, each with its value and a reason. Every action is exactly one action-script
entry that ``replay`` accepts as the script's next line: a bot only returns actions that
``why_illegal`` accepts, and :func:`advise` asks again on the real game.

:func:`advise` is the one entry point, for the command and the window's hint: it builds
the bot by name through the bots' registry (:func:`game.bots.make_bot`), lets it think
on a copy of the game, and asks its ``options(view, k)`` (:class:`game.bots.base.Advisor`);
a bot without it gives its one ``choose``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from game.bots.base import BotDecision
from game.bots.view import view as view_of
from game.engine.dice import Dice
from game.engine.errors import IllegalAction, LoadError, Problem
from game.engine.game import Game

#: Options ``advise`` gives unless told (FORMATS.md: ``--top`` defaults to 3).
DEFAULT_TOP = 3
#: The bot ``advise`` asks unless told: "what would a good player do here?" is the planner's
#: question (it weighs the opponent's reply, the score and the clock; about a second).
DEFAULT_BOT = "planner"


class ArgProblem(Problem):
    """A problem with a command-line value: ``--bot: message`` (no line number)."""

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


def make_advisor(name: str):
    """The bot called ``name`` (the registry ``simulate`` uses); LoadError when unknown."""
    from game.bots import NAMES, make_bot

    try:
        return make_bot(name)
    except LoadError as exc:
        raise LoadError(
            [
                ArgProblem(
                    "--bot",
                    0,
                    f"unknown bot {name!r} (known: {', '.join(NAMES)}, "
                    f"a personality file): {exc.problems[0].message if exc.problems else exc}",
                )
            ]
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise LoadError([ArgProblem("--bot", 0, f"bad bot {name!r}: {exc}")])


def advise(
    game: Game,
    bot_name: str = DEFAULT_BOT,
    top: int = DEFAULT_TOP,
    seed: int | None = None,
    bot: Any = None,
    mover: Any = None,
) -> list[BotDecision]:
    """The bot's ``top`` best next actions for the side to act now, best first (an empty
    list when the game is over). The bot thinks on a copy of ``game`` (its own movement
    engine, so a worker thread may call this; the copy's seed is ``seed`` when given, for
    the bots that draw at random); every action returned is one ``game.why_illegal``
    accepts. ``bot`` is an already built bot (else it is made from ``bot_name``);
    ``mover`` a movement engine for the copy that no other thread uses (else one is built).
    Raises LoadError for an unknown bot."""
    if game.is_over():
        return []
    bot = bot if bot is not None else make_advisor(bot_name)
    from game.engine.movement import Mover

    copy = game.clone(mover=mover if mover is not None else Mover(game.scenario, game.board))
    if seed is not None:
        copy.dice = Dice(seed=seed)
    player = copy.turn_player()
    view = view_of(copy, player)
    k = max(1, int(top))
    ask = getattr(bot, "options", None)
    try:
        found = list(ask(view, k)) if callable(ask) else [bot.choose(view)]
    except TypeError:  # an ``options`` of another shape (not the Advisor's)
        found = [bot.choose(view)]
    out: list[BotDecision] = []
    for d in found:
        if len(out) >= k:
            break
        if any(d.action == o.action for o in out) or game.why_illegal(d.action) is not None:
            continue
        out.append(d)
    return out


def option_json(d: BotDecision) -> dict[str, Any]:
    return {"action": d.action, "value": round(float(d.score), 4), "reason": d.reason}


def script_entry(action: dict[str, Any]) -> str:
    """The action as one line of an action script's ``actions:`` list (YAML flow style,
    as the scripts keep it): ``- {engage: {unit: a, target: b}}``."""
    import yaml

    return "- " + yaml.safe_dump(action, default_flow_style=True, sort_keys=False, width=1 << 30).strip()


def where(game: Game) -> str:
    st = game.state
    w = game.current_warband()
    side = f"player {game.turn_player()}" + (f" ({w.id})" if w is not None and game.turn_player() == st.player else "")
    whose = game.whose() if game.pending is None else ""
    return f"turn {st.turn}, {side}, {st.phase}" + (f"/{st.step}" if st.step else "") + (f" ({whose})" if whose else "")


def advise_cli(
    scenario_path: str,
    actions_path: str | None = None,
    bot: str = DEFAULT_BOT,
    top: int = DEFAULT_TOP,
    as_json: bool = False,
) -> int:
    """The command (see the module's docstring); 2 on bad input, FILE:LINE on stderr."""
    from game.engine.replay import dice_for, load_pair

    problems = []
    if top < 1:
        problems.append(ArgProblem("--top", 0, f"--top must be 1 or more, not {top}"))
    try:
        advisor = make_advisor(bot)
    except LoadError as exc:
        advisor = None
        problems += exc.problems
    try:
        scenario, script = load_pair(scenario_path, actions_path)
    except LoadError as exc:
        problems = list(exc.problems) + problems
    if problems:
        return LoadError(problems).report()
    game = Game(scenario, dice=dice_for(script) if script else Dice(seed=0), history=False)
    if script:
        for i, result in game.replay(script.actions):
            if not result.ok:  # replay logs it and goes on; say so, the advice is for what stands
                print(
                    f"{actions_path}:{script.lines[i]}: refused, skipped: {result.rule}: {result.reason}",
                    file=sys.stderr,
                )
    try:
        options = advise(game, bot, top, bot=advisor)
    except IllegalAction as exc:  # a bot's bug: never a crash
        print(f"{bot}: the bot failed: {exc.rule}: {exc.reason}", file=sys.stderr)
        return 1
    out = sys.stdout
    outcome = game.outcome()
    if as_json:
        print(
            json.dumps(
                {
                    "player": game.turn_player(),
                    "bot": bot,  # the --bot NAME given (FORMATS.md)
                    "options": [option_json(d) for d in options],
                }
            ),
            file=out,
        )
        return 0
    if outcome is not None:
        print(f"game over: {outcome.winner or 'a draw'}; nothing to advise", file=out)
        return 0
    print(f"{where(game)}: {getattr(advisor, 'name', bot)} advises", file=out)
    for n, d in enumerate(options, 1):
        print(f"{n}. {d.reason}  [value {d.score:.2f}]", file=out)
        print(f"   {script_entry(d.action)}", file=out)
    return 0
