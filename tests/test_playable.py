"""A map must be able to start a game (issue 14): two warbands of different players
(1 and up; player 0, the Neutrals, does not count), each with a unit on the table.

One rule (game.engine.scenario._check_playable) reached three ways: ``speedheim check``,
``speedheim play`` (exit 2 before a window opens) and the editor's problems list (which
refuses Ctrl+P). The plain loader still loads such a map (the editor opens it).
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.cli import main  # noqa: E402
from game.editor.document import Document  # noqa: E402
from game.engine.errors import LoadError  # noqa: E402
from game.engine.scenario import load_scenario  # noqa: E402
from tests.factories import field_both_sides, unit_yaml, warband_yaml  # noqa: E402

NEED_TWO = "a game needs two warbands of different players (player 1 and up; player 0 is the Neutrals): this map has "
HEAD = "name: Sides\ntable: {width: 24, height: 24}\n"  # lines 1-2


def write(tmp_path, text: str) -> str:
    p = tmp_path / "sides.yaml"
    p.write_text(text)
    return str(p)


def check(path: str, capsys) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["check", path])
    return code, capsys.readouterr().err.splitlines()


def test_no_warbands_is_reported_at_the_warbands_line(tmp_path, capsys):
    path = write(tmp_path, HEAD + "terrain: []\nwarbands: []\n")  # warbands: on line 4
    assert check(path, capsys) == (2, [f"{path}:4: {NEED_TWO}none"])
    assert load_scenario(path).warbands == []  # still loadable: the editor opens it


def test_missing_warbands_key_is_reported_on_the_first_line(tmp_path, capsys):
    path = write(tmp_path, HEAD)
    code, err = check(path, capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith(f"{path}:1: ") and "warbands" in err[0]


def test_one_side_only(tmp_path, capsys):
    path = write(tmp_path, HEAD + "warbands:\n" + warband_yaml("red", 1, unit_yaml("r1", 3, 3)))
    assert check(path, capsys) == (2, [f"{path}:3: {NEED_TWO}red (player 1)"])


def test_the_neutrals_do_not_count_as_a_side(tmp_path, capsys):
    path = write(
        tmp_path, HEAD + "warbands:\n" + warband_yaml("red", 1, unit_yaml("r1", 3, 3)) + warband_yaml("beasts", 0)
    )
    assert check(path, capsys) == (2, [f"{path}:3: {NEED_TWO}red (player 1)"])


def test_two_warbands_of_the_same_player_are_one_side(tmp_path, capsys):
    text = (
        HEAD
        + "warbands:\n"
        + warband_yaml("red", 1, unit_yaml("r1", 3, 3))
        + warband_yaml("blue", 1, unit_yaml("b1", 20, 20))
    )
    path = write(tmp_path, text)
    code, err = check(path, capsys)
    assert code == 2
    assert f"{path}:3: {NEED_TWO}red (player 1), blue (player 1)" in err
    assert any("player 1 already plays warband 'red'" in e for e in err)


def test_a_side_with_every_unit_off_the_table_is_reported_at_its_warband(tmp_path, capsys):
    text = (
        HEAD
        + "warbands:\n"
        + warband_yaml("red", 1, unit_yaml("r1", 3, 3))
        + warband_yaml("blue", 2, unit_yaml("b1", 20, 20, on_table=False), unit_yaml("b2", 18, 20, on_table=False))
    )
    path = write(tmp_path, text)
    line = text.splitlines().index("  - id: blue") + 1
    assert check(path, capsys) == (
        2,
        [f"{path}:{line}: warband blue (player 2) has no unit on the table; each side needs at least one to play"],
    )


def test_an_empty_side_is_reported_at_its_warband(tmp_path, capsys):
    text = HEAD + "warbands:\n" + warband_yaml("red", 1) + warband_yaml("blue", 2, unit_yaml("b1", 20, 20))
    path = write(tmp_path, text)
    assert check(path, capsys) == (
        2,
        [f"{path}:4: warband red (player 1) has no unit on the table; each side needs at least one to play"],
    )


def test_exactly_one_unit_on_the_table_per_side_is_enough(tmp_path, capsys):
    text = (
        HEAD
        + "warbands:\n"
        + warband_yaml("red", 1, unit_yaml("r1", 3, 3))
        + warband_yaml("blue", 2, unit_yaml("b1", 20, 20), unit_yaml("b2", 18, 20, on_table=False))
        + warband_yaml("beasts", 0)
    )
    path = write(tmp_path, text)
    assert check(path, capsys) == (0, [])
    assert load_scenario(path, playable=True).warbands[1].id == "blue"


def test_playable_problems_come_with_the_other_problems_of_the_file(tmp_path):
    path = write(tmp_path, HEAD + "terrain: 7\nwarbands: []\n")
    with pytest.raises(LoadError) as err:
        load_scenario(path, playable=True)
    assert [p.line for p in err.value.problems] == [3, 4]


def test_play_refuses_an_unplayable_map_before_opening_a_window(tmp_path, capsys, monkeypatch):
    import game.ui.launch

    windows: list = []
    monkeypatch.setattr(game.ui.launch, "App", lambda *a, **k: windows.append(a))
    path = write(tmp_path, HEAD + "warbands:\n" + warband_yaml("red", 1, unit_yaml("r1", 3, 3)))
    capsys.readouterr()
    assert main(["play", path]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{path}:3: {NEED_TWO}red (player 1)"]
    assert windows == []


# --- the editor: the same rule through its live validation -----------------------------------


def test_a_new_empty_map_has_the_problem_and_fielding_both_sides_clears_it(tmp_path, capsys):
    doc = Document.new(24, 24, path=str(tmp_path / "new.yaml"))
    findings = doc.validate()
    line = doc.to_text().splitlines().index("warbands: []") + 1
    assert [(f.problem.line, f.message) for f in findings] == [(line, NEED_TWO + "none")]
    a, b = field_both_sides(doc)
    assert doc.validate() == []
    for uid in [u.id for u in doc.sc.state.units.values() if u.warband == b]:
        doc.delete([("unit", uid)])
    findings = doc.validate()
    assert [f.message for f in findings] == [
        f"warband {b} (player 2) has no unit on the table; each side needs at least one to play"
    ]
    # The very lines speedheim check prints for the saved file.
    doc.save()
    assert check(doc.path, capsys) == (2, [str(f.problem) for f in findings])
    assert [str(p) for p in Document.open(doc.path).opened_with] == [str(f.problem) for f in findings]


def test_ctrl_p_is_refused_on_an_empty_map_and_allowed_once_both_sides_stand(tmp_path):
    from game.editor.app import open_editor
    from game.editor.driver import Driver
    from game.ui.app import App

    path = str(tmp_path / "fresh.yaml")
    app = App((1280, 800))
    open_editor(app, Document.new(24, 24, name="Fresh", path=path))  # named: Ctrl+P does not ask a name
    d = Driver(app)
    played = d.scene.files.played
    d.ctrl(pygame.K_p)
    assert played == [] and d.scene.message.startswith("cannot play: the map has 1 problem")
    field_both_sides(d.scene.doc)
    d.ctrl(pygame.K_p)
    assert played == [path]
