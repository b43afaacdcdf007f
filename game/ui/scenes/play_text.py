"""Words of the play scene: actions described, the log panel's lines, the context menu
of a unit, the buttons of a pending upkeep decision and the winner's summary. These
read the game; they never change it (the scene applies the actions they offer)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from game.ui.scenes.play import PlayScene


def describe_action(action: dict | None) -> str:
    if not action:
        return ""
    (name, body), = action.items()
    if not isinstance(body, dict) or not body:
        return name
    parts = []
    for k, v in body.items():
        if isinstance(v, list) and v and isinstance(v[0], list):
            v = " -> ".join(f"({p[0]:.2f}, {p[1]:.2f})" for p in v)
        elif isinstance(v, list) and len(v) == 2:
            v = f"({float(v[0]):.2f}, {float(v[1]):.2f})"
        parts.append(f"{k} {v}")
    return f"{name} " + ", ".join(parts)


def build_log(scene: PlayScene) -> list[tuple[str, str]]:
    """Log lines from the game's log (start first), with the window's notes merged in."""
    out: list[tuple[str, str]] = []
    notes = sorted(scene.notes, key=lambda n: n[0])
    ni = 0
    start = getattr(scene.game, "start", None)
    actor = get_field(start, "player", scene.game.scenario.state.player) if start is not None else None
    if start is not None:
        out.extend(format_entry(start))
    entries = list(getattr(scene.game, "log", []) or [])
    for i, e in enumerate(entries):
        while ni < len(notes) and notes[ni][0] <= i:
            out.append((notes[ni][1], notes[ni][2]))
            ni += 1
        out.extend(format_entry(e, actor))
        if get_field(e, "ok", True):
            actor = get_field(e, "player", actor)  # entries are stamped after the action
    while ni < len(notes):
        out.append((notes[ni][1], notes[ni][2]))
        ni += 1
    return out


def get_field(e: Any, key: str, default=None):
    if isinstance(e, dict):
        return e.get(key, default)
    return getattr(e, key, default)


def format_entry(e: Any, actor: int | None = None) -> list[tuple[str, str]]:
    """One controller log entry (ActionResult) as coloured lines: the action, its rolls,
    the automatic steps it set off (with rule ids) and what happened."""
    lines: list[tuple[str, str]] = []
    action = get_field(e, "action")
    if action is None:
        lines.append(("Game start", "turn"))
    else:
        try:
            from game.engine.actions import describe

            what = describe(action)
        except Exception:  # noqa: BLE001
            what = describe_action(action)
        if get_field(e, "ok", True):
            cost = (get_field(e, "extra") or {}).get("cost")
            who = actor if actor is not None else get_field(e, "player", "?")
            lines.append((f"P{who} {what}" + (f' ({float(cost):.2f}")' if cost is not None else ""),
                          "action"))
        else:
            lines.append((f"illegal {what}: {get_field(e, 'rule')}: {get_field(e, 'reason')}", "refusal"))
    # The engine's order (as ActionResult.text): rolls, automatic steps, then what happened.
    for r in get_field(e, "rolls", []) or []:
        lines.append(("   roll " + str(r), "roll"))
    for a in get_field(e, "automatic", []) or []:
        if isinstance(a, dict):
            rule = a.get("rule") or ""
            kind = "turn" if rule == "turn" and "begins" in str(a.get("text")) else "auto"
            lines.append((f"   auto [{a.get('step')}] {rule}: {a.get('text')}", kind))
        else:
            lines.append((f"   auto {a}", "auto"))
    for ev in get_field(e, "events", []) or []:
        lines.append(("   " + str(ev), "event"))
    winner = get_field(e, "winner")
    if winner:
        lines.append((f"   winner: {winner}", "turn"))
    return lines


def unit_menu_items(scene: PlayScene, uid: str) -> list[tuple[str, Any]]:
    st = scene.state
    u = st.units[uid]
    board = scene.board
    enemies = [v for v in st.units.values() if v.active and v.warband != u.warband]
    enemies.sort(key=lambda v: board.distance(u, v))
    items: list[tuple[str, Any]] = []
    if enemies:
        sub = [(f"{v.name} ({v.id}) {board.distance(u, v):.2f}\"", {"engage": {"unit": uid, "target": v.id}})
               for v in enemies[:14]]
        items.append(("Engage...", ("submenu", f"{u.name} engages", sub)))
    for tid in u.engaged_with:
        items.append((f"Disengage from {tid}", {"disengage": {"unit": uid, "target": tid}}))
    statuses = ("normal", "staggered", "dazed", "stunned")
    items.append(("Set status...", ("submenu", f"{u.name}: status",
                                   [(s + (" (now)" if s == u.status else ""), {"set_status": {"unit": uid, "status": s}})
                                    for s in statuses])))
    by = [(f"by {v.name} ({v.id})", {"incapacitate": {"unit": uid, "by": v.id}})
          for v in sorted(enemies, key=lambda v: (v.id not in u.engaged_with, board.distance(u, v)))[:12]]
    items.append(("Incapacitate...", ("submenu", f"{u.name} is incapacitated",
                                      [("by nobody / other", {"incapacitate": {"unit": uid}})] + by)))
    items.append(("Reload (M11)", {"reload": {"unit": uid}}))
    tol = float(scene.rs.contact_tolerance)
    for t in st.treasure.values():
        if not t.carried_by and board.in_contact(u, t, tol):
            items.append((f"Pick up {t.id}", {"pick_up": {"unit": uid, "token": t.id}}))
    stats = [k for k in u.stats if k != "move"]
    items.append(("Check...", ("submenu", f"{u.name}: check",
                               [(f"{s} ({u.stats[s]:g})", {"check": {"unit": uid, "stat": s, "reason": "dice tray"}})
                                for s in stats])))
    items.append(("Roll dice...", ("roll", uid)))
    jump = scene.descend == "jump"
    items.append(("Drags climb down ledges (M6)" if jump else "Drags jump down ledges (M9)", ("descend", uid)))
    return items


def pending_choices(scene: PlayScene, p: Any) -> list[tuple[str, Any]]:
    """Buttons for a pending upkeep decision: (label, action dict)."""
    if not isinstance(p, dict):
        return []
    kind = p.get("kind")
    st = scene.state
    if kind == "voluntary_rout":
        return [("Play on (U3)", {"play_on": {"player": p["player"]}}),
                ("Rout now (U3)", {"rout": {"player": p["player"]}})]
    if kind == "grab":
        out = []
        for uid in p.get("units", []):
            u = st.units.get(uid)
            name = f"{u.name} ({uid})" if u else uid
            out.append((f"{name} tries for {p['token']}", {"grab": {"unit": uid, "token": p["token"]}}))
        return out
    if kind == "pick_up":
        out = []
        for o in p.get("options", []):
            u = st.units.get(o["unit"])
            name = f"{u.name} ({o['unit']})" if u else o["unit"]
            out.append((f"{name} picks up {o['token']}", {"pick_up": {"unit": o["unit"], "token": o["token"]}}))
        out.append(("Pick up nothing (end step)", {"end_step": {}}))
        return out
    return []


def pending_text(scene: PlayScene, p: Any) -> tuple[str, str]:
    kind = str(get_field(p, "kind") or "decision")
    title = {"voluntary_rout": "Rout check passed (U3)", "pick_up": "Treasure (U6)",
             "grab": "Treasure grab after a rout (U4)", "neutrals": "Neutrals (U1)"}.get(kind, kind.replace("_", " "))
    msg = str(get_field(p, "prompt") or "")
    if kind == "voluntary_rout":
        rout = [t for t in recent_auto(scene, "U2")]
        if rout:
            msg = "\n".join(rout[-2:]) + "\n\n" + msg
    if kind == "pick_up" and p.get("denied"):
        msg += "\nDenied: " + "; ".join(p["denied"])
    if kind == "pick_up":
        msg += "\n(You may also click a token in contact on the table.)"
    if kind == "grab" and p.get("check"):
        msg += "\nThe chosen unit makes a Morale check."
    return title, msg


def recent_auto(scene: PlayScene, rule: str) -> list[str]:
    """Texts of the automatic steps with ``rule`` set off by the last action (or the start)."""
    log = list(getattr(scene.game, "log", []) or [])
    e = log[-1] if log else getattr(scene.game, "start", None)
    if e is None:
        return []
    return [str(a.get("text")) for a in (get_field(e, "automatic", []) or []) if isinstance(a, dict) and a.get("rule") == rule]


def game_summary(game, winner: str) -> tuple[str, list[str]]:
    sc, st = game.scenario, game.state
    try:
        w = sc.warband(winner)
        name = w.name or w.id
    except KeyError:
        name = winner
    lines = [f"Turns played: {st.turn}"]
    for w in sc.warbands:
        units = st.units_of(w.id)
        lost = st.lost.get(w.id, sum(1 for u in units if not u.active))
        held = [u.carrying for u in units if u.carrying and u.on_table]
        fate = " (routed)" if w.id in st.routed else ""
        lines.append(f"{w.name or w.id}{fate}: {lost} unit(s) lost, treasure held: {len(held)}"
                     + (f" ({', '.join(held)})" if held else ""))
    lines.append(f"Actions in the log: {len(getattr(game, 'log', []) or [])}")
    return f"{name} wins!", lines
