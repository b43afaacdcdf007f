"""Scene-level tests of the table window: real pygame events fed to the app, game state asserted.

Runs headless (SDL_VIDEODRIVER=dummy). Every test builds its own small scenario so map
edits elsewhere do not move the goal posts.
"""

from __future__ import annotations

import math
import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.ui import keymap, userdata  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.launch import start  # noqa: E402
from game.ui.scenes.play.words import build_log  # noqa: E402
from tests.factories import UI_SCENARIO, down, drag, key, make_scene, motion, px, up  # noqa: E402,F401


def test_click_selects_a_unit_and_empty_ground_deselects(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    p = px(scene, 4, 4)
    down(app, p)
    up(app, p)
    assert scene.selected == "red-captain"
    assert scene.drag_tool.drag is None
    down(app, px(scene, 12, 12))
    up(app, px(scene, 12, 12))
    assert scene.selected is None
    assert app.errors == []


def test_drag_previews_then_drop_moves_the_unit(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (4, 4), (4, 8))
    prev = scene.drag_tool.drag.preview
    assert prev is not None and prev.kind == "move"
    assert prev.walk == pytest.approx(6.0)
    assert prev.cost == pytest.approx(4.0, abs=0.1)
    up(app, end)
    u = scene.state.units["red-captain"]
    x, y = scene.camera.to_in(*end)
    assert (u.x, u.y) == (pytest.approx(x, abs=0.01), pytest.approx(y, abs=0.01))
    assert u.moved and not u.ran
    assert "move" in scene.game.log[-1].action
    assert scene.drag_tool.drag is None
    assert app.errors == []


def test_a_path_longer_than_move_becomes_a_run(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (4, 4), (4, 12))  # 8": more than Move 6, within Run 9
    assert scene.drag_tool.drag.preview.kind == "run"
    up(app, end)
    u = scene.state.units["red-captain"]
    assert u.ran
    assert u.y == pytest.approx(scene.camera.to_in(*end)[1], abs=0.01)


def test_illegal_drop_snaps_back_with_the_rule(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (4, 4), (4, 21))  # 17": beyond Run
    assert scene.drag_tool.drag.preview.kind is None
    up(app, end)
    u = scene.state.units["red-captain"]
    assert (u.x, u.y) == (4, 4)
    assert scene.refusal is not None and scene.refusal[0] in ("M1", "M2")
    assert scene.game.log == []
    assert any(kind == "refusal" and "M" in text for text, kind in build_log(scene))


def test_escape_cancels_a_drag(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (4, 4), (6, 6))
    key(app, "cancel")
    assert scene.drag_tool.drag is None
    up(app, end)
    assert scene.state.units["red-captain"].pos == (4, 4)


def test_click_during_a_drag_adds_a_waypoint(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    mid = drag(app, scene, (4, 4), (7, 4))
    down(app, mid)  # a click while dragging: a waypoint
    up_at = px(scene, 7, 7)
    motion(app, up_at)
    app.frame(0.016, flip=False)
    scene.drag_tool.flush()
    assert len(scene.drag_tool.drag.waypoints) == 1
    up(app, up_at)
    action = scene.game.log[-1].action
    body = action.get("move") or action.get("run")
    assert "path" in body and len(body["path"]) == 3
    u = scene.state.units["red-captain"]
    assert u.used == pytest.approx(6.0, abs=0.1)


def test_ruler_measures_edge_to_edge_and_stays(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    key(app, "ruler")
    assert scene.ruler_tool.on
    a, b = px(scene, 4, 4), px(scene, 20, 21)
    down(app, a)
    motion(app, b)
    up(app, b)
    assert scene.ruler_tool.ruler is not None and not scene.ruler_tool.ruler.dragging
    assert (scene.ruler_tool.ruler.a.label, scene.ruler_tool.ruler.b.label) == ("red-captain", "blue-ogre")
    dist, dz = scene.ruler_tool.reading(scene.ruler_tool.ruler)
    st = scene.state
    expected = math.hypot(16, 17) - st.units["red-captain"].r - st.units["blue-ogre"].r
    assert dist == pytest.approx(expected, abs=1e-6)
    assert dz == 0
    app.frame(0.016, flip=False)
    assert scene.ruler_tool.ruler is not None  # stays until dismissed
    key(app, "cancel")
    assert scene.ruler_tool.ruler is None
    assert scene.state.units["red-captain"].pos == (4, 4)  # measuring never moves anything


def test_ruler_height_difference_to_a_roof(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    key(app, "ruler")
    a, b = px(scene, 9, 16), px(scene, 4, 16)  # ground to the 3" tower top
    down(app, a)
    up(app, b)
    dist, dz = scene.ruler_tool.reading(scene.ruler_tool.ruler)
    assert dz == pytest.approx(3.0)
    assert dist == pytest.approx(math.hypot(scene.camera.to_in(*b)[0] - scene.camera.to_in(*a)[0], 3.0), abs=0.01)


def test_space_ends_the_phase_and_hand_over_follows(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    assert scene.state.phase == "move"
    key(app, "end_step")
    assert scene.state.phase == "shoot"
    key(app, "end_step")
    key(app, "end_step")  # melee -> player 2's turn
    assert scene.state.player == 2
    from game.ui.scenes.overlays import HandoverScene

    assert isinstance(app.top, HandoverScene)
    assert app.top.title == "Player 2: your turn"
    key(app, "end_step")  # Space on the hand-over screen: ready
    assert app.top is scene


def test_undo_and_redo_keys(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (4, 4), (8, 4))
    up(app, end)
    moved = scene.state.units["red-captain"].pos
    assert moved != (4, 4)
    key(app, "undo")
    assert scene.state.units["red-captain"].pos == (4, 4)
    key(app, "redo")
    assert scene.state.units["red-captain"].pos == moved


def test_ctrl_z_is_bound_to_undo():
    ev = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)
    assert keymap.PLAY.command_for(ev) == "undo"
    ev = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_z, mod=0, unicode="z", scancode=0)
    assert keymap.PLAY.command_for(ev) != "undo"


def test_wheel_zooms_about_the_cursor_and_f_fits(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    p = px(scene, 6, 9)
    motion(app, p, buttons=(0, 0, 0))
    before = scene.camera.scale
    app.dispatch(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=2, flipped=False))
    assert scene.camera.scale > before
    x, y = scene.camera.to_in(*p)
    assert (x, y) == (pytest.approx(6, abs=0.05), pytest.approx(9, abs=0.05))
    key(app, "fit")
    assert scene.camera.scale == pytest.approx(before)


def test_right_drag_pans_and_right_click_opens_the_unit_menu(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    off = scene.camera.offset
    down(app, (300, 300), button=3)
    motion(app, (340, 320), buttons=(0, 0, 1))
    up(app, (340, 320), button=3)
    assert scene.camera.offset == (off[0] + 40, off[1] + 20)
    assert not app.dialogs
    p = px(scene, 4, 4)
    down(app, p, button=3)
    up(app, p, button=3)
    assert app.dialogs and app.dialogs[-1].items
    labels = [label for label, _ in app.dialogs[-1].items]
    assert "Set status..." in labels and "Incapacitate..." in labels and "Engage..." in labels


def test_context_menu_sets_status_through_an_action(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    scene.menus.open_menu("red-captain", (100, 100))
    menu = app.dialogs[-1]
    sub = dict(menu.items)["Set status..."]
    menu.choose(sub)
    submenu = app.dialogs[-1]
    assert submenu is not menu
    value = dict(submenu.items)["staggered"]
    submenu.choose(value)
    # set_status is a manual-phase action: refused in the move phase, with its rule.
    assert scene.state.units["red-captain"].status == "normal"
    assert scene.refusal is not None
    key(app, "end_step")  # to the shoot phase (manual)
    scene.menus.open_menu("red-captain", (100, 100))
    app.dialogs[-1].choose(dict(app.dialogs[-1].items)["Set status..."])
    app.dialogs[-1].choose(dict(app.dialogs[-1].items)["staggered"])
    assert scene.state.units["red-captain"].status == "staggered"


def test_help_overlay_lists_every_key(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    key(app, "help")
    from game.ui.scenes.overlays import HelpScene

    assert isinstance(app.top, HelpScene)
    labels = {label for keys, _ in app.top.rows for label in keys.split(" / ")}
    for b in keymap.PLAY.keys:
        assert b.label in labels
    app.frame(0.016, flip=False)
    # the help covers the table's buttons, the banner's End button too (drawn each frame)
    end = scene.sidebar.end_button
    assert end is not None and not end.visible
    app.frame(0.016, flip=False)
    assert not end.visible
    key(app, "help")
    assert app.top is scene
    app.frame(0.016, flip=False)
    assert end.visible


def test_pick_up_dialog_and_clicking_the_token(tmp_path, datadir):
    text = UI_SCENARIO.replace("state: {turn: 1, player: 1, phase: move}", "state: {turn: 2, player: 1, phase: upkeep}")
    app, scene = make_scene(tmp_path, text)
    assert scene.game.pending and scene.game.pending.kind == "pick_up"
    app.frame(0.016, flip=False)
    dlg = app.modal
    assert dlg is not None
    labels = [label for label in dlg.buttons.values()]
    assert {"pick_up": {"unit": "red-second", "token": "t1"}} in labels
    dlg.choose({"pick_up": {"unit": "red-second", "token": "t1"}})
    assert scene.state.units["red-second"].carrying == "t1"
    # The same by clicking the token: undo, close the new dialog, click.
    key(app, "undo")
    assert scene.state.units["red-second"].carrying is None
    app.frame(0.016, flip=False)
    app.close_dialogs()
    down(app, px(scene, 12, 3))
    assert scene.state.units["red-second"].carrying == "t1"


def test_autosave_after_every_action_and_resume(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (4, 4), (8, 4))
    up(app, end)
    userdata.flush_autosave()  # written off the frame by a worker thread
    path = userdata.autosave_path()
    assert os.path.exists(path) and str(datadir) in path
    pos = scene.state.units["red-captain"].pos
    app2 = App((1280, 800))
    scene2 = start(app2, str(tmp_path / "table.yaml"), resume=True)
    assert scene2.state.units["red-captain"].pos == (pytest.approx(pos[0]), pytest.approx(pos[1]))
    assert scene2.state.hash() == scene.state.hash()


def test_start_offers_to_resume_the_autosave(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    up(app, drag(app, scene, (4, 4), (8, 4)))
    app2 = App((1280, 800))
    scene2 = start(app2, str(tmp_path / "table.yaml"), resume=False)
    dlg = app2.modal
    assert dlg is not None and "resume" in dlg.buttons.values()
    dlg.choose("resume")
    assert scene2.state.hash() == scene.state.hash()


def test_save_and_load_round_trip(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    up(app, drag(app, scene, (4, 4), (8, 4)))
    out = str(tmp_path / "mygame.yaml")
    assert scene.files.save_to(out)
    h = scene.state.hash()
    key(app, "undo")
    assert scene.state.hash() != h
    assert scene.files.load_from(out)
    assert scene.state.hash() == h


def test_an_exception_in_a_handler_is_logged_and_the_game_goes_on(tmp_path, datadir, monkeypatch):
    app, scene = make_scene(tmp_path)

    def boom(*a, **k):
        raise RuntimeError("deliberate test failure")

    monkeypatch.setattr(scene, "fit", boom)
    key(app, "fit")
    assert any("deliberate test failure" in e for e in app.errors)
    log = open(userdata.crashlog_path()).read()
    assert "deliberate test failure" in log and "Traceback" in log
    assert app.modal is not None  # shown in a dialog
    app.close_dialogs()
    up(app, drag(app, scene, (4, 4), (8, 4)))
    assert scene.state.units["red-captain"].pos != (4, 4)


def test_physical_dice_ask_for_each_result(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    asked = []

    def answer(low, high, reason):
        asked.append((low, high, reason))
        return 17

    app.number_source = answer
    key(app, "dice_mode")
    assert app.settings["dice"] == "physical"
    assert scene.act({"roll": {"sides": 20, "count": 1, "reason": "test roll"}})
    assert asked and asked[0][:2] == (1, 20)
    assert scene.game.dice.log[-1].kept == 17


def test_pixels_unit_colour_reach_tint_and_difficult_hatching(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    app.frame(0.016, flip=False)
    surf = app.screen
    u = scene.state.units["red-captain"]
    cx, cy = scene.camera.to_px(u.x, u.y)
    r = u.r * scene.camera.scale
    colour = scene.painter.warband_colour("red")
    assert tuple(surf.get_at((int(cx), int(cy + r * 0.62))))[:3] == colour
    # Difficult ground: both the fill and the hatch colour appear inside it.
    from game.ui import theme

    seen = set()
    for i in range(40):
        x, y = scene.camera.to_px(15 + i * 0.1, 11 + i * 0.1)
        seen.add(tuple(surf.get_at((int(x), int(y))))[:3])
    assert theme.DIFFICULT_FILL in seen and theme.DIFFICULT_HATCH in seen
    # Selecting a unit tints the ground it can walk to green.
    probe = px(scene, 4.5, 7.5)  # off the grid lines
    before = tuple(surf.get_at(probe))[:3]
    down(app, px(scene, 4, 4))
    up(app, px(scene, 4, 4))
    app.frame(0.016, flip=False)
    after = tuple(app.screen.get_at(probe))[:3]
    assert after[1] - after[0] > before[1] - before[0] + 10  # greener


def test_h_turns_the_hand_over_screen_off_for_solo_play(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    key(app, "handover")  # off
    assert app.settings["handover"] is False
    for _ in range(3):
        key(app, "end_step")  # move -> shoot -> melee -> player 2's turn
    assert scene.state.player == 2
    assert app.top is scene  # no hand-over screen in between
    key(app, "handover")  # back on
    assert app.settings["handover"] is True
