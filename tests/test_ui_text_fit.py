"""Text that is never cut off or misleading (issue 23): wrapped refusals and log lines,
short move lines, the banner, the tool bar, the winner box, the ruler and sight keys,
refusals in a player's words, the unit menu, undo with a bot, the editor's keys.
Headless (SDL dummy driver); each was also seen in a screenshot under Xvfb."""

from __future__ import annotations

import os
import subprocess
import sys

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.editor.document import Document  # noqa: E402
from game.editor.driver import Driver  # noqa: E402
from game.engine.dice import Dice  # noqa: E402
from game.engine.game import Game  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.ui import keymap  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.camera import Camera  # noqa: E402
from game.ui.scenes import ask  # noqa: E402
from game.ui.scenes.overlays import WinnerScene  # noqa: E402
from game.ui.scenes.play.sidebar import BUTTON_PAD, SWITCHED_CAPTIONS  # noqa: E402
from game.ui.scenes.play.words import action_words, build_log, unit_menu_items  # noqa: E402
from game.ui.sight_layer import SightLayer  # noqa: E402
from game.ui.widgets import text as T  # noqa: E402
from game.ui.widgets.log_view import LogView  # noqa: E402
from game.ui.widgets.overlays import label  # noqa: E402
from game.ui.widgets.panels import Banner  # noqa: E402
from tests.factories import game as build_game, unit  # noqa: E402
from tests.factories import key, open_game as open_ui_game  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MAP = os.path.join(HERE, "maps", "default.yaml")
LONG_REFUSAL = (
    "M5: no legal path for red-captain from [2.31, 9.21] to [5.00, 10.50] (M5: the 32 mm base of "
    'red-captain does not fit past block townhall (0.00" from its centre line, needs 0.63") on the '
    "straight line, and a_path_name_with_no_spaces_at_all_that_is_longer_than_any_line_of_the_box)"
)


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def open_game(g: Game, tmp_path):
    return open_ui_game(g, tmp_path, handover=False)


def px(scene, x, y):
    p = scene.camera.to_px(x, y)
    return (int(round(p[0])), int(round(p[1])))


def drag(app, scene, a, b, steps=6):
    pa, pb = px(scene, *a), px(scene, *b)
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pa, button=1))
    for i in range(1, steps + 1):
        p = (pa[0] + (pb[0] - pa[0]) * i // steps, pa[1] + (pb[1] - pa[1]) * i // steps)
        app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=p, rel=(0, 0), buttons=(1, 0, 0)))
    scene.drag_tool.flush()
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pb, button=1))
    app.frame(0.016, flip=False)


def two_sides(phase="move", player=1, turn=2, **kw):
    red = [
        unit("red-captain", [6, 6]),
        unit("red-sword", [10, 6], keywords=()),
        unit("red-xbow", [14, 6], keywords=("crossbow",)),
    ]
    blue = [unit("blue-boss", [30, 30]), unit("blue-archer", [26, 30], keywords=("bow",))]
    return build_game(
        red,
        blue,
        [],
        state={"turn": turn, "player": player, "phase": phase},
        rules={"combat": "placeholder", "turn_limit": 4},
        **kw,
    )


# --- wrapping -----------------------------------------------------------------------------------
def test_wrap_keeps_every_line_inside_the_width_and_every_character():
    pygame.init()
    for width in (120, 200, 360):
        lines = T.wrap(LONG_REFUSAL, width, 12)
        assert all(T.font(12).size(line)[0] <= width for line in lines), lines
        assert "".join(line.strip().replace(" ", "") for line in lines) == LONG_REFUSAL.replace(" ", "")


def test_a_refusal_label_shows_every_line_of_its_reason():
    surface = pygame.Surface((900, 700))
    box = label(surface, LONG_REFUSAL, (450, 350), (20, 20, 20), size=14, max_width=360)
    lines = T.wrap(LONG_REFUSAL, 360, 14, True)
    assert len(lines) > 4  # more than the old cap of four lines
    assert box.height == T.font(14, True).get_linesize() * len(lines) + 4 and box.width <= 360 + 10


def test_log_lines_never_run_past_the_panel():
    pygame.init()
    view = LogView(pygame.Rect(0, 0, 342, 400))
    view.set_entries([(LONG_REFUSAL, "refusal"), ("P1 " + "x" * 300, "action"), ("turn 2 begins", "turn")])
    assert view.lines > 6 and all(s.get_width() <= view.rect.width - 12 for s in view._lines)


# --- move lines in the log ----------------------------------------------------------------------
def test_a_move_line_gives_start_end_and_length_and_the_save_keeps_the_path(tmp_path):
    g = two_sides()
    path = [[6, 6]] + [[6 + 0.1 * (k % 2), 6 + 0.3 * k] for k in range(1, 12)] + [[6, 9.6]]
    result = g.apply({"move": {"unit": "red-captain", "path": path}})
    assert result.ok, result
    app, scene = open_game(g, tmp_path)
    line = next(s for s, kind in build_log(scene) if kind == "action" and "red-captain" in s)
    taken = ask.path_taken(result)
    assert "from [6.00, 6.00] to [6.00, 9.60]" in line and "3." in line and " long" in line
    assert line.count("[") == 2, line  # not a dozen waypoints
    assert line.count(" -> ") == 0 and len(taken) >= 2
    assert g.log[-1].action["move"]["path"] == path  # the full path is in the log the save writes


def test_a_long_waypoint_path_refused_is_logged_short():
    words = action_words({"run": {"unit": "u", "path": [[0, 0]] + [[k, k % 2] for k in range(1, 14)]}})
    assert words == "run u from [0.00, 0.00] to [13.00, 1.00] (12 bends), " + words.split(", ")[-1]
    assert words.endswith(" long") and words.count("[") == 2


# --- the banner and the tool bar ----------------------------------------------------------------
def test_the_banner_keeps_the_phase_with_wide_pills_and_never_cuts_the_hint():
    surface = pygame.Surface((1280, 40))
    banner = Banner()
    hint = "select a unit, hover an enemy for its engage path (E1), right-click to Engage"
    rect = pygame.Rect(0, 0, 1280 - 350 - 176, 40)
    banner.draw(surface, rect, 1, 1, "Crimson Lanterns", (200, 50, 40), "engage", None, hint, ())
    assert "Engage phase" in banner.shown and " ".join(s.strip() for s in banner.shown[3:]) == hint
    tags = [("bot P2: waiting for the dialog 8x", (150, 200, 255)), ("placeholder combat", (255, 200, 90))]
    banner.draw(
        surface,
        rect,
        1,
        1,
        "The Very Long Named Crimson Lanterns",
        (200, 50, 40),
        "melee",
        None,
        "P pauses the bot, . speeds it up, S skips",
        tags,
    )
    assert "Turn 1" in banner.shown and "Melee phase" in banner.shown
    assert not any(s.endswith("...") or s.endswith("…") for s in banner.shown)


def test_every_tool_bar_caption_fits_its_button_resume_too(tmp_path):
    app, scene = open_game(two_sides(), tmp_path)
    scene.bot.set_seat(2, "utility")
    key(app, "bot_pause")
    app.frame(0.016, flip=False)
    font = app.ui.get_theme().get_font(["button"])
    captions = {cmd: b.text for b, cmd in scene.sidebar.buttons.items()}
    assert captions["bot_pause"] == "Resume"
    for b, cmd in scene.sidebar.buttons.items():
        if cmd in ("end_step", "back_to_editor"):
            continue
        for text in {b.text, *SWITCHED_CAPTIONS}:
            assert font.size(text)[0] + BUTTON_PAD <= b.rect.width, (text, b.rect.width)


# --- the end of the game ------------------------------------------------------------------------
def test_the_winner_box_wraps_its_lines_inside_the_box():
    app = App((1280, 800))
    lines = [
        "Turns played: 10",
        "How: the turn limit (10 game turns, T1): most treasure held (1), then fewer units lost (0)",
        "Crimson Lanterns: 0 unit(s) lost, treasure held: 2 (t-square, t-tower)",
    ]
    w = WinnerScene(app, "Crimson Lanterns wins!", lines, (200, 50, 40), lambda v: None)
    box = w._box(app.size)
    wrapped = w._wrapped(box.width)
    assert len(wrapped) > len(lines)
    assert all(box.x + 30 + T.font(w.LINE_SIZE).size(s)[0] <= box.right - 10 for s in wrapped)
    assert box.height >= 74 + w.LINE_H * len(wrapped) + 54


def test_after_the_game_ends_the_banner_says_so_and_the_end_button_is_gone(tmp_path):
    g = two_sides(phase="melee", player=2, turn=4)  # the last phase before the turn limit (4)
    app, scene = open_game(g, tmp_path)
    while ask.outcome(g) is None:
        assert scene.act({ask.end_kind(g): {}})
    if app.modal is not None:
        app.close_dialogs()
    app.frame(0.016, flip=False)
    assert isinstance(app.top, WinnerScene)
    while app.top is not scene:  # Look at the table
        app.top.close()
    app.frame(0.016, flip=False)
    assert not scene.sidebar.end_button.visible
    shown = scene.sidebar.banner.shown
    assert "Game over" in shown and not any(s.endswith(" phase") for s in shown)
    assert "Ctrl+Z" in " ".join(scene.sidebar.hint_bar.shown)  # the hint strip says how it ended


# --- the ruler and the sight key ----------------------------------------------------------------
def test_a_box_placed_below_another_never_covers_it():
    surface = pygame.Surface((800, 600))
    for y in (100, 300, 580):  # the last near the bottom: the second box goes above
        first = label(surface, '28.18"  (red-ogre to blue-troll)', (400, y - 12), (0, 0, 0), size=15)
        second = label(
            surface,
            'line of sight red-ogre to blue-troll: visible, in the open: 81 of 81 sight lines clear, 28.18" away',
            (400, y + 14),
            (0, 0, 0),
            size=13,
            max_width=420,
            below=first,
        )
        assert not first.colliderect(second), (y, first, second)


def test_the_sight_key_covers_no_unit_when_every_corner_has_units():
    g = Game(load_scenario(DEFAULT_MAP), dice=Dice(seed=1))
    view = pygame.Rect(0, 40, 930, 760)
    cam = Camera()
    cam.fit(g.scenario.width, g.scenario.height, view, margin=30)
    local = Camera(cam.scale, (cam.offset[0] - view.x, cam.offset[1] - view.y))
    layer = SightLayer(g.sight, g.state, "red-captain", targets=[])
    box = layer._key_place(local, (300, 58), pygame.Rect(0, 0, *view.size))
    for u in g.state.units.values():
        c = local.to_px(u.x, u.y)
        assert not box.inflate(2 * local.length(u.r), 2 * local.length(u.r)).collidepoint(c), u.id


# --- refusals and menus in a player's words -----------------------------------------------------
def test_dragging_in_the_engage_phase_says_what_may_be_done_and_how(tmp_path):
    app, scene = open_game(two_sides(phase="engage"), tmp_path)
    drag(app, scene, (10, 6), (10, 9))
    rule, reason, _ = scene.refusal
    assert "Engage phase" in reason and "right-click" in reason and "Space ends the phase" in reason
    for raw in ("set_status", "end_spell", "incapacitate", "end_phase"):
        assert raw not in reason
    assert scene.state.units["red-sword"].y == 6


def test_the_unit_menu_offers_reload_only_to_a_unit_whose_weapon_reloads(tmp_path):
    app, scene = open_game(two_sides(), tmp_path)
    labels = {uid: [text for text, _a in unit_menu_items(scene, uid)] for uid in ("red-sword", "red-xbow")}
    assert "Reload (M11)" not in labels["red-sword"]
    assert "Reload (M11)" in labels["red-xbow"]


def test_undoing_ones_own_move_leaves_the_bot_playing(tmp_path):
    g = two_sides()
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    drag(app, scene, (10, 6), (10, 8))
    assert scene.state.units["red-sword"].y == pytest.approx(8, abs=0.05)
    key(app, "undo")
    assert scene.state.units["red-sword"].y == 6
    assert not scene.bot.paused
    assert ("bot P2", (150, 200, 255)) in scene.sidebar.tags()


# --- the editor ---------------------------------------------------------------------------------
def open_editor(tmp_path) -> Driver:
    app = App((1280, 800))
    from game.editor.app import open_editor as open_editor_scene

    open_editor_scene(app, Document.new(36, 24, path=str(tmp_path / "map.yaml")))
    return Driver(app)


def test_after_enter_in_the_height_field_t_picks_the_treasure_tool(tmp_path):
    d = open_editor(tmp_path)
    d.key(pygame.K_b)
    d.drag((4, 4), (8, 8))
    d.frame()
    height = [e for e in d.scene.properties.elements if getattr(e, "get_text", None) and e.get_text() == "3"]
    d.type_into(height[0], "2")
    assert d.scene.doc.terrain("block-1").height == 2
    d.key(pygame.K_t, unicode="t")
    assert d.scene.tool == "treasure"
    assert d.scene.doc.terrain("block-1").height == 2


def test_ctrl_q_quits_the_editor_and_f1_lists_it(tmp_path):
    assert "Ctrl+Q" in keymap.EDITOR.label("quit")
    assert any("Ctrl+Q" in keys for keys, _what in keymap.EDITOR.help_rows())
    d = open_editor(tmp_path)
    d.ctrl(pygame.K_q)
    assert not d.app.running
    d = open_editor(tmp_path)
    d.key(pygame.K_b)
    d.drag((4, 4), (8, 8))  # unsaved: the first Ctrl+Q warns, the second quits
    d.ctrl(pygame.K_q)
    assert d.app.running
    d.ctrl(pygame.K_q)
    assert not d.app.running


def test_the_editor_prints_no_pygame_banner():
    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    env["PYTHONPATH"] = HERE
    out = subprocess.run(
        [sys.executable, "-c", "import game.editor.app, game.editor.scene"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE,
    )
    assert out.returncode == 0, out.stderr
    assert "pygame" not in out.stdout


def test_a_bot_games_end_shows_who_won_and_how_whole_under_the_banner(tmp_path):
    red = [unit("red-captain", [6, 6], carrying="t1"), unit("red-sword", [10, 6], keywords=())]
    blue = [unit("blue-boss", [30, 30])]
    g = build_game(
        red,
        blue,
        [{"id": "t1", "at": [6, 6], "event": "none"}],
        state={"turn": 4, "player": 2, "phase": "melee"},
        rules={"combat": "placeholder", "turn_limit": 4, "turn_limit_winner": "treasure"},
    )
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(1, "utility")
    scene.bot.set_seat(2, "utility")
    scene.bot.paused = True
    while ask.outcome(g) is None:
        assert scene.act({ask.end_kind(g): {}})
    while app.top is not scene:
        app.top.close()
    app.frame(0.016, flip=False)
    shown = scene.sidebar.banner.shown
    hint = " ".join(scene.sidebar.hint_bar.shown)
    outcome = ask.outcome(g)
    assert outcome.winner == "red" and len(outcome.reason) > 60
    assert "Game over" in shown and outcome.reason in hint.replace("  ", " ") and "Ctrl+Z" in hint


def test_a_hint_with_no_room_shows_whole_clauses_or_nothing():
    surface = pygame.Surface((300, 40))
    hint = (
        "red wins, by a lot (the turn limit (4 game turns, T1): most treasure held (1), then fewer units lost (0), "
        "then the most units standing (7), then the fewest Routs (0)), Ctrl+Z takes the last action back, "
        "N starts a new game on the same table, Ctrl+Q quits"
    )
    shown = " ".join(Banner._hint(surface, hint, pygame.Rect(0, 0, 330, 40)))
    assert shown and shown != hint  # too long for three lines here: the first clauses only
    assert shown.count("(") == shown.count(")") and hint.startswith(shown)
