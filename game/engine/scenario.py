"""Scenario files (FORMATS.md): load and validate into the model, and save back.

Every problem is reported as ``FILE:LINE: what is wrong`` (a :class:`LoadError`
holding all of them); nothing else escapes :func:`load_scenario`. Saving writes
stable key order and ids so files diff well, atomically (temporary file + rename).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from shapely.geometry import Polygon, box
from shapely.validation import explain_validity

from game.engine.errors import LoadError, Problem
from game.engine.geometry import Board
from game.engine.model import (
    EVENT_KINDS,
    STATUSES,
    TERRAIN_KINDS,
    GameState,
    Ladder,
    Scenario,
    Terrain,
    Token,
    Unit,
    Warband,
)
from game.engine.limits import MAX_NUMBER, MAX_STAT, MAX_TABLE, MAX_TURN
from game.engine.ruleset import BASE, Ruleset, check_overrides, embedded_ruleset, load_ruleset
from game.engine.files import atomic_write
from game.engine.flow import phase_specs
from game.engine.yamlsrc import Source, describe_value, dump_yaml, is_finite_number, load_yaml, read_text

TOP_KEYS = (
    "name",
    "table",
    "ruleset",
    "rules",
    "turn_limit",
    "terrain",
    "ladders",
    "treasure",
    "deployment",
    "warbands",
    "state",
)
TERRAIN_KEYS = ("id", "kind", "height", "polygon", "name")
LADDER_KEYS = ("id", "foot", "top")
TOKEN_KEYS = ("id", "at", "event", "size_mm", "carried_by", "revealed")
WARBAND_KEYS = ("id", "player", "name", "colour", "color", "units")
UNIT_KEYS = (
    "id",
    "name",
    "at",
    "base_mm",
    "stats",
    "keywords",
    "status",
    "carrying",
    "on_table",
    "spells",
    "engaged_with",
    "loaded",
)
STATE_KEYS = ("turn", "player", "phase", "step", "lost", "event_triggered_by", "routed", "winner")
REQUIRED_STATS = ("move", "agility", "morale", "defence")
#: Tolerance for geometry comparisons, inches.
EPS = 1e-6


class _Checker:
    """Collects problems while reading a :class:`Source`."""

    def __init__(self, src: Source):
        self.src = src
        self.problems: list[Problem] = []
        self.ids: dict[str, tuple] = {}

    def bad(self, path: tuple, message: str) -> None:
        self.problems.append(self.src.problem(path, message))

    def mapping(self, value: Any, path: tuple, what: str, allowed: tuple[str, ...]) -> dict | None:
        if not isinstance(value, dict):
            self.bad(path, f"{what} must be a mapping of key: value, not {describe_value(value)}")
            return None
        for key in value:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(allowed)})"
                self.bad(path + (key,), f"unknown field {key!r} in {what}{hint}")
        return value

    def listing(self, value: Any, path: tuple, what: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            self.bad(path, f"{what} must be a list, not {describe_value(value)}")
            return []
        return value

    def required(self, d: dict, key: str, path: tuple, what: str) -> Any:
        if key not in d or d[key] is None:
            self.bad(path, f"{what} is missing {key!r}")
            return None
        return d[key]

    def number(
        self,
        value: Any,
        path: tuple,
        what: str,
        *,
        minimum: float | None = 0.0,
        positive: bool = False,
        maximum: float = MAX_NUMBER,
    ) -> float | None:
        if isinstance(value, float) and not math.isfinite(value):
            self.bad(path, f"{what} must be a finite number, not {'NaN' if math.isnan(value) else 'infinite'}")
            return None
        if not is_finite_number(value):
            self.bad(path, f"{what} must be a number, not {describe_value(value)}")
            return None
        if abs(value) > maximum:
            self.bad(path, f"{what} is too big ({value:g}): at most {maximum:g}")
            return None
        if positive and value <= 0:
            self.bad(path, f"{what} must be more than 0, not {value}")
            return None
        if minimum is not None and value < minimum:
            self.bad(path, f"{what} must not be negative ({value})")
            return None
        return value

    def integer(self, value: Any, path: tuple, what: str, minimum: int = 0, maximum: int | None = None) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.bad(path, f"{what} must be a whole number, not {describe_value(value)}")
            return None
        if value < minimum:
            self.bad(path, f"{what} must be at least {minimum}, not {value}")
            return None
        if maximum is not None and value > maximum:
            self.bad(path, f"{what} is too big ({value}): at most {maximum}")
            return None
        return value

    def text(self, value: Any, path: tuple, what: str) -> str | None:
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            self.bad(path, f"{what} must be text, not {describe_value(value)}")
            return None
        return str(value)

    def ident(self, d: dict, path: tuple, what: str) -> str | None:
        value = self.required(d, "id", path, what)
        if value is None:
            return None
        ident = self.text(value, path + ("id",), f"{what} id")
        if ident is None:
            return None
        if not ident.strip() or any(c.isspace() for c in ident):
            self.bad(path + ("id",), f"{what} id {ident!r} must be one word with no spaces")
            return None
        if ident in self.ids:
            first = self.src.line(self.ids[ident])
            self.bad(path + ("id",), f"duplicate id {ident!r} (first used on line {first})")
            return None
        self.ids[ident] = path + ("id",)
        return ident

    def point(self, value: Any, path: tuple, what: str) -> tuple[float, float] | None:
        if not isinstance(value, list) or len(value) != 2:
            self.bad(path, f"{what} must be a point [x, y], not {describe_value(value)}")
            return None
        x = self.number(value[0], path + (0,), f"{what} x", minimum=None)
        y = self.number(value[1], path + (1,), f"{what} y", minimum=None)
        if x is None or y is None:
            return None
        return (float(x), float(y))

    def polygon(self, value: Any, path: tuple, what: str, table: Polygon | None) -> list[tuple[float, float]] | None:
        if not isinstance(value, list):
            self.bad(path, f"{what} must be a list of points [[x, y], ...], not {describe_value(value)}")
            return None
        points = [self.point(p, path + (i,), f"{what} point {i + 1}") for i, p in enumerate(value)]
        if any(p is None for p in points):
            return None
        if len(points) > 1 and points[0] == points[-1]:
            points = points[:-1]  # an explicitly closed ring
        if len(points) < 3:
            self.bad(path, f"{what} needs at least 3 points, has {len(points)}")
            return None
        poly = Polygon(points)
        if not poly.is_valid:
            self.bad(path, f"{what} is self-intersecting or otherwise invalid: {explain_validity(poly)}")
            return None
        if poly.area <= EPS:
            self.bad(path, f"{what} has no area (its points are in a line)")
            return None
        if table is not None and not table.buffer(EPS).covers(poly):
            minx, miny, maxx, maxy = poly.bounds
            self.bad(path, f"{what} goes off the table (it spans x {minx:g}..{maxx:g}, y {miny:g}..{maxy:g})")
            return None
        return points


@dataclass
class _Read:
    """A scenario as it is read, section by section: the checker that collects the
    problems, and what each section has built so far for the sections after it."""

    ck: _Checker
    src: Source
    data: dict
    ruleset_loader: Callable[[str, str], Ruleset] | None
    playable: bool
    name: Any = None
    width: float | None = None
    height: float | None = None
    table_poly: Polygon | None = None
    ruleset: Ruleset | None = None
    ruleset_name: Any = None
    embedded: bool = False
    overrides: dict = field(default_factory=dict)
    terrain: list[Terrain] = field(default_factory=list)
    board: Board | None = None
    ladders: list[Ladder] = field(default_factory=list)
    tokens: dict[str, Token] = field(default_factory=dict)
    warbands: list[Warband] = field(default_factory=list)
    units: dict[str, Unit] = field(default_factory=dict)
    unit_paths: dict[str, tuple] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    players: dict[int, str] = field(default_factory=dict)
    #: token id -> the unit carrying it
    carried: dict[str, str] = field(default_factory=dict)
    #: warband item index -> its well-formed warband
    listed: dict[int, Warband] = field(default_factory=dict)
    #: warband item index -> how many of its units stand on the table
    fielded: dict[int, int] = field(default_factory=dict)
    deployment: dict[str, list] = field(default_factory=dict)
    state: GameState | None = None

    @property
    def incomplete(self) -> bool:
        """Without a name, a table or a ruleset there is no scenario to build."""
        return self.name is None or self.width is None or self.height is None or self.ruleset is None


def _items(
    ck: _Checker, raw: Any, key: str, what: str, keys: tuple[str, ...]
) -> Iterator[tuple[int, tuple, dict, Any, str]]:
    """The well-formed mappings of the list ``raw`` under ``key``: (index, path, item, its
    id, how a message names it), after the list and each item's keys and id are checked."""
    for i, item in enumerate(ck.listing(raw, (key,), key)):
        path = (key, i)
        d = ck.mapping(item, path, f"{what} #{i + 1}", keys)
        if d is None:
            continue
        ident = ck.ident(d, path, what)
        yield i, path, d, ident, f"{what} {ident or '#' + str(i + 1)}"


def _read_name_and_table(r: _Read) -> None:
    ck, data = r.ck, r.data
    r.name = (
        ck.text(ck.required(data, "name", (), "the scenario"), ("name",), "name")
        if data.get("name") is not None
        else ck.required(data, "name", (), "the scenario")
    )
    table = (
        ck.mapping(ck.required(data, "table", (), "the scenario"), ("table",), "table", ("width", "height"))
        if data.get("table") is not None
        else None
    )
    if table is not None:
        for side in ("width", "height"):
            value = ck.required(table, side, ("table",), "table")
            if side in table:
                value = ck.number(value, ("table", side), f"table {side}", positive=True, maximum=MAX_TABLE)
            setattr(r, side, value)
    r.table_poly = box(0, 0, r.width, r.height) if r.width and r.height else None


def _read_ruleset(r: _Read) -> None:
    """The ruleset by name or path (or a whole ruleset, in a save), then the scenario's
    ``rules:`` overrides and its ``turn_limit`` (T1)."""
    ck, data, src = r.ck, r.data, r.src
    ruleset_name = data.get("ruleset")
    ruleset = None
    embedded = isinstance(ruleset_name, dict)
    if ruleset_name is not None and not isinstance(ruleset_name, str) and not embedded:
        ck.bad(
            ("ruleset",),
            f"ruleset must be a ruleset name or path (or a whole ruleset), not {describe_value(ruleset_name)}",
        )
        ruleset_name = None
    try:
        if embedded:  # a save pins the whole ruleset it was played under
            ruleset = embedded_ruleset(src.sub("ruleset"))
            ruleset_name = ruleset.name
        else:
            ruleset = (r.ruleset_loader or load_ruleset)(ruleset_name or BASE, src.file)
    except LoadError as exc:
        for p in exc.problems:
            if embedded:  # already at its own line of this file
                ck.problems.append(p)
            else:
                ck.bad(("ruleset",), p.message if p.file == src.file else str(p))
    overrides: dict = {}
    if ruleset is not None and "rules" in data:
        overrides, problems = check_overrides(ruleset, data["rules"], src, ("rules",))
        ck.problems += problems
        ruleset = ruleset.with_overrides(overrides)
    if ruleset is not None and "turn_limit" in data:  # T1: the scenario's own limit
        limit, problems = check_overrides(ruleset, {"turn_limit": data["turn_limit"]}, src, ())
        ck.problems += [Problem(p.file, src.line(("turn_limit",)), p.message, "turn_limit") for p in problems]
        ruleset = ruleset.with_overrides(limit)
        overrides = {**overrides, **limit}  # written back under rules:
    r.ruleset, r.ruleset_name, r.embedded, r.overrides = ruleset, ruleset_name, embedded, overrides


def _read_terrain(r: _Read) -> None:
    ck = r.ck
    for _, path, t, tid, what in _items(ck, r.data.get("terrain"), "terrain", "terrain", TERRAIN_KEYS):
        kind = ck.required(t, "kind", path, what)
        if kind is not None and kind not in TERRAIN_KINDS:
            close = difflib.get_close_matches(str(kind), TERRAIN_KINDS, n=1)
            ck.bad(
                path + ("kind",),
                f"{what}: unknown kind {kind!r}"
                + (f" (did you mean {close[0]!r}?)" if close else f" (one of {', '.join(TERRAIN_KINDS)})"),
            )
            kind = None
        h: Any = 0.0
        if kind in ("block", "wall"):
            h = ck.required(t, "height", path, what)
            h = None if h is None else ck.number(h, path + ("height",), f"{what} height", positive=False)
            if h is not None and h <= 0:
                ck.bad(path + ("height",), f"{what} height must be more than 0 for a {kind}")
                h = None
        elif "height" in t and t["height"] is not None:
            h = ck.number(t["height"], path + ("height",), f"{what} height")
        poly = (
            ck.polygon(ck.required(t, "polygon", path, what), path + ("polygon",), f"{what} polygon", r.table_poly)
            if "polygon" in t
            else ck.required(t, "polygon", path, what)
        )
        if tid and kind and h is not None and poly:
            r.terrain.append(Terrain(tid, kind, poly, float(h)))
    r.board = Board(r.width or 1, r.height or 1, r.terrain) if r.table_poly is not None else None


def _read_ladders(r: _Read) -> None:
    ck = r.ck
    terrain_ids = {t.id: t for t in r.terrain}
    for _, path, d, lid, what in _items(ck, r.data.get("ladders"), "ladders", "ladder", LADDER_KEYS):
        foot = (
            ck.point(ck.required(d, "foot", path, what), path + ("foot",), f"{what} foot")
            if d.get("foot") is not None
            else ck.required(d, "foot", path, what)
        )
        top = ck.required(d, "top", path, what)
        if top is not None:
            top = str(top)
            piece = terrain_ids.get(top)
            if piece is None:
                known = " (that piece has problems of its own)" if top in ck.ids else ""
                ck.bad(path + ("top",), f"{what}: top {top!r} names no terrain piece{known}")
                top = None
            elif piece.kind != "block":
                ck.bad(
                    path + ("top",),
                    f"{what}: top {top!r} is a {piece.kind}, not a block (a ladder reaches a walkable top)",
                )
                top = None
        if foot and top and r.board is not None and r.ruleset is not None:
            _check_ladder_foot(r, path, what, foot, terrain_ids[top])
        if lid and foot and top:
            r.ladders.append(Ladder(lid, foot, top))


def _check_ladder_foot(r: _Read, path: tuple, what: str, foot: tuple[float, float], top: Terrain) -> None:
    """A ladder's foot stands on the table, on the ground beside its block (ladder_reach)."""
    board, reach = r.board, r.ruleset.ladder_reach
    if not board.disc_on_table(foot[0], foot[1], 0):
        r.ck.bad(path + ("foot",), f"{what}: foot {list(foot)} is off the table")
        return
    gap = board.distance_to_terrain(foot[0], foot[1], 0, top.id)
    if gap > reach + EPS:
        r.ck.bad(
            path + ("foot",),
            f'{what}: foot is {gap:.2f}" from block {top.id!r}; '
            f'it must stand beside it (within {reach:g}", ladder_reach)',
        )
    elif board.height_at(*foot) >= top.height:
        r.ck.bad(path + ("foot",), f"{what}: foot stands on top of {top.id!r}; it must be on the ground beside it")


def _read_treasure(r: _Read) -> None:
    ck, ruleset, board = r.ck, r.ruleset, r.board
    default_mm = ruleset.token_size_mm if ruleset else 25
    for _, path, d, tid, what in _items(ck, r.data.get("treasure"), "treasure", "treasure", TOKEN_KEYS):
        at = (
            ck.point(ck.required(d, "at", path, what), path + ("at",), f"{what} position")
            if d.get("at") is not None
            else ck.required(d, "at", path, what)
        )
        event = d.get("event", "none")
        if event is None:
            event = "none"
        if event not in EVENT_KINDS:
            ck.bad(path + ("event",), f"{what}: event must be one of {', '.join(EVENT_KINDS)}, not {event!r}")
            event = None
        size = ck.number(d.get("size_mm", default_mm), path + ("size_mm",), f"{what} size_mm", positive=True)
        revealed = d.get("revealed", False)
        if not isinstance(revealed, bool):
            ck.bad(path + ("revealed",), f"{what}: revealed must be true or false")
            revealed = False
        if tid and at and event and size and ruleset:
            rad = ruleset.radius(size)
            if board is not None and not board.disc_on_table(at[0], at[1], rad):
                ck.bad(path + ("at",), f"{what} at {list(at)} is off the table")
            elif board is not None:
                for piece in board.pieces_touching_disc(at[0], at[1], rad, ("wall", "impassable")):
                    ck.bad(path + ("at",), f"{what} at {list(at)} is inside {piece.kind} {piece.id!r}")
            r.tokens[tid] = Token(tid, at[0], at[1], float(size), rad, event, None, revealed)


def _read_warbands(r: _Read) -> None:
    ck, data = r.ck, r.data
    raw = ck.required(data, "warbands", (), "the scenario") if "warbands" not in data else data["warbands"]
    for i, path, d, wid, what in _items(ck, raw, "warbands", "warband", WARBAND_KEYS):
        player = ck.required(d, "player", path, what)
        if player is not None:
            player = ck.integer(player, path + ("player",), f"{what} player", minimum=0)
            if player is not None and player in r.players and player != 0:
                ck.bad(path + ("player",), f"{what}: player {player} already plays warband {r.players[player]!r}")
            elif player is not None:
                r.players[player] = wid or ""
        colour = d.get("colour", d.get("color"))
        if colour is not None and not (
            isinstance(colour, str)
            and len(colour) == 7
            and colour[0] == "#"
            and all(c in "0123456789abcdefABCDEF" for c in colour[1:])
        ):
            ck.bad(
                path + ("colour" if "colour" in d else "color",),
                f"{what}: colour must look like '#c0392b', not {colour!r}",
            )
            colour = None
        wname = d.get("name", wid)
        if wid is not None and player is not None:
            r.warbands.append(Warband(wid, player, str(wname) if wname is not None else wid, colour))
            r.listed[i] = r.warbands[-1]
        for j, uitem in enumerate(ck.listing(d.get("units"), path + ("units",), f"{what} units")):
            _read_unit(r, i, wid, what, j, uitem)


def _read_unit(r: _Read, i: int, wid: str | None, wwhat: str, j: int, uitem: Any) -> None:
    """Unit ``j`` of the warband at item ``i`` (``wid``, named ``wwhat`` in messages)."""
    ck = r.ck
    upath = ("warbands", i, "units", j)
    u = ck.mapping(uitem, upath, f"unit #{j + 1} of {wwhat}", UNIT_KEYS)
    if u is None:
        return
    uid = ck.ident(u, upath, "unit")
    uwhat = f"unit {uid or '#' + str(j + 1)}"
    at = (
        ck.point(ck.required(u, "at", upath, uwhat), upath + ("at",), f"{uwhat} position")
        if u.get("at") is not None
        else ck.required(u, "at", upath, uwhat)
    )
    base = u.get("base_mm")
    base = (
        ck.number(base, upath + ("base_mm",), f"{uwhat} base_mm", positive=True)
        if base is not None
        else ck.required(u, "base_mm", upath, uwhat)
    )
    stats = _stats(ck, u, upath, uwhat)
    keywords = ck.listing(u.get("keywords"), upath + ("keywords",), f"{uwhat} keywords")
    if not all(isinstance(k, str) for k in keywords):
        ck.bad(upath + ("keywords",), f"{uwhat}: keywords must be words")
        keywords = [str(k) for k in keywords]
    status = u.get("status", "normal") or "normal"
    if status not in STATUSES:
        close = difflib.get_close_matches(str(status), STATUSES, n=1)
        ck.bad(
            upath + ("status",),
            f"{uwhat}: unknown status {status!r}"
            + (f" (did you mean {close[0]!r}?)" if close else f" (one of {', '.join(STATUSES)})"),
        )
        status = None
    carrying = _carrying(r, u, upath, uwhat)
    on_table = _flag(ck, u, "on_table", upath, uwhat)
    if on_table:
        r.fielded[i] = r.fielded.get(i, 0) + 1
    loaded = _flag(ck, u, "loaded", upath, uwhat)
    spells = [str(s) for s in ck.listing(u.get("spells"), upath + ("spells",), f"{uwhat} spells")]
    engaged = [str(s) for s in ck.listing(u.get("engaged_with"), upath + ("engaged_with",), f"{uwhat} engaged_with")]
    name_ = u.get("name", uid)
    ruleset = r.ruleset
    if uid and at and base and stats is not None and status and ruleset and wid:
        r.units[uid] = Unit(
            uid,
            str(name_) if name_ is not None else uid,
            wid,
            at[0],
            at[1],
            float(base),
            ruleset.radius(base),
            stats,
            list(keywords),
            status,
            carrying,
            on_table,
            spells,
            engaged_with=engaged,
            loaded=loaded,
        )
        r.unit_paths[uid] = upath
        r.order.append(uid)
        if carrying:
            r.carried[carrying] = uid


def _carrying(r: _Read, u: dict, upath: tuple, uwhat: str) -> str | None:
    """The token a unit carries: one of the treasure, carried by no other unit."""
    carrying = u.get("carrying")
    if carrying is None:
        return None
    carrying = str(carrying)
    if carrying not in r.tokens:
        r.ck.bad(upath + ("carrying",), f"{uwhat}: carrying {carrying!r} names no treasure token")
        return None
    if carrying in r.carried:
        r.ck.bad(upath + ("carrying",), f"{uwhat}: token {carrying!r} is already carried by {r.carried[carrying]!r}")
        return None
    return carrying


def _flag(ck: _Checker, u: dict, key: str, upath: tuple, uwhat: str) -> bool:
    """A unit's true-or-false field that is true unless given (``on_table``, ``loaded``)."""
    value = u.get(key, True)
    if not isinstance(value, bool):
        ck.bad(upath + (key,), f"{uwhat}: {key} must be true or false")
        return True
    return value


def _check_units(r: _Read) -> None:
    """Where the units stand (table, walls, overlaps, straddling), whom they are engaged
    with, and the tokens they carry moved onto them."""
    ck, units = r.ck, r.units
    if r.board is not None and r.ruleset is not None:
        _check_placement(ck, r.board, units, r.unit_paths, r.ruleset)
    for uid, u in units.items():
        for other in u.engaged_with:
            if other not in units:
                ck.bad(r.unit_paths[uid] + ("engaged_with",), f"unit {uid}: engaged_with {other!r} names no unit")
    for tid, uid in r.carried.items():
        r.tokens[tid].carried_by = uid
        r.tokens[tid].x, r.tokens[tid].y = units[uid].x, units[uid].y


def _read_deployment(r: _Read) -> None:
    ck = r.ck
    dep = r.data.get("deployment")
    if dep is None:
        return
    dep = ck.mapping(
        dep,
        ("deployment",),
        "deployment",
        tuple(w.id for w in r.warbands) + tuple(str(k) for k in dep) if isinstance(dep, dict) else (),
    )
    for key, value in (dep or {}).items():
        if key not in {w.id for w in r.warbands}:
            ck.bad(("deployment", key), f"deployment zone {key!r} names no warband")
            continue
        poly = ck.polygon(value, ("deployment", key), f"deployment zone {key!r}", r.table_poly)
        if poly:
            r.deployment[str(key)] = poly


def _read_playable(r: _Read) -> None:
    """With ``playable``: a map that cannot start a game is a problem (:func:`_check_playable`)."""
    if r.playable and isinstance(r.data.get("warbands", ()), (list, type(None))):
        _check_playable(r.ck, r.listed, r.fielded)


def _read_state(r: _Read) -> None:
    state = _state(r.ck, r.data.get("state"), r.ruleset, r.warbands, r.players)
    if r.playable:
        _check_can_go_on(r.ck, state, r.listed)
    state.units = r.units
    state.treasure = r.tokens
    for w in r.warbands:
        state.lost.setdefault(w.id, 0)
    r.state = state


#: The sections of a scenario file in the order they are read: each reads its part into the
#: :class:`_Read`, for the sections after it (the ladders need the terrain, the units the
#: treasure they carry), and reports what is wrong through its checker.
SECTIONS: tuple[tuple[str, Callable[[_Read], None]], ...] = (
    ("name and table", _read_name_and_table),
    ("ruleset", _read_ruleset),
    ("terrain", _read_terrain),
    ("ladders", _read_ladders),
    ("treasure", _read_treasure),
    ("warbands", _read_warbands),
    ("placement", _check_units),
    ("deployment", _read_deployment),
    ("playable", _read_playable),
    ("state", _read_state),
)


def parse_scenario(
    src: Source,
    ruleset_loader: Callable[[str, str], Ruleset] | None = None,
    collect: list[Problem] | None = None,
    *,
    playable: bool = False,
) -> Scenario:
    """Validate loaded YAML and build the model; raise LoadError listing every problem.

    The file is read section by section (:data:`SECTIONS`). With ``collect`` (the map
    editor opening a map saved with problems), problems are appended to it and the
    scenario is built from the valid items, as long as the name, table and ruleset are
    usable; items with bad fields are left out.

    With ``playable`` (``speedheim check``, ``speedheim play``, the editor's problems
    list), a map that cannot start a game is a problem too: see :func:`_check_playable`.
    Without it, such a map still loads (the editor opens it, tests build small tables).
    """
    ck = _Checker(src)
    data = ck.mapping(src.data, (), "a scenario", TOP_KEYS)
    if data is None:
        raise LoadError(ck.problems)
    r = _Read(ck, src, data, ruleset_loader, playable)
    for _, read in SECTIONS:
        read(r)
    if r.incomplete and not ck.problems:
        ck.problems.append(src.problem((), "the scenario is incomplete"))
    if ck.problems and (collect is None or r.incomplete):
        raise LoadError(ck.problems)
    if collect is not None:
        collect.extend(sorted(ck.problems))  # in LoadError's order: by line
    return Scenario(
        name=str(r.name),
        width=float(r.width),
        height=float(r.height),
        ruleset=r.ruleset,
        ruleset_name=r.ruleset_name,
        ruleset_embedded=r.embedded,
        rules_overrides=r.overrides,
        terrain=r.terrain,
        ladders=r.ladders,
        deployment=r.deployment,
        warbands=r.warbands,
        state=r.state,
        file=src.file,
        unit_order=r.order,
    )


def _check_playable(ck: _Checker, listed: dict[int, Warband], fielded: dict[int, int]) -> None:
    """A game needs two warbands of different players (1 and up; player 0, the Neutrals,
    does not count), each with at least one unit on the table.

    ``listed`` maps the item index in ``warbands:`` of each well-formed warband to it;
    ``fielded`` maps an item index to how many of its units stand on the table.
    """
    sides = [(i, w) for i, w in listed.items() if w.player >= 1]
    for i, w in sides:
        if not fielded.get(i):
            ck.bad(
                ("warbands", i),
                f"warband {w.id} (player {w.player}) has no unit on the table; each side needs at least one to play",
            )
    players = sorted({w.player for _, w in sides})
    if len(players) < 2:
        has = ", ".join(f"{w.id} (player {w.player})" for _, w in sides) or "none"
        ck.bad(
            ("warbands",),
            "a game needs two warbands of different players (player 1 and up; "
            f"player 0 is the Neutrals): this map has {has}",
        )


def _check_can_go_on(ck: _Checker, state: GameState, listed: dict[int, Warband]) -> None:
    """A playable state is one a game can go on from: a state in which every side has
    routed and no winner is set would only end phases until the action cap."""
    sides = {w.id for w in listed.values() if w.player >= 1}
    if len(sides) >= 2 and sides <= set(state.routed) and state.winner is None:
        ck.bad(
            ("state", "routed"),
            f"every warband has routed ({', '.join(sorted(sides))}) and no winner is set: "
            "no game can go on from this state (leave one out of routed, or set winner)",
        )


def missing_stat(stats: dict, key: str, path: tuple, what: str) -> tuple[tuple, str]:
    """The problem (path, message) of a required stat ``key`` that ``stats`` lacks: a
    misspelt key that is close to it is named, with did-you-mean, on its own line
    (``agilty`` for ``agility``); otherwise the stat is missing. Other stats are allowed."""
    unknown = [str(k) for k in stats if k not in REQUIRED_STATS]
    close = difflib.get_close_matches(key, unknown, n=1)
    if close:
        return path + ("stats", close[0]), f"{what}: unknown stat {close[0]!r} (did you mean {key!r}?)"
    return path + ("stats",), f"{what}: stats are missing {key!r}"


def _stats(ck: _Checker, u: dict, path: tuple, what: str) -> dict | None:
    stats = ck.required(u, "stats", path, what)
    if stats is None:
        return None
    if not isinstance(stats, dict):
        ck.bad(
            path + ("stats",),
            f"{what}: stats must be a mapping like {{move: 6, agility: 12}}, not {describe_value(stats)}",
        )
        return None
    ok = True
    out = {}
    for key in REQUIRED_STATS:
        if key not in stats:
            ck.bad(*missing_stat(stats, key, path, what))
            ok = False
    for key, value in stats.items():
        v = ck.number(value, path + ("stats", key), f"{what} {key}", maximum=MAX_STAT)
        if v is None:
            ok = False
        else:
            out[str(key)] = v
    return out if ok else None


def _check_placement(
    ck: _Checker, board: Board, units: dict[str, Unit], paths: dict[str, tuple], ruleset: Ruleset
) -> None:
    placed: list[Unit] = []
    for uid, u in units.items():
        if not u.on_table:
            continue
        at = paths[uid] + ("at",)
        if not board.disc_on_table(u.x, u.y, u.r):
            ck.bad(
                at,
                f"unit {uid} at [{u.x:g}, {u.y:g}] is off the table (its {u.base_mm:g} mm base reaches past the edge)",
            )
            continue
        blocked = board.pieces_touching_disc(u.x, u.y, u.r, ("wall", "impassable"))
        for piece in blocked:
            ck.bad(at, f"unit {uid} at [{u.x:g}, {u.y:g}] stands inside {piece.kind} {piece.id!r}")
        levels = board.heights_under_disc(u.x, u.y, u.r)
        if not blocked and levels[-1] - levels[0] > ruleset.free_height + EPS:
            ck.bad(
                at,
                f'unit {uid} at [{u.x:g}, {u.y:g}] straddles a height change of {levels[-1] - levels[0]:g}" '
                f'(more than {ruleset.free_height:g}"); move it fully onto one level',
            )
        for other in placed:
            overlap = u.r + other.r - math.hypot(u.x - other.x, u.y - other.y)
            if overlap > EPS and abs(board.height_at(u.x, u.y) - board.height_at(other.x, other.y)) <= EPS:
                ck.bad(at, f'unit {uid} overlaps unit {other.id} by {overlap:.2f}" (bases never overlap)')
        placed.append(u)


def _state_player(ck: _Checker, raw: Any, players: dict[int, str]) -> int:
    """The player to act, 1 if ``raw`` is not a whole number of at least 1 (reported, as is
    a player who plays no warband)."""
    p = ck.integer(raw, ("state", "player"), "state player", minimum=1)
    if p is not None and players and p not in players:
        ck.bad(
            ("state", "player"),
            f"state player {p} plays no warband (players: {', '.join(map(str, sorted(players)))})",
        )
    return p or 1


def _state_step(ck: _Checker, step: Any, ruleset: Ruleset | None, state: GameState) -> None:
    """Set ``state.step`` to ``step`` if it is a step of the state's phase (else report it)."""
    spec = next((p for p in phase_specs(ruleset) if p.name == state.phase), None) if ruleset else None
    steps = list(spec.steps) if spec else []
    if not steps:
        ck.bad(("state", "step"), f"step {step!r} given, but the {state.phase} phase has no steps")
    elif step not in steps:
        ck.bad(("state", "step"), f"unknown step {step!r} ({state.phase} steps: {', '.join(steps)})")
    else:
        state.step = step


def _state_lost(ck: _Checker, raw: Any, ids: set[str], state: GameState) -> None:
    """Fill ``state.lost`` from ``raw`` (warband id: units lost), reporting unknown warbands."""
    lost = ck.mapping(
        raw,
        ("state", "lost"),
        "state lost",
        tuple(ids) + tuple(map(str, raw)) if isinstance(raw, dict) else (),
    )
    for key, value in (lost or {}).items():
        if key not in ids:
            ck.bad(("state", "lost", key), f"lost: {key!r} names no warband")
        else:
            n = ck.integer(value, ("state", "lost", key), f"units lost by {key}")
            if n is not None:
                state.lost[key] = n


def _state(
    ck: _Checker, raw: Any, ruleset: Ruleset | None, warbands: list[Warband], players: dict[int, str]
) -> GameState:
    phases = ruleset.phase_names if ruleset else ["upkeep"]
    state = GameState(phase=phases[0])
    if raw is None:
        return state
    d = ck.mapping(raw, ("state",), "state", STATE_KEYS)
    if d is None:
        return state
    if "turn" in d:
        state.turn = ck.integer(d["turn"], ("state", "turn"), "state turn", minimum=1, maximum=MAX_TURN) or 1
    if "player" in d:
        state.player = _state_player(ck, d["player"], players)
    if "phase" in d:
        if d["phase"] not in phases:
            ck.bad(("state", "phase"), f"unknown phase {d['phase']!r} (the ruleset has {', '.join(phases)})")
        else:
            state.phase = d["phase"]
    if d.get("step") is not None:
        _state_step(ck, d["step"], ruleset, state)
    ids = {w.id for w in warbands}
    if d.get("lost") is not None:
        _state_lost(ck, d["lost"], ids, state)
    if d.get("event_triggered_by") is not None:
        p = ck.integer(d["event_triggered_by"], ("state", "event_triggered_by"), "event_triggered_by", minimum=1)
        if p is not None and p not in players:
            ck.bad(("state", "event_triggered_by"), f"event_triggered_by: player {p} plays no warband")
        state.event_triggered_by = p
    for i, wid in enumerate(ck.listing(d.get("routed"), ("state", "routed"), "routed")):
        if wid not in ids:
            ck.bad(("state", "routed", i), f"routed: {wid!r} names no warband")
        else:
            state.routed.append(wid)
    if d.get("winner") is not None:
        if d["winner"] not in ids:
            ck.bad(("state", "winner"), f"winner {d['winner']!r} names no warband")
        else:
            state.winner = d["winner"]
    return state


def load_scenario(path: str, text: str | None = None, *, playable: bool = False) -> Scenario:
    """Read, validate and build a scenario file. Raises LoadError, never anything else.

    ``playable``: also require what a game needs to start (:func:`_check_playable`).
    """
    try:
        src = load_yaml(read_text(path) if text is None else text, path)
        return parse_scenario(src, playable=playable)
    except LoadError:
        raise
    except RecursionError:
        raise LoadError([Problem(path, 1, "the file nests too deeply")]) from None
    except Exception as exc:  # a bug of ours must still not become a traceback for the user
        raise LoadError(
            [Problem(path, 1, f"internal error while loading ({type(exc).__name__}: {exc}); please report it")]
        ) from exc


# --- saving ------------------------------------------------------------------------------


def _num(v: float) -> int | float:
    """Whole numbers are written without '.0' so hand-written files stay as they were."""
    f = float(v)
    return int(f) if f.is_integer() and abs(f) < 1e15 else f


def _pt(p) -> list:
    return [_num(p[0]), _num(p[1])]


def _terrain_dict(t: Terrain) -> dict[str, Any]:
    """One terrain piece as file data (height only where it has one)."""
    item: dict[str, Any] = {"id": t.id, "kind": t.kind}
    if t.solid or t.height:
        item["height"] = _num(t.height)
    item["polygon"] = [_pt(p) for p in t.polygon]
    return item


def _treasure_dict(tok: Token, sc: Scenario) -> dict[str, Any]:
    """One treasure token as file data (size only where it is not the ruleset's)."""
    item: dict[str, Any] = {"id": tok.id, "at": _pt(tok.pos), "event": tok.event}
    if tok.size_mm != sc.ruleset.token_size_mm:
        item["size_mm"] = _num(tok.size_mm)
    if tok.revealed:
        item["revealed"] = True
    return item


def _unit_dict(u: Unit) -> dict[str, Any]:
    """One unit as file data (the optional keys only where they differ from the default)."""
    ud: dict[str, Any] = {
        "id": u.id,
        "name": u.name,
        "at": _pt(u.pos),
        "base_mm": _num(u.base_mm),
        "stats": {k: _num(v) for k, v in u.stats.items()},
        "keywords": list(u.keywords),
        "status": u.status,
        "carrying": u.carrying,
    }
    if not u.on_table:
        ud["on_table"] = False
    if u.spells:
        ud["spells"] = list(u.spells)
    if u.engaged_with:
        ud["engaged_with"] = list(u.engaged_with)
    if not u.loaded:
        ud["loaded"] = False
    return ud


def _warband_dicts(sc: Scenario, state: GameState) -> list[dict[str, Any]]:
    """Every warband with its units in the scenario's order, as file data."""
    out = []
    order = sc.unit_order + [u for u in state.units if u not in sc.unit_order]
    declared = [w.id for w in sc.warbands]
    # Units of no declared warband: the Neutrals an Event brought on (U7), written as the
    # player-0 warband they belong to, so a position saved mid-game loads again.
    spawned = sorted({u.warband for u in state.units.values() if u.warband not in declared})
    for w in list(sc.warbands) + [Warband(wid, 0, wid) for wid in spawned]:
        item: dict[str, Any] = {"id": w.id, "player": w.player}
        if w.name and w.name != w.id:
            item["name"] = w.name
        if w.colour:
            item["colour"] = w.colour
        units = (state.units.get(uid) for uid in order)
        item["units"] = [_unit_dict(u) for u in units if u is not None and u.warband == w.id]
        out.append(item)
    return out


def _state_dict(state: GameState) -> dict[str, Any]:
    """The game state's turn, player, phase and tallies as file data."""
    st: dict[str, Any] = {
        "turn": state.turn,
        "player": state.player,
        "phase": state.phase,
        "step": state.step,
        "lost": dict(state.lost),
        "event_triggered_by": state.event_triggered_by,
    }
    if state.routed:
        st["routed"] = list(state.routed)
    if state.winner:
        st["winner"] = state.winner
    return st


def scenario_to_dict(sc: Scenario, state: GameState | None = None) -> dict[str, Any]:
    """The scenario (with ``state``, by default its starting state) as file data."""
    state = state or sc.state
    out: dict[str, Any] = {"name": sc.name, "table": {"width": _num(sc.width), "height": _num(sc.height)}}
    if sc.ruleset_embedded:
        out["ruleset"] = sc.ruleset.to_dict()
    elif sc.ruleset_name is not None:
        out["ruleset"] = sc.ruleset_name
    if sc.rules_overrides:
        out["rules"] = dict(sc.rules_overrides)
    out["terrain"] = [_terrain_dict(t) for t in sc.terrain]
    out["ladders"] = [{"id": ladder.id, "foot": _pt(ladder.foot), "top": ladder.top} for ladder in sc.ladders]
    out["treasure"] = [_treasure_dict(tok, sc) for tok in state.treasure.values()]
    if sc.deployment:
        out["deployment"] = {k: [_pt(p) for p in v] for k, v in sc.deployment.items()}
    out["warbands"] = _warband_dicts(sc, state)
    out["state"] = _state_dict(state)
    return out


def save_scenario(sc: Scenario, path: str, state: GameState | None = None) -> None:
    atomic_write(path, dump_yaml(scenario_to_dict(sc, state)))
