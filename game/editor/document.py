"""The editor document: the scenario being edited, its undo history, snapping and checks.

Pure Python (no pygame). Every edit is a named command method (``add_terrain``,
``move``, ``rotate``, ...: :mod:`terrain_ops`, :mod:`item_ops`, :mod:`piece_ops`). A
command either completes or raises :class:`EditError` with a sentence and leaves the
document untouched; each is one undo step (:mod:`game.editor.history`).

Validation is exactly ``speedheim check``: the document is dumped to the YAML text a
save would write and loaded with :func:`game.engine.scenario.load_scenario`; every
:class:`Problem` is mapped back to the item its ``where`` path names.
"""

from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from shapely.geometry import Polygon

from game.editor.edits import SNAP_STEPS, EditError, Point, Ref, check_table_size, rnd
from game.editor.history import UndoStack
from game.editor.item_ops import ItemCommands
from game.editor.piece_ops import PieceCommands
from game.editor.roundtrip import Tree, dump, file_line, item_ids, merge, unread_shapes
from game.editor.terrain_ops import TerrainCommands
from game.editor.validate import LiveValidator
from game.engine.errors import LoadError, Problem
from game.engine.geometry import Board
from game.engine.model import Ladder, Scenario, Terrain, Token, Unit, Warband
from game.engine.files import atomic_write
from game.engine.scenario import load_scenario, parse_scenario, scenario_to_dict
from game.engine.yamlsrc import dump_yaml


@dataclass
class Finding:
    """A validation problem and the item it names (None: the whole map)."""

    problem: Problem
    ref: Ref | None
    #: In what the editor could not read (kept in the file as written).
    unread: bool = False

    @property
    def message(self) -> str:
        return self.problem.message

    def __str__(self) -> str:
        return str(self.problem)


class Document(TerrainCommands, ItemCommands, PieceCommands):
    """A scenario under edit, with undo/redo, snapping, validation and saving."""

    def __init__(self, scenario: Scenario, path: str | None = None):
        self.sc = scenario
        self.path = path or scenario.file or None
        self.snap_step: float | None = 0.5
        self.rosters: dict[str, Any] = {}  # warband id -> Roster (what may still be placed)
        self.history = UndoStack(self)
        self.revision = 0
        self.saved_revision = 0
        self._board: Board | None = None
        self._board_rev = -1
        self._findings: list[Finding] | None = None
        self._findings_rev = -1
        self.last_validation_ms = 0.0
        #: Problems the file had when opened (items with bad fields were left out).
        self.opened_with: list[Problem] = []
        #: The file as last opened or saved (None: a new map, written out whole).
        self.file_text: str | None = None
        self.file_tree: Tree | None = None
        self.keep_error = ""
        #: The model as file data when the file was read: what a save compares against.
        self.base: dict = {}
        #: Problems of the file on disk that the model cannot show: items and keys it
        #: could not read, kept in the file as written (FILE:LINE of the file).
        self.unread: list[Problem] = []
        #: Ids of those unread items (new items never take them).
        self.kept_ids: set[str] = set()
        self.unread_shapes: list = []
        #: Items renamed since the file was read: new id -> the id the file has (a save
        #: keeps the renamed item's node: its comments and the keys the model does not hold).
        self.renames: dict[str, str] = {}
        self.validator = LiveValidator()

    # --- opening ----------------------------------------------------------------------
    @classmethod
    def open(cls, path: str) -> "Document":
        """Open a scenario file, also one saved with problems (``opened_with`` lists them).

        Items whose fields are bad are left out of the model (``unread`` lists their
        problems, with the file's lines); saving keeps them in the file as they were
        written, with every comment (:mod:`game.editor.roundtrip`). A file that cannot
        be read as a map at all (YAML syntax, no usable table) raises LoadError.
        """
        from game.engine.yamlsrc import load_yaml, read_text

        text = read_text(path, exact=True)
        try:
            doc = cls(load_scenario(path, text=text, playable=True), path)
        except LoadError:
            found: list[Problem] = []
            sc = parse_scenario(load_yaml(text, path), collect=found, playable=True)
            sc.file = path
            doc = cls(sc, path)
            doc.opened_with = found
        doc._read_file(text, doc.opened_with)
        return doc

    def _read_file(self, text: str, file_problems: list[Problem] | None = None) -> None:
        """Remember the file as it is on disk: its text, its round-trip tree, the model as
        file data, and what in it the model does not hold (``unread``)."""
        self.file_text = text
        self.file_tree = Tree.read(text)
        self.keep_error = Tree.error if self.file_tree is None else ""
        self.base = self.to_dict()
        self.renames = {}
        self._findings = None
        if file_problems is None:
            try:
                load_scenario(self.path or "untitled.yaml", text=text, playable=True)
                file_problems = []
            except LoadError as exc:
                file_problems = list(exc.problems)
        live = {p.message for p in self.validator.check(self.path or "untitled.yaml", self.base)}
        self.unread = [p for p in file_problems if p.message not in live]
        tree = self.file_tree
        model = set(self._model_ids(self.base))
        self.kept_ids = item_ids(tree.data) - model if tree is not None else set()
        #: Where the unread items stand as far as the file says (the editor draws them).
        self.unread_shapes = unread_shapes(tree.data, model) if tree is not None and self.unread else []

    @staticmethod
    def _model_ids(data: dict) -> Iterator[str]:
        for key in ("terrain", "ladders", "treasure", "warbands"):
            for item in data.get(key) or ():
                yield str(item["id"])
                for u in item.get("units", ()) if key == "warbands" else ():
                    yield str(u["id"])

    @property
    def has_unread(self) -> bool:
        """The file on disk holds items or keys the model does not (saving keeps them)."""
        return bool(self.unread)

    @classmethod
    def new(cls, width: float, height: float, name: str = "New map", path: str | None = None) -> "Document":
        check_table_size(width, height)
        text = dump_yaml({"name": name, "table": {"width": width, "height": height}, "terrain": [], "warbands": []})
        sc = load_scenario(path or "new-map.yaml", text=text)
        sc.file = path or ""
        return cls(sc, path)

    def renamed(self, old: str, new: str) -> None:
        """Note a rename (``old`` -> ``new``) for the next save."""
        self.renames[new] = self.renames.pop(old, old)

    # --- undo and redo (the history does the work) --------------------------------------
    def changed(self) -> None:
        self.revision += 1

    @contextmanager
    def edit(self, label: str) -> Iterator[None]:
        """Run a command as one undo step; on any error the document is left untouched."""
        with self.history.edit(label):
            yield

    def begin(self, label: str) -> None:
        """Start a transaction (a drag): many changes, one undo step, ended by commit()."""
        self.history.begin(label)

    def commit(self) -> None:
        self.history.commit()

    def cancel(self) -> None:
        self.history.cancel()

    @property
    def in_transaction(self) -> bool:
        return self.history.in_transaction

    @property
    def can_undo(self) -> bool:
        return self.history.can_undo

    @property
    def can_redo(self) -> bool:
        return self.history.can_redo

    def undo(self) -> str | None:
        return self.history.undo()

    def redo(self) -> str | None:
        return self.history.redo()

    @property
    def dirty(self) -> bool:
        return self.revision != self.saved_revision

    # --- helpers ----------------------------------------------------------------------
    def snap(self, v: float) -> float:
        s = self.snap_step
        return rnd(round(v / s) * s) if s else rnd(v)

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
        ids = {t.id for t in sc.terrain} | {ladder.id for ladder in sc.ladders} | {w.id for w in sc.warbands}
        return ids | set(sc.state.units) | set(sc.state.treasure) | self.kept_ids

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
        for ladder in self.sc.ladders:
            if ladder.id == lid:
                return ladder
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
            return any(ladder.id == key for ladder in sc.ladders)
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
            raise EditError(
                f'{what} would go off the {self.sc.width:g}" x {self.sc.height:g}" table '
                f"(it spans x {min(xs):g}..{max(xs):g}, y {min(ys):g}..{max(ys):g})"
            )

    def _check_polygon(self, points: list[Point], what: str) -> list[Point]:
        pts = [(rnd(x), rnd(y)) for x, y in points]
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

    # --- file data, validation, saving ------------------------------------------------
    def to_dict(self) -> dict:
        return scenario_to_dict(self.sc)

    def to_text(self) -> str:
        return dump_yaml(self.to_dict())

    def validate(self) -> list[Finding]:
        """The problems ``speedheim check`` would report for the saved file, with their items.

        The model's problems are checked live; those of items the model could not read
        (kept in the file as written) are the file's own, with its lines. Lines are
        those of the file on disk (as opened or last saved), where it holds the item.
        """
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
            findings = [
                Finding(self._on_file(p, data), ref_of(data, p.where)) for p in self.validator.check(path, data)
            ]
        finally:
            if paused:
                gc.enable()
        findings += [Finding(p, None, unread=True) for p in self.unread]
        findings.sort(key=lambda f: (f.problem.line, f.problem.message))
        self.last_validation_ms = (time.perf_counter() - t0) * 1000
        self._findings, self._findings_rev = findings, self.revision
        return findings

    def _on_file(self, p: Problem, data: dict) -> Problem:
        """``p`` with the line the file on disk has for what it names."""
        if self.file_tree is None:
            return p
        line = file_line(self.file_tree.data, data, p.where) or (1 if not p.where else None)
        return Problem(p.file, line, p.message, p.where) if line is not None else p

    @property
    def problems(self) -> list[Finding]:
        return self.validate()

    @property
    def keeps_file(self) -> bool:
        """Saving over the file can keep all it holds (False: ruamel.yaml cannot read its
        layout; :attr:`keep_error` says why, and only a save under a new name is allowed)."""
        return self.file_text is None or self.file_tree is not None

    def save_text(self, path: str | None = None) -> str:
        """The text a save writes: the file as it was, with the edits applied (comments,
        key order, layout and unread items kept), or the whole map for a new file."""
        new = self.to_dict()
        if self.file_text is None:
            return dump_yaml(new)
        tree, self.file_tree = self.file_tree, None  # merged into below: read again after the save
        if tree is None:
            if path is None or os.path.abspath(path) == os.path.abspath(self.path or ""):
                raise EditError(
                    f"cannot save over {os.path.basename(self.path or '')}: its layout cannot be kept "
                    f"({self.keep_error}); save under a new name"
                )
            return dump_yaml(new)  # a new file: the old one stays as it was
        return dump(tree, merge(tree.data, self.base, new, self.renames))

    def save(self, path: str | None = None) -> list[Finding]:
        """Write the file atomically; returns the problems it still has (saving is allowed).

        Nothing the file held is dropped: see :meth:`save_text`.
        """
        path = path or self.path
        if not path:
            raise EditError("no file name to save to")
        try:
            text = self.save_text(path)
            atomic_write(path, text)
        except BaseException:
            if self.file_text is not None and self.file_tree is None:
                self.file_tree = Tree.read(self.file_text)
            raise
        self.path = path
        self.sc.file = path
        self.saved_revision = self.revision
        if self.file_text is not None:
            self._read_file(text)
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
