"""Issue 48 (1, 2) and issue 45 (3): nothing a player made is lost through the autosave.

An older save takes the parameters it lacks from the base ruleset of its version and says
so; one that still cannot be read is moved aside, byte for byte, before anything new is
written, and the window names it; a newer save version is refused with its version named;
a failed autosave write is said in the window. Each map has its own autosave; a game with
no action is not offered; a resumed game keeps who the bot plays, in one log line.
The reproducers are in tests/data/saves/."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest  # noqa: E402

from game.engine.errors import LoadError  # noqa: E402
from game.engine.saves import UPGRADE_NOTE, load_game  # noqa: E402
from game.ui import userdata  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.launch import start  # noqa: E402
from game.ui.widgets.dialogs import ChoiceDialog, MessageDialog  # noqa: E402
from tests.factories import UI_SCENARIO, make_scene  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "saves")
ROOT = os.path.dirname(HERE)


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def table(tmp_path, name="table.yaml") -> str:
    path = tmp_path / name
    path.write_text(UI_SCENARIO)
    return str(path)


def plant(tmp_path, reproducer: str, name="table.yaml") -> tuple[str, str, bytes]:
    """The reproducer as the autosave of a table; returns (table, autosave, its bytes)."""
    tbl = table(tmp_path, name)
    dest = userdata.autosave_for(tbl)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(os.path.join(DATA, reproducer), dest)
    with open(dest, "rb") as fh:
        return tbl, dest, fh.read()


def unreadable_kept(datadir) -> list[str]:
    return sorted(str(p) for p in datadir.glob("autosave-unreadable-*.yaml"))


def test_an_older_save_takes_the_missing_parameter_from_the_base_ruleset_and_says_so():
    game = load_game(os.path.join(DATA, "old-autosave.yaml"))
    assert game.scenario.ruleset.gap_fall_no_room == "fall_back" and len(game.log) == 3
    said = [text for _, text, kind in game.notes if kind == UPGRADE_NOTE]
    assert len(said) == 1 and "gap_fall_no_room" in said[0] and "older save" in said[0]
    out = subprocess.run(
        [sys.executable, "-m", "game", "check", os.path.join(DATA, "old-autosave.yaml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    assert out.returncode == 0 and "gap_fall_no_room" in out.stdout, out.stderr


def test_an_older_autosave_resumes_and_the_log_says_what_it_took(tmp_path):
    tbl, path, _ = plant(tmp_path, "old-autosave.yaml")
    app = App((1280, 800))
    scene = start(app, tbl, resume=True)
    assert len(scene.game.log) == 3
    assert any("gap_fall_no_room" in text for _, text, _ in scene.game.notes)


def test_a_newer_save_version_is_refused_with_its_version_named():
    with pytest.raises(LoadError) as err:
        load_game(os.path.join(DATA, "newer-save.yaml"))
    assert "save version 7" in str(err.value.problems[0]) and err.value.problems[0].line == 1


@pytest.mark.parametrize("reproducer", ["truncated-autosave.yaml", "newer-save.yaml"])
@pytest.mark.parametrize("resume", [True, False])
def test_an_unreadable_autosave_is_moved_aside_byte_for_byte_and_named(tmp_path, datadir, reproducer, resume):
    tbl, path, before = plant(tmp_path, reproducer)
    app = App((1280, 800))
    scene = start(app, tbl, resume=resume)
    kept = unreadable_kept(datadir)
    assert len(kept) == 1
    with open(kept[0], "rb") as fh:
        assert fh.read() == before  # nothing of it lost
    assert isinstance(app.modal, MessageDialog) and kept[0] in app.modal.message
    assert any(kept[0] in text for _, text, _ in scene.game.notes)
    assert scene.act({"end_phase": {}})  # the new game autosaves elsewhere: the kept file stays
    userdata.flush_autosave()
    with open(kept[0], "rb") as fh:
        assert fh.read() == before
    assert kept[0] in open(userdata.crashlog_path(), encoding="utf-8").read()


def test_a_failed_autosave_write_is_said_in_the_window_and_the_log(tmp_path, monkeypatch):
    app, scene = make_scene(tmp_path)

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(userdata, "atomic_write_text", full)
    assert scene.act({"end_phase": {}})
    userdata.flush_autosave()
    app.frame(0.016, flip=False)
    said = [text for _, text, kind in scene.game.notes if "autosave failed" in text]
    assert len(said) == 1 and "No space left" in said[0]
    assert scene.toast is not None and "autosave failed" in scene.toast[0]
    assert scene.act({"end_phase": {}})  # the same failure again is not said twice
    userdata.flush_autosave()
    app.frame(0.016, flip=False)
    assert sum("autosave failed" in text for _, text, _ in scene.game.notes) == 1
    assert "No space left" in open(userdata.crashlog_path(), encoding="utf-8").read()
    monkeypatch.undo()
    monkeypatch.setenv("SPEEDHEIM_DATA_DIR", str(tmp_path / "data"))
    assert scene.act({"end_phase": {}})
    userdata.flush_autosave()
    app.frame(0.016, flip=False)
    assert any("autosave works again" in text for _, text, _ in scene.game.notes)


def test_each_map_has_its_own_autosave_and_offers_only_it(tmp_path):
    app, scene = make_scene(tmp_path)  # table.yaml, one action
    assert scene.act({"end_phase": {}})
    userdata.flush_autosave()
    other = table(tmp_path, "other.yaml")
    app2 = App((1280, 800))
    fresh = start(app2, other)
    assert app2.modal is None and fresh.game.log == []  # another map's game is not offered
    assert fresh.act({"end_phase": {}}) and fresh.act({"end_phase": {}})
    userdata.flush_autosave()
    assert len(load_game(userdata.autosave_path(str(tmp_path / "table.yaml"))).log) == 1  # not overwritten
    app3 = App((1280, 800))
    start(app3, str(tmp_path / "table.yaml"))
    assert isinstance(app3.modal, ChoiceDialog) and "1 action" in app3.modal.message


def test_a_game_with_no_action_is_not_offered(tmp_path):
    app, scene = make_scene(tmp_path)
    scene.autosave()
    scene.note("a note, but no action")
    userdata.flush_autosave()
    app2 = App((1280, 800))
    start(app2, str(tmp_path / "table.yaml"))
    assert app2.modal is None


def test_a_resumed_bot_game_keeps_the_bot_and_says_so_once_per_resume(tmp_path):
    app, scene = make_scene(tmp_path)
    scene.bot.set_seat(2, "utility")
    scene.bot.paused = True
    assert scene.act({"end_phase": {}})
    userdata.flush_autosave()
    for _ in range(2):  # plain `play`: no --bot given
        app2 = App((1280, 800))
        resumed = start(app2, str(tmp_path / "table.yaml"))
        app2.modal.choose("resume")
        assert resumed.bot.seats == {2: "utility"}
        userdata.flush_autosave()
    lines = [text for _, text, _ in resumed.game.notes if text.startswith("resumed the autosaved game")]
    assert lines == ["resumed the autosaved game (1 action); the bot plays player 2 (utility), as before"]


def test_play_resume_keeps_an_older_autosave_byte_for_byte(tmp_path, datadir):
    tbl, path, before = plant(tmp_path, "old-autosave.yaml")
    app = App((1280, 800))
    scene = start(app, tbl, resume=True)
    userdata.flush_autosave()
    copies = sorted(datadir.glob("autosave-older-*.yaml"))
    assert len(copies) == 1 and copies[0].read_bytes() == before
    assert any(str(copies[0]) in text for _, text, _ in scene.game.notes)
    assert len(load_game(path).log) == 3  # the autosave itself is the game, in the newer form
    app2 = App((1280, 800))
    start(app2, tbl, resume=True)  # a second resume makes no second copy
    assert len(list(datadir.glob("autosave-older-*.yaml"))) == 1
