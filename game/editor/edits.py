"""What every editing command shares: the refusal (:class:`EditError`), item references,
the presets and limits of new pieces, and small geometry helpers (rectangles, wall
lines, rotation, rounding). Pure Python, no pygame."""

from __future__ import annotations

import math
from typing import Iterable

Ref = tuple[str, str]
Point = tuple[float, float]

#: Snapping choices, inches (None: off).
SNAP_STEPS: tuple[float | None, ...] = (0.25, 0.5, 1.0, None)
#: Table size limits for a new map, inches (issue 6).
TABLE_MIN = (24.0, 24.0)
TABLE_MAX = (72.0, 48.0)
#: Editor presets for new pieces (designers change them in the properties panel).
DEFAULT_HEIGHT = {"block": 3.0, "wall": 1.0, "difficult": 0.0, "impassable": 0.0}
DEFAULT_WALL_THICKNESS = 0.25
ROTATE_STEP_DEG = 15.0
DUPLICATE_OFFSET = (1.0, 1.0)
#: Ladder feet stand this far out from the block edge (and within the ruleset's ladder_reach).
LADDER_FOOT_OUT = 0.5
#: A click within this of a block edge places a ladder on it, inches.
LADDER_PICK = 1.0


class EditError(ValueError):
    """An edit the editor refuses, with a sentence that says why (numbers included)."""


def rnd(v: float) -> float:
    """Coordinates as the file keeps them (6 decimals)."""
    return round(float(v), 6)


def rect(p0: Point, p1: Point) -> list[Point]:
    x0, x1 = sorted((p0[0], p1[0]))
    y0, y1 = sorted((p0[1], p1[1]))
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def wall_polygon(p0: Point, p1: Point, thickness: float) -> list[Point]:
    """A wall line from p0 to p1 as a rectangle ``thickness`` wide, centred on the line."""
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    length = math.hypot(dx, dy)
    if length <= 1e-9:
        raise EditError("a wall needs two different points")
    if thickness <= 0:
        raise EditError(f'a wall needs a thickness more than 0, not {thickness:g}"')
    nx, ny = -dy / length * thickness / 2, dx / length * thickness / 2
    return [
        (rnd(p0[0] + nx), rnd(p0[1] + ny)),
        (rnd(p1[0] + nx), rnd(p1[1] + ny)),
        (rnd(p1[0] - nx), rnd(p1[1] - ny)),
        (rnd(p0[0] - nx), rnd(p0[1] - ny)),
    ]


def rotate_points(points: Iterable[Point], centre: Point, degrees: float) -> list[Point]:
    a = math.radians(degrees)
    ca, sa = math.cos(a), math.sin(a)
    cx, cy = centre
    return [(rnd(cx + (x - cx) * ca - (y - cy) * sa), rnd(cy + (x - cx) * sa + (y - cy) * ca)) for x, y in points]


def check_table_size(width: float, height: float) -> None:
    lo_w, lo_h = TABLE_MIN
    hi_w, hi_h = TABLE_MAX
    w, h = max(width, height), min(width, height)
    if not (lo_w <= w <= hi_w and lo_h <= h <= hi_h):
        raise EditError(f'table {width:g}" x {height:g}" is outside {lo_w:g}x{lo_h:g} to {hi_w:g}x{hi_h:g} inches')


def check_id(ident: str) -> None:
    if not isinstance(ident, str) or not ident.strip() or any(c.isspace() for c in ident):
        raise EditError(f"id {ident!r} must be one word with no spaces")


def stem(uid: str) -> str:
    """``reavers-reaver-2`` -> ``reavers-reaver`` (ids made by new_id end in -N)."""
    head, _, tail = uid.rpartition("-")
    return head if head and tail.isdigit() else uid


def seg_dist(a, b, p) -> float:
    ax, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax, by - ay
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / L))
    return math.hypot(ax + t * dx - px, ay + t * dy - py)
