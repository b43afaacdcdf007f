"""The mouse in the play window: which tool a press, a drag and a release go to.

Left button: a click during a drag adds a waypoint; while a pick-up decision waits, a
click on a token in contact picks it up; with the ruler on, a drag measures; else a
press on a unit selects it and starts the drag tool. Right or middle drag pans; a
right click opens the context menu of the unit or token under the cursor. The wheel
zooms about the cursor (or scrolls the log when over it).
"""

from __future__ import annotations


import pygame

from game.ui.scenes.play.drag import DRAG_START_PX, DragTool
from game.ui.scenes.play.menus import PlayMenus
from game.ui.scenes.play.ruler import RulerTool
from game.ui.scenes.play.sidebar import Sidebar
from game.ui.scenes.play.table import Table


class Pointer:
    def __init__(self, scene: Table, sidebar: Sidebar, drag_tool: DragTool, menus: PlayMenus, ruler_tool: RulerTool):
        self.scene = scene
        self.sidebar = sidebar
        self.drag_tool = drag_tool
        self.menus = menus
        self.ruler_tool = ruler_tool
        self.mouse_pos: tuple[int, int] = (0, 0)  # last pointer position (wheel zoom centre)
        self.pan_from: tuple[int, int] | None = None
        self.pan_moved = False

    def handle(self, event):
        scene = self.scene
        if event.type == pygame.MOUSEWHEEL:
            if self.sidebar.log_view.handle_event(event, self.mouse_pos):
                return None
            if scene.in_view(self.mouse_pos):
                scene.camera.zoom_about(self.mouse_pos[0], self.mouse_pos[1], 1.15**event.y)
            return None
        if event.type == pygame.MOUSEBUTTONDOWN:
            return self.mouse_down(event)
        if event.type == pygame.MOUSEBUTTONUP:
            return self.mouse_up(event)
        if event.type == pygame.MOUSEMOTION:
            return self.mouse_move(event)
        return event

    def mouse_down(self, event):
        scene = self.scene
        pos = event.pos
        if event.button in (4, 5):  # old-style wheel buttons: MOUSEWHEEL handles zoom
            return None
        if event.button in (2, 3):
            self.pan_from, self.pan_moved = pos, False
            return None
        if event.button != 1 or not scene.in_view(pos):
            return event
        if self.drag_tool.dragging:
            self.drag_tool.add_waypoint(pos)  # a click during a drag adds a waypoint
        elif self.menus.pick_token(pos):
            pass
        elif self.ruler_tool.on:
            self.ruler_tool.press(pos)
        else:
            scene.selected = scene.unit_at(*pos)
            if scene.selected is not None:
                self.drag_tool.press(scene.selected, pos)
        return None

    def mouse_move(self, event):
        scene = self.scene
        pos = self.mouse_pos = event.pos
        if self.pan_from is not None:
            dx, dy = pos[0] - self.pan_from[0], pos[1] - self.pan_from[1]
            if abs(dx) + abs(dy) > 0 and (self.pan_moved or abs(dx) + abs(dy) >= DRAG_START_PX):
                self.pan_moved = True
                scene.camera.pan(dx, dy)
                self.pan_from = pos
            return None
        if self.ruler_tool.dragging:
            self.ruler_tool.motion(pos)
            return None
        if self.drag_tool.drag is not None:
            self.drag_tool.motion(pos)
            return None
        if scene.in_view(pos):
            scene.hover_token = scene.token_at(*pos)
            scene.hover_unit = scene.unit_at(*pos)
        return event

    def mouse_up(self, event):
        scene = self.scene
        pos = event.pos
        if event.button in (2, 3):
            moved = self.pan_moved
            self.pan_from, self.pan_moved = None, False
            if event.button == 3 and not moved and scene.in_view(pos):
                self.right_click(pos)
            return None
        if event.button != 1:
            return event
        if self.ruler_tool.dragging:
            self.ruler_tool.release(pos)
        elif self.drag_tool.drag is not None:
            self.drag_tool.release(pos)
        else:
            return event
        return None

    def right_click(self, pos) -> None:
        scene = self.scene
        uid = scene.unit_at(*pos)
        sel = scene.selected
        if uid is not None and sel is not None and sel != uid and scene.is_enemy(sel, uid):
            if self.menus.open_target_menu(sel, uid, pos):
                return
        if uid is not None:
            scene.selected = uid
            self.menus.open_menu(uid, pos)
            return
        tok = scene.token_at(*pos)
        if tok is not None:
            self.menus.open_token_menu(tok, pos)
