"""Issue 48 (9): the editor writes an edited file with the bytes it did not change as they
were: a UTF-8 byte order mark stays, a file with CR-only line ends keeps them on every line,
an anchor nothing refers to stays on its line. Reproducers: tests/data/editor/."""

from __future__ import annotations

import os

from game.cli import main
from game.editor.document import Document

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "editor")


def edited(tmp_path, name: str) -> bytes:
    doc = Document.open(os.path.join(DATA, name))
    doc.add_rect("block", (10, 10), (12, 12), height=1)
    out = tmp_path / name
    doc.save(str(out))
    assert main(["check", str(out)]) == 0
    again = Document.open(str(out))
    assert [t.id for t in again.sc.terrain] == ["block-1"]  # the edit is there
    return out.read_bytes()


def test_a_byte_order_mark_is_kept_after_an_edit(tmp_path):
    data = edited(tmp_path, "bom.yaml")
    assert data.startswith(b"\xef\xbb\xbf# A map saved") and data.count(b"\xef\xbb\xbf") == 1


def test_cr_only_line_ends_are_kept_on_every_line(tmp_path):
    data = edited(tmp_path, "cr-only.yaml")
    assert (
        b"\n" not in data
        and data.count(b"\r") == open(os.path.join(DATA, "cr-only.yaml"), "rb").read().count(b"\r") + 5
    )


def test_an_unused_anchor_on_an_unedited_line_stays(tmp_path):
    data = edited(tmp_path, "unused-anchor.yaml")
    assert b"table: &size {width: 36, height: 36}\n" in data


def test_crlf_files_keep_their_line_ends_as_before(tmp_path):
    text = open(os.path.join(ROOT, "tests", "scripts", "duel.yaml"), "rb").read().replace(b"\n", b"\r\n")
    (tmp_path / "src").mkdir()
    src = tmp_path / "src" / "crlf.yaml"
    src.write_bytes(text)
    doc = Document.open(str(src))
    doc.add_rect("block", (10, 10), (12, 12), height=1)
    doc.save(str(tmp_path / "out.yaml"))
    data = (tmp_path / "out.yaml").read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") == data.count(b"\r") > text.count(b"\r\n")
