"""Bot against bot: who wins when a study pits two different bots against each other.

A study that compares bots (``--bots planner,utility --bots utility,planner --swap``) asks
which bot wins, not which warband: per variant and per pair of different bots, the first
bot's games against the second are counted won, drawn and lost over the *distinct* games
(a game whose moves another repeats counts once, :mod:`game.sim.lines`), with the share of
the decided games and its 95% Wilson interval, the same from each seat (the seat often
decides more than the bot: docs/benchmarks.md), and how the decided games were decided
(a rout, an elimination, or the turn limit's tie-break, T1).

The first bot of a pair is the one the study names first. Its record by warband says when
the table, not the bot, decides (on default.yaml the Gaol Gang wins most games whoever
plays it). ``tools/bench_ladder.py`` scores its games with the same :func:`score`.

**Paired with a bot's own games.** A share of the decided games mixes the bot with the
table: where the first seat or one warband wins most games whoever plays it, a much better
bot may still lose half its games. When the study also plays a bot against itself
(``--bots B,B``), each game of A against B is paired with B's own game on the same seed
and seats: the side A played, played by B instead, against the same opponent. A pair
counts *better* when A's side did better (a win against a draw or a loss, a draw against
a loss), *worse* the other way, and the sign test (exact) says whether more pairs moved up
than down. With A's own games (``--bots A,A``) the same is asked from the other side: B's
side of the game, played by A instead, against A. The table's edge is the same in both
games of a pair, so it drops out. The pairs are counted by the warband and by the seat of
the side they are about too: where the table favours one warband, the gain of a bigger
budget may be all on that side.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from game.sim.lines import line_of, pairing_of
from game.sim.rates import sign_test, wilson


@dataclass
class Tally:
    """Games from one bot's side: won, lost, drawn, the bot actions refused in them, and
    how the decided ones were decided (``decided_by``)."""

    won: int = 0
    lost: int = 0
    drawn: int = 0
    refused: int = 0
    how: Counter = field(default_factory=Counter)

    @property
    def games(self) -> int:
        return self.won + self.lost + self.drawn

    @property
    def decided(self) -> int:
        return self.won + self.lost

    def add(self, other: "Tally") -> None:
        self.won, self.lost, self.drawn = self.won + other.won, self.lost + other.lost, self.drawn + other.drawn
        self.refused += other.refused
        self.how.update(other.how)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = wilson(self.won, self.decided)
        return {
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "decided": self.decided,
            "share": self.won / self.decided if self.decided else None,
            "ci": [lo, hi],
            "decided_by": dict(sorted(self.how.items())),
            "refused": self.refused,
        }


def score(record: dict, bot: str, other: str) -> Tally:
    """One game record from ``bot``'s side against ``other`` (a record names its bots by
    seat, ``bots``, and its warbands by seat, ``seats``)."""
    seat_bots, seats = record["bots"], record["seats"]
    tally = Tally(refused=int(record.get("illegal", 0)))
    if seat_bots[0] == seat_bots[1] or set(seat_bots) != {bot, other}:
        raise ValueError(f"a game of {seat_bots} scored as {bot} against {other}")
    if record.get("draw") or not record.get("winner"):
        tally.drawn = 1
        return tally
    winner = seat_bots[seats.index(record["winner"])]
    tally.won, tally.lost = (1, 0) if winner == bot else (0, 1)
    tally.how[record.get("decided_by") or "unknown"] += 1
    return tally


def points(record: dict, warband: str) -> int:
    """How ``warband`` did in a game: 2 won, 1 drawn, 0 lost."""
    if record.get("draw") or not record.get("winner"):
        return 1
    return 2 if record["winner"] == warband else 0


@dataclass
class Moved:
    """Pairs that moved up (``better``), stayed (``same``) or moved down (``worse``)."""

    better: int = 0
    same: int = 0
    worse: int = 0

    def add(self, with_a: int, with_b: int) -> None:
        if with_a > with_b:
            self.better += 1
        elif with_a < with_b:
            self.worse += 1
        else:
            self.same += 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.better + self.same + self.worse,
            "better": self.better,
            "same": self.same,
            "worse": self.worse,
            "p": sign_test(self.better, self.worse),
        }


@dataclass
class Paired:
    """A's games against B paired with ``control``'s own games (``control`` on both sides,
    the same variant, seed and seats): how often the side A played did better than B did
    in its place, against the same opponent (:func:`head_to_head`); the same by the
    warband and by the seat of the side the pair is about (where the bigger budget, say,
    gains: a table may favour one warband or the first seat whoever plays it)."""

    control: str
    total: Moved = field(default_factory=Moved)
    by_warband: dict = field(default_factory=dict)  # the side's warband -> Moved
    by_seat: dict = field(default_factory=dict)  # the side's seat (1, 2) -> Moved
    seen: set = field(default_factory=set)  # (line, control's line): a repeated pair counts once

    def add(self, key: tuple, with_a: int, with_b: int, warband: str, seat: int) -> None:
        if key in self.seen:
            return
        self.seen.add(key)
        self.total.add(with_a, with_b)
        self.by_warband.setdefault(warband, Moved()).add(with_a, with_b)
        self.by_seat.setdefault(seat, Moved()).add(with_a, with_b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "control": self.control,
            **self.total.to_dict(),
            "test": "exact sign test",
            "by_warband": {w: m.to_dict() for w, m in sorted(self.by_warband.items())},
            "by_seat": {str(s): m.to_dict() for s, m in sorted(self.by_seat.items())},
        }


@dataclass
class _Matchup:
    variant: str
    bots: tuple[str, str]
    played: int = 0
    lines: set = field(default_factory=set)
    total: Tally = field(default_factory=Tally)
    by_seat: dict = field(default_factory=lambda: {1: Tally(), 2: Tally()})
    by_warband: dict = field(default_factory=dict)  # the first bot's warband -> Tally
    paired: dict = field(default_factory=dict)  # the control's bot -> Paired

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "bots": list(self.bots),
            "games": self.played,
            "distinct": self.total.games,
            **self.total.to_dict(),
            "by_seat": {str(s): t.to_dict() for s, t in self.by_seat.items()},
            "by_warband": {w: t.to_dict() for w, t in self.by_warband.items()},
            "paired": [p.to_dict() for p in self.paired.values() if p.seen],
        }

    def pair(self, r: dict, line, own: dict) -> None:
        """Pair game ``r`` (its ``line``) with the bots' own games of its seed and seats
        (``own``: (variant, bot, seed, swapped) -> record), when the study played them."""
        first, second = self.bots
        seat = list(r["bots"]).index(first)
        a_side, b_side = r["seats"][seat], r["seats"][1 - seat]
        at = (self.variant, r.get("seed"), bool(r.get("swapped")))
        # second's own game: the side first played, played by second; first's own game:
        # the side second played, played by first (each against the same opponent)
        for control, side, side_seat, in_game_is_a in ((second, a_side, seat, True), (first, b_side, 1 - seat, False)):
            c = own.get((at[0], control, at[1], at[2]))
            if c is None:
                continue
            here, there = points(r, side), points(c, side)
            with_a, with_b = (here, there) if in_game_is_a else (there, here)
            self.paired.setdefault(control, Paired(control)).add(
                (line, line_of(c, at)), with_a, with_b, side, side_seat + 1
            )


def head_to_head(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per variant and pair of different bots, in the study's order (the first bot is the
    one its first pairing of them names first, whichever game ended first): its won,
    drawn and lost over the distinct games, overall, by the seat it played from and by the
    warband it played, and (``paired``) its games paired with each bot's own games where
    the study played them (``summary.json``'s ``head_to_head``; empty when every game is a
    bot against itself)."""
    records = list(records)
    own = {}  # a bot's games against itself, by (variant, bot, seed, swapped): the pairs' controls
    for r in records:
        seat_bots = list(r.get("bots") or [])
        if len(seat_bots) == 2 and seat_bots[0] == seat_bots[1] and r.get("seats"):
            own.setdefault((str(r["variant"]), seat_bots[0], r.get("seed"), bool(r.get("swapped"))), r)
    # each pair of bots in the order of the study's first pairing of them (``pairing_index``,
    # the --bots order; records from before it in the order met), whatever game ended first
    leads: dict[tuple[str, frozenset], tuple] = {}
    for n, r in enumerate(records):
        seat_bots = list(r.get("bots") or [])
        if len(seat_bots) == 2 and seat_bots[0] != seat_bots[1] and r.get("seats"):
            key = (str(r["variant"]), frozenset(seat_bots))
            place = (int(r.get("pairing_index", n)), n)
            if key not in leads or place < leads[key][0]:
                leads[key] = (place, tuple(pairing_of(r)))
    found: dict[tuple[str, frozenset], _Matchup] = {}
    for key in sorted(leads, key=lambda k: leads[k][0]):
        found[key] = _Matchup(key[0], leads[key][1])
    for r in records:
        seat_bots = list(r.get("bots") or [])
        if len(seat_bots) != 2 or seat_bots[0] == seat_bots[1] or not r.get("seats"):
            continue
        m = found[(str(r["variant"]), frozenset(seat_bots))]
        m.played += 1
        line = line_of(r, (pairing_of(r), r.get("seed"), bool(r.get("swapped"))))
        if line in m.lines:
            continue
        m.lines.add(line)
        first, second = m.bots
        tally = score(r, first, second)
        m.total.add(tally)
        seat = seat_bots.index(first)
        m.by_seat[seat + 1].add(tally)
        m.by_warband.setdefault(r["seats"][seat], Tally()).add(tally)
        m.pair(r, line, own)
    return [m.to_dict() for m in found.values()]


#: How a decided game was decided (``decided_by``), as the report and the sentences write it.
HOW = {"rout": "by rout", "eliminated": "by elimination", "turn_limit": "at the turn limit"}


def how_decided(counts: dict[str, int]) -> str:
    """ "3 by rout, 11 at the turn limit" of ``{decided_by: games}`` (none: "")."""
    return ", ".join(f"{n} {HOW.get(k, k)}" for k, n in counts.items() if n)


def record(t: dict[str, Any]) -> str:
    """A tally's won-drawn-lost, "6-3-3"."""
    return f"{t['won']}-{t['drawn']}-{t['lost']}"


def paired_text(m: dict[str, Any], p: dict[str, Any]) -> str:
    """One of a matchup's pairings with a bot's own games (``m["paired"]``): "against
    utility, planner did better than utility in 9 of 20 paired games and worse in 2 (exact
    sign test p = 0.065); as north better in 6 and worse in 0 (p = 0.031), as south better
    in 3 and worse in 2 (p = 1)", the warbands' counts when the pairs are about more than one."""
    a, b = m["bots"]
    out = (
        f"against {p['control']}, {a} did better than {b} in {p['better']} of {p['pairs']} paired "
        f"game{'s' if p['pairs'] != 1 else ''} and worse in {p['worse']} ({p['test']} p = {p['p']:.2g})"
    )
    sides = p.get("by_warband") or {}
    if len(sides) > 1:
        out += "; " + ", ".join(
            f"as {w} better in {t['better']} and worse in {t['worse']} (p = {t['p']:.2g})" for w, t in sides.items()
        )
    return out


def sentence(m: dict[str, Any]) -> str:
    """ "planner against utility: won 19, drew 0, lost 13 of 32 distinct games: 59% of the
    decided (95% CI 42-74%); from seat 1 16-0-0, from seat 2 3-0-13 (won-drawn-lost); as
    north 9-0-7, as south 10-0-6; decided: 32 at the turn limit", and each pairing with a
    bot's own games (:func:`paired_text`)."""
    a, b = m["bots"]
    games = f"{m['distinct']} distinct game{'s' if m['distinct'] != 1 else ''}"
    if m["games"] != m["distinct"]:
        games += f" of {m['games']} played"
    share = (
        f"{100 * m['share']:.0f}% of the decided (95% CI {100 * m['ci'][0]:.0f}-{100 * m['ci'][1]:.0f}%)"
        if m["decided"]
        else "none decided"
    )
    seats = ", ".join(
        f"from seat {s} {record(t)}" for s, t in m["by_seat"].items() if t["won"] + t["drawn"] + t["lost"]
    )
    sides = ", ".join(f"as {w} {record(t)}" for w, t in sorted((m.get("by_warband") or {}).items()))
    how = how_decided(m["decided_by"])
    return (
        f"{a} against {b}: won {m['won']}, drew {m['drawn']}, lost {m['lost']} of {games}: {share}"
        + (f"; {seats} (won-drawn-lost)" if seats else "")
        + (f"; {sides}" if sides else "")
        + (f"; decided: {how}" if how else "")
        + "".join(f"; {paired_text(m, p)}" for p in m.get("paired") or [])
    )
