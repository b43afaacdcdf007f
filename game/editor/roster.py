"""Warband rosters: the units a player may deploy, with stats, base sizes and keywords.

A roster is a small YAML file (examples in ``maps/rosters/``)::

    name: Grave Reavers          # the warband's name
    id: reavers                  # optional: the warband id the editor suggests
    colour: "#8e44ad"            # optional
    units:
      - name: Captain
        id: captain              # optional: the stem of the unit ids (reavers-captain)
        count: 1                 # optional, 1 by default
        base_mm: 25
        stats: {move: 6, agility: 12, morale: 14, defence: 10}
        keywords: [hero]

Bad files raise :class:`~game.engine.errors.LoadError` with ``FILE:LINE: what is wrong``.
Pure Python: no pygame.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from game.engine.errors import LoadError, Problem
from game.engine.scenario import REQUIRED_STATS, missing_stat
from game.engine.yamlsrc import Source, is_finite_number, load_yaml, read_text

ROSTER_KEYS = ("name", "id", "colour", "color", "units")
ENTRY_KEYS = ("name", "id", "count", "base_mm", "stats", "keywords", "status")


@dataclass(frozen=True)
class RosterEntry:
    name: str
    stem: str
    base_mm: float
    stats: dict
    keywords: tuple[str, ...] = ()
    count: int = 1


@dataclass
class Roster:
    name: str
    id: str
    colour: str | None
    entries: list[RosterEntry] = field(default_factory=list)
    file: str = ""

    def entry(self, key: str) -> RosterEntry:
        for e in self.entries:
            if e.stem == key or e.name == key:
                return e
        raise KeyError(key)


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")
    return s or "unit"


def parse_roster(src: Source) -> Roster:
    """A roster from loaded YAML; LoadError with every problem (FILE:LINE)."""
    problems: list[Problem] = []

    def bad(path: tuple, msg: str) -> None:
        problems.append(src.problem(path, msg))

    data = src.data
    if not isinstance(data, dict):
        raise LoadError([src.problem((), "a roster must be a mapping with name: and units:")])
    name, rid, colour = _roster_head(data, bad)
    units = data.get("units")
    entries: list[RosterEntry] = []
    if not isinstance(units, list) or not units:
        bad(("units",) if "units" in data else (), "the roster needs a non-empty list of units")
        units = []
    stems: dict[str, int] = {}
    for i, item in enumerate(units):
        entry = _roster_entry(src, i, item, stems, bad)
        if entry is not None:
            entries.append(entry)
    if problems:
        raise LoadError(problems)
    return Roster(name, rid, colour, entries, src.file)


def _roster_head(data: dict, bad: Callable[[tuple, str], None]) -> tuple[str, str, str | None]:
    """The roster's name, id and colour (a default for each that is missing or bad, and
    reported), after reporting its unknown fields."""
    for key in data:
        if key not in ROSTER_KEYS:
            close = difflib.get_close_matches(str(key), ROSTER_KEYS, n=1)
            bad(
                (key,),
                f"unknown field {key!r} in the roster"
                + (f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(ROSTER_KEYS)})"),
            )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        bad(("name",) if "name" in data else (), "the roster needs a name (text)")
        name = "warband"
    rid = data.get("id", slug(name))
    if not isinstance(rid, str) or not rid.strip() or any(c.isspace() for c in rid):
        bad(("id",), f"roster id {rid!r} must be one word with no spaces")
        rid = slug(name)
    colour = data.get("colour", data.get("color"))
    if colour is not None and not (isinstance(colour, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", colour)):
        bad(("colour" if "colour" in data else "color",), f"colour must look like '#c0392b', not {colour!r}")
        colour = None
    return name, rid, colour


def _roster_entry(
    src: Source, i: int, item: Any, stems: dict[str, int], bad: Callable[[tuple, str], None]
) -> RosterEntry | None:
    """Unit entry number i of the roster, None if anything in it is wrong (reported).
    ``stems`` holds the ids seen so far with their lines; a good id is added."""
    path = ("units", i)
    if not isinstance(item, dict):
        bad(path, f"unit entry #{i + 1} must be a mapping (name:, base_mm:, stats:)")
        return None
    ok = True
    for key in item:
        if key not in ENTRY_KEYS:
            close = difflib.get_close_matches(str(key), ENTRY_KEYS, n=1)
            bad(
                path + (key,),
                f"unknown field {key!r} in unit entry #{i + 1}" + (f" (did you mean {close[0]!r}?)" if close else ""),
            )
            ok = False
    uname = item.get("name")
    if not isinstance(uname, str) or not uname.strip():
        bad(path + ("name",) if "name" in item else path, f"unit entry #{i + 1} needs a name (text)")
        ok, uname = False, f"unit{i + 1}"
    what = f"unit {uname!r}"
    stem = item.get("id", slug(uname))
    if not isinstance(stem, str) or not stem.strip() or any(c.isspace() for c in stem):
        bad(path + ("id",), f"{what}: id {stem!r} must be one word with no spaces")
        ok = False
    elif stem in stems:
        bad(path + ("id",), f"{what}: id {stem!r} is already used on line {stems[stem]}")
        ok = False
    else:
        stems[stem] = src.line(path)
    base = item.get("base_mm")
    if not is_finite_number(base) or base <= 0:
        bad(
            path + ("base_mm",) if "base_mm" in item else path,
            f"{what}: base_mm must be a number of mm more than 0, not {base!r}",
        )
        ok = False
    count = item.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        bad(path + ("count",), f"{what}: count must be a whole number of at least 1, not {count!r}")
        ok = False
    stats = _entry_stats(item, path, what, bad)
    keywords = item.get("keywords", []) or []
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        bad(path + ("keywords",), f"{what}: keywords must be a list of words, like [hero, caster]")
        ok, keywords = False, []
    if not ok or stats is None:
        return None
    return RosterEntry(uname, stem, float(base), {str(k): v for k, v in stats.items()}, tuple(keywords), count)


def _entry_stats(item: dict, path: tuple, what: str, bad: Callable[[tuple, str], None]) -> dict | None:
    """A unit entry's stats, None if they are not a mapping with every required stat a
    number of 0 or more (each problem reported)."""
    ok = True
    stats = item.get("stats")
    if not isinstance(stats, dict):
        bad(
            path + ("stats",) if "stats" in item else path,
            f"{what}: stats must be a mapping like {{move: 6, agility: 12, morale: 14, defence: 10}}",
        )
        ok, stats = False, {}
    for key in REQUIRED_STATS:
        if key not in stats:
            bad(*missing_stat(stats, key, path, what))
            ok = False
    for key, value in stats.items():
        if not is_finite_number(value) or value < 0:
            bad(path + ("stats", key), f"{what}: stat {key} must be a number of 0 or more, not {value!r}")
            ok = False
    return stats if ok else None


def load_roster(path: str, text: str | None = None) -> Roster:
    """Read and validate a roster file; raises LoadError (FILE:LINE) and nothing else."""
    try:
        src = load_yaml(read_text(path) if text is None else text, path)
        return parse_roster(src)
    except LoadError:
        raise
    except Exception as exc:  # a bug of ours must not become a traceback for the user
        raise LoadError(
            [Problem(path, 1, f"internal error while loading the roster ({type(exc).__name__}: {exc})")]
        ) from exc
