"""Turn order, activation and the first turn's limits (RULES.md O1-O3), as ruleset data.

* O1 ``turn_order``: who goes first in each game turn. ``fixed`` (the default): the lowest
  player number; ``alternate``: whoever went second last game turn; ``roll_off``: each
  player rolls the check die (logged like every roll, through the seeded dice), the
  highest goes first, a tie goes to whoever went second last game turn (in game turn 1 a
  tie is rolled again); ``behind_first``: the player behind (fewer tokens held, then more
  units lost) goes first, level players keep the order.
* O2 ``activation``: ``whole_turn`` (each player plays all the phases, then the next) or
  ``alternating`` (each phase once per game turn; the players take turns to activate one
  unit each). The flow (:mod:`game.engine.flow`) plays it; this module answers the
  questions about it.
* O3 ``first_turn_limits``: limits on the first player of game turn 1 (``no_run``,
  ``no_engage``), checked before the rule of the action.

Player numbers and seats never change; only the order of the players within a game turn.
"""

from __future__ import annotations

from typing import Any

from game.engine.errors import IllegalAction
from game.engine.rule_ids import RuleId

TURN_ORDERS = ("fixed", "alternate", "roll_off", "behind_first")
ACTIVATIONS = ("whole_turn", "alternating")
#: A first-turn limit -> the action kind it forbids and the words for the refusal.
FIRST_TURN_LIMITS: dict[str, tuple[str, str]] = {"no_run": ("run", "Run"), "no_engage": ("engage", "Engage")}
#: A roll-off of game turn 1 is rolled again on a tie, at most this often (then the order stays).
_MAX_REROLLS = 50


def turn_order(rs: Any) -> str:
    return rs.get("turn_order", "fixed")


def is_alternating(rs: Any) -> bool:
    return rs.get("activation", "whole_turn") == "alternating"


def first_turn_limits(rs: Any) -> tuple[str, ...]:
    """The ruleset's limits as a tuple (a single word is a list of one)."""
    value = rs.get("first_turn_limits") or ()
    return (value,) if isinstance(value, str) else tuple(value)


def players(ctx: Any) -> list[int]:
    """Every player number of the game (not the Neutrals), lowest first."""
    return sorted(w.player for w in ctx.scenario.warbands if w.player > 0)


def order(ctx: Any) -> list[int]:
    """This game turn's order: every player (routed ones too), the first player first,
    then the others in number order around the table."""
    ps = players(ctx)
    first = ctx.state.first
    if first not in ps:
        return ps
    i = ps.index(first)
    return ps[i:] + ps[:i]


def playing(ctx: Any) -> list[int]:
    """This game turn's order without the players whose warband routed."""
    routed = set(ctx.state.routed)
    out = []
    for p in order(ctx):
        w = ctx.scenario.warband_of_player(p)
        if w is not None and w.id not in routed:
            out.append(p)
    return out


def after(ctx: Any, player: int) -> int | None:
    """The next player still playing after ``player`` in this game turn's order, or None."""
    full = order(ctx)
    live = set(playing(ctx))
    later = full[full.index(player) + 1 :] if player in full else [p for p in full if p > player]
    return next((p for p in later if p in live), None)


def choose_first(ctx: Any, turn: int) -> tuple[int, str]:
    """O1: the first player of game turn ``turn`` (about to begin) and why, in words for the
    log; ``fixed`` gives no words (its logs stay as they always were). Rolls the roll-off's
    dice through ``ctx.dice``. Reads last game turn's order from ``state.first``."""
    how = turn_order(ctx.rs)
    live = playing(ctx)
    if not live:
        return ctx.state.first, ""
    if how == "fixed":
        return live[0], ""
    last = [p for p in order(ctx) if p in live]
    second = last[1] if len(last) > 1 else last[0]
    if how == "alternate":
        if turn == 1:
            return live[0], f"O1 alternate: player {live[0]} goes first in game turn 1"
        return second, f"O1 alternate: player {second} went second in game turn {turn - 1}"
    if how == "roll_off":
        return _roll_off(ctx, turn, last, second)
    if how == "behind_first":
        return _behind(ctx, turn, last)
    return live[0], ""


def _roll_off(ctx: Any, turn: int, last: list[int], second: int) -> tuple[int, str]:
    sides = int(ctx.rs.check_die)
    for _ in range(_MAX_REROLLS):
        rolls = {
            p: ctx.dice.roll(
                sides, f"roll-off for the first player of game turn {turn}: player {p}", rule=RuleId.O1
            ).kept
            for p in last
        }
        said = ", ".join(f"player {p} rolled {v}" for p, v in rolls.items())
        best = max(rolls.values())
        top = [p for p in last if rolls[p] == best]
        if len(top) == 1:
            return top[0], f"O1 roll-off: {said}"
        if turn > 1:
            winner = second if second in top else top[0]
            return (
                winner,
                f"O1 roll-off: {said}; a tie goes to player {winner}, who went second in game turn {turn - 1}",
            )
    return last[0], f"O1 roll-off: tied {_MAX_REROLLS} times; the order stays"


def _behind(ctx: Any, turn: int, last: list[int]) -> tuple[int, str]:
    st = ctx.state

    def standing(p: int) -> tuple[int, int]:
        w = ctx.scenario.warband_of_player(p)
        held = sum(1 for u in st.units_of(w.id) if u.carrying and u.on_table)
        return held, st.lost.get(w.id, 0)

    marks = {p: standing(p) for p in last}
    said = ", ".join(
        f"player {p} holds {h} token{'s' if h != 1 else ''} and has lost {n}" for p, (h, n) in marks.items()
    )
    # Behind: fewer tokens held, then more units lost; level players keep the order.
    key = {p: (marks[p][0], -marks[p][1]) for p in last}
    low = min(key.values())
    behind = [p for p in last if key[p] == low]
    if len(behind) == 1 and len(last) > 1:
        return behind[0], f"O1 behind first: player {behind[0]} is behind ({said})"
    return (
        last[0],
        f"O1 behind first: level ({said}); the order stays"
        if turn > 1
        else f"O1 behind first: level at the start; player {last[0]} goes first",
    )


def limit_refusal(ctx: Any, kind: str, args: dict) -> IllegalAction | None:
    """O3: ``kind`` is forbidden to the first player's units in game turn 1, or None."""
    st = ctx.state
    if st.turn != 1:
        return None
    for limit in first_turn_limits(ctx.rs):
        limited, words = FIRST_TURN_LIMITS.get(limit, (None, ""))
        if limited != kind:
            continue
        u = st.units.get(args.get("unit"))
        if u is not None and ctx.warband_player(u.warband) == st.first:
            return IllegalAction(
                RuleId.O3,
                f"player {st.first} goes first: its units may not {words} in game turn 1 (first_turn_limits: {limit})",
            )
    return None


def out_of_turn(ctx: Any, uid: str, owner: int) -> IllegalAction:
    """The refusal of a unit that is not the side to act's: whose turn or activation it is."""
    st = ctx.state
    if is_alternating(ctx.rs):
        return IllegalAction(
            RuleId.O2,
            f"{uid} belongs to player {owner}; it is player {st.player}'s activation "
            f"(the {st.phase} phase of game turn {st.turn})",
        )
    if turn_order(ctx.rs) != "fixed":
        return IllegalAction(
            RuleId.O1,
            f"{uid} belongs to player {owner}; it is player {st.player}'s turn "
            f"(player {st.first} went first in game turn {st.turn})",
        )
    return IllegalAction(RuleId.TURN, f"{uid} belongs to player {owner}; it is player {st.player}'s turn")


def activation_refusal(ctx: Any, uid: str) -> IllegalAction | None:
    """O2 under ``alternating``, in a phase of activations: ``uid`` is not the unit being
    activated, or its activation this phase is over; else None."""
    st = ctx.state
    if st.activation is not None and uid != st.activation:
        return IllegalAction(
            RuleId.O2,
            f"player {st.player} is activating {st.activation}: end its activation "
            f"(end_activation) before acting with {uid}",
        )
    if st.activation is None and uid in st.activated:
        return IllegalAction(RuleId.O2, f"{uid} has already been activated in this {st.phase} phase")
    return None


def whose(ctx: Any, activating: bool) -> str:
    """Who may act now, in words for a banner or a report: "player 2's activation
    (south-ogre)", "player 1's turn (player 2 first this game turn)"; "" under the seeds'
    order (``fixed``, ``whole_turn``), whose words stay as they were. ``activating``: the
    phase is one of activations (``Flow.activating``)."""
    st = ctx.state
    if is_alternating(ctx.rs):
        if not activating:
            return f"player {st.player}'s upkeep (player {st.first} first this game turn)"
        text = f"player {st.player}'s activation" + (f" ({st.activation})" if st.activation else "")
        if st.passed:
            text += "; passed: " + ", ".join(f"player {p}" for p in st.passed)
        return text
    if turn_order(ctx.rs) != "fixed":
        return f"player {st.player}'s turn (player {st.first} first this game turn)"
    return ""
