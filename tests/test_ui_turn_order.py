"""The window under other turn orders and alternating activations (RULES.md O1, O2): the
banner says whose activation or turn it is and the roll-off; hot-seat hand-over per
activation, with the offer to skip it when both players share the table."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from tests.factories import UI_SCENARIO, drag, key, make_scene, up  # noqa: E402,F401

from game.ui.scenes.overlays import HandoverScene  # noqa: E402

ALTERNATING = UI_SCENARIO.replace(
    "name: UI test table\n", "name: UI test table\nrules: {activation: alternating, combat: placeholder}\n"
)
ROLL_OFF = UI_SCENARIO.replace("name: UI test table\n", "name: UI test table\nrules: {turn_order: roll_off}\n").replace(
    "state: {turn: 1, player: 1, phase: move}\n", ""
)


def shown(app, scene) -> list[str]:
    app.frame(0.016, flip=False)
    return list(scene.sidebar.banner.shown)


def test_alternating_banner_end_button_and_hand_over_per_activation(tmp_path, datadir):
    app, scene = make_scene(tmp_path, ALTERNATING)
    assert scene.state.phase == "move" and scene.state.player == 1
    assert any("pick a unit" in t for t in shown(app, scene))
    up(app, drag(app, scene, (4, 4), (4, 7)))
    assert scene.state.units["red-captain"].moved and scene.state.activation == "red-captain"
    assert any("activating red-captain" in t for t in shown(app, scene))
    assert scene.sidebar.end_button.text == "End activation (Space)"
    key(app, "end_step")  # Space ends the activation: player 2's
    assert scene.state.player == 2 and scene.game.log[-1].action == {"end_activation": {}}
    assert isinstance(app.top, HandoverScene) and app.top.title == "Player 2: your activation"
    assert app.top.skip_button is not None
    key(app, "handover")  # we share the table: no more hand-over screens
    assert app.top is scene and app.settings["handover"] is False
    key(app, "end_step")  # player 2 passes the rest of the phase: player 1 again
    assert scene.state.player == 1 and app.top is scene


def test_whole_turn_hand_over_offers_no_skip(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    for _ in range(3):
        key(app, "end_step")
    assert isinstance(app.top, HandoverScene) and app.top.skip_button is None


def test_roll_off_banner_shows_the_roll_and_who_went_first(tmp_path, datadir):
    app, scene = make_scene(tmp_path, ROLL_OFF, seed=3)
    rolls = [r.kept for r in scene.game.start.rolls if r.rule == "O1"]
    assert len(rolls) >= 2
    first = scene.state.first
    want = f"roll-off P1 {rolls[-2]}, P2 {rolls[-1]}: P{first} first"
    assert want in shown(app, scene)


def test_a_bot_side_plays_one_activation_then_hands_back_to_the_player(tmp_path, datadir):
    from tests.factories import open_game, run_frames, two_sides

    import dataclasses

    from game.engine.dice import Dice
    from game.engine.game import Game

    sc = two_sides(state={"turn": 1, "player": 1, "phase": "move"}).scenario
    g = Game(
        dataclasses.replace(sc, ruleset=sc.ruleset.with_overrides({"activation": "alternating"})), dice=Dice(seed=1)
    )
    app, scene = open_game(g, tmp_path)
    scene.bot.set_seat(2, "utility")
    scene.bot.speed = 8
    uid = "red-captain"
    g.apply(g.legal_actions(uid).examples["move"])
    key(app, "end_step")  # Space: player 1's activation ends
    assert g.state.player == 2
    run_frames(app, scene, lambda: g.state.player == 1)
    mine = [e for e in g.log if e.player == 2 or (e.action and "end_activation" in e.action)]
    units = {
        e.action[k]["unit"]
        for e in g.log
        for k in e.action
        if k in ("move", "run") and e.action[k]["unit"].startswith("blue")
    }
    assert mine and len(units) == 1 and all(e.ok for e in g.log)  # one unit of the bot's side, one activation
    assert app.top is scene
