"""The one theme: colours, fonts, the height ramp and the pygame_gui look.

Data, not logic: the painter (``game.ui.render``), the play window, the editor and the
dialogs all take their look from here, so a screenshot of either window and a PNG
render read the same way. Colours are ``(r, g, b)`` tuples; :data:`UI_THEME` is the
pygame_gui theme built from the same colours.
"""

from __future__ import annotations

import os

from game.bundled import fonts_dir

Colour = tuple[int, int, int]

#: The table and the page around it.
PAGE = (246, 242, 232)
INK = (40, 36, 32)
INK_SOFT = (110, 102, 92)
GROUND = (150, 163, 122)  # height 0: muted grass
GRID_FINE = (0, 0, 0, 34)  # 1" lines (RGBA: drawn with alpha)
GRID_STRONG = (0, 0, 0, 96)  # 6" lines
GRID_EVERY = 6  # a strong line every this many inches

#: Height ramp for blocks: higher is lighter, always (absolute, not per map, so every
#: map and every screenshot reads the same). Stops are (height in inches, colour).
HEIGHT_STOPS: list[tuple[float, Colour]] = [
    (0.0, (96, 76, 62)),
    (1.0, (112, 90, 72)),
    (2.0, (142, 116, 90)),
    (3.0, (174, 148, 112)),
    (4.0, (202, 180, 140)),
    (5.0, (224, 206, 168)),
    (6.0, (242, 232, 200)),
    (9.0, (255, 252, 240)),
]
BLOCK_EDGE = (58, 48, 40)
SHADOW = (0, 0, 0, 70)
#: Shadow offset per inch of height, in inches (down and right).
SHADOW_PER_INCH = 0.06

WALL_LOW = (150, 92, 60)  # walls up to the free height (M4): crossed freely
WALL_HIGH = (58, 52, 64)  # walls higher than that: climbed or gone round
WALL_EDGE = (24, 20, 22)

DIFFICULT_FILL = (168, 142, 100)
DIFFICULT_HATCH = (78, 50, 24)
IMPASSABLE_FILL = (34, 46, 66)
IMPASSABLE_MARK = (130, 150, 180)

LADDER_WOOD = (236, 176, 40)
LADDER_EDGE = (60, 36, 8)

TOKEN_GOLD = (242, 196, 40)
TOKEN_EDGE = (90, 64, 0)
TOKEN_EVENT = (200, 40, 160)  # revealed Event: magenta
TOKEN_PLAGUE = (60, 170, 60)  # revealed Plague: green

#: Default warband colours by player number; player 0 (neutrals) gets the third.
PLAYER_COLOURS: dict[int, Colour] = {1: (200, 48, 40), 2: (38, 98, 200), 0: (120, 120, 120)}
EXTRA_COLOURS: list[Colour] = [(46, 150, 80), (160, 70, 170), (220, 130, 20), (30, 150, 160)]

SELECT = (255, 255, 255)
SELECT_EDGE = (0, 0, 0)

HERO_GLYPH = (255, 210, 40)
CASTER_GLYPH = (150, 90, 230)
ANIMAL_GLYPH = (120, 76, 40)

#: Status markers: a letter badge and its colour.
STATUS_MARKS: dict[str, tuple[str, Colour]] = {
    "staggered": ("S", (245, 200, 40)),
    "dazed": ("D", (240, 130, 30)),
    "stunned": ("X", (210, 30, 30)),
    "incapacitated": ("+", (20, 20, 20)),
}

#: Line of sight (L1/L2, game.ui.sight_layer): the unseen ground, and the target marks.
LOS_SHADE = (18, 16, 40)
LOS_SHADE_ALPHA = 120
LOS_VISIBLE = (40, 190, 70)
LOS_COVER = (240, 170, 20)
LOS_HIDDEN = (215, 40, 40)

#: Window chrome, shared by the play window and the editor.
CHROME = (44, 39, 34)  # the play banner, the editor's tool bar
CHROME_BG = (58, 52, 46)  # behind everything (no scene, the editor around the view)
STATUS_BG = (30, 27, 24)  # the editor's status bar
STATUS_TEXT = (230, 224, 210)
STATUS_BAD = (255, 140, 120)
PANEL_BG = (233, 226, 212)  # the play sidebar, the editor's properties panel
PANEL_LINE = (120, 110, 95)
CARD_BG = (250, 247, 240)  # boxes on a panel: unit card, dice tray, log
CARD_EDGE = (170, 160, 145)
BUTTON = (75, 66, 56)
BUTTON_HOVER = (106, 92, 76)
BUTTON_ON = (170, 120, 40)  # a chosen tool / the default button of a dialog
BUTTON_TEXT = (245, 239, 227)
BUTTON_OFF_TEXT = (120, 110, 100)
GOOD = (30, 120, 50)
BAD = (180, 30, 30)
PROBLEM = (220, 30, 30)  # a map problem's highlight (editor)
DRAFT = (255, 240, 120)  # a piece being drawn (editor)
TIP_BG = (255, 250, 220)  # a label beside the cursor
HELP_DIM = (16, 14, 12, 228)  # behind the F1 help


def _hex(c: Colour) -> str:
    return "#%02x%02x%02x" % c


#: The pygame_gui theme of every window and dialog (written to a file by the app).
UI_THEME: dict = {
    "defaults": {
        "font": {"name": "noto_sans", "size": "13"},
        "colours": {
            "normal_bg": _hex(BUTTON),
            "hovered_bg": _hex(BUTTON_HOVER),
            "active_bg": "#2f2923",
            "normal_text": _hex(BUTTON_TEXT),
            "hovered_text": "#ffffff",
            "disabled_bg": "#8d857a",
            "disabled_text": "#d0cac0",
            "dark_bg": "#2a2520",
            "normal_border": "#1e1a16",
            "selected_bg": "#7a5a20",
        },
    },
    "text_box": {
        "colours": {"dark_bg": "#fbf8f1", "normal_text": _hex(INK), "normal_border": "#b5a890"},
        "font": {"name": "noto_sans", "size": "14"},
    },
    "text_entry_line": {
        "colours": {
            "dark_bg": "#fbf8f1",
            "normal_text": _hex(INK),
            "selected_bg": "#c8a860",
            "normal_border": "#8a7e6a",
            "text_cursor": _hex(INK),
        }
    },
    "window": {"colours": {"dark_bg": _hex(PANEL_BG)}},
    "window.#title_bar": {"colours": {"normal_bg": _hex(BUTTON), "normal_text": _hex(BUTTON_TEXT)}},
    "panel": {"colours": {"dark_bg": _hex(PANEL_BG), "normal_border": _hex(BUTTON)}},
    "label": {"colours": {"normal_text": _hex(INK), "dark_bg": "#00000000"}},
    "#banner_end": {"colours": {"normal_bg": "#2c6e3a", "hovered_bg": "#3b8d4c"}},
    #: The button Enter presses in a dialog.
    "#default_button": {"colours": {"normal_bg": _hex(BUTTON_ON), "hovered_bg": "#c48a34", "normal_border": "#2a2520"}},
}

_HERE = os.path.dirname(os.path.abspath(__file__))
FONT_DIRS = [fonts_dir()]
FONT_REGULAR = "DejaVuSans.ttf"
FONT_BOLD = "DejaVuSans-Bold.ttf"
FONT_CONDENSED = "DejaVuSansCondensed-Bold.ttf"


def hex_colour(text: str | None) -> Colour | None:
    """``'#c0392b'`` -> ``(192, 57, 43)``; None (or anything malformed) -> None."""
    if not text or not isinstance(text, str) or len(text) != 7 or text[0] != "#":
        return None
    try:
        return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
    except ValueError:
        return None


def mix(a: Colour, b: Colour, t: float) -> Colour:
    """Linear blend, t = 0 gives a, t = 1 gives b."""
    t = min(1.0, max(0.0, t))
    return tuple(int(round(a[i] + (b[i] - a[i]) * t)) for i in range(3))  # type: ignore[return-value]


def height_colour(h: float) -> Colour:
    """Fill of a block top ``h`` inches high: the ramp, higher is lighter."""
    stops = HEIGHT_STOPS
    if h <= stops[0][0]:
        return stops[0][1]
    for (h0, c0), (h1, c1) in zip(stops, stops[1:]):
        if h <= h1:
            return mix(c0, c1, (h - h0) / (h1 - h0))
    return stops[-1][1]


def luminance(c: Colour) -> float:
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255.0


def text_on(c: Colour) -> Colour:
    """Black or white, whichever reads better on ``c``."""
    return (20, 20, 20) if luminance(c) > 0.6 else (255, 255, 255)


def font_path(name: str) -> str | None:
    for d in FONT_DIRS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None
