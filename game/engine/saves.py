"""Saved games: the scenario (its starting state and its whole ruleset) plus the log.

A save is an action script with the scenario inside it::

    speedheim_save: 1
    scenario: {name: ..., ruleset: {...every parameter...}, table: ..., warbands: ...}
    seed: 7
    dice: [12, 3]          # typed-in rolls (every roll, when the dice were physical)
    over: null             # or {winner: red, reason: ...} (winner null: a draw) once the game is over
    bots: {2: utility}     # (optional) the players a bot played in the window
    notes:                 # the log's remarks that are no action: bot reasons, players' notes
      - {at: 0, kind: bot, text: "bot P1 (utility, 12 ms): ..."}   # at: after this many actions
    actions: [...]         # the accepted actions, in order; every move with its path

Saves replay exactly: the ruleset is embedded (editing a ruleset file later does not
change an old save), and each move, Run and Engage carries the path it took (a change to
the path search does not change an old save). Older saves, with a ruleset name and
``to:`` moves, or without ``over`` and ``notes``, still load. A save whose embedded
ruleset lacks parameters added since it was written takes them from the base ruleset
of its save version (:data:`BASE_OF_VERSION`) and says so in its notes (``check`` prints
it); parameters this program does not know are named the same way. A save of a newer
version than :data:`SAVE_VERSION` is refused with its version named. ``over`` is written for
readers that want to know without replaying (the window's resume offer); loading
replays the log, which decides. Writing is atomic (temporary file, then rename). Loading
replays the log; an action that fails on replay is reported as ``FILE:LINE: action N
(...) failed on replay: ...``.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

import yaml

from game.engine.actions import describe, parse_script
from game.engine.dice import Dice
from game.engine.errors import LoadError, Problem
from game.engine.files import atomic_write
from game.engine.game import Game
from game.engine.scenario import parse_scenario, scenario_to_dict
from game.engine.yamlsrc import describe_value, dump_yaml, load_yaml, read_text

SAVE_VERSION = 1
#: The bundled ruleset whose values an older save of each version takes for the parameters
#: its embedded ruleset lacks (a parameter added after the save was written).
BASE_OF_VERSION = {1: "speedheim"}
#: The kind of the note that says what a save took from the base ruleset.
UPGRADE_NOTE = "upgrade"


def save_dict(game: Game, bots: dict[int, str] | None = None) -> dict[str, Any]:
    """The save of ``game`` as data (see the module's doc); ``bots``: the players a bot
    played in the window, by player number (``bots: {2: utility}``), so a resumed game keeps them."""
    sc = game.scenario
    scen = scenario_to_dict(sc)
    scen["ruleset"] = sc.ruleset.to_dict()  # the rules it was played under, overrides included
    scen.pop("rules", None)
    dice = game.dice
    if dice.prompted or dice.prompt is not None or dice.seed is None:
        # Physical or unseeded dice: every value rolled is kept, so the replay is exact.
        typed = [v for roll in dice.log for v in roll.values]
    else:
        typed = list(dice.typed)
    out: dict[str, Any] = {"speedheim_save": SAVE_VERSION, "scenario": scen, "seed": dice.seed, "dice": typed}
    if bots:
        out["bots"] = {int(p): str(name) for p, name in sorted(bots.items())}
    outcome = game.outcome()
    out["over"] = None if outcome is None else {"winner": outcome.winner, "reason": outcome.reason}
    # A note's place counts the accepted actions before it (the saved ones).
    accepted, before = [], 0
    for e in game.log:
        accepted.append(before)
        before += 1 if e.ok else 0
    accepted.append(before)
    out["notes"] = [
        {"at": accepted[min(max(at, 0), len(game.log))], "kind": kind, "text": text} for at, text, kind in game.notes
    ]
    # JSON round trip: tuples from the window become lists, so safe YAML can write them.
    out["actions"] = [json.loads(json.dumps(e.replayable)) for e in game.log if e.ok]
    return out


def _flow_line(item: Any) -> str:
    return yaml.safe_dump(item, default_flow_style=True, width=10_000, sort_keys=False).strip()


def save_game(path: str, game: Game, bots: dict[int, str] | None = None) -> None:
    """Write the game atomically: a crash mid-save leaves the old file or the new one."""
    data = save_dict(game, bots)
    actions = data.pop("actions")
    notes = data.pop("notes")
    over = data.pop("over")
    lines = [dump_yaml(data).rstrip("\n"), "over: " + ("null" if over is None else _flow_line(over))]
    # One note and one action a line, as in a hand-written script.
    lines += ["notes:" if notes else "notes: []"] + ["  - " + _flow_line(n) for n in notes]
    lines += ["actions:" if actions else "actions: []"] + ["  - " + _flow_line(a) for a in actions]
    atomic_write(path, "\n".join(lines) + "\n")


def peek_save(path: str) -> dict[str, Any]:
    """What a save says without replaying it (never raises): ``name`` (the scenario's),
    ``actions`` (how many), ``bots`` (player: bot name, as the window played it), and
    ``said``/``outcome`` as :func:`saved_outcome` gives them."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:  # noqa: BLE001 - an unreadable file says nothing
        data = None
    said, outcome = _outcome_of(data)
    scen = data.get("scenario") if isinstance(data, dict) else None
    name = scen.get("name") if isinstance(scen, dict) and isinstance(scen.get("name"), str) else None
    acts = data.get("actions") if isinstance(data, dict) else None
    bots = data.get("bots") if isinstance(data, dict) else None
    bots = {p: n for p, n in bots.items() if p in (1, 2) and isinstance(n, str)} if isinstance(bots, dict) else {}
    return {
        "said": said,
        "outcome": outcome,
        "name": name,
        "actions": len(acts) if isinstance(acts, list) else None,
        "bots": bots,
    }


def saved_outcome(path: str) -> tuple[bool, Any]:
    """What a save says of its end without replaying it: ``(True, Outcome)`` for a game
    over, ``(True, None)`` for one in progress, ``(False, None)`` when the file does not
    say (an older save; unreadable): replay it to know. Never raises."""
    info = peek_save(path)
    return info["said"], info["outcome"]


def _outcome_of(data: Any) -> tuple[bool, Any]:
    from game.engine.game import Outcome

    if not isinstance(data, dict) or "over" not in data:
        return False, None
    over = data["over"]
    if over is None:
        return True, None
    if (
        isinstance(over, dict)
        and isinstance(over.get("reason"), str)
        and (over.get("winner") is None or isinstance(over.get("winner"), str))
    ):
        return True, Outcome(over.get("winner"), over["reason"])
    return False, None


def _notes(src, n_actions: int) -> list[tuple[int, str, str]]:
    """The save's ``notes`` (see the module's doc), checked: FILE:LINE for a bad one."""
    data = src.data
    raw = data.get("notes")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise LoadError(
            [src.problem(("notes",), f"notes must be a list of {{at, kind, text}}, not {describe_value(raw)}")]
        )
    out, problems = [], []
    for i, item in enumerate(raw):
        where = ("notes", i)
        if not isinstance(item, dict):
            problems.append(
                src.problem(
                    where,
                    f"note {i + 1}: must be a mapping like {{at: 0, kind: bot, text: ...}}, not {describe_value(item)}",
                )
            )
            continue
        unknown = [k for k in item if k not in ("at", "kind", "text")]
        at, kind, text = item.get("at"), item.get("kind", "info"), item.get("text")
        if unknown:
            problems.append(src.problem(where, f"note {i + 1}: unknown key {unknown[0]!r} (known: at, kind, text)"))
        elif isinstance(at, bool) or not isinstance(at, int) or at < 0:
            problems.append(
                src.problem(
                    where,
                    f"note {i + 1}: at must be a whole number of at least 0 (the actions before it), "
                    f"not {describe_value(at)}",
                )
            )
        elif not isinstance(text, str):
            problems.append(src.problem(where, f"note {i + 1}: text must be a string, not {describe_value(text)}"))
        elif not isinstance(kind, str):
            problems.append(
                src.problem(where, f"note {i + 1}: kind must be a word such as bot or info, not {describe_value(kind)}")
            )
        else:
            out.append((min(at, n_actions), text, kind))
    if problems:
        raise LoadError(problems)
    return out


def save_version(src) -> int:
    """The save's version (``speedheim_save``; 1 when absent, as in a hand-written script
    with a scenario); a version newer than :data:`SAVE_VERSION` is a LoadError naming it."""
    version = src.data.get("speedheim_save", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise LoadError(
            [
                src.problem(
                    ("speedheim_save",),
                    f"speedheim_save must be a save version (a whole number, 1 or more), not {describe_value(version)}",
                )
            ]
        )
    if version > SAVE_VERSION:
        raise LoadError(
            [
                src.problem(
                    ("speedheim_save",),
                    f"saved by a newer Speedheim Table (save version {version}); "
                    f"this one reads save versions up to {SAVE_VERSION}: open it with a newer version",
                )
            ]
        )
    return version


def complete_ruleset(src, version: int) -> list[str]:
    """Fill in the parameters an older save's embedded ruleset lacks from the base ruleset of
    its version (in ``src.data``, before it is parsed); returns what the save's notes should
    say of it: the parameters filled in, with their values, and any this program does not know."""
    from game.engine.ruleset import PARAMETER_PREFIX_RULES, load_ruleset

    scen = src.data.get("scenario")
    rules = scen.get("ruleset") if isinstance(scen, dict) else None
    if not isinstance(rules, dict) or "extends" in rules or not isinstance(rules.get("name"), str):
        return []
    base = load_ruleset(BASE_OF_VERSION.get(version, BASE_OF_VERSION[SAVE_VERSION])).to_dict()
    missing = [k for k in base if k not in rules and k not in ("name", "description")]
    unknown = [k for k in rules if k not in base and not k.startswith(tuple(p for p, _ in PARAMETER_PREFIX_RULES))]
    said = []
    if missing:
        for key in missing:
            rules[key] = copy.deepcopy(base[key])
        values = ", ".join(f"{k}: {_flow_line(base[k])}" for k in missing)
        said.append(
            f"an older save: its ruleset predates {len(missing)} parameter{'s' if len(missing) > 1 else ''}, "
            f"taken from the base ruleset ({BASE_OF_VERSION.get(version, BASE_OF_VERSION[SAVE_VERSION])}): {values}"
        )
    if unknown:
        said.append(
            f"the save's ruleset has parameter{'s' if len(unknown) > 1 else ''} this program does not know "
            f"(a newer save?), not used: {', '.join(unknown)}"
        )
    return said


def load_game(path: str, *, text: str | None = None, prompt: Callable[[int, str], int] | None = None) -> Game:
    """Rebuild a saved game by replaying its log; raises LoadError (FILE:LINE) on any problem.
    What the loading had to fill in (an older save) is in the game's notes, kind
    :data:`UPGRADE_NOTE`, before the first action."""
    try:
        src = load_yaml(read_text(path) if text is None else text, path)
        data = src.data
        if not isinstance(data, dict) or not isinstance(data.get("scenario"), dict):
            raise LoadError([Problem(path, 1, "not a saved game: it needs a 'scenario' mapping and an 'actions' list")])
        upgraded = complete_ruleset(src, save_version(src))
        scenario, script, notes = LoadError.gather(
            lambda: parse_scenario(src.sub("scenario")),
            lambda: parse_script(src),
            lambda: _notes(src, len(acts) if isinstance(acts := data.get("actions"), list) else 0),
        )
        game = Game(scenario, dice=Dice(seed=script.seed, typed=list(script.dice), prompt=prompt))
        for i, result in game.replay(script.actions):
            if not result.ok:
                raise LoadError(
                    [
                        Problem(
                            path,
                            script.lines[i],
                            f"action {i + 1} ({describe(script.actions[i])}) failed on replay: "
                            f"{result.rule}: {result.reason}",
                        )
                    ]
                )
        game.notes = [(0, text, UPGRADE_NOTE) for text in upgraded] + notes
        return game
    except LoadError:
        raise
    except RecursionError:
        raise LoadError([Problem(path, 1, "the file nests too deeply")]) from None
    except Exception as exc:  # never a traceback for the user
        raise LoadError(
            [Problem(path, 1, f"internal error while loading the save ({type(exc).__name__}: {exc}); please report it")]
        ) from exc
