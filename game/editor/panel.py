"""The properties panel: pygame_gui fields that edit the selection (terrain id, kind and
height; a token's event and size; a unit's name, status, stats, base and keywords; a
warband's name and player) or, with nothing selected, the map's name, the wall
thickness and the active warband's name. Enter in a field applies it (one undo step);
a bad value is refused with a message and changes nothing."""

from __future__ import annotations

import math
from typing import Any, Callable

import pygame
import pygame_gui
from pygame_gui.elements import UIDropDownMenu, UILabel, UITextEntryLine

from game.editor.edits import EditError
from game.editor.host import EditorHost
from game.editor.tools import BoardTools, fmt
from game.engine.model import EVENT_KINDS, STATUSES, TERRAIN_KINDS


ROW_H = 32
LABEL_W = 110


class PropertiesPanel:
    def __init__(self, scene: EditorHost, tools: BoardTools):
        self.scene = scene
        self.tools = tools
        self.fields: dict[Any, Callable[[str], None]] = {}  # element -> what its value does
        self.elements: list[Any] = []
        self.bottom = 40  # where the fields end (the hand-drawn part goes below)
        self._key: Any = None

    # --- events -----------------------------------------------------------------------------
    def handle_ui_event(self, event) -> bool:
        if (
            event.type in (pygame_gui.UI_TEXT_ENTRY_FINISHED, pygame_gui.UI_DROP_DOWN_MENU_CHANGED)
            and event.ui_element in self.fields
        ):
            self.fields[event.ui_element](event.text)
            self._key = None
            if event.type == pygame_gui.UI_TEXT_ENTRY_FINISHED:
                # Enter hands the keyboard back to the table: T, V, B ... pick tools again.
                self.scene.app.ui.set_focus_set(None)
            return True
        return False

    def typing(self) -> bool:
        """A text field has the keyboard."""
        focus = self.scene.app.ui.get_focus_set() or set()
        return any(isinstance(e, UITextEntryLine) for e in focus)

    # --- building ---------------------------------------------------------------------------
    def forget(self) -> None:
        self._key = None

    def update(self) -> None:
        """Rebuild the fields when the selection, the document or the window changed."""
        scene = self.scene
        key = (tuple(scene.selection), scene.doc.revision, scene.size, scene.tool)
        if key != self._key and not self.typing() and self.tools.drag is None:
            self.build()
            self._key = key

    def kill(self) -> None:
        for e in self.elements:
            e.kill()
            if e in self.scene.elements:
                self.scene.elements.remove(e)
        self.elements.clear()
        self.fields.clear()

    def build(self) -> None:
        self.kill()
        scene = self.scene
        d = scene.doc
        p = scene.panel
        self._x, self._y, self._w = p.x + 10, 34, p.w - 20
        sel = scene.selection
        if len(sel) == 1:
            kind, key = sel[0]
            if kind == "terrain":
                t = d.terrain(key)
                self.entry("id", t.id, lambda v, k=key: self.set_terrain(k, new_id=v.strip()))
                self.choice("kind", TERRAIN_KINDS, t.kind, lambda v, k=key: self.set_terrain(k, kind=v))
                self.entry("height (in)", fmt(t.height), lambda v, k=key: self.set_terrain(k, height=v), numbers=True)
            elif kind == "treasure":
                tok = d.token(key)
                self.choice("hides", EVENT_KINDS, tok.event, lambda v, k=key: scene.attempt(d.set_treasure, k, event=v))
                self.entry(
                    "size (mm)",
                    fmt(tok.size_mm),
                    lambda v, k=key: self.number(v, lambda n: d.set_treasure(k, size_mm=n)),
                    numbers=True,
                )
            elif kind == "unit":
                self.unit_fields(key)
            elif kind == "ladder":
                self.ladder_fields(key)
            elif kind in ("zone", "warband"):
                w = d.warband(key)
                self.entry("warband", w.name, lambda v, k=key: scene.attempt(d.set_warband, k, name=v))
                self.entry(
                    "player",
                    str(w.player),
                    lambda v, k=key: self.number(v, lambda n: d.set_warband(k, player=int(n))),
                    numbers=True,
                )
        elif not sel:
            self.entry("map name", d.sc.name, lambda v: scene.attempt(d.set_name, v))
            self.entry(
                "wall (in)", fmt(scene.wall_thickness), lambda v: self.number(v, self.set_thickness), numbers=True
            )
            if scene.warband:
                w = d.warband(scene.warband)
                self.entry("warband", w.name, lambda v, k=w.id: scene.attempt(d.set_warband, k, name=v))
        self.bottom = self._y

    def ladder_fields(self, key: str) -> None:
        """A ladder: its id, the block it climbs, and its foot (x and y, moved by Enter)."""
        d = self.scene.doc
        lad = d.ladder(key)
        self.info("ladder", lad.id)
        try:
            self.info("up to", f'{lad.top} ({fmt(d.terrain(lad.top).height)}" high)')
        except EditError:
            self.info("up to", f"{lad.top} (not on the map)")
        for axis, name in enumerate(("foot x", "foot y")):
            self.entry(
                name,
                fmt(lad.foot[axis]),
                lambda v, a=axis: self.number(v, lambda n: self.move_foot(key, a, n)),
                numbers=True,
            )

    def move_foot(self, key: str, axis: int, value: float) -> None:
        foot = self.scene.doc.ladder(key).foot
        shift = value - foot[axis]
        self.scene.doc.move([("ladder", key)], shift if axis == 0 else 0.0, shift if axis == 1 else 0.0)

    def info(self, text: str, value: str) -> None:
        """A row that shows a value and takes no input."""
        self._label(text)
        self._add(UILabel(pygame.Rect(self._x + LABEL_W, self._y, self._w - LABEL_W, 28), value, self.scene.app.ui))
        self._y += ROW_H

    def unit_fields(self, key: str) -> None:
        scene, d = self.scene, self.scene.doc
        u = d.unit(key)
        self.entry("name", u.name, lambda v: scene.attempt(d.set_unit, key, name=v))
        self.choice("status", STATUSES, u.status, lambda v: scene.attempt(d.set_unit, key, status=v))
        for stat, value in u.stats.items():
            self.entry(
                stat,
                fmt(value),
                lambda v, s=stat: self.number(v, lambda n: d.set_unit(key, stats={s: n})),
                numbers=True,
            )
        self.entry(
            "base (mm)", fmt(u.base_mm), lambda v: self.number(v, lambda n: d.set_unit(key, base_mm=n)), numbers=True
        )
        self.entry(
            "keywords",
            ", ".join(u.keywords),
            lambda v: scene.attempt(
                d.set_unit, key, keywords=[s.strip() for s in v.replace(",", " ").split() if s.strip()]
            ),
        )

    def _add(self, element, apply: Callable[[str], None] | None = None) -> None:
        self.elements.append(element)
        self.scene.elements.append(element)
        if apply is not None:
            self.fields[element] = apply

    def _label(self, text: str) -> None:
        self._add(UILabel(pygame.Rect(self._x, self._y, LABEL_W - 2, 28), text, self.scene.app.ui))

    def entry(self, text: str, value: str, apply: Callable[[str], None], numbers: bool = False) -> UITextEntryLine:
        self._label(text)
        el = UITextEntryLine(pygame.Rect(self._x + LABEL_W, self._y, self._w - LABEL_W, 28), self.scene.app.ui)
        el.set_text(value)
        if numbers:
            el.set_allowed_characters([*"0123456789.-"])
        self._add(el, apply)
        self._y += ROW_H
        return el

    def choice(self, text: str, options: tuple[str, ...], value: str, apply: Callable[[str], None]) -> None:
        self._label(text)
        el = UIDropDownMenu(
            list(options), value, pygame.Rect(self._x + LABEL_W, self._y, self._w - LABEL_W, 28), self.scene.app.ui
        )
        self._add(el, apply)
        self._y += ROW_H

    # --- applying values ----------------------------------------------------------------------
    def set_thickness(self, n: float) -> None:
        if n <= 0:
            raise EditError(f"a wall needs a thickness more than 0, not {n:g}")
        self.scene.wall_thickness = n
        self.scene.say(f'walls are {fmt(n)}" thick')

    def number(self, text: str, fn: Callable[[float], Any]) -> None:
        try:
            n = float(text)
        except ValueError:
            n = math.nan
        if not math.isfinite(n):
            self.scene.say(f"not a number: {text!r}", bad=True)
            return
        self.scene.attempt(fn, n)

    def set_terrain(
        self, tid: str, kind: str | None = None, height: str | None = None, new_id: str | None = None
    ) -> None:
        scene = self.scene
        h = None
        if height is not None:
            try:
                h = float(height)
            except ValueError:
                scene.say(f"height: not a number: {height!r}", bad=True)
                return
        nid = scene.attempt(scene.doc.set_terrain, tid, kind=kind, height=h, new_id=new_id or None)
        if nid and nid != tid:
            scene.selection = [("terrain", nid) if r == ("terrain", tid) else r for r in scene.selection]
