"""Stalls and rule gaps: the games a designer should look at, each with its seed and the
commands that replay it.

* A *stall*: a run of at least ``turns`` game turns in which no token changed hands, no
  unit was lost and no rout check was made (the record's ``quiet``, noted by
  :class:`game.sim.match._Observed`). The longest are listed first, at most :data:`LISTED`.
* A *rule gap*: a situation the engine met that no rule covers: an action refused as an
  internal error (the record's ``gaps``), or a game stopped at the decision cap (``end``
  ``capped``).
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any, Iterable

#: At most this many games of each kind are listed (the count says how many there were);
#: the stalls longest first.
LISTED = 10
#: Where the commands of a listed game play it again: one folder per game.
REPLAY_ROOT = "sim-out/replay"


def replay_commands(r: dict[str, Any], root: str | None = None) -> list[str]:
    """The commands that play the game again and replay its log: the variant's scenario
    (rules and seats baked in; ``scenario_file`` is under the run's folder ``root``) with
    one seed, its bots, its logs kept."""
    scenario = r.get("scenario_file")
    if not scenario:
        return []
    if root is not None and not os.path.isabs(scenario):
        scenario = os.path.join(root, scenario)
    seed = int(r["seed"])
    bots = ",".join(r.get("bots") or ["utility", "utility"])
    stem = os.path.splitext(os.path.basename(scenario))[0]
    out = f"{REPLAY_ROOT}/{stem}-seed-{seed}-{re.sub(r'[^A-Za-z0-9._=+-]+', '_', bots.replace(',', '-vs-'))}"
    play = (
        f"speedheim simulate {shlex.quote(scenario)} --games 1 --seed {seed} --bots {bots} --workers 1 "
        f"--keep-logs --out {out}"
    )
    replay = f"speedheim replay {shlex.quote(scenario)} {out}/logs/v0-default/seed-{seed}.yaml"
    return [play, replay]


def find_gaps(records: Iterable[dict[str, Any]], turns: int, root: str | None = None) -> dict[str, Any]:
    def _game(r: dict[str, Any]) -> dict[str, Any]:
        return {
            "variant": r["variant"],
            "seed": r["seed"],
            "swapped": bool(r.get("swapped")),
            "bots": r.get("bots"),
            "commands": replay_commands(r, root),
        }

    stalls, gaps, n_stalls, n_gaps, known = [], [], 0, 0, False
    for r in records:
        quiet = r.get("quiet")
        if quiet is not None:
            known = True
            if quiet.get("turns", 0) >= turns:
                n_stalls += 1
                stalls.append(
                    {**_game(r), "quiet_turns": quiet["turns"], "from_turn": quiet["from"], "turns": r.get("turns")}
                )
                stalls.sort(key=lambda x: -x["quiet_turns"])  # stable: the first met first among equals
                del stalls[LISTED:]
        problems = list(r.get("gaps") or [])
        if r.get("end") == "capped":
            problems.append({"turn": r.get("turns"), "reason": "the game did not end within the decision cap"})
        if problems:
            n_gaps += 1
            if len(gaps) < LISTED:
                gaps.append({**_game(r), "problems": problems[:3]})
    return {
        "stall_turns": turns,
        "recorded": known,
        "stalls": n_stalls,
        "stall_games": stalls,
        "rule_gaps": n_gaps,
        "gap_games": gaps,
    }
