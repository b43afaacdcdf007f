"""The one window shell: the window loop, its scene stack, and ``speedheim play`` (play_cli).

:class:`App` owns the pygame window, the pygame_gui manager, the scene stack and the
open dialogs. The play table and the map editor are scenes of the same App (the
editor's Ctrl+P pushes a play scene on top of the editor; leaving play pops it). The
window is a client of the engine: scenes change the game only through
``game.apply(action)``. Every handler runs under a guard that writes an unexpected
exception to the crash log in the user data directory, shows it in a dialog and lets
the game go on.
"""

from __future__ import annotations

import os
import random
import sys
import time
from typing import Any, Callable

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")  # the table makes no sound

import pygame  # noqa: E402
import pygame_gui  # noqa: E402

from game.ui import display, theme, userdata  # noqa: E402
from game.ui.scenes.base import Scene  # noqa: E402
from game.ui.widgets.dialogs import ChoiceDialog, Dialog, MessageDialog, NumberPrompt  # noqa: E402

DEFAULT_SIZE = (1280, 800)
MIN_SIZE = (800, 560)
FPS = 60

def _init_display() -> None:
    """Start SDL's video; raise NoDisplay when it found no display and fell back to a
    driver that shows nothing (offscreen) without being asked for it (game/ui/display.py).
    SDL's own warnings while it looked are dropped then, and passed on otherwise."""
    on_purpose = bool(os.environ.get("SDL_VIDEODRIVER"))
    with display.held_stderr(not on_purpose) as said:
        try:
            pygame.display.init()
        except pygame.error:
            if on_purpose:
                raise
            said.append("")   # nothing to show SDL's words about
    failed = not pygame.display.get_init()
    if failed or display.fell_back(pygame.display.get_driver()):
        if not on_purpose:
            pygame.quit()
            raise display.NoDisplay()
    if said and said[0]:
        sys.stderr.write(said[0])


def _is_ui_event(event: pygame.event.Event) -> bool:
    return hasattr(event, "ui_element") or hasattr(event, "ui_object_id")


class App:
    """The window, its scene stack and dialogs."""

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, flags: int | None = None, title: str = "Speedheim Table"):
        t0 = time.perf_counter()
        _init_display()
        pygame.font.init()
        pygame.display.set_caption(title)
        if flags is None:
            flags = pygame.RESIZABLE
        self.screen = pygame.display.set_mode(size, flags)
        self.size: tuple[int, int] = self.screen.get_size()
        self.ui = pygame_gui.UIManager(self.size, theme.UI_THEME)
        self.scenes: list[Scene] = []
        self.dialogs: list[Dialog] = []
        self.settings = userdata.load_settings()
        self.running = True
        self.clock = pygame.time.Clock()
        self.errors: list[str] = []  # messages of caught exceptions (tests read them)
        self._seen_errors: set[tuple] = set()
        #: Tests set this to answer physical-dice prompts: f(low, high, reason) -> int.
        self.number_source: Callable[[int, int, str], int] | None = None
        self.started = t0
        self.frames = 0
        self._pumps = 0
        self._pumping = False
        self._opened_in = -1

    # --- scene stack ---------------------------------------------------------------------
    @property
    def top(self) -> Scene | None:
        return self.scenes[-1] if self.scenes else None

    def push(self, scene: Scene) -> Scene:
        self.scenes.append(scene)
        self.guard(scene.enter, "entering a screen")
        self._caption()
        return scene

    def pop(self, scene: Scene | None = None) -> None:
        scene = scene or self.top
        if scene in self.scenes:
            self.scenes.remove(scene)
            self.guard(scene.leave, "leaving a screen")
            self._caption()

    def pop_to(self, scene: Scene) -> None:
        """Close every scene above ``scene`` and every dialog: ``scene`` is on top again."""
        self.close_dialogs()
        while self.scenes and self.top is not scene:
            self.pop(self.top)

    def close(self) -> None:
        """Leave every scene (top first), so their worker threads finish before the
        interpreter does: a thread still inside the engine at exit crashes it."""
        self.close_dialogs()
        while self.scenes:
            self.pop(self.top)

    def _caption(self) -> None:
        for s in reversed(self.scenes):
            if s.title:
                pygame.display.set_caption(s.title)
                return

    def find(self, kind: type) -> Any:
        for s in reversed(self.scenes):
            if isinstance(s, kind):
                return s
        return None

    # --- dialogs -------------------------------------------------------------------------
    def open_dialog(self, dialog: Dialog) -> Dialog:
        self.dialogs.append(dialog)
        # The key that opened a dialog also sends its text (D -> "d"): not for the new entry.
        self._opened_in = self._pumps if self._pumping else -1
        return dialog

    def close_dialogs(self) -> None:
        for d in list(self.dialogs):
            d.close(None)
        self.dialogs.clear()

    def _prune(self) -> None:
        self.dialogs = [d for d in self.dialogs if not d.done]

    @property
    def modal(self) -> Dialog | None:
        self._prune()
        for d in reversed(self.dialogs):
            if d.modal:
                return d
        return None

    def message(self, title: str, text: str) -> Dialog:
        return self.open_dialog(MessageDialog(self.ui, title, text))

    def ask_number(self, title: str, message: str, low: int, high: int) -> int:
        """Block until the player types a whole number (physical dice)."""
        if self.number_source is not None:
            return int(self.number_source(low, high, message))
        box: list[int | None] = []
        dlg = NumberPrompt(self.ui, title, message, low, high, box.append)
        self.open_dialog(dlg)
        while not dlg.done:
            self._pumps += 1
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    self.running = False
                    dlg.close(random.randint(low, high))
                    break
                self.dispatch(event)
            self.frame(self.clock.tick(FPS) / 1000.0)
        value = box[0] if box and box[0] is not None else random.randint(low, high)
        return int(value)

    # --- errors --------------------------------------------------------------------------
    def guard(self, fn: Callable, where: str, *args, **kwargs) -> Any:
        try:
            return fn(*args, **kwargs)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the game goes on
            self.report_error(exc, where)
            return None

    def report_error(self, exc: BaseException, where: str) -> None:
        """Log the traceback to the crash log and show it once; the game goes on."""
        text = f"{type(exc).__name__}: {exc}"
        key = (type(exc).__name__, str(exc), where)
        if key in self._seen_errors:  # e.g. the same error every frame: logged and shown once
            return
        self._seen_errors.add(key)
        self.errors.append(text)
        path = userdata.log_exception(exc, where)
        print(f"speedheim: unexpected error {where}: {text} (details in {path})", file=sys.stderr)
        if self.top is not None:
            try:
                self.top.on_error(text)
            except Exception:  # noqa: BLE001 - the error is reported already
                pass
        try:
            self.open_dialog(MessageDialog(self.ui, "Something went wrong",
                                           f"{text}\n(while {where})\n\nThe game goes on. "
                                           f"The details are in {path}"))
        except Exception:  # noqa: BLE001
            pass

    # --- events --------------------------------------------------------------------------
    def resize(self, size: tuple[int, int]) -> None:
        w, h = max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1])
        if (w, h) == self.size:
            return
        if (w, h) != tuple(size):
            self.screen = pygame.display.set_mode((w, h), pygame.RESIZABLE)
        else:
            self.screen = pygame.display.get_surface()
        self.size = (w, h)
        self.ui.set_window_resolution(self.size)
        for s in self.scenes:
            self.guard(s.resize, "resizing", self.size)

    def dispatch(self, event: pygame.event.Event) -> None:
        self.guard(self._dispatch, "handling input", event)

    def quit(self) -> None:
        """Close the window, unless a scene objects (e.g. unsaved map changes)."""
        if all(self.guard(s.may_close, "closing") is not False for s in reversed(self.scenes)):
            self.running = False

    def _dispatch(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.quit()
            return
        if event.type == pygame.VIDEORESIZE:
            self.resize((event.w, event.h))
            return
        if event.type == pygame.WINDOWSIZECHANGED:
            self.resize((event.x, event.y))
            return
        if _is_ui_event(event):
            self._route_ui(event)
            return
        if event.type == pygame.TEXTINPUT and self._opened_in == self._pumps:
            return
        used = self.ui.process_events(event)
        self._prune()
        if self.dialogs and event.type == pygame.KEYDOWN:
            if self.dialogs[-1].handle_key(event):
                self._prune()
                return
        modal = self.modal
        if modal is not None and event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION,
                                                pygame.KEYDOWN, pygame.MOUSEWHEEL, pygame.TEXTINPUT):
            return
        # A click outside an open context menu closes it (and does nothing else).
        menus = [d for d in self.dialogs if not d.modal]
        if menus and event.type == pygame.MOUSEBUTTONDOWN and not used:
            for d in menus:
                if not d.contains(event.pos):
                    d.close(None)
            self._prune()
            return
        if used:
            return
        for scene in reversed(list(self.scenes)):
            result = scene.handle_event(event)
            if result is None or scene.blocking:
                break
            event = result

    def _route_ui(self, event: pygame.event.Event) -> None:
        for d in reversed(list(self.dialogs)):
            if d.handle_ui_event(event):
                self._prune()
                return
        for scene in reversed(list(self.scenes)):
            if scene.handle_ui_event(event):
                return

    # --- frames --------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        top = self.top
        for scene in list(self.scenes):
            scene.set_ui_visible(scene is top)
            self.guard(scene.update, "updating the screen", dt)
        self.ui.update(dt)

    def draw(self) -> None:
        start = 0
        for i, s in enumerate(self.scenes):
            if s.opaque:
                start = i
        if not self.scenes:
            self.screen.fill(theme.CHROME_BG)
        for s in self.scenes[start:]:
            self.guard(s.draw, "drawing", self.screen)
        self.ui.draw_ui(self.screen)

    def frame(self, dt: float, flip: bool = True) -> None:
        self.update(dt)
        self.draw()
        self.frames += 1
        if flip:
            pygame.display.flip()

    def pump(self) -> None:
        self._pumps += 1
        self._pumping = True
        try:
            for event in pygame.event.get():
                self.dispatch(event)
        finally:
            self._pumping = False

    def run(self) -> None:
        while self.running and (self.scenes or self.dialogs):
            dt = self.clock.tick(FPS) / 1000.0
            self.pump()
            if not self.running:
                break
            self.frame(dt)

    def run_to_the_end(self) -> int:
        """Run until the window closes, then close everything in order (scenes and their
        threads, the last autosave, pygame); the exit code of ``play`` and ``edit``."""
        try:
            self.run()
        finally:
            self.close()
            userdata.flush_autosave()
            pygame.quit()
        return 0


# --- starting a game ---------------------------------------------------------------------
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
    app.open_dialog(ChoiceDialog(app.ui, "Resume?", f"An autosaved game in progress on this map was found{what}"
                                 f"{_autosave_info(path)}.\n"
                                 f"Resume it, or start {os.path.basename(scenario_path)} afresh?",
                                 [("Resume the autosave", "resume"), ("New game", "new")], choose,
                                 closable=False, cancel="new", width=560))
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

    if not any(kind == UPGRADE_NOTE for _, _, kind in saved.notes) or "autosave-older-" in " ".join(t for _, t, _ in saved.notes):
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
        print(f"speedheim: cannot resume the autosave {path}: {why}; it cannot be moved aside ({err}), "
              f"so this game is not autosaved", file=sys.stderr)
        scene = open_play(app, new_game(scenario_path, bot_game=bot_game), scenario_path)
        app.message("Autosave unreadable", f"The autosave {path} could not be read:\n{why}\n"
                    f"It could not be moved aside ({err}), so this game is not autosaved.")
        return scene
    said = f"cannot resume the autosave ({why.splitlines()[0]}); it is kept as {kept}"
    print(f"speedheim: {said}", file=sys.stderr)
    userdata.log_message(said)
    scene = _fresh(app, scenario_path, bot_game)
    scene.note(said, "refusal")
    app.message("Autosave unreadable", f"The autosave could not be read:\n{why}\n\nNothing of it is lost: "
                f"it is kept, as it was, in\n{kept}\nA new game starts.")
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
        scene.note(f"the autosaved game is over ({_ended(outcome)}): opened as it ended, to look at "
                   f"(undo steps back); it is kept in {where}")
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
        scene.bot.chosen = bot_name     # the seats below, a seat handed over later, the hot-seat hint
    if getattr(scene, "resumed", False):
        return app.run_to_the_end()     # a resumed game keeps its own seats (its log line says them)
    for player in sorted(set(bots)):
        scene.bot.set_seat(player, scene.bot.chosen)
    if bots:
        scene.bot.announce()
    from game.ui.scenes.play.phase_hint import show_turn_card_once

    show_turn_card_once(app, scene)   # the very first game: how to play a turn
    return app.run_to_the_end()
