"""`make bench`: every figure of ``tools/bench_*.py`` for this tree and a baseline commit,
side by side, written to ``docs/benchmarks.md``.

Each area (``tools/bench_AREA.py``, whose ``run()`` returns rows ``{name, value, unit,
target, ok}``) runs in a fresh process, once on this tree's code and once on the baseline's,
several rounds, the order swapped each round (this, base; base, this; ...) so that the
shared machine's slow spells fall on both. The baseline is a commit (``HEAD~1`` unless
``--base REV``) whose ``game/`` package is exported with ``git archive`` into a temporary
folder, put first on ``PYTHONPATH`` and removed afterwards; the bench scripts, their tools
and the maps are always this tree's, so both sides answer the same questions.

A figure is the median of its rounds (with their range); the ratio is this tree's over the
baseline's. ``docs/benchmarks.md`` keeps its hand-written prose: only the blocks between
``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` are rewritten (``header`` and one per
area), and an area the page has no block for is added at its end.

    python tools/bench.py [AREA ...] [--base REV | --no-base] [--rounds N] [--quick] [--out PATH]

``--quick`` runs one round and plays fewer games in the win-rate areas (``QUICK_GAMES``,
unless the environment sets them).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import io
import json
import os
import pathlib
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from typing import Iterator

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PAGE = ROOT / "docs" / "benchmarks.md"
#: What the baseline export holds: the code under test. Scripts, tools and maps are this tree's.
CODE = ("game",)
ROUNDS = 3
#: The environment variable naming the folder of the movement engine's disk cache.
NAV_CACHE = "SPEEDHEIM_NAV_CACHE"
#: The games a win rate plays under --quick (the areas' own defaults: 20 and 4 a map).
QUICK_GAMES = {"SPEEDHEIM_BOT_GAMES": "6", "SPEEDHEIM_PLANNER_GAMES": "2"}


def met(ok) -> str:
    """The table's "met": a row's ``ok`` is None when its data cannot tell (a rate over a
    few games whose interval holds the target: tools/bot_eval.judged)."""
    return "too few to tell" if ok is None else "yes" if ok else "NO"


# --- arguments ----------------------------------------------------------------------------------


@dataclass
class Options:
    areas: list[str]
    base: str | None
    rounds: int
    quick: bool
    out: pathlib.Path


def all_areas(folder: pathlib.Path = HERE) -> list[str]:
    """Every area: the ``bench_AREA.py`` files of ``folder``, sorted."""
    return sorted(p.stem[len("bench_") :] for p in folder.glob("bench_*.py"))


def parse_args(argv: list[str], known: list[str] | None = None) -> Options:
    """The options of ``argv``; an unknown area or a round count below 1 is an error
    (``SystemExit`` with argparse's message), so a typo never runs a half bench quietly."""
    known = all_areas() if known is None else known
    ap = argparse.ArgumentParser(prog="tools/bench.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("areas", nargs="*", metavar="AREA", help=f"areas to run (default all: {', '.join(known)})")
    ap.add_argument("--base", default="HEAD~1", help="the baseline commit (default HEAD~1)")
    ap.add_argument("--no-base", action="store_true", help="measure this tree only")
    ap.add_argument("--rounds", type=int, help=f"rounds of each area on each tree (default {ROUNDS}, 1 with --quick)")
    ap.add_argument("--quick", action="store_true", help="one round, and fewer games where an area allows it")
    ap.add_argument("--out", type=pathlib.Path, default=PAGE, help="the page to write (default docs/benchmarks.md)")
    args = ap.parse_args(argv)
    unknown = [a for a in args.areas if a not in known]
    if unknown:
        ap.error(f"unknown area(s): {', '.join(unknown)} (areas: {', '.join(known)})")
    rounds = args.rounds if args.rounds is not None else 1 if args.quick else ROUNDS
    if rounds < 1:
        ap.error("--rounds must be at least 1")
    return Options(
        areas=args.areas or known,
        base=None if args.no_base else args.base,
        rounds=rounds,
        quick=args.quick,
        out=args.out,
    )


# --- the two trees ------------------------------------------------------------------------------


def git(*args: str, repo: pathlib.Path = ROOT) -> str:
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.strip() or 'failed'}")
    return out.stdout.strip()


def describe_head(repo: pathlib.Path = ROOT) -> str:
    """This tree's commit, short, with "+ changes" when tracked files differ from it."""
    dirty = git("status", "--porcelain", "--untracked-files=no", repo=repo)
    return git("rev-parse", "--short", "HEAD", repo=repo) + (" + uncommitted changes" if dirty else "")


@contextlib.contextmanager
def baseline_tree(
    rev: str, repo: pathlib.Path = ROOT, paths: tuple[str, ...] = CODE
) -> Iterator[tuple[pathlib.Path, str]]:
    """(folder, short commit): ``paths`` of commit ``rev`` exported into a temporary folder,
    removed when the block ends, however it ends."""
    commit = git("rev-parse", "--short", "--verify", f"{rev}^{{commit}}", repo=repo)
    archive = subprocess.run(["git", "archive", "--format=tar", commit, *paths], cwd=repo, capture_output=True)
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {commit}: {archive.stderr.decode(errors='replace').strip()}")
    folder = pathlib.Path(tempfile.mkdtemp(prefix=f"speedheim-bench-{commit}-"))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
                tar.extractall(folder, filter="data")
            else:
                tar.extractall(folder)
        yield folder, commit
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_isolated(
    path: pathlib.Path, code: pathlib.Path = ROOT, quick: bool = False, cache: pathlib.Path | None = None
) -> list[dict]:
    """The rows of one bench file, run in a fresh process on the ``game`` package of ``code``
    (first on PYTHONPATH, before this tree, which gives the scripts' own imports). The child
    says where its ``game`` came from, and a mismatch is an error rather than a wrong figure.
    ``cache``: the folder the child keeps the movement engine's disk cache in (:func:`nav_caches`).
    A script may leave markdown for the page in a module global ``PAGE_NOTE`` after
    ``run()`` (the ladder's win matrix): it comes last, as a row ``{"note": text}``."""
    child = (
        "import json, sys, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location({path.stem!r}, {str(path)!r})\n"
        "m = importlib.util.module_from_spec(spec); sys.modules[spec.name] = m\n"  # dataclasses look it up
        "spec.loader.exec_module(m)\n"
        "rows = m.run()\n"
        "rows += [{'note': m.PAGE_NOTE}] if getattr(m, 'PAGE_NOTE', None) else []\n"
        "import game\n"
        "sys.stdout.write('\\nBENCH-ROWS ' + json.dumps({'rows': rows, 'game': game.__file__}) + '\\n')\n"
    )
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join([str(code), str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    if quick:
        for key, value in QUICK_GAMES.items():
            env.setdefault(key, value)
    if cache is not None:
        env[NAV_CACHE] = str(cache)
    # run from ``code``: ``python -c`` puts the working folder first on sys.path
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, cwd=code)
    for line in out.stdout.splitlines():
        if line.startswith("BENCH-ROWS "):
            got = json.loads(line[len("BENCH-ROWS ") :])
            where = pathlib.Path(got["game"]).resolve()
            if code.resolve() not in where.parents:
                raise RuntimeError(f"measured the game package at {where.parent}, not the one in {code}")
            return got["rows"]
    raise RuntimeError((out.stderr.strip().splitlines() or ["no output"])[-1])


# --- figures ------------------------------------------------------------------------------------


@dataclass
class Figure:
    """One row of an area over its rounds on one tree."""

    name: str
    unit: str
    target: str
    value: object  # the median of the rounds' values, or the last run's text
    low: float | None = None
    high: float | None = None
    ok: object = True
    rounds: int = 1


@dataclass
class Measured:
    """An area's runs on each tree (``runs[tree]``: one list of rows a round) and failures."""

    runs: dict[str, list[list[dict]]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    #: The last run's PAGE_NOTE of each tree.
    notes: dict[str, str] = field(default_factory=dict)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def combine(runs: list[list[dict]]) -> list[Figure]:
    """The figures of one tree: row i of every round together (a script gives its rows in
    the same order each run; its names may carry counts that vary). A numeric value is the
    median of the rounds, with their range, and ``ok`` is the median round's; text values
    (a "p95 / worst" pair) are the last round's."""
    figures = []
    for i in range(max((len(r) for r in runs), default=0)):
        rows = [r[i] for r in runs if i < len(r)]
        last = rows[-1]
        numbers = [r for r in rows if _number(r["value"])]
        if numbers and len(numbers) == len(rows):
            ordered = sorted(numbers, key=lambda r: r["value"])
            values = [r["value"] for r in ordered]
            figures.append(
                Figure(
                    last["name"],
                    last["unit"],
                    str(last["target"]),
                    statistics.median(values),
                    min(values),
                    max(values),
                    ordered[(len(ordered) - 1) // 2]["ok"],
                    len(rows),
                )
            )
        else:
            figures.append(
                Figure(last["name"], last["unit"], str(last["target"]), last["value"], ok=last["ok"], rounds=len(rows))
            )
    return figures


def fmt(v) -> str:
    """A value as the tables show it: three significant figures, integers whole."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int) or (v == int(v) and abs(v) >= 100):
        return f"{int(v):,}"
    return f"{v:.3g}"


def shown(f: Figure | None) -> str:
    """A figure's cell: the median, then the range of the rounds when they differ."""
    if f is None:
        return "-"
    text = f"{fmt(f.value)} {f.unit}".strip()
    if f.low is not None and f.rounds > 1 and f.low != f.high:
        text += f" ({fmt(f.low)}-{fmt(f.high)})"
    return text


def ratio(now: Figure | None, base: Figure | None) -> str:
    """This tree's figure over the baseline's ("0.62x"), or "-" when either is not a number
    or the baseline's is 0."""
    if now is None or base is None or not (_number(now.value) and _number(base.value)) or base.value == 0:
        return "-"
    return f"{now.value / base.value:.2f}x"


def overlap(now: Figure | None, base: Figure | None) -> bool:
    """Do the two figures' ranges over their rounds overlap (a difference within the
    machine's spread)? False when either has a single round."""
    if now is None or base is None or now.low is None or base.low is None or min(now.rounds, base.rounds) < 2:
        return False
    return now.low <= base.high and base.low <= now.high


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def area_table(now: list[Figure], base: list[Figure] | None, failed: dict[str, str] | None = None) -> str:
    """The markdown table of one area: a row per figure with this tree's value, the
    baseline's, their ratio, the target and whether this tree meets it. ``base`` None: no
    baseline columns. ``failed``: the tree ("this", "base") whose run failed, and why."""
    failed = failed or {}
    head = (
        ["figure", "this tree", "baseline", "ratio", "target", "met"]
        if base is not None
        else ["figure", "this tree", "target", "met"]
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i in range(max(len(now), len(base or []))):
        f = now[i] if i < len(now) else None
        b = base[i] if base is not None and i < len(base) else None
        name = (f or b).name
        change = ratio(f, b) + (" (within the spread)" if overlap(f, b) else "")
        cells = [name, shown(f)] + ([shown(b), change] if base is not None else [])
        cells += [(f or b).target, met(f.ok) if f else "-"]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    for tree, why in failed.items():
        label = "this tree" if tree == "this" else "the baseline"
        lines.append(
            "| " + " | ".join(_cell(c) for c in [f"(failed to run on {label})", why] + [""] * (len(head) - 2)) + " |"
        )
    return "\n".join(lines)


# --- the page -----------------------------------------------------------------------------------


def machine() -> str:
    """CPU model, cores, Python and OS: what a reader needs to compare figures."""
    model = platform.processor() or "unknown CPU"
    with contextlib.suppress(OSError):
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    system = f"{platform.system()} {platform.release()}"
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {system}"


def load() -> str:
    with contextlib.suppress(OSError, AttributeError):
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    return "?"


def block(name: str, body: str) -> str:
    return f"<!-- bench:{name} -->\n{body.strip()}\n<!-- /bench:{name} -->"


def update_page(page: str, blocks: dict[str, str]) -> str:
    """``page`` with each named block's contents replaced by ``blocks[name]``; a block the
    page does not have is added at the end under a heading of its own. Text outside the
    blocks is kept as it is."""
    for name, body in blocks.items():
        pattern = re.compile(rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->", re.S)
        if pattern.search(page):
            page = pattern.sub(lambda m: block(name, body), page, count=1)
        else:
            page = page.rstrip("\n") + f"\n\n## Area `{name}`\n\n{block(name, body)}\n"
    return page


def area_body(area: str, m: Measured, stamp: str, this: str, base: str | None, rounds: int) -> str:
    """An area's block: when and on what it was measured, then its table."""
    against = f" against {base} (baseline)" if base else ""
    now = combine(m.runs.get("this", []))
    then = combine(m.runs.get("base", [])) if base else None
    notes = [f"This tree:\n\n{m.notes['this']}"] if "this" in m.notes else []
    notes += [f"Baseline:\n\n{m.notes['base']}"] if base and "base" in m.notes else []
    return "\n\n".join(
        [
            f"*{stamp}: {this} (this tree){against}; {rounds} round(s) a tree, alternating; `tools/bench_{area}.py`.*",
            area_table(now, then, m.failed),
        ]
        + notes
    )


# --- running ------------------------------------------------------------------------------------


def area_rounds(path: pathlib.Path, rounds: int) -> int:
    """``rounds``, or fewer when the bench file says its figures do not vary from run to run
    (a top-level ``BENCH_ROUNDS = N``: games whose bots count decisions, not seconds). Read
    from the source, so that asking does not import the area's code."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "BENCH_ROUNDS" for t in targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int) and node.value.value >= 1:
                return min(rounds, node.value.value)
    return rounds


def measure(
    area: str,
    trees: dict[str, pathlib.Path],
    rounds: int,
    quick: bool,
    folder: pathlib.Path = HERE,
    caches: dict[str, pathlib.Path] | None = None,
) -> Measured:
    """Run one area ``rounds`` times on each tree (fewer if the area says so: area_rounds),
    swapping the order every round; a tree whose run fails is not run again. ``caches``:
    each tree's folder for the movement engine's disk cache (:func:`nav_caches`)."""
    m = Measured()
    path = folder / f"bench_{area}.py"
    rounds = area_rounds(path, rounds)
    names = list(trees)
    for r in range(rounds):
        for tree in names if r % 2 == 0 else names[::-1]:
            if tree in m.failed:
                continue
            t0 = time.perf_counter()
            try:
                got = run_isolated(path, trees[tree], quick, (caches or {}).get(tree))
                m.runs.setdefault(tree, []).append([row for row in got if "note" not in row])
                m.notes.update({tree: row["note"] for row in got if "note" in row})
            except Exception as exc:  # a script that fails on one tree still reports the other
                m.failed[tree] = f"{type(exc).__name__}: {exc}"
            print(f"{area} on {tree}, round {r + 1}/{rounds}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return m


def nav_caches(stack: contextlib.ExitStack, trees: dict[str, pathlib.Path]) -> dict[str, pathlib.Path]:
    """A fresh, empty folder for each tree's disk cache of the movement engine
    (game/engine/movement/kept.py), removed with ``stack``; none when the environment
    names one (``SPEEDHEIM_NAV_CACHE``: a folder, or 0 for none).

    The cache file is found by a stamp of the engine's code. Without this, the baseline
    would read the file that every earlier process on its code has grown (tens of MB: more
    to load, and more answers kept), and a tree whose engine changed would start from
    nothing, so the two would differ for that alone. With a folder each, both start empty
    and are warmed by the same rounds."""
    if os.environ.get(NAV_CACHE) is not None:
        return {}
    return {
        name: pathlib.Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"speedheim-bench-cache-{name}-")))
        for name in trees
    }


def run_bench(
    opts: Options,
    trees: dict[str, pathlib.Path],
    this: str,
    base: str | None,
    caches: dict[str, pathlib.Path] | None = None,
) -> tuple[dict[str, str], bool]:
    """(the page's blocks, whether this tree ran every area)."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    blocks, whole = {}, True
    start_load = load()
    played: dict[str, int] = {}
    for area in opts.areas:
        m = measure(area, trees, opts.rounds, opts.quick, caches=caches)
        whole = whole and "this" not in m.failed
        played[area] = max(map(len, m.runs.values()), default=0)
        blocks[area] = area_body(area, m, stamp, this, base, played[area])
        print(f"\n## {area}\n\n{blocks[area]}\n")
    against = f"**baseline** {base}" if base else "no baseline"
    blocks["header"] = (
        f"Last run: {stamp}; **this tree** {this}; {against}; areas {', '.join(opts.areas)}; "
        f"{rounds_text(played)}{' (quick)' if opts.quick else ''}.\n\n"
        f"Machine: {machine()}; load average {start_load} at the start, {load()} at the end."
    )
    return blocks, whole


def rounds_text(played: dict[str, int]) -> str:
    """The rounds each area ran a tree, as the header says them: "3 round(s)" when all ran
    as many, else each area's ("round(s): ladder 1, sim 3")."""
    counts = set(played.values())
    if len(counts) <= 1:
        return f"{next(iter(counts), 0)} round(s)"
    return "round(s): " + ", ".join(f"{area} {n}" for area, n in played.items())


def _exit_on_term(signum, frame) -> None:
    """SIGTERM (a killed make, a timeout) as an exit, so the baseline's folder is removed."""
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    opts = parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_on_term)
    this = describe_head()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    with contextlib.ExitStack() as stack:
        trees, base = {"this": ROOT}, None
        if opts.base:
            try:
                trees["base"], base = stack.enter_context(baseline_tree(opts.base))
            except RuntimeError as exc:
                print(f"tools/bench.py: baseline {opts.base}: {exc}", file=sys.stderr)
                return 2
        blocks, whole = run_bench(opts, trees, this, base, nav_caches(stack, trees))
    page = opts.out.read_text(encoding="utf-8") if opts.out.exists() else "# Benchmarks\n"
    opts.out.write_text(update_page(page, blocks), encoding="utf-8")
    print(f"written: {opts.out}", file=sys.stderr)
    return 0 if whole else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
