"""The program's limits on the size of what it is given: checked when a file is read or a
command parsed, before any work, so a huge table, stat or count is one line naming where
it is instead of minutes of work, gigabytes of memory or a crash.

These are limits of the program, not rules of the game (no ruleset parameter changes a
rule by them); each is far beyond any real table or study.
"""

from __future__ import annotations

#: The longest side of a table, inches (the movement and sight indexes grow with the area:
#: a 10,000" table took minutes and gigabytes to check).
MAX_TABLE = 600.0
#: The largest absolute value of any number in a scenario or ruleset (a coordinate, a
#: height, a distance parameter).
MAX_NUMBER = 1_000_000.0
#: The largest value of a unit stat (Move in inches, a check's target number).
MAX_STAT = 1_000.0
#: The latest game turn a state may be at, and the largest turn limit.
MAX_TURN = 10_000
#: The most points per base a line of sight samples (``los_samples``).
MAX_LOS_SAMPLES = 360
#: The largest file the program reads (a scenario, ruleset, script or save), bytes.
MAX_FILE_BYTES = 32 * 1024 * 1024
#: The largest integer a file may hold: beyond it a number no longer fits the 64-bit
#: integers and floats the program computes with.
MAX_INTEGER = 2**63
#: The most seeds per variant one ``simulate`` plays.
MAX_GAMES = 1_000_000


def max_workers(cores: int | None) -> int:
    """The most local worker processes ``simulate --workers`` starts: four per core, at least 8."""
    return max(8, 4 * (cores or 1))
