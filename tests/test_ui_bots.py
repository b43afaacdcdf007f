"""Bots at the table (issue 11, the window's part): a side played by a bot that thinks off
the frame, its actions animated with their reasons in the log; pause, speed, skip, take
over, undo; the Neutrals played by a bot; ``play --bot``. SDL dummy driver."""

from __future__ import annotations

import time

import pygame
import pytest


from game.engine.dice import Dice
from game.engine.game import Game
from game.ui.launch import new_game
from game.ui.scenes import ask
from game.ui.scenes.play.bot_play import INCHES_PER_S, Animation
from game.ui.scenes.play.words import build_log
from tests.factories import PLACEHOLDER, R25, game, key, open_game, run_frames, thread_spy, two_sides, unit


def test_the_bot_plays_its_side_off_the_frame_with_its_reasons_in_the_log(tmp_path, datadir, monkeypatch):
    threads = thread_spy(monkeypatch, ask, "bot_think")
    g = two_sides()
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    scene.bot.speed = 8
    run_frames(app, scene, lambda: g.state.player == 1)  # the bot plays player 2's turn to its end
    assert threads and set(threads) == {"speedheim-bot"}  # never on the window's thread
    mine = [e for e in g.log if e.player == 2 or e.action == {"end_phase": {}}]
    assert mine and all(e.ok for e in g.log)
    lines = [text for text, kind in build_log(scene) if kind == "bot"]
    assert len(lines) == len(threads) and all(line.startswith("bot P2 (utility, ") for line in lines)
    assert any("moves" in line or "runs" in line for line in lines)
    assert not isinstance(app.top, type(None)) and app.top is scene  # no hand-over screen against a bot


def test_a_bot_move_is_animated_along_its_path_and_can_be_sped_up_or_skipped(tmp_path, datadir):
    g = two_sides()
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    run_frames(app, scene, lambda: scene.bot.anim is not None and scene.bot.anim.moving)
    anim = scene.bot.anim
    u = g.state.units[anim.uid]
    assert anim.path[-1] == pytest.approx((u.x, u.y), abs=1e-6)  # the state already holds the end
    assert anim.position() == anim.path[0] or anim.walked > 0
    before = anim.walked
    app.frame(0.1, flip=False)
    assert anim.walked == pytest.approx(min(anim.length, before + INCHES_PER_S * 0.1))
    key(app, "bot_faster")
    assert scene.bot.speed == 2
    before = anim.walked
    app.frame(0.1, flip=False)
    assert anim.walked == pytest.approx(min(anim.length, before + 2 * INCHES_PER_S * 0.1))
    # the walking unit is drawn where the animation is, not where the state has it
    assert scene.layers._board_key[-1] == anim.uid
    key(app, "bot_skip")
    assert scene.bot.anim is None


def test_animation_position_walks_the_path():
    a = Animation("u", [(0, 0), (3, 0), (3, 4)])
    assert a.length == 7
    a.walked = 3
    assert a.position() == (3, 0)
    a.walked = 5
    assert a.position() == (3, 2)
    assert not a.advance(10, 1) and a.walked == 7 and not a.moving
    assert a.advance(1.0, 1)  # then the beat ends it


def test_the_player_may_not_act_for_the_bots_side_until_it_is_paused(tmp_path, datadir):
    g = two_sides()
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    scene.bot.paused = False
    assert not scene.act({"end_phase": {}})
    assert scene.refusal[0] == "bot" and "pause it (P)" in scene.refusal[1] and g.log == []
    key(app, "bot_pause")
    assert scene.bot.paused and scene.act({"end_phase": {}}) and g.log[-1].action == {"end_phase": {}}
    key(app, "bot_pause")
    assert not scene.bot.paused


def test_undoing_a_bots_action_pauses_the_bot(tmp_path, datadir):
    g = two_sides()
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    run_frames(app, scene, lambda: len(g.log) >= 1)
    n = len(g.log)
    key(app, "undo")
    assert len(g.log) == n - 1 and scene.bot.paused and scene.bot.anim is None
    for _ in range(10):
        app.frame(0.05, flip=False)
        time.sleep(0.01)
    assert len(g.log) == n - 1  # it does not play again until resumed
    assert ("bot P2: paused", (150, 200, 255)) in scene.sidebar.tags()
    assert dict((cmd, b.text) for b, cmd in scene.sidebar.buttons.items())["bot_pause"] == "Resume"


def test_the_side_panel_switch_hands_a_side_to_the_bot_and_back(tmp_path, datadir):
    g = two_sides(state={"turn": 2, "player": 1, "phase": "move"})
    app, scene = open_game(g, tmp_path)
    button = next(b for b, cmd in scene.sidebar.buttons.items() if cmd == "bot_1")
    app.dispatch(pygame.event.Event(pygame_gui_pressed(), ui_element=button))
    assert scene.bot.seats == {1: "utility"} and scene.bot.in_charge()
    app.frame(0.016, flip=False)
    assert button.text == "P1: bot"
    run_frames(app, scene, lambda: len(g.log) >= 1)  # the bot takes over mid-game
    key(app, "bot_1")  # take it back
    assert scene.bot.seats == {} and not scene.bot.in_charge()
    assert scene.act({"end_phase": {}})


def test_a_side_handed_over_goes_to_the_bot_the_players_named(tmp_path, datadir):
    # `speedheim play --bot-name random` (no --bot): a side handed over is random's
    g = two_sides(state={"turn": 2, "player": 1, "phase": "move"})
    app, scene = open_game(g, tmp_path)
    scene.bot.chosen = "random"
    key(app, "bot_2")
    assert scene.bot.seats == {2: "random"}
    assert any("played by the bot (random)" in text for _at, text, _kind in scene.notes)


def pygame_gui_pressed():
    import pygame_gui

    return pygame_gui.UI_BUTTON_PRESSED


def test_a_side_handed_over_in_a_manual_combat_game_says_the_bot_cannot_shoot(tmp_path, datadir):
    red = [unit("red-captain", [6, 6])]
    blue = [unit("blue-boss", [30, 30])]
    g = game(red, blue, [], state={"turn": 2, "player": 1, "phase": "move"})
    app, scene = open_game(g, tmp_path)
    key(app, "bot_2")
    assert any("combat is manual" in text for _n, text, _k in scene.notes)


def test_the_neutrals_are_played_by_the_bot(tmp_path, datadir):
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    g = game(
        red,
        [unit("blue-boss", [30, 30])],
        [{"id": "t1", "at": [10, 10], "event": "event"}],
        dice=[12],
        state={"turn": 2, "player": 1, "phase": "upkeep"},
        rules={"neutral_act": "bot", **PLACEHOLDER},
    )
    g.apply({"pick_up": {"unit": "red-captain", "token": "t1"}})  # an Event: Neutrals appear
    g.apply({"end_turn": {}})
    g.apply({"end_turn": {}})
    assert g.pending.kind == "neutrals" and g.turn_player() == 0
    app, scene = open_game(g, tmp_path)
    assert scene.bot.controls(0) and scene.bot.in_charge() and not scene.bot.seats
    app.frame(0.016, flip=False)
    assert app.modal is None  # no decision dialog: the bot answers for the Neutrals
    run_frames(app, scene, lambda: g.turn_player() != 0)
    lines = [text for text, kind in build_log(scene) if kind == "bot"]
    assert lines and all(line.startswith("bot Neutrals") for line in lines)


def test_a_bot_game_from_the_command_line_plays_with_the_bot_rules(tmp_path, datadir):
    from game.bundled import bundled_map
    from game.cli import build_parser
    from game.ui.scenes.play.bot_play import bot_names_ok

    args = build_parser().parse_args(["play", "--bot", "2", "--bot", "1", "--bot-name", "cautious"])
    assert args.bot == [2, 1] and args.bot_name == "cautious"
    g = new_game(bundled_map("default.yaml"), seed=3, bot_game=True)
    rs = g.scenario.ruleset
    assert (rs.combat, rs.neutral_act, rs.turn_limit) == ("placeholder", "bot", 10)
    plain = new_game(bundled_map("default.yaml"), seed=3)
    assert plain.scenario.ruleset.combat == "manual"
    assert bot_names_ok("cautious") is None and bot_names_ok("no-such-bot") is not None
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    scene.bot.announce()
    note = scene.notes[-1][1]
    assert note.startswith("bot game: the bot plays player 2 (utility); placeholder combat, turn limit 10")
    assert scene.sidebar.mode_tag() == "placeholder combat"


def test_play_cli_refuses_an_unknown_bot(tmp_path, datadir, capsys):
    from game.bundled import bundled_map
    from game.ui.launch import play_cli

    assert play_cli(bundled_map("default.yaml"), bots=(2,), bot_name="no-such-bot") == 2
    assert play_cli(bundled_map("default.yaml"), bot_name="no-such-bot") == 2  # hot-seat: the hint's bot
    assert "--bot-name no-such-bot" in capsys.readouterr().err


def test_a_demo_game_between_two_bots_reaches_its_end(tmp_path, datadir):
    g = two_sides(state={"turn": 3, "player": 1, "phase": "move"})
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(1, "utility")
    scene.bot.set_seat(2, "random")
    scene.bot.speed = 8
    run_frames(app, scene, lambda: g.outcome() is not None, seconds=120)
    assert g.outcome().draw or g.outcome().winner in ("red", "blue")
    assert all(e.ok for e in g.log)
    replayed = Game(g.scenario, dice=Dice(seed=1))
    assert all(r.ok for _i, r in replayed.replay([e.replayable for e in g.log]))
    assert replayed.state.hash() == g.state.hash()  # bot games replay exactly from their logs


def test_what_a_bots_action_set_off_is_noted_not_a_dialog_that_holds_the_bot_up(tmp_path, datadir):
    red = [unit("red-captain", [10 - 2 * R25, 10])]
    g = game(
        red,
        [unit("blue-boss", [30, 30])],
        [{"id": "t1", "at": [10, 10], "event": "plague"}],
        state={"turn": 2, "player": 1, "phase": "upkeep"},
        rules=PLACEHOLDER,
    )
    assert g.pending is not None and g.pending.kind == "pick_up"
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(1, "utility")
    end = time.monotonic() + 30
    while not any(e.action and "pick_up" in e.action for e in g.log):
        assert time.monotonic() < end
        app.frame(0.05, flip=False)
        assert app.modal is None  # never a dialog for the bot's own decision or what it set off
        time.sleep(0.002)
    app.frame(0.05, flip=False)
    assert app.modal is None and "hid the Plague" in scene.toast[0]
