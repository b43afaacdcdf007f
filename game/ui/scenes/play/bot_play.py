"""Bots at the table (issue 11): a side (or both, for a demo) played by a bot, visibly.

``speedheim play --bot 2`` or the side panel's switches hand a side to a bot; the
Neutrals are played by a bot when the ruleset says so (U1 ``neutral_act: bot``, as bot
games do). Whenever the game waits for a bot's side, the bot thinks off the frame: a
copy of the game is taken on the window's thread (``ask.bot_snapshot``) and a worker
thread asks the bot on it, with a movement engine of the worker's own; the window goes
on drawing. Its decision is checked and applied to the real game on the window's
thread (``PlayScene.act``), its reason goes into the log, and a move or an Engage is
animated along the path it took at a readable speed (``.`` speeds it up, ``S`` skips,
``P`` pauses the bot; the player may act for a paused side, take a side back, and undo a
bot's action, which pauses the bot; undoing one's own leaves it playing). Nothing here
changes the game but through ``act``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from game.engine.errors import IllegalAction, LoadError
from game.engine.rule_ids import RuleId
from game.ui.scenes import ask
from game.ui.scenes.play.drag import path_length
from game.ui.scenes.play.planner import PlanWorker
from game.ui.scenes.play.table import Table


SPEEDS = (1, 2, 4, 8)
INCHES_PER_S = 6.0  # a move is animated at 6" a second at 1x
BEAT_S = 0.7  # the pause after each bot action at 1x, so each can be followed


@dataclass
class Animation:
    """A bot's action being shown: a unit walking its path, then a beat; an attack's aim line."""

    uid: str | None
    path: list[tuple[float, float]] = field(default_factory=list)
    walked: float = 0.0
    beat: float = BEAT_S
    aim: tuple[str, str] | None = None  # (unit, target) of a shot or an attack

    @property
    def length(self) -> float:
        return path_length(self.path)

    @property
    def moving(self) -> bool:
        return self.uid is not None and len(self.path) > 1 and self.walked < self.length

    def position(self) -> tuple[float, float]:
        """Where the walking unit is drawn now."""
        left = self.walked
        for a, b in zip(self.path, self.path[1:]):
            seg = math.hypot(b[0] - a[0], b[1] - a[1])
            if left <= seg and seg > 0:
                t = left / seg
                return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            left -= seg
        return self.path[-1]

    def advance(self, dt: float, speed: float) -> bool:
        """Move on by ``dt`` seconds; True when it is over."""
        if self.moving:
            self.walked = min(self.length, self.walked + INCHES_PER_S * speed * dt)
            return False
        self.beat -= dt * speed
        return self.beat <= 0


class BotPlayer:
    def __init__(self, scene: Table):
        self.scene = scene
        self.seats: dict[int, str] = {}  # player -> bot name
        self.chosen = "utility"  # the bot the players named (--bot-name): a seat handed over, the hint
        self.bots: dict[int, Any] = {}
        self.paused = False
        self.speed = 1
        self.anim: Animation | None = None
        self.worker = PlanWorker(self._work, name="speedheim-bot")
        self._mover: tuple[Any, Any] = (None, None)  # (scenario, the worker's movement engine)
        self._asked: tuple | None = None
        self._mover_asked = False

    def reset(self) -> None:
        """A new game on the table: no thought or animation of the old one is kept."""
        self.anim = None
        self._asked = None

    def stop(self) -> None:
        self.worker.stop()

    # --- who plays what ---------------------------------------------------------------------
    def set_seat(self, player: int, name: str | None) -> None:
        """Hand ``player`` to the bot ``name`` (``utility``, ``random``, a personality), or
        back to the player with None. A bad name raises LoadError."""
        if name is None:
            self.seats.pop(player, None)
            self.bots.pop(player, None)
        else:
            self.bots[player] = ask.make_bot(name)
            self.seats[player] = name
        self._asked = None

    def announce(self) -> None:
        """Say in the log what a bot game plays with (its rules and who the bots play)."""
        scene = self.scene
        game = scene.game
        rs = game.scenario.ruleset
        sides = " and ".join(f"player {p} ({n})" for p, n in sorted(self.seats.items()))
        rules = [f"{ask.combat_mode(game)} combat"]
        if rs.turn_limit is not None:
            rules.append(f"turn limit {rs.turn_limit} (T1, {rs.turn_limit_winner})")
        if ask.neutrals_by_bot(game):
            rules.append("the Neutrals played by a bot (U1)")
        scene.note(
            f"bot game: the bot plays {sides}; "
            + ", ".join(rules)
            + ". P pauses the bot, . speeds it up, S skips its animation, Ctrl+1 / Ctrl+2 hand a side over "
            "or take it back",
            "bot",
        )

    def toggle(self, player: int) -> None:
        """The side panel's switch: the bot takes ``player`` over (the one the players
        named with ``--bot-name``, else ``utility``), or hands it back."""
        scene = self.scene
        if player in self.seats:
            self.set_seat(player, None)
            scene.note(f"player {player} is yours again", "info")
            return
        name = self.chosen
        self.set_seat(player, name)
        self.paused = False
        scene.note(f"player {player} is played by the bot ({name}): P pauses it, Ctrl+{player} takes it back", "info")
        if ask.combat_mode(scene.game) != "placeholder":
            scene.note(
                "combat is manual in this game, so the bot cannot Shoot or Attack; "
                "start with speedheim play --bot N for placeholder combat",
                "refusal",
            )

    def controls(self, player: int) -> bool:
        """A bot plays ``player``'s decisions (0: the Neutrals, when the ruleset says so)."""
        return player in self.seats or (player == 0 and ask.neutrals_by_bot(self.scene.game))

    def bot_for(self, player: int):
        if player not in self.bots and player == 0:
            self.bots[0] = ask.neutrals_bot()
        return self.bots[player]

    def in_charge(self) -> bool:
        """The game waits for a bot's side now (and the bot is not paused)."""
        game = self.scene.game
        return not self.paused and ask.outcome(game) is None and self.controls(ask.turn_player(game))

    @property
    def thinking(self) -> bool:
        return self.in_charge() and self.anim is None and self._asked is not None

    def blocks(self, by_bot: bool) -> IllegalAction | None:
        """Why the player may not act now: the bot plays this side (pause it first)."""
        if by_bot or not self.in_charge():
            return None
        p = ask.turn_player(self.scene.game)
        who = "the Neutrals are" if p == 0 else f"player {p} is"
        return IllegalAction(RuleId.BOT, f"{who} played by the bot: pause it (P) or take the side back first")

    # --- controls -------------------------------------------------------------------------
    def pause(self, on: bool | None = None) -> None:
        self.paused = (not self.paused) if on is None else on
        self._asked = None
        self.scene.note("bot paused: you may act for its side; P resumes" if self.paused else "bot resumed", log=False)

    def faster(self) -> None:
        self.speed = SPEEDS[(SPEEDS.index(self.speed) + 1) % len(SPEEDS)]
        self.scene.note(f"bot speed {self.speed}x", log=False)

    def skip(self) -> None:
        """Show the end of the bot's action now."""
        if self.anim is not None:
            self.anim = None

    def undone(self) -> None:
        """The player undid an action (the game is back before it). A bot's action: the bot
        pauses, so it does not play it again at once. The player's own: the bot goes on as
        it was (it plays when its side's turn comes)."""
        self.anim = None
        self._asked = None
        if self.controls(ask.turn_player(self.scene.game)):
            self.paused = True

    # --- each frame -----------------------------------------------------------------------
    def update(self, dt: float) -> None:
        scene, app = self.scene, self.scene.app
        if self.anim is not None and self.anim.advance(dt, self.speed):
            self.anim = None
        got = self.worker.take()
        if got is not None:
            self._took(*got)
        if self.anim is not None or not self.in_charge() or app.modal is not None or app.top is not scene:
            return
        game = scene.game
        if self._mover[0] is not game.scenario:
            if not self._mover_asked:
                self._mover_asked = True
                self.worker.submit(("mover",), ("mover", game))
            return
        player = ask.turn_player(game)
        key = (scene.version, player)
        if key != self._asked:
            self._asked = key
            with scene.engine.lock:
                copy = ask.bot_snapshot(game, self._mover[1])
            self.worker.submit(key, ("think", self.bot_for(player), copy, player))

    def _work(self, job: tuple):
        """In the worker: build the worker's movement engine, or ask the bot on a copy."""
        if job[0] == "mover":
            game = job[1]
            return (game.scenario, ask.bot_mover(game))
        _kind, bot, copy, player = job
        t0 = time.perf_counter()
        decision = ask.bot_think(bot, copy, player)
        return decision, time.perf_counter() - t0

    def _took(self, key: tuple, answer: Any) -> None:
        scene = self.scene
        if isinstance(answer, Exception):
            self.paused = True
            scene.app.report_error(answer, "the bot's thinking")
            return
        if key == ("mover",):
            self._mover, self._mover_asked = answer, False
            return
        decision, seconds = answer
        player = key[1]
        if key != (scene.version, ask.turn_player(scene.game)) or not self.in_charge():
            return  # the game changed meanwhile (an undo, a pause): think again
        self.play(player, decision, seconds)

    def play(self, player: int, decision: Any, seconds: float = 0.0) -> bool:
        """Apply a bot's decision to the real game (``act`` runs the engine's checks: a
        refused one pauses the bot), log its reason, and animate it."""
        scene = self.scene
        game = scene.game
        action = decision.action
        who = "Neutrals" if player == 0 else f"P{player}"
        name = self.seats.get(player, "utility")
        uid = decision.unit
        start = None
        if uid and uid in game.state.units:
            u = game.state.units[uid]
            start = (u.x, u.y)
        scene.note(f"bot {who} ({name}, {seconds * 1000:.0f} ms): {decision.reason}", "bot")
        if not scene.act(action, by_bot=True):  # a bot's bug: the refusal is shown; stop
            self.paused = True
            scene.note(f"bot {who} paused: its action was refused", "refusal")
            return False
        result = game.log[-1]
        path = ask.path_taken(result) if uid else None
        kind = next(iter(action))
        if path and start is not None and len(path) > 1:
            self.anim = Animation(uid, [start, *path[1:]])
        else:
            target = action[kind].get("target") if isinstance(action[kind], dict) else None
            self.anim = Animation(None, aim=(uid, target) if kind in ask.ATTACK_KINDS and uid and target else None)
        return True

    # --- what the window shows --------------------------------------------------------------
    def status(self) -> str:
        """The banner's pill for the bots: who they play, and moving, thinking or paused."""
        scene = self.scene
        if not self.seats and not ask.neutrals_by_bot(scene.game):
            return ""
        sides = "+".join(f"P{p}" for p in sorted(self.seats)) or "Neutrals"
        if self.paused:
            return f"bot {sides}: paused"
        if self.in_charge():
            doing = (
                "moving"
                if self.anim is not None
                else ("waiting for the dialog" if scene.app.modal is not None else "thinking")
            )
            return f"bot {sides}: {doing} {self.speed}x"
        return f"bot {sides}"


def bot_names_ok(name: str) -> str | None:
    """Why ``name`` is not a bot (for the command line), or None."""
    try:
        ask.make_bot(name)
    except (LoadError, OSError, ValueError, KeyError) as exc:
        return str(exc)
    return None
