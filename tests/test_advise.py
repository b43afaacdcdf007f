"""``speedheim advise`` and :func:`game.bots.advise.advise` (issue 21, item 2; FORMATS.md
"Additions: ... `advise`"): the side to act's best next actions from any bot, best first,
each with a value and a reason, each one action-script entry that ``replay`` accepts as
the script's next line; bad input exits 2 with FILE:LINE."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from game.bots import RandomBot, UtilityBot, view
from game.bots.advise import advise, script_entry
from game.bots.base import BotDecision
from game.cli import main
from tests.factories import game, unit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "maps", "default.yaml")

#: A close fight in the engage phase: red may engage b1 (in reach) but not b2 (far).
CLOSE = {
    "name": "close",
    "table": {"width": 24, "height": 24},
    "treasure": [],
    "warbands": [
        {"id": "red", "player": 1, "units": [unit("r1", (5, 5)), unit("r2", (9, 5))]},
        {"id": "blue", "player": 2, "units": [unit("b1", (5, 8), keywords=[]), unit("b2", (20, 20), keywords=[])]},
    ],
    "state": {"turn": 2, "player": 1, "phase": "engage"},
}


def write(tmp_path, name: str, data) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, sort_keys=False) if not isinstance(data, str) else data)
    return str(p)


def advise_json(capsys, *argv) -> dict:
    assert main(["advise", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def replays_as_next_line(capsys, tmp_path, scenario: str, actions: list, entry: str) -> dict:
    """Append ``entry`` (the printed script line) to the script; ``replay --json``; the
    line of the appended action."""
    text = "seed: 3\nactions:\n" + "".join(f"  {script_entry(a)}\n" for a in actions) + f"  {entry}\n"
    script = tmp_path / "next.yaml"
    script.write_text(text)
    assert main(["replay", scenario, str(script), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    return lines[-2]  # the last action's line; the final summary comes after it


@pytest.mark.parametrize("bot", ["utility", "random", "cautious", "utility:aggressive"])
def test_every_option_replays_as_the_scripts_next_line_move_phase(capsys, tmp_path, bot):
    actions = [{"end_phase": {}}]  # turn 1 opens in the engage phase: into the move phase
    script = write(tmp_path, "s.yaml", {"seed": 3, "actions": actions})
    out = advise_json(capsys, DEFAULT, script, "--bot", bot, "--top", "4")
    assert out["player"] == 1 and out["bot"] == bot
    opts = out["options"]
    assert 1 <= len(opts) <= 4
    assert len({json.dumps(o["action"], sort_keys=True) for o in opts}) == len(opts)  # no action twice
    for o in opts:
        assert isinstance(o["value"], (int, float)) and o["reason"]
        line = replays_as_next_line(capsys, tmp_path, DEFAULT, actions, script_entry(o["action"]))
        assert line["ok"] is True, (o, line)
        assert line["action"] == o["action"]


def test_options_in_the_engage_phase_are_engages_in_reach_then_ending_the_phase(capsys, tmp_path):
    scen = write(tmp_path, "close.yaml", CLOSE)
    out = advise_json(capsys, scen, "--bot", "utility", "--top", "5")
    kinds = [next(iter(o["action"])) for o in out["options"]]
    assert kinds[-1] == "end_phase" and "engage" in kinds
    targets = {o["action"]["engage"]["target"] for o in out["options"] if "engage" in o["action"]}
    assert targets == {"b1"}  # b2 is beyond any Engage
    for o in out["options"]:
        line = replays_as_next_line(capsys, tmp_path, scen, [], script_entry(o["action"]))
        assert line["ok"] is True, (o, line)


def test_without_bot_the_planner_advises_and_sends_the_hound_to_deny_the_middle_token(capsys, tmp_path):
    # "What would a good player do here?": the default advisor is the planner. On the
    # Hound race (tests/puzzles/hound-race.yaml, which the utility bot fails) its first
    # option sends the War Hound to stand within denial range of the middle token; the
    # utility bot would move a Swordsman to the near token first.
    from game.engine.scenario import load_scenario
    from game.engine.dice import Dice
    from game.engine.game import Game

    with open(os.path.join(ROOT, "tests", "puzzles", "hound-race.yaml")) as fh:
        scen = write(tmp_path, "race.yaml", yaml.safe_load(fh)["scenario"])
    script = write(tmp_path, "s.yaml", {"seed": 1, "actions": [{"end_phase": {}}]})
    out = advise_json(capsys, scen, script)
    assert out["bot"] == "planner" and out["player"] == 2
    first = out["options"][0]["action"]
    kind = next(iter(first))
    assert kind in ("move", "run") and first[kind]["unit"] == "blue-hound", first
    g = Game(load_scenario(scen), dice=Dice(seed=1))
    g.apply({"end_phase": {}})
    g.apply(first)
    hound, token = g.state.units["blue-hound"], g.state.treasure["t-mid"]
    gap = ((hound.x - token.x) ** 2 + (hound.y - token.y) ** 2) ** 0.5 - hound.r - token.r
    assert gap <= float(g.rs.treasure_denial_range) + 1e-6, gap
    assert main(["advise", scen, script]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "turn 1, player 2 (blue), move: planner advises"


def test_the_human_output_lists_reasons_values_and_script_lines(capsys, tmp_path):
    scen = write(tmp_path, "close.yaml", CLOSE)
    assert main(["advise", scen, "--bot", "utility"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("turn 2, player 1 (red), engage: utility")
    assert out[1].startswith("1. ") and "engages" in out[1] and "[value " in out[1]
    assert out[2].strip().startswith("- {engage: {unit: r")


def test_the_utility_bots_first_option_is_what_it_plays():
    g = game(CLOSE["warbands"][0]["units"], CLOSE["warbands"][1]["units"], state=CLOSE["state"])
    bot = UtilityBot()
    first = advise(g, "utility", top=3)[0]
    assert first.action == bot.choose(view(g)).action
    # every option is legal now and none twice; engages by their worth, best first
    opts = bot.options(view(g), 5)
    assert all(g.why_illegal(d.action) is None for d in opts)
    engages = [d for d in opts if d.kind == "engage"]
    assert engages and [d.score for d in engages] == sorted((d.score for d in engages), reverse=True)


def test_the_random_bots_options_start_with_its_draw_and_are_all_legal():
    g = game(CLOSE["warbands"][0]["units"], CLOSE["warbands"][1]["units"], state=CLOSE["state"])
    bot = RandomBot()
    opts = bot.options(view(g), 6)
    assert opts[0].action == bot.choose(view(g)).action
    assert len(opts) > 1 and all(g.why_illegal(d.action) is None for d in opts) and all(d.score == 0 for d in opts)


def test_a_bot_without_options_gives_its_one_choice():
    g = game(CLOSE["warbands"][0]["units"], CLOSE["warbands"][1]["units"], state=CLOSE["state"])

    class OnlyChoose:
        name = "plain"

        def choose(self, v):
            return BotDecision({"end_phase": {}}, "ends it", score=0.5)

    opts = advise(g, "plain", top=3, bot=OnlyChoose())
    assert [d.action for d in opts] == [{"end_phase": {}}] and opts[0].reason == "ends it"


def test_advise_changes_nothing_and_is_the_same_each_time():
    g = game(CLOSE["warbands"][0]["units"], CLOSE["warbands"][1]["units"], state=CLOSE["state"])
    before = (g.state.copy().units["r1"].x, len(g.log), g.dice.getstate())
    a = [(d.action, d.reason, d.score) for d in advise(g, "utility", top=3)]
    b = [(d.action, d.reason, d.score) for d in advise(g, "utility", top=3)]
    assert a == b and (g.state.units["r1"].x, len(g.log), g.dice.getstate()) == before


def test_a_finished_game_has_no_options(capsys, tmp_path):
    data = dict(CLOSE, rules={"turn_limit": 1}, state={"turn": 1, "player": 1, "phase": "engage"})
    scen = write(tmp_path, "over.yaml", data)
    ends = []
    g = game(CLOSE["warbands"][0]["units"], CLOSE["warbands"][1]["units"], state=data["state"], rules=data["rules"])
    while not g.is_over() and len(ends) < 40:
        kind = "end_phase" if "end_phase" in g.legal_action_kinds() else "end_step"
        g.apply({kind: {}})
        ends.append({kind: {}})
    assert g.is_over() and advise(g, "utility") == []
    script = write(tmp_path, "s.yaml", {"seed": 1, "actions": ends})
    assert advise_json(capsys, scen, script)["options"] == []
    assert main(["advise", scen, script]) == 0
    assert capsys.readouterr().out.startswith("game over: a draw")


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--bot", "nobody"], "--bot: unknown bot 'nobody'"),
        (["--top", "0"], "--top: --top must be 1 or more"),
    ],
)
def test_bad_arguments_exit_2(capsys, argv, needle):
    assert main(["advise", DEFAULT, *argv]) == 2
    assert needle in capsys.readouterr().err


def test_bad_files_exit_2_with_file_and_line(capsys, tmp_path):
    bad = write(tmp_path, "bad.yaml", "seed: 3\nactions:\n  - {end_phase: {}}\n  - {fly: {unit: x}}\n")
    assert main(["advise", DEFAULT, bad]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:4:" in err
    assert main(["advise", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml:" in capsys.readouterr().err


def test_a_refused_script_line_is_named_and_skipped(capsys, tmp_path):
    script = write(tmp_path, "s.yaml", "seed: 3\nactions:\n  - {engage: {unit: r1, target: b2}}\n")
    scen = write(tmp_path, "close.yaml", CLOSE)
    assert main(["advise", scen, script, "--json"]) == 0
    captured = capsys.readouterr()
    assert f"{script}:3: refused, skipped: E1:" in captured.err
    assert json.loads(captured.out)["options"]


def test_the_seed_drives_the_random_bots_draws_and_nothing_else():
    g = game(
        CLOSE["warbands"][0]["units"], CLOSE["warbands"][1]["units"], state={"turn": 2, "player": 1, "phase": "move"}
    )
    runs = {seed: [d.action for d in advise(g, "random", top=3, seed=seed)] for seed in range(1, 6)}
    assert runs[1] == [d.action for d in advise(g, "random", top=3, seed=1)]  # the same seed, the same advice
    assert len({json.dumps(v, sort_keys=True) for v in runs.values()}) > 1  # another seed, other draws
    assert all(g.why_illegal(a) is None for v in runs.values() for a in v)


def _rout_puzzle_file(tmp_path) -> str:
    """tests/puzzles/rout-critical-retreat.yaml's scenario under the bot rules (placeholder
    combat, a turn limit), as a scenario file ``advise`` reads."""
    with open(os.path.join(ROOT, "tests", "puzzles", "rout-critical-retreat.yaml")) as fh:
        data = yaml.safe_load(fh)["scenario"]
    data["rules"] = {"combat": "placeholder", "turn_limit": 10, "turn_limit_winner": "treasure"}
    return write(tmp_path, "rout.yaml", data)


def test_the_planners_options_come_best_first_and_the_first_saves_the_game(capsys, tmp_path):
    """Issue 47: one loss from an automatic rout (U2, no hero left), a Dazed Cultist 5"
    from a War Dog. The planner listed the utility plan (stay, about -500: the Dog's charge
    routs the warband in some samples) above the retreat (about +1). Now the options come
    by value, best first, and the first takes the Cultist out of the Dog's Engage reach."""
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.movement.mover import engage_inches
    from game.engine.scenario import load_scenario

    scen = _rout_puzzle_file(tmp_path)
    script = write(tmp_path, "s.yaml", {"seed": 1, "actions": [{"end_phase": {}}]})
    out = advise_json(capsys, scen, script, "--bot", "planner", "--top", "4")
    values = [o["value"] for o in out["options"]]
    assert len(values) >= 2 and values == sorted(values, reverse=True), values
    first = out["options"][0]["action"]
    kind = next(iter(first))
    assert kind in ("move", "run") and first[kind]["unit"] == "red-cultist", out["options"][0]
    g = Game(load_scenario(scen), dice=Dice(seed=1))
    g.apply({"end_phase": {}})
    g.apply(first)
    cultist, dog = g.state.units["red-cultist"], g.state.units["blue-dog"]
    gap = ((cultist.x - dog.x) ** 2 + (cultist.y - dog.y) ** 2) ** 0.5 - cultist.r - dog.r
    assert gap > engage_inches(g.rs, dog) + float(g.rs.contact_tolerance), gap
    # The utility plan (the Cultist stays on the token) is listed, below the retreat.
    assert any(o["value"] < values[0] for o in out["options"])
