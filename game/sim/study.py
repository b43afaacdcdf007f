"""What a run plays: the command line and study files resolved into a :class:`Plan`, then
into a :class:`RunSpec` (every variant's scenario text), and the games as :class:`Job`s.

A study file (``studies/*.yaml``) writes the options of ``speedheim simulate`` down::

    scenario: ../maps/default.yaml      # relative to the study file
    games: 200
    variants: [default, rout-legacy, rout-breakpoint]
    bots: [utility, utility]
    seed: 1
    swap: true
    turn_limit: 12                      # optional
    out: sim-out/rout                   # optional, relative to where you run it

``speedheim simulate studies/rout.yaml`` plays it; an option given on the command line
wins over the file's (``--variant`` replaces the file's whole list).

The order of the games interleaves the variants seed by seed, so an interrupted run still
compares the variants on the same seeds.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

from game.engine.errors import LoadError, Problem
from game.engine.ruleset import NOT_RULES, rules_changed
from game.engine.scenario import load_scenario
from game.engine.yamlsrc import Source, describe_value, load_yaml, read_text
from game.bots import is_bot_name
from game.sim.match import BOTS, DEFAULT_BOTS, Job
from game.sim.variants import ArgProblem, DEFAULT_LABEL, parse_variant, scenario_text, swap_seats, variant_scenario

STUDY_KEYS = (
    "scenario",
    "games",
    "variants",
    "bots",
    "seed",
    "swap",
    "turn_limit",
    "out",
    "keep_logs",
    "name",
    "description",
)
DEFAULT_OUT = "sim-out"
DEFAULT_GAMES = 100
#: The parameters the report's header names: what the bots played under.
UNDER_KEYS = (
    "turn_limit",
    "turn_limit_winner",
    "combat",
    "injury_table_placeholder",
    "event_table_placeholder",
    "neutral_act",
    "rout_variant",
    "rout_threshold",
)


def is_study(path: str) -> bool:
    """A study file: a mapping with ``scenario`` and ``games`` or ``variants``, no warbands."""
    try:
        data = load_yaml(read_text(path), path).data
    except LoadError:
        return False
    return (
        isinstance(data, dict)
        and "scenario" in data
        and ("games" in data or "variants" in data)
        and "warbands" not in data
    )


@dataclass
class Plan:
    """The options of one run, before anything is resolved."""

    scenario: str | None
    games: int = DEFAULT_GAMES
    variants: list[str] = field(default_factory=lambda: [DEFAULT_LABEL])
    #: The bot pairings: every pairing plays every variant on the same seeds and seats.
    bots: list[tuple[str, str]] = field(default_factory=lambda: [DEFAULT_BOTS])
    seed: int = 0
    swap: bool = False
    turn_limit: int | None = None
    out: str = DEFAULT_OUT
    keep_logs: bool = False
    #: How to name each variant in messages (``--variant 'x'`` or ``study.yaml:12``).
    where: list[str] = field(default_factory=list)
    #: Ruleset paths in variants are relative to this file (a study), else to the cwd.
    relative_to: str | None = None


def parse_bots(value: Any, where: str) -> tuple[str, str]:
    names = [b.strip() for b in value.split(",")] if isinstance(value, str) else value
    if not isinstance(names, list) or len(names) != 2 or not all(isinstance(b, str) for b in names):
        raise LoadError([ArgProblem(where, 0, f"bots must be two bot names A,B, not {describe_value(value)}")])
    bad = [b for b in names if not is_bot_name(b)]
    if bad:
        raise LoadError([ArgProblem(where, 0, f"unknown bot {bad[0]!r} (known: {', '.join(BOTS)}, planner:BUDGET)")])
    return (names[0], names[1])


def _study_options(data: dict, plan: Plan, bad: Callable[[Any, str], None]) -> None:
    """Set the plan's whole-number options (games, seed, turn_limit) and switches (swap,
    keep_logs) that the study gives, reporting those of the wrong kind."""
    for key in ("games", "seed", "turn_limit"):
        if key in data and data[key] is not None:
            v = data[key]
            low = 1 if key != "seed" else 0
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                bad(key, f"{key} must be a whole number of at least {low}, not {describe_value(v)}")
            else:
                setattr(plan, key, v)
    for key in ("swap", "keep_logs"):
        if key in data:
            if not isinstance(data[key], bool):
                bad(key, f"{key} must be true or false, not {describe_value(data[key])}")
            else:
                setattr(plan, key, data[key])


def _study_out_and_variants(data: dict, plan: Plan, path: str, src: Source, bad: Callable[[Any, str], None]) -> None:
    """Set the plan's output folder (default: one named after the study) and its variants
    with the line of each, reporting those of the wrong kind."""
    if "out" in data:
        if not isinstance(data["out"], str):
            bad("out", f"out must be a folder, not {describe_value(data['out'])}")
        else:
            plan.out = data["out"]
    else:
        plan.out = os.path.join(DEFAULT_OUT, os.path.splitext(os.path.basename(path))[0])
    variants = data.get("variants", [DEFAULT_LABEL])
    if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
        bad("variants", "variants must be a list of specs: a ruleset name or path, or key=value overrides")
    else:
        plan.variants = list(variants)
        plan.where = [f"{path}:{src.line(('variants', i))}" for i in range(len(variants))]


def load_study(path: str) -> Plan:
    """A study file as a :class:`Plan`; every problem as ``FILE:LINE: ...`` (LoadError)."""
    src = load_yaml(read_text(path), path)
    data = src.data
    problems: list[Problem] = []

    def bad(key: Any, msg: str) -> None:
        problems.append(src.problem((key,) if not isinstance(key, tuple) else key, msg))

    if not isinstance(data, dict):
        raise LoadError([src.problem((), "a study must be a mapping of option: value")])
    for key in data:
        if key not in STUDY_KEYS:
            bad(key, f"unknown study option {key!r} (known: {', '.join(STUDY_KEYS)})")
    here = os.path.dirname(os.path.abspath(path))
    plan = Plan(scenario=None, relative_to=os.path.abspath(path))
    scen = data.get("scenario")
    if not isinstance(scen, str):
        bad("scenario", f"scenario must be the path of a scenario file, not {describe_value(scen)}")
    else:
        plan.scenario = os.path.normpath(os.path.join(here, scen))
    _study_options(data, plan, bad)
    if "bots" in data:
        value = data["bots"]
        given = value if isinstance(value, list) and value and all(isinstance(b, list) for b in value) else [value]
        try:
            plan.bots = [parse_bots(b, f"{path}:{src.line(('bots',))}") for b in given]
        except LoadError as exc:
            problems += exc.problems
    _study_out_and_variants(data, plan, path, src, bad)
    if problems:
        raise LoadError(problems)
    return plan


# --- the resolved run (what run.json keeps) ---------------------------------------------------


@dataclass(frozen=True)
class VariantRun:
    label: str
    index: int
    slug: str  # folder and file name: scenarios/SLUG.yaml, logs/SLUG/
    turn_limit: int
    #: The rule ids its ruleset changes against the first variant's (game.sim.coverage).
    rules_changed: list = field(default_factory=list)
    #: What the bots play under (UNDER_KEYS of its ruleset), for the report's header.
    under: dict = field(default_factory=dict)
    #: The parameters its ruleset changes against the first variant's: {name: [first, this]}.
    params_changed: dict = field(default_factory=dict)


@dataclass
class RunSpec:
    """Everything a run needs to play every game again: stored in ``DIR/run.json``, with
    each variant's scenario in ``DIR/scenarios/SLUG.yaml`` (and ``SLUG-swapped.yaml``)."""

    scenario: str
    games: int
    seed: int
    swap: bool
    bots: list[tuple[str, str]]  # the pairings
    keep_logs: bool
    variants: list[VariantRun]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["bots"] = [list(p) for p in self.bots]
        return {"speedheim_simulate": 1, **d}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RunSpec":
        return cls(
            scenario=d["scenario"],
            games=int(d["games"]),
            seed=int(d["seed"]),
            swap=bool(d["swap"]),
            bots=pairings(d["bots"]),
            keep_logs=bool(d.get("keep_logs", False)),
            variants=[VariantRun(**v) for v in d["variants"]],
        )

    @property
    def total(self) -> int:
        return self.games * len(self.variants) * (2 if self.swap else 1) * len(self.bots)

    def sides(self) -> list[bool]:
        return [False, True] if self.swap else [False]

    def keys(self) -> Iterator[tuple]:
        """Every game of the run, in the order they are played: (variant, seed, swapped,
        pairing), every pairing and variant on each seed and seats before the next."""
        for k in range(self.games):
            for swapped in self.sides():
                for pairing in self.bots:
                    for v in self.variants:
                        yield (v.label, self.seed + k, swapped, tuple(pairing))

    def jobs(self, texts: dict[tuple[str, bool], str], path_of: Callable[[str, bool], str], done: set) -> Iterator[Job]:
        """The games not in ``done``, lazily; ``texts[(slug, swapped)]`` is each variant's
        scenario text and ``path_of(slug, swapped)`` the file it is kept in."""
        for label, seed, swapped, pairing in self.keys():
            if (label, seed, swapped, pairing) in done:
                continue
            v = self.variant(label)
            bots = (pairing[1], pairing[0]) if swapped else pairing
            index = [tuple(p) for p in self.bots].index(pairing)
            sub = f"{pairing[0]}-vs-{pairing[1]}" if len(self.bots) > 1 else ""
            yield Job(
                variant=label,
                seed=seed,
                swapped=swapped,
                bots=bots,
                turn_limit=v.turn_limit,
                scenario=texts[(v.slug, swapped)],
                scenario_file=path_of(v.slug, swapped),
                variant_index=v.index,
                rules_changed=tuple(v.rules_changed),
                under=tuple(v.under.items()),
                pairing=tuple(pairing),
                pairing_index=index,
                log_sub=sub,
                params_changed=tuple((k, None if x is None else tuple(x)) for k, x in sorted(v.params_changed.items())),
            )

    def variant(self, label: str) -> VariantRun:
        return next(v for v in self.variants if v.label == label)


def params_changed(a: Any, b: Any) -> dict[str, list | None]:
    """The parameters whose values differ between two rulesets: {name: [a's, b's]} for a
    number, {name: None} for the rest (a table, a word): what game.sim.coverage needs to
    tell a decisive decision from one that only fired."""
    out: dict[str, list | None] = {}
    for k in sorted((set(a) | set(b)) - NOT_RULES):
        x, y = a.get(k), b.get(k)
        if x != y:
            numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y))
            out[k] = [x, y] if numbers else None
    return out


def pairings(value: Any) -> list[tuple[str, str]]:
    """The pairings of a plan or run.json: one pair ``[A, B]`` (older runs) or a list of pairs;
    a pairing given twice plays once."""
    items = [value] if value and isinstance(value[0], str) else value
    out: list[tuple[str, str]] = []
    for p in items:
        if tuple(p) not in out:
            out.append(tuple(p))
    return out


def slug(label: str, index: int) -> str:
    safe = re.sub(r"[^A-Za-z0-9._=+-]+", "_", os.path.basename(label) if label.endswith((".yaml", ".yml")) else label)
    return f"v{index}-{safe.strip('_')[:48] or 'variant'}"


def resolve(plan: Plan) -> tuple[RunSpec, dict[tuple[str, bool], str]]:
    """Check every variant and build its scenario text (seats swapped too, with --swap).
    Raises LoadError before any game starts; returns the spec and the texts by
    (slug, swapped)."""
    if plan.scenario is None:
        raise LoadError([ArgProblem("simulate", 0, "give a SCENARIO (or a study file)")])
    scenario = load_scenario(plan.scenario, playable=True)
    players = sorted({w.player for w in scenario.warbands if w.player > 0})
    if len(players) != 2:
        raise LoadError(
            [
                ArgProblem(
                    plan.scenario,
                    0,
                    f"a simulation plays two sides; this map has {len(players)} "
                    f"players ({', '.join(map(str, players))})",
                )
            ]
        )
    problems: list[Problem] = []
    variants, texts, seen, rulesets = [], {}, {}, []
    where = plan.where if len(plan.where) == len(plan.variants) else [f"--variant {v!r}" for v in plan.variants]
    for i, spec in enumerate(plan.variants):
        try:
            variant = parse_variant(spec, where[i])
            if variant.label in seen:
                raise LoadError([ArgProblem(where[i], 0, f"the variant {variant.label!r} is given twice")])
            seen[variant.label] = i
            data, limit = variant_scenario(
                scenario, variant, turn_limit=plan.turn_limit, where=where[i], relative_to=plan.relative_to
            )
            s = slug(variant.label, i)
            texts[(s, False)] = scenario_text(data, f"{s}.yaml")
            if plan.swap:
                texts[(s, True)] = scenario_text(swap_seats(data), f"{s}-swapped.yaml")
            rs = load_scenario(f"{s}.yaml", text=texts[(s, False)]).ruleset
            rulesets.append(rs)
            variants.append(
                VariantRun(
                    variant.label,
                    i,
                    s,
                    limit,
                    rules_changed(rulesets[0], rs),
                    {k: rs.get(k) for k in UNDER_KEYS if k in rs},
                    params_changed(rulesets[0], rs),
                )
            )
        except LoadError as exc:
            problems += exc.problems
    if problems:
        raise LoadError(problems)
    spec = RunSpec(
        scenario=os.path.abspath(plan.scenario),
        games=plan.games,
        seed=plan.seed,
        swap=plan.swap,
        bots=pairings(plan.bots),
        keep_logs=plan.keep_logs,
        variants=variants,
    )
    return spec, texts
