"""The players' rules reference (issue 23): docs/rules.md, shipped as game/assets/rules.md.

Every rule id the program can cite has an entry, found from the code itself (not from a
hand-kept list): the ids in its messages and the rule of every refusal, roll and
automatic step. Every parameter of the bundled rulesets is named, with the default the
ruleset file really has.
"""

from __future__ import annotations

import os
import re

import pytest
import yaml

import game
from game import bundled, rules_doc
from game.engine.ruleset import load_ruleset
from game.rule_citations import cited_ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.dirname(os.path.abspath(game.__file__))


def test_the_scan_finds_what_the_engine_cites():
    """The scan is not empty-handed: the refusals and steps of the engine are in it."""
    ids = cited_ids()
    assert {
        "M1",
        "M2",
        "M5",
        "M12",
        "U2",
        "U6",
        "E1",
        "S1",
        "F1",
        "T1",
        "L1",
        "turn",
        "action",
        "internal",
        "free",
        "check",
    } <= set(ids)
    assert "P1" not in ids and "T2" not in ids  # player labels and docstring variables are not rules


def test_every_rule_id_the_program_cites_has_an_entry():
    entries = rules_doc.entries()
    missing = {rule: where for rule, where in cited_ids().items() if rule not in entries}
    assert missing == {}, f"add a '### ID Title' section to game/assets/rules.md for: {missing}"


def test_every_rule_of_the_rules_has_an_entry():
    """RULES.md's ids, G1 to T1, whether or not a message cites them today."""
    expected = {f"G{i}" for i in range(1, 5)} | {f"M{i}" for i in range(1, 13)} | {f"U{i}" for i in range(1, 9)}
    expected |= {"L1", "L2", "S1", "S2", "F1", "E1", "T1"}
    entries = rules_doc.entries()
    assert expected <= set(entries)
    for rule in expected:
        e = entries[rule]
        assert e.title and len(e.text) > 40, rule


def _ruleset_files() -> list[str]:
    folder = bundled.rulesets_dir()
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".yaml"))


def test_every_ruleset_parameter_is_named():
    with open(rules_doc.path(), encoding="utf-8") as fh:
        text = fh.read()
    params = set()
    for path in _ruleset_files():
        with open(path, encoding="utf-8") as fh:
            params |= set(yaml.safe_load(fh)) - {"name", "description", "extends"}
    assert "run_denial_range" in params and "break_point_divisor" in params
    assert sorted(p for p in params if f"`{p}`" not in text) == []


def _table_cells() -> dict[str, list[str]]:
    """The parameter table: parameter -> its other cells (default, rules, what it sets)."""
    with open(rules_doc.path(), encoding="utf-8") as fh:
        text = fh.read()
    rows = {}
    for line in text.split("## Every parameter", 1)[1].splitlines():
        m = re.match(r"^\|\s*`([a-z_]+)`\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def _table_rows() -> dict[str, str]:
    """parameter -> its default, as the table gives it."""
    return {p: cells[0] for p, cells in _table_cells().items()}


def test_the_parameter_table_gives_each_default_of_the_ruleset():
    """A scalar default in the table is the value of speedheim.yaml (the table cannot drift)."""
    rows = _table_rows()
    rs = load_ruleset("speedheim")
    with open(os.path.join(bundled.rulesets_dir(), "speedheim.yaml"), encoding="utf-8") as fh:
        keys = set(yaml.safe_load(fh)) - {"name", "description"}
    assert keys <= set(rows), sorted(keys - set(rows))
    checked = 0
    for key in sorted(keys):
        value = rs.get(key)
        if isinstance(value, bool):
            assert rows[key] == str(value).lower(), key
        elif value is None:
            assert rows[key] == "null", key
        elif isinstance(value, (int, float, str)):
            assert rows[key] == (f"{value:g}" if not isinstance(value, str) else value), key
        else:
            continue
        checked += 1
    assert checked >= 50


def test_defaults_in_the_text_match_the_ruleset():
    """ "`run_denial_range` (8")" in a rule's text: the number is the ruleset's."""
    rs = load_ruleset("speedheim")
    with open(rules_doc.path(), encoding="utf-8") as fh:
        text = fh.read()
    seen = 0
    for m in re.finditer(r"`([a-z_]+)` \(x?([0-9.]+)\"?\)", text):
        value = rs.get(m.group(1))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert float(m.group(2)) == pytest.approx(float(value)), m.group(0)
            seen += 1
    assert seen >= 15


def test_docs_rules_md_is_the_shipped_file():
    """One source of truth: docs/rules.md is game/assets/rules.md, and it ships (assets/*.md)."""
    assert os.path.samefile(os.path.join(ROOT, "docs", "rules.md"), rules_doc.path())
    assert rules_doc.path() == os.path.join(PACKAGE, "assets", "rules.md")
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as fh:
        assert '"assets/*.md"' in fh.read()


def test_find_ids_in_a_refusal_and_a_log_line():
    line = 'refused move: M2: run denied: blue-ogre is 6.30" away (8" or less)'
    assert [(line[a:b], r) for a, b, r in rules_doc.find_ids(line)] == [("M2", "M2")]
    line = "   auto [upkeep] turn: upkeep phase; U6 skipped, P1 and M99 are not rules"
    assert [r for _, _, r in rules_doc.find_ids(line)] == ["turn", "U6"]
    assert rules_doc.lookup("M5").title == "Units block"
    assert "`" not in rules_doc.lookup("M2").text and "run_multiplier (1.5)" in rules_doc.lookup("M2").text


def test_the_parameter_table_names_the_rule_the_engine_gives_each_parameter():
    """The reference and ``ruleset.rules_of`` (which studies use to say what a variant changes)
    agree on the rule each parameter belongs to."""
    from game.engine.ruleset import rules_of

    rules = {p: {r.strip() for r in cells[1].split(",")} for p, cells in _table_cells().items()}
    assert len(rules) > 40
    wrong = {p: (rules_of(p), sorted(r)) for p, r in rules.items() if not set(rules_of(p)) <= r}
    assert wrong == {}
