"""The ``random`` bot: a uniformly random legal action. The baseline for the others.

Every action the side may take now is listed once: each unit's legal kinds from
``legal_actions`` (one action per target for engage, shoot, attack, pick_up and grab; one
"move" and one "run" per unit, to a random point of its reachable area), the decision
actions (rout, play_on) and ending the step or phase. One is drawn uniformly with the
bot's own generator (never the game's dice); a move's point is drawn in the unit's
reachable area (``Mover.reachable``) and checked with ``why_illegal``, again if refused.
"""

from __future__ import annotations

import random
from typing import Any

import shapely

from game.bots.base import BOT_KINDS, Decision, end_decision
from game.engine.legal import side_to_act

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
    region = shapely.union_all([p for p in parts if p is not None and not p.is_empty]) if any(
        p is not None and not p.is_empty for p in parts) else None
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

    def options(self, view: Any) -> list[tuple[str, Any]]:
        """Every choice now, as (kind, detail): detail is an action dict, or a unit id for
        a move or Run whose point is drawn once the choice is made."""
        kinds = set(view.legal_action_kinds()) & set(BOT_KINDS)
        out: list[tuple[str, Any]] = []
        for uid in side_to_act(view):
            legal = view.legal_actions(uid)
            for kind in legal.kinds:
                if kind not in kinds:
                    continue
                if kind in ("move", "run"):
                    out.append((kind, uid))
                elif kind in legal.targets:
                    field = "token" if kind in ("pick_up", "grab") else "target"
                    out += [(kind, {kind: {"unit": uid, field: t}}) for t in legal.targets[kind]]
                else:
                    out.append((kind, legal.examples[kind]))
        for kind in ("rout", "play_on"):
            action = {kind: {"player": view.player}}
            if kind in kinds and view.why_illegal(action) is None:
                out.append((kind, action))
        for kind in ("end_step", "end_phase"):
            if kind in kinds and view.why_illegal({kind: {}}) is None:
                out.append((kind, {kind: {}}))
        return out

    def choose(self, view: Any) -> Decision:
        rng = view.rng(self.name)
        options = self.options(view)
        while options:
            i = rng.randrange(len(options))
            kind, detail = options.pop(i)
            if kind in ("move", "run"):
                action = random_move(view, detail, kind, rng)
                if action is None:
                    continue
                to = action[kind]["to"]
                return Decision(action, f"{detail} {'runs' if kind == 'run' else 'moves'} to "
                                        f"[{to[0]:.1f}, {to[1]:.1f}] (random)", unit=detail)
            if view.why_illegal(detail) is None:
                body = detail[kind]
                return Decision(detail, f"{kind.replace('_', ' ')} (random)", unit=body.get("unit"))
        return end_decision(view, "nothing else to do (random)")
