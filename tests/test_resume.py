"""Issue 22 (2): the window offers to resume only a game in progress; a finished autosave
is kept under saves/ (Ctrl+O opens it as it ended) and not offered; a resumed game's log
reads as the one played, bot reasons and notes included."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest  # noqa: E402

from game.engine.saves import load_game  # noqa: E402
from game.ui import userdata  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.launch import start  # noqa: E402
from game.ui.scenes.overlays import WinnerScene  # noqa: E402
from game.ui.scenes.play.files import saves_dir  # noqa: E402
from game.ui.scenes.play.words import build_log  # noqa: E402
from game.ui.widgets.dialogs import ChoiceDialog  # noqa: E402
from tests.factories import UI_SCENARIO, make_scene  # noqa: E402

LIMITED = UI_SCENARIO.replace("state: {turn: 1", "turn_limit: 1\nstate: {turn: 1")


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def finished(tmp_path):
    """A game played to its end (T1: the turn limit, a draw) in the window, autosaved."""
    app, scene = make_scene(tmp_path, LIMITED)
    scene.note("bot P2 (utility, 4 ms): waits for the Reds", "bot")
    for _ in range(40):
        if scene.game.is_over():
            break
        assert scene.act({"end_phase": {}})
    assert scene.game.is_over()
    userdata.flush_autosave()
    return app, scene


def test_a_finished_autosave_is_not_offered_and_is_kept_as_a_save(tmp_path):
    _, played = finished(tmp_path)
    app = App((1280, 800))
    scene = start(app, str(tmp_path / "table.yaml"))
    assert app.modal is None  # no "Resume?" for a finished game
    assert scene.game.log == [] and not scene.game.is_over()  # a new game
    kept = [os.path.join(saves_dir(), f) for f in os.listdir(saves_dir())]
    assert len(kept) == 1 and "finished" in os.path.basename(kept[0])
    said = " ".join(text for _, text, _ in scene.notes)
    assert "was over" in said and kept[0] in said
    again = load_game(kept[0])  # nothing of it is lost
    assert again.state.hash() == played.state.hash() and again.notes == played.game.notes
    # the new game is the autosave now; a restart offers nothing finished
    userdata.flush_autosave()
    assert not load_game(userdata.autosave_path()).is_over()


def test_resume_flag_on_a_finished_autosave_opens_it_as_it_ended(tmp_path):
    _, played = finished(tmp_path)
    app = App((1280, 800))
    scene = start(app, str(tmp_path / "table.yaml"), resume=True)
    app.frame(0.016, flip=False)
    assert scene.game.is_over() and scene.state.hash() == played.state.hash()
    assert isinstance(app.top, WinnerScene)  # the end, to read; no new actions
    assert "over" in " ".join(text for _, text, _ in scene.notes)


def test_a_resumed_game_reads_as_the_one_played(tmp_path):
    app, scene = make_scene(tmp_path)
    scene.note("bot P1 (utility, 12 ms): heads for t1: nearest token, no enemy near", "bot")
    assert scene.act({"end_phase": {}})
    scene.note("a manual note: the ogre waits", "info")
    assert scene.act({"roll": {"sides": 20, "reason": "scatter"}})
    scene.note("bot P1 (utility, 2 ms): ends the phase: nothing left to do", "bot")
    userdata.flush_autosave()
    before = build_log(scene)
    assert any("heads for t1" in text for text, _ in before)
    app2 = App((1280, 800))
    resumed = start(app2, str(tmp_path / "table.yaml"))
    dlg = app2.modal
    assert isinstance(dlg, ChoiceDialog) and "resume" in dlg.buttons.values()
    dlg.choose("resume")
    after = build_log(resumed)
    assert after[: len(before)] == before  # every line, in its place
    assert [t for t, _ in after[len(before) :]] == [
        "resumed the autosaved game (2 actions); both sides are played at this screen, as before"
    ]


def test_looking_at_a_finished_save_keeps_the_game_in_progress_autosaved(tmp_path):
    _, played = finished(tmp_path)
    app, scene = make_scene(tmp_path)
    assert scene.act({"end_phase": {}})
    userdata.flush_autosave()
    in_progress = load_game(userdata.autosave_path()).state.hash()
    path = str(tmp_path / "over.yaml")
    from game.engine.saves import save_game

    save_game(path, played.game)
    assert scene.files.load_from(path) and scene.game.is_over()
    userdata.flush_autosave()
    assert load_game(userdata.autosave_path()).state.hash() == in_progress  # not replaced by a finished game
    scene.undo()  # stepping back: a game in progress again
    userdata.flush_autosave()
    back = load_game(userdata.autosave_path())
    assert not back.is_over() and back.state.hash() == scene.state.hash()


def test_the_resume_offer_says_what_game_it_is(tmp_path):
    app, scene = make_scene(tmp_path)
    assert scene.act({"end_phase": {}})
    assert scene.act({"roll": {"sides": 6}})
    userdata.flush_autosave()
    app2 = App((1280, 800))
    start(app2, str(tmp_path / "table.yaml"))
    text = app2.modal.message
    assert "UI test table" in text and "2 actions" in text
