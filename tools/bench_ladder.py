"""The skill ladder (issue 47, item 5), rows of ``make bench``: ``utility``,
``planner:250ms``, ``planner`` (its default budget) and ``planner:2s`` play each other on
maps/default.yaml, maps/crossroads.yaml and maps/mirror.yaml, each bot with both warbands
and in both seats, through ``speedheim simulate``'s machinery (:mod:`game.sim`: its plans,
jobs, process pool and game records).

A pairing of bots A and B on a map plays ``LADDER_GAMES`` seeds (default 1) in each of
four arrangements: A with the first warband or the second, in seat 1 or seat 2. So each
cell of a map rests on 4 x ``LADDER_GAMES`` games, and a pairing over the three maps on
12 x ``LADDER_GAMES``. A win rate is the share of the decided games (draws left out) with
its 95% Wilson interval (:func:`game.sim.stats.wilson`); the rows also count the draws,
how the wins were decided (``decided_by``: a rout, an elimination, or the turn limit,
on T1's tie-break) and the games from each seat (the first player's edge on the bundled
maps is large: a share of 50% may be a win from seat 1 and a loss from seat 2 each time).

Because a table's edge can decide more than the bot, the weaker bot of each target pairing
(:data:`CONTROLS`) also plays itself on the same seeds, from both seats, and each target
pairing's game is paired with it (:mod:`game.sim.headtohead`, "Paired with a bot's own
games"): the side the stronger bot played, taken by the weaker one against the same
opponent. A row counts the pairs where the stronger bot's side did better, the same and
worse, with the exact sign test.

The bots count their budgets in decisions, not seconds (docs/decisions/0003), so a seed
gives the same game on any machine: ``make bench`` runs this area once a tree.

Settings (environment): ``LADDER_GAMES`` (seeds per arrangement), ``LADDER_BOTS`` (bot
names joined by commas), ``LADDER_MAPS`` (map names without ``.yaml``), ``LADDER_WORKERS``
(processes; default all cores). ``python tools/bench_ladder.py`` prints the matrix and
the rows; ``run()`` returns the rows.
"""

from __future__ import annotations

import itertools
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.bot_eval import judged  # noqa: E402

from game.sim.runner import run_jobs  # noqa: E402
from game.sim.headtohead import Tally, head_to_head, record, score  # noqa: E402
from game.sim.rates import sign_test  # noqa: E402
from game.sim.stats import wilson  # noqa: E402
from game.sim.study import Plan, resolve  # noqa: E402

#: Weakest first: a row of the matrix is the stronger bot, a column the weaker.
BOTS = ("utility", "planner:250ms", "planner", "planner:2s")
MAPS = ("default", "crossroads", "mirror")
#: The targets issue 47 sets, as (bot, opponent, share of the decided games).
TARGETS = {("planner:2s", "planner:250ms"): 0.75, ("planner", "utility"): 0.80}
#: The bots that also play themselves: the weaker of each target pairing, whose own games
#: the pairing's games are paired with (the table's edge drops out of the pairs).
CONTROLS = tuple(dict.fromkeys(other for _bot, other in TARGETS))
#: tools/bench.py: the games are the same on every run, so one round a tree is enough.
BENCH_ROUNDS = 1
#: The win matrix of the last run(), which tools/bench.py puts on the page under the rows.
PAGE_NOTE = ""


def settings(env: dict | None = None) -> tuple[int, tuple[str, ...], tuple[str, ...], int | None]:
    """(games per arrangement, bots, maps, workers) from the environment."""
    env = os.environ if env is None else env
    games = max(1, int(env.get("LADDER_GAMES", "1")))
    bots = tuple(b.strip() for b in env.get("LADDER_BOTS", ",".join(BOTS)).split(",") if b.strip())
    maps = tuple(m.strip() for m in env.get("LADDER_MAPS", ",".join(MAPS)).split(",") if m.strip())
    workers = int(env["LADDER_WORKERS"]) if env.get("LADDER_WORKERS") else None
    return games, bots, maps, workers


#: One pairing's games from a bot's side (won, lost, drawn, refused, how decided), and the
#: scoring of one game record: the simulation report's, so both count a game the same way.
Cell = Tally


def plan_jobs(maps: tuple[str, ...], bots: tuple[str, ...], games: int, controls: tuple[str, ...] = ()) -> list:
    """Every game of the ladder: per map, every ordered pair of bots (so each has each
    warband) with the seats swapped too, ``games`` seeds each; and each of ``controls``
    that is one of ``bots`` against itself, on the same seeds from both seats."""
    pairs = [p for p in itertools.permutations(bots, 2)] + [(c, c) for c in controls if c in bots]
    jobs = []
    for name in maps:
        plan = Plan(scenario=os.path.join(ROOT, "maps", f"{name}.yaml"), games=games, bots=pairs, swap=True)
        spec, texts = resolve(plan)

        def path_of(slug: str, swapped: bool, name: str = name) -> str:
            return f"{name}-{slug}{'-swapped' if swapped else ''}.yaml"

        jobs += [(name, job) for job in spec.jobs(texts, path_of, set())]
    return jobs


def play_ladder(
    maps: tuple[str, ...], bots: tuple[str, ...], games: int, workers: int | None = None
) -> tuple[dict[tuple, Cell], dict[tuple, dict]]:
    """``{(map, bot, opponent): Cell}`` for every map and ordered pair of bots, and
    ``{(map, bot, opponent, seat): Cell}``: the games ``bot`` played from that seat; and
    the target pairings' games paired with the weaker bot's own (:func:`paired_counts`)."""
    jobs = plan_jobs(maps, bots, games, CONTROLS)
    map_of = {job.scenario_file: name for name, job in jobs}
    cells: dict[tuple, Cell] = {}
    records: dict[str, list] = {}

    def sink(job, record: dict, log) -> None:
        records.setdefault(map_of[job.scenario_file], []).append(record)
        a, b = record["bots"]
        if a == b:  # a control, a bot against itself: only its refused actions count here
            cells.setdefault((map_of[job.scenario_file], a, b), Cell()).refused += int(record.get("illegal", 0))
            return
        for seat, (bot, other) in enumerate(((a, b), (b, a)), start=1):
            tally = score(record, bot, other)
            cells.setdefault((map_of[job.scenario_file], bot, other), Cell()).add(tally)
            cells.setdefault((map_of[job.scenario_file], bot, other, seat), Cell()).add(tally)

    result = run_jobs([job for _, job in jobs], len(jobs), sink, workers=workers, progress=False)
    if result.failed:
        why = result.failed[0][1].strip().splitlines()[-1]
        raise RuntimeError(f"{len(result.failed)} ladder game(s) failed: {why}")
    return cells, paired_counts(records)


def paired_counts(records: dict[str, list]) -> dict[tuple, dict]:
    """``{(map, bot, other): {"better", "same", "worse"}}`` per target pairing: its games on
    the map paired with ``other``'s own games (the side ``bot`` played, taken by ``other``),
    from ``bot``'s side."""
    out = {}
    for name, recs in records.items():
        for m in head_to_head(recs):
            for bot, other in TARGETS:
                if set(m["bots"]) != {bot, other}:
                    continue
                for p in m["paired"]:
                    if p["control"] != other:
                        continue
                    up, down = (p["better"], p["worse"]) if m["bots"][0] == bot else (p["worse"], p["better"])
                    out[(name, bot, other)] = {"better": up, "same": p["same"], "worse": down}
    return out


def paired_row(bot: str, other: str, maps: tuple[str, ...], paired: dict[tuple, dict]) -> dict | None:
    """The row of a target pairing paired with ``other``'s own games over ``maps`` (None
    when none was paired): the share of the pairs that moved which moved up."""
    counts = [paired[(m, bot, other)] for m in maps if (m, bot, other) in paired]
    if not counts:
        return None
    up, same, down = (sum(c[k] for c in counts) for k in ("better", "same", "worse"))
    where = ", ".join(m for m in maps if (m, bot, other) in paired)
    return {
        "name": (
            f"{bot} vs {other}, paired with {other}'s own games on the same seeds and seats ({where}): "
            f"{bot}'s side did better in {up}, the same in {same}, worse in {down} "
            f"(exact sign test p = {sign_test(up, down):.2g})"
        ),
        "value": round(100 * up / (up + down), 1) if up + down else float("nan"),
        "unit": "% of moved pairs up",
        "target": "(information)",
        "ok": True,
    }


def pooled(cells: dict[tuple, Cell], bot: str, other: str, maps: tuple[str, ...], seat: int | None = None) -> Cell:
    """``bot``'s games against ``other`` on ``maps`` (from ``seat`` only, when given)."""
    total = Cell()
    for name in maps:
        total.add(cells.get((name, bot, other) if seat is None else (name, bot, other, seat), Cell()))
    return total


def by_seat(cells: dict[tuple, Cell], bot: str, other: str, maps: tuple[str, ...]) -> tuple[Cell, Cell]:
    """``bot``'s games against ``other`` on ``maps`` from seat 1, and from seat 2."""
    return pooled(cells, bot, other, maps, 1), pooled(cells, bot, other, maps, 2)


def describe(cell: Cell, seats: tuple[Cell, Cell] | None = None) -> str:
    """ "won 5, lost 2, drawn 1 of 8; 95% CI 36-92%; by rout 3, turn limit 4; from seat 1
    4-0-0, from seat 2 1-1-2 (won-drawn-lost)" (the seats when ``seats`` counts any game)."""
    lo, hi = wilson(cell.won, cell.decided)
    how = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in sorted(cell.how.items())) or "none decided"
    by_seat = ""
    if seats is not None and any(c.games for c in seats):
        by_seat = "; " + ", ".join(f"from seat {k} {record(c.to_dict())}" for k, c in enumerate(seats, 1))
        by_seat += " (won-drawn-lost)"
    return (
        f"won {cell.won}, lost {cell.lost}, drawn {cell.drawn} of {cell.games}; "
        f"95% CI {100 * lo:.0f}-{100 * hi:.0f}%; decided by {how}{by_seat}"
    )


def share(cell: Cell) -> float:
    """The share of the decided games won, in percent (NaN when none was decided)."""
    return 100 * cell.won / cell.decided if cell.decided else float("nan")


def row(label: str, bot: str, other: str, cell: Cell, seats: tuple[Cell, Cell] | None = None) -> dict:
    target = TARGETS.get((bot, other))
    return {
        "name": f"{bot} vs {other}, {label}: {describe(cell, seats)}",
        "value": round(share(cell), 1),
        "unit": "% of decided",
        "target": f">= {100 * target:.0f}" if target else "(information)",
        "ok": judged(cell.won, cell.decided, target) if target else True,
    }


def rows_of(
    cells: dict[tuple, Cell],
    bots: tuple[str, ...],
    maps: tuple[str, ...],
    games: int,
    paired: dict[tuple, dict] | None = None,
) -> list[dict]:
    """The rows: each pairing (stronger bot first) over every map, then map by map, then
    the target pairings paired with the weaker bot's own games (``paired``), then the
    refused bot actions."""
    pairs = [(b, a) for a, b in itertools.combinations(bots, 2)]  # (stronger, weaker) by BOTS order
    rows = [
        row(
            f"{len(maps)} map{'s' if len(maps) != 1 else ''} ({4 * games * len(maps)} games)",
            b,
            a,
            pooled(cells, b, a, maps),
            by_seat(cells, b, a, maps),
        )
        for b, a in pairs
    ]
    for name in maps:
        rows += [
            row(
                f"{name}.yaml ({4 * games} games)",
                b,
                a,
                cells.get((name, b, a), Cell()),
                by_seat(cells, b, a, (name,)),
            )
            for b, a in pairs
        ]
    for bot, other in TARGETS:
        r = paired_row(bot, other, maps, paired or {})
        if r is not None:
            rows.append(r)
    refused = sum(
        c.refused for (m, bot, other, *seat), c in cells.items() if not seat and bots.index(bot) <= bots.index(other)
    )
    rows.append(
        {
            "name": "refused bot actions (every ladder game)",
            "value": refused,
            "unit": "actions",
            "target": "0",
            "ok": refused == 0,
        }
    )
    return rows


def matrix(cells: dict[tuple, Cell], bots: tuple[str, ...], maps: tuple[str, ...]) -> str:
    """The win matrix over ``maps``: row bot's share of the decided games against the
    column bot, with its interval and the games' count (markdown)."""
    lines = ["| won by \\ against | " + " | ".join(bots) + " |", "|---|" + "---|" * len(bots)]
    for bot in bots:
        out = []
        for other in bots:
            if other == bot:
                out.append("-")
                continue
            c = pooled(cells, bot, other, maps)
            lo, hi = wilson(c.won, c.decided)
            out.append(
                f"{share(c):.0f}% ({100 * lo:.0f}-{100 * hi:.0f}) of {c.decided}, {c.drawn} drawn"
                if c.decided
                else f"none decided, {c.drawn} drawn"
            )
        lines.append(f"| {bot} | " + " | ".join(out) + " |")
    return "\n".join(lines)


def run() -> list[dict]:
    games, bots, maps, workers = settings()
    global PAGE_NOTE
    cells, paired = play_ladder(maps, bots, games, workers)
    PAGE_NOTE = (
        f"Win matrix over {', '.join(maps)} (the row bot's share of the decided games against the column "
        f"bot, its 95% interval, the decided games and the draws; {4 * games * len(maps)} games a pairing):"
        f"\n\n{matrix(cells, bots, maps)}"
    )
    return rows_of(cells, bots, maps, games, paired)


if __name__ == "__main__":
    g, b, m, w = settings()
    found, pairs = play_ladder(m, b, g, w)
    print(matrix(found, b, m))
    print()
    for r in rows_of(found, b, m, g, pairs):
        print(f"{r['value']:>6} {r['unit']:<13} {r['name']} (target {r['target']})")
