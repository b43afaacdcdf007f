"""The drag tool: move a unit by dragging it, with a live path preview.

Press on a unit, drag (a click adds a waypoint), release: the move is applied as a Move
when the path fits the unit's Move, as a Run when it needs more, and refused (the unit
snaps back, the rule is shown) when neither is legal. The preview is planned off the
frame by a :class:`PlanWorker`; every use of the movement engine holds the scene's
engine lock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from game.engine.errors import IllegalAction
from game.ui.scenes import ask
from game.ui.scenes.play.planner import PlanWorker
from game.ui.scenes.play.table import Table
from game.ui.scenes.play.words import phase_words


DRAG_START_PX = 5
PREVIEW_STEP = 0.05  # inches: the preview path is replanned when the cursor moves this far


@dataclass
class Preview:
    kind: str | None  # "move" | "run" | None (illegal)
    action: dict | None
    path: list[tuple[float, float]]
    cost: float = 0.0
    walk: float = 0.0  # walk allowance
    run: float | None = None  # run allowance (None: run denied)
    checks: list[tuple[float, float, str]] = field(default_factory=list)
    error: IllegalAction | None = None  # the engine's refusal: set whenever kind is None
    #: Where the path crosses difficult ground (M12), the engine's stretches of it, in order.
    difficult: list[list[tuple[float, float]]] = field(default_factory=list)


@dataclass
class Drag:
    uid: str
    start_px: tuple[int, int]
    origin: tuple[float, float]
    cursor: tuple[float, float]
    active: bool = False
    waypoints: list[tuple[float, float]] = field(default_factory=list)
    descend: str = "climb"
    preview: Preview | None = None
    key: tuple | None = None


def path_length(pts: list[tuple[float, float]]) -> float:
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:]))


def plan_checks(plan) -> list[tuple[float, float, str]]:
    """Icons along a path: every height change that is not free (climb, jump, ladder)."""
    return [(float(t.at[0]), float(t.at[1]), t.kind) for t in plan.transitions if t.kind != "free"]


class DragTool:
    def __init__(self, scene: Table):
        self.scene = scene
        self.drag: Drag | None = None
        self.planner = PlanWorker(self.preview_locked)

    # --- gestures ----------------------------------------------------------------------
    def press(self, uid: str, pos) -> None:
        u = self.scene.state.units[uid]
        self.drag = Drag(uid, pos, (u.x, u.y), (u.x, u.y), descend=self.scene.descend)

    @property
    def dragging(self) -> bool:
        return self.drag is not None and self.drag.active

    def add_waypoint(self, pos) -> None:
        self.drag.waypoints.append(self.scene.camera.to_in(*pos))
        self.drag.key = None

    def motion(self, pos) -> None:
        d = self.drag
        if not d.active and math.hypot(pos[0] - d.start_px[0], pos[1] - d.start_px[1]) >= DRAG_START_PX:
            d.active = True
        if d.active:
            d.cursor = self.scene.camera.to_in(*pos)

    def release(self, pos) -> None:
        d = self.drag
        if not d.active:
            self.drag = None  # a click: the unit stays selected
            return
        d.cursor = self.scene.camera.to_in(*pos)
        self.drop()

    def cancel(self) -> None:
        self.drag = None

    def set_descend(self, descend: str) -> None:
        if self.drag is not None:
            self.drag.descend = descend
            self.drag.key = None

    # --- the preview ---------------------------------------------------------------------
    def update(self) -> None:
        """Ask the planner for the newest cursor position; show what it finished."""
        d = self.drag
        if d is not None and d.active:
            key = (
                round(d.cursor[0] / PREVIEW_STEP),
                round(d.cursor[1] / PREVIEW_STEP),
                tuple(d.waypoints),
                d.descend,
                self.scene.version,
                id(d),
            )
            if key != d.key:
                d.key = key
                job = Drag(d.uid, d.start_px, d.origin, d.cursor, True, list(d.waypoints), d.descend)
                self.planner.submit(key, job)
        self.take()

    def take(self) -> None:
        got = self.planner.take()
        d = self.drag
        if got is None or d is None:
            return
        key, preview = got
        if isinstance(preview, Exception):
            self.scene.app.report_error(preview, "planning the path preview")
            return
        if key[-2:] == (self.scene.version, id(d)):  # the same drag on the same state
            d.preview = preview

    def flush(self) -> None:
        """Wait for the planner and show its newest preview (tests, benchmark)."""
        self.update()
        self.planner.wait()
        self.take()

    def stop(self) -> None:
        self.planner.stop()

    @staticmethod
    def move_action(d: Drag, run: bool) -> dict:
        body: dict[str, Any] = {"unit": d.uid}
        if d.waypoints:
            body["path"] = [[round(p[0], 3), round(p[1], 3)] for p in [d.origin, *d.waypoints, d.cursor]]
        else:
            body["to"] = [round(d.cursor[0], 3), round(d.cursor[1], 3)]
        if d.descend != "climb":
            body["descend"] = d.descend
        return {"run" if run else "move": body}

    def preview_locked(self, d: Drag) -> Preview:
        with self.scene.engine.lock:
            return self.compute_preview(d)

    def compute_preview(self, d: Drag) -> Preview:
        """The cheapest legal path to the cursor: walk if it fits, else run, else why not."""
        scene = self.scene
        game = scene.game
        info = scene.unit_info(d.uid)
        straight = [d.origin, *d.waypoints, d.cursor]
        legal = scene.engine.legal(d.uid, scene.version)  # may it move at all now (turn, phase, status)?
        if "move" not in legal.kinds and "run" not in legal.kinds:
            err = legal.refused["move"]
            if not {"move", "run"} & ask.legal_kinds(game):  # not this phase: say what is, and how
                err = IllegalAction(err.rule, phase_words(game))
            return self._refused(d, info, straight, err)
        body = self.move_action(d, False)["move"]  # what the drop applies (rounded to 0.001")
        where: dict[str, Any] = {"descend": d.descend}
        if "path" in body:
            where["path"] = [tuple(p) for p in body["path"]]
        else:
            where["to"] = tuple(body["to"])
        errors: list[IllegalAction] = []
        for run in (False, True):
            if run and info["run"] is None:
                break
            try:
                plan = ask.plan(game, d.uid, run, **where)  # the path the engine takes, or why not
            except IllegalAction as exc:
                errors.append(exc)
                continue
            pts = [(float(p[0]), float(p[1])) for p in plan.points] or straight
            walk, run_to = info["walk"], info["run"]
            if plan.difficult:  # M12: the allowances this path has (the engine's, after every modifier)
                walk, run_to = info["walk_difficult"], info["run_difficult"]
            return Preview(
                "run" if run else "move",
                self.move_action(d, run),
                pts,
                float(plan.cost),
                walk,
                run_to,
                plan_checks(plan),
                difficult=ask.difficult_stretches(game, d.uid, pts),
            )
        err = errors[-1]
        if info["run"] is None and info["run_denied"] is not None:
            e0, rd = errors[0], info["run_denied"]
            err = IllegalAction(e0.rule, f"{e0.reason}; Run denied ({rd.rule}: {rd.reason})")
        return self._refused(d, info, straight, err)

    def _refused(self, d: Drag, info: dict, straight: list, err: IllegalAction) -> Preview:
        """The preview of a drag the engine refuses: the straight line, the allowances, and why not."""
        game = self.scene.game
        return Preview(
            None,
            None,
            straight,
            path_length(straight),
            info["walk"],
            info["run"],
            [],
            err,
            ask.difficult_stretches(game, d.uid, straight),
        )

    def drop(self) -> None:
        d, self.drag = self.drag, None
        if d is None:
            return
        p = self.preview_locked(d)
        if p.action is None:
            # Snap back: the state was never touched; tell why with the rule id.
            self.scene.refuse(p.error, self.move_action(d, False))
            return
        self.scene.act(p.action)
