"""Where the table keeps its files: autosave, settings and the crash log.

The directory is the platformdirs user data dir of ``speedheim-table`` (override it
with the ``SPEEDHEIM_DATA_DIR`` environment variable, as the tests do). Every write
is atomic (a temporary file, then a rename), so a crash mid-write never leaves a
half file behind.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import threading
import traceback
from typing import Any

from game.engine.files import atomic_write as atomic_write_text  # temporary file, then rename

APP = "speedheim-table"
AUTOSAVE = "autosave.yaml"
SETTINGS = "settings.json"
CRASHLOG = "errors.log"

DEFAULT_SETTINGS: dict[str, Any] = {
    "dice": "auto",  # auto: roll for me | physical: ask for each result
    "rings": False,
    "reach": True,
    "trails": True,
    "handover": True,  # hot-seat hand-over screen between players
    "turn_card_seen": False,  # the first game's "how to play a turn" card was shown
}


def data_dir() -> str:
    path = os.environ.get("SPEEDHEIM_DATA_DIR")
    if not path:
        import platformdirs

        path = platformdirs.user_data_dir(APP, appauthor=False)
    os.makedirs(path, exist_ok=True)
    return path


def autosave_path() -> str:
    return os.path.join(data_dir(), AUTOSAVE)


def crashlog_path() -> str:
    return os.path.join(data_dir(), CRASHLOG)


def settings_path() -> str:
    return os.path.join(data_dir(), SETTINGS)


def has_autosave() -> bool:
    return os.path.exists(autosave_path())


def clear_autosave() -> None:
    try:
        os.unlink(autosave_path())
    except FileNotFoundError:
        pass


def write_autosave(game: Any) -> str:
    """Save the game (scenario + log) to the autosave file, atomically."""
    from game.engine.saves import save_game

    path = autosave_path()
    save_game(path, game)  # save_game writes atomically (temporary file + rename)
    return path


class _Autosaver:
    """Writes autosaves off the frame: the save is built at once (cheap), the YAML is
    written by a worker thread, newest first (an older one still queued is dropped)."""

    def __init__(self):
        self.cv = threading.Condition()
        self.pending: tuple[str, dict] | None = None
        self.busy = False
        self.thread: threading.Thread | None = None
        self.errors: list[str] = []

    def submit(self, path: str, data: dict) -> None:
        with self.cv:
            self.pending = (path, data)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, daemon=True, name="speedheim-autosave")
                self.thread.start()
            self.cv.notify_all()

    def flush(self, timeout: float = 30.0) -> None:
        with self.cv:
            self.cv.wait_for(lambda: self.pending is None and not self.busy, timeout=timeout)

    def _run(self) -> None:
        from game.engine.yamlsrc import dump_yaml

        while True:
            with self.cv:
                self.cv.wait_for(lambda: self.pending is not None)
                path, data = self.pending
                self.pending = None
                self.busy = True
            try:
                atomic_write_text(path, dump_yaml(data))
            except Exception as exc:  # noqa: BLE001 - reported, never fatal
                self.errors.append(f"{path}: {exc}")
                log_exception(exc, "writing the autosave")
            finally:
                with self.cv:
                    self.busy = False
                    self.cv.notify_all()


_autosaver = _Autosaver()


def autosave_async(game: Any) -> str:
    """Autosave without blocking the window (see :class:`_Autosaver`)."""
    from game.engine.saves import save_dict

    path = autosave_path()
    _autosaver.submit(path, save_dict(game))
    return path


def flush_autosave() -> None:
    """Wait until the last autosave is on disk (quit, tests)."""
    _autosaver.flush()


def load_settings() -> dict[str, Any]:
    out = dict(DEFAULT_SETTINGS)
    try:
        with open(settings_path(), encoding="utf-8") as fh:
            data = json.load(fh)
        if isinstance(data, dict):
            out.update({k: v for k, v in data.items() if k in DEFAULT_SETTINGS})
    except (OSError, ValueError):
        pass
    return out


def save_settings(settings: dict[str, Any]) -> None:
    try:
        atomic_write_text(settings_path(), json.dumps(settings, indent=2, sort_keys=True))
    except OSError:
        pass


def log_exception(exc: BaseException, where: str = "") -> str:
    """Append the traceback to the crash log; returns the log's path."""
    path = crashlog_path()
    stamp = _dt.datetime.now().isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"--- {stamp} {where}\n{text}\n")
    except OSError:
        pass
    return path
