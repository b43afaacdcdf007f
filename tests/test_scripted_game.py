"""A whole scripted game (with moves) replays to a winner, the same every time."""

import json

from game.engine.actions import load_script
from game.commands.replay import replay_cli
from game.engine.replay import replay
from game.engine.scenario import load_scenario
from tests.factories import path


def run_game():
    return replay(load_scenario(path("skirmish.yaml")), load_script(path("skirmish-game.yaml")), history=True)


def test_the_scripted_skirmish_reaches_a_winner():
    g = run_game()
    assert g.winner == "red"
    oks = [e.ok for e in g.log]
    illegal = {i: (e.rule, e.reason) for i, e in enumerate(g.log) if not e.ok}
    assert sorted(illegal) == [3, 4, 10, 15, 16, 23], illegal
    assert illegal[3][0] == "turn" and illegal[4][0] == "M12" and illegal[15][0] == "M1" and illegal[16][0] == "M2"
    assert illegal[23][0] == "U2"
    assert sum(oks) == len(oks) - 6
    moves = [e for e in g.log if e.ok and next(iter(e.action)) in ("move", "run")]
    assert len(moves) == 6 and all("cost" in e.extra for e in moves)
    st = g.state
    assert st.units["red-captain"].carrying == "t1" and st.treasure["t1"].carried_by == "red-captain"
    assert (st.treasure["t1"].x, st.treasure["t1"].y) == (st.units["red-captain"].x, st.units["red-captain"].y)
    assert "blue-thug" in st.units["red-captain"].engaged_with or st.units["blue-thug"].status == "incapacitated"
    assert st.lost == {"red": 0, "blue": 1} and st.routed == ["blue"]


def test_replaying_the_same_log_gives_the_same_output(capsys):
    outs = []
    for _ in range(2):
        assert replay_cli(path("skirmish.yaml"), path("skirmish-game.yaml"), as_json=True) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    lines = [json.loads(x) for x in outs[0].splitlines()]
    assert len(lines) == len(load_script(path("skirmish-game.yaml")).actions) + 1
    assert lines[-1]["final"]["winner"] == "red"
    rout = lines[22]
    assert rout["ok"] and rout["rule"] == "U2" and rout["rolls"][0]["rule"] == "U2" and rout["rolls"][0]["kept"] == 20
    assert any(a["rule"] == "U2" for a in rout["automatic"])


def test_undo_everything_and_redo_everything_gives_the_same_hashes():
    g = run_game()
    final = g.state.hash()
    n = 0
    while g.can_undo:
        g.undo()
        n += 1
    assert n == sum(e.ok for e in run_game().log)
    from game.engine.game import Game
    from game.engine.dice import Dice

    fresh = Game(load_scenario(path("skirmish.yaml")), dice=Dice(seed=3, typed=[7, 20]))
    assert g.state.hash() == fresh.state.hash()
    while g.can_redo:
        g.redo()
    assert g.state.hash() == final and g.winner == "red"
