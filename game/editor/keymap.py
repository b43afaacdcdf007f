"""The editor's keys, in one place: raw keys -> named commands (and the on-screen help)."""

from __future__ import annotations

import pygame

CTRL = pygame.KMOD_CTRL
SHIFT = pygame.KMOD_SHIFT

#: (command, key, modifiers that must be held, help). Order is the order of the help.
KEYS: tuple[tuple[str, int, int, str], ...] = (
    ("undo", pygame.K_z, CTRL, "Ctrl+Z undo"),
    ("redo", pygame.K_y, CTRL, "Ctrl+Y redo"),
    ("redo", pygame.K_z, CTRL | SHIFT, "Ctrl+Shift+Z redo"),
    ("save", pygame.K_s, CTRL, "Ctrl+S save (allowed with problems, with a warning)"),
    ("play", pygame.K_p, CTRL, "Ctrl+P play this map (refused while it has problems)"),
    ("duplicate", pygame.K_d, CTRL, "Ctrl+D duplicate the selection"),
    ("roster", pygame.K_o, CTRL, "Ctrl+O load a roster"),
    ("rotate_back", pygame.K_r, SHIFT, "Shift+R rotate -15 deg"),
    ("rotate", pygame.K_r, 0, "R rotate +15 deg"),
    ("delete", pygame.K_DELETE, 0, "Del delete the selection"),
    ("delete", pygame.K_BACKSPACE, 0, "Backspace delete the selection"),
    ("tool_select", pygame.K_v, 0, "V select / move / resize"),
    ("tool_rect", pygame.K_b, 0, "B rectangle"),
    ("tool_poly", pygame.K_p, 0, "P polygon"),
    ("tool_wall", pygame.K_w, 0, "W wall line"),
    ("tool_ladder", pygame.K_l, 0, "L ladder (click a block edge)"),
    ("tool_treasure", pygame.K_t, 0, "T treasure token"),
    ("tool_zone", pygame.K_z, 0, "Z deployment zone (polygon)"),
    ("tool_unit", pygame.K_u, 0, "U place units from the roster"),
    ("kind_block", pygame.K_1, 0, "1 new pieces are blocks"),
    ("kind_wall", pygame.K_2, 0, "2 walls"),
    ("kind_difficult", pygame.K_3, 0, "3 difficult ground"),
    ("kind_impassable", pygame.K_4, 0, "4 impassable"),
    ("snap", pygame.K_g, 0, "G snap 0.25 / 0.5 / 1 / off"),
    ("event", pygame.K_e, 0, "E cycle a token's event none / event / plague"),
    ("warband", pygame.K_TAB, 0, "Tab next warband (zone and unit tools)"),
    ("entry", pygame.K_RIGHTBRACKET, 0, "] next roster unit"),
    ("entry_back", pygame.K_LEFTBRACKET, 0, "[ previous roster unit"),
    ("finish", pygame.K_RETURN, 0, "Enter finish a polygon"),
    ("finish", pygame.K_KP_ENTER, 0, "Enter finish a polygon"),
    ("cancel", pygame.K_ESCAPE, 0, "Esc cancel drawing / deselect"),
    ("fit", pygame.K_f, 0, "F fit the table in the view"),
    ("help", pygame.K_F1, 0, "F1 help"),
)

MOUSE_HELP = (
    "Left: use the tool; drag a piece to move it, a corner handle to resize it",
    "Right click / double click: finish a polygon",
    "Wheel: zoom; middle drag: pan; arrow keys nudge the selection by the snap step",
)


def command_for(event: pygame.event.Event) -> str | None:
    """The command a KEYDOWN event means (most specific modifiers first), or None."""
    if event.type != pygame.KEYDOWN:
        return None
    mods = (CTRL if event.mod & CTRL else 0) | (SHIFT if event.mod & SHIFT else 0)
    held = [(cmd, need) for cmd, key, need, _ in KEYS if key == event.key and (mods & need) == need]
    if not held:
        return None
    # Prefer the binding whose modifiers match exactly, then the one needing the most.
    held.sort(key=lambda c: (c[1] != mods, -bin(c[1]).count("1")))
    cmd, need = held[0]
    if need == 0 and mods & CTRL:
        return None  # Ctrl+<key> with no binding does nothing
    return cmd
