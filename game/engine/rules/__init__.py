"""The rules of the phases, one module each, all of one shape (:mod:`.context`).

:data:`ACTIONS` is the explicit table from an action's name to its :class:`Rule`, so a
reader can follow an action to the function that judges it and the one that resolves it;
:data:`STEPS` maps the step names a ruleset may list to their step functions. A new phase
(Shoot, Melee) is a new module added to :data:`MODULES` plus ruleset data: the flow
(:mod:`game.engine.flow`) does not change.
"""

from game.engine.rules import engage, manual, melee, move, shoot, upkeep
from game.engine.rules.context import Ctx, PassTurn, Rule

MODULES = (upkeep, engage, move, shoot, melee, manual)

ACTIONS: dict[str, Rule] = {r.kind: r for m in MODULES for r in m.RULES}
STEPS = dict(upkeep.STEPS)

__all__ = ["ACTIONS", "STEPS", "MODULES", "Ctx", "PassTurn", "Rule"]
