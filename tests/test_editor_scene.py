"""The editor window, driven by mouse and key events under the dummy video driver.

The main test builds a small map the way a designer does (two blocks, a ladder, a wall,
difficult ground, two tokens, two warbands deployed), saves it with Ctrl+S, and shows
that ``speedheim check`` passes and ``speedheim replay`` moves a unit on it.
"""

from __future__ import annotations

import json
import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.cli import main  # noqa: E402
from game.editor.app import ask_new_map, open_editor as open_editor_scene  # noqa: E402
from game.editor.document import Document  # noqa: E402
from game.editor.driver import Driver  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.widgets.dialogs import FileDialog, SizePrompt, TextPrompt  # noqa: E402
from tests.factories import field_both_sides  # noqa: E402

K = pygame


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def open_editor(tmp_path, w=36, h=24) -> Driver:
    path = str(tmp_path / "built.yaml")
    app = App((1280, 800))
    open_editor_scene(app, Document.new(w, h, path=path))
    return Driver(app)


def load_roster_by_mouse(d: Driver, filename: str) -> None:
    d.ctrl(K.K_o)
    dlg = d.app.modal
    assert isinstance(dlg, FileDialog)
    buttons = [b for b in dlg.buttons if b.text == filename]
    assert buttons, f"the roster chooser lists {filename}"
    d.click_ui(buttons[0])


def build_small_map(d: Driver) -> None:
    s = d.scene
    d.key(K.K_b)  # rectangle tool, blocks by default
    d.drag((10, 10), (14, 14))
    d.drag((20, 4), (24, 8))
    d.key(K.K_l)
    d.click(14.2, 12)  # the east edge of block-1
    d.key(K.K_w)
    d.drag((5, 18), (12, 18))
    d.key(K.K_3)  # difficult ground
    d.key(K.K_b)
    d.drag((26, 14), (30, 18))
    d.key(K.K_t)
    d.click(18, 12)
    d.key(K.K_e)  # the selected token now hides an Event
    d.click(8, 6)
    load_roster_by_mouse(d, "grave-reavers.yaml")
    load_roster_by_mouse(d, "iron-wardens.yaml")
    d.key(K.K_z)
    assert s.warband == "wardens"
    for p in ((0, 21), (36, 21), (36, 24), (0, 24)):
        d.click(*p)
    d.key(K.K_RETURN)
    d.key(K.K_TAB)
    assert s.warband == "reavers"
    for p in ((0, 0), (36, 0), (36, 3), (0, 3)):
        d.click(*p)
    d.click(0, 3, button=3)  # right click closes the polygon
    d.key(K.K_u)
    d.click(3, 1.5)
    d.click(3, 1.5)  # on top of the first: slides into contact
    d.key(K.K_TAB)
    d.click(5, 22.5)
    d.click(9, 22.5)


def test_build_a_map_with_mouse_and_keys_save_check_and_replay(tmp_path, capsys):
    d = open_editor(tmp_path)
    build_small_map(d)
    doc = d.scene.doc
    sc = doc.sc
    kinds = sorted(t.kind for t in sc.terrain)
    assert kinds == ["block", "block", "difficult", "wall"]
    assert [(ladder.top, ladder.foot) for ladder in sc.ladders] == [("block-1", (14.5, 12.0))]
    assert sorted(t.event for t in sc.state.treasure.values()) == ["event", "none"]
    assert set(sc.deployment) == {"reavers", "wardens"}
    by_band = {w.id: [u.id for u in sc.state.units.values() if u.warband == w.id] for w in sc.warbands}
    assert len(by_band["reavers"]) == 2 and len(by_band["wardens"]) == 2
    assert doc.validate() == [], [str(f) for f in doc.validate()]
    d.ctrl(K.K_s)  # a new map's first save asks its name (and the file, the one given)
    prompt = d.app.modal
    assert isinstance(prompt, TextPrompt) and prompt.name.get_text() == "New map"
    prompt.name.set_text("Small keep")
    d.key(K.K_RETURN)
    assert d.scene.message.startswith("saved") and not doc.dirty and doc.sc.name == "Small keep"
    capsys.readouterr()
    assert main(["check", doc.path]) == 0
    assert "ok (scenario)" in capsys.readouterr().out

    # speedheim replay moves a unit on the saved map.
    mover = by_band["reavers"][0]
    start = sc.state.units[mover].pos
    acts = tmp_path / "acts.yaml"
    ends = []
    for _ in range(len(sc.ruleset.phase_names)):  # end phases until the move phase comes
        acts.write_text("seed: 1\nactions:\n" + "".join("  - end_phase: {}\n" for _ in ends))
        assert main(["replay", doc.path, str(acts), "--json"]) == 0
        lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        if lines[-1]["final"]["phase"] == "move":
            break
        ends.append(1)
    target = [start[0] + 3, start[1] + 2]
    acts.write_text(
        "seed: 1\nactions:\n"
        + "".join("  - end_phase: {}\n" for _ in ends)
        + f"  - move: {{unit: {mover}, to: {target}}}\n"
    )
    assert main(["replay", doc.path, str(acts), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[-2]["ok"], lines[-2]
    final = lines[-1]["final"]["units"][mover]
    assert (final["x"], final["y"]) == pytest.approx(tuple(target))


def test_undo_redo_keys_and_toolbar(tmp_path):
    d = open_editor(tmp_path)
    d.key(K.K_b)
    d.drag((2, 2), (6, 6))
    d.drag((8, 2), (12, 6))
    assert len(d.scene.doc.sc.terrain) == 2
    d.ctrl(K.K_z)
    assert [t.id for t in d.scene.doc.sc.terrain] == ["block-1"]
    d.ctrl(K.K_y)
    assert len(d.scene.doc.sc.terrain) == 2
    d.click_px(d.button("undo"))
    d.click_px(d.button("undo"))
    assert d.scene.doc.sc.terrain == []
    d.key(K.K_z, K.KMOD_LCTRL | K.KMOD_LSHIFT)  # Ctrl+Shift+Z redoes too
    assert len(d.scene.doc.sc.terrain) == 1


def test_select_move_rotate_resize_duplicate_delete(tmp_path):
    d = open_editor(tmp_path)
    doc = d.scene.doc
    d.key(K.K_b)
    d.drag((4, 4), (8, 8))
    d.key(K.K_v)
    d.drag((6, 6), (10, 7))  # drag from inside: moves by (4, 1)
    assert doc.terrain("block-1").polygon == [(8, 5), (12, 5), (12, 9), (8, 9)]
    d.drag((12, 9), (14, 10))  # the bottom-right handle resizes
    assert doc.bounds(("terrain", "block-1")) == (8, 5, 14, 10)
    d.key(K.K_r)
    p = doc.terrain("block-1").polygon
    assert p[0][1] != p[1][1], "rotated 15 degrees"
    d.key(K.K_r, K.KMOD_LSHIFT)
    flat = [c for pt in doc.terrain("block-1").polygon for c in pt]
    assert flat == pytest.approx([8, 5, 14, 5, 14, 10, 8, 10], abs=1e-5)
    d.ctrl(K.K_d)
    assert [t.id for t in doc.sc.terrain] == ["block-1", "block-2"]
    assert d.scene.selection == [("terrain", "block-2")]
    d.key(K.K_DELETE)
    assert [t.id for t in doc.sc.terrain] == ["block-1"]
    d.key(K.K_g)
    assert doc.snap_step == 1.0


def test_polygon_tool_and_live_coordinates(tmp_path):
    d = open_editor(tmp_path)
    d.key(K.K_4)  # impassable
    d.key(K.K_p)
    for p in ((20, 10), (24, 10), (22.2, 13.1)):
        d.click(*p)
    d.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=d.px(21, 12), rel=(0, 0), buttons=(0, 0, 0)))
    assert "point 3 at [22, 13]" in d.scene.message  # snapped to 0.5"
    d.key(K.K_RETURN)
    t = d.scene.doc.sc.terrain[0]
    assert t.kind == "impassable" and t.polygon == [(20, 10), (24, 10), (22, 13)]


def test_properties_panel_number_entry_changes_height_and_kind(tmp_path):
    d = open_editor(tmp_path)
    d.key(K.K_b)
    d.drag((4, 4), (8, 8))
    d.frame()
    entries = {d.scene.properties.fields[e]: e for e in d.scene.properties.fields}
    height = [e for e in d.scene.properties.elements if getattr(e, "get_text", None) and e.get_text() == "3"]
    assert height, "the panel shows the block's height"
    d.type_into(height[0], "4.5")
    assert d.scene.doc.terrain("block-1").height == 4.5
    d.ctrl(K.K_z)
    assert d.scene.doc.terrain("block-1").height == 3
    assert entries


def test_clicking_a_problem_selects_and_highlights_its_item(tmp_path):
    d = open_editor(tmp_path)
    doc = d.scene.doc
    d.key(K.K_b)
    d.drag((10, 10), (14, 14))
    d.key(K.K_l)
    d.click(14.2, 12)
    lid = doc.sc.ladders[0].id
    doc.move([("ladder", lid)], 4, 0)  # now 4.5" from its block: a problem
    d.key(K.K_v)
    d.key(K.K_ESCAPE)
    d.frame()
    assert d.scene.problems.rects, "the validation panel lists the problem"
    rect, finding = d.scene.problems.rects[0]
    assert "ladder" in finding.message and finding.ref == ("ladder", lid)
    d.click_px(rect.center)
    assert d.scene.selection == [("ladder", lid)] and d.scene.highlight == ("ladder", lid)


def test_save_with_problems_warns_and_play_is_refused(tmp_path):
    d = open_editor(tmp_path)
    build_small_map(d)  # playable: two warbands with units on the table
    doc = d.scene.doc
    played = d.scene.files.played
    doc.move([("ladder", doc.sc.ladders[0].id)], 4, 0)
    d.ctrl(K.K_s)
    d.key(K.K_RETURN)  # the name it has
    assert os.path.exists(doc.path) and "WITH 1 PROBLEM" in d.scene.message
    d.ctrl(K.K_p)
    assert played == [] and d.scene.message.startswith("cannot play")
    assert d.app.top is d.scene  # no game opened
    d.ctrl(K.K_z)  # put the ladder back: no problems
    d.ctrl(K.K_p)
    assert played == [doc.path] and not doc.dirty
    from game.ui.scenes.play import PlayScene

    assert isinstance(d.app.top, PlayScene) and d.app.top.source == doc.path


def test_new_map_asks_for_the_table_size(tmp_path):
    path = str(tmp_path / "fresh.yaml")
    app = App((1280, 800))
    ask_new_map(app, path)
    d = Driver(app)
    prompt = app.modal
    assert d.scene is None and isinstance(prompt, SizePrompt)
    d.type_into(prompt.width, "80")
    assert d.scene is None and "outside 24x24 to 72x48" in prompt.error.text
    d.type_into(prompt.height, "30")  # Enter in either field submits both
    assert d.scene is None
    d.type_into(prompt.width, "48")
    assert d.scene is not None and app.modal is None
    assert (d.scene.doc.sc.width, d.scene.doc.sc.height) == (48, 30)
    assert d.scene.doc.path == path


def test_edit_cli_refuses_a_file_that_is_not_a_map(tmp_path, capsys):
    from game.editor.app import edit_cli

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntable: {width: 36, height: [1\n")
    assert edit_cli(str(bad)) == 2
    assert capsys.readouterr().err.startswith(f"{bad}:")


def test_dropdowns_change_kind_and_unit_status(tmp_path):
    import pygame_gui
    from pygame_gui.elements import UIDropDownMenu

    d = open_editor(tmp_path)
    doc = d.scene.doc
    d.key(K.K_b)
    d.drag((4, 4), (8, 8))
    d.frame()
    menus = [e for e in d.scene.properties.elements if isinstance(e, UIDropDownMenu)]
    assert len(menus) == 1 and menus[0].selected_option[0] == "block"
    d.frame(pygame.event.Event(pygame_gui.UI_DROP_DOWN_MENU_CHANGED, ui_element=menus[0], text="impassable"))
    assert doc.terrain("block-1").kind == "impassable"
    load_roster_by_mouse(d, "grave-reavers.yaml")
    d.key(K.K_u)
    d.click(20, 20)  # no zone drawn: anywhere on the table
    uid = next(iter(doc.sc.state.units))
    d.frame()
    status = [e for e in d.scene.properties.elements if isinstance(e, UIDropDownMenu)]
    d.frame(pygame.event.Event(pygame_gui.UI_DROP_DOWN_MENU_CHANGED, ui_element=status[0], text="dazed"))
    assert doc.unit(uid).status == "dazed"
    d.ctrl(K.K_z)
    assert doc.unit(uid).status == "normal"


def test_save_as_when_the_map_has_no_file_yet(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    doc = Document.new(24, 24)
    field_both_sides(doc)
    app = App((1280, 800))
    open_editor_scene(app, doc)
    d = Driver(app)
    d.ctrl(K.K_s)
    assert isinstance(app.modal, TextPrompt), "Ctrl+S asks for a file name"
    d.type_into(app.modal.entry, "saved-map.yaml")
    assert (tmp_path / "saved-map.yaml").exists()
    assert main(["check", str(tmp_path / "saved-map.yaml")]) == 0


def test_a_bug_in_a_handler_is_reported_and_the_editor_goes_on(tmp_path, monkeypatch):
    d = open_editor(tmp_path)
    app = d.app

    def broken(*_a, **_k):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(d.scene, "finish_polygon", broken)
    app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=K.K_RETURN, mod=0, unicode="\r", scancode=0))
    app.frame(0.016)
    assert app.errors and "ZeroDivisionError: boom" in app.errors[0]
    assert "internal error" in d.scene.message and app.running
    assert app.modal is not None  # shown in a dialog too
    app.errors.clear()
    d.key(K.K_RETURN)  # Enter closes it
    assert app.modal is None
    d.key(K.K_b)
    d.drag((2, 2), (5, 5))
    assert d.scene.doc.sc.terrain, "still editing after the error"


# --- a map with items the editor cannot read (issue 22) -----------------------------------------


def test_a_broken_map_lists_what_was_not_read_and_saving_over_it_asks(tmp_path):
    from game.ui.draw import get_font
    from game.ui.widgets.dialogs import ChoiceDialog
    from tests.factories import broken_default, comments

    path = broken_default(tmp_path)
    original = open(path, encoding="utf-8").read()
    app = App((1280, 800))
    scene = open_editor_scene(app, Document.open(path))
    d = Driver(app)
    d.frame()
    # The panel lists every unread item's problem, with FILE:LINE; never "No problems".
    rows = [finding for _, finding in scene.problems.rects]
    assert len([f for f in rows if f.unread]) == len(scene.doc.unread) == 7
    assert any(f.unread and "'blok'" in f.message for f in rows)
    # The status bar's message is drawn whole (no line of it is wider than the window).
    lines, size, x = scene.chrome.message_lines(scene.message, 1280)
    assert "kept as written" in " ".join(lines)
    assert all(x + get_font(size, "regular").size(ln)[0] <= 1280 - 8 for ln in lines)
    for width in (1000, 760):  # a narrower window: the whole bar, then two lines of a smaller font
        lines, size, x = scene.chrome.message_lines(scene.message, width)
        assert " ".join(lines) == scene.message and len(lines) <= 2
        assert all(x + get_font(size, "regular").size(ln)[0] <= width - 8 for ln in lines)
    # Ctrl+S asks first; Cancel saves nothing.
    scene.doc.move([("unit", "red-sword-1")], 1, 0)
    d.ctrl(K.K_s)
    assert isinstance(app.modal, ChoiceDialog) and "Save over broken.yaml?" in app.modal.title
    app.modal.choose(None)
    assert open(path, encoding="utf-8").read() == original and scene.doc.dirty
    # Saving over it, once agreed, keeps the unread items as written.
    d.ctrl(K.K_s)
    app.modal.choose("over")
    saved = open(path, encoding="utf-8").read()
    assert saved != original and "kind: blok" in saved and "base_mm: 5O" in saved
    assert comments(saved) == comments(original)
    assert "WITH" in scene.message and not scene.doc.dirty
    scene.doc.move([("unit", "red-sword-1")], 1, 0)
    d.ctrl(K.K_s)  # asked once per file
    assert app.modal is None and not scene.doc.dirty
    # A new name: the prompt offers one next to the file; that file keeps everything too.
    scene.doc.move([("unit", "red-sword-1")], 1, 0)
    scene.files.confirmed.clear()
    d.ctrl(K.K_s)
    app.modal.choose("new")
    assert isinstance(app.modal, TextPrompt) and app.modal.entry.get_text() == str(tmp_path / "broken-edited.yaml")
    before = open(path, encoding="utf-8").read()
    d.key(K.K_RETURN)
    other = open(tmp_path / "broken-edited.yaml", encoding="utf-8").read()
    assert "kind: blok" in other and "agilty" in other and comments(other) == comments(original)
    assert open(path, encoding="utf-8").read() == before
    assert scene.doc.path == str(tmp_path / "broken-edited.yaml") and not scene.doc.dirty
