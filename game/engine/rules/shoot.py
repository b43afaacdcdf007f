"""The Shoot phase under placeholder combat: ``shoot`` (S1), then a wound on a hit (S2).

Line of sight and cover come from :mod:`game.engine.sight` (L1, L2); range is measured
edge to edge with height (G1, G2). Every number is ruleset data; every roll is logged
with its rule id. Under ``combat: manual`` the players set results by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.engine.errors import IllegalAction
from game.engine.model import Unit
from game.engine.rule_ids import RuleId
from game.engine.rules import wounds
from game.engine.rules.context import Ctx, Rule
from game.engine.tolerance import beyond


def placeholder_only(ctx: Ctx, rule: str) -> None:
    if ctx.rs.combat != "placeholder":
        raise IllegalAction(
            rule,
            "combat is manual in this ruleset: set the result by hand (set_status, incapacitate), "
            "or play with combat: placeholder",
        )


def weapon_of(ctx: Ctx, u: Unit) -> tuple[str, dict] | None:
    """The unit's ranged weapon: the first keyword naming an entry of ``ranged_weapons``."""
    return ranged_weapon(ctx.rs, u)


def ranged_weapon(rs, u: Unit) -> tuple[str, dict] | None:
    """:func:`weapon_of` by the ruleset alone (for a table asking about a unit)."""
    table = rs.ranged_weapons or {}
    for k in u.keywords:
        if k in table:
            return k, table[k]
    return None


def reloads(rs, u: Unit) -> bool:
    """The unit has a ranged weapon that must Reload after it fires (M11, S1)."""
    w = ranged_weapon(rs, u)
    return bool(w and w[1].get("reload"))


@dataclass(frozen=True)
class ShotPlan:
    unit: str
    target: str
    weapon: str
    range: float
    distance: float
    visible: bool
    cover: bool
    clear_lines: int
    lines: int
    modes: wounds.Modes


def shooter_refusal(ctx: Ctx, u: Unit) -> IllegalAction | None:
    """Why ``u`` may not shoot at all now (S1, M2, M11, U5), or None."""
    if u.status in ("stunned", "dazed"):
        return IllegalAction(RuleId.U5, f"{u.id} is {u.status.capitalize()} and cannot shoot")
    w = weapon_of(ctx, u)
    if w is None:
        names = ", ".join(sorted(ctx.rs.ranged_weapons or {})) or "none in this ruleset"
        return IllegalAction(RuleId.S1, f"{u.id} has no ranged weapon (a keyword naming one of: {names})")
    if u.ran:
        return IllegalAction(RuleId.S1, f"{u.id} Ran this turn and may not shoot (M2)")
    if u.engaged_with:
        return IllegalAction(RuleId.S1, f"{u.id} is Engaged with {', '.join(u.engaged_with)} and may not shoot")
    if u.shots >= ctx.rs.shots_per_turn:
        return IllegalAction(RuleId.S1, f"{u.id} has already shot this turn ({ctx.rs.shots_per_turn:g} shot per turn)")
    name, spec = w
    if spec.get("reload") and not u.loaded:
        return IllegalAction(RuleId.S1, f"{u.id}'s {name} has fired and must be Reloaded in the Move phase first (M11)")
    return None


def plan_shot(ctx: Ctx, u: Unit, t: Unit) -> ShotPlan:
    placeholder_only(ctx, RuleId.S1)
    why = shooter_refusal(ctx, u)
    if why is not None:
        raise why
    if t.id == u.id or t.warband == u.warband:
        raise IllegalAction(RuleId.ACTION, f"{t.id} is not an opposing unit of {u.id}")
    if not t.active:
        raise IllegalAction(RuleId.S1, f"{t.id} is Incapacitated")
    name, spec = weapon_of(ctx, u)
    rng = float(spec["range"])
    seen = ctx.sight.between(ctx.state, u.id, t.id)
    if not seen.visible:
        raise IllegalAction(RuleId.L1, f"{u.id} cannot see {t.id}: no sight line of {seen.lines} is clear")
    dist = ctx.board.distance(u, t)
    if beyond(dist, rng):
        raise IllegalAction(RuleId.S1, f'{t.id} is {dist:.2f}" away ({name} range {rng:g}")')
    if t.engaged_with and not ctx.rs.shoot_into_melee:
        raise IllegalAction(RuleId.S1, f"{t.id} is Engaged with {', '.join(t.engaged_with)} (shoot_into_melee: false)")
    adv, dis = [], []
    if seen.cover:
        dis.append("cover (L2)")
    if u.status == "staggered":
        dis.append("Staggered shooter (U5)")
    long_from = rng * float(ctx.rs.long_range_fraction)
    if beyond(dist, long_from):
        dis.append(f'long range, beyond {long_from:g}"')
    if t.status == "dazed":
        adv.append("Dazed target (U5)")
    return ShotPlan(
        u.id,
        t.id,
        name,
        rng,
        dist,
        True,
        bool(seen.cover),
        seen.clear_lines,
        seen.lines,
        wounds.Modes(tuple(adv), tuple(dis)),
    )


def check_shoot(ctx: Ctx, args: dict) -> ShotPlan:
    return plan_shot(ctx, ctx.acting(args["unit"]), ctx.unit(args["target"]))


def resolve_shoot(ctx: Ctx, plan: ShotPlan) -> None:
    st, rs = ctx.state, ctx.rs
    u, t = st.units[plan.unit], st.units[plan.target]
    u.shots += 1
    if rs.ranged_weapons[plan.weapon].get("reload"):
        u.loaded = False
    what = f'{u.id} shoots {t.id} ({plan.distance:.2f}", {plan.weapon}{", in cover" if plan.cover else ""})'
    hit = wounds.strike(
        ctx, u, t, rs.shoot_stat, plan.modes, RuleId.S1, what, f"{u.id} shoots {t.id} with its {plan.weapon}"
    )
    ctx.report(
        {
            "visible": plan.visible,
            "cover": plan.cover,
            "distance": round(plan.distance, 2),
            "weapon": plan.weapon,
            "hit": hit,
            "status": t.status,
        }
    )


def odds_shoot(ctx: Ctx, plan: ShotPlan) -> wounds.Odds:
    u, t = ctx.state.units[plan.unit], ctx.state.units[plan.target]
    return wounds.attack_odds(ctx.rs, float(u.stats.get(ctx.rs.shoot_stat, 0)), plan.modes.mode, t)


def candidates_shoot(ctx: Ctx, u: Unit):
    foes = [o for o in ctx.state.units.values() if o.active and o.warband != u.warband]
    for o in sorted(foes, key=lambda o: (ctx.board.distance(u, o), ctx.order_of(o.id))):
        yield {"unit": u.id, "target": o.id}


RULES = [
    Rule(
        "shoot",
        check_shoot,
        resolve_shoot,
        candidates_shoot,
        (RuleId.S1, "no opposing unit is on the table"),
        odds_shoot,
    )
]
