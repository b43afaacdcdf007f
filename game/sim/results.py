"""The output folder of a run, and ``games.jsonl``: append at once, read back, resume.

::

    DIR/run.json                  what the run plays (RunSpec): --resume reads it
    DIR/scenarios/SLUG.yaml       each variant's scenario, rules baked in (-swapped: seats swapped)
    DIR/games.jsonl               one line per finished game, appended as each finishes
    DIR/logs/SLUG/seed-S.yaml     with --keep-logs: each game's action script
    DIR/errors.log                games that failed (a bug), with their traceback
    DIR/summary.json, report.html the report

Each record is written with one ``write`` of the whole line, then flushed and fsynced, so
a crash loses at most the games in flight, and leaves at worst a torn last line: reading
drops it, and :meth:`GamesFile.repair` cuts it off before a resumed run appends.
"""

from __future__ import annotations

import json
import os
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
            rec = json.loads(raw)
        except ValueError:
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
            yield rec

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


class OutDir:
    """The files of one run (see the module's docstring)."""

    def __init__(self, path: str):
        self.path = path
        self.games = GamesFile(os.path.join(path, "games.jsonl"))

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
                    raise LoadError([Problem(name, 1, f"cannot read the variant's scenario ({exc.strerror})")]) from None
        return spec, texts
