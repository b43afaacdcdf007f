"""`speedheim replay`: exact JSON lines, readable log, bad files exit 2 with FILE:LINE."""

import json

from game.cli import main
from tests.factories import path


def run(capsys, *args):
    code = main(["replay", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_lines_have_the_formats_keys(tmp_path, capsys):
    script = tmp_path / "a.yaml"
    script.write_text(
        "seed: 7\nactions:\n  - end_phase: {}\n"
        "  - run: {unit: blue-ogre, to: [28, 28]}\n  - roll: {sides: 6, reason: tray}\n"
    )
    code, out, err = run(capsys, path("duel.yaml"), str(script), "--json")
    assert code == 0 and err == ""
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 4
    assert lines[0] == {
        "i": 0,
        "action": {"end_phase": {}},
        "ok": True,
        "rolls": [],
        "phase": "move",
        "turn": 1,
        "player": 1,
        "automatic": [{"step": "move", "rule": "turn", "text": "move phase"}],
    }
    assert lines[1] == {
        "i": 1,
        "action": {"run": {"unit": "blue-ogre", "to": [28, 28]}},
        "ok": False,
        "rule": "turn",
        "reason": "blue-ogre belongs to player 2; it is player 1's turn",
        "rolls": [],
    }
    (roll,) = lines[2]["rolls"]
    assert roll["sides"] == 6 and roll["reason"] == "tray" and 1 <= roll["kept"] <= 6
    final = lines[3]["final"]
    assert (final["turn"], final["player"], final["phase"], final["winner"]) == (1, 1, "move", None)
    assert final["units"]["red-captain"] == {
        "x": 4.0,
        "y": 4.0,
        "z": 0.0,
        "status": "normal",
        "carrying": None,
        "on_table": True,
    }
    assert final["treasure"]["t1"] == {"x": 18.0, "y": 10.0, "carried_by": None}


def test_readable_log_without_json(capsys):
    code, out, err = run(capsys, path("skirmish.yaml"), path("skirmish-game.yaml"))
    assert code == 0
    assert '#16 run red-mage to [10, 2]: ILLEGAL M2: run denied: blue-thug is 7.62" away (8" or less)' in out
    assert "winner: red" in out.splitlines()[-2]


def test_bad_files_exit_2_with_file_line(tmp_path, capsys):
    script = tmp_path / "bad.yaml"
    script.write_text("seed: 1\nactions:\n  - end_phase: {}\n  - warp: {unit: a}\n")
    code, out, err = run(capsys, path("duel.yaml"), str(script), "--json")
    assert code == 2 and out == ""
    known = ", ".join(__import__("game.engine.actions", fromlist=["SPECS"]).SPECS)
    assert err.strip() == f"{script}:4: action 2: unknown action 'warp' (known: {known})"
    scen = tmp_path / "scen.yaml"
    scen.write_text("name: x\ntable: {width: 0, height: 10}\n")
    code, out, err = run(capsys, str(scen), str(script))
    assert code == 2 and f"{scen}:2:" in err and f"{script}:4:" in err
    code, out, err = run(capsys, path("duel.yaml"), str(tmp_path / "missing.yaml"))
    assert code == 2 and f"{tmp_path / 'missing.yaml'}: no such file" in err
