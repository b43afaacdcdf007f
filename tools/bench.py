"""`make bench`: run every tools/bench_*.py and write a table (bench-results.md)."""

from __future__ import annotations

import json
import os
import subprocess
import pathlib
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def run_isolated(path: pathlib.Path) -> list[dict]:
    """Run one bench file in a fresh process, so areas cannot disturb each other."""
    code = (
        "import json, sys, importlib.util\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        f"spec = importlib.util.spec_from_file_location('b', {str(path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "rows = m.run()\n"
        "sys.stdout.write('\\nBENCH-ROWS ' + json.dumps(rows) + '\\n')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    for line in out.stdout.splitlines():
        if line.startswith("BENCH-ROWS "):
            return json.loads(line[len("BENCH-ROWS "):])
    raise RuntimeError((out.stderr.strip().splitlines() or ["no output"])[-1])


def met(ok) -> str:
    """The table's "met": a row's ``ok`` is None when its data cannot tell (a rate over a
    few games whose interval holds the target: tools/bot_eval.judged)."""
    return "too few to tell" if ok is None else "yes" if ok else "NO"


def main(argv: list[str]) -> int:
    only = set(argv)
    rows, failures = [], []
    for path in sorted(HERE.glob("bench_*.py")):
        area = path.stem[len("bench_"):]
        if only and area not in only:
            continue
        t0 = time.perf_counter()
        try:
            for row in run_isolated(path):
                rows.append((area, row))
        except Exception:
            failures.append((area, traceback.format_exc()))
        print(f"{area}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    lines = ["| area | benchmark | measured | target | met |", "|---|---|---|---|---|"]
    for area, r in rows:
        value = f"{r['value']:.3g}" if isinstance(r["value"], (int, float)) else str(r["value"])  # "p95 / worst"
        lines.append(f"| {area} | {r['name']} | {value} {r['unit']} | {r['target']} | {met(r['ok'])} |")
    for area, tb in failures:
        lines.append(f"| {area} | (failed to run) | {tb.strip().splitlines()[-1]} | | NO |")
    table = "\n".join(lines)
    print(table)
    (ROOT / "bench-results.md").write_text(table + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
