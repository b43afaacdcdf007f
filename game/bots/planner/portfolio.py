"""Joint plans, portfolio greedy search: the utility bot's choice, then one-unit changes.

A plan gives some of the side's units a :class:`~game.bots.planner.goals.Goal`; the units
without one play as the utility bot would, so the empty plan *is* the utility bot's
choice. :class:`Searcher` screens the empty plan and each one-unit change to it (the goals
:func:`candidates` proposes, the likeliest to matter first): the utility plan's own turn is
played once and kept as a script, and a change replays that script with the changed unit
pursuing its goal (:class:`~game.bots.planner.goals.ReplayPolicy`; a fraction of a
rollout's cost, so some thirty changes a turn are looked at). A screening's value weighs
what the opponent may Engage next (:mod:`threats`), any unit. It hill-climbs on
screenings (the best change with one more unit changed, while that gains; once two
changes gain, the single changes leave room for that climb), then plays out the empty plan
and the best screened plans near the best screening in whole rollouts (the turn and the
opponent's reply), in rounds of one sample each while the budget lasts
(:meth:`Searcher.playoff`), and plays the best mean, or a seeded choice among
the plans within :data:`CHOICE_MARGIN` of it (:meth:`Searcher.choose`). Every plan is
played on the same dice (common random numbers, :mod:`rollout`); the budget is counted in
decisions played, and the choice is drawn from the game's seed, so the same seed gives the
same choice on any machine.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from game.bots.planner.evaluate import Value, evaluate
from game.bots.planner.goals import Goal, GoalPolicy, ReplayPolicy, can_act
from game.bots.planner.rollout import rollout, sample_seed
from game.bots.sense import Sense, gap, next_status
from game.bots.utility import UtilityBot

#: Candidate goals tried at most (by prior), and per unit. Seven a unit: a fast unit
#: that can deny any of six tokens keeps every one of them. With five, on the mirror
#: table, the War Hound's denial of t-east (its sixth) was never screened in its first
#: turns, nor the second seat's Ogre taking t-east in its first
#: (docs/decisions/0005-planner-fights-race-and-goals.md says what that did to the games,
#: and why that figure depends on the bot).
MAX_CANDIDATES = 30
PER_UNIT = 7
#: Screened plans that get whole rollouts at most (:meth:`Searcher.playoff`: the budget
#: decides how many are played, and on how many samples).
FINALISTS = 2
#: A whole rollout's cost in screenings, before one is measured (the reply turn about
#: doubles it).
REPLY_COST = 2.2
#: A replayed action's cost in decisions (a legality question and ``Game.apply``; a
#: decision is dominated by the reachable area and its path plans).
REPLAYED = 0.15
#: A replayed screening's cost, as a share of the first screening, until one is measured.
REPLAYED_GUESS = 0.3
#: Share of the budget the screenings may use (the rest is for whole rollouts).
SCREEN_SHARE = 0.55
#: Points a change must gain over the plan it changes to be climbed from (see :func:`_gains`).
MIN_GAIN = 0.5
#: Points below the best screening within which a plan still gets whole rollouts.
SCREEN_MARGIN = 4.0
#: Points below the best mean within which the plan played is a seeded choice (a sixth
#: of a token: about what one or two samples a plan can tell apart).
CHOICE_MARGIN = 2.0
#: Points within which two screenings are a tie that a seeded draw orders (see
#: :meth:`Searcher.finalists`).
TIE_MARGIN = 1.0
#: Screenings kept for the hill climb once two single changes gain: one per gaining change,
#: up to this (a climbing step, which changes more units, costs more than a single's).
CLIMB_ROOM = 3


@dataclass
class Scored:
    """A plan and what its samples gave."""

    plan: dict[str, Goal]
    values: list[Value] = field(default_factory=list)  # whole rollouts (turn and reply)
    screen: Value | None = None  # the screening (own turn only)

    @property
    def mean(self) -> float:
        return statistics.fmean(v.total for v in self.values) if self.values else -math.inf

    @property
    def value(self) -> float:
        """The whole rollouts' mean, else the screening's value."""
        return self.mean if self.values else self.screened

    @property
    def screened(self) -> float:
        return self.screen.total if self.screen is not None else -math.inf

    def count(self, test) -> int:
        """How many of the plan's samples pass ``test``."""
        return sum(1 for v in self.values if test(v))

    def key(self) -> tuple:
        return tuple(sorted((g.unit, g.kind, g.target or "") for g in self.plan.values()))


@dataclass
class PlanSearch:
    """What one planner search found for a side: its plans scored best first, the counts
    of rollouts and candidates, and the plan it chose to play."""

    side: str
    player: int
    now: Value
    scored: list[Scored]  # best first
    rollouts: int
    candidates: int
    names: dict[str, str] = field(default_factory=dict)
    screens: int = 0
    searcher: "Searcher | None" = field(default=None, repr=False, compare=False)
    chosen: Scored | None = None  # the plan played (see :meth:`Searcher.choose`)

    @property
    def best(self) -> Scored:
        """The plan the bot plays: the best mean, or a seeded choice among those near it."""
        return self.chosen if self.chosen is not None else self.scored[0]

    @property
    def baseline(self) -> Scored:
        return next(s for s in self.scored if not s.plan)


def candidates(sense: Sense, turn_left: int) -> list[tuple[float, Goal]]:
    """(prior, goal) for the units that may still act, likeliest to matter first."""
    rs = sense.rs
    mult = float(rs.run_multiplier)
    out: list[tuple[float, Goal]] = []
    engage_now = sense.state.phase == "engage"
    my_carriers = [u for u in sense.mine if u.carrying]
    behind = _behind(sense)
    urgent = 1.5 if behind and turn_left <= 3 else 0.0
    for u in sense.mine:
        if not can_act(u):
            continue
        mine: list[tuple[float, Goal]] = []
        run = float(u.stats.get("move", 0)) * mult
        picker = sense.can_pick_up(u)
        threats = sense.threats_to(u, run)
        for tok in sense.free_tokens:
            g = gap(u.x, u.y, u.r, tok)
            turns = math.ceil(max(0.0, g - sense.contact) / run) if run > 0 else 99
            if turns > 3 or turns > turn_left + 1:
                continue
            theirs = [e for e in sense.enemies if e.warband != sense.neutral and sense.can_pick_up(e)]
            their_turns = min(
                (
                    math.ceil(
                        max(0.0, gap(e.x, e.y, e.r, tok) - sense.contact)
                        / max(0.1, float(e.stats.get("move", 0)) * mult)
                    )
                    for e in theirs
                ),
                default=99,
            )
            take = take_turns(sense, u, tok, run, turns) if picker else math.inf
            if take <= 3 and take <= turn_left + 1:
                mine.append((3.0 - take + (1.0 if their_turns <= take + 1 else 0.0), Goal("take", u.id, tok.id)))
            if their_turns <= 3:
                mine.append((3.0 - turns + (2.0 if their_turns <= 1 else 0.5), Goal("deny", u.id, tok.id)))
        reach = sense.engage_reach(u)
        lim = float(rs.treasure_denial_range)
        for e in sense.enemies:
            g = gap(u.x, u.y, u.r, e)
            juicy = (3.0 if e.carrying else 0.0) + (1.5 if e.status in ("stunned", "dazed") else 0.0)
            if any(gap(e.x, e.y, e.r, tok) <= lim for tok in sense.free_tokens):
                juicy += 2.0 + urgent  # it denies a token: only a fight frees it
            if engage_now and reach > 0 and g <= reach + 0.1:
                # Asked of the rules (the path search of E1) before a rollout is spent on it.
                if sense.view.why_illegal({"engage": {"unit": u.id, "target": e.id}}) is None:
                    mine.append((3.0 + juicy, Goal("engage", u.id, e.id)))
            elif e.carrying and g <= 2 * run + sense.engage_reach(u, next_status(u.status)):
                mine.append((2.0 + juicy - g / max(run, 1.0), Goal("engage", u.id, e.id)))
        for c in my_carriers:
            if c.id != u.id and gap(u.x, u.y, u.r, c) <= 2 * run:
                mine.append((2.0, Goal("escort", u.id, c.id)))
        mine += marks(sense, u, run)
        if threats or u.carrying:
            w = 2.5 if u.carrying else 1.0
            mine += [(w, Goal("cover", u.id)), (w - 0.2, Goal("fall_back", u.id)), (w - 0.5, Goal("hold", u.id))]
        mine.sort(key=lambda pg: -pg[0])
        out += mine[:PER_UNIT]
    out.sort(key=lambda pg: (-pg[0], sense.view.unit_order(pg[1].unit), pg[1].kind, pg[1].target or ""))
    return out[:MAX_CANDIDATES]


def take_turns(sense: Sense, u, tok, run: float, crow: int) -> float:
    """The Runs ``u`` takes to touch ``tok`` (to pick it up, U6) along the movement
    engine's route (:meth:`RouteBook.best`: round walls, up ladders or climbing, no stop
    part-way up, a failed check costing a Run), rounded up: a token on a roof whose ladder
    is round the back is several Runs away, not the one of the straight line. ``crow``
    (the straight line's) when ``u`` touches it now, or no route to it is known (a
    planner's sandbox); at least 4 when the engine finds none within 3 Runs."""
    if crow <= 0 or run <= 0:
        return crow
    reach = u.r + tok.r + sense.contact
    route, turns = sense.book.routes.best(sense.view, u, (tok.x, tok.y), run, run, 3 * run + reach)
    if route is None:
        return crow if turns != turns else max(crow, 4)
    turns = route.turns(run, run, float(u.stats.get("agility", 0)), sense.rs, short=reach)
    return math.ceil(turns - 1e-9) if turns < math.inf else math.inf


def marks(sense: Sense, u, run: float) -> list[tuple[float, Goal]]:
    """(prior, goal) for ``u`` standing within the Run denial range (M2) of an enemy
    racer it can reach this turn: an enemy picker out of a fight whose Run gets it to a
    free token a turn sooner than walking, and whose Run nobody of ours denies yet.
    Most likely to matter when a single Run gets it there."""
    rs = sense.rs
    lim = float(rs.run_denial_range)
    mult = float(rs.run_multiplier)
    out: list[tuple[float, Goal]] = []
    if run <= 0:
        return out
    for e in sense.enemies:
        if e.warband == sense.neutral or e.engaged_with or e.carrying or not sense.can_pick_up(e):
            continue
        if gap(u.x, u.y, u.r, e) - lim > run or any(gap(m.x, m.y, m.r, e) <= lim for m in sense.mine if m.active):
            continue
        walk = float(e.stats.get("move", 0))
        if walk <= 0:
            continue
        for tok in sense.free_tokens:
            need = max(0.0, gap(e.x, e.y, e.r, tok) - sense.contact)
            if need > 0 and math.ceil(need / (walk * mult)) < math.ceil(need / walk) and need <= 2 * walk * mult:
                out.append((4.0 if need <= walk * mult else 2.5, Goal("mark", u.id, e.id)))
                break
    return out


def _behind(sense: Sense) -> bool:
    """Would the side lose at the turn limit as things stand (T1: treasure, then losses)?"""
    st = sense.state
    mine = sum(1 for u in sense.mine if u.carrying)
    foes = {u.warband for u in sense.enemies if u.warband != sense.neutral}
    for w in foes:
        theirs = sum(1 for u in sense.enemies if u.warband == w and u.carrying)
        if (theirs, -st.lost.get(w, 0)) > (mine, -st.lost.get(sense.side, 0)):
            return True
    return False


class Searcher:
    """Runs the search for one decision point (see the module's docstring)."""

    def __init__(
        self,
        view,
        side: str,
        base: UtilityBot,
        cautious: UtilityBot,
        reply,
        budget_steps: int,
        samples: int,
        fixed: dict[str, Goal] | None = None,
    ):
        self.view, self.side = view, side
        #: Goals every plan holds (the opening look's, :mod:`.opening`): played in every
        #: screening and rollout, the utility plan's included; their units get no change.
        self.fixed = dict(fixed or {})
        self.base, self.cautious, self.reply = base, cautious, reply
        self.budget, self.samples = budget_steps, samples
        self.used = 0  # rollouts played
        self.steps = 0  # decisions played in them (the budget's unit)
        self.player = view.player
        self.key = f"{view.seed}:{view.state.turn}:{view.state.player}:{len(view.log)}"
        self.mover = None
        self.screens = 0  # screenings played
        self.script = None  # the utility plan's own turn, as screened
        self.first_screen = 0.0
        self.screen_steps = 0  # decisions played in them

    def with_fixed(self, plan: dict[str, Goal]) -> dict[str, Goal]:
        """``plan`` with the goals every plan holds (:attr:`fixed`): what its policy plays."""
        return {**self.fixed, **plan}

    def screen(self, plan: dict[str, Goal]) -> Scored:
        """Play the side's own turn by ``plan`` once (sample 0's dice) and value it: the
        utility plan's turn is played and kept (its script), a change replays that script
        with the changed units pursuing their goals (:class:`ReplayPolicy`), at
        :data:`REPLAYED` of a decision's cost a replayed action."""
        s = Scored(dict(plan))
        game = self.view.sandbox(sample_seed(self.key, 0))
        if not plan or self.script is None:
            record: list = []
            r = rollout(
                game,
                self.player,
                self.side,
                GoalPolicy(self.with_fixed(s.plan), self.base, self.cautious),
                self.reply,
                with_reply=False,
                record=record,
            )
            cost = float(r.steps)
            if not plan:
                self.script = record
        else:
            policy = ReplayPolicy(self.with_fixed(s.plan), self.script, self.base, self.cautious)
            r = rollout(game, self.player, self.side, policy, self.reply, with_reply=False)
            cost = r.steps - policy.replayed + REPLAYED * policy.replayed
        s.screen = r.value
        self.screens += 1
        self.screen_steps += cost
        self.steps += cost
        return s

    def score(self, plan: dict[str, Goal], samples: int | None = None, into: Scored | None = None) -> Scored:
        """Score ``plan`` on samples ``len(into.values)`` .. ``samples - 1`` (the same dice
        for every plan: sample ``i`` is seeded alike)."""
        s = into if into is not None else Scored(dict(plan))
        policy = GoalPolicy(self.with_fixed(s.plan), self.base, self.cautious)
        for i in range(len(s.values), samples or self.samples):
            game = self.view.sandbox(sample_seed(self.key, i))
            r = rollout(game, self.player, self.side, policy, self.reply)
            s.values.append(r.value)
            self.used += 1
            self.steps += r.steps
        return s

    def affords(self, rollouts: int, screens: int = 0, share: float = 1.0) -> bool:
        """Would ``rollouts`` more rollouts and ``screens`` more screenings fit in ``share``
        of the budget? Costs are the means so far; before any is measured, a rollout costs
        :data:`REPLY_COST` times the first screening (the utility plan's whole turn) and a
        replayed screening :data:`REPLAYED_GUESS` of it."""
        first = self.first_screen
        screen = (self.screen_steps - first) / (self.screens - 1) if self.screens > 1 else REPLAYED_GUESS * first
        per = self.steps_in_rollouts / self.used if self.used else REPLY_COST * first
        return self.steps + per * rollouts + screen * screens <= self.budget * share

    @property
    def steps_in_rollouts(self) -> int:
        return self.steps - self.screen_steps

    def run(self) -> PlanSearch:
        """Screen the utility plan and every candidate (likeliest first, while
        :data:`SCREEN_SHARE` of the budget lasts), hill-climb on screenings (the best
        change with one more unit changed), then play out the utility plan and the best
        :data:`FINALISTS` screened plans near the best screening (:meth:`playoff`); the
        plan played is :meth:`choose`'s."""
        view = self.view
        sense = Sense(view, self.side, self.base.personality, self.base.book)
        now = evaluate_view(view, self.side)
        cands = [c for c in candidates(sense, now.turns_left) if c[1].unit not in self.fixed]
        base = self.screen({})
        self.first_screen = self.screen_steps
        done = {base.key(): base}
        singles: list[Scored] = []
        gains = 0  # singles that gain: with two or more, room is kept to climb
        for _, goal in cands:
            if not self.affords(0, 1 + min(CLIMB_ROOM, gains if gains > 1 else 0), SCREEN_SHARE):
                break
            s = self.screen({goal.unit: goal})
            if s.key() not in done:
                done[s.key()] = s
                singles.append(s)
                gains += _gains(s, base)
        # Hill climbing on screenings: the best change with one more unit's change added,
        # among the good ones, while it gains.
        # Screenings within TIE_MARGIN of each other are ties: a seeded draw orders them
        # (with several near-equal changes, different seeds climb from and play out
        # different ones).
        rng = self.view.rng("planner-ties")
        lots = {s.key(): rng.uniform(0.0, TIE_MARGIN) for s in sorted(singles, key=lambda s: s.key())}
        good = sorted((s for s in singles if _gains(s, base)), key=lambda s: (-(s.screened + lots[s.key()]), s.key()))
        climb = good[0] if good else None
        for s in good[1:]:
            if not self.affords(0, 1, SCREEN_SHARE):
                break
            ((unit, goal),) = s.plan.items()
            if unit in climb.plan:
                continue
            trial = self.screen({**climb.plan, unit: goal})
            if trial.key() in done:
                continue
            done[trial.key()] = trial
            if _gains(trial, climb):
                climb = trial
        # Whole rollouts (the reply too) for the utility plan and the best screened plans
        # near the best screening (:meth:`playoff`); with none affordable, the best
        # screening decides.
        finalists = self.finalists(base, [s for s in done.values() if s is not base], climb, lots)
        chosen = base
        if finalists:
            played = self.playoff(base, finalists)
            if played:
                chosen = self.choose(played)
            else:
                chosen = max([base] + finalists, key=lambda s: s.screened)
        # Best first: the plans played on the utility plan's samples by their mean, then
        # the others (only screened, or left behind with fewer samples) by their value.
        n = max(1, len(base.values))
        scored = sorted(
            done.values(),
            key=lambda s: (
                len(s.values) < n and s is not chosen,
                -(s.mean if s.values else s.screened),
                len(s.plan),
                s.key(),
            ),
        )
        names = {u.id: (u.name or u.id) for u in view.state.units.values()}
        return PlanSearch(
            self.side, self.player, now, scored, self.used, len(cands), names, self.screens, self, chosen=chosen
        )

    def playoff(self, base: Scored, finalists: list[Scored]) -> list[Scored]:
        """Whole rollouts for the utility plan and ``finalists``, in rounds on the same
        dice: every plan the budget affords gets sample 0 (the utility plan and the first
        finalist at least, else none is played), then each further sample goes to the
        utility plan and the plans leading so far, best first, while it lasts. A plan the
        screening ranked second is played out rather than left for the first's second
        sample. Returns the plans with as many samples as the utility plan (those
        :meth:`choose` compares), or [] when not even one round fits."""
        plans = [base] + finalists
        if not self.affords(2):
            return []
        n = next(k for k in range(len(plans), 1, -1) if self.affords(k))
        for s in plans[:n]:
            self.score(s.plan, 1, into=s)
        for k in range(2, self.samples + 1):
            leaders = sorted((s for s in plans[1:n] if s.values), key=lambda s: (-s.mean, len(s.plan), s.key()))
            m = next((j for j in range(len(leaders), 0, -1) if self.affords(j + 1)), 0)
            if not m:
                break
            for s in [base] + leaders[:m]:
                self.score(s.plan, k, into=s)
        return [s for s in plans if len(s.values) >= len(base.values)]

    def finalists(
        self, base: Scored, screened: list[Scored], climb: Scored | None, lots: dict[tuple, float]
    ) -> list[Scored]:
        """The changes that get whole rollouts: the best :data:`FINALISTS` screenings
        (the climb's last step first) within :data:`SCREEN_MARGIN` of the best screening,
        the utility plan's included. ``screened`` is every change screened: the single
        changes and the climb's steps, so a step short of the climb's end (two units
        engaging where three screened a little better) is in the running too. The
        screening values the opponent's threats (:mod:`threats`), so a change that only
        pays off against the reply is kept. Screenings within :data:`TIE_MARGIN` of each
        other count as ties, ordered by the seeded draw ``lots`` (points added to each
        single change's screening, ``View.rng``): with several near-equal changes (a fast
        unit that may deny any of six tokens) different seeds play different ones out."""
        lead = climb if climb is not None and len(climb.plan) > 1 else None
        pool = ([lead] if lead is not None else []) + sorted(
            (s for s in screened if s is not lead),
            key=lambda s: (-(s.screened + lots.get(s.key(), 0.0)), s.key()),
        )
        top = max([base.screened] + [s.screened for s in pool])
        return [s for s in pool if s.screened >= top - SCREEN_MARGIN][:FINALISTS]

    def choose(self, full: list[Scored]) -> Scored:
        """The plan to play among ``full`` (each scored on the same samples): the best
        mean, or, among the plans within :data:`CHOICE_MARGIN` of it, one drawn with the
        bot's own generator (``View.rng``: seeded by the game's seed and the point of the
        game, so one seed replays one game and another seed may open differently)."""
        full = sorted(full, key=lambda s: (-s.mean, len(s.plan), s.key()))
        near = [s for s in full if s.mean >= full[0].mean - CHOICE_MARGIN]
        if len(near) == 1:
            return near[0]
        return near[self.view.rng("planner").randrange(len(near))]


def _gains(s: Scored, base: Scored) -> bool:
    """Does screened plan ``s`` gain :data:`MIN_GAIN` points over ``base``'s screening?"""
    return s.screened >= base.screened + MIN_GAIN


def evaluate_view(view, side: str) -> Value:
    """The value of the position now (on a sandbox copy: the view does not hand out the game)."""
    return evaluate(view.sandbox(0), side)
