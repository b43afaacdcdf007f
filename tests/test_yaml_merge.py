"""Issue 48 (8): YAML merge keys as YAML defines them (a key of the mapping's own overrides a
merged one; among merged maps the earlier wins), in `check` and in the editor, which keeps
them through an edit; a save's ruleset with a parameter this program does not know says so.
Reproducers: tests/data/yaml/, tests/data/saves/."""

from __future__ import annotations

import os

import pytest

from game.cli import main
from game.editor.document import Document
from game.engine.errors import LoadError
from game.engine.saves import UPGRADE_NOTE, load_game
from game.engine.yamlsrc import load_yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MERGED = os.path.join(ROOT, "tests", "data", "yaml", "merge-override.yaml")


def test_check_takes_a_merge_key_with_an_overriding_id(capsys):
    assert main(["check", MERGED]) == 0
    assert "ok (scenario)" in capsys.readouterr().out


def test_the_editor_opens_edits_and_saves_a_merged_map_keeping_the_merge(tmp_path):
    doc = Document.open(MERGED)
    assert not doc.validate()
    units = doc.sc.state.units
    assert [(u.id, u.name, u.x) for u in units.values()] == [
        ("red-1", "Soldier", 4),
        ("red-2", "Soldier", 8),
        ("blue-1", "Raider", 30),
    ]
    doc.add_rect("block", (10, 10), (12, 12), height=1)
    out = tmp_path / "edited.yaml"
    doc.save(str(out))
    assert "<<: *soldier" in out.read_text()
    assert main(["check", str(out)]) == 0


@pytest.mark.parametrize(
    "text,want",
    [
        ("b: &b {id: x, move: 6}\nu: {<<: *b, id: y}\n", {"id": "y", "move": 6}),
        ("b: &b {id: x}\nu:\n  id: y\n  <<: *b\n", {"id": "y"}),  # own key wins wherever it is
        (
            "b: &b {id: x, m: 1}\nc: &c {id: q, d: 2}\nu:\n  <<: [*b, *c]\n",
            {"id": "x", "m": 1, "d": 2},
        ),  # earlier map wins
    ],
)
def test_merge_keys_follow_yaml(text, want):
    assert load_yaml(text, "m.yaml").data["u"] == want


def test_a_key_given_twice_in_one_mapping_is_still_refused():
    with pytest.raises(LoadError) as err:
        load_yaml("b: &b {id: x}\nu:\n  <<: *b\n  id: y\n  id: z\n", "m.yaml")
    assert [str(p) for p in err.value.problems] == ["m.yaml:5: duplicate key 'id'"]


def test_a_saves_parameter_this_program_does_not_know_is_said(capsys):
    path = os.path.join(ROOT, "tests", "data", "saves", "unknown-parameter.yaml")
    game = load_game(path)
    said = [text for _, text, kind in game.notes if kind == UPGRADE_NOTE]
    assert any("future_rule" in text and "does not know" in text for text in said)
    assert main(["check", path]) == 0
    assert "future_rule" in capsys.readouterr().out
