"""Saved games: the scenario (its starting state and its whole ruleset) plus the log.

A save is an action script with the scenario inside it::

    speedheim_save: 1
    scenario: {name: ..., ruleset: {...every parameter...}, table: ..., warbands: ...}
    seed: 7
    dice: [12, 3]          # typed-in rolls (every roll, when the dice were physical)
    actions: [...]         # the accepted actions, in order; every move with its path

Saves replay exactly: the ruleset is embedded (editing a ruleset file later does not
change an old save), and each move, Run and Engage carries the path it took (a change to
the path search does not change an old save). Older saves, with a ruleset name and
``to:`` moves, still load. Writing is atomic (temporary file, then rename). Loading
replays the log; an action that fails on replay is reported as ``FILE:LINE: action N
(...) failed on replay: ...``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import yaml

from game.engine.actions import describe, parse_script
from game.engine.dice import Dice
from game.engine.errors import LoadError, Problem
from game.engine.files import atomic_write
from game.engine.game import Game
from game.engine.scenario import parse_scenario, scenario_to_dict
from game.engine.yamlsrc import dump_yaml, load_yaml, read_text

SAVE_VERSION = 1


def save_dict(game: Game) -> dict[str, Any]:
    sc = game.scenario
    scen = scenario_to_dict(sc)
    scen["ruleset"] = sc.ruleset.to_dict()   # the rules it was played under, overrides included
    scen.pop("rules", None)
    dice = game.dice
    if dice.prompted or dice.prompt is not None or dice.seed is None:
        # Physical or unseeded dice: every value rolled is kept, so the replay is exact.
        typed = [v for roll in dice.log for v in roll.values]
    else:
        typed = list(dice.typed)
    out: dict[str, Any] = {"speedheim_save": SAVE_VERSION, "scenario": scen, "seed": dice.seed, "dice": typed}
    # JSON round trip: tuples from the window become lists, so safe YAML can write them.
    out["actions"] = [json.loads(json.dumps(e.replayable)) for e in game.log if e.ok]
    return out


def save_game(path: str, game: Game) -> None:
    """Write the game atomically: a crash mid-save leaves the old file or the new one."""
    data = save_dict(game)
    actions = data.pop("actions")
    lines = [dump_yaml(data).rstrip("\n"), "actions:" if actions else "actions: []"]
    # One action a line, as in a hand-written script.
    lines += ["  - " + yaml.safe_dump(a, default_flow_style=True, width=10_000, sort_keys=False).strip() for a in actions]
    atomic_write(path, "\n".join(lines) + "\n")


def load_game(path: str, *, text: str | None = None, prompt: Callable[[int, str], int] | None = None) -> Game:
    """Rebuild a saved game by replaying its log; raises LoadError (FILE:LINE) on any problem."""
    try:
        src = load_yaml(read_text(path) if text is None else text, path)
        data = src.data
        if not isinstance(data, dict) or not isinstance(data.get("scenario"), dict):
            raise LoadError([Problem(path, 1, "not a saved game: it needs a 'scenario' mapping and an 'actions' list")])
        scenario, script = LoadError.gather(lambda: parse_scenario(src.sub("scenario")), lambda: parse_script(src))
        game = Game(scenario, dice=Dice(seed=script.seed, typed=list(script.dice), prompt=prompt))
        for i, result in game.replay(script.actions):
            if not result.ok:
                raise LoadError([Problem(path, script.lines[i], f"action {i + 1} ({describe(script.actions[i])}) failed on replay: {result.rule}: {result.reason}")])
        return game
    except LoadError:
        raise
    except RecursionError:
        raise LoadError([Problem(path, 1, "the file nests too deeply")]) from None
    except Exception as exc:  # never a traceback for the user
        raise LoadError([Problem(path, 1, f"internal error while loading the save ({type(exc).__name__}: {exc}); please report it")]) from exc
