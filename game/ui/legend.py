"""The side panel of a PNG render (a key to the symbols, then each warband's roster) and
the scale bar under the table."""

from __future__ import annotations

import math
from typing import Callable

import pygame
from shapely.geometry import box

from game.engine.model import GameState, Scenario
from game.ui import theme
from game.ui.camera import Camera
from game.ui.draw import dashed, get_font, inches, paw, star, text_at
from game.ui.pieces import PiecePainter
from game.ui.terrain_layer import TerrainLayer
from game.ui.theme import Colour


def scale_bar(surface: pygame.Surface, cam: Camera, at: tuple[float, float], sc: Scenario) -> None:
    x, y = at
    s = cam.scale
    inches = theme.GRID_EVERY if sc.width >= theme.GRID_EVERY else max(1, int(sc.width))
    h = 10
    for i in range(inches):
        colour = theme.INK if i % 2 == 0 else (255, 255, 255)
        pygame.draw.rect(surface, colour, (round(x + i * s), y, math.ceil(s), h))
    pygame.draw.rect(surface, theme.INK, (round(x), y, round(inches * s), h), 1)
    every = 1 if s >= 18 else (3 if inches % 3 == 0 else inches)
    for i in range(0, inches + 1, every):
        text_at(surface, str(i), (x + i * s, y + h + 2), 11, theme.INK, "regular", anchor="midtop")
    text_at(
        surface,
        f'scale: {inches}" ({s:.1f} px per inch); grid 1", strong lines every {theme.GRID_EVERY}"',
        (x + inches * s + 16, y + h / 2),
        13,
        theme.INK_SOFT,
        "regular",
        anchor="midleft",
    )


class Legend:
    """The side panel: key to the symbols, then each warband's roster.

    It draws its symbols with the table's own terrain and piece painters, colours each
    warband with ``colour`` (a warband id -> its colour) and labels units with ``label``
    (a unit id -> its short label), so the key matches the table it stands beside."""

    def __init__(
        self,
        terrain: TerrainLayer,
        pieces: PiecePainter,
        colour: Callable[[str], Colour],
        label: Callable[[str], str],
        sc: Scenario,
        state: GameState,
        reveal: bool,
        width: int,
    ):
        self.terrain = terrain
        self.pieces = pieces
        self.colour = colour
        self.label = label
        free_height = terrain.free_height
        self.sc = sc
        self.state = state
        self.reveal = reveal
        self.width = width
        self.row = 21
        heights = sorted({t.height for t in sc.terrain if t.kind == "block"})
        self.heights = heights
        self.walls = sorted({t.height for t in sc.terrain if t.kind == "wall"})
        kinds = {t.kind for t in sc.terrain}
        self.items: list[tuple[str, str]] = []  # (symbol, text)
        self.items.append(("ground", 'ground (0")'))
        if any(h <= free_height for h in self.walls):
            self.items.append(("wall-low", f'low wall (up to {free_height:g}"): stepped over'))
        if any(h > free_height for h in self.walls):
            self.items.append(("wall-high", f'high wall (over {free_height:g}"): climb'))
        if "difficult" in kinds:
            self.items.append(("difficult", 'difficult ground: -2" move (M12)'))
        if "impassable" in kinds:
            self.items.append(("impassable", "impassable"))
        if sc.ladders:
            self.items.append(("ladder", "ladder (dot = foot)"))
        if sc.deployment:
            self.items.append(("deploy", "deployment zone"))
        self.items.append(("token", "treasure token"))
        if reveal:
            self.items.append(("token-event", "hides an Event (revealed)"))
            self.items.append(("token-plague", "hides the Plague (revealed)"))
        self.items += [("hero", "hero"), ("caster", "caster"), ("animal", "animal"), ("carry", "carrying treasure")]
        for status, (letter, _) in theme.STATUS_MARKS.items():
            self.items.append((f"status-{status}", status))
        self.rosters = []
        for w in sc.warbands:
            units = [
                state.units[uid] for uid in sc.unit_order if uid in state.units and state.units[uid].warband == w.id
            ]
            units += [u for u in state.units.values() if u.warband == w.id and u.id not in sc.unit_order]
            self.rosters.append((w, units))
        n_units = sum(len(us) for _, us in self.rosters)
        self.unit_row = 19 if n_units <= 30 else 16
        ramp_rows = 1 + (len(heights) + 5) // 6 if heights else 0
        self.height = (
            40
            + ramp_rows * 42
            + 28
            + len(self.items) * self.row
            + 20
            + sum(30 + len(us) * self.unit_row for _, us in self.rosters)
        )

    def draw(self, surface: pygame.Surface, at: tuple[int, int]) -> None:
        x0, y = at[0], at[1] + 8
        w = self.width
        panel = pygame.Rect(x0, y, w + 8, surface.get_height() - y - 10)
        pygame.draw.rect(surface, (252, 250, 244), panel, border_radius=6)
        pygame.draw.rect(surface, (200, 192, 176), panel, 1, border_radius=6)
        x = x0 + 12
        y += 10
        text_at(surface, "Legend", (x, y), 18, theme.INK, anchor="topleft")
        y += 28
        if self.heights:
            text_at(surface, "block height (lighter = higher)", (x, y), 13, theme.INK_SOFT, "regular", anchor="topleft")
            y += 18
            sw = min(44, (w - 20) // 6)
            for i, h in enumerate(self.heights):
                col, row = i % 6, i // 6
                r = pygame.Rect(x + col * (sw + 4), y + row * 42, sw, 22)
                c = theme.height_colour(h)
                pygame.draw.rect(surface, c, r)
                pygame.draw.rect(surface, theme.BLOCK_EDGE, r, 1)
                text_at(surface, inches(h), (r.centerx, r.bottom + 1), 12, theme.INK, "bold", anchor="midtop")
            y += ((len(self.heights) + 5) // 6) * 42 + 4
        for sym, text in self.items:
            self._symbol(surface, sym, x + 12, y + self.row // 2)
            text_at(surface, text, (x + 30, y + self.row // 2), 13, theme.INK, "regular", anchor="midleft")
            y += self.row
        y += 12
        for wb, units in self.rosters:
            colour = self.colour(wb.id)
            pygame.draw.rect(surface, colour, (x, y + 3, 16, 16), border_radius=3)
            who = "neutrals" if wb.player == 0 else f"player {wb.player}"
            lost = self.state.lost.get(wb.id, 0)
            title = f"{wb.name or wb.id} ({who})" + (f", lost {lost}" if lost else "")
            if wb.id in self.state.routed:
                title += ", ROUTED"
            text_at(surface, title, (x + 22, y + 2), 15, theme.INK, "bold", anchor="topleft")
            y += 26
            size = 12 if self.unit_row >= 19 else 11
            for u in units:
                cy = y + self.unit_row // 2
                pill = pygame.Rect(x, cy - self.unit_row // 2 + 1, 32, self.unit_row - 2)
                pygame.draw.rect(surface, (10, 10, 10), pill, border_radius=pill.h // 2)
                pygame.draw.rect(surface, colour, pill.inflate(-2, -2), border_radius=pill.h // 2)
                text_at(surface, self.label(u.id), pill.center, size, theme.text_on(colour), "condensed")
                kw = ", ".join(u.keywords)
                info = f"{u.name}  {u.base_mm:g}mm  M{u.stats.get('move', 0):g}"
                if kw:
                    info += f"  [{kw}]"
                extra = []
                if u.status != "normal":
                    extra.append(u.status)
                if u.carrying:
                    extra.append(f"carries {u.carrying}")
                if not u.on_table:
                    extra.append("off table")
                if extra:
                    info += "  - " + ", ".join(extra)
                img = get_font(size, "regular").render(info, True, theme.INK if u.on_table else theme.INK_SOFT)
                surface.blit(img, (x + 38, cy - img.get_height() // 2), pygame.Rect(0, 0, w - 46, img.get_height()))
                y += self.unit_row
            y += 6

    def _symbol(self, surface: pygame.Surface, sym: str, cx: int, cy: int) -> None:
        r = pygame.Rect(cx - 10, cy - 8, 20, 16)
        if sym == "ground":
            pygame.draw.rect(surface, theme.GROUND, r)
            pygame.draw.rect(surface, theme.BLOCK_EDGE, r, 1)
        elif sym == "wall-low":
            pygame.draw.rect(surface, theme.WALL_LOW, r.inflate(0, -9))
            pygame.draw.rect(surface, theme.WALL_EDGE, r.inflate(0, -9), 1)
        elif sym == "wall-high":
            pygame.draw.rect(surface, theme.WALL_HIGH, r.inflate(0, -8))
            pygame.draw.rect(surface, theme.WALL_EDGE, r.inflate(0, -8), 1)
        elif sym == "difficult":
            pygame.draw.rect(surface, theme.DIFFICULT_FILL, r)
            cam = Camera(1.0, (0, 0))
            self.terrain.hatch(surface, cam, box(r.left, r.top, r.right, r.bottom), theme.DIFFICULT_HATCH, 5, 1)
            pygame.draw.rect(surface, theme.DIFFICULT_HATCH, r, 1)
        elif sym == "impassable":
            pygame.draw.rect(surface, theme.IMPASSABLE_FILL, r)
            pygame.draw.line(surface, theme.IMPASSABLE_MARK, (cx - 4, cy - 4), (cx + 4, cy + 4), 2)
            pygame.draw.line(surface, theme.IMPASSABLE_MARK, (cx - 4, cy + 4), (cx + 4, cy - 4), 2)
        elif sym == "ladder":
            cam = Camera(20.0, (cx - 10, cy))
            self.terrain.ladder(surface, cam, (0.1, 0), (0.9, 0))
        elif sym == "deploy":
            colour = self.colour(self.sc.warbands[0].id) if self.sc.warbands else theme.INK
            tmp = pygame.Surface(r.size, pygame.SRCALPHA)
            tmp.fill((*colour, 60))
            surface.blit(tmp, r)
            dashed(surface, colour, [r.topleft, r.topright, r.bottomright, r.bottomleft, r.topleft], 2, 4)
        elif sym.startswith("token"):
            look = {"token": "plain", "token-event": "event", "token-plague": "plague"}[sym]
            self.pieces.coin(surface, cx, cy, 8, look)
        elif sym == "hero":
            pygame.draw.polygon(surface, (30, 20, 0), star(cx, cy, 8.5))
            pygame.draw.polygon(surface, theme.HERO_GLYPH, star(cx, cy, 7))
        elif sym == "caster":
            pts = [(cx, cy - 7), (cx + 5, cy), (cx, cy + 7), (cx - 5, cy)]
            pygame.draw.polygon(surface, theme.CASTER_GLYPH, pts)
            pygame.draw.polygon(surface, (20, 10, 40), pts, 1)
        elif sym == "animal":
            paw(surface, cx, cy, 7)
        elif sym == "carry":
            self.pieces.coin(surface, cx, cy, 5, "plain")
        elif sym.startswith("status-"):
            status = sym[7:]
            letter, bg = theme.STATUS_MARKS[status]
            if status == "incapacitated":
                pygame.draw.circle(surface, (10, 10, 10), (cx, cy), 9)
                pygame.draw.circle(surface, (170, 170, 170), (cx, cy), 8)
                pygame.draw.line(surface, (20, 20, 20), (cx - 5, cy - 5), (cx + 5, cy + 5), 2)
                pygame.draw.line(surface, (20, 20, 20), (cx - 5, cy + 5), (cx + 5, cy - 5), 2)
            else:
                pygame.draw.circle(surface, (10, 10, 10), (cx, cy), 8)
                pygame.draw.circle(surface, bg, (cx, cy), 7)
                text_at(surface, letter, (cx, cy), 10, theme.text_on(bg))
