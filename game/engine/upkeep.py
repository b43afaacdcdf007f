"""The Upkeep phase, U1-U8, and the treasure rules the other phases share (U6, U7).

Each step is a re-entrant function ``step_<name>(g) -> DONE | WAIT | MOVED`` that the
controller (:class:`game.engine.controller.Game`, passed as ``g``) calls when the step
begins and again after every decision taken in it. A step keeps its progress in
``g.progress`` (a dict inside the state, so undo and snapshots cover it) and asks for a
decision by setting ``g.pending``. ``MOVED`` means the step itself moved the turn on (a
warband routed) and the controller should carry on from wherever the state now is.

Every number comes from the ruleset; every roll goes through ``g.dice`` with its rule id.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from game.engine.errors import IllegalAction
from game.engine.model import GameState, Token, Unit

if TYPE_CHECKING:  # pragma: no cover
    from game.engine.controller import Game

DONE, WAIT, MOVED = "done", "wait", "moved"
#: What a Unit Morale table result does in Speedheim (break point variant), unless the
#: ruleset gives ``break_point_effects``.
DEFAULT_BREAK_POINT_EFFECTS = {"rout": "leave", "flee": "leave", "waver": "dazed", "stand_firm": "none", "rally": "recover"}
RECOVERY = {"stunned": "dazed", "dazed": "staggered", "staggered": "normal"}


def _f(v: float) -> str:
    return f"{v:.2f}"


def _lim(v: float) -> str:
    return f"{v:g}"


# --- treasure (U6, U7) ------------------------------------------------------------------

def can_pick_up(g: "Game", u: Unit) -> bool:
    """Able to pick up at all (U4/U6): active, not an Animal, not already carrying."""
    carried = 1 if u.carrying else 0
    return u.active and not u.is_animal and carried < g.rs.treasure_per_unit and u.status != "stunned"


def pickup_denial(g: "Game", u: Unit, tok: Token) -> IllegalAction | None:
    """Why ``u`` may not pick up ``tok`` in the Treasure step now, or None."""
    rs = g.rs
    if u.is_animal:
        return IllegalAction("U6", f"{u.id} is an Animal: Animals cannot pick up treasure (they still deny it)")
    if u.carrying:
        return IllegalAction("U6", f"{u.id} already carries {u.carrying} (one token per unit)")
    if u.status == "stunned":
        return IllegalAction("U5", f"{u.id} is Stunned and cannot do anything")
    if tok.carried_by:
        return IllegalAction("U6", f"{tok.id} is carried by {tok.carried_by}")
    gap = g.board.distance(u, tok)
    if gap > rs.contact_tolerance + 1e-9:
        return IllegalAction("U6", f"{u.id} is {_f(gap)}\" from {tok.id}, not in contact ({_lim(rs.contact_tolerance)}\" or less)")
    nearest = None
    for o in g.state.units.values():
        if o.warband == u.warband or not o.active:
            continue
        d = g.board.distance(o, tok)
        if d <= rs.treasure_denial_range + 1e-9 and (nearest is None or d < nearest[0]):
            nearest = (d, o.id)
    if nearest:
        return IllegalAction("U6", f"pick-up denied: {nearest[1]} is {_f(nearest[0])}\" from {tok.id} ({_lim(rs.treasure_denial_range)}\" or less)")
    return None


def pickup_options(g: "Game", units: list[Unit]) -> tuple[list[dict], list[str]]:
    """(unit, token) pairs that may be picked up now, and sentences on the denied ones."""
    options, denied = [], []
    tol = g.rs.contact_tolerance + 1e-9
    for tok in g.state.treasure.values():
        if tok.carried_by:
            continue
        for u in units:
            # The gap across the table is a lower bound of the G2 distance: a cheap filter.
            if not u.active or math.hypot(u.x - tok.x, u.y - tok.y) - u.r - tok.r > tol:
                continue
            why = pickup_denial(g, u, tok)
            if why is None:
                options.append({"unit": u.id, "token": tok.id})
            elif g.board.distance(u, tok) <= g.rs.contact_tolerance + 1e-9:
                denied.append(f"{u.id} at {tok.id}: {why.reason}")
    return options, denied


def take_token(g: "Game", u: Unit, tok: Token, *, events: bool = True, how: str = "picks up") -> None:
    """``u`` takes ``tok`` (no checks) and reveals what hides under it (U7)."""
    tok.carried_by = u.id
    tok.x, tok.y = u.x, u.y
    u.carrying = tok.id
    g.event(f"{u.id} {how} {tok.id}")
    was_hidden = not tok.revealed
    tok.revealed = True
    if tok.event == "plague" and was_hidden:
        plague_check(g, u, tok)
    elif tok.event == "event" and was_hidden:
        if events:
            trigger_event(g, u, tok)
        else:
            g.event(f"{tok.id} hid an Event token: not triggered by a grab after a rout (U4)")


def plague_check(g: "Game", u: Unit, tok: Token) -> None:
    rs = g.rs
    stat = rs.plague_stat
    roll = g.dice.check(rs, u.stats.get(stat, 0), reason=f"Plague check: {tok.id} hid the Plague", rule="U7", unit=u.id, stat=stat)
    if roll.success:
        g.event(f"{u.id} resists the Plague ({roll.kept} vs {stat} {roll.target:g})")
    else:
        g.event(f"{u.id} fails the Plague check: {rs.plague_fail_status}")
        if rs.plague_fail_status == "incapacitated":
            incapacitate(g, u.id)
        else:
            u.status = rs.plague_fail_status


def trigger_event(g: "Game", u: Unit, tok: Token) -> None:
    """U7: roll on the Event table; Neutral units appear and act from then on (U1)."""
    rs = g.rs
    roll = g.dice.roll(int(rs.event_die), f"Event table: {tok.id} hid an Event", rule="U7", unit=u.id)
    row = next((r for r in rs.event_table if r["low"] <= roll.kept <= r["high"]), None)
    name = row["name"] if row else "no event"
    placeholder = " (placeholder table)" if rs.get("event_table_placeholder") else ""
    g.event(f"Event {roll.kept} on the d{int(rs.event_die)}: {name}{placeholder}")
    player = g.warband_player(u.warband)
    if g.state.event_triggered_by is None and player:
        g.state.event_triggered_by = player
    for spec in (row or {}).get("neutrals", []) or []:
        spawn_neutral(g, spec, tok)


def spawn_neutral(g: "Game", spec: dict, near: Token) -> None:
    """Place one Neutral unit of an Event as close to the token as it fits."""
    st, rs = g.state, g.rs
    base = float(spec.get("base_mm", rs.token_size_mm))
    r = rs.radius(base)
    n = 1 + sum(1 for u in st.units.values() if u.warband == g.neutral_id)
    uid = f"neutral-{n}"
    while uid in st.units:
        n += 1
        uid = f"neutral-{n}"
    spot = _free_spot(g, near.x, near.y, r)
    if spot is None:
        g.event(f"no room on the table for {spec.get('name', 'a Neutral unit')}")
        return
    stats = {k: float(v) for k, v in (spec.get("stats") or {}).items()}
    u = Unit(uid, str(spec.get("name", uid)), g.neutral_id, spot[0], spot[1], base, r, stats, ["neutral"] + list(spec.get("keywords", [])))
    st.units[uid] = u
    st.extra.setdefault("neutral_act", {})[uid] = str(spec.get("act") or g.rs.get("neutral_act", "manual"))
    g.event(f"Neutral {u.name} ({uid}) appears at [{spot[0]:.2f}, {spot[1]:.2f}]")


def _free_spot(g: "Game", x: float, y: float, r: float) -> tuple[float, float] | None:
    board = g.board
    others = [u for u in g.state.units.values() if u.active]
    for ring in range(0, 12):
        dist = ring * r * 1.2
        steps = 1 if ring == 0 else 8 * ring
        for k in range(steps):
            a = 2 * math.pi * k / steps
            px, py = x + dist * math.cos(a), y + dist * math.sin(a)
            if not board.disc_on_table(px, py, r) or board.pieces_touching_disc(px, py, r, ("wall", "impassable")):
                continue
            if all(math.hypot(px - o.x, py - o.y) >= r + o.r - 1e-6 for o in others):
                return (px, py)
    return None


def leave_table(st: GameState, u: Unit) -> None:
    """The unit leaves the table (a rout, a flee): it is no longer Engaged with anyone."""
    for other in u.engaged_with:
        o = st.units.get(other)
        if o is not None and u.id in o.engaged_with:
            o.engaged_with.remove(u.id)
    u.engaged_with = []
    u.on_table = False


def drop_token(g: "Game", u: Unit) -> Token | None:
    if not u.carrying:
        return None
    tok = g.state.treasure[u.carrying]
    u.carrying = None
    tok.carried_by = None
    tok.x, tok.y = u.x, u.y
    g.event(f"{tok.id} is dropped at [{u.x:.2f}, {u.y:.2f}]")
    return tok


def incapacitate(g: "Game", uid: str, by: str | None = None) -> None:
    """U6: count the loss, drop the token, or let the Engaged unit that did it take it."""
    st = g.state
    u = st.units[uid]
    engaged_by = by is not None and by in u.engaged_with
    u.status = "incapacitated"
    st.lost[u.warband] = st.lost.get(u.warband, 0) + 1
    g.event(f"{uid} is Incapacitated" + (f" by {by}" if by else "") + f" ({u.warband} has lost {st.lost[u.warband]})")
    for other in u.engaged_with:
        o = st.units.get(other)
        if o is not None and uid in o.engaged_with:
            o.engaged_with.remove(uid)
    u.engaged_with = []
    tok = drop_token(g, u)
    if tok is not None and engaged_by:
        b = st.units[by]
        if can_pick_up(g, b):
            take_token(g, b, tok, how="takes at once (U6, Engaged)")
        else:
            g.event(f"{by} cannot take {tok.id} (an Animal, Stunned or already carrying)")


# --- steps -------------------------------------------------------------------------------

def step_neutrals(g: "Game") -> str:
    st, prog = g.state, g.progress
    if prog.get("done"):
        return DONE
    units = [u.id for u in st.units.values() if u.warband == g.neutral_id and u.active]
    if st.event_triggered_by is None:
        why = "no Event has been triggered"
    elif st.event_triggered_by != st.player:
        why = f"the Event was triggered by player {st.event_triggered_by}, this is player {st.player}'s turn"
    elif not units:
        why = "no Neutral units are left on the table"
    else:
        why = None
    if why:
        g.auto("U1", f"Neutrals step skipped: {why}")
        return DONE
    if not prog.get("begun"):
        prog["begun"] = True
        g.clear_turn_flags(units)
        g.auto("U1", f"Neutrals act: {', '.join(units)}")
        acts = st.extra.get("neutral_act", {})
        for uid in units:
            if acts.get(uid, g.rs.get("neutral_act", "manual")) == "advance":
                neutral_advance(g, st.units[uid])
        units = [uid for uid in units if acts.get(uid, g.rs.get("neutral_act", "manual")) == "manual" and st.units[uid].active]
        if not units:
            return DONE
    units = [uid for uid in units if st.extra.get("neutral_act", {}).get(uid, g.rs.get("neutral_act", "manual")) == "manual"]
    if not units:
        return DONE
    g.set_pending({"kind": "neutrals", "rule": "U1", "player": st.player, "units": units,
                   "prompt": "Neutral units act as their Event says: move, engage or set results for them, then end the step"})
    return WAIT


def neutral_advance(g: "Game", u: Unit) -> None:
    """U1 placeholder behaviour: engage the nearest opposing unit within Move, else move towards it."""
    st = g.state
    targets = [o for o in st.units.values() if o.active and o.warband != u.warband]
    if not targets or u.status in ("stunned", "incapacitated"):
        g.auto("U1", f"{u.id} holds" + (" (Stunned)" if targets else " (no one to advance on)"))
        return
    t = min(targets, key=lambda o: (g.board.distance(u, o), g.order_of(o.id), o.id))
    try:
        g.engage(u, t)
        g.auto("U1", f"{u.id} engages {t.id}")
        return
    except IllegalAction as why:
        refused = why
    mover = g.mover
    if mover is None:
        g.auto("U1", f"{u.id} holds ({refused.reason}; no movement engine)")
        return
    dx, dy = t.x - u.x, t.y - u.y
    centre = math.hypot(dx, dy) or 1.0
    reach = min(float(u.stats.get("move", 0)), max(0.0, centre - u.r - t.r - g.rs.contact_tolerance))
    for frac in (1.0, 0.5, 0.25):
        step = reach * frac
        if step <= 1e-6:
            break
        to = (u.x + dx / centre * step, u.y + dy / centre * step)
        try:
            plan = mover.plan(st, u.id, to=to)
        except IllegalAction:
            continue
        mover.apply(st, plan, g.dice)
        g.auto("U1", f"{u.id} advances towards {t.id} to [{u.x:.2f}, {u.y:.2f}]")
        return
    g.auto("U1", f"{u.id} holds: cannot reach or move towards {t.id} ({refused.reason})")


def rout_condition(g: "Game", wid: str) -> tuple[bool, str]:
    """U2 (standard) or the legacy table: must ``wid`` make a Rout Check?"""
    st, rs = g.state, g.rs
    lost = st.lost.get(wid, 0)
    if rs.rout_variant == "legacy" and rs.get("rout_legacy_table"):
        size = g.starting_size(wid)
        need = None
        for low, high, value in rs.rout_legacy_table:
            if (low is None or size >= low) and (high is None or size <= high):
                need = value
        if need is None:
            need = rs.rout_legacy_table[-1][2] if size > (rs.rout_legacy_table[-1][1] or 0) else rs.rout_legacy_table[0][2]
        text = f"{wid} has lost {lost} of {size} starting units (legacy: checks from {need:g})"
        return lost >= need, text
    held = sum(1 for t in st.treasure.values() if t.carried_by and st.units[t.carried_by].on_table
               and st.units[t.carried_by].warband not in (wid, g.neutral_id))
    total = lost + held
    text = f"{wid} lost {lost} + {held} treasure held by the opponent = {total} ({_lim(rs.rout_threshold)} or more checks)"
    return total >= rs.rout_threshold, text


def rout_check(g: "Game", wid: str, why: str) -> bool:
    """The Morale check of U2 on the best non-Incapacitated hero (or the no-hero rule)."""
    st, rs = g.state, g.rs
    units = [u for u in st.units_of(wid) if u.active]
    heroes = [u for u in units if u.is_hero]
    pool = heroes
    if not heroes:
        rule = rs.rout_no_hero
        if rule == "auto_fail" or (rule == "best_morale" and not units):
            g.auto("U2", f"Rout Check for {wid} fails: no hero that is not Incapacitated (rout_no_hero: {rule})")
            return False
        if rule == "pass":
            g.auto("U2", f"Rout Check for {wid} passes: no hero, and rout_no_hero is 'pass'")
            return True
        pool = units
    best = max(pool, key=lambda u: (u.stats.get("morale", 0), -g.order_of(u.id)))
    roll = g.dice.check(rs, best.stats.get("morale", 0), reason=f"Rout Check: {why}", rule="U2", unit=best.id, stat="morale")
    g.auto("U2", f"Rout Check for {wid} on {best.id}'s Morale {roll.target:g}: rolled {roll.kept}, {'pass' if roll.success else 'fail'}")
    return bool(roll.success)


def start_rout(g: "Game", wid: str, why: str) -> None:
    """The warband routs (U2/U3): the post-rout grab (U4) runs, then it leaves the table."""
    st, prog = g.state, g.progress
    g.event(f"{wid} routs: {why}")
    others = [w.id for w in g.scenario.warbands if w.player > 0 and w.id not in st.routed and w.id != wid]
    prog["stage"] = "grab"
    prog["loser"] = wid
    prog["winner"] = others[0] if len(others) == 1 else None
    prog["tokens"] = [t.id for t in st.treasure.values() if not t.carried_by] if prog["winner"] else []
    prog["sub"] = None
    prog["chosen"] = None
    if prog["winner"] is None and others:
        g.auto("U4", "no treasure grab: more than one warband remains")


def _near(g: "Game", wid: str, tok: Token) -> list[Unit]:
    lim = g.rs.treasure_grab_range
    return [u for u in g.state.units_of(wid) if u.active and g.board.distance(u, tok) <= lim + 1e-9]


def continue_grab(g: "Game") -> str:
    """U4: for each token on the table, in order; may stop for the owner's choice."""
    st, prog, rs = g.state, g.progress, g.rs
    winner, loser = prog["winner"], prog["loser"]
    rng = _lim(rs.treasure_grab_range)
    while prog["tokens"]:
        tid = prog["tokens"][0]
        tok = st.treasure[tid]
        if tok.carried_by:
            prog["tokens"].pop(0)
            continue
        win_near, lose_near = _near(g, winner, tok), _near(g, loser, tok)
        sub = prog.get("sub")
        if sub is None:
            if not win_near and not lose_near:
                g.auto("U4", f"{tid}: no unit within {rng}\"")
                prog["tokens"].pop(0)
                continue
            sub = "winner_free" if not lose_near else ("loser" if not win_near else "winner")
            prog["sub"] = sub
            case = {"winner_free": f"only {winner} within {rng}\": picks it up",
                    "loser": f"only {loser} within {rng}\": Morale check to pick it up",
                    "winner": f"both within {rng}\": {winner} makes a Morale check first"}[sub]
            g.auto("U4", f"{tid}: {case}")
        side = loser if sub == "loser" else winner
        able = [u for u in (lose_near if sub == "loser" else win_near) if can_pick_up(g, u)]
        if not able:
            g.auto("U4", f"{tid}: no unit of {side} within {rng}\" is able to pick it up")
            if sub == "winner":
                prog["sub"] = "loser"
                continue
            prog["tokens"].pop(0)
            prog["sub"] = None
            continue
        chosen = prog.get("chosen")
        if chosen is None or chosen not in {u.id for u in able}:
            if len(able) > 1:
                g.set_pending({"kind": "grab", "rule": "U4", "token": tid, "warband": side,
                               "player": g.warband_player(side), "units": [u.id for u in able], "check": sub != "winner_free",
                               "prompt": f"{side}: choose which unit tries to grab {tid}"})
                return WAIT
            chosen = able[0].id
        prog["chosen"] = None
        u = st.units[chosen]
        if sub == "winner_free":
            take_token(g, u, tok, events=False, how="grabs")
        else:
            roll = g.dice.check(rs, u.stats.get("morale", 0), reason=f"grab {tid} after the rout", rule="U4", unit=u.id, stat="morale")
            if roll.success:
                take_token(g, u, tok, events=False, how="grabs")
            elif sub == "winner":
                g.auto("U4", f"{u.id} fails to grab {tid}; {loser} may try")
                prog["sub"] = "loser"
                continue
            else:
                g.auto("U4", f"{u.id} fails to grab {tid}")
        prog["tokens"].pop(0)
        prog["sub"] = None
    return finish_rout(g)


def finish_rout(g: "Game") -> str:
    st, prog = g.state, g.progress
    loser = prog["loser"]
    for u in st.units_of(loser):
        if u.on_table:
            leave_table(st, u)
    if loser not in st.routed:
        st.routed.append(loser)
    g.event(f"every unit of {loser} leaves the table")
    prog["stage"] = "done"
    winner = g.outcome()
    if winner:
        st.winner = winner
        g.event(f"{winner} wins: the last warband standing")
        return WAIT
    g.pass_turn(reason=f"{loser} routed")
    return MOVED


def step_rout(g: "Game") -> str:
    st, prog, rs = g.state, g.progress, g.rs
    stage = prog.get("stage")
    if stage == "done":
        return DONE
    if stage == "voluntary":
        return WAIT if g.pending else DONE
    if stage == "grab":
        return continue_grab(g)
    w = g.current_warband()
    if w is None:
        g.auto("U2", f"player {st.player} has no warband")
        return DONE
    if rs.rout_variant == "break_point":
        if rs.get("break_point_table"):
            return break_point(g, w.id)
        g.auto("U2", "rout_variant break_point needs break_point_table (ruleset rout-breakpoint): using the standard rule")
    need, why = rout_condition(g, w.id)
    if not need:
        g.auto("U2", f"no Rout Check: {why}")
        return DONE
    if not rout_check(g, w.id, why):
        start_rout(g, w.id, "failed its Rout Check (U2)")
        return continue_grab(g)
    prog["stage"] = "voluntary"
    g.set_pending({"kind": "voluntary_rout", "rule": "U3", "player": st.player, "warband": w.id,
                   "prompt": f"{w.id} passed its Rout Check: rout voluntarily, or play on?"})
    return WAIT


def break_point(g: "Game", wid: str) -> str:
    """Variant: ceil(starting units / divisor) lost -> every unit rolls 2d6 + morale."""
    st, rs = g.state, g.rs
    size = g.starting_size(wid)
    bp = math.ceil(size / rs.break_point_divisor)
    lost = st.lost.get(wid, 0)
    seen = st.extra.setdefault("break_point_seen", {})
    new = lost - seen.get(wid, 0)
    seen[wid] = lost
    if lost < bp or new <= 0:
        why = f"{lost} lost of {size}, break point {bp}" + ("" if lost < bp else ", no new loss since the last roll")
        g.auto("U2", f"no morale rolls for {wid}: {why}")
        return DONE
    count, sides = rs.break_point_dice
    effects = {**DEFAULT_BREAK_POINT_EFFECTS, **(rs.get("break_point_effects") or {})}
    g.auto("U2", f"{wid} is at its break point ({lost} lost of {size}, break point {bp}): every unit rolls {count}d{sides} + morale")
    for u in [u for u in st.units_of(wid) if u.active]:
        mod = int((u.stats.get("morale", 0) - rs.break_point_morale_base) // rs.break_point_morale_step)
        roll = g.dice.roll(int(sides), f"Unit Morale (break point {bp})", rule="U2", count=int(count), unit=u.id)
        roll.stat, roll.modifier = "morale", mod
        total = roll.kept + mod
        result = "stand_firm"
        for low, high, res in rs.break_point_table:
            if (low is None or total >= low) and (high is None or total <= high):
                result = res
                break
        roll.success = effects.get(result, "none") not in ("leave",)
        effect = effects.get(result, "none")
        g.auto("U2", f"{u.id}: {roll.kept}{mod:+d} = {total}: {result} ({effect})")
        if effect == "leave":
            drop_token(g, u)
            leave_table(st, u)
            st.lost[wid] = st.lost.get(wid, 0) + 1
        elif effect == "recover":
            if u.status in RECOVERY:
                u.status = RECOVERY[u.status]
        elif effect in ("staggered", "dazed", "stunned"):
            if u.status == "normal":
                u.status = effect
    seen[wid] = st.lost.get(wid, 0)
    if not any(u.active for u in st.units_of(wid)):
        start_rout(g, wid, "no unit stands after the morale rolls (break point)")
        return continue_grab(g)
    return DONE


def step_recover(g: "Game") -> str:
    st = g.state
    w = g.current_warband()
    changed = []
    for u in (st.units_of(w.id) if w else []):
        if u.on_table and u.status in RECOVERY:
            before, u.status = u.status, RECOVERY[u.status]
            changed.append(f"{u.id} {before} -> {u.status}")
    g.auto("U5", "Recover: " + ("; ".join(changed) if changed else "nothing to recover"))
    return DONE


def is_first_players_first_turn(g: "Game") -> bool:
    players = sorted(w.player for w in g.scenario.warbands if w.player > 0)
    return bool(players) and g.state.turn == 1 and g.state.player == players[0]


def step_treasure(g: "Game") -> str:
    st, rs, prog = g.state, g.rs, g.progress
    if prog.get("done"):
        return DONE
    if rs.treasure_first_turn_skipped and is_first_players_first_turn(g):
        g.auto("U6", "Treasure step skipped in the first player's first turn")
        return DONE
    w = g.current_warband()
    options, denied = pickup_options(g, st.units_of(w.id) if w else [])
    if not options:
        if not prog.get("noted"):
            g.auto("U6", "Treasure step: no unit can pick up a token" + (f" ({'; '.join(denied)})" if denied else ""))
        return DONE
    prog["noted"] = True
    g.set_pending({"kind": "pick_up", "rule": "U6", "player": st.player, "options": options, "denied": denied,
                   "prompt": "pick up treasure, or end the step"})
    return WAIT


def step_ongoing_spells(g: "Game") -> str:
    st, rs = g.state, g.rs
    w = g.current_warband()
    any_spell = False
    for u in (st.units_of(w.id) if w else []):
        if not u.on_table or not u.spells:
            continue
        for spell in list(u.spells):
            any_spell = True
            roll = g.dice.check(rs, u.stats.get("morale", 0), reason=f"keep the Ongoing spell {spell}", rule="U8", unit=u.id, stat="morale")
            if roll.success:
                g.auto("U8", f"{u.id} keeps {spell} ({roll.kept} vs Morale {roll.target:g})")
            else:
                u.spells.remove(spell)
                g.auto("U8", f"{u.id}'s {spell} ends ({roll.kept} vs Morale {roll.target:g})")
    if not any_spell:
        g.auto("U8", "no Ongoing spells")
    return DONE


STEPS = {
    "neutrals": step_neutrals,
    "rout": step_rout,
    "recover": step_recover,
    "treasure": step_treasure,
    "ongoing_spells": step_ongoing_spells,
}


def decline(g: "Game") -> None:
    """The player ends the step without taking the pending decision."""
    p = g.pending
    if p is None:
        return
    prog = g.progress
    kind = p["kind"]
    g.set_pending(None)
    if kind == "voluntary_rout":
        prog["stage"] = "done"
        g.event(f"{p['warband']} plays on (U3)")
    elif kind in ("pick_up", "neutrals"):
        prog["done"] = True
    elif kind == "grab":
        prog["chosen"] = p["units"][0]
        g.event(f"{p['warband']} lets {p['units'][0]} try for {p['token']} (the first listed)")
