"""The map editor (issue 6): build, edit, validate and save scenario maps.

``document`` is pure Python (no pygame): the scenario being edited plus an undo/redo
stack. ``roster`` loads warband rosters. ``scene`` and ``app`` are the pygame window.
"""
