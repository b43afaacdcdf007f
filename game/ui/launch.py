"""Starting a game in the window: ``speedheim play`` (:func:`play_cli`), a new game or a
saved one on a play scene (:func:`start`, :func:`open_play`), and what happens to the
autosave of the last game (resumed, kept when it is over, set aside when unreadable).

The window itself (:class:`~game.ui.app.App`) knows nothing of games: this module opens
the play scene on it.
"""

from __future__ import annotations

import os
import random
import sys
import time

from game.ui import userdata
from game.ui.app import App
from game.ui.widgets.dialogs import ChoiceDialog


def new_game(scenario_path: str, seed: int | None = None, bot_game: bool = False):
    """A new game of a scenario; ``bot_game``: under the rules of a bot game (placeholder
    combat, a turn limit, bot Neutrals, unless the scenario's ruleset says otherwise)."""
    from game.engine.game import Game
    from game.engine.dice import Dice
    from game.engine.scenario import load_scenario

    sc = load_scenario(scenario_path)
    if bot_game:
        from game.ui.scenes import ask

        sc = ask.bot_game_scenario(sc)
    return Game(sc, dice=Dice(seed=seed if seed is not None else random.randrange(1, 10**9)))


def load_saved(path: str):
    from game.engine.saves import load_game

    return load_game(path)


def open_play(app: App, game, source: str):
    from game.ui.scenes.play import PlayScene

    scene = PlayScene(app, game, source)
    app.push(scene)
    return scene


def start(app: App, scenario_path: str, resume: bool = False, ask: bool = True, bot_game: bool = False):
    """Open the play scene on ``scenario_path``: resume that map's autosave of a game in
    progress (asked, or at once with ``resume``); ``bot_game``: a new game is played under
    the rules of a bot game.

    Only this map's autosave is offered (or the single autosave of earlier versions), and
    only a game with an action in it. A resumed game keeps the players the bot played. A
    finished game is never offered: its autosave is kept under saves/ (Ctrl+O opens it, as
    it ended) and a new game starts; ``resume`` opens it as it ended, to look at. An
    autosave that cannot be read is renamed ``autosave-unreadable-<time>.yaml`` before
    anything new is written, and the window names it."""
    from game.engine.errors import LoadError
    from game.engine.saves import peek_save

    userdata.flush_autosave()
    path = userdata.find_autosave(scenario_path)
    if path is None:
        return _fresh(app, scenario_path, bot_game)
    try:
        saved = load_saved(path)
    except (LoadError, OSError, ValueError) as exc:
        return _unreadable_autosave(app, scenario_path, path, exc, bot_game)
    _keep_older_autosave(path, saved)
    outcome = saved.outcome()
    if outcome is not None:
        return _finished_autosave(app, scenario_path, path, outcome, saved, resume, bot_game)
    actions = sum(1 for e in saved.log if e.ok)
    if not actions or not (resume or ask):
        return _fresh(app, scenario_path, bot_game)
    info = peek_save(path)
    if resume:
        return resume_into(open_play(app, saved, path), info["bots"])
    scene = open_play(app, new_game(scenario_path, bot_game=bot_game), scenario_path)

    def choose(value):
        if value == "resume":
            scene.replace_game(saved, path)
            resume_into(scene, info["bots"])
        else:
            scene.autosave()

    bots = "".join(f", the bot playing player {p} ({n})" for p, n in sorted(info["bots"].items()))
    what = f": {saved.scenario.name or 'a game'}, {actions} action{'' if actions == 1 else 's'}{bots}"
    app.open_dialog(
        ChoiceDialog(
            app.ui,
            "Resume?",
            f"An autosaved game in progress on this map was found{what}"
            f"{_autosave_info(path)}.\n"
            f"Resume it, or start {os.path.basename(scenario_path)} afresh?",
            [("Resume the autosave", "resume"), ("New game", "new")],
            choose,
            closable=False,
            cancel="new",
            width=560,
        )
    )
    return scene


def resume_into(scene, bots: dict[int, str]):
    """The resumed game on ``scene``: the bot plays the players it played (no one else),
    one log line says so, and the game is autosaved where it came from."""
    for player in (1, 2):
        scene.bot.set_seat(player, bots.get(player))
    scene.resumed = True
    scene.autosave()
    scene.autosaves.resumed(bots)
    return scene


def _keep_older_autosave(path: str, saved) -> None:
    """An older autosave that loaded by taking parameters from the base ruleset is copied,
    byte for byte, to ``autosave-older-<time>.yaml`` before it is written over in the
    newer form (its log says what it took and where the copy is)."""
    from game.engine.saves import UPGRADE_NOTE

    if not any(kind == UPGRADE_NOTE for _, _, kind in saved.notes) or "autosave-older-" in " ".join(
        t for _, t, _ in saved.notes
    ):
        return
    try:
        kept = userdata.copy_aside(path, "autosave-older")
    except OSError as exc:
        print(f"speedheim: cannot keep a copy of the older autosave {path}: {exc}", file=sys.stderr)
        return
    saved.notes.insert(0, (0, f"the autosave as it was before: {kept}", UPGRADE_NOTE))


def _fresh(app: App, scenario_path: str, bot_game: bool):
    scene = open_play(app, new_game(scenario_path, bot_game=bot_game), scenario_path)
    scene.autosave()
    return scene


def _unreadable_autosave(app: App, scenario_path: str, path: str, exc: Exception, bot_game: bool):
    """An autosave that cannot be read: renamed aside (never overwritten), a new game, and
    the window says where the file is and why it could not be read."""
    from game.engine.errors import LoadError

    why = "\n".join(str(p) for p in exc.problems[:4]) if isinstance(exc, LoadError) else str(exc)
    try:
        kept = userdata.set_aside_unreadable(path)
    except OSError as err:
        # It cannot be moved: the new game must not write over it, so it is not autosaved.
        print(
            f"speedheim: cannot resume the autosave {path}: {why}; it cannot be moved aside ({err}), "
            f"so this game is not autosaved",
            file=sys.stderr,
        )
        scene = open_play(app, new_game(scenario_path, bot_game=bot_game), scenario_path)
        app.message(
            "Autosave unreadable",
            f"The autosave {path} could not be read:\n{why}\n"
            f"It could not be moved aside ({err}), so this game is not autosaved.",
        )
        return scene
    said = f"cannot resume the autosave ({why.splitlines()[0]}); it is kept as {kept}"
    print(f"speedheim: {said}", file=sys.stderr)
    userdata.log_message(said)
    scene = _fresh(app, scenario_path, bot_game)
    scene.note(said, "refusal")
    app.message(
        "Autosave unreadable",
        f"The autosave could not be read:\n{why}\n\nNothing of it is lost: "
        f"it is kept, as it was, in\n{kept}\nA new game starts.",
    )
    return scene


def _ended(outcome) -> str:
    return f"{outcome.winner} won: {outcome.reason}" if outcome.winner else f"a draw: {outcome.reason}"


def keep_finished_autosave(src: str) -> str:
    """Move the autosave ``src`` of a finished game into saves/ (``finished-DATE-TIME.yaml``,
    by when it was saved), where Ctrl+O lists it; returns the new path."""
    from game.ui.scenes.play.files import saves_dir

    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(os.path.getmtime(src)))
    base = os.path.join(saves_dir(), f"finished-{stamp}")
    dest, n = base + ".yaml", 1
    while os.path.exists(dest):
        n += 1
        dest = f"{base}-{n}.yaml"
    os.replace(src, dest)
    return dest


def _finished_autosave(app: App, scenario_path: str, path: str, outcome, saved, resume: bool, bot_game: bool):
    """The autosave holds a game that is over: keep it as a save, then open a new game
    (or, with ``resume``, that game as it ended)."""
    try:
        kept = keep_finished_autosave(path)
    except OSError as exc:
        kept = None
        print(f"speedheim: cannot keep the finished autosave: {exc}", file=sys.stderr)
    where = kept or path
    if resume:
        scene = open_play(app, saved, where)
        scene.note(
            f"the autosaved game is over ({_ended(outcome)}): opened as it ended, to look at "
            f"(undo steps back); it is kept in {where}"
        )
        return scene
    scene = open_play(app, new_game(scenario_path, bot_game=bot_game), scenario_path)
    if kept is not None:
        scene.autosave()
        scene.note(f"the last game was over ({_ended(outcome)}); it is kept in {kept} (Ctrl+O opens it)")
    return scene


def _autosave_info(path: str) -> str:
    try:
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(path)))
        return f" (saved {stamp})"
    except OSError:
        return ""


def play_cli(scenario_path: str, resume: bool = False, bots: tuple[int, ...] = (), bot_name: str | None = None) -> int:
    """``speedheim play``: open the table on a scenario; 0 on a normal quit, 2 on a bad file
    or a bad bot. ``bots``: the players a bot plays (a bot game), with ``bot_name``
    (default ``utility``), which also takes a seat handed over in the window; without
    ``bots``, ``bot_name`` is the bot the hint asks."""
    from game.engine.errors import LoadError
    from game.engine.scenario import load_scenario

    try:
        load_scenario(scenario_path, playable=True)  # bad files: FILE:LINE lines and exit 2 before a window opens
    except LoadError as exc:
        return exc.report()
    except OSError as exc:
        print(f"{scenario_path}:0: cannot read: {exc}", file=sys.stderr)
        return 2
    if bot_name:
        from game.ui.scenes.play.bot_play import bot_names_ok

        why = bot_names_ok(bot_name)
        if why is not None:
            print(f"speedheim play: --bot-name {bot_name}: {why}", file=sys.stderr)
            return 2
    app = App()
    scene = start(app, scenario_path, resume=resume, bot_game=bool(bots))
    if bot_name:
        scene.bot.chosen = bot_name  # the seats below, a seat handed over later, the hot-seat hint
    if getattr(scene, "resumed", False):
        return app.run_to_the_end()  # a resumed game keeps its own seats (its log line says them)
    for player in sorted(set(bots)):
        scene.bot.set_seat(player, scene.bot.chosen)
    if bots:
        scene.bot.announce()
    from game.ui.scenes.play.phase_hint import show_turn_card_once

    show_turn_card_once(app, scene)  # the very first game: how to play a turn
    return app.run_to_the_end()
