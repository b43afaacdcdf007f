"""The engage preview (E1): the path a unit would take into base contact with an enemy,
shown before the Engage is confirmed, as a drag shows a move.

With a unit of the side to act selected in a phase that takes ``engage``, hovering an
enemy plans the Engage off the frame (a :class:`PlanWorker`, under the engine lock, as
the drag preview) and the table draws the path coloured like a move, with its cost
against the allowance and its checks, or the engine's refusal (E1 names the cheapest
cost; beyond the largest allowance in a straight line, that distance, with no search).
Choosing Engage in a menu pins that preview and asks to confirm; only then is the
action applied. Nothing here changes the game.
"""

from __future__ import annotations

import math

from game.engine.errors import IllegalAction
from game.ui.scenes import ask
from game.ui.scenes.play.drag import DragTool, Preview, plan_checks
from game.ui.scenes.play.planner import LatestAnswer
from game.ui.scenes.play.ruler import RulerTool
from game.ui.scenes.play.table import Table
from game.ui.widgets.dialogs import ChoiceDialog
from game.ui.widgets.overlays import CHECK_WORDS


def engage_action(uid: str, target: str) -> dict:
    return {"engage": {"unit": uid, "target": target}}


class EngageTool:
    def __init__(self, scene: Table, drag_tool: DragTool, ruler_tool: RulerTool):
        self.scene = scene
        self.drag_tool = drag_tool
        self.ruler_tool = ruler_tool
        self.answer = LatestAnswer(self.preview_locked, "speedheim-engage", "planning the engage preview")
        self.pinned: tuple[str, str] | None = None  # (unit, target) while the confirm dialog is open

    def reset(self) -> None:
        self.pinned = None
        self.answer.reset()

    def stop(self) -> None:
        self.answer.stop()

    # --- which engage to show ---------------------------------------------------------------
    def wanted(self) -> tuple[str, str] | None:
        """(unit, target) to preview now: the pinned one, else the selected unit of the side
        to act and the enemy under the cursor, in a phase that takes an Engage."""
        scene = self.scene
        if self.pinned is not None:
            return self.pinned
        uid, target = scene.selected, scene.hover_unit
        if uid is None or target is None or self.drag_tool.drag is not None or self.ruler_tool.on:
            return None
        if not scene.is_enemy(uid, target) or not scene.acts_now(uid) or "engage" not in ask.legal_kinds(scene.game):
            return None
        return uid, target

    def key(self) -> tuple | None:
        w = self.wanted()
        return (*w, self.scene.version) if w is not None else None

    def current(self) -> Preview | None:
        """The preview of the engage wanted now, once planned."""
        return self.answer.current(self.key())

    def update(self) -> None:
        self.answer.update(self.scene.app, self.key())

    def flush(self) -> None:
        """Wait for the worker and take its preview (tests)."""
        self.answer.flush(self.scene.app, self.key())

    # --- planning (in the worker, or at once on confirming) ---------------------------------------
    def preview_locked(self, key: tuple) -> Preview:
        with self.scene.engine.lock:
            return self.compute(key[0], key[1])

    def compute(self, uid: str, target: str) -> Preview:
        """The engine's cheapest path into contact and its cost, or why not (rule, reason)."""
        scene = self.scene
        game, st = scene.game, scene.state
        u, t = st.units[uid], st.units[target]
        action = engage_action(uid, target)
        err = ask.why_illegal(game, action)
        plan = None
        try:
            if ask.may_engage(game, uid, target):  # else refused by the straight line: nothing to search
                plan = ask.plan_engage(game, uid, target)
        except IllegalAction as exc:
            err = exc if err is None or err.rule == exc.rule else err
        if plan is not None:
            pts, cost, allowance, checks = plan.points, plan.cost, plan.limit, plan_checks(plan)
        else:  # no path: the straight way into contact, to show where the refusal is about
            gap = scene.board.distance(u, t)
            d = math.hypot(t.x - u.x, t.y - u.y) or 1.0
            k = max(0.0, d - u.r - t.r) / d
            pts = [(u.x, u.y), (u.x + (t.x - u.x) * k, u.y + (t.y - u.y) * k)]
            cost, allowance, checks = gap, self._allowance(uid), []
        crossed = ask.difficult_stretches(game, uid, pts)  # M12, where the path crosses it
        if err is not None:
            return Preview(None, None, pts, cost, allowance, None, checks, err, crossed)
        return Preview("engage", action, pts, cost, allowance, None, checks, difficult=crossed)

    def _allowance(self, uid: str) -> float:
        info = self.scene.unit_info(uid)
        return float(info["walk"])

    # --- confirming ------------------------------------------------------------------------
    def confirm(self, uid: str, target: str) -> None:
        """Pin the preview of this Engage and ask before applying it; a refusal is shown
        with the engine's rule and reason instead."""
        scene = self.scene
        preview = self.preview_locked((uid, target))
        self.pinned = (uid, target)
        self.answer.set((uid, target, scene.version), preview)
        if preview.kind is None:
            self.pinned = None
            scene.refuse(preview.error, engage_action(uid, target))  # the engine's refusal (compute)
            return
        st = scene.state
        u, t = st.units[uid], st.units[target]
        lines = [
            f'{u.name} ({uid}) moves {preview.cost:.2f}" of {preview.walk:.2f}" into base contact '
            f"with {t.name} ({target}), along the path on the table."
        ]
        if preview.checks:
            lines.append("Checks on the way: " + ", ".join(CHECK_WORDS.get(k, k) for _x, _y, k in preview.checks) + ".")
        else:
            lines.append("No check on the way.")

        def chosen(value):
            self.pinned = None
            if value == "go":
                scene.act(preview.action)

        scene.app.open_dialog(
            ChoiceDialog(
                scene.app.ui,
                f"Engage {t.name} (E1)?",
                "\n".join(lines),
                [("Engage", "go"), ("Cancel", None)],
                chosen,
                cancel=None,
            )
        )
