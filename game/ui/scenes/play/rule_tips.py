"""Rule tips: the text of a rule when the pointer is over its id in the log or on the
refusal shown on the table (issue 23).

Rule ids in the visible log lines are underlined; hovering one shows its rule from the
shipped rules reference (:mod:`game.rules_doc`, ``docs/rules.md``) in a wrapped panel;
a click keeps it open (a click elsewhere or Esc closes it), and the panel's last line
says that ``K`` opens every rule (:class:`game.ui.scenes.rules.RulesScene`). Hovering the
refusal box on the table shows the rule it cites and keeps the box up meanwhile. Reads
the scene; never changes the game.
"""

from __future__ import annotations

import time

import pygame

from game import rules_doc
from game.engine.rule_ids import RuleId
from game.ui import theme
from game.ui.keymap import PLAY
from game.ui.scenes.play.sidebar import Sidebar
from game.ui.scenes.play.table import Table
from game.ui.widgets import text as T


REFUSAL_S = 6.0  # how long a refusal stays on the table, seconds
TIP_W = 440  # the panel's width, pixels
SIZE = 13
LINK = (40, 80, 170)
BG = (255, 252, 238)
EDGE = (90, 80, 60)


#: What a banner pill means (its tip on hover, as a rule id's): title, text, and the rule
#: K opens the rules on while the tip is shown.
BADGES = {
    "placeholder combat": (
        "Placeholder combat",
        "The designers have not written the Engage, Shoot and Melee phases yet. So that a game "
        "against the bot (and every simulation) can be played to its end, Shoot and Attack are "
        "resolved by the placeholder rules S1, S2 and F1; the menus show the exact odds before "
        "each roll. A hot-seat game without a bot sets the results by hand instead (combat: manual).",
        RuleId.S1,
    ),
}


def tip_lines(rule: str, width: int = TIP_W - 20) -> list[tuple[str, str]]:
    """The panel's lines for ``rule`` (or a banner pill of :data:`BADGES`), each (text,
    style): its title ("title"), its text wrapped to ``width`` pixels ("body"), and how to
    keep it and read the rest ("foot"); [] for an id the reference does not know."""
    if rule in BADGES:
        title, text, first = BADGES[rule]
        head, what = title, "the label"
        paras = [text]
    else:
        e = rules_doc.lookup(rule)
        if e is None:
            return []
        head, what, paras = f"{e.rule}  {e.title}", "the id", e.text.split("\n")
    lines = [(line.strip(), "title") for line in T.wrap(head, width, SIZE + 1, True)]
    for para in paras:
        lines += [(line.strip(), "body") for line in T.wrap(para, width, SIZE)]
    foot = f"Click {what} to keep this open (Esc closes it). {PLAY.label('rules')}: every rule, docs/rules.md."
    return lines + [("", "body")] + [(line.strip(), "foot") for line in T.wrap(foot, width, SIZE)]


class RuleTips:
    def __init__(self, scene: Table, sidebar: Sidebar):
        self.scene = scene
        self.sidebar = sidebar
        #: The refusal box drawn on the table this frame (set by BoardLayers.draw_refusal).
        self.refusal_box: pygame.Rect | None = None
        self.hovered: tuple[str, tuple[int, int]] | None = None  # rule, where the pointer is
        self.pinned: tuple[str, tuple[int, int]] | None = None
        self._spans: dict[tuple[str, bool], list[tuple[int, int, str]]] = {}

    # --- where the ids are -------------------------------------------------------------
    def _id_spans(self, text: str, bold: bool) -> list[tuple[int, int, str]]:
        """Pixel spans (x0, x1, rule) of the rule ids of one log line, cached."""
        key = (text, bold)
        spans = self._spans.get(key)
        if spans is None:
            if len(self._spans) > 4000:
                self._spans.clear()
            f = T.font(self.sidebar.log_view.SIZE, bold)
            spans = self._spans[key] = [
                (f.size(text[:a])[0], f.size(text[:b])[0], r) for a, b, r in rules_doc.find_ids(text)
            ]
        return spans

    def log_links(self) -> list[tuple[pygame.Rect, str]]:
        """Every rule id drawn in the log now, with its rectangle on the screen."""
        view = self.sidebar.log_view
        out = []
        for text, bold, (x, y) in view.visible_lines():
            for x0, x1, rule in self._id_spans(text, bold):
                out.append((pygame.Rect(x + x0, y, x1 - x0, view.line_h), rule))
        return out

    def _refusal_rule(self) -> str | None:
        scene = self.scene
        if scene.refusal is None or time.monotonic() - scene.refusal[2] >= REFUSAL_S:
            return None
        return scene.refusal[0]

    def rule_at(self, pos) -> str | None:
        """The rule whose id (in the log) or refusal box (on the table) is under ``pos``."""
        for rect, rule in self.log_links():
            if rect.inflate(4, 2).collidepoint(pos):
                return rule
        rule = self._refusal_rule()
        if rule is not None and self.refusal_box is not None and self.refusal_box.collidepoint(pos):
            return rule if rules_doc.lookup(rule) else None
        for text, rect in self.sidebar.banner.pills:
            if text in BADGES and rect.collidepoint(pos):
                return text
        return None

    # --- events -------------------------------------------------------------------------
    def handle(self, event) -> bool:
        """Motion updates the hover (never used up); a left click on an id pins its tip
        (used up), a click anywhere else unpins it (not used up)."""
        if event.type == pygame.MOUSEMOTION:
            rule = self.rule_at(event.pos)
            self.hovered = (rule, event.pos) if rule else None
            if rule and rule == self._refusal_rule():
                r = self.scene.refusal
                self.scene.refusal = (r[0], r[1], time.monotonic())  # keep it up while read
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            rule = self.rule_at(event.pos)
            if rule is not None:
                self.pinned = None if self.pinned and self.pinned[0] == rule else (rule, event.pos)
                return True
            self.pinned = None
        return False

    def close(self) -> bool:
        """Esc: close a pinned tip; True if there was one."""
        was = self.pinned is not None
        self.pinned = self.hovered = None
        return was

    def shown(self) -> str | None:
        """The rule (or banner pill) whose tip is on the screen."""
        tip = self.hovered or self.pinned
        return tip[0] if tip else None

    def rule_shown(self) -> str | None:
        """The rule whose tip is on the screen; for a pill's tip, the first rule it names."""
        shown = self.shown()
        return BADGES[shown][2] if shown in BADGES else shown

    # --- drawing --------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        for rect, rule in self.log_links():
            pygame.draw.line(surface, LINK, (rect.x, rect.bottom - 2), (rect.right, rect.bottom - 2), 1)
        tip = self.hovered or self.pinned
        if tip is not None:
            self.draw_tip(surface, tip[0], tip[1], pinned=self.pinned is not None and tip == self.pinned)

    def draw_tip(self, surface: pygame.Surface, rule: str, at, pinned: bool = False) -> pygame.Rect | None:
        lines = tip_lines(rule)
        if not lines:
            return None
        lh = T.font(SIZE + 1, True).get_linesize()
        box = pygame.Rect(0, 0, TIP_W, 12 + lh * len(lines))
        w, h = surface.get_size()
        # Beside the pointer, towards the middle of the window, always inside it.
        box.right = at[0] - 12 if at[0] > w // 2 else at[0] + 12 + TIP_W
        box.top = at[1] + 16 if at[1] < h // 2 else at[1] - 16 - box.height
        box.clamp_ip(surface.get_rect())
        pygame.draw.rect(surface, BG, box, border_radius=6)
        pygame.draw.rect(surface, theme.INK if pinned else EDGE, box, 2 if pinned else 1, border_radius=6)
        y = box.y + 6
        for text, style in lines:
            bold = style == "title"
            colour = (110, 100, 90) if style == "foot" else (30, 28, 26)
            surface.blit(T.text(text, SIZE + 1 if bold else SIZE, colour, bold), (box.x + 10, y))
            y += lh
        return box
