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
from tests.factories import path


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


# --- issue 22 (2): the log's remarks, and whether the game is over ------------------------------


def test_saves_keep_the_logs_notes_where_they_were_made(tmp_path):
    sc = load_scenario(path("duel.yaml"))
    g = Game(sc, dice=Dice(seed=5))
    g.note("bot P1 (utility, 12 ms): holds back: nothing worth the risk", "bot")
    g.apply({"end_phase": {}})
    g.note("a player's note: the ogre hides behind the wall")
    g.apply({"roll": {"sides": 20}})
    g.note('bot P1 (utility, 3 ms): "quoted" words: and a colon', "bot")
    save_game(str(tmp_path / "s.yaml"), g)
    text = (tmp_path / "s.yaml").read_text()
    assert "notes:" in text and "over: null" in text
    back = load_game(str(tmp_path / "s.yaml"))
    assert (
        back.notes
        == g.notes
        == [
            (0, "bot P1 (utility, 12 ms): holds back: nothing worth the risk", "bot"),
            (1, "a player's note: the ogre hides behind the wall", "info"),
            (2, 'bot P1 (utility, 3 ms): "quoted" words: and a colon', "bot"),
        ]
    )
    assert back.state.hash() == g.state.hash()


def test_a_finished_game_is_saved_as_over_and_old_saves_without_notes_still_load(tmp_path):
    g = played()
    assert g.is_over()
    save_game(str(tmp_path / "s.yaml"), g)
    text = (tmp_path / "s.yaml").read_text()
    assert "over: {winner: red, reason:" in text
    from game.engine.saves import saved_outcome

    assert saved_outcome(str(tmp_path / "s.yaml")) == (True, g.outcome())
    # an old save: no notes, no over
    old = "\n".join(line for line in text.splitlines() if not line.startswith(("over:", "notes:")))
    (tmp_path / "old.yaml").write_text(old + "\n")
    back = load_game(str(tmp_path / "old.yaml"))
    assert back.notes == [] and back.winner == "red"
    assert saved_outcome(str(tmp_path / "old.yaml")) == (False, None)  # not said: replay to know


@pytest.mark.parametrize(
    "bad, says",
    [
        ("notes: 3", "notes must be a list"),
        ("notes:\n  - {at: -1, text: hi}", "note 1: at must be a whole number of at least 0"),
        ("notes:\n  - {at: 0}", "note 1: text must be"),
        ("notes:\n  - hello", "note 1: must be a mapping"),
        ("notes:\n  - {at: 0, text: hi, kind: 3}", "note 1: kind must be"),
    ],
)
def test_bad_notes_in_a_save_say_where(tmp_path, bad, says):
    g = played()
    save_game(str(tmp_path / "s.yaml"), g)
    text = (tmp_path / "s.yaml").read_text().replace("notes: []", bad)
    assert bad in text
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(LoadError) as exc:
        load_game(str(tmp_path / "bad.yaml"))
    (p,) = exc.value.problems
    assert says in p.message and text.splitlines()[p.line - 1].strip().startswith(("notes", "-"))


def test_a_position_with_neutrals_an_event_brought_saves_and_loads(tmp_path):
    # save_scenario writes a position mid-game: the Neutrals an Event brought on (U7) are
    # of no declared warband, and a unit Engaged with one named a unit the file lacked.
    import dataclasses

    from game.engine.scenario import save_scenario

    sc = load_scenario(os.path.join(os.path.dirname(os.path.dirname(__file__)), "maps", "default.yaml"))
    g = Game(sc)
    st = g.state
    red = st.units["red-sword-1"]
    ghoul = dataclasses.replace(
        red,
        id="ghoul-1",
        name="Ghoul",
        warband=g.neutral_id,
        keywords=["neutral"],
        x=red.x + 1.3,
        engaged_with=["red-sword-1"],
        carrying=None,
    )
    st.units[ghoul.id] = ghoul
    red.engaged_with = ["ghoul-1"]
    out = tmp_path / "position.yaml"
    save_scenario(sc, str(out), st)
    back = load_scenario(str(out))
    assert back.state.units["ghoul-1"].warband == g.neutral_id
    assert back.state.units["red-sword-1"].engaged_with == ["ghoul-1"]
    assert Game(back).neutral_id == g.neutral_id
