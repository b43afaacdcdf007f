"""Every rule question the play window asks the engine, in one place.

The window holds no rule of its own: what may be done and why not (``why_illegal``),
what a pending decision offers (the typed ``game.pending``) and which dialogs an action
set off (its typed events) are the engine's answers, read here. Scenes, menus and
panels call these functions and never read the engine's rule data themselves, so a
change of the engine's question API is a change of this module alone. Nothing here
changes the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.engine.decisions import Decision, Grab, NeutralsAct, PickUp, VoluntaryRout
from game.engine.errors import IllegalAction
from game.engine.events import EventNotTriggered, EventTriggered, NeutralAppeared, PlagueChecked, RoutChecked
from game.engine.rule_ids import RuleId


# --- what may be done now -----------------------------------------------------------------
def legal_kinds(game) -> set[str]:
    """The action kinds the current phase, step or decision accepts now."""
    return set(game.legal_action_kinds())


def end_kind(game) -> str:
    """What the End button does now: ``end_step`` inside a step, ``end_activation`` while a
    unit is activated (O2 alternating), else ``end_phase``."""
    kinds = legal_kinds(game)
    if game.state.step is not None and ("end_step" in kinds or not kinds):
        return "end_step"
    if "end_activation" in kinds and game.state.activation is not None:
        return "end_activation"
    return "end_phase"


def alternating(game) -> bool:
    """The players activate one unit each in turn (O2 ``activation: alternating``)."""
    return game.rs.get("activation") == "alternating"


def order_tag(game) -> str:
    """The banner's words on the turn order (O1, O2), or "" under the seeds' order: whose
    activation it is and which unit, who went first this game turn, and under ``roll_off``
    the roll that decided it."""
    st = game.state
    rs = game.rs
    parts = []
    if rs.get("activation") == "alternating":
        parts.append(
            f"activating {st.activation}"
            if st.activation
            else "alternating: pick a unit"
            if game.flow.activating(game.ctx)
            else f"P{st.first} first"
        )
    if rs.get("turn_order", "fixed") != "fixed":
        rolls = roll_off(game)
        parts.append(f"roll-off {rolls}: P{st.first} first" if rolls else f"P{st.first} first")
    return "; ".join(dict.fromkeys(parts))


def roll_off(game) -> str:
    """This game turn's roll-off (O1), as "P1 5, P2 19", or "" when there was none."""
    for entry in [*reversed(game.log), game.start]:
        rolls = [r for r in entry.rolls if r.rule == RuleId.O1]
        if rolls and entry.turn == game.state.turn:
            last = {}
            for r in rolls:
                last[r.reason.rsplit(" ", 1)[-1]] = r.kept
            return ", ".join(f"P{p} {v}" for p, v in last.items())
        if entry.turn < game.state.turn:
            break
    return ""


def why_illegal(game, action: dict) -> IllegalAction | None:
    """Why the engine would refuse ``action`` now (rule and reason), or None."""
    return game.why_illegal(action)


def pick_up_actions(game, unit: str | None = None, token: str | None = None) -> list[dict]:
    """The pick-ups the engine would accept now: one unit's, or one token's, or all."""
    st = game.state
    units = [unit] if unit is not None else [u.id for u in st.units.values() if u.active]
    tokens = [token] if token is not None else [t.id for t in st.treasure.values() if not t.carried_by]
    actions = [{"pick_up": {"unit": u, "token": t}} for u in units for t in tokens]
    return [a for a in actions if game.why_illegal(a) is None]


def legal(game, uid: str):
    """What ``uid`` may do now: ``.kinds``, ``.targets`` by kind, and ``.refused`` (the
    refusal, rule and reason, of every kind it may not take)."""
    return game.legal_actions(uid)


def legal_targets(game, uid: str) -> dict[str, tuple[str, ...]]:
    """The targets of every action ``uid`` may take now, by kind (the engine's
    ``legal_actions``): the units it may shoot, attack, engage; the tokens it may pick up."""
    return dict(legal(game, uid).targets)


def engage_targets(game, uid: str) -> list[str]:
    """The units ``uid`` could try to engage (the other sides' units still in the game),
    nearest first; the engine refuses the ones out of reach with their rule."""
    st, board = game.state, game.board
    u = st.units[uid]
    enemies = [v for v in st.units.values() if v.active and v.warband != u.warband]
    enemies.sort(key=lambda v: board.distance(u, v))
    return [v.id for v in enemies]


def has_reload_weapon(game, uid: str) -> bool:
    """The unit carries a ranged weapon that reloads (M11), so Reload means something for it."""
    from game.engine.rules.shoot import reloads

    u = game.state.units.get(uid)
    return u is not None and reloads(game.scenario.ruleset, u)


def is_manual_phase(game) -> bool:
    """A phase whose rules the players apply themselves (the table gives tools and a log)."""
    return game.scenario.ruleset.is_manual(game.state.phase)


def combat_mode(game) -> str:
    """``placeholder`` when shoot and attack resolve by the placeholder rules (S1, S2, F1),
    ``manual`` when the players set results by hand."""
    return str(game.scenario.ruleset.combat)


# --- combat (S1, F1, S2) -------------------------------------------------------------------
#: The attacks a unit may make on an enemy, in the order the menus list them.
ATTACK_KINDS = ("shoot", "attack")


@dataclass(frozen=True)
class AttackChoice:
    """One attack ``unit`` could make on ``target`` now: its action and exact odds, or the
    engine's refusal (rule and reason)."""

    kind: str
    action: dict
    odds: Any = None
    refusal: IllegalAction | None = None


def attack_choices(game, uid: str, target: str) -> list[AttackChoice]:
    """Shoot and Attack from ``uid`` on ``target`` for the kinds the phase accepts now:
    each with its odds (``game.odds``, exact, rolls nothing) or why the engine refuses it."""
    kinds = legal_kinds(game)
    return [attack_choice(game, {kind: {"unit": uid, "target": target}}) for kind in ATTACK_KINDS if kind in kinds]


def attack_choice(game, action: dict) -> AttackChoice:
    """One attack action with its exact odds, or the engine's refusal."""
    kind = next(iter(action))
    try:
        return AttackChoice(kind, action, odds=game.odds(action))
    except IllegalAction as exc:
        return AttackChoice(kind, action, refusal=exc)


def odds(game, action: dict):
    """The exact odds of an attack (``.hit``, ``.results``, ``.mode``), None for an action
    without odds; raises IllegalAction when the engine refuses it."""
    return game.odds(action)


# --- line of sight (L1, L2) ------------------------------------------------------------------
def sight(game):
    """The game's line of sight engine (L1/L2 on this map)."""
    return game.sight


def private_sight(game):
    """A line of sight engine of its own for a worker thread (its own board and caches,
    nothing shared with the game's), to ask about copies of the state off the frame."""
    from game.engine.sight import Sight

    return Sight(game.scenario)


def state_copy(game):
    """A copy of the state now, for questions asked off the frame while the game goes on."""
    return game.state.copy()


def sight_between(game, a: str, b: str):
    """L1/L2 from unit ``a`` to unit ``b`` (``.status``: visible, cover or hidden)."""
    return game.sight.between(game.state, a, b)


def sight_between_points(game, p, q):
    """L1 between two table points at eye height (the ruler's two ends)."""
    return game.sight.between_points(p, q, game.state)


# --- movement questions (the movement engine) -----------------------------------------------
def prepare_movement(game) -> None:
    """Build the movement engine now, with the map's path structures (each is built on
    first use, which is slow on big maps: the path structures take 115 ms on stress.yaml,
    which the first unit selected would otherwise pay)."""
    game.mover.nav  # noqa: B018 - the properties build them


def allowance(game, uid: str, run: bool) -> float:
    """Inches ``uid`` may walk (or run) now; raises IllegalAction when it may not."""
    return float(game.mover.allowance(game.state, uid, run=run).inches)


def allowance_across_difficult(game, uid: str, run: bool) -> float:
    """Inches ``uid`` may walk (or run) now on a path that crosses difficult ground (M12,
    after every other modifier); raises IllegalAction when it may not move."""
    return float(game.mover.allowance(game.state, uid, run=run).total(True))


def difficult_stretches(game, uid: str, pts) -> list[list[tuple[float, float]]]:
    """Where ``uid``'s base, moved along the points ``pts``, crosses difficult ground (M12):
    the stretches of the path, in order (none: it crosses none)."""
    from game.engine.movement.tracer import difficult_stretches as stretches

    unit = game.state.units[uid]
    return stretches(game.mover, unit, [(float(p[0]), float(p[1])) for p in pts])


def run_denial(game, uid: str) -> IllegalAction | None:
    return game.mover.run_denial(game.state, uid)


def reachable(game, uid: str):
    """The ground ``uid`` reaches walking and running (bands of geometry)."""
    return game.mover.reachable(game.state, uid)


def plan(game, uid: str, run: bool, **where):
    """The path the engine takes for a move (``to=`` or ``path=``, ``descend=``)."""
    return game.mover.plan(game.state, uid, run=run, **where)


@dataclass(frozen=True)
class EngagePath:
    """The engine's way into base contact: points (x, y), its cost, the inches the unit
    may engage (``limit``) and the height changes on the way (``transitions``)."""

    points: list[tuple[float, float]]
    cost: float
    limit: float
    transitions: tuple = ()


def may_engage(game, uid: str, target: str) -> bool:
    """False when no path could take ``uid`` into contact with ``target`` (the engine's
    straight-line bound, E1); True when only a path search can tell."""
    from game.engine.movement.mover import may_engage as bound

    st = game.state
    return bound(game.rs, st.units[uid], st.units[target])


def plan_engage(game, uid: str, target: str) -> EngagePath | None:
    """E1: the engine's cheapest way for ``uid`` into base contact with ``target``; raises
    IllegalAction with the rule and the cheapest cost when there is none within the
    allowance. None when the movement engine has no Engage search of its own."""
    planner = getattr(game.mover, "plan_engage", None)
    if planner is None:
        return None
    plan = planner(game.state, uid, target)
    return EngagePath(
        [(float(p[0]), float(p[1])) for p in plan.points],
        float(plan.cost),
        float(plan.allowance),
        tuple(plan.transitions),
    )


# --- bots (issue 11) ----------------------------------------------------------------------
def turn_player(game) -> int:
    """The player whose decision the game waits for (0: the Neutrals)."""
    return game.turn_player()


def neutrals_by_bot(game) -> bool:
    """The Neutrals' decisions wait for a bot (U1 ``neutral_act: bot``)."""
    return game.scenario.ruleset.neutral_act == "bot"


def make_bot(name: str):
    """A bot by its name (``utility``, ``random``, a personality); LoadError when unknown."""
    from game.bots import make_bot as make

    return make(name)


def neutrals_bot():
    """The bot that plays the Neutrals (U1) in bot games."""
    from game.bots import with_neutrals

    return with_neutrals({})[0]


def bot_mover(game):
    """A movement engine of its own for the bot's worker thread (build it there)."""
    from game.engine.movement import Mover

    return Mover(game.scenario, game.board)


def bot_snapshot(game, mover):
    """A copy of the game for the bot to think on in a worker (take it on the window's thread)."""
    from game.bots import snapshot

    return snapshot(game, mover=mover)


def advise(copy, bot_name: str, top: int, mover):
    """The bot's ``top`` best next actions for the side to act (``speedheim advise``), on a
    copy of the game, with a movement engine of the worker's own (``bot_mover``)."""
    from game.bots.advise import advise as bot_advise

    return bot_advise(copy, bot_name, top, mover=mover)


def advise_after(copy, action: dict, bot_name: str, top: int, mover) -> list:
    """The advice once ``action`` (a flow action: ending a phase or a step) is played on a
    copy of ``copy``, while the same side is to act and the game goes on; each reason
    begins with "then: ". [] when the action is refused or the turn passes."""
    import dataclasses

    ahead = copy.clone(mover=mover)
    who = ahead.turn_player()
    if ahead.why_illegal(action) is not None:
        return []
    ahead.apply(action)
    if ahead.outcome() is not None or ahead.turn_player() != who:
        return []
    return [dataclasses.replace(d, reason=f"then: {d.reason}") for d in advise(ahead, bot_name, top, mover)]


def bot_think(bot, copy, player: int):
    """The bot's next decision (``.action``, ``.reason``, ``.unit``) on a copy of the game."""
    from game.bots import think

    return think(bot, copy, player)


def path_taken(result) -> list[tuple[float, float]] | None:
    """The path an applied move, Run or Engage took (to animate it), or None."""
    from game.bots import decision_path

    return decision_path(result)


def bot_game_scenario(scenario):
    """``scenario`` under the rules of a bot game: placeholder combat, a turn limit and the
    Neutrals played by a bot, unless its ruleset says otherwise."""
    from game.bots import bot_scenario

    return bot_scenario(scenario)


# --- decisions waiting for a player -------------------------------------------------------
def pending(game) -> Decision | None:
    """The typed decision the game waits for, or None."""
    return game.pending


def neutral_units(d: Decision | None) -> tuple[str, ...]:
    return d.units if isinstance(d, NeutralsAct) else ()


def decision_actions(d: Decision) -> list[tuple[str, Any, dict]]:
    """The answers a decision offers: (what, who, action). ``what`` names the answer."""
    if isinstance(d, VoluntaryRout):
        return [
            ("play_on", d.player, {"play_on": {"player": d.player}}),
            ("rout", d.player, {"rout": {"player": d.player}}),
        ]
    if isinstance(d, Grab):
        return [("grab", uid, {"grab": {"unit": uid, "token": d.token}}) for uid in d.units]
    if isinstance(d, PickUp):
        return [("pick_up", (uid, tid), {"pick_up": {"unit": uid, "token": tid}}) for uid, tid in d.options] + [
            ("decline", None, {"end_step": {}})
        ]
    return []


def decision_notes(d: Decision) -> list[str]:
    """What a decision adds to its prompt: denied pick-ups, a grab's Morale check."""
    if isinstance(d, PickUp):
        return (["Denied: " + "; ".join(d.denied)] if d.denied else []) + [
            "(You may also click a token in contact on the table.)"
        ]
    if isinstance(d, Grab) and d.check:
        return ["The chosen unit makes a Morale check."]
    return []


# --- what an action set off (dialogs) ------------------------------------------------------
@dataclass
class Report:
    title: str
    lines: list[str] = field(default_factory=list)


def reports(game, result: Any) -> list[Report]:
    """Dialogs for what an action set off, from its typed events: a token that hid an
    Event or the Plague (U7), a Rout Check (U2) unless a voluntary rout is asked next."""
    out: list[Report] = []
    events = result.events
    u7 = [str(r) for r in result.rolls if r.rule == RuleId.U7]
    for ev in events:
        if isinstance(ev, EventTriggered):
            appeared = [e.text() for e in events if isinstance(e, NeutralAppeared)]
            out.append(Report(f"Token {ev.token} hid an Event (U7)", [ev.text(), *appeared, *u7]))
        elif isinstance(ev, EventNotTriggered):
            out.append(Report(f"Token {ev.token} hid an Event (U7)", [ev.text()]))
        elif isinstance(ev, PlagueChecked):
            out.append(Report(f"Token {ev.token} hid the Plague (U7)", [ev.text(), *u7]))
    rout = [ev.text() for ev in events if isinstance(ev, RoutChecked) and ev.passed is not None]
    if rout and not isinstance(pending(game), VoluntaryRout):
        out.append(Report("Rout check (U2)", rout))
    return out


def rout_checks(game) -> list[str]:
    """The Rout Checks the last action (or the start) set off, as sentences."""
    e = game.log[-1] if game.log else game.start
    return [ev.text() for ev in e.events if isinstance(ev, RoutChecked)]


# --- the end ----------------------------------------------------------------------------
def outcome(game):
    """None while the game goes on; else ``.winner`` (a warband id, None for a draw) and ``.reason``."""
    return game.outcome()
