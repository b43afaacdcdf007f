"""The Move phase (M1-M12): ``move``, ``run`` and ``reload``.

Every move goes through the one movement engine (:mod:`game.engine.movement`): the
check is ``mover.plan`` (the exact path, or the cheapest one to ``to:``), the resolution
``mover.apply`` (checks rolled in path order, falls). The resolved path is pinned in the
log, so a save replays the very same path whatever the search would find today.
"""

from __future__ import annotations

import math

from game.engine.errors import IllegalAction
from game.engine.events import ContactEnded, Moved, Reloaded
from game.engine.rule_ids import RuleId
from game.engine.rules import effects
from game.engine.rules.context import Ctx, Rule
from game.engine.rules.shoot import reloads

#: Steps tried, in inches, when ``legal_actions`` looks for one legal move of a unit.
_PROBE_STEPS = (0.5, 1.5)
_PROBE_DIRECTIONS = 8


def plan_move(ctx: Ctx, args: dict, run: bool):
    u = ctx.acting(args["unit"])
    to = tuple(args["to"]) if "to" in args else None
    path = [tuple(p) for p in args["path"]] if "path" in args else None
    return ctx.mover.plan(ctx.state, u.id, to=to, path=path, run=run, descend=args.get("descend", "climb"))


def resolve_move(ctx: Ctx, plan):
    """Apply a checked plan (a move, a Run or an Engage): position, checks, falls (M7).
    Returns the movement engine's outcome."""
    st = ctx.state
    outcome = ctx.mover.apply(st, plan, ctx.dice)
    extra = {}
    for part in (plan, outcome):
        extra.update({k: v for k, v in part.to_dict().items() if k not in ("ok", "action", "i", "rolls")})
    extra.pop("events", None)
    for note in outcome.events:
        ctx.emit(note)
    ctx.report(extra)
    ctx.emit(Moved(plan.unit, tuple((x, y) for x, y in st.units[plan.unit].trail[-1]), outcome.completed))
    for uid in outcome.incapacitated:
        st.units[uid].status = "normal"  # the fall set it: count the loss, drop the token (U6)
        effects.incapacitate(ctx, uid)
    ctx.sync_tokens()
    end_lost_contacts(ctx, plan.unit)
    return outcome


def end_lost_contacts(ctx: Ctx, uid: str) -> None:
    """E2: units stay Engaged only while their bases are in contact. After ``uid``'s base
    moved (the only way a base moves), each engagement it left is ended and logged."""
    st = ctx.state
    u = st.units[uid]
    for oid in list(u.engaged_with):
        o = st.units.get(oid)
        if o is None or ctx.mover.in_contact(u.x, u.y, u, o):
            continue
        u.engaged_with.remove(oid)
        if uid in o.engaged_with:
            o.engaged_with.remove(uid)
        ctx.emit(ContactEnded(uid, oid, ctx.board.distance(u, o)))


def _pin(ctx: Ctx, kind: str, args: dict, plan) -> None:
    """The action as it will replay exactly: the resolved path instead of ``to:``."""
    body = {"unit": plan.unit, "path": [[x, y] for x, y, _z in plan.points]}
    if args.get("descend", "climb") != "climb":
        body["descend"] = args["descend"]
    ctx.pin({kind: body})


def check_move(ctx: Ctx, args: dict):
    return plan_move(ctx, args, run=False), args


def check_run(ctx: Ctx, args: dict):
    return plan_move(ctx, args, run=True), args


def resolve_walk(ctx: Ctx, planned) -> None:
    plan, args = planned
    _pin(ctx, "run" if plan.run else "move", args, plan)
    resolve_move(ctx, plan)


def candidates_move(ctx: Ctx, u):
    """Short steps all round: one that passes shows the unit can move at all."""
    for step in _PROBE_STEPS:
        for k in range(_PROBE_DIRECTIONS):
            a = 2 * math.pi * k / _PROBE_DIRECTIONS
            yield {"unit": u.id, "to": [u.x + step * math.cos(a), u.y + step * math.sin(a)]}


def check_reload(ctx: Ctx, args: dict):
    u = ctx.acting(args["unit"])
    if not reloads(ctx.rs, u):
        raise IllegalAction(RuleId.M11, f"{u.id} has no weapon that reloads: only such a unit may Reload")
    if u.moved or u.used > 0:
        raise IllegalAction(
            RuleId.M11, f'{u.id} has already moved {u.used:.2f}" this turn: reloading is instead of moving'
        )
    if u.reloaded:
        raise IllegalAction(RuleId.M11, f"{u.id} has already reloaded this turn")
    return u


def resolve_reload(ctx: Ctx, u) -> None:
    u.reloaded = True
    u.loaded = True  # a reload weapon that fired may shoot again (M11, S1)
    ctx.emit(Reloaded(u.id))


def candidates_reload(ctx: Ctx, u):
    yield {"unit": u.id}


RULES = [
    Rule("move", check_move, resolve_walk, candidates_move),
    Rule("run", check_run, resolve_walk, candidates_move),
    Rule("reload", check_reload, resolve_reload, candidates_reload),
]
