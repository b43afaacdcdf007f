"""Where the table keeps its files: autosaves, settings and the crash log.

Each scenario file has its own autosave (``autosaves/<name>-<hash>.yaml``, the hash of the
file's real path), so opening one map never offers, or overwrites, another map's game; a
game loaded from a save autosaves beside that save's own key. ``autosave.yaml``, the one
autosave of earlier versions, is still offered on any map until it is resumed or set aside.
An autosave that cannot be read is never overwritten: it is renamed
``autosave-unreadable-<time>.yaml`` before anything new is written.

The directory is the platformdirs user data dir of ``speedheim-table`` (override it
with the ``SPEEDHEIM_DATA_DIR`` environment variable, as the tests do). Every write
is atomic (a temporary file, then a rename), so a crash mid-write never leaves a
half file behind.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import threading
import traceback
from typing import Any

from game.engine.files import atomic_write as atomic_write_text  # temporary file, then rename

APP = "speedheim-table"
AUTOSAVE = "autosave.yaml"  # the single autosave of earlier versions
AUTOSAVES = "autosaves"
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


def autosaves_dir() -> str:
    return os.path.join(data_dir(), AUTOSAVES)


def legacy_autosave_path() -> str:
    return os.path.join(data_dir(), AUTOSAVE)


def autosave_for(source: str) -> str:
    """The autosave of a game opened from ``source``: an autosave is its own; any other
    file (a scenario, a save) has ``autosaves/<stem>-<hash of its real path>.yaml``."""
    real = os.path.realpath(source)
    if os.path.dirname(real) == os.path.realpath(autosaves_dir()) or real == os.path.realpath(legacy_autosave_path()):
        return source
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", os.path.splitext(os.path.basename(real))[0]).strip("-")[:40] or "game"
    digest = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return os.path.join(autosaves_dir(), f"{stem}-{digest}.yaml")


def all_autosaves() -> list[str]:
    """Every autosave on disk, newest first (the legacy ``autosave.yaml`` among them)."""
    d = autosaves_dir()
    found = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".yaml")] if os.path.isdir(d) else []
    if os.path.exists(legacy_autosave_path()):
        found.append(legacy_autosave_path())
    return sorted(found, key=lambda p: (os.path.getmtime(p), p), reverse=True)


def find_autosave(scenario: str) -> str | None:
    """The autosave to offer when ``scenario`` is opened: its own, else the legacy one."""
    own = autosave_for(scenario)
    if os.path.exists(own):
        return own
    return legacy_autosave_path() if os.path.exists(legacy_autosave_path()) else None


def autosave_path(scenario: str | None = None) -> str:
    """The autosave of ``scenario`` (see :func:`autosave_for`); without one, the newest
    autosave on disk (the legacy path when there is none)."""
    if scenario is not None:
        return autosave_for(scenario)
    found = all_autosaves()
    return found[0] if found else legacy_autosave_path()


def _aside(prefix: str) -> str:
    base = os.path.join(data_dir(), f"{prefix}-" + _dt.datetime.now().strftime("%Y%m%d-%H%M%S"))
    dest, n = base + ".yaml", 1
    while os.path.exists(dest):
        n += 1
        dest = f"{base}-{n}.yaml"
    return dest


def set_aside_unreadable(path: str) -> str:
    """Rename an autosave that cannot be read to ``autosave-unreadable-<time>.yaml`` beside
    the data files, byte for byte, so nothing written later replaces it; returns the new path."""
    dest = _aside("autosave-unreadable")
    os.replace(path, dest)
    return dest


def copy_aside(path: str, prefix: str) -> str:
    """Copy ``path`` byte for byte to ``<prefix>-<time>.yaml`` beside the data files."""
    import shutil

    dest = _aside(prefix)
    shutil.copy2(path, dest)
    return dest


def crashlog_path() -> str:
    return os.path.join(data_dir(), CRASHLOG)


def settings_path() -> str:
    return os.path.join(data_dir(), SETTINGS)


def has_autosave() -> bool:
    return bool(all_autosaves())


class _Autosaver:
    """Writes autosaves off the frame: the save is built at once (cheap), the YAML is
    written by a worker thread, newest first (an older one still queued is dropped)."""

    def __init__(self):
        self.cv = threading.Condition()
        self.pending: tuple[str, dict] | None = None
        self.busy = False
        self.thread: threading.Thread | None = None
        self.errors: list[str] = []  # failed writes not yet told (autosave_news)
        self.written = False  # a write succeeded since the last autosave_news

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
                with self.cv:
                    self.written = True
            except Exception as exc:  # noqa: BLE001 - reported in the window, never fatal
                with self.cv:
                    self.errors.append(f"{path}: {exc}")
                log_exception(exc, "writing the autosave")
            finally:
                with self.cv:
                    self.busy = False
                    self.cv.notify_all()


_autosaver = _Autosaver()


def autosave_async(game: Any, path: str, bots: dict[int, str] | None = None) -> str:
    """Autosave to ``path`` without blocking the window (see :class:`_Autosaver`);
    ``bots``: the players a bot plays, kept so a resumed game keeps them."""
    from game.engine.saves import save_dict

    _autosaver.submit(path, save_dict(game, bots=bots))
    return path


def autosave_news() -> tuple[list[str], bool]:
    """What the autosave writer did since the last call: the failed writes (``PATH:
    reason``) and whether any write succeeded. The play window says them."""
    with _autosaver.cv:
        errors, ok = _autosaver.errors, _autosaver.written
        _autosaver.errors, _autosaver.written = [], False
    return errors, ok


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


def _append_to_crashlog(head: str, body: str = "") -> str:
    """Append ``--- <time> head`` (and ``body``) to the crash log; returns its path. A log
    that cannot be written is left alone: the player was told already."""
    path = crashlog_path()
    stamp = _dt.datetime.now().isoformat(timespec="seconds")
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"--- {stamp} {head}\n" + (f"{body}\n" if body else ""))
    except OSError:
        pass
    return path


def log_message(text: str) -> str:
    """Append one dated line to the crash log (something the player was told, kept for
    later); returns the log's path."""
    return _append_to_crashlog(text)


def log_exception(exc: BaseException, where: str = "") -> str:
    """Append the traceback to the crash log; returns the log's path."""
    return _append_to_crashlog(where, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
