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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from game.engine.events import PhaseBegan, TurnBegan
from game.engine.ruleset import BASE, load_ruleset
from game.engine.rules.context import DONE, RULE_TURN, WAIT, Ctx, PassTurn

#: Actions the flow itself owns, offered in every phase after the phase's own.
FLOW_ACTIONS = ("end_step", "end_phase", "end_turn")
#: A safety bound on steps run by themselves in one go (a ruleset loop is our bug).
_MAX_STEPS = 10_000


@dataclass(frozen=True)
class PhaseSpec:
    name: str
    actions: tuple[str, ...]
    steps: tuple[str, ...] = ()
    manual: bool = False
    end: str = "player"   # "steps" | "player"


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

    def __init__(self, rs: Any, steps: dict[str, StepFn], decline: Callable[[Ctx], None],
                 turn_begins: Callable[[Ctx], None], game_turn_ends: Callable[[Ctx], bool]):
        self.phases = phase_specs(rs)
        self.names = [p.name for p in self.phases]
        self._by_name = {p.name: p for p in self.phases}
        self._steps = steps
        self._decline = decline
        self._turn_begins = turn_begins
        self._game_turn_ends = game_turn_ends

    def phase(self, name: str) -> PhaseSpec:
        return self._by_name[name]

    def allowed(self, ctx: Ctx) -> list[str]:
        """The action kinds the phase, step or pending decision accepts now."""
        if ctx.pending is not None:
            return list(ctx.pending.actions)
        spec = self._by_name.get(ctx.state.phase)
        if spec is None:
            return list(FLOW_ACTIONS[1:])
        flow = FLOW_ACTIONS if spec.steps else FLOW_ACTIONS[1:]
        return list(spec.actions) + [a for a in flow if a not in spec.actions]

    # --- the pointer -----------------------------------------------------------------------
    def begin(self, ctx: Ctx) -> None:
        """At the start of a game: enter the first phase if the state stands at its very
        beginning, then run whatever steps need no decision."""
        st = ctx.state
        if st.phase not in self._by_name:
            st.phase = self.names[0]
        spec = self._by_name[st.phase]
        if spec.steps and st.step is None and st.progress == type(st.progress)() and st.pending is None:
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
        i = self.names.index(st.phase) if st.phase in self.names else len(self.names)
        if i + 1 < len(self.names):
            self.enter_phase(ctx, self.names[i + 1])
            ctx.auto(RULE_TURN, f"{st.phase} phase", PhaseBegan, phase=st.phase)
        else:
            self.pass_turn(ctx)

    def pass_turn(self, ctx: Ctx, reason: str = "") -> None:
        """The next player's turn (P1, P2, ...); after the last player, the next game turn."""
        st = ctx.state
        order = sorted(w.player for w in ctx.scenario.warbands if w.player > 0 and w.id not in st.routed)
        if not order:
            return
        later = [p for p in order if p > st.player]
        if later:
            st.player = later[0]
        else:
            if self._game_turn_ends(ctx):
                return
            st.player = order[0]
            st.turn += 1
        self._turn_begins(ctx)
        self.enter_phase(ctx, self.names[0])
        ctx.auto(RULE_TURN, f"turn {st.turn}, player {st.player}'s turn begins" + (f" ({reason})" if reason else ""),
                 TurnBegan, turn=st.turn, player=st.player)

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
