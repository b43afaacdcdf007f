"""The play scene's autosave: where its game is autosaved, when, and what the player is told.

Every action, undo, redo and note autosaves the game to the autosave of the file it was
opened from (:func:`game.ui.userdata.autosave_for`), with the players a bot plays, so a
resumed game keeps them. A write that fails (a full disk, a folder that became
read-only) is said in the window and in the log, once per distinct reason, and again
when autosaving works once more; the crash log keeps the traceback.
"""

from __future__ import annotations

import time
from typing import Callable

from game.ui import userdata
from game.ui.scenes.play.table import Table


#: The note a resume leaves in the log (one per resume: an earlier one at the same place goes).
RESUMED = "resumed the autosaved game"


class Autosave:
    def __init__(self, scene: Table, bots: Callable[[], dict[int, str]]):
        """``bots``: the players a bot plays now (player -> bot name), which a save keeps."""
        self.scene = scene
        self.bots = bots
        self.on = False  # set by the first autosave: notes autosave from then on
        self.path = ""
        self._failing: str | None = None

    def follow(self, source: str) -> None:
        """A game from ``source`` is on the table: autosave it there from now on."""
        self.path = userdata.autosave_for(source)

    def save(self) -> None:
        """Build the save now; a worker thread writes it."""
        self.on = True
        try:
            userdata.autosave_async(self.scene.game, self.path, bots=self.bots())
        except OSError as exc:
            self.failed(f"{self.path}: {exc}")

    def failed(self, text: str) -> None:
        """Say a failed write in the window and the log (a note that does not autosave)."""
        if text == self._failing:
            return
        self._failing = text
        said = f"autosave failed: {text} (the game goes on; Ctrl+S saves it elsewhere)"
        self.scene.game.note(said, "refusal")
        self.scene.toast = (said, time.monotonic())

    def poll(self) -> None:
        """Once a frame: what the writer thread reported since the last frame."""
        errors, ok = userdata.autosave_news()
        for text in errors:
            self.failed(text)
        if ok and self._failing is not None and not errors:
            self._failing = None
            self.scene.note(f"autosave works again ({self.path})")

    def resumed(self, bots: dict[int, str]) -> None:
        """The one log line of a resume: how many actions, and who the bot plays."""
        scene = self.scene
        game = scene.game
        here = len(game.log)
        game.notes = [n for n in game.notes if not (n[0] == here and n[1].startswith(RESUMED))]
        n = sum(1 for e in game.log if e.ok)
        who = " and ".join(f"player {p} ({name})" for p, name in sorted(bots.items()))
        seats = f"; the bot plays {who}, as before" if bots else "; both sides are played at this screen, as before"
        scene.note(f"{RESUMED} ({n} action{'' if n == 1 else 's'}){seats}")
