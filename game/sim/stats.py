"""The numbers of the report, from ``games.jsonl`` records (``summary.json``).

* A rate (a warband's wins, draws, seat 1's wins) gets a 95% Wilson score interval.
* Variants are compared with the first one on paired games: the same seed and the same
  seats. For each pair the difference ``other - first`` (1/0 for "this warband won", or the
  turns played) is taken; the interval is the mean difference +- t(0.975, n-1) standard
  errors. A difference is *clear* when its interval leaves out 0.

Memory: one small entry per game and variant (for the pairing), never a game log.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

#: The 0.975 quantile of the standard normal distribution (a two-sided 95% interval).
Z95 = 1.959963984540054
#: The 0.975 quantiles of Student's t for 1..30 degrees of freedom (standard tables).
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials; (0, 1) for n = 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def t975(df: int) -> float:
    """Student's t 0.975 quantile; a Cornish-Fisher expansion past the table (error < 1e-4)."""
    if df < 1:
        return math.inf
    if df <= len(T975):
        return T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


@dataclass(frozen=True)
class Diff:
    """A paired difference: its mean and 95% interval over ``n`` pairs."""

    n: int
    mean: float
    low: float
    high: float

    @property
    def clear(self) -> bool:
        return self.n > 0 and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, Any]:
        return {"pairs": self.n, "mean": self.mean, "ci": [self.low, self.high], "clear": self.clear}


def paired_diff(diffs: list[float]) -> Diff:
    n = len(diffs)
    if n == 0:
        return Diff(0, 0.0, -math.inf, math.inf)
    mean = sum(diffs) / n
    if n == 1:
        return Diff(1, mean, -math.inf, math.inf)
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    half = t975(n - 1) * math.sqrt(var / n)
    return Diff(n, mean, mean - half, mean + half)


def rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"n": k, "rate": k / n if n else 0.0, "ci": [lo, hi]}


# --- per variant ------------------------------------------------------------------------------

@dataclass
class _Acc:
    label: str
    index: int
    games: int = 0
    wins: Counter = field(default_factory=Counter)
    draws: int = 0
    seat_wins: Counter = field(default_factory=Counter)   # 1 | 2
    turns: Counter = field(default_factory=Counter)
    rout_turn: Counter = field(default_factory=Counter)   # None: no rout
    treasure: dict = field(default_factory=dict)          # warband -> Counter(n held)
    lost: Counter = field(default_factory=Counter)
    lost_types: dict = field(default_factory=dict)        # warband -> Counter(type)
    illegal: int = 0
    actions: int = 0
    seconds: float = 0.0
    pairs: dict = field(default_factory=dict)             # (seed, swapped) -> (winner, turns)

    def add(self, r: dict[str, Any]) -> None:
        self.games += 1
        winner = r.get("winner")
        if winner:
            self.wins[winner] += 1
            seats = _seats(r)
            if winner in seats:
                self.seat_wins[seats.index(winner) + 1] += 1
        if r.get("draw") or not winner:
            self.draws += 1
        self.turns[int(r["turns"])] += 1
        self.rout_turn[r.get("rout_turn")] += 1
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
        self.pairs[(int(r["seed"]), bool(r["swapped"]))] = (winner, int(r["turns"]))

    def summary(self, warbands: list[str]) -> dict[str, Any]:
        n = self.games
        turns_total = sum(t * c for t, c in self.turns.items())
        routs = sum(c for t, c in self.rout_turn.items() if t is not None)
        return {
            "variant": self.label,
            "games": n,
            "wins": {w: rate(self.wins[w], n) for w in warbands},
            "draws": rate(self.draws, n),
            "first_seat": rate(self.seat_wins[1], n),
            "second_seat": rate(self.seat_wins[2], n),
            "turns": {"mean": turns_total / n if n else 0.0, "histogram": _hist(self.turns)},
            "rout_turn": {"games_with_rout": routs, "histogram": _hist({t: c for t, c in self.rout_turn.items() if t is not None}),
                          "no_rout": self.rout_turn.get(None, 0)},
            "treasure": {w: {"mean": _mean(self.treasure.get(w, Counter())), "histogram": _hist(self.treasure.get(w, Counter()))}
                         for w in warbands},
            "lost": {w: {"mean": self.lost[w] / n if n else 0.0} for w in warbands},
            "lost_types": {w: {t: {"total": c, "per_game": c / n if n else 0.0}
                               for t, c in sorted(self.lost_types.get(w, Counter()).items(), key=lambda kv: (-kv[1], kv[0]))}
                           for w in warbands},
            "illegal": self.illegal,
            "actions_mean": self.actions / n if n else 0.0,
            "seconds_mean": self.seconds / n if n else 0.0,
        }


def _hist(c: dict) -> dict[str, int]:
    return {str(k): c[k] for k in sorted(c)}


def _mean(c: Counter) -> float:
    n = sum(c.values())
    return sum(k * v for k, v in c.items()) / n if n else 0.0


# --- comparisons ----------------------------------------------------------------------------------

def sentence(label: str, base: str, d: Diff, quantity: str, up: str, down: str, unit: str, scale: float = 1.0) -> str:
    """One plain sentence on a paired difference, e.g. "treasure_denial_range=3 lengthens
    games by 1.2 turns (95% CI 0.8 to 1.6) ...", or "no clear difference" when the
    interval contains 0."""
    tail = f"compared with {base}, over {d.n} paired games"
    if d.n < 2:
        return f"{label}: too few paired games with {base} to compare {quantity} ({d.n})."

    if d.low == d.high == 0:
        return f"{label}: no clear difference in {quantity} (the same in all {d.n} paired games with {base})."

    def num(x: float) -> str:
        return f"{scale * x:.1f}"

    if d.low > 0:
        return f"{label} {up} by {num(d.mean)} {unit} (95% CI {num(d.low)} to {num(d.high)}) {tail}."
    if d.high < 0:
        return f"{label} {down} by {num(-d.mean)} {unit} (95% CI {num(-d.high)} to {num(-d.low)}) {tail}."
    return (f"{label}: no clear difference in {quantity} ({scale * d.mean:+.1f} {unit}, "
            f"95% CI {scale * d.low:+.1f} to {scale * d.high:+.1f}) {tail}.")


def compare(base: _Acc, other: _Acc, warbands: list[str]) -> dict[str, Any]:
    keys = sorted(set(base.pairs) & set(other.pairs))
    out: dict[str, Any] = {"variant": other.label, "against": base.label, "pairs": len(keys), "win_rate": {}}
    sentences = []
    for w in warbands:
        d = paired_diff([float(other.pairs[k][0] == w) - float(base.pairs[k][0] == w) for k in keys])
        said = sentence(other.label, base.label, d, f"the win rate of {w}", f"raises the win rate of {w}",
                        f"lowers the win rate of {w}", "points", scale=100.0)
        out["win_rate"][w] = {**d.to_dict(), "sentence": said}
        sentences.append(said)
    d = paired_diff([float(other.pairs[k][1] - base.pairs[k][1]) for k in keys])
    out["turns"] = {**d.to_dict(), "sentence": sentence(other.label, base.label, d, "game length", "lengthens games",
                                                        "shortens games", "turns")}
    sentences.append(out["turns"]["sentence"])
    out["sentences"] = sentences
    return out


def _seats(r: dict[str, Any]) -> list[str]:
    """The warbands of seat 1 and seat 2 (``seats``; else the order of ``lost``)."""
    return list(r.get("seats") or r.get("lost") or [])


def _scenario_order(r: dict[str, Any]) -> list[str]:
    seats = _seats(r)
    return seats[::-1] if r.get("swapped") else seats


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``summary.json``: per variant, then each variant against the first."""
    accs: dict[str, _Acc] = {}
    warbands: list[str] = []
    bots = None
    for r in records:
        label = str(r["variant"])
        acc = accs.get(label)
        if acc is None:
            acc = accs[label] = _Acc(label, int(r.get("variant_index", len(accs))))
        acc.add(r)
        if bots is None and not r.get("swapped"):
            bots = r.get("bots")
        for w in _scenario_order(r):
            if w not in warbands:
                warbands.append(w)
    order = sorted(accs.values(), key=lambda a: (a.index, a.label))
    summary: dict[str, Any] = {
        "games": sum(a.games for a in order),
        "warbands": warbands,
        "bots": bots,
        "variants": [a.summary(warbands) for a in order],
        "comparisons": [compare(order[0], a, warbands) for a in order[1:]],
    }
    return summary
