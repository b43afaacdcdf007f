"""``speedheim measure``: edge-to-edge inches between units, tokens and points."""

from __future__ import annotations

import re
import sys

from game.engine.errors import LoadError
from game.engine.geometry import Board, Disc, board_for
from game.engine.model import Scenario
from game.engine.scenario import load_scenario

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
    raise ValueError(f"{spec!r} is not a unit id, a treasure id or x,y (ids here: {', '.join(known[:12])}{' ...' if len(known) > 12 else ''})")


def measure_cli(path: str, a: str, b: str, ignore_height: bool = False) -> int:
    try:
        sc = load_scenario(path)
    except LoadError as exc:
        return exc.report()
    board = board_for(sc, ignore_height)
    try:
        da, db = resolve(sc, board, a), resolve(sc, board, b)
    except ValueError as exc:
        print(f"speedheim measure: {exc}", file=sys.stderr)
        return 2
    print(f"{board.distance(da, db):.2f}")
    return 0
