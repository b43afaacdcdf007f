"""Every rule question the play window asks the engine, in one place.

The window holds no rule of its own: what may be done, why not, what a pending
decision offers and which dialogs an action set off are answered here, from the
engine. Scenes, menus and panels call these functions and never read the engine's
rule data themselves, so a change of the engine's question API is a change of this
module alone. Nothing here changes the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.engine.errors import IllegalAction


# --- what may be done now -----------------------------------------------------------------
def legal_kinds(game) -> set[str]:
    """The action kinds the current phase, step or decision accepts now."""
    return set(game.legal_action_kinds())


def end_kind(game) -> str:
    """What the End button does now: ``end_step`` inside a step, else ``end_phase``."""
    kinds = legal_kinds(game)
    if game.state.step is not None and ("end_step" in kinds or not kinds):
        return "end_step"
    return "end_phase"


def move_refusal(game, uid: str) -> IllegalAction | None:
    """Why ``uid`` may not move now (phase, whose turn), as the controller would say.

    Copies the controller's turn and phase checks until the engine answers
    ``why_illegal`` without applying.
    """
    kinds = legal_kinds(game)
    st = game.state
    if kinds and "move" not in kinds:
        where = f"the {st.phase} phase" + (f", {st.step} step" if st.step else "")
        hint = " (right-click a unit for this phase's actions)" if st.phase != "upkeep" else ""
        return IllegalAction("turn", f"moving is not allowed in {where}{hint}")
    p = pending(game)
    u = st.units[uid]
    if p is not None and p.kind == "neutrals":
        if uid not in p.units:
            return IllegalAction("U1", f"{uid} is not a Neutral unit; in the Neutrals step only Neutrals act")
        return None
    try:
        owner = game.scenario.warband(u.warband).player
    except KeyError:
        return None
    if owner != st.player:
        return IllegalAction("turn", f"{uid} belongs to player {owner}; it is player {st.player}'s turn")
    return None


def pick_up_actions(game, unit: str | None = None, token: str | None = None) -> list[dict]:
    """Pick-up actions of units in base contact with tokens on the ground (one unit, one
    token, or all); the engine refuses a denied one with its rule."""
    st, board = game.state, game.board
    tol = float(game.scenario.ruleset.contact_tolerance)
    out = []
    for t in st.treasure.values():
        if t.carried_by or (token is not None and t.id != token):
            continue
        for u in st.units.values():
            if (unit is None or u.id == unit) and u.active and board.in_contact(u, t, tol):
                out.append({"pick_up": {"unit": u.id, "token": t.id}})
    return out


def engage_targets(game, uid: str) -> list[str]:
    """The units ``uid`` could engage (enemies still in the game), nearest first."""
    st, board = game.state, game.board
    u = st.units[uid]
    enemies = [v for v in st.units.values() if v.active and v.warband != u.warband]
    enemies.sort(key=lambda v: board.distance(u, v))
    return [v.id for v in enemies]


def is_manual_phase(game) -> bool:
    """A phase whose rules the players apply themselves (the table gives tools and a log)."""
    return game.scenario.ruleset.is_manual(game.state.phase)


# --- movement questions (the movement engine) -----------------------------------------------
def prepare_movement(game) -> None:
    """Build the movement engine now (it is built on first use, which is slow on big maps)."""
    game.mover  # noqa: B018 - the property builds it


def allowance(game, uid: str, run: bool) -> float:
    """Inches ``uid`` may walk (or run) now; raises IllegalAction when it may not."""
    return float(game.mover.allowance(game.state, uid, run=run).inches)


def run_denial(game, uid: str) -> IllegalAction | None:
    return game.mover.run_denial(game.state, uid)


def reachable(game, uid: str):
    """The ground ``uid`` reaches walking and running (bands of geometry)."""
    return game.mover.reachable(game.state, uid)


def plan(game, uid: str, run: bool, **where):
    """The cheapest legal path (``to=`` or ``path=``, ``descend=``); raises IllegalAction."""
    return game.mover.plan(game.state, uid, run=run, **where)


# --- decisions waiting for a player -------------------------------------------------------
@dataclass(frozen=True)
class Decision:
    """A pending decision as the window shows it."""

    kind: str
    player: int | None = None
    prompt: str = ""
    units: tuple[str, ...] = ()  # neutrals to move / units that may grab
    token: str | None = None  # the token a grab is for
    options: tuple[tuple[str, str], ...] = ()  # (unit, token) pick-ups on offer
    denied: tuple[str, ...] = ()
    check: bool = False  # a grab needs a Morale check


def pending(game) -> Decision | None:
    p = game.pending
    if not p:
        return None
    return Decision(kind=p["kind"], player=p.get("player"), prompt=str(p.get("prompt") or ""),
                    units=tuple(p.get("units", ())), token=p.get("token"),
                    options=tuple((o["unit"], o["token"]) for o in p.get("options", ())),
                    denied=tuple(p.get("denied", ())), check=bool(p.get("check")))


def decision_actions(d: Decision) -> list[tuple[str, Any, dict]]:
    """The answers a decision offers: (what, who, action). ``what`` names the answer."""
    if d.kind == "voluntary_rout":
        return [("play_on", d.player, {"play_on": {"player": d.player}}),
                ("rout", d.player, {"rout": {"player": d.player}})]
    if d.kind == "grab":
        return [("grab", uid, {"grab": {"unit": uid, "token": d.token}}) for uid in d.units]
    if d.kind == "pick_up":
        return ([("pick_up", (uid, tid), {"pick_up": {"unit": uid, "token": tid}}) for uid, tid in d.options]
                + [("decline", None, {"end_step": {}})])
    return []


# --- what an action set off (dialogs) ------------------------------------------------------
@dataclass
class Report:
    title: str
    lines: list[str] = field(default_factory=list)


def reports(game, result: Any, hidden_before: set[str]) -> list[Report]:
    """Dialogs for what an action set off: revealed Event/Plague tokens, Rout checks.

    Reads the log text until the engine's events are typed.
    """
    out: list[Report] = []
    st = game.state
    events = [str(e) for e in result.events]
    rolls = result.rolls
    for tid in sorted(hidden_before):
        t = st.treasure.get(tid)
        if t is not None and t.revealed and t.event in ("event", "plague"):
            what = "an Event (U7)" if t.event == "event" else "the Plague (U7)"
            lines = [e for e in events if tid in e or "vent" in e or "lague" in e or "eutral" in e]
            lines += [str(r) for r in rolls if r.rule in ("U7", None) or "lague" in str(r)]
            out.append(Report(f"Token {tid} hid {what}", lines or [what]))
    rout = [a for a in result.automatic if a.get("rule") == "U2"
            and str(a.get("text", "")).startswith(("Rout Check", "rout", "Rout"))]
    rolled = [r for r in rolls if r.rule == "U2"]
    if not rolled and not any("fails" in str(a.get("text")) or "pass" in str(a.get("text")) for a in rout):
        rout = []
    p = pending(game)
    if rout and not (p is not None and p.kind == "voluntary_rout"):
        out.append(Report("Rout check (U2)", [str(a.get("text")) for a in rout]))
    return out


def recent_auto(game, rule: str) -> list[str]:
    """Texts of the automatic steps of ``rule`` the last action (or the start) set off."""
    e = game.log[-1] if game.log else game.start
    return [str(a.get("text")) for a in e.automatic if a.get("rule") == rule]
