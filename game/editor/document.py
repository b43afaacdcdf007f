"""The editor document: the scenario being edited plus an undo/redo stack.

Pure Python (no pygame). Every edit is a named command method (``add_terrain``,
``move``, ``rotate``, ...). A command either completes or raises :class:`EditError`
with a sentence and leaves the document untouched. Undo and redo use a snapshot stack
(python-chess style): before a command runs, the editable parts of the scenario are
copied; ``undo`` puts the copy back.

Items are named by references ``(kind, id)``: ``("terrain", "tower")``,
``("ladder", id)``, ``("treasure", id)``, ``("unit", id)``, ``("zone", warband_id)``,
``("warband", id)``.

Validation is exactly ``speedheim check``: the document is dumped to the YAML text a
save would write and loaded with :func:`game.engine.scenario.load_scenario`; every
:class:`Problem` is mapped back to the item its ``where`` path names.
"""

from __future__ import annotations

import copy
import gc
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon
from shapely.ops import nearest_points

from game.engine.errors import LoadError, Problem
from game.engine.geometry import Board
from game.engine.model import EVENT_KINDS, STATUSES, TERRAIN_KINDS, Ladder, Scenario, Terrain, Token, Unit, Warband
from game.editor.validate import LiveValidator
from game.engine.scenario import load_scenario, parse_scenario, save_scenario, scenario_to_dict
from game.engine.yamlsrc import dump_yaml

Ref = tuple[str, str]
Point = tuple[float, float]

#: Snapping choices, inches (None: off).
SNAP_STEPS: tuple[float | None, ...] = (0.25, 0.5, 1.0, None)
#: Table size limits for a new map, inches (issue 6).
TABLE_MIN = (24.0, 24.0)
TABLE_MAX = (72.0, 48.0)
#: Editor presets for new pieces (designers change them in the properties panel).
DEFAULT_HEIGHT = {"block": 3.0, "wall": 1.0, "difficult": 0.0, "impassable": 0.0}
DEFAULT_WALL_THICKNESS = 0.25
ROTATE_STEP_DEG = 15.0
DUPLICATE_OFFSET = (1.0, 1.0)
#: Ladder feet stand this far out from the block edge (and within the ruleset's ladder_reach).
LADDER_FOOT_OUT = 0.5
#: A click within this of a block edge places a ladder on it, inches.
LADDER_PICK = 1.0
PLAYER_COLOURS = {1: "#c0392b", 2: "#2980b9"}


class EditError(ValueError):
    """An edit the editor refuses, with a sentence that says why (numbers included)."""


@dataclass
class Finding:
    """A validation problem and the item it names (None: the whole map)."""

    problem: Problem
    ref: Ref | None

    @property
    def message(self) -> str:
        return self.problem.message

    def __str__(self) -> str:
        return str(self.problem)


@dataclass
class _Snap:
    name: str
    width: float
    height: float
    terrain: list
    ladders: list
    deployment: dict
    warbands: list
    units: dict
    treasure: dict
    unit_order: list
    rosters: dict


@dataclass
class History:
    label: str
    before: _Snap
    after: _Snap | None = None


def _r(v: float) -> float:
    return round(float(v), 6)


def rect(p0: Point, p1: Point) -> list[Point]:
    x0, x1 = sorted((p0[0], p1[0]))
    y0, y1 = sorted((p0[1], p1[1]))
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def wall_polygon(p0: Point, p1: Point, thickness: float) -> list[Point]:
    """A wall line from p0 to p1 as a rectangle ``thickness`` wide, centred on the line."""
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    length = math.hypot(dx, dy)
    if length <= 1e-9:
        raise EditError("a wall needs two different points")
    if thickness <= 0:
        raise EditError(f"a wall needs a thickness more than 0, not {thickness:g}\"")
    nx, ny = -dy / length * thickness / 2, dx / length * thickness / 2
    return [(_r(p0[0] + nx), _r(p0[1] + ny)), (_r(p1[0] + nx), _r(p1[1] + ny)),
            (_r(p1[0] - nx), _r(p1[1] - ny)), (_r(p0[0] - nx), _r(p0[1] - ny))]


def centroid(points: list[Point]) -> Point:
    c = Polygon(points).centroid
    return (c.x, c.y)


def rotate_points(points: Iterable[Point], centre: Point, degrees: float) -> list[Point]:
    a = math.radians(degrees)
    ca, sa = math.cos(a), math.sin(a)
    cx, cy = centre
    return [(_r(cx + (x - cx) * ca - (y - cy) * sa), _r(cy + (x - cx) * sa + (y - cy) * ca)) for x, y in points]


class Document:
    """A scenario under edit, with undo/redo, snapping, validation and saving."""

    def __init__(self, scenario: Scenario, path: str | None = None):
        self.sc = scenario
        self.path = path or scenario.file or None
        self.snap_step: float | None = 0.5
        self.rosters: dict[str, Any] = {}  # warband id -> Roster (what may still be placed)
        self.done: list[History] = []
        self.undone: list[History] = []
        self.revision = 0
        self.saved_revision = 0
        self._open: History | None = None
        self._depth = 0
        self._board: Board | None = None
        self._board_rev = -1
        self._findings: list[Finding] | None = None
        self._findings_rev = -1
        self.last_validation_ms = 0.0
        #: Problems the file had when opened (items with bad fields were left out).
        self.opened_with: list[Problem] = []
        self.validator = LiveValidator()

    # --- opening ----------------------------------------------------------------------
    @classmethod
    def open(cls, path: str) -> "Document":
        """Open a scenario file, also one saved with problems (``opened_with`` lists them).

        Items whose fields are bad are left out (the problems say which). A file that
        cannot be read as a map at all (YAML syntax, no usable table) raises LoadError.
        """
        from game.engine.yamlsrc import load_yaml, read_text

        try:
            return cls(load_scenario(path, playable=True), path)
        except LoadError:
            found: list[Problem] = []
            sc = parse_scenario(load_yaml(read_text(path), path), collect=found, playable=True)
            doc = cls(sc, path)
            doc.opened_with = found
            return doc

    @classmethod
    def new(cls, width: float, height: float, name: str = "New map", path: str | None = None) -> "Document":
        check_table_size(width, height)
        text = dump_yaml({"name": name, "table": {"width": width, "height": height}, "terrain": [], "warbands": []})
        sc = load_scenario(path or "new-map.yaml", text=text)
        sc.file = path or ""
        return cls(sc, path)

    # --- snapshots, undo, redo --------------------------------------------------------
    def _snapshot(self) -> _Snap:
        sc = self.sc
        return _Snap(sc.name, sc.width, sc.height, copy.deepcopy(sc.terrain), copy.deepcopy(sc.ladders),
                     copy.deepcopy(sc.deployment), copy.deepcopy(sc.warbands), copy.deepcopy(sc.state.units),
                     copy.deepcopy(sc.state.treasure), list(sc.unit_order), dict(self.rosters))

    def _restore(self, s: _Snap) -> None:
        sc = self.sc
        sc.name, sc.width, sc.height = s.name, s.width, s.height
        sc.terrain = copy.deepcopy(s.terrain)
        sc.ladders = copy.deepcopy(s.ladders)
        sc.deployment = copy.deepcopy(s.deployment)
        sc.warbands = copy.deepcopy(s.warbands)
        sc.state.units = copy.deepcopy(s.units)
        sc.state.treasure = copy.deepcopy(s.treasure)
        sc.unit_order = list(s.unit_order)
        sc.state.lost = {w.id: sc.state.lost.get(w.id, 0) for w in sc.warbands}
        self.rosters = dict(s.rosters)
        self._changed()

    def _changed(self) -> None:
        self.revision += 1

    @contextmanager
    def edit(self, label: str) -> Iterator[None]:
        """Run a command: on EditError (or any error) the document is left untouched.

        Nested commands (duplicate calls add_terrain) make one undo step; inside a
        transaction (a drag) the whole transaction is one step.
        """
        if self._depth or self._open is not None:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            self._changed()
            return
        before = self._snapshot()
        self._depth += 1
        try:
            yield
        except BaseException:
            self._depth -= 1
            self._restore(before)
            raise
        self._depth -= 1
        self.done.append(History(label, before))
        self.undone.clear()
        self._changed()

    def begin(self, label: str) -> None:
        """Start a transaction (a drag): many changes, one undo step, ended by commit()."""
        if self._open is None:
            self._open = History(label, self._snapshot())

    def commit(self) -> None:
        h, self._open = self._open, None
        if h is not None and self._snapshot() != h.before:
            self.done.append(h)
            self.undone.clear()
            self._changed()

    def cancel(self) -> None:
        h, self._open = self._open, None
        if h is not None:
            self._restore(h.before)

    @property
    def in_transaction(self) -> bool:
        return self._open is not None

    @property
    def can_undo(self) -> bool:
        return bool(self.done) and self._open is None

    @property
    def can_redo(self) -> bool:
        return bool(self.undone) and self._open is None

    def undo(self) -> str | None:
        if not self.can_undo:
            return None
        h = self.done.pop()
        h.after = self._snapshot()
        self._restore(h.before)
        self.undone.append(h)
        return h.label

    def redo(self) -> str | None:
        if not self.can_redo:
            return None
        h = self.undone.pop()
        assert h.after is not None
        self._restore(h.after)
        self.done.append(h)
        return h.label

    @property
    def dirty(self) -> bool:
        return self.revision != self.saved_revision

    # --- helpers ----------------------------------------------------------------------
    def snap(self, v: float) -> float:
        s = self.snap_step
        return _r(round(v / s) * s) if s else _r(v)

    def snap_point(self, p: Point) -> Point:
        return (self.snap(p[0]), self.snap(p[1]))

    def cycle_snap(self) -> float | None:
        i = SNAP_STEPS.index(self.snap_step) if self.snap_step in SNAP_STEPS else -1
        self.snap_step = SNAP_STEPS[(i + 1) % len(SNAP_STEPS)]
        return self.snap_step

    @property
    def board(self) -> Board:
        if self._board is None or self._board_rev != self.revision:
            self._board = Board(self.sc.width, self.sc.height, self.sc.terrain)
            self._board_rev = self.revision
        return self._board

    def all_ids(self) -> set[str]:
        sc = self.sc
        ids = {t.id for t in sc.terrain} | {l.id for l in sc.ladders} | {w.id for w in sc.warbands}
        return ids | set(sc.state.units) | set(sc.state.treasure)

    def new_id(self, stem: str) -> str:
        ids = self.all_ids()
        n = 1
        while f"{stem}-{n}" in ids:
            n += 1
        return f"{stem}-{n}"

    def terrain(self, tid: str) -> Terrain:
        try:
            return self.sc.terrain_by_id(tid)
        except KeyError:
            raise EditError(f"no terrain piece {tid!r}") from None

    def unit(self, uid: str) -> Unit:
        try:
            return self.sc.state.units[uid]
        except KeyError:
            raise EditError(f"no unit {uid!r}") from None

    def token(self, tid: str) -> Token:
        try:
            return self.sc.state.treasure[tid]
        except KeyError:
            raise EditError(f"no treasure token {tid!r}") from None

    def ladder(self, lid: str) -> Ladder:
        for l in self.sc.ladders:
            if l.id == lid:
                return l
        raise EditError(f"no ladder {lid!r}")

    def warband(self, wid: str) -> Warband:
        try:
            return self.sc.warband(wid)
        except KeyError:
            raise EditError(f"no warband {wid!r}") from None

    def exists(self, ref: Ref) -> bool:
        kind, key = ref
        sc = self.sc
        if kind == "terrain":
            return any(t.id == key for t in sc.terrain)
        if kind == "ladder":
            return any(l.id == key for l in sc.ladders)
        if kind == "treasure":
            return key in sc.state.treasure
        if kind == "unit":
            return key in sc.state.units
        if kind == "zone":
            return key in sc.deployment
        if kind == "warband":
            return any(w.id == key for w in sc.warbands)
        return False

    def _check_on_table(self, points: list[Point], what: str) -> None:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        if min(xs) < -1e-6 or min(ys) < -1e-6 or max(xs) > self.sc.width + 1e-6 or max(ys) > self.sc.height + 1e-6:
            raise EditError(f"{what} would go off the {self.sc.width:g}\" x {self.sc.height:g}\" table "
                            f"(it spans x {min(xs):g}..{max(xs):g}, y {min(ys):g}..{max(ys):g})")

    def _check_polygon(self, points: list[Point], what: str) -> list[Point]:
        pts = [(_r(x), _r(y)) for x, y in points]
        if len(pts) > 1 and pts[0] == pts[-1]:
            pts = pts[:-1]
        if len(pts) < 3:
            raise EditError(f"{what} needs at least 3 points, has {len(pts)}")
        poly = Polygon(pts)
        if not poly.is_valid:
            raise EditError(f"{what} crosses itself")
        if poly.area <= 1e-6:
            raise EditError(f"{what} has no area (its points are in a line)")
        self._check_on_table(pts, what)
        return pts

    # --- terrain commands -------------------------------------------------------------
    def add_terrain(self, kind: str, polygon: list[Point], height: float | None = None, tid: str | None = None) -> str:
        if kind not in TERRAIN_KINDS:
            raise EditError(f"unknown terrain kind {kind!r} (one of {', '.join(TERRAIN_KINDS)})")
        h = DEFAULT_HEIGHT[kind] if height is None else float(height)
        if kind in ("block", "wall") and h <= 0:
            raise EditError(f"a {kind} needs a height more than 0, not {h:g}\"")
        if h < 0:
            raise EditError(f"height must not be negative ({h:g}\")")
        tid = tid or self.new_id(kind)
        if tid in self.all_ids():
            raise EditError(f"id {tid!r} is already used")
        with self.edit(f"add {kind} {tid}"):
            pts = self._check_polygon(list(polygon), f"{kind} {tid}")
            self.sc.terrain.append(Terrain(tid, kind, pts, h))
        return tid

    def add_rect(self, kind: str, p0: Point, p1: Point, height: float | None = None) -> str:
        return self.add_terrain(kind, rect(p0, p1), height)

    def add_wall(self, p0: Point, p1: Point, thickness: float = DEFAULT_WALL_THICKNESS, height: float | None = None,
                 kind: str = "wall") -> str:
        return self.add_terrain(kind, wall_polygon(p0, p1, thickness), height)

    def set_terrain(self, tid: str, kind: str | None = None, height: float | None = None, new_id: str | None = None) -> str:
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
                raise EditError(f"a {k} needs a height more than 0, not {h:g}\"")
        if new_id is not None and new_id != tid:
            _check_id(new_id)
            if new_id in self.all_ids():
                raise EditError(f"id {new_id!r} is already used")
        with self.edit(f"set {tid}"):
            t.kind, t.height = k, h
            if new_id and new_id != tid:
                for l in self.sc.ladders:
                    if l.top == tid:
                        l.top = new_id
                t.id = new_id
        return t.id

    # --- generic item commands --------------------------------------------------------
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
        pts = [(_r(x), _r(y)) for x, y in pts]
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

    def _with_attached(self, refs: Iterable[Ref]) -> list[Ref]:
        """Refs plus the ladders of moved blocks (a ladder follows its block)."""
        out = list(dict.fromkeys(refs))
        blocks = {k for kind, k in out if kind == "terrain"}
        for l in self.sc.ladders:
            if l.top in blocks and ("ladder", l.id) not in out:
                out.append(("ladder", l.id))
        return out

    def move(self, refs: Iterable[Ref], dx: float, dy: float) -> None:
        """Move items by (dx, dy) inches; a block's ladders come along."""
        refs = self._with_attached(refs)
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

    def move_to(self, ref: Ref, at: Point) -> None:
        """Move an item so that its anchor (first point / centre) lands on ``at``."""
        pts = self.points_of(ref)
        anchor = pts[0] if len(pts) == 1 else centroid(pts)
        self.move([ref], at[0] - anchor[0], at[1] - anchor[1])

    def rotate(self, refs: Iterable[Ref], steps: int = 1) -> None:
        """Rotate terrain and zones by ``steps`` x 15 degrees around their common centre."""
        refs = [r for r in self._with_attached(refs) if r[0] in ("terrain", "zone", "ladder")]
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
            raise EditError(f"too small: {nx1 - nx0:.2f}\" x {ny1 - ny0:.2f}\" (at least 0.05\" each way)")
        sx = (nx1 - nx0) / (x1 - x0) if x1 > x0 else 1.0
        sy = (ny1 - ny0) / (y1 - y0) if y1 > y0 else 1.0
        pts = [(nx0 + (x - x0) * sx, ny0 + (y - y0) * sy) for x, y in self.points_of(ref)]
        with self.edit(f"resize {ref[1]}"):
            self._check_polygon(pts, f"{ref[0]} {ref[1]}")
            self._set_points(ref, pts)
            if ref[0] == "terrain":
                for l in self.sc.ladders:
                    if l.top == ref[1]:
                        l.foot = self._ladder_foot(self.terrain(ref[1]), l.foot)

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
                    nid = self.place_unit(u.warband, (u.x + offset[0], u.y + offset[1]), name=u.name, base_mm=u.base_mm,
                                          stats=dict(u.stats), keywords=list(u.keywords), stem=_stem(u.id))
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
                    sc.ladders = [l for l in sc.ladders if l.top != key]
                elif kind == "ladder":
                    sc.ladders = [l for l in sc.ladders if l.id != key]
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

    # --- ladders ----------------------------------------------------------------------
    def _ladder_foot(self, block: Terrain, near: Point) -> Point:
        poly = Polygon(block.polygon)
        edge_pt = nearest_points(poly.exterior, ShPoint(near))[0]
        ex, ey = edge_pt.x, edge_pt.y
        # The outward direction: from the edge point away from the block's inside.
        dx, dy = near[0] - ex, near[1] - ey
        d = math.hypot(dx, dy)
        if d < 1e-6 or poly.contains(ShPoint(near)):
            # Clicked on/inside the edge: use the outward normal of the nearest edge segment.
            coords = list(poly.exterior.coords)
            best = min(range(len(coords) - 1), key=lambda i: _seg_dist(coords[i], coords[i + 1], (ex, ey)))
            (ax, ay), (bx, by) = coords[best], coords[best + 1]
            nx, ny = by - ay, -(bx - ax)
            n = math.hypot(nx, ny) or 1.0
            nx, ny = nx / n, ny / n
            if poly.contains(ShPoint(ex + nx * 0.01, ey + ny * 0.01)):
                nx, ny = -nx, -ny
            dx, dy, d = nx, ny, 1.0
        out = min(LADDER_FOOT_OUT, float(self.sc.ruleset.get("ladder_reach", 1.0)) / 2)
        return (_r(ex + dx / d * out), _r(ey + dy / d * out))

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
            raise EditError(f"no block edge within {LADDER_PICK:g}\" of [{at[0]:.2f}, {at[1]:.2f}]: click on a block's edge")
        if block.kind != "block":
            raise EditError(f"{block.id} is a {block.kind}; ladders reach the top of a block")
        foot = self._ladder_foot(block, at)
        if not (0 <= foot[0] <= self.sc.width and 0 <= foot[1] <= self.sc.height):
            raise EditError(f"the ladder's foot [{foot[0]:.2f}, {foot[1]:.2f}] would be off the table")
        below = self.board.height_at(*foot)
        if below >= block.height:
            raise EditError(f"the ladder's foot [{foot[0]:.2f}, {foot[1]:.2f}] would stand on something {below:g}\" high, "
                            f"not lower than {block.id} ({block.height:g}\")")
        lid = lid or self.new_id(f"{block.id}-ladder")
        with self.edit(f"add ladder {lid}"):
            self.sc.ladders.append(Ladder(lid, foot, block.id))
        return lid

    # --- treasure ---------------------------------------------------------------------
    def add_treasure(self, at: Point, event: str = "none", size_mm: float | None = None, tid: str | None = None) -> str:
        if event not in EVENT_KINDS:
            raise EditError(f"event must be one of {', '.join(EVENT_KINDS)}, not {event!r}")
        rs = self.sc.ruleset
        size = float(size_mm or rs.token_size_mm)
        r = rs.radius(size)
        x, y = at
        if not self.board.disc_on_table(x, y, r):
            raise EditError(f"a {size:g} mm token at [{x:.2f}, {y:.2f}] would reach off the table")
        for piece in self.board.pieces_touching_disc(x, y, r, ("wall", "impassable")):
            raise EditError(f"a token at [{x:.2f}, {y:.2f}] would stand inside {piece.kind} {piece.id}")
        tid = tid or self.new_id("t")
        with self.edit(f"add treasure {tid}"):
            self.sc.state.treasure[tid] = Token(tid, _r(x), _r(y), size, r, event)
        return tid

    def set_treasure(self, tid: str, event: str | None = None, size_mm: float | None = None) -> None:
        tok = self.token(tid)
        if event is not None and event not in EVENT_KINDS:
            raise EditError(f"event must be one of {', '.join(EVENT_KINDS)}, not {event!r}")
        if size_mm is not None and (not math.isfinite(size_mm) or size_mm <= 0):
            raise EditError(f"token size must be more than 0 mm, not {size_mm:g}")
        with self.edit(f"set {tid}"):
            if event is not None:
                tok.event = event
            if size_mm is not None:
                tok.size_mm = float(size_mm)
                tok.r = self.sc.ruleset.radius(tok.size_mm)

    def cycle_event(self, tid: str) -> str:
        tok = self.token(tid)
        nxt = EVENT_KINDS[(EVENT_KINDS.index(tok.event) + 1) % len(EVENT_KINDS)]
        self.set_treasure(tid, event=nxt)
        return nxt

    # --- warbands, zones, rosters, units ----------------------------------------------
    def add_warband(self, wid: str, player: int | None = None, name: str | None = None, colour: str | None = None) -> str:
        _check_id(wid)
        if wid in self.all_ids():
            raise EditError(f"id {wid!r} is already used")
        used = {w.player for w in self.sc.warbands}
        if player is None:
            player = next(p for p in range(1, 100) if p not in used)
        if player in used and player != 0:
            raise EditError(f"player {player} already plays a warband")
        with self.edit(f"add warband {wid}"):
            self.sc.warbands.append(Warband(wid, player, name or wid, colour))
            self.sc.state.lost.setdefault(wid, 0)
        return wid

    def set_warband(self, wid: str, name: str | None = None, player: int | None = None) -> None:
        w = self.warband(wid)
        if player is not None and player != w.player and any(o.player == player for o in self.sc.warbands):
            raise EditError(f"player {player} already plays a warband")
        with self.edit(f"set warband {wid}"):
            if name is not None:
                w.name = name
            if player is not None:
                w.player = int(player)

    def set_zone(self, wid: str, polygon: list[Point]) -> None:
        self.warband(wid)
        with self.edit(f"zone {wid}"):
            self.sc.deployment[wid] = self._check_polygon(list(polygon), f"deployment zone {wid}")

    def load_roster(self, roster, wid: str | None = None, player: int | None = None) -> str:
        """Attach a roster to a warband (created if needed): its units may then be placed."""
        wid = wid or roster.id
        with self.edit(f"roster {roster.name}"):
            if not self.exists(("warband", wid)):
                if wid in self.all_ids():
                    wid = self.new_id(wid)
                self.add_warband(wid, player, roster.name, roster.colour)
            self.rosters[wid] = roster
        return wid

    def to_place(self, wid: str) -> list[tuple[Any, int]]:
        """Roster entries of a warband with how many of each are still to place."""
        roster = self.rosters.get(wid)
        if roster is None:
            return []
        placed: dict[str, int] = {}
        for u in self.sc.state.units.values():
            if u.warband == wid:
                placed[_stem(u.id)] = placed.get(_stem(u.id), 0) + 1
        return [(e, max(0, e.count - placed.get(f"{wid}-{e.stem}", 0))) for e in roster.entries]

    def place_from_roster(self, wid: str, entry_key: str, at: Point) -> str:
        roster = self.rosters.get(wid)
        if roster is None:
            raise EditError(f"warband {wid} has no roster loaded")
        try:
            e = roster.entry(entry_key)
        except KeyError:
            raise EditError(f"roster {roster.name} has no unit {entry_key!r}") from None
        return self.place_unit(wid, at, name=e.name, base_mm=e.base_mm, stats=dict(e.stats), keywords=list(e.keywords),
                               stem=f"{wid}-{e.stem}")

    def place_unit(self, wid: str, at: Point, *, name: str, base_mm: float, stats: dict, keywords: list[str] | None = None,
                   stem: str | None = None, uid: str | None = None, slide: bool = True) -> str:
        """Place a base; inside the warband's zone if it has one; slid out of overlaps."""
        from game.editor.placement import free_spot

        w = self.warband(wid)
        r = self.sc.ruleset.radius(base_mm)
        zone = self.sc.deployment.get(wid)
        if zone is not None and not Polygon(zone).buffer(1e-6).contains(ShPoint(at)):
            raise EditError(f"[{at[0]:.2f}, {at[1]:.2f}] is outside {w.id}'s deployment zone: place units inside it")
        spot = free_spot(self, at, r, zone=zone) if slide else at
        if spot is None:
            raise EditError(f"no room for a {base_mm:g} mm base near [{at[0]:.2f}, {at[1]:.2f}] "
                            "(bases may not overlap or stand in walls or impassable ground)")
        uid = uid or self.new_id(stem or f"{wid}-{_slug(name)}")
        if uid in self.all_ids():
            raise EditError(f"id {uid!r} is already used")
        with self.edit(f"place {uid}"):
            self.sc.state.units[uid] = Unit(uid, name, wid, _r(spot[0]), _r(spot[1]), float(base_mm), r, dict(stats),
                                            list(keywords or []))
            self.sc.unit_order.append(uid)
        return uid

    def place_unit_at(self, uid: str, at: Point, slide: bool = True) -> Point:
        """Move a unit to ``at`` (slid out of overlap); returns where it ended."""
        from game.editor.placement import free_spot

        u = self.unit(uid)
        spot = free_spot(self, at, u.r, ignore=uid) if slide else at
        if spot is None:
            raise EditError(f"no room for {uid} near [{at[0]:.2f}, {at[1]:.2f}]")
        self.move([("unit", uid)], spot[0] - u.x, spot[1] - u.y)
        return (u.x, u.y)

    def set_unit(self, uid: str, *, name: str | None = None, stats: dict | None = None, status: str | None = None,
                 keywords: list[str] | None = None, base_mm: float | None = None) -> None:
        u = self.unit(uid)
        if status is not None and status not in STATUSES:
            raise EditError(f"unknown status {status!r} (one of {', '.join(STATUSES)})")
        for k, v in (stats or {}).items():
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
                raise EditError(f"{k} must be a number of 0 or more, not {v!r}")
        if base_mm is not None and (not math.isfinite(base_mm) or base_mm <= 0):
            raise EditError(f"base must be more than 0 mm, not {base_mm:g}")
        with self.edit(f"set {uid}"):
            if name is not None:
                u.name = name
            if stats:
                u.stats.update({k: v for k, v in stats.items()})
            if status is not None:
                u.status = status
            if keywords is not None:
                u.keywords = list(keywords)
            if base_mm is not None:
                u.base_mm = float(base_mm)
                u.r = self.sc.ruleset.radius(u.base_mm)

    def set_name(self, name: str) -> None:
        if not name.strip():
            raise EditError("the map needs a name")
        with self.edit("rename map"):
            self.sc.name = name

    # --- hit testing (pure geometry; the scene converts pixels to inches) -------------
    def item_at(self, p: Point, slack: float = 0.0) -> Ref | None:
        """The topmost item under a point: units, tokens, ladders, terrain (smallest first), zones."""
        x, y = p
        for u in reversed(list(self.sc.state.units.values())):
            if math.hypot(u.x - x, u.y - y) <= u.r + slack:
                return ("unit", u.id)
        for t in self.sc.state.treasure.values():
            if math.hypot(t.x - x, t.y - y) <= t.r + slack:
                return ("treasure", t.id)
        for l in self.sc.ladders:
            if math.hypot(l.foot[0] - x, l.foot[1] - y) <= 0.35 + slack:
                return ("ladder", l.id)
        pt = ShPoint(x, y)
        hits = [t for t in self.sc.terrain if Polygon(t.polygon).distance(pt) <= slack + 1e-9]
        if hits:
            t = min(hits, key=lambda t: Polygon(t.polygon).area)
            return ("terrain", t.id)
        for wid, zone in self.sc.deployment.items():
            if Polygon(zone).distance(pt) <= slack + 1e-9:
                return ("zone", wid)
        return None

    # --- file data, validation, saving ------------------------------------------------
    def to_dict(self) -> dict:
        return scenario_to_dict(self.sc)

    def to_text(self) -> str:
        return dump_yaml(self.to_dict())

    def validate(self) -> list[Finding]:
        """The problems ``speedheim check`` would report for the saved file, with their items."""
        if self._findings is not None and self._findings_rev == self.revision:
            return self._findings
        t0 = time.perf_counter()
        # The check makes many short-lived objects: collecting them mid-check doubled its
        # worst case on stress.yaml; the collector runs after it instead.
        paused = gc.isenabled()
        gc.disable()
        try:
            data = self.to_dict()
            path = self.path or "untitled.yaml"
            findings = [Finding(p, ref_of(data, p.where)) for p in self.validator.check(path, data)]
        finally:
            if paused:
                gc.enable()
        self.last_validation_ms = (time.perf_counter() - t0) * 1000
        self._findings, self._findings_rev = findings, self.revision
        return findings

    @property
    def problems(self) -> list[Finding]:
        return self.validate()

    def save(self, path: str | None = None) -> list[Finding]:
        """Write the file atomically; returns the problems it still has (saving is allowed)."""
        path = path or self.path
        if not path:
            raise EditError("no file name to save to")
        save_scenario(self.sc, path)
        self.path = path
        self.sc.file = path
        self.saved_revision = self.revision
        self._findings = None
        return self.validate()


def ref_of(data: dict, where: str) -> Ref | None:
    """The item a Problem's dotted ``where`` path names, walking the dumped file data."""
    if not where:
        return None
    parts = where.split(".")
    head = parts[0]
    try:
        if head == "terrain" and len(parts) > 1:
            return ("terrain", data["terrain"][int(parts[1])]["id"])
        if head == "ladders" and len(parts) > 1:
            return ("ladder", data["ladders"][int(parts[1])]["id"])
        if head == "treasure" and len(parts) > 1:
            return ("treasure", data["treasure"][int(parts[1])]["id"])
        if head == "deployment" and len(parts) > 1:
            return ("zone", parts[1])
        if head == "warbands" and len(parts) > 1:
            w = data["warbands"][int(parts[1])]
            if len(parts) > 3 and parts[2] == "units":
                return ("unit", w["units"][int(parts[3])]["id"])
            return ("warband", w["id"])
    except (KeyError, IndexError, ValueError, TypeError):
        return None
    return None


def check_table_size(width: float, height: float) -> None:
    lo_w, lo_h = TABLE_MIN
    hi_w, hi_h = TABLE_MAX
    w, h = max(width, height), min(width, height)
    if not (lo_w <= w <= hi_w and lo_h <= h <= hi_h):
        raise EditError(f"table {width:g}\" x {height:g}\" is outside {lo_w:g}x{lo_h:g} to {hi_w:g}x{hi_h:g} inches")


def _check_id(ident: str) -> None:
    if not isinstance(ident, str) or not ident.strip() or any(c.isspace() for c in ident):
        raise EditError(f"id {ident!r} must be one word with no spaces")


def _slug(text: str) -> str:
    from game.editor.roster import slug

    return slug(text)


def _stem(uid: str) -> str:
    """``reavers-reaver-2`` -> ``reavers-reaver`` (ids made by new_id end in -N)."""
    head, _, tail = uid.rpartition("-")
    return head if head and tail.isdigit() else uid


def _seg_dist(a, b, p) -> float:
    ax, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax, by - ay
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / L))
    return math.hypot(ax + t * dx - px, ay + t * dy - py)
