"""Issue 48 (7): `check` refuses a state no game can go on from (every warband routed, no
winner), and a game that starts at a later turn counts its quiet turns from there.
Reproducers: tests/data/states/."""

from __future__ import annotations

import os

from game.cli import main
from game.engine.dice import Dice
from game.engine.scenario import load_scenario
from game.sim.match import _Observed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "states")


def test_check_refuses_a_state_in_which_every_warband_has_routed(capsys):
    path = os.path.join(DATA, "both-routed.yaml")
    assert main(["check", path]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"{path}:20: every warband has routed (blue, red) and no winner is set: no game can go on "
        "from this state (leave one out of routed, or set winner)"
    )


def test_one_routed_warband_is_still_a_game(tmp_path, capsys):
    text = open(os.path.join(DATA, "both-routed.yaml")).read().replace("routed: [red, blue]", "routed: [blue]")
    (tmp_path / "one.yaml").write_text(text)
    assert main(["check", str(tmp_path / "one.yaml")]) == 0


def test_quiet_turns_count_from_the_turn_the_game_started_at():
    game = _Observed(load_scenario(os.path.join(DATA, "from-turn-15.yaml")), dice=Dice(seed=3), history=False)
    assert game.state.turn == 15
    assert game.quiet() == {"turns": 1, "from": 15}
