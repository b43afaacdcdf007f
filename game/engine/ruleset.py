"""Rulesets: every number of the rules as data.

A ruleset is a YAML file of parameters (``game/rulesets/*.yaml``). It may
``extends:`` another ruleset and change some of its parameters. A scenario names a
ruleset (by name or path) and may override single parameters inline (``rules:``).
Code reads parameters as attributes: ``ruleset.run_denial_range``.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from game.bundled import rulesets_dir
from game.engine.actions import SPECS
from game.engine.errors import LoadError, Problem
from game.engine.limits import MAX_LOS_SAMPLES, MAX_NUMBER, MAX_TURN
from game.engine.model import STATUSES
from game.engine.params import Ruleset
from game.engine.rule_ids import RuleId
from game.engine.rules import STEPS
from game.engine.turnorder import ACTIVATIONS, FIRST_TURN_LIMITS, TURN_ORDERS
from game.engine.yamlsrc import Source, is_finite_number, load_yaml, read_text

BASE = "speedheim"

#: Parameters whose value must be one of these words.
CHOICES: dict[str, tuple[str, ...]] = {
    "height_mode": ("3d", "ignore"),
    "dazed_move": ("half", "none"),
    "climb_down_fail": ("stop", "fall"),
    "gap_fall_no_room": ("fall_back", "stop"),
    "rout_no_hero": ("auto_fail", "best_morale", "pass"),
    "rout_variant": ("standard", "legacy", "break_point"),
    "check_success": ("at_most", "at_least"),
    "neutral_act": ("advance", "manual", "bot"),
    "combat": ("manual", "placeholder"),
    "turn_limit_winner": ("draw", "treasure"),
    "turn_order": TURN_ORDERS,
    "activation": ACTIVATIONS,
}
#: Parameters whose value is a list of these words (a single word counts as a list of one).
WORD_LISTS: dict[str, tuple[str, ...]] = {"first_turn_limits": tuple(FIRST_TURN_LIMITS)}
#: Parameters added to the base ruleset after saves pinned whole rulesets: a ruleset without
#: them plays their default (the rules as they were).
OPTIONAL = frozenset({"turn_order", "activation", "first_turn_limits"})
INJURY_RESULTS = ("none",) + STATUSES[1:]
#: Parameters that must be a positive number (the rest of the numbers: zero or more).
POSITIVE = {
    "mm_per_inch",
    "run_multiplier",
    "token_size_mm",
    "check_die",
    "event_die",
    "break_point_divisor",
    "los_samples",
}
#: Parameters that must be a whole number: the ones that count things (points, units,
#: tokens, a die's sides, shots and attacks).
INTEGERS = {
    "los_samples",
    "rout_threshold",
    "treasure_per_unit",
    "check_die",
    "event_die",
    "injury_die",
    "shots_per_turn",
    "attacks_per_turn",
}
#: The largest value of a parameter (game.engine.limits; any other number: MAX_NUMBER).
MAXIMA = {"los_samples": MAX_LOS_SAMPLES, "turn_limit": MAX_TURN}


def available() -> list[str]:
    return sorted(f[:-5] for f in os.listdir(rulesets_dir()) if f.endswith(".yaml"))


def _did_you_mean(value: Any, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(value), known, n=1, cutoff=0.5) if isinstance(value, str) else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def _word_list_problems(key: str, value: Any, src: Source, path: tuple) -> list[Problem]:
    """What is wrong with a WORD_LISTS override (one word or a list of them)."""
    words = [value] if isinstance(value, str) else value
    if not isinstance(words, list):
        return [src.problem(path, f"{key} must be a list of {', '.join(WORD_LISTS[key])}, not {value!r}")]
    return [
        src.problem(
            path + (i,) if isinstance(value, list) else path,
            f"{key}: unknown {word!r} (known: {', '.join(WORD_LISTS[key])})" + _did_you_mean(word, WORD_LISTS[key]),
        )
        for i, word in enumerate(words)
        if word not in WORD_LISTS[key]
    ]


def _number_problem(key: str, value: Any) -> str | None:
    """What is wrong with a number override (finite, at least or more than 0, at most its
    maximum, whole where it must be), None if nothing."""
    if not is_finite_number(value):
        what = "NaN or infinite" if isinstance(value, float) and not math.isfinite(value) else repr(value)
        return f"{key} must be a finite number, not {what}"
    if value < 0 or (key in POSITIVE and value == 0):
        return f"{key} must be {'more than' if key in POSITIVE else 'at least'} 0, not {value}"
    if value > MAXIMA.get(key, MAX_NUMBER):
        return f"{key} is too big ({value:g}): at most {MAXIMA.get(key, MAX_NUMBER):g}"
    if key in INTEGERS and value != int(value):
        return f"{key} must be a whole number, not {value}"
    return None


def _check_value(key: str, value: Any, base: Any, src: Source, path: tuple, problems: list[Problem]) -> None:
    """Check an override against the type of the base value."""
    if key in CHOICES:
        if value not in CHOICES[key]:
            problems.append(
                src.problem(
                    path,
                    f"{key} must be one of {', '.join(CHOICES[key])}, not {value!r}"
                    + _did_you_mean(value, CHOICES[key]),
                )
            )
        return
    if key in WORD_LISTS:
        problems += _word_list_problems(key, value, src, path)
        return
    if isinstance(base, bool):
        if not isinstance(value, bool):
            problems.append(src.problem(path, f"{key} must be true or false, not {value!r}"))
        return
    if isinstance(base, (int, float)):
        problem = _number_problem(key, value)
        if problem:
            problems.append(src.problem(path, problem))
        return
    if isinstance(base, str) and not isinstance(value, str):
        problems.append(src.problem(path, f"{key} must be text, not {value!r}"))
    if isinstance(base, list) and not isinstance(value, list):
        problems.append(src.problem(path, f"{key} must be a list"))


def _check_tables(params: dict, src: Source | None, file: str, problems: list[Problem]) -> None:
    def prob(key: str | tuple, msg: str) -> None:
        path = key if isinstance(key, tuple) else (key,)
        problems.append(src.problem(path, msg) if src else Problem(file, 1, msg))

    for key in ("injury_table", "rout_legacy_table", "break_point_table"):
        rows = params.get(key)
        if rows is None:
            continue
        if not isinstance(rows, list) or not rows:
            prob(key, f"{key} must be a non-empty list of [low, high, result] rows")
            continue
        for i, row in enumerate(rows):
            ok = isinstance(row, list) and len(row) == 3 and all(v is None or is_finite_number(v) for v in row[:2])
            if not ok:
                problems.append(
                    src.problem((key, i), f"{key} row {i + 1} must be [low, high, result]")
                    if src
                    else Problem(file, 1, f"{key} row {i + 1} is bad")
                )
            elif key == "injury_table" and row[2] not in INJURY_RESULTS:
                problems.append(
                    src.problem((key, i), f"injury result {row[2]!r} is not one of {', '.join(INJURY_RESULTS)}")
                    if src
                    else Problem(file, 1, "bad injury result")
                )
    _check_phases(params, src, prob)
    weapons = params.get("ranged_weapons")
    if weapons is not None:
        if not isinstance(weapons, dict):
            prob("ranged_weapons", "ranged_weapons must be a mapping of keyword: {range: inches, reload: true|false}")
        else:
            for name, w in weapons.items():
                ok = (
                    isinstance(w, dict)
                    and set(w) <= {"range", "reload"}
                    and is_finite_number(w.get("range"))
                    and w["range"] > 0
                    and isinstance(w.get("reload", False), bool)
                )
                if not ok:
                    prob(
                        ("ranged_weapons", name),
                        f"ranged weapon {name!r} must be {{range: inches > 0, reload: true|false}}",
                    )
    limit = params.get("turn_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        prob("turn_limit", f"turn_limit must be a whole number of game turns (1 or more) or null, not {limit!r}")
    elif limit is not None and limit > MAX_TURN:
        prob("turn_limit", f"turn_limit is too big ({limit}): at most {MAX_TURN}")
    events = params.get("event_table")
    if not isinstance(events, list) or not all(
        isinstance(e, dict)
        and is_finite_number(e.get("low"))
        and is_finite_number(e.get("high"))
        and isinstance(e.get("name"), str)
        for e in events
    ):
        prob("event_table", "event_table rows need low, high and name")


PHASE_KEYS = ("name", "manual", "actions", "steps", "end")


def _check_phase(i: int, p: dict, params: dict, bad: Callable[[tuple, str], None]) -> None:
    """One phase (number i) of ``phases``: known keys, known actions, its steps, its end."""

    def where(key: str | None = None) -> tuple:
        return ("phases", i) + ((key,) if key else ())

    for key in p:
        if key not in PHASE_KEYS:
            bad(where(key), f"phase {p['name']}: unknown key {key!r} (known: {', '.join(PHASE_KEYS)})")
    acts = p.get("actions")
    if acts is not None:
        if not isinstance(acts, list) or not all(isinstance(a, str) for a in acts):
            bad(where("actions"), f"phase {p['name']}: actions must be a list of action names")
        else:
            for a in acts:
                if a not in SPECS:
                    bad(where("actions"), f"phase {p['name']}: unknown action {a!r}")
    steps = p.get("steps")
    if isinstance(steps, str):
        if not isinstance(params.get(steps), list):
            bad(where("steps"), f"phase {p['name']}: steps names {steps!r}, which is not a list parameter")
        elif steps != "upkeep_steps" and not all(s in STEPS for s in params[steps]):
            bad((steps,), f"{steps} must be a list of {', '.join(STEPS)}")
    elif steps is not None and (not isinstance(steps, list) or not all(s in STEPS for s in steps)):
        bad(where("steps"), f"phase {p['name']}: steps must be a list of {', '.join(STEPS)}")
    if p.get("end", "player") not in ("steps", "player"):
        bad(where("end"), f"phase {p['name']}: end must be steps or player, not {p['end']!r}")


def _check_phases(params: dict, src: Source | None, prob) -> None:
    """Phases are data (game/engine/flow.py): known actions and steps, unique names."""

    def bad(path: tuple, msg: str) -> None:
        prob(path, msg)

    phases = params.get("phases")
    if (
        not isinstance(phases, list)
        or not phases
        or not all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in phases)
    ):
        bad(("phases",), "phases must be a list of {name: ..., manual: true|false, actions: [...]}")
        return
    names = [p["name"] for p in phases]
    if len(set(names)) != len(names):
        bad(("phases",), "phase names must be unique")
    for i, p in enumerate(phases):
        _check_phase(i, p, params, bad)
    steps = params.get("upkeep_steps")
    if steps is not None and (not isinstance(steps, list) or not all(s in STEPS for s in steps)):
        bad(("upkeep_steps",), f"upkeep_steps must be a list of {', '.join(STEPS)}")


def _resolve_path(name: str, relative_to: str | None) -> str:
    if name.endswith((".yaml", ".yml")) or os.sep in name or "/" in name:
        if relative_to and not os.path.isabs(name):
            candidate = os.path.join(os.path.dirname(relative_to), name)
            if os.path.exists(candidate):
                return candidate
        return name
    return os.path.join(rulesets_dir(), f"{name}.yaml")


@lru_cache(maxsize=32)
def _load_cached(path: str, mtime: float) -> Ruleset:
    return _load_uncached(path, ())


def _load_uncached(path: str, chain: tuple[str, ...]) -> Ruleset:
    return _from_source(load_yaml(read_text(path), path), path, chain)


def _from_source(src: Source, path: str, chain: tuple[str, ...] = ()) -> Ruleset:
    """A ruleset from loaded YAML: ``extends`` resolved, every value checked (FILE:LINE)."""
    if not isinstance(src.data, dict):
        raise LoadError([src.problem((), "a ruleset must be a mapping of parameter: value")])
    data = dict(src.data)
    problems: list[Problem] = []
    parent_name = data.pop("extends", None)
    if parent_name is not None:
        parent_path = _resolve_path(str(parent_name), path)
        if os.path.abspath(parent_path) in chain:
            raise LoadError([src.problem(("extends",), f"ruleset extends itself through {parent_name!r}")])
        try:
            parent = _load_uncached(parent_path, chain + (os.path.abspath(path),))
        except LoadError as exc:
            raise LoadError(
                [src.problem(("extends",), f"cannot load ruleset {parent_name!r}: {p}") for p in exc.problems]
            ) from None
        params = parent.to_dict()
        for key, value in data.items():
            if key in params and key not in ("name", "description"):
                _check_value(key, value, params[key], src, (key,), problems)
            params[key] = value
    else:
        params = data
        for key, value in data.items():
            if key in CHOICES or key in WORD_LISTS:
                _check_value(key, value, "", src, (key,), problems)
            elif is_finite_number(value) or isinstance(value, float):
                _check_value(key, value, 0, src, (key,), problems)
        if not isinstance(params.get("name"), str):
            problems.append(src.problem(("name",) if "name" in data else (), "a ruleset needs a name"))
    if parent_name is None:
        missing = (
            _required_keys() - set(params)
            if os.path.abspath(path) != os.path.abspath(_resolve_path(BASE, None))
            else set()
        )
        for key in sorted(missing):
            problems.append(src.problem((), f"missing parameter {key!r} (or add 'extends: {BASE}')"))
    _check_tables(params, src, path, problems)
    if problems:
        raise LoadError(problems)
    return Ruleset(params, path)


def embedded_ruleset(src: Source) -> Ruleset:
    """A whole ruleset written inside another file (a save pins the rules it was played
    under): every parameter present and checked, with the lines of that file."""
    return _from_source(src, src.file + "#ruleset")


@lru_cache(maxsize=1)
def _required_keys() -> frozenset[str]:
    return frozenset(load_ruleset(BASE).to_dict()) - {"description"} - OPTIONAL


def load_ruleset(name_or_path: str = BASE, relative_to: str | None = None) -> Ruleset:
    """Load a ruleset by bundled name (``speedheim``) or by path; raises LoadError."""
    path = _resolve_path(name_or_path, relative_to)
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        where = relative_to or path
        known = ", ".join(available())
        raise LoadError([Problem(where, 1, f"unknown ruleset {name_or_path!r} (bundled: {known})")]) from None
    return _load_cached(os.path.abspath(path), mtime)


def check_overrides(base: Ruleset, overrides: Any, src: Source, path: tuple) -> tuple[dict, list[Problem]]:
    """Validate a scenario's inline ``rules:`` overrides against ``base``."""
    problems: list[Problem] = []
    if overrides is None:
        return {}, problems
    if not isinstance(overrides, dict):
        return {}, [src.problem(path, "rules must be a mapping of parameter: value")]
    good = {}
    for key, value in overrides.items():
        if (key not in base and key not in OPTIONAL) or key in ("name", "description"):
            problems.append(src.problem(path + (key,), f"unknown ruleset parameter {key!r}"))
            continue
        before = len(problems)
        _check_value(key, value, base.get(key, ""), src, path + (key,), problems)
        if len(problems) == before:
            good[key] = value
    if not problems:
        trial: list[Problem] = []
        _check_tables({**base.to_dict(), **good}, src, src.file, trial)
        problems += [src.problem(path, p.message) for p in trial]
    return good, problems


# --- which rule each parameter belongs to -------------------------------------------------------

#: The rule id (docs/rules.md) each parameter of the base ruleset belongs to, or the ids when
#: it sets several rules, so two rulesets can say which rules they differ in (a rout variant
#: names U2). Ids beside the numbered rules: ``check`` (the die and the success rule of every
#: check), ``turn`` (the phases and steps).
PARAMETER_RULES: dict[str, str | tuple[str, ...]] = {
    "mm_per_inch": RuleId.G1,
    "base_sizes_mm": RuleId.G1,
    "height_mode": RuleId.G2,
    "contact_tolerance": RuleId.G4,
    "token_size_mm": RuleId.G4,
    "eye_height": RuleId.L1,
    "los_samples": RuleId.L1,
    "bases_block_los": RuleId.L1,
    "base_height": RuleId.L1,
    "cover_wall_range": RuleId.L2,
    "staggered_move_factor": RuleId.M1,
    "dazed_move": RuleId.M1,
    "dazed_move_factor": RuleId.M1,
    "run_multiplier": RuleId.M2,
    "run_denial_range": RuleId.M2,
    "free_height": RuleId.M4,
    "climb_down_fail": RuleId.M6,
    "dazed_may_climb": RuleId.M6,
    "wall_climb_max_thickness": RuleId.M6,
    "fall_free_height": RuleId.M7,
    "fall_modifier_per_inch": RuleId.M7,
    "injury_die": RuleId.M7,
    "injury_table": RuleId.M7,
    "injury_table_placeholder": RuleId.M7,
    "jump_gap_max": RuleId.M8,
    "jump_height_max": RuleId.M8,
    "gap_fall_no_room": RuleId.M8,
    "jump_down_disadvantage_from": RuleId.M9,
    "jump_down_landing_max": RuleId.M9,
    "animals_use_ladders": RuleId.M10,
    "ladder_reach": RuleId.M10,
    "difficult_penalty": RuleId.M12,
    "engage_move_factor": RuleId.E1,
    "neutral_act": RuleId.U1,
    "rout_threshold": RuleId.U2,
    "rout_no_hero": RuleId.U2,
    "rout_variant": RuleId.U2,
    "treasure_grab_range": RuleId.U4,
    "treasure_denial_range": RuleId.U6,
    "treasure_per_unit": RuleId.U6,
    "treasure_first_turn_skipped": RuleId.U6,
    "event_die": RuleId.U7,
    "event_table": RuleId.U7,
    "event_table_placeholder": RuleId.U7,
    "plague_stat": RuleId.U7,
    "plague_fail_status": RuleId.U7,
    "check_die": RuleId.CHECK,
    "check_success": RuleId.CHECK,
    "combat": (RuleId.S1, RuleId.S2, RuleId.F1),
    "ranged_weapons": RuleId.S1,
    "shoot_stat": RuleId.S1,
    "long_range_fraction": RuleId.S1,
    "shoot_into_melee": RuleId.S1,
    "shots_per_turn": RuleId.S1,
    "wound_stat": RuleId.S2,
    "wound_modifier": RuleId.S2,
    "melee_stat": RuleId.F1,
    "attacks_per_turn": RuleId.F1,
    "turn_limit": RuleId.T1,
    "turn_limit_winner": RuleId.T1,
    "turn_order": RuleId.O1,
    "activation": RuleId.O2,
    "first_turn_limits": RuleId.O3,
    "manual_actions": RuleId.TURN,
    "phases": RuleId.TURN,
    "upkeep_steps": RuleId.TURN,
}
#: The tables of the rule variants: every parameter with the prefix belongs to the rule.
PARAMETER_PREFIX_RULES: tuple[tuple[str, str], ...] = (("rout_legacy_", RuleId.U2), ("break_point_", RuleId.U2))
#: Parameters that change no rule (what a ruleset calls itself).
NOT_RULES = frozenset({"name", "description", "extends"})


def rules_of(parameter: str) -> tuple[str, ...]:
    """The rule ids ``parameter`` belongs to; a parameter the base ruleset does not know
    names itself (a ruleset file may carry extra data)."""
    rule = PARAMETER_RULES.get(parameter)
    if rule is None:
        rule = next((r for prefix, r in PARAMETER_PREFIX_RULES if parameter.startswith(prefix)), parameter)
    return (rule,) if isinstance(rule, str) else rule


def rules_changed(a: Any, b: Any) -> list[str]:
    """The rule ids whose parameters or tables differ between two rulesets (mappings of
    parameter: value), sorted."""
    keys = (set(a) | set(b)) - NOT_RULES
    return sorted({r for k in keys if a.get(k) != b.get(k) for r in rules_of(k)})
