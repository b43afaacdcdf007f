"""More table-window tests: reveals, resizing, drawing leaves the state alone, the log,
the keymap and the user-data plumbing (atomic writes, settings, crash log)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.ui import keymap, userdata  # noqa: E402
from game.ui.scenes.play.words import build_log  # noqa: E402
from tests.factories import menu_pick  # noqa: E402
from tests.factories import UI_SCENARIO, down, drag, key, make_scene, px, up  # noqa: E402,F401


def test_picking_up_a_plague_token_shows_what_it_hid(tmp_path, datadir):
    text = UI_SCENARIO.replace("{id: t1, at: [12, 3], event: none}", "{id: t1, at: [12, 3], event: plague}")
    text = text.replace("state: {turn: 1, player: 1, phase: move}", "state: {turn: 2, player: 1, phase: upkeep}")
    app, scene = make_scene(tmp_path, text)
    app.frame(0.016, flip=False)
    app.close_dialogs()  # the pick-up dialog: take the token by clicking it instead
    down(app, px(scene, 12, 3))
    assert scene.state.treasure["t1"].revealed
    app.frame(0.016, flip=False)
    dlg = app.modal
    assert dlg is not None
    assert "Plague" in dlg.root.window_display_title


def test_hidden_event_tokens_look_plain_until_revealed(tmp_path, datadir):
    text = UI_SCENARIO.replace("{id: t1, at: [12, 3], event: none}", "{id: t1, at: [12, 3], event: event}")
    app, scene = make_scene(tmp_path, text)
    app.frame(0.016, flip=False)
    from game.ui import theme

    x, y = px(scene, 12, 3)
    r = scene.state.treasure["t1"].r * scene.camera.scale
    colour = tuple(app.screen.get_at((x, int(y + r * 0.85))))[:3]
    assert colour != theme.TOKEN_EVENT
    assert colour == theme.TOKEN_GOLD or sum(abs(a - b) for a, b in zip(colour, theme.TOKEN_GOLD)) < 60


def test_resizing_the_window_keeps_the_table_in_view(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    app.dispatch(pygame.event.Event(pygame.VIDEORESIZE, w=1000, h=700, size=(1000, 700)))
    app.frame(0.016, flip=False)
    assert app.size == (1000, 700)
    v = scene.view_rect
    x0, y0 = scene.camera.to_px(0, 0)
    x1, y1 = scene.camera.to_px(scene.scenario.width, scene.scenario.height)
    assert v.left <= x0 < x1 <= v.right and v.top <= y0 < y1 <= v.bottom
    assert scene.sidebar.end_button.get_abs_rect().right <= 1000
    # Still playable after the resize.
    up(app, drag(app, scene, (4, 4), (7, 4)))
    assert scene.state.units["red-captain"].x == pytest.approx(7, abs=0.1)


def test_drawing_never_changes_the_game_state(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    scene.selected = "red-captain"
    app.settings.update({"rings": True, "reach": True, "trails": True})
    h = scene.state.hash()
    drag(app, scene, (4, 4), (8, 8))  # a drag in progress: previews are planned, nothing moves
    for _ in range(5):
        app.frame(0.016, flip=False)
    key(app, "help")
    app.frame(0.016, flip=False)
    assert scene.state.hash() == h
    assert scene.game.log == []


def test_log_panel_shows_actions_rolls_and_automatic_steps(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    assert scene.act({"roll": {"sides": 6, "count": 2, "reason": "why not"}})
    key(app, "end_step")
    key(app, "end_step")
    key(app, "end_step")  # player 2's turn: automatic upkeep steps
    lines = build_log(scene)
    kinds = {k for _, k in lines}
    assert {"action", "roll", "auto"} <= kinds
    assert any("U2" in t for t, _ in lines) and any("why not" in t for t, _ in lines)
    assert any(t.startswith("P1 roll") for t, _ in lines)


@pytest.mark.parametrize("keys", [keymap.PLAY, keymap.EDITOR, keymap.DIALOG], ids=lambda k: k.name)
def test_keymap_commands_are_unique_per_key_and_all_handled(keys):
    seen = {}
    for b in keys.keys:
        assert (b.key, b.mods) not in seen, f"{b.label} bound twice"
        seen[(b.key, b.mods)] = b.command
        ev = keys.key_event(b.command)
        assert keys.command_for(ev) == b.command
        assert keys.bindings(b.command)[0].help, f"{b.command} has no help text"
    rows = keys.help_rows()
    assert len(rows) == len(set(seen.values())) + len(keys.mouse)


def test_userdata_atomic_write_settings_and_crash_log(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEEDHEIM_DATA_DIR", str(tmp_path / "d"))
    path = str(tmp_path / "d" / "x.txt")
    userdata.atomic_write_text(path, "one")
    userdata.atomic_write_text(path, "two")
    assert open(path).read() == "two"
    assert [f for f in os.listdir(tmp_path / "d") if f.startswith(".tmp-")] == []
    s = userdata.load_settings()
    assert s["dice"] == "auto"
    s["dice"] = "physical"
    userdata.save_settings(s)
    assert userdata.load_settings()["dice"] == "physical"
    (tmp_path / "d" / "settings.json").write_text("{not json")
    assert userdata.load_settings()["dice"] == "auto"  # a broken settings file is ignored
    try:
        raise ValueError("oops")
    except ValueError as exc:
        log = userdata.log_exception(exc, "testing")
    text = open(log).read()
    assert "ValueError: oops" in text and "testing" in text


def test_play_cli_rejects_a_bad_scenario_with_file_and_line(tmp_path, datadir, capsys):
    from game.ui.launch import play_cli

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntable: {width: -3, height: 10}\nwarbands: []\n")
    assert play_cli(str(bad)) == 2
    err = capsys.readouterr().err
    assert "bad.yaml:" in err


def test_rout_check_dialog_voluntary_rout_and_winner_screen(tmp_path, datadir):
    # Blue has lost 6: its upkeep makes a Rout Check on the Ogre's Morale 12; a typed 1 passes.
    text = UI_SCENARIO.replace(
        "state: {turn: 1, player: 1, phase: move}", "state: {turn: 1, player: 1, phase: melee, lost: {red: 0, blue: 6}}"
    )
    app, scene = make_scene(tmp_path, text, typed=[1])
    key(app, "end_step")  # melee ends: player 2's turn, upkeep runs, the Rout Check passes
    from game.ui.scenes.overlays import HandoverScene, WinnerScene

    assert isinstance(app.top, HandoverScene)
    key(app, "end_step")
    app.frame(0.016, flip=False)
    assert scene.game.pending.kind == "voluntary_rout"
    dlg = app.modal
    assert dlg is not None and dlg.title.startswith("Rout check passed")
    assert "Rout Check" in dlg.message and "pass" in dlg.message  # the roll and its result
    assert {"rout": {"player": 2}} in list(dlg.buttons.values())
    dlg.choose({"rout": {"player": 2}})
    assert scene.game.winner == "red"
    assert isinstance(app.top, WinnerScene)
    assert any("Turns played: 1" == line for line in app.top.lines)
    assert any(line.startswith("Blues (routed): 6 unit(s) lost") for line in app.top.lines)
    app.top.choose("undo")  # the winner screen's Undo: back to the decision
    assert scene.game.outcome() is None and scene.game.pending.kind == "voluntary_rout"


def test_engage_from_the_context_menu_moves_into_base_contact(tmp_path, datadir):
    text = UI_SCENARIO.replace("at: [20, 21], base_mm: 40", "at: [9, 9], base_mm: 40")
    text = text.replace("state: {turn: 1, player: 1, phase: move}", "state: {turn: 1, player: 1, phase: engage}")
    app, scene = make_scene(tmp_path, text)
    scene.menus.open_menu("red-captain", (200, 200))
    menu_pick(app, "Engage...", "blue-ogre")
    st = scene.state
    ask = app.dialogs[-1]  # the engage path is shown and confirmed first (issue 16)
    assert ask.title == "Engage Ogre (E1)?" and st.units["red-captain"].engaged_with == []
    assert scene.engage_tool.current().kind == "engage"
    ask.choose("go")
    assert "blue-ogre" in st.units["red-captain"].engaged_with
    gap = scene.board.distance(st.units["red-captain"], st.units["blue-ogre"])
    assert gap <= float(scene.rs.contact_tolerance) + 1e-9


def test_unit_card_gives_the_run_denial_reason(tmp_path, datadir):
    text = UI_SCENARIO.replace("at: [20, 21], base_mm: 40", "at: [9, 9], base_mm: 40")
    app, scene = make_scene(tmp_path, text)
    info = scene.unit_info("red-captain")
    assert info["run"] is None
    denied = info["run_denied"]
    assert denied.rule == "M2" and "blue-ogre" in denied.reason
    down(app, px(scene, 4, 4))
    up(app, px(scene, 4, 4))
    app.frame(0.016, flip=False)  # the card draws it (no error)
    assert app.errors == []


def test_a_broken_autosave_does_not_stop_the_table_opening(tmp_path, datadir, capsys):
    from game.ui.app import App
    from game.ui.launch import start

    os.makedirs(userdata.data_dir(), exist_ok=True)
    with open(userdata.autosave_path(), "w") as fh:
        fh.write("speedheim_save: 1\nscenario: [not, a, scenario\n")
    (tmp_path / "table.yaml").write_text(UI_SCENARIO)
    app = App((1280, 800))
    scene = start(app, str(tmp_path / "table.yaml"), resume=True)
    assert scene.state.units["red-captain"].pos == (4, 4)  # a fresh game instead
    assert "cannot resume" in capsys.readouterr().err


def test_dragging_the_other_players_unit_previews_the_refusal(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    end = drag(app, scene, (20, 21), (20, 18))
    p = scene.drag_tool.drag.preview
    assert p.kind is None and p.error.rule == "turn" and "player 2" in p.error.reason
    up(app, end)
    assert scene.state.units["blue-ogre"].pos == (20, 21)
    assert scene.refusal[0] == "turn"


def test_the_wheel_over_the_log_scrolls_it_not_the_table(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    for i in range(30):
        assert scene.act({"roll": {"sides": 6, "reason": f"roll number {i}"}})
    app.frame(0.016, flip=False)
    over_log = scene.sidebar.log_view.rect.center
    app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=over_log, rel=(0, 0), buttons=(0, 0, 0)))
    scale = scene.camera.scale
    app.dispatch(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=2, flipped=False))
    assert scene.sidebar.log_view.scroll > 0
    assert scene.camera.scale == scale


def test_physical_then_automatic_dice_still_save_and_load_exactly(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    app.number_source = lambda low, high, reason: 2
    key(app, "dice_mode")  # physical
    assert scene.act({"roll": {"sides": 20, "reason": "typed"}})
    key(app, "dice_mode")  # back to roll for me
    assert scene.act({"roll": {"sides": 20, "reason": "rolled"}})
    out = str(tmp_path / "mixed.yaml")
    assert scene.files.save_to(out)
    values = [r.kept for r in scene.game.dice.log]
    from game.engine.saves import load_game

    again = load_game(out)
    assert [r.kept for r in again.dice.log] == values
    assert again.state.hash() == scene.state.hash()


def test_picking_up_an_event_token_reveals_it_and_brings_neutrals(tmp_path, datadir):
    text = UI_SCENARIO.replace("{id: t1, at: [12, 3], event: none}", "{id: t1, at: [12, 3], event: event}")
    text = text.replace("state: {turn: 1, player: 1, phase: move}", "state: {turn: 2, player: 1, phase: upkeep}")
    app, scene = make_scene(tmp_path, text)
    app.frame(0.016, flip=False)
    app.close_dialogs()
    units_before = set(scene.state.units)
    down(app, px(scene, 12, 3))
    st = scene.state
    assert st.treasure["t1"].revealed and st.treasure["t1"].carried_by == "red-second"
    assert st.event_triggered_by == 1
    neutrals = [u for uid, u in st.units.items() if uid not in units_before]
    assert neutrals and all(u.warband == scene.game.neutral_id for u in neutrals)
    app.frame(0.016, flip=False)
    assert app.modal is not None and "Event" in app.modal.root.window_display_title
    assert any(r.rule == "U7" for r in scene.game.dice.log)


def test_post_rout_grab_asks_the_winner_which_unit_tries(tmp_path, datadir):
    # Two red units within 5" of t1 when Blue routs: Red chooses which one takes it (U4).
    text = UI_SCENARIO.replace("at: [4, 4], base_mm: 25", "at: [8, 4], base_mm: 25")
    text = text.replace(
        "state: {turn: 1, player: 1, phase: move}", "state: {turn: 1, player: 1, phase: melee, lost: {red: 0, blue: 6}}"
    )
    app, scene = make_scene(tmp_path, text, typed=[1])
    key(app, "end_step")  # player 2's upkeep: the Rout Check passes
    key(app, "end_step")  # past the hand-over screen
    app.frame(0.016, flip=False)
    app.modal.choose({"rout": {"player": 2}})  # Blue routs voluntarily
    app.frame(0.016, flip=False)
    pending = scene.game.pending
    assert pending is not None and pending.kind == "grab"
    dlg = app.modal
    choice = {"grab": {"unit": "red-captain", "token": "t1"}}
    assert choice in list(dlg.buttons.values()) and {"grab": {"unit": "red-second", "token": "t1"}} in list(
        dlg.buttons.values()
    )
    dlg.choose(choice)
    st = scene.state
    assert st.treasure["t1"].carried_by == "red-captain"  # the winner alone within 5": no check
    assert scene.game.winner == "red"


def test_log_panel_renders_only_new_entries(tmp_path, datadir):
    from game.ui.widgets.log_view import LogView

    view = LogView(pygame.Rect(0, 0, 300, 200))
    entries = [(f"P1 move red-{i} to [{i}, 3]", "action") for i in range(50)]
    view.set_entries(entries)
    first = list(view._lines)
    view.set_entries(entries + [("d20: 12 - a stated reason", "roll")])
    assert view.lines == len(first) + 1
    assert all(a is b for a, b in zip(first, view._lines))  # earlier lines were not rendered again


def test_the_unit_menu_offers_what_the_engine_allows_with_targets(tmp_path, datadir):
    """Kinds the menu has no item of its own for (attack here) come from legal_actions."""
    text = UI_SCENARIO.replace("at: [20, 21], base_mm: 40", "at: [9, 9], base_mm: 40")
    text = text.replace(
        "state: {turn: 1, player: 1, phase: move}",
        "rules: {combat: placeholder}\nstate: {turn: 1, player: 1, phase: engage}",
    )
    app, scene = make_scene(tmp_path, text)
    assert scene.act({"engage": {"unit": "red-captain", "target": "blue-ogre"}})
    scene.menus.open_menu("red-captain", (200, 200))
    assert "Attack..." not in dict(app.dialogs[-1].items)  # not in the engage phase
    app.close_dialogs()
    while scene.state.phase != "melee":
        assert scene.act({"end_phase": {}})
    scene.menus.open_menu("red-captain", (200, 200))
    menu = app.dialogs[-1]
    menu.choose(dict(menu.items)["Attack..."])
    sub = app.dialogs[-1]
    assert [value for _, value in sub.items] == [{"attack": {"unit": "red-captain", "target": "blue-ogre"}}]
    sub.choose(sub.items[0][1])
    odds = app.dialogs[-1]  # the odds before the roll (issue 10), then the roll on confirming
    assert "Chance to hit" in odds.message and scene.game.log[-1].action == {"end_phase": {}}
    odds.choose("go")
    assert scene.game.log[-1].action == {"attack": {"unit": "red-captain", "target": "blue-ogre"}}
