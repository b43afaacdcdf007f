"""The ``random`` bot: a uniformly random legal action. The baseline for the others.

Every action the side may take now is listed once: for each unit, one "move" and one
"run" (to a random point of its reachable area), a reload, one action per target for
engage, shoot, attack, pick-up and grab; the decision actions (rout, play_on) and ending
the step or phase. One is drawn uniformly with the bot's own generator (never the game's
dice) and checked with ``why_illegal``; a refused one is dropped and another drawn, so the
draw is uniform among the legal actions (the same ones ``legal_actions`` lists, without
asking it for every target: an Engage's check searches a path). A move's point is drawn
in the unit's reachable area (``Mover.reachable``) and checked too, again if refused.
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import shapely

from game.bots.base import BOT_KINDS, BotDecision, end_decision
from game.bots.sense import gap
from game.engine.decisions import Grab
from game.engine.legal import side_to_act
from game.engine.movement.mover import may_engage
from game.engine.rules.shoot import weapon_of

#: Tries to draw a point a move accepts before the move is left out.
POINT_TRIES = 8


def random_point(region, rng: random.Random) -> tuple[float, float] | None:
    """A point drawn uniformly in a shapely region (rejection in its bounds), or None."""
    if region is None or region.is_empty or region.area <= 0:
        return None
    minx, miny, maxx, maxy = region.bounds
    shapely.prepare(region)
    for _ in range(64):
        x, y = rng.uniform(minx, maxx), rng.uniform(miny, maxy)
        if shapely.contains_xy(region, x, y):
            return (x, y)
    c = region.representative_point()
    return (c.x, c.y)


def random_move(view: Any, uid: str, kind: str, rng: random.Random) -> dict | None:
    """A ``move`` or ``run`` of ``uid`` to a random reachable point that ``why_illegal``
    accepts, or None."""
    reach = view.reachable(uid)
    if reach is None:
        return None
    parts = (reach.walk_free, reach.walk_check) if kind == "move" else (reach.run_free, reach.run_check)
    region = (
        shapely.union_all([p for p in parts if p is not None and not p.is_empty])
        if any(p is not None and not p.is_empty for p in parts)
        else None
    )
    for _ in range(POINT_TRIES):
        p = random_point(region, rng)
        if p is None:
            return None
        action = {kind: {"unit": uid, "to": [round(p[0], 3), round(p[1], 3)]}}
        if view.why_illegal(action) is None:
            return action
    return None


class RandomBot:
    """Uniformly random legal actions (see the module's docstring)."""

    name = "random"

    def choices(self, view: Any) -> list[tuple[str, Any]]:
        """Every choice that may be legal now, as (kind, detail): detail is an action dict,
        or a unit id for a move or Run whose point is drawn once the choice is made. Only
        choices that cannot be legal are left out (a target beyond any Engage, shot or
        touch); :meth:`choose` checks the one it draws and draws again if it is refused,
        which is a uniform draw among the legal ones."""
        kinds = set(view.legal_action_kinds()) & set(BOT_KINDS)
        st, rs = view.state, view.rules
        out: list[tuple[str, Any]] = []
        pending = view.pending
        for uid in side_to_act(view):
            u = st.units[uid]
            if not u.active:
                continue
            foes = [o for o in st.units.values() if o.active and o.warband != u.warband]
            out += [(k, uid) for k in ("move", "run") if k in kinds]
            if "reload" in kinds:
                out.append(("reload", {"reload": {"unit": uid}}))
            if "engage" in kinds:
                out += [("engage", {"engage": {"unit": uid, "target": o.id}}) for o in foes if may_engage(rs, u, o)]
            if "shoot" in kinds:
                w = weapon_of(SimpleNamespace(rs=rs), u)
                if w is not None:
                    out += [
                        ("shoot", {"shoot": {"unit": uid, "target": o.id}})
                        for o in foes
                        if gap(u.x, u.y, u.r, o) <= float(w[1]["range"]) + 0.1
                    ]
            if "attack" in kinds:
                out += [("attack", {"attack": {"unit": uid, "target": t}}) for t in u.engaged_with]
            if "pick_up" in kinds:
                out += [
                    ("pick_up", {"pick_up": {"unit": uid, "token": t.id}})
                    for t in st.treasure.values()
                    if not t.carried_by and gap(u.x, u.y, u.r, t) <= float(rs.contact_tolerance) + 0.1
                ]
            if "grab" in kinds and isinstance(pending, Grab) and uid in pending.units:
                out.append(("grab", {"grab": {"unit": uid, "token": pending.token}}))
        for kind in ("rout", "play_on"):
            if kind in kinds:
                out.append((kind, {kind: {"player": view.player}}))
        for kind in ("end_step", "end_phase", "end_activation"):
            if kind in kinds:
                out.append((kind, {kind: {}}))
        return out

    def draws(self, view: Any):
        """The legal decisions in the order the bot's generator draws them (each choice
        once, without replacement): ``choose`` takes the first."""
        rng = view.rng(self.name)
        choices = self.choices(view)
        while choices:
            i = rng.randrange(len(choices))
            kind, detail = choices.pop(i)
            if kind in ("move", "run"):
                action = random_move(view, detail, kind, rng)
                if action is None:
                    continue
                to = action[kind]["to"]
                yield BotDecision(
                    action,
                    f"{detail} {'runs' if kind == 'run' else 'moves'} to [{to[0]:.1f}, {to[1]:.1f}] (random)",
                    unit=detail,
                )
            elif view.why_illegal(detail) is None:
                body = detail[kind]
                yield BotDecision(detail, f"{kind.replace('_', ' ')} (random)", unit=body.get("unit"))

    def choose(self, view: Any) -> BotDecision:
        return next(iter(self.draws(view)), None) or end_decision(view, "nothing else to do (random)")

    def options(self, view: Any, k: int = 3) -> list[BotDecision]:
        """The first ``k`` legal draws (the first is what ``choose`` plays), value 0: the
        random bot weighs nothing, every option is as good as another to it."""
        out: list[BotDecision] = []
        for d in self.draws(view):
            if len(out) >= k:
                break
            if all(d.action != o.action for o in out):
                out.append(d)
        return out or [end_decision(view, "nothing else to do (random)")]
