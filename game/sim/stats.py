"""The numbers of the report, from ``games.jsonl`` records (``summary.json``).

Every test and interval comes from :mod:`scipy.stats`, no hand tables:

* A rate (a warband's wins, draws, seat 1's wins, games with a rout) gets a 95% Wilson
  score interval (``binomtest(k, n).proportion_ci(method="wilson")``).
* Variants are compared with the first one on paired games: the same bot pairing, the same
  seed and the same seats.
* A yes/no outcome (this warband won, a draw, a rout) is compared by the pairs that
  *flipped*: ``flipped = [a, b]``, a the pairs the variant has it and the first has not, b
  the other way. ``p`` is McNemar's exact test (``binomtest(a, a + b, 0.5)``), and the
  interval on the difference ``(a - b) / pairs`` is Newcombe's hybrid score interval for
  paired rates (1998, method 10: the two Wilson intervals combined with the pairs'
  correlation). Four flips of 1,000, all one way, give p = 0.125: not clear.
* A count (turns, tokens held, units lost, rout checks) is compared by its paired
  differences: the interval is mean +- t(0.975, n - 1) standard errors
  (``scipy.stats.t``). ``p`` comes from the pairs that differ only: below
  :data:`EXACT_BELOW` of them it is the exact sign test (``binomtest(up, up + down, 0.5)``,
  McNemar's test for counts), so five pairs that all moved one way give p = 0.0625 and no
  finding; from that many on it is the Wilcoxon signed-rank test on them
  (``scipy.stats.wilcoxon``, normal approximation with the tie correction). A normal
  approximation is never used on fewer differing pairs.
* A difference is *clear* when ``p < 0.05`` and its interval leaves out 0.
* A comparison whose changed rules never fired in any pair is *untested* (see
  :mod:`game.sim.coverage`); its sentences say so, never "no clear difference".
* Under several bot pairings every difference of the pooled comparison says whether it is
  *robust*: clear, with the same sign, under every pairing (:mod:`game.sim.robust`).

Memory: one small entry per game (for the pairing), never a game log.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from scipy import stats as st

from game.engine.rule_ids import RuleId
from game.sim.coverage import coverage
from game.sim.gaps import find_gaps
from game.sim.headtohead import head_to_head
from game.sim.lines import distinct_keys, line_of, one_opening, pairing_of
from game.sim.rates import ALPHA, wilson
from game.sim.robust import mark_robust

#: Game turns in a row in which nothing changed that make a stall (game.sim.gaps).
STALL_TURNS = 3
#: Below this many differing pairs a count's p is exact (the sign test), never a normal
#: approximation (FORMATS.md).
EXACT_BELOW = 50


def rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"n": k, "rate": k / n if n else 0.0, "ci": [lo, hi]}


@dataclass(frozen=True)
class Diff:
    """A paired difference: its mean, 95% interval and two-sided p over ``n`` pairs;
    ``flipped`` for a yes/no outcome, ``moved`` (up, down) for a count; ``test``: what
    gave ``p``."""

    n: int
    mean: float
    low: float
    high: float
    p: float = 1.0
    flipped: tuple[int, int] | None = None
    identical: bool = False  # every pair had the same value in both games
    moved: tuple[int, int] | None = None
    test: str = ""

    @property
    def clear(self) -> bool:
        return self.n > 0 and self.p < ALPHA and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "pairs": self.n,
            "mean": self.mean,
            "ci": [self.low, self.high],
            "p": self.p,
            "clear": self.clear,
            "identical": self.identical,
            "test": self.test,
        }
        if self.flipped is not None:
            d["flipped"] = list(self.flipped)
        if self.moved is not None:
            d["moved"] = list(self.moved)
        return d


def shown(x: float, scale: float = 1.0, digits: int = 1) -> str:
    """One number of a difference as the sentence, the tables and the plot all write it:
    signed, ``digits`` decimals after ``scale``; a number that is not 0 never reads as 0
    (then two significant digits: ``-0.004``)."""
    v = scale * x
    if not math.isfinite(v):
        return "-inf" if v < 0 else "+inf"
    if v == 0:
        return f"{0:.{digits}f}"
    text = f"{v:+.{digits}f}"
    return text if float(text) != 0 else f"{v:+.2g}"


def mcnemar(variant: list[bool], base: list[bool]) -> Diff:
    """A yes/no outcome on paired games: McNemar's exact test on the flipped pairs, and
    Newcombe's hybrid score interval (his method 10, from the two Wilson intervals and the
    pairs' correlation) on the difference of the two rates."""
    n = len(variant)
    both = sum(1 for x, y in zip(variant, base) if x and y)
    a = sum(1 for x, y in zip(variant, base) if x and not y)
    b = sum(1 for x, y in zip(variant, base) if y and not x)
    neither = n - both - a - b
    if n == 0:
        return Diff(0, 0.0, -math.inf, math.inf, 1.0, (0, 0))
    if a + b == 0:
        return Diff(n, 0.0, 0.0, 0.0, 1.0, (0, 0), identical=True)
    p_value = float(st.binomtest(a, a + b, 0.5).pvalue)
    p1, p2 = (both + a) / n, (both + b) / n
    l1, u1 = wilson(both + a, n)
    l2, u2 = wilson(both + b, n)
    denom = math.sqrt((both + a) * (b + neither) * (both + b) * (a + neither))
    phi = (both * neither - a * b) / denom if denom > 0 else 0.0
    d = p1 - p2
    low = d - math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    high = d + math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return Diff(n, d, max(-1.0, low), min(1.0, high), p_value, (a, b))


def paired_counts(diffs: list[float]) -> Diff:
    """A count on paired games: a t interval on the mean difference; ``p`` from the pairs
    that differ, exact below :data:`EXACT_BELOW` of them (the sign test), else Wilcoxon's
    signed-rank test on them."""
    n = len(diffs)
    if n == 0:
        return Diff(0, 0.0, -math.inf, math.inf)
    mean = sum(diffs) / n
    up, down = sum(1 for d in diffs if d > 0), sum(1 for d in diffs if d < 0)
    if up + down == 0:
        return Diff(n, 0.0, 0.0, 0.0, 1.0, identical=True, moved=(0, 0))
    p, test = count_p([d for d in diffs if d != 0])
    if n == 1:
        return Diff(1, mean, -math.inf, math.inf, p, moved=(up, down), test=test)
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    half = float(st.t.ppf(1 - ALPHA / 2, n - 1)) * math.sqrt(var / n)
    return Diff(n, mean, mean - half, mean + half, p, moved=(up, down), test=test)


def count_p(differing: list[float]) -> tuple[float, str]:
    """The two-sided p of paired count differences, from the pairs that differ (none is 0),
    and the test's name: the exact sign test below :data:`EXACT_BELOW` pairs, else the
    Wilcoxon signed-rank test with its normal approximation."""
    m = len(differing)
    up = sum(1 for d in differing if d > 0)
    if m < EXACT_BELOW:
        return float(st.binomtest(up, m, 0.5).pvalue), "exact sign test"
    p = float(st.wilcoxon(differing, zero_method="wilcox", method="approx").pvalue)
    return (p if math.isfinite(p) else 1.0), "Wilcoxon signed-rank"


# --- per variant ------------------------------------------------------------------------------


def _seats(r: dict[str, Any]) -> list[str]:
    """The warbands of seat 1 and seat 2 (``seats``; else the order of ``lost``)."""
    return list(r.get("seats") or r.get("lost") or [])


def _scenario_order(r: dict[str, Any]) -> list[str]:
    seats = _seats(r)
    return seats[::-1] if r.get("swapped") else seats


def rout_checks(r: dict[str, Any]) -> int:
    """How often the rout rule (U2) decided something in the game."""
    return int((r.get("rules_fired") or {}).get(RuleId.U2, 0))


@dataclass
class _Acc:
    label: str
    index: int
    games: int = 0
    wins: Counter = field(default_factory=Counter)
    draws: int = 0
    seat_wins: Counter = field(default_factory=Counter)  # 1 | 2
    seat_games: Counter = field(default_factory=Counter)  # (warband, seat) -> games
    seat_won: Counter = field(default_factory=Counter)  # (warband, seat) -> wins
    turns: Counter = field(default_factory=Counter)
    rout_turn: Counter = field(default_factory=Counter)  # None: no rout
    routed: Counter = field(default_factory=Counter)  # warband -> games it routed in
    checks: Counter = field(default_factory=Counter)  # U2 fired n times -> games
    ends: Counter = field(default_factory=Counter)
    treasure: dict = field(default_factory=dict)  # warband -> Counter(n held)
    lost: Counter = field(default_factory=Counter)
    lost_types: dict = field(default_factory=dict)  # warband -> Counter(type)
    fired: Counter = field(default_factory=Counter)  # rule -> games it fired in
    illegal: int = 0
    actions: int = 0
    seconds: float = 0.0
    coverage_known: bool = True
    rules_changed: list = field(default_factory=list)
    under: dict = field(default_factory=dict)
    pairs: dict = field(default_factory=dict)  # (pairing, seed, swapped) -> record
    lines: set = field(default_factory=set)  # the lines played
    distinct: list = field(default_factory=list)  # the first game of every line
    decided: Counter = field(default_factory=Counter)  # (winner, decided_by) -> games

    def add(self, r: dict[str, Any]) -> None:
        """Count one game's record."""
        self.games += 1
        self._add_result(r)
        self._add_rules(r)
        self._add_tallies(r)
        self._add_line(r)

    def _add_result(self, r: dict[str, Any]) -> None:
        """Who won from which seat, draws, turns, routs and how the game ended."""
        winner = r.get("winner")
        seats = _seats(r)
        for s, w in enumerate(seats[:2], start=1):
            self.seat_games[(w, s)] += 1
            if winner == w:
                self.seat_won[(w, s)] += 1
        if winner:
            self.wins[winner] += 1
            if winner in seats:
                self.seat_wins[seats.index(winner) + 1] += 1
        if r.get("draw") or not winner:
            self.draws += 1
        self.turns[int(r["turns"])] += 1
        self.rout_turn[r.get("rout_turn")] += 1
        for w in r.get("routed") or []:
            self.routed[w] += 1
        self.ends[str(r.get("end", "unknown"))] += 1

    def _add_rules(self, r: dict[str, Any]) -> None:
        """The rules the game fired, its rout checks, the variant's changed rules."""
        if "rules_fired" not in r:
            self.coverage_known = False
        for rule, n in (r.get("rules_fired") or {}).items():
            if n:
                self.fired[rule] += 1
        self.checks[rout_checks(r)] += 1
        self.rules_changed = list(r.get("variant_rules", self.rules_changed))
        self.under = dict(r.get("under") or self.under)

    def _add_tallies(self, r: dict[str, Any]) -> None:
        """Treasure held, units lost (by type), illegal actions, actions and seconds."""
        for w, n in (r.get("treasure") or {}).items():
            self.treasure.setdefault(w, Counter())[int(n)] += 1
        for w, n in (r.get("lost") or {}).items():
            self.lost[w] += int(n)
        for w, types in (r.get("lost_types") or {}).items():
            c = self.lost_types.setdefault(w, Counter())
            for t, n in types.items():
                c[t] += int(n)
        self.illegal += int(r.get("illegal", 0))
        self.actions += int(r.get("actions", 0))
        self.seconds += float(r.get("seconds", 0.0))

    def _add_line(self, r: dict[str, Any]) -> None:
        """The game's slim record by pairing, a new line's first game, who decided it."""
        slim = {
            k: r.get(k)
            for k in (
                "winner",
                "draw",
                "turns",
                "lost",
                "treasure",
                "rout_turn",
                "routed",
                "rules_fired",
                "line",
                "opening",
                "swapped",
                "seats",
                "end",
                "measured",
                "params_changed",
            )
        }
        slim["decided_by"] = r.get("decided_by", r.get("end") if r.get("winner") else None)
        key = (pairing_of(r), int(r["seed"]), bool(r["swapped"]))
        self.pairs[key] = slim
        line = line_of(r, key)
        if line not in self.lines:
            self.lines.add(line)
            self.distinct.append(slim)
        if slim["decided_by"]:
            self.decided[(r.get("winner"), slim["decided_by"])] += 1

    def rate(self, k: int, test) -> dict[str, Any]:
        """``k`` of the games, with the 95% interval over the distinct games (a line played
        twice counts once): ``distinct`` is [those of them that count, distinct games]."""
        n, nd = self.games, len(self.distinct)
        kd = sum(1 for r in self.distinct if test(r))
        lo, hi = wilson(kd, nd)
        return {"n": k, "of": n, "rate": k / n if n else 0.0, "ci": [lo, hi], "distinct": [kd, nd]}

    def summary(self, warbands: list[str]) -> dict[str, Any]:
        n = self.games
        turns_total = sum(t * c for t, c in self.turns.items())
        routs = sum(c for t, c in self.rout_turn.items() if t is not None)
        checked = sum(c for k, c in self.checks.items() if k > 0)
        return {
            "variant": self.label,
            "games": n,
            "rules_changed": self.rules_changed,
            "under": self.under,
            "distinct_lines": len(self.distinct),
            "one_opening": one_opening(self.pairs.values()),
            "wins": {w: self.rate(self.wins[w], lambda r, w=w: r.get("winner") == w) for w in warbands},
            "draws": self.rate(self.draws, lambda r: bool(r.get("draw")) or not r.get("winner")),
            "first_seat": self.rate(self.seat_wins[1], lambda r: _seat_won(r, 1)),
            "second_seat": self.rate(self.seat_wins[2], lambda r: _seat_won(r, 2)),
            "decided_by": {w: {how: self.decided[(w, how)] for how in DECIDED} for w in warbands},
            "by_seat": {
                w: {
                    str(s): rate(self.seat_won[(w, s)], self.seat_games[(w, s)]) | {"games": self.seat_games[(w, s)]}
                    for s in (1, 2)
                }
                for w in warbands
            },
            "turns": {"mean": turns_total / n if n else 0.0, "histogram": _hist(self.turns)},
            "rout_turn": {
                "games_with_rout": routs,
                "histogram": _hist({t: c for t, c in self.rout_turn.items() if t is not None}),
                "no_rout": self.rout_turn.get(None, 0),
            },
            "routs": self.rate(routs, lambda r: r.get("rout_turn") is not None),
            "routed": {w: self.rate(self.routed[w], lambda r, w=w: w in (r.get("routed") or [])) for w in warbands},
            "rout_checks": {
                "games": rate(checked, n) if self.coverage_known else None,
                "mean": sum(k * c for k, c in self.checks.items()) / n if n else 0.0,
            },
            "ends": dict(sorted(self.ends.items(), key=lambda kv: (-kv[1], kv[0]))),
            "rules_fired": ({r: rate(c, n) for r, c in sorted(self.fired.items())} if self.coverage_known else None),
            "treasure": {
                w: {"mean": _mean(self.treasure.get(w, Counter())), "histogram": _hist(self.treasure.get(w, Counter()))}
                for w in warbands
            },
            "lost": {w: {"mean": self.lost[w] / n if n else 0.0} for w in warbands},
            "lost_types": {
                w: {
                    t: {"total": c, "per_game": c / n if n else 0.0}
                    for t, c in sorted(self.lost_types.get(w, Counter()).items(), key=lambda kv: (-kv[1], kv[0]))
                }
                for w in warbands
            },
            "illegal": self.illegal,
            "actions_mean": self.actions / n if n else 0.0,
            "seconds_mean": self.seconds / n if n else 0.0,
        }


#: How a won game was decided (``decided_by``), in the order the report shows them.
DECIDED = ("rout", "eliminated", "turn_limit")


def _seat_won(r: dict[str, Any], seat: int) -> bool:
    seats = _seats(r)
    return len(seats) >= seat and r.get("winner") == seats[seat - 1]


def _hist(c: dict) -> dict[str, int]:
    return {str(k): c[k] for k in sorted(c)}


def _mean(c: Counter) -> float:
    n = sum(c.values())
    return sum(k * v for k, v in c.items()) / n if n else 0.0


# --- comparisons ----------------------------------------------------------------------------------


def p_text(p: float) -> str:
    return f"p = {p:.2g}" if p >= 0.001 else "p < 0.001"


def sentence(
    label: str,
    base: str,
    d: Diff,
    quantity: str,
    up: str,
    down: str,
    unit: str,
    scale: float = 1.0,
    untested: str | None = None,
    digits: int = 1,
    played: int | None = None,
) -> str:
    """One plain sentence on a paired difference: a clear change with its interval and p,
    "no clear difference", "the same in all N paired games", or, when the changed rules
    never came into play (``untested`` says which), that and nothing else. The numbers are
    written as the tables and the plot write them (:func:`shown`: signed, the same digits).
    ``played``: the pairs played, when repeated pairs made ``d.n`` fewer."""
    if untested is not None:
        return f"{label}: untested for {quantity}: {untested}."
    pairs = f"{d.n} paired games" if played is None or played == d.n else f"{d.n} distinct of {played} paired games"
    tail = f"compared with {base}, over {pairs}"
    if d.n < 2:
        return f"{label}: too few distinct paired games with {base} to compare {quantity} ({d.n})."
    if d.identical:
        return f"{label}: {quantity} is identical in all {pairs} with {base}."
    counts = ""
    if d.flipped is not None:
        a, b = d.flipped
        counts = f", {a} pair{'' if a == 1 else 's'} flipped up and {b} down"
    elif d.moved is not None:
        a, b = d.moved
        counts = f", {a} pair{'' if a == 1 else 's'} up and {b} down"
    numbers = (
        f"{shown(d.mean, scale, digits)} {unit} (95% CI {shown(d.low, scale, digits)} to "
        f"{shown(d.high, scale, digits)}, {p_text(d.p)}{counts})"
    )
    if d.clear:
        return f"{label} {up if d.mean > 0 else down}: {numbers} {tail}."
    if d.low == d.high:
        return (
            f"{label}: {quantity} {shown(d.mean, scale, digits)} {unit} in every one of the {pairs} with {base}, "
            f"too few pairs to call it clear ({p_text(d.p)})."
        )
    return f"{label}: no clear difference in {quantity}: {numbers} {tail}{_why_not_clear(d)}."


def _why_not_clear(d: Diff) -> str:
    """Why a difference whose interval leaves out 0 is still not clear: its test does not
    reach ``p < ALPHA``. The interval and the test are different methods (an interval on
    the mean, a test on the pairs that differ), and "clear" needs both; the sentence says
    so instead of leaving a reader to square an interval without 0 with "no clear"."""
    if d.clear or not (d.low > 0 or d.high < 0):
        return ""
    if d.flipped is not None:
        test, pairs = "McNemar's exact test", sum(d.flipped)
    else:
        name = d.test or "test"
        test, pairs = f"the {name}" + ("" if name.endswith("test") else " test"), sum(d.moved or (0, 0))
    differ = f"{pairs} pair differs" if pairs == 1 else f"{pairs} pairs differ"
    short = f"does not reach p < {ALPHA:g}"
    return f"; the interval leaves out 0, but only {differ} and {test} on them {short}: clear needs both"


def _quantities(warbands: list[str]) -> list[tuple]:
    """(path, kind, getter, quantity, up, down, unit, scale, digits) of every compared outcome."""
    out = []
    for w in warbands:
        out.append(
            (
                ("win_rate", w),
                "yes",
                lambda r, w=w: r.get("winner") == w,
                f"the win rate of {w}",
                f"raises the win rate of {w}",
                f"lowers the win rate of {w}",
                "points",
                100.0,
                1,
            )
        )
    out.append(
        (
            ("draws",),
            "yes",
            lambda r: bool(r.get("draw")),
            "the draw rate",
            "raises the draw rate",
            "lowers the draw rate",
            "points",
            100.0,
            1,
        )
    )
    out.append(
        (("turns",), "count", lambda r: r["turns"], "game length", "lengthens games", "shortens games", "turns", 1.0, 1)
    )
    for w in warbands:
        out.append(
            (
                ("treasure", w),
                "count",
                lambda r, w=w: (r.get("treasure") or {}).get(w, 0),
                f"the tokens held by {w} at the end",
                f"raises the tokens held by {w} at the end",
                f"lowers the tokens held by {w} at the end",
                "tokens per game",
                1.0,
                2,
            )
        )
    for w in warbands:
        out.append(
            (
                ("lost", w),
                "count",
                lambda r, w=w: (r.get("lost") or {}).get(w, 0),
                f"the units lost by {w}",
                f"raises the units lost by {w}",
                f"lowers the units lost by {w}",
                "units per game",
                1.0,
                2,
            )
        )
    out.append(
        (
            ("routs",),
            "yes",
            lambda r: r.get("rout_turn") is not None,
            "the rout rate",
            "raises the rout rate",
            "lowers the rout rate",
            "points",
            100.0,
            1,
        )
    )
    for w in warbands:
        out.append(
            (
                ("routed", w),
                "yes",
                lambda r, w=w: w in (r.get("routed") or []),
                f"the rout rate of {w}",
                f"makes {w} rout more often",
                f"makes {w} rout less often",
                "points",
                100.0,
                1,
            )
        )
    out.append(
        (
            ("rout_checks",),
            "count",
            rout_checks,
            "the number of the rout rule's decisions (U2: rout checks, morale rolls)",
            "adds decisions of the rout rule (U2: rout checks, morale rolls)",
            "removes decisions of the rout rule (U2: rout checks, morale rolls)",
            "per game",
            1.0,
            2,
        )
    )
    return out


def _put(d: dict, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        d = d.setdefault(k, {})
    d[path[-1]] = value


def compare(base: _Acc, other: _Acc, warbands: list[str]) -> dict[str, Any]:
    played = sorted(set(base.pairs) & set(other.pairs))
    b, o = base.pairs, other.pairs
    keys = distinct_keys(played, b, o)
    out: dict[str, Any] = {
        "variant": other.label,
        "against": base.label,
        "pairs": len(played),
        "distinct_pairs": len(keys),
    }
    known = base.coverage_known and other.coverage_known
    rules = list(other.rules_changed)
    if known:
        out.update(coverage(b, o, played, rules))
    else:
        out.update(
            {
                "rules_changed": rules,
                "fired_pairs": None,
                "tested": None,
                "changed_pairs": sum(
                    1
                    for k in played
                    if any(b[k].get(x) != o[k].get(x) for x in ("winner", "turns", "lost", "treasure"))
                ),
            }
        )
    untested = None
    if out["tested"] is False:
        named = f"the changed rule{'s' if len(rules) > 1 else ''} ({', '.join(rules)})"
        if not rules:
            untested = f"{other.label} changes no rule of {base.label}"
        elif out.get("fired_pairs"):
            untested = (
                f"{named} decided things in {out['fired_pairs']} of the {len(played)} paired games, but no "
                f"decision would have gone the other way under the other ruleset (decisive in 0 pairs)"
            )
        else:
            untested = f"{named} never came into play in any of the {len(played)} paired games"
    out["untested_reason"] = untested
    sentences = []
    for path, kind, get, quantity, up, down, unit, scale, digits in _quantities(warbands):
        if kind == "yes":
            d = mcnemar([bool(get(o[k])) for k in keys], [bool(get(b[k])) for k in keys])
        else:
            d = paired_counts([float(get(o[k])) - float(get(b[k])) for k in keys])
        said = sentence(other.label, base.label, d, quantity, up, down, unit, scale, untested, digits, len(played))
        extra = {}
        if path[0] == "win_rate" and not untested:
            extra["by_end"] = by_end(keys, b, o, path[1])
            said += tie_break_note(extra["by_end"], d.clear)
        verdict = (
            "untested"
            if untested
            else ("identical" if d.identical else ("clear" if d.clear else "no clear difference"))
        )
        text = {
            "mean": shown(d.mean, scale, digits),
            "ci": [shown(d.low, scale, digits), shown(d.high, scale, digits)],
            "unit": unit,
        }
        _put(
            out,
            path,
            {
                **d.to_dict(),
                "verdict": verdict,
                "sentence": said,
                "robust": d.clear and not untested,
                "shown": text,
                **extra,
            },
        )
        sentences.append(said)
    out["sentences"] = sentences
    if untested:
        out["sentences"] = [
            f"{other.label}: untested against {base.label}: {untested}; its outcomes say nothing "
            f"about the rule ({out['changed_pairs']} of {len(played)} paired games differ at all)."
        ]
    return out


def by_end(keys: list[tuple], base: dict, other: dict, warband: str) -> dict[str, list[int]]:
    """``by_end`` of a win-rate difference: the flipped pairs by how the won game of each was
    decided, ``{decided_by: [pairs won under the variant only, pairs won under the first only]}``."""
    out: dict[str, list[int]] = {}
    for k in keys:
        won_o, won_b = other[k].get("winner") == warband, base[k].get("winner") == warband
        if won_o == won_b:
            continue
        game = other[k] if won_o else base[k]
        how = game.get("decided_by") or game.get("end") or "unknown"
        out.setdefault(how, [0, 0])[0 if won_o else 1] += 1
    return out


def tie_break_note(ends: dict[str, list[int]], clear: bool = True) -> str:
    """What a win-rate sentence adds when its flipped games were all won at the turn limit."""
    flipped = sum(a + b for a, b in ends.values())
    if not flipped or set(ends) != {"turn_limit"}:
        return ""
    which = f"All {flipped} flipped games were" if flipped > 1 else "The 1 flipped game was"
    said = f" {which} won at the turn limit, on T1's tie-break (treasure held), not by a rout or an elimination"
    return said + (": the difference comes from the turn limit's tie-break." if clear else ".")


def same_games(order: list[_Acc]) -> list[dict[str, Any]]:
    """Every two variants that played move-for-move the same game in at least one of their
    paired games: ``{"variants": [a, b], "same": k, "pairs": n}`` (the first one first)."""
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            keys = sorted(set(a.pairs) & set(b.pairs))
            same = sum(1 for k in keys if a.pairs[k].get("line") and a.pairs[k].get("line") == b.pairs[k].get("line"))
            if same:
                out.append({"variants": [a.label, b.label], "same": same, "pairs": len(keys)})
    return out


def difference_paths(warbands: list[str]) -> list[tuple]:
    return [q[0] for q in _quantities(warbands)]


# --- the whole run ----------------------------------------------------------------------------------


def _accumulate(records: Iterable[dict[str, Any]]) -> tuple[dict, list[str], list[tuple], dict]:
    """Accumulators per pairing and variant, and pooled per variant; the warbands in the
    scenario's order; the pairings in the study's order (``pairing_index``; records from
    before it in the order met)."""
    pooled: dict[str, _Acc] = {}
    per: dict[tuple, dict[str, _Acc]] = {}
    warbands: list[str] = []
    pairings: list[tuple] = []
    place: dict[tuple, int] = {}  # a pairing's place in the study
    for r in records:
        label = str(r["variant"])
        index = int(r.get("variant_index", len(pooled)))
        pair = pairing_of(r)
        if pair not in pairings:
            pairings.append(pair)
        for accs in (pooled, per.setdefault(pair, {})):
            acc = accs.get(label)
            if acc is None:
                acc = accs[label] = _Acc(label, index)
            acc.add(r)
        for w in _scenario_order(r):
            if w not in warbands:
                warbands.append(w)
        place.setdefault(pair, int(r.get("pairing_index", len(pairings))))
    pairings.sort(key=lambda pair: place[pair])  # stable: the order met where no index says
    return pooled, warbands, pairings, per


def _ordered(accs: dict[str, _Acc]) -> list[_Acc]:
    return sorted(accs.values(), key=lambda a: (a.index, a.label))


def summarize(records: Iterable[dict[str, Any]], root: str | None = None, skipped: int = 0) -> dict[str, Any]:
    """``summary.json``: per variant, then each variant against the first; per bot pairing
    the same (``by_bots``); each bot against each other bot (``head_to_head``); every
    pooled difference marked ``robust``; the stalls and rule gaps with the commands that
    replay them (``root``: the run's folder); ``skipped``: the lines of ``games.jsonl``
    that could not be read."""
    records = list(records)
    pooled, warbands, pairings, per = _accumulate(records)
    order = _ordered(pooled)
    summary: dict[str, Any] = {
        "games": sum(a.games for a in order),
        "skipped_lines": skipped,
        "warbands": warbands,
        "bots": [list(p) for p in pairings],
        "variants": [a.summary(warbands) for a in order],
        "comparisons": [compare(order[0], a, warbands) for a in order[1:]] if order else [],
        "by_bots": [],
        "head_to_head": head_to_head(records),
    }
    for pair in pairings:
        accs = _ordered(per[pair])
        base = next((a for a in accs if a.label == order[0].label), None)
        summary["by_bots"].append(
            {
                "bots": list(pair),
                "variants": [a.summary(warbands) for a in accs],
                "comparisons": [compare(base, a, warbands) for a in accs if a is not base] if base else [],
            }
        )
    summary["same_games"] = same_games(order)
    mark_robust(summary, difference_paths(warbands))
    summary["gaps"] = find_gaps(records, STALL_TURNS, root)
    return summary
