"""Which rules came into play: ``rules_fired`` of a game, read off the typed log, and the
coverage of a comparison (the rules a variant changes, and in how many paired games they
fired).

A rule *fires* when it decides something (FORMATS.md): a check rolled under it (every
:class:`~game.engine.dice.Roll` names its rule), a result applied (a loss counted, a
token handed over, a rout check decided without a roll), an action it governs taken (a
Run, an Engage, a pick-up) or an action or a pick-up refused by it. A step that found
nothing to do does not count: an upkeep whose rout count is under the threshold logs "no
Rout Check" and does not fire U2. Nothing here reads a sentence: only event types, the
rolls' rule ids and the refusals' rule ids.

Known blind spot: a bot that asks ``legal_actions`` never tries what a rule forbids, so a
refusal it avoided is not seen (the Run a denial range forbade). The Treasure step's
refusals are typed (:class:`~game.engine.events.TreasureDenied`) and do count.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable

from game.engine.events import (
    Activated,
    FirstPlayer,
    Incapacitated,
    RoutChecked,
    TokenTaken,
    TreasureDenied,
    TurnLimits,
    Won,
)
from game.engine.rule_ids import RuleId
from game.engine.ruleset import rules_of
from game.engine.tolerance import within

#: The rule an accepted action of each kind applies (the movement engine's own checks
#: roll under their rules and count through their rolls).
ACTION_RULES = {
    "run": RuleId.M2,
    "reload": RuleId.M11,
    "engage": RuleId.E1,
    "disengage": RuleId.E1,
    "shoot": RuleId.S1,
    "attack": RuleId.F1,
    "pick_up": RuleId.U6,
    "grab": RuleId.U4,
    "rout": RuleId.U3,
    "play_on": RuleId.U3,
}
#: Flow actions: the phases and steps (``turn``) decided what comes next.
FLOW_KINDS = ("end_step", "end_phase", "end_turn", "end_activation")
#: A TokenTaken that is neither a pick-up nor a grab is the U6 hand-over of a lost unit's token.
_OWN_ACTION_HOW = ("picks up", "grabs")


def _event_fired(e: Any, turn_limit_reached: bool) -> tuple[str | None, int]:
    """The rule one event of an action fired and how many times ((None, 0): none)."""
    if isinstance(e, RoutChecked) and e.roll is None:
        return RuleId.U2, 1  # decided without a roll (no hero: rout_no_hero)
    if isinstance(e, TreasureDenied) and e.denied:
        return RuleId.U6, len(e.denied)
    if isinstance(e, Incapacitated):
        return RuleId.U6, 1  # the loss is counted (and the token dropped or handed)
    if isinstance(e, TokenTaken) and e.how not in _OWN_ACTION_HOW:
        return RuleId.U6, 1
    if isinstance(e, Won) and turn_limit_reached:
        return RuleId.T1, 1
    if isinstance(e, FirstPlayer):
        return RuleId.O1, 1  # the turn order chose the first player (a roll-off counts its rolls too)
    if isinstance(e, Activated):
        return RuleId.O2, 1  # a unit activated in turn (alternating)
    if isinstance(e, TurnLimits):
        return RuleId.O3, 1  # game turn 1 played under the first player's limits
    return None, 0


def fired(entry: Any, turn_limit_reached: bool = False) -> Counter:
    """The rules one log entry (an :class:`~game.engine.game.ActionResult`) fired."""
    out: Counter = Counter()
    if not entry.ok:
        if entry.rule:
            out[entry.rule] += 1
        return out
    kind = next(iter(entry.action), None) if isinstance(entry.action, dict) else None
    if kind in ACTION_RULES:
        out[ACTION_RULES[kind]] += 1
    elif kind in FLOW_KINDS:
        out[RuleId.TURN] += 1  # the phases and steps ran
    for roll in entry.rolls:
        if roll.rule:
            out[roll.rule] += 1
        if roll.stat is not None:
            out[RuleId.CHECK] += 1  # a check: check_die and check_success decided it
    for e in entry.events:
        rule, n = _event_fired(e, turn_limit_reached)
        if rule:
            out[rule] += n
    return out


def refused(rule: str | None) -> Counter:
    return Counter({rule: 1}) if rule else Counter()


# --- a comparison ---------------------------------------------------------------------------------


def fired_any(record: dict[str, Any], rules: Iterable[str]) -> bool:
    got = record.get("rules_fired") or {}
    return any(got.get(r, 0) > 0 for r in rules)


def record_changed(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two paired games differ in winner, turns, lost or treasure (``changed_pairs``)."""
    return any(a.get(k) != b.get(k) for k in ("winner", "turns", "lost", "treasure"))


#: The parameters whose decisions the rules record (game.engine.events.Measured), and when
#: a measured value would be decided the other way under value ``b`` than under ``a``.
FLIPS: dict[str, Callable[[float, float, float], bool]] = {
    # U6: a pick-up is denied when the nearest enemy is within the range (G3's tolerance)
    "treasure_denial_range": lambda v, a, b: within(v, a) != within(v, b),
    # U2: a warband checks when its rout count reaches the threshold
    "rout_threshold": lambda v, a, b: (v >= a) != (v >= b),
}


def decisive(record: dict[str, Any], param: str, a: Any, b: Any) -> int:
    """How many of the game's recorded decisions on ``param`` would go the other way
    under ``b`` than under ``a``."""
    flip = FLIPS[param]
    return sum(1 for v in (record.get("measured") or {}).get(param, []) if flip(float(v), float(a), float(b)))


def decisive_coverage(
    base: dict[tuple, dict], other: dict[tuple, dict], keys: list[tuple], rules: list[str]
) -> dict[str, Any]:
    """``decisive_pairs`` (FORMATS.md): the pairs in which a decision of a changed rule, in
    either game, would have gone the other way under the other ruleset. A changed rule with
    a parameter whose decisions are not recorded (a table, a word, an older run) falls back
    to its firing: ``fallback`` names those rules. Per parameter, its decisive pairs."""
    params = next((other[k]["params_changed"] for k in keys if other[k].get("params_changed") is not None), None)
    measured = bool(keys) and all("measured" in base[k] and "measured" in other[k] for k in keys)
    if params is None or not measured:
        counter, fallback = {}, sorted(rules)
    else:
        counter = {p: ab for p, ab in params.items() if p in FLIPS and ab is not None}
        others = {r for p in params if p not in counter for r in rules_of(p)}
        covered = {r for p in counter for r in rules_of(p)}
        fallback = sorted(r for r in rules if r in others or r not in covered)
    by_param = {p: 0 for p in counter}
    pairs = 0
    for k in keys:
        hit = False
        for p, (a, b) in counter.items():
            if decisive(base[k], p, a, b) or decisive(other[k], p, a, b):
                by_param[p] += 1
                hit = True
        if hit or (fallback and (fired_any(base[k], fallback) or fired_any(other[k], fallback))):
            pairs += 1
    return {"decisive_pairs": pairs, "decisive_by_parameter": by_param, "fallback": fallback}


def coverage(base: dict[tuple, dict], other: dict[tuple, dict], keys: list[tuple], rules: list[str]) -> dict[str, Any]:
    """``rules_changed``, ``fired_pairs``, ``decisive_pairs``, ``tested`` (decisive_pairs >
    0), ``changed_pairs`` (FORMATS.md), and per changed rule the pairs in which it fired and
    the mean times per game in each."""
    fired_pairs = sum(1 for k in keys if fired_any(base[k], rules) or fired_any(other[k], rules))
    per_rule = {}
    for r in rules:
        pairs = sum(1 for k in keys if fired_any(base[k], [r]) or fired_any(other[k], [r]))
        n = len(keys) or 1
        per_rule[r] = {
            "pairs": pairs,
            "base_per_game": sum((base[k].get("rules_fired") or {}).get(r, 0) for k in keys) / n,
            "variant_per_game": sum((other[k].get("rules_fired") or {}).get(r, 0) for k in keys) / n,
        }
    dec = decisive_coverage(base, other, keys, rules)
    return {
        "rules_changed": list(rules),
        "fired_pairs": fired_pairs,
        **dec,
        "tested": dec["decisive_pairs"] > 0,
        "changed_pairs": sum(1 for k in keys if record_changed(base[k], other[k])),
        "fired_by_rule": per_rule,
    }
