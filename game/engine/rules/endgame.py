"""How a game ends besides a rout: the turn limit (T1)."""

from __future__ import annotations

from game.engine.events import Won
from game.engine.rules.context import Ctx


def game_turn_ends(ctx: Ctx) -> bool:
    """T1: at the end of game turn ``turn_limit`` the game ends; True when it did. By
    default a draw; ``turn_limit_winner: treasure``: most tokens held wins, then fewer
    units lost; otherwise a draw."""
    st, rs = ctx.state, ctx.rs
    limit = rs.turn_limit
    if limit is None or st.turn < limit:
        return False
    reason = f"the turn limit ({limit} game turns, T1)"
    winner = None
    if rs.turn_limit_winner == "treasure":
        bands = [w.id for w in ctx.scenario.warbands if w.player > 0 and w.id not in st.routed]
        held = {w: sum(1 for u in st.units_of(w) if u.carrying and u.on_table) for w in bands}
        ranked = sorted(bands, key=lambda w: (-held[w], st.lost.get(w, 0)))
        if len(ranked) == 1 or (
            len(ranked) > 1
            and (held[ranked[0]], -st.lost.get(ranked[0], 0)) != (held[ranked[1]], -st.lost.get(ranked[1], 0))
        ):
            winner = ranked[0]
            reason += f": most treasure held ({held[winner]}), then fewer units lost ({st.lost.get(winner, 0)})"
        else:
            reason += ": treasure and losses level"
    st.winner, st.draw, st.end_reason = winner, winner is None, reason
    ctx.emit(Won(winner, reason))
    return True
