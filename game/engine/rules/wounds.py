"""Wounds (S2) after a hit, shared by shooting (S1) and melee (F1), and the exact odds of
a check, a wound and a whole attack, computed from the dice (never sampled).

A statuses ladder runs normal < staggered < dazed < stunned < incapacitated: a wound's
result applies only when it is worse than the target's status now.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from game.engine.dice import ADVANTAGE, DISADVANTAGE, NORMAL, check_mode
from game.engine.events import StatusChanged
from game.engine.model import STATUSES, Unit
from game.engine.rule_ids import RuleId
from game.engine.rules import effects
from game.engine.rules.context import Ctx

MISS, NO_EFFECT = "miss", "no effect"


# --- exact odds --------------------------------------------------------------------------------


def check_chance(rs, stat: float, mode: str = NORMAL, modifier: int = 0) -> Fraction:
    """P(a check against ``stat`` succeeds): one die of ``check_die`` sides, or two with
    Advantage (keep the better) or Disadvantage (keep the worse)."""
    sides = int(rs.check_die)
    if rs.check_success == "at_most":
        wins = sum(1 for v in range(1, sides + 1) if v + modifier <= stat)
    else:
        wins = sum(1 for v in range(1, sides + 1) if v + modifier >= stat)
    p = Fraction(wins, sides)
    if mode == ADVANTAGE:
        return 1 - (1 - p) ** 2
    if mode == DISADVANTAGE:
        return p * p
    return p


def injury_chances(rs, modifier: int) -> dict[str, Fraction]:
    """The Injury chart's results for one die of ``injury_die`` sides plus ``modifier``."""
    sides = int(rs.injury_die)
    out: dict[str, Fraction] = {}
    for v in range(1, sides + 1):
        r = rs.injury_result(v + modifier)
        out[r] = out.get(r, Fraction(0)) + Fraction(1, sides)
    return out


def worse(a: str, b: str) -> str:
    return a if STATUSES.index(a) >= STATUSES.index(b) else b


def wound_chances(rs, target: Unit) -> dict[str, Fraction]:
    """S2 for ``target`` after a hit: the final status (or "no effect") and its chance."""
    save = check_chance(rs, float(target.stats.get(rs.wound_stat, 0)))
    out: dict[str, Fraction] = {NO_EFFECT: save}
    fail = 1 - save
    if target.status == "dazed":
        out["incapacitated"] = fail
        return out
    for result, p in injury_chances(rs, int(rs.wound_modifier)).items():
        final = NO_EFFECT if result == "none" or worse(result, target.status) == target.status else result
        out[final] = out.get(final, Fraction(0)) + fail * p
    return out


@dataclass(frozen=True)
class Odds:
    """The chance to hit and the chance of each result of an attack (exact fractions):
    ``results`` maps "miss", "no effect" and the statuses to their chance; they sum to 1."""

    hit: Fraction
    results: dict[str, Fraction]
    mode: str

    def text(self) -> str:
        parts = [f"{k} {float(v):.0%}" for k, v in self.results.items() if v > 0]
        return f"to hit {float(self.hit):.0%} ({self.mode}): " + ", ".join(parts)

    def to_dict(self) -> dict:
        return {
            "hit": round(float(self.hit), 4),
            "mode": self.mode,
            "results": {k: round(float(v), 4) for k, v in self.results.items()},
        }


def attack_odds(rs, stat: float, mode: str, target: Unit, certain: str | None = None) -> Odds:
    """Odds of a to-hit check against ``stat`` then S2; ``certain`` is a result that needs
    no roll (a Stunned target in melee is Incapacitated at once)."""
    if certain is not None:
        return Odds(Fraction(1), {certain: Fraction(1)}, "no roll")
    hit = check_chance(rs, stat, mode)
    results: dict[str, Fraction] = {MISS: 1 - hit}
    for k, p in wound_chances(rs, target).items():
        results[k] = results.get(k, Fraction(0)) + hit * p
    return Odds(hit, results, mode)


# --- resolution ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Modes:
    """Why a to-hit roll has Advantage or Disadvantage (the reasons go in the log)."""

    advantage: tuple[str, ...] = ()
    disadvantage: tuple[str, ...] = ()

    @property
    def mode(self) -> str:
        return check_mode(bool(self.advantage), bool(self.disadvantage))

    def text(self) -> str:
        parts = [f"Advantage: {', '.join(self.advantage)}"] if self.advantage else []
        parts += [f"Disadvantage: {', '.join(self.disadvantage)}"] if self.disadvantage else []
        return "; ".join(parts)


def strike(
    ctx: Ctx, by: Unit, target: Unit, stat: str, modes: Modes, rule: str, what: str, reason: str | None = None
) -> bool:
    """A to-hit check of ``by`` against its ``stat`` (S1, F1), the roll's ``reason`` logged
    with why it has Advantage or Disadvantage, then S2 on a hit; True when it hit."""
    why = modes.text()
    roll = ctx.dice.check(
        ctx.rs,
        by.stats.get(stat, 0),
        reason=(reason or what) + (f" ({why})" if why else ""),
        rule=rule,
        unit=by.id,
        stat=stat,
        advantage=bool(modes.advantage),
        disadvantage=bool(modes.disadvantage),
    )
    ctx.note(f"{what}: " + ("hit" if roll.success else "miss"), rule)
    if roll.success:
        wound(ctx, by, target)
    return bool(roll.success)


def wound(ctx: Ctx, by: Unit, target: Unit) -> None:
    """S2: the target's Defence check, then the Injury chart when it fails."""
    rs = ctx.rs
    stat = rs.wound_stat
    roll = ctx.dice.check(
        rs,
        target.stats.get(stat, 0),
        reason=f"{target.id} wounded by {by.id}: {stat} check",
        rule=RuleId.S2,
        unit=target.id,
        stat=stat,
    )
    if roll.success:
        ctx.note(f"{target.id} shrugs it off ({stat} check passed)", RuleId.S2)
        return
    if target.status == "dazed":
        effects.incapacitate(ctx, target.id, by=by.id)
        return
    mod = int(rs.wound_modifier)
    injury = ctx.dice.roll(
        int(rs.injury_die), f"Injury chart: {target.id} wounded by {by.id}", rule=RuleId.S2, unit=target.id
    )
    if mod:
        injury = ctx.dice.amend(injury, modifier=mod)
    result = rs.injury_result(injury.kept + mod)
    placeholder = " (placeholder chart)" if rs.get("injury_table_placeholder") else ""
    if result == "none" or worse(result, target.status) == target.status:
        ctx.note(
            f"{target.id}: Injury {injury.kept + mod}: {result}{placeholder}, no worse than {target.status}", RuleId.S2
        )
        return
    if result == "incapacitated":
        effects.incapacitate(ctx, target.id, by=by.id)
        return
    before, target.status = target.status, result
    ctx.emit(StatusChanged(target.id, before, result))
