"""The play window's chrome: the phase banner with its End button, the tool bar, and the
sidebar (unit card, dice tray, log). The banner and sidebar are hand-drawn and cached;
the buttons are pygame_gui elements that send named commands to the scene."""

from __future__ import annotations

from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton

from game.ui import theme
from game.ui.keymap import PLAY
from game.ui.scenes import ask
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.phase_hint import HintBar, phase_hint
from game.ui.scenes.play.table import Table
from game.ui.scenes.play.words import build_log
from game.ui.widgets import panels
from game.ui.widgets.log_view import LogView


BANNER_H = 40
SIDEBAR_W = 350
END_W = 176  # the End button's part of the banner

#: Tool bar buttons: (caption, command); the tooltip shows the command's keys.
TOOLBAR = (
    ("Undo", "undo"),
    ("Redo", "redo"),
    ("Ruler", "ruler"),
    ("Sight", "sight"),
    ("Rings", "rings"),
    ("Reach", "reach"),
    ("Fit", "fit"),
    ("Roll", "roll"),
    ("Dice", "dice_mode"),
    ("Save", "save"),
    ("Load", "load"),
    ("Trails", "trails"),
    ("Report", "sim_report"),
    ("Help", "help"),
    ("P1: you", "bot_1"),
    ("P2: you", "bot_2"),
    ("Pause", "bot_pause"),
)

#: Captions the switches change to (update_captions), which must fit their buttons too.
SWITCHED_CAPTIONS = ("P1: bot", "P2: bot", "Resume")
BUTTON_PAD = 12  # a caption's room inside its button: borders and a margin each side


class Sidebar:
    def __init__(self, scene: Table, bot: BotPlayer):
        self.scene = scene
        self.bot = bot
        self.buttons: dict[Any, str] = {}
        self.end_button: UIButton | None = None
        self.log_view = LogView(pygame.Rect(0, 0, 10, 10))
        self.card = panels.UnitCard()
        self.banner = panels.Banner()
        self.hint_bar = HintBar()
        self.tray = panels.DiceTray()
        self.card_rect = self.tray_rect = pygame.Rect(0, 0, 10, 10)
        self._side: pygame.Surface | None = None  # cached sidebar picture and its key
        self._side_key: tuple | None = None

    # --- layout --------------------------------------------------------------------------
    def rect(self) -> pygame.Rect:
        w, h = self.scene.app.size
        return pygame.Rect(w - SIDEBAR_W, BANNER_H, SIDEBAR_W, h - BANNER_H)

    def build(self) -> None:
        """The pygame_gui buttons, and where the card, tray and log go."""
        scene = self.scene
        w, _ = scene.app.size
        self.buttons.clear()
        self.end_button = self._button(
            pygame.Rect(w - SIDEBAR_W - END_W + 6, 4, END_W - 16, BANNER_H - 8),
            "End phase (Space)",
            "end_step",
            object_id="#banner_end",
        )
        if scene.below is not None:
            self._button(
                pygame.Rect(w - SIDEBAR_W + 4, 4, SIDEBAR_W - 8, BANNER_H - 8),
                f"Back to the editor ({PLAY.label('back_to_editor')})",
                "back_to_editor",
            )
        sb = self.rect()
        cols, bw = self.toolbar_grid()
        for i, (caption, cmd) in enumerate(TOOLBAR):
            r, c = divmod(i, cols)
            self._button(
                pygame.Rect(sb.x + 4 + c * (bw + 3), sb.y + 4 + r * 30, bw, 27),
                caption,
                cmd,
                tool_tip_text=f"{caption} ({PLAY.label(cmd)})",
            )
        top = sb.y + 4 + -(-len(TOOLBAR) // cols) * 30 + 2
        self.card_rect = pygame.Rect(sb.x + 4, top + 2, SIDEBAR_W - 8, 232)
        self.tray_rect = pygame.Rect(sb.x + 4, self.card_rect.bottom + 4, SIDEBAR_W - 8, 74)
        self.log_view.set_rect(
            pygame.Rect(sb.x + 4, self.tray_rect.bottom + 4, SIDEBAR_W - 8, sb.bottom - self.tray_rect.bottom - 8)
        )

    def toolbar_grid(self) -> tuple[int, int]:
        """Columns and button width of the tool bar: as many columns as let every caption
        a button can show (its switched ones too: "Resume", "P1: bot") fit whole."""
        font = self.scene.app.ui.get_theme().get_font(["button"])
        widest = max(font.size(c)[0] for c in [c for c, _ in TOOLBAR] + list(SWITCHED_CAPTIONS))
        for cols in (6, 5, 4, 3):
            bw = (SIDEBAR_W - 8 - (cols - 1) * 3) // cols
            if widest + BUTTON_PAD <= bw:
                return cols, bw
        return cols, bw

    def _button(self, rect: pygame.Rect, caption: str, cmd: str, **kw) -> UIButton:
        b = UIButton(rect, caption, self.scene.app.ui, **kw)
        self.scene.elements.append(b)
        self.buttons[b] = cmd
        return b

    def command_of(self, event) -> str | None:
        if event.type == pygame_gui.UI_BUTTON_PRESSED:
            return self.buttons.get(event.ui_element)
        return None

    # --- drawing -------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        self.draw_banner(surface)
        self.draw_hint(surface)
        self.draw_side(surface)

    def draw_hint(self, surface: pygame.Surface) -> None:
        """The phase hint, in its own strip under the banner (phase_hint.py)."""
        rect = HintBar.rect(self.scene.app.size, BANNER_H, SIDEBAR_W)
        self.hint_bar.draw(surface, rect, self.hint_line())

    def hint_line(self) -> str:
        """The text of the phase hint now (:func:`phase_hint`)."""
        return phase_hint(self.scene.game, self.phase_note(), self.bot.in_charge())

    def draw_banner(self, surface: pygame.Surface) -> None:
        scene = self.scene
        st, game = scene.state, scene.game
        w = scene.scenario.warband_of_player(st.player)
        colour = scene.painter.warband_colour(w.id) if w else theme.INK
        name = (w.name or w.id) if w else ("Neutrals" if st.player == 0 else f"Player {st.player}")
        over = ask.outcome(game) is not None
        caption = {"end_step": "End step (Space)", "end_activation": "End activation (Space)"}.get(
            ask.end_kind(game), "End phase (Space)"
        )
        if self.end_button is not None:
            if self.end_button.text != caption:
                self.end_button.set_text(caption)
            if over and self.end_button.visible:  # nothing is left to end: the game is over
                self.end_button.hide()
            elif not over and not self.end_button.visible and scene.ui_visible:
                self.end_button.show()  # (not while another screen is on top: it hid the button)
        width = scene.app.size[0]
        # Once the game is over the banner may take the End button's place too.
        banner_w = width - SIDEBAR_W - (0 if over else END_W)
        self.banner.draw(
            surface,
            pygame.Rect(0, 0, banner_w, BANNER_H),
            st.turn,
            st.player,
            name,
            colour,
            st.phase,
            None if over else st.step,
            "",
            () if over else self.tags(),
            over=over,
        )  # once over, who won and how take the pills' room too
        self.update_captions()
        surface.fill(theme.CHROME, pygame.Rect(banner_w, 0, width - banner_w, BANNER_H))

    def tags(self) -> list[tuple[str, tuple[int, int, int]]]:
        """The banner's pills, right to left: the combat mode, then who the bot plays."""
        out = []
        order = ask.order_tag(self.scene.game)
        if order:  # O1, O2: whose activation, who went first, the roll-off
            out.append((order, (170, 230, 170)))
        if self.mode_tag():
            out.append((self.mode_tag(), (255, 200, 90)))
        bot = self.bot.status()
        if bot:
            out.append((bot, (150, 200, 255)))
        return out

    def update_captions(self) -> None:
        """The bot switches say who plays each side and whether the bot is paused."""
        bot = self.bot
        captions = {
            "bot_1": "P1: bot" if 1 in bot.seats else "P1: you",
            "bot_2": "P2: bot" if 2 in bot.seats else "P2: you",
            "bot_pause": "Resume" if bot.paused else "Pause",
        }
        for button, cmd in self.buttons.items():
            text = captions.get(cmd)
            if text is not None and button.text != text:
                button.set_text(text)

    def mode_tag(self) -> str:
        """The banner's label of the rules in force: "placeholder combat" when shoot and
        attack resolve by the placeholder rules (S1, S2, F1)."""
        return "placeholder combat" if ask.combat_mode(self.scene.game) == "placeholder" else ""

    def phase_note(self) -> str:
        game = self.scene.game
        outcome = ask.outcome(game)
        if self.bot.in_charge() and outcome is None:
            return "P pauses the bot, . speeds it up, S skips"
        if outcome is not None:
            try:
                winner = self.scene.scenario.warband(outcome.winner).name or outcome.winner if outcome.winner else None
            except KeyError:
                winner = outcome.winner
            head = f"{winner} wins ({outcome.reason})" if winner else f"a draw ({outcome.reason})"
            return f"{head}; Ctrl+Z takes the last action back"
        placeholder = ask.combat_mode(game) == "placeholder"
        kinds = ask.legal_kinds(game)
        if placeholder and "shoot" in kinds:
            return "select a shooter, right-click an enemy to Shoot (S1)"
        if placeholder and "attack" in kinds:
            return "select a unit, right-click an enemy to Attack (F1)"
        if "engage" in kinds:
            return "select a unit, hover an enemy for its engage path (E1), right-click to Engage"
        if ask.is_manual_phase(game):
            return "manual phase: right-click a unit"
        p = ask.pending(game)
        if ask.neutral_units(p):
            return "U1: move the Neutrals (" + ", ".join(ask.neutral_units(p)[:4]) + "), then End step"
        if p is not None:
            return "decision waiting (" + p.kind.replace("_", " ") + ")"
        if game.state.phase == "move":
            return "drag a unit to move it"
        return ""

    def draw_side(self, surface: pygame.Surface) -> None:
        scene = self.scene
        sb = self.rect()
        uid = scene.selected or scene.hover_unit
        dice_mode = scene.app.settings.get("dice")
        key = (scene.version, len(scene.notes), uid, dice_mode, self.log_view.scroll, tuple(sb))
        if key == self._side_key and self._side is not None:
            surface.blit(self._side, sb.topleft)
            return
        surface.fill(theme.PANEL_BG, sb)
        pygame.draw.line(surface, theme.PANEL_LINE, sb.topleft, sb.bottomleft, 2)
        info = scene.unit_info(uid) if uid and uid in scene.state.units else None
        self.card.draw(surface, self.card_rect, scene, uid, info)
        self.tray.draw(surface, self.tray_rect, scene.game.dice.log[-8:], dice_mode == "physical")
        self.log_view.set_entries(build_log(scene))
        self.log_view.draw(surface)
        self._side = surface.subsurface(sb).copy()
        self._side_key = key
