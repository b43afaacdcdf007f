"""The ruler tool: drag to measure edge to edge (G1/G2), snapping to units and tokens.

R turns it on; a drag draws a ruler that stays until Esc (or R) dismisses it.
Measuring never changes the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.engine.geometry import Disc
from game.ui.scenes.play.table import Table


@dataclass
class Anchor:
    """One end of the ruler: a point, or a unit/token it snapped to."""

    x: float
    y: float
    r: float = 0.0
    label: str = ""


@dataclass
class Ruler:
    a: Anchor
    b: Anchor
    dragging: bool = True


class RulerTool:
    def __init__(self, scene: Table):
        self.scene = scene
        self.on = False  # R: a left drag measures instead of selecting
        self.ruler: Ruler | None = None

    def toggle(self) -> bool:
        self.on = not self.on
        if not self.on:
            self.ruler = None
        return self.on

    def cancel(self) -> bool:
        """Esc: dismiss the ruler, then leave the tool; False when there was nothing to cancel."""
        if self.ruler is not None:
            self.ruler = None
        elif self.on:
            self.on = False
        else:
            return False
        return True

    @property
    def dragging(self) -> bool:
        return self.ruler is not None and self.ruler.dragging

    def press(self, pos) -> None:
        a = self.anchor_at(pos)
        self.ruler = Ruler(a, Anchor(a.x, a.y, a.r, a.label), True)

    def motion(self, pos) -> None:
        self.ruler.b = self.anchor_at(pos)

    def release(self, pos) -> None:
        self.ruler.b = self.anchor_at(pos)
        self.ruler.dragging = False

    def anchor_at(self, pos) -> Anchor:
        scene = self.scene
        uid = scene.unit_at(*pos)
        if uid is not None:
            u = scene.state.units[uid]
            return Anchor(u.x, u.y, u.r, uid)
        tid = scene.token_at(*pos)
        if tid is not None:
            t = scene.state.treasure[tid]
            return Anchor(t.x, t.y, t.r, tid)
        x, y = scene.camera.to_in(*pos)
        return Anchor(x, y, 0.0, "")

    def reading(self, ruler: Ruler) -> tuple[float, float]:
        """(edge-to-edge inches per G1/G2, height of b above a)."""
        board = self.scene.board
        a, b = ruler.a, ruler.b
        za = board.height_at(a.x, a.y)
        zb = board.height_at(b.x, b.y)
        return board.distance(Disc(a.x, a.y, a.r, za), Disc(b.x, b.y, b.r, zb)), zb - za
