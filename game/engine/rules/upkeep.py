"""The Upkeep phase, U1-U8: its steps and the decisions they wait for.

Each step is a re-entrant function ``step(ctx) -> DONE | WAIT | PassTurn`` that the flow
calls when the step begins and again after every decision taken in it. A step keeps its
progress in ``ctx.progress`` (in the state, so undo and saves cover it) and asks for a
decision by leaving a typed :mod:`~game.engine.decisions` value in ``ctx.pending``. The
decisions are ordinary actions (``pick_up``, ``grab``, ``rout``, ``play_on``) with rules
of the usual shape; ``end_step`` declines the pending one (:func:`decline`).
"""

from __future__ import annotations

import math

from game.engine.decisions import Grab, NeutralsAct, PickUp, VoluntaryRout
from game.engine.errors import IllegalAction, as_value
from game.engine.events import LeftTable, Measured, PlayedOn, RoutChecked, Routed, TreasureDenied, Won
from game.engine.rule_ids import RuleId
from game.engine.rules import effects, engage
from game.engine.rules.context import DONE, WAIT, Ctx, PassTurn, Rule
from game.engine.tolerance import EPS, within

#: What a Unit Morale table result does in Speedheim (break point variant), unless the
#: ruleset gives ``break_point_effects``.
DEFAULT_BREAK_POINT_EFFECTS = {
    "rout": "leave",
    "flee": "leave",
    "waver": "dazed",
    "stand_firm": "none",
    "rally": "recover",
}
RECOVERY = {"stunned": "dazed", "dazed": "staggered", "staggered": "normal"}


def _lim(v: float) -> str:
    return f"{v:g}"


# --- U1 Neutrals ---------------------------------------------------------------------------


def _neutral_act(ctx: Ctx, uid: str) -> str:
    return ctx.state.neutral_act.get(uid, ctx.rs.get("neutral_act", "manual"))


def step_neutrals(ctx: Ctx):
    st, prog = ctx.state, ctx.progress
    if prog.done:
        return DONE
    units = [u.id for u in st.units.values() if u.warband == ctx.neutral_id and u.active]
    if st.event_triggered_by is None:
        why = "no Event has been triggered"
    elif st.event_triggered_by != st.player:
        why = f"the Event was triggered by player {st.event_triggered_by}, this is player {st.player}'s turn"
    elif not units:
        why = "no Neutral units are left on the table"
    else:
        why = None
    if why:
        ctx.auto(RuleId.U1, f"Neutrals step skipped: {why}")
        return DONE
    if not prog.begun:
        prog.begun = True
        effects.clear_turn_flags(st, units)
        ctx.auto(RuleId.U1, f"Neutrals act: {', '.join(units)}")
        for uid in units:
            if _neutral_act(ctx, uid) == "advance":
                neutral_advance(ctx, st.units[uid])
    units = [uid for uid in units if _neutral_act(ctx, uid) in ("manual", "bot") and st.units[uid].active]
    if not units:
        return DONE
    # ``bot``: the decision is the Neutrals' own (player 0), for the bot that plays them.
    who = 0 if all(_neutral_act(ctx, uid) == "bot" for uid in units) else st.player
    ctx.set_pending(
        NeutralsAct(
            who,
            RuleId.U1,
            "Neutral units act as their Event says: move, engage or set results for them, then end the step",
            tuple(units),
        )
    )
    return WAIT


def neutral_advance(ctx: Ctx, u) -> None:
    """U1 placeholder behaviour: engage the nearest opposing unit within Move, else move towards it."""
    st = ctx.state
    targets = [o for o in st.units.values() if o.active and o.warband != u.warband]
    if not targets or u.status in ("stunned", "incapacitated"):
        ctx.auto(RuleId.U1, f"{u.id} holds" + (" (Stunned)" if targets else " (no one to advance on)"))
        return
    t = min(targets, key=lambda o: (ctx.board.distance(u, o), ctx.order_of(o.id), o.id))
    try:
        plan = engage.plan_engage(ctx, u, t)
    except IllegalAction as why:
        refused = as_value(why)
    else:
        engage.do_engage(ctx, plan)
        ctx.auto(RuleId.U1, f"{u.id} engages {t.id}" if t.id in u.engaged_with else f"{u.id} tries to engage {t.id}")
        return
    mover = ctx.mover
    dx, dy = t.x - u.x, t.y - u.y
    centre = math.hypot(dx, dy) or 1.0
    reach = min(float(u.stats.get("move", 0)), max(0.0, centre - u.r - t.r - ctx.rs.contact_tolerance))
    for frac in (1.0, 0.5, 0.25):
        step = reach * frac
        if step <= EPS:
            break
        to = (u.x + dx / centre * step, u.y + dy / centre * step)
        try:
            plan = mover.plan(st, u.id, to=to)
        except IllegalAction:
            continue
        mover.apply(st, plan, ctx.dice)
        ctx.auto(RuleId.U1, f"{u.id} advances towards {t.id} to [{u.x:.2f}, {u.y:.2f}]")
        return
    ctx.auto(RuleId.U1, f"{u.id} holds: cannot reach or move towards {t.id} ({refused.reason})")


# --- U2-U4 Rout ------------------------------------------------------------------------------


def rout_condition(ctx: Ctx, wid: str) -> tuple[bool, str]:
    """U2 (standard) or the legacy table: must ``wid`` make a Rout Check?"""
    st, rs = ctx.state, ctx.rs
    lost = st.lost.get(wid, 0)
    if rs.rout_variant == "legacy" and rs.get("rout_legacy_table"):
        size = ctx.starting_size(wid)
        need = None
        for low, high, value in rs.rout_legacy_table:
            if (low is None or size >= low) and (high is None or size <= high):
                need = value
        if need is None:
            need = (
                rs.rout_legacy_table[-1][2] if size > (rs.rout_legacy_table[-1][1] or 0) else rs.rout_legacy_table[0][2]
            )
        return lost >= need, f"{wid} has lost {lost} of {size} starting units (legacy: checks from {need:g})"
    held = sum(
        1
        for t in st.treasure.values()
        if t.carried_by
        and st.units[t.carried_by].on_table
        and st.units[t.carried_by].warband not in (wid, ctx.neutral_id)
    )
    total = lost + held
    ctx.emit(Measured(RuleId.U2, "rout_threshold", total))
    text = (
        f"{wid} lost {lost} + {held} treasure held by the opponent = {total} ({_lim(rs.rout_threshold)} or more checks)"
    )
    return total >= rs.rout_threshold, text


def rout_check(ctx: Ctx, wid: str, why: str) -> bool:
    """The Morale check of U2 on the best non-Incapacitated hero (or the no-hero rule)."""
    st, rs = ctx.state, ctx.rs
    units = [u for u in st.units_of(wid) if u.active]
    heroes = [u for u in units if u.is_hero]
    pool = heroes
    if not heroes:
        rule = rs.rout_no_hero
        if rule == "auto_fail" or (rule == "best_morale" and not units):
            ctx.auto(
                RuleId.U2,
                f"Rout Check for {wid} fails: no hero that is not Incapacitated (rout_no_hero: {rule})",
                RoutChecked,
                warband=wid,
                passed=False,
            )
            return False
        if rule == "pass":
            ctx.auto(
                RuleId.U2,
                f"Rout Check for {wid} passes: no hero, and rout_no_hero is 'pass'",
                RoutChecked,
                warband=wid,
                passed=True,
            )
            return True
        pool = units
    best = max(pool, key=lambda u: (u.stats.get("morale", 0), -ctx.order_of(u.id)))
    roll = ctx.dice.check(
        rs, best.stats.get("morale", 0), reason=f"Rout Check: {why}", rule=RuleId.U2, unit=best.id, stat="morale"
    )
    ctx.auto(
        RuleId.U2,
        f"Rout Check for {wid} on {best.id}'s Morale {roll.target:g}: "
        f"rolled {roll.kept}, {'pass' if roll.success else 'fail'}",
        RoutChecked,
        warband=wid,
        passed=bool(roll.success),
        roll=roll,
    )
    return bool(roll.success)


def start_rout(ctx: Ctx, wid: str, why: str) -> None:
    """The warband routs (U2/U3): the post-rout grab (U4) runs, then it leaves the table."""
    st, prog = ctx.state, ctx.progress
    ctx.emit(Routed(wid, why))
    others = [w.id for w in ctx.scenario.warbands if w.player > 0 and w.id not in st.routed and w.id != wid]
    prog.stage = "grab"
    prog.loser = wid
    prog.winner = others[0] if len(others) == 1 else None
    prog.tokens = [t.id for t in st.treasure.values() if not t.carried_by] if prog.winner else []
    prog.sub = None
    prog.chosen = None
    if prog.winner is None and others:
        ctx.auto(RuleId.U4, "no treasure grab: more than one warband remains")


def _near(ctx: Ctx, wid: str, tok) -> list:
    lim = ctx.rs.treasure_grab_range
    return [u for u in ctx.state.units_of(wid) if u.active and within(ctx.board.distance(u, tok), lim)]


def continue_grab(ctx: Ctx):
    """U4: for each token on the table, in order; may stop for the owner's choice."""
    st, prog, rs = ctx.state, ctx.progress, ctx.rs
    winner, loser = prog.winner, prog.loser
    rng = _lim(rs.treasure_grab_range)
    while prog.tokens:
        tid = prog.tokens[0]
        tok = st.treasure[tid]
        if tok.carried_by:
            prog.tokens.pop(0)
            continue
        win_near, lose_near = _near(ctx, winner, tok), _near(ctx, loser, tok)
        sub = prog.sub
        if sub is None:
            if not win_near and not lose_near:
                ctx.auto(RuleId.U4, f'{tid}: no unit within {rng}"')
                prog.tokens.pop(0)
                continue
            sub = "winner_free" if not lose_near else ("loser" if not win_near else "winner")
            prog.sub = sub
            case = {
                "winner_free": f'only {winner} within {rng}": picks it up',
                "loser": f'only {loser} within {rng}": Morale check to pick it up',
                "winner": f'both within {rng}": {winner} makes a Morale check first',
            }[sub]
            ctx.auto(RuleId.U4, f"{tid}: {case}")
        side = loser if sub == "loser" else winner
        able = [u for u in (lose_near if sub == "loser" else win_near) if effects.can_pick_up(ctx, u)]
        if not able:
            ctx.auto(RuleId.U4, f'{tid}: no unit of {side} within {rng}" is able to pick it up')
            if sub == "winner":
                prog.sub = "loser"
                continue
            prog.tokens.pop(0)
            prog.sub = None
            continue
        chosen = prog.chosen
        if chosen is None or chosen not in {u.id for u in able}:
            if len(able) > 1:
                ctx.set_pending(
                    Grab(
                        ctx.warband_player(side),
                        RuleId.U4,
                        f"{side}: choose which unit tries to grab {tid}",
                        tid,
                        side,
                        tuple(u.id for u in able),
                        sub != "winner_free",
                    )
                )
                return WAIT
            chosen = able[0].id
        prog.chosen = None
        u = st.units[chosen]
        if sub == "winner_free":
            effects.take_token(ctx, u, tok, events=False, how="grabs")
        else:
            roll = ctx.dice.check(
                rs,
                u.stats.get("morale", 0),
                reason=f"grab {tid} after the rout",
                rule=RuleId.U4,
                unit=u.id,
                stat="morale",
            )
            if roll.success:
                effects.take_token(ctx, u, tok, events=False, how="grabs")
            elif sub == "winner":
                ctx.auto(RuleId.U4, f"{u.id} fails to grab {tid}; {loser} may try")
                prog.sub = "loser"
                continue
            else:
                ctx.auto(RuleId.U4, f"{u.id} fails to grab {tid}")
        prog.tokens.pop(0)
        prog.sub = None
    return finish_rout(ctx)


def finish_rout(ctx: Ctx):
    st, prog = ctx.state, ctx.progress
    loser = prog.loser
    for u in st.units_of(loser):
        if u.on_table:
            effects.leave_table(st, u)
    if loser not in st.routed:
        st.routed.append(loser)
    ctx.emit(LeftTable(loser))
    prog.stage = "done"
    outcome = ctx.outcome()
    if outcome is not None:
        st.winner = outcome.winner
        ctx.emit(Won(outcome.winner, "the last warband standing"))
        return WAIT
    return PassTurn(f"{loser} routed")


def step_rout(ctx: Ctx):
    st, prog, rs = ctx.state, ctx.progress, ctx.rs
    stage = prog.stage
    if stage == "done":
        return DONE
    if stage == "voluntary":
        return WAIT if ctx.pending else DONE
    if stage == "grab":
        return continue_grab(ctx)
    w = ctx.current_warband()
    if w is None:
        ctx.auto(RuleId.U2, f"player {st.player} has no warband")
        return DONE
    if rs.rout_variant == "break_point":
        if rs.get("break_point_table"):
            return break_point(ctx, w.id)
        ctx.auto(
            RuleId.U2,
            "rout_variant break_point needs break_point_table (ruleset rout-breakpoint): using the standard rule",
        )
    need, why = rout_condition(ctx, w.id)
    if not need:
        ctx.auto(RuleId.U2, f"no Rout Check: {why}")
        return DONE
    if not rout_check(ctx, w.id, why):
        start_rout(ctx, w.id, "failed its Rout Check (U2)")
        return continue_grab(ctx)
    prog.stage = "voluntary"
    ctx.set_pending(
        VoluntaryRout(st.player, RuleId.U3, f"{w.id} passed its Rout Check: rout voluntarily, or play on?", w.id)
    )
    return WAIT


def break_point(ctx: Ctx, wid: str):
    """Variant: ceil(starting units / divisor) lost -> every unit rolls 2d6 + morale."""
    st, rs = ctx.state, ctx.rs
    size = ctx.starting_size(wid)
    bp = math.ceil(size / rs.break_point_divisor)
    lost = st.lost.get(wid, 0)
    seen = st.break_point_seen
    new = lost - seen.get(wid, 0)
    seen[wid] = lost
    if lost < bp or new <= 0:
        why = f"{lost} lost of {size}, break point {bp}" + ("" if lost < bp else ", no new loss since the last roll")
        ctx.auto(RuleId.U2, f"no morale rolls for {wid}: {why}")
        return DONE
    count, sides = rs.break_point_dice
    fx = {**DEFAULT_BREAK_POINT_EFFECTS, **(rs.get("break_point_effects") or {})}
    ctx.auto(
        RuleId.U2,
        f"{wid} is at its break point ({lost} lost of {size}, break point {bp}): "
        f"every unit rolls {count}d{sides} + morale",
    )
    for u in [u for u in st.units_of(wid) if u.active]:
        mod = int((u.stats.get("morale", 0) - rs.break_point_morale_base) // rs.break_point_morale_step)
        roll = ctx.dice.roll(int(sides), f"Unit Morale (break point {bp})", rule=RuleId.U2, count=int(count), unit=u.id)
        total = roll.kept + mod
        result = "stand_firm"
        for low, high, res in rs.break_point_table:
            if (low is None or total >= low) and (high is None or total <= high):
                result = res
                break
        effect = fx.get(result, "none")
        ctx.dice.amend(roll, stat="morale", modifier=mod, success=effect != "leave")
        ctx.auto(RuleId.U2, f"{u.id}: {roll.kept}{mod:+d} = {total}: {result} ({effect})")
        if effect == "leave":
            effects.drop_token(ctx, u)
            effects.leave_table(st, u)
            st.lost[wid] = st.lost.get(wid, 0) + 1
        elif effect == "recover":
            if u.status in RECOVERY:
                u.status = RECOVERY[u.status]
        elif effect in ("staggered", "dazed", "stunned"):
            if u.status == "normal":
                u.status = effect
    seen[wid] = st.lost.get(wid, 0)
    if not any(u.active for u in st.units_of(wid)):
        start_rout(ctx, wid, "no unit stands after the morale rolls (break point)")
        return continue_grab(ctx)
    return DONE


# --- U5 Recover, U6 Treasure, U8 Ongoing spells -------------------------------------------------


def step_recover(ctx: Ctx):
    st = ctx.state
    w = ctx.current_warband()
    changed = []
    for u in st.units_of(w.id) if w else []:
        if u.on_table and u.status in RECOVERY:
            before, u.status = u.status, RECOVERY[u.status]
            changed.append(f"{u.id} {before} -> {u.status}")
    ctx.auto(RuleId.U5, "Recover: " + ("; ".join(changed) if changed else "nothing to recover"))
    return DONE


def is_first_players_first_turn(ctx: Ctx) -> bool:
    """U6: game turn 1 and the player who goes first in it (O1; player 1 by default)."""
    players = sorted(w.player for w in ctx.scenario.warbands if w.player > 0)
    first = ctx.state.first if ctx.state.first in players else (players or [0])[0]
    return bool(players) and ctx.state.turn == 1 and ctx.state.player == first


def step_treasure(ctx: Ctx):
    st, rs, prog = ctx.state, ctx.rs, ctx.progress
    if prog.done:
        return DONE
    if rs.treasure_first_turn_skipped and is_first_players_first_turn(ctx):
        ctx.auto(RuleId.U6, "Treasure step skipped in the first player's first turn")
        return DONE
    w = ctx.current_warband()
    options, denied = effects.pickup_options(ctx, st.units_of(w.id) if w else [])
    if denied and not prog.noted:
        effects.measure_denials(ctx, st.units_of(w.id) if w else [])
    if not options:
        if not prog.noted:
            said = f" ({'; '.join(denied)})" if denied else ""
            ctx.auto(
                RuleId.U6, f"Treasure step: no unit can pick up a token{said}", TreasureDenied, denied=tuple(denied)
            )
        return DONE
    prog.noted = True
    ctx.set_pending(PickUp(st.player, RuleId.U6, "pick up treasure, or end the step", tuple(options), tuple(denied)))
    return WAIT


def step_ongoing_spells(ctx: Ctx):
    st, rs = ctx.state, ctx.rs
    w = ctx.current_warband()
    any_spell = False
    for u in st.units_of(w.id) if w else []:
        if not u.on_table or not u.spells:
            continue
        for spell in list(u.spells):
            any_spell = True
            roll = ctx.dice.check(
                rs,
                u.stats.get("morale", 0),
                reason=f"keep the Ongoing spell {spell}",
                rule=RuleId.U8,
                unit=u.id,
                stat="morale",
            )
            if roll.success:
                ctx.auto(RuleId.U8, f"{u.id} keeps {spell} ({roll.kept} vs Morale {roll.target:g})")
            else:
                u.spells.remove(spell)
                ctx.auto(RuleId.U8, f"{u.id}'s {spell} ends ({roll.kept} vs Morale {roll.target:g})")
    if not any_spell:
        ctx.auto(RuleId.U8, "no Ongoing spells")
    return DONE


STEPS = {
    "neutrals": step_neutrals,
    "rout": step_rout,
    "recover": step_recover,
    "treasure": step_treasure,
    "ongoing_spells": step_ongoing_spells,
}


def decline(ctx: Ctx) -> None:
    """The player ends the step without taking the pending decision."""
    p = ctx.pending
    if p is None:
        return
    prog = ctx.progress
    ctx.set_pending(None)
    if isinstance(p, VoluntaryRout):
        prog.stage = "done"
        ctx.emit(PlayedOn(p.warband))
    elif isinstance(p, (PickUp, NeutralsAct)):
        prog.done = True
    elif isinstance(p, Grab):
        prog.chosen = p.units[0]
        ctx.note(f"{p.warband} lets {p.units[0]} try for {p.token} (the first listed)", RuleId.U4)


# --- the decisions as actions ------------------------------------------------------------------


def _pending(ctx: Ctx, cls):
    p = ctx.pending
    if not isinstance(p, cls):
        raise IllegalAction(RuleId.TURN, f"nothing waits for a {cls.kind.replace('_', ' ')} decision now")
    return p


def check_rout(ctx: Ctx, args: dict) -> VoluntaryRout:
    p = _pending(ctx, VoluntaryRout)
    if args["player"] != p.player:
        raise IllegalAction(
            RuleId.U3, f"player {args['player']} may not rout now: only player {p.player} just passed a Rout Check"
        )
    return p


def resolve_rout(ctx: Ctx, p: VoluntaryRout) -> None:
    ctx.set_pending(None)
    start_rout(ctx, p.warband, "voluntary rout after a passed Rout Check (U3)")


def check_play_on(ctx: Ctx, args: dict) -> VoluntaryRout:
    p = _pending(ctx, VoluntaryRout)
    if args["player"] != p.player:
        raise IllegalAction(RuleId.U3, f"player {args['player']} has no rout decision to take (player {p.player} has)")
    return p


def resolve_play_on(ctx: Ctx, p: VoluntaryRout) -> None:
    decline(ctx)


def check_grab(ctx: Ctx, args: dict) -> str:
    p = _pending(ctx, Grab)
    if args["token"] != p.token:
        raise IllegalAction(RuleId.U4, f"the grab now is for {p.token}, not {args['token']}")
    if args["unit"] not in p.units:
        raise IllegalAction(
            RuleId.U4,
            f"{args['unit']} may not try for {p.token}: choose one of {', '.join(p.units)} "
            f'(within {ctx.rs.treasure_grab_range:g}" and able to pick up)',
        )
    return args["unit"]


def resolve_grab(ctx: Ctx, uid: str) -> None:
    ctx.set_pending(None)
    ctx.progress.chosen = uid


def candidates_grab(ctx: Ctx, u):
    p = ctx.pending
    if isinstance(p, Grab) and u.id in p.units:
        yield {"unit": u.id, "token": p.token}


def check_pick_up(ctx: Ctx, args: dict):
    u = ctx.acting(args["unit"])
    tok = ctx.state.treasure.get(args["token"])
    if tok is None:
        raise IllegalAction(RuleId.ACTION, f"unknown treasure token {args['token']!r}")
    why = effects.pickup_denial(ctx, u, tok)
    if why is not None:
        raise why
    return u, tok


def resolve_pick_up(ctx: Ctx, plan) -> None:
    u, tok = plan
    ctx.set_pending(None)
    effects.measure_denial(ctx, u, tok)
    effects.take_token(ctx, u, tok, events=True)


def candidates_pick_up(ctx: Ctx, u):
    for tok in ctx.state.treasure.values():
        if not tok.carried_by and effects.may_touch(ctx, u, tok):
            yield {"unit": u.id, "token": tok.id}


RULES = [
    Rule("rout", check_rout, resolve_rout),
    Rule("play_on", check_play_on, resolve_play_on),
    Rule("grab", check_grab, resolve_grab, candidates_grab, (RuleId.U4, "no grab after a rout waits for this unit")),
    Rule(
        "pick_up", check_pick_up, resolve_pick_up, candidates_pick_up, (RuleId.U6, "no treasure token is on the ground")
    ),
]
