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
from tests.factories import DEFAULT_MAP, GOOD_SCENARIO, broken_default, comments, mutate, yaml_values


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_the_issue_scenario_lists_the_broken_items_and_saving_loses_nothing(tmp_path):
    path = broken_default(tmp_path)
    original = open(path, encoding="utf-8").read()
    doc = Document.open(path)
    found = [f.problem for f in doc.validate()]
    text = "\n".join(f"{os.path.basename(p.file)}:{p.line}: {p.message}" for p in found)
    # Every broken item is a problem, at its own line of the file.
    for needle, word in (
        ("kind: blok", "blok"),
        ("heigth: 6", "heigth"),
        ("agilty: 12", "agilty"),
        ("base_mm: 5O", "5O"),
    ):
        line = line_of(original, needle)
        assert re.search(rf"broken\.yaml:{line}: .*{word}", text), (needle, text)
    # Items left out because of them are problems too (the ladders lost their top).
    for lid, top in (("hall-ladder", "townhall"), ("tower-ladder", "townhall-tower")):
        assert re.search(rf"broken\.yaml:{line_of(original, f'top: {top}{chr(10)}')}: ladder {lid}", text), text
    assert all(p.file == path and p.line >= 1 for p in found)
    assert doc.has_unread and len(doc.unread) >= 6
    # The editor draws where the file puts them (labelled 'not read').
    assert {name for name, _, _ in doc.unread_shapes} == {
        "townhall",
        "townhall-tower",
        "hall-ladder",
        "tower-ladder",
        "red-captain",
        "red-ogre",
    }

    doc.save()
    saved = open(path, encoding="utf-8").read()
    assert saved == original, "an unchanged map is written back byte for byte"

    # An edit, then save: the edit is in, nothing else is lost.
    doc.move([("unit", "red-sword-1")], 1, 0)
    doc.save()
    saved = open(path, encoding="utf-8").read()
    for needle in (
        "id: townhall\n    kind: blok",
        "id: townhall-tower",
        "heigth: 6",
        "id: hall-ladder",
        "id: tower-ladder",
        "agilty: 12",
        "base_mm: 5O",
        "id: red-captain",
        "id: red-ogre",
    ):
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


# --- fuzz: open, edit, save over the loader's own bad inputs --------------------------------------

from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from game.editor.edits import EditError  # noqa: E402

FUZZ = settings(
    max_examples=35, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
DEFAULT_TEXT = open(DEFAULT_MAP, encoding="utf-8").read()
ITEM_LISTS = ("terrain", "ladders", "treasure", "warbands")


def _read(text: str):
    """Plain data, read as the loader reads it (libyaml)."""
    return yaml.load(text, Loader=yaml.CSafeLoader)


def exact(path) -> str:
    """A file's text with its line ends as they are."""
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def named(problems, path: tuple) -> bool:
    """Some problem names ``path``, a part of the file holding it, or a part of it."""
    where = ".".join(str(p) for p in path)
    return any(
        p.where and (where == p.where or where.startswith(p.where + ".") or p.where.startswith(where + "."))
        for p in problems
    )


def lost_parts(before, after) -> list[tuple]:
    """Paths of what ``before`` (file data) held that ``after`` does not: top-level keys by
    value, items of the item lists by value (wherever they now stand)."""
    if not isinstance(before, dict):
        return []
    lost = []
    after = after if isinstance(after, dict) else {}
    for key, value in before.items():
        if key in ITEM_LISTS and isinstance(value, list) and isinstance(after.get(key), list):
            left = list(after[key])
            for i, item in enumerate(value):
                if item in left:
                    left.remove(item)
                else:
                    lost.append((key, i))
        elif after.get(key, lost) != value:
            lost.append((key,))
    return lost


def open_edit_save(tmp_path, text: str) -> None:
    """The property: whatever a file held and a save does not write back is a problem
    the editor listed for it (with a line); an unedited save writes the file as it was."""
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(text.encode("utf-8"))
    try:
        doc = Document.open(str(path))
    except LoadError as exc:  # not a map at all: the editor refuses it, nothing is written
        event("refused: not a map")
        assert exc.problems and all(p.line >= 1 for p in exc.problems)
        assert exact(path) == text
        return
    event("opened with unread items" if doc.unread else "opened, all read")
    if not doc.keeps_file:  # ruamel.yaml cannot read it: saving over it is refused
        event("ruamel.yaml cannot read it")
        with pytest.raises(EditError):
            doc.save()
        assert exact(path) == text and doc.keep_error
        return
    listed = [f.problem for f in doc.validate()]
    assert all(p.line >= 1 and p.message for p in listed)
    before = _read(text)
    # An unedited save: the same text.
    out = tmp_path / "same.yaml"
    doc.save(str(out))
    if doc.file_tree is not None:
        assert exact(out) == text
    # An edit (a new piece, a piece moved), then a save.
    moved = doc.sc.terrain[0].id if doc.sc.terrain else None
    try:
        new = doc.add_rect("block", (0, 0), (min(1, doc.sc.width), min(1, doc.sc.height)), height=1)
    except EditError:
        new = None
    if moved:
        try:
            doc.move([("terrain", moved)], 0, 0) if doc.sc.width < 1 else doc.move([("terrain", moved)], 0.0, 0.0)
            doc.set_terrain(moved, height=7) if doc.terrain(moved).kind in ("block", "wall") else None
            doc.set_terrain(moved, new_id=doc.new_id("renamed"))
        except EditError:
            moved = None
    out = tmp_path / "edited.yaml"
    doc.save(str(out))
    after = _read(exact(out))
    for part in lost_parts(before, after):
        item = before[part[0]][part[1]] if len(part) == 2 else None
        if moved and isinstance(item, dict) and moved in (item.get("id"), item.get("top")):
            continue  # the edit changed it (a renamed piece's ladders follow it)
        assert named(listed, part), (part, [str(p) for p in listed])
    if new:
        again = Document.open(str(out))
        assert new in {t.id for t in again.sc.terrain}, "the edit was saved"


@pytest.mark.slow
@FUZZ
@given(
    st.randoms(use_true_random=False),
    yaml_values,
    st.sampled_from(["set", "delete", "duplicate"]),
    st.sampled_from(["good", "default"]),
)
def test_fuzz_mutated_files_lose_nothing_unlisted(tmp_path_factory, rnd, replacement, how, which):
    text = GOOD_SCENARIO if which == "good" else DEFAULT_TEXT
    open_edit_save(tmp_path_factory.mktemp("fz"), mutate(text, rnd, replacement, how))


@pytest.mark.slow
@FUZZ
@given(st.sampled_from(["good", "default"]), st.data())
def test_fuzz_textual_mutations_lose_nothing_unlisted(tmp_path_factory, which, data):
    text = GOOD_SCENARIO if which == "good" else DEFAULT_TEXT
    pos = data.draw(st.integers(0, len(text) - 1))
    junk = data.draw(st.text(max_size=6))
    open_edit_save(tmp_path_factory.mktemp("fz"), text[:pos] + junk + text[pos + 1 :])


# --- comments and key order survive an open-edit-save round trip ------------------------------------

HAND = """\
# A hand-written map: a comment on every line.  # (this one too)
name: Comment Town  # the name
table: {width: 24, height: 24}  # inches
# the pieces
terrain:  # three of them
  - id: tower  # the tall one
    height: 3  # height before kind: the order is the writer's
    kind: block  # a block
    polygon: [[10, 10], [14, 10], [14, 14], [10, 14]]  # a square
  # between the pieces
  - {id: fence, kind: wall, height: 2, polygon: [[2, 20], [8, 20], [8, 20.5], [2, 20.5]]}  # flow style
  - id: pool  # to be deleted
    kind: impassable  # wet
    polygon: [[18, 2], [22, 2], [22, 6], [18, 6]]  # deep
ladders:  # one
  - id: tower-ladder  # east side
    foot: [14.5, 12]  # beside the tower
    top: tower  # its top
treasure:  # one token
  - {id: t1, at: [6, 6], event: none}  # nothing in it
warbands:  # two sides
  - id: red  # player one
    player: 1  # first
    units:  # one unit
      - id: red-captain  # the boss
        name: Captain  # called
        at: [3, 3]  # corner
        base_mm: 25  # small
        stats: {move: 6, agility: 12, morale: 14, defence: 10}  # the four
  - id: blue  # player two
    player: 2  # second
    units:  # one unit
      - {id: blue-captain, name: Captain, at: [21, 21], base_mm: 25, \
stats: {move: 6, agility: 12, morale: 14, defence: 10}}  # flow
# the end
"""


def test_a_hand_written_file_keeps_every_comment_and_its_key_order_through_edits(tmp_path):
    path = tmp_path / "hand.yaml"
    path.write_text(HAND, encoding="utf-8")
    doc = Document.open(str(path))
    assert not doc.validate(), [str(f) for f in doc.validate()]
    doc.save()
    assert path.read_text(encoding="utf-8") == HAND
    doc.move([("terrain", "tower")], 1, 0)  # the ladder goes with it
    doc.set_unit("blue-captain", stats={"move": 7})
    doc.delete([("terrain", "pool")])
    new = doc.add_rect("difficult", (1, 1), (4, 4))
    doc.save()
    saved = path.read_text(encoding="utf-8")
    gone = [ln for ln in HAND.splitlines() if "pool" in ln or "wet" in ln or "deep" in ln]
    kept = [ln for ln in HAND.splitlines() if ln not in gone]
    # Untouched lines are there byte for byte; edited ones keep their comments.
    for ln in kept:
        if "a square" in ln or "foot" in ln or "blue-captain" in ln:
            continue
        assert ln in saved, ln
    assert "polygon: [[11, 10], [15, 10], [15, 14], [11, 14]]  # a square" in saved
    assert "foot: [15.5, 12]  # beside the tower" in saved
    assert "move: 7" in saved and "}  # flow" in saved
    assert saved.count("#") == HAND.count("#") - 3
    data = yaml.safe_load(saved)
    assert list(data["terrain"][0]) == ["id", "height", "kind", "polygon"]  # the writer's order
    assert [t["id"] for t in data["terrain"]] == ["tower", "fence", new]
    again = Document.open(str(path))
    assert again.sc == doc.sc and not again.validate()


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(maps_dir()) if n.endswith(".yaml")))
def test_bundled_maps_keep_their_comments_through_an_edit(tmp_path, name):
    text = open(os.path.join(maps_dir(), name), encoding="utf-8").read()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = Document.open(str(path))
    doc.save()
    assert path.read_text(encoding="utf-8") == text
    first = doc.sc.terrain[0].id
    doc.move([("terrain", first)], 0.5, 0)
    doc.save()
    saved = path.read_text(encoding="utf-8")
    assert comments(saved) == comments(text)
    changed = [ln for ln in saved.splitlines() if ln not in text.splitlines()]
    assert len(changed) <= 3, changed  # the moved piece's polygon (and ladders on it), nothing else
    assert load_scenario(str(path)) == doc.sc


def test_loading_stays_safe_no_tag_builds_an_object(tmp_path):
    from game.editor.roundtrip import Tree

    marker = tmp_path / "ran"
    evil = GOOD_SCENARIO.replace("name: Test table", f"name: !!python/object/apply:os.system ['touch {marker}']")
    path = tmp_path / "evil.yaml"
    path.write_text(evil, encoding="utf-8")
    with pytest.raises(LoadError) as err:
        Document.open(str(path))
    assert "tag" in str(err.value) and not marker.exists()
    tree = Tree.read(evil)  # the round-trip reader alone builds no Python object either
    assert not marker.exists() and (tree is None or not callable(tree.data["name"]))


def test_a_misspelled_optional_key_is_listed_and_kept_when_its_item_is_edited(tmp_path):
    text = (
        GOOD_SCENARIO.replace("  - id: red\n", "  - id: red\n    colur: '#123456'\n").replace(
            "    kind: impassable\n", "    kind: difficult\n    heigth: 2\n"
        )
        + "rulez: {turn_limit: 4}  # a misspelled top-level key\n"
    )
    path = tmp_path / "optional.yaml"
    path.write_text(text, encoding="utf-8")
    doc = Document.open(str(path))
    unread = {p.message: p.line for p in doc.unread}
    assert unread == {
        "unknown field 'colur' in warband #1 (did you mean 'colour'?)": line_of(text, "colur"),
        "unknown field 'heigth' in terrain #3 (did you mean 'height'?)": line_of(text, "heigth"),
        "unknown field 'rulez' in a scenario (did you mean 'rules'?)": line_of(text, "rulez"),
    }
    assert "pool" in {t.id for t in doc.sc.terrain} and doc.sc.warband("red")  # the items themselves are read
    doc.set_warband("red", name="Reds")
    doc.move([("terrain", "pool")], 0.5, 0)
    doc.save()
    saved = path.read_text(encoding="utf-8")
    assert "colur: '#123456'" in saved and "heigth: 2" in saved and "rulez: {turn_limit: 4}  # a misspelled" in saved
    assert {p.message for p in doc.unread} == set(unread)


def test_windows_line_ends_are_kept(tmp_path):
    text = HAND.replace("\n", "\r\n")
    path = tmp_path / "crlf.yaml"
    path.write_bytes(text.encode("utf-8"))
    doc = Document.open(str(path))
    doc.save()
    assert exact(path) == text
    doc.move([("terrain", "tower")], 1, 0)
    doc.save()
    saved = exact(path)
    assert saved.count("\r\n") == saved.count("\n") == text.count("\n")
    assert "    polygon: [[11, 10], [15, 10], [15, 14], [11, 14]]  # a square\r\n" in saved
    assert [ln for ln in saved.split("\r\n") if ln not in text.split("\r\n")] == [
        "    polygon: [[11, 10], [15, 10], [15, 14], [11, 14]]  # a square",
        "    foot: [15.5, 12]  # beside the tower",
    ]


def test_a_renamed_item_keeps_its_comments_and_its_unread_keys(tmp_path):
    text = HAND.replace("    kind: impassable  # wet\n", "    kind: impassable  # wet\n    heigth: 2  # misspelled\n")
    path = tmp_path / "rename.yaml"
    path.write_text(text, encoding="utf-8")
    doc = Document.open(str(path))
    assert [p.line for p in doc.unread] == [line_of(text, "heigth")]
    doc.set_terrain("pool", new_id="pond")
    doc.set_terrain("tower", new_id="keep")  # its ladder follows
    doc.save()
    saved = path.read_text(encoding="utf-8")
    assert "  - id: pond  # to be deleted\n    kind: impassable  # wet\n    heigth: 2  # misspelled\n" in saved
    # (ruamel.yaml keeps a comment in its column: a shorter value pads it)
    assert re.search(r"  - id: keep +# the tall one\n    height: 3  # height", saved)
    assert re.search(r"top: keep +# its top", saved)
    assert len(saved.splitlines()) == len(text.splitlines())


def test_a_float_ruamel_would_round_differently_is_written_back_as_read(tmp_path):
    # Found by the fuzz test: ruamel.yaml wrote 6.165936151570833e+16 back as ...832e+16.
    text = re.sub(r"^name: .*$", "name: 6.165936151570833e+16", GOOD_SCENARIO, count=1, flags=re.M)
    path = tmp_path / "float.yaml"
    path.write_text(text, encoding="utf-8")
    doc = Document.open(str(path))
    doc.add_rect("block", (0, 0), (1, 1), height=1)
    doc.save(str(path))
    assert _read(exact(path))["name"] == _read(text)["name"] == 6.165936151570833e16
