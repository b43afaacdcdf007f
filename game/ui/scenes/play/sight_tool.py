"""The line of sight tool (L1, L2): ``L`` with a unit selected shades the ground it cannot
see; hovering an enemy then shows whether it is visible, in cover or hidden, with the
clear sight lines. The ruler's line of sight between its two ends is read here too.

The sight answers (the visibility region takes a few milliseconds on a big map) are
worked out off the frame by a :class:`PlanWorker`, once per selected unit and state
version, on a copy of the state with a line of sight engine of the worker's own, so
the worker never holds the engine lock the window needs; the shade is drawn once per
camera and hover and blitted after that, so a frame never waits. Nothing here changes
the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygame

from game.ui import theme
from game.ui.camera import Camera
from game.ui.scenes import ask
from game.ui.scenes.play.planner import LatestAnswer
from game.ui.scenes.play.table import Table
from game.ui.sight_layer import MARKS, SightLayer, draw_lines, shade_region
from game.ui.widgets.overlays import label


#: What each answer is called on the table.
WORDS = {"visible": "visible, in the open", "cover": "visible, in cover (L2)", "hidden": "hidden (L1)"}


def sight_words(res) -> str:
    """One answer as a sentence: status, clear lines, distance, what blocks, what covers."""
    text = f'{WORDS[res.status]}: {res.clear_lines} of {res.lines} sight lines clear, {res.distance:.2f}" away'
    if res.blockers:
        text += "; blocked by " + ", ".join(res.blockers[:3])
    if res.cover_walls:
        text += "; cover from " + ", ".join(res.cover_walls[:3])
    return text


@dataclass(frozen=True)
class RulerSight:
    """Line of sight between the ruler's two ends: units (their bases) or points."""

    status: str  # visible | cover | hidden
    text: str


class SightTool:
    def __init__(self, scene: Table):
        self.scene = scene
        self.on = False
        self.answer = LatestAnswer(self._compute, "speedheim-sight", "working out line of sight")
        self._shade: pygame.Surface | None = None
        self._shade_key: tuple | None = None
        self._lines: pygame.Surface | None = None  # the hovered enemy's clear sight lines
        self._lines_key: tuple | None = None
        self._ruler: tuple[Any, RulerSight | None] = (None, None)
        self._sight: tuple[Any, Any] = (None, None)  # (game, the worker's own Sight)

    def toggle(self) -> bool:
        self.on = not self.on
        return self.on

    def reset(self) -> None:
        """A new game: forget the answers of the old one."""
        self.answer.reset()
        self._shade = self._shade_key = self._lines = self._lines_key = None
        self._ruler = (None, None)

    def stop(self) -> None:
        self.answer.stop()

    # --- the answers, off the frame -------------------------------------------------------
    def key(self) -> tuple | None:
        """(viewer, state version) the overlay should show, or None."""
        scene = self.scene
        uid = scene.selected
        if not self.on or uid is None:
            return None
        u = scene.state.units.get(uid)
        if u is None or not u.on_table:
            return None
        return (uid, scene.version)

    def update(self) -> None:
        game = self.scene.game
        self.answer.update(self.scene.app, self.key(), lambda: (self.key(), game, ask.state_copy(game)))

    def flush(self) -> None:
        """Wait for the worker and take its answer (tests, benchmark)."""
        game = self.scene.game
        self.answer.flush(self.scene.app, self.key(), lambda: (self.key(), game, ask.state_copy(game)))

    def _compute(self, job: tuple) -> SightLayer:
        """In the worker: the answers for one viewer on a copy of the state."""
        (uid, _version), game, state = job
        if self._sight[0] is not game:
            self._sight = (game, ask.private_sight(game))
        return SightLayer(self._sight[1], state, uid)

    def current(self) -> SightLayer | None:
        return self.answer.current(self.key())

    def hovered(self) -> tuple[str, Any] | None:
        """The hovered enemy and its answer, while the overlay is shown."""
        layer, uid = self.current(), self.scene.hover_unit
        if layer is None or uid is None or uid not in layer.results:
            return None
        return uid, layer.results[uid]

    # --- drawing ---------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        scene = self.scene
        if not self.on:
            return
        view, cam = scene.view_rect, scene.camera
        layer = self.current()
        if layer is None:
            text = (
                "LINE OF SIGHT: working it out..."
                if self.key() is not None
                else "LINE OF SIGHT: select a unit (L to stop)"
            )
            label(surface, text, (view.centerx, view.y + 14), theme.INK, size=14, bg=(225, 225, 245))
            return
        cam_key = (round(cam.scale, 6), round(cam.offset[0], 3), round(cam.offset[1], 3), view.size)
        if (self.answer.key, cam_key) != self._shade_key or self._shade is None:
            self._shade = self._render(layer, cam, view)
            self._shade_key = (self.answer.key, cam_key)
        surface.blit(self._shade, view.topleft)
        hover = self.hovered()
        if hover is None:
            return
        uid, res = hover
        if (self._shade_key, uid) != self._lines_key or self._lines is None:
            self._lines = pygame.Surface(view.size, pygame.SRCALPHA)
            draw_lines(self._lines, self._local(cam, view), res, MARKS[res.status][0], width=2, alpha=220)
            self._lines_key = (self._shade_key, uid)
        surface.blit(self._lines, view.topleft)
        u = scene.state.units[uid]
        c = cam.to_px(u.x, u.y)
        label(
            surface,
            f"{u.name} ({uid}): {sight_words(res)}",
            (c[0], c[1] + cam.length(u.r) + 26),
            theme.INK,
            size=13,
            bg=theme.mix(MARKS[res.status][0], (255, 255, 255), 0.75),
            max_width=420,
        )

    @staticmethod
    def _local(cam: Camera, view: pygame.Rect) -> Camera:
        return Camera(cam.scale, (cam.offset[0] - view.x, cam.offset[1] - view.y))

    def _render(self, layer: SightLayer, cam: Camera, view: pygame.Rect) -> pygame.Surface:
        """The shade, the marks on the targets and the key, on one view-sized layer
        (drawn again only when the answers or the camera change)."""
        out = pygame.Surface(view.size, pygame.SRCALPHA)
        local = self._local(cam, view)
        shade_region(out, local, layer.region)
        layer.draw_over(out, local)
        return out

    # --- the ruler -------------------------------------------------------------------------
    def ruler_sight(self, ruler) -> RulerSight | None:
        """L1 between the ruler's ends: between the two units' bases when both ends are
        units, else between the two points at eye height (cached per ruler position)."""
        scene = self.scene
        a, b = ruler.a, ruler.b
        key = (a.x, a.y, a.label, b.x, b.y, b.label, scene.version)
        if self._ruler[0] == key:
            return self._ruler[1]
        units = scene.state.units
        out: RulerSight | None = None
        with scene.engine.lock:
            if a.label in units and b.label in units and a.label != b.label:
                res = ask.sight_between(scene.game, a.label, b.label)
                out = RulerSight(res.status, f"line of sight {a.label} to {b.label}: {sight_words(res)}")
            elif (a.x, a.y) != (b.x, b.y):
                res = ask.sight_between_points(scene.game, (a.x, a.y), (b.x, b.y))
                what = (
                    "clear"
                    if res.visible
                    else "blocked" + (f" by {', '.join(res.blockers[:3])}" if res.blockers else "")
                )
                out = RulerSight(res.status, f"line of sight (eye height at both ends): {what}")
        self._ruler = (key, out)
        return out
