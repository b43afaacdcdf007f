"""Rulesets as data: every bundled file loads, overrides are checked (issue 2, item 2)."""

import pathlib
import re

import pytest

from game.engine.errors import LoadError
from game.engine.ruleset import available, load_ruleset
from game.engine.scenario import load_scenario

RULES_MD = pathlib.Path(__file__).resolve().parents[2] / "shared" / "rules" / "RULES.md"


def test_bundled_rulesets_load():
    assert {"speedheim", "rout-legacy", "rout-breakpoint"} <= set(available())
    base = load_ruleset("speedheim")
    legacy = load_ruleset("rout-legacy")
    breakpoint_ = load_ruleset("rout-breakpoint")
    assert base.rout_variant == "standard"
    assert legacy.rout_variant == "legacy" and legacy.run_denial_range == base.run_denial_range
    assert breakpoint_.rout_variant == "break_point" and breakpoint_.break_point_divisor == 3


def test_every_number_of_the_rules_is_a_parameter():
    rs = load_ruleset()
    # The numbers RULES.md names, each with the parameter that holds it.
    expected = {
        "run_denial_range": 8,
        "run_multiplier": 1.5,
        "free_height": 1,
        "jump_gap_max": 3,
        "jump_height_max": 1,
        "jump_down_disadvantage_from": 4,
        "jump_down_landing_max": 3,
        "difficult_penalty": 2,
        "fall_free_height": 2,
        "fall_modifier_per_inch": 2,
        "contact_tolerance": 0.05,
        "token_size_mm": 25,
        "mm_per_inch": 25.4,
        "rout_threshold": 6,
        "treasure_denial_range": 2,
        "treasure_grab_range": 5,
        "check_die": 20,
        "staggered_move_factor": 0.5,
        "dazed_move_factor": 0.5,
        "engage_move_factor": 1,
    }
    for key, value in expected.items():
        assert rs[key] == value, key
    assert rs.phase_names == ["upkeep", "engage", "move", "shoot", "melee"]
    assert rs.upkeep_steps == ["neutrals", "rout", "recover", "treasure", "ongoing_spells"]
    assert rs.injury_result(11) == "none" and rs.injury_result(12) != "none"


@pytest.mark.skipif(not RULES_MD.exists(), reason="shared rules not beside the checkout")
def test_rule_ids_of_rules_md_exist():
    ids = set(re.findall(r"^- ([MUG]\d+) ", RULES_MD.read_text(), re.M))
    assert {"M1", "M12", "U1", "U8", "G1", "G4"} <= ids


def test_scenario_overrides_a_parameter():
    text = """\
name: O
table: {width: 24, height: 24}
ruleset: rout-legacy
rules: {run_denial_range: 6, dazed_move: none}
warbands: []
"""
    sc = load_scenario("o.yaml", text=text)
    assert sc.ruleset.run_denial_range == 6
    assert sc.ruleset.dazed_move == "none"
    assert sc.ruleset.rout_variant == "legacy"


@pytest.mark.parametrize(
    "rules,words",
    [
        ("{dazed_move: sometimes}", "dazed_move must be one of"),
        ("{run_denial_range: -1}", "at least 0"),
        ("{run_multiplier: 0}", "more than 0"),
        ("{treasure_first_turn_skipped: 3}", "true or false"),
        ("{injury_table: [[1, 2]]}", "injury_table row 1"),
        ("[1, 2]", "mapping"),
    ],
)
def test_bad_overrides_are_reported_on_their_line(rules, words):
    text = f"name: O\ntable: {{width: 24, height: 24}}\nrules: {rules}\nwarbands: []\n"
    with pytest.raises(LoadError) as info:
        load_scenario("o.yaml", text=text)
    assert any(p.line == 3 and words in p.message for p in info.value.problems), info.value.problems


def test_ruleset_file_by_path_and_broken_ruleset(tmp_path):
    good = tmp_path / "house.yaml"
    good.write_text("name: house\nextends: speedheim\nrun_denial_range: 10\n")
    assert load_ruleset(str(good)).run_denial_range == 10
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nextends: speedheim\nrun_denial_range: far\n")
    with pytest.raises(LoadError) as info:
        load_ruleset(str(bad))
    assert info.value.problems[0].line == 3
    loop = tmp_path / "loop.yaml"
    loop.write_text("name: loop\nextends: loop.yaml\n")
    with pytest.raises(LoadError):
        load_ruleset(str(loop))
    partial = tmp_path / "partial.yaml"
    partial.write_text("name: partial\nrun_denial_range: 8\n")
    with pytest.raises(LoadError) as info:
        load_ruleset(str(partial))
    assert any("missing parameter" in p.message for p in info.value.problems)


def test_scenario_names_a_ruleset_file_beside_it(tmp_path):
    (tmp_path / "house.yaml").write_text("name: house\nextends: speedheim\nrun_denial_range: 10\n")
    path = tmp_path / "map.yaml"
    path.write_text("name: M\ntable: {width: 24, height: 24}\nruleset: house.yaml\nwarbands: []\n")
    assert load_scenario(str(path)).ruleset.run_denial_range == 10


def test_every_parameter_belongs_to_a_rule_and_variants_name_theirs():
    from game.engine.ruleset import NOT_RULES, PARAMETER_RULES, load_ruleset, rules_changed, rules_of

    base = load_ruleset("speedheim")
    assert [k for k in base if k not in PARAMETER_RULES and k not in NOT_RULES] == []
    assert rules_changed(base, load_ruleset("rout-legacy")) == ["U2"]
    assert rules_changed(base, load_ruleset("rout-breakpoint")) == ["U2"]
    assert rules_changed(base, base.with_overrides({"treasure_denial_range": 1, "run_denial_range": 4})) == ["M2", "U6"]
    assert (
        rules_changed(base, base) == []
        and rules_of("break_point_table") == ("U2",)
        and rules_of("homebrew") == ("homebrew",)
    )
    # a parameter that sets several rules names them all; the check die names the checks
    assert rules_changed(base, base.with_overrides({"combat": "placeholder"})) == ["F1", "S1", "S2"]
    assert rules_changed(base, base.with_overrides({"check_die": 12})) == ["check"]
