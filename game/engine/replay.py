"""``speedheim replay SCENARIO ACTIONS [--json]``: apply an action script, print the log.

With ``--json``: one JSON object per action (FORMATS.md), then one ``final`` line.
Illegal actions are reported in their line (``ok: false`` with the rule) and the replay
goes on; bad files are ``FILE:LINE: ...`` lines on stderr and exit 2.
"""

from __future__ import annotations

import json
import sys

from game.engine.actions import Script, load_script
from game.engine.controller import Game
from game.engine.dice import Dice
from game.engine.errors import LoadError
from game.engine.model import Scenario
from game.engine.scenario import load_scenario

#: The seed used when a script gives neither ``seed`` nor enough ``dice``.
DEFAULT_SEED = 0


def dice_for(script: Script) -> Dice:
    return Dice(seed=script.seed if script.seed is not None else DEFAULT_SEED, typed=list(script.dice))


def replay(scenario: Scenario, script: Script, *, history: bool = False) -> Game:
    """Apply every action of ``script``; illegal ones are logged and skipped."""
    game = Game(scenario, dice=dice_for(script), history=history)
    for action in script.actions:
        game.try_apply(action)
    return game


def replay_cli(scenario_path: str, actions_path: str, as_json: bool = False) -> int:
    problems = []
    scenario = script = None
    try:
        scenario = load_scenario(scenario_path)
    except LoadError as exc:
        problems += exc.problems
    try:
        script = load_script(actions_path)
    except LoadError as exc:
        problems += exc.problems
    if problems:
        return LoadError(problems).report()
    game = Game(scenario, dice=dice_for(script), history=False)
    out = sys.stdout
    if not as_json:
        if game.start.automatic or game.start.events or game.start.rolls:
            print(game.start.text(), file=out)
    for i, action in enumerate(script.actions):
        result = game.try_apply(action)
        if as_json:
            print(json.dumps(result.to_json_line(i)), file=out)
        else:
            text = result.text(i)
            if not result.ok:
                text += f"   ({actions_path}:{script.lines[i]})"
            print(text, file=out)
    if as_json:
        print(json.dumps(game.final_json()), file=out)
    else:
        st = game.state
        winner = game.outcome()
        print(f"final: turn {st.turn}, player {st.player}, {st.phase}" + (f"/{st.step}" if st.step else "")
              + f"; winner: {winner or 'none yet'}; lost: " + ", ".join(f"{k} {v}" for k, v in st.lost.items()), file=out)
        bad = sum(1 for e in game.log if not e.ok)
        if bad:
            print(f"{bad} illegal action(s) were skipped", file=out)
    return 0
