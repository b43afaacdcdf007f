"""The phase controller: turns, phases and steps from ruleset data; apply, undo, log.

``Game(scenario, dice)`` owns the one :class:`GameState`. Every change goes through
:meth:`Game.apply` (raises :class:`IllegalAction`, state untouched) or
:meth:`Game.try_apply` (an ``ok=False`` result instead). The controller checks, in
order: the action is well formed, the game is not over, the action is allowed in this
phase/step, the right player acts, then the rule itself. Upkeep steps that need no
decision run by themselves and are logged as ``automatic`` in the line of the action
that set them off (see ``docs/actions.md``).

Undo is a snapshot stack (python-chess style): each accepted action pushes a copy of
the state and the dice generator's state; undo swaps them back, redo swaps forward.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from game.engine import upkeep
from game.engine.actions import RULE_ACTION, Action, normalize, parse_action
from game.engine.dice import Dice, Roll
from game.engine.errors import IllegalAction
from game.engine.geometry import Board
from game.engine.measure import board_for
from game.engine.model import GameState, Scenario, Unit

RULE_TURN = "turn"  # the turn sequence (RULES.md "The turn"): wrong phase, wrong player
NEUTRALS = "neutrals"
TURN_FLAGS = {"ran": False, "moved": False, "used": 0.0, "difficult": False, "reloaded": False, "engage_attempted": False}

_FLOW = ["end_phase", "end_turn"]
_MANUAL = ["set_status", "incapacitate", "disengage", "roll", "check", "cast", "end_spell"]
#: Default actions per phase name (a ruleset phase may list its own ``actions``).
PHASE_ACTIONS: dict[str, list[str]] = {
    "engage": ["engage"] + _MANUAL + _FLOW,
    "move": ["move", "run", "reload", "roll", "check"] + _FLOW,
    "shoot": _MANUAL + _FLOW,
    "melee": _MANUAL + _FLOW,
}
PENDING_ACTIONS: dict[str, list[str]] = {
    "voluntary_rout": ["rout", "play_on", "roll", "end_step", "end_phase"],
    "grab": ["grab", "roll", "end_step", "end_phase"],
    "pick_up": ["pick_up", "roll", "check", "end_step", "end_phase"],
    "neutrals": ["move", "run", "engage", "disengage", "set_status", "incapacitate", "roll", "check", "end_step", "end_phase"],
}


def _r(v: float) -> float:
    return round(float(v), 4)


@dataclass
class ActionResult:
    """One line of the game log: the action, whether it was legal, and what it set off."""

    action: Any
    ok: bool = True
    rule: str | None = None
    reason: str | None = None
    rolls: list[Roll] = field(default_factory=list)
    automatic: list[dict[str, Any]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    turn: int = 0
    player: int = 0
    phase: str = ""
    step: str | None = None
    winner: str | None = None

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
        if self.automatic:
            line["automatic"] = list(self.automatic)
        if self.events:
            line["events"] = list(self.events)
        if self.winner:
            line["winner"] = self.winner
        return line

    def text(self, i: int | None = None) -> str:
        """A readable log line (the play window's log panel and ``replay`` without --json)."""
        from game.engine.actions import describe

        head = f"#{i} " if i is not None else ""
        what = describe(self.action) if self.action is not None else "start"
        if not self.ok:
            return f"{head}{what}: ILLEGAL {self.rule}: {self.reason}"
        lines = [f"{head}{what}: ok -> turn {self.turn}, player {self.player}, {self.phase}" + (f"/{self.step}" if self.step else "")]
        lines += [f"    roll: {r}" for r in self.rolls]
        lines += [f"    automatic [{a['step']}] {a['rule']}: {a['text']}" for a in self.automatic]
        lines += [f"    {e}" for e in self.events]
        if self.winner:
            lines.append(f"    winner: {self.winner}")
        return "\n".join(lines)


LogEntry = ActionResult


class Game:
    """A game in play: the state, the flow of turns, the dice, the log and the undo stack."""

    def __init__(self, scenario: Scenario, dice: Dice | None = None, *, history: bool = True,
                 board: Board | None = None, mover: Any = None):
        self.scenario = scenario
        self.rs = scenario.ruleset
        self.board = board or board_for(scenario)
        self.dice = dice if dice is not None else Dice(seed=0)
        self.state: GameState = scenario.state.copy()
        self.history = history
        self.log: list[ActionResult] = []
        self._mover = mover
        self._undo: list[tuple] = []
        self._redo: list[tuple] = []
        self._cur: ActionResult | None = None
        self._order = {uid: i for i, uid in enumerate(scenario.unit_order)}
        self._start_sizes: dict[str, int] = {}
        for u in scenario.state.units.values():
            self._start_sizes[u.warband] = self._start_sizes.get(u.warband, 0) + 1
        self.neutral_id = next((w.id for w in scenario.warbands if w.player == 0), NEUTRALS)
        self._player_of = {w.id: w.player for w in scenario.warbands}
        self._phases = self.rs.phase_names
        self._phase_data = {p["name"]: p for p in self.rs.phases}
        for w in scenario.warbands:
            self.state.lost.setdefault(w.id, 0)
        # The start: automatic upkeep steps run now and are kept in ``start``.
        self.start = ActionResult(action=None)
        n = len(self.dice.log)
        self._cur = self.start
        if self.state.phase not in self._phases:
            self.state.phase = self._phases[0]
        if self.state.phase == "upkeep" and self.state.step is None and not self.state.extra.get("progress"):
            self._enter_phase("upkeep")
        self._advance()
        self._cur = None
        self.start.rolls = list(self.dice.log[n:])
        self._stamp(self.start)

    # --- questions --------------------------------------------------------------------
    @property
    def mover(self):
        """The movement engine (issue 3), imported lazily; None while it does not exist."""
        if self._mover is None:
            try:
                from game.engine.movement import Mover
            except ImportError:
                return None
            self._mover = Mover(self.scenario, self.board)
        return self._mover

    @property
    def pending(self) -> dict[str, Any] | None:
        return self.state.extra.get("pending")

    @property
    def progress(self) -> dict[str, Any]:
        return self.state.extra.setdefault("progress", {})

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def outcome(self) -> str | None:
        """The winning warband's id once only one warband remains, else None."""
        if self.state.winner:
            return self.state.winner
        playing = [w.id for w in self.scenario.warbands if w.player > 0]
        left = [w for w in playing if w not in self.state.routed]
        if len(playing) > 1 and len(left) == 1:
            return left[0]
        return None

    def is_over(self) -> bool:
        return self.outcome() is not None

    def legal_action_kinds(self) -> list[str]:
        """The actions the current phase/step accepts now (UI buttons use it)."""
        if self.is_over():
            return []
        p = self.pending
        if p is not None:
            return list(PENDING_ACTIONS[p["kind"]])
        phase = self.state.phase
        data = self._phase_data.get(phase, {})
        if data.get("actions"):
            kinds = list(data["actions"])
            return kinds + [k for k in _FLOW if k not in kinds]
        if phase == "upkeep":
            return ["roll", "end_step", "end_phase", "end_turn"]
        if phase in PHASE_ACTIONS:
            return list(PHASE_ACTIONS[phase])
        return list(_MANUAL + _FLOW) if self.rs.is_manual(phase) else ["roll"] + _FLOW

    def warband_player(self, wid: str) -> int:
        return self._player_of.get(wid, 0)

    def current_warband(self):
        return self.scenario.warband_of_player(self.state.player)

    def starting_size(self, wid: str) -> int:
        return self._start_sizes.get(wid, 0)

    def order_of(self, uid: str) -> int:
        return self._order.get(uid, len(self._order))

    # --- recording (used by upkeep) ------------------------------------------------------
    def auto(self, rule: str, text: str) -> None:
        if self._cur is not None:
            self._cur.automatic.append({"step": self.state.step or self.state.phase, "rule": rule, "text": text})

    def event(self, text: str) -> None:
        if self._cur is not None:
            self._cur.events.append(text)

    def set_pending(self, pending: dict | None) -> None:
        if pending is None:
            self.state.extra.pop("pending", None)
        else:
            self.state.extra["pending"] = pending

    # --- apply ---------------------------------------------------------------------------
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
        # Without history (replays, loads) no snapshot is taken: every handler checks
        # before it changes anything, so a refusal leaves the state as it was.
        before = self.state.copy() if self.history else None
        dice_before = self.dice.getstate()
        nlog = len(self.log)
        self._cur = entry
        try:
            act = parse_action(entry.action)
            self._dispatch(act)
        except IllegalAction as exc:
            self._restore(before, dice_before)
            entry = ActionResult(action=entry.action, ok=False, rule=exc.rule, reason=exc.reason)
        except Exception as exc:  # a bug of ours: refuse the action, keep the game alive
            self._restore(before, dice_before)
            entry = ActionResult(action=entry.action, ok=False, rule="internal",
                                 reason=f"internal error ({type(exc).__name__}: {exc}); please report it")
        finally:
            self._cur = None
        self._stamp(entry)
        if entry.ok:
            entry.rolls = list(self.dice.log[dice_before[2]:])
            if self.history:
                self._undo.append((before, dice_before, nlog))
                self._redo.clear()
            self.log.append(entry)
        elif keep_failures:
            self.log.append(entry)
        return entry

    def _restore(self, state: GameState | None, dice_state: tuple) -> None:
        if state is not None:
            self.state = state
        self.dice.setstate(dice_state)

    def _stamp(self, entry: ActionResult) -> None:
        st = self.state
        entry.turn, entry.player, entry.phase, entry.step = st.turn, st.player, st.phase, st.step
        entry.winner = self.outcome()

    # --- undo / redo -------------------------------------------------------------------------
    def undo(self) -> None:
        """Back to the state before the last accepted action (dice generator included)."""
        if not self._undo:
            raise IllegalAction("undo", "nothing to undo")
        before, dice_before, nlog = self._undo.pop()
        removed = self.log[nlog:]
        del self.log[nlog:]
        rolls = self.dice.log[dice_before[2]:]
        self._redo.append((self.state, self.dice.getstate(), removed, rolls, (before, dice_before, nlog)))
        self.state = before
        self.dice.setstate(dice_before)

    def redo(self) -> None:
        """Forward again to the state undo left (no dice are rolled again)."""
        if not self._redo:
            raise IllegalAction("redo", "nothing to redo")
        after, dice_after, removed, rolls, undo_entry = self._redo.pop()
        self._undo.append(undo_entry)
        self.log.extend(removed)
        self.dice.log.extend(rolls)
        self.dice.setstate(dice_after)
        self.state = after

    # --- flow ----------------------------------------------------------------------------
    def _enter_phase(self, name: str) -> None:
        st = self.state
        st.phase = name
        st.step = self.rs.upkeep_steps[0] if name == "upkeep" and self.rs.upkeep_steps else None
        st.extra["progress"] = {}
        self.set_pending(None)

    def _next_step(self) -> None:
        st = self.state
        steps = list(self.rs.upkeep_steps)
        i = steps.index(st.step) if st.step in steps else len(steps)
        st.extra["progress"] = {}
        self.set_pending(None)
        if i + 1 < len(steps):
            st.step = steps[i + 1]
        else:
            self._next_phase()

    def _next_phase(self) -> None:
        st = self.state
        i = self._phases.index(st.phase) if st.phase in self._phases else len(self._phases)
        if i + 1 < len(self._phases):
            self._enter_phase(self._phases[i + 1])
            self.auto(RULE_TURN, f"{st.phase} phase")
        else:
            self.pass_turn()

    def pass_turn(self, reason: str = "") -> None:
        """The next player's turn (P1, P2, ...); after the last player, the next game turn."""
        st = self.state
        order = sorted(w.player for w in self.scenario.warbands if w.player > 0 and w.id not in st.routed)
        if not order:
            return
        later = [p for p in order if p > st.player]
        if later:
            st.player = later[0]
        else:
            st.player = order[0]
            st.turn += 1
        w = self.current_warband()
        self.clear_turn_flags([u.id for u in st.units_of(w.id)] if w else [])
        self._enter_phase(self._phases[0])
        self.auto(RULE_TURN, f"turn {st.turn}, player {st.player}'s turn begins" + (f" ({reason})" if reason else ""))

    def clear_turn_flags(self, uids: list[str]) -> None:
        """Per-turn flags clear when the owner's turn begins (docs/actions.md)."""
        for uid in uids:
            u = self.state.units[uid]
            for key, value in TURN_FLAGS.items():
                setattr(u, key, value)
            u.trail = []

    def _advance(self) -> None:
        """Run upkeep steps by themselves until one waits for a decision or upkeep ends."""
        for _ in range(10_000):
            st = self.state
            if self.is_over() or st.phase != "upkeep" or self.pending is not None:
                return
            if st.step is None:
                st.step = self.rs.upkeep_steps[0] if self.rs.upkeep_steps else None
                if st.step is None:
                    self._next_phase()
                    continue
            result = upkeep.STEPS[st.step](self)
            if result == upkeep.DONE:
                self._next_step()
            elif result == upkeep.WAIT:
                return
        raise RuntimeError("the upkeep phase did not settle")  # pragma: no cover

    # --- dispatch ------------------------------------------------------------------------------
    def _dispatch(self, act: Action) -> None:
        st = self.state
        winner = self.outcome()
        if winner:
            raise IllegalAction("U2", f"the game is over: {winner} has won")
        kinds = self.legal_action_kinds()
        if act.kind not in kinds:
            where = f"the {st.phase} phase" + (f", {st.step} step" if st.step else "")
            if self.pending:
                where += f" (waiting for: {self.pending['kind'].replace('_', ' ')})"
            raise IllegalAction(RULE_TURN, f"{act.kind} is not allowed in {where}; allowed: {', '.join(kinds)}")
        handler: Callable[[dict], None] = getattr(self, f"_do_{act.kind}")
        handler(act.args)

    def _unit(self, uid: str) -> Unit:
        u = self.state.units.get(uid)
        if u is None:
            raise IllegalAction(RULE_ACTION, f"unknown unit {uid!r}")
        if not u.on_table:
            raise IllegalAction(RULE_TURN, f"{uid} has left the table")
        return u

    def _acting(self, uid: str) -> Unit:
        """A unit the current side may act with (its own, or a Neutral in the Neutrals step)."""
        u = self._unit(uid)
        p = self.pending
        if p is not None and p["kind"] == "neutrals":
            if u.warband != self.neutral_id:
                raise IllegalAction("U1", f"{uid} is not a Neutral unit; in the Neutrals step only Neutrals act")
        elif self.warband_player(u.warband) != self.state.player:
            raise IllegalAction(RULE_TURN, f"{uid} belongs to player {self.warband_player(u.warband)}; it is player {self.state.player}'s turn")
        if u.status == "incapacitated":
            raise IllegalAction("U5", f"{uid} is Incapacitated")
        return u

    def _sync_tokens(self) -> None:
        st = self.state
        for tok in st.treasure.values():
            if tok.carried_by:
                c = st.units.get(tok.carried_by)
                if c is not None:
                    tok.x, tok.y = c.x, c.y

    # flow actions
    def _do_end_step(self, args: dict) -> None:
        st = self.state
        if st.phase != "upkeep":
            raise IllegalAction(RULE_TURN, f"the {st.phase} phase has no steps; use end_phase")
        if self.pending is not None:
            upkeep.decline(self)
        else:
            self._next_step()
        self._advance()

    def _do_end_phase(self, args: dict) -> None:
        st = self.state
        if st.phase == "upkeep":
            turn, player = st.turn, st.player
            for _ in range(1000):
                if self.is_over() or st.phase != "upkeep" or (st.turn, st.player) != (turn, player):
                    return
                if self.pending is not None:
                    upkeep.decline(self)
                else:
                    self._next_step()
                self._advance()
                st = self.state
            return
        self._next_phase()
        self._advance()

    def _do_end_turn(self, args: dict) -> None:
        turn, player = self.state.turn, self.state.player
        for _ in range(1000):
            if self.is_over() or (self.state.turn, self.state.player) != (turn, player):
                return
            self._do_end_phase({})

    # upkeep decisions
    def _pending(self, kind: str) -> dict:
        p = self.pending
        if p is None or p["kind"] != kind:
            raise IllegalAction(RULE_TURN, f"nothing waits for a {kind.replace('_', ' ')} decision now")
        return p

    def _do_rout(self, args: dict) -> None:
        p = self._pending("voluntary_rout")
        if args["player"] != p["player"]:
            raise IllegalAction("U3", f"player {args['player']} may not rout now: only player {p['player']} just passed a Rout Check")
        self.set_pending(None)
        upkeep.start_rout(self, p["warband"], "voluntary rout after a passed Rout Check (U3)")
        self._advance()

    def _do_play_on(self, args: dict) -> None:
        p = self._pending("voluntary_rout")
        if args["player"] != p["player"]:
            raise IllegalAction("U3", f"player {args['player']} has no rout decision to take (player {p['player']} has)")
        upkeep.decline(self)
        self._advance()

    def _do_grab(self, args: dict) -> None:
        p = self._pending("grab")
        if args["token"] != p["token"]:
            raise IllegalAction("U4", f"the grab now is for {p['token']}, not {args['token']}")
        if args["unit"] not in p["units"]:
            raise IllegalAction("U4", f"{args['unit']} may not try for {p['token']}: choose one of {', '.join(p['units'])} (within {self.rs.treasure_grab_range:g}\" and able to pick up)")
        self.set_pending(None)
        self.progress["chosen"] = args["unit"]
        self._advance()

    def _do_pick_up(self, args: dict) -> None:
        u = self._acting(args["unit"])
        tok = self.state.treasure.get(args["token"])
        if tok is None:
            raise IllegalAction(RULE_ACTION, f"unknown treasure token {args['token']!r}")
        why = upkeep.pickup_denial(self, u, tok)
        if why is not None:
            raise why
        self.set_pending(None)
        upkeep.take_token(self, u, tok, events=True)
        self._advance()

    # move phase
    def _do_move(self, args: dict, run: bool = False) -> None:
        u = self._acting(args["unit"])
        mover = self.mover
        if mover is None:
            raise IllegalAction("M1", "the movement engine is not available yet")
        to = tuple(args["to"]) if "to" in args else None
        path = [tuple(p) for p in args["path"]] if "path" in args else None
        plan = mover.plan(self.state, u.id, to=to, path=path, run=run, descend=args.get("descend", "climb"))
        outcome = mover.apply(self.state, plan, self.dice)
        extra = {}
        for part in (plan, outcome):
            to_dict = getattr(part, "to_dict", None)
            if to_dict is not None:
                extra.update({k: v for k, v in to_dict().items() if k not in ("ok", "action", "i", "rolls")})
        events = extra.pop("events", None)
        if events:
            self._cur.events.extend(str(e) for e in events)
        self._cur.extra.update(extra)
        fallen = getattr(outcome, "incapacitated", None) or []
        for uid in ([u.id] if fallen is True else list(fallen)):
            self.state.units[uid].status = "normal"  # the fall set it: count the loss, drop the token (U6)
            upkeep.incapacitate(self, uid)
        self._sync_tokens()

    def _do_run(self, args: dict) -> None:
        self._do_move(args, run=True)

    def _do_reload(self, args: dict) -> None:
        u = self._acting(args["unit"])
        mover = self.mover
        if mover is not None and hasattr(mover, "reload"):
            out = mover.reload(self.state, u.id)
            if out is not None and hasattr(out, "to_dict"):
                self._cur.extra.update(out.to_dict())
            return
        if u.moved or u.used > 0:
            raise IllegalAction("M11", f"{u.id} has already moved {u.used:.2f}\" this turn: reloading is instead of moving")
        if u.reloaded:
            raise IllegalAction("M11", f"{u.id} has already reloaded this turn")
        u.reloaded = True
        self.event(f"{u.id} reloads (no move this turn)")

    # manual phases
    def _do_engage(self, args: dict) -> None:
        u = self._acting(args["unit"])
        t = self._unit(args["target"])
        self._cur.extra.update(self.engage(u, t))

    def engage(self, u: Unit, t: Unit) -> dict[str, Any]:
        """Slide ``u`` into base contact with ``t`` (pymunk); raises IllegalAction, changes nothing then."""
        from game.engine.movement.bases import slide_into_contact

        st, rs = self.state, self.rs
        if t.id == u.id:
            raise IllegalAction(RULE_ACTION, f"{u.id} cannot engage itself")
        if t.warband == u.warband:
            raise IllegalAction(RULE_ACTION, f"{t.id} is in {u.id}'s own warband")
        if not t.active:
            raise IllegalAction("U5", f"{t.id} is Incapacitated")
        if u.status in ("stunned", "dazed"):
            raise IllegalAction("U5", f"{u.id} is {u.status.capitalize()} and cannot Engage")
        if u.engage_attempted:
            raise IllegalAction("M1", f"{u.id} already attempted to Engage this turn")
        if u.moved or u.used > 0:
            raise IllegalAction("M1", f"{u.id} has already moved this turn")
        allowance = u.stats.get("move", 0) * (rs.staggered_move_factor if u.status == "staggered" else 1)
        gap = self.board.distance(u, t)
        if gap > allowance + 1e-9:
            raise IllegalAction("M1", f"engage denied: {t.id} is {gap:.2f}\" away ({u.id} may engage up to {allowance:g}\")")
        x0, y0 = u.x, u.y
        if gap > rs.contact_tolerance + 1e-9:
            x, y = slide_into_contact(self.board, st, u.id, t.id, tolerance=rs.contact_tolerance)
            moved = dict(x=u.x, y=u.y)
            u.x, u.y = x, y
            after = self.board.distance(u, t)
            blocked = self.board.pieces_touching_disc(x, y, u.r, ("wall", "impassable"))
            if after > rs.contact_tolerance + 1e-9 or blocked:
                u.x, u.y = moved["x"], moved["y"]
                what = f"{blocked[0].kind} {blocked[0].id}" if blocked else "another base"
                raise IllegalAction("M5", f"engage blocked: {what} is in the way ({after:.2f}\" short of {t.id})")
        u.engage_attempted = True
        for a, b in ((u, t), (t, u)):
            if b.id not in a.engaged_with:
                a.engaged_with.append(b.id)
        self._sync_tokens()
        self.event(f"{u.id} engages {t.id} (from [{x0:.2f}, {y0:.2f}], {gap:.2f}\" of {allowance:g}\")")
        return {"from": [_r(x0), _r(y0)], "to": [_r(u.x), _r(u.y)], "distance": _r(gap), "allowance": _r(allowance)}

    def _do_disengage(self, args: dict) -> None:
        u = self._unit(args["unit"])
        targets = [args["target"]] if "target" in args else list(u.engaged_with)
        if not targets or any(t not in u.engaged_with for t in targets):
            raise IllegalAction(RULE_ACTION, f"{u.id} is not engaged with {args.get('target', 'anyone')}")
        for tid in targets:
            u.engaged_with.remove(tid)
            o = self.state.units.get(tid)
            if o is not None and u.id in o.engaged_with:
                o.engaged_with.remove(u.id)
        self.event(f"{u.id} disengages from {', '.join(targets)}")

    def _do_set_status(self, args: dict) -> None:
        u = self._unit(args["unit"])
        status = args["status"]
        if u.status == "incapacitated":
            raise IllegalAction("U5", f"{u.id} is Incapacitated (a loss is counted); undo the incapacitation instead")
        if status == "incapacitated":
            upkeep.incapacitate(self, u.id)
            return
        before, u.status = u.status, status
        self.event(f"{u.id}: {before} -> {status}")

    def _do_incapacitate(self, args: dict) -> None:
        u = self._unit(args["unit"])
        if u.status == "incapacitated":
            raise IllegalAction("U5", f"{u.id} is already Incapacitated")
        by = args.get("by")
        if by is not None:
            b = self._unit(by)
            if not b.active:
                raise IllegalAction("U5", f"{by} is Incapacitated")
            if b.warband == u.warband:
                raise IllegalAction(RULE_ACTION, f"{by} is in {u.id}'s own warband")
        upkeep.incapacitate(self, u.id, by=by)

    def _do_roll(self, args: dict) -> None:
        unit = args.get("unit")
        if unit is not None:
            self._unit(unit)
        roll = self.dice.roll(args["sides"], args.get("reason") or "free roll", rule="free", unit=unit, count=args.get("count", 1))
        self.event(f"rolled {args.get('count', 1)}d{args['sides']}: {roll.values} = {roll.kept}")

    def _do_check(self, args: dict) -> None:
        st, rs = self.state, self.rs
        u = self._unit(args["unit"])
        stat = args["stat"]
        if stat not in u.stats:
            raise IllegalAction(RULE_ACTION, f"{u.id} has no stat {stat!r} (stats: {', '.join(u.stats)})")
        disadvantage = args.get("disadvantage", False)
        if (u.status == "staggered" and self.warband_player(u.warband) == st.player and rs.is_manual(st.phase)
                and not disadvantage):
            disadvantage = True
            self.event(f"{u.id} is Staggered: Disadvantage until the end of its own turn (U5)")
        roll = self.dice.check(rs, u.stats[stat], reason=args.get("reason") or f"{stat} check", rule=args.get("rule") or "check",
                               unit=u.id, stat=stat, advantage=args.get("advantage", False), disadvantage=disadvantage,
                               modifier=args.get("modifier", 0))
        self.event(f"{u.id} {stat} check: {'pass' if roll.success else 'fail'}")

    def _do_cast(self, args: dict) -> None:
        u = self._acting(args["unit"])
        if not u.is_caster:
            raise IllegalAction("U8", f"{u.id} is not a Caster")
        if u.status == "stunned":
            raise IllegalAction("U5", f"{u.id} is Stunned and cannot cast")
        spell = args["spell"]
        notes = []
        if u.ran:
            notes.append("after Running: penalty (M2)")
        if u.status == "staggered":
            notes.append("Staggered: Disadvantage (U5)")
        if args.get("ongoing"):
            if spell in u.spells:
                raise IllegalAction("U8", f"{u.id} already keeps {spell} going")
            u.spells.append(spell)
            notes.append("Ongoing: a Morale check each Upkeep (U8)")
        self.event(f"{u.id} casts {spell}" + (f" ({'; '.join(notes)})" if notes else ""))

    def _do_end_spell(self, args: dict) -> None:
        u = self._unit(args["unit"])
        if args["spell"] not in u.spells:
            raise IllegalAction("U8", f"{u.id} has no Ongoing spell {args['spell']!r}")
        u.spells.remove(args["spell"])
        self.event(f"{u.id}'s {args['spell']} ends")

    # --- replay output ------------------------------------------------------------------------
    def final_json(self) -> dict[str, Any]:
        """The last ``replay --json`` line."""
        st = self.state
        self._sync_tokens()
        units = {}
        for uid, u in st.units.items():
            units[uid] = {"x": _r(u.x), "y": _r(u.y), "z": _r(self.board.height_at(u.x, u.y)), "status": u.status,
                          "carrying": u.carrying, "on_table": u.on_table}
        treasure = {tid: {"x": _r(t.x), "y": _r(t.y), "carried_by": t.carried_by} for tid, t in st.treasure.items()}
        final = {"turn": st.turn, "player": st.player, "phase": st.phase, "step": st.step, "winner": self.outcome(),
                 "units": units, "treasure": treasure, "lost": dict(st.lost), "routed": list(st.routed)}
        if self.start.automatic or self.start.rolls or self.start.events:
            final["start"] = {"rolls": [r.to_dict() for r in self.start.rolls], "automatic": self.start.automatic,
                              "events": self.start.events}
        return {"final": final}

    def json_lines(self) -> list[str]:
        return [json.dumps(e.to_json_line(i)) for i, e in enumerate(self.log)] + [json.dumps(self.final_json())]
