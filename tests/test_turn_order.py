"""Turn order, activation and the first turn's limits (RULES.md O1-O3) as ruleset data."""

import dataclasses
import json

import pytest

from game.engine.dice import Dice
from game.engine.game import Game
from game.engine.ruleset import load_ruleset
from game.engine.scenario import load_scenario

MIRROR = "maps/mirror.yaml"
BOT_RULES = {"combat": "placeholder", "turn_limit": 3, "turn_limit_winner": "treasure"}


def scenario(**rules):
    sc = load_scenario(MIRROR, playable=True)
    merged = {**BOT_RULES, **rules}
    return dataclasses.replace(
        sc, ruleset=sc.ruleset.with_overrides(merged), rules_overrides={**sc.rules_overrides, **merged}
    )


def game(seed=1, **rules) -> Game:
    return Game(scenario(**rules), dice=Dice(seed=seed))


def pass_until(g: Game, turn: int) -> None:
    """Every player passes every phase until game turn ``turn`` begins."""
    while g.state.turn < turn and not g.is_over():
        g.apply({"end_phase": {}})


def to_phase(g: Game, phase: str, player: int | None = None) -> None:
    """Pass phases until ``phase`` of ``player`` (any player when None)."""
    while g.state.phase != phase or (player is not None and g.state.player != player):
        g.apply({"end_phase": {}})


def units_of(g: Game, player: int) -> list[str]:
    w = g.scenario.warband_of_player(player)
    return [u.id for u in g.state.units_of(w.id) if u.on_table]


def test_the_bundled_ruleset_keeps_the_seeds_order():
    rs = load_ruleset()
    assert (rs.turn_order, rs.activation, rs.first_turn_limits) == ("fixed", "whole_turn", [])
    g = game()
    assert g.state.first == 1 and g.state.player == 1
    pass_until(g, 3)
    firsts = [
        (e.turn, e.player) for e in g.log if any(a["text"].startswith(f"turn {e.turn}, player") for a in e.automatic)
    ]
    assert firsts == [(1, 2), (2, 1), (2, 2), (3, 1)] and g.state.first == 1


def test_a_replayed_alternate_log_starts_turn_2_with_player_2_and_turn_3_with_player_1():
    g = game(turn_order="alternate")
    pass_until(g, 3)
    actions = [e.replayable for e in g.log]
    again = Game(scenario(turn_order="alternate"), dice=Dice(seed=1), history=False)
    lines = [json.loads(line) for line in [json.dumps(r.to_json_line(i)) for i, r in again.replay(actions)]]
    first_of = {}
    for line in lines:
        first_of.setdefault(line["turn"], line["player"])
    assert first_of[2] == 2 and first_of[3] == 1
    began = [
        a["text"] for line in lines for a in line.get("automatic", []) if "turn 2, player 2's turn begins" in a["text"]
    ]
    assert began and "went second in game turn 1" in began[0] and "O1" in began[0]


def test_roll_off_rolls_the_check_die_through_the_seeded_dice_and_logs_why():
    g = game(seed=3, turn_order="roll_off")
    rolls = [r for r in g.start.rolls if r.rule == "O1"]
    assert len(rolls) >= 2 and all(r.sides == 20 for r in rolls)
    said = [a["text"] for a in g.start.automatic if a["rule"] == "O1"]
    assert said and f"player {g.state.first} goes first" in said[0] and "rolled" in said[0]
    last = {}
    for r in rolls[-2:]:
        last[int(r.reason.rsplit(" ", 1)[1])] = r.kept
    assert max(last, key=last.get) == g.state.first
    again = game(seed=3, turn_order="roll_off")
    assert [r.kept for r in again.start.rolls] == [r.kept for r in g.start.rolls]


def test_a_roll_off_tie_goes_to_who_went_second_and_game_turn_1_rolls_again():
    g = Game(scenario(turn_order="roll_off"), dice=Dice(seed=0, typed=[7, 7, 4, 9]))
    assert g.state.first == 2  # 7-7 rolled again, then 4 against 9
    assert [r.kept for r in g.start.rolls if r.rule == "O1"] == [7, 7, 4, 9]
    g = Game(scenario(turn_order="roll_off"), dice=Dice(seed=0, typed=[3, 12] + [1] * 200 + [9, 9]))
    assert g.state.first == 2
    pass_until(g, 2)
    assert g.state.first == 1 and g.state.player == 1  # the 9-9 tie: player 1 went second in turn 1
    said = [a["text"] for e in g.log for a in e.automatic if "tie goes to player 1" in a["text"]]
    assert said


def test_behind_first_gives_the_first_turn_to_the_player_behind():
    g = game(turn_order="behind_first")
    assert g.state.first == 1
    w2 = g.scenario.warband_of_player(2).id
    g.state.lost[w2] = 2
    pass_until(g, 2)
    assert g.state.first == 2 and g.state.player == 2
    said = [a["text"] for e in g.log for a in e.automatic if "goes first" in a["text"] or "turn begins" in a["text"]]
    assert any("player 2 is behind" in t for t in said)


def test_under_alternating_the_moves_of_a_game_turn_alternate_between_warbands():
    g = game(activation="alternating")
    g.apply({"end_phase": {}})  # player 1 passes the rest of Engage
    g.apply({"end_phase": {}})  # and player 2
    assert g.state.phase == "move" and g.state.player == 1
    seen = []
    for k in range(6):
        p = g.state.player
        uid = units_of(g, p)[k // 2]
        legal = g.legal_actions(uid)
        assert "move" in legal.kinds, legal.to_json()
        g.apply(legal.examples["move"])
        seen.append(g.scenario.warband_of_player(p).id)
        g.apply({"end_activation": {}})
    assert seen == [seen[0], seen[1]] * 3 and seen[0] != seen[1]


def test_under_alternating_the_activated_unit_holds_the_activation():
    g = game(activation="alternating")
    g.apply({"end_phase": {}})
    g.apply({"end_phase": {}})
    a, b = units_of(g, 1)[:2]
    g.apply(g.legal_actions(a).examples["move"])
    why = g.why_illegal({"move": {"unit": b, "to": [g.state.units[b].x, g.state.units[b].y + 1]}})
    assert why is not None and why.rule == "O2" and f"activating {a}" in why.reason
    enemy = units_of(g, 2)[0]
    why = g.why_illegal({"move": {"unit": enemy, "to": [1, 1]}})
    assert why.rule == "O2" and "player 1's activation" in why.reason
    g.apply({"end_activation": {}})
    assert g.state.player == 2 and g.state.activated == [a]
    g.apply({"end_phase": {}})  # player 2 passes the rest: player 1 activates the rest
    assert g.state.player == 1
    why = g.why_illegal({"move": {"unit": a, "to": [g.state.units[a].x, g.state.units[a].y + 0.5]}})
    assert why.rule == "O2" and "already been activated" in why.reason
    assert g.why_illegal({"end_activation": {}}).rule == "O2"


def test_fixed_whole_turn_refusals_keep_their_words_and_other_orders_name_o1():
    g = game()
    enemy = units_of(g, 2)[0]
    assert g.state.phase == "engage"
    why = g.why_illegal({"engage": {"unit": enemy, "target": units_of(g, 1)[0]}})
    assert why.rule == "turn" and "it is player 1's turn" in why.reason
    g = game(turn_order="alternate")
    why = g.why_illegal({"engage": {"unit": enemy, "target": units_of(g, 1)[0]}})
    assert why.rule == "O1" and "player 1's turn" in why.reason


def test_under_alternating_this_turn_means_the_game_turn():
    g = game(activation="alternating")
    g.apply({"end_phase": {}})
    g.apply({"end_phase": {}})
    moved = []
    for _ in range(2):
        uid = units_of(g, g.state.player)[0]
        g.apply(g.legal_actions(uid).examples["move"])
        moved.append(uid)
        g.apply({"end_activation": {}})
    assert all(g.state.units[u].moved for u in moved)  # player 2's move did not clear player 1's flags
    pass_until(g, 2)
    assert not any(g.state.units[u].moved for u in moved)


def test_upkeep_runs_for_each_player_and_the_treasure_skip_follows_the_first_player():
    g = game(seed=3, turn_order="roll_off", activation="alternating")
    first = g.state.first
    texts = [a["text"] for a in g.start.automatic]
    assert "Treasure step skipped in the first player's first turn" in texts
    assert sum(1 for t in texts if t.startswith("Recover")) == 2
    assert g.state.phase == "engage" and g.state.player == first


def test_first_turn_limits_no_run_binds_the_first_player_in_game_turn_1_only():
    g = game(first_turn_limits=["no_run"])
    to_phase(g, "move", 1)
    uid = units_of(g, 1)[0]
    refused = g.legal_actions(uid).refused.get("run")
    assert refused is not None and refused.rule == "O3"
    u = g.state.units[uid]
    assert g.why_illegal({"run": {"unit": uid, "to": [u.x, u.y + 1]}}).rule == "O3"
    to_phase(g, "move", 2)
    assert "run" in g.legal_actions(units_of(g, 2)[0]).kinds
    to_phase(g, "move", 1)
    assert g.state.turn == 2
    assert "run" in g.legal_actions(units_of(g, 1)[0]).kinds


@pytest.mark.parametrize(
    "key,value,want",
    [
        ("turn_order", "roll-off", "did you mean 'roll_off'"),
        ("activation", "alternate", "did you mean 'alternating'"),
        ("first_turn_limits", ["no_runs"], "did you mean 'no_run'"),
    ],
)
def test_check_refuses_an_unknown_value_with_its_line_and_a_did_you_mean(tmp_path, key, value, want):
    from game.engine.errors import LoadError

    src = open(MIRROR, encoding="utf-8").read()
    path = tmp_path / "bad.yaml"
    text = json.dumps(value) if isinstance(value, list) else value
    path.write_text(src.rstrip("\n") + f"\nrules:\n  {key}: {text}\n", encoding="utf-8")
    with pytest.raises(LoadError) as exc:
        load_scenario(str(path))
    msg = str(exc.value)
    line = len(path.read_text().splitlines())
    assert f"bad.yaml:{line}:" in msg and want in msg


def test_first_turn_limits_no_engage_refuses_the_first_players_engage_with_o3():
    g = game(first_turn_limits="no_engage", turn_order="alternate")
    assert g.state.phase == "engage" and g.state.player == 1
    uid, foe = units_of(g, 1)[0], units_of(g, 2)[0]
    why = g.why_illegal({"engage": {"unit": uid, "target": foe}})
    assert why.rule == "O3" and "may not Engage in game turn 1" in why.reason
    assert g.legal_actions(uid).refused["engage"].rule == "O3"


def test_check_names_the_line_of_a_bad_value_in_a_ruleset_file(tmp_path, capsys):
    from game.cli import main

    path = tmp_path / "rules.yaml"
    path.write_text("extends: speedheim\nname: try\nturn_order: roll-off\nfirst_turn_limits: [no_run, no_engag]\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr()
    text = err.out + err.err
    assert f"{path}:3: turn_order must be one of" in text and "(did you mean 'roll_off'?)" in text
    assert f"{path}:4: first_turn_limits: unknown 'no_engag'" in text and "(did you mean 'no_engage'?)" in text


def test_an_alternating_roll_off_game_saves_loads_and_undoes_to_the_same_state(tmp_path):
    from game.engine.saves import load_game, save_game

    g = game(seed=3, turn_order="roll_off", activation="alternating")
    to_phase(g, "move")
    p = g.state.player
    uid = units_of(g, p)[0]
    before = g.state.hash()
    g.apply(g.legal_actions(uid).examples["move"])
    g.apply({"end_activation": {}})
    assert g.state.player != p and g.state.activated == [uid]
    g.undo()
    assert g.state.activation == uid and g.state.player == p
    g.undo()
    assert g.state.hash() == before
    g.redo()
    g.redo()
    pass_until(g, 3)
    path = tmp_path / "save.yaml"
    save_game(str(path), g)
    again = load_game(str(path))
    assert again.state.hash() == g.state.hash() and again.state.first == g.state.first
    assert [r.kept for r in again.start.rolls] == [r.kept for r in g.start.rolls]
