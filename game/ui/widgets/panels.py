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

    shown: list[str] = []
    #: The pills drawn: (text, rectangle on the screen), for their tips on hover.
    pills: list[tuple[str, pygame.Rect]] = []

    def draw(
        self,
        surface,
        rect: pygame.Rect,
        turn: int,
        player: int,
        name: str,
        colour,
        phase: str,
        step: str | None,
        note: str = "",
        tags=(),
        over: bool = False,
    ) -> None:
        """``tags``: (text, colour) pills at the right end for what applies all game long
        ("placeholder combat", who the bot plays). ``over``: the game has ended, and the
        banner says so in place of the phase.

        What always shows: the turn and the phase (a long warband name gives way first,
        then the pills); the hint (``note``) goes on one line, or two smaller ones, and is
        never cut: what does not fit is left to the log."""
        surface.fill((40, 34, 28), rect)
        #: The texts drawn, whole (tests and the window's readers look here).
        self.shown: list[str] = []
        self.pills = []
        chip = pygame.Rect(rect.x, rect.y, 10, rect.height)
        surface.fill(colour, chip)
        gap = 18
        head = T.text(f"Turn {turn}", 16, (255, 255, 255), True)
        phase_img = (
            T.text("Game over", 16, (255, 150, 120), True)
            if over
            else T.text(f"{phase.capitalize()} phase", 16, (255, 230, 150), True)
        )
        who_colour = theme.mix(colour, (255, 255, 255), 0.45)
        fixed = 18 + head.get_width() + gap + phase_img.get_width() + gap
        # The pills, right to left, as many as leave room for the turn, a name and the phase.
        pills = []
        right = rect.right - 8
        for text, pill_colour in tags:
            img = T.text(text, 13, (40, 34, 28), True)
            width = img.get_width() + 14
            if right - width - 6 < rect.x + fixed + 120:
                break
            pills.append((img, pill_colour, right, text))
            right -= width + 6
        right -= 2
        self.shown += [text for text, _c in tags[: len(pills)]]
        for img, pill_colour, r, text in pills:
            pill = pygame.Rect(0, 0, img.get_width() + 14, img.get_height() + 6)
            pill.midright = (r, rect.centery)
            self.pills.append((text, pill.copy()))
            pygame.draw.rect(surface, pill_colour, pill, border_radius=9)
            surface.blit(img, img.get_rect(center=pill.center))
        room = right - (rect.x + fixed)
        who = ""
        for cand in (f"Player {player}: {name}", f"P{player}: {name}", f"P{player}"):
            if T.text(cand, 16, who_colour, True).get_width() <= room:
                who = cand
                break
        x = rect.x + 18
        self.shown += [f"Turn {turn}", who, "Game over" if over else f"{phase.capitalize()} phase"]
        for img in (head, T.text(who, 16, who_colour, True) if who else None, phase_img):
            if img is None:
                continue
            surface.blit(img, (x, rect.centery - img.get_height() // 2))
            x += img.get_width() + gap
        rest = [t for t in ((f"step: {step.replace('_', ' ')}" if step else ""), note) if t]
        if rest:
            self.shown += self._hint(surface, "   ".join(rest), pygame.Rect(x, rect.y, max(0, right - x), rect.height))

    @staticmethod
    def _hint(surface, text: str, rect: pygame.Rect) -> list[str]:
        """The hint in ``rect``: one line at 14 px, else two at 12 px, else three at 11 px,
        else what fits of its clauses (split at ";" or ","), each whole."""
        col = (180, 200, 180)
        img = T.text(text, 14, col)
        if img.get_width() <= rect.width:
            surface.blit(img, (rect.x, rect.centery - img.get_height() // 2))
            return [text]
        for size, most in ((12, 2), (11, 3)):
            lines = [line.strip() for line in T.wrap(text, rect.width, size)]
            lh = T.font(size).get_linesize() - (2 if most == 3 else 0)
            if len(lines) <= most and lh * len(lines) <= rect.height - 2:
                top = rect.centery - lh * len(lines) // 2
                for i, line in enumerate(lines):
                    surface.blit(T.text(line, size, col), (rect.x, top + i * lh))
                return lines
        shown = ""
        for part in text.replace(";", ",").split(","):
            trial = (shown + "," + part) if shown else part
            if T.font(12).size(trial)[0] > rect.width:
                break
            shown = trial
        while shown.count("(") != shown.count(")"):  # never half a bracket: whole clauses only
            shown = shown.rpartition(",")[0]
        if shown:
            img = T.text(shown.strip(), 12, col)
            surface.blit(img, (rect.x, rect.centery - img.get_height() // 2))
        return [shown.strip()] if shown else []


DIFFICULT_INK = (130, 75, 15)


def difficult_line(info: dict) -> str:
    """The allowances of a path across difficult ground (M12), as the engine gives them
    (``unit_info``'s ``walk_difficult`` and ``run_difficult``); "" when they are the same."""
    walk, walk_d = info.get("walk"), info.get("walk_difficult")
    if walk is None or walk_d is None or abs(walk - walk_d) < 1e-9:
        return ""
    run_d = info.get("run_difficult")
    run = f'   Run {run_d:.2f}"' if run_d is not None else ""
    return f'across difficult ground (M12): Move {walk_d:.2f}"{run}'


def _flag(name: str, on: bool) -> tuple[str, Any]:
    return (f"{name}: {'yes' if on else 'no'}", (30, 30, 30) if on else SOFT)


class UnitCard:
    """The selected (or hovered) unit: stats, status, keywords, treasure, flags, allowance."""

    def draw(self, surface, rect: pygame.Rect, scene, uid: str | None, info: dict | None) -> None:
        surface.fill(PANEL_BG, rect)
        pygame.draw.rect(surface, PANEL_EDGE, rect, 1)
        if not uid or uid not in scene.state.units:
            self._draw_none(surface, rect)
            return
        u = scene.state.units[uid]
        colour = scene.painter.warband_colour(u.warband)
        pygame.draw.rect(surface, colour, pygame.Rect(rect.x, rect.y, 6, rect.height))
        x = rect.x + 12
        y = self._draw_who(surface, rect, scene, u, x, rect.y + 6)
        y = self._draw_state(surface, scene.state, u, x, y)
        if not u.on_table:
            surface.blit(T.text("Off the table", 13, BAD, True), (x, y))
            return
        if info is not None:
            y = self._draw_allowance(surface, rect, u, info, x, y)
        z = scene.board.height_at(u.x, u.y)
        if y < rect.bottom - 16:
            surface.blit(T.text(f"at ({u.x:.2f}, {u.y:.2f})" + (f', {z:g}" up' if z else ""), 11, SOFT), (x, y))

    @staticmethod
    def _draw_none(surface, rect: pygame.Rect) -> None:
        """The card with no unit: how to pick one."""
        surface.blit(T.text("No unit selected", 15, SOFT, True), (rect.x + 8, rect.y + 8))
        for i, s in enumerate(
            (
                "Click a unit to select it; drag it to move.",
                "Right-click a unit for engage, status, checks.",
                "F1 lists every key.",
            )
        ):
            surface.blit(T.text(s, 12, SOFT), (rect.x + 8, rect.y + 36 + i * 18))

    @staticmethod
    def _draw_who(surface, rect: pygame.Rect, scene, u, x: int, y: int) -> int:
        """The unit's name and id, warband, player and base, and stats; the y below them."""
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
        # a stat and its value stay on one line (a no-break space between them)
        stats = "   ".join(f"{k.capitalize()}\u00a0{v:g}" for k, v in u.stats.items())
        for line in T.wrap(stats, rect.width - 20, 13, True):
            surface.blit(T.text(line, 13, (30, 30, 30), True), (x, y))
            y += 17
        return y

    @staticmethod
    def _draw_state(surface, st, u, x: int, y: int) -> int:
        """Status, keywords, what it carries, its flags and whom it fights; the y below them."""
        status_col = (
            BAD if u.status in ("stunned", "incapacitated") else ((200, 110, 0) if u.status != "normal" else GOOD)
        )
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
        surface.blit(
            T.text(f"Engaged: {engaged}" + ("   (engage attempted)" if u.engage_attempted else ""), 12, (30, 30, 30)),
            (x, y),
        )
        return y + 17

    @staticmethod
    def _draw_allowance(surface, rect: pygame.Rect, u, info: dict, x: int, y: int) -> int:
        """The Move and Run allowances (or why there is none), difficult ground on the way;
        the y below them."""
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
            across = difficult_line(info)
            if across:
                surface.blit(T.text(across, 12, DIFFICULT_INK), (x, y))
                y += 16
        if info.get("run_denied") is not None:
            e = info["run_denied"]
            for line in T.wrap(f"Run: {e.rule}: {e.reason}", rect.width - 20, 12)[:3]:
                surface.blit(T.text(line, 12, BAD), (x, y))
                y += 16
        return y


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
            surface.blit(
                T.text("no rolls yet: Roll dice (D) or a unit's Check...", 11, SOFT), (rect.x + 6, rect.y + 54)
            )
