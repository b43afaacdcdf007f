"""What every bot shares: the :class:`BotDecision` it returns and the :class:`Bot` protocol.

A bot answers one question: given what its player sees (a :class:`~game.bots.view.View`),
what is the next action? ``bot.choose(view) -> BotDecision``. The decision carries the
action dict (exactly what ``Game.apply`` takes) and a one-line ``reason`` for the log.
A bot only ever returns an action that ``view.why_illegal`` accepts: the bots check
every action before they return it, and the driver counts any refusal as a bug.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: The actions bots play. The manual tools (set_status, incapacitate, disengage, roll,
#: check, cast, end_spell) are the players' hands on a manual phase: a bot never uses
#: them, since with placeholder combat the rules give every result. ``end_turn`` is left
#: out too: a bot ends each phase in turn.
BOT_KINDS = (
    "move",
    "run",
    "reload",
    "engage",
    "shoot",
    "attack",
    "pick_up",
    "grab",
    "rout",
    "play_on",
    "end_step",
    "end_phase",
    "end_activation",
)
#: Kinds that act with one unit (``unit:`` in the action).
UNIT_KINDS = ("move", "run", "reload", "engage", "shoot", "attack", "pick_up", "grab")


@dataclass(frozen=True)
class BotDecision:
    """One bot decision: the action to apply and why, in one line.

    ``unit`` is the unit that acts (None for flow actions and rout decisions); ``path``
    is the planned path of a move (the window may draw it before applying; the path
    actually taken is the ``Moved`` event's, see :func:`game.bots.driver.decision_path`);
    ``score`` is the bot's own value of the choice (0 for the random bot)."""

    action: dict[str, Any]
    reason: str
    unit: str | None = None
    path: tuple[tuple[float, float], ...] | None = None
    score: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return next(iter(self.action))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"action": self.action, "reason": self.reason}
        if self.unit:
            d["unit"] = self.unit
        return d


@runtime_checkable
class Bot(Protocol):
    """A bot: ``name`` for the log, ``choose(view)`` for the next action.

    A bot may also answer ``options(view, k) -> list[BotDecision]`` (see :class:`Advisor`):
    its ``k`` best next actions for the side to act, best first, each with its value
    (``BotDecision.score``) and reason. ``speedheim advise`` and the window's hint ask it
    (:mod:`game.bots.advise`); a bot without it is asked ``choose`` alone."""

    name: str

    def choose(self, view: Any) -> BotDecision:  # pragma: no cover - a protocol
        ...


@runtime_checkable
class Advisor(Protocol):
    """A bot that can list its best options (the optional method of :class:`Bot`).

    ``options(view, k)``: at most ``k`` decisions, best first, every action one that
    ``view.why_illegal`` accepts now, no action twice; the first is the bot's choice
    (what ``choose`` would return) whenever the bot can tell."""

    name: str

    def choose(self, view: Any) -> BotDecision:  # pragma: no cover - a protocol
        ...

    def options(self, view: Any, k: int) -> list[BotDecision]:  # pragma: no cover - a protocol
        ...


def end_decision(view: Any, why: str) -> BotDecision:
    """End the step (a pending decision, declined) or the phase, whichever is allowed; under
    ``activation: alternating`` (O2), end the activation under way first."""
    kinds = view.legal_action_kinds()
    order = ("end_step", "end_phase") if view.pending is not None else ("end_activation", "end_phase", "end_step")
    for kind in order:
        if kind in kinds and view.why_illegal({kind: {}}) is None:
            return BotDecision({kind: {}}, why)
    return BotDecision({"end_turn": {}}, why)
