"""The play window's named commands (keys, tool bar buttons) and the small switches they
flip: ruler, line of sight, the hint, rings, dice, hand-over, climbing or jumping down ledges,
zoom, the next unit. Each command is one entry of :attr:`PlayControls.table`; the
scene looks a command up there and calls it. Nothing here changes the game except
through the scene's actions (End, undo, redo)."""

from __future__ import annotations

from typing import Any, Callable

from game.ui import userdata
from game.ui.keymap import PLAY
from game.ui.scenes.overlays import HelpScene
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.drag import DragTool
from game.ui.scenes.play.files import GameFiles
from game.ui.scenes.play.hints import HintTool
from game.ui.scenes.play.menus import PlayMenus
from game.ui.scenes.play.rule_tips import RuleTips
from game.ui.scenes.play.ruler import RulerTool
from game.ui.scenes.play.sight_tool import SightTool
from game.ui.scenes.play.table import Table


class PlayControls:
    def __init__(
        self,
        scene: Table,
        bot: BotPlayer,
        files: GameFiles,
        menus: PlayMenus,
        rule_tips: RuleTips,
        ruler_tool: RulerTool,
        sight_tool: SightTool,
        hint_tool: HintTool,
        drag_tool: DragTool,
    ):
        self.scene = scene
        self.bot = bot
        self.files = files
        self.menus = menus
        self.rule_tips = rule_tips
        self.ruler_tool = ruler_tool
        self.sight_tool = sight_tool
        self.hint_tool = hint_tool
        self.drag_tool = drag_tool
        self.table: dict[str, Callable[[], Any]] = self._table()

    def _table(self) -> dict[str, Callable[[], Any]]:
        """Every named command of the keymap and the buttons, and what it does."""
        s = self.scene
        app = s.app
        table: dict[str, Callable[[], Any]] = {
            "end_step": s.end_step,
            "undo": s.undo,
            "redo": s.redo,
            "cancel": s.cancel,
            "ruler": self.toggle_ruler,
            "sight": self.toggle_sight,
            "fit": lambda: s.fit(),
            "hint": self.toggle_hint,
            "hint_brief": self.toggle_hint_brief,
            "next_unit": self.select_next,
            "jump_toggle": lambda: self.set_descend("jump" if s.descend == "climb" else "climb"),
            "roll": lambda: self.menus.roll_dialog(s.selected),
            "dice_mode": self.toggle_dice,
            "handover": self.toggle_handover,
            "menu": self.open_selected_menu,
            "save": self.files.save_dialog,
            "load": self.files.load_dialog,
            "sim_report": self.files.open_report,
            "quit": app.quit,
            "back_to_editor": s.back,
            "help": lambda: app.push(HelpScene(app, PLAY, "Speedheim Table")),
            "rules": self.open_rules,
            "zoom_in": lambda: self.zoom(1.25),
            "zoom_out": lambda: self.zoom(0.8),
            "bot_1": lambda: self.bot.toggle(1),
            "bot_2": lambda: self.bot.toggle(2),
            "bot_pause": self.bot.pause,
            "bot_faster": self.bot.faster,
            "bot_skip": self.bot.skip,
        }
        for name in ("rings", "reach", "trails"):
            table[name] = lambda name=name: self.toggle_setting(name)
        for name, (dx, dy) in {"pan_left": (1, 0), "pan_right": (-1, 0), "pan_up": (0, 1), "pan_down": (0, -1)}.items():
            table[name] = lambda dx=dx, dy=dy: s.camera.pan(dx * s.view_rect.width * 0.1, dy * s.view_rect.height * 0.1)
        return table

    def open_rules(self) -> None:
        """K: the rules browser, on the rule whose tip is shown (if any)."""
        from game.ui.scenes.rules import RulesScene

        s = self.scene
        rule = self.rule_tips.rule_shown()
        self.rule_tips.close()
        s.app.push(RulesScene(s.app, rule))

    def toggle_ruler(self) -> None:
        on = self.ruler_tool.toggle()
        self.scene.note(
            "ruler on: drag to measure, with the line of sight between its ends (snaps to units and "
            "tokens); R or Esc to stop"
            if on
            else "ruler off",
            log=False,
        )

    def toggle_sight(self) -> None:
        on = self.sight_tool.toggle()
        if on and self.scene.selected is None:
            self.scene.note("line of sight on: select a unit to shade what it cannot see; L to stop", log=False)
        else:
            self.scene.note(
                "line of sight on: shaded ground is out of sight; hover an enemy for its sight lines"
                if on
                else "line of sight off",
                log=False,
            )

    def toggle_hint(self) -> None:
        on = self.hint_tool.toggle()
        self.scene.note(
            f"hint on: the {self.hint_tool.bot_name()} bot's three best next actions for the side "
            "to act, as numbered arrows; I to hide"
            if on
            else "hint off",
            log=False,
        )

    def toggle_hint_brief(self) -> None:
        short = self.hint_tool.toggle_brief()
        self.scene.note(
            "hint: one short line an option; Shift+I for the reasons, I to hide"
            if short
            else "hint: the options with their reasons; Shift+I for short lines",
            log=False,
        )

    def toggle_setting(self, name: str) -> None:
        settings = self.scene.app.settings
        settings[name] = not settings.get(name)
        userdata.save_settings(settings)

    def toggle_dice(self) -> None:
        s = self.scene
        mode = "auto" if s.app.settings.get("dice") == "physical" else "physical"
        s.app.settings["dice"] = mode
        userdata.save_settings(s.app.settings)
        s.apply_dice_mode()
        s.note(
            "dice: I roll physical dice (you will be asked for each result)"
            if mode == "physical"
            else "dice: roll for me",
            log=False,
        )

    def toggle_handover(self) -> None:
        settings = self.scene.app.settings
        on = not settings.get("handover", True)
        settings["handover"] = on
        userdata.save_settings(settings)
        self.scene.note(
            "hand-over screen between players: on (hot-seat)" if on else "hand-over screen: off (solo)", log=False
        )

    def set_descend(self, descend: str) -> None:
        s = self.scene
        s.descend = descend
        self.drag_tool.set_descend(descend)
        s.note(f"drags go down ledges by {'jumping (M9)' if descend == 'jump' else 'climbing (M6)'}", log=False)

    def zoom(self, factor: float) -> None:
        s = self.scene
        v = s.view_rect
        s.camera.zoom_about(v.centerx, v.centery, factor)

    def open_selected_menu(self) -> None:
        s = self.scene
        if s.selected:
            u = s.state.units[s.selected]
            self.menus.open_menu(s.selected, tuple(map(int, s.camera.to_px(u.x, u.y))))

    def select_next(self) -> None:
        s = self.scene
        w = s.scenario.warband_of_player(s.state.player)
        ids = [u.id for u in s.state.units_of(w.id) if u.active] if w else []
        if ids:
            i = ids.index(s.selected) + 1 if s.selected in ids else 0
            s.selected = ids[i % len(ids)]
