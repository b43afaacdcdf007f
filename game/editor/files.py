"""The editor's file operations: save (and save as), load a roster, and play the map.

Play (Ctrl+P) is refused while the map has problems; otherwise the map is saved and a
play scene opens on it in the same window, over the editor. Leaving the game gives
the editor back as it was (document, selection, undo history, camera).
"""

from __future__ import annotations

import glob
import os
import re
from typing import Callable

from game.bundled import rosters_dir
from game.editor.edits import EditError
from game.editor.host import EditorHost
from game.editor.roster import load_roster
from game.engine.errors import LoadError
from game.ui.widgets.dialogs import ChoiceDialog, FileDialog, TextPrompt


DEFAULT_ROSTER_DIR = rosters_dir()
#: The name Document.new gives a map: a map still so named is asked its name when first saved.
NEW_MAP_NAME = "New map"


def default_map_file(name: str) -> str:
    """Where a new map is offered to be saved: its name as a file in the current directory
    (``Ruined Keep`` -> ``ruined-keep.yaml``), never among the bundled maps of the package."""
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "new-map"
    return f"{stem}.yaml"


class EditorFiles:
    def __init__(self, scene: EditorHost, roster_dir: str = DEFAULT_ROSTER_DIR):
        self.scene = scene
        self.roster_dir = roster_dir
        self.played: list[str] = []  # every map played from this editor
        #: Files the user agreed to save over although they hold items the editor cannot read.
        self.confirmed: set[str] = set()

    def save(self, path: str | None = None, confirmed: bool = False) -> bool:
        scene, doc = self.scene, self.scene.doc
        if path is None and self.needs_name():
            self.save_as()
            return False
        target = path or doc.path
        own = os.path.abspath(target) == os.path.abspath(doc.path or "")
        if own and not doc.keeps_file:
            self.ask_save_over(target)
            return False
        if doc.has_unread and not confirmed and os.path.abspath(target) not in self.confirmed:
            self.ask_save_over(target)
            return False
        try:
            findings = doc.save(path)
        except (OSError, EditError) as exc:
            scene.say(f"could not save: {exc}", bad=True)
            return False
        if findings:
            scene.say(
                f"saved {doc.path} WITH {len(findings)} PROBLEM(S): it will not play until they are fixed", bad=True
            )
        else:
            scene.say(f"saved {doc.path}")
        return True

    def needs_name(self) -> bool:
        """A map not saved yet (no file, or its file not written yet) that still has the
        new map's name: the first Ctrl+S asks for its name and file (save as)."""
        doc = self.scene.doc
        if not doc.path:
            return True
        return not os.path.exists(doc.path) and doc.sc.name == NEW_MAP_NAME

    def save_as(self, initial: str | None = None, then: Callable[[], None] | None = None) -> None:
        """Ask for the map's name and a file name, then save there (``then``: after saving)."""
        scene = self.scene
        doc, app = scene.doc, scene.app
        if initial is None:
            initial = doc.path if doc.path and not os.path.exists(doc.path) else default_map_file(doc.sc.name)
            if doc.path and os.path.exists(doc.path):
                stem, ext = os.path.splitext(doc.path)
                initial = f"{stem}-copy{ext or '.yaml'}"

        def chosen(value) -> None:
            if value and self.save_as_chosen(value[0].strip(), value[2].strip()) and then is not None:
                then()

        app.open_dialog(
            TextPrompt(
                app.ui,
                "Save the map as",
                "The map's name, and its file (Tab: the other field):",
                initial,
                chosen,
                [("Save", "save"), ("Cancel", None)],
                name=doc.sc.name,
            )
        )

    def save_as_chosen(self, path: str, name: str | None = None) -> bool:
        """Save under a file name (and map name) typed in the save-as prompt (another
        file: nothing to ask)."""
        if not path:
            return False
        scene = self.scene
        if name and name != scene.doc.sc.name:
            scene.attempt(scene.doc.set_name, name)
            if scene.failed:
                return False
        return self.save(path, confirmed=True)

    def ask_save_over(self, target: str) -> ChoiceDialog:
        """Saving over a file that holds items the editor could not read asks first."""
        scene, doc = self.scene, self.scene.doc
        name = os.path.basename(target)
        stem, ext = os.path.splitext(target)
        choices = [("Save under a new name...", "new"), ("Cancel", None)]
        if not doc.keeps_file:
            message = (
                f"{name} cannot be saved over: its layout cannot be kept ({doc.keep_error}), so its "
                "comments and what the editor could not read would be lost. Save under a new name: "
                f"{name} stays as it is."
            )
        else:
            first = doc.unread[0]
            message = (
                f"{name} holds {len(doc.unread)} problem(s) in what the editor could not read, listed on "
                f"the right (first: line {first.line}: {first.message}).\n"
                "Saving keeps those items exactly as written, with every comment; only your edits change. "
                "Fix them by hand in the file."
            )
            choices.insert(0, (f"Save over {name}, keeping them", "over"))

        def chosen(value) -> None:
            if value == "over":
                self.confirmed.add(os.path.abspath(target))
                self.save(target, confirmed=True)
            elif value == "new":
                self.save_as(f"{stem}-edited{ext or '.yaml'}")
            else:
                scene.say("not saved", bad=True)

        app = scene.app
        return app.open_dialog(
            ChoiceDialog(app.ui, f"Save over {name}?", message, choices, chosen, width=560, default="new")
        )

    def play(self) -> None:
        scene, doc = self.scene, self.scene.doc
        findings = doc.validate()
        if findings:
            scene.say(f"cannot play: the map has {len(findings)} problem(s) (see the list on the right)", bad=True)
            return
        if self.needs_name():
            self.save_as(then=self.play)  # its name and file first; it plays once saved
            return
        if (doc.dirty or not os.path.exists(doc.path)) and not self.save():
            return
        from game.ui.launch import start

        try:
            start(scene.app, doc.path, ask=False)
        except LoadError as exc:
            scene.say(f"cannot play: {exc.problems[0]}", bad=True)
            return
        self.played.append(doc.path)
        scene.say(f"played {doc.path}")

    def roster_dialog(self) -> None:
        app = self.scene.app
        files = [(os.path.basename(f), f) for f in sorted(glob.glob(os.path.join(self.roster_dir, "*.yaml")))]
        app.open_dialog(
            FileDialog(
                app.ui,
                "Load a roster",
                f"Rosters in {self.roster_dir}:",
                files,
                self.roster_dir,
                lambda path: path and self.load_roster_file(path),
                action="Load",
            )
        )

    def load_roster_file(self, path: str) -> str | None:
        scene = self.scene
        roster = scene.attempt(load_roster, path)
        if roster is None:
            return None
        wid = scene.attempt(scene.doc.load_roster, roster)
        if wid:
            scene.warband = wid
            scene.entry = 0
            scene.say(f"roster {roster.name} loaded as warband {wid}: draw its zone (Z), then place units (U)")
        return wid
