"""``speedheim simulate``: the command, from the parsed options to the report.

Bad input (an unknown parameter, a bad value, a missing file, a folder that already holds
another run or that another simulate is writing into) exits 2 before any game starts; a
file that cannot be written (a full disk, a read-only folder) is one line and exit 2, with
every finished game kept; a run with games that failed exits 1, naming ``errors.log``
(also when every game failed); Ctrl+C exits 130 with every finished game kept
(``--resume`` finishes the run).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from game.engine.errors import LoadError, Problem
from game.sim.match import Job, write_log
from game.sim.results import OutDir
from game.sim.runner import ClusterError, run_jobs
from game.sim.study import Plan, RunSpec, is_study, load_study, parse_bots, resolve
from game.sim.variants import ArgProblem

EXIT_OK, EXIT_FAILED, EXIT_BAD, EXIT_INTERRUPTED = 0, 1, 2, 130


def plan_from_args(args: Any) -> Plan:
    """The study file's options (if SCENARIO is one), then the command line's on top."""
    scenario = args.scenario
    plan = load_study(scenario) if scenario and is_study(scenario) else Plan(scenario=scenario)
    if args.variant:
        plan.variants, plan.where, plan.relative_to = list(args.variant), [], None
    for key in ("games", "seed", "turn_limit", "out"):
        value = getattr(args, key)
        if value is not None:
            setattr(plan, key, value)
    if args.bots:
        given = args.bots if isinstance(args.bots, list) else [args.bots]
        plan.bots = [parse_bots(b, "--bots") for b in given]
    plan.swap = plan.swap or args.swap
    plan.keep_logs = plan.keep_logs or args.keep_logs
    return plan


def _check_numbers(args: Any) -> None:
    """The counts of the command line, each within its limits (game.engine.limits) before any
    work: a huge --games would build every game's key first, a huge --workers start as many
    processes."""
    from game.engine.limits import MAX_GAMES, MAX_INTEGER, MAX_TURN, max_workers

    problems = []
    highs = {"games": MAX_GAMES, "workers": max_workers(os.cpu_count()), "turn_limit": MAX_TURN, "seed": MAX_INTEGER}
    for key, low in (("games", 1), ("workers", 1), ("turn_limit", 1), ("seed", -MAX_INTEGER)):
        v = getattr(args, key, None)
        flag = f"--{key.replace('_', '-')}"
        if v is not None and v < low:
            problems.append(ArgProblem(flag, 0, f"must be at least {low}, not {v}"))
        elif v is not None and v > highs[key]:
            shown = v if len(str(v)) <= 24 else f"a number of {len(str(v))} digits"
            extra = f" (4 per core on this machine's {os.cpu_count()} cores)" if key == "workers" else ""
            problems.append(ArgProblem(flag, 0, f"must be at most {highs[key]}{extra}, not {shown}"))
    if problems:
        raise LoadError(problems)


def _resume_spec(out: OutDir, plan: Plan | None, games: int | None) -> tuple[RunSpec, dict]:
    """The run stored in DIR; a SCENARIO given again must resolve to the very same games."""
    spec, texts = out.read_spec()
    if plan is not None and plan.scenario is not None:
        new, new_texts = resolve(plan)
        free = ("games", "keep_logs")  # a resumed run may play more seeds, and keep logs from now on
        mine = _comparable({k: v for k, v in spec.to_json().items() if k not in free})
        theirs = _comparable({k: v for k, v in new.to_json().items() if k not in free})
        if mine != theirs or new_texts != texts:
            diff = sorted(k for k in mine if mine[k] != theirs.get(k)) or ["the scenario or a ruleset it uses"]
            raise LoadError(
                [
                    Problem(
                        out.file("run.json"),
                        1,
                        f"--resume: this run was started with other options "
                        f"({', '.join(diff)} differ); resume with --out only, or start a new --out",
                    )
                ]
            )
    if games is not None:
        spec.games = games
    return spec, texts


def _comparable(d: dict) -> dict:
    """A run's options without what is derived from the variants' scenarios (compared as
    texts): a run started before the variants knew their changed rules resumes too."""
    derived = ("rules_changed", "under", "params_changed")
    return {**d, "variants": [{k: v for k, v in x.items() if k not in derived} for x in d.get("variants", [])]}


def simulate(args: Any) -> int:
    """Run (or resume) a simulation and write the report."""
    _check_numbers(args)
    plan = plan_from_args(args) if args.scenario else None
    if plan is not None:
        from game.engine.limits import MAX_GAMES

        if isinstance(plan.games, int) and plan.games > MAX_GAMES:
            raise LoadError(
                [ArgProblem(plan.scenario or "simulate", 0, f"games must be at most {MAX_GAMES}, not {plan.games}")]
            )
    out = OutDir(args.out if args.out is not None else (plan.out if plan else "sim-out"))
    if plan is None and not args.resume:
        raise LoadError([ArgProblem("simulate", 0, "give a SCENARIO or a study file (or --resume / --report DIR)")])
    out.lock()  # before anything is read or written: a second run into DIR stops here
    try:
        return _run(args, plan, out)
    except OSError as exc:
        where = exc.filename or out.path
        print(
            f"{where}: cannot write: {exc.strerror or exc}; the finished games are kept "
            f"(speedheim simulate --resume --out {out.path} goes on)",
            file=sys.stderr,
        )
        return EXIT_BAD
    finally:
        out.unlock()


def _run(args: Any, plan: Plan | None, out: OutDir) -> int:
    """:func:`simulate` in a folder it holds the lock of."""
    if args.resume:
        spec, texts = _resume_spec(out, plan, args.games)
        if out.games.repair():
            print(f"{out.games.path}: dropped a torn last line (a game cut off while being written)", file=sys.stderr)
        done = out.games.keys()
    else:
        if plan is None:
            raise LoadError([ArgProblem("simulate", 0, "give a SCENARIO or a study file (or --resume / --report DIR)")])
        if out.has_games():
            raise LoadError(
                [
                    ArgProblem(
                        out.path,
                        0,
                        "already holds the games of a run: finish it with --resume, or choose another --out",
                    )
                ]
            )
        spec, texts = resolve(plan)
        done = set()
    spec.keep_logs = spec.keep_logs or args.keep_logs
    out.write_spec(spec, texts)
    todo = spec.total - len(done & set(spec.keys()))
    jobs = spec.jobs(texts, out.scenario_path, done)
    del done

    def sink(job: Job, record: dict, log: str | None) -> None:
        if log is not None:  # the log first: a record never names a log that is not whole on disk
            write_log(os.path.join(out.log_dir(spec.variant(job.variant).slug), job.log_sub, job.log_name), log)
        out.games.append(record)

    from game.sim.report import prefetch_plotting

    plotting = prefetch_plotting()  # the report's imports load while the games play in other processes
    try:
        result = run_jobs(jobs, todo, sink, workers=args.workers, cluster=args.cluster, keep_logs=spec.keep_logs)
    except ClusterError as exc:
        print(f"simulate: {exc}", file=sys.stderr)
        return EXIT_BAD
    finally:
        out.games.close()
        plotting.join()  # never leave a thread importing while the interpreter exits
    for job, why in result.failed:
        with open(out.file("errors.log"), "a", encoding="utf-8") as f:
            f.write(f"--- {job.variant} seed {job.seed}{' swapped' if job.swapped else ''}\n{why}\n")
    rate = result.done / result.seconds if result.seconds > 0 else 0.0
    print(f"{result.done} game(s) played in {result.seconds:.1f} s ({rate:.2f} games/s); results in {out.path}/")
    if result.interrupted:
        print(f"interrupted: finish the run with: speedheim simulate --resume --out {out.path}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if result.failed and not out.has_games():
        print(f"every game failed ({len(result.failed)}): see {out.file('errors.log')}; no report", file=sys.stderr)
        return EXIT_FAILED
    code = build_report(out.path)
    if result.failed:
        print(
            f"{len(result.failed)} game(s) failed (see {out.file('errors.log')}); --resume plays them again",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return code


def build_report(path: str) -> int:
    """``summary.json`` and ``report.html`` from ``games.jsonl`` alone."""
    from game.sim.report import write_report

    out = OutDir(path)
    if not os.path.exists(out.games.path):
        errors = out.file("errors.log")
        also = f" ({errors} says why its games failed)" if os.path.exists(errors) else ""
        raise LoadError([Problem(out.games.path, 0, f"no games here (games.jsonl is missing){also}")])
    if out.games.checked() == 0:
        raise LoadError([Problem(out.games.path, 1, "no game records in it (the file is empty)")])
    html = write_report(out.games.path, out.file("summary.json"), out.file("report.html"))
    print(f"report: {html}")
    return EXIT_OK
