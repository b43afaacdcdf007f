"""``speedheim replay SCENARIO ACTIONS [--json] [--save GAME.yaml]``: apply an action script.

The game goes through :meth:`Game.replay`, the one loop that applies actions. With
``--json`` the command prints one JSON object per action (FORMATS.md), then one ``final``
line. Illegal actions are reported in their line (``ok: false`` with the rule) and the
replay goes on; bad files are ``FILE:LINE: ...`` lines on stderr and exit 2. ``--save
GAME.yaml`` also writes the game as a save, every move with its resolved path.
"""

from __future__ import annotations

import json
import sys

from game.engine.errors import LoadError
from game.engine.game import Game
from game.engine.replay import dice_for, load_pair
from game.engine.saves import save_game


def replay_cli(scenario_path: str, actions_path: str, as_json: bool = False, save: str | None = None) -> int:
    """Print the replay of ``actions_path`` on ``scenario_path``; 0, or 2 on a bad file or an unwritable save."""
    try:
        scenario, script = load_pair(scenario_path, actions_path)
    except LoadError as exc:
        return exc.report()
    game = Game(scenario, dice=dice_for(script), history=False)
    out = sys.stdout
    if not as_json:
        if game.start.automatic or game.start.texts or game.start.rolls:
            print(game.start.text(), file=out)
    for i, result in game.replay(script.actions):
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
        outcome = game.outcome()
        result = (outcome.winner or f"a draw ({outcome.reason})") if outcome else "none yet"
        print(
            f"final: turn {st.turn}, player {st.player}, {st.phase}"
            + (f"/{st.step}" if st.step else "")
            + f"; winner: {result}; lost: "
            + ", ".join(f"{k} {v}" for k, v in st.lost.items()),
            file=out,
        )
        bad = sum(1 for e in game.log if not e.ok)
        if bad:
            print(f"{bad} illegal action(s) were skipped", file=out)
    if save:
        try:
            save_game(save, game)
        except OSError as exc:
            print(f"{save}: cannot write the save ({exc.strerror or exc})", file=sys.stderr)
            return 2
    return 0
