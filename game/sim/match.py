"""One simulated game: :class:`Job` in, the ``games.jsonl`` record out.

A :class:`Job` holds everything one game needs and nothing else, so it pickles to any
process or Dask worker: the variant's scenario as YAML text (its ruleset overrides and the
seats already baked in, see :mod:`game.sim.study`), the seed and the bots per seat. The
game is deterministic from it: the dice come from ``Dice(seed=job.seed)``, the bots' own
choices from a generator seeded from the seed too.

:func:`play_job` is the function the runners call. The bots (game/bots/) play through
:func:`_drive`; everything else (the record, the log) reads the game itself.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from game.bots import NAMES, make_bot, play_game
from game.engine.dice import Dice
from game.engine.errors import IllegalAction
from game.engine.events import Incapacitated, LeftTable, Measured, RoutChecked, Routed, TokenDropped, TokenTaken
from game.engine.game import ActionResult, Game
from game.engine.model import Scenario
from game.engine.rule_ids import RuleId
from game.engine.scenario import load_scenario
from game.engine.yamlsrc import dump_yaml
from game.sim.coverage import fired, refused
from game.sim.lines import game_lines

#: Bot names ``--bots`` accepts (FORMATS.md: ``utility`` by default, ``random`` at least;
#: the bundled personalities too).
BOTS = NAMES
DEFAULT_BOTS = ("utility", "utility")

#: A stuck game is our bug, not a long game: no game needs this many actions.
MAX_ACTIONS = 200_000


@dataclass(frozen=True)
class Job:
    """One game, picklable, deterministic."""

    variant: str  # the variant's label as given (``default`` without --variant)
    seed: int  # Dice(seed=seed); game k of a run uses seed S+k
    swapped: bool  # the seats are swapped (the second warband moves first)
    bots: tuple[str, str]  # the bot of seat 1 (player 1, moves first) and of seat 2
    turn_limit: int  # T1, also baked into the scenario's rules
    scenario: str  # the variant's scenario, YAML text (rules and seats baked in)
    scenario_file: str = "scenario.yaml"  # shown in messages; where --keep-logs wrote it
    variant_index: int = 0  # the variant's place on the command line (0 = the baseline)
    #: The rule ids this variant's ruleset changes against the baseline's (coverage).
    rules_changed: tuple[str, ...] = ()
    #: What the bots play under: turn limit, its tie-break, combat ... as (key, value) pairs.
    under: tuple[tuple[str, Any], ...] = ()
    #: The bot pairing as the study names it (seat 1, seat 2 before --swap); () = ``bots``.
    pairing: tuple[str, ...] = ()
    #: The pairing's place in the run (0 = the first), and the logs' sub-folder for it
    #: ("" when the run has one pairing).
    pairing_index: int = 0
    log_sub: str = ""
    #: The parameters this variant's ruleset changes: (name, (baseline value, its value)).
    params_changed: tuple[tuple[str, Any], ...] = ()

    @property
    def key(self) -> tuple:
        """(variant, seed, swapped, pairing): what a run plays once."""
        pairing = tuple(self.pairing) or (self.bots[::-1] if self.swapped else tuple(self.bots))
        return (self.variant, self.seed, self.swapped, pairing)

    @property
    def log_name(self) -> str:
        """The action script's file name under the variant's log folder."""
        return f"seed-{self.seed}{'-swapped' if self.swapped else ''}.yaml"


@lru_cache(maxsize=8)
def _scenario(text: str, name: str) -> Scenario:
    """Parsed once per process for all games of a variant (Game copies the state)."""
    return load_scenario(name, text=text)


def play_job(job: Job, log_dir: str | None = None) -> dict[str, Any]:
    """Play one game and return its ``games.jsonl`` record; with ``log_dir``, also write
    its action script there (``speedheim replay SCENARIO LOG`` replays it exactly)."""
    record, script = play(job, keep_log=log_dir is not None)
    if log_dir is not None:
        write_log(os.path.join(log_dir, job.log_sub, job.log_name), script)
    return record


def play(job: Job, keep_log: bool = False) -> tuple[dict[str, Any], str | None]:
    """The record, and the action script as YAML text when ``keep_log`` (runners write it
    in the main process, so a Dask worker needs no shared disk)."""
    t0 = time.perf_counter()
    scenario = _scenario(job.scenario, job.scenario_file)
    game = _Observed(scenario, dice=Dice(seed=job.seed), history=False)
    counts = _drive(game, job.bots)
    record = _record(job, game, counts, time.perf_counter() - t0)
    script = action_script(job.seed, game.log) if keep_log else None
    return record, script


def action_script(seed: int, log: list[ActionResult]) -> str:
    """Every applied action as it replays exactly (a move with its resolved path)."""
    return dump_yaml({"seed": seed, "actions": [e.replayable for e in log if e.ok]})


def write_log(path: str, text: str) -> None:
    """Write a game's log atomically (a crash leaves no empty or half log)."""
    from game.engine.files import atomic_write

    atomic_write(path, text)


# --- observing the game ---------------------------------------------------------------------


def unit_type(name: str) -> str:
    """A unit's type for the losses table: its name without a trailing number
    (``Cultist 2`` -> ``Cultist``)."""
    return re.sub(r"\s+\d+$", "", name).strip() or name


#: A game turn in which no token changed hands, no unit was lost and no rout check was
#: made is quiet; this many quiet game turns in a row make a stall (game.sim.gaps).
QUIET_EVENTS = (TokenTaken, TokenDropped, Incapacitated, RoutChecked, Routed, LeftTable)


class _Observed(Game):
    """A game that notes, after each accepted action, the units lost (by type), the turn of
    the first rout, the rules that fired (:func:`game.sim.coverage.fired`), the game turns
    in which something changed, and the refusals no rule covers. Losses are matched to
    units by the ``lost`` counters the rules keep, so the types always add up to ``lost``:
    Incapacitated units first, then units that left the table (a break-point result), in
    the scenario's order."""

    def __init__(self, *args, **kwargs):
        self.lost_types: dict[str, dict[str, int]] = {}
        self.rout_turn: int | None = None
        self.fired: Counter = Counter()
        self.busy_turns: set[int] = set()
        self.gaps: list[dict[str, Any]] = []
        self.measured: dict[str, set[float]] = {}
        self._seen_lost: dict[str, int] = {}
        self._standing: set[str] = set()
        super().__init__(*args, **kwargs)
        self.first_turn = self.state.turn  # a scenario may start at a later game turn
        self._entry(self.start)
        self._note()

    def apply(self, action):
        try:
            result = super().apply(action)
        except IllegalAction as why:
            self._refused(why.rule, why.reason)
            raise
        finally:
            self._note()
        self._entry(result)
        return result

    def try_apply(self, action):
        result = super().try_apply(action)
        self._note()
        if result.ok:
            self._entry(result)
        else:
            self._refused(result.rule, result.reason)
        return result

    def _refused(self, rule: str | None, reason: str | None) -> None:
        self.fired.update(refused(rule))
        if rule == RuleId.INTERNAL:
            self.gaps.append(
                {"turn": self.state.turn, "player": self.state.player, "phase": self.state.phase, "reason": reason}
            )

    def _turn_limit_reached(self) -> bool:
        limit = self.rs.get("turn_limit")
        return bool(limit) and not self.state.routed and self.state.turn >= int(limit) and self.outcome() is not None

    def _entry(self, entry: ActionResult) -> None:
        self.fired.update(fired(entry, self._turn_limit_reached()))
        for e in entry.events:
            if isinstance(e, Measured):
                self.measured.setdefault(e.parameter, set()).add(float(e.value))
        if any(isinstance(e, QUIET_EVENTS) for e in entry.events):
            self.busy_turns.add(self.state.turn)

    def _note(self) -> None:
        st = self.state
        if self.rout_turn is None and st.routed:
            self.rout_turn = st.turn
        standing = {uid for uid, u in st.units.items() if u.active}
        gone = self._standing - standing
        for wid, n in st.lost.items():
            new = n - self._seen_lost.get(wid, 0)
            if new <= 0:
                continue
            self.busy_turns.add(st.turn)
            mine = [st.units[uid] for uid in st.units if uid in gone and st.units[uid].warband == wid]
            mine.sort(key=lambda u: u.status != "incapacitated")
            types = self.lost_types.setdefault(wid, {})
            for u in mine[:new]:
                t = unit_type(u.name)
                types[t] = types.get(t, 0) + 1
            self._seen_lost[wid] = n
        self._standing = standing

    def end_kind(self, capped: bool) -> str:
        """``end`` (FORMATS.md): rout, turn_limit, eliminated, capped."""
        if capped:
            return "capped"
        if self.state.routed:
            return "rout"
        if self._turn_limit_reached():
            return "turn_limit"
        return "eliminated" if self.outcome() is not None else "unfinished"

    def quiet(self) -> dict[str, int]:
        """The longest run of game turns in which nothing changed: ``{"turns", "from"}``,
        counted from the game turn the game started at."""
        best, start, run = (0, 0), 0, 0
        for t in range(self.first_turn, self.state.turn + 1):
            if t in self.busy_turns:
                run = 0
                continue
            if run == 0:
                start = t
            run += 1
            if run > best[0]:
                best = (run, start)
        return {"turns": best[0], "from": best[1]}


def _record(job: Job, game: _Observed, counts: dict[str, int], seconds: float) -> dict[str, Any]:
    st = game.state
    game.ctx.sync_tokens()
    sides = [w.id for w in sorted((w for w in game.scenario.warbands if w.player > 0), key=lambda w: w.player)]
    outcome = game.outcome()
    held = {w: 0 for w in sides}
    for tok in st.treasure.values():
        holder = st.units.get(tok.carried_by) if tok.carried_by else None
        if holder is not None and holder.warband in held:
            held[holder.warband] += 1
    line, opening = game_lines(1, game.log)
    record: dict[str, Any] = {
        "variant": job.variant,
        "seed": job.seed,
        "swapped": job.swapped,
        "bots": list(job.bots),
        "winner": outcome.winner if outcome else None,
        "draw": outcome is None or outcome.winner is None,
        "turns": st.turn,
        "lost": {w: st.lost.get(w, 0) for w in sides},
        "treasure": held,
        "rout_turn": game.rout_turn,
        "illegal": int(counts.get("illegal", 0)),
        "actions": sum(1 for e in game.log if e.ok),
        "seconds": round(seconds, 4),
        "end": game.end_kind(bool(counts.get("capped"))),
        "line": line,
        "decided_by": decided_by(outcome.winner if outcome else None, game.end_kind(bool(counts.get("capped")))),
        "rules_fired": dict(sorted(game.fired.items())),
        "seats": sides,
        # extra keys (FORMATS.md allows them)
        "variant_index": job.variant_index,
        "pairing": list(job.pairing or (job.bots[::-1] if job.swapped else job.bots)),
        "pairing_index": job.pairing_index,  # the pairing's place in the study (--bots order)
        "variant_rules": list(job.rules_changed),
        "scenario_file": os.path.join("scenarios", os.path.basename(job.scenario_file)),  # under the run's folder
        "under": dict(job.under),
        "routed": list(st.routed),
        "lost_types": {w: dict(sorted(game.lost_types.get(w, {}).items())) for w in sides},
        "quiet": game.quiet(),
        "gaps": game.gaps,
        "opening": opening,
        "measured": {k: sorted(v) for k, v in sorted(game.measured.items())},
        "params_changed": {k: None if v is None else list(v) for k, v in job.params_changed},
    }
    for key, value in counts.items():
        record.setdefault(key, value)
    return record


def decided_by(winner: str | None, end: str) -> str | None:
    """How a won game was decided (FORMATS.md ``decided_by``): ``rout``, ``eliminated`` or
    ``turn_limit`` (won on T1's tie-break); None for a draw."""
    return end if winner else None


# --- the bots play -----------------------------------------------------------------------------


def _drive(game: Game, bots: tuple[str, str]) -> dict[str, int]:
    """Play ``game`` to its end with the bots of issue 11: ``bots[0]`` decides for seat 1
    (player 1, who moves first), ``bots[1]`` for seat 2; the Neutrals (``neutral_act:
    bot``) get the driver's own. Every action goes through ``game.apply`` (the log, the
    losses and the action script are read from the game); the bots draw their choices from
    generators seeded from the game's seed, so a game is deterministic from its job. The
    game keeps no undo history: the bots look ahead on scratch copies, never by apply and
    undo. ``illegal`` counts bot actions the engine refused (0 for a correct bot)."""
    played = play_game(
        game.scenario, {1: make_bot(bots[0]), 2: make_bot(bots[1])}, game=game, max_decisions=MAX_ACTIONS
    )
    return {"illegal": played.refused, "decisions": played.decisions, "capped": bool(played.capped)}
