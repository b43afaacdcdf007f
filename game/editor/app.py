"""``speedheim edit [FILE]``: the map editor, a scene of the one app shell.

With a file that exists, it opens it, also with problems: what it cannot read is
listed and kept in the file (:mod:`game.editor.roundtrip`). A file that is not a map
at all (YAML syntax, an unsafe tag, no table) is refused with ``FILE:LINE`` lines, exit 2. With no file, or a
file that does not exist yet, it first asks for the table size (24x24 to 72x48").
Ctrl+P plays the map in the same window; leaving the game gives the editor back.
"""

from __future__ import annotations

import gc
import os
import sys

from game.editor.document import Document
from game.editor.edits import TABLE_MAX, TABLE_MIN, check_table_size
from game.editor.scene import EditorScene
from game.engine.errors import LoadError
from game.ui.app import App
from game.ui.widgets.dialogs import SizePrompt

DEFAULT_TABLE = (36, 36)


def open_editor(app: App, doc: Document) -> EditorScene:
    """Push the editor on ``doc`` (its path: where Ctrl+S saves)."""
    scene = app.push(EditorScene(app, doc))
    # What is loaded now lives as long as the window: keep it out of the collector's
    # full passes, which otherwise stall the frame after an edit on big maps.
    gc.collect()
    gc.freeze()
    if doc.unread:
        scene.say(
            f"{len(doc.unread)} problem(s) in items the editor cannot read: they are listed on the right "
            "and kept as written when you save",
            bad=True,
        )
    elif doc.opened_with:
        scene.say(f"opened with {len(doc.opened_with)} problem(s): see the list on the right", bad=True)
    elif doc.path and not os.path.exists(doc.path):
        scene.say(f'new map {doc.sc.width:g}" x {doc.sc.height:g}": Ctrl+S asks its name, then saves it to {doc.path}')
    return scene


def ask_new_map(app: App, path: str | None) -> SizePrompt:
    """The new-map question (the table size); cancelling it closes the window."""

    def chosen(size):
        if size is None:
            app.running = False
        else:
            open_editor(app, Document.new(size[0], size[1], path=path))

    message = f"Table size in inches ({TABLE_MIN[0]:g}x{TABLE_MIN[1]:g} to {TABLE_MAX[0]:g}x{TABLE_MAX[1]:g})"
    return app.open_dialog(SizePrompt(app.ui, "New map: table size", message, DEFAULT_TABLE, check_table_size, chosen))


def edit_cli(path: str | None) -> int:
    """``speedheim edit [FILE]``: 0 when the window closes, 2 for a file that cannot be opened."""
    doc = None
    if path and os.path.exists(path):
        try:
            doc = Document.open(path)
        except LoadError as exc:
            exc.report()
            print(f"{path}: cannot be opened as a map; fix these problems by hand", file=sys.stderr)
            return 2
    app = App(title=EditorScene.title)
    if doc is None:
        ask_new_map(app, path)
    else:
        open_editor(app, doc)
    return app.run_to_the_end()
