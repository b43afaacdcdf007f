"""The one movement engine: every rule that moves or places a base goes through it.

* :mod:`.types`   value types (Allowance, Transition, MovePlan, MoveOutcome, Reach, Trace)
* :mod:`.bases`   index of the bases' circles: overlap, sweeps, sliding into contact (M5)
* :mod:`.tracer`  the exact path tracer: height profile, transitions, base fit (M4-M10)
* :mod:`.nav`     the cheapest-path search and the reachable area
* :mod:`.mover`   :class:`Mover`: allowance (M1, M2, M11, M12), plan, apply, reachable
"""

from game.engine.movement.mover import Mover
from game.engine.movement.types import Allowance, MoveOutcome, MovePlan, Reach, Transition

__all__ = ["Mover", "Allowance", "MoveOutcome", "MovePlan", "Reach", "Transition"]
