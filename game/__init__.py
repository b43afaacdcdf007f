"""Speedheim Table: a desktop digital tabletop for the skirmish wargame Speedheim.

``game.engine`` is the pure rules engine (no pygame). ``game.ui`` draws it.
"""

__version__ = "0.1.0"
