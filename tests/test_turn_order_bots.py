"""The bots, legal and advise under every turn order and activation (RULES.md O1-O3)."""

import json

import pytest

from game.bots.advise import advise
from game.bots.driver import play_game
from game.bots.planner import make_planner
from game.bots.utility import UtilityBot
from game.cli import main
from game.engine.dice import Dice
from game.engine.game import Game
from game.engine.scenario import load_scenario

MIRROR = "maps/mirror.yaml"
#: The default and the five variants of the seat-edge study (studies/seat-edge.yaml).
VARIANTS = [
    {},
    {"turn_order": "alternate"},
    {"turn_order": "roll_off"},
    {"activation": "alternating"},
    {"first_turn_limits": "no_run"},
    {"turn_order": "behind_first"},
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules", VARIANTS, ids=[",".join(f"{k}={v}" for k, v in r.items()) or "default" for r in VARIANTS]
)
def test_utility_bots_play_whole_games_on_mirror_with_no_refused_action(rules):
    sc = load_scenario(MIRROR, playable=True)
    played = play_game(sc, {1: UtilityBot(), 2: UtilityBot()}, seed=4, rules=rules)
    assert played.game.is_over() and not played.capped
    assert played.refused == 0, [s.refused for s in played.steps if s.refused][:3]
    if rules.get("activation") == "alternating":
        kinds = {next(iter(e.action)) for e in played.game.log if e.action}
        assert "end_activation" in kinds


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules", [{"activation": "alternating", "turn_order": "roll_off"}, {"turn_order": "alternate"}]
)
def test_the_planner_plays_the_real_order_with_no_refused_action(rules):
    sc = load_scenario(MIRROR, playable=True)
    played = play_game(sc, {1: UtilityBot(), 2: make_planner("planner:100ms")}, seed=2, rules=rules, turn_limit=2)
    assert played.game.is_over() and played.refused == 0
    planner_steps = [s for s in played.steps if s.player == 2]
    assert planner_steps and all(s.result is not None and s.result.ok for s in planner_steps)


@pytest.mark.parametrize("rules", [{}, {"activation": "alternating"}], ids=["whole_turn", "alternating"])
def test_the_planner_searches_once_a_turn_or_once_an_activation(rules, monkeypatch):
    """Under O2 a search looks one activation and the reply ahead: the planner searches
    again at each of its activations instead of steering them all by its first plan."""
    from game.bots.planner import PlannerBot

    searched = []
    real = PlannerBot.search

    def search(self, view, fixed=None):
        searched.append((view.state.turn, view.state.phase, len(view.state.activated)))
        return real(self, view, fixed)

    monkeypatch.setattr(PlannerBot, "search", search)
    sc = load_scenario(MIRROR, playable=True)
    played = play_game(sc, {1: make_planner("planner:100ms"), 2: UtilityBot()}, seed=2, rules=rules, turn_limit=1)
    assert played.refused == 0
    planner_units = [uid for uid, u in played.game.state.units.items() if played.game.warband_player(u.warband) == 1]
    if not rules:
        assert searched == [(1, "engage", 0)]  # one plan for the player-turn
    else:
        # one search at each of its activations in Engage and Move that could engage or move
        assert len(searched) == len(set(searched)) > 1
        assert {phase for _, phase, _ in searched} <= {"engage", "move"}
        assert len(searched) <= 2 * len(planner_units)


def alternating_scenario(tmp_path) -> str:
    text = (
        open(MIRROR, encoding="utf-8")
        .read()
        .replace("ruleset: speedheim", "ruleset: speedheim\nrules: {activation: alternating, turn_order: alternate}", 1)
    )
    path = tmp_path / "mirror-alternating.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_legal_answers_for_whoever_may_act_now_under_alternating(tmp_path, capsys):
    scenario = alternating_scenario(tmp_path)
    script = tmp_path / "script.yaml"
    script.write_text(
        "seed: 1\nactions:\n  - end_phase: {}\n  - end_phase: {}\n  - move: {unit: north-captain, to: [6, 5]}\n",
        encoding="utf-8",
    )
    assert main(["legal", scenario, str(script), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    units = {line["unit"]: line for line in lines if "unit" in line}
    assert all(uid.startswith("north-") for uid in units)
    assert units["north-captain"]["refused"]["move"].startswith("M1: ")  # its own rule, not the order
    assert units["north-ogre"]["refused"]["move"].startswith("O2: player 1 is activating north-captain")
    assert main(["legal", scenario, str(script)]) == 0
    assert "player 1's activation (north-captain)" in capsys.readouterr().out


def test_advise_answers_for_the_player_whose_activation_it_is(tmp_path):
    sc = load_scenario(alternating_scenario(tmp_path), playable=True)
    g = Game(sc, dice=Dice(seed=1))
    g.apply({"end_phase": {}})
    g.apply({"end_phase": {}})
    g.apply({"move": {"unit": "north-captain", "to": [6, 5]}})
    g.apply({"end_activation": {}})
    assert g.state.player == 2
    out = advise(g, "utility", 3)
    assert out
    for d in out:
        assert g.why_illegal(d.action) is None
        if d.unit:
            assert d.unit.startswith("south-")


@pytest.mark.parametrize(
    "name,table", [("seat-edge.yaml", "mirror.yaml"), ("seat-edge-crossroads.yaml", "crossroads.yaml")]
)
def test_the_seat_edge_studies_resolve_every_option_as_a_variant(name, table):
    """studies/seat-edge*.yaml: the default and the four fixes, both seats, the utility and
    planner pairings; each variant changes the rule it names (O1, O2, O3) and nothing else."""
    import os

    from game.sim.study import load_study, resolve

    plan = load_study(os.path.join("studies", name))
    assert os.path.basename(plan.scenario) == table and plan.swap
    assert plan.bots == [("utility", "utility"), ("planner", "planner")]
    spec, texts = resolve(plan)
    assert [v.label for v in spec.variants] == [
        "default",
        "turn_order=alternate",
        "turn_order=roll_off",
        "activation=alternating",
        "first_turn_limits=no_run",
    ]
    assert [v.rules_changed for v in spec.variants] == [[], ["O1"], ["O1"], ["O2"], ["O3"]]
    assert len(texts) == 10


@pytest.mark.parametrize(
    "rules,rule",
    [
        ({}, None),
        ({"turn_order": "alternate"}, "O1"),
        ({"turn_order": "roll_off"}, "O1"),
        ({"activation": "alternating"}, "O2"),
        ({"first_turn_limits": "no_run"}, "O3"),
    ],
)
def test_rules_fired_counts_the_turn_order_a_variant_changes(rules, rule):
    """A study's comparison is "tested" only when the changed rule fired in its games
    (game.sim.coverage): each option fires its own rule id, the default none of them."""
    from collections import Counter

    from game.sim.coverage import fired

    sc = load_scenario("tests/scripts/duel.yaml", playable=True)
    played = play_game(sc, {1: UtilityBot(), 2: UtilityBot()}, seed=3, rules=rules, turn_limit=2)
    counts = Counter()
    for entry in [played.game.start] + played.game.log:
        counts.update(fired(entry))
    assert {r for r in ("O1", "O2", "O3") if counts[r]} == ({rule} if rule else set())
    if rule == "O1":
        assert counts["O1"] >= 2  # game turns 1 and 2 each chose their first player


@pytest.mark.parametrize(
    "rules",
    [
        {"activation": "alternating", "turn_order": "roll_off"},
        {"turn_order": "behind_first", "first_turn_limits": ["no_run", "no_engage"]},
    ],
)
def test_random_bots_play_under_other_orders_with_no_refused_action(rules):
    from game.bots.random_bot import RandomBot

    sc = load_scenario(MIRROR, playable=True)
    played = play_game(sc, {1: RandomBot(), 2: RandomBot()}, seed=3, rules=rules, turn_limit=3)
    assert played.game.is_over() and played.refused == 0


@pytest.mark.parametrize("rules", [{}, {"turn_order": "alternate"}], ids=["fixed", "alternate"])
def test_a_rollout_plays_both_turns_in_a_row_then_the_reply(rules):
    """O1 ``alternate`` gives the second player of a game turn the first turn of the next:
    a planner's rollout from the first of those plays both by the plan's policy, then the
    opponent's reply (before, its second turn went to the cheap policy and the opponent
    never replied). Under the fixed order it stops as the side's next turn begins."""
    from game.bots import with_neutrals
    from game.bots.driver import bot_scenario, play_turn
    from game.bots.planner.rollout import rollout

    g = Game(bot_scenario(load_scenario(MIRROR, playable=True), rules=rules), dice=Dice(seed=5))
    play_turn(g, with_neutrals({1: UtilityBot(), 2: UtilityBot()}))  # player 1's turn 1
    assert (g.state.turn, g.state.player) == (1, 2)
    side = next(u.warband for u in g.state.units.values() if g.warband_player(u.warband) == 2)
    seen = {"mine": set(), "reply": set()}

    class Seen(UtilityBot):
        def __init__(self, who):
            super().__init__()
            self.who = who

        def choose(self, v):
            seen[self.who].add((v.state.turn, v.state.player))
            return super().choose(v)

    rollout(g, 2, side, Seen("mine"), Seen("reply"))
    if rules:
        assert seen == {"mine": {(1, 2), (2, 2)}, "reply": {(2, 1)}}
        assert (g.state.turn, g.state.player) == (3, 1)  # player 1 goes first in turn 3
    else:
        assert seen == {"mine": {(1, 2)}, "reply": {(2, 1)}}
        assert (g.state.turn, g.state.player) == (2, 2)
