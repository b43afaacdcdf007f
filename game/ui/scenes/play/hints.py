"""The hint (issue 21): ``I`` shows the side to act's three best next actions, as a bot
sees them (``speedheim advise``), as numbered arrows on the table with their reasons.

"What would a good player do here?": the advice of the bot that plays the side to act
(its seat's bot; on a player's own side the bot the table plays against; else
``utility``) is worked out off the frame by a worker thread, on a
copy of the game with a movement engine of the worker's own (as the bots think), once
per state version and side; the table keeps drawing meanwhile ("thinking..."). A move
or Run is drawn along its path, an Engage, a shot or an attack as an arrow to its
target, a pick-up to the token; an action without a place (a reload, ending the phase)
is listed only. A failure is shown in the list (and reported), never raised. Nothing
here changes the game: the player plays an option, or not, as any other action.

``Shift+I`` shortens the list to one line an option (what it does, its value, without
what the bot weighed), for when the reasons hide the table: a smaller box finds a clear
place more often. ``Shift+I`` again gives the reasons back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

import pygame

from game.ui.scenes import ask
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.planner import LatestAnswer
from game.ui.scenes.play.table import Table
from game.ui.sight_layer import clear_place
from game.ui.widgets.overlays import label, label_size


TOP = 3
#: Arrow colours of the first, second and third option.
COLOURS = ((230, 160, 20), (70, 130, 220), (150, 90, 200))
INK = (20, 20, 20)
PANEL_BG = (255, 250, 230)
#: Table inches round an arrow's head or number label that the list keeps clear of.
ARROW_MARK = 0.5
#: An arrow's head or label hidden counts as this many bases hidden (the list is the
#: arrows' key: it should not hide them).
ARROW_WEIGHT = 3
#: Where along its first leg each option's number sits (options 1, 2, 3): apart, so that
#: two arrows leaving the same unit the same way show both numbers.
LABEL_AT = (0.5, 0.3, 0.7)
#: The longest line of the short list (``Shift+I``), in characters.
BRIEF_CHARS = 90


def brief(reason: str) -> str:
    """What an option does, without what the bot weighed: its reason up to the first
    ``;`` (the bots' reasons say the action first), at most :data:`BRIEF_CHARS` long,
    cut after a whole clause (else a whole word) when longer."""
    head = reason.split(";", 1)[0].strip()
    if len(head) <= BRIEF_CHARS:
        return head
    cut = head[: BRIEF_CHARS - 3]
    at = cut.rfind(", ")
    if at < len(cut) // 2:
        at = cut.rfind(" ")
    return (cut[:at] if at > 0 else cut).rstrip(" ,:") + "..."


def _along(a, b, t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def lead_into(first, best, phase: str):
    """The first option when it only ends the phase or step: it ends it, then plays the
    best action of the advice for what follows (``best``, a "then: " option), whose value
    and reason it takes, so that every value listed comes from one search (the one after
    the phase ends; a bot's own "then" in ``first`` came from another, with other dice).
    Its arrow is that action's (``extra["then"]``)."""
    kind = next(iter(first.action), "")
    lead = f"ends the {phase} phase" if kind == "end_phase" else "ends this step"
    rest = best.reason[len("then: ") :] if best.reason.startswith("then: ") else best.reason
    return replace(first, reason=f"{lead}, then {rest}", score=best.score, extra={**first.extra, "then": best.action})


@dataclass(frozen=True)
class HintFailure:
    """The advice failed (a bot's bug, a bad bot name): what to show instead of arrows."""

    text: str


class HintTool:
    def __init__(self, scene: Table, bot: BotPlayer):
        self.scene = scene
        self.bot = bot
        self.on = False
        self.short = False  # the short list (Shift+I): one line an option, no reasons
        self.answer = LatestAnswer(self._compute, "speedheim-hint", "working out the hint")
        self._mover: tuple[Any, Any] = (None, None)  # (scenario, the worker's movement engine)
        self.error: str | None = None

    def toggle(self) -> bool:
        self.on = not self.on
        return self.on

    def toggle_brief(self) -> bool:
        """The short list or the reasons (turning the hint on when it is off, short);
        returns whether the list is short now."""
        self.short = not self.short if self.on else True
        self.on = True
        return self.short

    def reset(self) -> None:
        self.answer.reset()
        self.error = None

    def stop(self) -> None:
        self.answer.stop()

    # --- the answer, off the frame ----------------------------------------------------------
    def bot_name(self) -> str:
        """The bot that plays the side to act; for a player's own side, the bot the table
        plays against (the one the players chose, ``--bot-name``); with no bot at the
        table, the one ``--bot-name`` named (``BotPlayer.chosen``: ``utility`` unless named)."""
        bot = self.bot
        seats = bot.seats
        player = ask.turn_player(self.scene.game)
        return seats.get(player) or next((seats[p] for p in sorted(seats)), bot.chosen)

    def key(self) -> tuple | None:
        if not self.on or ask.outcome(self.scene.game) is not None:
            return None
        return (self.scene.version, ask.turn_player(self.scene.game), self.bot_name())

    def _job(self) -> tuple:
        scene = self.scene
        with scene.engine.lock:  # the copy is taken on the window's thread
            copy = ask.bot_snapshot(scene.game, None)
        return (self.bot_name(), copy)

    def update(self) -> None:
        self.answer.update(self.scene.app, self.key(), self._job)

    def flush(self) -> None:
        """Wait for the worker and take its answer (tests)."""
        self.answer.flush(self.scene.app, self.key(), self._job)

    def _compute(self, job: tuple) -> list | HintFailure:
        """In the worker: the advice on the copy, with the worker's own movement engine.
        When the one option is ending the phase, the advice for the rest of the turn
        follows it ("then: ..."). A failure is the answer (shown in the list), not an
        exception."""
        name, copy = job
        try:
            if self._mover[0] is not copy.scenario:
                self._mover = (copy.scenario, ask.bot_mover(copy))
            copy = copy.clone(mover=self._mover[1])
            options = ask.advise(copy, name, TOP, self._mover[1])
            if len(options) == 1 and options[0].unit is None and copy.pending is None:
                # Only ending the phase (an Engage phase with nothing to engage): what
                # follows in the same turn, as numbered "then" arrows.
                after = ask.advise_after(copy, options[0].action, name, TOP, self._mover[1])
                if after:
                    options = [lead_into(options[0], after[0], copy.state.phase)] + after[1:]
            return options
        except Exception as exc:  # noqa: BLE001 - shown, never raised in the window
            return HintFailure(f"{type(exc).__name__}: {exc}")

    def current(self) -> list | HintFailure | None:
        return self.answer.current(self.key())

    # --- drawing ---------------------------------------------------------------------------
    def targets(self, decision) -> list[tuple[float, float]]:
        """The table points of an option's arrow: from the acting unit along its path or
        to its target; for ending the phase, the arrow of the action its reason says
        follows (``extra["then"]``); [] for an action without a place."""
        then = decision.extra.get("then") if decision.unit is None else None
        if then is not None:
            return self._points(then, None)
        return self._points(decision.action, decision.unit)

    def _points(self, action: dict, unit: str | None) -> list[tuple[float, float]]:
        st = self.scene.state
        kind = next(iter(action))
        body = action[kind] if isinstance(action[kind], dict) else {}
        u = st.units.get(body.get("unit") or unit or "")
        if u is None:
            return []
        start = (u.x, u.y)
        if body.get("path"):
            return [start] + [tuple(p[:2]) for p in body["path"][1:]]
        if body.get("to"):
            return [start, tuple(body["to"][:2])]
        other = st.units.get(body.get("target", "")) if body.get("target") else None
        if other is None and body.get("token"):
            other = st.treasure.get(body["token"])
        if other is None:
            return []
        d = math.hypot(other.x - u.x, other.y - u.y)
        k = max(0.0, d - other.r) / d if d > 0 else 0.0  # to the edge of its base, its label stays readable
        return [start, (u.x + (other.x - u.x) * k, u.y + (other.y - u.y) * k)]

    def draw(self, surface: pygame.Surface) -> None:
        if not self.on:
            return
        scene = self.scene
        view, cam = scene.view_rect, scene.camera
        answer = self.current()
        name = self.bot_name()
        arrows: list[tuple[float, float]] = []  # arrow heads and number labels: the list keeps off them
        if answer is None:
            lines = [f"HINT ({name}): thinking..." if self.key() is not None else "HINT: the game is over"]
        elif isinstance(answer, HintFailure):
            lines = [f"HINT ({name}) failed: {answer.text}"]
        elif not answer:
            lines = [f"HINT ({name}): nothing to advise"]
        else:
            lines = [
                f"HINT ({name}), best first (I to hide, Shift+I: "
                + ("with reasons):" if self.short else "short list):")
            ]
            numbers = []  # drawn over every arrow, so that no arrow hides another's number
            for i, d in reversed(list(enumerate(answer))):
                pts = self.targets(d)
                at = _along(pts[0], pts[1], LABEL_AT[i % len(LABEL_AT)]) if len(pts) > 1 else None  # its number
                numbers.append(self._arrow(surface, cam, pts, COLOURS[i % len(COLOURS)], i + 1, at))
                arrows += pts[-1:] + ([at] if at is not None else [])
            for number in numbers:
                if number is not None:
                    label(surface, *number)
            lines += [
                f"{i + 1}. {brief(d.reason) if self.short else d.reason}  [value {d.score:.2f}]"
                for i, d in enumerate(answer)
            ]
        self._panel(surface, view, lines, arrows)

    def _arrow(self, surface, cam, pts, colour, n: int, at):
        """Draw the arrow; returns the ``label`` arguments of its number ``n`` at table
        point ``at`` (or None)."""
        if len(pts) < 2:
            return None
        px = cam.points_px(pts)
        pygame.draw.lines(surface, INK, False, px, 7)
        pygame.draw.lines(surface, colour, False, px, 4)
        (x0, y0), (x1, y1) = px[-2], px[-1]
        ang = math.atan2(y1 - y0, x1 - x0)
        size = 16
        head = [
            (x1, y1),
            (x1 - size * math.cos(ang - 0.45), y1 - size * math.sin(ang - 0.45)),
            (x1 - size * math.cos(ang + 0.45), y1 - size * math.sin(ang + 0.45)),
        ]
        pygame.draw.polygon(surface, colour, head)
        pygame.draw.polygon(surface, INK, head, 2)
        return (str(n), cam.to_px(*at), INK, 15, colour)

    def _panel(self, surface, view: pygame.Rect, lines: list[str], arrows=()) -> None:
        """The list of options, one boxed line each, wrapped, where it hides the fewest
        bases and ``arrows`` points (the arrows' heads and number labels; with
        :func:`~game.ui.sight_layer.clear_place`: beside the table when there is room,
        else a corner or along an edge of the table)."""
        width = min(620, view.width - 40)
        # each box as label() draws it (sized apart, one for four lines ran under the next)
        boxes = [(line, *label_size(line, 14, width)) for line in lines]
        total = sum(h + 4 for _l, _w, h in boxes)
        scene = self.scene
        marks = [SimpleNamespace(x=x, y=y, r=ARROW_MARK, on_table=True) for x, y in arrows] * ARROW_WEIGHT
        place = clear_place(
            scene.camera,
            (scene.scenario.width, scene.scenario.height),
            list(scene.state.units.values()) + marks,
            (max(w for _l, w, _h in boxes), total),
            view,
        )
        y = place.y
        for i, (line, w, h) in enumerate(boxes):
            bg = PANEL_BG if i == 0 else tuple(min(255, c + 90) for c in COLOURS[(i - 1) % len(COLOURS)])
            label(surface, line, (place.x + w / 2, y + h / 2), INK, size=14, bg=bg, max_width=width)
            y += h + 4
