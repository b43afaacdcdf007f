"""Editor commands on terrain pieces and ladders (a part of :class:`Document`).

Every command checks first and changes the map inside ``self.edit(...)``, so it is one
undo step or an :class:`EditError` with nothing changed.
"""

from __future__ import annotations

import math

from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon
from shapely.ops import nearest_points

from game.editor.edits import (
    DEFAULT_HEIGHT,
    DEFAULT_WALL_THICKNESS,
    LADDER_FOOT_OUT,
    LADDER_PICK,
    EditError,
    Point,
    check_id,
    rect,
    rnd,
    seg_dist,
    wall_polygon,
)
from game.engine.model import TERRAIN_KINDS, Ladder, Terrain


class TerrainCommands:
    """Add, change and ladder terrain pieces."""

    def add_terrain(self, kind: str, polygon: list[Point], height: float | None = None, tid: str | None = None) -> str:
        if kind not in TERRAIN_KINDS:
            raise EditError(f"unknown terrain kind {kind!r} (one of {', '.join(TERRAIN_KINDS)})")
        h = DEFAULT_HEIGHT[kind] if height is None else float(height)
        if kind in ("block", "wall") and h <= 0:
            raise EditError(f'a {kind} needs a height more than 0, not {h:g}"')
        if h < 0:
            raise EditError(f'height must not be negative ({h:g}")')
        tid = tid or self.new_id(kind)
        if tid in self.all_ids():
            raise EditError(f"id {tid!r} is already used")
        with self.edit(f"add {kind} {tid}"):
            pts = self._check_polygon(list(polygon), f"{kind} {tid}")
            self.sc.terrain.append(Terrain(tid, kind, pts, h))
        return tid

    def add_rect(self, kind: str, p0: Point, p1: Point, height: float | None = None) -> str:
        return self.add_terrain(kind, rect(p0, p1), height)

    def add_wall(
        self,
        p0: Point,
        p1: Point,
        thickness: float = DEFAULT_WALL_THICKNESS,
        height: float | None = None,
        kind: str = "wall",
    ) -> str:
        return self.add_terrain(kind, wall_polygon(p0, p1, thickness), height)

    def set_terrain(
        self, tid: str, kind: str | None = None, height: float | None = None, new_id: str | None = None
    ) -> str:
        t = self.terrain(tid)
        if kind is not None and kind not in TERRAIN_KINDS:
            raise EditError(f"unknown terrain kind {kind!r} (one of {', '.join(TERRAIN_KINDS)})")
        k = kind or t.kind
        h = t.height if height is None else float(height)
        if not math.isfinite(h) or h < 0:
            raise EditError(f"height must be a number of 0 or more, not {h:g}")
        if k in ("block", "wall") and h <= 0:
            h = DEFAULT_HEIGHT[k] if height is None else h
            if h <= 0:
                raise EditError(f'a {k} needs a height more than 0, not {h:g}"')
        if new_id is not None and new_id != tid:
            check_id(new_id)
            if new_id in self.all_ids():
                raise EditError(f"id {new_id!r} is already used")
        with self.edit(f"set {tid}"):
            t.kind, t.height = k, h
            if new_id and new_id != tid:
                for ladder in self.sc.ladders:
                    if ladder.top == tid:
                        ladder.top = new_id
                t.id = new_id
                self.renamed(tid, new_id)
        return t.id

    def _ladder_foot(self, block: Terrain, near: Point, snap: bool = False) -> Point:
        """The foot of a ladder up ``block`` near ``near``: on the ground, LADDER_FOOT_OUT out
        from the nearest edge. ``snap``: on the snap grid (when snapping is on) wherever the
        grid point still stands beside the block, within its reach."""
        poly = Polygon(block.polygon)
        edge_pt = nearest_points(poly.exterior, ShPoint(near))[0]
        ex, ey = edge_pt.x, edge_pt.y
        # The outward direction: from the edge point away from the block's inside.
        dx, dy = near[0] - ex, near[1] - ey
        d = math.hypot(dx, dy)
        if d < 1e-6 or poly.contains(ShPoint(near)):
            # Clicked on/inside the edge: use the outward normal of the nearest edge segment.
            coords = list(poly.exterior.coords)
            best = min(range(len(coords) - 1), key=lambda i: seg_dist(coords[i], coords[i + 1], (ex, ey)))
            (ax, ay), (bx, by) = coords[best], coords[best + 1]
            nx, ny = by - ay, -(bx - ax)
            n = math.hypot(nx, ny) or 1.0
            nx, ny = nx / n, ny / n
            if poly.contains(ShPoint(ex + nx * 0.01, ey + ny * 0.01)):
                nx, ny = -nx, -ny
            dx, dy, d = nx, ny, 1.0
        reach = float(self.sc.ruleset.get("ladder_reach", 1.0))
        out = min(LADDER_FOOT_OUT, reach / 2)
        foot = (ex + dx / d * out, ey + dy / d * out)
        if snap and self.snap_step:
            grid = self.snap_point(foot)
            gap = poly.distance(ShPoint(grid))
            if 1e-6 < gap <= reach and 0 <= grid[0] <= self.sc.width and 0 <= grid[1] <= self.sc.height:
                return grid
        return (rnd(foot[0]), rnd(foot[1]))

    def block_edge_near(self, p: Point, reach: float = LADDER_PICK) -> Terrain | None:
        best, best_d = None, reach + 1e-9
        for t in self.sc.terrain:
            if t.kind != "block":
                continue
            d = Polygon(t.polygon).exterior.distance(ShPoint(p))
            if d <= best_d:
                best, best_d = t, d
        return best

    def add_ladder(self, at: Point, top: str | None = None, lid: str | None = None) -> str:
        """A ladder on the block edge nearest ``at``: foot on the ground just outside it."""
        block = self.terrain(top) if top else self.block_edge_near(at)
        if block is None:
            raise EditError(
                f"no block edge within {LADDER_PICK:g}\" of [{at[0]:.2f}, {at[1]:.2f}]: click on a block's edge"
            )
        if block.kind != "block":
            raise EditError(f"{block.id} is a {block.kind}; ladders reach the top of a block")
        foot = self._ladder_foot(block, at, snap=True)
        if not (0 <= foot[0] <= self.sc.width and 0 <= foot[1] <= self.sc.height):
            raise EditError(f"the ladder's foot [{foot[0]:.2f}, {foot[1]:.2f}] would be off the table")
        below = self.board.height_at(*foot)
        if below >= block.height:
            raise EditError(
                f"the ladder's foot [{foot[0]:.2f}, {foot[1]:.2f}] would stand on something {below:g}\" high, "
                f'not lower than {block.id} ({block.height:g}")'
            )
        lid = lid or self.new_id(f"{block.id}-ladder")
        with self.edit(f"add ladder {lid}"):
            self.sc.ladders.append(Ladder(lid, foot, block.id))
        return lid
