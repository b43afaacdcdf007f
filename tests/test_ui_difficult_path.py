"""Difficult ground on the table (M12; issues 41 and 45): the engine says which stretches of
a path cross it, the dragged Move and the Engage preview mark them, and the unit card gives
the allowance across it beside the plain one. Engine parts pure; the window headless."""

from __future__ import annotations

import math

import pygame
import shapely

from game.ui.scenes import ask
from game.ui.scenes.play.layers import DIFFICULT_BAND
from game.ui.widgets.panels import difficult_line
from tests.factories import down, make_scene, motion, px  # noqa: F401

RUBBLE = """\
name: Rubble field
table: {width: 36, height: 24}
rules: {combat: placeholder}
terrain:
  - {id: rubble, kind: difficult, polygon: [[12, 8], [16, 8], [16, 14], [12, 14]]}
warbands:
  - id: red
    player: 1
    units:
      - {id: red-sword, name: Swordsman, at: [9, 11], base_mm: 25,
         stats: {move: 6, agility: 12, morale: 10, defence: 10}}
  - id: blue
    player: 2
    units:
      - {id: blue-boss, name: Boss, at: [24, 11], base_mm: 25,
         stats: {move: 6, agility: 10, morale: 10, defence: 10}}
      - {id: blue-far, name: Scout, at: [30, 20], base_mm: 25,
         stats: {move: 6, agility: 10, morale: 10, defence: 10}}
state: {turn: 1, player: 1, phase: move}
"""


def test_the_engine_names_the_stretches_of_a_path_across_difficult_ground(tmp_path):
    app, scene = make_scene(tmp_path, RUBBLE)
    game = scene.game
    r = game.state.units["red-sword"].r
    across = ask.difficult_stretches(game, "red-sword", [(9, 11), (20, 11)])
    assert len(across) == 1
    (x0, y0), (x1, y1) = across[0][0], across[0][-1]
    assert math.isclose(x0, 12 - r, abs_tol=2e-3) and math.isclose(x1, 16 + r, abs_tol=2e-3)
    assert y0 == y1 == 11
    assert ask.difficult_stretches(game, "red-sword", [(9, 3), (20, 3)]) == []
    # in and out twice along a bent path: two stretches, in order along it
    bent = [(9, 11), (14, 11), (14, 4), (9, 4), (9, 9.5), (20, 9.5)]
    parts = ask.difficult_stretches(game, "red-sword", bent)
    assert len(parts) == 2 and parts[0][0][1] == 11 and parts[1][-1][1] == 9.5


def test_the_stretches_agree_with_the_engines_own_m12_test(tmp_path):
    """Whether a path crosses difficult ground at all is the engine's M12 test
    (touches_difficult); the stretches say the same of every path (none near a tangent)."""
    app, scene = make_scene(tmp_path, RUBBLE)
    game = scene.game
    unit = game.state.units["red-sword"]
    rubble = shapely.Polygon([(12, 8), (16, 8), (16, 14), (12, 14)])
    checked = 0
    for k in range(120):
        a = (2 + (k * 7.3) % 30, 2 + (k * 3.7) % 20)
        b = (2 + (k * 11.9) % 30, 2 + (k * 5.1) % 20)
        line = shapely.LineString([a, b])
        if abs(line.distance(rubble) - unit.r) < 0.01:
            continue
        crosses = game.mover.touches_difficult(unit, [a, b])
        parts = ask.difficult_stretches(game, "red-sword", [a, b])
        assert bool(parts) == crosses, (a, b)
        for part in parts:
            for p in part:
                assert shapely.Point(p).distance(rubble) <= unit.r + 1e-3
        checked += crosses
    assert checked > 10


def test_the_card_gives_the_allowance_across_difficult_ground(tmp_path):
    app, scene = make_scene(tmp_path, RUBBLE)
    info = scene.unit_info("red-sword")
    assert info["walk"] == 6 and info["run"] == 9
    assert info["walk_difficult"] == 4 and info["run_difficult"] == 7  # the engine's M12 totals
    assert difficult_line(info) == 'across difficult ground (M12): Move 4.00"   Run 7.00"'
    assert difficult_line({"walk": 6.0, "walk_difficult": 6.0, "run": 9.0, "run_difficult": 9.0}) == ""


def test_a_dragged_move_marks_the_difficult_ground_it_crosses(tmp_path):
    app, scene = make_scene(tmp_path, RUBBLE)
    app.settings["handover"] = False
    a, b = px(scene, 9, 11), px(scene, 10.5, 7)  # around the rubble first: nothing marked
    down(app, a)
    for k in range(1, 7):
        motion(app, (a[0] + (b[0] - a[0]) * k // 6, a[1] + (b[1] - a[1]) * k // 6))
    scene.drag_tool.flush()
    app.frame(0.016, flip=False)
    p = scene.drag_tool.drag.preview
    assert p.kind == "move" and p.difficult == [] and p.walk == 6
    assert band_pixels(app.screen) == 0
    c = px(scene, 12.8, 11)  # then into it: the stretch is marked
    motion(app, c)
    scene.drag_tool.flush()
    app.frame(0.016, flip=False)
    p = scene.drag_tool.drag.preview
    assert p.kind == "move" and len(p.difficult) == 1
    assert p.walk == 4 and p.run == 7  # the allowances this path has (M12)
    motion(app, px(scene, 14, 11))  # 5" with 4" to walk across rubble: a Run
    scene.drag_tool.flush()
    app.frame(0.016, flip=False)
    assert scene.drag_tool.drag.preview.kind == "run"
    motion(app, c)
    scene.drag_tool.flush()
    app.frame(0.016, flip=False)
    p = scene.drag_tool.drag.preview
    assert band_pixels(app.screen) > 20  # the band is drawn along it


def band_pixels(surface) -> int:
    """How many pixels show the difficult-ground band's colour."""
    return int((pygame.surfarray.pixels3d(surface) == DIFFICULT_BAND).all(axis=2).sum())


def test_the_engage_preview_marks_the_difficult_ground_on_its_way(tmp_path):
    near = (
        RUBBLE.replace("phase: move", "phase: engage")
        .replace("at: [24, 11]", "at: [17.2, 11]")
        .replace("at: [9, 11]", "at: [10.5, 11]")
    )
    app, scene = make_scene(tmp_path, near)
    p = scene.engage_tool.compute("red-sword", "blue-boss")
    assert p.difficult, p
    assert p.difficult[0][0][0] < 12 < p.difficult[0][-1][0]
    assert p.kind is None and p.error.rule == "M12"  # 5.72" to contact: within 6", not the 4" across rubble
    assert "difficult ground -2" in p.error.reason
    app.frame(0.016, flip=False)
