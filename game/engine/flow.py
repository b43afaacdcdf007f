"""The flow: the turn, phase and step pointer, and nothing else (boardgame.io style).

Phases are ruleset data (``phases:`` in the ruleset YAML): each has a name, the actions it
allows, its steps (run in order; a step that needs no decision runs by itself), and what
ends it (``end: steps`` when its last step is done, ``end: player`` on ``end_phase``).
The flow moves the pointer: it enters phases, runs steps, declines pending decisions on
``end_step`` and passes the turn. What a step or an action *does* is a rule
(:mod:`game.engine.rules`); the flow only calls the step functions it is given by name.

A phase entry that leaves out ``actions`` or ``steps`` takes those of the phase of the
same name in the bundled ruleset, so older ruleset files keep working; ``steps`` may name
a ruleset parameter that holds the list (``steps: upkeep_steps``).

Turn order and activation are ruleset data too (RULES.md O1, O2; :mod:`game.engine.turnorder`).
``state.first`` is the first player of the game turn, chosen by ``turn_order`` as each game
turn begins. Under ``activation: whole_turn`` each player plays every phase in the game
turn's order. Under ``alternating`` a phase with steps (Upkeep) runs once per player in
that order, and a phase without steps is one of *activations*: the players take turns to
activate one unit each (``state.activation``, ``activated``, ``passed``); a player ends an
activation with ``end_activation`` and passes the rest of the phase with ``end_phase``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from game.engine import turnorder
from game.engine.events import Activated, Automatic, FirstPlayer, PhaseBegan, TurnBegan, TurnLimits
from game.engine.rule_ids import RuleId
from game.engine.ruleset import BASE, load_ruleset
from game.engine.rules.context import DONE, WAIT, Ctx, PassTurn

#: Actions the flow itself owns, offered in every phase after the phase's own.
FLOW_ACTIONS = ("end_step", "end_phase", "end_turn", "end_activation")
#: A safety bound on steps run by themselves in one go (a ruleset loop is our bug).
_MAX_STEPS = 10_000


@dataclass(frozen=True)
class PhaseSpec:
    name: str
    actions: tuple[str, ...]
    steps: tuple[str, ...] = ()
    manual: bool = False
    end: str = "player"  # "steps" | "player"


def phase_specs(rs: Any) -> list[PhaseSpec]:
    """The ruleset's phases, with what an entry leaves out taken from the bundled ruleset."""
    base = {p["name"]: p for p in load_ruleset(BASE).phases}
    out = []
    for p in rs.phases:
        fallback = base.get(p["name"], {})
        actions = p.get("actions", fallback.get("actions"))
        if actions is None:
            actions = rs.get("manual_actions", []) if p.get("manual") else ["roll"]
        steps = p.get("steps", fallback.get("steps", []))
        if isinstance(steps, str):
            steps = rs.get(steps, [])
        steps = tuple(steps or ())
        end = p.get("end", "steps" if steps else "player")
        out.append(PhaseSpec(p["name"], tuple(actions), steps, bool(p.get("manual", False)), end))
    return out


StepFn = Callable[[Ctx], Any]


class Flow:
    """The pointer over ``phase_specs(rs)``; ``steps`` maps step names to step functions,
    ``decline`` ends a pending decision unanswered, ``turn_begins`` readies a player's units,
    ``game_turn_ends`` says whether the game ends with the game turn (T1)."""

    def __init__(
        self,
        rs: Any,
        steps: dict[str, StepFn],
        decline: Callable[[Ctx], None],
        turn_begins: Callable[[Ctx], None],
        game_turn_ends: Callable[[Ctx], bool],
    ):
        self.phases = phase_specs(rs)
        self.names = [p.name for p in self.phases]
        self._by_name = {p.name: p for p in self.phases}
        self._steps = steps
        self._decline = decline
        self._turn_begins = turn_begins
        self._game_turn_ends = game_turn_ends
        self.alternating = turnorder.is_alternating(rs)
        self.how = turnorder.turn_order(rs)
        self.fixed = self.how == "fixed" and not self.alternating

    def phase(self, name: str) -> PhaseSpec:
        return self._by_name[name]

    def allowed(self, ctx: Ctx) -> list[str]:
        """The action kinds the phase, step or pending decision accepts now."""
        if ctx.pending is not None:
            return list(ctx.pending.actions)
        spec = self._by_name.get(ctx.state.phase)
        if spec is None:
            return ["end_phase", "end_turn"]
        if self.alternating:
            flow = ("end_step", "end_phase") if spec.steps else ("end_phase", "end_activation")
        else:
            flow = ("end_step", "end_phase", "end_turn") if spec.steps else ("end_phase", "end_turn")
        return list(spec.actions) + [a for a in flow if a not in spec.actions]

    def activating(self, ctx: Ctx) -> bool:
        """Under ``alternating`` (O2), the phase is one of activations (it has no steps)."""
        spec = self._by_name.get(ctx.state.phase)
        return self.alternating and spec is not None and not spec.steps

    # --- the pointer -----------------------------------------------------------------------
    def begin(self, ctx: Ctx) -> None:
        """At the start of a game: enter the first phase if the state stands at its very
        beginning (choosing game turn 1's first player, O1), then run whatever steps need
        no decision."""
        st = ctx.state
        if st.phase not in self._by_name:
            st.phase = self.names[0]
        spec = self._by_name[st.phase]
        fresh = st.step is None and st.progress == type(st.progress)() and st.pending is None
        at_start = fresh and st.turn == 1 and st.phase == self.names[0] and st.player == st.first
        if at_start and not self.fixed:
            first, why = turnorder.choose_first(ctx, 1)
            st.first = st.player = first
            ctx.auto(
                RuleId.O1,
                f"game turn 1: player {first} goes first" + (f" ({why})" if why else ""),
                FirstPlayer if why else TurnBegan,
                turn=1,
                player=first,
                **({"how": self.how} if why else {}),
            )
            if self.alternating and not spec.steps:
                self._open_phase(ctx)
        limits = turnorder.first_turn_limits(ctx.rs)
        if at_start and limits:
            ctx.auto(
                RuleId.O3,
                f"player {st.first} goes first and plays game turn 1 under {', '.join(limits)} (first_turn_limits)",
                TurnLimits,
                player=st.first,
                limits=tuple(limits),
            )
        if spec.steps and fresh:
            self.enter_phase(ctx, st.phase)
        self.advance(ctx)

    def enter_phase(self, ctx: Ctx, name: str) -> None:
        st = ctx.state
        spec = self._by_name[name]
        st.phase = name
        st.step = spec.steps[0] if spec.steps else None
        self._fresh(ctx)

    def _fresh(self, ctx: Ctx) -> None:
        st = ctx.state
        st.progress = type(st.progress)()
        ctx.set_pending(None)
        if st.activation is not None or st.activated or st.passed:
            st.activation, st.activated, st.passed = None, [], []

    def next_step(self, ctx: Ctx) -> None:
        st = ctx.state
        steps = list(self._by_name[st.phase].steps)
        i = steps.index(st.step) if st.step in steps else len(steps)
        self._fresh(ctx)
        if i + 1 < len(steps):
            st.step = steps[i + 1]
        else:
            self.next_phase(ctx)

    def next_phase(self, ctx: Ctx) -> None:
        st = ctx.state
        if self.alternating and self._by_name[st.phase].steps:
            nxt = turnorder.after(ctx, st.player)
            if nxt is not None:  # the same phase (Upkeep) for the next player of the game turn
                st.player = nxt
                self.enter_phase(ctx, st.phase)
                ctx.auto(RuleId.TURN, f"{st.phase} phase, player {nxt}", PhaseBegan, phase=st.phase)
                return
        i = self.names.index(st.phase) if st.phase in self.names else len(self.names)
        if i + 1 < len(self.names):
            if self.alternating:
                live = turnorder.playing(ctx)
                st.player = live[0] if live else st.player
            self.enter_phase(ctx, self.names[i + 1])
            ctx.auto(RuleId.TURN, f"{st.phase} phase", PhaseBegan, phase=st.phase)
            if self.activating(ctx):
                self._open_phase(ctx)
        elif self.alternating:
            self._next_game_turn(ctx)
        else:
            self.pass_turn(ctx)

    def pass_turn(self, ctx: Ctx, reason: str = "") -> None:
        """The next player's turn in this game turn's order; after the last player, the next
        game turn (its first player chosen by O1). Under ``alternating``, the player's part of
        this phase ends (a rout in Upkeep)."""
        st = ctx.state
        if self.alternating:
            if ctx.outcome() is None:
                self.next_phase(ctx)
            return
        if not turnorder.playing(ctx):
            return
        nxt = turnorder.after(ctx, st.player)
        why = ""
        if nxt is not None:
            st.player = nxt
        else:
            if self._game_turn_ends(ctx):
                return
            st.turn += 1
            nxt, why = turnorder.choose_first(ctx, st.turn)
            st.first = st.player = nxt
        self._turn_begins(ctx)
        self.enter_phase(ctx, self.names[0])
        said = "; ".join(w for w in (reason, why) if w)
        ctx.auto(
            RuleId.TURN,
            f"turn {st.turn}, player {st.player}'s turn begins" + (f" ({said})" if said else ""),
            FirstPlayer if why else TurnBegan,
            turn=st.turn,
            player=st.player,
            **({"how": self.how} if why else {}),
        )

    # --- activations (O2 alternating) ------------------------------------------------------
    def _next_game_turn(self, ctx: Ctx) -> None:
        """Under ``alternating``: the next game turn begins with its first player (O1); the
        turn's flags of every player's units clear ("this turn" is the game turn)."""
        st = ctx.state
        if not turnorder.playing(ctx) or self._game_turn_ends(ctx):
            return
        st.turn += 1
        first, why = turnorder.choose_first(ctx, st.turn)
        st.first = first
        for p in turnorder.playing(ctx):
            st.player = p
            self._turn_begins(ctx)
        st.player = first
        self.enter_phase(ctx, self.names[0])
        ctx.auto(
            RuleId.TURN,
            f"game turn {st.turn} begins: player {first} goes first" + (f" ({why})" if why else ""),
            FirstPlayer if why else TurnBegan,
            turn=st.turn,
            player=first,
            **({"how": self.how} if why else {}),
        )
        if self.activating(ctx):
            self._open_phase(ctx)

    def _units_left(self, ctx: Ctx, player: int) -> list[str]:
        """The units of ``player`` that may still be activated in this phase."""
        st = ctx.state
        w = ctx.scenario.warband_of_player(player)
        if w is None or w.id in st.routed:
            return []
        return [u.id for u in st.units_of(w.id) if u.active and u.id not in st.activated]

    def _open_phase(self, ctx: Ctx) -> None:
        """A phase of activations begins with the first player, or passes on at once when
        that player has no unit to activate."""
        st = ctx.state
        if not self._units_left(ctx, st.player):
            self._hand_over(ctx)

    def _close_activation(self, ctx: Ctx) -> None:
        st = ctx.state
        if st.activation is not None:
            ctx.auto(RuleId.O2, f"{st.activation}'s activation ends")
            st.activated.append(st.activation)
            st.activation = None

    def _hand_over(self, ctx: Ctx) -> None:
        """The next activation: the next player in order who has not passed and has a unit
        left (the same player when the others have none); else the phase ends."""
        st = ctx.state
        live = turnorder.playing(ctx)
        if ctx.outcome() is not None or not live:
            return
        i = live.index(st.player) if st.player in live else -1
        for k in range(1, len(live) + 1):
            p = live[(i + k) % len(live)]
            if p in st.passed or not self._units_left(ctx, p):
                continue
            if p != st.player:
                st.player = p
                ctx.auto(RuleId.O2, f"player {p}'s activation ({st.phase} phase)", Automatic)
            return
        self.next_phase(ctx)

    def acted(self, ctx: Ctx, uid: str | None) -> None:
        """After an accepted action with ``uid``: under ``alternating``, a unit of the side
        to act is activated by it; an activated unit that left play ends its activation."""
        if not self.activating(ctx):
            return
        st = ctx.state
        u = st.units.get(uid) if uid else None
        if st.activation is None and u is not None and ctx.warband_player(u.warband) == st.player:
            st.activation = uid
            ctx.auto(RuleId.O2, f"player {st.player} activates {uid}", Activated, unit=uid, player=st.player)
        cur = st.units.get(st.activation) if st.activation else None
        if cur is not None and not cur.active:
            self._close_activation(ctx)
            self._hand_over(ctx)

    def end_activation(self, ctx: Ctx) -> None:
        self._close_activation(ctx)
        self._hand_over(ctx)
        self.advance(ctx)

    def advance(self, ctx: Ctx) -> None:
        """Run steps by themselves until one waits for a decision or the phase ends."""
        for _ in range(_MAX_STEPS):
            st = ctx.state
            spec = self._by_name.get(st.phase)
            if ctx.outcome() is not None or spec is None or not spec.steps or ctx.pending is not None:
                return
            if st.step is None:
                if st.progress.done:  # the steps are over; the player ends the phase
                    return
                st.step = spec.steps[0]
            result = self._steps[st.step](ctx)
            if result == DONE:
                if st.step == spec.steps[-1] and spec.end == "player":
                    self._fresh(ctx)
                    st.step = None
                    st.progress.done = True
                    return
                self.next_step(ctx)
            elif result == WAIT:
                return
            elif isinstance(result, PassTurn):
                self.pass_turn(ctx, result.reason)
        raise RuntimeError("the steps of a phase did not settle")  # pragma: no cover

    # --- the flow's own actions ------------------------------------------------------------
    def end_step(self, ctx: Ctx) -> None:
        if ctx.pending is not None:
            self._decline(ctx)
        else:
            self.next_step(ctx)
        self.advance(ctx)

    def end_phase(self, ctx: Ctx) -> None:
        st = ctx.state
        if self.activating(ctx):  # the player passes the rest of the phase (O2)
            self._close_activation(ctx)
            st.passed.append(st.player)
            ctx.auto(RuleId.O2, f"player {st.player} passes the rest of the {st.phase} phase")
            self._hand_over(ctx)
            self.advance(ctx)
            return
        if not self._by_name[st.phase].steps:
            self.next_phase(ctx)
            self.advance(ctx)
            return
        turn, player, phase = st.turn, st.player, st.phase
        for _ in range(_MAX_STEPS):
            st = ctx.state
            if ctx.outcome() is not None or st.phase != phase or (st.turn, st.player) != (turn, player):
                return
            self.end_step(ctx)

    def end_turn(self, ctx: Ctx) -> None:
        turn, player = ctx.state.turn, ctx.state.player
        for _ in range(_MAX_STEPS):
            if ctx.outcome() is not None or (ctx.state.turn, ctx.state.player) != (turn, player):
                return
            self.end_phase(ctx)
