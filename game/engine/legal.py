"""What each unit of the side to act may do now: the units whose decision it is
(:func:`side_to_act`) and their :meth:`Game.legal_actions` (:func:`legal_report`), which
runs the same checks as ``apply``. ``speedheim legal`` (:mod:`game.commands.legal`) prints it.
"""

from __future__ import annotations

from game.engine.decisions import Grab, NeutralsAct
from game.engine.game import Game, Legal


def side_to_act(game: Game) -> list[str]:
    """The units on the table of the side whose decision it is now."""
    st, p = game.state, game.pending
    if isinstance(p, NeutralsAct):
        wid = game.neutral_id
    elif isinstance(p, Grab):
        wid = p.warband
    else:
        w = game.current_warband()
        wid = w.id if w is not None else None
    return [u.id for u in st.units.values() if u.warband == wid and u.on_table]


def legal_report(game: Game) -> list[Legal]:
    """What each unit of the side to act may do now, and why not."""
    return [game.legal_actions(uid) for uid in side_to_act(game)]
