"""The ``utility`` bot: it scores the actions it may take and picks the best.

Per decision (one action), by what the game waits for:

* a pending decision: ``pick_up`` (always, with the unit best placed for a Plague check),
  ``grab`` (the best Morale), a voluntary rout (plays on: routing hands the game over),
  the Neutrals (U1: each engages the enemy it hurts most, else closes in);
* Engage: every unit's legal engages are valued (the exact odds of its attack in this
  turn's Melee phase, friends already on the target, the target's blow back next turn,
  the treasure it gives up by not moving); the best engage that is worth
  ``engage_min`` is made;
* Move: the units in order (nearest to their objective first, from where they stood
  when the phase began), each to its best place (:mod:`game.bots.positions`; the seed
  picks among places within the personality's ``vary`` of the best), a reload
  for a fired weapon, or standing still; the bot tells which units are done from the log
  of this phase, so a decision depends only on the game (and the seed);
* Shoot and Melee: the shot or attack with the best expected value (exact odds).

Then it ends the phase. Every decision carries a one-line reason. Choices are
deterministic: the only randomness is the view's generator (game seed + side).
"""

from __future__ import annotations

from game.bots.base import BotDecision, end_decision
from game.bots.personality import DEFAULT, Personality, load_personality
from game.bots.positions import Option, PositionScorer
from game.bots.sense import OddsBook, Sense, gap, legal_targets, next_status, odds_text
from game.bots.utility_advice import candidates
from game.bots.view import acted_now
from game.engine.decisions import Grab, NeutralsAct, PickUp, VoluntaryRout
from game.engine.legal import side_to_act


class UtilityBot:
    """Scores candidate actions with a personality's weights (see the module's docstring)."""

    def __init__(self, personality: Personality | str = DEFAULT):
        self.personality = personality if isinstance(personality, Personality) else load_personality(personality)
        self.name = f"utility:{self.personality.name}"
        self.book = OddsBook()

    # --- the one question ---------------------------------------------------------------------
    def choose(self, view) -> BotDecision:
        p = view.pending
        if isinstance(p, PickUp):
            return self._pick_up(view, p)
        if isinstance(p, Grab):
            return self._grab(view, p)
        if isinstance(p, VoluntaryRout):
            return self._rout(view, p)
        if isinstance(p, NeutralsAct):
            return self._neutrals(view, p)
        kinds = set(view.legal_action_kinds())
        side = self._side(view)
        if side is not None:
            sense = Sense(view, side, self.personality, self.book)
            for kind, act in (
                ("attack", self._melee),
                ("shoot", self._shoot),
                ("engage", self._engage),
                ("move", self._move),
            ):
                if kind in kinds:
                    d = act(sense)
                    if d is not None:
                        return d
        st = view.state
        if st.activation is not None:  # O2 alternating: the activated unit is done
            return end_decision(view, f"ends {st.activation}'s activation: nothing more worth doing")
        return end_decision(view, f"ends the {st.phase} phase: nothing more worth doing")

    # --- advice: the candidates it scored, best first ---------------------------------------------
    def options(self, view, k: int = 3) -> list[BotDecision]:
        """The ``k`` best next actions by this bot's own scores, best first (the contract
        of :class:`game.bots.base.Advisor`): what :meth:`choose` plays, then the other
        candidates it weighs now, by value: every legal attack and shot (its expected
        value), every engage worth ``engage_min`` (its net worth), each unit's best move
        or reload (its gain over standing still), and ending the phase or step (0)."""
        first = self.choose(view)
        others = [d for d in candidates(self, view) if view.why_illegal(d.action) is None]
        same = next((d for d in others if d.action == first.action), None)
        out = [same or first]
        for d in sorted(others, key=lambda d: -d.score):
            if len(out) >= k:
                break
            if all(d.action != o.action for o in out):
                out.append(d)
        return out[: max(1, k)]

    @staticmethod
    def _side(view) -> str | None:
        units = side_to_act(view)
        return view.state.units[units[0]].warband if units else view.my_warband()

    # --- pending decisions --------------------------------------------------------------------------
    def _pick_up(self, view, p: PickUp) -> BotDecision:
        rs, st = view.rules, view.state
        stat = rs.plague_stat

        def key(opt):
            u = st.units[opt[0]]
            return (-float(u.stats.get(stat, 0)), u.is_hero, view.unit_order(u.id))

        for uid, tid in sorted(p.options, key=key):
            action = {"pick_up": {"unit": uid, "token": tid}}
            if view.why_illegal(action) is None:
                u = st.units[uid]
                return BotDecision(
                    action,
                    f"{u.name or uid} picks up {tid}: free treasure, no enemy within "
                    f'{rs.treasure_denial_range:g}" (best {stat} for a Plague check)',
                    unit=uid,
                )
        return end_decision(view, "no token can be picked up")

    def _grab(self, view, p: Grab) -> BotDecision:
        st = view.state
        units = sorted(p.units, key=lambda uid: (-float(st.units[uid].stats.get("morale", 0)), view.unit_order(uid)))
        for uid in units:
            action = {"grab": {"unit": uid, "token": p.token}}
            if view.why_illegal(action) is None:
                why = "best Morale for the check" if p.check else "able to pick it up"
                return BotDecision(action, f"{st.units[uid].name or uid} tries for {p.token} ({why})", unit=uid)
        return end_decision(view, "no unit may try for the token")

    def _rout(self, view, p: VoluntaryRout) -> BotDecision:
        action = {"play_on": {"player": p.player}}
        if view.why_illegal(action) is None:
            return BotDecision(action, f"{p.warband} plays on: routing would hand the game to the other side")
        return end_decision(view, f"{p.warband} plays on")

    def _neutrals(self, view, p: NeutralsAct) -> BotDecision:
        """U1: the Neutrals go for whoever is nearest and weakest: engage, else close in."""
        done = acted_now(view)
        sense = Sense(view, view.neutral_id, self.personality, self.book)
        units = [
            view.state.units[uid]
            for uid in p.units
            if uid not in done
            and uid in view.state.units
            and view.state.units[uid].active
            and not view.state.units[uid].engaged_with
        ]
        d = self._best_engage(sense, units, opportunity=False)
        if d is not None:
            return d
        for u in units:
            d = self._move_unit(sense, u, picker=False)
            if d is not None:
                return d
        return end_decision(view, "the Neutrals have acted")

    # --- Engage (E1) ---------------------------------------------------------------------------------
    def _engage(self, sense: Sense) -> BotDecision | None:
        units = sense.engagers()
        return self._best_engage(sense, units, opportunity=True)

    def _best_engage(self, sense: Sense, units: list, opportunity: bool) -> BotDecision | None:
        """The engage worth most, if it is worth ``engage_min``. Every pair within reach is
        valued first (odds only), those the engine's straight-line bound leaves in reach
        (:meth:`Sense.may_engage`); legality (a path search) is asked of the best first."""
        view = sense.view
        for net, u, t, odds, friends, joining in self._engage_options(sense, units, opportunity):
            action = {"engage": {"unit": u.id, "target": t.id}}
            if view.why_illegal(action) is not None:
                continue
            return self._engage_decision(u, t, net, odds, friends, joining)
        return None

    @staticmethod
    def _engage_decision(u, t, net: float, odds, friends, joining) -> BotDecision:
        what = f" ({t.status.capitalize()})" if t.status != "normal" else ""
        gang = (f"; {len(friends)} friend(s) on it" if friends else "") + (
            f"; {len(joining)} more can join" if joining else ""
        )
        return BotDecision(
            {"engage": {"unit": u.id, "target": t.id}},
            f"{u.name or u.id} engages {t.name or t.id}{what}: {odds_text(odds)}{gang}, worth {net:.1f}",
            unit=u.id,
            score=net,
        )

    def _engage_options(self, sense: Sense, units: list, opportunity: bool) -> list[tuple]:
        """(net worth, unit, target, odds, friends on it, friends that may join) of every
        pair in reach worth ``engage_min``, best first (legality not asked yet)."""
        view, pers = sense.view, sense.p
        options = []
        for u in units:
            reach = sense.engage_reach(u)
            if reach <= 0 or u.engaged_with:  # an Engaged unit fights where it stands
                continue
            give_up = self._opportunity(sense, u) if opportunity else 0.0
            for t in sense.enemies:
                if not sense.may_engage(u, t):  # beyond any path: the engine's own bound
                    continue
                mine = sense.book.melee(view, u, t)
                gain = sense.attack_value(mine, t)
                friends = [a for a in sense.mine if a.id != u.id and t.id in a.engaged_with]
                # Friends that may still join it this phase (ganging up).
                joining = [
                    a
                    for a in units
                    if a.id != u.id and a not in friends and not a.engaged_with and sense.may_engage(a, t)
                ]
                gang = len(friends) + len(joining)
                back = sense.book.melee(view, t, u, next_status(t.status))
                survive = 1.0 - sense.incap_chance(mine)
                # The target strikes back at one of the units on it: ganging up shares it.
                risk = pers.threat * survive * sense.loss(back, u) / (1 + gang)
                net = pers.melee_rounds * (gain - risk) + pers.support * gang - give_up
                if net >= pers.engage_min:
                    options.append((net, u, t, mine, friends, joining))
        options.sort(key=lambda o: -o[0])
        return options

    def _opportunity(self, sense: Sense, u) -> float:
        """What ``u`` gives up by engaging instead of moving: a token it could reach or
        already touches."""
        if not sense.can_pick_up(u):
            return 0.0
        tv, pers = sense.token_value(), sense.p
        reach = float(u.stats.get("move", 0)) * float(sense.rs.run_multiplier)
        best = 0.0
        for tok in sense.free_tokens:
            g = gap(u.x, u.y, u.r, tok)
            if g <= sense.contact:
                best = max(best, pers.contact * tv)
            elif g <= reach:
                best = max(best, 0.5 * pers.contact * tv)
        return best

    # --- Move (M1-M12, M11 reload) -----------------------------------------------------------------
    def _move(self, sense: Sense) -> BotDecision | None:
        view = sense.view
        done = acted_now(view)
        order = sorted(sense.mine, key=lambda u: (self._urgency(sense, u), view.unit_order(u.id)))
        ids = [u.id for u in order]
        last = max((ids.index(uid) for uid in done if uid in ids), default=-1)
        for u in order[last + 1 :]:
            if u.id in done or u.engaged_with or u.moved or u.used > 0 or u.engage_attempted or u.reloaded:
                continue
            d = self._move_unit(sense, u, picker=None)
            if d is not None:
                return d
        return None

    @staticmethod
    def _urgency(sense: Sense, u) -> float:
        """Move order: carriers first, then by the gap from where the unit stood when the
        phase began to its nearest objective (a token it may take, else an enemy)."""
        if u.carrying:
            return -1.0
        x, y = u.trail[0][0] if u.trail else (u.x, u.y)
        goals = sense.free_tokens if sense.can_pick_up(u) and sense.free_tokens else sense.enemies
        return min((gap(x, y, u.r, g) for g in goals), default=0.0)

    def _move_unit(self, sense: Sense, u, picker: bool | None) -> BotDecision | None:
        view, pers = sense.view, sense.p
        scorer = PositionScorer(sense, u)
        if picker is False:
            scorer.picker, scorer.tokens = False, []
        best, hold = scorer.best(lambda: view.reachable(u.id))
        reload = self._reload(sense, u)
        if reload is not None and (best.kind == "hold" or hold.score + pers.reload >= best.score):
            return reload
        if best.kind == "hold":
            return None
        return self._move_decision(sense, u, best)

    def _reload(self, sense: Sense, u) -> BotDecision | None:
        w = sense.weapon(u)
        if w is None or not w[1].get("reload") or u.loaded:
            return None
        action = {"reload": {"unit": u.id}}
        if sense.view.why_illegal(action) is not None:
            return None
        return BotDecision(
            action, f"{u.name or u.id} reloads its {w[0]} instead of moving (M11)", unit=u.id, score=sense.p.reload
        )

    def _move_decision(self, sense: Sense, u, opt: Option) -> BotDecision | None:
        x, y = opt.point
        plan = opt.plan
        path = tuple((p[0], p[1]) for p in plan.points) if plan is not None else None
        # The planned path itself (checked as given, M1), not the destination: the engine
        # would search the same path again for the question and again for the move.
        action = {opt.kind: {"unit": u.id, "path": [list(p) for p in path]}} if path else None
        if action is None or sense.view.why_illegal(action) is not None:
            action = {opt.kind: {"unit": u.id, "to": [x, y]}}
            if sense.view.why_illegal(action) is not None:
                return None
        cost = plan.cost if plan is not None else 0.0
        verb = "runs" if opt.kind == "run" else "moves"
        where, why = self._describe(sense, u, opt)
        return BotDecision(
            action, f'{u.name or u.id} {verb} {cost:.1f}" to {where}: {why}', unit=u.id, path=path, score=opt.score
        )

    @staticmethod
    def _describe(sense: Sense, u, opt: Option) -> tuple[str, str]:
        x, y = opt.point
        t = opt.terms
        where = f"[{x:.1f}, {y:.1f}]"
        why = []
        # the token the treasure term is worth most for there (every place it counts names one)
        k = int(t.get("_route_tok", -1))
        aim = sense.free_tokens[k] if 0 <= k < len(sense.free_tokens) else None
        if t.get("treasure", 0) > 0 and aim is not None:
            g = gap(x, y, u.r, aim)
            left = t.get("_route_left", float("nan"))
            if g <= sense.contact:
                where, _ = aim.id, why.append("free token")
            elif left == left:  # a route over several moves (ladders, round walls)
                why.append(f'along the route to {aim.id} ({left:.1f}" to go)')
            else:
                why.append(f'towards {aim.id} ({g:.1f}" to go)')
        if t.get("deny", 0) > 0:
            why.append("denies a token")
        if t.get("hunt", 0) > 0.5 and not why:
            foe = min(sense.enemies, key=lambda e: gap(x, y, u.r, e), default=None)
            if foe is not None:
                why.append(f"closing on {foe.name or foe.id}")
        if t.get("threat", 0) < 0:
            why.append(f"risk {-t['threat']:.1f}")
        if t.get("run_zone", 0) < 0:
            why.append("inside Run denial range")
        elif t.get("_run_kept"):
            why.append(f'keeps out of {sense.rs.run_denial_range:g}" to Run next turn')
        if opt.note:
            why.append(opt.note)
        nearest = t.get("_nearest")
        if nearest is not None and nearest != float("inf"):
            why.append(f'nearest enemy {nearest:.1f}" away')
        return where, ", ".join(why) or "a better place"

    # --- Shoot (S1) and Melee (F1) ---------------------------------------------------------------------
    def _shoot(self, sense: Sense) -> BotDecision | None:
        view = sense.view
        best = None
        for u in sense.mine:
            w = sense.weapon(u)
            if w is None or u.shots or u.ran or u.engaged_with:
                continue
            for t, action in legal_targets(sense, u, "shoot", float(w[1]["range"])):
                odds = view.odds(action)
                value = sense.attack_value(odds, t) * sense.p.shoot
                if best is None or value > best[0]:
                    best = (value, u, t, odds, w[0])
        if best is None or best[0] <= 0:
            return None
        value, u, t, odds, weapon = best
        return BotDecision(
            {"shoot": {"unit": u.id, "target": t.id}},
            f"{u.name or u.id} shoots {t.name or t.id} with its {weapon}: {odds_text(odds)}, worth {value:.1f}",
            unit=u.id,
            score=value,
        )

    def _melee(self, sense: Sense) -> BotDecision | None:
        view = sense.view
        best = None
        for u in sense.mine:
            for tid in u.engaged_with:
                t = sense.state.units.get(tid)
                if t is None:
                    continue
                action = {"attack": {"unit": u.id, "target": tid}}
                if view.why_illegal(action) is not None:
                    continue
                odds = view.odds(action)
                value = sense.attack_value(odds, t)
                if best is None or value > best[0]:
                    best = (value, u, t, odds)
        if best is None:
            return None
        value, u, t, odds = best
        what = f" ({t.status.capitalize()})" if t.status != "normal" else ""
        return BotDecision(
            {"attack": {"unit": u.id, "target": t.id}},
            f"{u.name or u.id} attacks {t.name or t.id}{what}: {odds_text(odds)}, worth {value:.1f}",
            unit=u.id,
            score=value,
        )
