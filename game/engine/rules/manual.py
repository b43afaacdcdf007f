"""The manual tools of the phases whose rules are not written yet (RULES.md "Phases not in
the seeds"): results set by hand, the dice tray, casting. Each is logged like any action."""

from __future__ import annotations

from game.engine.errors import IllegalAction
from game.engine.events import Checked, Rolled, SpellCast, SpellEnded, StatusChanged
from game.engine.rule_ids import RuleId
from game.engine.rules import effects
from game.engine.rules.context import Ctx, Rule


def check_set_status(ctx: Ctx, args: dict):
    u = ctx.unit(args["unit"])
    if u.status == "incapacitated":
        raise IllegalAction(RuleId.U5, f"{u.id} is Incapacitated (a loss is counted); undo the incapacitation instead")
    return u, args["status"]


def resolve_set_status(ctx: Ctx, plan) -> None:
    u, status = plan
    if status == "incapacitated":
        effects.incapacitate(ctx, u.id)
        return
    before, u.status = u.status, status
    ctx.emit(StatusChanged(u.id, before, status))


def check_incapacitate(ctx: Ctx, args: dict):
    u = ctx.unit(args["unit"])
    if u.status == "incapacitated":
        raise IllegalAction(RuleId.U5, f"{u.id} is already Incapacitated")
    by = args.get("by")
    if by is not None:
        b = ctx.unit(by)
        if not b.active:
            raise IllegalAction(RuleId.U5, f"{by} is Incapacitated")
        if b.warband == u.warband:
            raise IllegalAction(RuleId.ACTION, f"{by} is in {u.id}'s own warband")
    return u.id, by


def resolve_incapacitate(ctx: Ctx, plan) -> None:
    uid, by = plan
    effects.incapacitate(ctx, uid, by=by)


def check_roll(ctx: Ctx, args: dict) -> dict:
    if args.get("unit") is not None:
        ctx.unit(args["unit"])
    return args


def resolve_roll(ctx: Ctx, args: dict) -> None:
    count = args.get("count", 1)
    roll = ctx.dice.roll(
        args["sides"], args.get("reason") or "free roll", rule=RuleId.FREE, unit=args.get("unit"), count=count
    )
    ctx.emit(Rolled(roll, count))


def check_check(ctx: Ctx, args: dict):
    u = ctx.unit(args["unit"])
    stat = args["stat"]
    if stat not in u.stats:
        raise IllegalAction(RuleId.ACTION, f"{u.id} has no stat {stat!r} (stats: {', '.join(u.stats)})")
    return u, args


def resolve_check(ctx: Ctx, plan) -> None:
    u, args = plan
    st, rs = ctx.state, ctx.rs
    stat = args["stat"]
    disadvantage = args.get("disadvantage", False)
    if (
        u.status == "staggered"
        and ctx.warband_player(u.warband) == st.player
        and rs.is_manual(st.phase)
        and not disadvantage
    ):
        disadvantage = True
        ctx.note(f"{u.id} is Staggered: Disadvantage until the end of its own turn (U5)", RuleId.U5)
    roll = ctx.dice.check(
        rs,
        u.stats[stat],
        reason=args.get("reason") or f"{stat} check",
        rule=args.get("rule") or RuleId.CHECK,
        unit=u.id,
        stat=stat,
        advantage=args.get("advantage", False),
        disadvantage=disadvantage,
        modifier=args.get("modifier", 0),
    )
    ctx.emit(Checked(u.id, stat, roll))


def check_cast(ctx: Ctx, args: dict):
    u = ctx.acting(args["unit"])
    if not u.is_caster:
        raise IllegalAction(RuleId.U8, f"{u.id} is not a Caster")
    if u.status == "stunned":
        raise IllegalAction(RuleId.U5, f"{u.id} is Stunned and cannot cast")
    if args.get("ongoing") and args["spell"] in u.spells:
        raise IllegalAction(RuleId.U8, f"{u.id} already keeps {args['spell']} going")
    return u, args


def resolve_cast(ctx: Ctx, plan) -> None:
    u, args = plan
    spell = args["spell"]
    notes = []
    if u.ran:
        notes.append("after Running: penalty (M2)")
    if u.status == "staggered":
        notes.append("Staggered: Disadvantage (U5)")
    if args.get("ongoing"):
        u.spells.append(spell)
        notes.append("Ongoing: a Morale check each Upkeep (U8)")
    ctx.emit(SpellCast(u.id, spell, tuple(notes)))


def check_end_spell(ctx: Ctx, args: dict):
    u = ctx.unit(args["unit"])
    if args["spell"] not in u.spells:
        raise IllegalAction(RuleId.U8, f"{u.id} has no Ongoing spell {args['spell']!r}")
    return u, args["spell"]


def resolve_end_spell(ctx: Ctx, plan) -> None:
    u, spell = plan
    u.spells.remove(spell)
    ctx.emit(SpellEnded(u.id, spell))


RULES = [
    Rule("set_status", check_set_status, resolve_set_status, activates=False),
    Rule("incapacitate", check_incapacitate, resolve_incapacitate, activates=False),
    Rule("roll", check_roll, resolve_roll, activates=False),
    Rule("check", check_check, resolve_check, activates=False),
    Rule("cast", check_cast, resolve_cast),
    Rule("end_spell", check_end_spell, resolve_end_spell, activates=False),
]
