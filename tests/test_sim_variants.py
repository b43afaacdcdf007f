"""``--variant`` specs, study files and bad input: all checked before any game starts."""

from __future__ import annotations

import os

import pytest

from game.cli import main
from game.engine.errors import LoadError
from game.engine.scenario import load_scenario
from game.sim.study import Plan, RunSpec, load_study, resolve
from game.sim.variants import DEFAULT_TURN_LIMIT, parse_variant, split_top, swap_seats, variant_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MAP = os.path.join(ROOT, "maps", "default.yaml")
DUEL = os.path.join(ROOT, "tests", "scripts", "duel.yaml")


def test_spec_parsing_ruleset_overrides_and_yaml_values():
    v = parse_variant(
        "rout-legacy,rout_threshold=5,treasure_denial_range=2.5,animals_use_ladders=true,"
        "break_point_dice=[2, 6],combat=placeholder"
    )
    assert v.ruleset == "rout-legacy"
    assert v.overrides == {
        "rout_threshold": 5,
        "treasure_denial_range": 2.5,
        "animals_use_ladders": True,
        "break_point_dice": [2, 6],
        "combat": "placeholder",
    }
    assert parse_variant("default").ruleset is None and parse_variant("default").overrides == {}
    assert split_top("a=[1, 2],b={x: 1, y: 2},c='p,q'") == ["a=[1, 2]", "b={x: 1, y: 2}", "c='p,q'"]


@pytest.mark.parametrize(
    "spec, words",
    [
        ("rout-legacy,rout-breakpoint", "two rulesets"),
        ("rout_threshold=", "has no value"),
        ("=5", "names no parameter"),
        ("rout_threshold=1,rout_threshold=2", "given twice"),
        ("a=1,,b=2", "empty item"),
    ],
)
def test_malformed_specs(spec, words):
    with pytest.raises(LoadError) as exc:
        parse_variant(spec)
    assert words in str(exc.value)


def _variant(spec, **kw):
    return variant_scenario(load_scenario(DEFAULT_MAP), parse_variant(spec), **kw)


def test_variant_bakes_rules_turn_limit_and_placeholder_combat():
    data, limit = _variant("rout_threshold=3")
    assert data["rules"]["rout_threshold"] == 3
    assert data["rules"]["combat"] == "placeholder"  # the bundled ruleset says manual
    assert limit == DEFAULT_TURN_LIMIT == data["rules"]["turn_limit"]
    data, limit = _variant("rout-legacy", turn_limit=7)
    assert data["ruleset"] == "rout-legacy" and limit == 7 and data["rules"]["turn_limit"] == 7
    data, limit = _variant("turn_limit=5")  # the variant's own T1
    assert limit == 5


def test_variant_ruleset_file_is_embedded(tmp_path):
    rs = tmp_path / "mine.yaml"
    rs.write_text("name: mine\nextends: speedheim\nrout_threshold: 4\nturn_limit: 9\n")
    data, limit = _variant(str(rs))
    assert isinstance(data["ruleset"], dict) and data["ruleset"]["rout_threshold"] == 4
    assert limit == 9  # the ruleset's turn limit when the command gives none


def test_swap_seats_exchanges_players_only():
    data, _ = _variant("default")
    swapped = swap_seats(data)
    assert [w["player"] for w in data["warbands"]] == [1, 2]
    assert [w["player"] for w in swapped["warbands"]] == [2, 1]
    assert [w["id"] for w in swapped["warbands"]] == [w["id"] for w in data["warbands"]]


@pytest.mark.parametrize(
    "spec, words",
    [
        ("rout_treshold=5", "unknown ruleset parameter 'rout_treshold' (did you mean 'rout_threshold'?)"),
        ("rout_threshold=-1", "rout_threshold must be at least 0"),
        ("rout_threshold=many", "rout_threshold must be a finite number"),
        ("combat=magic", "combat must be one of manual, placeholder"),
        ("turn_limit=0", "turn_limit must be a whole number"),
        ("no-such-rules", "unknown ruleset 'no-such-rules'"),
    ],
)
def test_bad_variant_exits_2_before_any_game(tmp_path, capsys, spec, words):
    out = tmp_path / "run"
    code = main(["simulate", DUEL, "--games", "2", "--variant", "default", "--variant", spec, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert words in err and spec in err
    assert not (out / "games.jsonl").exists() and not (out / "run.json").exists()


def test_bad_options_exit_2(tmp_path, capsys):
    assert main(["simulate", DUEL, "--bots", "utility,clever", "--out", str(tmp_path / "a")]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err
    assert main(["simulate", DUEL, "--games", "0", "--out", str(tmp_path / "b")]) == 2
    assert "--games: must be at least 1" in capsys.readouterr().err
    assert main(["simulate", os.path.join(ROOT, "no-such-map.yaml"), "--out", str(tmp_path / "c")]) == 2
    assert main(["simulate", "--resume", "--out", str(tmp_path / "d")]) == 2
    assert "no run here to resume" in capsys.readouterr().err
    lone = tmp_path / "lone.yaml"
    lone.write_text(
        "name: lone\ntable: {width: 10, height: 10}\nwarbands:\n  - id: a\n    player: 1\n    units:\n"
        "      - {id: u, name: U, at: [5, 5], base_mm: 25, stats: {move: 4, agility: 10, morale: 10, defence: 10}}\n"
    )
    assert main(["simulate", str(lone), "--out", str(tmp_path / "e")]) == 2
    assert f"{lone}:3: a game needs two warbands" in capsys.readouterr().err


def test_study_file_and_command_line_override(tmp_path):
    study = tmp_path / "s.yaml"
    study.write_text(
        f"scenario: {os.path.relpath(DUEL, tmp_path)}\ngames: 7\nvariants: [default, rout_threshold=2]\n"
        "bots: [random, utility]\nseed: 40\nswap: true\nturn_limit: 3\n"
    )
    plan = load_study(str(study))
    assert (plan.scenario, plan.games, plan.variants, plan.bots, plan.seed, plan.swap, plan.turn_limit) == (
        DUEL,
        7,
        ["default", "rout_threshold=2"],
        [("random", "utility")],
        40,
        True,
        3,
    )
    assert plan.out == os.path.join("sim-out", "s")
    spec, texts = resolve(plan)
    assert [v.label for v in spec.variants] == ["default", "rout_threshold=2"]
    assert set(texts) == {(v.slug, s) for v in spec.variants for s in (False, True)}
    assert spec.total == 7 * 2 * 2
    # what each variant changes, from the rulesets: rout_threshold belongs to U2
    assert [v.rules_changed for v in spec.variants] == [[], ["U2"]]
    assert spec.variants[1].under["turn_limit"] == 3 and spec.variants[1].under["combat"] == "placeholder"


def test_study_lists_several_bot_pairings(tmp_path):
    """A study's ``bots`` may list pairings; every pairing plays every variant on the same
    seeds and seats, the first pairing's games first on each seed."""
    study = tmp_path / "s.yaml"
    study.write_text(
        f"scenario: {os.path.relpath(DUEL, tmp_path)}\ngames: 2\nvariants: [default, rout_threshold=2]\n"
        "bots: [[utility, utility], [random, utility]]\nswap: true\n"
    )
    plan = load_study(str(study))
    assert plan.bots == [("utility", "utility"), ("random", "utility")]
    spec, texts = resolve(plan)
    assert spec.total == 2 * 2 * 2 * 2
    keys = list(spec.keys())
    assert len(set(keys)) == spec.total
    assert {(seed, swapped) for _, seed, swapped, p in keys if p == ("random", "utility")} == {
        (seed, swapped) for _, seed, swapped, p in keys if p == ("utility", "utility")
    }
    jobs = list(spec.jobs(texts, lambda slug, swapped: slug, set()))
    swapped = next(j for j in jobs if j.swapped and j.pairing == ("random", "utility"))
    assert swapped.bots == ("utility", "random") and swapped.log_sub == "random-vs-utility"
    assert RunSpec.from_json(spec.to_json()).bots == spec.bots
    study.write_text(f"scenario: {DUEL}\ngames: 2\nbots: [[utility, utility], [random, clever]]\n")
    with pytest.raises(LoadError, match="unknown bot 'clever'"):
        load_study(str(study))


def test_study_file_problems_have_lines(tmp_path):
    study = tmp_path / "s.yaml"
    study.write_text(f"scenario: {DUEL}\ngames: -3\nvariants:\n  - default\n  - rout_treshold=2\ncolour: red\n")
    with pytest.raises(LoadError) as exc:
        load_study(str(study))
    text = str(exc.value)
    assert f"{study}:2: games must be a whole number of at least 1" in text
    assert f"{study}:6: unknown study option 'colour'" in text
    study.write_text(f"scenario: {DUEL}\ngames: 3\nvariants:\n  - default\n  - rout_treshold=2\n")
    with pytest.raises(LoadError) as exc:
        resolve(load_study(str(study)))
    assert f"{study}:5: unknown ruleset parameter 'rout_treshold'" in str(exc.value)


def test_bundled_rout_study_resolves():
    plan = load_study(os.path.join(ROOT, "studies", "rout.yaml"))
    spec, _ = resolve(plan)
    assert plan.scenario == os.path.join(ROOT, "maps", "crossroads.yaml")
    assert [v.label for v in spec.variants] == ["default", "rout-legacy", "rout-breakpoint"]
    # every variant changes the rout rule, and the table's rout count stays with the standard rule
    assert [v.rules_changed for v in spec.variants] == [[], ["U2"], ["U2"]]
    assert load_scenario(plan.scenario).ruleset.rout_threshold == 3


def test_plan_defaults():
    plan = Plan(scenario=DUEL)
    spec, _ = resolve(plan)
    assert spec.variants[0].label == "default" and spec.variants[0].turn_limit == DEFAULT_TURN_LIMIT
    assert spec.bots == [("utility", "utility")] and spec.seed == 0 and not spec.swap
