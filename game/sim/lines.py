"""Lines: which games played the same moves, so that a repeated game counts once.

A game's ``line`` is a short hash of its whole action sequence (the actions in order, as
the log holds them, each move with its resolved path); its ``opening`` the same over the
actions of the first game turn. Two games with the same line played the same moves: where
deterministic bots meet the same table, seeds that never change a result replay one game,
and counting it twice would make one observation look like two (FORMATS.md, "evidence
that is what it claims").

Records without a ``line`` (older runs) are each their own line.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable

#: Hex digits of a line's hash: 48 bits, no two different games of a run share one.
LINE_DIGITS = 12
#: A variant whose distinct lines are at most this share of its games gets a warning.
FEW_LINES = 0.5


def line_hash(actions: list[Any]) -> str:
    """The hash of an action sequence (key order does not matter, the action order does)."""
    text = json.dumps(actions, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:LINE_DIGITS]


def game_lines(start_turn: int, log: Iterable[Any]) -> tuple[str, str]:
    """(line, opening) of a game log: every applied action, and those applied in the first
    game turn (the turn before each action is the one after the action before it)."""
    actions, opening, turn = [], [], start_turn
    for entry in log:
        if not getattr(entry, "ok", False):
            continue
        action = entry.replayable
        actions.append(action)
        if turn <= 1:
            opening.append(action)
        turn = entry.turn
    return line_hash(actions), line_hash(opening)


def line_of(record: dict[str, Any], key: Any) -> Any:
    """The record's line, or a line of its own (``key``) when it has none."""
    return record.get("line") or ("no line", key)


def distinct_keys(keys: list[tuple], base: dict[tuple, dict], other: dict[tuple, dict]) -> list[tuple]:
    """The paired games whose (baseline line, variant line) no earlier pair repeats, in order."""
    seen, out = set(), []
    for k in keys:
        pair = (line_of(base[k], k), line_of(other[k], k))
        if pair not in seen:
            seen.add(pair)
            out.append(k)
    return out


def one_opening(records: Iterable[dict[str, Any]]) -> bool | None:
    """True when every game with the same seats opened the same way and there was more than
    one game per seating; None when no record has an opening."""
    by_seats: dict[bool, set] = {}
    games: dict[bool, int] = {}
    for r in records:
        if not r.get("opening"):
            return None
        side = bool(r.get("swapped"))
        by_seats.setdefault(side, set()).add(r["opening"])
        games[side] = games.get(side, 0) + 1
    if not by_seats:
        return None
    return all(len(o) == 1 for o in by_seats.values()) and any(n > 1 for n in games.values())


def pairing_of(r: dict[str, Any]) -> tuple[str, ...]:
    """The bot pairing as the study names it (seat 1, seat 2 before the swap)."""
    if r.get("pairing"):
        return tuple(r["pairing"])
    bots = tuple(r.get("bots") or ("?", "?"))
    return bots[::-1] if r.get("swapped") else bots
