"""Helpers for the movement tests: small scenarios written as YAML strings."""

from __future__ import annotations

import json

import pytest

from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.geometry import Board
from game.engine.movement import Mover
from game.engine.scenario import load_scenario

STATS = {"move": 6, "agility": 12, "morale": 10, "defence": 10}


def unit(uid, at, base_mm=25, **extra):
    d = {"id": uid, "name": uid, "at": list(at), "base_mm": base_mm, "stats": dict(STATS, **extra.pop("stats", {}))}
    d.update(extra)
    return d


def build(red=(), blue=(), terrain=(), ladders=(), rules=None, size=(36, 36), red2=()):
    """A scenario with warbands red (player 1) and blue (player 2); returns (scenario, mover)."""
    doc = {
        "name": "test",
        "table": {"width": size[0], "height": size[1]},
        "terrain": list(terrain),
        "ladders": list(ladders),
        "warbands": [
            {"id": "red", "player": 1, "units": list(red)},
            {"id": "blue", "player": 2, "units": list(blue)},
        ],
    }
    if rules:
        doc["rules"] = rules
    sc = load_scenario("test.yaml", text=json.dumps(doc))
    board = Board(sc.width, sc.height, sc.terrain)
    return sc, Mover(sc, board)


def block(tid, x0, y0, x1, y1, height, kind="block"):
    return {"id": tid, "kind": kind, "height": height, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def area(tid, x0, y0, x1, y1, kind):
    return {"id": tid, "kind": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def dice(*typed):
    return Dice(seed=1, typed=list(typed))


def refused(fn, rule):
    """Call fn, which must raise IllegalAction with this rule; returns the message."""
    with pytest.raises(IllegalAction) as exc:
        fn()
    assert exc.value.rule == rule, str(exc.value)
    return str(exc.value)
