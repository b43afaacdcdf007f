"""Placing bases in the editor: slide a base out of overlap with pymunk, confirm exactly.

pymunk is only a collision index here (STYLE.md): the other bases (static circles)
and walls / impassable ground (static convex pieces: Shapely triangulates concave
polygons) are put in a space, and a base that overlaps them is pushed out along the
contact normals, a few rounds. The answer is then confirmed with the same exact tests
``speedheim check`` uses (``Board.pieces_touching_disc``, circle arithmetic,
``heights_under_disc``); if the push did not find a legal spot, rings of candidate
spots around the click are tried, nearest first. Pure Python, no pygame.
"""

from __future__ import annotations

import math
from typing import Protocol

import pymunk
import shapely
from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon

from game.engine.geometry import Board
from game.engine.model import Scenario


class PlacementDoc(Protocol):
    """What placing a base reads of the document (a :class:`~game.editor.document.Document`
    is one): the scenario, for the other bases and the table's size, and its board."""

    sc: Scenario
    board: Board


EPS = 1e-6
#: A pushed base stops this far clear of what it touched (float safety), inches.
CLEARANCE = 1e-3
PUSH_ROUNDS = 12
#: The ring search: step between rings and the farthest ring, inches.
RING_STEP = 0.125
RING_MAX = 4.0


def _blockers(doc: PlacementDoc) -> list[Polygon]:
    return [Polygon(t.polygon) for t in doc.sc.terrain if t.kind in ("wall", "impassable")]


def _convex_parts(poly: Polygon) -> list[list[tuple[float, float]]]:
    if poly.convex_hull.area - poly.area <= 1e-9:
        return [list(poly.exterior.coords)[:-1]]
    tris = shapely.constrained_delaunay_triangles(poly)
    return [list(t.exterior.coords)[:-1] for t in tris.geoms]


def spot_problem(doc: PlacementDoc, x: float, y: float, r: float, ignore: str | None = None, zone=None) -> str | None:
    """Why a base of radius r cannot stand at (x, y), or None (the validator's tests)."""
    board = doc.board
    if not board.disc_on_table(x, y, r):
        return "off the table"
    if zone is not None and not Polygon(zone).buffer(EPS).contains(ShPoint(x, y)):
        return "outside the deployment zone"
    pieces = board.pieces_touching_disc(x, y, r, ("wall", "impassable"))
    if pieces:
        return f"inside {pieces[0].kind} {pieces[0].id}"
    levels = board.heights_under_disc(x, y, r)
    if levels[-1] - levels[0] > doc.sc.ruleset.free_height + EPS:
        return "straddles a height change"
    z = board.height_at(x, y)
    for u in doc.sc.state.units.values():
        if u.id == ignore or not u.on_table:
            continue
        if u.r + r - math.hypot(u.x - x, u.y - y) > EPS and abs(board.height_at(u.x, u.y) - z) <= EPS:
            return f"overlaps {u.id}"
    return None


def _push(doc: PlacementDoc, at, r: float, ignore: str | None):
    space = pymunk.Space()
    static = space.static_body
    z = doc.board.height_at(*at)
    for u in doc.sc.state.units.values():
        if u.id != ignore and u.on_table and abs(doc.board.height_at(u.x, u.y) - z) <= EPS:
            space.add(pymunk.Circle(static, u.r, (u.x, u.y)))
    for poly in _blockers(doc):
        for part in _convex_parts(poly):
            space.add(pymunk.Poly(static, part))
    body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    body.position = at
    probe = pymunk.Circle(body, r + CLEARANCE)
    space.add(body, probe)
    for _ in range(PUSH_ROUNDS):
        hits = space.shape_query(probe)
        if not hits:
            break
        dx = dy = 0.0
        for hit in hits:
            cps = hit.contact_point_set
            depth = max((-p.distance for p in cps.points), default=0.0)
            dx -= cps.normal.x * depth
            dy -= cps.normal.y * depth
        if abs(dx) < 1e-9 and abs(dy) < 1e-9:
            break
        body.position = (body.position.x + dx, body.position.y + dy)
        space.reindex_shapes_for_body(body)
    x = min(max(body.position.x, r), doc.sc.width - r)
    y = min(max(body.position.y, r), doc.sc.height - r)
    return (round(x, 4), round(y, 4))


def free_spot(doc: PlacementDoc, at, r: float, zone=None, ignore: str | None = None):
    """The legal spot for a base of radius r nearest to ``at`` (slid out of overlap), or None."""
    x, y = float(at[0]), float(at[1])
    x = min(max(x, r), doc.sc.width - r)
    y = min(max(y, r), doc.sc.height - r)
    if spot_problem(doc, x, y, r, ignore, zone) is None:
        return (x, y)
    px, py = _push(doc, (x, y), r, ignore)
    if spot_problem(doc, px, py, r, ignore, zone) is None:
        return (px, py)
    ring = RING_STEP
    while ring <= RING_MAX:
        n = max(8, int(2 * math.pi * ring / RING_STEP))
        best = None
        for k in range(n):
            a = 2 * math.pi * k / n
            cx, cy = round(x + ring * math.cos(a), 4), round(y + ring * math.sin(a), 4)
            if spot_problem(doc, cx, cy, r, ignore, zone) is None:
                best = (cx, cy)
                break
        if best is not None:
            return best
        ring += RING_STEP
    return None
