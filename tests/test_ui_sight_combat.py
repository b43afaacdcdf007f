"""The window's line of sight tool (L1, L2), the ruler's line of sight, placeholder combat
(the mode label, Shoot and Attack with their exact odds before the roll, refusals with the
engine's rule) and the draw at the turn limit (T1). Real pygame events, SDL dummy driver."""

from __future__ import annotations

from fractions import Fraction

import shapely

from game.engine.sight import Sight
from game.ui.scenes.overlays import WinnerScene
from game.ui.scenes.play import Anchor, Ruler
from game.ui.scenes.play.words import chance
from game.ui.widgets.dialogs import ChoiceDialog, ContextMenu
from tests.factories import UI_SCENARIO, down, key, make_scene, menu_pick, motion, px, thread_spy, up  # noqa: F401

RANGE = """\
name: Shooting range
table: {width: 36, height: 30}
rules: {combat: placeholder}
terrain:
  - {id: tower, kind: block, height: 4, polygon: [[14, 10], [19, 10], [19, 15], [14, 15]]}
warbands:
  - id: red
    player: 1
    name: Reds
    units:
      - {id: red-crossbow, name: Crossbowman, at: [8, 6], base_mm: 25, keywords: [crossbow],
         stats: {move: 5, agility: 12, morale: 10, defence: 10}}
      - {id: red-archer, name: Archer, at: [10, 24], base_mm: 25, keywords: [bow],
         stats: {move: 5, agility: 11, morale: 10, defence: 10}}
      - {id: red-captain, name: Captain, at: [20, 24], base_mm: 32, keywords: [hero],
         stats: {move: 6, agility: 12, morale: 14, defence: 11}}
  - id: blue
    player: 2
    name: Blues
    units:
      - {id: blue-ogre, name: Ogre, at: [27, 21], base_mm: 40,
         stats: {move: 6, agility: 8, morale: 12, defence: 12}}
      - {id: blue-far, name: Scout, at: [33, 3], base_mm: 25,
         stats: {move: 6, agility: 10, morale: 10, defence: 10}}
      - {id: blue-brute, name: Brute, at: [20, 25.7], base_mm: 25, status: dazed,
         stats: {move: 6, agility: 10, morale: 10, defence: 10}}
state: {turn: 1, player: 1, phase: shoot}
"""


def right_click(app, pos):
    down(app, pos, 3)
    up(app, pos, 3)
    app.frame(0.016, flip=False)


def hover(app, scene, x, y):
    motion(app, px(scene, x, y), buttons=(0, 0, 0))
    app.frame(0.016, flip=False)


def sight_on(app, scene, uid):
    scene.selected = uid
    key(app, "sight")
    app.frame(0.016, flip=False)
    scene.sight_tool.flush()
    app.frame(0.016, flip=False)
    return scene.sight_tool.current()


# --- L: the ground a unit cannot see ----------------------------------------------------------
def test_l_shades_exactly_the_ground_the_selected_unit_cannot_see(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    scene.selected = "red-crossbow"
    app.frame(0.016, flip=False)
    behind = px(scene, 24, 24)  # behind the 4" tower, seen from (8, 6)
    open_ground = px(scene, 30, 8)
    before = app.screen.get_at(behind), app.screen.get_at(open_ground)
    layer = sight_on(app, scene, "red-crossbow")
    assert layer is not None and layer.viewer == "red-crossbow"
    expected = Sight(scene.scenario).visibility_region(scene.state, "red-crossbow")
    assert layer.region.symmetric_difference(expected).area < 1e-6
    assert layer.region.contains(shapely.Point(24, 24)) and not layer.region.contains(shapely.Point(30, 8))
    after = app.screen.get_at(behind), app.screen.get_at(open_ground)
    assert sum(after[0][:3]) < sum(before[0][:3]) - 60  # shaded
    assert after[1] == before[1]  # in sight: untouched
    assert {k: r.status for k, r in layer.results.items()} == {
        "blue-ogre": "hidden",
        "blue-far": "visible",
        "blue-brute": layer.results["blue-brute"].status,
    }
    key(app, "sight")  # L again: off
    app.frame(0.016, flip=False)
    assert app.screen.get_at(behind) == before[0]


def test_the_overlay_is_worked_out_off_the_frame_once_per_state(tmp_path, datadir, monkeypatch):
    calls = thread_spy(monkeypatch, Sight, "visibility_region")
    app, scene = make_scene(tmp_path, RANGE)
    sight_on(app, scene, "red-crossbow")
    for _ in range(5):
        app.frame(0.016, flip=False)
    assert calls == ["speedheim-sight"]  # never on the window's thread, and once for this state
    scene.selected = "red-archer"  # another viewer: worked out again
    scene.sight_tool.flush()
    assert calls == ["speedheim-sight"] * 2 and scene.sight_tool.current().viewer == "red-archer"


def test_l_with_nothing_selected_says_what_to_do(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    key(app, "sight")
    app.frame(0.016, flip=False)
    assert scene.sight_tool.on and scene.sight_tool.current() is None
    assert "select a unit" in scene.toast[0]


def test_hovering_an_enemy_shows_its_status_and_clear_sight_lines(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    sight_on(app, scene, "red-crossbow")
    mid = px(scene, 8 + 0.4 * (33 - 8), 6 + 0.4 * (3 - 6))  # 40% of the way along the lines to the Scout
    # (not half way: the hover label, drawn from the middle of the lines, may cover that)
    plain = app.screen.get_at(mid)
    hover(app, scene, 33, 3)
    uid, res = scene.sight_tool.hovered()
    truth = Sight(scene.scenario).between(scene.state, "red-crossbow", "blue-far")
    assert uid == "blue-far" and res.status == "visible" and res.clear_lines == truth.clear_lines == truth.lines
    lit = app.screen.get_at(mid)
    assert lit[1] > plain[1] + 40 and lit[1] > lit[0]  # a green sight line is drawn there now
    hover(app, scene, 27, 21)  # behind the tower
    uid, res = scene.sight_tool.hovered()
    assert uid == "blue-ogre" and res.status == "hidden" and res.clear_lines == 0 and "tower" in res.blockers
    hover(app, scene, 10, 24)  # a friend: no answer
    assert scene.sight_tool.hovered() is None


def test_the_ruler_shows_line_of_sight_between_its_ends(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    st = scene.state
    tool = scene.sight_tool

    def unit_anchor(uid):
        u = st.units[uid]
        return Anchor(u.x, u.y, u.r, uid)

    hidden = tool.ruler_sight(Ruler(unit_anchor("red-crossbow"), unit_anchor("blue-ogre"), False))
    assert hidden.status == "hidden" and "hidden (L1)" in hidden.text and "tower" in hidden.text
    seen = tool.ruler_sight(Ruler(unit_anchor("red-crossbow"), unit_anchor("blue-far"), False))
    assert seen.status == "visible" and "81 of 81 sight lines clear" in seen.text
    across = tool.ruler_sight(Ruler(Anchor(10, 12.5), Anchor(24, 12.5), False))  # through the tower, at eye height
    assert across.status == "hidden" and "blocked by tower" in across.text
    beside = tool.ruler_sight(Ruler(Anchor(10, 17), Anchor(24, 17), False))
    assert beside.status == "visible" and "clear" in beside.text
    # Drawn with the ruler: the reading's second label.
    key(app, "ruler")
    a, b = px(scene, 8, 6), px(scene, 27, 21)
    down(app, a)
    motion(app, b)
    up(app, b)
    app.frame(0.016, flip=False)
    assert scene.ruler_tool.ruler is not None and tool._ruler[1].status == "hidden"


# --- placeholder combat --------------------------------------------------------------------------
def test_the_window_labels_placeholder_combat(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    assert scene.sidebar.mode_tag() == "placeholder combat"
    assert "Shoot (S1)" in scene.sidebar.phase_note()
    app2, manual = make_scene(tmp_path, RANGE.replace("rules: {combat: placeholder}\n", ""))
    assert manual.sidebar.mode_tag() == "" and manual.sidebar.phase_note() == "manual phase: right-click a unit"


def test_right_click_on_an_enemy_offers_shoot_with_the_exact_odds_then_rolls(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE, seed=3)
    scene.selected = "red-crossbow"
    right_click(app, px(scene, 33, 3))
    menu = app.dialogs[-1]
    assert isinstance(menu, ContextMenu) and scene.selected == "red-crossbow"
    label, value = menu.items[0]
    odds = scene.game.odds({"shoot": {"unit": "red-crossbow", "target": "blue-far"}})
    assert odds.hit == Fraction(9, 25) and label == "Shoot: to hit 36%, see the odds"
    menu.choose(value)
    dlg = app.dialogs[-1]
    assert isinstance(dlg, ChoiceDialog) and "placeholder combat" in dlg.title
    assert "Chance to hit: 9/25 (36.0%) (with Disadvantage)" in dlg.message
    for result, p in odds.results.items():  # every result with its exact chance
        assert f"{result}: {chance(p)}" in dlg.message
    assert sum(odds.results.values()) == 1
    dlg.choose(None)  # Cancel: nothing rolled
    assert scene.game.log == [] and scene.game.dice.log == []
    right_click(app, px(scene, 33, 3))
    app.dialogs[-1].choose(app.dialogs[-1].items[0][1])
    app.dialogs[-1].choose("go")
    last = scene.game.log[-1]
    assert last.action == {"shoot": {"unit": "red-crossbow", "target": "blue-far"}} and last.ok
    assert [r.rule for r in last.rolls][:1] == ["S1"]


def test_a_refused_shot_shows_the_engines_rule_and_reason(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    scene.selected = "red-archer"
    right_click(app, px(scene, 33, 3))
    menu = app.dialogs[-1]
    label, value = menu.items[0]
    assert label == 'Shoot: refused, S1: blue-far is 30.16" away (bow range 24")'
    menu.choose(value)
    assert scene.refusal[:2] == ("S1", 'blue-far is 30.16" away (bow range 24")') and scene.game.log == []
    scene.selected = "red-crossbow"
    right_click(app, px(scene, 27, 21))
    label, value = app.dialogs[-1].items[0]
    assert label.startswith("Shoot: refused, L1: red-crossbow cannot see blue-ogre")


def test_the_unit_menus_shoot_goes_through_the_odds_too(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE)
    scene.menus.open_menu("red-archer", (200, 200))
    menu_pick(app, "Shoot...", "blue-brute")
    dlg = app.dialogs[-1]
    hit = 1 - (1 - Fraction(11, 20)) ** 2  # Agility 11 on a d20 with Advantage (the target is Dazed)
    assert hit == Fraction(319, 400)
    assert isinstance(dlg, ChoiceDialog) and "Chance to hit: 319/400 (79.8%) (with Advantage)" in dlg.message
    assert scene.game.log == []


def test_attack_in_the_melee_phase_with_a_certain_result(tmp_path, datadir):
    # Engaged and in base contact (E2: an attack needs both), 0.02" apart edge to edge
    text = RANGE.replace("phase: shoot", "phase: melee").replace("status: dazed", "status: stunned")
    text = text.replace("at: [20, 25.7]", "at: [20, 25.14]")
    app, scene = make_scene(tmp_path, text)
    scene.game.state.units["red-captain"].engaged_with.append("blue-brute")
    scene.game.state.units["blue-brute"].engaged_with.append("red-captain")
    scene.selected = "red-captain"
    right_click(app, px(scene, 20, 25.14))
    label, value = app.dialogs[-1].items[0]
    assert label.startswith("Attack:")
    app.dialogs[-1].choose(value)
    dlg = app.dialogs[-1]
    assert "incapacitated: 1 (100%)" in dlg.message and "no roll needed" in dlg.message
    dlg.choose("go")
    assert not scene.state.units["blue-brute"].active


def test_right_click_on_an_enemy_outside_combat_phases_opens_its_own_menu(tmp_path, datadir):
    app, scene = make_scene(tmp_path, RANGE.replace("phase: shoot", "phase: move"))
    scene.selected = "red-crossbow"
    right_click(app, px(scene, 33, 3))
    menu = app.dialogs[-1]
    assert scene.selected == "blue-far" and isinstance(menu, ContextMenu)
    assert "Set status..." in dict(menu.items) and not any(lbl.startswith("Shoot") for lbl, _ in menu.items)


# --- T1: a draw at the turn limit -----------------------------------------------------------------
def test_the_winner_screen_and_banner_report_a_draw_at_the_turn_limit(tmp_path, datadir):
    text = RANGE.replace("rules: {combat: placeholder}", "rules: {combat: placeholder, turn_limit: 1}")
    app, scene = make_scene(tmp_path, text)
    app.settings["handover"] = False
    for _ in range(12):
        if isinstance(app.top, WinnerScene):
            break
        key(app, "end_step")
        app.frame(0.016, flip=False)
    outcome = scene.game.outcome()
    assert outcome is not None and outcome.draw and "turn limit" in outcome.reason
    assert isinstance(app.top, WinnerScene) and app.top.title == "A draw"
    assert f"How: {outcome.reason}" in app.top.lines
    assert scene.sidebar.phase_note() == f"a draw ({outcome.reason}); Ctrl+Z takes the last action back"
    app.top.choose("close")
    app.frame(0.016, flip=False)
    assert app.top is scene
    assert "Game over" in scene.sidebar.banner.shown  # in place of the phase (issue 23)


# --- E1: the engage path before it is confirmed ----------------------------------------------------
ENGAGE = UI_SCENARIO.replace("at: [20, 21], base_mm: 40", "at: [9, 9], base_mm: 40").replace(
    "state: {turn: 1, player: 1, phase: move}", "state: {turn: 1, player: 1, phase: engage}"
)


def test_hovering_an_enemy_in_the_engage_phase_previews_the_engage_path(tmp_path, datadir):
    from game.ui.scenes import ask

    app, scene = make_scene(tmp_path, ENGAGE)
    scene.selected = "red-captain"
    hover(app, scene, 9, 9)
    scene.engage_tool.flush()
    p = scene.engage_tool.current()
    st = scene.state
    plan = ask.plan_engage(scene.game, "red-captain", "blue-ogre")
    cost = plan.cost if plan is not None else scene.board.distance(st.units["red-captain"], st.units["blue-ogre"])
    assert p is not None and p.kind == "engage" and abs(p.cost - cost) < 1e-9
    assert p.action == {"engage": {"unit": "red-captain", "target": "blue-ogre"}}
    assert p.path[0] == (4.0, 4.0) and p.walk == 6.0
    app.frame(0.016, flip=False)
    (x0, y0), (x1, y1) = p.path[0], p.path[1]
    mid = px(scene, (x0 + x1) / 2, (y0 + y1) / 2)
    colour = app.screen.get_at(mid)
    assert colour[1] > 140 and colour[0] < 90  # drawn green, as a move within its allowance
    assert scene.state.units["red-captain"].engaged_with == []  # a preview changes nothing
    hover(app, scene, 12, 3)  # off the enemy: no preview
    assert scene.engage_tool.current() is None


def test_an_engage_out_of_reach_is_refused_with_the_engines_rule(tmp_path, datadir):
    app, scene = make_scene(tmp_path, ENGAGE.replace("at: [9, 9], base_mm: 40", "at: [19, 19], base_mm: 40"))
    action = {"engage": {"unit": "red-captain", "target": "blue-ogre"}}
    why = scene.game.why_illegal(action)
    assert why is not None
    scene.selected = "red-captain"
    hover(app, scene, 19, 19)
    scene.engage_tool.flush()
    p = scene.engage_tool.current()
    assert p.kind is None and (p.error.rule, p.error.reason) == (why.rule, why.reason)
    scene.menus.action_chosen(action)  # Engage from a menu: refused at once, nothing asked
    assert scene.refusal[:2] == (why.rule, why.reason) and app.modal is None and scene.game.log == []


def test_no_engage_preview_outside_the_engage_phase_or_for_the_other_side(tmp_path, datadir):
    app, scene = make_scene(tmp_path, ENGAGE.replace("phase: engage", "phase: move"))
    scene.selected = "red-captain"
    hover(app, scene, 9, 9)
    assert scene.engage_tool.wanted() is None
    app, scene = make_scene(tmp_path, ENGAGE)
    scene.selected = "blue-ogre"  # not the side to act
    hover(app, scene, 4, 4)
    assert scene.engage_tool.wanted() is None


def test_cancelling_the_engage_leaves_the_game_as_it_was(tmp_path, datadir):
    app, scene = make_scene(tmp_path, ENGAGE)
    scene.selected = "red-captain"
    right_click(app, px(scene, 9, 9))
    menu = app.dialogs[-1]
    menu.choose(dict(menu.items)["Engage (E1)"])
    dlg = app.dialogs[-1]
    assert dlg.title == "Engage Ogre (E1)?" and "into base contact" in dlg.message
    assert scene.engage_tool.pinned == ("red-captain", "blue-ogre")
    dlg.choose(None)
    assert scene.engage_tool.pinned is None and scene.game.log == []


# --- the newest simulation report in the browser (issue 12) -------------------------------------
def _report(folder, stamp):
    import os

    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "report.html")
    with open(path, "w") as f:
        f.write("<html><body>report</body></html>")
    os.utime(path, (stamp, stamp))
    return path


def browser(monkeypatch, works: bool = True) -> list[str]:
    """No real browser: the URLs the window asks to open."""
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or works)
    return opened


def scene_in_project(tmp_path, monkeypatch, work: str):
    """A table whose game file is in project/maps (no report there or above), run from ``work``."""
    folder = tmp_path / work
    folder.mkdir(exist_ok=True)
    monkeypatch.chdir(folder)
    maps = tmp_path / "project" / "maps"
    maps.mkdir(parents=True)
    return folder, *make_scene(maps, RANGE)


def test_ctrl_r_opens_the_newest_simulation_report_in_the_browser(tmp_path, datadir, monkeypatch):
    opened = browser(monkeypatch)
    work = tmp_path / "work"
    old = _report(str(work / "sim-out"), 1_000_000)
    new = _report(str(work / "sim-out-rout"), 2_000_000)
    _report(str(work / "other"), 3_000_000)  # a report.html that no simulation wrote (no games.jsonl): not one
    elsewhere = _report(str(work / "study"), 1_500_000)
    (work / "study" / "games.jsonl").write_text("")
    _work, app, scene = scene_in_project(tmp_path, monkeypatch, "work")
    key(app, "sim_report")
    from pathlib import Path

    assert opened == [Path(new).resolve().as_uri()] and "simulation report" in scene.toast[0]
    import os

    os.utime(elsewhere, (4_000_000, 4_000_000))  # a run written with --out study/ is newer now
    key(app, "sim_report")
    assert opened[-1] == Path(elsewhere).resolve().as_uri() and old not in opened


def test_no_simulation_report_says_so_and_offers_a_file_dialog(tmp_path, datadir, monkeypatch):
    from game.ui.widgets.dialogs import FileDialog

    opened = browser(monkeypatch)
    work, app, scene = scene_in_project(tmp_path, monkeypatch, "empty")
    key(app, "sim_report")
    dlg = app.dialogs[-1]
    assert opened == [] and dlg.title == "No simulation report"
    assert "speedheim simulate" in dlg.message and str(work) in dlg.message
    dlg.choose("choose")
    files = app.dialogs[-1]
    assert isinstance(files, FileDialog)
    path = _report(str(tmp_path / "mine"), 1_000_000)
    files.close(path)
    from pathlib import Path

    assert opened == [Path(path).resolve().as_uri()]


def test_a_browser_that_does_not_start_is_reported(tmp_path, datadir, monkeypatch):
    browser(monkeypatch, works=False)
    path = _report(str(tmp_path / "here" / "sim-out"), 1_000_000)
    _here, app, scene = scene_in_project(tmp_path, monkeypatch, "here")
    assert scene.files.open_report() is None
    assert app.dialogs[-1].title == "No browser" and path in app.dialogs[-1].message


# Issue 16's pictures: an engage up a tower (a climb, within Move) and round a wall.
TOWER_WALL = """\
name: engage paths
table: {width: 20, height: 16}
terrain:
  - {id: tower, kind: block, height: 5, polygon: [[2, 6.5], [8, 6.5], [8, 12], [2, 12]]}
  - {id: low-tower, kind: block, height: 2, polygon: [[10, 6.5], [15, 6.5], [15, 12], [10, 12]]}
  - {id: wall, kind: wall, height: 4, polygon: [[16.5, 6.9], [20, 6.9], [20, 7.1], [16.5, 7.1]]}
warbands:
  - id: red
    player: 1
    units:
      - {id: a, at: [5, 5], base_mm: 25, stats: {move: 6, agility: 12, morale: 10, defence: 10}}
      - {id: c, at: [12.5, 4], base_mm: 25, stats: {move: 6, agility: 12, morale: 10, defence: 10}}
      - {id: e, at: [18, 5], base_mm: 25, stats: {move: 6, agility: 12, morale: 10, defence: 10}}
  - id: blue
    player: 2
    units:
      - {id: b, at: [5, 9], base_mm: 25, stats: {move: 6, agility: 10, morale: 10, defence: 10}}
      - {id: d, at: [12.5, 8], base_mm: 25, stats: {move: 6, agility: 10, morale: 10, defence: 10}}
      - {id: f, at: [16.5, 9], base_mm: 25, stats: {move: 6, agility: 10, morale: 10, defence: 10}}
state: {turn: 1, player: 1, phase: engage}
"""


def engage_preview(app, scene, uid, target):
    st = scene.state
    scene.selected = uid
    hover(app, scene, st.units[target].x, st.units[target].y)
    scene.engage_tool.flush()
    app.frame(0.016, flip=False)
    return scene.engage_tool.current()


def test_the_engage_preview_climbs_a_tower_with_its_check(tmp_path, datadir):
    from game.ui.scenes import ask

    app, scene = make_scene(tmp_path, TOWER_WALL)
    p = engage_preview(app, scene, "c", "d")
    plan = ask.plan_engage(scene.game, "c", "d")
    assert p.kind == "engage" and p.path == plan.points and p.cost == plan.cost <= p.walk == 6.0
    assert [k for _x, _y, k in p.checks] == ["climb_up"]  # the climb up the 2" tower, marked on the path
    scene.menus.action_chosen(p.action)
    assert "Checks on the way: climb up (M6)." in app.dialogs[-1].message
    assert f'moves {plan.cost:.2f}" of 6.00"' in app.dialogs[-1].message


def test_the_engage_preview_goes_round_a_wall(tmp_path, datadir):
    import shapely

    app, scene = make_scene(tmp_path, TOWER_WALL)
    p = engage_preview(app, scene, "e", "f")
    wall = shapely.box(16.5, 6.9, 20, 7.1)
    assert shapely.LineString([(18, 5), (16.5, 9)]).intersects(wall)  # the straight way is through it
    assert p.kind == "engage" and len(p.path) > 2  # not the straight line
    assert not shapely.LineString(p.path).intersects(wall)
    assert p.cost > scene.board.distance(scene.state.units["e"], scene.state.units["f"])


def test_an_engage_up_a_tower_too_high_is_refused_with_the_cheapest_cost(tmp_path, datadir):
    app, scene = make_scene(tmp_path, TOWER_WALL)
    p = engage_preview(app, scene, "a", "b")
    assert p.kind is None and p.error.rule == "E1"
    assert (
        p.error.reason.startswith("the cheapest way into contact with b is ")
        and '(a may engage up to 6")' in p.error.reason
    )
    scene.menus.action_chosen({"engage": {"unit": "a", "target": "b"}})
    assert scene.refusal[0] == "E1" and scene.game.log == [] and app.modal is None
