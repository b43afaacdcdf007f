"""``--variant SPEC``: what a variant changes, checked before any game starts.

A spec is a ruleset name or path, or ``key=value`` overrides, joined by commas; both may be
mixed (``rout-legacy,rout_threshold=5``). Values are YAML scalars read with the safe loader
(``5``, ``3.5``, ``true``, ``placeholder``; a flow list ``[2, 6]`` keeps its commas).
``default`` (or nothing) plays the scenario's own ruleset.

:func:`variant_scenario` bakes a variant into the scenario as file data: the ruleset named
(a bundled name stays a name; a ruleset file is embedded whole, so the scenario is
self-contained on any machine), the scenario's own ``rules:`` and then the variant's
overrides under ``rules:``, the turn limit (T1), and placeholder combat where the ruleset
says ``combat: manual`` (bots cannot play manual combat). The values are checked by the
ruleset's own checks (:func:`game.engine.ruleset.check_overrides`) and the result is loaded
like any scenario, so a bad variant fails here with the parameter named, never mid-run.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from game.bots.driver import bot_rules
from game.engine.errors import LoadError, Problem
from game.engine.model import Scenario
from game.engine.ruleset import Ruleset, check_overrides, load_ruleset
from game.engine.scenario import load_scenario, scenario_to_dict
from game.engine.yamlsrc import Source, dump_yaml

DEFAULT_LABEL = "default"
#: The turn limit of a simulated game when neither the command, the scenario nor the
#: ruleset gives one, so that every game ends (FORMATS.md, ``--turn-limit``).
DEFAULT_TURN_LIMIT = 12


@dataclass(frozen=True, order=True)
class ArgProblem(Problem):
    """A problem with a command-line value: ``WHERE: message`` (no line number)."""

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass(frozen=True)
class Variant:
    label: str
    ruleset: str | None = None  # a name or path; None: the scenario's own
    overrides: dict[str, Any] = field(default_factory=dict)


def split_top(spec: str) -> list[str]:
    """Split on commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in spec:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_variant(spec: str, where: str | None = None) -> Variant:
    """Parse a spec (not yet checked against a ruleset); raises LoadError."""
    where = where or f"--variant {spec!r}"
    spec = str(spec).strip()
    if spec in ("", DEFAULT_LABEL):
        return Variant(DEFAULT_LABEL)
    ruleset, overrides, problems = None, {}, []
    for item in split_top(spec):
        if not item:
            problems.append(ArgProblem(where, 0, "an empty item between commas"))
        elif "=" in item:
            key, _, raw = item.partition("=")
            key = key.strip()
            if not key:
                problems.append(ArgProblem(where, 0, f"{item!r} names no parameter (write key=value)"))
                continue
            try:
                value = yaml.safe_load(raw) if raw.strip() else None
            except yaml.YAMLError as exc:
                problems.append(
                    ArgProblem(where, 0, f"{key}: cannot read the value {raw!r} ({str(exc).splitlines()[0]})")
                )
                continue
            if raw.strip() == "":
                problems.append(ArgProblem(where, 0, f"{key} has no value (write {key}=VALUE)"))
            elif key in overrides:
                problems.append(ArgProblem(where, 0, f"{key} is given twice"))
            else:
                overrides[key] = value
        elif ruleset is not None:
            problems.append(
                ArgProblem(where, 0, f"two rulesets ({ruleset!r} and {item!r}); a variant names at most one")
            )
        else:
            ruleset = item
    if problems:
        raise LoadError(problems)
    return Variant(spec, ruleset, overrides)


def _base_ruleset(scenario: Scenario, variant: Variant, where: str, relative_to: str | None) -> tuple[Ruleset, Any]:
    """The ruleset the variant starts from (before the scenario's and its own overrides),
    and what the scenario file writes under ``ruleset:``."""
    if variant.ruleset is None:
        if scenario.ruleset_embedded:
            return Ruleset(scenario.ruleset.to_dict()), scenario.ruleset.to_dict()
        return load_ruleset(scenario.ruleset_name or "speedheim", scenario.file), scenario.ruleset_name
    try:
        rs = load_ruleset(variant.ruleset, relative_to)
    except LoadError as exc:
        raise LoadError(
            [ArgProblem(where, 0, p.message) if p.message.startswith("unknown ruleset") else p for p in exc.problems]
        ) from None
    bundled = "/" not in variant.ruleset and not variant.ruleset.endswith((".yaml", ".yml"))
    return rs, (variant.ruleset if bundled else rs.to_dict())


def _hint(message: str, base: Ruleset) -> str:
    """An unknown parameter gets the nearest known one suggested."""
    m = re.match(r"unknown ruleset parameter '([^']*)'", message)
    if m:
        close = difflib.get_close_matches(m.group(1), [k for k in base if k not in ("name", "description")], n=1)
        if close:
            return f"{message} (did you mean {close[0]!r}?)"
    return message


def variant_scenario(
    scenario: Scenario,
    variant: Variant,
    *,
    turn_limit: int | None = None,
    where: str | None = None,
    relative_to: str | None = None,
) -> tuple[dict, int]:
    """The scenario file data of ``variant`` (rules baked in, seats as in the file) and its
    turn limit. Raises LoadError naming the parameter and the problem."""
    where = where or f"--variant {variant.label!r}"
    base, ruleset_entry = _base_ruleset(scenario, variant, where, relative_to)
    src = Source(where, dict(variant.overrides), {})
    good, problems = check_overrides(base.with_overrides(scenario.rules_overrides), variant.overrides, src, ())
    if problems:
        raise LoadError([ArgProblem(where, 0, _hint(p.message, base)) for p in problems])
    rules = {**scenario.rules_overrides, **good}
    resolved = base.with_overrides(rules)
    limit = turn_limit if turn_limit is not None else resolved.get("turn_limit") or DEFAULT_TURN_LIMIT
    # The rules of every bot game (placeholder combat, bot Neutrals, a turn limit won on
    # treasure unless the ruleset says otherwise); the variant's own choices win.
    as_bots = bot_rules(dataclasses.replace(scenario, ruleset=resolved, rules_overrides=rules), turn_limit=limit)
    rules.update({k: v for k, v in as_bots.items() if k not in good})
    data = scenario_to_dict(scenario)
    data["ruleset"] = ruleset_entry
    if ruleset_entry is None:
        data.pop("ruleset", None)
    data["rules"] = rules
    return data, limit


def swap_seats(data: dict) -> dict:
    """The same scenario with the two players' numbers exchanged: the warband that moved
    second moves first (the Neutrals, player 0, stay)."""
    out = copy.deepcopy(data)
    first, second = sorted({w["player"] for w in out.get("warbands", []) if w.get("player", 0) > 0})
    for w in out["warbands"]:
        if w.get("player") in (first, second):
            w["player"] = second if w["player"] == first else first
    return out


def scenario_text(data: dict, name: str) -> str:
    """The YAML text of a variant's scenario, loaded once here to prove it loads."""
    text = dump_yaml(data)
    load_scenario(name, text=text)
    return text
