"""The reachable areas of every unit of maps/stress.yaml and maps/default.yaml, stored as the
reference tests/test_reach_reference.py compares `Mover.reachable` with.

    python tools/make_reach_reference.py                 # with this checkout's engine
    python tools/make_reach_reference.py --code DIR      # with the engine of another checkout

The stored file (tests/golden/reach-regions.jsonl.gz) was made with the engine as it was
before the reachable area was made faster (commit 1f14ec2, `--code` on an export of it):
the test holds the faster engine to those regions within 0.02". A change that means to
move the area (a rule, a better edge) regenerates the file and says by how much.
Each line: {"map", "unit", "regions": [walk_free, walk_check, run_free, run_check] as WKT
rounded to 0.00001"}.
"""

from __future__ import annotations

import argparse
import gzip
import json
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


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", default=ROOT, help="checkout whose engine computes the regions")
    ap.add_argument("-o", "--out", default=REFERENCE)
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.code))
    import shapely

    lines = []
    for m in MAPS:
        for uid, geoms in regions(m).items():
            lines.append(json.dumps({"map": m, "unit": uid,
                                     "regions": [shapely.to_wkt(g, rounding_precision=5, trim=True) for g in geoms]}))
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"{len(lines)} units -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
