"""What the editor draws over the table: the selection, a problem's blinking highlight,
corner handles, pieces being moved, drafts being drawn, and the live coordinates or
sizes beside the cursor. Drawing only: it reads the scene and the document."""

from __future__ import annotations

import math

import pygame
from shapely.geometry import Polygon

from game.editor.edits import Ref, rect, wall_polygon
from game.editor.host import EditorHost
from game.editor.tools import HANDLE_PX, BoardTools, fmt
from game.ui import theme
from game.ui.draw import draw_geometry, get_font, text_at


DRAW_TOOLS = ("rect", "wall", "poly", "zone", "treasure", "unit")


class EditorOverlay:
    """Drawn over the table: drafts of the board tools, the selection, unread shapes."""

    def __init__(self, scene: EditorHost, tools: BoardTools):
        self.scene = scene
        self.tools = tools

    def draw(self, surface: pygame.Surface) -> None:
        scene = self.scene
        dr = self.tools.drag
        moving = dr is not None and dr["mode"] == "move"
        dx, dy = self.tools.delta() if moving else (0.0, 0.0)
        self.draw_unread(surface)
        if moving:
            self.draw_moving(surface, dx, dy)
        for ref in scene.selection:
            self.outline(surface, ref, theme.SELECT, 2, dx, dy)
        if scene.highlight is not None:
            blink = (pygame.time.get_ticks() // 300) % 2 == 0
            self.outline(surface, scene.highlight, theme.PROBLEM if blink else (255, 160, 160), 4)
        if len(scene.selection) == 1 and scene.selection[0][0] in ("terrain", "zone") and not moving:
            self.draw_handles(surface)
        self.draw_draft(surface, dx, dy)

    def draw_unread(self, surface: pygame.Surface) -> None:
        """Items of the file the editor could not read, where the file puts them: a thin
        red outline labelled 'not read' (they are kept in the file as written)."""
        d, cam = self.scene.doc, self.scene.camera
        for name, shape, where in d.unread_shapes:
            if shape == "polygon":
                pts = self._poly_px(where)
                pygame.draw.polygon(surface, theme.PROBLEM, pts, 2)
                cx = sum(p[0] for p in pts) / len(pts)
                cy = sum(p[1] for p in pts) / len(pts)
            else:
                x, y, size = where
                cx, cy = cam.to_px(x, y)
                r = cam.length(d.sc.ruleset.radius(size) if size else 0.4)
                pygame.draw.circle(surface, theme.PROBLEM, (cx, cy), max(3, r), 2)
                cy -= max(3, r) + 8
            text_at(
                surface,
                f"not read: {name}",
                (cx, cy),
                11,
                theme.PROBLEM,
                box_colour=(255, 240, 240),
                box_edge=theme.PROBLEM,
            )

    def _poly_px(self, pts, dx=0.0, dy=0.0):
        return self.scene.camera.points_px([(x + dx, y + dy) for x, y in pts])

    def outline(self, surface, ref: Ref, colour, width: int, dx=0.0, dy=0.0) -> None:
        d, cam = self.scene.doc, self.scene.camera
        kind, key = ref
        if not d.exists(ref):
            return
        if kind in ("terrain", "zone"):
            pts = self._poly_px(d.points_of(ref), dx, dy)
            pygame.draw.polygon(surface, theme.SELECT_EDGE, pts, width + 2)
            pygame.draw.polygon(surface, colour, pts, width)
        else:
            ((x, y),) = d.points_of(ref)
            r = {"unit": lambda: d.unit(key).r, "treasure": lambda: d.token(key).r}.get(kind, lambda: 0.3)()
            cx, cy = cam.to_px(x + dx, y + dy)
            pygame.draw.circle(surface, theme.SELECT_EDGE, (cx, cy), cam.length(r) + 5, width + 2)
            pygame.draw.circle(surface, colour, (cx, cy), cam.length(r) + 5, width)

    def draw_moving(self, surface, dx: float, dy: float) -> None:
        """The selection where the move would put it (the ghost painter leaves the old place empty)."""
        scene = self.scene
        d, cam = scene.doc, scene.camera
        for kind, key in d.with_attached(scene.selection):
            if kind == "terrain":
                t = d.terrain(key)
                fill = {
                    "wall": theme.WALL_HIGH,
                    "difficult": theme.DIFFICULT_FILL,
                    "impassable": theme.IMPASSABLE_FILL,
                }.get(t.kind, theme.HEIGHT_STOPS[3][1])
                draw_geometry(surface, cam, Polygon([(x + dx, y + dy) for x, y in t.polygon]), fill=fill, alpha=200)
            elif kind == "unit":
                u = d.unit(key)
                pygame.draw.circle(
                    surface, scene.painter.warband_colour(u.warband), cam.to_px(u.x + dx, u.y + dy), cam.length(u.r)
                )
            elif kind == "treasure":
                tok = d.token(key)
                pygame.draw.circle(surface, theme.TOKEN_GOLD, cam.to_px(tok.x + dx, tok.y + dy), cam.length(tok.r))

    def draw_handles(self, surface) -> None:
        scene = self.scene
        tools = self.tools
        x0, y0, x1, y1 = scene.doc.bounds(scene.selection[0])
        if tools.drag is not None and tools.drag["mode"] == "resize":
            x0, y0, x1, y1 = tools.resized()
            pygame.draw.polygon(surface, theme.DRAFT, self._poly_px(rect((x0, y0), (x1, y1))), 2)
            self.label_at(surface, f'{fmt(abs(x1 - x0))}" x {fmt(abs(y1 - y0))}"')
        for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            px, py = scene.camera.to_px(cx, cy)
            r = pygame.Rect(0, 0, HANDLE_PX * 2, HANDLE_PX * 2)
            r.center = (round(px), round(py))
            surface.fill(theme.SELECT_EDGE, r.inflate(2, 2))
            surface.fill(theme.SELECT, r)

    def draw_draft(self, surface, dx: float, dy: float) -> None:
        """Drafts being drawn, with live coordinates; else the snapped cross-hair."""
        scene = self.scene
        cam, tools = scene.camera, self.tools
        dr = tools.drag
        snap_in = scene.doc.snap_point(scene.to_in(scene.mouse_px))
        if dr and dr["mode"] == "rect":
            pygame.draw.polygon(surface, theme.DRAFT, self._poly_px(rect(dr["start"], dr["cur"])), 2)
            (ax, ay), (bx, by) = dr["start"], dr["cur"]
            self.label_at(surface, f'[{fmt(bx)}, {fmt(by)}]  {fmt(abs(bx - ax))}" x {fmt(abs(by - ay))}"')
        elif dr and dr["mode"] == "wall":
            if dr["start"] != dr["cur"]:
                pts = wall_polygon(dr["start"], dr["cur"], scene.wall_thickness)
                pygame.draw.polygon(surface, theme.DRAFT, self._poly_px(pts), 2)
            self.label_at(
                surface, f'[{fmt(dr["cur"][0])}, {fmt(dr["cur"][1])}]  {fmt(math.dist(dr["start"], dr["cur"]))}" long'
            )
        elif dr and dr["mode"] == "move" and dr["moved"]:
            self.label_at(surface, f"move [{fmt(dx)}, {fmt(dy)}]")
        if tools.points:
            colour = (
                scene.painter.warband_colour(scene.warband) if scene.tool == "zone" and scene.warband else theme.DRAFT
            )
            pygame.draw.lines(surface, colour, False, self._poly_px(tools.points + [snap_in]), 2)
            for q in tools.points:
                pygame.draw.circle(surface, colour, cam.to_px(*q), 4)
            self.label_at(surface, f"[{fmt(snap_in[0])}, {fmt(snap_in[1])}]  point {len(tools.points) + 1}")
        elif scene.tool in DRAW_TOOLS and not dr and scene.view.collidepoint(scene.mouse_px):
            px, py = cam.to_px(*snap_in)
            pygame.draw.line(surface, theme.DRAFT, (px - 6, py), (px + 6, py), 1)
            pygame.draw.line(surface, theme.DRAFT, (px, py - 6), (px, py + 6), 1)
            self.label_at(surface, f"[{fmt(snap_in[0])}, {fmt(snap_in[1])}]")

    def label_at(self, surface: pygame.Surface, text: str) -> None:
        """A small box of text beside the cursor."""
        img = get_font(14, "bold").render(text, True, (20, 20, 20))
        x, y = self.scene.mouse_px[0] + 16, self.scene.mouse_px[1] + 14
        box = pygame.Rect(x - 4, y - 2, img.get_width() + 8, img.get_height() + 4)
        surface.fill(theme.TIP_BG, box)
        pygame.draw.rect(surface, (20, 20, 20), box, 1)
        surface.blit(img, (x, y))
