"""The Engage phase: ``engage`` into base contact (E1) and ``disengage`` (a manual tool).

An Engage is a move into base contact that obeys the Move-phase rules (E1): the one
movement engine finds the cheapest such path (``Mover.plan_engage``) or checks the one
given, and resolves it like a move; the unit may not move this turn afterwards (M1).
"""

from __future__ import annotations

from game.engine.errors import IllegalAction
from game.engine.events import Disengaged, Engaged
from game.engine.model import Unit
from game.engine.movement.mover import may_engage
from game.engine.rule_ids import RuleId
from game.engine.rules.context import Ctx, Rule
from game.engine.rules.move import resolve_move


def _r(v: float) -> float:
    return round(float(v), 4)


def plan_engage(ctx: Ctx, u: Unit, t: Unit, path=None, descend: str = "climb"):
    """E1: the cheapest legal way into base contact with ``t`` (or exactly ``path``), by
    the movement engine; raises IllegalAction (beyond reach in a straight line: that
    distance; else the cheapest cost), changes nothing."""
    if t.id == u.id:
        raise IllegalAction(RuleId.ACTION, f"{u.id} cannot engage itself")
    if t.warband == u.warband:
        raise IllegalAction(RuleId.ACTION, f"{t.id} is in {u.id}'s own warband")
    return ctx.mover.plan_engage(ctx.state, u.id, t.id, path=path, descend=descend)


def do_engage(ctx: Ctx, plan) -> None:
    """Resolve an Engage like a move (checks in path order, a failed one ends it as in a
    move: M1, M6, M8, M9); in base contact at the end, both units are Engaged."""
    st = ctx.state
    u, t = st.units[plan.unit], st.units[plan.engage]
    start = (u.x, u.y)
    outcome = resolve_move(ctx, plan)
    if outcome.completed and u.active and t.active and ctx.mover.in_contact(u.x, u.y, u, t):
        for a, b in ((u, t), (t, u)):
            if b.id not in a.engaged_with:
                a.engaged_with.append(b.id)
        ctx.emit(Engaged(u.id, t.id, start, plan.cost, plan.allowance))
    else:
        ctx.note(f"{u.id}'s Engage of {t.id} ends short: the attempt is spent (E1)", RuleId.E1)
    ctx.report(
        {
            "from": [_r(start[0]), _r(start[1])],
            "to": [_r(u.x), _r(u.y)],
            "distance": _r(plan.cost),
            "engaged": t.id in u.engaged_with,
        }
    )


def check_engage(ctx: Ctx, args: dict):
    plan = plan_engage(
        ctx, ctx.acting(args["unit"]), ctx.unit(args["target"]), args.get("path"), args.get("descend", "climb")
    )
    return plan, args


def resolve_engage(ctx: Ctx, planned) -> None:
    plan, args = planned
    body = {"unit": plan.unit, "target": plan.engage}
    if len(plan.points) > 1:  # already in contact: nothing to pin
        body["path"] = [[x, y] for x, y, _z in plan.points]
    if args.get("descend", "climb") != "climb":
        body["descend"] = args["descend"]
    ctx.pin({"engage": body})
    do_engage(ctx, plan)


def candidates_engage(ctx: Ctx, u: Unit):
    foes = [o for o in ctx.state.units.values() if o.active and o.warband != u.warband]
    for o in sorted(foes, key=lambda o: (ctx.board.distance(u, o), ctx.order_of(o.id))):
        yield {"unit": u.id, "target": o.id}


def refused_engage(ctx: Ctx, u: Unit, args: dict) -> bool:
    """E1 by the straight-line bound (:func:`may_engage`: the test of ``plan_engage``'s
    ``refuse_far_engage``, before any search): an enemy that far is refused for certain."""
    t = ctx.state.units.get(args["target"])
    return t is not None and not may_engage(ctx.rs, u, t)


def check_disengage(ctx: Ctx, args: dict) -> tuple[Unit, list[str]]:
    u = ctx.unit(args["unit"])
    targets = [args["target"]] if "target" in args else list(u.engaged_with)
    if not targets or any(t not in u.engaged_with for t in targets):
        raise IllegalAction(RuleId.ACTION, f"{u.id} is not engaged with {args.get('target', 'anyone')}")
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
    Rule(
        "engage",
        check_engage,
        resolve_engage,
        candidates_engage,
        (RuleId.E1, "no opposing unit is on the table"),
        refused=refused_engage,
    ),
    Rule(
        "disengage",
        check_disengage,
        resolve_disengage,
        candidates_disengage,
        (RuleId.ACTION, "{unit} is not engaged with anyone"),
    ),
]
