"""The play window's menus and dialogs: a unit's and a token's context menu, the dice
tray's roll, decisions the engine waits for (upkeep choices) and the reports of what
an action set off (revealed tokens, Rout checks). Every choice becomes one action the
scene applies; nothing here changes the game itself."""

from __future__ import annotations

from typing import Any

from game.ui.keymap import PLAY
from game.ui.scenes import ask
from game.ui.scenes.play.bot_play import BotPlayer
from game.ui.scenes.play.engage import EngageTool
from game.ui.scenes.play.table import Table
from game.ui.scenes.play.words import (
    ATTACK_WORDS,
    attack_item,
    attack_text,
    pending_choices,
    pending_text,
    token_menu_items,
    unit_menu_items,
)
from game.ui.widgets.dialogs import ChoiceDialog, ContextMenu, TextPrompt


#: The dice tray's buttons: (label, (sides, count)).
DICE = [("d6", (6, 1)), ("2d6", (6, 2)), ("d20", (20, 1)), ("d3", (3, 1))]


class PlayMenus:
    def __init__(self, scene: Table, engage_tool: EngageTool, bot: BotPlayer):
        self.scene = scene
        self.engage_tool = engage_tool
        self.bot = bot
        self.reports: list[ask.Report] = []  # dialogs waiting to be shown
        self._pending_shown: Any = None
        self._pending_dialog: Any = None  # the open dialog of a pending decision

    def reset(self) -> None:
        self.reports.clear()
        self._pending_shown = None
        self._pending_dialog = None

    # --- context menus --------------------------------------------------------------------
    def open_menu(self, uid: str, pos) -> None:
        scene = self.scene
        u = scene.state.units[uid]

        def chosen(value):
            if isinstance(value, tuple) and value[0] == "submenu":
                _, title, sub = value
                scene.app.open_dialog(ContextMenu(scene.app.ui, pos, title, sub, chosen))
            elif isinstance(value, tuple) and value[0] == "roll":
                self.roll_dialog(uid)
            elif isinstance(value, tuple) and value[0] == "descend":
                scene.command("jump_toggle")
            elif isinstance(value, dict):
                self.action_chosen(value)

        scene.app.open_dialog(ContextMenu(scene.app.ui, pos, f"{u.name} ({u.id})", unit_menu_items(scene, uid), chosen))

    def action_chosen(self, action: dict) -> None:
        """An action from a menu: an attack shows its odds first, an Engage its path; the
        rest are applied at once."""
        kind = next(iter(action))
        if kind in ask.ATTACK_KINDS:
            self.attack_chosen(ask.attack_choice(self.scene.game, action))
        elif kind == "engage":
            self.engage_tool.confirm(action[kind]["unit"], action[kind]["target"])
        else:
            self.scene.act(action)

    # --- attacks (S1, F1) ---------------------------------------------------------------------
    def target_items(self, uid: str, target: str) -> list[tuple[str, Any]]:
        """What the selected unit ``uid`` may try on the enemy ``target`` now: Shoot and
        Attack with their odds (or the engine's refusal), Engage; [] when the phase takes none."""
        scene = self.scene
        items = [attack_item(scene, c) for c in ask.attack_choices(scene.game, uid, target)]
        if "engage" in ask.legal_kinds(scene.game):
            items.append(("Engage (E1)", {"engage": {"unit": uid, "target": target}}))
        return items

    def open_target_menu(self, uid: str, target: str, pos) -> bool:
        """Right-click on an enemy with a unit selected: Shoot / Attack / Engage it, and the
        enemy's own menu. False when the phase offers no attack (the caller opens the
        enemy's menu instead)."""
        scene = self.scene
        items = self.target_items(uid, target)
        if not items:
            return False
        st = scene.state
        u, t = st.units[uid], st.units[target]
        items.append((f"{t.name}'s own menu (status, checks...)", ("unit_menu", target)))

        def chosen(value):
            if isinstance(value, tuple) and value[0] in ("odds", "refused"):
                self.attack_chosen(value[1])
            elif isinstance(value, tuple) and value[0] == "unit_menu":
                scene.selected = target
                self.open_menu(target, pos)
            elif isinstance(value, dict):
                self.action_chosen(value)

        scene.app.open_dialog(
            ContextMenu(scene.app.ui, pos, f"{u.name} ({uid}) on {t.name} ({target})", items, chosen, width=430)
        )
        return True

    def attack_chosen(self, choice: ask.AttackChoice) -> None:
        """The odds before the roll, then the roll on confirming; a refusal is shown with its rule."""
        scene = self.scene
        if choice.refusal is not None:
            scene.refuse(choice.refusal, choice.action)
            return
        title, message = attack_text(scene, choice)
        word = ATTACK_WORDS.get(choice.kind, (choice.kind,))[0]
        scene.app.open_dialog(
            ChoiceDialog(
                scene.app.ui,
                title,
                message,
                [(f"{word} (roll)", "go"), ("Cancel", None)],
                lambda v: v == "go" and scene.act(choice.action),
                width=520,
                cancel=None,
            )
        )

    def open_token_menu(self, tid: str, pos) -> None:
        scene = self.scene
        scene.app.open_dialog(
            ContextMenu(
                scene.app.ui,
                pos,
                f"token {tid}",
                token_menu_items(scene, tid),
                lambda v: isinstance(v, dict) and scene.act(v),
            )
        )

    def roll_dialog(self, uid: str | None = None) -> None:
        scene = self.scene

        def done(value):
            if value is None:
                return
            reason, (sides, count) = value
            body: dict[str, Any] = {"sides": sides, "count": count, "reason": reason.strip() or "dice tray"}
            if uid:
                body["unit"] = uid
            scene.act({"roll": body})

        who = f" for {uid}" if uid else ""
        scene.app.open_dialog(
            TextPrompt(scene.app.ui, "Roll dice" + who, "Why are you rolling? (goes into the log)", "", done, DICE)
        )

    def confirm_back(self) -> None:
        """Esc with nothing left to cancel, when the game was opened from the editor."""
        scene = self.scene
        scene.app.open_dialog(
            ChoiceDialog(
                scene.app.ui,
                "Leave the game?",
                "Go back to the map editor? (The game is autosaved.)",
                [("Back to the editor", True), ("Keep playing", False)],
                lambda v: v and scene.back(),
            )
        )

    # --- decisions and reports ---------------------------------------------------------------
    def queue_reports(self, result: Any, quiet: bool = False) -> None:
        """Dialogs for what an action set off; ``quiet`` (a bot's action): a note on the
        table instead, so a bot's turn is never held up (the log has every line)."""
        reports = ask.reports(self.scene.game, result)
        if quiet:
            for r in reports:
                self.scene.note(f"{r.title}: {r.lines[0] if r.lines else ''}", "event", log=False)
            return
        self.reports += reports

    def pick_token(self, pos) -> bool:
        """While a pick-up is pending, clicking a token in contact picks it up."""
        scene = self.scene
        d = ask.pending(scene.game)
        tok = scene.token_at(*pos) if d is not None else None
        if tok is None:
            return False
        for _label, action in pending_choices(scene, d):
            if next(iter(action.values())).get("token") == tok:
                scene.act(action)
                return True
        return False

    def update(self) -> None:
        """Show the next report, else the pending decision's dialog (once per state)."""
        scene = self.scene
        app = scene.app
        d = ask.pending(scene.game)
        if self._pending_dialog is not None and (d is None or self.bot.controls(d.player)):
            self._pending_dialog.close(None)  # a bot answers it now (the side was handed over)
            self._pending_dialog = None
        if app.modal is not None or app.top is not scene:
            return
        if self.reports:
            r = self.reports.pop(0)
            app.message(r.title, "\n".join(r.lines))
            return
        if d is None or self.bot.controls(d.player):  # a bot answers its own side's decisions
            self._pending_shown = None
            return
        key = (scene.version, d)
        if self._pending_shown == key:
            return
        self._pending_shown = key
        choices = pending_choices(scene, d)
        if not choices:
            return
        title, message = pending_text(scene, d)

        def chosen(action):
            self._pending_dialog = None
            if action == "__undo__":
                scene.command("undo")
            elif action is not None:
                scene.act(action)

        if scene.game.can_undo:
            choices = choices + [(f"Undo the last action ({PLAY.label('undo')})", "__undo__")]
        message += "\n(Esc or closing this box leaves the decision open: the End step button declines it.)"
        self._pending_dialog = app.open_dialog(ChoiceDialog(app.ui, title, message, choices, chosen, closable=True))
