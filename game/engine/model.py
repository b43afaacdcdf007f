"""The plain game model: the map (static) and the game state (changed by actions).

Everything is in inches, with the origin at the table's top-left corner, x to the
right and y down. A unit's z is never stored: it is the surface height under its
centre (:meth:`game.engine.geometry.Board.height_at`).
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from game.engine.decisions import Decision
from game.engine.params import Ruleset

Point = tuple[float, float]

TERRAIN_KINDS = ("block", "wall", "difficult", "impassable")
EVENT_KINDS = ("none", "event", "plague")
STATUSES = ("normal", "staggered", "dazed", "stunned", "incapacitated")
#: Units with these statuses block friendly movement (M5); enemies always block.
BLOCKING_STATUSES = ("stunned", "dazed")


@dataclass
class Terrain:
    id: str
    kind: str
    polygon: list[Point]
    height: float = 0.0

    @property
    def solid(self) -> bool:
        return self.kind in ("block", "wall")


@dataclass
class Ladder:
    id: str
    foot: Point
    top: str  # id of a block terrain piece


@dataclass
class Warband:
    id: str
    player: int  # 1 or 2; 0 for the neutrals of an Event
    name: str = ""
    colour: str | None = None  # "#rrggbb"; a default per player otherwise


@dataclass
class Unit:
    id: str
    name: str
    warband: str
    x: float
    y: float
    base_mm: float
    r: float  # base radius in inches, derived from base_mm and the ruleset
    stats: dict[str, float]
    keywords: list[str] = field(default_factory=list)
    status: str = "normal"
    carrying: str | None = None
    on_table: bool = True
    spells: list[str] = field(default_factory=list)  # ongoing spells (U8)
    # Flags of the current turn, cleared when the turn passes.
    ran: bool = False
    moved: bool = False
    reloaded: bool = False
    engage_attempted: bool = False
    shots: int = 0  # shots fired this turn (S1)
    attacks: int = 0  # melee attacks made this turn (F1)
    loaded: bool = True  # a reload weapon that fired is unloaded until it Reloads (M11)
    engaged_with: list[str] = field(default_factory=list)
    difficult: bool = False  # moved through difficult ground this turn (M12)
    used: float = 0.0  # inches of movement spent this turn
    trail: list[list[Point]] = field(default_factory=list)  # paths moved this turn

    @property
    def pos(self) -> Point:
        return (self.x, self.y)

    def has(self, keyword: str) -> bool:
        return keyword in self.keywords

    @property
    def is_hero(self) -> bool:
        return "hero" in self.keywords

    @property
    def is_animal(self) -> bool:
        return "animal" in self.keywords

    @property
    def is_caster(self) -> bool:
        return "caster" in self.keywords

    @property
    def active(self) -> bool:
        """On the table and not Incapacitated."""
        return self.on_table and self.status != "incapacitated"


@dataclass
class Token:
    """A treasure token; ``event`` is hidden from players until revealed (U7)."""

    id: str
    x: float
    y: float
    size_mm: float
    r: float
    event: str = "none"
    carried_by: str | None = None
    revealed: bool = False

    @property
    def pos(self) -> Point:
        return (self.x, self.y)


_ATOMIC = (str, int, float, bool, type(None))
_ATOMIC_TYPES = frozenset(_ATOMIC)


_is_atomic = _ATOMIC_TYPES.issuperset  # of an iterable of types: are they all atomic?


def _plain_copy(v: Any) -> Any:
    """Deep copy of plain data (dicts, lists, tuples of scalars); anything else: deepcopy.
    A list or dict of scalars is copied in one go, a tuple of scalars kept as it is."""
    t = v.__class__
    if t in _ATOMIC_TYPES:
        return v
    if t is list:
        return v.copy() if _is_atomic(map(type, v)) else [_plain_copy(x) for x in v]
    if t is dict:
        return v.copy() if _is_atomic(map(type, v.values())) else {k: _plain_copy(x) for k, x in v.items()}
    if t is tuple:
        return v if _is_atomic(map(type, v)) else tuple(_plain_copy(x) for x in v)  # as copy.deepcopy
    if isinstance(v, _ATOMIC):
        return v
    return copy.deepcopy(v)


def _copy_obj(o: Any) -> Any:
    """Deep copy of a plain object (its fields scalars or :func:`_plain_copy`'s data)."""
    new = object.__new__(type(o))
    d = o.__dict__.copy()
    for k, v in d.items():
        t = v.__class__
        if t in _ATOMIC_TYPES:
            continue
        if t is list and _is_atomic(map(type, v)):
            d[k] = v.copy()
        elif t is dict and _is_atomic(map(type, v.values())):
            d[k] = v.copy()
        else:
            d[k] = _plain_copy(v)
    new.__dict__ = d
    return new


def shallow_copy(o: Any) -> Any:
    """``copy.copy`` of a plain object (a dataclass without slots): its fields shared."""
    new = object.__new__(type(o))
    new.__dict__.update(o.__dict__)
    return new


@dataclass
class Progress:
    """Where the current step stands, kept in the state so that undo and saves cover it.
    A new step starts from a fresh one."""

    begun: bool = False  # neutrals: the Neutrals have been set going
    done: bool = False  # neutrals, treasure: the step is finished
    noted: bool = False  # treasure: the options were logged once
    stage: str | None = None  # rout: None | "voluntary" | "grab" | "done"
    loser: str | None = None  # rout: the routing warband
    winner: str | None = None  # rout: the one warband left (the grab's winner side)
    tokens: list[str] = field(default_factory=list)  # rout: tokens still to grab (U4)
    sub: str | None = None  # rout: the U4 case of the first token
    chosen: str | None = None  # rout: the unit the owner chose to try for it


@dataclass
class GameState:
    """Everything that actions change. Copy it to snapshot; hash it to compare."""

    turn: int = 1
    player: int = 1
    phase: str = "upkeep"
    step: str | None = None
    units: dict[str, Unit] = field(default_factory=dict)
    treasure: dict[str, Token] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    event_triggered_by: int | None = None
    routed: list[str] = field(default_factory=list)  # warband ids, in order of routing
    winner: str | None = None  # warband id once decided
    draw: bool = False  # the game ended without a winner (T1)
    end_reason: str | None = None  # why the game ended, once it did
    #: The decision the controller waits for, or None (game/engine/decisions.py).
    pending: Decision | None = None
    progress: Progress = field(default_factory=Progress)
    #: How each Neutral unit acts (U1): "advance" | "manual", set when an Event places it.
    neutral_act: dict[str, str] = field(default_factory=dict)
    #: Break-point variant: the losses each warband had when it last rolled (U2).
    break_point_seen: dict[str, int] = field(default_factory=dict)
    #: O1: the player who goes first in this game turn (the turn order's choice).
    first: int = 1
    #: O2 ``activation: alternating``: the unit activated now (None: the player to act
    #: chooses one), the units whose activation this phase is over, and the players who
    #: passed the rest of this phase.
    activation: str | None = None
    activated: list[str] = field(default_factory=list)
    passed: list[int] = field(default_factory=list)

    def copy(self) -> "GameState":
        """A deep copy, fast: units and tokens field by field (undo snapshots every action)."""
        new = object.__new__(GameState)
        d = {
            k: _plain_copy(v) for k, v in self.__dict__.items() if k not in ("units", "treasure", "pending", "progress")
        }
        d["pending"] = self.pending  # frozen
        d["progress"] = _copy_obj(self.progress)
        d["units"] = {k: _copy_obj(u) for k, u in self.units.items()}
        d["treasure"] = {k: _copy_obj(t) for k, t in self.treasure.items()}
        new.__dict__.update(d)
        return new

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def hash(self) -> str:
        """A stable hash of the whole state (undo and replay tests compare it)."""
        blob = json.dumps(self.to_dict(), sort_keys=True, default=str, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def unit(self, uid: str) -> Unit:
        return self.units[uid]

    def units_of(self, warband: str) -> list[Unit]:
        return [u for u in self.units.values() if u.warband == warband]


@dataclass
class Scenario:
    """A map and the state a game starts from. ``state`` is the starting state."""

    name: str
    width: float
    height: float
    ruleset: Ruleset
    ruleset_name: str | None = None  # as written in the file (None: the default)
    ruleset_embedded: bool = False  # the file holds the whole ruleset (a save pins it)
    rules_overrides: dict[str, Any] = field(default_factory=dict)
    terrain: list[Terrain] = field(default_factory=list)
    ladders: list[Ladder] = field(default_factory=list)
    deployment: dict[str, list[Point]] = field(default_factory=dict)
    warbands: list[Warband] = field(default_factory=list)
    state: GameState = field(default_factory=GameState)
    file: str = ""
    #: Starting order of units per warband (the file's order), for rosters and saves.
    unit_order: list[str] = field(default_factory=list)

    def warband(self, wid: str) -> Warband:
        for w in self.warbands:
            if w.id == wid:
                return w
        raise KeyError(wid)

    def warband_of_player(self, player: int) -> Warband | None:
        for w in self.warbands:
            if w.player == player:
                return w
        return None

    def terrain_by_id(self, tid: str) -> Terrain:
        for t in self.terrain:
            if t.id == tid:
                return t
        raise KeyError(tid)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        mine, theirs = dict(vars(self)), dict(vars(other))
        for d in (mine, theirs):
            d.pop("file")
            d["ruleset"] = d["ruleset"].to_dict()
        return mine == theirs
