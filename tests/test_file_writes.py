"""Issue 48 (4): a write goes through a symlink to its target and refuses to replace what
is not a regular file (a device, a pipe, a folder); a file written over keeps its mode.
Every write of the program goes through game.engine.files.atomic_write, so the commands
(render -o, replay --save) and the editor's save follow the same rule."""

from __future__ import annotations

import os
import stat

import pytest

from game.cli import main
from game.editor.document import Document
from game.engine.files import NotRegularFile, atomic_write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIRMISH = os.path.join(ROOT, "tests", "scripts", "skirmish.yaml")
ACTIONS = os.path.join(ROOT, "tests", "scripts", "skirmish-game.yaml")


def test_a_write_through_a_symlink_changes_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write(str(link), "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "later.txt")
    atomic_write(str(link), "made\n")
    assert link.is_symlink() and (tmp_path / "later.txt").read_text() == "made\n"


def test_a_pipe_or_a_folder_is_refused_and_left_as_it_was(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile) as err:
        atomic_write(str(fifo), "x")
    assert "not a regular file" in str(err.value) and str(fifo) in str(err.value)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(NotRegularFile):
        atomic_write(str(tmp_path), "x")
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary file left


def test_a_file_written_over_keeps_its_mode(tmp_path):
    f = tmp_path / "private.yaml"
    f.write_text("a: 1\n")
    f.chmod(0o600)
    atomic_write(str(f), "a: 2\n")
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o600 and f.read_text() == "a: 2\n"


def test_render_onto_a_symlink_draws_into_its_target_and_onto_a_pipe_exits_2(tmp_path, capsys):
    target = tmp_path / "table.png"
    target.write_bytes(b"old")
    link = tmp_path / "out.png"
    link.symlink_to(target)
    assert main(["render", SKIRMISH, "-o", str(link), "--width", "400"]) == 0
    assert link.is_symlink() and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    capsys.readouterr()
    assert main(["render", SKIRMISH, "-o", str(fifo), "--width", "400"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a regular file" in err[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_replay_save_onto_a_pipe_exits_2_and_leaves_it(tmp_path, capsys):
    fifo = tmp_path / "save.yaml"
    os.mkfifo(fifo)
    assert main(["replay", SKIRMISH, ACTIONS, "--save", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_the_editor_saves_a_symlinked_map_into_its_target(tmp_path):
    target = tmp_path / "maps" / "real.yaml"
    target.parent.mkdir()
    target.write_text(open(SKIRMISH).read())
    link = tmp_path / "mine.yaml"
    link.symlink_to(target)
    doc = Document.open(str(link))
    doc.add_rect("block", (0, 0), (1, 1), height=1)
    doc.save()
    assert link.is_symlink()
    assert Document.open(str(target)).sc.terrain[-1].kind == "block"
    assert len(Document.open(str(target)).sc.terrain) == len(Document.open(SKIRMISH).sc.terrain) + 1
