"""Raw keys mapped to named commands, in one place, for every screen.

Scenes never test ``event.key`` directly: they ask their :class:`Keymap` what a key
event means (``PLAY.command_for(event)``). Each screen has its own table (:data:`PLAY`,
:data:`EDITOR`, :data:`DIALOG`), all read by the same code. The F1 help is built from
the table, one line per command, so it lists every binding and cannot drift from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

CTRL = pygame.KMOD_CTRL
SHIFT = pygame.KMOD_SHIFT

#: Key names as a player reads them (pygame's own name otherwise).
_NAMES = {
    pygame.K_RETURN: "Enter",
    pygame.K_KP_ENTER: "Keypad Enter",
    pygame.K_ESCAPE: "Esc",
    pygame.K_DELETE: "Del",
    pygame.K_KP_PLUS: "Keypad +",
    pygame.K_KP_MINUS: "Keypad -",
}


@dataclass(frozen=True)
class Binding:
    command: str
    key: int
    mods: int = 0  # CTRL / SHIFT, or 0 for "no modifier needed"
    help: str = ""

    @property
    def label(self) -> str:
        parts = []
        if self.mods & CTRL:
            parts.append("Ctrl")
        if self.mods & SHIFT:
            parts.append("Shift")
        name = _NAMES.get(self.key) or pygame.key.name(self.key)
        parts.append(name.upper() if len(name) == 1 else name[:1].upper() + name[1:])
        return "+".join(parts)


def _mods(mod: int) -> int:
    return (CTRL if mod & CTRL else 0) | (SHIFT if mod & SHIFT else 0)


@dataclass(frozen=True)
class Keymap:
    """One screen's keys. The first binding of a command carries its help text."""

    name: str
    keys: tuple[Binding, ...]
    #: Mouse gestures (not remappable; listed in the help).
    mouse: tuple[tuple[str, str], ...] = ()

    def command_for(self, event: pygame.event.Event) -> str | None:
        """The command of a KEYDOWN event, or None. Modifiers must match exactly,
        except that Shift alone never matters for a key bound without it."""
        if event.type != pygame.KEYDOWN:
            return None
        mods = _mods(getattr(event, "mod", 0))
        for b in self.keys:
            if b.key == event.key and b.mods == mods:
                return b.command
        if mods & SHIFT:
            for b in self.keys:
                if b.key == event.key and b.mods == mods & ~SHIFT:
                    return b.command
        return None

    def bindings(self, command: str) -> list[Binding]:
        return [b for b in self.keys if b.command == command]

    def label(self, command: str) -> str:
        """The keys of a command as shown in the help and on buttons: ``Ctrl+Y / Ctrl+Shift+Z``."""
        return " / ".join(b.label for b in self.bindings(command))

    def key_event(self, command: str) -> pygame.event.Event:
        """A KEYDOWN event that means ``command`` (tests and benchmarks use it)."""
        for b in self.bindings(command):
            mod = (pygame.KMOD_LCTRL if b.mods & CTRL else 0) | (pygame.KMOD_LSHIFT if b.mods & SHIFT else 0)
            return pygame.event.Event(pygame.KEYDOWN, key=b.key, mod=mod, unicode="", scancode=0)
        raise KeyError(command)

    def commands(self) -> list[str]:
        """Every command once, in the order of the table."""
        return list(dict.fromkeys(b.command for b in self.keys))

    def help_rows(self) -> list[tuple[str, str]]:
        """One line per command (its keys, what it does), then the mouse gestures."""
        rows = [(self.label(c), self.bindings(c)[0].help) for c in self.commands()]
        return rows + list(self.mouse)


#: The table window.
PLAY = Keymap(
    "play",
    (
        Binding("end_step", pygame.K_SPACE, 0, "End step / End activation / End phase (the banner button)"),
        Binding("undo", pygame.K_z, CTRL, "Undo the last action"),
        Binding("redo", pygame.K_y, CTRL, "Redo"),
        Binding("redo", pygame.K_z, CTRL | SHIFT),
        Binding("save", pygame.K_s, CTRL, "Save the game"),
        Binding("load", pygame.K_o, CTRL, "Load a saved game"),
        Binding(
            "sim_report", pygame.K_r, CTRL, "Open the newest simulation report (sim-out*/report.html) in the browser"
        ),
        Binding("cancel", pygame.K_ESCAPE, 0, "Cancel a drag / dismiss the ruler / deselect / close a dialog"),
        Binding("ruler", pygame.K_r, 0, "Ruler tool on/off (drag to measure, snaps to units and tokens)"),
        Binding(
            "sight", pygame.K_l, 0, "Line of sight of the selected unit on/off: shade the ground it cannot see (L1)"
        ),
        Binding("rings", pygame.K_g, 0, 'Toggle the 2"/5"/8" rings round the selected unit'),
        Binding("reach", pygame.K_a, 0, "Toggle the reachable area (walk / run / check only)"),
        Binding("trails", pygame.K_t, 0, "Toggle the trails of paths moved this turn"),
        Binding(
            "hint",
            pygame.K_i,
            0,
            "Hint on/off: the side to act's three best next actions (the bot's advice, "
            "as speedheim advise) as numbered arrows with their reasons",
        ),
        Binding(
            "hint_brief",
            pygame.K_i,
            SHIFT,
            "Hint: one short line an option (no reasons: the table shows more) / the reasons again",
        ),
        Binding("fit", pygame.K_f, 0, "Fit the table to the window"),
        Binding("zoom_in", pygame.K_EQUALS, 0, "Zoom in (about the window centre)"),
        Binding("zoom_in", pygame.K_KP_PLUS, 0),
        Binding("zoom_out", pygame.K_MINUS, 0, "Zoom out"),
        Binding("zoom_out", pygame.K_KP_MINUS, 0),
        Binding("pan_left", pygame.K_LEFT, 0, "Pan left"),
        Binding("pan_right", pygame.K_RIGHT, 0, "Pan right"),
        Binding("pan_up", pygame.K_UP, 0, "Pan up"),
        Binding("pan_down", pygame.K_DOWN, 0, "Pan down"),
        Binding("next_unit", pygame.K_TAB, 0, "Select the next unit of the player to act"),
        Binding(
            "jump_toggle", pygame.K_j, 0, "Jump down ledges instead of climbing (M9) / back (this drag and the next)"
        ),
        Binding("roll", pygame.K_d, 0, "Dice tray: roll dice for a stated reason"),
        Binding("dice_mode", pygame.K_p, CTRL, "Switch dice: roll for me / I roll physical dice"),
        Binding("handover", pygame.K_h, 0, "Hand-over screen between players on/off (off for solo playtests)"),
        Binding("menu", pygame.K_m, 0, "Context menu of the selected unit (engage, status, ...)"),
        Binding("back_to_editor", pygame.K_e, CTRL, "Back to the map editor (when the game was started from it)"),
        Binding("bot_1", pygame.K_1, CTRL, "Player 1: hand it to the bot / take it back"),
        Binding("bot_2", pygame.K_2, CTRL, "Player 2: hand it to the bot / take it back"),
        Binding("bot_pause", pygame.K_p, 0, "Pause / resume the bot (paused, you may act for its side)"),
        Binding("bot_faster", pygame.K_PERIOD, 0, "Bot speed: 1x / 2x / 4x / 8x"),
        Binding("bot_skip", pygame.K_s, 0, "Skip the bot's move animation"),
        Binding("help", pygame.K_F1, 0, "This help"),
        Binding("rules", pygame.K_k, 0, "The rules: every rule id the table cites, with its text (docs/rules.md)"),
        Binding("quit", pygame.K_q, CTRL, "Quit (the game is autosaved)"),
    ),
    mouse=(
        ("Left click", "Select a unit; click a token to pick it up when a dialog asks"),
        ("Left drag a unit", "Move it: live path, band colours, inches used / allowance"),
        ("Click during a drag", "Add a waypoint (the path goes through it)"),
        ("Release", "Apply the move (Run when the path needs more than Move)"),
        ("Right click a unit", "Context menu: engage, status, incapacitate, reload, pick up, check, roll"),
        ("Right / middle drag", "Pan the table"),
        ("Wheel", "Zoom about the cursor"),
        ("Hover a token", 'Its 2" denial ring and 5" grab ring'),
        ("Hover an enemy (L on)", "Visible, in cover or hidden, with the clear sight lines (L1, L2)"),
        ("Right click an enemy", "With your unit selected: Shoot or Attack it, with the odds before the roll"),
        ("Hover / click a rule id", "In the log or a refusal: that rule's text (a click keeps it open; Esc closes)"),
    ),
)

#: The map editor.
EDITOR = Keymap(
    "editor",
    (
        Binding("undo", pygame.K_z, CTRL, "Undo"),
        Binding("redo", pygame.K_y, CTRL, "Redo"),
        Binding("redo", pygame.K_z, CTRL | SHIFT),
        Binding(
            "save", pygame.K_s, CTRL, "Save (allowed with problems, with a warning); a new map asks its name first"
        ),
        Binding("save_as", pygame.K_s, CTRL | SHIFT, "Save as: the map's name and a file name"),
        Binding("play", pygame.K_p, CTRL, "Play this map in this window (refused while it has problems)"),
        Binding("duplicate", pygame.K_d, CTRL, "Duplicate the selection"),
        Binding("roster", pygame.K_o, CTRL, "Load a roster"),
        Binding("rotate", pygame.K_r, 0, "Rotate +15 deg"),
        Binding("rotate_back", pygame.K_r, SHIFT, "Rotate -15 deg"),
        Binding("delete", pygame.K_DELETE, 0, "Delete the selection"),
        Binding("delete", pygame.K_BACKSPACE, 0),
        Binding("tool_select", pygame.K_v, 0, "Select / move / resize"),
        Binding("tool_rect", pygame.K_b, 0, "Rectangle"),
        Binding("tool_poly", pygame.K_p, 0, "Polygon"),
        Binding("tool_wall", pygame.K_w, 0, "Wall line"),
        Binding("tool_ladder", pygame.K_l, 0, "Ladder (click a block edge)"),
        Binding("tool_treasure", pygame.K_t, 0, "Treasure token"),
        Binding("tool_zone", pygame.K_z, 0, "Deployment zone (polygon)"),
        Binding("tool_unit", pygame.K_u, 0, "Place units from the roster"),
        Binding("kind_block", pygame.K_1, 0, "New pieces are blocks"),
        Binding("kind_wall", pygame.K_2, 0, "New pieces are walls"),
        Binding("kind_difficult", pygame.K_3, 0, "New pieces are difficult ground"),
        Binding("kind_impassable", pygame.K_4, 0, "New pieces are impassable"),
        Binding("snap", pygame.K_g, 0, "Snap 0.25 / 0.5 / 1 / off"),
        Binding("event", pygame.K_e, 0, "Cycle a token's event none / event / plague"),
        Binding("warband", pygame.K_TAB, 0, "Next warband (zone and unit tools)"),
        Binding("entry", pygame.K_RIGHTBRACKET, 0, "Next roster unit"),
        Binding("entry_back", pygame.K_LEFTBRACKET, 0, "Previous roster unit"),
        Binding("finish", pygame.K_RETURN, 0, "Finish a polygon"),
        Binding("finish", pygame.K_KP_ENTER, 0),
        Binding("cancel", pygame.K_ESCAPE, 0, "Cancel drawing / deselect"),
        Binding("nudge_left", pygame.K_LEFT, 0, "Nudge the selection left by the snap step"),
        Binding("nudge_right", pygame.K_RIGHT, 0, "Nudge the selection right"),
        Binding("nudge_up", pygame.K_UP, 0, "Nudge the selection up"),
        Binding("nudge_down", pygame.K_DOWN, 0, "Nudge the selection down"),
        Binding("fit", pygame.K_f, 0, "Fit the table in the view"),
        Binding("help", pygame.K_F1, 0, "This help"),
        Binding("quit", pygame.K_q, CTRL, "Quit (with unsaved changes: press it again to discard them)"),
    ),
    mouse=(
        ("Left click / drag", "Use the tool; drag a piece to move it, a corner handle to resize it"),
        ("Shift+click", "Add to the selection (select tool)"),
        ("Right click / double click", "Close the polygon being drawn (as Enter does)"),
        ("Wheel", "Zoom about the cursor"),
        ("Middle drag", "Pan the table"),
    ),
)

#: Every dialog: Enter confirms (the highlighted button), Esc cancels.
DIALOG = Keymap(
    "dialog",
    (
        Binding("confirm", pygame.K_RETURN, 0, "Confirm (the highlighted button)"),
        Binding("confirm", pygame.K_KP_ENTER, 0),
        Binding("cancel", pygame.K_ESCAPE, 0, "Cancel"),
    ),
)

#: The rules browser (game/ui/scenes/rules.py).
RULES = Keymap(
    "rules",
    (
        Binding("prev", pygame.K_UP, 0, "The rule above"),
        Binding("next", pygame.K_DOWN, 0, "The rule below"),
        Binding("close", pygame.K_ESCAPE, 0, "Close the rules"),
        Binding("close", pygame.K_k, 0),
        Binding("close", pygame.K_F1, 0),
        Binding("quit", pygame.K_q, CTRL, "Quit"),
    ),
)
