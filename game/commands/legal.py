"""``speedheim legal SCENARIO [ACTIONS] [--json]``: what each unit of the side to act may do.

After the script (if any), one line per unit of the side to act, then the pending decision.
With ``--json`` (FORMATS.md): ``{"unit", "legal": [kinds], "refused": {kind: "RULE: reason"}}``
per unit, then ``{"pending": ...}``. It asks :meth:`Game.legal_actions`, which runs the
same checks as ``apply`` (:func:`game.engine.legal.legal_report`).
"""

from __future__ import annotations

import json
import sys

from game.engine.dice import Dice
from game.engine.errors import LoadError
from game.engine.game import Game
from game.engine.legal import legal_report
from game.engine.replay import dice_for, load_pair


def legal_cli(scenario_path: str, actions_path: str | None = None, as_json: bool = False) -> int:
    """Print what each unit of the side to act may do after the script; 0, or 2 on a bad file."""
    try:
        scenario, script = load_pair(scenario_path, actions_path)
    except LoadError as exc:
        return exc.report()
    game = Game(scenario, dice=dice_for(script) if script else Dice(seed=0), history=False)
    if script:
        for _ in game.replay(script.actions):
            pass
    out = sys.stdout
    pending = game.pending.to_dict() if game.pending is not None else None
    outcome = game.outcome()
    for legal in legal_report(game):
        if as_json:
            print(json.dumps(legal.to_json()), file=out)
        else:
            print(f"{legal.unit}: {', '.join(legal.kinds) or 'nothing'}", file=out)
            for kind, why in legal.refused.items():
                print(f"    no {kind}: {why.rule}: {why.reason}", file=out)
    if as_json:
        print(json.dumps({"pending": pending}), file=out)
    else:
        st = game.state
        where = f"turn {st.turn}, player {st.player}, {st.phase}" + (f"/{st.step}" if st.step else "")
        whose = game.whose()
        if whose:
            where += f" ({whose})"
        print(
            f"{where}; pending: {pending['kind'] if pending else 'none'}"
            + (f"; game over: {outcome.winner or 'a draw'}" if outcome else ""),
            file=out,
        )
    return 0
