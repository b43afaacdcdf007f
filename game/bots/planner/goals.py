"""Unit goals and the policy that pursues them for one player-turn.

A :class:`Goal` is what one unit sets out to do this turn: ``take`` a token, ``deny`` one,
``engage`` a unit, ``escort`` a carrier, ``mark`` an enemy (stand within the Run denial
range of it, M2, so that it walks its next move), take ``cover``, ``hold`` where it
stands, or ``fall_back``. A plan gives some units a goal; :class:`GoalPolicy` plays a turn by it:
those units pursue their goal (an Engage on the target when the rules allow it, else a
move or Run along the movement engine's route to the goal's place, as far as this turn
reaches: :func:`game.bots.routes.route_move`), the others do what
the ``utility`` bot would. Pending decisions, shooting and melee are the utility bot's.

Every action is checked with ``why_illegal`` before it is returned; a goal that cannot be
pursued leaves the unit where it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import shapely
from shapely.ops import nearest_points

from game.bots.base import BotDecision, end_decision
from game.bots.routes import route_move
from game.bots.sense import Sense, gap
from game.bots.utility import UtilityBot
from game.bots.view import acted_now
from game.engine.decisions import Grab, NeutralsAct, PickUp, VoluntaryRout

KINDS = ("take", "deny", "engage", "escort", "mark", "cover", "hold", "fall_back")
#: Inches inside the Run denial range (M2) a ``mark`` aims for (a measured distance rounds).
MARK_INSIDE = 0.5
#: Fractions of the way to the chosen point tried when the point itself is refused.
BACKOFF = (1.0, 0.92, 0.8, 0.6, 0.4)


@dataclass(frozen=True)
class Goal:
    kind: str  # one of KINDS
    unit: str
    target: str | None = None

    def text(self, names: dict[str, str] | None = None) -> str:

        def n(uid: str) -> str:
            return (names or {}).get(uid, uid)

        if self.kind == "fall_back":
            return f"{n(self.unit)} falls back"
        if self.kind in ("cover", "hold"):
            return f"{n(self.unit)} {'takes cover' if self.kind == 'cover' else 'holds'}"
        if self.kind == "mark":
            return f"{n(self.unit)} holds {n(self.target)} to a walk"
        verb = {"take": "takes", "deny": "denies", "engage": "engages", "escort": "escorts"}[self.kind]
        return f"{n(self.unit)} {verb} {n(self.target)}"


def can_act(u) -> bool:
    """May ``u`` still move or Engage this turn (the utility bot's own filter)?"""
    return u.active and not u.engaged_with and not u.moved and u.used <= 0 and not u.engage_attempted and not u.reloaded


class GoalPolicy:
    """Plays the side ``side``'s turn by ``plan`` (unit id -> :class:`Goal`); the units
    without a goal play as ``base`` (a utility bot) would."""

    def __init__(self, plan: dict[str, Goal], base: UtilityBot, cautious: UtilityBot):
        self.plan = plan
        self.base, self.cautious = base, cautious
        self.name = "planner-policy"

    def choose(self, view) -> BotDecision:
        p = view.pending
        if isinstance(p, (PickUp, Grab, VoluntaryRout, NeutralsAct)):
            return self.base.choose(view)
        kinds = set(view.legal_action_kinds())
        side = UtilityBot._side(view)
        if side is None:
            return self.base.choose(view)
        sense = Sense(view, side, self.base.personality, self.base.book)
        if "attack" in kinds:
            d = self.base._melee(sense)
            if d is not None:
                return d
        if "shoot" in kinds:
            d = self.base._shoot(sense)
            if d is not None:
                return d
        if "engage" in kinds:
            d = self._engage(sense)
            if d is not None:
                return d
        if "move" in kinds:
            d = self._move(sense)
            if d is not None:
                return d
        return end_decision(view, f"ends the {view.state.phase} phase")

    # --- Engage ---------------------------------------------------------------------------------
    def _engage(self, sense: Sense) -> BotDecision | None:
        d = self.goal_engage(sense)
        if d is not None:
            return d
        free = [
            u
            for u in sense.mine
            if u.id not in self.plan
            and not u.engage_attempted
            and not u.moved
            and u.used <= 0
            and u.status not in ("stunned", "dazed")
            and not u.engaged_with
        ]
        return self.base._best_engage(sense, free, opportunity=True)

    def goal_engage(self, sense: Sense) -> BotDecision | None:
        """The Engage of a unit whose goal is to engage its target, when the rules allow it."""
        view = sense.view
        for u in sense.mine:
            goal = self.plan.get(u.id)
            if goal is None or goal.kind != "engage" or not can_act(u) or u.status in ("stunned", "dazed"):
                continue
            t = sense.state.units.get(goal.target)
            if t is None or not t.active:
                continue
            if gap(u.x, u.y, u.r, t) > sense.engage_reach(u) + 0.1:
                continue
            action = {"engage": {"unit": u.id, "target": t.id}}
            if view.why_illegal(action) is None:
                return BotDecision(action, f"{sense.name(u.id)} engages {sense.name(t.id)}", unit=u.id)
        return None

    # --- Move -----------------------------------------------------------------------------------
    def _move(self, sense: Sense) -> BotDecision | None:
        d = self.goal_move(sense)
        if d is not None:
            return d
        # The others as the utility bot moves them (it skips units already done).
        planned = set(self.plan)
        sense.mine = [u for u in sense.mine if u.id not in planned]
        return self.base._move(sense)

    def goal_move(self, sense: Sense) -> BotDecision | None:
        """The move of the first unit (in the scenario's order) with a goal that has not
        acted yet and can get nearer to it."""
        view = sense.view
        done = acted_now(view)
        for u in sorted(sense.mine, key=lambda u: view.unit_order(u.id)):
            goal = self.plan.get(u.id)
            if goal is None or u.id in done or not can_act(u):
                continue
            d = self.pursue(sense, u, goal)
            if d is not None:
                return d
        return None

    def pursue(self, sense: Sense, u, goal: Goal) -> BotDecision | None:
        """The move (or Run) of ``u`` towards its goal, or None (it stays)."""
        st, rs = sense.state, sense.rs
        if goal.kind == "hold":
            return None
        if goal.kind == "cover":
            cs = Sense(sense.view, sense.side, self.cautious.personality, self.cautious.book)
            return self.cautious._move_unit(cs, u, picker=None)
        target = st.units.get(goal.target) if goal.target else None
        tok = st.treasure.get(goal.target) if goal.target else None
        if goal.kind == "fall_back":
            foes = sorted(sense.enemies, key=lambda e: gap(u.x, u.y, u.r, e))[:3]
            if not foes:
                return None
            cx = sum(e.x for e in foes) / len(foes)
            cy = sum(e.y for e in foes) / len(foes)
            dx, dy = u.x - cx, u.y - cy
            d = math.hypot(dx, dy) or 1.0
            far = float(u.stats.get("move", 0)) * float(rs.run_multiplier) * 2
            point = (u.x + dx / d * far, u.y + dy / d * far)
            return move_towards(sense, u, point, "falls back")
        if tok is not None:
            if tok.carried_by:
                return None
            ring = u.r + tok.r + (sense.contact * 0.4 if goal.kind == "take" else float(rs.treasure_denial_range) * 0.5)
            why = f"towards {tok.id} ({goal.kind})"
            return route_move(sense, u, (tok.x, tok.y), ring, why) or move_towards(
                sense, u, _towards(tok.x, tok.y, u.x, u.y, ring), why
            )
        if target is not None and target.active and goal.kind == "mark":
            lim = float(rs.run_denial_range)
            ring = u.r + target.r + max(0.0, lim - min(MARK_INSIDE, lim / 4))
            point = _towards(target.x, target.y, u.x, u.y, ring)
            return move_towards(sense, u, point, f'within {lim:g}" of {sense.name(target.id)} to deny its Run')
        if target is not None and target.active:
            ring = u.r + target.r + (0.4 if goal.kind == "engage" else 1.0)
            why = f"{'closing on' if goal.kind == 'engage' else 'escorting'} {sense.name(target.id)}"
            return route_move(sense, u, (target.x, target.y), ring, why) or move_towards(
                sense, u, _towards(target.x, target.y, u.x, u.y, ring), why
            )
        return None


def _towards(x: float, y: float, fx: float, fy: float, dist: float) -> tuple[float, float]:
    """The point ``dist`` from (x, y) in the direction of (fx, fy)."""
    dx, dy = fx - x, fy - y
    d = math.hypot(dx, dy)
    if d < 1e-9:
        return (x, y)
    return (x + dx / d * dist, y + dy / d * dist)


def _nearest(region, point) -> tuple[float, float] | None:
    if region is None or region.is_empty:
        return None
    q = nearest_points(region, shapely.Point(point))[0]
    return (q.x, q.y)


def move_towards(sense: Sense, u, point: tuple[float, float], why: str) -> BotDecision | None:
    """A move (or a Run, when it gets nearer by more than a step) of ``u`` to the place of
    its reachable area nearest ``point``; None when it cannot get nearer."""
    view = sense.view
    reach = view.reachable(u.id)
    if reach is None:
        return None
    here = math.hypot(u.x - point[0], u.y - point[1])
    options = []
    for region, kind in ((reach.walk_free, "move"), (reach.run_free, "run")):
        q = _nearest(region, point)
        if q is not None:
            options.append((math.hypot(q[0] - point[0], q[1] - point[1]), kind, q))
    if not options:
        return None
    options.sort(key=lambda o: o[0])
    best = options[0]
    walk = next((o for o in options if o[1] == "move"), None)
    if walk is not None and walk[0] <= best[0] + 0.5:
        best = walk  # a Run gains little: walk (and keep the shot)
    dist, kind, q = best
    if here - dist < 0.25:
        return None
    for f in BACKOFF:
        x, y = u.x + (q[0] - u.x) * f, u.y + (q[1] - u.y) * f
        if math.hypot(x - u.x, y - u.y) < 0.25:
            break
        action = {kind: {"unit": u.id, "to": [round(x, 3), round(y, 3)]}}
        if view.why_illegal(action) is None:
            verb = "runs" if kind == "run" else "moves"
            return BotDecision(action, f"{sense.name(u.id)} {verb} to [{x:.1f}, {y:.1f}], {why}", unit=u.id)
    return None


#: Unit actions a goal replaces (the rest of a unit's turn, its shots and blows, is replayed).
GOAL_KINDS = ("engage", "move", "run", "reload")


class ReplayPolicy:
    """A screening's policy: the utility plan's own turn (``script``, its decisions in
    order, as played on the same dice) replayed, with the units of ``plan`` pursuing their
    goals instead (:class:`GoalPolicy`): their own scripted moves are left out and they act
    when the script would end the Engage or Move phase, after the others' scripted moves.
    A scripted action the rules refuse now (the changed unit stands in the way) is skipped
    and that unit decides afresh, as the utility bot would. ``replayed`` counts the
    scripted actions played again (a legality question and ``Game.apply`` each)."""

    def __init__(self, plan: dict[str, Goal], script: list[BotDecision], base: UtilityBot, cautious: UtilityBot):
        self.goals = GoalPolicy(plan, base, cautious)
        self.script = list(script)
        self.at = 0
        self.replayed = 0
        self.name = "planner-screen"

    def choose(self, view) -> BotDecision:
        if view.pending is None:
            phase = view.state.phase
            while self.at < len(self.script):
                d = self.script[self.at]
                kind = next(iter(d.action))
                if d.unit in self.goals.plan and kind in GOAL_KINDS:
                    self.at += 1  # the goal's unit moves by its goal (below)
                    continue
                if d.unit is None and kind in ("end_phase", "end_step") and phase in ("engage", "move"):
                    # The goal units that have not acted in this phase act before it ends.
                    goal_d = self._goal(view)
                    if goal_d is not None:
                        return goal_d
                if view.why_illegal(d.action) is None:
                    self.at += 1
                    self.replayed += 1
                    return d
                self.at += 1
                if d.unit is not None:
                    break  # that unit decides afresh
        return self.goals.choose(view)

    def _goal(self, view) -> BotDecision | None:
        side = UtilityBot._side(view)
        if side is None:
            return None
        sense = Sense(view, side, self.goals.base.personality, self.goals.base.book)
        kinds = set(view.legal_action_kinds())
        if "engage" in kinds:
            d = self.goals.goal_engage(sense)
            if d is not None:
                return d
        return self.goals.goal_move(sense) if "move" in kinds else None
