"""Actions: the one-key mappings of the action script (FORMATS.md) and their checks.

An action is ``{name: {field: value, ...}}`` (``end_phase: {}``; a bare ``end_phase``
is accepted too). :func:`parse_action` checks one action dict and returns an
:class:`Action`; :func:`load_script` reads a whole script file (``seed``, ``dice``,
``actions``) and reports every problem as ``FILE:LINE: what is wrong``.

Every action is documented with an example in ``docs/actions.md``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from game.engine.errors import IllegalAction, LoadError, Problem
from game.engine.model import STATUSES
from game.engine.rule_ids import RuleId
from game.engine.yamlsrc import Source, describe_value, is_finite_number, load_yaml, read_text


@dataclass(frozen=True)
class Field:
    kind: str  # unit | token | point | path | player | status | descend | text | bool | int | sides | count
    required: bool = False


_UNIT = Field("unit", True)
_MOVE = {"unit": _UNIT, "to": Field("point"), "path": Field("path"), "descend": Field("descend")}

#: name -> {field: Field}. Extend, never break (FORMATS.md).
SPECS: dict[str, dict[str, Field]] = {
    # Move phase (delegated to the movement engine)
    "move": _MOVE,
    "run": _MOVE,
    "reload": {"unit": _UNIT},
    # Upkeep decisions
    "pick_up": {"unit": _UNIT, "token": Field("token", True)},
    "rout": {"player": Field("player", True)},
    "play_on": {"player": Field("player", True)},
    "grab": {"unit": _UNIT, "token": Field("token", True)},
    # Manual phases
    "engage": {"unit": _UNIT, "target": Field("unit", True), "path": Field("path"), "descend": Field("descend")},
    "disengage": {"unit": _UNIT, "target": Field("unit")},
    "set_status": {"unit": _UNIT, "status": Field("status", True)},
    "incapacitate": {"unit": _UNIT, "by": Field("unit")},
    "roll": {"sides": Field("sides", True), "count": Field("count"), "reason": Field("text"), "unit": Field("unit")},
    "check": {
        "unit": _UNIT,
        "stat": Field("text", True),
        "advantage": Field("bool"),
        "disadvantage": Field("bool"),
        "modifier": Field("int"),
        "reason": Field("text"),
        "rule": Field("text"),
    },
    "cast": {"unit": _UNIT, "spell": Field("text", True), "ongoing": Field("bool")},
    # Placeholder combat (RULES.md S1, F1; combat: placeholder)
    "shoot": {"unit": _UNIT, "target": Field("unit", True)},
    "attack": {"unit": _UNIT, "target": Field("unit", True)},
    "end_spell": {"unit": _UNIT, "spell": Field("text", True)},
    # Flow
    "end_step": {},
    "end_phase": {},
    "end_turn": {},
    "end_activation": {},  # O2 alternating: the unit being activated is done
}
MOVE_KINDS = ("move", "run", "reload")
DESCENDS = ("climb", "jump")
MAX_DICE = 100


@dataclass(frozen=True)
class Action:
    kind: str
    args: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {self.kind: dict(self.args)}


def _point(value: Any) -> list[float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(is_finite_number(v) for v in value):
        return [float(value[0]), float(value[1])]
    return None


def _check_word(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """An id (unit, token: one word) or free text, as a string."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        return None, f"{what} must be {'an id' if kind != 'text' else 'text'}, not {describe_value(value)}"
    text = str(value)
    if kind != "text" and (not text.strip() or any(c.isspace() for c in text)):
        return None, f"{what} {text!r} must be one word with no spaces"
    return text, None


def _check_point(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """A point [x, y] as two floats."""
    p = _point(value)
    return (p, None) if p else (None, f"{what} must be a point [x, y], not {describe_value(value)}")


def _check_path(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """A list of at least two points."""
    if not isinstance(value, (list, tuple)) or len(value) < 2:
        return None, f"{what} must be a list of at least 2 points [[x, y], ...], not {describe_value(value)}"
    pts = [_point(v) for v in value]
    for i, p in enumerate(pts):
        if p is None:
            return None, f"{what} point {i + 1} must be [x, y], not {describe_value(value[i])}"
    return pts, None


def _check_whole(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """A whole number (a float like 3.0 becomes 3) within the bounds of its kind."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)
        else:
            return None, f"{what} must be a whole number, not {describe_value(value)}"
    low = {"player": 0, "sides": 1, "count": 1}.get(kind)
    if low is not None and value < low:
        return None, f"{what} must be at least {low}, not {value}"
    if kind == "count" and value > MAX_DICE:
        return None, f"{what} must be at most {MAX_DICE}, not {value}"
    if kind == "sides" and value > 1000:
        return None, f"{what} must be at most 1000, not {value}"
    return value, None


def _check_bool(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """True or false."""
    if isinstance(value, bool):
        return value, None
    return None, f"{what} must be true or false, not {describe_value(value)}"


def _check_status(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """One of STATUSES (a near miss is suggested)."""
    if value in STATUSES:
        return value, None
    close = difflib.get_close_matches(str(value), STATUSES, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else f" (one of {', '.join(STATUSES)})"
    return None, f"{what}: unknown status {value!r}{hint}"


def _check_descend(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """One of DESCENDS."""
    if value in DESCENDS:
        return value, None
    return None, f"{what} must be one of {', '.join(DESCENDS)}, not {describe_value(value)}"


#: field kind -> its checker (kind, value, what) -> (value, None) or (None, problem)
_FIELD_CHECKS: dict[str, Callable[[str, Any, str], tuple[Any, str | None]]] = {
    "unit": _check_word,
    "token": _check_word,
    "text": _check_word,
    "point": _check_point,
    "path": _check_path,
    "player": _check_whole,
    "int": _check_whole,
    "sides": _check_whole,
    "count": _check_whole,
    "bool": _check_bool,
    "status": _check_status,
    "descend": _check_descend,
}


def _check_field(kind: str, value: Any, what: str) -> tuple[Any, str | None]:
    """Normalise one field value; (value, None) or (None, problem)."""
    check = _FIELD_CHECKS.get(kind)
    if check is None:
        raise AssertionError(kind)
    return check(kind, value, what)


def check_action(raw: Any) -> tuple[Action | None, list[tuple[tuple, str]]]:
    """Check one action; returns (action or None, [(path inside the action, problem)])."""
    problems: list[tuple[tuple, str]] = []
    if isinstance(raw, str):
        raw = {raw: {}}
    if not isinstance(raw, dict) or len(raw) != 1:
        what = f"a mapping with {len(raw)} keys" if isinstance(raw, dict) else describe_value(raw)
        return None, [((), f"an action must be one mapping like {{end_phase: {{}}}}, not {what}")]
    ((name, body),) = raw.items()
    if name not in SPECS:
        close = difflib.get_close_matches(str(name), SPECS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(SPECS)})"
        return None, [((), f"unknown action {name!r}{hint}")]
    spec = SPECS[name]
    if body is None:
        body = {}
    if not isinstance(body, dict):
        return None, [
            (
                (name,),
                f"{name} needs a mapping of fields like {{{', '.join(f'{k}: ...' for k in spec)}}}, "
                f"not {describe_value(body)}",
            )
        ]
    args: dict[str, Any] = {}
    for key, value in body.items():
        if key not in spec:
            close = difflib.get_close_matches(str(key), spec, n=1)
            hint = (
                f" (did you mean {close[0]!r}?)"
                if close
                else (f" (fields: {', '.join(spec)})" if spec else " (it takes no fields)")
            )
            problems.append(((name, key), f"{name}: unknown field {key!r}{hint}"))
            continue
        if value is None and not spec[key].required:
            continue
        v, problem = _check_field(spec[key].kind, value, f"{name} {key}")
        if problem:
            problems.append(((name, key), problem))
        else:
            args[key] = v
    for key, f in spec.items():
        if f.required and key not in body:
            problems.append(((name,), f"{name} is missing {key!r}"))
    if name in ("move", "run"):
        has_to, has_path = "to" in body and body["to"] is not None, "path" in body and body["path"] is not None
        if has_to == has_path:
            problems.append(((name,), f"{name} needs exactly one of 'to' or 'path'"))
    if problems:
        return None, problems
    return Action(name, args), []


def normalize(raw: Any) -> Any:
    """The action as written, with ``end_phase`` / ``end_phase: null`` spelled ``{end_phase: {}}``."""
    if isinstance(raw, str):
        return {raw: {}}
    if isinstance(raw, dict) and len(raw) == 1:
        ((name, body),) = raw.items()
        return {name: {} if body is None else body}
    return raw


def parse_action(raw: Any) -> Action:
    """One action dict -> :class:`Action`; a malformed one raises IllegalAction(RuleId.ACTION, ...)."""
    action, problems = check_action(raw)
    if action is None:
        raise IllegalAction(RuleId.ACTION, "; ".join(p for _, p in problems))
    return action


# --- scripts -----------------------------------------------------------------------------

SCRIPT_KEYS = ("seed", "dice", "actions", "scenario", "speedheim_save", "name", "note", "notes", "over", "bots")


@dataclass
class Script:
    """A parsed action script: the dice and the actions, with each action's line."""

    file: str
    seed: int | None = None
    dice: list[int] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)


def _script_unknown_keys(data: dict, bad: Callable[[tuple, str], None]) -> None:
    """Report each key of a script that is not one of SCRIPT_KEYS."""
    for key in data:
        if key not in SCRIPT_KEYS:
            close = difflib.get_close_matches(str(key), SCRIPT_KEYS, n=1)
            bad(
                (key,),
                f"unknown key {key!r} in an action script"
                + (f" (did you mean {close[0]!r}?)" if close else " (known: seed, dice, actions)"),
            )


def _script_seed(data: dict, bad: Callable[[tuple, str], None]) -> int | None:
    """The script's seed, None if it has none or a bad one (reported)."""
    seed = data.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        bad(("seed",), f"seed must be a whole number, not {describe_value(seed)}")
        return None
    return seed


def _script_dice(data: dict, bad: Callable[[tuple, str], None]) -> list[int]:
    """The script's typed-in rolls that are whole numbers of at least 1 (the others reported)."""
    dice = data.get("dice")
    out: list[int] = []
    if dice is None:
        return out
    if not isinstance(dice, list):
        bad(("dice",), f"dice must be a list of typed-in rolls like [12, 3, 20], not {describe_value(dice)}")
        return out
    for i, v in enumerate(dice):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            bad(("dice", i), f"dice roll {i + 1} must be a whole number of at least 1, not {describe_value(v)}")
        else:
            out.append(v)
    return out


def _script_actions(data: dict, bad: Callable[[tuple, str], None]) -> list:
    """The script's raw actions list ([] if missing or not a list: reported)."""
    actions = data.get("actions")
    if "actions" not in data:
        bad((), "an action script needs an 'actions' list")
        return []
    if not isinstance(actions, list):
        if actions is not None:
            bad(("actions",), f"actions must be a list, not {describe_value(actions)}")
        return []
    return actions


def parse_script(src: Source, prefix: tuple = ()) -> Script:
    """Check a loaded script (at ``prefix`` inside ``src``); raise LoadError with every problem."""
    problems: list[Problem] = []

    def bad(path: tuple, msg: str) -> None:
        problems.append(src.problem(prefix + path, msg))

    data = src.data
    for key in prefix:
        data = data[key]
    if not isinstance(data, dict):
        raise LoadError(
            [
                src.problem(
                    prefix,
                    f"an action script must be a mapping with seed, dice and actions, not {describe_value(data)}",
                )
            ]
        )
    script = Script(src.file)
    _script_unknown_keys(data, bad)
    script.seed = _script_seed(data, bad)
    script.dice = _script_dice(data, bad)
    for i, raw in enumerate(_script_actions(data, bad)):
        action, probs = check_action(raw)
        for path, msg in probs:
            bad(("actions", i) + path, f"action {i + 1}: {msg}")
        if action is not None:
            script.actions.append(normalize(raw))
            script.lines.append(src.line(prefix + ("actions", i)))
    if problems:
        raise LoadError(problems)
    return script


def load_script(path: str, text: str | None = None) -> Script:
    """Read and check an action script file; raises LoadError (FILE:LINE lines), nothing else."""
    try:
        src = load_yaml(read_text(path) if text is None else text, path)
        return parse_script(src)
    except LoadError:
        raise
    except RecursionError:
        raise LoadError([Problem(path, 1, "the file nests too deeply")]) from None
    except Exception as exc:  # a bug of ours must not become a traceback
        raise LoadError(
            [Problem(path, 1, f"internal error while loading ({type(exc).__name__}: {exc}); please report it")]
        ) from exc


def _xy(p) -> str:
    """A point as a player reads it: to 0.01\" (``[23.83, 26.5]``)."""
    return f"[{round(p[0], 2):g}, {round(p[1], 2):g}]"


def describe(action: dict[str, Any]) -> str:
    """A short human text of an action dict: ``move red-captain to [10, 4]``."""
    if not isinstance(action, dict) or len(action) != 1:
        return repr(action)
    ((name, body),) = action.items()
    if not body:
        return str(name)
    if not isinstance(body, dict):
        return f"{name} {body!r}"
    parts = [str(name)]
    for key in ("unit", "player"):
        if key in body:
            parts.append(str(body[key]))
    for key, value in body.items():
        if key in ("unit", "player"):
            continue
        if isinstance(value, list) and value and isinstance(value[0], list):
            value = " -> ".join(
                _xy(p) if len(p) == 2 and all(isinstance(c, (int, float)) for c in p) else str(p) for p in value
            )
        elif isinstance(value, list) and len(value) == 2 and all(isinstance(c, (int, float)) for c in value):
            value = _xy(value)
        parts.append(f"{key} {value}")
    return " ".join(parts)
