"""What the ``utility`` bot reads of the table for one decision: sides, tokens, values, odds.

Everything here is read from a :class:`~game.bots.view.View` (the masked state and the
questions a player may ask). Values are in the bot's own points (the personality's
weights): a kill, a loss, a token, one more point of a warband's rout count (U2). Combat
odds are the engine's exact ones (``Game.odds``), asked of a hypothetical state where
the two units are Engaged in the attacker's Melee phase (``View.what_if``): nothing is
applied and no die is rolled.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace
from typing import Any

from game.bots.personality import Personality
from game.bots.routes import RouteBook
from game.engine.dice import NORMAL
from game.engine.model import STATUSES, Token, Unit
from game.engine.movement.mover import engage_inches, may_engage
from game.engine.rules.effects import can_pick_up
from game.engine.rules.shoot import weapon_of
from game.engine.rules.upkeep import RECOVERY
from game.engine.rules.wounds import MISS, NO_EFFECT, Odds, attack_odds

INCAP = "incapacitated"


def gap(ax: float, ay: float, ar: float, b: Unit | Token) -> float:
    """Edge-to-edge inches across the table (G1 without height): a quick estimate."""
    return math.hypot(ax - b.x, ay - b.y) - ar - b.r


def engage_reach(rs, u: Unit, status: str | None = None) -> float:
    """How far ``u`` may Engage (E1) with ``status`` (default: its own): the movement
    engine's answer (:func:`engage_inches`)."""
    return engage_inches(rs, u, status)


def next_status(status: str) -> str:
    """The status a unit has when its own next turn's Recover step is done (U5)."""
    return RECOVERY.get(status, status)


def _stats(u: Unit) -> tuple:
    return tuple(sorted(u.stats.items()))


class OddsBook:
    """Exact odds of one unit's attack on another, cached per game (by the two units and
    their statuses), and the game's routes (:class:`RouteBook`)."""

    def __init__(self):
        self._rules = None
        self._cache: dict[tuple, Odds | None] = {}
        #: The routes of the game (several moves to a goal), kept as the odds are.
        self.routes = RouteBook()

    def _fresh(self, view) -> None:
        if view.rules is not self._rules:
            self._rules = view.rules
            self._cache.clear()

    def melee(self, view, a: Unit, t: Unit, a_status: str | None = None, t_status: str | None = None) -> Odds | None:
        """``a`` attacks ``t`` in a Melee phase (F1, S2), ``a`` having ``a_status`` and ``t``
        ``t_status`` (default: their own)."""
        self._fresh(view)
        status = a_status or a.status
        t_status = t_status or t.status
        # The odds depend on the two units' stats and statuses only (F1, S2).
        key = ("attack", _stats(a), status, _stats(t), t_status)
        if key not in self._cache:
            self._cache[key] = self._melee(view, a, t, status, t_status)
        return self._cache[key]

    @staticmethod
    def _melee(view, a: Unit, t: Unit, status: str, t_status: str) -> Odds | None:
        rs = view.rules
        if "melee" in rs.phase_names:
            with view.what_if((a.id, t.id)) as st:
                st.phase, st.step, st.pending = "melee", None, None
                st.player = view.warband_player(a.warband)
                st.activation, st.activated, st.passed = None, [], []  # a fresh phase (O2)
                A, T = st.units[a.id], st.units[t.id]
                A.status, A.attacks, T.status = status, 0, t_status
                A.engaged_with, T.engaged_with = [t.id], [a.id]
                # in base contact, as an attack needs (E2): on the line between them
                d = math.hypot(A.x - T.x, A.y - T.y) or 1.0
                A.x, A.y = T.x + (A.x - T.x) * (A.r + T.r) / d, T.y + (A.y - T.y) * (A.r + T.r) / d
                odds = view.odds({"attack": {"unit": a.id, "target": t.id}})
            if odds is not None:
                return odds
        if status == "stunned":
            return None
        target = t if t.status == t_status else dataclasses.replace(t, status=t_status)
        return attack_odds(rs, float(a.stats.get(rs.melee_stat, 0)), NORMAL, target)

    def shot(self, view, a: Unit, t: Unit) -> Odds | None:
        """A rough shot of ``a`` at ``t`` (no cover, short range), for threats; the Shoot
        phase itself asks ``Game.odds`` of the real shot."""
        self._fresh(view)
        key = ("shoot", _stats(a), _stats(t), t.status)
        if key not in self._cache:
            rs = view.rules
            self._cache[key] = attack_odds(rs, float(a.stats.get(rs.shoot_stat, 0)), NORMAL, t)
        return self._cache[key]


class Sense:
    """The table for one decision of the side ``side`` (a warband id)."""

    def __init__(self, view, side: str, pers: Personality, book: OddsBook):
        self.view, self.side, self.p, self.book = view, side, pers, book
        st = self.state = view.state
        rs = self.rs = view.rules
        active = [u for u in st.units.values() if u.active]
        self.mine = [u for u in active if u.warband == side]
        self.enemies = [u for u in active if u.warband != side]
        self.free_tokens = [t for t in st.treasure.values() if not t.carried_by]
        self.contact = float(rs.contact_tolerance)
        self.threshold = float(rs.rout_threshold)
        self._wctx = SimpleNamespace(rs=rs)  # what the rules helpers read (weapon_of, can_pick_up)
        self.neutral = view.neutral_id

    # --- the rout count (U2) and what things are worth ------------------------------------------
    def rout_count(self, wid: str) -> int:
        """U2: units lost + tokens held by the opponent's units."""
        st = self.state
        held = sum(
            1
            for t in st.treasure.values()
            if t.carried_by
            and st.units[t.carried_by].on_table
            and st.units[t.carried_by].warband not in (wid, self.neutral)
        )
        return st.lost.get(wid, 0) + held

    def rout_value(self, wid: str) -> float:
        """One more point of ``wid``'s rout count, worth more as it nears the threshold."""
        if wid == self.neutral:
            return 0.0
        missing = self.threshold - self.rout_count(wid)
        return self.p.rout / max(1.0, missing)

    def token_value(self) -> float:
        """A token our side picks up: its own value, and one more point of each opposing
        warband's rout count."""
        others = {u.warband for u in self.enemies if u.warband != self.neutral}
        return self.p.token + sum(self.rout_value(w) for w in others)

    def unit_value(self, u: Unit) -> float:
        """What losing ``u`` costs its side (or gains ours, for an enemy)."""
        p = self.p
        if u.warband == self.neutral and self.side != self.neutral:
            return 0.5 * p.kill
        base = p.loss if u.warband == self.side else p.kill
        value = base + self.rout_value(u.warband)
        if u.carrying:
            value += p.token + self.rout_value(u.warband)
        return value

    def share(self, status: str) -> float:
        """How much of a unit's value a status takes away."""
        if status == INCAP:
            return 1.0
        return float(self.p.weights.get(status, 0.0))

    def attack_value(self, odds: Odds | None, t: Unit) -> float:
        """Expected value of an attack's results on ``t`` (worse statuses only count)."""
        if odds is None:
            return 0.0
        now = self.share(t.status)
        total = 0.0
        for result, chance in odds.results.items():
            if result in (MISS, NO_EFFECT):
                continue
            total += float(chance) * max(0.0, self.share(result) - now)
        return total * self.unit_value(t)

    def incap_chance(self, odds: Odds | None) -> float:
        if odds is None:
            return 0.0
        return float(odds.results.get(INCAP, 0)) + float(odds.results.get("stunned", 0))

    # --- units ------------------------------------------------------------------------------------
    def can_pick_up(self, u: Unit) -> bool:
        """Able to pick up a token at all (U4, U6): the rules' own answer."""
        return can_pick_up(self._wctx, u)

    def weapon(self, u: Unit) -> tuple[str, dict] | None:
        return weapon_of(self._wctx, u)

    def engagers(self) -> list[Unit]:
        """The side's units that may still try an Engage this phase: not yet tried, not
        moved, standing (not Stunned or Dazed) and not in contact. A prefilter that spares
        questions; the engine's ``legal_actions`` is what decides."""
        return [
            u
            for u in self.mine
            if not u.engage_attempted
            and not u.moved
            and u.used <= 0
            and u.status not in ("stunned", "dazed")
            and not u.engaged_with
        ]

    def engage_reach(self, u: Unit, status: str | None = None) -> float:
        return engage_reach(self.rs, u, status)

    def may_engage(self, u: Unit, t: Unit, status: str | None = None) -> bool:
        """Whether ``u`` might reach ``t`` with an Engage: the engine's straight-line bound
        (:func:`may_engage`), the cheap test before ``why_illegal`` searches a path."""
        return may_engage(self.rs, u, t, status)

    def threats_to(self, u: Unit, within: float = math.inf) -> list[tuple[Unit, float, float, str]]:
        """Who may hurt ``u`` in the opponent's next turn if it ends within ``within``
        inches of where it stands: (enemy, reach, expected loss, how) with how "melee"
        (it can Engage within ``reach``) or "shoot" (within ``reach``)."""
        out = []
        worth = self.unit_value(u)
        for e in self.enemies:
            status = next_status(e.status)
            reach = self.engage_reach(e, status)
            far = gap(u.x, u.y, u.r, e) - within
            if 0 < reach < far and self.weapon(e) is None:
                continue
            if reach > 0 and not e.engaged_with and reach >= far:
                odds = self.book.melee(self.view, e, u, status)
                out.append((e, reach, self._loss(odds, u, worth), "melee"))
            w = self.weapon(e)
            if w is not None and status not in ("stunned", "dazed") and e.warband != self.neutral:
                reach = float(w[1]["range"]) + float(e.stats.get("move", 0))
                if reach >= far:
                    odds = self.book.shot(self.view, e, u)
                    out.append((e, reach, self._loss(odds, u, worth), "shoot"))
        return out

    def loss(self, odds: Odds | None, u: Unit) -> float:
        """Expected loss to ``u``'s side from an attack on it with these odds."""
        return self._loss(odds, u, self.unit_value(u))

    def _loss(self, odds: Odds | None, u: Unit, worth: float) -> float:
        if odds is None:
            return 0.0
        now = self.share(u.status)
        return worth * sum(
            float(c) * max(0.0, self.share(r) - now) for r, c in odds.results.items() if r not in (MISS, NO_EFFECT)
        )

    def pickers_near(self, tok: Token) -> list[Unit]:
        """Enemies that could reach contact with ``tok`` in their next move (a Run)."""
        out = []
        mult = float(self.rs.run_multiplier)
        for e in self.enemies:
            if e.warband == self.neutral or not self.can_pick_up(e) or e.engaged_with:
                continue
            status = next_status(e.status)
            if status in ("stunned",):
                continue
            move = float(e.stats.get("move", 0)) * (0.5 if status in ("staggered", "dazed") else 1.0) * mult
            if gap(e.x, e.y, e.r, tok) <= move + self.contact:
                out.append(e)
        return out

    def denied(self, tok: Token) -> Unit | None:
        """An enemy within denial range of ``tok`` now (U6), or None."""
        lim = float(self.rs.treasure_denial_range)
        near = [e for e in self.enemies if gap(e.x, e.y, e.r, tok) <= lim + 1e-9]
        return min(near, key=lambda e: gap(e.x, e.y, e.r, tok)) if near else None

    def name(self, uid: str) -> str:
        u = self.state.units.get(uid)
        return u.name if u is not None and u.name else uid

    def status_rank(self, status: str) -> int:
        return STATUSES.index(status) if status in STATUSES else 0


def odds_text(odds: Any) -> str:
    if odds is None:
        return ""
    inc = float(odds.results.get(INCAP, 0))
    return f"hit {float(odds.hit):.0%}, out {inc:.0%}"


def legal_targets(sense: Sense, u, kind: str, within: float):
    """(enemy, action) for each enemy within ``within`` inches (a quick bound) that ``u``
    may take the action ``kind`` on now (``why_illegal`` says so)."""
    for t in sense.enemies:
        if gap(u.x, u.y, u.r, t) > within + 0.1:
            continue
        action = {kind: {"unit": u.id, "target": t.id}}
        if sense.view.why_illegal(action) is None:
            yield t, action
