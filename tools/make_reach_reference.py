"""The reachable areas of every unit of maps/stress.yaml and maps/default.yaml, stored as the
reference tests/test_reach_reference.py compares `Mover.reachable` with.

    python tools/make_reach_reference.py                 # with this checkout's engine
    python tools/make_reach_reference.py --code DIR      # with the engine of another checkout

The stored file (tests/golden/reach-regions.jsonl.gz) was first made with the engine as it
was before the reachable area was made faster (commit 1f14ec2, `--code` on an export of
it): the test holds the engine to those regions within 0.02". A change that means to
move the area (a rule, a better edge) regenerates the file and says by how much; the
tool prints how far the new regions reach beyond the old ones and back (:func:`moved`).

Regenerated (branch edge) when rays were cast where the circle of reach (or the curve a
fan's rays trace) crosses a straight edge, the table's or a piece's grown by the base
radius: before, the chord between the rays either side cut that corner off. Measured
against the file it replaced: the regions grew by up to 1.757" (default.yaml blue-troll
walk_free: a pocket of 0.02 sq in, apart from the rest, that the old chords left out
entirely; 0.46" at stress.yaml north-03 run_free, the corner at the table's edge), and
every point sampled in what they gained is reached by the path search (`Mover.plan`).
They shrank by up to 0.0177" (default.yaml red-hound walk_free), only off difficult
ground: every point of the old regions more than 0.002" outside the new ones (463, on a
0.005" grid) is refused by the path search (M12: the path costs more than the allowance
less the penalty); on ground it reaches no region shrank by more than 0.002".

Each line: {"map", "unit", "regions": [walk_free, walk_check, run_free, run_check] as WKT
rounded to 0.00001"}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "tests", "golden", "reach-regions.jsonl.gz")
MAPS = ("stress.yaml", "default.yaml")
LAYERS = ("walk_free", "walk_check", "run_free", "run_check")


def regions(map_name: str) -> dict[str, list]:
    """unit id -> its four regions (shapely geometries), every active unit of a bundled map."""
    from game.bundled import bundled_map
    from game.engine.geometry import Board
    from game.engine.movement import Mover
    from game.engine.scenario import load_scenario

    sc = load_scenario(str(bundled_map(map_name)))
    mover = Mover(sc, Board(sc.width, sc.height, sc.terrain))
    out = {}
    for u in sc.state.units.values():
        if u.active:
            r = mover.reachable(sc.state, u.id)
            out[u.id] = [getattr(r, name) for name in LAYERS]
    return out


def load(path: str = REFERENCE) -> dict[tuple[str, str], list]:
    """(map, unit) -> the four stored regions (made valid again where rounding the
    coordinates pinched a ring: only their polygons)."""
    import shapely

    def region(wkt: str):
        g = shapely.from_wkt(wkt)
        if shapely.is_valid(g):
            return g
        parts = shapely.get_parts(shapely.make_valid(g))
        return shapely.union_all([p for p in parts if shapely.get_type_id(p) in (3, 6)])

    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return {(r["map"], r["unit"]): [region(w) for w in r["regions"]] for r in rows}


def moved(old, new, step: float = 0.001) -> tuple[float, float]:
    """How far ``new`` reaches beyond ``old`` and ``old`` beyond ``new`` (inches): the two
    directed Hausdorff distances of the regions as sets, measured on the boundaries of
    their differences densified to ``step``."""
    import shapely

    def beyond(a, b) -> float:
        rest = shapely.difference(a, b)
        if rest.is_empty:
            return 0.0
        pts = shapely.get_coordinates(shapely.segmentize(shapely.boundary(rest), step))
        return float(shapely.distance(b, shapely.points(pts)).max()) if not b.is_empty else math.inf

    return beyond(new, old), beyond(old, new)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", default=ROOT, help="checkout whose engine computes the regions")
    ap.add_argument("-o", "--out", default=REFERENCE)
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.code))
    import shapely

    before = load(args.out) if os.path.exists(args.out) else {}
    lines, grow, shrink = [], (0.0, None), (0.0, None)
    for m in MAPS:
        for uid, geoms in regions(m).items():
            for layer, old, new in zip(LAYERS, before.get((m, uid), ()), geoms):
                g, s = moved(old, new)
                grow, shrink = max(grow, (g, (m, uid, layer))), max(shrink, (s, (m, uid, layer)))
            lines.append(
                json.dumps(
                    {
                        "map": m,
                        "unit": uid,
                        "regions": [shapely.to_wkt(g, rounding_precision=5, trim=True) for g in geoms],
                    }
                )
            )
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"{len(lines)} units -> {args.out}")
    if before:
        print(
            f'against the file it replaces: grew by up to {grow[0]:.4f}" {grow[1]}, '
            f'shrank by up to {shrink[0]:.4f}" {shrink[1]}'
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
