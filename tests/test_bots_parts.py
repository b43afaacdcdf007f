"""The parts under the bots: personality files, Game.clone, the engine's answers they rely on."""

from __future__ import annotations

import os

import pytest

from game.bots import BUNDLED, UtilityBot, load_personality, make_bot
from game.bots.personality import WEIGHTS, parse_personality
from game.bots.random_bot import RandomBot
from game.engine.dice import Dice
from game.engine.errors import IllegalAction, LoadError
from game.engine.game import Game
from game.engine.movement import Mover
from game.engine.rules import ACTIONS
from game.engine.scenario import load_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_game(seed=1) -> Game:
    return Game(load_scenario(os.path.join(ROOT, "maps", "default.yaml")), dice=Dice(seed=seed))


# --- personalities -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_personalities_load_and_differ_from_the_defaults(name):
    p = load_personality(name)
    assert p.name == name and p.description
    assert set(p.weights) == set(WEIGHTS)
    assert any(p.weights[k] != v for k, (v, _) in WEIGHTS.items())
    assert make_bot(name).name == f"utility:{name}" == make_bot(f"utility:{name}").name


def test_a_personality_file_by_path(tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text("name: mine\nweights:\n  hunt: 2\n")
    p = load_personality(str(f))
    assert p.hunt == 2.0 and p.threat == WEIGHTS["threat"][0]
    assert UtilityBot(str(f)).name == "utility:mine"


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("name: x\nweights:\n  hunt: 1\n  thret: 2\n", 4, "unknown weight 'thret' (did you mean 'threat'?)"),
        ("name: x\nweights:\n  hunt: -0.5\n", 3, "weight hunt must be 0 or more"),
        ("name: x\nweights:\n  hunt: lots\n", 3, "weight hunt must be a number"),
        ("name: x\nweights:\n  hunt: true\n", 3, "weight hunt must be a number"),
        ("name: x\nweights: [1, 2]\n", 2, "weights must be a mapping"),
        ("name: x\nwieghts: {}\n", 2, "unknown key 'wieghts' (did you mean 'weights'?)"),
        ("weights: {}\n", 1, "name must be text"),
        ("- 1\n- 2\n", 1, "a personality must be a mapping"),
        ("name: x\nweights: {hunt: !!python/object:os.system echo}\n", 2, "safe YAML"),
        ("name: [x\n", 1, "YAML syntax error"),
    ],
)
def test_a_bad_personality_file_says_file_and_line(text, line, words):
    with pytest.raises(LoadError) as exc:
        parse_personality(text, "bad.yaml")
    first = exc.value.problems[0]
    assert (first.file, first.line) == ("bad.yaml", line)
    assert words in str(exc.value)


def test_an_unknown_personality_name_lists_the_bundled_ones():
    with pytest.raises(LoadError) as exc:
        load_personality("reckless")
    assert "unknown personality 'reckless'" in str(exc.value) and "cautious" in str(exc.value)
    with pytest.raises(LoadError):
        make_bot("reckless")


# --- Game.clone: a copy to think on -----------------------------------------------------------------
def test_a_clone_is_independent_and_rolls_the_same_dice():
    g = default_game(seed=4)
    g.apply({"end_phase": {}})
    c = g.clone()
    assert c.state.hash() == g.state.hash() and c.state is not g.state
    assert c.mover is g.mover and not c.can_undo
    move = {"run": {"unit": "red-hound", "to": [18, 10]}}
    rc = c.apply(move)
    assert g.state.units["red-hound"].y == 4  # the original did not move
    rg = g.apply(move)
    assert rc.rolls == rg.rolls and c.state.hash() == g.state.hash()  # same dice sequence
    c.undo()
    assert c.state.units["red-hound"].y == 4 and g.state.units["red-hound"].y != 4


def test_a_clone_never_prompts_and_gets_its_own_mover_when_given_one():
    asked = []
    sc = load_scenario(os.path.join(ROOT, "maps", "default.yaml"))
    g = Game(sc, dice=Dice(seed=1, prompt=lambda sides, why: asked.append(why) or 1))
    mover = Mover(sc, g.board)
    c = g.clone(mover=mover)
    assert c.mover is mover and c.board is g.board
    c.apply({"roll": {"sides": 6}})
    assert asked == [] and len(c.dice.log) == len(g.dice.log) + 1


# --- the engine answers bots rely on -----------------------------------------------------------------
def test_why_illegal_refuses_an_internal_error_as_apply_does(monkeypatch):
    g = default_game()
    rule = ACTIONS["engage"]

    def boom(ctx, args):
        raise RuntimeError("a bug")

    monkeypatch.setitem(ACTIONS, "engage", rule.__class__(rule.kind, boom, rule.resolve, rule.candidates, rule.nothing))
    action = {"engage": {"unit": "red-hound", "target": "blue-wolf"}}
    why = g.why_illegal(action)
    assert isinstance(why, IllegalAction) and why.rule == "internal" and "RuntimeError: a bug" in why.reason
    result = g.try_apply(action)
    assert (result.rule, result.reason) == (why.rule, why.reason)


def test_the_random_bot_draws_from_every_legal_choice():
    g = default_game()
    g.apply({"end_phase": {}})  # Move phase: each unit may move, run or reload
    from game.bots import view

    opts = RandomBot().choices(view(g))
    kinds = {k for k, _ in opts}
    assert kinds == {"move", "run", "reload", "end_phase"}
    units = {d for k, d in opts if k == "move"}
    assert units == {u.id for u in g.state.units_of("lanterns")}


def test_speedheim_check_knows_personality_files(tmp_path, capsys):
    from game.cli import main

    files = [os.path.join(ROOT, "game", "bots", "personalities", f"{n}.yaml") for n in BUNDLED]
    assert main(["check", *files]) == 0
    assert capsys.readouterr().out.count("ok (personality)") == len(BUNDLED)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nweights:\n  hunt: -1\n")
    assert main(["check", str(bad)]) == 2
    assert f"{bad}:3: weight hunt must be 0 or more" in capsys.readouterr().err


# --- the mirror map ------------------------------------------------------------------------------------
def test_mirror_map_is_symmetric_about_its_centre_line():
    import shapely
    from shapely.geometry import Polygon

    sc = load_scenario(os.path.join(ROOT, "maps", "mirror.yaml"))
    mid = sc.height / 2

    def flip(xy):
        return xy * [1, -1] + [0, 2 * mid]

    def key(t):
        return (t.kind, t.height)

    polys = [(key(t), Polygon(t.polygon)) for t in sc.terrain]
    for k, p in polys:
        image = shapely.transform(p, flip)
        assert any(k2 == k and q.symmetric_difference(image).area < 1e-9 for k2, q in polys), k
    toks = {(t.x, t.y, t.event) for t in sc.state.treasure.values()}
    assert toks == {(x, 2 * mid - y, e) for x, y, e in toks}
    feet = {tuple(lad.foot) for lad in sc.ladders}
    assert feet == {(x, 2 * mid - y) for x, y in feet}
    north, south = (sorted(sc.state.units_of(w.id), key=lambda u: u.id.split("-", 1)[1]) for w in sc.warbands)
    assert len(north) == len(south) == 9
    for a, b in zip(north, south):
        assert (a.x, 2 * mid - a.y, a.base_mm, a.stats, a.keywords) == (b.x, b.y, b.base_mm, b.stats, b.keywords)


def test_docs_list_every_weight_with_its_default():
    text = open(os.path.join(ROOT, "docs", "bots.md"), encoding="utf-8").read()
    for key, (default, _) in WEIGHTS.items():
        assert f"| `{key}` | {default:g} |" in text, key


def test_a_place_s_reason_names_the_token_its_treasure_term_is_worth_most_for():
    """The scorer's ``_route_tok`` is the token the treasure term is highest for at each
    point, and ``_route_left`` that token's way left along its route (nan: the straight
    line): a far token on a route must not be named where a nearer token without one
    scores the place (the reason said "along the route to t-tower" where t-chapel-yard's
    straight line drew the unit)."""
    import math as _math
    from types import SimpleNamespace as NS

    import numpy as np

    from game.bots.positions import PositionScorer

    class Route:  # its way left: 20" plus the distance to its start at (0, 0)
        def to_go(self, X, Y, Z, upto=_math.inf):
            return 20.0 + np.hypot(X, Y)

    class Flat:
        @staticmethod
        def heights_at(X, Y):
            return np.zeros(len(np.asarray(X)))

        def height_at(self, x, y):
            return 0.0

    u = NS(id="u", x=0.0, y=0.0, r=0.5)
    far, near = NS(id="far", x=0.0, y=-3.0, r=0.5), NS(id="near", x=12.0, y=0.0, r=0.5)
    sc = PositionScorer.__new__(PositionScorer)
    sc.s = NS(rs=NS(treasure_denial_range=2.0), contact=0.04, mine=[u], enemies=[], free_tokens=[far, near])
    sc.p, sc.u, sc.board = NS(contact=1.0, approach=0.7, deny=0.5), u, Flat()
    sc.move, sc.free_h, sc.picker, sc.carrying = 4.0, 1.0, True, False
    sc.tokens = [(far, 12.0, 1.0, None, []), (near, 12.0, 1.0, None, [])]
    sc.routes, sc.route_upto, sc.beyond = {"far": Route()}, {"far": _math.inf}, {}
    X, Y = np.array([0.0, 9.0]), np.array([0.0, 0.0])
    treasure, _deny, left, tok, _cost = sc._token_terms(X, Y, sc.board.heights_at(X, Y))
    # at (0, 0): far is 20" away along its route, near 11" in a straight line: near wins
    assert list(tok) == [1.0, 1.0] and np.isnan(left).all()
    # with near worth little, far's route names the place
    sc.tokens = [(far, 12.0, 1.0, None, []), (near, 1.0, 1.0, None, [])]
    treasure, _deny, left, tok, _cost = sc._token_terms(X, Y, sc.board.heights_at(X, Y))
    assert list(tok) == [0.0, 0.0] and left[0] == pytest.approx(20.0 - 1.0)
