"""The one app shell: the editor and the table are scenes of the same App.

Editor -> Ctrl+P -> play -> back keeps the document, selection, undo history and camera;
Enter confirms and Esc cancels in every dialog (play and editor); the F1 help of both
screens is built from their keymaps, one line per command. Real pygame events are fed
to the app under the dummy video driver.
"""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pygame_gui  # noqa: E402
import pytest  # noqa: E402

from game.editor.app import ask_new_map, open_editor  # noqa: E402
from game.editor.document import Document  # noqa: E402
from game.editor.driver import Driver  # noqa: E402
from game.editor.scene import EditorScene  # noqa: E402
from game.ui import userdata  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.launch import start  # noqa: E402
from game.ui.keymap import DIALOG, EDITOR, PLAY  # noqa: E402
from game.ui.scenes.overlays import HelpScene  # noqa: E402
from game.ui.scenes.play import PlayScene  # noqa: E402
from game.ui.widgets.dialogs import (
    ChoiceDialog,
    ContextMenu,
    FileDialog,
    MessageDialog,
    NumberPrompt,  # noqa: E402
    SizePrompt,
    TextPrompt,
)
from tests.factories import UI_SCENARIO, make_scene  # noqa: E402

K = pygame


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def key(app: App, k: int, mod: int = 0) -> None:
    app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode="", scancode=0))


def enter(app: App) -> None:
    key(app, K.K_RETURN)


def esc(app: App) -> None:
    key(app, K.K_ESCAPE)


def editor_on(tmp_path, text: str = UI_SCENARIO) -> Driver:
    path = tmp_path / "table.yaml"
    path.write_text(text)
    app = App((1280, 800))
    open_editor(app, Document.open(str(path)))
    return Driver(app)


# --- editor -> Ctrl+P -> play -> back ---------------------------------------------------------
def _editor_snapshot(scene: EditorScene) -> tuple:
    cam = scene.camera
    return (scene.doc.to_text(), len(scene.doc.history.done), list(scene.selection), cam.scale, cam.offset, scene.tool)


def test_ctrl_p_plays_in_the_same_window_and_back_gives_the_editor_as_it_was(tmp_path):
    d = editor_on(tmp_path)
    editor = d.scene
    app = d.app
    d.key(K.K_b)
    d.drag((14, 2), (18, 6))  # a block: one undo step
    d.ctrl(K.K_s)
    d.frame(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1, flipped=False))  # zoom: the camera moves
    d.key(K.K_v)
    d.click(16, 4)
    assert editor.selection == [("terrain", "block-1")]
    before = _editor_snapshot(editor)
    fields = list(editor.properties.elements)
    assert fields and all(e.visible for e in fields)

    d.ctrl(K.K_p)
    play = app.top
    assert isinstance(play, PlayScene) and play.below is editor
    assert app.scenes == [editor, play]
    assert not any(e.visible for e in fields), "the editor's fields are hidden under the game"
    assert "block-1" in {t.id for t in play.scenario.terrain}  # the game is on the edited map
    app.dispatch(PLAY.key_event("end_step"))  # play a little: move -> shoot
    assert play.state.phase == "shoot" and play.game.log

    app.dispatch(PLAY.key_event("back_to_editor"))
    assert app.scenes == [editor]
    assert _editor_snapshot(editor) == before
    assert not any(e.alive() for e in play.elements), "the game's buttons are gone"
    d.frame()
    assert all(e.visible for e in editor.properties.elements)
    d.ctrl(K.K_z)  # the undo history still works
    assert [t.id for t in editor.doc.sc.terrain if t.id == "block-1"] == []
    assert app.errors == []


def test_esc_in_a_game_from_the_editor_asks_then_goes_back(tmp_path):
    d = editor_on(tmp_path)
    editor, app = d.scene, d.app
    d.ctrl(K.K_p)
    play = app.top
    assert isinstance(play, PlayScene)
    play.selected = "red-captain"
    esc(app)  # first Esc: deselect
    assert play.selected is None and app.top is play and app.modal is None
    esc(app)  # nothing left to cancel: "go back?"
    dlg = app.modal
    assert isinstance(dlg, ChoiceDialog) and dlg.default is True
    esc(app)  # Esc cancels the question: still playing
    assert app.top is play and app.modal is None
    esc(app)
    enter(app)  # Enter confirms: back to the editor
    assert app.scenes == [editor] and app.modal is None


def test_play_from_the_editor_is_refused_while_the_map_has_problems(tmp_path):
    d = editor_on(tmp_path)
    doc = d.scene.doc
    doc.move([("unit", "red-second")], -7, 1)  # onto red-captain: overlapping bases, a problem
    d.frame()
    assert doc.validate()
    d.ctrl(K.K_p)
    assert d.app.top is d.scene and d.scene.message.startswith("cannot play")


def test_back_in_a_game_not_started_from_the_editor_does_nothing(tmp_path):
    app, scene = make_scene(tmp_path)
    assert scene.below is None
    app.dispatch(PLAY.key_event("back_to_editor"))
    assert app.top is scene and app.running
    esc(app)  # nothing to cancel and no editor: nothing happens
    assert app.modal is None and app.top is scene


def test_closing_the_window_with_unsaved_changes_asks_once(tmp_path):
    d = editor_on(tmp_path)
    d.key(K.K_b)
    d.drag((14, 2), (18, 6))
    assert d.scene.doc.dirty
    d.app.dispatch(pygame.event.Event(pygame.QUIT))
    assert d.app.running and "unsaved changes" in d.scene.message
    d.app.dispatch(pygame.event.Event(pygame.QUIT))
    assert not d.app.running


def test_every_command_of_the_keymaps_has_a_handler(tmp_path):
    d = editor_on(tmp_path)
    assert set(EDITOR.commands()) <= set(d.scene.commands)
    app, scene = make_scene(tmp_path)
    assert set(PLAY.commands()) <= set(scene.commands)


# --- Enter and Esc in every dialog -------------------------------------------------------------
def test_choice_dialog_enter_presses_the_default_and_esc_cancels(tmp_path):
    app = App((1280, 800))
    got = []
    app.open_dialog(ChoiceDialog(app.ui, "Q", "which?", [("One", 1), ("Two", 2)], got.append))
    enter(app)
    assert got == [1] and app.modal is None
    app.open_dialog(ChoiceDialog(app.ui, "Q", "which?", [("One", 1), ("Two", 2)], got.append, default=2))
    enter(app)
    assert got == [1, 2]
    app.open_dialog(ChoiceDialog(app.ui, "Q", "which?", [("One", 1), ("Two", 2)], got.append))
    esc(app)
    assert got == [1, 2, None] and app.modal is None  # closable: answered "no choice"
    app.open_dialog(MessageDialog(app.ui, "Note", "hello"))
    enter(app)
    assert app.modal is None


def test_resume_offer_enter_resumes_and_esc_starts_afresh(tmp_path):
    app, scene = make_scene(tmp_path)
    assert scene.act({"end_phase": {}})
    userdata.flush_autosave()
    table = str(tmp_path / "table.yaml")
    app2 = App((1280, 800))
    resumed = start(app2, table)
    assert isinstance(app2.modal, ChoiceDialog) and not app2.modal.closable
    enter(app2)
    assert app2.modal is None and resumed.state.phase == "shoot"
    app3 = App((1280, 800))
    fresh = start(app3, table)
    esc(app3)
    assert app3.modal is None and fresh.state.phase == "move" and fresh.game.log == []


def test_text_prompt_enter_answers_esc_and_cancel_give_nothing():
    app = App((1280, 800))
    got = []
    app.open_dialog(TextPrompt(app.ui, "Why", "reason?", "because", got.append, [("d6", (6, 1)), ("d20", (20, 1))]))
    enter(app)
    assert got == [("because", (6, 1))]
    dlg = app.open_dialog(TextPrompt(app.ui, "Why", "reason?", "x", got.append))
    esc(app)
    assert got[-1] is None and dlg.done
    dlg = app.open_dialog(TextPrompt(app.ui, "Save", "to", "x", got.append, [("Save", "save"), ("Cancel", None)]))
    got.clear()
    cancel = next(b for b, v in dlg.buttons.items() if v is None)
    app.dispatch(pygame.event.Event(pygame_gui.UI_BUTTON_PRESSED, ui_element=cancel))  # the Cancel button
    assert got == [None] and dlg.done


def test_number_prompt_enter_accepts_and_esc_lets_the_table_roll():
    app = App((1280, 800))
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="4"))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=K.K_RETURN, mod=0, unicode="\r", scancode=0))
    assert app.ask_number("Roll a d6", "type it", 1, 6) == 4
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=K.K_ESCAPE, mod=0, unicode="", scancode=0))
    assert 1 <= app.ask_number("Roll a d6", "type it", 1, 6) <= 6
    assert app.modal is None
    dlg = app.open_dialog(NumberPrompt(app.ui, "d6", "?", 1, 6, lambda v: None))
    dlg.entry.set_text("7")
    enter(app)  # out of range: refused, still open
    assert not dlg.done and "1-6" in dlg.error.html_text


def test_size_prompt_enter_creates_the_map_and_esc_closes_the_editor(tmp_path):
    app = App((1280, 800))
    ask_new_map(app, str(tmp_path / "new.yaml"))
    assert isinstance(app.modal, SizePrompt)
    enter(app)  # the preset size
    editor = app.top
    assert isinstance(editor, EditorScene) and (editor.doc.sc.width, editor.doc.sc.height) == (36, 36)
    app2 = App((1280, 800))
    ask_new_map(app2, None)
    esc(app2)
    assert app2.modal is None and not app2.running and app2.scenes == []


def test_play_dialogs_enter_and_esc(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    app.dispatch(PLAY.key_event("save"))
    assert isinstance(app.modal, TextPrompt)
    esc(app)
    saves = datadir / "saves"
    assert app.modal is None and list(saves.iterdir()) == []
    app.dispatch(PLAY.key_event("save"))
    enter(app)  # the proposed file name
    assert app.modal is None and len(list(saves.iterdir())) == 1
    app.dispatch(PLAY.key_event("load"))
    assert isinstance(app.modal, FileDialog)
    assert scene.act({"end_phase": {}})
    enter(app)  # the newest save (typed path starts as it)
    assert app.modal is None and scene.state.phase == "move"
    app.dispatch(PLAY.key_event("roll"))
    enter(app)  # d6 for "dice tray"
    assert scene.game.log[-1].action["roll"]["sides"] == 6
    scene.menus.open_menu("red-captain", (100, 100))
    assert isinstance(app.dialogs[-1], ContextMenu)
    esc(app)
    assert not app.dialogs


def test_decision_dialog_enter_plays_on_and_esc_leaves_it_open(tmp_path):
    text = UI_SCENARIO.replace(
        "state: {turn: 1, player: 1, phase: move}", "state: {turn: 1, player: 1, phase: melee, lost: {red: 0, blue: 6}}"
    )
    app, scene = make_scene(tmp_path, text, typed=[1, 1])
    app.settings["handover"] = False
    app.dispatch(PLAY.key_event("end_step"))  # Blue's upkeep: the Rout Check passes
    app.frame(0.016, flip=False)
    assert scene.game.pending.kind == "voluntary_rout"
    assert isinstance(app.modal, ChoiceDialog)
    esc(app)  # closes the box, the decision stays open
    assert app.modal is None and scene.game.pending.kind == "voluntary_rout"
    scene.command("undo")
    app.dispatch(PLAY.key_event("end_step"))
    app.frame(0.016, flip=False)
    enter(app)  # the highlighted answer: play on
    assert scene.game.pending is None and scene.game.log[-1].action == {"play_on": {"player": 2}}


def test_editor_dialogs_enter_and_esc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = App((1280, 800))
    open_editor(app, Document.new(24, 24))
    d = Driver(app)
    d.ctrl(K.K_s)  # no file yet: save as
    assert isinstance(app.modal, TextPrompt)
    esc(app)
    assert app.modal is None and not (tmp_path / "maps").exists()
    d.ctrl(K.K_o)
    dlg = app.modal
    assert isinstance(dlg, FileDialog) and dlg.entry.get_text().endswith("grave-reavers.yaml")
    enter(app)  # the first roster
    assert [w.id for w in d.scene.doc.sc.warbands] == ["reavers"]
    d.ctrl(K.K_o)
    esc(app)
    assert app.modal is None and len(d.scene.doc.sc.warbands) == 1


def test_dialog_keymap_is_enter_and_esc():
    assert DIALOG.command_for(pygame.event.Event(pygame.KEYDOWN, key=K.K_RETURN, mod=0)) == "confirm"
    assert DIALOG.command_for(pygame.event.Event(pygame.KEYDOWN, key=K.K_KP_ENTER, mod=0)) == "confirm"
    assert DIALOG.command_for(pygame.event.Event(pygame.KEYDOWN, key=K.K_ESCAPE, mod=0)) == "cancel"


# --- help from the keymap --------------------------------------------------------------------
def _help_of(app: App) -> HelpScene:
    assert isinstance(app.top, HelpScene)
    return app.top


def test_editor_help_is_built_from_its_keymap_one_line_per_command(tmp_path):
    d = editor_on(tmp_path)
    d.key(K.K_F1)
    rows = _help_of(d.app).rows
    assert rows == EDITOR.help_rows()
    texts = [what for _, what in rows]
    assert len(texts) == len(set(texts)), "a line is listed twice"
    assert texts.count("Finish a polygon") == 1
    assert ("Enter / Keypad Enter", "Finish a polygon") in rows
    listed = {label for keys, _ in rows for label in keys.split(" / ")}
    assert {b.label for b in EDITOR.keys} <= listed  # every key is on screen
    assert len(rows) == len(EDITOR.commands()) + len(EDITOR.mouse)
    d.frame()  # it draws
    d.key(K.K_ESCAPE)
    assert d.app.top is d.scene


def test_play_help_is_built_from_its_keymap_one_line_per_command(tmp_path):
    app, scene = make_scene(tmp_path)
    app.dispatch(PLAY.key_event("help"))
    rows = _help_of(app).rows
    assert rows == PLAY.help_rows()
    texts = [what for _, what in rows]
    assert len(texts) == len(set(texts))
    assert ("Ctrl+Y / Ctrl+Shift+Z", "Redo") in rows


def test_the_window_prepares_the_maps_path_structures_after_the_first_frame(tmp_path):
    """The first unit selected does not pay for building the path structures: the
    thread started after the first frame builds them with the movement engine."""
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.scenario import load_scenario
    from game.ui.launch import open_play

    path = tmp_path / "table.yaml"
    path.write_text(UI_SCENARIO)
    app = App((1280, 800))
    game = Game(load_scenario(str(path)), dice=Dice(seed=7))
    scene = open_play(app, game, str(path))
    assert not scene.engine.prepared and (game._mover is None or game._mover._nav is None)
    app.frame(0.016, flip=False)
    scene.engine.ready()
    assert game.mover._nav is not None
    app.close()


def test_closing_the_app_lets_the_engine_threads_finish_first(tmp_path):
    """A thread still inside the engine when the interpreter exits crashes it (segfault)."""
    app, scene = make_scene(tmp_path)
    app.frame(0.016, flip=False)  # the first frame starts preparing the movement engine
    assert scene.engine.prepared
    up_to = scene.camera.to_px(4, 7)
    from tests.factories import drag

    drag(app, scene, (4, 4), scene.camera.to_in(*up_to))  # the planner thread runs too
    threads = [scene.engine._thread, scene.drag_tool.planner.thread]
    app.close()
    assert app.scenes == [] and all(t is not None and not t.is_alive() for t in threads)
