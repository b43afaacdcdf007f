"""The output folder of a run, and ``games.jsonl``: append at once, read back, resume.

::

    DIR/run.json                  what the run plays (RunSpec): --resume reads it
    DIR/scenarios/SLUG.yaml       each variant's scenario, rules baked in (-swapped: seats swapped)
    DIR/games.jsonl               one line per finished game, appended as each finishes
    DIR/logs/SLUG/seed-S.yaml     with --keep-logs: each game's action script
    DIR/errors.log                games that failed (a bug), with their traceback
    DIR/summary.json, report.html the report
    DIR/run.lock                  held (an OS file lock) while a run writes here

Each record is written with one ``write`` of the whole line, then flushed and fsynced, so
a crash loses at most the games in flight, and leaves at worst a torn last line: reading
drops it, and :meth:`GamesFile.repair` cuts it off before a resumed run appends. A game's
log is written (atomically) before its record, so a record never points at a missing or
half log. Only one run writes into a folder at a time: :meth:`OutDir.lock` holds an OS
lock on ``run.lock`` (released when the process ends, however it ends) and a second run
is refused, naming the first. Reading checks every record: a line that is no game
record, or a game recorded twice, is ``FILE:LINE: what is wrong``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import sys
from typing import Any, Iterator

from game.engine.errors import LoadError, Problem
from game.engine.files import atomic_write
from game.sim.study import RunSpec


class GamesFile:
    """``games.jsonl``: one JSON object per line."""

    def __init__(self, path: str):
        self.path = path
        self._f = None

    def _lines(self) -> list[bytes]:
        if not os.path.exists(self.path):
            return []
        with open(self.path, "rb") as f:
            return f.read().split(b"\n")

    @staticmethod
    def _parse(raw: bytes) -> dict[str, Any] | None:
        try:
            rec = json.loads(raw, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return None
        return rec if isinstance(rec, dict) else None

    def read(self) -> Iterator[dict[str, Any]]:
        """Every record. The last line may be torn (a crash in the middle of writing it):
        if it is not a whole record it is skipped. A bad line before it is not a crash of
        ours: LoadError with its line number."""
        lines = self._lines()
        last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1)
        for i, raw in enumerate(lines):
            if not raw.strip():
                continue
            rec = self._parse(raw)
            if rec is None:
                if i == last:
                    return
                raise LoadError([Problem(self.path, i + 1, "not a game record (one JSON object per line)")])
            why = record_problem(rec)
            if why is not None:
                raise LoadError([Problem(self.path, i + 1, f"not a game record: {why}")])
            yield rec

    def checked(self) -> int:
        """Read every record as a report would, and refuse a game recorded twice (two runs
        mixed in one folder); returns how many games there are."""
        from game.sim.stats import pairing_of

        seen: dict[tuple, int] = {}
        n = 0
        lines = self._lines()
        for n, rec in enumerate(self.read(), start=1):
            why = record_problem(rec, full=True)
            if why is not None:
                raise LoadError([Problem(self.path, _line_of(lines, n), f"not a game record: {why}")])
            key = (rec["variant"], rec["seed"], rec["swapped"], pairing_of(rec))
            if key in seen:
                line = _line_of(lines, n)
                raise LoadError(
                    [
                        Problem(
                            self.path,
                            line,
                            f"game recorded twice (variant {key[0]!r}, seed {key[1]}"
                            f"{', swapped' if key[2] else ''}, bots {','.join(key[3])}; first on line "
                            f"{_line_of(lines, seen[key])}): two runs wrote into one folder?",
                        )
                    ]
                )
            seen[key] = n
        return n

    def keys(self) -> set[tuple]:
        """(variant, seed, swapped, pairing) of every game played (as :attr:`Job.key`)."""
        from game.sim.stats import pairing_of

        return {(r["variant"], int(r["seed"]), bool(r["swapped"]), pairing_of(r)) for r in self.read()}

    def repair(self) -> bool:
        """Before appending again: cut a torn last line off (True when there was one), and
        end a whole last record that lost only its newline with one."""
        if not os.path.exists(self.path):
            return False
        with open(self.path, "rb+") as f:
            data = f.read()
            body = data.rstrip(b"\n\r\t \0")
            start = body.rfind(b"\n") + 1
            torn = bool(body[start:].strip()) and self._parse(body[start:]) is None
            keep = start if torn else len(body)
            f.seek(keep)
            f.truncate()
            if keep and not torn:
                f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
        return torn

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a whole line, flushed to the disk before returning."""
        if self._f is None:
            self._f = open(self.path, "ab")
        self._f.write((json.dumps(record, separators=(", ", ": ")) + "\n").encode("utf-8"))
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a record may hold")


def _line_of(lines: list[bytes], n: int) -> int:
    """The line number of the ``n``-th record (1-based) among ``lines``."""
    seen = 0
    for i, raw in enumerate(lines):
        if raw.strip():
            seen += 1
            if seen == n:
                return i + 1
    return len(lines)


def record_problem(rec: dict[str, Any], full: bool = False) -> str | None:
    """What makes ``rec`` no game record, or None: its key (variant, seed, swapped, bots);
    ``full``: also the values a report reads."""
    if not isinstance(rec.get("variant"), str):
        return "'variant' must be the variant's name"
    for key in ("seed", "turns") if full else ("seed",):
        v = rec.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or abs(v) > 2**63:
            return f"{key!r} must be a whole number, not {json.dumps(v)}"
    if not isinstance(rec.get("swapped", False), bool):
        return "'swapped' must be true or false"
    if not full:
        return None
    if rec.get("winner") is not None and not isinstance(rec.get("winner"), str):
        return "'winner' must be a warband id or null"
    bots = rec.get("bots")
    if bots is not None and not (isinstance(bots, list) and len(bots) == 2 and all(isinstance(b, str) for b in bots)):
        return "'bots' must name two bots"
    for key in ("lost", "treasure"):
        v = rec.get(key, {})
        if not isinstance(v, dict) or not all(isinstance(n, int) and not isinstance(n, bool) for n in v.values()):
            return f"{key!r} must map warbands to whole numbers"
    for key in ("seconds",):
        v = rec.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return f"{key!r} must be a number"
    return None


class RunLocked(LoadError):
    """Another run holds the folder's lock."""


class OutDir:
    """The files of one run (see the module's docstring)."""

    def __init__(self, path: str):
        self.path = path
        self.games = GamesFile(os.path.join(path, "games.jsonl"))
        self._lock_fd: int | None = None

    def lock(self) -> None:
        """Make the folder (a file or an unwritable place in the way: one-line LoadError) and
        hold its run lock until :meth:`unlock` or the process ends; another run holding it
        is a LoadError that names that run (its pid, start and command)."""
        where = self.file("run.lock")
        try:
            os.makedirs(self.path, exist_ok=True)
            fd = os.open(where, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise LoadError(
                [Problem(exc.filename or self.path, 0, f"cannot write here: {exc.strerror or exc}")]
            ) from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no OS file locks here: one run at a time is up to the user
            self._lock_fd = fd
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 4096).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise RunLocked(
                [
                    Problem(
                        self.path,
                        0,
                        f"another simulate is writing into this folder ({holder}); "
                        f"wait for it to end, or choose another --out",
                    )
                ]
            ) from None
        os.ftruncate(fd, 0)
        stamp = _dt.datetime.now().isoformat(timespec="seconds")
        os.write(
            fd,
            f"pid {os.getpid()}, started {stamp}: {' '.join(['speedheim'] + sys.argv[1:])}\n".encode(
                "utf-8", "replace"
            ),
        )
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def file(self, *parts: str) -> str:
        return os.path.join(self.path, *parts)

    def scenario_path(self, slug: str, swapped: bool) -> str:
        return self.file("scenarios", f"{slug}{'-swapped' if swapped else ''}.yaml")

    def log_dir(self, slug: str) -> str:
        return self.file("logs", slug)

    def has_games(self) -> bool:
        return os.path.exists(self.games.path) and os.path.getsize(self.games.path) > 0

    def write_spec(self, spec: RunSpec, texts: dict[tuple[str, bool], str]) -> None:
        os.makedirs(self.file("scenarios"), exist_ok=True)
        for (slug, swapped), text in texts.items():
            atomic_write(self.scenario_path(slug, swapped), text)
        atomic_write(self.file("run.json"), json.dumps(spec.to_json(), indent=2) + "\n")

    def read_spec(self) -> tuple[RunSpec, dict[tuple[str, bool], str]]:
        path = self.file("run.json")
        try:
            with open(path, encoding="utf-8") as f:
                spec = RunSpec.from_json(json.load(f))
        except FileNotFoundError:
            raise LoadError([Problem(path, 1, "no run here to resume (run.json is missing)")]) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise LoadError([Problem(path, 1, f"not a run description ({exc})")]) from None
        texts = {}
        for v in spec.variants:
            for swapped in spec.sides():
                name = self.scenario_path(v.slug, swapped)
                try:
                    with open(name, encoding="utf-8") as f:
                        texts[(v.slug, swapped)] = f.read()
                except OSError as exc:
                    raise LoadError(
                        [Problem(name, 1, f"cannot read the variant's scenario ({exc.strerror})")]
                    ) from None
        return spec, texts
