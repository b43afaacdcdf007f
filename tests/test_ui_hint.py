"""The window's hint (issue 21, item 2): ``I`` shows the side to act's three best next
actions (the bot's advice, as ``speedheim advise``) as numbered arrows with their reasons,
worked out off the frame; a failure is shown, never raised. Headless (SDL dummy)."""

from __future__ import annotations

import pygame

from game.bots.advise import advise
from game.ui.keymap import PLAY
from game.ui.scenes.play import hints
from game.ui.widgets import text
from tests.factories import key, make_scene  # noqa: F401


def shown(app, scene):
    scene.hint_tool.flush()
    app.frame(0.016, flip=False)
    return scene.hint_tool.current()


def test_the_hint_key_is_in_the_keymap_and_its_help():
    assert PLAY.label("hint") == "I"
    assert any("Hint on/off" in text for _keys, text in PLAY.help_rows())


def test_the_hint_shows_the_bots_three_best_actions_as_arrows(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    assert not scene.hint_tool.on
    key(app, "hint")
    assert scene.hint_tool.on
    options = shown(app, scene)
    want = advise(scene.game, "utility", top=3)
    assert [d.action for d in options] == [d.action for d in want] and 1 <= len(options) <= 3
    moves = [d for d in options if d.kind in ("move", "run")]
    assert moves, [d.action for d in options]
    pts = scene.hint_tool.targets(moves[0])
    u = scene.state.units[moves[0].unit]
    assert pts[0] == (u.x, u.y) and len(pts) >= 2  # the arrow runs from the unit along its path
    # the arrow is drawn on the table, in the first option's colour, near the path's end
    surface = app.screen
    scene.draw(surface)
    end = scene.camera.to_px(*pts[-1])
    colours = {
        tuple(surface.get_at((int(end[0]) + dx, int(end[1]) + dy)))[:3] for dx in range(-6, 7) for dy in range(-6, 7)
    }
    assert any(c in colours for c in hints.COLOURS)
    key(app, "hint")
    assert not scene.hint_tool.on and scene.hint_tool.key() is None


def test_the_hint_follows_the_game(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    key(app, "hint")
    first = shown(app, scene)
    scene.act(first[0].action)  # play the first option: the hint is worked out again
    app.frame(0.016, flip=False)
    again = shown(app, scene)
    assert again is not None and all(scene.game.why_illegal(d.action) is None for d in again)
    assert [d.action for d in again] != [d.action for d in first]


def test_a_failing_hint_is_shown_not_raised(tmp_path, datadir, monkeypatch):
    app, scene = make_scene(tmp_path)

    def broken(*_a, **_k):
        raise ValueError("the bot fell over")

    monkeypatch.setattr(hints.ask, "advise", broken)
    key(app, "hint")
    answer = shown(app, scene)
    assert isinstance(answer, hints.HintFailure) and "the bot fell over" in answer.text
    scene.draw(app.screen)  # drawn as a line of the list, no exception


def test_the_frame_does_not_wait_for_the_hint(tmp_path, datadir, monkeypatch):
    import threading

    app, scene = make_scene(tmp_path)
    gate = threading.Event()
    real = hints.ask.advise

    def slow(*a, **k):
        gate.wait(10)
        return real(*a, **k)

    monkeypatch.setattr(hints.ask, "advise", slow)
    key(app, "hint")
    for _ in range(3):
        app.frame(0.016, flip=False)  # frames go on while the worker thinks
    assert scene.hint_tool.current() is None
    scene.draw(app.screen)  # "thinking..."
    gate.set()
    assert shown(app, scene)
    pygame.event.clear()


def test_with_only_the_phase_to_end_the_hint_shows_what_follows(tmp_path, datadir):
    # The Engage phase with no enemy in reach: the one option is ending it, and the hint
    # goes on with the Move phase's best moves, as "then" arrows from the units.
    from tests.factories import UI_SCENARIO

    app, scene = make_scene(tmp_path, UI_SCENARIO.replace("phase: move", "phase: engage"))
    key(app, "hint")
    options = shown(app, scene)
    assert options[0].unit is None and next(iter(options[0].action)) == "end_phase"
    assert options[0].reason.startswith("ends the engage phase, then ")
    # its arrow is the best of what follows; the others follow it
    assert next(iter(options[0].extra["then"])) in ("move", "run") and len(scene.hint_tool.targets(options[0])) >= 2
    then = options[1:]
    assert then and all(d.reason.startswith("then: ") for d in then)
    assert scene.state.phase == "engage"  # worked out on a copy
    scene.draw(app.screen)


def test_on_a_players_own_side_the_hint_asks_the_bot_the_table_plays_against(tmp_path, datadir):
    app, scene = make_scene(tmp_path)
    assert scene.hint_tool.bot_name() == "utility"  # nobody plays a bot
    scene.bot.seats[2] = "random"  # player 2 is the bot
    assert scene.game.turn_player() == 1 and scene.hint_tool.bot_name() == "random"
    scene.bot.seats[1] = "utility:cautious"  # both seats: each its own
    assert scene.hint_tool.bot_name() == "utility:cautious"


def test_at_a_hot_seat_table_the_hint_asks_the_bot_named_with_bot_name(tmp_path, datadir):
    # `make play BOT_NAME=planner` with no BOT: two players at one screen, planner hints
    app, scene = make_scene(tmp_path)
    scene.bot.chosen = "planner"
    assert not scene.bot.seats and scene.hint_tool.bot_name() == "planner"
    scene.bot.seats[2] = "random"  # a bot at the table: its name
    assert scene.hint_tool.bot_name() == "random"


def test_when_only_the_phase_can_end_every_value_listed_comes_from_one_search(tmp_path, datadir, monkeypatch):
    # The planner's first option when only the phase can end: "ends the phase, then ...",
    # with a move in extra["then"] and a value, both from its search in this phase. The
    # list goes on with the advice after the phase ends: another search, with other dice.
    # Option 1 takes that advice's best (its value, its reason, its arrow), and the rest
    # follow it, each once: every value listed is of the one search.
    from game.bots.base import BotDecision
    from tests.factories import UI_SCENARIO

    app, scene = make_scene(tmp_path, UI_SCENARIO.replace("phase: move", "phase: engage"))
    u, v = [x for x in scene.state.units.values() if x.on_table][:2]
    move = {"move": {"unit": u.id, "to": [u.x + 1.0, u.y]}}
    other = {"move": {"unit": v.id, "to": [v.x, v.y + 1.0]}}
    first = BotDecision(
        {"end_phase": {}}, f"ends the phase, then {u.id} moves; worth -3.7", score=-3.7, extra={"then": move}
    )
    monkeypatch.setattr(hints.ask, "advise", lambda *_a, **_k: [first])
    monkeypatch.setattr(
        hints.ask,
        "advise_after",
        lambda *_a, **_k: [
            BotDecision(other, "then: the other moves; worth -5.0", unit=v.id, score=-5.0),
            BotDecision(move, "then: it moves; worth -5.3", unit=u.id, score=-5.3),
        ],
    )
    key(app, "hint")
    options = shown(app, scene)
    assert [d.action for d in options] == [{"end_phase": {}}, move]
    assert [d.score for d in options] == [-5.0, -5.3]
    assert options[0].reason == "ends the engage phase, then the other moves; worth -5.0"
    assert scene.hint_tool.targets(options[0]) == [(v.x, v.y), (v.x, v.y + 1.0)]
    assert scene.hint_tool.targets(options[1]) == [(u.x, u.y), (u.x + 1.0, u.y)]
    scene.draw(app.screen)


def test_the_list_keeps_clear_of_the_arrows(tmp_path, datadir, monkeypatch):
    # The arrows' heads go to the placement with the bases; a place over one is taken
    # only when every other hides more.
    from types import SimpleNamespace

    from game.ui import sight_layer

    app, scene = make_scene(tmp_path)
    seen = []
    real = sight_layer.clear_place

    def spy(camera, table, units, size, area=None, keep=None):
        seen.append([(u.x, u.y) for u in units if getattr(u, "id", None) is None])
        return real(camera, table, units, size, area, keep)

    monkeypatch.setattr(hints, "clear_place", spy)
    key(app, "hint")
    options = shown(app, scene)
    scene.draw(app.screen)
    ends = [scene.hint_tool.targets(d)[-1] for d in options if len(scene.hint_tool.targets(d)) >= 2]
    assert ends and seen and all(e in seen[-1] for e in ends)
    # on an empty table the top left corner is first; a mark there sends the list on
    cam, table = scene.camera, (scene.scenario.width, scene.scenario.height)
    free = real(cam, table, [], (120, 60))
    mark = SimpleNamespace(x=2.0, y=2.0, r=hints.ARROW_MARK, on_table=True)
    assert free.collidepoint(cam.to_px(2.0, 2.0))
    assert not real(cam, table, [mark], (120, 60)).collidepoint(cam.to_px(2.0, 2.0))


def _advised(tmp_path, monkeypatch, reason):
    """A table whose hint lists three moves of its first unit, the i-th with
    ``reason(i, unit)`` and value -i; and the (text, box) of every label the hint draws."""
    from game.bots.base import BotDecision

    app, scene = make_scene(tmp_path)
    u = [x for x in scene.state.units.values() if x.on_table][0]
    opts = [
        BotDecision({"move": {"unit": u.id, "to": [u.x + i + 1.0, u.y]}}, reason(i, u), unit=u.id, score=-float(i))
        for i in range(3)
    ]
    monkeypatch.setattr(hints.ask, "advise", lambda *_a, **_k: opts)
    drawn = []
    real = hints.label

    def spy(*a, **k):
        box = real(*a, **k)
        drawn.append((a[1], box))
        return box

    monkeypatch.setattr(hints, "label", spy)
    return app, scene, opts, drawn


def test_the_boxes_of_long_reasons_do_not_cover_each_other(tmp_path, datadir, monkeypatch):
    # The planner's reasons wrap to five lines and more: each box is as tall as its text,
    # and the next one starts below it (a box sized for four lines ran under the next).
    why = "what it weighed, at length; " * 30
    app, scene, _opts, drawn = _advised(tmp_path, monkeypatch, lambda i, u: f"{i + 1}. {why}")
    key(app, "hint")
    shown(app, scene)
    drawn.clear()
    scene.draw(app.screen)
    boxes = [box for words, box in drawn if "what it weighed" in words]
    lh = text.font(14, True).get_linesize()
    assert len(boxes) == 3 and all(b.height > 4 * lh for b in boxes)
    for above, below in zip(boxes, boxes[1:]):
        assert above.bottom <= below.top


def test_a_tall_list_finds_the_clear_stretch_down_the_edge():
    # Units along the top and the bottom (31") of the table, and arrow heads at 15.5" on
    # both sides: a box 12" tall is clear only with its top between about 16.5" and 18"
    # (a base keeps 8 px more round it). The places tried down the edges are close enough
    # together to find that stretch (half the box's height apart, they did not).
    from types import SimpleNamespace

    from game.ui.camera import Camera
    from game.ui.sight_layer import clear_place

    cam = Camera(17.0, (100.0, 50.0))
    units = [SimpleNamespace(x=float(x), y=float(y), r=0.5, on_table=True) for x in range(2, 36, 3) for y in (3, 31)]
    units += [SimpleNamespace(x=x, y=15.5, r=hints.ARROW_MARK, on_table=True) for x in (6.0, 30.0)]
    w, h = round(cam.length(20)), round(cam.length(12))
    place = clear_place(cam, (36, 36), units, (w, h))
    hit = [
        (u.x, u.y)
        for u in units
        if place.inflate(2 * (cam.length(u.r) + 8), 2 * (cam.length(u.r) + 8)).collidepoint(cam.to_px(u.x, u.y))
    ]
    assert not hit, (hit, cam.to_in(place.x, place.y))


def test_shift_i_shortens_the_list_to_what_each_option_does(tmp_path, datadir, monkeypatch):
    # The planner's reasons run to five lines an option, and the list then hides much of
    # the table. Shift+I keeps the arrows and lists one short line an option: what it
    # does (up to the first ";"), and its value; Shift+I again gives the reasons back.
    def does(i, u):
        return f"{u.name} runs to [{u.x + i + 1.0:.1f}, {u.y:.1f}]"

    app, scene, opts, drawn = _advised(tmp_path, monkeypatch, lambda i, u: f"{does(i, u)}; " + "what it weighed; " * 20)
    u = scene.state.units[opts[0].unit]

    def listed():
        shown(app, scene)
        drawn.clear()
        scene.draw(app.screen)
        rows = [(words, box) for words, box in drawn if words[:3] in ("1. ", "2. ", "3. ")]
        return [w for w, _b in rows], sum(b.height for _w, b in rows)

    assert PLAY.label("hint_brief") == "Shift+I"
    key(app, "hint_brief")  # from off: on, short
    assert scene.hint_tool.on and scene.hint_tool.short
    short, short_h = listed()
    assert short == [f"{i + 1}. {does(i, u)}  [value {-float(i):.2f}]" for i in range(3)]
    heads = [words for words, _box in drawn if words.startswith("HINT")]
    assert heads and "Shift+I: with reasons" in heads[0]
    # the arrows stay: the first one's colour near its end
    end = scene.camera.to_px(*scene.hint_tool.targets(opts[0])[-1])
    colours = {
        tuple(app.screen.get_at((int(end[0]) + dx, int(end[1]) + dy)))[:3] for dx in range(-6, 7) for dy in range(-6, 7)
    }
    assert any(c in colours for c in hints.COLOURS)
    key(app, "hint_brief")  # the reasons again, still on
    assert scene.hint_tool.on and not scene.hint_tool.short
    full, full_h = listed()
    assert all("what it weighed" in words for words in full) and full_h > 2 * short_h
    key(app, "hint")
    assert not scene.hint_tool.on


def test_the_short_line_is_the_action_cut_to_its_length():
    assert hints.brief("War Hound runs to [19.4, 15.9]; denies t-granary") == "War Hound runs to [19.4, 15.9]"
    assert hints.brief("ends the phase") == "ends the phase"
    long = "Captain runs " + "far and " * 20
    out = hints.brief(long + "; why")
    assert len(out) <= hints.BRIEF_CHARS and out.endswith(" and...") and long.startswith(out[:-3])
    # cut after a whole clause
    said = (
        'then: Captain Aldric runs 5.8" to [9.3, 7.8]: towards t-tower (3.9" to go), risk 0.1, nearest enemy 25.6" away'
    )
    assert (
        hints.brief(said + "; the utility bot's choice")
        == 'then: Captain Aldric runs 5.8" to [9.3, 7.8]: towards t-tower (3.9" to go), risk 0.1...'
    )
    said = "ends the engage phase, then War Hound runs to [19.4, 15.9], towards t-granary (deny)"
    assert hints.brief(said + "; War Hound denies t-granary: level 0-0") == said
