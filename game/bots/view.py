"""What one player sees of a game: the only thing a bot is given.

``view(game, player)`` wraps a game for the side ``player`` plays (0: the Neutrals). The
bot reads a *copy* of the state in which every Event token that has not been revealed
has its ``event`` masked (:data:`HIDDEN`): what hides under a token (U7) is hidden from
both players in play, and so from the bot. The game itself is not handed out: the view
asks it the questions every player may ask (``why_illegal``, ``legal_actions``, ``odds``,
reachable areas, line of sight) and nothing else. ``what_if()`` lends a scratch copy of
the (masked) state to ask those questions of a hypothetical position: nothing is
applied, no die is rolled, and the game's own state is back in place afterwards.
A view of a planner's sandbox (:meth:`View.sandbox`, masked when it was made) reads the
sandbox's state itself, not a copy: a rollout makes a view for every decision.

A view is not thread-safe (the game it wraps is not): to think off the window's thread,
give the bot a view of a copy of the game (:func:`game.bots.driver.snapshot`).
"""

from __future__ import annotations

import random
import weakref
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from game.engine.dice import Dice
from game.engine.errors import IllegalAction, as_value
from game.engine.game import Game, Legal
from game.engine.model import GameState, shallow_copy
from game.engine.movement.route import ladder_tops, route

#: What a bot reads in ``event`` of a token that has not been revealed.
HIDDEN = "hidden"
#: The games made by :meth:`View.sandbox` (while they live).
_SANDBOXES: "weakref.WeakSet[Game]" = weakref.WeakSet()


def masked_state(state: GameState, units: Iterable[str] | None = None) -> GameState:
    """A copy of ``state`` with the ``event`` of every unrevealed token masked; with
    ``units``, a lighter copy that holds only those units (and every token)."""
    if units is None:
        st = state.copy()
    else:
        st = object.__new__(GameState)
        st.__dict__.update(state.__dict__)
        st.units = {uid: shallow_copy(state.units[uid]) for uid in units if uid in state.units}
        for u in st.units.values():
            u.engaged_with = list(u.engaged_with)
        st.treasure = {tid: shallow_copy(t) for tid, t in state.treasure.items()}
        st.lost, st.routed, st.progress = dict(state.lost), list(state.routed), shallow_copy(state.progress)
    for tok in st.treasure.values():
        if not tok.revealed:
            tok.event = HIDDEN
    return st


class View:
    """One player's view of a game (see the module's docstring)."""

    __slots__ = ("_game", "player", "state", "_sight_missing")

    def __init__(self, game: Game, player: int):
        self._game = game
        self.player = player
        #: The state the bot reads: a masked copy, which it may change freely; on a
        #: sandbox (:meth:`sandbox`, a planner's rollout), the sandbox's own state, masked
        #: already and played on by nobody else, which a bot changes only through
        #: :meth:`what_if` (no copy is made for each decision of a rollout).
        self.state = game.state if game in _SANDBOXES else masked_state(game.state)
        self._sight_missing = False

    # --- the table (static) --------------------------------------------------------------
    @property
    def rules(self):
        return self._game.rs

    @property
    def board(self):
        return self._game.board

    @property
    def warbands(self):
        return self._game.scenario.warbands

    @property
    def ladders(self):
        return self._game.scenario.ladders

    @property
    def terrain(self):
        return self._game.scenario.terrain

    @property
    def neutral_id(self) -> str:
        return self._game.neutral_id

    @property
    def seed(self) -> int:
        seed = self._game.dice.seed
        return int(seed) if seed is not None else 0

    def unit_order(self, uid: str) -> int:
        return self._game.ctx.order_of(uid)

    def warband_player(self, wid: str) -> int:
        return self._game.warband_player(wid)

    def my_warband(self) -> str | None:
        """The warband this view plays (the Neutrals for player 0)."""
        if self.player == 0:
            return self.neutral_id
        w = self._game.scenario.warband_of_player(self.player)
        return w.id if w is not None else None

    def current_warband(self):
        """The warband of the player whose turn it is (``state.player``)."""
        return self._game.current_warband()

    def is_enemy(self, a, b) -> bool:
        """Do units ``a`` and ``b`` oppose each other (different warbands)?"""
        return a.warband != b.warband

    # --- where the game stands ---------------------------------------------------------------
    @property
    def pending(self):
        return self._game.pending

    @property
    def log(self) -> tuple:
        """The game log (accepted actions and what they set off: revealed events only)."""
        return tuple(self._game.log)

    def turn_player(self) -> int:
        return self._game.turn_player()

    def is_over(self) -> bool:
        return self._game.is_over()

    def outcome(self):
        return self._game.outcome()

    def rng(self, salt: str = "") -> random.Random:
        """A generator of the bot's own, seeded from the game's seed, the side and the
        point of the game: the same game gives the same choices, and the game's dice are
        never touched."""
        return random.Random(f"{self.seed}:{self.player}:{len(self._game.log)}:{salt}")

    # --- questions every player may ask --------------------------------------------------------
    def legal_action_kinds(self) -> list[str]:
        return self._game.legal_action_kinds()

    def why_illegal(self, action: dict[str, Any]) -> IllegalAction | None:
        return self._game.why_illegal(action)

    def legal_actions(self, uid: str) -> Legal:
        return self._game.legal_actions(uid)

    def odds(self, action: dict[str, Any]):
        """The exact odds of a combat action (``Game.odds``), or None when it has none or
        is refused now."""
        try:
            return self._game.odds(action)
        except Exception:  # refused (IllegalAction), or a tool not there yet (sight)
            return None

    def reachable(self, uid: str, descend: str = "climb"):
        """Where ``uid`` may end a move now (``Mover.reachable``), or None if it may not move.
        The quicker area (``exact=False``): a bot samples it and plans every point it picks."""
        try:
            return self._game.mover.reachable(self._game.state, uid, descend, exact=False)
        except IllegalAction:
            return None

    def plan_move(self, uid: str, to: tuple[float, float], run: bool = False):
        """The movement engine's plan of a move to ``to`` (path, cost, checks), or the refusal."""
        try:
            return self._game.mover.plan(self._game.state, uid, to=to, run=run)
        except IllegalAction as why:
            return as_value(why)

    @property
    def thinking(self) -> bool:
        """Is this the view of a sandbox (:meth:`sandbox`: a planner playing forward on a
        copy)? A bot may then keep to the answers it already has where a new one is dear
        (a route's search)."""
        return self._game in _SANDBOXES

    def route(
        self,
        uid: str,
        to: tuple[float, float],
        checks: bool = True,
        units: Iterable[str] | None = None,
        within: float | None = None,
        longest_move: float | None = None,
        at: tuple[float, float] | None = None,
    ):
        """The movement engine's cheapest path to ``to`` over any number of moves
        (:func:`game.engine.movement.route.route`: ladders, climbs, jumps down, round walls; no allowance), or the
        refusal. ``units``: only these bases are on the table for the question (a route for
        later turns need not wait for the bases that will have moved by then); ``within``:
        only a route of at most that many inches; ``longest_move``: only one whose every
        change of level a move of that many inches takes whole; ``at``: as if the unit
        stood there (with ``units``)."""
        game = self._game
        kw = {"checks": checks, "within": within, "longest_move": longest_move}
        try:
            if units is None:
                return route(game.mover, game.state, uid, to, **kw)
            with self.what_if(units) as st:
                if at is not None:
                    st.units[uid].x, st.units[uid].y = float(at[0]), float(at[1])
                return route(game.mover, st, uid, to, **kw)
        except IllegalAction as why:
            return as_value(why)

    def ladder_tops(self, uid: str, longest_move: float | None = None) -> list[tuple[float, float]]:
        """A spot atop each ladder the unit's move climbs whole
        (:func:`game.engine.movement.route.ladder_tops`)."""
        return ladder_tops(self._game.mover, self.state.units[uid], longest_move)

    def failure_falls(self, t) -> bool:
        """Does a failed check of transition ``t`` make the unit Fall (the engine's answer)?"""
        return self._game.mover.failure_falls(t)

    def run_denial(self, uid: str) -> IllegalAction | None:
        return self._game.mover.run_denial(self._game.state, uid)

    def sight(self, a: str, b: str, state: GameState | None = None):
        """Line of sight and cover from ``a`` to ``b`` (L1, L2), or None while the sight
        tool is missing (then a bot assumes a clear line, the careful guess)."""
        if self._sight_missing:
            return None
        try:
            return self._game.sight.between(state if state is not None else self._game.state, a, b)
        except ImportError:
            self._sight_missing = True
            return None
        except Exception:
            return None

    def sandbox(self, seed: int, mover: Any = None) -> Game:
        """A copy of the game to play forward on (a planner's rollouts): its own state, in
        which every unrevealed token's event is masked as ``none`` (what lies under it is
        hidden from the player), its own dice seeded by ``seed`` (never the game's own
        sequence: a bot does not see the rolls to come) and no undo history. Applying
        actions to it touches nothing of this game."""
        game = self._game.clone(mover=mover)
        game.dice = Dice(seed=seed)
        game.history = False
        _SANDBOXES.add(game)
        for tok in game.state.treasure.values():
            if not tok.revealed:
                tok.event = "none"
        return game

    @contextmanager
    def what_if(self, units: Iterable[str] | None = None) -> Iterator[GameState]:
        """A scratch copy of the masked state, put in the game's place while the block
        runs: change it (move a unit, set a status, the phase) and ask ``odds`` /
        ``why_illegal`` / ``sight`` about it. Nothing is applied, no die is rolled, and
        the game's state is back when the block ends. ``units``: only these units are in
        the copy (quicker, for questions about them alone, such as an attack's odds)."""
        game = self._game
        real = game.state
        scratch = masked_state(real, units)
        game.state = scratch
        try:
            yield scratch
        finally:
            game.state = real


def view(game: Game, player: int | None = None) -> View:
    """The view of ``game`` for ``player`` (default: whoever must decide now)."""
    return View(game, game.turn_player() if player is None else player)


def acted_now(view) -> set[str]:
    """Units that took an action in the current phase (and step) of this turn, from the log."""
    st = view.state
    out: set[str] = set()
    for entry in reversed(view.log):
        if (entry.turn, entry.player, entry.phase, entry.step) != (st.turn, st.player, st.phase, st.step):
            break
        body = next(iter(entry.action.values())) if isinstance(entry.action, dict) and entry.action else None
        if isinstance(body, dict) and body.get("unit"):
            out.add(body["unit"])
    return out
