"""The opening look: a goal held over the first game turns (issue 47, "a plan over
several turns").

The planner's search looks one turn and the opponent's reply ahead, so a goal that pays
only some turns later (an Animal denying the token the other side's party will reach in
its fourth turn) looks like a loss at every turn and is never kept: on the mirror table
the second seat's planner lost 17 of 20 games to the utility bot, and won 7 of 10 when
its Hound was made to deny the first seat's yard token for four turns.

At the side's first turn of the game (game turn 1), :func:`look` plays each goal of its
units that cannot take a token (Animals, a hunt or denial being all they can do with
treasure) :data:`HOLD_TURNS` game turns ahead, the goal held and every other unit of
both sides played by the utility bot, and values where that leaves the side
(:func:`evaluate`). The same is played with no goal held, on the same dice (common random
numbers, as the search's samples; :data:`SAMPLES` each). The best goal is held when its
mean beats holding none by :data:`MARGIN` points: the planner's search then plans the
other units round it each turn (``Searcher(fixed=...)``) until the look's last turn.

Only units that cannot take a token are looked at: looking at every unit's goals, a
scratch version held a Swordsman at that token in 7 of 10 games and won 3 of them; with
the Animals' goals only it won 5 (the utility bot's play of the turns after does not
price what a unit that could take a token gives up; docs/benchmarks.md).

Its cost is decisions, as the search's budget is (:data:`LOOK_FACTOR` times the
player-turn's): about 2,900 of its 5,280 at the default budget on the mirror table, some
seconds once a game. A budget too small for every sample of every goal looks at nothing.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from game.bots.driver import with_neutrals
from game.bots.planner.evaluate import evaluate
from game.bots.planner.goals import Goal, GoalPolicy
from game.bots.planner.portfolio import candidates, evaluate_view
from game.bots.planner.rollout import apply_or_pass, decide, sample_seed
from game.bots.sense import Sense

#: Game turns a goal is looked ahead over and held (its first included).
HOLD_TURNS = 4
#: Points a goal's mean must beat holding none by (the planner's points: a token is 12).
MARGIN = 2.0
#: Goal kinds looked at, and the samples of each (and of holding none; the same dice).
KINDS = ("deny", "mark")
SAMPLES = 4
#: The look's budget, in decisions, as a multiple of the player-turn's.
LOOK_FACTOR = 30
#: Decisions after which one look-ahead stops (a policy that never ends is a bug).
MAX_STEPS = 4000


@dataclass
class Held:
    """A goal held until game turn ``until`` (included), with what the look measured."""

    goal: Goal
    until: int
    value: float  # the goal's mean after HOLD_TURNS game turns
    none: float  # holding no goal's mean, on the same dice
    samples: int
    looked: int  # goals looked at

    def text(self, names: dict[str, str] | None = None) -> str:
        return (
            f"{self.goal.text(names)}: held to turn {self.until} (looked {HOLD_TURNS} turns ahead at turn 1: "
            f"{self.value:+.1f} against {self.none:+.1f} holding nothing, {self.samples} samples, "
            f"{self.looked} goals looked at)"
        )

    def holds(self, state) -> bool:
        """Is the goal still to be held now? Until its turn, while the unit is active."""
        u = state.units.get(self.goal.unit)
        return state.turn <= self.until and u is not None and u.active


def holders(sense: Sense) -> set[str]:
    """The side's units a look holds a goal for: those the rules do not let take a token
    though they stand fresh and empty-handed (the Animals, U6): not a carrier, whose
    hands are full for now."""
    return {
        u.id for u in sense.mine if u.active and not u.carrying and u.status == "normal" and not sense.can_pick_up(u)
    }


def ahead(view, player: int, side: str, plan: dict[str, Goal], base, cautious, reply, seed: int) -> tuple[float, int]:
    """Play ``HOLD_TURNS`` game turns from here on a sandbox (dice ``seed``): ``player`` by
    ``plan`` (the rest of its units as ``base``), the opponent by ``reply``. Returns the
    side's value there and the decisions played."""
    game = view.sandbox(seed)
    end = game.state.turn + HOLD_TURNS
    bots = with_neutrals({player: GoalPolicy(plan, base, cautious), 3 - player: reply})
    steps = 0
    while not game.is_over() and game.state.turn < end and steps < MAX_STEPS:
        who = game.turn_player()
        bot = bots.get(who)
        if bot is None:
            break
        steps += 1
        if apply_or_pass(game, decide(bot, game, who).action) is None:
            break
    return evaluate(game, side).total, steps


def look(view, side: str, base, cautious, reply, budget: int) -> Held | None:
    """The goal to hold from now (see the module's docstring), or None: none beats
    holding nothing by :data:`MARGIN`, or ``budget`` (decisions) does not cover the look."""
    sense = Sense(view, side, base.personality, base.book)
    mine = holders(sense)
    turns_left = evaluate_view(view, side).turns_left
    goals = [g for _p, g in candidates(sense, turns_left) if g.unit in mine and g.kind in KINDS]
    if not goals:
        return None
    key = f"look:{view.seed}:{side}"
    values: dict[Goal | None, list[float]] = {}
    per = None  # decisions one look-ahead costs (the first one's)

    def sample(goal: Goal | None, i: int) -> None:
        nonlocal per
        plan = {goal.unit: goal} if goal is not None else {}
        v, steps = ahead(view, view.player, side, plan, base, cautious, reply, sample_seed(key, i))
        values.setdefault(goal, []).append(v)
        per = per or steps

    sample(None, 0)
    if per * (len(goals) + 1) * SAMPLES > budget:  # the first look-ahead's cost as the measure
        return None
    for i in range(SAMPLES):
        for g in ([None] if i else []) + goals:
            sample(g, i)
    none = statistics.fmean(values[None])
    best = max(goals, key=lambda g: statistics.fmean(values[g]))  # the likeliest first of equals
    value = statistics.fmean(values[best])
    if value < none + MARGIN:
        return None
    return Held(best, view.state.turn + HOLD_TURNS - 1, value, none, SAMPLES, len(goals))


__all__ = ["HOLD_TURNS", "Held", "LOOK_FACTOR", "MARGIN", "SAMPLES", "ahead", "holders", "look"]
