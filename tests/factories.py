"""Builders of test data and the helpers the test files share, in one place (a test file
imports them from here, never from another test file):

- games: ``unit``, ``scenario``, ``game``, ``path`` (a file of tests/scripts);
- the movement tests' small tables: ``bare_unit``, ``build``, ``block``, ``area``, ``dice``,
  and ``refused`` (an action refused under a given rule);
- scenario text: ``unit_yaml``, ``warband_yaml``; files to break: ``GOOD_SCENARIO``,
  ``GOOD_SCRIPT``, ``yaml_values``, ``mutate``, ``broken_default``;
- the editor: ``field_both_sides``; line of sight: ``rect``, ``sight_scenario``, ``PAIR``;
- legality: ``action_near`` (a hypothesis action), ``says_what_apply_does``;
- the window: ``make_scene``, ``open_game``, ``two_sides`` and the input helpers (``down``,
  ``up``, ``motion``, ``key``, ``drag``, ``run_frames``, ``menu_pick``, ``thread_spy``).
"""

from __future__ import annotations

import gc
import json
import math
import os
import random
import textwrap
from typing import Callable

import pytest
import yaml
from hypothesis import strategies as hs

from game.bundled import maps_dir
from game.engine.actions import SPECS
from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.game import Game
from game.engine.geometry import Board
from game.engine.movement import Mover
from game.engine.scenario import load_scenario

#: The folder of the test scenarios and action scripts (tests/scripts).
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
R25 = 25 / 25.4 / 2  # radius of a 25 mm base or token, inches

#: The stats of a unit of :func:`unit` (a hero of a game) and of :func:`bare_unit` (a
#: unit of the movement tests).
STATS = {"move": 6, "agility": 12, "morale": 14, "defence": 10}
BARE_STATS = {"move": 6, "agility": 12, "morale": 10, "defence": 10}


# --- memory ---------------------------------------------------------------------------------
def left_for_the_collector(work: Callable[[], None]) -> set[str]:
    """The type names of what ``work()`` leaves in reference cycles, that only Python's
    cycle collector frees (docs/decisions/0007): the collector is run first, then off while
    ``work`` runs, then asked to keep what it finds instead of freeing it."""
    gc.collect()
    flags = gc.get_debug()
    gc.disable()
    try:
        work()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        gc.enable()


# --- games ----------------------------------------------------------------------------------
def unit(uid: str, at, *, base=25, keywords=("hero",), status="normal", carrying=None, on_table=True, **stats):
    """A unit of a game's scenario (a hero by default); keyword arguments other than the
    named ones are its stats."""
    s = dict(STATS)
    s.update(stats)
    d = {"id": uid, "at": list(at), "base_mm": base, "stats": s, "keywords": list(keywords), "status": status}
    if carrying:
        d["carrying"] = carrying
    if not on_table:
        d["on_table"] = False
    return d


def scenario(red=(), blue=(), tokens=(), state=None, rules=None, ruleset=None, size=36):
    """A square table with warbands red (player 1) and blue (player 2)."""
    data = {"name": "test", "table": {"width": size, "height": size}}
    if ruleset:
        data["ruleset"] = ruleset
    if rules:
        data["rules"] = rules
    data["treasure"] = [dict(t) for t in tokens]
    data["warbands"] = [
        {"id": "red", "player": 1, "units": list(red)},
        {"id": "blue", "player": 2, "units": list(blue)},
    ]
    if state:
        data["state"] = state
    return load_scenario(os.path.join(SCRIPTS, "built.yaml"), text=yaml.safe_dump(data, sort_keys=False))


def game(*args, dice=(), seed=1, **kw) -> Game:
    """A game on :func:`scenario` (its arguments), with typed dice first, then ``seed``."""
    return Game(scenario(*args, **kw), dice=Dice(seed=seed, typed=list(dice)))


def path(name: str) -> str:
    """A file of tests/scripts."""
    return os.path.join(SCRIPTS, name)


# --- movement tables ------------------------------------------------------------------------
def bare_unit(uid, at, base_mm=25, **extra):
    """A unit with only an id, a name, a place, a base and stats (``stats=`` adds to
    them); other keyword arguments are fields of the unit as they are."""
    d = {
        "id": uid,
        "name": uid,
        "at": list(at),
        "base_mm": base_mm,
        "stats": dict(BARE_STATS, **extra.pop("stats", {})),
    }
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
    """A rectangular piece of terrain with a height (a block, or a wall)."""
    return {"id": tid, "kind": kind, "height": height, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def area(tid, x0, y0, x1, y1, kind):
    """A rectangular piece of flat terrain (difficult, impassable)."""
    return {"id": tid, "kind": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def dice(*typed):
    """Dice that roll ``typed`` first, then from seed 1."""
    return Dice(seed=1, typed=list(typed))


def refused(fn, rule):
    """Call fn, which must raise IllegalAction with this rule; returns the message."""
    with pytest.raises(IllegalAction) as exc:
        fn()
    assert exc.value.rule == rule, str(exc.value)
    return str(exc.value)


# --- scenario text --------------------------------------------------------------------------
def unit_yaml(uid: str, x: float, y: float, on_table: bool = True) -> str:
    """One unit of a warband's ``units:`` list, as a line of scenario YAML."""
    off = "" if on_table else ", on_table: false"
    return (
        f"      - {{id: {uid}, at: [{x}, {y}], base_mm: 25, "
        f"stats: {{move: 6, agility: 12, morale: 14, defence: 10}}{off}}}\n"
    )


def warband_yaml(wid: str, player: int, *units: str) -> str:
    """One warband of ``warbands:`` with the lines of :func:`unit_yaml`, as scenario YAML."""
    return f"  - id: {wid}\n    player: {player}\n    units:" + ("\n" + "".join(units) if units else " []\n")


# --- the editor -----------------------------------------------------------------------------
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


# --- files to break ------------------------------------------------------------------------
#: A scenario with one of everything, to break one thing at a time (tests/test_scenario_errors.py
#: names its lines: line 1 is "name: ...").
GOOD_SCENARIO = textwrap.dedent(
    """\
    name: Test table
    table: {width: 24, height: 24}
    terrain:
      - id: tower
        kind: block
        height: 3
        polygon: [[10, 10], [14, 10], [14, 14], [10, 14]]
      - id: fence
        kind: wall
        height: 2
        polygon: [[2, 20], [8, 20], [8, 20.5], [2, 20.5]]
      - id: pool
        kind: impassable
        polygon: [[18, 2], [22, 2], [22, 6], [18, 6]]
    ladders:
      - id: tower-ladder
        foot: [14.5, 12]
        top: tower
    treasure:
      - id: t1
        at: [6, 6]
        event: none
    warbands:
      - id: red
        player: 1
        units:
          - id: red-captain
            name: Captain
            at: [3, 3]
            base_mm: 25
            stats: {move: 6, agility: 12, morale: 14, defence: 10}
            keywords: [hero]
            status: normal
            carrying: null
      - id: blue
        player: 2
        units:
          - id: blue-ogre
            at: [20, 20]
            base_mm: 40
            stats: {move: 5, agility: 9, morale: 12, defence: 12}
    """
)


#: An action script with every kind of action (the FORMATS.md example).
GOOD_SCRIPT = """\
seed: 7
dice: [12, 3, 20]
actions:
  - move: {unit: red-captain, to: [10, 4]}
  - move: {unit: red-captain, path: [[3, 3], [6, 3], [6, 8]]}
  - run: {unit: red-captain, to: [12, 4]}
  - move: {unit: red-captain, to: [12, 16], descend: jump}
  - reload: {unit: red-captain}
  - pick_up: {unit: red-captain, token: t1}
  - rout: {player: 2}
  - engage: {unit: red-captain, target: blue-ogre}
  - set_status: {unit: blue-ogre, status: stunned}
  - incapacitate: {unit: blue-ogre, by: red-captain}
  - end_step: {}
  - end_phase: {}
  - end_phase
  - roll: {sides: 6, count: 2, reason: scatter}
"""


#: Sizes and numbers at the edges of game.engine.limits (issue 48): a table side, a stat, a
#: turn just over and under its limit, integers beyond 2^63, a 400-digit one, floats near the top.
EDGE_NUMBERS = hs.sampled_from(
    [
        600,
        600.5,
        1000,
        1000.01,
        10_000,
        10_001,
        1e6,
        1e6 + 1,
        1e8,
        1.0e300,
        -1.0e300,
        2**63,
        2**63 + 1,
        -(2**63) - 1,
        10**400,
        1.7976931348623157e308,
        360,
        361,
    ]
)
yaml_scalars = hs.one_of(
    hs.none(),
    hs.booleans(),
    hs.integers(-(10**6), 10**6),
    hs.floats(allow_nan=True, allow_infinity=True),
    hs.text(max_size=12),
    EDGE_NUMBERS,
)
yaml_values = hs.recursive(
    yaml_scalars,
    lambda inner: hs.one_of(hs.lists(inner, max_size=5), hs.dictionaries(hs.text(max_size=8), inner, max_size=5)),
    max_leaves=25,
)


def tree_paths(node, path=()):
    """Every path (keys and indices) into the YAML tree ``node``, the root's () first."""
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from tree_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from tree_paths(v, path + (i,))


def tree_set(node, path, value):
    """Set the value at ``path`` of the YAML tree ``node``."""
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def tree_delete(node, path):
    """Delete the value at ``path`` of the YAML tree ``node``."""
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]


def mutate(text: str, rnd: random.Random, replacement, how: str) -> str:
    """``text`` (a map) with one value, chosen by ``rnd``, set to ``replacement``, deleted or
    (in a list) duplicated: the loader's own bad inputs."""
    data = yaml.safe_load(text)
    path = rnd.choice([p for p in tree_paths(data) if p])
    if how == "set":
        tree_set(data, path, replacement)
    elif how == "delete":
        tree_delete(data, path)
    else:
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, list):
            parent.append(parent[path[-1]])
    return yaml.safe_dump(data, sort_keys=False)


#: The bundled default map, as the editor tests break it.
DEFAULT_MAP = os.path.join(maps_dir(), "default.yaml")

#: The four breaks of the issue: (text in default.yaml, what it becomes, which occurrence).
BREAKS = [
    ("    kind: block\n    height: 3\n    polygon: [[3, 9]", "    kind: blok\n    height: 3\n    polygon: [[3, 9]"),
    ("    height: 6\n", "    heigth: 6\n"),
    (
        "at: [6, 3], base_mm: 32, keywords: [hero],\n         stats: {move: 4, agility: 12",
        "at: [6, 3], base_mm: 32, keywords: [hero],\n         stats: {move: 4, agilty: 12",
    ),
    ("at: [14, 3], base_mm: 50", "at: [14, 3], base_mm: 5O"),
]


def broken_default(tmp_path) -> str:
    """The default map with the four :data:`BREAKS`, written to ``tmp_path``; its path."""
    text = open(DEFAULT_MAP, encoding="utf-8").read()
    for old, new in BREAKS:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def comments(text: str) -> list[str]:
    """The comment lines of a YAML text, stripped."""
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("#")]


# --- line of sight -------------------------------------------------------------------------
def rect(tid, kind, x0, y0, x1, y1, height=None):
    """A rectangular piece of terrain of ``kind`` (with ``height`` where given)."""
    t = {"id": tid, "kind": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}
    if height is not None:
        t["height"] = height
    return t


def sight_scenario(terrain=(), red=(), blue=(), rules=None, tmp_path=None):
    """A scenario: red and blue are (id, x, y[, base_mm]) tuples."""

    def units(side):
        return [{"id": u[0], "at": [u[1], u[2]], "base_mm": u[3] if len(u) > 3 else 25, "stats": STATS} for u in side]

    data = {
        "name": "sight",
        "table": {"width": 36, "height": 36},
        "terrain": list(terrain),
        "warbands": [
            {"id": "red", "player": 1, "units": units(red)},
            {"id": "blue", "player": 2, "units": units(blue)},
        ],
    }
    if rules:
        data["rules"] = rules
    text = yaml.safe_dump(data, sort_keys=False)
    if tmp_path is not None:
        path = tmp_path / "sight.yaml"
        path.write_text(text)
        return load_scenario(str(path))
    return load_scenario("sight.yaml", text=text)


#: Two units 26" apart across the middle of a 36" table (sight_scenario).
PAIR = dict(red=[("a", 5.0, 18.0)], blue=[("b", 31.0, 18.0)])
WIDE_BLOCK = (16.0, 10.0, 20.0, 26.0)  # spans the whole corridor between a and b


# --- legality ------------------------------------------------------------------------------
@hs.composite
def action_near(draw, g: Game):
    """A hypothesis action for ``g`` now: mostly of a kind the phase allows, by a unit of
    the side to act, to a point near it; sometimes anything the action table knows."""
    st = g.state
    units = sorted(st.units)
    tokens = sorted(st.treasure) or ["t-none"]
    allowed = [k for k in g.legal_action_kinds() if k not in ("end_phase", "end_turn")]
    if allowed and draw(hs.integers(0, 3)) > 0:  # mostly what the phase allows, to reach the rules
        kind = draw(hs.sampled_from(allowed))
    else:
        kind = draw(hs.sampled_from(sorted(SPECS)))
    mine = [x for x in units if g.warband_player(st.units[x].warband) == st.player and st.units[x].active]
    uid = draw(hs.sampled_from(mine)) if mine and draw(hs.booleans()) else draw(hs.sampled_from(units))
    u = st.units[uid]

    def near(spread: float):
        a = draw(hs.floats(0, 2 * math.pi))
        d = draw(hs.floats(0.1, spread))
        return [round(u.x + d * math.cos(a), 2), round(u.y + d * math.sin(a), 2)]

    body: dict = {}
    for key, field in SPECS[kind].items():
        if not field.required and draw(hs.booleans()):
            continue
        body[key] = {
            "unit": draw(hs.sampled_from(units)) if key != "unit" else uid,
            "token": draw(hs.sampled_from(tokens)),
            "point": near(10),
            "path": [near(4) for _ in range(draw(hs.integers(1, 3)))],
            "player": draw(hs.integers(0, 3)),
            "status": draw(hs.sampled_from(["normal", "staggered", "dazed", "stunned", "incapacitated"])),
            "descend": draw(hs.sampled_from(["climb", "jump"])),
            "text": draw(hs.sampled_from(["agility", "morale", "mist"])),
            "bool": draw(hs.booleans()),
            "int": draw(hs.integers(-2, 2)),
            "sides": draw(hs.sampled_from([6, 20])),
            "count": draw(hs.integers(1, 3)),
        }[field.kind]
    if kind in ("move", "run") and ("to" in body) == ("path" in body):
        body.pop("path", None)
        body["to"] = near(10)
    if kind in ("move", "run") and "to" in body and draw(hs.booleans()):
        body["to"] = near(4)  # mostly within reach
    if kind == "engage" and draw(hs.booleans()):
        foes = [o for o in st.units.values() if o.active and o.warband != u.warband]
        if foes:
            body["target"] = min(foes, key=lambda o: math.hypot(o.x - u.x, o.y - u.y)).id
    return {kind: body}


def fingerprint(g: Game):
    """What an action that is refused must leave as it was: state, dice, log, undo."""
    return g.state.hash(), g.dice.getstate()[1:], len(g.dice.log), len(g.log), g.can_undo, g.can_redo


def says_what_apply_does(g: Game, action) -> None:
    """why_illegal of ``action`` changes nothing and gives the refusal apply gives (or
    none where apply accepts); then the action is applied."""
    before = fingerprint(g)
    why = g.why_illegal(action)
    assert fingerprint(g) == before, action
    result = g.try_apply(action)
    assert result.rule != "internal", (action, result.reason)
    if why is None:
        assert result.ok, (action, result.rule, result.reason)
    else:
        assert not result.ok and (result.rule, result.reason) == (why.rule, why.reason), action


# --- the window (pygame is imported only by the tests that open it) -------------------------
#: A small table for the window's tests: two red units, a blue ogre, rubble, a tower, a token.
UI_SCENARIO = """\
name: UI test table
table: {width: 24, height: 24}
terrain:
  - {id: rubble, kind: difficult, polygon: [[14, 10], [20, 10], [20, 16], [14, 16]]}
  - {id: tower, kind: block, height: 3, polygon: [[2, 14], [6, 14], [6, 18], [2, 18]]}
treasure:
  - {id: t1, at: [12, 3], event: none}
warbands:
  - id: red
    player: 1
    name: Reds
    units:
      - {id: red-captain, name: Captain, at: [4, 4], base_mm: 25, keywords: [hero],
         stats: {move: 6, agility: 12, morale: 14, defence: 10}}
      - {id: red-second, name: Second, at: [11.0, 3], base_mm: 25,
         stats: {move: 5, agility: 11, morale: 10, defence: 10}}
  - id: blue
    player: 2
    name: Blues
    units:
      - {id: blue-ogre, name: Ogre, at: [20, 21], base_mm: 40, keywords: [hero],
         stats: {move: 6, agility: 8, morale: 12, defence: 12}}
state: {turn: 1, player: 1, phase: move}
"""

#: The rules of a bot game's table in the window's tests: placeholder combat.
PLACEHOLDER = {"combat": "placeholder"}


def headless() -> None:
    """Windows of the tests open on SDL's dummy driver, without sound or pygame's banner."""
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def make_scene(tmp_path, text: str = UI_SCENARIO, seed: int = 7, typed: list[int] | None = None):
    """The play window (1280x800, hand-over screen on) on the scenario ``text``, after one frame."""
    headless()
    from game.ui.app import App
    from game.ui.launch import open_play

    path = tmp_path / "table.yaml"
    path.write_text(text)
    app = App((1280, 800))
    app.settings["handover"] = True
    g = Game(load_scenario(str(path)), dice=Dice(seed=seed, typed=list(typed or [])))
    scene = open_play(app, g, str(path))
    app.frame(0.016, flip=False)
    return app, scene


def open_game(g: Game, tmp_path, handover: bool = True):
    """The play window on ``g`` (1280x800), after one frame; ``handover``: the hot-seat screen."""
    headless()
    from game.ui.app import App
    from game.ui.launch import open_play

    app = App((1280, 800))
    app.settings["handover"] = handover
    scene = open_play(app, g, str(tmp_path / "table.yaml"))
    app.frame(0.016, flip=False)
    return app, scene


def two_sides(state=None, **kw) -> Game:
    """A bot game's table: two units a side and a token, placeholder combat, four turns."""
    red = [unit("red-captain", [6, 6]), unit("red-second", [10, 6], keywords=())]
    blue = [unit("blue-boss", [30, 30]), unit("blue-archer", [26, 30], keywords=("bow",))]
    tokens = [{"id": "t1", "at": [18, 18], "event": "none"}]
    return game(
        red,
        blue,
        tokens,
        state=state or {"turn": 2, "player": 2, "phase": "move"},
        rules={**PLACEHOLDER, "turn_limit": 4},
        **kw,
    )


def px(scene, x, y):
    """The pixel of the table point (x, y) in inches."""
    p = scene.camera.to_px(x, y)
    return (int(round(p[0])), int(round(p[1])))


def down(app, pos, button=1):
    import pygame

    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))


def up(app, pos, button=1):
    import pygame

    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=button))


def motion(app, pos, buttons=(1, 0, 0)):
    import pygame

    app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=buttons))


def key(app, command):
    """The key of the play table's ``command`` (keymap.PLAY), pressed."""
    from game.ui import keymap

    app.dispatch(keymap.PLAY.key_event(command))


def drag(app, scene, start, end, steps=6):
    """Drag with the mouse from table point ``start`` to ``end`` (inches), a frame a step,
    and wait for the preview; the button is still down. Returns the end pixel."""
    a, b = px(scene, *start), px(scene, *end)
    down(app, a)
    for k in range(1, steps + 1):
        motion(app, (a[0] + (b[0] - a[0]) * k // steps, a[1] + (b[1] - a[1]) * k // steps))
        app.frame(0.016, flip=False)
    if scene.drag_tool.drag is not None:
        scene.drag_tool.flush()  # the preview is planned off the frame: wait for it
    return b


def run_frames(app, scene, until, seconds=60.0, dt=0.05):
    """Frames (with a real pause between them, so the bot's worker thinks) until ``until()``."""
    import time

    end = time.monotonic() + seconds
    while not until():
        assert time.monotonic() < end, "the bot did not get there in time"
        app.frame(dt, flip=False)
        if app.modal is not None:
            app.close_dialogs()
        time.sleep(0.002)


def menu_pick(app, first: str, containing: str):
    """Open the submenu ``first`` of the open menu, then pick its item containing ``containing``."""
    menu = app.dialogs[-1]
    menu.choose(dict(menu.items)[first])
    sub = app.dialogs[-1]
    sub.choose(next(value for label, value in sub.items if containing in label))


def thread_spy(monkeypatch, owner, name: str) -> list[str]:
    """Record the thread each call of ``owner.name`` runs on."""
    import threading

    threads: list[str] = []
    real = getattr(owner, name)

    def spy(*args, **kw):
        threads.append(threading.current_thread().name)
        return real(*args, **kw)

    monkeypatch.setattr(owner, name, spy)
    return threads
