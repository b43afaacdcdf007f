"""Speedheim Table: a desktop digital tabletop for the skirmish wargame Speedheim.

``game.engine`` is the pure rules engine (no pygame). ``game.ui`` draws it.
``game.bundled`` finds the data shipped inside the package (maps, rulesets, fonts).
"""
