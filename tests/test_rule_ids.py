"""Rule ids as names (``game.engine.rule_ids.RuleId``) and ``speedheim rules [ID]``: every id
is a section of the rules reference, a member reads exactly as its plain id, and the command
finds the code that enforces a rule from the source itself."""

from __future__ import annotations

import json
import re

import yaml

from game import rules_doc
from game.cli import main
from game.engine.errors import IllegalAction
from game.engine.rule_ids import RuleId
from game.engine.yamlsrc import dump_yaml
from game.rule_citations import citations_of, scan_file


def test_every_rule_id_is_a_section_of_the_reference_and_back():
    entries = rules_doc.entries()
    assert sorted(r.value for r in RuleId) == sorted(entries)
    for rule in RuleId:
        assert entries[rule].rule == rule.value


def test_a_member_reads_as_its_plain_id():
    """Logs, JSON, YAML and refusals print the id, so replays stay byte for byte."""
    assert RuleId.M9 == "M9" and str(RuleId.M9) == "M9" and f"{RuleId.TURN}" == "turn"
    assert json.dumps({"rule": RuleId.E1}) == '{"rule": "E1"}'
    assert dump_yaml({"rule": RuleId.M12}) == "rule: M12\n"
    assert yaml.safe_load(dump_yaml([RuleId.U6])) == ["U6"]
    exc = IllegalAction(RuleId.M2, "run denied")
    assert str(exc) == "M2: run denied" and exc.rule == "M2"
    assert {"M9": 1}[RuleId.M9] == 1


def test_the_scan_finds_members_and_string_ids(tmp_path):
    """A refusal cites its rule by member or by string; a docstring that opens with the id
    counts only in the engine; other docstrings, comments and non-rule words do not."""
    src = tmp_path / "mod.py"
    src.write_text(
        '''"""M1 in a module docstring is not a citation."""
from game.engine.rule_ids import RuleId


class Mover:
    def plan(self):
        """M9: lands as far out as it may."""
        raise IllegalAction(RuleId.M9, "descend must be climb or jump")  # M5 in a comment

    def fall(self, dice):
        return dice.roll(20, "fall", rule="M7"), "see U6", RuleId.ACTION, "P1"
''',
        encoding="utf-8",
    )
    found = {(c.line, c.rule, c.kind, c.where) for c in scan_file(str(src))}
    assert found == {
        (8, "M9", "refuses", "Mover.plan"),
        (11, "M7", "records", "Mover.fall"),
        (11, "U6", "mentions", "Mover.fall"),
        (11, "action", "names", "Mover.fall"),
    }


def test_the_engine_cites_m9_where_jumps_down_are_made():
    places = {(c.path.replace("\\", "/"), c.kind) for c in citations_of("M9")}
    assert ("game/engine/movement/tracer.py", "records") in places
    assert ("game/engine/movement/search.py", "implements") in places
    assert ("game/engine/movement/mover.py", "refuses") in places


def test_rules_m9_names_the_files_and_lines_that_enforce_it(capsys):
    assert main(["rules", "M9"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("M9 Jumping down\n")
    assert "may land up to jump_down_landing_max" in out  # the rule's text
    assert re.search(r"^  jump_down_landing_max = 3$", out, re.M)  # its parameter, with the bundled value
    enforced = out.split("Enforced in the engine:", 1)[1].split("Cited elsewhere:", 1)[0]
    lines = re.findall(r"^  (game/engine/\S+\.py):(\d+)  (\w+)", enforced, re.M)
    files = {path for path, _, _ in lines}
    assert {"game/engine/movement/tracer.py", "game/engine/movement/search.py"} <= files
    for path, line, _ in lines:  # every place it names does cite M9 on that line (or opens its docstring)
        with open(path, encoding="utf-8") as fh:
            text = fh.read().splitlines()[int(line) - 1]
        assert "M9" in text, (path, line, text)


def test_rules_lists_every_id_with_its_title(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(RuleId)
    assert "M9 Jumping down" in [re.sub(r"\s+", " ", line) for line in out]
    assert out[0].split()[0] == "G1"


def test_rules_of_a_word_id_and_in_any_case(capsys):
    assert main(["rules", "m12"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("M12 Difficult ground\n") and "difficult_penalty = " in out
    assert main(["rules", "check"]) == 0
    assert "check_die = 20" in capsys.readouterr().out


def test_an_unknown_rule_id_exits_2_with_a_suggestion(capsys):
    assert main(["rules", "M99"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "unknown rule id 'M99'" in err[0] and "did you mean M9" in err[0]
    assert main(["rules", "zzzzzz"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_the_engine_cites_no_rule_as_a_bare_string():
    """A refusal, a roll, a step or a note of the engine names its rule by member
    (``RuleId.M9``), so that a search for the member finds every place."""
    import ast
    import os

    import game

    engine = os.path.join(os.path.dirname(os.path.abspath(game.__file__)), "engine")
    bare = []
    for folder, _, files in os.walk(engine):
        for name in files:
            if not name.endswith(".py") or name == "rule_ids.py":
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for n in ast.walk(tree):
                if not isinstance(n, ast.Call):
                    continue
                f = n.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                args = [n.args[0]] if called in ("IllegalAction", "UnmeasuredRefusal", "auto") and n.args else []
                args += [k.value for k in n.keywords if k.arg == "rule"]
                args += [a for a in n.args if called in ("note", "Note", "Measured")]
                for a in args:
                    if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value in set(RuleId):
                        bare.append(f"{os.path.relpath(path, engine)}:{n.lineno} {a.value!r}")
    assert bare == []
