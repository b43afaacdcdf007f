"""The planner's value of a position for one side, in points: one function, its terms named.

:func:`evaluate` reads a game (a real one or a rollout's copy) and answers how good it
stands for the warband ``side``, as a :class:`Value` whose ``terms`` add up to ``total``.
Anyone may call it (``advise``, a report's "what mattered"). It knows:

* the result: a game that has ended is worth :data:`WIN` to the winner (T1, a rout);
* the score: treasure held by each side (T1 ``turn_limit_winner: treasure`` counts it),
  worth more as the turns run out (``urgency``: the last turns leave no time to win a
  token back);
* the T1 tie-break: fewer units lost wins a level count, so each unit lost counts;
* the rout count (U2: units lost + tokens held by the opponent, the engine's
  ``rout_condition``): a side at its threshold must check, and one more point nearer to it
  costs more;
* statuses (Stunned, Dazed, Staggered: a share of a unit, and of a carrier's token);
* carriers pinned in a fight (they cannot walk their token away; two foes on one more so);
* the fights: the chance that each Engaged unit is Incapacitated before the turn limit
  if its fights go on (the exact odds of every blow, F1 and S2; U5's recovery between);
* the race for the free tokens: who reaches each token first, in Runs (the next turn is
  the side's own, so a tie goes to it; an enemy within the Run denial range now holds a
  unit to a walk first, M2);
* carriers within reach of an enemy's Engage next turn, or a Run or two from it (the chase);
* the threats (:mod:`threats`): what the side to move next can Engage and Incapacitate,
  any unit, and a loss that brings a Rout Check the warband may fail (U2).

Every rule number comes from the ruleset (turn limit, threshold, run multiplier, contact
tolerance); the weights below are the planner's own, in points (a token = :data:`TOKEN`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from game.bots.planner.threats import rout_stake, threats
from game.bots.sense import OddsBook, next_status
from game.bots.view import view as view_of
from game.engine import turnorder
from game.engine.movement.mover import engage_inches
from game.engine.rules.effects import can_pick_up
from game.engine.rules.upkeep import rout_condition

#: Points of a won (lost) game.
WIN = 1000.0
#: Points of one token held (the treasure score) and of one unit (kill or loss).
TOKEN = 12.0
UNIT = 8.0
#: A token held is worth ``TOKEN * (1 + URGENCY / (turns_left + 1))``.
URGENCY = 2.0
#: A side that must make a Rout Check (U2) loses this share of a won game's points.
ROUT_RISK = 0.05
#: Share of a unit's points a status takes away.
STATUS_SHARE = {"staggered": 0.1, "dazed": 0.35, "stunned": 0.6}
#: Share of a carrier's token at stake when Engaged (two foes on it: all of it).
PINNED = 0.4
#: Share of a token's points for being first in the race to a free token, and what each
#: turn of waiting for it leaves of that (a token won sooner is surer, and a step nearer
#: counts).
RACE = 0.45
RACE_DECAY = 0.8
#: Share of that left when an opposing unit can deny the pick-up (U6) before it happens.
DENIED = 0.35
#: How firmly a denier in a fight holds its token (U6), by its status: it may be
#: Incapacitated before the pick-up (F1), the sooner the worse it stands; two foes on it,
#: the square.
FIRM = {"normal": 0.6, "staggered": 0.5, "dazed": 0.3, "stunned": 0.1}
#: Share of a unit's points (and a carrier's token) at the chance that the fights it is in
#: Incapacitate it before the turn limit (:func:`_fights`).
FIGHT = 0.7
#: Game turns the fights are looked ahead at most (without a turn limit, T1's default).
FIGHT_TURNS = 10
#: Share of a carrier's token an enemy in Engage reach next turn puts at risk.
CARRIER_RISK = 0.5
#: Runs within which a hunter still counts against a carrier.
CHASE_TURNS = 2
#: Share of what the next player's Engages threaten (:func:`threats.threats`) counted now.
THREAT = 0.6
#: The threatening unit's turns of a fight that has not started that the threat looks at.
THREAT_TURNS = 3


@dataclass
class Value:
    """A position's value for one side: ``total`` points and the terms that make it."""

    total: float
    terms: dict[str, float] = field(default_factory=dict)
    held: tuple[int, int] = (0, 0)  # tokens held (this side, the others)
    lost: tuple[int, int] = (0, 0)  # units lost (this side, the others)
    turns_left: int = 0
    over: bool = False
    won: bool | None = None  # True won, False lost, None draw / not over

    def text(self) -> str:
        parts = [f"{k} {v:+.1f}" for k, v in sorted(self.terms.items(), key=lambda kv: -abs(kv[1])) if abs(v) >= 0.05]
        return f"{self.total:+.1f} ({', '.join(parts) or 'level'})"


def turns_left(game, side: str) -> int:
    """The game turns still to start after this one (T1), or a large number without a limit."""
    limit = game.rs.turn_limit
    if limit is None:
        return 99
    return max(0, int(limit) - int(game.state.turn))


def _held(st, wid: str) -> int:
    return sum(1 for u in st.units.values() if u.warband == wid and u.carrying and u.on_table)


def evaluate(game, side: str) -> Value:
    """The value of ``game`` as it stands for the warband ``side`` (see the module)."""
    st, rs = game.state, game.rs
    neutral = game.neutral_id
    bands = [w.id for w in game.scenario.warbands if w.player > 0]
    others = [w for w in bands if w != side]
    left = turns_left(game, side)
    terms: dict[str, float] = {}
    mine_held = _held(st, side)
    their_held = sum(_held(st, w) for w in others)
    mine_lost = int(st.lost.get(side, 0))
    their_lost = sum(int(st.lost.get(w, 0)) for w in others)
    o = game.outcome()
    if o is not None:
        won = None if o.winner is None else o.winner == side
        terms["result"] = 0.0 if won is None else (WIN if won else -WIN)
        # Even a decided game keeps the score: a bigger margin is a safer one.
        terms["treasure"] = TOKEN * (mine_held - their_held)
        terms["losses"] = UNIT * (their_lost - mine_lost)
        return Value(sum(terms.values()), terms, (mine_held, their_held), (mine_lost, their_lost), 0, True, won)
    urgency = 1.0 + URGENCY / (left + 1)
    terms["treasure"] = TOKEN * urgency * (mine_held - their_held)
    # T1's tie-break and the units themselves.
    terms["losses"] = UNIT * (their_lost - mine_lost) * (1.0 + (0.5 if left <= 2 else 0.0))
    status = pinned = 0.0
    for u in st.units.values():
        if not u.active or u.warband == neutral:
            continue
        sign = -1.0 if u.warband == side else 1.0
        share = STATUS_SHARE.get(u.status, 0.0)
        # A carrier's status puts its token at stake too.
        status += sign * share * (UNIT + (TOKEN * urgency if u.carrying else 0.0))
        if u.carrying and u.engaged_with:
            # A carrier in a fight cannot walk its token away; each foe on it raises the stake.
            pinned += sign * PINNED * TOKEN * urgency * min(len(u.engaged_with), 2) / 2
    terms["status"] = status
    terms["pinned"] = pinned
    rout = 0.0
    threshold = float(rs.rout_threshold)
    for w in bands:
        must, _ = rout_condition(game.ctx, w)
        count = int(st.lost.get(w, 0)) + sum(_held(st, x) for x in bands if x != w)
        pressure = count / max(1.0, threshold) * 2.0 + (ROUT_RISK * WIN if must else 0.0)
        rout += pressure if w != side else -pressure
    terms["rout"] = rout
    terms["fights"] = FIGHT * _fights(game, side, left, urgency)
    terms["race"] = _race(game, side, left)
    terms["carriers"] = urgency * _carriers(game, side, left)
    terms["threats"] = THREAT * threats(game, side, UNIT, WIN, kill_chance)
    return Value(sum(terms.values()), terms, (mine_held, their_held), (mine_lost, their_lost), left, False, None)


def _fights(game, side: str, left: int, urgency: float) -> float:
    """What the fights on the table are worth if they go on to the turn limit (T1): for
    each Engaged unit, the chance it is Incapacitated by then, blow by blow (each foe
    Engaged with it attacks it in the foe's turns, shared among the foe's opponents, with
    the rules' exact odds), recovering a step at its own upkeep (U5); a unit's points,
    for a carrier its token's (U6 hands it to the victor), and a Rout Check the loss may
    fail (U2, :func:`rout_stake`). The Neutrals' blows and the
    Neutrals' own units are left out."""
    st = game.state
    cur = st.player
    views: dict[int, object] = {}  # the attacking side's view, for the odds
    total = 0.0
    for u in st.units.values():
        if not u.active or not u.engaged_with or u.warband == game.neutral_id:
            continue
        foes = [st.units[f] for f in u.engaged_with if f in st.units and st.units[f].active]
        if not foes:
            continue
        p_me = game.warband_player(u.warband)
        # Half-turns from now on: the foes' turns and the unit's own (its upkeep's recovery).
        dist = {u.status: 1.0}
        gone = 0.0
        for turn in range(min(left, FIGHT_TURNS) + 1):
            for player in (1, 2):
                if turn == 0 and player < cur:
                    continue
                if player == p_me:
                    dist = _recover(dist)
                    continue
                for f in foes:
                    if f.warband == game.neutral_id or game.warband_player(f.warband) != player:
                        continue
                    if player not in views:
                        views[player] = view_of(game, player)
                    share = 1.0 / max(1, len(f.engaged_with))
                    dist, died = _blow(views[player], f, u, dist, share)
                    gone += died
        worth = UNIT + (TOKEN * urgency if u.carrying else 0.0) + rout_stake(game, u, foes[0], WIN)
        total += (-1.0 if u.warband == side else 1.0) * gone * worth
    return total


def kill_chance(view, f, u) -> float:
    """The chance that ``f``, Engaged with ``u`` alone, Incapacitates it within
    :data:`THREAT_TURNS` of ``f``'s turns, ``u`` recovering a step at its own upkeep
    between (U5): :func:`_fights`'s odds for a fight that has not started."""
    dist = {u.status: 1.0}
    gone = 0.0
    for i in range(THREAT_TURNS):
        if i:
            dist = _recover(dist)
        dist, died = _blow(view, f, u, dist, 1.0)
        gone += died
    return gone


def _recover(dist: dict[str, float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for s, p in dist.items():
        n = next_status(s)
        out[n] = out.get(n, 0.0) + p
    return out


#: Exact odds of one blow (the rules' own answer, kept per stats and statuses).
_BOOK = OddsBook()


def _blow(view, f, u, dist: dict[str, float], share: float) -> tuple[dict[str, float], float]:
    """``f``'s blow at ``u`` (made with chance ``share``) on ``u``'s status chances: the new
    chances and the chance it Incapacitated ``u``."""
    out: dict[str, float] = {}
    died = 0.0
    a_status = next_status(f.status)
    for s, p in dist.items():
        odds = _BOOK.melee(view, f, u, a_status, s)
        if odds is None:
            out[s] = out.get(s, 0.0) + p
            continue
        out[s] = out.get(s, 0.0) + p * (1.0 - share)
        for r, q in odds.results.items():
            n = s if r in ("miss", "no effect") else r
            if n == "incapacitated":
                died += p * share * float(q)
            else:
                out[n] = out.get(n, 0.0) + p * share * float(q)
    return out, died


def _race(game, side: str, left: int) -> float:
    """Who picks up each free token first (U6), on a time line of half-turns from the next
    turn, whoever's it is (a rollout ends before the side's own turn, a screening before
    the opponent's): a picker that needs ``a`` Runs picks up at the upkeep of its side's
    turn a+1 if that comes before the turn limit (T1); the first pick-up gets the token,
    the sooner the more it is worth (:data:`RACE_DECAY` a Run, unrounded: a step nearer
    counts). A unit held to a walk now by an enemy within the Run denial range (M2)
    walks its first move; a carrier always walks (U6). A denier of the other side (any
    unit, Animals too) within the denial range before that upkeep takes some of it away
    (:func:`_kept`); the Neutrals at a token deny both sides. Distances are base edge to
    token edge, plus the height to climb (a roof token is a climb away, not a step)."""
    st = game.state
    board = game.board
    ctx = game.ctx
    # Whose turn comes next (a rollout ends before the side's own turn, a screening
    # before the opponent's), and how many turns each side has left (T1).
    me = game.warband_player(side)
    cur = st.player
    me_next = cur == me
    off_me, off_them = (0, 1) if me_next else (1, 0)

    order = turnorder.order(ctx)  # this game turn's order (O1): player 1 first by default

    def turns_of(p: int) -> int:
        return left + 1 if cur in order and p in order and order.index(p) >= order.index(cur) else left

    my_turns = turns_of(me)
    their_turns = turns_of(3 - me)
    active = [u for u in st.units.values() if u.active]
    discs = {u.id: board.disc(u) for u in active}  # each base's place and height, once
    movers = _race_movers(game, side, active, discs)
    total = 0.0
    for tok in st.treasure.values():
        if tok.carried_by:
            continue
        pick, runs, deny, firm = _token_race(game, tok, movers, discs)
        a, b = pick[True], pick[False]
        # On a time line of half-turns (1 = the next turn): a picker that needs ``a`` turns
        # picks up at the upkeep of its side's turn a+1 unless a foe arrived within the
        # denial range before that; a denier that needs ``e`` turns arrives at its side's
        # turn e (0: there now). The first to pick up gets it.
        mine_in = a < math.inf and a + 1 <= my_turns
        theirs_in = b < math.inf and b + 1 <= their_turns
        t_mine = 2 * a + 1 + off_me if mine_in else math.inf
        t_theirs = 2 * b + 1 + off_them if theirs_in else math.inf
        if mine_in and t_mine <= t_theirs:
            arrive = 2 * deny[False] - 1 + off_them
            total += (
                RACE
                * TOKEN
                * RACE_DECAY ** runs[True]
                * _kept(arrive, t_mine, firm[False] if deny[False] == 0 else 0.0)
            )
        elif theirs_in:
            arrive = 2 * deny[True] - 1 + off_me
            total -= (
                RACE
                * TOKEN
                * RACE_DECAY ** runs[False]
                * _kept(arrive, t_theirs, firm[True] if deny[True] == 0 else 0.0)
            )
    return total


def _race_movers(game, side: str, active: list, discs: dict) -> list[tuple]:
    """Each active unit in :func:`_race`: (unit, of ``side``, Run inches or 0, the first
    turn's inches, whether it may pick up a token, its height)."""
    st, rs = game.state, game.rs
    mult = float(rs.run_multiplier)
    neutral = game.neutral_id
    ctx = game.ctx
    run_denier = game.mover.run_denier  # M2, the engine's
    movers = []
    for u in active:
        status = next_status(u.status)
        run = first = 0.0
        if not u.engaged_with and status != "stunned":
            slow = float(rs.staggered_move_factor) if status in ("staggered", "dazed") else 1.0
            walk = float(u.stats.get("move", 0)) * slow
            run = walk if u.carrying else walk * mult  # a carrier may not Run (U6)
            first = walk if run_denier(st, u, discs) else run  # M2 takes the next Run away
        picker = u.warband != neutral and not u.engaged_with and status != "stunned" and can_pick_up(ctx, u)
        movers.append((u, u.warband == side, run, first, picker, discs[u.id].z))
    return movers


def _token_race(game, tok, movers: list[tuple], discs: dict) -> tuple[dict, dict, dict, dict]:
    """For one free token, by side (True: :func:`_race`'s side): the turns until a picker
    touches it, the same in Runs (unrounded), the turns until a unit denies it, and how
    firmly the one there now holds it."""
    st, rs = game.state, game.rs
    contact = float(rs.contact_tolerance)
    lim = float(rs.treasure_denial_range)
    free_h = float(rs.free_height)
    neutral = game.neutral_id
    board = game.board
    td = board.disc(tok)
    tz = td.z
    pick = {True: math.inf, False: math.inf}  # turns until a picker touches it
    runs = {True: math.inf, False: math.inf}  # the same in Runs, unrounded (the decay)
    deny = {True: math.inf, False: math.inf}  # turns until a unit of that side denies it
    firm = {True: 0.0, False: 0.0}  # how firmly the one there now holds it
    for u, mine, run, first, picker, uz in movers:
        dz = abs(tz - uz)
        climb = dz if dz > free_h else 0.0
        g = max(0.0, math.hypot(u.x - tok.x, u.y - tok.y) - u.r - tok.r)
        if u.warband == neutral:
            if board.distance(discs[u.id], td) <= lim + 1e-9:
                deny[True] = deny[False] = 0  # the Neutrals deny both sides (U6)
                firm[True] = firm[False] = max(firm[True], firm[False], _firm(st, u))
            continue
        if board.distance(discs[u.id], td) <= lim + 1e-9:
            deny[mine] = 0
            firm[mine] = max(firm[mine], _firm(st, u))
        elif run > 0:
            deny[mine] = min(deny[mine], math.ceil(_turns(max(0.0, g - lim) + climb, first, run)))
        if picker:
            need = max(0.0, g - contact) + climb
            if need <= 1e-9:
                pick[mine] = 0
                runs[mine] = 0.0
            elif run > 0:
                turns = _turns(need, first, run)
                pick[mine] = min(pick[mine], math.ceil(turns))
                runs[mine] = min(runs[mine], turns)
    return pick, runs, deny, firm


def _turns(inches: float, first: float, run: float) -> float:
    """Moves (unrounded) to cover ``inches``: ``first`` in the next one (a walk when M2
    denies the Run), ``run`` in each after."""
    if inches <= first:
        return inches / first if first > 0 else math.inf
    return 1.0 + (inches - first) / run


def _firm(st, u) -> float:
    """How firmly ``u`` holds a token it denies (U6): 1 out of a fight, else :data:`FIRM`
    by its status (squared with two or more foes on it)."""
    foes = sum(1 for o in u.engaged_with if o in st.units and st.units[o].active)
    if not foes:
        return 1.0
    return FIRM.get(u.status, FIRM["normal"]) ** min(foes, 2)


def _kept(deny_at: float, pick_at: float, there: float) -> float:
    """What a pick-up at half-turn ``pick_at`` keeps of its worth when the other side can
    deny it (U6) from half-turn ``deny_at``: a denier there now leaves :data:`DENIED`
    of it (``there`` is how firmly it holds the token, :func:`_firm`; 0: none there); one
    that must still get there (and may be stopped, or be wanted elsewhere) takes half as
    much; arriving in the very turn before the pick-up, half again; too late, nothing."""
    if deny_at >= pick_at:
        return 1.0
    share = there if there > 0 else 0.5
    if deny_at >= pick_at - 1:
        share *= 0.5
    return 1.0 - (1.0 - DENIED) * share


def _carriers(game, side: str, left: int) -> float:
    """Carriers within an enemy's Engage reach next turn (a rough bound: the crow flies),
    or closer to it the nearer a hunter stands (at most half as much, within two Runs)."""
    st, rs = game.state, game.rs
    mult = float(rs.run_multiplier)
    total = 0.0
    for c in st.units.values():
        if not c.active or not c.carrying:
            continue
        best = 0.0
        for e in st.units.values():
            if not e.active or e.warband == c.warband or e.engaged_with or e.warband == game.neutral_id:
                continue
            status = next_status(e.status)
            reach = engage_inches(rs, e, status)
            run = float(e.stats.get("move", 0)) * mult
            if reach <= 0 or run <= 0:
                continue
            g = math.hypot(c.x - e.x, c.y - e.y) - c.r - e.r - reach
            if g > run * min(left, CHASE_TURNS):
                continue
            best = max(best, 1.0 if g <= 0 else 0.5 * run / (run + g))
        total += (-1 if c.warband == side else 1) * CARRIER_RISK * TOKEN * best
    return total
