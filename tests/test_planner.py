"""The ``planner`` bot (issue 21): its name in the registry, the evaluation, determinism,
``options`` for ``advise``, reasons that say what it weighed, and the puzzles."""

from __future__ import annotations

import math
import os
import re

import pytest

from game.bots import is_bot_name, make_bot, play_game, view
from game.bots.planner import DEFAULT_BUDGET_MS, MIN_STEPS, OVERHEAD_MS, STEP_MS, PlannerBot, budget_steps, parse_budget
from game.bots.planner.evaluate import TOKEN, WIN, evaluate
from game.engine.errors import LoadError
from game.sim.study import parse_bots
from tests.factories import left_for_the_collector
from tools.puzzles import load_puzzle, puzzle_paths, solve, start

PUZZLES = puzzle_paths()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- the registry -----------------------------------------------------------------------------


def test_planner_names_and_budgets():
    assert make_bot("planner").budget_ms == DEFAULT_BUDGET_MS
    assert make_bot("planner:250ms").budget_ms == 250
    assert make_bot("planner:2s").budget_ms == 2000
    assert make_bot("planner:1.5s").budget_ms == 1500
    assert make_bot("planner:2s").steps > make_bot("planner:250ms").steps


def test_budget_is_the_measured_cost_of_its_decisions():
    # The budget buys the fixed cost of a player-turn and then whole rollout decisions at
    # the measured cost (tools/calibrate_planner.py): no more than it says, less one step.
    for ms in (500, 1200, 2000, 5000):
        spent = OVERHEAD_MS + budget_steps(ms) * STEP_MS
        assert ms - STEP_MS < spent <= ms
    assert budget_steps(250) >= MIN_STEPS and budget_steps(1) == MIN_STEPS
    assert make_bot("planner").steps == budget_steps(DEFAULT_BUDGET_MS)
    assert is_bot_name("planner") and is_bot_name("planner:250ms")
    assert not is_bot_name("planner:fast") and not is_bot_name("planner:0s") and not is_bot_name("plannerx")
    assert parse_bots("planner:2s,utility", "--bots") == ("planner:2s", "utility")
    with pytest.raises(LoadError):
        parse_bots("planner:soon,utility", "--bots")
    with pytest.raises(LoadError):
        parse_budget("12 parsecs")
    with pytest.raises(LoadError):
        make_bot("planner:-1s")


# --- the evaluation ----------------------------------------------------------------------------


def _puzzle_game(name: str):
    return start(load_puzzle(os.path.join(os.path.dirname(PUZZLES[0]), name)))


def test_evaluation_terms_add_up_and_know_the_score():
    g = _puzzle_game("two-on-one.yaml")  # red behind 0-1 on treasure
    red, blue = evaluate(g, "red"), evaluate(g, "blue")
    assert red.total == pytest.approx(sum(red.terms.values()))
    assert red.held == (0, 1) and blue.held == (1, 0)
    assert red.terms["treasure"] < 0 < blue.terms["treasure"]
    assert red.turns_left == 3
    # Taking the token back turns the treasure term round.
    carrier = g.state.units["blue-carrier"]
    tok = carrier.carrying
    carrier.carrying, g.state.units["red-sword-1"].carrying = None, tok
    g.state.treasure[tok].carried_by = "red-sword-1"
    after = evaluate(g, "red")
    assert after.held == (1, 0) and after.terms["treasure"] > 0 > red.terms["treasure"]


def test_evaluation_weighs_the_clock_and_the_result():
    g = _puzzle_game("two-on-one.yaml")
    g.state.turn = 2
    far = evaluate(g, "red").terms["treasure"]
    g.state.turn = 10
    near = evaluate(g, "red").terms["treasure"]
    assert near < far < 0  # the same 0-1 costs more with fewer turns left
    assert abs(near) > TOKEN
    g.state.winner, g.state.end_reason = "blue", "test"
    over = evaluate(g, "red")
    assert over.over and over.won is False and over.terms["result"] == -WIN


def test_race_counts_the_climb_and_the_steps_nearer():
    # The Hound race puzzle, blue to act: move the blue Swordsman about near t-north.
    g = _puzzle_game("hound-race.yaml")
    sword, tok = g.state.units["blue-sword"], g.state.treasure["t-north"]
    for uid in ("red-captain", "red-sword-1", "red-sword-2", "blue-hound", "blue-captain"):
        g.state.units[uid].x, g.state.units[uid].y = (34.0, 34.0) if uid.startswith("blue") else (2.0, 34.0)
    values = []
    for gap in (8.0, 5.0, 2.0):
        sword.x, sword.y = tok.x + tok.r + sword.r + gap, tok.y
        values.append(evaluate(g, "blue").terms["race"])
    assert 0 < values[0] < values[1] < values[2]  # a step nearer counts, within one Run too
    # A token on a roof is a climb away: standing below it is not standing at it.
    assert _race_at("t-roof-n", (7.5, 11.5)) < _race_at("t-roof-n", (7.5, 4.5))


def _race_at(tid: str, at: tuple[float, float]) -> float:
    """The race term for north on maps/mirror.yaml with one token left, at ``at``, and the
    north Sergeant on the ground 3.5" from it (t-roof-n's roof is 3" high)."""
    from game.bots.driver import bot_scenario
    from game.engine.game import Game
    from game.engine.scenario import load_scenario

    g = Game(bot_scenario(load_scenario(os.path.join(ROOT, "maps", "mirror.yaml"))))
    st = g.state
    for t in list(st.treasure):
        if t != tid:
            del st.treasure[t]
    tok = st.treasure[tid]
    tok.x, tok.y = at
    for i, u in enumerate(st.units.values()):
        u.x, u.y = (1.0 + 1.5 * i, 35.0) if u.warband == "south" else (1.0 + 1.5 * i, 1.0)
    sgt = st.units["north-sergeant"]
    sgt.x, sgt.y = 7.5, at[1] - 3.5
    assert g.board.height_at(sgt.x, sgt.y) == 0
    return evaluate(g, "north").terms["race"]


def test_race_knows_an_enemy_within_run_denial_range_takes_the_run_away():
    """M2: a picker 5" from a token, a walk and a bit, gets there a turn later when an enemy
    stands within 8" of it (the same enemy, as far from the token, elsewhere: no change)."""
    from game.bots.driver import bot_scenario
    from game.engine.game import Game
    from game.engine.scenario import load_scenario

    def race(enemy_at: tuple[float, float]) -> float:
        g = Game(bot_scenario(load_scenario(os.path.join(ROOT, "maps", "mirror.yaml"))))
        st = g.state
        for t in list(st.treasure):
            if t != "t-east":
                del st.treasure[t]
        tok = st.treasure["t-east"]  # (26, 18), on the ground
        for i, u in enumerate(st.units.values()):
            u.x, u.y = (1.0 + 1.5 * i, 35.0) if u.warband == "south" else (1.0 + 1.5 * i, 1.0)
        sgt, cpt = st.units["north-sergeant"], st.units["south-captain"]
        sgt.x, sgt.y = tok.x, tok.y - tok.r - sgt.r - 5.0
        cpt.x, cpt.y = enemy_at
        return evaluate(g, "north").terms["race"]

    near = race((26.0, 18.0 - 11.5))  # 6" behind the Sergeant: its Run is denied
    away = race((26.0 - 11.5, 18.0))  # as far from the token, 12" from the Sergeant
    assert 0 < near < away


def test_a_denier_at_the_token_takes_it_away_and_one_on_its_way_less():
    g = _puzzle_game("hound-race.yaml")  # red's Swordsmen reach t-mid first
    hound, tok = g.state.units["blue-hound"], g.state.treasure["t-mid"]
    far = evaluate(g, "blue").terms["race"]
    hound.x, hound.y = tok.x, tok.y - tok.r - hound.r - 12.0  # a Run from the denial range
    coming = evaluate(g, "blue").terms["race"]
    hound.x, hound.y = tok.x, tok.y - tok.r - hound.r - 1.0  # within it
    there = evaluate(g, "blue").terms["race"]
    assert far < coming < there


def test_a_denier_in_a_fight_holds_its_token_less_firmly():
    g = _puzzle_game("hound-race.yaml")
    st = g.state
    hound, tok = st.units["blue-hound"], st.treasure["t-mid"]
    hound.x, hound.y = tok.x, tok.y - tok.r - hound.r - 1.0  # denies t-mid to red
    free = evaluate(g, "red").terms["race"]
    red = st.units["red-sword-1"]
    red.x, red.y = hound.x, hound.y - hound.r - red.r  # in base contact with it
    red.engaged_with, hound.engaged_with = [hound.id], [red.id]
    fought = evaluate(g, "red").terms["race"]
    hound.status = "dazed"
    hurt = evaluate(g, "red").terms["race"]
    assert free < fought < hurt  # red's pick-up is likelier while its denier may fall


def test_fights_weigh_the_chance_of_a_kill_before_the_turn_limit():
    g = _puzzle_game("two-on-one.yaml")  # red to act, the blue carrier alone
    st = g.state
    carrier, s1, s2 = st.units["blue-carrier"], st.units["red-sword-1"], st.units["red-sword-2"]
    assert evaluate(g, "red").terms["fights"] == 0.0  # nobody is Engaged
    s1.engaged_with, carrier.engaged_with = [carrier.id], [s1.id]
    one = evaluate(g, "red").terms["fights"]
    s2.engaged_with, carrier.engaged_with = [carrier.id], [s1.id, s2.id]
    two = evaluate(g, "red").terms["fights"]
    carrier.status = "dazed"
    dazed = evaluate(g, "red").terms["fights"]
    assert two > one and dazed > two  # two blows a turn, and a Dazed carrier, kill sooner
    assert evaluate(g, "blue").terms["fights"] == pytest.approx(-dazed)
    st.treasure[carrier.carrying].carried_by, carrier.carrying = None, None
    early = evaluate(g, "red").terms["fights"]
    st.turn = 10
    assert 0 < evaluate(g, "red").terms["fights"] < early < dazed  # fewer turns left, fewer blows


def test_screening_replays_the_utility_turn_with_the_changed_unit_alone():
    from game.bots.planner.goals import Goal
    from game.bots.planner.portfolio import Searcher

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)
    v = view(g, 2)
    se = Searcher(v, "blue", bot.base, bot.cautious, bot.reply, bot.steps, bot.samples)
    base = se.screen({})
    played = se.screen_steps
    assert se.script and all(d.unit in (None, "blue-hound", "blue-sword", "blue-captain") for d in se.script)
    again = se.screen({})
    assert again.screen.total == base.screen.total  # the same dice, the same turn
    before = se.screen_steps
    changed = se.screen({"blue-hound": Goal("deny", "blue-hound", "t-mid")})
    assert changed.screen.total != base.screen.total
    assert se.screen_steps - before < played  # a replay costs less than playing the turn
    assert g.state.units["blue-hound"].x == 18 and g.state.units["blue-hound"].y == 31  # on a copy


def test_the_screenings_keep_room_to_climb_to_a_change_of_two_units(monkeypatch):
    """Portfolio greedy search changes more than one unit: once two changes gain, the
    screening of further single changes stops while there is still room in the screening
    budget to screen them together, and the pair wins. (With every candidate screened
    first, the budget ran out before the climb, and the plan changed one unit a turn.)"""
    from game.bots.planner import portfolio
    from game.bots.planner.evaluate import Value
    from game.bots.planner.goals import Goal

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)
    units = [u.id for u in g.state.units.values() if u.warband == "blue"]
    gain = {units[0]: 6.0, units[1]: 4.0}  # two changes that gain (more than CHOICE_MARGIN); the rest lose
    goals = [Goal("hold", uid) for uid in units] + [Goal("cover", uid) for uid in units] * 4
    monkeypatch.setattr(portfolio, "candidates", lambda sense, left: [(1.0, goal) for goal in goals])

    class Fixed(portfolio.Searcher):
        """Every screening and rollout costs 10 decisions; a plan is worth its changes' gains."""

        def _value(self, plan):
            return Value(sum(gain.get(uid, -1.0) if goal.kind == "hold" else -1.0 for uid, goal in plan.items()))

        def screen(self, plan):
            s = portfolio.Scored(dict(plan), screen=self._value(plan))
            self.screens += 1
            self.screen_steps += 10
            self.steps += 10
            return s

        def score(self, plan, samples=None, into=None):
            s = into if into is not None else portfolio.Scored(dict(plan))
            while len(s.values) < (samples or self.samples):
                s.values.append(self._value(plan))
                self.used += 1
                self.steps += 10
            return s

    budget = 200  # SCREEN_SHARE of it screens 11 plans: fewer than the utility plan and every single
    assert len(goals) + 1 > budget * portfolio.SCREEN_SHARE / 10
    se = Fixed(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, budget, bot.samples)
    found = se.run()
    assert set(found.best.plan) == {units[0], units[1]}
    assert found.best.values and found.best.mean == 10.0
    assert any(len(s.plan) == 2 for s in found.scored)


def _fixed_searcher(portfolio, screened: dict, played: dict, screen_cost: int, rollout_cost: int):
    """A Searcher whose screenings and rollouts cost fixed decisions and value a plan by
    the set of units it changes (``screened``, ``played``; -1 for any other plan)."""
    from game.bots.planner.evaluate import Value

    class Fixed(portfolio.Searcher):
        def screen(self, plan):
            s = portfolio.Scored(dict(plan), screen=Value(screened.get(frozenset(plan), -1.0)))
            self.screens += 1
            self.screen_steps += screen_cost
            self.steps += screen_cost
            return s

        def score(self, plan, samples=None, into=None):
            s = into if into is not None else portfolio.Scored(dict(plan))
            while len(s.values) < (samples or self.samples):
                s.values.append(Value(played.get(frozenset(plan), -1.0)))
                self.used += 1
                self.steps += rollout_cost
            return s

    return Fixed


def _climb_search(monkeypatch):
    """(a search of three units' changes with fixed costs, by its budget; the units a, b,
    c): the three Engaging the carrier screen best (5.5), two of them a little worse (5.0);
    played out with the reply, the three are the worst plan (-5) and the two the best (6).
    A screening costs 5 decisions, a whole rollout 20."""
    from game.bots.planner import portfolio
    from game.bots.planner.goals import Goal

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)
    a, b, c = sorted(u.id for u in g.state.units.values() if u.warband == "blue")
    monkeypatch.setattr(portfolio, "candidates", lambda sense, left: [(1.0, Goal("hold", u)) for u in (a, b, c)])
    # apart by more than TIE_MARGIN, so that the seeded draw does not reorder them
    screened = {frozenset(): 0.0, frozenset([a]): 4.0, frozenset([b]): 2.5, frozenset([c]): 1.0}
    screened |= {frozenset([a, b]): 5.0, frozenset([a, b, c]): 5.5}
    played = {frozenset(): 0.0, frozenset([a, b, c]): -5.0, frozenset([a, b]): 6.0}
    Fixed = _fixed_searcher(portfolio, screened, played, 5, 20)

    def searcher(budget: int):
        return Fixed(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, budget, 2)

    return searcher, (a, b, c)


def test_a_climb_step_short_of_the_end_is_played_out_when_the_end_disappoints(monkeypatch):
    """The budget affords three whole rollouts, not four: one sample each for the utility
    plan and both finalists (the climb's end and its step) beats two samples for the
    utility plan and the first finalist alone (which left the pair unplayed, and the
    utility plan was played instead: mirror.yaml, seed 20, turn 4, the second seat)."""
    searcher, (a, b, _c) = _climb_search(monkeypatch)
    se = searcher(120)  # 6 screenings at 5 and 3 rollouts at 20 fit in 120; 4 more rollouts do not
    found = se.run()
    assert se.screens == 6 and se.used == 3
    assert set(found.best.plan) == {a, b} and found.best.mean == 6.0
    assert [len(s.values) for s in found.scored[:3]] == [1, 1, 1]


def test_a_bigger_budget_gives_the_leaders_more_samples(monkeypatch):
    """With room for more, each further sample goes to the utility plan and the plans
    leading so far, best first; a plan left behind keeps one sample and is not compared
    on the others' (common random numbers: every plan's sample k rolls the same dice)."""
    searcher, (a, b, c) = _climb_search(monkeypatch)
    found = searcher(130).run()  # 3 rollouts, then 2 more (the utility plan and the leader): 30 + 100
    samples = {frozenset(s.plan): len(s.values) for s in found.scored}
    assert samples[frozenset()] == 2 and samples[frozenset([a, b])] == 2 and samples[frozenset([a, b, c])] == 1
    assert set(found.best.plan) == {a, b}
    # room for every finalist's every sample: all three get two, as before
    se = searcher(150)
    found = se.run()
    assert se.used == 6 and all(len(s.values) == 2 for s in found.scored if s.values)


def test_a_unit_keeps_a_candidate_for_every_token_it_may_deny():
    """The War Hound (an Animal: it denies what it cannot take) reaches every token of the
    mirror table in time to deny it; each denial is a candidate, the two middle tokens
    among them (with five goals a unit, t-east, its sixth, was never screened)."""
    from game.bots.planner.portfolio import candidates
    from game.bots.sense import Sense
    from game.bots.utility import UtilityBot
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.bots.driver import bot_scenario
    from game.engine.scenario import load_scenario

    g = Game(bot_scenario(load_scenario(os.path.join(ROOT, "maps", "mirror.yaml"))), dice=Dice(seed=0))
    base = UtilityBot()
    found = candidates(Sense(view(g, 1), "north", base.personality, base.book), 9)
    denied = {goal.target for _, goal in found if goal.unit == "north-hound" and goal.kind == "deny"}
    assert denied == set(g.state.treasure) and {"t-west", "t-east"} <= denied


def test_a_token_no_route_reaches_within_three_runs_is_no_take_goal(monkeypatch):
    """take_turns: the straight line's Runs only when no route is known (a sandbox); when
    the engine finds none within 3 Runs the token is at least 4 away, whatever the
    straight line says (a roof whose ladder is round the back), so "take" is no goal."""
    from game.bots.planner.portfolio import take_turns
    from game.bots.sense import Sense
    from game.bots.utility import UtilityBot

    g = start(load_puzzle(os.path.join(ROOT, "tests", "puzzles", "tower-in-steps.yaml")))
    base = UtilityBot()
    sense = Sense(view(g, 1), "red", base.personality, base.book)
    u, tok = g.state.units["red-captain"], g.state.treasure["t-tower"]
    assert take_turns(sense, u, tok, 6.0, 1) == 6  # the route up in steps
    monkeypatch.setattr(type(sense.book.routes), "best", lambda *a, **k: (None, math.inf))
    assert take_turns(sense, u, tok, 6.0, 1) == 4
    assert take_turns(sense, u, tok, 6.0, 5) == 5
    monkeypatch.setattr(type(sense.book.routes), "best", lambda *a, **k: (None, math.nan))
    assert take_turns(sense, u, tok, 6.0, 1) == 1


# --- playing ---------------------------------------------------------------------------------


def test_same_seed_same_game_and_no_refusals():
    pz = load_puzzle(os.path.join(os.path.dirname(PUZZLES[0]), "hound-race.yaml"))
    logs = []
    for _ in range(2):
        played = play_game(pz.scenario, {1: make_bot("utility"), 2: make_bot("planner:300ms")}, seed=4, turn_limit=2)
        assert played.refused == 0
        assert played.game.is_over()
        logs.append(
            (
                [e.replayable for e in played.game.log],
                [e.texts for e in played.game.log],
                [s.decision.reason for s in played.steps],
            )
        )
    assert logs[0] == logs[1]


def test_options_are_legal_distinct_and_explained():
    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)  # the Hound race needs about 100 rollout decisions (planner:700ms)
    # The Engage phase has nothing to engage: one option, ending it, naming the move after.
    opts = bot.options(view(g), 3)
    assert len(opts) == 1 and "end_phase" in opts[0].action
    assert opts[0].extra["then"]["run"]["unit"] == "blue-hound"
    assert "samples" in opts[0].reason and "turns left" in opts[0].reason
    g.apply(opts[0].action)
    assert g.state.phase == "move"
    opts = bot.options(view(g), 3)
    assert 2 <= len(opts) <= 3
    assert len({repr(d.action) for d in opts}) == len(opts)
    for d in opts:
        assert g.why_illegal(d.action) is None
        assert "samples" in d.reason and "turns left" in d.reason
    # Best first: the plan the bot plays (the Hound denies the middle token) opens the list,
    # and it is what ``choose`` returns here.
    first = opts[0].action
    assert next(iter(first.values()))["unit"] == "blue-hound"
    assert bot.choose(view(g)).action == first


def test_options_weigh_every_plan_on_every_sample_and_come_best_first():
    # planner:400ms affords one sample of a plan on the clock; advise is not on the clock:
    # each plan listed and the utility plan get every sample (the same dice), so the
    # values compare and "2 samples" is true, and the options come by value, best first
    # (the bot's own first pick led the list whatever its value, and a plan it had only
    # screened came last).
    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(400)
    g.apply(bot.options(view(g), 3)[0].action)  # the Engage phase: nothing to engage
    s = bot.search(view(g))
    assert len(s.baseline.values) < bot.samples  # what the clock allowed
    opts = bot.options(view(g), 3)
    assert len(opts) == 3
    assert all(f"{bot.samples} samples" in d.reason for d in opts)
    # ... and the rollouts they name include those (it said "2 samples each, 0 rollouts")
    said = {int(m.group(1)) for d in opts for m in [re.search(r"(\d+) rollouts", d.reason)] if m}
    assert len(said) == 1 and said.pop() >= bot.samples * len(opts)
    assert [d.score for d in opts] == sorted((d.score for d in opts), reverse=True)


def test_reason_says_what_it_weighed():
    ok, steps, _ = solve(load_puzzle(os.path.join(os.path.dirname(PUZZLES[0]), "hound-race.yaml")), "planner")
    hound = [s for s in steps if s.decision.unit == "blue-hound"]
    assert ok and hound
    why = hound[0].decision.reason
    assert "level 0-0 with 9 turns left" in why and "points over the utility plan" in why and "samples" in why


def test_a_reason_says_the_goal_once_and_advise_names_the_whole_plan(monkeypatch):
    """The Engage a goal plays already says what the unit does: the reason goes on with
    what the search weighed, not "Swordsman 1 engages Cultist; Swordsman 1 engages
    Cultist: ...". advise's option names the plan it starts ("the plan: ...")."""
    from game.bots.planner.evaluate import Value
    from game.bots.planner.goals import Goal
    from game.bots.planner.portfolio import PlanSearch, Scored

    g = _puzzle_game("two-on-one.yaml")
    assert g.state.phase == "engage"
    goals = {uid: Goal("engage", uid, "blue-carrier") for uid in ("red-sword-1", "red-sword-2")}
    names = {u.id: u.name or u.id for u in g.state.units.values()}
    now = Value(0.0, held=(0, 1), turns_left=5)
    plan = Scored(goals, values=[Value(9.0, held=(1, 0)), Value(7.0, held=(0, 1))])
    utility = Scored({}, values=[Value(1.0, held=(0, 1)), Value(1.0, held=(0, 1))])
    found = PlanSearch("red", 1, now, [plan, utility], 4, 2, names, 5, chosen=plan)
    monkeypatch.setattr(PlannerBot, "search", lambda self, v, fixed=None: found)
    bot = PlannerBot()
    d = bot.choose(view(g))
    assert d.action == {"engage": {"unit": "red-sword-1", "target": "blue-carrier"}}
    assert d.reason.startswith("Swordsman 1 engages Cultist") and d.reason.count("engages Cultist") == 1
    assert "behind 0-1 with 5 turns left; +7.0 points over the utility plan" in d.reason
    text = bot.explain(found, plan)
    assert text.startswith("the plan: Swordsman 1 engages Cultist, Swordsman 2 engages Cultist: behind 0-1")


def test_reasons_count_the_samples_they_speak_of():
    # "holds more tokens in 1 of 2 samples", not "in 50% of samples": with a few samples a
    # plan a share claims more than the data says. Each count is the plan's own.
    said = []
    for name in ("escort-threat.yaml", "two-on-one.yaml"):
        bot = PlannerBot()
        s = bot.search(view(_puzzle_game(name)))
        for plan in s.scored:
            n = len(plan.values)
            if not n:
                continue
            text = bot.explain(s, plan)
            gain = sum(1 for v in plan.values if v.held[0] > s.now.held[0])
            ahead = sum(1 for v in plan.values if v.held[0] > v.held[1])
            lose = sum(1 for v in plan.values if v.lost[0] > s.now.lost[0])
            samples = "1 sample" if n == 1 else f"{n} samples"
            assert (
                f"holds more tokens in {gain} of {samples}, ahead on treasure in {ahead}, loses a unit in {lose}"
                in text
            ), text
            assert "%" not in text
            said.append(gain + ahead + lose)
    assert said and any(said)  # some plan gains, leads or loses in some sample (escort-threat leads)


# --- the puzzles (issue 21, item 3) --------------------------------------------------------------


def test_there_are_at_least_twelve_puzzles():
    assert len(PUZZLES) >= 12
    names = {load_puzzle(p).name for p in PUZZLES}
    for must in (
        "engage a Stunned carrier",
        "two on one against a lone carrier when behind on treasure",
        "send the fast unit early to deny a middle token (the Hound race)",
        "break a denial deadlock that would lose at the turn limit",
        "do not leave a token for an enemy to pick up unopposed",
        "do not walk a carrier into a charge",
        "retreat the unit whose loss means a rout",
        'deny the enemy racer its Run by stepping within 8"',
        "keep the last hero out of a charge at the rout threshold",
    ):
        assert must in names


@pytest.mark.parametrize("path", PUZZLES, ids=[os.path.basename(p) for p in PUZZLES])
def test_the_planner_solves_the_puzzle(path):
    ok, steps, why = solve(load_puzzle(path), "planner")
    assert ok, f"{os.path.basename(path)}: {why}\n" + "\n".join(s.decision.reason for s in steps)
    assert not any(s.refused for s in steps)


def test_a_puzzle_can_be_failed():
    """The checker is not a rubber stamp: standing still fails a puzzle that needs a move."""
    pz = load_puzzle(os.path.join(os.path.dirname(PUZZLES[0]), "hound-race.yaml"))

    class Idle:
        name = "idle"

        def choose(self, v):
            from game.bots.base import end_decision

            return end_decision(v, "idle")

    import game.bots as bots

    real = bots.make_bot
    try:
        import tools.puzzles as tp

        tp.make_bot = lambda name: Idle() if name == "idle" else real(name)
        ok, _, why = tp.solve(pz, "idle")
    finally:
        tp.make_bot = real
    assert not ok and "none of the answers" in why


def test_thinks_on_a_copy_and_leaves_the_game_alone():
    """The window's way (driver.snapshot / think): the planner plans on a copy; the game it
    was given a copy of is untouched, and the action it returns is legal there."""
    from game.bots import snapshot, think

    g = _puzzle_game("hound-race.yaml")
    g.apply({"end_phase": {}})  # the Move phase: the planner's move
    before = (g.state.copy(), len(g.log), g.dice.getstate())
    d = think(PlannerBot(300), snapshot(g))
    assert (len(g.log), g.dice.getstate()) == before[1:]
    assert {u.id: (u.x, u.y) for u in g.state.units.values()} == {u.id: (u.x, u.y) for u in before[0].units.values()}
    assert g.why_illegal(d.action) is None


def test_calibration_tool_times_rollouts_inside_the_turn():
    from game.bots.planner import portfolio
    from tools import calibrate_planner

    before = (portfolio.Searcher.score, portfolio.Searcher.screen)
    rows = calibrate_planner.measure("default", "planner:250ms", 1, [1])
    assert (portfolio.Searcher.score, portfolio.Searcher.screen) == before  # the meter is taken off again
    assert rows and all(r["steps"] >= 1 and r["rollouts"] >= 1 for r in rows)
    assert all(0 < r["rollout"] <= r["turn"] and 0 < r["rollout_cpu"] <= r["turn_cpu"] + 0.01 for r in rows)
    s = calibrate_planner.summary(rows)
    assert s["turns"] == len(rows) and s["step_ms"] > 0 and s["overhead_ms_median"] >= 0


def test_forced_goal_tool_plays_the_goal_and_counts_the_games():
    import io

    from tools import forced_goal

    out = io.StringIO()
    tally = forced_goal.run(
        os.path.join(ROOT, "maps", "mirror.yaml"), 2, "south-hound", "deny:t-east", 2, 1, turn_limit=2, out=out
    )
    assert sum(tally.values()) == 1 and "refused 0" in out.getvalue()
    with pytest.raises(SystemExit):
        forced_goal.run(os.path.join(ROOT, "maps", "mirror.yaml"), 2, "south-hound", "dance:t-east", 2, 1, out=out)


def test_budget_tool_values_each_budgets_choice_against_the_utility_plan_on_the_same_dice():
    from tools import budget_choices

    points = budget_choices.measure("default", [1], 1, [250, 1200], 2)
    assert [(p.turn, p.player) for p in points] == [(1, 1), (1, 2)]  # one point a player-turn
    for p in points:
        assert set(p.value) == set(p.looked) == {250, 1200}
        # a budget that changes no unit plays the utility plan: the same value on the same dice
        for b, (changed, scored, _rollouts) in p.looked.items():
            assert scored >= 1
            if changed == 0:
                assert p.gain(b) == 0.0
    # the bigger budget scores at least as many plans
    assert all(p.looked[1200][1] >= p.looked[250][1] for p in points)


def test_a_bench_rate_is_judged_by_its_interval_and_says_when_a_few_games_cannot_tell():
    # make bench plays 4 planner games a map: 4 of 4 won, or 1 of 4 drawn, says nothing
    # either way, while 0 of 4 won shows the target missed (tools/bot_eval.judged)
    from tools.bench import met
    from tools.bot_eval import judged

    assert judged(4, 4, 0.75) is None and judged(0, 4, 0.75) is False
    assert judged(190, 200, 0.75) is True and judged(120, 200, 0.75) is False
    assert judged(1, 4, 0.2, at_most=True) is None and judged(14, 200, 0.2, at_most=True) is True
    assert judged(60, 200, 0.2, at_most=True) is False
    assert [met(ok) for ok in (True, False, None)] == ["yes", "NO", "too few to tell"]


# --- issue 47: threats, honest ranking, the seed ------------------------------------------------


def _turn_with_seed(name: str, seed: int, bot: str = "planner") -> tuple[list, object]:
    """The side's turn of puzzle ``name`` played by ``bot`` on dice ``seed``: its actions
    and the game after it."""
    from game.bots import play_turn
    from game.engine.dice import Dice

    pz = load_puzzle(os.path.join(os.path.dirname(PUZZLES[0]), name))
    g = start(pz)
    g.dice = Dice(seed=seed)
    n = len(g.log)
    steps = play_turn(g, {pz.side: make_bot(bot), 3 - pz.side: make_bot("utility")})
    assert not any(s.refused for s in steps)
    return [e.replayable for e in g.log[n:]], g


def test_plans_near_the_best_are_a_seeded_choice_one_seed_one_game():
    """Several retreats of the Dazed Cultist are worth about the same (within
    CHOICE_MARGIN): different seeds play different ones, the same seed the same one, and
    every one of them saves the game (out of the War Dog's reach)."""
    from game.engine.movement.mover import engage_inches

    played = {}
    for seed in range(4):
        actions, g = _turn_with_seed("rout-critical-retreat.yaml", seed)
        played[seed] = actions
        c, dog = g.state.units["red-cultist"], g.state.units["blue-dog"]
        gap = ((c.x - dog.x) ** 2 + (c.y - dog.y) ** 2) ** 0.5 - c.r - dog.r
        assert gap > engage_inches(g.rs, dog) + float(g.rs.contact_tolerance)
    assert len({repr(a) for a in played.values()}) >= 2, played
    again, _ = _turn_with_seed("rout-critical-retreat.yaml", 1)
    assert again == played[1]


def test_the_choice_is_drawn_among_the_near_best_only(monkeypatch):
    """Searcher.choose: a plan more than CHOICE_MARGIN below the best mean is never played,
    whatever the seed; the draw comes from the view's own generator."""
    from game.bots.planner import portfolio
    from game.bots.planner.evaluate import Value
    from game.bots.planner.goals import Goal

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot()
    plans = [
        portfolio.Scored({}, [Value(10.0), Value(10.0)]),
        portfolio.Scored({"blue-hound": Goal("hold", "blue-hound")}, [Value(10.0 - portfolio.CHOICE_MARGIN / 2)] * 2),
        portfolio.Scored({"blue-sword": Goal("hold", "blue-sword")}, [Value(10.0 - 3 * portfolio.CHOICE_MARGIN)] * 2),
    ]
    picked = set()
    for seed in range(12):
        g.dice.seed = seed
        se = portfolio.Searcher(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, bot.steps, bot.samples)
        picked.add(se.choose(plans).key())
        assert se.choose(plans).key() == se.choose(plans).key()
    assert picked == {plans[0].key(), plans[1].key()}


def test_threats_weigh_a_charge_on_any_unit_and_a_loss_that_routs():
    """The next player's Engages count against every unit in reach, not only carriers,
    and a loss that brings a Rout Check with no hero left (U2) weighs like a lost game."""
    g = _puzzle_game("rout-critical-retreat.yaml")
    st = g.state
    st.player = 2  # Blue's turn next: the War Dog's charge
    at_risk = evaluate(g, "red").terms["threats"]
    assert at_risk < -0.1 * WIN  # the Cultist's loss routs Red
    st.lost["red"] = 0
    no_rout = evaluate(g, "red").terms["threats"]
    assert at_risk < no_rout < 0  # still a unit's loss, not a game's
    cultist = st.units["red-cultist"]
    cultist.x -= 3.0  # out of the Dog's reach (6")
    assert evaluate(g, "red").terms["threats"] == 0.0
    st.player = 1  # Red's turn next: its own chances count
    cultist.x += 3.0
    assert evaluate(g, "red").terms["threats"] >= 0.0


def test_an_enemy_racer_one_run_from_the_last_token_is_marked():
    """M2: the mark goal is a candidate for a unit that can step within run_denial_range
    of an enemy whose Run reaches a free token sooner than its walk, and the planner's
    turn ends within that range (the utility bot stops 8.0" away to keep its own Run)."""
    from game.bots.planner.portfolio import candidates
    from game.bots.sense import Sense

    g = _puzzle_game("run-denial.yaml")
    bot = PlannerBot()
    found = candidates(Sense(view(g, 1), "red", bot.base.personality, bot.base.book), 1)
    assert any(goal.kind == "mark" and goal.unit == "red-sword" and goal.target == "blue-cultist" for _, goal in found)
    _, after = _turn_with_seed("run-denial.yaml", 1)
    c = after.state.units["blue-cultist"]
    assert after.mover.run_denier(after.state, c) is not None
    _, utility = _turn_with_seed("run-denial.yaml", 1, "utility")
    assert utility.mover.run_denier(utility.state, utility.state.units["blue-cultist"]) is None


def test_the_reply_in_a_rollout_charges_the_unit_whose_loss_routs():
    """threats.ThreatReply: at the rout threshold with one hero left (a Dazed Captain in a
    Troll's reach), the rollouts' reply charges it, where the utility bot alone ends its
    Engage phase; with the warband far from the threshold it plays as the utility bot."""
    g = _puzzle_game("keep-the-last-hero.yaml")
    g.state.player = 2  # Blue's Engage phase
    reply = PlannerBot().reply
    assert make_bot("utility").choose(view(g, 2)).action == {"end_phase": {}}
    assert reply.choose_game(g, 2).action == {"engage": {"unit": "blue-troll", "target": "red-captain"}}
    g.state.lost["red"] = 0
    assert reply.choose_game(g, 2).action == {"end_phase": {}}


def test_a_planner_turn_leaves_nothing_for_the_cycle_collector():
    """Every rollout plays on a copy of the game. A copy held its rules context and the
    context held the copy, and a contact goal's test held its query, which held the goal:
    cycles that only the cycle collector frees (some hundred thousand objects a planner
    game, and the memory until a full pass). Now reference counting frees each copy as
    soon as its rollout ends."""
    from game.bots import UtilityBot, play_turn, with_neutrals
    from game.bots.driver import bot_scenario
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.scenario import load_scenario

    sc = bot_scenario(load_scenario(os.path.join(ROOT, "maps", "mirror.yaml")))
    g = Game(sc, dice=Dice(seed=3))
    bots = with_neutrals({1: make_bot("planner:250ms"), 2: UtilityBot()})
    play_turn(g, bots)  # the map's structures built (a map they displace is garbage)

    def two_turns() -> None:
        play_turn(g, bots)  # the utility bot's reply
        play_turn(g, bots)  # the planner again, the armies nearer

    left = left_for_the_collector(two_turns)
    assert g.state.turn == 2  # the game is alive: only what the turns dropped was looked at
    assert not left & {"Game", "Ctx", "SearchContext", "SearchGoal", "GameState"}, sorted(left)


# --- the opening look (opening.py) -------------------------------------------------------------


def test_a_fixed_goal_is_played_in_every_plan_and_its_unit_gets_no_change():
    from game.bots.planner.goals import Goal
    from game.bots.planner.portfolio import Searcher

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)
    fixed = {"blue-hound": Goal("deny", "blue-hound", "t-mid")}
    free = Searcher(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, bot.steps, bot.samples).run()
    held = Searcher(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, bot.steps, bot.samples, fixed).run()
    assert any("blue-hound" in s.plan for s in free.scored)  # the hound is a candidate when free
    assert not any("blue-hound" in s.plan for s in held.scored)
    # the utility plan itself is played with the hound on its goal: another turn, another value
    assert held.baseline.screen.total == pytest.approx(
        Searcher(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, bot.steps, bot.samples, fixed)
        .screen(fixed)
        .screen.total
    )
    assert held.baseline.screen.total != free.baseline.screen.total


def test_a_held_goal_ends_with_its_turn_or_its_unit():
    from game.bots.planner.goals import Goal
    from game.bots.planner.opening import Held

    g = _puzzle_game("hound-race.yaml")
    st = g.state
    held = Held(Goal("deny", "blue-hound", "t-mid"), st.turn + 1, 1.0, -1.0, 4, 3)
    assert held.holds(st)
    st.turn += 2
    assert not held.holds(st)
    st.turn -= 2
    st.units["blue-hound"].status = "incapacitated"
    assert not held.holds(st)


def test_the_look_needs_the_budget_for_all_its_samples(monkeypatch):
    from game.bots.planner import opening

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)
    played = []
    real = opening.ahead
    monkeypatch.setattr(opening, "ahead", lambda *a: played.append(a[3]) or real(*a))
    assert opening.look(view(g, 2), "blue", bot.base, bot.cautious, bot.reply, 10) is None
    assert played == [{}]  # one look-ahead measured the cost, and nothing more was played


@pytest.mark.slow
def test_the_second_seat_holds_its_hound_at_the_first_seats_yard_token():
    """Issue 47's mirror table: from seat 2 the planner looks four turns ahead at turn 1
    and holds its Hound's denial of the first seat's yard token (the planner without it
    lost 17 of 20 such games; the Hound's denial forced won 7 of 10)."""
    from game.bots import play_turn, with_neutrals
    from game.bots.driver import bot_scenario
    from game.engine.dice import Dice
    from game.engine.game import Game
    from game.engine.scenario import load_scenario

    sc = bot_scenario(load_scenario(os.path.join(os.path.dirname(PUZZLES[0]), "..", "..", "maps", "mirror.yaml")))
    g = Game(sc, dice=Dice(seed=20))
    me = make_bot("planner")
    bots = with_neutrals({1: make_bot("utility"), 2: me})
    steps = []
    while g.state.turn <= 2 and not g.is_over():
        steps += play_turn(g, bots)
    assert me.held is not None and (me.held.goal.unit, me.held.goal.kind, me.held.goal.target) == (
        "south-hound",
        "deny",
        "t-yard-n",
    )
    assert me.held.until == 4 and me.held.value >= me.held.none + 2.0
    hound = [s.decision.reason for s in steps if s.player == 2 and s.decision.unit == "south-hound"]
    assert len(hound) >= 2 and all("held to turn 4" in r for r in hound)


def test_the_look_holds_goals_for_the_units_that_cannot_take_a_token():
    from game.bots.planner.opening import holders
    from game.bots.sense import Sense

    g = _puzzle_game("hound-race.yaml")
    bot = PlannerBot(1000)
    assert holders(Sense(view(g, 2), "blue", bot.base.personality, bot.base.book)) == {"blue-hound"}
    g.state.units["blue-sword"].carrying = next(iter(g.state.treasure))  # hands full for now: not one
    assert holders(Sense(view(g, 2), "blue", bot.base.personality, bot.base.book)) == {"blue-hound"}


def test_a_planner_looks_once_at_turn_1_unless_told_not_to(monkeypatch):
    import game.bots.planner as planner_mod

    calls = []
    monkeypatch.setattr(planner_mod, "look", lambda *a: calls.append(a[1]) or None)
    for opening, expected in ((True, ["blue"]), (False, [])):
        calls.clear()
        g = _puzzle_game("hound-race.yaml")  # game turn 1, the blue side to act
        bot = PlannerBot(250)
        bot.opening = opening
        for _ in range(3):
            g.apply(bot.choose(view(g, 2)).action)
        assert calls == expected and bot.held is None
