"""The rule ids the program cites, as names: ``RuleId.M9`` is the rule "Jumping down".

One member per ``### ID Title`` section of the players' rules reference
(``game/assets/rules.md``, the ids of RULES.md): the numbered rules (G1-G4, O1-O3,
M1-M12, U1-U8, E1, E2, L1, L2, S1, S2, F1, T1) and the ids beside them that refusals
and log lines cite (``turn``, ``check``, ``free``, ``action``, ``internal`` ...).

A member is a ``str`` (:class:`enum.StrEnum`): ``RuleId.M9 == "M9"`` and ``str(RuleId.M9)``
and ``f"{RuleId.M9}"`` give ``"M9"``, so refusals, log lines, JSON output and replays read
exactly as plain strings would. Cite a rule by its member where the engine refuses an
action or records a step; ``speedheim rules ID`` finds those citations
(:mod:`game.rule_citations`) and prints them with the rule's text and parameters.
"""

from __future__ import annotations

from enum import StrEnum


class RuleId(StrEnum):
    """A rule id of the rules reference; the comment is its title there."""

    G1 = "G1"  # Distances are base edge to base edge
    G2 = "G2"  # Height counts
    G3 = "G3"  # "Within" includes the limit
    G4 = "G4"  # Contact
    TURN = "turn"  # The turn sequence
    O1 = "O1"  # Who goes first
    O2 = "O2"  # Activation
    O3 = "O3"  # First turn limits
    M1 = "M1"  # Moving
    M2 = "M2"  # Running
    M3 = "M3"  # Climbing and jumping are part of a move
    M4 = "M4"  # Low terrain is free
    M5 = "M5"  # Units block
    M6 = "M6"  # Climbing
    M7 = "M7"  # Falling
    M8 = "M8"  # Jumping a gap
    M9 = "M9"  # Jumping down
    M10 = "M10"  # Ladders
    M11 = "M11"  # Reloading
    M12 = "M12"  # Difficult ground
    U1 = "U1"  # Neutrals
    U2 = "U2"  # Rout
    U3 = "U3"  # Choosing to rout
    U4 = "U4"  # Treasure grab after a rout
    U5 = "U5"  # Recover, and what the statuses do
    U6 = "U6"  # Treasure
    U7 = "U7"  # Events and the Plague
    U8 = "U8"  # Ongoing spells
    CHECK = "check"  # A check
    FREE = "free"  # A free roll
    E1 = "E1"  # Engage
    E2 = "E2"  # Staying Engaged
    L1 = "L1"  # Line of sight
    L2 = "L2"  # Cover
    S1 = "S1"  # Shooting
    S2 = "S2"  # Wounds
    F1 = "F1"  # Melee
    T1 = "T1"  # Turn limit
    ACTION = "action"  # A malformed action
    INTERNAL = "internal"  # An error of ours
    BOT = "bot"  # The side is played by a bot
    UNDO = "undo"  # Nothing to undo
    REDO = "redo"  # Nothing to redo
