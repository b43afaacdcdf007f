"""Hand-drawn panels (cheap to redraw every frame): the phase banner, the unit card and
the dice tray. They read the game; they never change it."""

from __future__ import annotations

from typing import Any

import pygame

from game.ui import theme
from game.ui.widgets import text as T

PANEL_BG = (250, 247, 240)
PANEL_EDGE = (170, 160, 145)
SOFT = (110, 100, 90)
BAD = (180, 30, 30)
GOOD = (30, 120, 50)


class Banner:
    """Turn, player, phase and step, on the warband's colour."""

    def draw(self, surface, rect: pygame.Rect, turn: int, player: int, name: str, colour, phase: str,
             step: str | None, note: str = "", tags=()) -> None:
        """``tags``: (text, colour) pills at the right end for what applies all game long
        ("placeholder combat", who the bot plays)."""
        surface.fill((40, 34, 28), rect)
        right = rect.right - 8
        for text, pill_colour in tags:
            img = T.text(text, 13, (40, 34, 28), True)
            pill = pygame.Rect(0, 0, img.get_width() + 14, img.get_height() + 6)
            pill.midright = (right, rect.centery)
            pygame.draw.rect(surface, pill_colour, pill, border_radius=9)
            surface.blit(img, img.get_rect(center=pill.center))
            right = pill.x - 6
        right -= 2
        chip = pygame.Rect(rect.x, rect.y, 10, rect.height)
        surface.fill(colour, chip)
        x = rect.x + 18
        parts = [(f"Turn {turn}", (255, 255, 255), True), (f"Player {player}: {name}", theme.mix(colour, (255, 255, 255), 0.45), True),
                 (f"{phase.capitalize()} phase", (255, 230, 150), True)]
        if step:
            parts.append((f"step: {step.replace('_', ' ')}", (220, 220, 220), False))
        if note:
            parts.append((note, (180, 200, 180), False))
        for s, col, bold in parts:
            img = T.text(s, 16 if bold else 14, col, bold)
            while x + img.get_width() > right and not bold and len(s) > 12:  # a long note is cut, not dropped
                s = s[:-6].rstrip() + "..."
                img = T.text(s, 14, col, False)
            if x + img.get_width() > right:
                break
            surface.blit(img, (x, rect.centery - img.get_height() // 2))
            x += img.get_width() + 18


def _flag(name: str, on: bool) -> tuple[str, Any]:
    return (f"{name}: {'yes' if on else 'no'}", (30, 30, 30) if on else SOFT)


class UnitCard:
    """The selected (or hovered) unit: stats, status, keywords, treasure, flags, allowance."""

    def draw(self, surface, rect: pygame.Rect, scene, uid: str | None, info: dict | None) -> None:
        surface.fill(PANEL_BG, rect)
        pygame.draw.rect(surface, PANEL_EDGE, rect, 1)
        if not uid or uid not in scene.state.units:
            surface.blit(T.text("No unit selected", 15, SOFT, True), (rect.x + 8, rect.y + 8))
            for i, s in enumerate(("Click a unit to select it; drag it to move.",
                                   "Right-click a unit for engage, status, checks.",
                                   "F1 lists every key.")):
                surface.blit(T.text(s, 12, SOFT), (rect.x + 8, rect.y + 36 + i * 18))
            return
        st = scene.state
        u = st.units[uid]
        colour = scene.painter.warband_colour(u.warband)
        pygame.draw.rect(surface, colour, pygame.Rect(rect.x, rect.y, 6, rect.height))
        x, y = rect.x + 12, rect.y + 6
        surface.blit(T.text(f"{u.name}", 17, (20, 20, 20), True), (x, y))
        surface.blit(T.text(u.id, 12, SOFT), (rect.right - 8 - T.text(u.id, 12, SOFT).get_width(), y + 4))
        y += 24
        try:
            wname = scene.scenario.warband(u.warband).name or u.warband
            player = scene.scenario.warband(u.warband).player
        except KeyError:
            wname, player = u.warband, "?"
        surface.blit(T.text(f"{wname} (player {player}), base {u.base_mm:g} mm", 12, SOFT), (x, y))
        y += 18
        stats = "   ".join(f"{k.capitalize()} {v:g}" for k, v in u.stats.items())
        for line in T.wrap(stats, rect.width - 20, 13, True):
            surface.blit(T.text(line, 13, (30, 30, 30), True), (x, y))
            y += 17
        status_col = BAD if u.status in ("stunned", "incapacitated") else ((200, 110, 0) if u.status != "normal" else GOOD)
        surface.blit(T.text(f"Status: {u.status}", 13, status_col, True), (x, y))
        kw = ", ".join(u.keywords) or "none"
        surface.blit(T.text(f"Keywords: {kw}", 12, (30, 30, 30)), (x + 150, y + 1))
        y += 18
        carrying = u.carrying or "nothing"
        if u.carrying and u.carrying in st.treasure:
            tok = st.treasure[u.carrying]
            if tok.revealed and tok.event != "none":
                carrying += f" ({tok.event})"
        surface.blit(T.text(f"Carrying: {carrying}", 12, (30, 30, 30)), (x, y))
        y += 17
        flags = [_flag("Ran", u.ran), _flag("Reloaded", u.reloaded), _flag("Moved", u.moved)]
        fx = x
        for s, col in flags:
            img = T.text(s, 12, col)
            surface.blit(img, (fx, y))
            fx += img.get_width() + 14
        y += 17
        engaged = ", ".join(u.engaged_with) if u.engaged_with else "no"
        surface.blit(T.text(f"Engaged: {engaged}" + ("   (engage attempted)" if u.engage_attempted else ""), 12,
                            (30, 30, 30)), (x, y))
        y += 17
        if not u.on_table:
            surface.blit(T.text("Off the table", 13, BAD, True), (x, y))
            return
        if info is not None:
            used = f'used {u.used:.2f}"' if u.used else "not moved yet"
            if info.get("walk_error") is not None:
                e = info["walk_error"]
                for line in T.wrap(f"Move: {e.rule}: {e.reason}", rect.width - 20, 12)[:2]:
                    surface.blit(T.text(line, 12, BAD), (x, y))
                    y += 16
            else:
                run = f'{info["run"]:.2f}"' if info.get("run") is not None else "denied"
                surface.blit(T.text(f'Move {info["walk"]:.2f}"   Run {run}   ({used})', 13, (30, 30, 30), True), (x, y))
                y += 17
            if info.get("run_denied") is not None:
                e = info["run_denied"]
                for line in T.wrap(f"Run: {e.rule}: {e.reason}", rect.width - 20, 12)[:3]:
                    surface.blit(T.text(line, 12, BAD), (x, y))
                    y += 16
        z = scene.board.height_at(u.x, u.y)
        if y < rect.bottom - 16:
            surface.blit(T.text(f'at ({u.x:.2f}, {u.y:.2f})' + (f', {z:g}" up' if z else ""), 11, SOFT), (x, y))


class DiceTray:
    """The last rolls (newest first) and the dice mode."""

    def draw(self, surface, rect: pygame.Rect, rolls: list, physical: bool) -> None:
        surface.fill(PANEL_BG, rect)
        pygame.draw.rect(surface, PANEL_EDGE, rect, 1)
        mode = "I roll physical dice" if physical else "roll for me"
        surface.blit(T.text("Dice tray", 13, (60, 50, 40), True), (rect.x + 6, rect.y + 3))
        m = T.text(f"mode: {mode} (Ctrl+P)", 12, (150, 60, 20) if physical else SOFT)
        surface.blit(m, (rect.right - m.get_width() - 6, rect.y + 4))
        x = rect.x + 6
        y = rect.y + 24
        for r in reversed(rolls[-6:]):
            values = list(r.values) or [r.kept]
            kept = r.kept
            success = r.success
            edge = GOOD if success else (BAD if success is False else (40, 40, 40))
            for v in values[:3]:
                box = pygame.Rect(x, y, 26, 24)
                if x + 30 > rect.right:
                    break
                faded = len(values) > 1 and v != kept and r.mode != "normal"
                pygame.draw.rect(surface, (255, 255, 255) if not faded else (225, 225, 225), box, border_radius=5)
                pygame.draw.rect(surface, edge, box, 2, border_radius=5)
                img = T.text(str(v), 13, (20, 20, 20) if not faded else (140, 140, 140), True)
                surface.blit(img, img.get_rect(center=box.center))
                x += 29
            x += 8
        if rolls:
            last = rolls[-1]
            surface.blit(T.text(str(last)[:60], 11, SOFT), (rect.x + 6, rect.y + 54))
        else:
            surface.blit(T.text("no rolls yet: Roll dice (D) or a unit's Check...", 11, SOFT), (rect.x + 6, rect.y + 54))
