"""The phase hint in every mode and table size, and the first game's turn card (issue 45).
Headless (SDL dummy driver); the hint strip was also seen in screenshots under Xvfb."""

from __future__ import annotations

import json
import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from game.ui import launch as app_module, userdata  # noqa: E402
from game.ui.app import App  # noqa: E402
from game.ui.launch import open_play  # noqa: E402
from game.ui.scenes import ask  # noqa: E402
from game.ui.scenes.play.phase_hint import CARD_SEEN, HintBar, TurnCard, show_turn_card_once  # noqa: E402
from tests.factories import game as build_game, unit  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


#: Settings, autosaves and the crash log go to a scratch folder of each test (conftest.datadir).
pytestmark = pytest.mark.usefixtures("datadir")


def bot_game(size: int, phase: str = "engage", player: int = 1):
    """A bot game as ``make play BOT=2`` plays it: placeholder combat, the bot on player 2."""
    red = [unit("red-captain", [3, 3]), unit("red-sword", [6, 3], keywords=())]
    blue = [unit("blue-boss", [size - 4, size - 4]), unit("blue-archer", [size - 8, size - 4], keywords=("bow",))]
    return build_game(
        red,
        blue,
        [],
        state={"turn": 1, "player": player, "phase": phase},
        rules={"combat": "placeholder", "turn_limit": 10},
        size=size,
    )


def open_scene(g, tmp_path, size=(1280, 800), bot=True):
    app = App(size)
    app.settings["handover"] = False
    scene = open_play(app, g, str(tmp_path / "table.yaml"))
    if bot:
        scene.bot.set_seat(2, "utility")
    app.frame(0.016, flip=False)
    return app, scene


@pytest.mark.parametrize("window", [(1280, 800), (800, 560)])
@pytest.mark.parametrize("table", [24, 36, 48])
def test_the_first_bot_game_shows_the_whole_phase_hint_beside_the_pills(tmp_path, window, table):
    app, scene = open_scene(bot_game(table), tmp_path, window)
    hint = scene.sidebar.hint_line()
    assert "right-click to Engage" in hint and hint.endswith("Space ends the phase")
    shown = scene.sidebar.hint_bar.shown
    assert " ".join(shown) == hint, shown  # whole, on one or two lines
    assert len(shown) <= 2
    if window[0] >= 1280:  # (the smallest window's banner has no room for the pills)
        pills = scene.sidebar.banner.shown
        assert "placeholder combat" in pills and any(p.startswith("bot P2") for p in pills)
    strip = HintBar.rect(app.size, 40, 350)
    assert scene.view_rect.top >= strip.bottom  # the table never draws over the strip


@pytest.mark.parametrize("phase", ["upkeep", "engage", "move", "shoot", "melee"])
def test_every_phase_says_what_it_allows_and_the_key_that_ends_it(tmp_path, phase):
    g = bot_game(36, phase)
    app, scene = open_scene(g, tmp_path, bot=False)
    hint = scene.sidebar.hint_line()
    end = "step" if ask.end_kind(g) == "end_step" else "phase"
    assert hint.endswith(f"; Space ends the {end}"), hint
    allows = hint.rpartition("; Space")[0]
    assert allows and allows != "", hint
    if phase == "move":
        assert "drag a unit" in allows and "Run" in allows
    if phase == "shoot":
        assert "Shoot" in allows


def test_while_the_bot_plays_the_hint_says_so_and_how_to_steer_it(tmp_path):
    app, scene = open_scene(bot_game(36, "engage", player=2), tmp_path)
    assert scene.bot.in_charge()
    assert scene.sidebar.hint_line().startswith("the bot plays this turn: P pauses the bot")


def test_the_turn_card_shows_once_in_the_first_game_and_any_key_closes_it(tmp_path, datadir):
    app, scene = open_scene(bot_game(36), tmp_path)
    card = show_turn_card_once(app, scene)
    assert isinstance(card, TurnCard) and app.top is card
    text = " ".join(card.lines)
    assert "Upkeep, Engage, Move, Shoot, Melee" in text and "Space" in text
    app.frame(0.016, flip=False)
    box, lines = card.box(app.size)
    assert box.height <= app.size[1] and len(lines) > len(card.lines)
    app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_x, mod=0, unicode="x", scancode=0))
    assert app.top is scene and scene.state.phase == "engage"  # the key closed the card, nothing more
    saved = json.loads((datadir / userdata.SETTINGS).read_text())
    assert saved[CARD_SEEN] is True
    app2, scene2 = open_scene(bot_game(36), tmp_path)
    assert app2.settings[CARD_SEEN] is True
    assert show_turn_card_once(app2, scene2) is None and app2.top is scene2


def test_speedheim_play_opens_the_first_game_with_the_card_and_later_ones_without(monkeypatch, datadir):
    tops = []
    monkeypatch.setattr(App, "run_to_the_end", lambda self: tops.append(type(self.top).__name__) or self.close() or 0)
    default = os.path.join(HERE, "maps", "default.yaml")
    assert app_module.play_cli(default, bots=(2,)) == 0
    assert app_module.play_cli(default, bots=(2,)) == 0
    assert tops == ["TurnCard", "PlayScene"]
    assert str(datadir) in userdata.settings_path()


def test_the_placeholder_combat_badge_explains_itself_on_hover_and_k_opens_its_rules(tmp_path):
    from game.ui.keymap import PLAY
    from game.ui.scenes.play.rule_tips import tip_lines
    from game.ui.scenes.rules import RulesScene

    app, scene = open_scene(bot_game(36), tmp_path)
    pills = dict(scene.sidebar.banner.pills)
    assert "placeholder combat" in pills
    at = pills["placeholder combat"].center
    app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=at, rel=(0, 0), buttons=(0, 0, 0)))
    app.frame(0.016, flip=False)
    assert scene.rule_tips.shown() == "placeholder combat"
    text = " ".join(t for t, _s in tip_lines("placeholder combat"))
    assert "S1, S2 and F1" in text and "not written" in text
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=at, button=1))  # a click keeps it open
    away = (at[0], 400)
    app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=away, rel=(0, 0), buttons=(0, 0, 0)))
    assert scene.rule_tips.shown() == "placeholder combat"
    app.dispatch(PLAY.key_event("rules"))
    assert isinstance(app.top, RulesScene) and app.top.rule == "S1"
