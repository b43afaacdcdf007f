"""Saving and loading games from the play window (Ctrl+S, Ctrl+O).

Saves go to ``saves/`` in the user data directory unless the player types another
path; loading lists the newest saves and the autosave.
"""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING

from game.engine.errors import LoadError
from game.engine.saves import load_game, save_game
from game.ui import userdata
from game.ui.widgets.dialogs import FileDialog, TextPrompt

if TYPE_CHECKING:  # pragma: no cover
    from game.ui.scenes.play.scene import PlayScene

RECENT = 8  # saves listed in the load dialog


def saves_dir() -> str:
    d = os.path.join(userdata.data_dir(), "saves")
    os.makedirs(d, exist_ok=True)
    return d


class GameFiles:
    def __init__(self, scene: "PlayScene"):
        self.scene = scene

    def save_dialog(self) -> None:
        scene = self.scene
        base = re.sub(r"[^a-z0-9]+", "-", (scene.scenario.name or "game").lower()).strip("-") or "game"
        default = os.path.join(saves_dir(), f"{base}-{time.strftime('%Y%m%d-%H%M%S')}.yaml")

        def done(value):
            path = os.path.expanduser(value[0].strip()) if value else ""
            if path:
                self.save_to(path)

        scene.app.open_dialog(TextPrompt(scene.app.ui, "Save game", "Save the game (scenario + log) to:", default, done,
                                         [("Save", "save"), ("Cancel", None)]))

    def save_to(self, path: str) -> bool:
        try:
            save_game(path, self.scene.game)
        except OSError as exc:
            self.scene.app.message("Save failed", f"Could not write {path}:\n{exc}")
            return False
        self.scene.note(f"saved to {path}")
        return True

    def load_dialog(self) -> None:
        d = saves_dir()
        files = sorted((os.path.join(d, f) for f in os.listdir(d) if f.endswith((".yaml", ".yml"))),
                       key=os.path.getmtime, reverse=True)[:RECENT]
        choices = [(os.path.basename(f), f) for f in files]
        if userdata.has_autosave():
            choices.append(("the autosave", userdata.autosave_path()))
        self.scene.app.open_dialog(FileDialog(self.scene.app.ui, "Load game", f"Saved games in {d}:", choices, d,
                                              lambda path: path and self.load_from(path), action="Load"))

    def load_from(self, path: str) -> bool:
        scene = self.scene
        try:
            game = load_game(path)
        except LoadError as exc:
            scene.app.message("Load failed", "\n".join(str(p) for p in exc.problems[:8]))
            return False
        except OSError as exc:
            scene.app.message("Load failed", f"{path}: {exc}")
            return False
        scene.replace_game(game, path)
        scene.autosave()
        scene.note(f"loaded {path}")
        scene.after_change(None)
        return True
