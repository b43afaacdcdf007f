"""Generate maps/stress.yaml: a 48" x 48" table with exactly 60 terrain pieces and 40 units.

Deterministic (a fixed seed): running it again writes the same file. The map is for the
benchmarks (render, measurement, movement), so it is busy but valid: every kind of terrain,
two-storey buildings, ladders, treasure (one Event, one Plague) and two warbands of 20.

    .venv/bin/python tools/make_stress.py [OUT]     # default: maps/stress.yaml
"""

from __future__ import annotations

import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from shapely.geometry import Point, Polygon, box  # noqa: E402

SEED = 4848
SIZE = 48.0
#: Terrain stays in this band of y so the deployment zones (top and bottom 6") are clear.
BAND = (7.5, 40.5)
GAP = 1.2  # inches kept free between separate pieces (room for bases and ladders)
COUNTS = {"block": 22, "tower": 6, "wall": 14, "difficult": 11, "impassable": 7}  # = 60
UNITS_PER_SIDE = 20
BASES = [25, 25, 25, 32, 25, 40, 25, 25, 50, 25]


def _r(v: float) -> float:
    return round(v * 4) / 4  # quarter inches, as a designer would write them


def _rect(rng: random.Random, w: float, h: float) -> Polygon:
    x = _r(rng.uniform(1.0, SIZE - 1.0 - w))
    y = _r(rng.uniform(BAND[0], BAND[1] - h))
    return box(x, y, x + _r(w), y + _r(h))


def _blob(rng: random.Random, rx: float, ry: float) -> Polygon:
    cx = _r(rng.uniform(1.0 + rx, SIZE - 1.0 - rx))
    cy = _r(rng.uniform(BAND[0] + ry, BAND[1] - ry))
    n = rng.randint(6, 9)
    pts = []
    for i in range(n):
        a = 2 * math.pi * i / n
        k = rng.uniform(0.75, 1.0)
        pts.append((_r(cx + rx * k * math.cos(a)), _r(cy + ry * k * math.sin(a))))
    return Polygon(pts)


def _wall(rng: random.Random) -> Polygon:
    length = rng.uniform(3, 8)
    thick = rng.choice([0.25, 0.4, 0.5])
    if rng.random() < 0.5:
        return _rect(rng, length, thick)
    return _rect(rng, thick, length)


def generate(seed: int = SEED) -> dict:
    """The stress map's data for ``seed``: terrain, ladders, treasure, then the warbands,
    drawn from one random stream in that order."""
    rng = random.Random(seed)
    terrain, placed, blocks = _terrain(rng)
    ladders = _ladders(rng, blocks)
    treasure = _treasure(rng, placed)
    warbands = _warbands(rng)
    deployment = {"north": [[0, 0], [48, 0], [48, 6], [0, 6]], "south": [[0, 42], [48, 42], [48, 48], [0, 48]]}
    return {
        "terrain": terrain,
        "ladders": ladders,
        "treasure": treasure,
        "deployment": deployment,
        "warbands": warbands,
    }


def _terrain(rng: random.Random) -> tuple[list[dict], list[Polygon], list[tuple[str, Polygon, float]]]:
    """The terrain pieces (COUNTS of each kind, each clear of the others by GAP), the
    footprints placed, and the blocks (id, footprint, height)."""
    placed: list[Polygon] = []  # footprints that others keep clear of
    terrain: list[dict] = []
    blocks: list[tuple[str, Polygon, float]] = []

    def free(poly: Polygon) -> bool:
        if not poly.is_valid or poly.area <= 0:
            return False
        g = poly.buffer(GAP)
        return all(not g.intersects(p) for p in placed)

    def add(kind: str, poly: Polygon, height: float | None, tid: str) -> None:
        item = {"id": tid, "kind": kind}
        if height is not None:
            item["height"] = height
        item["polygon"] = [[_fmt(x), _fmt(y)] for x, y in list(poly.exterior.coords)[:-1]]
        terrain.append(item)

    def place(make, tries: int = 4000) -> Polygon:
        for _ in range(tries):
            poly = make()
            if free(poly):
                placed.append(poly)
                return poly
        raise RuntimeError("could not place a piece; change the seed or the counts")

    for i in range(COUNTS["block"]):
        if i % 4 == 3:
            poly = place(lambda: _blob(rng, rng.uniform(1.5, 2.5), rng.uniform(1.5, 2.5)))
        else:
            poly = place(lambda: _rect(rng, rng.uniform(3, 6), rng.uniform(3, 5)))
        h = rng.choice([1, 2, 2, 3, 3, 3, 4])
        tid = f"block-{i + 1:02d}"
        add("block", poly, h, tid)
        blocks.append((tid, poly, h))
    # Towers: a higher storey on part of a rectangular block's footprint.
    rect_blocks = [b for b in blocks if len(b[1].exterior.coords) == 5]
    for i, (tid, poly, h) in enumerate(rect_blocks[: COUNTS["tower"]]):
        minx, miny, maxx, maxy = poly.bounds
        w, d = _r((maxx - minx) / 2), _r((maxy - miny) / 2)
        tower = box(minx, miny, minx + w, miny + d)
        add("block", tower, h + 3, f"tower-{i + 1:02d}")
    for i in range(COUNTS["wall"]):
        poly = place(lambda: _wall(rng))
        h = rng.choice([0.5, 0.75, 1.5, 2, 2.5]) if i % 2 else rng.choice([0.5, 0.75])
        add("wall", poly, h, f"wall-{i + 1:02d}")
    for i in range(COUNTS["difficult"]):
        poly = place(lambda: _blob(rng, rng.uniform(1.2, 2.5), rng.uniform(1.2, 2.5)))
        add("difficult", poly, None, f"rubble-{i + 1:02d}")
    for i in range(COUNTS["impassable"]):
        poly = place(lambda: _blob(rng, rng.uniform(0.8, 1.8), rng.uniform(0.8, 1.8)))
        add("impassable", poly, None, f"pool-{i + 1:02d}")
    return terrain, placed, blocks


def _ladders(rng: random.Random, blocks: list[tuple[str, Polygon, float]]) -> list[dict]:
    """A ladder at the middle of a side of eight rectangular blocks past the towers' ones."""
    # Ladders: the middle of a block's side, 0.5" out.
    ladders = []
    for tid, poly, h in [b for b in blocks if len(b[1].exterior.coords) == 5][COUNTS["tower"] : COUNTS["tower"] + 8]:
        minx, miny, maxx, maxy = poly.bounds
        side = rng.choice(["n", "s", "e", "w"])
        foot = {
            "n": ((minx + maxx) / 2, miny - 0.5),
            "s": ((minx + maxx) / 2, maxy + 0.5),
            "e": (maxx + 0.5, (miny + maxy) / 2),
            "w": (minx - 0.5, (miny + maxy) / 2),
        }[side]
        if not (0.5 < foot[0] < SIZE - 0.5 and 0.5 < foot[1] < SIZE - 0.5):
            continue
        ladders.append({"id": f"ladder-{tid}", "foot": [_fmt(foot[0]), _fmt(foot[1])], "top": tid})
    return ladders


def _treasure(rng: random.Random, placed: list[Polygon]) -> list[dict]:
    """Eight tokens (one Event, one Plague) on open ground; each keeps the next ones clear."""
    # Treasure on open ground.
    treasure = []
    events = ["event", "plague"] + ["none"] * 6
    for i, ev in enumerate(events):
        for _ in range(4000):
            x, y = _r(rng.uniform(3, SIZE - 3)), _r(rng.uniform(BAND[0], BAND[1]))
            spot = Point(x, y).buffer(1.0)
            if all(not spot.intersects(p) for p in placed):
                placed.append(Point(x, y).buffer(0.5))
                treasure.append({"id": f"t{i + 1}", "at": [_fmt(x), _fmt(y)], "event": ev})
                break
    return treasure


def _warbands(rng: random.Random) -> list[dict]:
    """The two warbands of UNITS_PER_SIDE units in rows at their table edges, stats drawn."""
    warbands = []
    for side, (wid, player, colour, y0) in enumerate([("north", 1, "#c8322b", 1.75), ("south", 2, "#2862c8", 42.75)]):
        units = []
        for i in range(UNITS_PER_SIDE):
            row, col = divmod(i, 10)
            base = BASES[(i + side * 3) % len(BASES)]
            x = 2.4 + col * 4.8
            y = y0 + row * 2.75
            kw = []
            if i in (0, 1):
                kw.append("hero")
            if i == 2:
                kw += ["hero", "caster"]
            if base == 40 and not kw:
                kw.append("animal")
            units.append(
                {
                    "id": f"{wid}-{i + 1:02d}",
                    "name": f"{wid.capitalize()} {i + 1}",
                    "at": [_fmt(x), _fmt(y)],
                    "base_mm": base,
                    "keywords": kw,
                    "stats": {
                        "move": rng.choice([4, 5, 6]),
                        "agility": rng.randint(8, 14),
                        "morale": rng.randint(7, 15),
                        "defence": rng.randint(8, 13),
                    },
                }
            )
        warbands.append({"id": wid, "player": player, "colour": colour, "units": units})
    return warbands


def _fmt(v: float) -> int | float:
    v = round(float(v), 3)
    return int(v) if v.is_integer() else v


def _flow(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    if isinstance(v, str):
        return f"'{v}'" if v.startswith("#") or v in ("none", "null", "yes", "no") else v
    return str(v)


def to_yaml(data: dict) -> str:
    out = [
        "# GENERATED by tools/make_stress.py (seed %d): do not edit by hand, run the tool." % SEED,
        '# A busy 48" x 48" table for the benchmarks: 60 terrain pieces, 40 units (2 x 20).',
        "name: Stress Test Town",
        "table: {width: 48, height: 48}",
        "terrain:",
    ]
    out += [f"  - {_flow(t)}" for t in data["terrain"]]
    out.append("ladders:")
    out += [f"  - {_flow(x)}" for x in data["ladders"]]
    out.append("treasure:")
    out += [f"  - {_flow(x)}" for x in data["treasure"]]
    out.append("deployment:")
    out += [f"  {k}: {_flow(v)}" for k, v in data["deployment"].items()]
    out.append("warbands:")
    for w in data["warbands"]:
        out.append(f"  - id: {w['id']}")
        out.append(f"    player: {w['player']}")
        out.append(f"    colour: '{w['colour']}'")
        out.append("    units:")
        out += [f"      - {_flow(u)}" for u in w["units"]]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    from game.bundled import bundled_map

    out = argv[1] if len(argv) > 1 else bundled_map("stress.yaml")
    text = to_yaml(generate())
    from game.engine.errors import LoadError
    from game.engine.scenario import load_scenario

    try:
        sc = load_scenario(out, text=text)
    except LoadError as exc:
        print(exc, file=sys.stderr)
        return 1
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(
        f"{out}: {len(sc.terrain)} terrain pieces, {len(sc.state.units)} units, {len(sc.ladders)} ladders, "
        f"{len(sc.state.treasure)} tokens"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
