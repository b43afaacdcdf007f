"""Saving and loading games from the play window (Ctrl+S, Ctrl+O), and opening the newest
simulation report in the browser (Ctrl+R).

Saves go to ``saves/`` in the user data directory unless the player types another
path; loading lists the newest saves and the autosaves (one per map). Simulation reports are the
``report.html`` that ``speedheim simulate`` writes into its output folder
(``sim-out/`` by default): the newest found next to the working folder or the game's
file is opened; when there is none the window says so and offers a file dialog.
"""

from __future__ import annotations

import glob
import os
import re
import time
import webbrowser
from pathlib import Path

from game.engine.errors import LoadError
from game.engine.saves import load_game, save_game
from game.ui import userdata
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.table import Table
from game.ui.widgets.dialogs import ChoiceDialog, FileDialog, TextPrompt


RECENT = 8  # saves listed in the load dialog


def saves_dir() -> str:
    d = os.path.join(userdata.data_dir(), "saves")
    os.makedirs(d, exist_ok=True)
    return d


def report_dirs(source: str | None) -> list[str]:
    """Where simulation reports are looked for: the working folder, the game's file's
    folder and the one above it (a map in ``maps/`` of a project), each once."""
    dirs = [os.getcwd()]
    if source:
        here = os.path.dirname(os.path.abspath(source))
        dirs += [here, os.path.dirname(here)]
    return list(dict.fromkeys(os.path.abspath(d) for d in dirs))


def find_reports(dirs: list[str]) -> list[str]:
    """Simulation reports in ``dirs``, newest first: ``sim-out*/report.html``, and any
    ``*/report.html`` beside a ``games.jsonl`` (a run with ``--out`` elsewhere)."""
    found: set[str] = set()
    for d in dirs:
        found.update(glob.glob(os.path.join(glob.escape(d), "sim-out*", "report.html")))
        found.update(
            p
            for p in glob.glob(os.path.join(glob.escape(d), "*", "report.html"))
            if os.path.exists(os.path.join(os.path.dirname(p), "games.jsonl"))
        )
    return sorted(found, key=lambda p: (os.path.getmtime(p), p), reverse=True)


class GameFiles:
    def __init__(self, scene: Table, bot: BotPlayer):
        self.scene = scene
        self.bot = bot

    def save_dialog(self) -> None:
        scene = self.scene
        base = re.sub(r"[^a-z0-9]+", "-", (scene.scenario.name or "game").lower()).strip("-") or "game"
        default = os.path.join(saves_dir(), f"{base}-{time.strftime('%Y%m%d-%H%M%S')}.yaml")

        def done(value):
            path = os.path.expanduser(value[0].strip()) if value else ""
            if path:
                self.save_to(path)

        scene.app.open_dialog(
            TextPrompt(
                scene.app.ui,
                "Save game",
                "Save the game (scenario + log) to:",
                default,
                done,
                [("Save", "save"), ("Cancel", None)],
            )
        )

    def save_to(self, path: str) -> bool:
        try:
            save_game(path, self.scene.game, bots=self.bot.seats)
        except OSError as exc:
            self.scene.app.message("Save failed", f"Could not write {path}:\n{exc}")
            return False
        self.scene.note(f"saved to {path}")
        return True

    def load_dialog(self) -> None:
        d = saves_dir()
        files = sorted(
            (os.path.join(d, f) for f in os.listdir(d) if f.endswith((".yaml", ".yml"))),
            key=os.path.getmtime,
            reverse=True,
        )[:RECENT]
        choices = [(os.path.basename(f), f) for f in files]
        choices += [(f"autosave: {os.path.basename(f)}", f) for f in userdata.all_autosaves()[:RECENT]]
        self.scene.app.open_dialog(
            FileDialog(
                self.scene.app.ui,
                "Load game",
                f"Saved games in {d}:",
                choices,
                d,
                lambda path: path and self.load_from(path),
                action="Load",
            )
        )

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
        if game.is_over():
            # a game over is opened to look at: the autosave keeps the game in progress
            # until this one is stepped back into play (an undo autosaves it)
            scene.pause_autosave()
        else:
            scene.autosave()
        scene.note(f"loaded {path}")
        scene.after_change(None)
        return True

    # --- simulation reports ---------------------------------------------------------------
    def open_report(self) -> str | None:
        """Open the newest simulation report in the browser; say so clearly when there is
        none (and offer to choose a file). Returns the path opened, or None."""
        scene = self.scene
        dirs = report_dirs(scene.source)
        reports = find_reports(dirs)
        if not reports:
            where = "\n".join(f"  {d}" for d in dirs)
            scene.app.open_dialog(
                ChoiceDialog(
                    scene.app.ui,
                    "No simulation report",
                    "No simulation report was found (sim-out*/report.html) in:\n"
                    + where
                    + "\nRun `speedheim simulate SCENARIO --games N` first (it writes sim-out/report.html), "
                    "or choose a report file.",
                    [("Choose a file...", "choose"), ("OK", None)],
                    lambda v: v == "choose" and self.choose_report(dirs[0]),
                    width=560,
                )
            )
            scene.note("no simulation report found (run speedheim simulate first)", log=False)
            return None
        return self.show_report(reports[0])

    def choose_report(self, folder: str) -> None:
        self.scene.app.open_dialog(
            FileDialog(
                self.scene.app.ui,
                "Open a simulation report",
                "Type the path of a report.html:",
                [],
                folder,
                lambda path: path and self.show_report(os.path.expanduser(path)),
                action="Open",
            )
        )

    def show_report(self, path: str) -> str | None:
        scene = self.scene
        if not os.path.isfile(path):
            scene.app.message("No such report", f"{path} is not a file.")
            return None
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(path)))
        if not webbrowser.open(Path(path).resolve().as_uri()):
            scene.app.message("No browser", f"No web browser could be started. The report is at:\n{path}")
            return None
        scene.note(f"opened the simulation report {path} (written {stamp}) in the browser")
        return path
