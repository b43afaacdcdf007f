"""A first map in the editor (issue 45): Tab in the new-map size dialog, a first save that
asks the map's name and offers a file outside the package's bundled maps, Save as, a
ladder's foot on the snap grid, and a selected ladder's properties. Driven through the
editor's driver under the dummy video driver."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402
from pygame_gui.elements import UILabel, UITextEntryLine  # noqa: E402

from game.bundled import maps_dir  # noqa: E402
from game.editor.app import ask_new_map, open_editor  # noqa: E402
from game.editor.document import Document  # noqa: E402
from game.editor.driver import Driver  # noqa: E402
from game.editor.files import default_map_file  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.widgets.dialogs import SizePrompt, TextPrompt  # noqa: E402

K = pygame


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def editor(doc: Document) -> Driver:
    app = App((1280, 800))
    open_editor(app, doc)
    return Driver(app)


def typed(d: Driver, text: str) -> None:
    for ch in text:
        d.frame(pygame.event.Event(pygame.TEXTINPUT, text=ch))


def test_tab_in_the_new_map_dialog_moves_to_the_height(tmp_path):
    app = App((1280, 800))
    ask_new_map(app, str(tmp_path / "fresh.yaml"))
    d = Driver(app)
    prompt = app.modal
    assert isinstance(prompt, SizePrompt) and prompt.width.is_focused
    d.key(K.K_TAB)
    assert prompt.height.is_focused and not prompt.width.is_focused
    for _ in range(3):
        d.key(K.K_BACKSPACE)
    typed(d, "30")
    d.key(K.K_TAB, mod=K.KMOD_LSHIFT)  # and Shift+Tab back to the width
    assert prompt.width.is_focused
    d.key(K.K_RETURN)
    assert d.scene is not None and (d.scene.doc.sc.width, d.scene.doc.sc.height) == (36, 30)


def test_a_new_maps_first_save_asks_its_name_and_offers_a_file_outside_the_bundled_maps(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = editor(Document.new(24, 24))
    d.ctrl(K.K_s)
    prompt = d.app.modal
    assert isinstance(prompt, TextPrompt) and prompt.name is not None
    assert prompt.name.get_text() == "New map" and prompt.name.is_focused
    offered = os.path.abspath(prompt.entry.get_text())
    assert not offered.startswith(os.path.realpath(maps_dir())) and not offered.startswith(os.path.abspath(maps_dir()))
    assert os.path.dirname(offered) == str(tmp_path)
    prompt.name.set_text("")
    typed(d, "Ruined Keep")
    d.key(K.K_TAB)
    assert prompt.entry.is_focused
    d.key(K.K_RETURN)
    saved = tmp_path / "new-map.yaml"
    assert saved.exists() and d.app.modal is None
    assert "name: Ruined Keep" in saved.read_text()
    d.scene.doc.set_name("Ruined Keep")  # (no change) a second Ctrl+S saves without asking
    d.ctrl(K.K_s)
    assert d.app.modal is None and d.scene.message.startswith("saved")
    d.key(K.K_s, mod=K.KMOD_LCTRL | K.KMOD_LSHIFT)  # Save as asks again, for another file
    again = d.app.modal
    assert isinstance(again, TextPrompt) and again.entry.get_text().endswith("new-map-copy.yaml")
    assert again.name.get_text() == "Ruined Keep"


def test_make_edit_file_asks_the_name_then_saves_to_that_file(tmp_path):
    path = tmp_path / "my-raid.yaml"
    d = editor(Document.new(24, 24, path=str(path)))
    d.ctrl(K.K_s)
    prompt = d.app.modal
    assert isinstance(prompt, TextPrompt) and prompt.entry.get_text() == str(path)
    prompt.name.set_text("My Raid")
    d.key(K.K_RETURN)
    assert load_scenario(str(path)).name == "My Raid"
    d.ctrl(K.K_s)
    assert d.app.modal is None  # named and written: Ctrl+S just saves


def test_default_map_file_is_the_name_in_the_current_directory():
    assert default_map_file("Ruined Keep") == "ruined-keep.yaml"
    assert default_map_file("New map") == "new-map.yaml"
    assert default_map_file("!!!") == "new-map.yaml"


def place_ladder(d: Driver) -> str:
    d.key(K.K_b)
    d.drag((10, 10), (14, 14))
    d.key(K.K_l)
    d.click(14.2, 12.2)  # off the grid along the edge
    sel = d.scene.selection
    assert len(sel) == 1 and sel[0][0] == "ladder"
    return sel[0][1]


def test_a_ladder_foot_lands_on_the_snap_grid_and_is_saved_so(tmp_path):
    path = tmp_path / "ladder.yaml"
    d = editor(Document.new(36, 24, name="Ladders", path=str(path)))
    step = d.scene.doc.snap_step
    assert step == 0.5
    lid = place_ladder(d)
    foot = d.scene.doc.ladder(lid).foot
    assert foot == (14.5, 12.0)
    d.ctrl(K.K_s)
    sc = load_scenario(str(path))
    assert [tuple(lad.foot) for lad in sc.ladders] == [(14.5, 12.0)]
    assert "10.01" not in path.read_text() and "12.01" not in path.read_text()


def test_a_ladder_off_the_grid_when_snapping_is_off(tmp_path):
    d = editor(Document.new(36, 24, name="Ladders", path=str(tmp_path / "x.yaml")))
    d.scene.doc.snap_step = None
    lid = place_ladder(d)
    foot = d.scene.doc.ladder(lid).foot
    assert abs(foot[1] - 12.2) < 0.05  # where clicked along the edge


def test_a_selected_ladder_shows_its_properties_and_its_foot_can_be_typed(tmp_path):
    d = editor(Document.new(36, 24, name="Ladders", path=str(tmp_path / "x.yaml")))
    lid = place_ladder(d)
    d.frame()
    els = d.scene.properties.elements
    labels = [e.text for e in els if isinstance(e, UILabel)]
    assert lid in labels and any(s.startswith("block-1") for s in labels)
    entries = [e for e in els if isinstance(e, UITextEntryLine)]
    assert [e.get_text() for e in entries] == ["14.5", "12"]
    d.type_into(entries[1], "13")
    assert d.scene.doc.ladder(lid).foot == (14.5, 13.0)
