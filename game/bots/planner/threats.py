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

from game.bots.sense import next_status
from game.bots.view import view as view_of
from game.engine.movement.mover import engage_gap, engage_inches, engage_within
from game.engine.rules.effects import can_pick_up

#: Share of a unit's points for being charged at all (Engaged, it fights where it stands
#: and cannot go for a token or walk one away).
CHARGED = 0.15


def threats(game, side: str, unit_points: float, win_points: float, kill) -> float:
    """The threats of the side to move next, in points for ``side`` (its own threats
    positive, the opponent's negative): each unit that may Engage next turn picks the
    enemy whose loss is worth most (``kill(view, attacker, target)``: the chance the fight
    Incapacitates it, times what the loss costs, see the module), and a unit charged by
    several counts each attacker's chance."""
    st, rs = game.state, game.rs
    neutral = game.neutral_id
    cur = st.player
    contact = float(rs.contact_tolerance)
    upkeep = st.phase == "upkeep"  # a rollout may stop before the mover's upkeep (U5)
    attackers = [
        u
        for u in st.units.values()
        if u.active
        and u.on_table
        and not u.engaged_with
        and u.warband != neutral
        and game.warband_player(u.warband) == cur
    ]
    targets = [
        u
        for u in st.units.values()
        if u.active and u.on_table and u.warband != neutral and game.warband_player(u.warband) != cur
    ]
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
            worth = kill(view, a, t) * (unit_points + rout_stake(game, t, a, win_points)) + CHARGED * unit_points
            if worth > best:
                best, best_t = worth, t
        if best_t is not None:
            hit.setdefault(best_t.id, []).append(best)
    total = 0.0
    for tid, worths in hit.items():
        sign = -1.0 if st.units[tid].warband == side else 1.0
        total += sign * sum(worths)
    return total


def _held_from(game, wid: str) -> int:
    """Tokens held by the other warbands' units on the table (U2's count)."""
    st = game.state
    return sum(
        1
        for tok in st.treasure.values()
        if tok.carried_by
        and tok.carried_by in st.units
        and st.units[tok.carried_by].on_table
        and st.units[tok.carried_by].warband not in (wid, game.neutral_id)
    )


def near_threshold(game, wid: str) -> bool:
    """Could one loss (a carrier's, its token taken too) bring ``wid`` to the Rout Check
    threshold (U2)? Else no loss of it has a :func:`rout_stake`."""
    return int(game.state.lost.get(wid, 0)) + _held_from(game, wid) + 2 >= float(game.rs.rout_threshold)


def rout_stake(game, t, by, win_points: float) -> float:
    """What losing ``t`` (Incapacitated by ``by``) costs its warband in Rout Checks (U2):
    nothing while the count stays under the threshold; else the chance the check fails
    (less the chance it fails already, at the threshold now) times ``win_points``. A
    carrier's token counts too when ``by`` may pick it up (U6)."""
    st, rs = game.state, game.rs
    wid = t.warband
    held = _held_from(game, wid)
    now = int(st.lost.get(wid, 0)) + held
    count = now + 1 + (1 if t.carrying and can_pick_up(game.ctx, by) else 0)
    threshold = float(rs.rout_threshold)
    if count < threshold:
        return 0.0
    before = fail_chance(game, wid) if now >= threshold else 0.0
    return max(0.0, fail_chance(game, wid, t.id) - before) * win_points


def fail_chance(game, wid: str, without: str | None = None) -> float:
    """The chance that warband ``wid`` fails a Rout Check (without the unit ``without``):
    the best Morale among its heroes (a check passes on a roll of at most the stat, one
    ``check_die``), else ``rout_no_hero``."""
    rs = game.rs
    left = [u for u in game.state.units.values() if u.warband == wid and u.active and u.id != without]
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


class ThreatReply:
    """The opponent's reply in a rollout: the ``base`` bot's (the utility bot), except that
    in the Engage phase it first charges the unit whose loss may rout the other warband
    (:func:`rout_stake`), when one stands within reach: the threat a player sees and the
    utility bot does not value. ``kill(view, attacker, target)`` is the fight's chance."""

    def __init__(self, base, kill, win_points: float):
        self.base, self.kill, self.win = base, kill, win_points
        self.name = "planner-reply"

    def choose(self, view):
        return self.base.choose(view)

    def choose_game(self, game, player: int):
        """The decision for ``player`` on ``game`` (a rollout's sandbox)."""
        view = view_of(game, player)
        st = game.state
        if view.pending is None and st.phase == "engage" and st.player == player:
            d = self._rout_charge(game, view, player)
            if d is not None:
                return d
        return self.base.choose(view)

    def _rout_charge(self, game, view, player: int):
        from game.bots.base import BotDecision
        from game.bots.planner.goals import can_act

        st, rs = game.state, game.rs
        contact = float(rs.contact_tolerance)
        if not any(
            near_threshold(game, w.id)
            for w in game.scenario.warbands
            if w.player > 0 and game.warband_player(w.id) != player
        ):
            return None
        best = None
        for a in st.units.values():
            if a.warband == game.neutral_id or game.warband_player(a.warband) != player or not can_act(a):
                continue
            reach = engage_inches(rs, a)
            if reach <= 0:
                continue
            for t in st.units.values():
                if (
                    not t.active
                    or not t.on_table
                    or t.warband in (a.warband, game.neutral_id)
                    or not engage_within(engage_gap(a, t), reach, contact)
                ):
                    continue
                stake = rout_stake(game, t, a, self.win)
                if stake > 0:
                    worth = self.kill(view, a, t) * stake
                    if best is None or worth > best[0]:
                        best = (worth, a, t)
        if best is None or best[0] <= 0:
            return None
        _, a, t = best
        action = {"engage": {"unit": a.id, "target": t.id}}
        if game.why_illegal(action) is not None:
            return None
        return BotDecision(
            action, f"{a.name or a.id} engages {t.name or t.id}: its loss may rout its warband", unit=a.id
        )
