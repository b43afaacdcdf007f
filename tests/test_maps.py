"""The bundled maps: all valid, default.yaml and stress.yaml as the foundation issue asks."""

import glob
import importlib.util
import os

import pytest
from shapely.geometry import Point, Polygon

from game.bundled import bundled_map, maps_dir
from game.cli import main
from game.engine.geometry import Board
from game.engine.scenario import load_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAPS = sorted(glob.glob(os.path.join(maps_dir(), "*.yaml")))


def _load(name):
    return load_scenario(bundled_map(name))


@pytest.mark.parametrize("path", MAPS, ids=[os.path.basename(p) for p in MAPS])
def test_every_bundled_map_loads_and_checks(path, capsys):
    sc = load_scenario(path)
    assert sc.terrain and sc.state.units
    assert main(["check", path]) == 0
    assert "ok" in capsys.readouterr().out


def test_default_map_is_a_ruined_town():
    sc = _load("default.yaml")
    assert (sc.width, sc.height) == (36, 36)
    assert len(sc.terrain) >= 12
    blocks = [t for t in sc.terrain if t.kind == "block"]
    walls = [t for t in sc.terrain if t.kind == "wall"]
    # Two-storey: a 6" block standing on part of a 3" block's footprint.
    storeys = [
        (lo.id, hi.id)
        for lo in blocks
        for hi in blocks
        if lo.height == 3 and hi.height == 6 and Polygon(lo.polygon).intersection(Polygon(hi.polygon)).area > 1
    ]
    assert storeys
    low = [w for w in walls if w.height < 1]
    high = [w for w in walls if w.height > 1]
    assert low and high
    for w in walls:  # thin polygons
        rect = Polygon(w.polygon).minimum_rotated_rectangle
        c = list(rect.exterior.coords)
        assert min(Point(c[0]).distance(Point(c[1])), Point(c[1]).distance(Point(c[2]))) <= 0.6
    assert any(t.kind == "difficult" for t in sc.terrain)
    assert any(t.kind == "impassable" for t in sc.terrain)


def test_default_map_ladders_stand_on_the_ground_beside_their_block():
    sc = _load("default.yaml")
    board = Board(sc.width, sc.height, sc.terrain)
    assert len(sc.ladders) >= 2
    for lad in sc.ladders:
        block = sc.terrain_by_id(lad.top)
        assert block.kind == "block"
        assert board.height_at(*lad.foot) == 0
        assert 0 < board.distance_to_terrain(lad.foot[0], lad.foot[1], 0, lad.top) <= 1


def test_default_map_treasure_and_warbands():
    sc = _load("default.yaml")
    tokens = list(sc.state.treasure.values())
    assert len(tokens) == 4
    assert sorted(t.event for t in tokens).count("event") == 1
    assert [t.event for t in tokens].count("plague") == 1
    assert sorted(w.player for w in sc.warbands) == [1, 2]
    units = [u for u in sc.state.units.values()]
    for w in sc.warbands:
        assert w.colour and w.colour.startswith("#")
        mine = sc.state.units_of(w.id)
        assert 6 <= len(mine) <= 10
        assert any(u.is_hero for u in mine)
        assert w.id in sc.deployment
        zone = Polygon(sc.deployment[w.id])
        assert all(zone.buffer(1e-6).contains(Point(u.x, u.y).buffer(u.r)) for u in mine)
    assert any(u.is_animal for u in units)
    assert any(u.is_caster for u in units)
    assert {25, 32, 40, 50} <= {u.base_mm for u in units}
    for u in units:
        assert {"move", "agility", "morale", "defence"} <= set(u.stats)
        assert 3 <= u.stats["move"] <= 10 and 1 <= u.stats["agility"] <= 20


def test_default_map_units_do_not_overlap_or_straddle():
    sc = _load("default.yaml")
    board = Board(sc.width, sc.height, sc.terrain)
    units = list(sc.state.units.values())
    for i, a in enumerate(units):
        levels = board.heights_under_disc(a.x, a.y, a.r)
        assert levels[-1] - levels[0] <= 1, a.id
        for b in units[i + 1 :]:
            assert Point(a.x, a.y).distance(Point(b.x, b.y)) >= a.r + b.r, (a.id, b.id)


def test_teaching_maps_have_a_header_for_designers():
    teach = sorted(glob.glob(os.path.join(maps_dir(), "teach-*.yaml")))
    assert len(teach) >= 2
    for path in teach:
        sc = load_scenario(path)
        assert sc.width <= 30 and sc.height <= 30
        with open(path, encoding="utf-8") as fh:
            head = fh.read().split("\nname:")[0]
        assert head.startswith("#") and "try" in head.lower()


def test_stress_map_counts():
    sc = _load("stress.yaml")
    assert (sc.width, sc.height) == (48, 48)
    assert len(sc.terrain) == 60
    assert len(sc.state.units) == 40
    assert sorted(len(sc.state.units_of(w.id)) for w in sc.warbands) == [20, 20]
    assert {t.kind for t in sc.terrain} == {"block", "wall", "difficult", "impassable"}


def test_stress_map_is_what_the_generator_makes():
    spec = importlib.util.spec_from_file_location("make_stress", os.path.join(ROOT, "tools", "make_stress.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.to_yaml(mod.generate())
    with open(bundled_map("stress.yaml"), encoding="utf-8") as fh:
        assert fh.read() == text
    assert mod.to_yaml(mod.generate()) == text  # deterministic
