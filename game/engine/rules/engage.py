"""The Engage phase: ``engage`` into base contact (E1) and ``disengage`` (a manual tool)."""

from __future__ import annotations

from dataclasses import dataclass

from game.engine.actions import RULE_ACTION
from game.engine.errors import IllegalAction
from game.engine.events import Disengaged, Engaged
from game.engine.geometry import Disc
from game.engine.model import Unit
from game.engine.movement.bases import slide_into_contact
from game.engine.rules.context import Ctx, Rule
from game.engine.tolerance import beyond


def _r(v: float) -> float:
    return round(float(v), 4)


@dataclass(frozen=True)
class EngagePlan:
    unit: str
    target: str
    start: tuple[float, float]
    end: tuple[float, float]
    distance: float
    allowance: float


def plan_engage(ctx: Ctx, u: Unit, t: Unit) -> EngagePlan:
    """Where ``u`` ends in base contact with ``t``; raises IllegalAction, changes nothing."""
    st, rs, board = ctx.state, ctx.rs, ctx.board
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
    gap = board.distance(u, t)
    if beyond(gap, allowance):
        raise IllegalAction("M1", f"engage denied: {t.id} is {gap:.2f}\" away ({u.id} may engage up to {allowance:g}\")")
    x, y = u.x, u.y
    if beyond(gap, rs.contact_tolerance):
        x, y = slide_into_contact(board, st, u.id, t.id, tolerance=rs.contact_tolerance)
        after = board.distance(Disc(x, y, u.r, board.height_at(x, y)), t)
        blocked = board.pieces_touching_disc(x, y, u.r, ("wall", "impassable"))
        if beyond(after, rs.contact_tolerance) or blocked:
            what = f"{blocked[0].kind} {blocked[0].id}" if blocked else "another base"
            raise IllegalAction("M5", f"engage blocked: {what} is in the way ({after:.2f}\" short of {t.id})")
    return EngagePlan(u.id, t.id, (u.x, u.y), (x, y), gap, allowance)


def do_engage(ctx: Ctx, plan: EngagePlan) -> None:
    st = ctx.state
    u, t = st.units[plan.unit], st.units[plan.target]
    u.x, u.y = plan.end
    u.engage_attempted = True
    for a, b in ((u, t), (t, u)):
        if b.id not in a.engaged_with:
            a.engaged_with.append(b.id)
    ctx.sync_tokens()
    ctx.emit(Engaged(u.id, t.id, plan.start, plan.distance, plan.allowance))
    ctx.report({"from": [_r(plan.start[0]), _r(plan.start[1])], "to": [_r(u.x), _r(u.y)],
                "distance": _r(plan.distance), "allowance": _r(plan.allowance)})


def check_engage(ctx: Ctx, args: dict) -> EngagePlan:
    return plan_engage(ctx, ctx.acting(args["unit"]), ctx.unit(args["target"]))


def candidates_engage(ctx: Ctx, u: Unit):
    foes = [o for o in ctx.state.units.values() if o.active and o.warband != u.warband]
    for o in sorted(foes, key=lambda o: (ctx.board.distance(u, o), ctx.order_of(o.id))):
        yield {"unit": u.id, "target": o.id}


def check_disengage(ctx: Ctx, args: dict) -> tuple[Unit, list[str]]:
    u = ctx.unit(args["unit"])
    targets = [args["target"]] if "target" in args else list(u.engaged_with)
    if not targets or any(t not in u.engaged_with for t in targets):
        raise IllegalAction(RULE_ACTION, f"{u.id} is not engaged with {args.get('target', 'anyone')}")
    return u, targets


def resolve_disengage(ctx: Ctx, plan) -> None:
    u, targets = plan
    for tid in targets:
        u.engaged_with.remove(tid)
        o = ctx.state.units.get(tid)
        if o is not None and u.id in o.engaged_with:
            o.engaged_with.remove(u.id)
    ctx.emit(Disengaged(u.id, tuple(targets)))


def candidates_disengage(ctx: Ctx, u: Unit):
    if u.engaged_with:
        yield {"unit": u.id}


RULES = [
    Rule("engage", check_engage, do_engage, candidates_engage, ("E1", "no opposing unit is on the table")),
    Rule("disengage", check_disengage, resolve_disengage, candidates_disengage, (RULE_ACTION, "{unit} is not engaged with anyone")),
]
