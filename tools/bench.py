"""`make bench`: run every tools/bench_*.py and write a table (bench-results.md)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    only = set(argv)
    rows, failures = [], []
    for path in sorted(HERE.glob("bench_*.py")):
        area = path.stem[len("bench_"):]
        if only and area not in only:
            continue
        t0 = time.perf_counter()
        try:
            for row in load(path).run():
                rows.append((area, row))
        except Exception:
            failures.append((area, traceback.format_exc()))
        print(f"{area}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    lines = ["| area | benchmark | measured | target | met |", "|---|---|---|---|---|"]
    for area, r in rows:
        lines.append(f"| {area} | {r['name']} | {r['value']:.3g} {r['unit']} | {r['target']} | {'yes' if r['ok'] else 'NO'} |")
    for area, tb in failures:
        lines.append(f"| {area} | (failed to run) | {tb.strip().splitlines()[-1]} | | NO |")
    table = "\n".join(lines)
    print(table)
    (ROOT / "bench-results.md").write_text(table + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
