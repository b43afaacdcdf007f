"""Saved games: scenario + log, atomic writes, loading replays to the same state."""

import os

import pytest

from game.engine.actions import load_script
from game.engine.game import Game
from game.engine.dice import Dice
from game.engine.errors import LoadError
from game.engine.replay import replay
from game.engine.saves import load_game, save_game
from game.engine.scenario import load_scenario
from game.cli import main
from tests.scripts.builders import path


def played():
    return replay(load_scenario(path("skirmish.yaml")), load_script(path("skirmish-game.yaml")), history=True)


def test_save_and_load_give_the_same_state(tmp_path):
    g = played()
    out = tmp_path / "game.yaml"
    save_game(str(out), g)
    back = load_game(str(out))
    assert back.state.hash() == g.state.hash() and back.winner == "red"
    # The save pins every move's resolved path (issue 9): the log replays those actions.
    assert [e.action for e in back.log] == [e.replayable for e in g.log if e.ok]
    moves = [e.action for e in back.log if next(iter(e.action)) in ("move", "run")]
    assert moves and all("path" in next(iter(m.values())) and "to" not in next(iter(m.values())) for m in moves)
    assert main(["check", str(out)]) == 0


def test_save_midgame_then_keep_playing_with_the_same_dice(tmp_path):
    sc = load_scenario(path("duel.yaml"))
    g = Game(sc, dice=Dice(seed=5))
    g.apply({"end_phase": {}})
    g.apply({"roll": {"sides": 20}})
    save_game(str(tmp_path / "s.yaml"), g)
    back = load_game(str(tmp_path / "s.yaml"))
    assert back.state.hash() == g.state.hash()
    assert back.apply({"roll": {"sides": 20}}).rolls[0].kept == g.apply({"roll": {"sides": 20}}).rolls[0].kept


def test_physical_dice_are_saved_as_typed_rolls(tmp_path):
    sc = load_scenario(path("duel.yaml"))
    g = Game(sc, dice=Dice(seed=None, prompt=lambda sides, reason: 4))
    g.apply({"end_phase": {}})
    g.apply({"roll": {"sides": 6, "count": 2}})
    save_game(str(tmp_path / "s.yaml"), g)
    back = load_game(str(tmp_path / "s.yaml"))
    assert back.log[-1].rolls[0].values == [4, 4]


def test_physical_then_seeded_dice_replay_exactly(tmp_path):
    """A seeded game that used physical dice once, then rolled for itself again."""
    sc = load_scenario(path("duel.yaml"))
    g = Game(sc, dice=Dice(seed=5, prompt=lambda sides, reason: 2))
    g.apply({"end_phase": {}})
    g.apply({"roll": {"sides": 20}})  # physical: 2
    g.dice.prompt = None  # back to "roll for me"
    g.apply({"roll": {"sides": 20, "count": 3}})
    save_game(str(tmp_path / "s.yaml"), g)
    back = load_game(str(tmp_path / "s.yaml"))
    assert [r.values for r in back.dice.log] == [r.values for r in g.dice.log]
    assert back.state.hash() == g.state.hash()


def test_an_action_failing_in_the_middle_says_which_and_why(tmp_path):
    g = played()
    save_game(str(tmp_path / "s.yaml"), g)
    text = (tmp_path / "s.yaml").read_text()
    assert "[10.0, 6.0]]" in text
    text = text.replace("[10.0, 6.0]]", "[30.0, 30.0]]")  # the mage's move is now too long
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(LoadError) as exc:
        load_game(str(tmp_path / "bad.yaml"))
    (p,) = exc.value.problems
    line = text.splitlines()[p.line - 1]
    assert "[30.0, 30.0]" in line
    assert "failed on replay: M1" in p.message and "move red-mage" in p.message


def test_a_crash_mid_save_leaves_the_old_file(tmp_path, monkeypatch):
    g = played()
    out = tmp_path / "s.yaml"
    save_game(str(out), g)
    before = out.read_text()
    import game.engine.files as files_mod

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(files_mod.os, "replace", boom)
    with pytest.raises(OSError):
        save_game(str(out), g)
    assert out.read_text() == before
    assert [f for f in os.listdir(tmp_path) if f.startswith(".tmp-")] == []


def test_not_a_save(tmp_path):
    (tmp_path / "x.yaml").write_text("name: nothing\n")
    with pytest.raises(LoadError) as exc:
        load_game(str(tmp_path / "x.yaml"))
    assert str(exc.value).startswith(f"{tmp_path / 'x.yaml'}:1: not a saved game")
