"""What several phases do to units and tokens: treasure (U6, U7), Incapacitation (U6),
leaving the table, the flags of a turn. Every number comes from the ruleset; every roll
goes through ``ctx.dice`` with its rule id; everything that happens is an event."""

from __future__ import annotations

import math

from game.engine.errors import IllegalAction
from game.engine.events import (
    EventNotTriggered,
    EventTriggered,
    Incapacitated,
    Measured,
    NeutralAppeared,
    Note,
    PlagueChecked,
    TokenDropped,
    TokenTaken,
)
from game.engine.model import GameState, Token, Unit
from game.engine.rule_ids import RuleId
from game.engine.rules.context import Ctx
from game.engine.tolerance import EPS, beyond, within

#: Per-turn flags of a unit and their values when its owner's turn begins (docs/actions.md).
TURN_FLAGS = {
    "ran": False,
    "moved": False,
    "used": 0.0,
    "difficult": False,
    "reloaded": False,
    "engage_attempted": False,
    "shots": 0,
    "attacks": 0,
}


def _f(v: float) -> str:
    return f"{v:.2f}"


def _lim(v: float) -> str:
    return f"{v:g}"


def clear_turn_flags(st: GameState, uids: list[str]) -> None:
    """Per-turn flags clear when the owner's turn begins."""
    for uid in uids:
        u = st.units[uid]
        for key, value in TURN_FLAGS.items():
            setattr(u, key, value)
        u.trail = []


# --- treasure (U6, U7) ------------------------------------------------------------------


def can_pick_up(ctx: Ctx, u: Unit) -> bool:
    """Able to pick up at all (U4/U6): active, not an Animal, not already carrying."""
    carried = 1 if u.carrying else 0
    return u.active and not u.is_animal and carried < ctx.rs.treasure_per_unit and u.status != "stunned"


def pickup_denial(ctx: Ctx, u: Unit, tok: Token) -> IllegalAction | None:
    """Why ``u`` may not pick up ``tok`` now, or None (U5, U6)."""
    rs = ctx.rs
    if u.is_animal:
        return IllegalAction(RuleId.U6, f"{u.id} is an Animal: Animals cannot pick up treasure (they still deny it)")
    if u.carrying:
        return IllegalAction(RuleId.U6, f"{u.id} already carries {u.carrying} (one token per unit)")
    if u.status == "stunned":
        return IllegalAction(RuleId.U5, f"{u.id} is Stunned and cannot do anything")
    if tok.carried_by:
        return IllegalAction(RuleId.U6, f"{tok.id} is carried by {tok.carried_by}")
    gap = ctx.board.distance(u, tok)
    if beyond(gap, rs.contact_tolerance):
        return IllegalAction(
            RuleId.U6, f'{u.id} is {_f(gap)}" from {tok.id}, not in contact ({_lim(rs.contact_tolerance)}" or less)'
        )
    nearest = None
    for o in ctx.state.units.values():
        if o.warband == u.warband or not o.active:
            continue
        d = ctx.board.distance(o, tok)
        if within(d, rs.treasure_denial_range) and (nearest is None or d < nearest[0]):
            nearest = (d, o.id)
    if nearest:
        return IllegalAction(
            RuleId.U6,
            f'pick-up denied: {nearest[1]} is {_f(nearest[0])}" from {tok.id} '
            f'({_lim(rs.treasure_denial_range)}" or less)',
        )
    return None


def nearest_enemy(ctx: Ctx, u: Unit, tok: Token) -> float | None:
    """The distance from ``tok`` to the nearest active unit not of ``u``'s warband (what
    U6's denial compares with ``treasure_denial_range``), or None when there is none."""
    ds = [ctx.board.distance(o, tok) for o in ctx.state.units.values() if o.warband != u.warband and o.active]
    return min(ds) if ds else None


def measure_denial(ctx: Ctx, u: Unit, tok: Token) -> None:
    """Record what U6 measured for a pick-up it decided (allowed or denied)."""
    d = nearest_enemy(ctx, u, tok)
    if d is not None:
        ctx.emit(Measured(RuleId.U6, "treasure_denial_range", d))


def measure_denials(ctx: Ctx, units: list[Unit]) -> None:
    """Record what U6 measured for every pick-up it denies now because an enemy is near."""
    for tok in ctx.state.treasure.values():
        if tok.carried_by:
            continue
        for u in units:
            if not (
                can_pick_up(ctx, u)
                and may_touch(ctx, u, tok)
                and within(ctx.board.distance(u, tok), ctx.rs.contact_tolerance)
            ):
                continue
            d = nearest_enemy(ctx, u, tok)
            if d is not None and within(d, ctx.rs.treasure_denial_range):
                ctx.emit(Measured(RuleId.U6, "treasure_denial_range", d))


def may_touch(ctx: Ctx, u: Unit, tok: Token) -> bool:
    """A cheap filter: could ``u``'s base touch ``tok``? (The gap across the table is a
    lower bound of the G2 distance.)"""
    return math.hypot(u.x - tok.x, u.y - tok.y) - u.r - tok.r <= ctx.rs.contact_tolerance + EPS


def pickup_options(ctx: Ctx, units: list[Unit]) -> tuple[list[tuple[str, str]], list[str]]:
    """(unit, token) pairs that may be picked up now, and sentences on the denied ones."""
    options, denied = [], []
    for tok in ctx.state.treasure.values():
        if tok.carried_by:
            continue
        for u in units:
            if not u.active or not may_touch(ctx, u, tok):
                continue
            why = pickup_denial(ctx, u, tok)
            if why is None:
                options.append((u.id, tok.id))
            elif within(ctx.board.distance(u, tok), ctx.rs.contact_tolerance):
                denied.append(f"{u.id} at {tok.id}: {why.reason}")
    return options, denied


def take_token(ctx: Ctx, u: Unit, tok: Token, *, events: bool = True, how: str = "picks up") -> None:
    """``u`` takes ``tok`` (no checks) and reveals what hides under it (U7)."""
    tok.carried_by = u.id
    tok.x, tok.y = u.x, u.y
    u.carrying = tok.id
    ctx.emit(TokenTaken(u.id, tok.id, how))
    was_hidden = not tok.revealed
    tok.revealed = True
    if tok.event == "plague" and was_hidden:
        plague_check(ctx, u, tok)
    elif tok.event == "event" and was_hidden:
        if events:
            trigger_event(ctx, u, tok)
        else:
            ctx.emit(EventNotTriggered(tok.id, u.id))


def plague_check(ctx: Ctx, u: Unit, tok: Token) -> None:
    rs = ctx.rs
    stat = rs.plague_stat
    roll = ctx.dice.check(
        rs, u.stats.get(stat, 0), reason=f"Plague check: {tok.id} hid the Plague", rule=RuleId.U7, unit=u.id, stat=stat
    )
    ctx.emit(PlagueChecked(u.id, tok.id, bool(roll.success), roll, stat, rs.plague_fail_status))
    if not roll.success:
        if rs.plague_fail_status == "incapacitated":
            incapacitate(ctx, u.id)
        else:
            u.status = rs.plague_fail_status


def trigger_event(ctx: Ctx, u: Unit, tok: Token) -> None:
    """U7: roll on the Event table; Neutral units appear and act from then on (U1)."""
    rs = ctx.rs
    roll = ctx.dice.roll(int(rs.event_die), f"Event table: {tok.id} hid an Event", rule=RuleId.U7, unit=u.id)
    row = next((r for r in rs.event_table if r["low"] <= roll.kept <= r["high"]), None)
    name = row["name"] if row else "no event"
    ctx.emit(EventTriggered(tok.id, u.id, roll.kept, int(rs.event_die), name, bool(rs.get("event_table_placeholder"))))
    player = ctx.warband_player(u.warband)
    if ctx.state.event_triggered_by is None and player:
        ctx.state.event_triggered_by = player
    for spec in (row or {}).get("neutrals", []) or []:
        spawn_neutral(ctx, spec, tok)


def spawn_neutral(ctx: Ctx, spec: dict, near: Token) -> None:
    """Place one Neutral unit of an Event as close to the token as it fits."""
    st, rs = ctx.state, ctx.rs
    base = float(spec.get("base_mm", rs.token_size_mm))
    r = rs.radius(base)
    n = 1 + sum(1 for u in st.units.values() if u.warband == ctx.neutral_id)
    uid = f"neutral-{n}"
    while uid in st.units:
        n += 1
        uid = f"neutral-{n}"
    spot = _free_spot(ctx, near.x, near.y, r)
    name = str(spec.get("name", uid))
    if spot is None:
        ctx.emit(NeutralAppeared(uid, str(spec.get("name", "a Neutral unit")), None))
        return
    stats = {k: float(v) for k, v in (spec.get("stats") or {}).items()}
    st.units[uid] = Unit(
        uid, name, ctx.neutral_id, spot[0], spot[1], base, r, stats, ["neutral"] + list(spec.get("keywords", []))
    )
    st.neutral_act[uid] = str(spec.get("act") or rs.get("neutral_act", "manual"))
    ctx.emit(NeutralAppeared(uid, name, spot))


def _free_spot(ctx: Ctx, x: float, y: float, r: float) -> tuple[float, float] | None:
    board = ctx.board
    others = [u for u in ctx.state.units.values() if u.active]
    for ring in range(0, 12):
        dist = ring * r * 1.2
        steps = 1 if ring == 0 else 8 * ring
        for k in range(steps):
            a = 2 * math.pi * k / steps
            px, py = x + dist * math.cos(a), y + dist * math.sin(a)
            if not board.disc_on_table(px, py, r) or board.pieces_touching_disc(px, py, r, ("wall", "impassable")):
                continue
            if all(math.hypot(px - o.x, py - o.y) >= r + o.r - EPS for o in others):
                return (px, py)
    return None


# --- units leaving play -------------------------------------------------------------------


def break_engagements(st: GameState, u: Unit) -> None:
    """``u`` is no longer Engaged with anyone (and no one with it)."""
    for other in u.engaged_with:
        o = st.units.get(other)
        if o is not None and u.id in o.engaged_with:
            o.engaged_with.remove(u.id)
    u.engaged_with = []


def leave_table(st: GameState, u: Unit) -> None:
    """The unit leaves the table (a rout, a flee)."""
    break_engagements(st, u)
    u.on_table = False


def drop_token(ctx: Ctx, u: Unit) -> Token | None:
    if not u.carrying:
        return None
    tok = ctx.state.treasure[u.carrying]
    u.carrying = None
    tok.carried_by = None
    tok.x, tok.y = u.x, u.y
    ctx.emit(TokenDropped(tok.id, (u.x, u.y)))
    return tok


def incapacitate(ctx: Ctx, uid: str, by: str | None = None) -> None:
    """U6: count the loss, drop the token, or let the Engaged unit that did it take it."""
    st = ctx.state
    u = st.units[uid]
    engaged_by = by is not None and by in u.engaged_with
    u.status = "incapacitated"
    st.lost[u.warband] = st.lost.get(u.warband, 0) + 1
    ctx.emit(Incapacitated(uid, by, u.warband, st.lost[u.warband]))
    break_engagements(st, u)
    tok = drop_token(ctx, u)
    if tok is not None and engaged_by:
        b = st.units[by]
        if can_pick_up(ctx, b):
            take_token(ctx, b, tok, how="takes at once (U6, Engaged)")
        else:
            ctx.emit(Note(f"{by} cannot take {tok.id} (an Animal, Stunned or already carrying)", RuleId.U6))


def turn_begins(ctx: Ctx) -> None:
    """A player's turn begins: the per-turn flags of its units clear."""
    w = ctx.current_warband()
    clear_turn_flags(ctx.state, [u.id for u in ctx.state.units_of(w.id)] if w else [])
