"""The phase hint and the first game's "how to play a turn" card (issue 45).

The hint is a strip of its own under the banner, across the table's width, so the
banner's pills (the bot, "placeholder combat") never take its room: what the phase
allows now and the key that ends it, in every mode and on every table and window size.
:func:`phase_hint` builds its text (from the engine's answers, through ``ask``);
:class:`HintBar` lays it out and draws it. :class:`TurnCard` is shown once, over the very
first game a user plays (:func:`show_turn_card_once`; remembered in the user data
directory's settings), and any key or click closes it.
"""

from __future__ import annotations


import pygame

from game.ui import userdata
from game.ui.keymap import PLAY
from game.ui.scenes import ask
from game.ui.scenes.base import DimmedScene
from game.ui.scenes.play.table import Table
from game.ui.widgets import text as T


#: The hint strip's height under the banner: one line at 14 px, or two at 12 px.
HINT_H = 30
HINT_BG = (56, 49, 41)
HINT_INK = (225, 235, 215)
KEY_INK = (255, 225, 140)

#: The settings key that remembers the turn card was shown (userdata.DEFAULT_SETTINGS).
CARD_SEEN = "turn_card_seen"

#: What a phase with no more particular hint allows (kinds the engine accepts, in order).
ALLOWS = (
    (("move", "run"), "drag a unit to move it (farther than its Move is a Run)"),
    (("engage",), "right-click an enemy to Engage"),
    (("shoot",), "select a shooter, right-click an enemy to Shoot"),
    (("attack",), "select a unit, right-click an enemy to Attack"),
    (("pick_up", "grab"), "right-click a unit to pick up treasure"),
)


def ending_key(game) -> str:
    """ "Space ends the phase" (or "the step"): the key and what it ends now."""
    what = "step" if ask.end_kind(game) == "end_step" else "phase"
    return f"{PLAY.label('end_step')} ends the {what}"


def phase_hint(game, note: str, bot_in_charge: bool) -> str:
    """The hint line: what this phase allows now, then the key that ends it; while a bot
    plays the side to act, the keys that steer it; once the game is over, who won.
    ``note``: the sidebar's note on the phase (:meth:`Sidebar.phase_note`), ``bot_in_charge``:
    a bot plays the side to act."""
    if ask.outcome(game) is not None:
        return note
    if bot_in_charge:
        return f"the bot plays this turn: {note}"
    if not note:
        kinds = ask.legal_kinds(game)
        ways = [how for group, how in ALLOWS if any(k in kinds for k in group)]
        note = "; ".join(ways) if ways else "nothing to do in this phase"
    elif ask.legal_kinds(game) & {"move", "run"} and note == "drag a unit to move it":
        note = ALLOWS[0][1]
    return f"{note}; {ending_key(game)}"


class HintBar:
    """The strip under the banner that shows :func:`phase_hint`, whole: one line at 14 px,
    else two at 12 px, else as many whole clauses as fit (the log has the rest)."""

    def __init__(self) -> None:
        #: The lines drawn (tests read them).
        self.shown: list[str] = []

    @staticmethod
    def rect(size: tuple[int, int], top: int, right_w: int) -> pygame.Rect:
        """Where the strip goes: below the banner (``top``), across the table's width."""
        return pygame.Rect(0, top, max(0, size[0] - right_w), HINT_H)

    def draw(self, surface: pygame.Surface, rect: pygame.Rect, text: str) -> None:
        surface.fill(HINT_BG, rect)
        self.shown = []
        if not text:
            return
        inner = rect.inflate(-24, 0)
        for size, most in ((14, 1), (12, 2)):
            lines = [line.strip() for line in T.wrap(text, inner.width, size)]
            lh = T.font(size).get_linesize() - (1 if most > 1 else 0)
            if len(lines) <= most and lh * len(lines) <= rect.height:
                top = rect.centery - lh * len(lines) // 2
                for i, line in enumerate(lines):
                    self._line(surface, line, size, (inner.x, top + i * lh))
                self.shown = lines
                return
        shown = ""
        for part in text.split(";"):
            trial = f"{shown};{part}" if shown else part
            if T.font(12).size(trial)[0] > inner.width:
                break
            shown = trial
        if shown:
            img = T.text(shown.strip(), 12, HINT_INK)
            surface.blit(img, (inner.x, rect.centery - img.get_height() // 2))
            self.shown = [shown.strip()]

    @staticmethod
    def _line(surface: pygame.Surface, line: str, size: int, at: tuple[int, int]) -> None:
        """One line; the part that names the ending key stands out."""
        head, sep, tail = line.rpartition("; ")
        if sep and " ends the " in tail:
            img = T.text(head + sep, size, HINT_INK)
            surface.blit(img, at)
            surface.blit(T.text(tail, size, KEY_INK, True), (at[0] + img.get_width(), at[1]))
        else:
            surface.blit(T.text(line, size, KEY_INK if " ends the " in line else HINT_INK), at)


def turn_card_lines(game) -> list[str]:
    """The card's text: a turn's phases (the ruleset's, in order) and how each is played."""
    phases = [str(p["name"]).replace("_", " ").capitalize() for p in game.scenario.ruleset.phases]
    end = PLAY.label("end_step")
    return [
        "Each game turn, player 1 plays a turn, then player 2.",
        "A turn runs its phases in order: " + ", ".join(phases) + ".",
        f"{end} (or the End phase button) ends a phase; the strip under the banner always says what the phase allows.",
        "Engage: select a unit, hover an enemy to see its path, right-click the enemy to Engage.",
        "Move: drag a unit; a drag farther than its Move is a Run. Difficult ground costs more.",
        "Shoot and Melee: select a unit, right-click an enemy.",
        f"{PLAY.label('undo')} takes an action back; {PLAY.label('help')} lists every key; "
        f"{PLAY.label('rules')} opens the rules.",
    ]


class TurnCard(DimmedScene):
    """The first game's "how to play a turn" card; any key or click closes it."""

    title = "How to play a turn"
    WIDTH = 640
    SIZE = 15

    def __init__(self, app, lines: list[str]):
        super().__init__(app)
        self.lines = lines

    def handle_event(self, event):
        if event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN):
            self.close()
            return None
        return event if event.type == pygame.QUIT else None

    def wrapped(self, width: int) -> list[str]:
        out: list[str] = []
        for line in self.lines:
            out += [s.strip() for s in T.wrap(line, width, self.SIZE)]
            out.append("")
        return out[:-1]

    def box(self, size: tuple[int, int]) -> tuple[pygame.Rect, list[str]]:
        w = min(self.WIDTH, size[0] - 40)
        lines = self.wrapped(w - 48)
        lh = T.font(self.SIZE).get_linesize()
        text_h = sum(lh if line else lh // 2 for line in lines)  # a blank line between paragraphs is half
        box = pygame.Rect(0, 0, w, 62 + text_h + 56)
        box.center = (size[0] // 2, size[1] // 2)
        return box, lines

    def draw(self, surface: pygame.Surface) -> None:
        self.dim(surface)
        box, lines = self.box(surface.get_size())
        pygame.draw.rect(surface, (250, 247, 240), box, border_radius=10)
        pygame.draw.rect(surface, (170, 160, 145), box, 2, border_radius=10)
        surface.blit(T.text("How to play a turn", 22, (40, 34, 28), True), (box.x + 24, box.y + 20))
        y = box.y + 62
        lh = T.font(self.SIZE).get_linesize()
        for line in lines:
            if line:
                surface.blit(T.text(line, self.SIZE, (40, 34, 28)), (box.x + 24, y))
            y += lh if line else lh // 2
        foot = T.text("Press any key to start", 14, (150, 60, 20), True)
        surface.blit(foot, foot.get_rect(midbottom=(box.centerx, box.bottom - 16)))


def show_turn_card_once(app, scene: Table) -> TurnCard | None:
    """Over the very first game a user plays, the turn card (remembered in the user data
    directory's settings, so it is shown once); None when it was shown before."""
    if app.settings.get(CARD_SEEN):
        return None
    app.settings[CARD_SEEN] = True
    userdata.save_settings(app.settings)
    card = TurnCard(app, turn_card_lines(scene.game))
    app.push(card)
    return card
