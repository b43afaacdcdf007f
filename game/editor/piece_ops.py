"""Editor commands on treasure, warbands, deployment zones, rosters and units (a part of
:class:`Document`). Units are placed from a roster inside their warband's zone and
slid out of overlap (:mod:`game.editor.placement`).
"""

from __future__ import annotations

import math
from typing import Any

from shapely.geometry import Point as ShPoint
from shapely.geometry import Polygon

from game.editor.edits import EditError, Point, check_id, rnd, stem
from game.editor.placement import free_spot
from game.editor.roster import slug
from game.engine.model import EVENT_KINDS, STATUSES, Token, Unit, Warband


class PieceCommands:
    """Treasure, warbands, zones, rosters and units."""

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
            self.sc.state.treasure[tid] = Token(tid, rnd(x), rnd(y), size, r, event)
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
    def add_warband(
        self, wid: str, player: int | None = None, name: str | None = None, colour: str | None = None
    ) -> str:
        check_id(wid)
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
                placed[stem(u.id)] = placed.get(stem(u.id), 0) + 1
        return [(e, max(0, e.count - placed.get(f"{wid}-{e.stem}", 0))) for e in roster.entries]

    def place_from_roster(self, wid: str, entry_key: str, at: Point) -> str:
        roster = self.rosters.get(wid)
        if roster is None:
            raise EditError(f"warband {wid} has no roster loaded")
        try:
            e = roster.entry(entry_key)
        except KeyError:
            raise EditError(f"roster {roster.name} has no unit {entry_key!r}") from None
        return self.place_unit(
            wid,
            at,
            name=e.name,
            base_mm=e.base_mm,
            stats=dict(e.stats),
            keywords=list(e.keywords),
            stem=f"{wid}-{e.stem}",
        )

    def place_unit(
        self,
        wid: str,
        at: Point,
        *,
        name: str,
        base_mm: float,
        stats: dict,
        keywords: list[str] | None = None,
        stem: str | None = None,
        uid: str | None = None,
        slide: bool = True,
    ) -> str:
        """Place a base; inside the warband's zone if it has one; slid out of overlaps."""
        w = self.warband(wid)
        r = self.sc.ruleset.radius(base_mm)
        zone = self.sc.deployment.get(wid)
        if zone is not None and not Polygon(zone).buffer(1e-6).contains(ShPoint(at)):
            raise EditError(f"[{at[0]:.2f}, {at[1]:.2f}] is outside {w.id}'s deployment zone: place units inside it")
        spot = free_spot(self, at, r, zone=zone) if slide else at
        if spot is None:
            raise EditError(
                f"no room for a {base_mm:g} mm base near [{at[0]:.2f}, {at[1]:.2f}] "
                "(bases may not overlap or stand in walls or impassable ground)"
            )
        uid = uid or self.new_id(stem or f"{wid}-{slug(name)}")
        if uid in self.all_ids():
            raise EditError(f"id {uid!r} is already used")
        with self.edit(f"place {uid}"):
            self.sc.state.units[uid] = Unit(
                uid, name, wid, rnd(spot[0]), rnd(spot[1]), float(base_mm), r, dict(stats), list(keywords or [])
            )
            self.sc.unit_order.append(uid)
        return uid

    def place_unit_at(self, uid: str, at: Point, slide: bool = True) -> Point:
        """Move a unit to ``at`` (slid out of overlap); returns where it ended."""
        u = self.unit(uid)
        spot = free_spot(self, at, u.r, ignore=uid) if slide else at
        if spot is None:
            raise EditError(f"no room for {uid} near [{at[0]:.2f}, {at[1]:.2f}]")
        self.move([("unit", uid)], spot[0] - u.x, spot[1] - u.y)
        return (u.x, u.y)

    def set_unit(
        self,
        uid: str,
        *,
        name: str | None = None,
        stats: dict | None = None,
        status: str | None = None,
        keywords: list[str] | None = None,
        base_mm: float | None = None,
    ) -> None:
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
