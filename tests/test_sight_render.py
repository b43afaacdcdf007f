"""``speedheim render --los UNIT`` and game.ui.sight_layer (issue 10 part 1): pixels."""

import os

import pygame

from game.cli import main
from game.engine.sight import Sight
from game.ui import theme
from game.ui.camera import Camera
from game.ui.render import render_surface
from game.ui.sight_layer import SightLayer, los_layers

from tests.factories import PAIR, WIDE_BLOCK, rect, sight_scenario


def _scene(tmp_path):
    return sight_scenario(
        [rect("house", "block", *WIDE_BLOCK, height=3)],
        tmp_path=tmp_path,
        red=PAIR["red"],
        blue=PAIR["blue"] + [("c", 10.0, 30.0)],
    )


def _px(surface, camera, x, y):
    return surface.get_at(tuple(round(v) for v in camera.to_px(x, y)))[:3]


def _dark(c):
    return sum(c)


def test_render_los_shades_the_hidden_ground_only(tmp_path):
    sc = _scene(tmp_path)
    plain, cam = render_surface(sc, width=1200)
    shaded, cam2 = render_surface(sc, width=1200, **los_layers(sc, sc.state, "a"))
    assert cam.scale == cam2.scale and cam.offset == cam2.offset
    # behind the house (hidden from a): darker; in the open: untouched
    assert _dark(_px(shaded, cam, 25, 12)) < _dark(_px(plain, cam, 25, 12)) - 60
    assert _px(shaded, cam, 12, 24) == _px(plain, cam, 12, 24)
    # b is hidden: a red ring round it; c is seen in the open: a green ring and a clear line
    near_b = [
        shaded.get_at(
            (round(cam.to_px(31, 18)[0] - cam.length(sc.state.units["b"].r) - 4 + dx), round(cam.to_px(31, 18)[1]))
        )[:3]
        for dx in range(-2, 3)
    ]
    assert theme.LOS_HIDDEN in near_b
    mid = _px(shaded, cam, 7.5, 24)  # on the line from a (5, 18) to c (10, 30)
    assert mid != _px(plain, cam, 7.5, 24)


def test_sight_layer_answers_for_the_opponents_only(tmp_path):
    sc = _scene(tmp_path)
    layer = SightLayer(Sight(sc), sc.state, "a")
    assert set(layer.results) == {"b", "c"}
    assert layer.results["b"].status == "hidden" and layer.results["c"].status == "visible"
    surface = pygame.Surface((800, 800))
    cam = Camera(20, (10, 10))
    layer.draw_under(surface, cam)
    layer.draw_over(surface, cam)
    # the viewer's white ring
    x, y = cam.to_px(5, 18)
    assert surface.get_at((round(x + cam.length(sc.state.units["a"].r) + 3.5), round(y)))[:3] == (255, 255, 255)


def test_render_command_with_los(tmp_path, capsys):
    sc = _scene(tmp_path)
    out = tmp_path / "los.png"
    assert main(["render", sc.file, "-o", str(out), "--los", "a", "--width", "800"]) == 0
    assert os.path.getsize(out) > 1000
    assert main(["render", sc.file, "-o", str(out), "--los", "ghost"]) == 2
    assert "ghost" in capsys.readouterr().err
