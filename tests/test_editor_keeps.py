"""The editor never loses what a file held (issue 22, item 1).

A map with items the editor cannot read (an unknown kind, a misspelled key or stat, a
bad number) opens with those items listed as problems with their FILE:LINE; saving
keeps them exactly as written, and keeps every comment and the key order.
"""

from __future__ import annotations

import os
import re

import pytest
import yaml

from game.bundled import maps_dir
from game.editor.document import Document
from game.engine.errors import LoadError
from game.engine.scenario import load_scenario

DEFAULT = os.path.join(maps_dir(), "default.yaml")

#: The four breaks of the issue: (text in default.yaml, what it becomes, which occurrence).
BREAKS = [
    ("    kind: block\n    height: 3\n    polygon: [[3, 9]", "    kind: blok\n    height: 3\n    polygon: [[3, 9]"),
    ("    height: 6\n", "    heigth: 6\n"),
    ("at: [6, 3], base_mm: 32, keywords: [hero],\n         stats: {move: 4, agility: 12",
     "at: [6, 3], base_mm: 32, keywords: [hero],\n         stats: {move: 4, agilty: 12"),
    ("at: [14, 3], base_mm: 50", "at: [14, 3], base_mm: 5O"),
]


def broken_default(tmp_path) -> str:
    text = open(DEFAULT, encoding="utf-8").read()
    for old, new in BREAKS:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def comments(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("#")]


def test_the_issue_scenario_lists_the_broken_items_and_saving_loses_nothing(tmp_path):
    path = broken_default(tmp_path)
    original = open(path, encoding="utf-8").read()
    doc = Document.open(path)
    found = [f.problem for f in doc.validate()]
    text = "\n".join(f"{os.path.basename(p.file)}:{p.line}: {p.message}" for p in found)
    # Every broken item is a problem, at its own line of the file.
    for needle, word in (("kind: blok", "blok"), ("heigth: 6", "heigth"), ("agilty: 12", "agilty"),
                         ("base_mm: 5O", "5O")):
        line = line_of(original, needle)
        assert re.search(rf"broken\.yaml:{line}: .*{word}", text), (needle, text)
    # Items left out because of them are problems too (the ladders lost their top).
    for lid, top in (("hall-ladder", "townhall"), ("tower-ladder", "townhall-tower")):
        assert re.search(rf"broken\.yaml:{line_of(original, f'top: {top}{chr(10)}')}: ladder {lid}", text), text
    assert all(p.file == path and p.line >= 1 for p in found)
    assert doc.has_unread and len(doc.unread) >= 6

    doc.save()
    saved = open(path, encoding="utf-8").read()
    assert saved == original, "an unchanged map is written back byte for byte"

    # An edit, then save: the edit is in, nothing else is lost.
    doc.move([("unit", "red-sword-1")], 1, 0)
    doc.save()
    saved = open(path, encoding="utf-8").read()
    for needle in ("id: townhall\n    kind: blok", "id: townhall-tower", "heigth: 6", "id: hall-ladder",
                   "id: tower-ladder", "agilty: 12", "base_mm: 5O", "id: red-captain", "id: red-ogre"):
        assert needle in saved, needle
    assert comments(saved) == comments(original) and len(comments(original)) == 13
    data = yaml.safe_load(saved)
    before = yaml.safe_load(original)
    red = {u["id"]: u for u in data["warbands"][0]["units"]}
    assert red["red-sword-1"]["at"] == [23, 3]
    red["red-sword-1"]["at"] = [22, 3]
    assert data == before, "only the moved unit changed"
    # The problems are those of the saved file, still with their lines.
    with pytest.raises(LoadError) as err:
        load_scenario(path, playable=True)
    assert {p.message for p in err.value.problems} == {f.problem.message for f in doc.validate()}


def test_the_problems_name_their_file_line_before_any_edit(tmp_path):
    path = broken_default(tmp_path)
    doc = Document.open(path)
    with pytest.raises(LoadError) as err:
        load_scenario(path, playable=True)
    assert sorted(str(p) for p in err.value.problems) == sorted(str(f.problem) for f in doc.validate())
