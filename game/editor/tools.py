"""The editor's board tools: what a press, a drag and a release on the table do.

Select (click, Shift adds; drag moves, a corner handle resizes), rectangle, wall line,
polygon and deployment zone (click the corners), ladder (click a block edge), treasure
and units (click to place). Every change goes through a :class:`Document` command, so
it is one undo step or a refusal in the status bar. The drag in progress is a small
dict (``mode``: move, resize, rect, wall, pan) that the overlay draws.
"""

from __future__ import annotations

import copy
import math
import time

import pygame

from game.editor.edits import Ref
from game.editor.host import EditorHost
from game.ui.render import BoardPainter


HANDLE_PX = 6
PICK_PX = 5
DOUBLE_CLICK_S = 0.35
MOVED_PX = 3  # a press that moves less than this is a click, not a move


def fmt(v: float) -> str:
    """Inches for messages: at most 2 decimals when exact, else 3."""
    return f"{v:.2f}".rstrip("0").rstrip(".") if abs(v - round(v, 2)) < 1e-9 else f"{v:.3f}"


class BoardTools:
    def __init__(self, scene: EditorHost):
        self.scene = scene
        self.points: list[tuple[float, float]] = []  # polygon / zone in progress
        self.drag: dict | None = None
        self.ghost: BoardPainter | None = None  # the map without the terrain being moved
        self._last_click = (0.0, (0, 0))

    def reset(self) -> None:
        self.points, self.drag, self.ghost = [], None, None

    # --- press -----------------------------------------------------------------------------
    def press(self, pos, event) -> None:
        scene = self.scene
        d = scene.doc
        p_raw = scene.to_in(pos)
        p = d.snap_point(p_raw)
        tool = scene.tool
        if tool == "select":
            self._press_select(pos, p_raw, event)
        elif tool in ("rect", "wall"):
            self.drag = {"mode": tool, "start": p, "cur": p}
        elif tool in ("poly", "zone"):
            self._press_corner(pos, p)
        elif tool == "ladder":
            lid = scene.attempt(d.add_ladder, p_raw)
            if lid:
                scene.select([("ladder", lid)])
                lad = d.ladder(lid)
                scene.say(f"ladder {lid}: foot [{fmt(lad.foot[0])}, {fmt(lad.foot[1])}] beside {lad.top}")
        elif tool == "treasure":
            hit = d.item_at(p_raw, scene.camera.inches(PICK_PX))
            if hit and hit[0] == "treasure":
                scene.select([hit])
                return
            tid = scene.attempt(d.add_treasure, p, scene.token_event)
            if tid:
                scene.select([("treasure", tid)])
                scene.say(f"token {tid} at [{fmt(p[0])}, {fmt(p[1])}] hides: {scene.token_event}")
        elif tool == "unit":
            self.place_unit(p)

    def pan(self, pos) -> None:
        self.drag = {"mode": "pan", "last": pos}

    def _press_select(self, pos, p_raw, event) -> None:
        scene = self.scene
        d = scene.doc
        handle = self.handle_at(pos)
        if handle is not None:
            self.drag = {
                "mode": "resize",
                "ref": handle[0],
                "corner": handle[1],
                "start": p_raw,
                "bounds": d.bounds(handle[0]),
                "cur": p_raw,
            }
            return
        hit = d.item_at(p_raw, scene.camera.inches(PICK_PX))
        shift = bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT) or bool(pygame.key.get_mods() & pygame.KMOD_SHIFT)
        if hit is None:
            if not shift:
                scene.select([])
            return
        if shift:
            scene.select(
                [r for r in scene.selection if r != hit] if hit in scene.selection else scene.selection + [hit]
            )
            return
        if hit not in scene.selection:
            scene.select([hit])
        self._start_move(p_raw)

    def _press_corner(self, pos, p) -> None:
        scene = self.scene
        now = time.monotonic()
        last_t, last_pos = self._last_click
        self._last_click = (now, pos)
        if self.points and now - last_t < DOUBLE_CLICK_S and math.dist(last_pos, pos) < 6:
            self.finish_polygon()
            return
        if len(self.points) >= 3 and math.dist(scene.camera.to_px(*self.points[0]), pos) <= 8:
            self.finish_polygon()
            return
        if scene.tool == "zone" and scene.warband is None:
            scene.say("no warband: load a roster first (Ctrl+O)", bad=True)
            return
        if not self.points or self.points[-1] != p:
            self.points.append(p)
        scene.say(f"point {len(self.points)} at [{fmt(p[0])}, {fmt(p[1])}]; Enter / right click closes")

    def place_unit(self, p) -> None:
        scene = self.scene
        d = scene.doc
        wid = scene.warband
        if wid is None:
            scene.say("no warband: load a roster first (Ctrl+O)", bad=True)
            return
        todo = d.to_place(wid)
        if not todo:
            scene.say(f"warband {wid} has no roster loaded (Ctrl+O)", bad=True)
            return
        order = list(range(scene.entry, len(todo))) + list(range(0, scene.entry))
        pick = next((i for i in order if todo[i][1] > 0), None)
        if pick is None:
            scene.say(f"every unit of {wid}'s roster is placed", bad=True)
            return
        scene.entry = pick
        e, left = todo[pick]
        uid = scene.attempt(d.place_from_roster, wid, e.stem, p)
        if uid:
            u = d.unit(uid)
            scene.select([("unit", uid)])
            slid = "" if (abs(u.x - p[0]) < 1e-6 and abs(u.y - p[1]) < 1e-6) else " (slid out of overlap)"
            scene.say(f"placed {uid} at [{fmt(u.x)}, {fmt(u.y)}]{slid}; {left - 1} {e.name} left")

    def _start_move(self, p_raw) -> None:
        sc = self.scene.doc.sc
        moving = {k for kind, k in self.scene.selection if kind == "terrain"}
        if moving:
            g = copy.copy(sc)
            g.terrain = [t for t in sc.terrain if t.id not in moving]
            g.ladders = [lad for lad in sc.ladders if lad.top not in moving]
            self.ghost = BoardPainter(g, None)
        self.drag = {"mode": "move", "start": p_raw, "cur": p_raw, "moved": False}

    def handle_at(self, pos) -> tuple[Ref, tuple[int, int]] | None:
        """The corner handle under ``pos`` of the one selected piece or zone."""
        scene = self.scene
        if len(scene.selection) != 1 or scene.selection[0][0] not in ("terrain", "zone"):
            return None
        ref = scene.selection[0]
        x0, y0, x1, y1 = scene.doc.bounds(ref)
        for cx, cy, corner in ((x0, y0, (0, 0)), (x1, y0, (1, 0)), (x1, y1, (1, 1)), (x0, y1, (0, 1))):
            px, py = scene.camera.to_px(cx, cy)
            if abs(px - pos[0]) <= HANDLE_PX + 2 and abs(py - pos[1]) <= HANDLE_PX + 2:
                return ref, corner
        return None

    # --- drag and release -----------------------------------------------------------------
    def delta(self) -> tuple[float, float]:
        """The snapped offset of a move in progress."""
        dr, doc = self.drag, self.scene.doc
        return (doc.snap(dr["cur"][0] - dr["start"][0]), doc.snap(dr["cur"][1] - dr["start"][1]))

    def resized(self) -> tuple[float, float, float, float]:
        """The bounds a resize in progress gives its piece."""
        dr = self.drag
        x0, y0, x1, y1 = dr["bounds"]
        cx, cy = self.scene.doc.snap_point(dr["cur"])
        nb = [x0, y0, x1, y1]
        nb[0 if dr["corner"][0] == 0 else 2] = cx
        nb[1 if dr["corner"][1] == 0 else 3] = cy
        return tuple(nb)  # type: ignore[return-value]

    def _follow(self, pos) -> None:
        dr, scene = self.drag, self.scene
        cur = scene.to_in(pos)
        dr["cur"] = cur if dr["mode"] in ("move", "resize") else scene.doc.snap_point(cur)
        if dr["mode"] == "move" and math.dist(scene.camera.to_px(*dr["start"]), pos) > MOVED_PX:
            dr["moved"] = True

    def motion(self, pos) -> None:
        dr = self.drag
        if dr["mode"] == "pan":
            self.scene.camera.pan(pos[0] - dr["last"][0], pos[1] - dr["last"][1])
            dr["last"] = pos
            return
        self._follow(pos)

    def release(self, pos) -> None:
        dr = self.drag
        self.ghost = None
        if dr["mode"] == "pan":
            self.drag = None
            return
        self._follow(pos)
        try:
            {
                "move": self._release_move,
                "resize": self._release_resize,
                "rect": self._release_rect,
                "wall": self._release_wall,
            }[dr["mode"]]()
        finally:
            self.drag = None

    def _release_move(self) -> None:
        scene, d = self.scene, self.scene.doc
        if not self.drag["moved"]:
            return
        dx, dy = self.delta()
        if len(scene.selection) == 1 and scene.selection[0][0] == "unit":
            uid = scene.selection[0][1]
            u = d.unit(uid)
            at = scene.attempt(d.place_unit_at, uid, (d.snap(u.x + dx), d.snap(u.y + dy)))
            if at:
                scene.say(f"{uid} at [{fmt(at[0])}, {fmt(at[1])}]")
        elif dx or dy:
            scene.attempt(d.move, scene.selection, dx, dy)
            if not scene.failed:
                scene.say(f"moved by [{fmt(dx)}, {fmt(dy)}]")

    def _release_resize(self) -> None:
        scene, d = self.scene, self.scene.doc
        ref = self.drag["ref"]
        scene.attempt(d.resize, ref, self.resized())
        if not scene.failed:
            b = d.bounds(ref)
            scene.say(f'{ref[1]} is {fmt(b[2] - b[0])}" x {fmt(b[3] - b[1])}"')

    def _release_rect(self) -> None:
        scene, d, dr = self.scene, self.scene.doc, self.drag
        (ax, ay), (bx, by) = dr["start"], dr["cur"]
        if abs(bx - ax) < 1e-6 or abs(by - ay) < 1e-6:
            scene.say("drag to draw a rectangle", bad=True)
            return
        tid = scene.attempt(d.add_rect, scene.kind, dr["start"], dr["cur"])
        if tid:
            scene.select([("terrain", tid)])
            scene.say(f'{scene.kind} {tid}: {fmt(abs(bx - ax))}" x {fmt(abs(by - ay))}"')

    def _release_wall(self) -> None:
        scene, d, dr = self.scene, self.scene.doc, self.drag
        if dr["start"] == dr["cur"]:
            scene.say("drag to draw a wall line", bad=True)
            return
        tid = scene.attempt(d.add_wall, dr["start"], dr["cur"], scene.wall_thickness)
        if tid:
            scene.select([("terrain", tid)])
            length = math.dist(dr["start"], dr["cur"])
            scene.say(f'wall {tid}: {fmt(length)}" long, {fmt(scene.wall_thickness)}" thick')

    def finish_polygon(self) -> None:
        scene = self.scene
        pts = list(self.points)
        if len(pts) < 3:
            scene.say(f"a polygon needs 3 points or more (has {len(pts)})", bad=True)
            return
        self.points = []
        if scene.tool == "zone":
            if scene.warband is None:
                scene.say("no warband: load a roster first", bad=True)
                return
            scene.attempt(scene.doc.set_zone, scene.warband, pts)
            if not scene.failed:
                scene.select([("zone", scene.warband)])
                scene.say(f"deployment zone of {scene.warband} drawn")
        else:
            tid = scene.attempt(scene.doc.add_terrain, scene.kind, pts)
            if tid:
                scene.select([("terrain", tid)])
                scene.say(f"{scene.kind} {tid} with {len(pts)} corners")
