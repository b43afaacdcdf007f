"""The ``planner`` bot: it chooses a goal per unit by playing plans forward on copies.

At the first Engage or Move decision of its turn (under ``activation: alternating``,
O2, of each of its activations) the planner searches joint plans
(:mod:`portfolio`: the utility bot's choice, then one-unit changes to it: take a token,
deny one, engage a unit, escort a carrier, take cover, hold, fall back), scores each by
playing the rest of this turn and the opponent's reply turn on a sandbox copy of the game
(:mod:`rollout`, common random numbers, several samples a plan) and valuing where that
leaves it (:func:`evaluate`: the score, the T1 tie-break, the turns left, the rout
count). It then plays the turn by the best plan (:class:`GoalPolicy`), and says in each
reason what it weighed. At game turn 1 it may first choose a goal to hold over the first
game turns, which every plan then keeps (:mod:`opening`: the search alone looks one turn
ahead, and drops a denial that pays in the fourth).

The budget (``planner:250ms``, ``planner:2s``; default :data:`DEFAULT_BUDGET_MS`) is the
planning time of one player-turn. It is turned into a number of decisions played in
rollouts (:func:`budget_steps`: the budget less :data:`OVERHEAD_MS`, at :data:`STEP_MS`
a decision, both measured on the project's 2-core machine by
``tools/calibrate_planner.py``), not read off a clock: the same seed gives the same game
on any machine and under any load. The search is anytime: it scores plans likeliest
first and stops when the rollouts run out, with the best plan so far.
"""

from __future__ import annotations

import re

from game.bots.base import BotDecision
from game.bots.planner.evaluate import WIN, Value, evaluate, kill_chance
from game.bots.planner.threats import ThreatReply
from game.bots.planner.goals import GOAL_KINDS, Goal, GoalPolicy
from game.bots.planner.opening import LOOK_FACTOR, Held, look
from game.bots.planner.portfolio import SCREEN_MARGIN, PlanSearch, Scored, Searcher
from game.bots.utility import UtilityBot
from game.engine import kernels, turnorder
from game.engine.errors import LoadError, Problem

#: Planning time of one player-turn by default (ms): it keeps the median player-turn on
#: the bundled maps under issue 21's 1.5 s with room for a loaded machine (the measured
#: times are in docs/benchmarks.md).
DEFAULT_BUDGET_MS = 1200
#: The budget's conversion into decisions, measured with ``tools/calibrate_planner.py``
#: (planner against utility, turns 1-4, both seats, CPU time of the planner's decisions):
#: the cost of one decision played in a rollout (the sandbox copy, the decision,
#: ``Game.apply``, the value at the end), and what a player-turn spends outside its
#: rollouts (the utility choices it plays, the sense, the candidates). They are fixed
#: numbers, not read off a clock, so a game does not depend on the machine; the
#: measurements behind them are in docs/decisions/0003-planner-budget-in-decisions.md.
STEP_MS = 6.5
OVERHEAD_MS = 55
#: Samples (dice sequences) per plan, and the fewest decisions a search gets (one
#: sample of the utility plan on the default map is about 20).
SAMPLES = 2
MIN_STEPS = 20
#: Plans near the best screening that ``advise`` plays out in whole (it is not on the clock).
ADVISE_PLANS = 8


def budget_steps(budget_ms: float) -> int:
    """Decisions a search may play in rollouts within ``budget_ms`` of one player-turn."""
    return max(MIN_STEPS, int((budget_ms - OVERHEAD_MS) / STEP_MS))


_BUDGET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$")


def parse_budget(text: str) -> int:
    """``250ms`` / ``2s`` / ``1.5s`` -> milliseconds; a bad budget raises LoadError."""
    m = _BUDGET.match(text or "")
    if not m or float(m.group(1)) <= 0:
        raise LoadError([Problem("planner", 0, f"bad planner budget {text!r} (e.g. planner:250ms, planner:2s)")])
    value = float(m.group(1))
    return int(round(value * (1000 if m.group(2) == "s" else 1)))


def _score_text(v: Value) -> str:
    mine, theirs = v.held
    if mine == theirs:
        return f"level {mine}-{theirs}"
    return f"{'ahead' if mine > theirs else 'behind'} {mine}-{theirs}"


class PlannerBot:
    """Searches unit goals against the opponent's reply (see the module's docstring)."""

    def __init__(self, budget_ms: int = DEFAULT_BUDGET_MS, samples: int = SAMPLES):
        self.budget_ms = int(budget_ms)
        self.samples = samples
        self.steps = budget_steps(self.budget_ms)
        self.name = "planner" if self.budget_ms == DEFAULT_BUDGET_MS else f"planner:{self.budget_ms}ms"
        self.base = UtilityBot()
        self.cautious = UtilityBot("cautious")
        self.reply = ThreatReply(UtilityBot(), kill_chance, WIN)
        self._key = None
        self._search: PlanSearch | None = None
        self._why: dict[str, str] = {}
        self._policy = GoalPolicy({}, self.base, self.cautious)
        #: The opening look's goal (:mod:`.opening`), and whether this bot has looked.
        self.held: Held | None = None
        self._looked = False
        #: False: no opening look (a benchmark of the forward model times the turn's search alone).
        self.opening = True

    # --- the one question -----------------------------------------------------------------------
    def choose(self, view) -> BotDecision:
        st = view.state
        mine = view.pending is None and view.player == st.player and view.player > 0
        key = self._turn_key(view)
        if mine and st.phase in ("engage", "move") and self._key != key:
            kinds = set(view.legal_action_kinds())
            if "engage" in kinds or "move" in kinds:
                self._plan(view)
        if not mine or self._key != key:
            return self.base.choose(view)
        d = self._policy.choose(view)
        # The plan's reason goes with the goal's own action (an Engage, a move), not with
        # the unit's later shots and blows, which are the utility bot's.
        why = self._why.get(d.unit or "") if next(iter(d.action), None) in GOAL_KINDS else None
        goal = self._policy.plan.get(d.unit or "")
        said = goal.text(self._search.names) if why and goal is not None else None
        if said and d.reason.startswith(said) and why.startswith(said + ": "):
            why = why[len(said) + 2 :]  # the action says the goal already
        if why:
            d = BotDecision(d.action, f"{d.reason}; {why}", unit=d.unit, path=d.path, score=d.score, extra=d.extra)
        elif self._search is not None and d.unit:
            d = BotDecision(
                d.action,
                f"{d.reason} (the utility choice; plan {self._search.best.value:+.1f})",
                unit=d.unit,
                path=d.path,
                score=d.score,
                extra=d.extra,
            )
        return d

    def search(self, view, fixed: dict[str, Goal] | None = None) -> PlanSearch | None:
        """The search at this decision point (for the side whose turn it is); ``fixed``:
        goals every plan holds (the opening look's)."""
        side = UtilityBot._side(view)
        if side is None:
            return None
        return Searcher(view, side, self.base, self.cautious, self.reply, self.steps, self.samples, fixed).run()

    def _fixed(self, view) -> dict[str, Goal]:
        """The goal the opening look holds now, if any (looked once, at game turn 1 of a
        game played by whole turns: under O2 each activation is searched on its own)."""
        side = UtilityBot._side(view)
        if (
            self.opening
            and not self._looked
            and side is not None
            and view.state.turn == 1
            and not turnorder.is_alternating(view.rules)
        ):
            self._looked = True
            self.held = look(view, side, self.base, self.cautious, self.reply, LOOK_FACTOR * self.steps)
        held = self.held
        return {held.goal.unit: held.goal} if held is not None and held.holds(view.state) else {}

    @staticmethod
    def _turn_key(view) -> tuple:
        """What one search plans for: the player's turn, or under ``activation:
        alternating`` (O2) each of its activations (a search looks one activation and the
        reply ahead, so a plan made at the first would steer the later ones unweighed)."""
        st = view.state
        if not turnorder.is_alternating(view.rules):
            return (st.turn, st.player)
        return (st.turn, st.player, st.phase, len(st.activated))

    def _plan(self, view) -> None:
        # A bot that plays asks thousands of the kernels' questions a turn: compiled from its
        # first search (advice, one search in a short process, does not pay the compiling)
        kernels.long_run()
        self._key = self._turn_key(view)
        fixed = self._fixed(view)
        self._search = s = self.search(view, fixed)
        plan = s.best.plan if s is not None else {}
        self._policy = GoalPolicy({**fixed, **plan}, self.base, self.cautious)
        self._why = {uid: self.explain(s, s.best, g) for uid, g in plan.items()} if s is not None else {}
        if fixed and s is not None and self.held is not None:
            self._why[self.held.goal.unit] = self.held.text(s.names)

    # --- reasons ----------------------------------------------------------------------------------
    def explain(self, s: PlanSearch, plan: Scored, goal: Goal | None = None) -> str:
        """What the search weighed for ``plan``: the score, the clock, the samples."""
        base = s.baseline
        names = s.names
        if goal is not None:
            what = goal.text(names)
        elif plan.plan:
            what = "the plan: " + ", ".join(g.text(names) for g in plan.plan.values())
        else:
            what = "the utility bot's choice"
        n = len(plan.values)
        left = s.now.turns_left
        clock = f"{left} turn{'s' if left != 1 else ''} left" if left < 99 else "no turn limit"
        parts = [f"{what}: {_score_text(s.now)} with {clock}"]
        if not n:
            # Screened only (its own turn played once): nothing was worth whole rollouts.
            tried = f"{len(s.scored) - 1} changes screened, none better" if not plan.plan else "screened only"
            parts.append(f"worth {plan.value:+.1f} after its turn ({tried})")
            return "; ".join(parts)
        # counts, not shares: with two samples a plan, "50%" would claim more than the data says
        mine_now = s.now.held[0]
        gain = plan.count(lambda v: v.held[0] > mine_now)
        ahead = plan.count(lambda v: v.held[0] > v.held[1])
        lose = plan.count(lambda v: v.lost[0] > s.now.lost[0])
        if plan.plan and base.values:
            parts.append(
                f"{plan.mean - base.mean:+.1f} points over the utility plan ({plan.mean:+.1f} vs {base.mean:+.1f}, "
                f"{_count(n, 'sample')} each, {s.rollouts} rollouts, {s.screens} screened)"
            )
        else:
            parts.append(
                f"worth {plan.mean:+.1f} ({_count(n, 'sample')}; {len(s.scored) - 1} changes tried, none better)"
            )
        parts.append(
            f"holds more tokens in {gain} of {_count(n, 'sample')}, ahead on treasure in {ahead}, "
            f"loses a unit in {lose}"
        )
        return "; ".join(parts)

    # --- advise: the top K first actions ---------------------------------------------------------
    def options(self, view, k: int) -> list[BotDecision]:
        """The first actions of the ``k`` best plans, best first: ``score`` is the plan's
        value in points (every listed plan and the utility plan on every sample, the same
        dice), ``reason`` what it weighed; no action twice (a worse plan that starts alike
        is left out). advise is not on the clock: every plan whose screening comes within
        :data:`~game.bots.planner.portfolio.SCREEN_MARGIN` of the best (at most
        :data:`ADVISE_PLANS` of them) gets its whole rollouts here, so a plan the search
        only screened is not listed below a worse one it did play out.
        When a plan's first action ends a phase or step (the Engage phase with nothing to
        engage), the reason names the unit action that follows on a copy, and
        ``extra["then"]`` holds it."""
        s = self.search(view)
        if s is None:
            return [self.base.choose(view)][:k]
        if s.searcher is not None:
            top = max(p.screened for p in s.scored)
            near = [p for p in s.scored if p.values or p.screened >= top - SCREEN_MARGIN]
            for plan in [s.baseline] + near[:ADVISE_PLANS]:
                if len(plan.values) < self.samples:
                    s.searcher.score(plan.plan, into=plan)
            s.rollouts = s.searcher.used  # the reasons count these rollouts too
        ranked = sorted(s.scored, key=lambda p: (len(p.values) < self.samples, -p.value, len(p.plan), p.key()))
        out: list[BotDecision] = []
        seen = set()
        for plan in ranked:
            policy = GoalPolicy(plan.plan, self.base, self.cautious)
            d = policy.choose(view)
            if repr(d.action) in seen:
                continue
            seen.add(repr(d.action))
            then = self._then(view, policy, d)
            why = self.explain(s, plan)
            extra = dict(d.extra)
            reason = d.reason
            if then is not None:
                extra["then"] = then.action
                reason = f"{d.reason}, then {then.reason}"
            out.append(
                BotDecision(d.action, f"{reason}; {why}", unit=d.unit, path=d.path, score=plan.value, extra=extra)
            )
            if len(out) >= k:
                break
        return out

    @staticmethod
    def _then(view, policy: GoalPolicy, d: BotDecision) -> BotDecision | None:
        """After a flow action, the first unit action of the same turn (on a copy)."""
        if d.unit is not None:
            return None
        from game.bots.view import view as view_of

        game = view.sandbox(0)
        start = (game.state.turn, game.state.player)
        for _ in range(8):
            if (
                game.is_over()
                or (game.state.turn, game.state.player) != start
                or game.why_illegal(d.action) is not None
            ):
                return None
            game.apply(d.action)
            if game.is_over() or (game.state.turn, game.state.player) != start:
                return None
            d = policy.choose(view_of(game, view.player))
            if d.unit is not None:
                return d
        return None


def make_planner(spec: str) -> PlannerBot:
    """``planner`` or ``planner:BUDGET`` (``250ms``, ``2s``)."""
    if spec == "planner":
        return PlannerBot()
    return PlannerBot(parse_budget(spec.split(":", 1)[1]))


def _count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless one: "1 sample", "2 samples"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


__all__ = [
    "DEFAULT_BUDGET_MS",
    "budget_steps",
    "Goal",
    "GoalPolicy",
    "PlannerBot",
    "Value",
    "evaluate",
    "make_planner",
    "parse_budget",
]
