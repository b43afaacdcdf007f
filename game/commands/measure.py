"""``speedheim measure SCENARIO A B [--ignore-height]``: edge-to-edge inches between
units, tokens and points (:func:`game.engine.measure.resolve`), to two decimals."""

from __future__ import annotations

import sys

from game.engine.errors import LoadError
from game.engine.geometry import board_for
from game.engine.measure import resolve
from game.engine.scenario import load_scenario


def measure_cli(path: str, a: str, b: str, ignore_height: bool = False) -> int:
    """Print the distance between ``a`` and ``b``; 0, or 2 on a bad file or a name it does not know."""
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
