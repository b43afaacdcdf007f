"""Words of the play scene: the log panel's lines, the context menu of a unit, the
buttons of a pending decision and the winner's summary. These read the game (rule
questions go through :mod:`game.ui.scenes.ask`); they never change it (the scene
applies the actions they offer)."""

from __future__ import annotations

from typing import Any

import math

from game.engine.actions import describe
from game.engine.decisions import Decision
from game.engine.model import STATUSES
from game.engine.rule_ids import RuleId
from game.ui.scenes import ask
from game.ui.scenes.play.table import Table


#: Actions the unit menu offers with items of their own (any other kind the engine says
#: the unit may take now, with targets, gets a submenu of them: shoot, attack ...).
MENU_KINDS = ("engage", "disengage", "pick_up", "grab")


def build_log(scene: Table) -> list[tuple[str, str]]:
    """Log lines from the game's log (start first), with the window's notes merged in."""
    out: list[tuple[str, str]] = []
    notes = sorted(scene.notes, key=lambda n: n[0])
    ni = 0
    start = scene.game.start
    actor = start.player
    out.extend(format_entry(start))
    for i, e in enumerate(scene.game.log):
        while ni < len(notes) and notes[ni][0] <= i:
            out.append((notes[ni][1], notes[ni][2]))
            ni += 1
        out.extend(format_entry(e, actor))
        if e.ok:
            actor = e.player  # entries are stamped after the action
    while ni < len(notes):
        out.append((notes[ni][1], notes[ni][2]))
        ni += 1
    return out


def format_entry(e: Any, actor: int | None = None) -> list[tuple[str, str]]:
    """One controller log entry (ActionResult) as coloured lines: the action, its rolls,
    the automatic steps it set off (with rule ids) and what happened."""
    lines: list[tuple[str, str]] = []
    if e.action is None:
        lines.append(("Game start", "turn"))
    else:
        what = action_words(e.action, e if e.ok else None)
        if e.ok:
            cost = e.extra.get("cost")
            who = actor if actor is not None else e.player
            shown = f'{float(cost):.2f}"' if cost is not None else None
            if shown is not None and what.endswith(f"{shown} long"):
                shown = None  # a flat path costs its length, said once
            elif shown is not None and what.endswith(" long"):
                shown = f"cost {shown}"  # climbing, ladders, difficult ground: the cost differs
            lines.append((f"P{who} {what}" + (f" ({shown})" if shown else ""), "action"))
        else:
            lines.append((f"illegal {what}: {e.rule}: {e.reason}", "refusal"))
    # The engine's order (as ActionResult.text): rolls, automatic steps, then what happened.
    for r in e.rolls:
        lines.append(("   roll " + str(r), "roll"))
    for a in e.automatic:
        rule = a.get("rule") or ""
        kind = "turn" if rule == "turn" and "begins" in str(a.get("text")) else "auto"
        lines.append((f"   auto [{a.get('step')}] {rule}: {a.get('text')}", kind))
    for text in e.texts:
        lines.append(("   " + text, "event"))
    winner = e.winner
    if winner:
        lines.append((f"   winner: {winner}", "turn"))
    return lines


#: Actions that walk a path: the log gives their start, end and length, not every waypoint.
PATH_KINDS = ("move", "run", "engage")


def _xy(p) -> str:
    return f"[{float(p[0]):.2f}, {float(p[1]):.2f}]"


def action_words(action: Any, result: Any = None) -> str:
    """An action as a log line: :func:`describe`, but a move, Run or Engage as its start,
    its end and its length (the path it took when ``result`` is an applied one). Every
    waypoint stays in the action, so the save (and the replay) has the full path."""
    if not isinstance(action, dict) or len(action) != 1:
        return describe(action)
    ((kind, body),) = action.items()
    if kind not in PATH_KINDS or not isinstance(body, dict):
        return describe(action)
    pts = ask.path_taken(result) if result is not None else None
    given = body.get("path")
    if not pts and isinstance(given, list) and len(given) > 2:
        pts = given
    if not pts or len(pts) < 2:
        return describe(action)
    rest = {k: v for k, v in body.items() if k not in ("path", "to")}
    try:
        length = sum(math.hypot(float(b[0]) - float(a[0]), float(b[1]) - float(a[1])) for a, b in zip(pts, pts[1:]))
        where = f"from {_xy(pts[0])} to {_xy(pts[-1])}"
    except (TypeError, ValueError, IndexError):
        return describe(action)
    bends = len(pts) - 2
    bent = f" ({bends} bend{'s' if bends > 1 else ''})" if bends > 0 else ""
    return f'{describe({kind: rest})} {where}{bent}, {length:.2f}" long'


#: How each kind of action is taken at the table, for a refusal that says what may be
#: done in this phase (kinds the phase allows, in this order; the rest go unsaid).
HOW = (
    (("move", "run"), "Move (drag a unit, M1)"),
    (("engage",), "Engage (right-click a unit: Engage..., E1)"),
    (("shoot",), "Shoot (select a shooter, right-click an enemy, S1)"),
    (("attack",), "Attack (select a unit, right-click an enemy, F1)"),
    (("disengage",), "Disengage (right-click an engaged unit)"),
    (("pick_up", "grab"), "pick up treasure (right-click a unit)"),
    (("set_status", "incapacitate", "check", "roll"), "set a status or roll a check (right-click a unit)"),
)


def phase_words(game, what: str = "Moving a unit") -> str:
    """Why ``what`` is not for now, in a player's words: the phase, what may be done in it
    and how, and how to go on (the kinds come from the engine)."""
    kinds = ask.legal_kinds(game)
    phase = str(game.state.phase or "").replace("_", " ").capitalize()
    ways = [how for group, how in HOW if any(k in kinds for k in group)]
    head = f"{what} is not part of the {phase} phase." if phase else f"{what} is not allowed now."
    body = (" Now you may " + ", ".join(ways) + ".") if ways else ""
    end = " Space ends the phase." if "end_phase" in kinds else (" Space ends the step." if "end_step" in kinds else "")
    if ask.end_kind(game) == "end_activation":
        end = " Space ends the activation."
    return head + body + end


def unit_menu_items(scene: Table, uid: str) -> list[tuple[str, Any]]:
    game, board = scene.game, scene.board
    st = game.state
    u = st.units[uid]
    targets = ask.engage_targets(game, uid)
    items: list[tuple[str, Any]] = []
    if targets:
        sub = [
            (f'{st.units[v].name} ({v}) {board.distance(u, st.units[v]):.2f}"', {"engage": {"unit": uid, "target": v}})
            for v in targets[:14]
        ]
        items.append(("Engage...", ("submenu", f"{u.name} engages", sub)))
    for kind, legal in ask.legal_targets(game, uid).items():
        if kind in MENU_KINDS:
            continue  # listed with their own items
        sub = [
            (
                f'{st.units[v].name} ({v}) {board.distance(u, st.units[v]):.2f}"' if v in st.units else v,
                {kind: {"unit": uid, "target": v}},
            )
            for v in legal[:14]
        ]
        items.append(
            (f"{kind.replace('_', ' ').capitalize()}...", ("submenu", f"{u.name}: {kind.replace('_', ' ')}", sub))
        )
    for tid in u.engaged_with:
        items.append((f"Disengage from {tid}", {"disengage": {"unit": uid, "target": tid}}))
    statuses = [s for s in STATUSES if s != "incapacitated"]
    items.append(
        (
            "Set status...",
            (
                "submenu",
                f"{u.name}: status",
                [
                    (s + (" (now)" if s == u.status else ""), {"set_status": {"unit": uid, "status": s}})
                    for s in statuses
                ],
            ),
        )
    )
    by = [
        (f"by {st.units[v].name} ({v})", {"incapacitate": {"unit": uid, "by": v}})
        for v in sorted(targets, key=lambda v: (v not in u.engaged_with, board.distance(u, st.units[v])))[:12]
    ]
    items.append(
        (
            "Incapacitate...",
            ("submenu", f"{u.name} is incapacitated", [("by nobody / other", {"incapacitate": {"unit": uid}})] + by),
        )
    )
    if ask.has_reload_weapon(game, uid):  # only a weapon that reloads is ever reloaded
        items.append(("Reload (M11)", {"reload": {"unit": uid}}))
    for action in ask.pick_up_actions(game, unit=uid):
        items.append((f"Pick up {action['pick_up']['token']}", action))
    stats = [k for k in u.stats if k != "move"]
    items.append(
        (
            "Check...",
            (
                "submenu",
                f"{u.name}: check",
                [(f"{s} ({u.stats[s]:g})", {"check": {"unit": uid, "stat": s, "reason": "dice tray"}}) for s in stats],
            ),
        )
    )
    items.append(("Roll dice...", ("roll", uid)))
    jump = scene.descend == "jump"
    items.append(("Drags climb down ledges (M6)" if jump else "Drags jump down ledges (M9)", ("descend", uid)))
    return items


#: What each attack is called, and its rule.
ATTACK_WORDS = {"shoot": ("Shoot", RuleId.S1), "attack": ("Attack", RuleId.F1)}


def chance(p) -> str:
    """An exact chance as a fraction and a percentage: ``9/25 (36.0%)``."""
    return f"{p.numerator}/{p.denominator} ({float(p):.1%})" if p.denominator != 1 else f"{p} ({float(p):.0%})"


def odds_lines(odds) -> list[str]:
    """The odds of an attack before the roll: the chance to hit, then each result's chance."""
    if odds is None:
        return ["The engine gives no odds for this action."]
    mode = {"normal": "", "no roll": " (no roll needed)"}.get(odds.mode, f" (with {odds.mode.capitalize()})")
    lines = [f"Chance to hit: {chance(odds.hit)}{mode}", "Chance of each result:"]
    lines += [f"    {k}: {chance(v)}" for k, v in odds.results.items() if v > 0]
    return lines


def attack_item(scene: Table, choice) -> tuple[str, Any]:
    """A target menu item: the attack with its chance to hit, or the engine's refusal."""
    word, _rule = ATTACK_WORDS.get(choice.kind, (choice.kind.capitalize(), ""))
    if choice.refusal is not None:
        return f"{word}: refused, {choice.refusal.rule}: {choice.refusal.reason}", ("refused", choice)
    hit = f"to hit {float(choice.odds.hit):.0%}, " if choice.odds is not None else ""
    return f"{word}: {hit}see the odds", ("odds", choice)


def attack_text(scene: Table, choice) -> tuple[str, str]:
    """The odds dialog of one attack: its title and message (the odds before the roll)."""
    st = scene.state
    u, t = st.units[choice.action[choice.kind]["unit"]], st.units[choice.action[choice.kind]["target"]]
    word, rule = ATTACK_WORDS.get(choice.kind, (choice.kind.capitalize(), ""))
    title = f"{word}: {u.name} at {t.name} ({rule}, {ask.combat_mode(scene.game)} combat)"
    dist = scene.board.distance(u, t)
    head = f'{u.name} ({u.id}) {word.lower()}s at {t.name} ({t.id}, {t.status}), {dist:.2f}" away.'
    return title, "\n".join([head, *odds_lines(choice.odds)])


def token_menu_items(scene: Table, tid: str) -> list[tuple[str, Any]]:
    st = scene.state
    items = [
        (f"{st.units[a['pick_up']['unit']].name} picks it up", a) for a in ask.pick_up_actions(scene.game, token=tid)
    ]
    return items or [("no unit may pick it up now", None)]


def pending_choices(scene: Table, d: Decision) -> list[tuple[str, Any]]:
    """Buttons for a pending decision: (label, action dict)."""
    st = scene.state

    def name(uid: str) -> str:
        u = st.units.get(uid)
        return f"{u.name} ({uid})" if u else uid

    out = []
    for what, who, action in ask.decision_actions(d):
        if what == "play_on":
            out.append(("Play on (U3)", action))
        elif what == "rout":
            out.append(("Rout now (U3)", action))
        elif what == "grab":
            out.append((f"{name(who)} tries for {d.token}", action))
        elif what == "pick_up":
            out.append((f"{name(who[0])} picks up {who[1]}", action))
        elif what == "decline":
            out.append(("Pick up nothing (end step)", action))
    return out


def pending_text(scene: Table, d: Decision) -> tuple[str, str]:
    title = {
        "voluntary_rout": "Rout check passed (U3)",
        "pick_up": "Treasure (U6)",
        "grab": "Treasure grab after a rout (U4)",
        "neutrals": "Neutrals (U1)",
    }.get(d.kind, d.kind.replace("_", " "))
    msg = d.prompt
    if d.kind == "voluntary_rout":
        rout = ask.rout_checks(scene.game)
        if rout:
            msg = "\n".join(rout[-2:]) + "\n\n" + msg
    return title, "\n".join([msg, *ask.decision_notes(d)])


def game_summary(game, outcome) -> tuple[str, list[str]]:
    """The end screen's title and lines: who won (or a draw) and what each side lost and holds."""
    sc, st = game.scenario, game.state
    if outcome.winner is None:
        title = "A draw"
    else:
        try:
            w = sc.warband(outcome.winner)
            title = f"{w.name or w.id} wins!"
        except KeyError:
            title = f"{outcome.winner} wins!"
    lines = [f"Turns played: {st.turn}", f"How: {outcome.reason}"]
    for w in sc.warbands:
        units = st.units_of(w.id)
        lost = st.lost.get(w.id, sum(1 for u in units if not u.active))
        held = [u.carrying for u in units if u.carrying and u.on_table]
        fate = " (routed)" if w.id in st.routed else ""
        lines.append(
            f"{w.name or w.id}{fate}: {lost} unit(s) lost, treasure held: {len(held)}"
            + (f" ({', '.join(held)})" if held else "")
        )
    lines.append(f"Actions in the log: {len(game.log)}")
    return title, lines
