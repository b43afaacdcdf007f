"""Dice: a seeded generator or typed-in rolls, and checks against a stat.

Every roll is recorded as a :class:`Roll` with its reason and rule id; the controller
moves them into the game log. Typed-in rolls (the ``dice:`` list of an action script,
or a prompt in the window) are used first, in order; then the seeded generator, or
the ``prompt`` callback when the player rolls physical dice.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable

from game.engine.params import Ruleset

NORMAL, ADVANTAGE, DISADVANTAGE = "normal", "advantage", "disadvantage"


@dataclass(frozen=True)
class Roll:
    """One logged roll: the dice thrown, the value kept and what it decided."""

    sides: int
    values: list[int]
    kept: int
    reason: str
    rule: str | None = None
    unit: str | None = None
    stat: str | None = None
    target: float | None = None
    success: bool | None = None
    mode: str = NORMAL
    modifier: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {
            k: v
            for k, v in d.items()
            if v is not None and not (k == "modifier" and v == 0) and not (k == "mode" and v == NORMAL)
        }

    def __str__(self) -> str:
        who = f"{self.unit} " if self.unit else ""
        if self.stat is not None:
            verdict = "pass" if self.success else "fail"
            shown = "/".join(map(str, self.values)) if len(self.values) > 1 else str(self.kept)
            mode = f" ({self.mode})" if self.mode != NORMAL else ""
            check = f"{who}{self.stat} check {shown}{mode} vs {self.target:g}"
            return f"{self.rule or ''} {check}: {verdict} - {self.reason}".strip()
        return f"{self.rule or ''} {who}d{self.sides}: {self.kept} - {self.reason}".strip()


def check_mode(advantage: bool, disadvantage: bool) -> str:
    """Advantage and Disadvantage together cancel."""
    if advantage and not disadvantage:
        return ADVANTAGE
    if disadvantage and not advantage:
        return DISADVANTAGE
    return NORMAL


@dataclass
class Dice:
    seed: int | None = None
    typed: list[int] = field(default_factory=list)
    prompt: Callable[[int, str], int] | None = None  # physical dice: ask the player
    log: list[Roll] = field(default_factory=list)

    def __post_init__(self):
        self._rng = random.Random(self.seed)
        self._typed_pos = 0
        #: True once a value came from the prompt (physical dice): the seed alone no longer
        #: replays this game, so a save must keep every value rolled.
        self.prompted = False

    # --- snapshots (undo restores the generator too, so redo rolls the same) ---------
    def getstate(self) -> tuple:
        return (self._rng.getstate(), self._typed_pos, len(self.log))

    def setstate(self, state: tuple) -> None:
        rng, pos, n = state
        self._rng.setstate(rng)
        self._typed_pos = pos
        del self.log[n:]

    def copy(self, *, prompt: bool = False) -> "Dice":
        """An independent copy at the same point of the sequence (same seed, typed rolls,
        generator state and log). Without ``prompt`` the copy never asks the player:
        when the typed rolls run out it rolls from its own generator (a bot thinking on
        a copy must not prompt)."""
        new = Dice(seed=self.seed, typed=list(self.typed), prompt=self.prompt if prompt else None, log=list(self.log))
        new._rng.setstate(self._rng.getstate())
        new._typed_pos = self._typed_pos
        new.prompted = self.prompted
        return new

    # --- rolling -------------------------------------------------------------------------
    def _one(self, sides: int, reason: str) -> int:
        if self._typed_pos < len(self.typed):
            value = int(self.typed[self._typed_pos])
            self._typed_pos += 1
            return max(1, min(sides, value)) if sides >= 1 else value
        if self.prompt is not None:
            self.prompted = True
            return max(1, min(sides, int(self.prompt(sides, reason))))
        return self._rng.randint(1, sides)

    def roll(
        self, sides: int, reason: str, *, rule: str | None = None, unit: str | None = None, count: int = 1
    ) -> Roll:
        """A free roll of ``count`` dice of ``sides``; kept is the sum."""
        values = [self._one(sides, reason) for _ in range(count)]
        roll = Roll(sides, list(values), sum(values), reason, rule, unit)
        self.log.append(roll)
        return roll

    def check(
        self,
        ruleset: Ruleset,
        stat_value: float,
        *,
        reason: str,
        rule: str,
        unit: str | None = None,
        stat: str | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        modifier: int = 0,
    ) -> Roll:
        """A d20 check against a stat (success per ``check_success``), logged."""
        sides = int(ruleset.check_die)
        mode = check_mode(advantage, disadvantage)
        values = [self._one(sides, reason)]
        if mode != NORMAL:
            values.append(self._one(sides, reason))
        at_most = ruleset.check_success == "at_most"
        better = min if at_most else max
        worse = max if at_most else min
        kept = values[0] if mode == NORMAL else (better(values) if mode == ADVANTAGE else worse(values))
        total = kept + modifier
        success = total <= stat_value if at_most else total >= stat_value
        roll = Roll(sides, values, kept, reason, rule, unit, stat, float(stat_value), success, mode, modifier)
        self.log.append(roll)
        return roll

    def amend(self, roll: Roll, **changes: Any) -> Roll:
        """The logged ``roll`` with what the rule decided after it was thrown (a modifier, the
        verdict of a table): a new value in the log's place."""
        new = replace(roll, **changes)
        for i in range(len(self.log) - 1, -1, -1):
            if self.log[i] is roll:
                self.log[i] = new
                break
        return new
