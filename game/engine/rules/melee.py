"""The Melee phase under placeholder combat: ``attack`` (F1), then a wound on a hit (S2).

Each of the current player's units that is Engaged and not Stunned attacks one opposing
unit it is Engaged with. A Stunned target is Incapacitated at once (U5); otherwise a
to-hit check, with Advantage against a Dazed target and Disadvantage for a Staggered
attacker. Every number is ruleset data; every roll is logged with its rule id.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.engine.errors import IllegalAction
from game.engine.model import Unit
from game.engine.rule_ids import RuleId
from game.engine.rules import effects, wounds
from game.engine.rules.context import Ctx, Rule
from game.engine.rules.shoot import placeholder_only


@dataclass(frozen=True)
class AttackPlan:
    unit: str
    target: str
    stunned_target: bool
    modes: wounds.Modes


def plan_attack(ctx: Ctx, u: Unit, t: Unit) -> AttackPlan:
    placeholder_only(ctx, RuleId.F1)
    if u.status == "stunned":
        raise IllegalAction(RuleId.U5, f"{u.id} is Stunned and cannot fight")
    if not u.engaged_with:
        raise IllegalAction(RuleId.F1, f"{u.id} is not Engaged with anyone")
    if u.attacks >= ctx.rs.attacks_per_turn:
        raise IllegalAction(
            RuleId.F1, f"{u.id} has already attacked this turn ({ctx.rs.attacks_per_turn:g} attack per turn)"
        )
    if t.warband == u.warband:
        raise IllegalAction(RuleId.ACTION, f"{t.id} is not an opposing unit of {u.id}")
    if t.id not in u.engaged_with:
        raise IllegalAction(RuleId.F1, f"{u.id} is not Engaged with {t.id} (Engaged with: {', '.join(u.engaged_with)})")
    if not t.active:
        raise IllegalAction(RuleId.F1, f"{t.id} is Incapacitated")
    if not ctx.mover.in_contact(u.x, u.y, u, t):
        raise IllegalAction(
            RuleId.F1,
            f"{u.id} is not in base contact with {t.id}: "
            f'{ctx.board.distance(u, t):.2f}" apart '
            f'({float(ctx.rs.contact_tolerance):g}" or less is contact, G4; E2)',
        )
    adv, dis = [], []
    if t.status == "dazed":
        adv.append("Dazed target (U5)")
    if u.status == "staggered":
        dis.append("Staggered attacker (U5)")
    return AttackPlan(u.id, t.id, t.status == "stunned", wounds.Modes(tuple(adv), tuple(dis)))


def check_attack(ctx: Ctx, args: dict) -> AttackPlan:
    return plan_attack(ctx, ctx.acting(args["unit"]), ctx.unit(args["target"]))


def resolve_attack(ctx: Ctx, plan: AttackPlan) -> None:
    st, rs = ctx.state, ctx.rs
    u, t = st.units[plan.unit], st.units[plan.target]
    u.attacks += 1
    if plan.stunned_target:
        ctx.note(f"{u.id} attacks {t.id}, who is Stunned: Incapacitated at once (U5)", RuleId.F1)
        effects.incapacitate(ctx, t.id, by=u.id)
        ctx.report({"hit": True, "status": t.status})
        return
    hit = wounds.strike(ctx, u, t, rs.melee_stat, plan.modes, RuleId.F1, f"{u.id} attacks {t.id}")
    ctx.report({"hit": hit, "status": t.status})


def odds_attack(ctx: Ctx, plan: AttackPlan) -> wounds.Odds:
    u, t = ctx.state.units[plan.unit], ctx.state.units[plan.target]
    return wounds.attack_odds(
        ctx.rs,
        float(u.stats.get(ctx.rs.melee_stat, 0)),
        plan.modes.mode,
        t,
        certain="incapacitated" if plan.stunned_target else None,
    )


def candidates_attack(ctx: Ctx, u: Unit):
    for tid in u.engaged_with:
        yield {"unit": u.id, "target": tid}


RULES = [
    Rule(
        "attack",
        check_attack,
        resolve_attack,
        candidates_attack,
        (RuleId.F1, "{unit} is not Engaged with anyone"),
        odds_attack,
    )
]
