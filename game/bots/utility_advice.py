"""The utility bot's advice (:meth:`UtilityBot.options`, issue 21): every candidate it
scores now, as decisions with their values and reasons, for ``speedheim advise`` and the
window's hint. The bot's own way of scoring, asked for all candidates instead of the one
it plays: attacks and shots (expected value), Engages worth ``engage_min`` (net worth),
each unit's best move or reload (gain over standing still), ending the phase (0)."""

from __future__ import annotations

from game.bots.base import BotDecision, end_decision
from game.bots.positions import PositionScorer
from game.bots.sense import Sense, legal_targets, odds_text
from game.bots.view import acted_now
from game.engine.decisions import Grab, PickUp


def candidates(bot, view) -> list[BotDecision]:
    """Every decision this bot scores now (see :meth:`options`), legal or not yet asked."""
    p = view.pending
    out: list[BotDecision] = []
    if isinstance(p, PickUp):
        for uid, tid in p.options:
            u = view.state.units[uid]
            out.append(
                BotDecision(
                    {"pick_up": {"unit": uid, "token": tid}},
                    f"{u.name or uid} picks up {tid}",
                    unit=uid,
                    score=float(u.stats.get(view.rules.plague_stat, 0)),
                )
            )
    elif isinstance(p, Grab):
        for uid in p.units:
            u = view.state.units[uid]
            out.append(
                BotDecision(
                    {"grab": {"unit": uid, "token": p.token}},
                    f"{u.name or uid} tries for {p.token}",
                    unit=uid,
                    score=float(u.stats.get("morale", 0)),
                )
            )
    elif p is None:
        kinds = set(view.legal_action_kinds())
        side = bot._side(view)
        if side is not None:
            sense = Sense(view, side, bot.personality, bot.book)
            if "attack" in kinds:
                out += scored_attacks(sense)
            if "shoot" in kinds:
                out += scored_shots(sense)
            if "engage" in kinds:
                out += scored_engages(bot, sense)
            if "move" in kinds:
                out += scored_moves(bot, sense)
    end = end_decision(view, f"ends the {view.state.phase} phase" if p is None else "declines")
    out.append(end)
    return out


def scored_attacks(sense: Sense) -> list[BotDecision]:
    out = []
    for u in sense.mine:
        for tid in u.engaged_with:
            t = sense.state.units.get(tid)
            action = {"attack": {"unit": u.id, "target": tid}}
            if t is None or sense.view.why_illegal(action) is not None:
                continue
            odds = sense.view.odds(action)
            value = sense.attack_value(odds, t)
            out.append(
                BotDecision(
                    action,
                    f"{u.name or u.id} attacks {t.name or t.id}: {odds_text(odds)}, worth {value:.1f}",
                    unit=u.id,
                    score=value,
                )
            )
    return out


def scored_shots(sense: Sense) -> list[BotDecision]:
    out = []
    for u in sense.mine:
        w = sense.weapon(u)
        if w is None or u.shots or u.ran or u.engaged_with:
            continue
        for t, action in legal_targets(sense, u, "shoot", float(w[1]["range"])):
            odds = sense.view.odds(action)
            value = sense.attack_value(odds, t) * sense.p.shoot
            out.append(
                BotDecision(
                    action,
                    f"{u.name or u.id} shoots {t.name or t.id} with its {w[0]}: {odds_text(odds)}, worth {value:.1f}",
                    unit=u.id,
                    score=value,
                )
            )
    return out


def scored_engages(bot, sense: Sense) -> list[BotDecision]:
    units = sense.engagers()
    out = []
    for net, u, t, odds, friends, joining in bot._engage_options(sense, units, opportunity=True):
        d = bot._engage_decision(u, t, net, odds, friends, joining)
        if sense.view.why_illegal(d.action) is None:
            out.append(d)
    return out


def scored_moves(bot, sense: Sense) -> list[BotDecision]:
    """Each unit still to move: its best move (value: the gain over standing still),
    or its reload."""
    done = acted_now(sense.view)
    out = []
    for u in sense.mine:
        if u.id in done or u.engaged_with or u.moved or u.used > 0 or u.engage_attempted or u.reloaded:
            continue
        scorer = PositionScorer(sense, u)
        best, hold = scorer.best(lambda u=u: sense.view.reachable(u.id))
        reload = bot._reload(sense, u)
        if reload is not None:
            out.append(reload)
        if best.kind == "hold":
            continue
        d = bot._move_decision(sense, u, best)
        if d is not None:
            gain = best.score - hold.score
            out.append(
                BotDecision(
                    d.action, d.reason + f" (gain {gain:.1f} over standing still)", unit=d.unit, path=d.path, score=gain
                )
            )
    return out
