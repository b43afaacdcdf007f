"""Action scripts: parsing and FILE:LINE problems (FORMATS.md)."""

import pytest

from game.cli import main
from game.engine.actions import SPECS, check_action, load_script, parse_action
from game.engine.errors import IllegalAction, LoadError
from tests.factories import GOOD_SCRIPT


def test_the_formats_example_parses():
    s = load_script("ex.yaml", GOOD_SCRIPT)
    assert s.seed == 7 and s.dice == [12, 3, 20]
    assert len(s.actions) == 14
    assert s.actions[0] == {"move": {"unit": "red-captain", "to": [10, 4]}}
    assert s.actions[12] == {"end_phase": {}}
    assert s.lines[0] == 4 and s.lines[-1] == 17


def problems(text):
    with pytest.raises(LoadError) as exc:
        load_script("bad.yaml", text)
    return [str(p) for p in exc.value.problems]


def test_each_problem_has_its_own_line():
    text = """\
seed: seven
dice: [1, 0]
actions:
  - mvoe: {unit: a, to: [1, 2]}
  - move: {unit: a}
  - set_status: {unit: a, status: sleepy}
  - roll: {sides: 0}
  - engage: {unit: a}
  - end_phase: {now: true}
  - move: {unit: a, to: [1, x]}
"""
    got = problems(text)
    assert "bad.yaml:1: seed must be a whole number, not text 'seven'" in got
    assert any(p.startswith("bad.yaml:2: dice roll 2") for p in got)
    assert "bad.yaml:4: action 1: unknown action 'mvoe' (did you mean 'move'?)" in got
    assert "bad.yaml:5: action 2: move needs exactly one of 'to' or 'path'" in got
    assert any(p.startswith("bad.yaml:6: action 3: set_status status: unknown status 'sleepy'") for p in got)
    assert any(p.startswith("bad.yaml:7: action 4: roll sides must be at least 1") for p in got)
    assert "bad.yaml:8: action 5: engage is missing 'target'" in got
    assert any(p.startswith("bad.yaml:9: action 6: end_phase: unknown field 'now'") for p in got)
    assert any(p.startswith("bad.yaml:10: action 7: move to must be a point") for p in got)


def test_not_a_script():
    assert problems("- 1\n- 2\n") == [
        "bad.yaml:1: an action script must be a mapping with seed, dice and actions, not a list of 2"
    ]
    assert problems("seed: 1\n") == ["bad.yaml:1: an action script needs an 'actions' list"]
    assert problems("seed: 1\nactions: {move: 1}\n")[0].startswith("bad.yaml:2: actions must be a list")
    assert problems("actions: [1, [2]]\n")[0].startswith("bad.yaml:1: action 1: an action must be one mapping")
    assert problems("actions:\n  - {a: 1, b: 2}\n")[0].startswith("bad.yaml:2: action 1: an action must be one mapping")
    assert problems("") == ["bad.yaml:1: the file is empty"]
    assert problems("actions: [\n")[0].startswith("bad.yaml:")


def test_parse_action_refuses_malformed_dicts_with_the_action_rule():
    with pytest.raises(IllegalAction) as exc:
        parse_action({"teleport": {"unit": "a"}})
    assert exc.value.rule == "action"
    with pytest.raises(IllegalAction):
        parse_action({"move": {"unit": "a", "to": [1, 2], "path": [[1, 2], [3, 4]]}})
    assert parse_action({"move": {"unit": "a", "to": (1, 2)}}).args["to"] == [1.0, 2.0]


def test_every_action_is_documented():
    import os

    doc = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "actions.md")).read()
    for name in SPECS:
        assert f"- {name}:" in doc, f"docs/actions.md has no example of {name}"


def test_check_command_reports_script_lines(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("actions:\n  - end_phase: {}\n  - jump: {}\n")
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3: action 2: unknown action 'jump'" in err
    good = tmp_path / "good.yaml"
    good.write_text(GOOD_SCRIPT)
    assert main(["check", str(good)]) == 0


def test_check_action_paths():
    action, probs = check_action({"roll": {"sides": 6, "count": 500}})
    assert action is None and probs[0][0] == ("roll", "count")
