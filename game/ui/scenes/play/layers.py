"""What the play window draws on the table, layer by layer.

The board picture (terrain, reach, trails, tokens, units) changes only with the state,
the camera or the selection, so it is cached and a frame with a drag is one blit; over
it come the hovered token's rings, the selected unit's rings, the drag path with its
readout, the ruler and the last refusal. Drawing reads the scene and the game; it
never changes either.
"""

from __future__ import annotations

import dataclasses
import math
import time

import pygame

from game.ui import theme
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.drag import DragTool, path_length
from game.ui.scenes.play.engage import EngageTool
from game.ui.scenes.play.hints import HintTool
from game.ui.scenes.play.rule_tips import REFUSAL_S, RuleTips
from game.ui.scenes.play.ruler import RulerTool
from game.ui.scenes.play.sight_tool import SightTool
from game.ui.scenes.play.table import Table
from game.ui.widgets import text as T
from game.ui.draw import dashed
from game.ui.sight_layer import MARKS
from game.ui.widgets.overlays import GREEN, RED, YELLOW, check_icon, label, render_reach

DIFFICULT_EDGE = (110, 60, 10)  # a path's stretch across difficult ground (M12): edge and hatching
DIFFICULT_BAND = (215, 160, 80)


RULER = (20, 20, 20)
RULER_BG = (255, 250, 210)
GRAB = (60, 60, 200)
TOAST_S = 3.0


class BoardLayers:
    def __init__(
        self,
        scene: Table,
        bot: BotPlayer,
        sight_tool: SightTool,
        hint_tool: HintTool,
        drag_tool: DragTool,
        engage_tool: EngageTool,
        ruler_tool: RulerTool,
        rule_tips: RuleTips,
    ):
        self.scene = scene
        self.bot = bot
        self.sight_tool = sight_tool
        self.hint_tool = hint_tool
        self.drag_tool = drag_tool
        self.engage_tool = engage_tool
        self.ruler_tool = ruler_tool
        self.rule_tips = rule_tips
        self._board: pygame.Surface | None = None
        self._board_key: tuple | None = None
        self._reach: pygame.Surface | None = None
        self._reach_key: tuple | None = None

    def draw(self, surface: pygame.Surface) -> None:
        scene = self.scene
        view = scene.view_rect
        clip = surface.get_clip()
        surface.set_clip(view)
        cam = scene.camera
        s = scene.app.settings
        anim = self.bot.anim
        walking = anim.uid if anim is not None and anim.moving else None
        key = (
            scene.version,
            round(cam.scale, 6),
            round(cam.offset[0], 3),
            round(cam.offset[1], 3),
            view.size,
            scene.selected,
            bool(s.get("reach", True)),
            bool(s.get("trails", True)),
            walking,
        )
        if key != self._board_key or self._board is None:
            self.draw_board(surface, view)
            self._board = surface.subsurface(view).copy()
            self._board_key = key
        else:
            surface.blit(self._board, view.topleft)
        self.draw_bot(surface, walking)
        self.sight_tool.draw(surface)
        self.draw_hover_token(surface)
        if scene.selected and s.get("rings"):
            self.draw_rings(surface, scene.selected)
        self.draw_drag(surface)
        self.draw_engage(surface)
        self.hint_tool.draw(surface)
        self.draw_ruler(surface)
        self.draw_refusal(surface, view)
        surface.set_clip(clip)

    def draw_board(self, surface: pygame.Surface, view: pygame.Rect) -> None:
        scene = self.scene
        cam, st, painter = scene.camera, scene.state, scene.painter
        surface.fill(theme.PAGE, view)
        painter.draw_static(surface, cam)
        painter.draw_edge_numbers(surface, cam, "tl")
        self.draw_reach(surface)
        if scene.app.settings.get("trails", True):
            painter.draw_trails(surface, cam, st)
        painter.draw_tokens(surface, cam, st, False)
        anim = self.bot.anim
        painter.draw_units(
            surface, cam, st, scene.selected, skip=[anim.uid] if anim is not None and anim.moving else []
        )

    def draw_bot(self, surface: pygame.Surface, walking: str | None) -> None:
        """A bot's action being shown: the unit walking along its path, or the line of a
        shot or an attack."""
        scene = self.scene
        anim, cam, st = self.bot.anim, scene.camera, scene.state
        if anim is None:
            return
        if walking is not None and walking in st.units:
            u = st.units[walking]
            x, y = anim.position()
            pts = cam.points_px(anim.path)
            colour = scene.painter.warband_colour(u.warband)
            if len(pts) > 1:
                pygame.draw.lines(surface, (20, 20, 20), False, pts, 5)
                pygame.draw.lines(surface, colour, False, pts, 3)
            scene.painter.draw_unit(surface, cam, dataclasses.replace(u, x=x, y=y), st, walking == scene.selected)
        elif anim.aim is not None and all(a in st.units for a in anim.aim):
            a, b = (st.units[i] for i in anim.aim)
            dashed(surface, (200, 30, 30), [cam.to_px(a.x, a.y), cam.to_px(b.x, b.y)], 3)

    def draw_reach(self, surface: pygame.Surface) -> None:
        scene = self.scene
        if not scene.selected or not scene.app.settings.get("reach", True):
            return
        view, cam = scene.view_rect, scene.camera
        key = (
            scene.selected,
            scene.version,
            round(cam.scale, 4),
            round(cam.offset[0], 2),
            round(cam.offset[1], 2),
            view.size,
        )
        if self._reach_key != key:
            r = scene.engine.reach(scene.selected, scene.version)
            self._reach_key = key
            self._reach = render_reach(r, cam, view) if r is not None else None
        if self._reach is not None:
            surface.blit(self._reach, view.topleft)

    def draw_hover_token(self, surface: pygame.Surface) -> None:
        scene = self.scene
        t = scene.state.treasure.get(scene.hover_token) if scene.hover_token else None
        if t is None or t.carried_by:
            return
        cam, rs = scene.camera, scene.rs
        c = cam.to_px(t.x, t.y)
        deny, grab = float(rs.treasure_denial_range), float(rs.treasure_grab_range)
        pygame.draw.circle(surface, RED, c, cam.length(t.r + deny), 2)
        pygame.draw.circle(surface, GRAB, c, cam.length(t.r + grab), 2)
        label(surface, f'{deny:g}" denial (U6)', (c[0], c[1] - cam.length(t.r + deny) - 2), RED)
        label(surface, f'{grab:g}" grab (U4)', (c[0], c[1] - cam.length(t.r + grab) - 2), GRAB)

    def draw_rings(self, surface: pygame.Surface, uid: str) -> None:
        scene = self.scene
        u = scene.state.units.get(uid)
        if u is None or not u.on_table:
            return
        cam, rs = scene.camera, scene.rs
        c = cam.to_px(u.x, u.y)
        rings = (
            (float(rs.treasure_denial_range), (200, 60, 60)),
            (float(rs.treasure_grab_range), GRAB),
            (float(rs.run_denial_range), (30, 30, 30)),
        )
        for d, col in rings:
            rad = cam.length(u.r + d)
            pygame.draw.circle(surface, col, c, rad, 1)
            label(surface, f'{d:g}"', (c[0] + rad * 0.707, c[1] - rad * 0.707), col)

    def draw_drag(self, surface: pygame.Surface) -> None:
        d = self.drag_tool.drag
        if d is None or not d.active or d.preview is None:
            return
        self.draw_preview(surface, d.preview, d.uid, readout(d.preview, d), d.cursor, d.waypoints)

    def draw_engage(self, surface: pygame.Surface) -> None:
        """The engage path the engine would take (E1), before it is confirmed."""
        p = self.engage_tool.current()
        if p is not None:
            self.draw_preview(surface, p, self.engage_tool.wanted()[0], readout(p), p.path[-1])

    def draw_preview(self, surface: pygame.Surface, p, uid: str, text: str, cursor, waypoints=()) -> None:
        """A planned path: walk green, run yellow, beyond red (dashed red when illegal), the
        checks on the way, the ghost base at its end and the readout beside it."""
        cam = self.scene.camera
        u = self.scene.state.units[uid]
        pts = p.path
        self.draw_difficult(surface, p)
        if p.kind is None:
            px = cam.points_px(pts)
            if len(px) > 1:
                dashed(surface, RED, px, 3)
        else:
            cuts = [p.walk] + ([p.run] if p.run else [])
            colours = [GREEN, YELLOW, RED]
            for i, piece in enumerate(split_path(pts, cuts, p.cost)):
                px = cam.points_px(piece)
                if len(px) > 1:
                    pygame.draw.lines(surface, (20, 20, 20), False, px, 6)
                    pygame.draw.lines(surface, colours[min(i, 2)], False, px, 4)
        for wp in waypoints:
            c = cam.to_px(*wp)
            pygame.draw.circle(surface, (20, 20, 20), c, 6)
            pygame.draw.circle(surface, (255, 255, 255), c, 4)
        for x, y, kind in p.checks:
            check_icon(surface, cam.to_px(x, y), kind)
        c = cam.to_px(*(pts[-1] if pts else cursor))
        rad = max(3, cam.length(u.r))
        pygame.draw.circle(surface, {None: RED, "move": GREEN, "run": YELLOW, "engage": GREEN}[p.kind], c, rad, 3)
        img_w = min(360, T.text(text, 14, (20, 20, 20), True).get_width())
        label(
            surface,
            text,
            (c[0] + rad + 14 + img_w / 2, c[1] + rad + 12),
            (20, 20, 20),
            size=14,
            bg=(255, 255, 255) if p.kind else (255, 225, 225),
            max_width=360,
        )

    def draw_difficult(self, surface: pygame.Surface, p) -> None:
        """Where a planned path crosses difficult ground (M12, the engine's stretches): a
        wide brown band under the path, cross-hatched, with the penalty at its start."""
        if not p.difficult:
            return
        cam = self.scene.camera
        for piece in p.difficult:
            px = cam.points_px(piece)
            if len(px) < 2:
                continue
            pygame.draw.lines(surface, DIFFICULT_EDGE, False, px, 16)
            pygame.draw.lines(surface, DIFFICULT_BAND, False, px, 12)
            dashed(surface, DIFFICULT_EDGE, px, 12, dash=4)
        piece = p.difficult[0]
        (ax, ay), (bx, by) = piece[0], piece[-1]
        mid = cam.to_px((ax + bx) / 2, (ay + by) / 2)  # above the middle of the first stretch
        label(
            surface,
            f'difficult ground -{self.scene.rs.difficult_penalty:g}" (M12)',
            (mid[0], mid[1] - 22),
            DIFFICULT_EDGE,
            size=12,
            bg=(255, 240, 215),
        )

    def draw_ruler(self, surface: pygame.Surface) -> None:
        scene = self.scene
        tool = self.ruler_tool
        r = tool.ruler
        if r is None:
            if tool.on:
                v = scene.view_rect
                label(
                    surface,
                    "RULER: drag to measure (R / Esc to stop)",
                    (v.centerx, v.y + 14),
                    RULER,
                    size=14,
                    bg=RULER_BG,
                )
            return
        cam = scene.camera
        dist, dz = tool.reading(r)
        a, b = r.a, r.b
        dx, dy = b.x - a.x, b.y - a.y
        n = math.hypot(dx, dy) or 1.0
        pa = cam.to_px(a.x + dx / n * a.r, a.y + dy / n * a.r)
        pb = cam.to_px(b.x - dx / n * b.r, b.y - dy / n * b.r)
        pygame.draw.line(surface, (255, 255, 255), pa, pb, 5)
        pygame.draw.line(surface, RULER, pa, pb, 2)
        for p in (pa, pb):
            pygame.draw.circle(surface, RULER, p, 4)
        for anc in (a, b):
            if anc.r > 0:
                pygame.draw.circle(surface, RULER, cam.to_px(anc.x, anc.y), cam.length(anc.r) + 2, 2)
        text = f'{dist:.2f}"'
        if abs(dz) > 1e-9:
            text += f'  height {dz:+.2f}"'
        if a.label or b.label:
            text += f"  ({a.label or 'point'} to {b.label or 'point'})"
        mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
        los = self.sight_tool.ruler_sight(r)
        if los is not None:  # the sight box under the distance, never over it
            colour = MARKS[los.status][0]
            box = label(surface, text, (mid[0], mid[1] - 12), RULER, size=15, bg=RULER_BG)
            label(
                surface,
                los.text,
                (mid[0], mid[1] + 14),
                RULER,
                size=13,
                bg=theme.mix(colour, (255, 255, 255), 0.7),
                max_width=420,
                below=box,
            )
            label(surface, text, box.center, RULER, size=15, bg=RULER_BG)  # on top, whatever the clip did
        else:
            label(surface, text, (mid[0], mid[1] - 12), RULER, size=15, bg=RULER_BG)

    def draw_refusal(self, surface: pygame.Surface, view: pygame.Rect) -> None:
        scene = self.scene
        now = time.monotonic()
        at = (view.centerx, view.bottom - 30)
        if scene.refusal is not None and now - scene.refusal[2] < REFUSAL_S:
            rule, reason, _ = scene.refusal
            self.rule_tips.refusal_box = label(
                surface,
                f"illegal: {rule}: {reason}",
                at,
                (255, 255, 255),
                size=15,
                bg=(170, 30, 30),
                max_width=view.width - 40,
            )
        elif scene.toast is not None and now - scene.toast[1] < TOAST_S:
            label(surface, scene.toast[0], at, (255, 255, 255), size=14, bg=(60, 55, 50), max_width=view.width - 40)


def split_path(pts: list[tuple[float, float]], cuts: list[float], total_cost: float) -> list[list[tuple[float, float]]]:
    """Split a polyline at costs ``cuts`` (scaled from cost to drawn length): the walk,
    run and beyond bands of a drag path."""
    length = path_length(pts)
    if length <= 0 or len(pts) < 2:
        return [pts]
    ratio = length / total_cost if total_cost > 0 else 1.0
    marks = [c * ratio for c in cuts]
    pieces: list[list[tuple[float, float]]] = [[pts[0]]]
    walked = 0.0
    mi = 0
    for a, b in zip(pts, pts[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        while mi < len(marks) and seg > 0 and walked < marks[mi] < walked + seg:
            t = (marks[mi] - walked) / seg
            p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            pieces[-1].append(p)
            pieces.append([p])
            mi += 1
        pieces[-1].append(b)
        walked += seg
    return pieces


def readout(p, d=None) -> str:
    """The text beside a dragged base (or an engage's end): inches used of the allowance, or why not."""
    if p.kind is None:
        text = f"{p.error.rule}: {p.error.reason}" if p.error else "cannot move there"
    elif p.kind == "engage":
        text = f'Engage {p.cost:.2f}" / {p.walk:.2f}"' + (f"  {len(p.checks)} check(s)" if p.checks else "")
    else:
        allow = p.run if p.kind == "run" else p.walk
        text = f'{"Run" if p.kind == "run" else "Move"} {p.cost:.2f}" / {allow:.2f}"'
        if p.kind == "move" and p.run:
            text += f'  (run {p.run:.2f}")'
    if d is not None and d.descend == "jump":
        text += "  [jump down]"
    if d is not None and d.waypoints:
        text += f"  {len(d.waypoints)} waypoint(s)"
    return text
