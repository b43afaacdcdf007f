"""What ``speedheim measure`` measures between (:mod:`game.commands.measure`): a unit, a
treasure token or a point ``x,y``, as a disc standing on the surface."""

from __future__ import annotations

import re

from game.engine.geometry import Board, Disc
from game.engine.model import Scenario

_POINT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")


def resolve(sc: Scenario, board: Board, spec: str) -> Disc:
    """A unit id, a treasure id or ``x,y`` as a disc standing on the surface."""
    state = sc.state
    if spec in state.units:
        return board.disc(state.units[spec])
    if spec in state.treasure:
        return board.disc(state.treasure[spec])
    m = _POINT.match(spec)
    if m:
        x, y = float(m.group(1)), float(m.group(2))
        if not board.disc_on_table(x, y, 0):
            raise ValueError(f"point {spec} is off the {sc.width:g}x{sc.height:g} table")
        return board.point_disc(x, y)
    known = sorted(state.units) + sorted(state.treasure)
    raise ValueError(
        f"{spec!r} is not a unit id, a treasure id or x,y "
        f"(ids here: {', '.join(known[:12])}{' ...' if len(known) > 12 else ''})"
    )
