"""A game in play: the questions every client asks, and apply / undo / redo.

``Game(scenario, dice)`` owns the one :class:`GameState`; every change goes through
:meth:`Game.apply`. The questions never change anything (python-chess style):

* :meth:`Game.why_illegal` ``(action) -> IllegalAction | None``: the same checks as
  ``apply``, in the same order: the action is well formed, the game is not over, the
  action is allowed in this phase, step or decision, then the rule (whose unit, and the
  rule itself). No die is rolled. A refusal a cheap bound settles is given at once, by
  ``apply`` too (an Engage beyond the largest allowance in a straight line: that distance).
* :meth:`Game.legal_actions` ``(unit_id) -> Legal``: the kinds this unit may take now,
  an example action of each, the targets, and the refusal for each kind it may not.
* :attr:`Game.pending`: the typed decision the game waits for, or None.
* :meth:`Game.outcome`: ``None`` while the game goes on, else an :class:`Outcome`.

``apply`` runs the rule's check then its resolution (:mod:`game.engine.rules`); the flow
(:mod:`game.engine.flow`) moves the turn and runs the steps that need no decision. Undo is
a snapshot stack of the state and the dice generator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from game.engine import rules, turnorder
from game.engine.actions import Action, describe, normalize, parse_action
from game.engine.dice import Dice, Roll
from game.engine.errors import IllegalAction, UnmeasuredRefusal, as_value
from game.engine.events import Automatic, Event
from game.engine.flow import FLOW_ACTIONS, Flow
from game.engine.geometry import Board, board_for
from game.engine.model import GameState, Scenario
from game.engine.movement import Mover
from game.engine.rule_ids import RuleId
from game.engine.rules import effects
from game.engine.rules.context import Ctx
from game.engine.rules.endgame import game_turn_ends
from game.engine.sight import Sight
from game.engine.rules.upkeep import decline

NEUTRALS = "neutrals"


def _r(v: float) -> float:
    return round(float(v), 4)


#: legal_actions: the phase's verdict on a kind could not be had beforehand.
_UNKNOWN = object()


def _internal(exc: Exception) -> IllegalAction:
    """A bug of ours met while judging an action: the action is refused, the game goes on."""
    return IllegalAction(RuleId.INTERNAL, f"internal error ({type(exc).__name__}: {exc}); please report it")


@dataclass(frozen=True)
class Outcome:
    """How the game ended: ``winner`` is a warband id, or None for a draw."""

    winner: str | None
    reason: str

    @property
    def draw(self) -> bool:
        return self.winner is None


@dataclass(frozen=True)
class Legal:
    """What one unit may do now: ``kinds`` in the order of the rules, an ``example`` action
    of each, the ``targets`` of the kinds that have some (units or tokens), and the
    refusal of every kind it may not take, as ``apply`` would give it."""

    unit: str
    kinds: tuple[str, ...]
    examples: dict[str, dict]
    targets: dict[str, tuple[str, ...]]
    refused: dict[str, IllegalAction]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "unit": self.unit,
            "legal": list(self.kinds),
            "refused": {k: f"{e.rule}: {e.reason}" for k, e in self.refused.items()},
        }
        if self.targets:
            out["targets"] = {k: list(v) for k, v in self.targets.items()}
        return out


@dataclass
class ActionResult:
    """One line of the game log: the action, whether it was legal, and what it set off."""

    action: Any
    ok: bool = True
    rule: str | None = None
    reason: str | None = None
    rolls: list[Roll] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    turn: int = 0
    player: int = 0
    phase: str = ""
    step: str | None = None
    winner: str | None = None
    #: The action as it replays exactly (a move's resolved path); None: ``action`` itself.
    pinned: dict[str, Any] | None = None

    @property
    def automatic(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.events if isinstance(e, Automatic)]

    @property
    def texts(self) -> list[str]:
        """The shown events that are not automatic steps, as log sentences."""
        return [e.text() for e in self.events if e.shown and not isinstance(e, Automatic)]

    @property
    def replayable(self) -> dict[str, Any]:
        return self.pinned if self.pinned is not None else self.action

    def to_json_line(self, i: int) -> dict[str, Any]:
        """Exactly a ``replay --json`` line (FORMATS.md), with the optional extra keys."""
        line: dict[str, Any] = {"i": i, "action": self.action, "ok": self.ok}
        if not self.ok:
            line["rule"] = self.rule
            line["reason"] = self.reason
            line["rolls"] = []
            return line
        failed = next((r.rule for r in self.rolls if r.success is False and r.rule), None)
        if failed:
            line["rule"] = failed
        line["rolls"] = [r.to_dict() for r in self.rolls]
        line["phase"] = self.phase
        if self.step is not None:
            line["step"] = self.step
        line["turn"] = self.turn
        line["player"] = self.player
        for key, value in self.extra.items():
            line.setdefault(key, value)
        automatic = self.automatic
        if automatic:
            line["automatic"] = automatic
        texts = self.texts
        if texts:
            line["events"] = texts
        if self.winner:
            line["winner"] = self.winner
        return line

    def text(self, i: int | None = None) -> str:
        """A readable log line (the play window's log panel and ``replay`` without --json)."""
        head = f"#{i} " if i is not None else ""
        what = describe(self.action) if self.action is not None else "start"
        if not self.ok:
            return f"{head}{what}: ILLEGAL {self.rule}: {self.reason}"
        lines = [
            f"{head}{what}: ok -> turn {self.turn}, player {self.player}, {self.phase}"
            + (f"/{self.step}" if self.step else "")
        ]
        lines += [f"    roll: {r}" for r in self.rolls]
        lines += [f"    automatic [{a['step']}] {a['rule']}: {a['text']}" for a in self.automatic]
        lines += [f"    {e}" for e in self.texts]
        if self.winner:
            lines.append(f"    winner: {self.winner}")
        return "\n".join(lines)


LogEntry = ActionResult


class Game:
    """A game in play: the state, the flow of turns, the dice, the log and the undo stack."""

    def __init__(
        self,
        scenario: Scenario,
        dice: Dice | None = None,
        *,
        history: bool = True,
        board: Board | None = None,
        mover: Any = None,
    ):
        self.scenario = scenario
        self.rs = scenario.ruleset
        self.board = board or board_for(scenario)
        self.dice = dice if dice is not None else Dice(seed=0)
        self.state: GameState = scenario.state.copy()
        self.history = history
        self.log: list[ActionResult] = []
        #: Remarks kept with the log that are no action - a bot's reason, a player's or the
        #: window's note - as (at, text, kind), ``at`` the number of log entries before it.
        #: Saves keep them; no rule reads them.
        self.notes: list[tuple[int, str, str]] = []
        self._mover = mover
        self._undo: list[tuple] = []
        self._redo: list[tuple] = []
        self._cur: ActionResult | None = None
        self.neutral_id = next((w.id for w in scenario.warbands if w.player == 0), NEUTRALS)
        for w in scenario.warbands:
            self.state.lost.setdefault(w.id, 0)
        self.ctx = Ctx(self)
        self.flow = Flow(self.rs, rules.STEPS, decline, effects.turn_begins, game_turn_ends)
        self._sight = None
        # The start: steps that need no decision run now and are kept in ``start``.
        self.start = ActionResult(action=None)
        n = len(self.dice.log)
        self._cur = self.start
        self.flow.begin(self.ctx)
        self._cur = None
        self.start.rolls = list(self.dice.log[n:])
        self._stamp(self.start)

    def clone(self, *, board: Board | None = None, mover: Any = None) -> "Game":
        """An independent copy of the game as it stands: its own state, dice (at the same
        point of the sequence, never prompting) and log list, an empty undo stack. The
        scenario and the rules are shared (read-only), and so are the board, the movement
        engine and the line-of-sight tool unless a board or a mover is given. The engine
        is not thread-safe: a copy to think on in another thread should get its own
        ``mover`` (the nav caches change while it searches; it then builds its own sight
        too); the board is read-only and may be shared."""
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.board = board if board is not None else self.board
        new._mover = mover if mover is not None else (self.mover if board is None else None)
        new._sight = self._sight if board is None and mover is None else None
        new.state = self.state.copy()
        new.dice = self.dice.copy()
        new.log = list(self.log)
        new.notes = list(self.notes)
        new.history = True
        new._undo, new._redo, new._cur = [], [], None
        new.ctx = Ctx(new)
        return new

    # --- questions --------------------------------------------------------------------
    @property
    def mover(self):
        """The movement engine, built on first use (it prepares the nav for the map)."""
        if self._mover is None:
            self._mover = Mover(self.scenario, self.board)
        return self._mover

    @property
    def sight(self):
        """Line of sight and cover (L1, L2) for this map, built on first use."""
        if self._sight is None:
            self._sight = Sight(self.scenario, self.board)
        return self._sight

    def odds(self, action: Any):
        """The exact chances of an attack's results (S1/F1, S2), or None for an action
        without odds; raises IllegalAction when the action is refused. Rolls nothing."""
        act = parse_action(normalize(action))
        refusal = self._flow_refusal(act.kind)
        if refusal is not None:
            raise refusal
        rule = rules.ACTIONS.get(act.kind)
        if rule is None or rule.odds is None:
            return None
        return rule.odds(self.ctx, rule.check(self.ctx, act.args))

    @property
    def pending(self):
        """The decision the game waits for (game/engine/decisions.py), or None."""
        return self.state.pending

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def outcome(self) -> Outcome | None:
        """None while the game goes on; else who won (or a draw) and why."""
        st = self.state
        if st.winner:
            return Outcome(st.winner, st.end_reason or "the last warband standing")
        if st.draw:
            return Outcome(None, st.end_reason or "a draw")
        playing = [w.id for w in self.scenario.warbands if w.player > 0]
        left = [w for w in playing if w not in st.routed]
        if len(playing) > 1 and len(left) == 1:
            return Outcome(left[0], "the last warband standing")
        return None

    @property
    def winner(self) -> str | None:
        o = self.outcome()
        return o.winner if o is not None else None

    def is_over(self) -> bool:
        return self.outcome() is not None

    def turn_player(self) -> int:
        """The player whose decision the game waits for now."""
        return self.pending.player if self.pending is not None else self.state.player

    def whose(self) -> str:
        """Whose turn or activation it is, in words (O1, O2); "" under the seeds' order."""
        return turnorder.whose(self.ctx, self.flow.activating(self.ctx))

    def legal_action_kinds(self) -> list[str]:
        """The action kinds the current phase, step or decision accepts now."""
        if self.is_over():
            return []
        return self.flow.allowed(self.ctx)

    def warband_player(self, wid: str) -> int:
        return self.ctx.warband_player(wid)

    def current_warband(self):
        return self.ctx.current_warband()

    def why_illegal(self, action: Any) -> IllegalAction | None:
        """Why ``action`` would be refused now, or None; changes nothing, rolls nothing."""
        return self._why_illegal(action, None, _UNKNOWN)

    def _why_illegal(self, action: Any, kind: str | None, flow: Any) -> IllegalAction | None:
        """:meth:`why_illegal`, for an action of ``kind`` whose :meth:`_flow_refusal` is
        ``flow`` when known (the same answer; ``_UNKNOWN``: asked here)."""
        try:
            act = parse_action(normalize(action))
            if flow is _UNKNOWN or act.kind != kind:
                self._check(act)
            elif flow is not None:
                raise flow
            else:
                self._check(act, flow_checked=True)
        except IllegalAction as exc:
            return as_value(exc)
        except Exception as exc:  # a bug of ours: refused, as apply refuses it
            return _internal(exc)
        return None

    def is_legal(self, action: Any) -> bool:
        return self.why_illegal(action) is None

    def legal_actions(self, uid: str) -> Legal:
        """What ``uid`` may do now (see :class:`Legal`); every example passes ``apply``.

        Only the verdict of each candidate is worked out (``Mover.verdicts``): an Engage
        that does not fit is not measured, and the one refusal told of a kind with no
        legal candidate is measured afterwards, as ``apply`` gives it."""
        u = self.state.units.get(uid)
        if u is None:
            raise IllegalAction(RuleId.ACTION, f"unknown unit {uid!r}")
        with self.mover.verdicts():
            return self._legal_actions(u)

    def _legal_actions(self, u) -> Legal:
        uid = u.id
        kinds, examples, targets, refused = [], {}, {}, {}
        for kind, rule in rules.ACTIONS.items():
            if rule.candidates is None:
                continue
            first_refusal = None
            found: list[str] = []
            # The phase's verdict on the kind, once (the state does not change in between):
            # when it refuses, it refuses every candidate, and only the first refusal is told.
            try:
                flow = self._flow_refusal(kind)
            except Exception:  # a bug of ours: each candidate says so (why_illegal)
                flow = _UNKNOWN
            for args in rule.candidates(self.ctx, u):
                if first_refusal is not None and rule.refused is not None and rule.refused(self.ctx, u, args):
                    continue  # refused for certain, and only the first refusal is told
                why = self._why_illegal({kind: args}, kind, flow)
                if why is None:
                    examples.setdefault(kind, {kind: args})
                    target = args.get("target") or args.get("token")
                    if target is None:
                        break
                    found.append(target)
                elif first_refusal is None:
                    first_refusal, first_args = why, args
                    if flow is not None and flow is not _UNKNOWN:
                        break
            if kind not in examples and isinstance(first_refusal, UnmeasuredRefusal):
                first_refusal = first_refusal.measure()
                if first_refusal is None:  # legal after all (the verdict was not the wider search's)
                    examples[kind] = {kind: first_args}
                    target = first_args.get("target") or first_args.get("token")
                    if target is not None:
                        found.append(target)
            if kind in examples:
                kinds.append(kind)
                if found:
                    targets[kind] = tuple(found)
            else:
                refused[kind] = first_refusal or self._refusal_without_candidate(kind, uid)
        return Legal(uid, tuple(kinds), examples, targets, refused)

    def _refusal_without_candidate(self, kind: str, uid: str) -> IllegalAction:
        """A kind with no candidate at all (no token, no enemy): the phase's verdict first."""
        refusal = self._flow_refusal(kind)
        if refusal is not None:
            return refusal
        rule, reason = rules.ACTIONS[kind].nothing
        return IllegalAction(rule, reason.format(unit=uid))

    def note(self, text: str, kind: str = "info") -> None:
        """Keep a remark in the log after the entries so far (see :attr:`notes`)."""
        self.notes.append((len(self.log), str(text), str(kind)))

    # --- apply ---------------------------------------------------------------------------
    def replay(self, actions: Iterable[Any]) -> Iterator[tuple[int, ActionResult]]:
        """The one replay loop: apply each action in turn (an illegal one is logged and
        skipped) and yield ``(i, result)``. Scripts, saves and ``render --actions`` use it."""
        for i, action in enumerate(actions):
            yield i, self.try_apply(action)

    def apply(self, action: dict[str, Any]) -> ActionResult:
        """Apply an action; raises IllegalAction (state, dice and log untouched) if refused."""
        result = self._run(action, keep_failures=False)
        if not result.ok:
            raise IllegalAction(result.rule, result.reason)
        return result

    def try_apply(self, action: dict[str, Any]) -> ActionResult:
        """Apply an action; a refusal is an ``ok=False`` result (logged), never an exception."""
        return self._run(action, keep_failures=True)

    def _run(self, raw: Any, keep_failures: bool) -> ActionResult:
        entry = ActionResult(action=normalize(raw))
        # Without history (replays, loads) no snapshot is taken: the check runs before
        # anything changes, so a refusal leaves the state as it was.
        before = self.state.copy() if self.history else None
        dice_before = self.dice.getstate()
        nlog = len(self.log)
        try:
            resolve = self._check(parse_action(entry.action))
            self._cur = entry
            resolve()
        except IllegalAction as exc:
            self._restore(before, dice_before)
            entry = ActionResult(action=entry.action, ok=False, rule=exc.rule, reason=exc.reason)
        except Exception as exc:  # a bug of ours: refuse the action, keep the game alive
            self._restore(before, dice_before)
            why = _internal(exc)
            entry = ActionResult(action=entry.action, ok=False, rule=why.rule, reason=why.reason)
        finally:
            self._cur = None
        self._stamp(entry)
        if entry.ok:
            entry.rolls = list(self.dice.log[dice_before[2] :])
            if self.history:
                self._undo.append((before, dice_before, nlog))
                self._redo.clear()
            self.log.append(entry)
        elif keep_failures:
            self.log.append(entry)
        return entry

    def _not_allowed(self, kind: str) -> IllegalAction:
        st = self.state
        where = f"the {st.phase} phase" + (f", {st.step} step" if st.step else "")
        if self.pending is not None:
            where += f" (waiting for: {self.pending.kind.replace('_', ' ')})"
        return IllegalAction(
            RuleId.TURN, f"{kind} is not allowed in {where}; allowed: {', '.join(self.legal_action_kinds())}"
        )

    def _flow_refusal(self, kind: str) -> IllegalAction | None:
        """The game is over, or ``kind`` is not allowed in this phase, step or decision."""
        outcome = self.outcome()
        if outcome is not None:
            return IllegalAction(
                RuleId.U2,
                f"the game is over: {outcome.winner} has won"
                if outcome.winner
                else f"the game is over: a draw ({outcome.reason})",
            )
        if kind not in self.legal_action_kinds():
            return self._not_allowed(kind)
        return None

    def _check(self, act: Action, flow_checked: bool = False) -> Callable[[], None]:
        """Every check of ``act`` in order; returns what resolves it. Changes nothing.
        ``flow_checked``: :meth:`_flow_refusal` is known to be None (the first check)."""
        if not flow_checked:
            refusal = self._flow_refusal(act.kind)
            if refusal is not None:
                raise refusal
        ctx = self.ctx
        if act.kind in FLOW_ACTIONS:
            if act.kind == "end_step" and not self.flow.phase(self.state.phase).steps:
                raise IllegalAction(RuleId.TURN, f"the {self.state.phase} phase has no steps; use end_phase")
            if act.kind == "end_activation" and self.state.activation is None:
                raise IllegalAction(
                    RuleId.O2,
                    f"player {self.state.player} has no unit activated: act with "
                    "one, or pass the rest of the phase (end_phase)",
                )
            return lambda: getattr(self.flow, act.kind)(ctx)
        limit = turnorder.limit_refusal(ctx, act.kind, act.args)
        if limit is not None:
            raise limit
        rule = rules.ACTIONS[act.kind]
        plan = rule.check(ctx, act.args)

        def resolve() -> None:
            rule.resolve(ctx, plan)
            if rule.activates:
                self.flow.acted(ctx, act.args.get("unit"))
            self.flow.advance(ctx)

        return resolve

    def _restore(self, state: GameState | None, dice_state: tuple) -> None:
        if state is not None:
            self.state = state
        self.dice.setstate(dice_state)

    def _stamp(self, entry: ActionResult) -> None:
        st = self.state
        entry.turn, entry.player, entry.phase, entry.step = st.turn, st.player, st.phase, st.step
        entry.winner = self.winner

    # --- what the rules report through their context ------------------------------------------
    def _record(self, event: Event) -> None:
        if self._cur is not None:
            self._cur.events.append(event)

    def _report(self, extra: dict[str, Any]) -> None:
        if self._cur is not None:
            self._cur.extra.update(extra)

    def _pin(self, action: dict[str, Any]) -> None:
        if self._cur is not None:
            self._cur.pinned = action

    # --- undo / redo -------------------------------------------------------------------------
    def undo(self) -> None:
        """Back to the state before the last accepted action (dice generator included)."""
        if not self._undo:
            raise IllegalAction(RuleId.UNDO, "nothing to undo")
        before, dice_before, nlog = self._undo.pop()
        removed = self.log[nlog:]
        del self.log[nlog:]
        rolls = self.dice.log[dice_before[2] :]
        self._redo.append((self.state, self.dice.getstate(), removed, rolls, (before, dice_before, nlog)))
        self.state = before
        self.dice.setstate(dice_before)

    def redo(self) -> None:
        """Forward again to the state undo left (no dice are rolled again)."""
        if not self._redo:
            raise IllegalAction(RuleId.REDO, "nothing to redo")
        after, dice_after, removed, rolls, undo_entry = self._redo.pop()
        self._undo.append(undo_entry)
        self.log.extend(removed)
        self.dice.log.extend(rolls)
        self.dice.setstate(dice_after)
        self.state = after

    # --- replay output ------------------------------------------------------------------------
    def final_json(self) -> dict[str, Any]:
        """The last ``replay --json`` line."""
        st = self.state
        self.ctx.sync_tokens()
        units = {}
        for uid, u in st.units.items():
            units[uid] = {
                "x": _r(u.x),
                "y": _r(u.y),
                "z": _r(self.board.height_at(u.x, u.y)),
                "status": u.status,
                "carrying": u.carrying,
                "on_table": u.on_table,
            }
        treasure = {tid: {"x": _r(t.x), "y": _r(t.y), "carried_by": t.carried_by} for tid, t in st.treasure.items()}
        final = {
            "turn": st.turn,
            "player": st.player,
            "phase": st.phase,
            "step": st.step,
            "winner": self.winner,
            "units": units,
            "treasure": treasure,
            "lost": dict(st.lost),
            "routed": list(st.routed),
        }
        if st.end_reason:  # an end other than the last warband standing (T1)
            final["draw"] = st.draw
            final["end"] = st.end_reason
        if self.start.automatic or self.start.rolls or self.start.texts:
            final["start"] = {
                "rolls": [r.to_dict() for r in self.start.rolls],
                "automatic": self.start.automatic,
                "events": self.start.texts,
            }
        return {"final": final}

    def json_lines(self) -> list[str]:
        return [json.dumps(e.to_json_line(i)) for i, e in enumerate(self.log)] + [json.dumps(self.final_json())]
