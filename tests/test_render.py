"""The render: camera arithmetic, pixels at known places, caching, and the render CLI."""

import glob
import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.bundled import bundled_map, maps_dir  # noqa: E402
from game.cli import main  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.ui import theme  # noqa: E402
from game.ui.render import (  # noqa: E402
    BoardPainter,
    Camera,
    encode_png,
    render_png,
    render_surface,
    unit_labels,
)

MAPS = sorted(glob.glob(os.path.join(maps_dir(), "*.yaml")))

SCENARIO = """\
name: Pixel probe
table: {width: 24, height: 18}
terrain:
  - {id: keep, kind: block, height: 3, polygon: [[2, 2], [8, 2], [8, 8], [2, 8]]}
  - {id: rubble, kind: difficult, polygon: [[12, 2], [20, 2], [20, 8], [12, 8]]}
  - {id: pool, kind: impassable, polygon: [[12, 11], [16, 11], [16, 15], [12, 15]]}
  - {id: fence, kind: wall, height: 0.5, polygon: [[2, 10], [8, 10], [8, 10.25], [2, 10.25]]}
ladders:
  - {id: keep-ladder, foot: [8.5, 5], top: keep}
treasure:
  - {id: t-event, at: [5, 14], event: event}
  - {id: t-plain, at: [9, 14], event: none}
  - {id: t-carried, at: [20, 16], event: none}
warbands:
  - id: red
    player: 1
    colour: '#d01010'
    units:
      - {id: red-boss, name: Red Boss, at: [5, 5], base_mm: 60, keywords: [hero],
         stats: {move: 6, agility: 12, morale: 14, defence: 10}}
      - {id: red-gone, name: Gone, at: [22, 4], base_mm: 25, on_table: false,
         stats: {move: 6, agility: 12, morale: 14, defence: 10}}
  - id: blue
    player: 2
    units:
      - {id: blue-carrier, name: Carrier, at: [20, 16], base_mm: 50, carrying: t-carried,
         stats: {move: 6, agility: 12, morale: 14, defence: 10}}
"""


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("render") / "probe.yaml"
    path.write_text(SCENARIO)
    return load_scenario(str(path))


def _disc_pixels(surface, centre, radius):
    cx, cy = centre
    out = []
    r = int(radius)
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            if dx * dx + dy * dy <= radius * radius:
                out.append(tuple(surface.get_at((int(cx + dx), int(cy + dy))))[:3])
    return out


def _poly_pixels(surface, camera, x0, y0, x1, y1, inset=0.3):
    a = camera.to_px(x0 + inset, y0 + inset)
    b = camera.to_px(x1 - inset, y1 - inset)
    return [
        tuple(surface.get_at((x, y)))[:3]
        for x in range(int(a[0]), int(b[0]), 2)
        for y in range(int(a[1]), int(b[1]), 2)
    ]


# --- camera -----------------------------------------------------------------------------------


def test_camera_round_trip_and_scale():
    cam = Camera(scale=20, offset=(30, 40))
    assert cam.to_px(0, 0) == (30, 40)
    assert cam.to_px(2, 3) == (70, 100)
    assert cam.to_in(70, 100) == (2, 3)
    assert cam.length(1.5) == 30


def test_zoom_about_keeps_the_point_under_the_cursor():
    cam = Camera(scale=20, offset=(30, 40))
    before = cam.to_in(250, 130)
    cam.zoom_about(250, 130, 1.5)
    assert cam.scale == pytest.approx(30)
    after = cam.to_in(250, 130)
    assert after == pytest.approx(before)


def test_zoom_is_clamped():
    cam = Camera(scale=20)
    cam.zoom_about(0, 0, 1e9)
    assert cam.scale == Camera.MAX_SCALE
    cam.zoom_about(0, 0, 1e-9)
    assert cam.scale == Camera.MIN_SCALE


def test_fit_centres_the_table_in_the_view():
    cam = Camera().fit(36, 18, (100, 50, 720, 720))
    assert cam.scale == pytest.approx(20)  # width-limited: 720 / 36
    x0, y0 = cam.to_px(0, 0)
    x1, y1 = cam.to_px(36, 18)
    assert (x0, x1) == pytest.approx((100, 820))
    assert (y0 + y1) / 2 == pytest.approx(50 + 360)


# --- pixels ------------------------------------------------------------------------------------


def test_unit_drawn_in_its_warband_colour_at_its_centre(scenario):
    surface, cam = render_surface(scenario, width=1200)
    unit = scenario.state.units["red-boss"]
    r = unit.r * cam.scale
    inside = _disc_pixels(surface, cam.to_px(unit.x, unit.y), r * 0.7)
    red = (0xD0, 0x10, 0x10)
    assert inside.count(red) > 0.5 * len(inside)
    # Player 2 without a colour gets the player-2 default.
    blue = scenario.state.units["blue-carrier"]
    inside = _disc_pixels(surface, cam.to_px(blue.x + blue.r * 0.5, blue.y - blue.r * 0.1), blue.r * cam.scale * 0.2)
    assert inside.count(theme.PLAYER_COLOURS[2]) > 0.5 * len(inside)


def test_difficult_ground_is_hatched(scenario):
    surface, cam = render_surface(scenario, width=1200)
    pixels = _poly_pixels(surface, cam, 12, 2, 20, 8)
    fill = sum(p == theme.DIFFICULT_FILL for p in pixels)
    hatch = sum(p == theme.DIFFICULT_HATCH for p in pixels)
    assert fill > 0.3 * len(pixels)
    assert hatch > 0.05 * len(pixels)
    # Plain ground has neither.
    ground = _poly_pixels(surface, cam, 20.5, 9, 23.5, 12)
    assert theme.DIFFICULT_HATCH not in ground


def test_blocks_are_shaded_by_height_and_impassable_is_dark(scenario):
    surface, cam = render_surface(scenario, width=1200)
    block = _poly_pixels(surface, cam, 5, 6.5, 7.5, 7.5, inset=0)
    assert block.count(theme.height_colour(3)) > 0.5 * len(block)
    pool = _poly_pixels(surface, cam, 12, 11, 16, 15)
    assert pool.count(theme.IMPASSABLE_FILL) > 0.5 * len(pool)
    assert theme.IMPASSABLE_MARK in pool


def test_height_ramp_is_monotonic():
    lum = [theme.luminance(theme.height_colour(h)) for h in (0.5, 1, 2, 3, 4, 6, 8)]
    assert lum == sorted(lum) and len(set(lum)) == len(lum)


def test_event_token_hidden_unless_revealed(scenario):
    hidden, cam = render_surface(scenario, width=1200, reveal=False)
    shown, cam2 = render_surface(scenario, width=1200, reveal=True)
    tok = scenario.state.treasure["t-event"]
    r = tok.r * cam.scale
    h = _disc_pixels(hidden, cam.to_px(tok.x, tok.y), r * 0.9)
    s = _disc_pixels(shown, cam2.to_px(tok.x, tok.y), r * 0.9)
    assert theme.TOKEN_EVENT not in h and h.count(theme.TOKEN_GOLD) > 0.3 * len(h)
    assert s.count(theme.TOKEN_EVENT) > 0.3 * len(s)
    # A plain token looks the same either way, so hidden ones give nothing away.
    plain = scenario.state.treasure["t-plain"]
    ph = _disc_pixels(hidden, cam.to_px(plain.x, plain.y), r * 0.9)
    ps = _disc_pixels(shown, cam2.to_px(plain.x, plain.y), r * 0.9)
    assert ph == ps == [p for p in h]  # identical to the hidden event token


def test_token_revealed_in_play_shows_without_reveal(scenario):
    state = scenario.state.copy()
    state.treasure["t-event"].revealed = True
    surface, cam = render_surface(scenario, state, width=1200, reveal=False)
    tok = state.treasure["t-event"]
    px = _disc_pixels(surface, cam.to_px(tok.x, tok.y), tok.r * cam.scale * 0.9)
    assert px.count(theme.TOKEN_EVENT) > 0.3 * len(px)


def test_units_off_the_table_are_not_drawn_and_carried_tokens_ride_on_the_carrier(scenario):
    painter = BoardPainter(scenario)
    cam = Camera(scale=40, offset=(0, 0))
    surface = pygame.Surface((24 * 40, 18 * 40))
    painter.draw(surface, cam, scenario.state)
    gone = scenario.state.units["red-gone"]
    px = _disc_pixels(surface, cam.to_px(gone.x, gone.y), gone.r * 40 * 0.7)
    assert (0xD0, 0x10, 0x10) not in px
    # The carried token is a small coin on the carrier's base, not a full token of its own.
    carrier = scenario.state.units["blue-carrier"]
    base = _disc_pixels(surface, cam.to_px(carrier.x, carrier.y), carrier.r * 40)
    assert theme.TOKEN_GOLD in base
    ring = _disc_pixels(surface, cam.to_px(carrier.x, carrier.y), carrier.r * 40 * 0.3)
    assert theme.TOKEN_GOLD not in ring


def test_draw_never_changes_the_state(scenario):
    state = scenario.state.copy()
    before = state.hash()
    painter = BoardPainter(scenario)
    surface = pygame.Surface((800, 600))
    painter.draw(surface, Camera().fit(24, 18, (0, 0, 800, 600)), state, reveal=True, selected="red-boss")
    assert state.hash() == before


def test_static_layer_is_cached_per_scale_and_invalidated(scenario):
    painter = BoardPainter(scenario)
    surface = pygame.Surface((800, 600))
    cam = Camera(scale=30, offset=(10, 10))
    painter.draw(surface, cam, scenario.state)
    layer = painter._layer
    cam.pan(25, 7)
    painter.draw(surface, cam, scenario.state)
    assert painter._layer is layer  # panning by whole pixels reuses the layer
    cam.zoom_about(100, 100, 1.25)
    painter.draw(surface, cam, scenario.state)
    assert painter._layer is not layer
    layer = painter._layer
    painter.invalidate()
    painter.draw(surface, cam, scenario.state)
    assert painter._layer is not layer


def test_zoomed_far_in_draws_only_the_view(scenario):
    painter = BoardPainter(scenario)
    surface = pygame.Surface((640, 480))
    cam = Camera(scale=300, offset=(0, 0))
    cam.offset = (320 - 5 * 300, 240 - 6.5 * 300)  # centre on inch (5, 6.5): the 3" keep
    painter.draw(surface, cam, scenario.state)
    w, h = painter._layer.get_size()
    assert w * h < (24 * 300) * (18 * 300) / 10  # only around the view, not the whole table
    assert tuple(surface.get_at((335, 470)))[:3] == theme.height_colour(3)  # off the 1" grid lines
    layer = painter._layer
    cam.pan(-40, -30)  # a small pan stays inside the cached margin
    painter.draw(surface, cam, scenario.state)
    assert painter._layer is layer
    assert tuple(surface.get_at((335 - 40, 470 - 30)))[:3] == theme.height_colour(3)
    cam.pan(-2000, 0)  # far away: rebuilt
    painter.draw(surface, cam, scenario.state)
    assert painter._layer is not layer


def test_labels_are_short_and_unique_within_a_warband(scenario):
    labels = unit_labels(scenario)
    assert labels["red-boss"] == "RB"
    stress = load_scenario(bundled_map("stress.yaml"))
    labels = unit_labels(stress)
    for w in stress.warbands:
        mine = [labels[u.id] for u in stress.state.units_of(w.id)]
        assert len(set(mine)) == len(mine)
        assert all(1 <= len(x) <= 3 for x in mine)


def test_png_encoder_round_trips(tmp_path):
    surface = pygame.Surface((37, 23))
    surface.fill((10, 200, 30))
    surface.set_at((5, 7), (255, 0, 128))
    path = tmp_path / "x.png"
    path.write_bytes(encode_png(surface))
    back = pygame.image.load(str(path))
    assert back.get_size() == (37, 23)
    assert tuple(back.get_at((5, 7)))[:3] == (255, 0, 128)
    assert tuple(back.get_at((0, 0)))[:3] == (10, 200, 30)


@pytest.mark.parametrize("path", MAPS, ids=[os.path.basename(p) for p in MAPS])
def test_every_bundled_map_renders(path, tmp_path):
    sc = load_scenario(path)
    out = tmp_path / "map.png"
    size = render_png(sc, sc.state, str(out), reveal=True, width=900)
    img = pygame.image.load(str(out))
    assert img.get_size() == size and size[0] == 900


# --- the CLI ----------------------------------------------------------------------------------------


def test_render_cli_writes_a_png(tmp_path, capsys):
    out = tmp_path / "default.png"
    assert main(["render", bundled_map("default.yaml"), "-o", str(out), "--width", "800"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pygame.image.load(str(out)).get_width() == 800


def test_render_cli_bad_scenario_exits_2_with_file_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\ntable: {width: 10, height: 10}\nterrain:\n"
        "  - {id: a, kind: blok, polygon: [[0,0],[1,0],[1,1]]}\nwarbands: []\n"
    )
    out = tmp_path / "o.png"
    assert main(["render", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:4:" in err and "Traceback" not in err
    assert not out.exists()


def test_render_cli_missing_file_and_bad_output_exit_2(tmp_path, capsys):
    assert main(["render", str(tmp_path / "nope.yaml"), "-o", str(tmp_path / "o.png")]) == 2
    assert "nope.yaml" in capsys.readouterr().err
    default = bundled_map("default.yaml")
    assert main(["render", default, "-o", str(tmp_path / "no-such-dir" / "o.png")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["render", default, "-o", str(tmp_path / "o.png"), "--width", "10"]) == 2
    assert "--width" in capsys.readouterr().err


def test_render_cli_with_actions(tmp_path, capsys):
    default = bundled_map("default.yaml")
    script = tmp_path / "actions.yaml"
    script.write_text(
        "seed: 1\nactions:\n  - end_phase: {}\n  - move: {unit: red-hound, to: [20, 9]}\n"
        "  - run: {unit: red-ogre, to: [40, 40]}\n"
    )
    out, plain = tmp_path / "o.png", tmp_path / "plain.png"
    code = main(["render", default, "-o", str(out), "--actions", str(script)])
    err = capsys.readouterr().err
    assert code == 0
    # The illegal run is reported with its line and skipped; the picture is still drawn.
    assert f"{script}:5: action 3 skipped" in err
    assert main(["render", default, "-o", str(plain)]) == 0
    moved, still = pygame.image.load(str(out)), pygame.image.load(str(plain))
    assert pygame.image.tobytes(moved, "RGB") != pygame.image.tobytes(still, "RGB")


def test_render_cli_bad_actions_file_exits_2(tmp_path, capsys):
    script = tmp_path / "actions.yaml"
    script.write_text("seed: 1\nactions:\n  - teleport: {unit: red-hound}\n")
    out = tmp_path / "o.png"
    assert main(["render", bundled_map("default.yaml"), "-o", str(out), "--actions", str(script)]) == 2
    assert f"{script}:3:" in capsys.readouterr().err
    assert not out.exists()


def test_fonts_survive_pygame_quit():
    """A closed window (pygame.quit) must not leave dead fonts in the cache."""
    import pygame

    from game.ui.draw import get_font

    pygame.init()
    get_font(14).render("before", True, (0, 0, 0))
    pygame.quit()
    assert get_font(14).render("after", True, (0, 0, 0)).get_width() > 0
