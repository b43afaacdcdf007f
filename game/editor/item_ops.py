"""Editor commands on any item: where it is, move, rotate, resize, duplicate, delete, and
which item is under a point (a part of :class:`Document`).

Items are named by references ``(kind, id)``: ``("terrain", "tower")``, ``("ladder", id)``,
``("treasure", id)``, ``("unit", id)``, ``("zone", warband_id)``, ``("warband", id)``.
A block's ladders come along when it moves, turns or is deleted.
"""

from __future__ import annotations

import math
from typing import Iterable

from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon

from game.editor.edits import DUPLICATE_OFFSET, ROTATE_STEP_DEG, EditError, Point, Ref, rnd, rotate_points, stem


class ItemCommands:
    """Geometry commands on referenced items."""

    def points_of(self, ref: Ref) -> list[Point]:
        kind, key = ref
        if kind == "terrain":
            return list(self.terrain(key).polygon)
        if kind == "zone":
            return list(self.sc.deployment[key])
        if kind == "ladder":
            return [self.ladder(key).foot]
        if kind == "treasure":
            return [self.token(key).pos]
        if kind == "unit":
            return [self.unit(key).pos]
        return []

    def _set_points(self, ref: Ref, pts: list[Point]) -> None:
        kind, key = ref
        pts = [(rnd(x), rnd(y)) for x, y in pts]
        if kind == "terrain":
            self.terrain(key).polygon = pts
        elif kind == "zone":
            self.sc.deployment[key] = pts
        elif kind == "ladder":
            self.ladder(key).foot = pts[0]
        elif kind == "treasure":
            t = self.token(key)
            t.x, t.y = pts[0]
        elif kind == "unit":
            u = self.unit(key)
            u.x, u.y = pts[0]
            for tok in self.sc.state.treasure.values():
                if tok.carried_by == u.id:
                    tok.x, tok.y = u.x, u.y

    def with_attached(self, refs: Iterable[Ref]) -> list[Ref]:
        """Refs plus the ladders of moved blocks (a ladder follows its block)."""
        out = list(dict.fromkeys(refs))
        blocks = {k for kind, k in out if kind == "terrain"}
        for ladder in self.sc.ladders:
            if ladder.top in blocks and ("ladder", ladder.id) not in out:
                out.append(("ladder", ladder.id))
        return out

    def move(self, refs: Iterable[Ref], dx: float, dy: float) -> None:
        """Move items by (dx, dy) inches; a block's ladders come along."""
        refs = self.with_attached(refs)
        if not refs or (dx == 0 and dy == 0):
            return
        moved = []
        for ref in refs:  # check everything first: a refused move changes nothing
            pts = [(x + dx, y + dy) for x, y in self.points_of(ref)]
            self._check_on_table(pts, f"{ref[0]} {ref[1]}")
            moved.append((ref, pts))
        with self.edit(f"move {len(refs)} item(s)"):
            for ref, pts in moved:
                self._set_points(ref, pts)

    def rotate(self, refs: Iterable[Ref], steps: int = 1) -> None:
        """Rotate terrain and zones by ``steps`` x 15 degrees around their common centre."""
        refs = [r for r in self.with_attached(refs) if r[0] in ("terrain", "zone", "ladder")]
        shapes = [r for r in refs if r[0] != "ladder"]
        if not shapes:
            raise EditError("only terrain pieces and deployment zones rotate")
        allpts = [p for r in shapes for p in self.points_of(r)]
        xs, ys = [p[0] for p in allpts], [p[1] for p in allpts]
        centre = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
        turned = []
        for ref in refs:
            pts = rotate_points(self.points_of(ref), centre, steps * ROTATE_STEP_DEG)
            self._check_on_table(pts, f"{ref[0]} {ref[1]}")
            turned.append((ref, pts))
        with self.edit(f"rotate {steps * ROTATE_STEP_DEG:+g} deg"):
            for ref, pts in turned:
                self._set_points(ref, pts)

    def bounds(self, ref: Ref) -> tuple[float, float, float, float]:
        pts = self.points_of(ref)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return (min(xs), min(ys), max(xs), max(ys))

    def resize(self, ref: Ref, new_bounds: tuple[float, float, float, float]) -> None:
        """Scale a terrain piece or zone so its bounding box becomes ``new_bounds``."""
        if ref[0] not in ("terrain", "zone"):
            raise EditError("only terrain pieces and deployment zones resize")
        x0, y0, x1, y1 = self.bounds(ref)
        nx0, ny0, nx1, ny1 = new_bounds
        nx0, nx1 = sorted((nx0, nx1))
        ny0, ny1 = sorted((ny0, ny1))
        if nx1 - nx0 < 0.05 or ny1 - ny0 < 0.05:
            raise EditError(f'too small: {nx1 - nx0:.2f}" x {ny1 - ny0:.2f}" (at least 0.05" each way)')
        sx = (nx1 - nx0) / (x1 - x0) if x1 > x0 else 1.0
        sy = (ny1 - ny0) / (y1 - y0) if y1 > y0 else 1.0
        pts = [(nx0 + (x - x0) * sx, ny0 + (y - y0) * sy) for x, y in self.points_of(ref)]
        with self.edit(f"resize {ref[1]}"):
            self._check_polygon(pts, f"{ref[0]} {ref[1]}")
            self._set_points(ref, pts)
            if ref[0] == "terrain":
                for ladder in self.sc.ladders:
                    if ladder.top == ref[1]:
                        ladder.foot = self._ladder_foot(self.terrain(ref[1]), ladder.foot)

    def duplicate(self, refs: Iterable[Ref], offset: Point = DUPLICATE_OFFSET) -> list[Ref]:
        """Copies of terrain, tokens and units, offset by (1", 1") (units slide out of overlap)."""
        out: list[Ref] = []
        refs = list(refs)
        with self.edit(f"duplicate {len(refs)} item(s)"):
            for kind, key in refs:
                if kind == "terrain":
                    t = self.terrain(key)
                    pts = [(x + offset[0], y + offset[1]) for x, y in t.polygon]
                    out.append(("terrain", self.add_terrain(t.kind, pts, t.height, self.new_id(t.kind))))
                elif kind == "treasure":
                    t = self.token(key)
                    out.append(("treasure", self.add_treasure((t.x + offset[0], t.y + offset[1]), t.event, t.size_mm)))
                elif kind == "unit":
                    u = self.unit(key)
                    nid = self.place_unit(
                        u.warband,
                        (u.x + offset[0], u.y + offset[1]),
                        name=u.name,
                        base_mm=u.base_mm,
                        stats=dict(u.stats),
                        keywords=list(u.keywords),
                        stem=stem(u.id),
                    )
                    out.append(("unit", nid))
        return out

    def delete(self, refs: Iterable[Ref]) -> None:
        refs = list(refs)
        if not refs:
            return
        sc = self.sc
        with self.edit(f"delete {len(refs)} item(s)"):
            for kind, key in refs:
                if not self.exists((kind, key)):
                    continue
                if kind == "terrain":
                    sc.terrain = [t for t in sc.terrain if t.id != key]
                    sc.ladders = [ladder for ladder in sc.ladders if ladder.top != key]
                elif kind == "ladder":
                    sc.ladders = [ladder for ladder in sc.ladders if ladder.id != key]
                elif kind == "treasure":
                    del sc.state.treasure[key]
                    for u in sc.state.units.values():
                        if u.carrying == key:
                            u.carrying = None
                elif kind == "unit":
                    del sc.state.units[key]
                    sc.unit_order = [u for u in sc.unit_order if u != key]
                    for tok in sc.state.treasure.values():
                        if tok.carried_by == key:
                            tok.carried_by = None
                elif kind == "zone":
                    del sc.deployment[key]
                elif kind == "warband":
                    for uid in [u.id for u in sc.state.units.values() if u.warband == key]:
                        del sc.state.units[uid]
                    sc.unit_order = [u for u in sc.unit_order if u in sc.state.units]
                    sc.deployment.pop(key, None)
                    sc.warbands = [w for w in sc.warbands if w.id != key]
                    sc.state.lost.pop(key, None)
                    self.rosters.pop(key, None)

    def item_at(self, p: Point, slack: float = 0.0) -> Ref | None:
        """The topmost item under a point: units, tokens, ladders, terrain (smallest first), zones."""
        x, y = p
        for u in reversed(list(self.sc.state.units.values())):
            if math.hypot(u.x - x, u.y - y) <= u.r + slack:
                return ("unit", u.id)
        for t in self.sc.state.treasure.values():
            if math.hypot(t.x - x, t.y - y) <= t.r + slack:
                return ("treasure", t.id)
        for ladder in self.sc.ladders:
            if math.hypot(ladder.foot[0] - x, ladder.foot[1] - y) <= 0.35 + slack:
                return ("ladder", ladder.id)
        pt = ShPoint(x, y)
        hits = [t for t in self.sc.terrain if Polygon(t.polygon).distance(pt) <= slack + 1e-9]
        if hits:
            t = min(hits, key=lambda t: Polygon(t.polygon).area)
            return ("terrain", t.id)
        for wid, zone in self.sc.deployment.items():
            if Polygon(zone).distance(pt) <= slack + 1e-9:
                return ("zone", wid)
        return None
