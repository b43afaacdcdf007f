"""Raw keys and mouse buttons mapped to named commands, in one place.

Scenes never test ``event.key`` directly: they ask :func:`command_for` what a key
event means. The F1 help overlay lists :data:`KEYS` and :data:`MOUSE`, so every
binding a player can use is on screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame


@dataclass(frozen=True)
class Binding:
    command: str
    key: int
    mods: int = 0  # pygame.KMOD_CTRL / KMOD_SHIFT, or 0 for "no modifier needed"
    help: str = ""

    @property
    def label(self) -> str:
        parts = []
        if self.mods & pygame.KMOD_CTRL:
            parts.append("Ctrl")
        if self.mods & pygame.KMOD_SHIFT:
            parts.append("Shift")
        name = pygame.key.name(self.key)
        parts.append(name.upper() if len(name) == 1 else name.title())
        return "+".join(parts)


CTRL = pygame.KMOD_CTRL
SHIFT = pygame.KMOD_SHIFT

#: Keyboard bindings. Order is the order of the help overlay.
KEYS: tuple[Binding, ...] = (
    Binding("end_step", pygame.K_SPACE, 0, "End step / End phase (the banner button)"),
    Binding("undo", pygame.K_z, CTRL, "Undo the last action"),
    Binding("redo", pygame.K_y, CTRL, "Redo"),
    Binding("redo", pygame.K_z, CTRL | SHIFT, "Redo (alternative)"),
    Binding("save", pygame.K_s, CTRL, "Save the game"),
    Binding("load", pygame.K_o, CTRL, "Load a saved game"),
    Binding("cancel", pygame.K_ESCAPE, 0, "Cancel a drag / dismiss the ruler / deselect / close a dialog"),
    Binding("ruler", pygame.K_r, 0, "Ruler tool on/off (drag to measure, snaps to units and tokens)"),
    Binding("rings", pygame.K_g, 0, "Toggle the 2\"/5\"/8\" rings round the selected unit"),
    Binding("reach", pygame.K_a, 0, "Toggle the reachable area (walk / run / check only)"),
    Binding("trails", pygame.K_t, 0, "Toggle the trails of paths moved this turn"),
    Binding("fit", pygame.K_f, 0, "Fit the table to the window"),
    Binding("zoom_in", pygame.K_EQUALS, 0, "Zoom in (about the window centre)"),
    Binding("zoom_in", pygame.K_KP_PLUS, 0, "Zoom in (keypad)"),
    Binding("zoom_out", pygame.K_MINUS, 0, "Zoom out"),
    Binding("zoom_out", pygame.K_KP_MINUS, 0, "Zoom out (keypad)"),
    Binding("pan_left", pygame.K_LEFT, 0, "Pan left"),
    Binding("pan_right", pygame.K_RIGHT, 0, "Pan right"),
    Binding("pan_up", pygame.K_UP, 0, "Pan up"),
    Binding("pan_down", pygame.K_DOWN, 0, "Pan down"),
    Binding("next_unit", pygame.K_TAB, 0, "Select the next unit of the player to act"),
    Binding("jump_toggle", pygame.K_j, 0, "Jump down ledges instead of climbing (M9) / back (this drag and the next)"),
    Binding("roll", pygame.K_d, 0, "Dice tray: roll dice for a stated reason"),
    Binding("dice_mode", pygame.K_p, CTRL, "Switch dice: roll for me / I roll physical dice"),
    Binding("handover", pygame.K_h, 0, "Hand-over screen between players on/off (off for solo playtests)"),
    Binding("menu", pygame.K_m, 0, "Context menu of the selected unit (engage, status, ...)"),
    Binding("help", pygame.K_F1, 0, "This help"),
    Binding("quit", pygame.K_q, CTRL, "Quit (the game is autosaved)"),
)

#: Mouse gestures (not remappable; listed in the help overlay).
MOUSE: tuple[tuple[str, str], ...] = (
    ("Left click", "Select a unit; click a token to pick it up when a dialog asks"),
    ("Left drag a unit", "Move it: live path, band colours, inches used / allowance"),
    ("Click during a drag", "Add a waypoint (the path goes through it)"),
    ("Release", "Apply the move (Run when the path needs more than Move)"),
    ("Right click a unit", "Context menu: engage, status, incapacitate, reload, pick up, check, roll"),
    ("Right / middle drag", "Pan the table"),
    ("Wheel", "Zoom about the cursor"),
    ("Hover a token", "Its 2\" denial ring and 5\" grab ring"),
)

_MOD_MASK = CTRL | SHIFT


def _mods(mod: int) -> int:
    out = 0
    if mod & pygame.KMOD_CTRL:
        out |= CTRL
    if mod & pygame.KMOD_SHIFT:
        out |= SHIFT
    return out


def command_for(event: pygame.event.Event) -> str | None:
    """The named command of a KEYDOWN event, or None. Modifiers must match exactly."""
    if event.type != pygame.KEYDOWN:
        return None
    mods = _mods(getattr(event, "mod", 0))
    for b in KEYS:
        if b.key == event.key and b.mods == mods:
            return b.command
    # Shift alone never matters for the plain keys (e.g. Shift+Space).
    if mods == SHIFT:
        for b in KEYS:
            if b.key == event.key and b.mods == 0:
                return b.command
    return None


def key_event(command: str) -> pygame.event.Event:
    """A KEYDOWN event that means ``command`` (tests and the benchmark use it)."""
    for b in KEYS:
        if b.command == command:
            mod = (pygame.KMOD_LCTRL if b.mods & CTRL else 0) | (pygame.KMOD_LSHIFT if b.mods & SHIFT else 0)
            return pygame.event.Event(pygame.KEYDOWN, key=b.key, mod=mod, unicode="", scancode=0)
    raise KeyError(command)


def help_rows() -> list[tuple[str, str]]:
    """Every key and mouse gesture with what it does, for the F1 overlay."""
    rows = [(b.label, b.help) for b in KEYS]
    rows += list(MOUSE)
    return rows


def commands() -> set[str]:
    return {b.command for b in KEYS}
