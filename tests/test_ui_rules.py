"""The rules in the window (issue 23): a rule id in the log or on a refusal shows the rule's
text from the shipped rules reference; K (and the F1 help) opens the rules browser."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from game import rules_doc  # noqa: E402
from game.ui import keymap  # noqa: E402
from game.ui.scenes.overlays import HelpScene  # noqa: E402
from game.ui.scenes.play.rule_tips import tip_lines  # noqa: E402
from game.ui.scenes.rules import RulesScene  # noqa: E402
from tests.factories import down, key, make_scene, motion, up  # noqa: E402,F401


def refuse_a_run(app, scene):
    """Run the captain while the ogre is near: the engine refuses it with M2."""
    scene.state.units["blue-ogre"].x, scene.state.units["blue-ogre"].y = 4.0, 9.0
    scene.changed()
    assert not scene.act({"run": {"unit": "red-captain", "to": [4, 12]}})
    assert scene.refusal[0] == "M2"
    app.frame(0.016, flip=False)


def link_of(scene, rule):
    return next(rect for rect, r in scene.rule_tips.log_links() if r == rule)


def test_hover_a_rule_id_in_the_log_shows_its_rule_and_a_click_keeps_it(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    refuse_a_run(app, scene)
    rect = link_of(scene, "M2")  # the refusal's log line: "refused run ...: M2: run denied ..."
    assert scene.sidebar.log_view.rect.contains(rect)
    motion(app, rect.center, buttons=(0, 0, 0))
    assert scene.rule_tips.shown() == "M2"
    surface = pygame.Surface(app.size)
    box = scene.rule_tips.draw_tip(surface, "M2", rect.center)
    assert box is not None and surface.get_rect().contains(box)
    motion(app, (rect.x - 40, rect.y - 200), buttons=(0, 0, 0))
    assert scene.rule_tips.shown() is None
    down(app, rect.center)
    up(app, rect.center)
    motion(app, (10, 300), buttons=(0, 0, 0))
    assert scene.rule_tips.shown() == "M2"  # pinned
    key(app, "cancel")
    assert scene.rule_tips.shown() is None
    assert app.errors == []


def test_hover_the_refusal_on_the_table_shows_its_rule(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    refuse_a_run(app, scene)
    box = scene.rule_tips.refusal_box
    assert box is not None and scene.view_rect.contains(box)
    motion(app, box.center, buttons=(0, 0, 0))
    assert scene.rule_tips.shown() == "M2"
    assert app.errors == []


def test_tip_text_is_the_rule_wrapped_to_the_panel():
    lines = tip_lines("M2")
    assert lines[0] == ("M2  Running", "title")
    body = " ".join(t for t, style in lines if style == "body")
    assert "run_multiplier (1.5)" in body and 'run_denial_range (8")' in body
    from game.ui.widgets import text as T

    assert max(T.font(13).size(t)[0] for t, _ in lines[1:]) <= 420  # every line fits the panel
    assert "K: every rule" in " ".join(t for t, style in lines if style == "foot")
    assert tip_lines("Z9") == []


def test_k_opens_the_rules_on_the_rule_shown_and_the_help_links_to_it(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    refuse_a_run(app, scene)
    motion(app, link_of(scene, "M2").center, buttons=(0, 0, 0))
    key(app, "rules")
    top = app.top
    assert isinstance(top, RulesScene) and top.rule == "M2"
    app.dispatch(keymap.RULES.key_event("next"))
    assert top.rule == "M3"
    app.frame(0.016, flip=False)
    app.dispatch(keymap.RULES.key_event("close"))
    assert app.top is scene
    key(app, "help")
    assert isinstance(app.top, HelpScene)
    assert ("K", keymap.PLAY.bindings("rules")[0].help) in app.top.rows
    app.dispatch(keymap.PLAY.key_event("rules"))
    assert isinstance(app.top, RulesScene) and app.top.rule == next(iter(rules_doc.entries()))
    app.frame(0.016, flip=False)
    assert app.errors == []
