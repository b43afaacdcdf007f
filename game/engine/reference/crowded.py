"""Random crowded tables for the legality reference: a scenario document (the YAML of
docs/formats.md as a dict) drawn from one seed, the same document for the same seed.

A table is 30" square with 30-40 units in two warbands, difficult ground, thin walls
(climbable, M6), raised blocks and impassable rocks. About two bases in five stand at the
edge of difficult ground: just in, just out, or touching it to within a hair, the places
where a rule's shortcut and a path's own verdict can part.
"""

from __future__ import annotations

import json
import math
import random

from shapely.geometry import Point, Polygon, box

SIZE = 30.0
BASES_MM = (25, 25, 25, 32, 40)
MOVES = (4, 5, 6, 6, 7)
#: How far outside difficult ground (inches, edge to edge) an edge-placed base stands:
#: exact touching, a hair either side, a little either side.
EDGE_OFFSETS = (0.0, 1e-4, -1e-4, 2e-4, 0.01, -0.01, 0.05)


def _rect(rng: random.Random, w: float, h: float, angle: float) -> Polygon:
    cx, cy = rng.uniform(3, SIZE - 3), rng.uniform(3, SIZE - 3)
    c, s = math.cos(angle), math.sin(angle)
    pts = [
        (cx + c * x - s * y, cy + s * x + c * y)
        for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
    ]
    return Polygon([(round(x, 4), round(y, 4)) for x, y in pts])


def _terrain(rng: random.Random) -> list[dict]:
    out: list[dict] = []
    taken: list[Polygon] = []

    def add(kind: str, poly: Polygon, height: float | None = None) -> None:
        if not poly.within(box(0.5, 0.5, SIZE - 0.5, SIZE - 0.5)) or any(poly.distance(o) < 1.3 for o in taken):
            return
        taken.append(poly)
        piece = {"id": f"{kind}-{len(out)}", "kind": kind, "polygon": [list(p) for p in poly.exterior.coords[:-1]]}
        if height is not None:
            piece["height"] = height
        out.append(piece)

    for _ in range(rng.randint(4, 7)):
        add("difficult", _rect(rng, rng.uniform(2, 6), rng.uniform(2, 6), rng.choice((0.0, rng.uniform(0, math.pi)))))
    for _ in range(rng.randint(2, 4)):
        add(
            "wall",
            _rect(rng, rng.uniform(3, 7), rng.choice((0.25, 0.5)), rng.uniform(0, math.pi)),
            rng.choice((1.5, 2.0)),
        )
    for _ in range(rng.randint(1, 3)):
        add("impassable", _rect(rng, rng.uniform(1, 3), rng.uniform(1, 3), rng.uniform(0, math.pi)))
    for _ in range(rng.randint(0, 2)):
        add("block", _rect(rng, rng.uniform(2, 4), rng.uniform(2, 4), 0.0), rng.choice((2.0, 3.0)))
    return out


def _edge_spot(rng: random.Random, difficult: list[Polygon], r: float) -> tuple[float, float]:
    poly = rng.choice(difficult)
    ring = poly.exterior
    p = ring.interpolate(rng.uniform(0, ring.length))
    # outward: away from the polygon's nearest point, along the edge's normal
    q = ring.interpolate(ring.project(p) + 1e-3)
    dx, dy = q.x - p.x, q.y - p.y
    n = math.hypot(dx, dy) or 1.0
    nx, ny = dy / n, -dx / n
    if poly.contains(Point(p.x + 1e-3 * nx, p.y + 1e-3 * ny)):
        nx, ny = -nx, -ny
    off = r + rng.choice(EDGE_OFFSETS)
    return p.x + off * nx, p.y + off * ny


def crowded_document(seed: int) -> dict:
    """The scenario document of one crowded table (player 1 acts first)."""
    rng = random.Random(seed)
    terrain = _terrain(rng)
    difficult = [Polygon(t["polygon"]) for t in terrain if t["kind"] == "difficult"]
    solid = [Polygon(t["polygon"]).buffer(0) for t in terrain if t["kind"] != "difficult"]
    n = rng.randint(30, 40)
    placed: list[tuple[float, float, float]] = []
    units: dict[str, list[dict]] = {"red": [], "blue": []}
    tries = 0
    while len(placed) < n and tries < 4000:
        tries += 1
        mm = rng.choice(BASES_MM)
        r = mm / 25.4 / 2
        if difficult and rng.random() < 0.4:
            x, y = _edge_spot(rng, difficult, r)
        else:
            x, y = rng.uniform(r, SIZE - r), rng.uniform(r, SIZE - r)
        if not (r <= x <= SIZE - r and r <= y <= SIZE - r):
            continue
        if any(math.hypot(x - px, y - py) < r + pr + 1e-3 for px, py, pr in placed):
            continue
        if any(Point(x, y).distance(p) < r + 1e-3 for p in solid):
            continue
        placed.append((x, y, r))
        side = "red" if len(placed) % 2 else "blue"
        u = {
            "id": f"{side}-{len(units[side]):02d}",
            "name": f"{side} {len(units[side])}",
            "at": [round(x, 6), round(y, 6)],
            "base_mm": mm,
            "stats": {"move": rng.choice(MOVES), "agility": 12, "morale": 10, "defence": 10},
        }
        if rng.random() < 0.12:
            u["status"] = "staggered"
        units[side].append(u)
    first = rng.choice(("red", "blue"))
    second = "blue" if first == "red" else "red"
    return {
        "name": f"crowded {seed}",
        "table": {"width": SIZE, "height": SIZE},
        "terrain": terrain,
        "warbands": [
            {"id": first, "player": 1, "units": units[first]},
            {"id": second, "player": 2, "units": units[second]},
        ],
    }


def crowded_text(seed: int) -> str:
    """:func:`crowded_document` as scenario text (JSON is YAML)."""
    return json.dumps(crowded_document(seed))
