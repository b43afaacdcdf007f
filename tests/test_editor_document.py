"""The editor document (pure Python): commands, undo/redo, snapping, placement, rosters,
validation that equals ``speedheim check``, and saving that round-trips."""

from __future__ import annotations

import glob
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.bundled import maps_dir, rosters_dir
from game.cli import main
from game.editor.document import Document, EditError, ref_of
from game.editor.placement import spot_problem
from game.editor.roster import load_roster
from game.editor.validate import LiveValidator, fast_dump
from game.engine.errors import LoadError
from game.engine.scenario import load_scenario, scenario_to_dict
from game.engine.yamlsrc import dump_yaml
from game.engine.yamlsrc import load_yaml
from tests.factories import field_both_sides

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAPS = sorted(glob.glob(os.path.join(maps_dir(), "*.yaml")))
ROSTERS = rosters_dir()


def small_map(tmp_path) -> Document:
    d = Document.new(36, 24, path=str(tmp_path / "m.yaml"))
    d.add_rect("block", (10, 10), (14, 14))
    d.add_rect("block", (20, 4), (24, 8))
    d.add_wall((5, 18), (12, 18), 0.25)
    d.add_rect("difficult", (26, 14), (30, 18))
    return d


def deploy(d: Document) -> tuple[str, str]:
    a = d.load_roster(load_roster(os.path.join(ROSTERS, "grave-reavers.yaml")))
    b = d.load_roster(load_roster(os.path.join(ROSTERS, "iron-wardens.yaml")))
    d.set_zone(a, [(0, 0), (36, 0), (36, 3), (0, 3)])
    d.set_zone(b, [(0, 21), (36, 21), (36, 24), (0, 24)])
    return a, b


# --- commands and undo ----------------------------------------------------------------


def test_every_command_undoes_to_the_exact_file_and_redoes(tmp_path):
    d = Document.new(36, 24, path=str(tmp_path / "m.yaml"))
    a = d.load_roster(load_roster(os.path.join(ROSTERS, "grave-reavers.yaml")))
    steps = [
        lambda: d.add_rect("block", (10, 10), (14, 14)),
        lambda: d.add_wall((5, 18), (12, 18), 0.5),
        lambda: d.add_terrain("impassable", [(20, 10), (24, 10), (22, 13)]),
        lambda: d.add_ladder((14.3, 12)),
        lambda: d.add_treasure((18, 12), "plague"),
        lambda: d.set_zone(a, [(0, 0), (36, 0), (36, 3), (0, 3)]),
        lambda: d.place_from_roster(a, "captain", (3, 1.5)),
        lambda: d.move([("terrain", "block-1")], 1, 0),
        lambda: d.rotate([("terrain", "wall-1")], 1),
        lambda: d.resize(("terrain", "block-1"), (11, 10, 16, 15)),
        lambda: d.duplicate([("terrain", "block-1")]),
        lambda: d.set_terrain("block-1", kind="block", height=4.5, new_id="tower"),
        lambda: d.set_treasure("t-1", event="event"),
        lambda: d.set_unit("reavers-captain-1", stats={"move": 7}, status="dazed"),
        lambda: d.delete([("terrain", "impassable-1")]),
    ]
    texts = [d.to_text()]
    for step in steps:
        step()
        assert d.to_text() != texts[-1], "every command changes the file"
        texts.append(d.to_text())
    for i in range(len(steps) - 1, -1, -1):
        assert d.undo() is not None
        assert d.to_text() == texts[i]
    assert d.undo() == "roster Grave Reavers"  # loading the roster was a step too
    assert not d.sc.warbands
    assert d.undo() is None and not d.can_undo
    for _ in range(len(steps) + 1):
        d.redo()
    assert d.redo() is None
    assert d.to_text() == texts[-1]


def test_refused_edit_leaves_the_document_untouched(tmp_path):
    d = small_map(tmp_path)
    before, undo_depth = d.to_text(), len(d.history.done)
    with pytest.raises(EditError, match='off the 36" x 24" table'):
        d.move([("terrain", "block-1"), ("terrain", "block-2")], 0, 17)  # block-1 fits, block-2 does not
    with pytest.raises(EditError, match="crosses itself"):
        d.add_terrain("block", [(1, 1), (5, 5), (5, 1), (1, 5)])
    with pytest.raises(EditError, match="height more than 0"):
        d.set_terrain("block-1", height=0)
    with pytest.raises(EditError, match="already used"):
        d.set_terrain("block-1", new_id="block-2")
    assert d.to_text() == before and len(d.history.done) == undo_depth


def test_duplicate_is_one_undo_step_and_rename_keeps_ladders(tmp_path):
    d = small_map(tmp_path)
    lid = d.add_ladder((14.2, 12))
    n = len(d.history.done)
    new = d.duplicate([("terrain", "block-1"), ("terrain", "wall-1")])
    assert len(d.history.done) == n + 1 and len(new) == 2
    assert d.terrain(new[0][1]).polygon == [(x + 1, y + 1) for x, y in d.terrain("block-1").polygon]
    d.set_terrain("block-1", new_id="tower")
    assert d.ladder(lid).top == "tower"
    d.undo()
    assert d.ladder(lid).top == "block-1"


def test_snapping_steps_and_off(tmp_path):
    d = Document.new(24, 24)
    assert d.snap_step == 0.5 and d.snap(3.3) == 3.5
    assert [d.cycle_snap() for _ in range(4)] == [1.0, None, 0.25, 0.5]
    d.snap_step = 0.25
    assert d.snap_point((3.13, 7.88)) == (3.25, 8.0)
    d.snap_step = None
    assert d.snap(3.13) == 3.13


def test_rotate_in_15_degree_steps_keeps_shape(tmp_path):
    d = small_map(tmp_path)
    before = d.terrain("block-2").polygon
    d.rotate([("terrain", "block-2")], 1)
    p = d.terrain("block-2").polygon
    side = math.dist(p[0], p[1])
    assert side == pytest.approx(4.0, abs=1e-5)
    angle = math.degrees(math.atan2(p[1][1] - p[0][1], p[1][0] - p[0][0]))
    assert angle == pytest.approx(15.0, abs=1e-4)
    d.rotate([("terrain", "block-2")], 23)  # 24 x 15 = 360 degrees in all
    assert all(math.dist(a, b) < 1e-4 for a, b in zip(d.terrain("block-2").polygon, before))


def test_new_map_table_size_limits():
    for w, h in ((24, 24), (72, 48), (48, 72)):
        Document.new(w, h)
    for w, h in ((23.9, 24), (73, 48), (72, 49), (20, 60)):
        with pytest.raises(EditError, match="outside 24x24 to 72x48"):
            Document.new(w, h)


# --- ladders, treasure -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "click,foot",
    [
        ((14.2, 12), (14.5, 12)),
        ((12, 9.7), (12, 9.5)),
        ((9.9, 11), (9.5, 11)),
        ((12, 14.05), (12, 14.5)),
        ((13.8, 12.5), (14.5, 12.5)),
    ],
)
def test_ladder_foot_is_on_the_ground_just_outside_the_clicked_edge(tmp_path, click, foot):
    d = small_map(tmp_path)
    lid = d.add_ladder(click)
    lad = d.ladder(lid)
    assert lad.top == "block-1"
    assert lad.foot == pytest.approx(foot)
    assert d.board.height_at(*lad.foot) == 0
    field_both_sides(d)
    assert d.validate() == []


def test_ladder_refused_away_from_blocks_and_on_walls(tmp_path):
    d = small_map(tmp_path)
    with pytest.raises(EditError, match='no block edge within 1"'):
        d.add_ladder((3, 3))
    with pytest.raises(EditError, match="no block edge"):
        d.add_ladder((8, 18.2))  # a wall, not a block


def test_treasure_events_and_refusals(tmp_path):
    d = small_map(tmp_path)
    t = d.add_treasure((18, 12))
    assert [d.cycle_event(t) for _ in range(3)] == ["event", "plague", "none"]
    with pytest.raises(EditError, match="inside wall wall-1"):
        d.add_treasure((8, 18))
    with pytest.raises(EditError, match="off the table"):
        d.add_treasure((0.1, 5))
    with pytest.raises(EditError, match="event must be one of"):
        d.add_treasure((3, 3), "gold")


# --- units and placement -------------------------------------------------------------------------


def test_units_are_placed_inside_their_zone_and_slide_out_of_overlap(tmp_path):
    d = small_map(tmp_path)
    a, b = deploy(d)
    u1 = d.place_from_roster(a, "captain", (3, 1.5))
    u2 = d.place_from_roster(a, "reaver", (3, 1.5))  # on top of the captain: slides off
    c1, c2 = d.unit(u1), d.unit(u2)
    gap = math.dist(c1.pos, c2.pos) - c1.r - c2.r
    assert 0 <= gap < 0.05, "slid just into contact, not far away"
    with pytest.raises(EditError, match="outside reavers's deployment zone"):
        d.place_from_roster(a, "reaver", (3, 12))
    d.place_from_roster(b, "captain", (3, 22.5))
    assert d.validate() == []


def test_a_base_dropped_on_a_wall_slides_off_it(tmp_path):
    d = small_map(tmp_path)
    a, b = deploy(d)
    d.set_zone(a, [(0, 0), (36, 0), (36, 20), (0, 20)])
    uid = d.place_from_roster(a, "captain", (8, 18.1))
    u = d.unit(uid)
    assert spot_problem(d, u.x, u.y, u.r, ignore=uid) is None
    assert math.dist(u.pos, (8, 18.1)) < 1.0
    d.place_from_roster(b, "captain", (3, 22.5))
    assert d.validate() == []


def test_moving_a_unit_onto_another_slides_it(tmp_path):
    d = small_map(tmp_path)
    a, b = deploy(d)
    u1 = d.place_from_roster(a, "captain", (3, 1.5))
    u2 = d.place_from_roster(a, "champion", (10, 1.5))
    d.place_unit_at(u2, (3.2, 1.5))
    assert math.dist(d.unit(u1).pos, d.unit(u2).pos) >= d.unit(u1).r + d.unit(u2).r - 1e-6


def test_roster_counts_limit_placement(tmp_path):
    d = small_map(tmp_path)
    a, b = deploy(d)
    left = dict((e.stem, n) for e, n in d.to_place(a))
    assert left["reaver"] == 3
    for x in (2, 4, 6):
        d.place_from_roster(a, "reaver", (x, 1.5))
    assert dict((e.stem, n) for e, n in d.to_place(a))["reaver"] == 0


def test_edit_unit_stats_and_status_are_validated(tmp_path):
    d = small_map(tmp_path)
    a, _ = deploy(d)
    uid = d.place_from_roster(a, "captain", (3, 1.5))
    d.set_unit(uid, stats={"agility": 13}, status="stunned")
    assert d.unit(uid).stats["agility"] == 13 and d.unit(uid).status == "stunned"
    with pytest.raises(EditError, match="unknown status"):
        d.set_unit(uid, status="sleepy")
    with pytest.raises(EditError, match="move must be a number of 0 or more"):
        d.set_unit(uid, stats={"move": -1})


# --- rosters -------------------------------------------------------------------------


def test_bundled_rosters_load():
    for path in glob.glob(os.path.join(ROSTERS, "*.yaml")):
        r = load_roster(path)
        assert r.entries and all(
            e.base_mm > 0 and set(e.stats) >= {"move", "agility", "morale", "defence"} for e in r.entries
        )


def test_bad_roster_reports_file_and_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text(
        "name: Broken\nunits:\n  - name: Runt\n    base_mm: -3\n    stats: {move: 5, agility: 9, morale: 8}\n"
        "    keyword: [x]\n"
    )
    with pytest.raises(LoadError) as exc:
        load_roster(str(p))
    lines = [str(x) for x in exc.value.problems]
    assert f"{p}:4: unit 'Runt': base_mm must be a number of mm more than 0, not -3" in lines
    assert f"{p}:5: unit 'Runt': stats are missing 'defence'" in lines
    p.write_text(
        "name: Typo\nunits:\n  - name: Runt\n    base_mm: 25\n    stats: {move: 5, agilty: 9, morale: 8, defence: 7}\n"
    )
    with pytest.raises(LoadError) as exc:
        load_roster(str(p))
    assert [str(x) for x in exc.value.problems] == [
        f"{p}:5: unit 'Runt': unknown stat 'agilty' (did you mean 'agility'?)"
    ]
    assert any(line.startswith(f"{p}:6: unknown field 'keyword'") and "keywords" in line for line in lines)


# --- validation equals speedheim check --------------------------------------------------------------


def test_live_validation_reports_what_check_reports_and_names_the_items(tmp_path, capsys):
    d = small_map(tmp_path)
    a, b = deploy(d)
    u1 = d.place_from_roster(a, "captain", (3, 1.5))
    d.place_from_roster(a, "reaver", (6, 1.5))
    lid = d.add_ladder((14.2, 12))
    # Break things the way a designer can: move a base onto another, a ladder away from its block.
    d.move([("unit", u1)], 2.5, 0)
    d.move([("ladder", lid)], 3, 0)
    findings = d.validate()
    path = d.path
    d.save()
    capsys.readouterr()
    assert main(["check", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert [str(f) for f in findings] == err
    refs = {f.ref for f in findings}
    assert ("ladder", lid) in refs and any(r and r[0] == "unit" for r in refs)


def test_ref_of_maps_problem_paths_to_items(tmp_path):
    d = small_map(tmp_path)
    a, _ = deploy(d)
    uid = d.place_from_roster(a, "captain", (3, 1.5))
    data = d.to_dict()
    assert ref_of(data, "terrain.2.polygon") == ("terrain", "wall-1")
    assert ref_of(data, "warbands.0.units.0.at") == ("unit", uid)
    assert ref_of(data, "deployment.reavers") == ("zone", "reavers")
    assert ref_of(data, "warbands.1.player") == ("warband", "wardens")
    assert ref_of(data, "") is None and ref_of(data, "terrain.99") is None


@pytest.mark.parametrize("path", MAPS, ids=os.path.basename)
def test_live_validator_builds_the_same_text_values_and_lines_as_load_yaml(path):
    d = Document.open(path)
    data = d.to_dict()
    v = LiveValidator()
    text, src = v.source(path, data)
    ref = load_yaml(dump_yaml(data), path)
    assert text == dump_yaml(data) == fast_dump(data)
    assert src.data == ref.data and src.lines == ref.lines
    # After one edit only the changed item is read again, and the result still agrees.
    if d.sc.terrain:
        piece = d.sc.terrain[0].id
        d.move([("terrain", piece)], 0.25, 0)
        text2, src2 = v.source(path, d.to_dict())
        assert v.reread == 1 + sum(1 for lad in d.sc.ladders if lad.top == piece)  # its ladders move along
        ref2 = load_yaml(text2, path)
        assert text2 == dump_yaml(d.to_dict()) and src2.data == ref2.data and src2.lines == ref2.lines


# --- saving and round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", MAPS, ids=os.path.basename)
def test_round_trip_on_every_bundled_map(path, tmp_path):
    sc = load_scenario(path)
    out = str(tmp_path / "out.yaml")
    Document(sc, out).save()
    again = load_scenario(out)
    assert again == sc
    Document(again, out).save()
    assert open(out).read() == dump_yaml(scenario_to_dict(sc))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["block", "wall", "difficult", "impassable"]),
            st.integers(0, 60),
            st.integers(0, 40),
            st.integers(1, 16),
            st.integers(1, 12),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_round_trip_property_on_edited_maps(tmp_path_factory, pieces):
    d = Document.new(72, 48, path=str(tmp_path_factory.mktemp("rt") / "m.yaml"))
    d.snap_step = 0.25
    for kind, x, y, w, h in pieces:
        x0, y0 = d.snap(x * 1.1), d.snap(y * 1.1)
        try:
            d.add_rect(kind, (x0, y0), (min(72, x0 + w / 1.5), min(48, y0 + h / 1.5)))
        except EditError:
            pass
    d.save()
    assert load_scenario(d.path) == d.sc


def test_save_is_stable_and_keeps_ids(tmp_path):
    d = small_map(tmp_path)
    d.save()
    first = open(d.path).read()
    d2 = Document.open(d.path)
    d2.save()
    assert open(d.path).read() == first
    assert "id: block-1" in first and first.index("block-1") < first.index("block-2") < first.index("wall-1")


def test_a_map_saved_with_problems_opens_again_with_them(tmp_path):
    d = small_map(tmp_path)
    a, _ = deploy(d)
    uid = d.place_from_roster(a, "captain", (3, 1.5))
    d.move([("unit", uid)], 7, 10.5)  # onto the edge of block-1: straddles a 3" height change
    assert d.validate(), "the edit made a problem"
    d.save()
    again = Document.open(d.path)
    assert [str(p) for p in again.opened_with] == [str(f) for f in d.validate()]
    assert uid in again.sc.state.units


def test_document_modules_import_no_pygame():
    code = (
        "import sys\nimport game.editor.document, game.editor.roster, game.editor.placement, game.editor.validate\n"
        "print('pygame' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_a_transaction_is_one_undo_step_and_cancel_restores(tmp_path):
    d = small_map(tmp_path)
    start = d.to_text()
    d.begin("drag")
    for _ in range(5):
        d.move([("terrain", "block-1")], 0.5, 0)
    d.commit()
    assert d.terrain("block-1").polygon[0] == (12.5, 10)
    d.undo()
    assert d.to_text() == start
    d.begin("drag")
    d.move([("terrain", "block-1")], 1, 0)
    d.cancel()
    assert d.to_text() == start and d.can_redo  # cancelling does not touch the history
