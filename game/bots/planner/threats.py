"""The threats a player sees: what the side to move next can do to the other side's units
with an Engage (E1) and the blows that follow (F1, S2), for :func:`~game.bots.planner.evaluate.evaluate`.

A screening (the side's own turn only) ends before the opponent's turn: the opponent's
Engages are what the side's plan leaves open, whatever unit they fall on, a carrier or
not. A whole rollout ends before the side's own turn: its Engages are its chances. Either
way the same question is asked of the position: for each unit that may Engage next turn,
the enemy within its Engage reach (the crow flies, as :func:`engage_within` bounds it)
whose loss would cost the most; the cost of a loss is the unit's points and, when that
loss brings its warband to the Rout Check threshold (U2, the engine's own count), the
chance that the check fails times a lost game (no hero left: ``rout_no_hero``).
"""

from __future__ import annotations

from game.bots.sense import OddsBook, next_status
from game.bots.view import view as view_of
from game.engine.movement.mover import engage_gap, engage_inches, engage_within
from game.engine.rules.effects import can_pick_up

#: Share of a unit's points for being charged at all (Engaged, it fights where it stands
#: and cannot go for a token or walk one away).
CHARGED = 0.15

_BOOK = OddsBook()


def threats(game, side: str, unit_points: float, win_points: float) -> float:
    """The threats of the side to move next, in points for ``side`` (its own threats
    positive, the opponent's negative): each unit that may Engage next turn picks the
    enemy whose loss is worth most (its chance of Incapacitating it with one attack times
    what the loss costs, see the module), and a unit charged by several counts each
    attacker's chance."""
    st, rs = game.state, game.rs
    neutral = game.neutral_id
    cur = st.player
    contact = float(rs.contact_tolerance)
    upkeep = st.phase == "upkeep"     # a rollout may stop before the mover's upkeep (U5)
    attackers = [u for u in st.units.values() if u.active and u.on_table and not u.engaged_with
                 and u.warband != neutral and game.warband_player(u.warband) == cur]
    targets = [u for u in st.units.values() if u.active and u.on_table and u.warband != neutral
               and game.warband_player(u.warband) != cur]
    if not attackers or not targets:
        return 0.0
    view = None
    hit: dict[str, list[float]] = {}
    for a in attackers:
        status = next_status(a.status) if upkeep else a.status
        reach = engage_inches(rs, a, status)
        if reach <= 0:
            continue
        best, best_t = 0.0, None
        for t in targets:
            if not engage_within(engage_gap(a, t), reach, contact):
                continue
            if view is None:
                view = view_of(game, cur)
            odds = _BOOK.melee(view, a, t, status)
            kill = float(odds.results.get("incapacitated", 0)) if odds is not None else 0.0
            worth = kill * (unit_points + rout_stake(game, t, a, win_points)) + CHARGED * unit_points
            if worth > best:
                best, best_t = worth, t
        if best_t is not None:
            hit.setdefault(best_t.id, []).append(best)
    total = 0.0
    for tid, worths in hit.items():
        sign = -1.0 if st.units[tid].warband == side else 1.0
        total += sign * sum(worths)
    return total


def rout_stake(game, t, by, win_points: float) -> float:
    """What losing ``t`` (Incapacitated by ``by``) costs its warband in Rout Checks (U2):
    nothing while the count stays under the threshold; else the chance the check fails
    times ``win_points``. A carrier's token counts too when ``by`` may pick it up (U6)."""
    st, rs = game.state, game.rs
    wid = t.warband
    held = sum(1 for tok in st.treasure.values() if tok.carried_by and tok.carried_by in st.units
               and st.units[tok.carried_by].on_table and st.units[tok.carried_by].warband not in (wid, game.neutral_id))
    count = int(st.lost.get(wid, 0)) + 1 + held
    if t.carrying and can_pick_up(game.ctx, by):
        count += 1
    if count < float(rs.rout_threshold):
        return 0.0
    return fail_chance(game, t) * win_points


def fail_chance(game, lost) -> float:
    """The chance that ``lost``'s warband fails its Rout Check once ``lost`` is gone: the
    best Morale among the heroes left (a check passes on a roll of at most the stat, one
    ``check_die``), else ``rout_no_hero``."""
    rs = game.rs
    left = [u for u in game.state.units.values() if u.warband == lost.warband and u.active and u.id != lost.id]
    pool = [u for u in left if u.is_hero]
    if not pool:
        rule = rs.rout_no_hero
        if rule == "auto_fail" or not left:
            return 1.0
        if rule == "pass":
            return 0.0
        pool = left
    die = float(rs.check_die)
    morale = max(float(u.stats.get("morale", 0)) for u in pool)
    return min(1.0, max(0.0, (die - morale) / die))
