"""Typed pending decisions: what the controller waits for (``game.pending``).

A step of a phase that needs a player's choice leaves one of these in the state and stops.
Each says who decides (``player``), under which rule, the sentence to show, and which
actions it accepts (``actions``: the decision's own, then the dice tray and ``end_step`` /
``end_phase``, which decline it). They are frozen: a new choice is a new value.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

_DECLINE = ("end_step", "end_phase")


@dataclass(frozen=True)
class Decision:
    kind: ClassVar[str] = ""
    actions: ClassVar[tuple[str, ...]] = ()

    player: int
    rule: str
    prompt: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``speedheim legal``, saves of the window): ``kind`` first."""
        d: dict[str, Any] = {"kind": self.kind}
        for key, value in asdict(self).items():
            d[key] = (
                [dict(v) if isinstance(v, tuple) and v and isinstance(v[0], tuple) else v for v in value]
                if isinstance(value, tuple)
                else value
            )
        return d


@dataclass(frozen=True)
class PickUp(Decision):
    """U6: units of the current player in contact with a token may pick it up."""

    kind: ClassVar[str] = "pick_up"
    actions: ClassVar[tuple[str, ...]] = ("pick_up", "roll", "check") + _DECLINE

    options: tuple[tuple[str, str], ...] = ()  # (unit, token) pairs that may be picked up now
    denied: tuple[str, ...] = ()  # sentences on the pairs in contact that may not

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "player": self.player,
            "rule": self.rule,
            "prompt": self.prompt,
            "options": [{"unit": u, "token": t} for u, t in self.options],
            "denied": list(self.denied),
        }


@dataclass(frozen=True)
class Grab(Decision):
    """U4: after a rout, the owner chooses which unit tries for a token."""

    kind: ClassVar[str] = "grab"
    actions: ClassVar[tuple[str, ...]] = ("grab", "roll") + _DECLINE

    token: str = ""
    warband: str = ""
    units: tuple[str, ...] = ()
    check: bool = False  # the chosen unit makes a Morale check


@dataclass(frozen=True)
class VoluntaryRout(Decision):
    """U3: right after a passed Rout Check the player may rout."""

    kind: ClassVar[str] = "voluntary_rout"
    actions: ClassVar[tuple[str, ...]] = ("rout", "play_on", "roll") + _DECLINE

    warband: str = ""


@dataclass(frozen=True)
class NeutralsAct(Decision):
    """U1: the player acts for the Neutral units of an Event (``neutral_act: manual``), or,
    with ``neutral_act: bot``, the Neutrals' own side does: ``player`` is then 0."""

    kind: ClassVar[str] = "neutrals"
    actions: ClassVar[tuple[str, ...]] = (
        "move",
        "run",
        "engage",
        "disengage",
        "set_status",
        "incapacitate",
        "roll",
        "check",
    ) + _DECLINE

    units: tuple[str, ...] = ()


KINDS: dict[str, type[Decision]] = {c.kind: c for c in (PickUp, Grab, VoluntaryRout, NeutralsAct)}
