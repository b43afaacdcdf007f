"""Typed events: what an action set off, as frozen values (python-chess style).

The rules emit events through their context (:class:`game.engine.rules.context.Ctx`); the
game log keeps them in each :class:`~game.engine.game.ActionResult`, and the window
reacts to their *types*, never to their text. ``text()`` is the log line the players read
(and the ``events`` strings of ``replay --json``). :class:`Automatic` events are the steps
and checks the controller ran by itself; ``replay --json`` lists them under ``automatic``
as ``{"step", "rule", "text"}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from game.engine.dice import Roll
from game.engine.rule_ids import RuleId


def _xy(at: tuple[float, float]) -> str:
    return f"[{at[0]:.2f}, {at[1]:.2f}]"


@dataclass(frozen=True)
class Event:
    """Base of every event. ``shown`` events have a line in the log and in ``replay --json``;
    the others (a move's path, for instance) are for the window and the bots."""

    shown: ClassVar[bool] = True

    def text(self) -> str:  # pragma: no cover - every subclass says itself
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Note(Event):
    """A plain sentence with no structure of its own (a rule's remark)."""

    message: str
    rule: str | None = None

    def text(self) -> str:
        return self.message


# --- automatic steps --------------------------------------------------------------------


@dataclass(frozen=True)
class Automatic(Event):
    """A step or check the controller ran by itself (``automatic`` in the log)."""

    step: str
    rule: str
    message: str

    def text(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "rule": self.rule, "text": self.message}


@dataclass(frozen=True)
class PhaseBegan(Automatic):
    phase: str = ""


@dataclass(frozen=True)
class TurnBegan(Automatic):
    turn: int = 0
    player: int = 0


@dataclass(frozen=True)
class FirstPlayer(TurnBegan):
    """O1: a game turn begins with ``player`` first, chosen by ``how`` (the ruleset's
    ``turn_order``); the text says why (a roll-off's rolls are the entry's rolls)."""

    how: str = ""


@dataclass(frozen=True)
class Activated(Automatic):
    """O2 (``activation: alternating``): ``player`` activates ``unit``."""

    unit: str = ""
    player: int = 0


@dataclass(frozen=True)
class TurnLimits(Automatic):
    """O3: the first player of game turn 1 plays it under ``limits`` (``first_turn_limits``)."""

    player: int = 0
    limits: tuple[str, ...] = ()


@dataclass(frozen=True)
class RoutChecked(Automatic):
    """U2: a warband's Rout Check (``passed`` None when decided without a roll)."""

    warband: str = ""
    passed: bool | None = None
    roll: Roll | None = None


@dataclass(frozen=True)
class TreasureDenied(Automatic):
    """U6: the Treasure step found no pick-up it allows; ``denied`` says which were refused
    (an opposing unit too near the token, ...)."""

    denied: tuple[str, ...] = ()


# --- units and tokens ---------------------------------------------------------------------


@dataclass(frozen=True)
class StatusChanged(Event):
    unit: str
    before: str
    after: str

    def text(self) -> str:
        return f"{self.unit}: {self.before} -> {self.after}"


@dataclass(frozen=True)
class Incapacitated(Event):
    """U6: a loss is counted (and the unit's token dropped or handed over)."""

    unit: str
    by: str | None
    warband: str
    lost: int

    def text(self) -> str:
        return (
            f"{self.unit} is Incapacitated"
            + (f" by {self.by}" if self.by else "")
            + f" ({self.warband} has lost {self.lost})"
        )


@dataclass(frozen=True)
class TokenTaken(Event):
    """A unit takes a token: ``how`` is "picks up", "grabs" or the U6 hand-over."""

    unit: str
    token: str
    how: str = "picks up"

    def text(self) -> str:
        return f"{self.unit} {self.how} {self.token}"


@dataclass(frozen=True)
class TokenDropped(Event):
    token: str
    at: tuple[float, float]

    def text(self) -> str:
        return f"{self.token} is dropped at {_xy(self.at)}"


@dataclass(frozen=True)
class EventNotTriggered(Event):
    """U4: a token taken in the grab after a rout hid an Event, which does not fire."""

    token: str
    unit: str

    def text(self) -> str:
        return f"{self.token} hid an Event token: not triggered by a grab after a rout (U4)"


@dataclass(frozen=True)
class PlagueChecked(Event):
    unit: str
    token: str
    passed: bool
    roll: Roll
    stat: str
    status: str

    def text(self) -> str:
        if self.passed:
            return f"{self.unit} resists the Plague ({self.roll.kept} vs {self.stat} {self.roll.target:g})"
        return f"{self.unit} fails the Plague check: {self.status}"


@dataclass(frozen=True)
class EventTriggered(Event):
    """U7: the Event table was rolled; Neutrals act from now on (U1)."""

    token: str
    unit: str
    roll: int
    die: int
    name: str
    placeholder: bool

    def text(self) -> str:
        return f"Event {self.roll} on the d{self.die}: {self.name}" + (
            " (placeholder table)" if self.placeholder else ""
        )


@dataclass(frozen=True)
class NeutralAppeared(Event):
    unit: str
    name: str
    at: tuple[float, float] | None

    def text(self) -> str:
        if self.at is None:
            return f"no room on the table for {self.name}"
        return f"Neutral {self.name} ({self.unit}) appears at {_xy(self.at)}"


# --- routs and the end --------------------------------------------------------------------


@dataclass(frozen=True)
class Routed(Event):
    warband: str
    why: str

    def text(self) -> str:
        return f"{self.warband} routs: {self.why}"


@dataclass(frozen=True)
class PlayedOn(Event):
    warband: str

    def text(self) -> str:
        return f"{self.warband} plays on (U3)"


@dataclass(frozen=True)
class LeftTable(Event):
    warband: str

    def text(self) -> str:
        return f"every unit of {self.warband} leaves the table"


@dataclass(frozen=True)
class Won(Event):
    warband: str | None
    reason: str

    def text(self) -> str:
        if self.warband is None:
            return f"the game ends in a draw: {self.reason}"
        return f"{self.warband} wins: {self.reason}"


@dataclass(frozen=True)
class Measured(Event):
    """What a rule's decision measured, against the ruleset parameter it was compared
    with: the nearest enemy's distance at a pick-up (U6, ``treasure_denial_range``), a
    warband's rout count (U2, ``rout_threshold``). Not shown: it lets a study tell whether
    the decision would have gone the other way under another value (game.sim.coverage)."""

    shown: ClassVar[bool] = False

    rule: str
    parameter: str
    value: float

    def text(self) -> str:
        return f"{self.rule}: {self.parameter} decided on {self.value:g}"


# --- actions of the phases ---------------------------------------------------------------


@dataclass(frozen=True)
class Moved(Event):
    """A move, Run or Engage resolved by the movement engine (the line's extras say more)."""

    shown: ClassVar[bool] = False

    unit: str
    path: tuple[tuple[float, float], ...]
    completed: bool

    def text(self) -> str:
        return f"{self.unit} ends at {_xy(self.path[-1])}" + ("" if self.completed else " (stopped)")


@dataclass(frozen=True)
class MoveNote(Event):
    """What the movement engine resolved during a move: a failed check or a fall. Each
    kind below is its own type, for code that reacts to it; ``text()`` is the log line."""

    rule: str


@dataclass(frozen=True)
class ClimbStopped(MoveNote):
    """A failed climb check (M6) that stops the unit: at the foot of the piece it climbed
    (``up``) or on its top (``down``, under the ruling ``climb_down_fail: stop``)."""

    direction: str  # "up" | "down"
    piece: str

    def text(self) -> str:
        where = "foot" if self.direction == "up" else "top"
        return f"{self.rule} climb {self.direction} failed: stops at the {where} of {self.piece}"


@dataclass(frozen=True)
class CheckFell(MoveNote):
    """A failed climb down (the fall variant) or jump down: the unit falls ``height``."""

    kind: str  # the transition: "climb_down" | "jump_down"
    height: float

    def text(self) -> str:
        return f'{self.rule} {self.kind.replace("_", " ")} failed: falls {self.height:.2f}"'


@dataclass(frozen=True)
class GapJumpFailed(MoveNote):
    """A failed jump across a gap (M8): the unit falls into the gap (``into_gap``), or,
    with no room for its base there, ``gap_fall_no_room`` decides: it stays on the ledge
    (``stays``, no Fall) or falls the gap's depth and is put back (``put_back``)."""

    result: str  # "into_gap" | "stays" | "put_back"
    height: float
    why: str = ""
    at: tuple[float, float] | None = None

    def text(self) -> str:
        if self.result == "into_gap":
            return f'{self.rule} jump failed: falls {self.height:.2f}" into the gap'
        if self.result == "stays":
            return f"{self.rule} jump failed: {self.why}: no Fall, it stays on the ledge at {_xy(self.at)}"
        return (
            f'{self.rule} jump failed: {self.why}: falls {self.height:.2f}" and is put back on the ledge '
            f"it jumped from at {_xy(self.at)}"
        )


@dataclass(frozen=True)
class FallRolled(MoveNote):
    """A Fall (M7): the Injury roll, its modifier for the height and the result (``none``
    for no effect); ``placeholder`` when the chart is the placeholder one."""

    height: float
    roll: int
    modifier: int
    result: str
    placeholder: bool = False

    def text(self) -> str:
        total = self.roll + self.modifier
        head = f'{self.rule} fall {self.height:.2f}": {self.roll}+{self.modifier} = {total}, '
        if self.result == "none":
            return head + "no effect"
        return head + self.result + (" (placeholder chart)" if self.placeholder else "")


@dataclass(frozen=True)
class Reloaded(Event):
    unit: str

    def text(self) -> str:
        return f"{self.unit} reloads (no move this turn)"


@dataclass(frozen=True)
class Engaged(Event):
    unit: str
    target: str
    start: tuple[float, float]
    distance: float
    allowance: float

    def text(self) -> str:
        return (
            f'{self.unit} engages {self.target} (from {_xy(self.start)}, {self.distance:.2f}" of {self.allowance:g}")'
        )


@dataclass(frozen=True)
class Disengaged(Event):
    unit: str
    targets: tuple[str, ...]

    def text(self) -> str:
        return f"{self.unit} disengages from {', '.join(self.targets)}"


@dataclass(frozen=True)
class ContactEnded(Event):
    """E2: a base moved out of contact with one it was Engaged with (a Fall, a move the
    rules allow): the two are no longer Engaged."""

    unit: str
    other: str
    gap: float
    rule: ClassVar[str] = RuleId.E2

    def text(self) -> str:
        return (
            f'{self.unit} and {self.other} are no longer in base contact ({self.gap:.2f}" apart): '
            f"no longer Engaged (E2)"
        )


@dataclass(frozen=True)
class Rolled(Event):
    """A free roll from the dice tray."""

    roll: Roll
    count: int

    def text(self) -> str:
        return f"rolled {self.count}d{self.roll.sides}: {self.roll.values} = {self.roll.kept}"


@dataclass(frozen=True)
class Checked(Event):
    """A check rolled from the dice tray."""

    unit: str
    stat: str
    roll: Roll

    def text(self) -> str:
        return f"{self.unit} {self.stat} check: {'pass' if self.roll.success else 'fail'}"


@dataclass(frozen=True)
class SpellCast(Event):
    unit: str
    spell: str
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        return f"{self.unit} casts {self.spell}" + (f" ({'; '.join(self.notes)})" if self.notes else "")


@dataclass(frozen=True)
class SpellEnded(Event):
    unit: str
    spell: str

    def text(self) -> str:
        return f"{self.unit}'s {self.spell} ends"
