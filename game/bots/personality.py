"""Personalities of the ``utility`` bot: the weights of its scores, in a small YAML file.

A personality file (``game/bots/personalities/*.yaml``)::

    name: cautious
    description: keeps its units out of reach, takes treasure when it is safe
    weights:
      threat: 1.6
      run_zone: 3

Every weight has a default (:data:`WEIGHTS`); a file sets the ones it changes. Values are
numbers of zero or more. The file is read with safe YAML and checked: a bad file raises
:class:`~game.engine.errors.LoadError` with ``FILE:LINE: what is wrong`` lines.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field

from game.bundled import personalities_dir
from game.engine.errors import LoadError, Problem
from game.engine.yamlsrc import describe_value, is_finite_number, load_yaml, read_text

#: Every weight, its default and what it means (docs/bots.md lists them).
WEIGHTS: dict[str, tuple[float, str]] = {
    "token": (12.0, "value of a treasure token held by our side (or taken from the enemy)"),
    "kill": (10.0, "value of Incapacitating an enemy unit"),
    "loss": (10.0, "value lost when one of our units is Incapacitated"),
    "rout": (4.0, "extra value of one point of a warband's rout count (U2), divided by the points it still lacks"),
    "staggered": (0.1, "share of a kill's value for leaving an enemy Staggered"),
    "dazed": (0.35, "share of a kill's value for leaving an enemy Dazed"),
    "stunned": (0.6, "share of a kill's value for leaving an enemy Stunned"),
    "approach": (0.5, "share of a token's value for standing one turn's move from it (less further away)"),
    "contact": (0.8, "share of a token's value for ending in contact with it (picked up next turn unless denied)"),
    "deny": (0.4, "share of a token's value for standing within denial range of a token an enemy could take"),
    "threat": (1.0, "multiplier on the expected loss from enemies that can engage or shoot the unit next turn"),
    "carrier_caution": (1.5, "extra multiplier on that threat for a unit carrying treasure"),
    "run_zone": (2.0, "penalty for ending within Run denial range of an enemy when the unit wants to Run next turn"),
    "hunt": (0.3, "share of an attack's expected value for closing on an enemy"),
    "support": (0.4, "value of each friend close by when enemies are near (ganging up)"),
    "engage_min": (0.5, "an engage is made when its net value is at least this"),
    "melee_rounds": (
        3.0,
        "Melee phases an engagement is expected to last (its attacks and blows back count this often)",
    ),
    "check_risk": (2.0, "value lost for each movement check expected to fail with a Fall (jumps; not a climb up)"),
    "min_gain": (0.2, "a unit moves only when its best move beats standing still by this much"),
    "vary": (
        0.5,
        "places within this much of the best are as good: the game's seed picks one (0: always the best)",
    ),
    "reload": (1.0, "value of reloading a weapon that has fired"),
    "shoot": (1.0, "multiplier on the expected value of shooting (a Run forfeits the shot)"),
}
KEYS = ("name", "description", "weights")
BUNDLED = ("cautious", "greedy", "aggressive")
DEFAULT = "greedy"


@dataclass(frozen=True)
class Personality:
    name: str
    weights: dict[str, float] = field(default_factory=lambda: {k: v for k, (v, _) in WEIGHTS.items()})
    description: str = ""
    file: str = ""

    def __getattr__(self, key: str) -> float:
        try:
            return self.__dict__["weights"][key]
        except KeyError:
            raise AttributeError(key) from None


def personality_dir() -> str:
    return personalities_dir()


def personality_path(name_or_path: str) -> str:
    """A bundled name (``cautious``) or a path to a YAML file."""
    if os.sep in name_or_path or name_or_path.endswith((".yaml", ".yml")):
        return name_or_path
    return os.path.join(personality_dir(), f"{name_or_path}.yaml")


def parse_personality(text: str, file: str) -> Personality:
    """Check a personality file's text; raise LoadError with every problem."""
    src = load_yaml(text, file)
    data = src.data
    problems: list[Problem] = []
    if not isinstance(data, dict):
        raise LoadError(
            [src.problem((), f"a personality must be a mapping with name and weights, not {describe_value(data)}")]
        )
    for key in data:
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            problems.append(
                src.problem(
                    (key,),
                    f"unknown key {key!r}"
                    + (f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(KEYS)})"),
                )
            )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(
            src.problem(("name",) if "name" in data else (), f"name must be text, not {describe_value(name)}")
        )
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.append(src.problem(("description",), f"description must be text, not {describe_value(description)}"))
    weights = {k: v for k, (v, _) in WEIGHTS.items()}
    raw = data.get("weights", {})
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        problems.append(
            src.problem(("weights",), f"weights must be a mapping of weight: number, not {describe_value(raw)}")
        )
        raw = {}
    for key, value in raw.items():
        if key not in WEIGHTS:
            close = difflib.get_close_matches(str(key), WEIGHTS, n=1)
            problems.append(
                src.problem(
                    ("weights", key), f"unknown weight {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                )
            )
        elif isinstance(value, bool) or not is_finite_number(value):
            problems.append(
                src.problem(("weights", key), f"weight {key} must be a number, not {describe_value(value)}")
            )
        elif value < 0:
            problems.append(src.problem(("weights", key), f"weight {key} must be 0 or more, not {value}"))
        else:
            weights[key] = float(value)
    if problems:
        raise LoadError(problems)
    return Personality(str(name), weights, str(description or ""), file)


def load_personality(name_or_path: str = DEFAULT) -> Personality:
    """A bundled personality by name, or a personality file; raises LoadError (FILE:LINE)."""
    path = personality_path(name_or_path)
    if path != name_or_path and not os.path.exists(path):
        raise LoadError(
            [
                Problem(
                    name_or_path,
                    1,
                    f"unknown personality {name_or_path!r} (bundled: {', '.join(BUNDLED)}; "
                    f"or give the path of a personality file)",
                )
            ]
        )
    try:
        return parse_personality(read_text(path), path)
    except LoadError:
        raise
    except Exception as exc:  # never a traceback for a bad file
        raise LoadError([Problem(path, 1, f"cannot read the personality ({type(exc).__name__}: {exc})")]) from exc
