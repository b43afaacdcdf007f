"""The reachable area (placeholder: the grid version until the exact one lands)."""

from game.engine.movement.gridnav import NavCache as _GridNav

_cache = {}


def reach(nav, state, unit, walk, run, denied, descend):
    g = _cache.get(id(nav))
    if g is None:
        g = _cache[id(nav)] = _GridNav(nav.mover, cell=nav.cell)
    return g.reach(state, unit, walk, run, denied, descend)
