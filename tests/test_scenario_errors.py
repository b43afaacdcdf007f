"""Every kind of broken scenario gets its own FILE:LINE line (issue 2, item 3)."""

import math

import pytest

from game.cli import main
from game.engine.errors import LoadError
from game.engine.scenario import load_scenario
from tests.factories import GOOD_SCENARIO


def problems_of(text, tmp_path):
    path = tmp_path / "map.yaml"
    path.write_text(text)
    with pytest.raises(LoadError) as info:
        load_scenario(str(path))
    return [(p.line, p.message) for p in info.value.problems], str(path)


def edit(old, new, count=1):
    assert old in GOOD_SCENARIO, old
    return GOOD_SCENARIO.replace(old, new, count)


def test_good_file_loads(tmp_path):
    path = tmp_path / "map.yaml"
    path.write_text(GOOD_SCENARIO)
    sc = load_scenario(str(path))
    assert [t.id for t in sc.terrain] == ["tower", "fence", "pool"]
    assert sc.state.units["blue-ogre"].r == pytest.approx(40 / 25.4 / 2)


CASES = [
    # (description, broken text, line, words expected in the message)
    ("yaml syntax", edit("table: {width: 24, height: 24}", "table: {width: 24, height: 24"), 3, "syntax"),
    ("unsafe tag", edit("name: Test table", "name: !!python/object/apply:os.system [ls]"), 1, "safe"),
    ("missing field", edit("    kind: block\n", ""), 4, "missing 'kind'"),
    ("mistyped field", edit("height: 3\n", "height: tall\n"), 6, "must be a number"),
    ("unknown field", edit("    height: 3\n", "    height: 3\n    colour: red\n"), 7, "unknown field 'colour'"),
    ("nan", edit("height: 3\n", "height: .nan\n"), 6, "NaN"),
    ("infinite", edit("at: [6, 6]", "at: [.inf, 6]"), 21, "infinite"),
    (
        "two-point polygon",
        edit("polygon: [[18, 2], [22, 2], [22, 6], [18, 6]]", "polygon: [[18, 2], [22, 2]]"),
        14,
        "at least 3 points",
    ),
    (
        "self-intersecting",
        edit("[[10, 10], [14, 10], [14, 14], [10, 14]]", "[[10, 10], [14, 14], [14, 10], [10, 14]]"),
        7,
        "self-intersecting",
    ),
    (
        "off the table",
        edit("[[18, 2], [22, 2], [22, 6], [18, 6]]", "[[18, 2], [26, 2], [26, 6], [18, 6]]"),
        14,
        "off the table",
    ),
    ("negative height", edit("height: 3\n", "height: -3\n"), 6, "negative"),
    ("unknown kind", edit("kind: wall", "kind: hedge"), 9, "unknown kind 'hedge'"),
    ("duplicate id", edit("id: pool", "id: tower"), 12, "duplicate id 'tower' (first used on line 4)"),
    ("ladder top not a block", edit("top: tower", "top: fence"), 18, "not a block"),
    ("ladder top unknown", edit("top: tower", "top: castle"), 18, "names no terrain"),
    ("carrying no token", edit("carrying: null", "carrying: t9"), 34, "carrying 't9' names no treasure"),
    ("unit off the table", edit("at: [3, 3]", "at: [0.2, 3]"), 29, "off the table"),
    ("unit overlap", edit("at: [20, 20]", "at: [3.5, 3]"), 39, "overlaps unit red-captain"),
    ("unit in a wall", edit("at: [20, 20]", "at: [5, 20.2]"), 39, "inside wall 'fence'"),
    ("unit in impassable", edit("at: [20, 20]", "at: [20, 4]"), 39, "inside impassable 'pool'"),
    ("straddles a height change", edit("at: [3, 3]", "at: [10, 12]"), 29, "straddles a height change of 3"),
    ("unknown status", edit("status: normal", "status: sleepy"), 33, "unknown status 'sleepy'"),
    (
        "missing stats",
        edit("stats: {move: 5, agility: 9, morale: 12, defence: 12}", "stats: {move: 5, agility: 9, morale: 12}"),
        41,
        "missing 'defence'",
    ),
    (
        "unknown ruleset parameter",
        edit("table: {width: 24, height: 24}\n", "table: {width: 24, height: 24}\nrules: {run_range: 8}\n"),
        3,
        "unknown ruleset parameter 'run_range'",
    ),
    (
        "bad ruleset parameter",
        edit("table: {width: 24, height: 24}\n", "table: {width: 24, height: 24}\nrules: {run_denial_range: .nan}\n"),
        3,
        "finite",
    ),
    (
        "unknown ruleset",
        edit("table: {width: 24, height: 24}\n", "table: {width: 24, height: 24}\nruleset: chess\n"),
        3,
        "unknown ruleset 'chess'",
    ),
    ("duplicate key", edit("        base_mm: 40\n", "        base_mm: 40\n        base_mm: 32\n"), 41, "duplicate key"),
    ("unknown event", edit("event: none", "event: dragon"), 22, "event must be one of"),
    ("state phase", GOOD_SCENARIO + "state: {phase: dance}\n", 42, "unknown phase 'dance'"),
]


@pytest.mark.parametrize("name,text,line,words", CASES, ids=[c[0] for c in CASES])
def test_each_broken_file_gets_its_own_line(tmp_path, name, text, line, words):
    problems, _ = problems_of(text, tmp_path)
    assert any(at == line and words in msg for at, msg in problems), problems


@pytest.mark.parametrize("name,text,line,words", CASES, ids=[c[0] for c in CASES])
def test_check_prints_file_line_and_exits_2(tmp_path, capsys, name, text, line, words):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}: " in err
    assert "Traceback" not in err


def test_empty_file(tmp_path):
    problems, _ = problems_of("", tmp_path)
    assert problems == [(1, "the file is empty")]
    problems, _ = problems_of("# only a comment\n", tmp_path)
    assert problems == [(1, "the file is empty")]


def test_not_a_mapping(tmp_path):
    problems, _ = problems_of("- 1\n- 2\n", tmp_path)
    assert "must be a mapping" in problems[0][1]


def test_every_problem_is_reported_not_just_the_first(tmp_path):
    text = edit("kind: wall", "kind: hedge").replace("height: 3\n", "height: -1\n").replace("top: tower", "top: castle")
    problems, _ = problems_of(text, tmp_path)
    assert len(problems) >= 3


def test_missing_file_and_directory(tmp_path, capsys):
    """A file that cannot be read has no line to point at: ``FILE: what is wrong``."""
    assert main(["check", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{tmp_path / 'nope.yaml'}: no such file"]
    assert main(["check", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{tmp_path}: is a directory, not a file"]


def test_misspelt_stat_is_named_with_did_you_mean(tmp_path, capsys):
    """``agilty`` for ``agility``: the misspelt key on its own line, with the stat it is
    close to; a stat that is simply absent is still "missing"."""
    text = edit("stats: {move: 6, agility: 12,", "stats: {move: 6, agilty: 12,")
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "agilty" in s)
    problems, path = problems_of(text, tmp_path)
    assert problems == [(line, "unit red-captain: unknown stat 'agilty' (did you mean 'agility'?)")]
    assert main(["check", path]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"{path}:{line}: unit red-captain: unknown stat 'agilty' (did you mean 'agility'?)"
    )
    problems, _ = problems_of(edit("move: 6, agility: 12, ", "move: 6, "), tmp_path)
    assert problems == [(line, "unit red-captain: stats are missing 'agility'")]


def test_binary_file(tmp_path, capsys):
    path = tmp_path / "x.yaml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["check", str(path)]) == 2
    assert f"{path}:1:" in capsys.readouterr().err


def test_straddle_within_free_height_is_fine(tmp_path):
    text = edit("height: 3\n", "height: 1\n").replace("at: [3, 3]", "at: [10, 12]")
    path = tmp_path / "ok.yaml"
    path.write_text(text)
    sc = load_scenario(str(path))
    assert math.isclose(sc.state.units["red-captain"].x, 10)
