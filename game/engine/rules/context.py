"""The one shape every rule has: a context in, typed events out, refusals raised.

A rule of an action is a :class:`Rule`: ``check(ctx, args)`` raises
:class:`~game.engine.errors.IllegalAction` or returns what ``resolve`` needs (a *plan*),
and changes nothing, rolls nothing; ``resolve(ctx, plan)`` changes the state through the
context and emits :mod:`game.engine.events`. ``Game.apply`` runs both, ``Game.why_illegal``
only the first, so the two can never disagree.

A step of a phase (Upkeep's Rout, Treasure ...) is a function ``step(ctx) -> result``:
``DONE`` (on to the next step), ``WAIT`` (a decision is pending, or the game is over) or a
:class:`PassTurn` (the step ended the player's turn, e.g. a rout).

:class:`Ctx` is everything a rule may use: the state, the ruleset, the board, the movement
engine, the dice, and a few questions about warbands. It is built by the game and reads
the game's current state (undo swaps it), so rules hold no state of their own.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol

from game.engine.decisions import Decision, NeutralsAct
from game.engine.errors import IllegalAction
from game.engine.events import Automatic, Event, Note
from game.engine import turnorder
from game.engine.model import GameState, Scenario, Unit
from game.engine.rule_ids import RuleId

DONE, WAIT = "done", "wait"


@dataclass(frozen=True)
class PassTurn:
    """A step's result: the current player's turn ends now (``reason`` goes in the log)."""

    reason: str


@dataclass(frozen=True)
class Rule:
    """One action's rule. ``candidates(ctx, unit)`` lists concrete argument dicts this unit
    might take the action with, most useful first (``legal_actions`` tries them, and a bot
    reads the ones that pass); None for actions that do not belong to a unit. ``nothing``
    is the (rule, reason) when a unit has no candidate at all (no token, no enemy)."""

    kind: str
    check: Callable[["Ctx", dict], Any]
    resolve: Callable[["Ctx", Any], None]
    candidates: Callable[["Ctx", Unit], Iterable[dict]] | None = None
    nothing: tuple[str, str] = (RuleId.ACTION, "{unit} has nothing to act on")
    #: The exact chances of the action's results, from its plan (combat), or None.
    odds: Callable[["Ctx", Any], Any] | None = None
    #: Under ``activation: alternating`` (O2), acting with a unit of the side to act
    #: activates it; the manual tools (a hand setting results) do not.
    activates: bool = True
    #: ``refused(ctx, unit, args)``: a cheap test, True only where ``check`` refuses for
    #: certain (by the very test ``check`` makes), or None. ``legal_actions`` asks it of
    #: the candidates after the first refused one (whose refusal alone it tells).
    refused: Callable[["Ctx", Unit, dict], bool] | None = None


class Host(Protocol):
    """What a context needs of the game that owns it (:class:`game.engine.game.Game`)."""

    scenario: Scenario
    rs: Any
    board: Any
    neutral_id: str
    state: GameState
    dice: Any
    mover: Any
    sight: Any
    flow: Any

    def outcome(self) -> Any: ...
    def _record(self, event: Event) -> None: ...
    def _report(self, extra: dict[str, Any]) -> None: ...
    def _pin(self, action: dict[str, Any]) -> None: ...


class Ctx:
    """What the rules see of a game (see the module's docstring)."""

    def __init__(self, game: Host):
        # weakly: the game holds its context, and a planner's copies of the game (one a
        # rollout) are then freed by reference counting, not left to the cycle collector
        self._game = weakref.proxy(game)
        self.scenario = game.scenario
        self.rs = game.rs
        self.board = game.board
        self.neutral_id = game.neutral_id
        self._player_of = {w.id: w.player for w in game.scenario.warbands}
        self._order = {uid: i for i, uid in enumerate(game.scenario.unit_order)}
        self._start_sizes: dict[str, int] = {}
        for u in game.scenario.state.units.values():
            self._start_sizes[u.warband] = self._start_sizes.get(u.warband, 0) + 1

    # --- the game's moving parts -----------------------------------------------------------
    @property
    def state(self) -> GameState:
        return self._game.state

    @property
    def dice(self):
        return self._game.dice

    @property
    def mover(self):
        return self._game.mover

    @property
    def sight(self):
        """Line of sight and cover (L1, L2) for this map."""
        return self._game.sight

    @property
    def progress(self):
        return self.state.progress

    @property
    def pending(self) -> "Decision | None":
        return self.state.pending

    def set_pending(self, decision: "Decision | None") -> None:
        self.state.pending = decision

    # --- events ------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        self._game._record(event)

    def report(self, extra: dict[str, Any]) -> None:
        """More keys for this action's log line (``cost``, ``path`` ...: FORMATS.md allows them)."""
        self._game._report(extra)

    def pin(self, action: dict[str, Any]) -> None:
        """The action as it replays exactly (a move's resolved path), for saves."""
        self._game._pin(action)

    def note(self, text: str, rule: str | None = None) -> None:
        self.emit(Note(text, rule))

    def auto(self, rule: str, text: str, cls: type[Automatic] = Automatic, **fields: Any) -> None:
        """An automatic step or check, logged under the current step (or phase)."""
        self.emit(cls(self.state.step or self.state.phase, rule, text, **fields))

    # --- questions -----------------------------------------------------------------------------
    def warband_player(self, wid: str) -> int:
        return self._player_of.get(wid, 0)

    def current_warband(self):
        return self.scenario.warband_of_player(self.state.player)

    def starting_size(self, wid: str) -> int:
        return self._start_sizes.get(wid, 0)

    def order_of(self, uid: str) -> int:
        return self._order.get(uid, len(self._order))

    def outcome(self):
        return self._game.outcome()

    def unit(self, uid: str) -> Unit:
        """A unit on the table (any side: the manual tools act on either)."""
        u = self.state.units.get(uid)
        if u is None:
            raise IllegalAction(RuleId.ACTION, f"unknown unit {uid!r}")
        if not u.on_table:
            raise IllegalAction(RuleId.TURN, f"{uid} has left the table")
        return u

    def acting(self, uid: str) -> Unit:
        """A unit the side to act may act with: its own, or a Neutral in the Neutrals step."""
        u = self.unit(uid)
        if isinstance(self.pending, NeutralsAct):
            if u.warband != self.neutral_id:
                raise IllegalAction(RuleId.U1, f"{uid} is not a Neutral unit; in the Neutrals step only Neutrals act")
        elif self.warband_player(u.warband) != self.state.player:
            raise turnorder.out_of_turn(self, uid, self.warband_player(u.warband))
        elif self._game.flow.activating(self):
            refusal = turnorder.activation_refusal(self, uid)
            if refusal is not None:
                raise refusal
        if u.status == "incapacitated":
            raise IllegalAction(RuleId.U5, f"{uid} is Incapacitated")
        return u

    def sync_tokens(self) -> None:
        """Carried tokens stand where their carriers stand."""
        st = self.state
        for tok in st.treasure.values():
            if tok.carried_by:
                c = st.units.get(tok.carried_by)
                if c is not None:
                    tok.x, tok.y = c.x, c.y
