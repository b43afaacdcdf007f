"""Scenario builders for the controller tests (tests/test_controller*.py, test_upkeep*.py ...)."""

from __future__ import annotations

import os

import yaml

from game.engine.game import Game
from game.engine.dice import Dice
from game.engine.scenario import load_scenario

HERE = os.path.dirname(os.path.abspath(__file__))
R25 = 25 / 25.4 / 2  # radius of a 25 mm base or token, inches

STATS = {"move": 6, "agility": 12, "morale": 14, "defence": 10}


def unit(uid: str, at, *, base=25, keywords=("hero",), status="normal", carrying=None, on_table=True, **stats):
    s = dict(STATS)
    s.update(stats)
    d = {"id": uid, "at": list(at), "base_mm": base, "stats": s, "keywords": list(keywords), "status": status}
    if carrying:
        d["carrying"] = carrying
    if not on_table:
        d["on_table"] = False
    return d


def scenario(red=(), blue=(), tokens=(), state=None, rules=None, ruleset=None, size=36):
    data = {"name": "test", "table": {"width": size, "height": size}}
    if ruleset:
        data["ruleset"] = ruleset
    if rules:
        data["rules"] = rules
    data["treasure"] = [dict(t) for t in tokens]
    data["warbands"] = [{"id": "red", "player": 1, "units": list(red)}, {"id": "blue", "player": 2, "units": list(blue)}]
    if state:
        data["state"] = state
    return load_scenario(os.path.join(HERE, "built.yaml"), text=yaml.safe_dump(data, sort_keys=False))


def game(*args, dice=(), seed=1, **kw) -> Game:
    return Game(scenario(*args, **kw), dice=Dice(seed=seed, typed=list(dice)))


def path(name: str) -> str:
    return os.path.join(HERE, name)


def field_both_sides(doc) -> tuple[str, str]:
    """Give an editor document what a game needs to start: the two bundled rosters, each
    deployed along one long edge with its captain on the table. Returns the warband ids."""
    from game.bundled import rosters_dir
    from game.editor.roster import load_roster

    w, h = doc.sc.width, doc.sc.height
    a = doc.load_roster(load_roster(os.path.join(rosters_dir(), "grave-reavers.yaml")))
    b = doc.load_roster(load_roster(os.path.join(rosters_dir(), "iron-wardens.yaml")))
    doc.set_zone(a, [(0, 0), (w, 0), (w, 3), (0, 3)])
    doc.set_zone(b, [(0, h - 3), (w, h - 3), (w, h), (0, h)])
    doc.place_from_roster(a, "captain", (w - 3, 1.5))
    doc.place_from_roster(b, "captain", (w - 3, h - 1.5))
    return a, b
