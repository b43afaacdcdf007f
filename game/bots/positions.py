"""Where one unit of the ``utility`` bot should end its move: candidates and their scores.

Candidates come from the unit's reachable area (``Mover.reachable``: points on a grid
over the walk and Run regions, free and with a check) and from what is on the table:
contact points around each free token, points by the ladders' feet and along the solid
terrain (cover). Each point gets a score from the personality's weights
(:meth:`PositionScorer.score`, vectorised over every point): treasure (contact, approach,
denying a token an enemy could take), safety (the expected loss from enemies that could
Engage or shoot it there next turn, the Run denial zone when it wants to Run next turn),
hunting enemies and support. The best few are planned by the movement engine (the real
path, its cost and its checks: a check's chance of failure costs), with line of sight
to the enemy shooters from the planned end (a look-ahead on a hypothetical state: nothing
is applied, no die is rolled). The winner must beat standing still; in the game itself
the seed picks among the planned places within the personality's ``vary`` of the best,
at its height (:meth:`PositionScorer.pick`), so seeds play different lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely

from game.bots import kernels as bot_kernels
from game.bots.routes import Route
from game.bots.sense import Sense, gap, next_status as _next
from game.engine import kernels as engine_kernels
from game.engine.dice import DISADVANTAGE, NORMAL
from game.engine.errors import IllegalAction
from game.engine.model import Unit
from game.engine.rules.wounds import check_chance

#: Grid step (inches) of the points drawn in a reachable region, and the most kept.
STEP = 0.75
MAX_POINTS = 500
#: Candidates planned by the movement engine per unit (the best by score first).
REFINE = 3
TRIES = 10
RING = 8  # contact points around a token
HUNTED = 5  # the nearest enemies a unit weighs closing on
URGENT = 2.0  # denying a token an enemy touches now is worth this many times more
SUPPORT_RANGE = 3.0
NEAR_AREA = 0.02  # a point this close to the reachable area counts as in it (its edge is exact to ~0.002")
HORIZON = 3  # tokens within this many moves (straight, with climbs) are gone for along a route
#: A place the seed may pick instead of the best stands at the best's height, within this
#: (inches): the score does not tell the roof from the foot of its ladder well enough to
#: trade one for the other.
LEVEL = 0.05


@dataclass
class Option:
    """A place to end the move: the point, the action kind, its score and why."""

    point: tuple[float, float]
    kind: str  # "hold" | "move" | "run"
    score: float
    terms: dict[str, float] = field(default_factory=dict)
    plan: object = None
    note: str = ""


class PositionScorer:
    """Scores places for one unit ``u`` of the side ``sense.side``."""

    def __init__(self, sense: Sense, u: Unit):
        self.s, self.u = sense, u
        self.p = sense.p
        rs = sense.rs
        self.move = float(u.stats.get("move", 0)) or 1.0
        self.free_h = float(rs.free_height)
        self.board = sense.view.board
        self.span = self.move * float(rs.run_multiplier)  # the furthest it may end this move
        self.threats = sense.threats_to(u, self.span)
        self.carrying = bool(u.carrying)
        self.picker = sense.can_pick_up(u)
        tv = sense.token_value()
        self.tokens = []  # (token, value, factor, denier or None, pickers)
        allies = [a for a in sense.mine if a.id != u.id and sense.can_pick_up(a)]
        for tok in sense.free_tokens:
            # (a roof higher than one Run climbs is still a goal: a route may go up in steps;
            # find_routes drops a token no route reaches, or none is known to)
            factor = 1.0
            if any(gap(a.x, a.y, a.r, tok) <= sense.contact for a in allies):
                factor = 0.15  # a friend stands at it already
            self.tokens.append((tok, tv, factor, sense.denied(tok), sense.pickers_near(tok)))
        #: token id (or "unit:" and an enemy's id) -> its Route, for the goals whose way
        #: differs from the straight line (a ladder, a climb, round a wall): their
        #: approach is scored along it
        self.routes: dict[str, Route] = {}
        self.route_upto: dict[str, float] = {}  # how far along each route this move goes
        self.beyond: dict[str, float] = {}  # token id -> inches it is at least (no route within HORIZON moves)
        self.offense = []  # (enemy, value of our attack on it next turn)
        my_next = sense.engage_reach(u, _next(u.status))
        self.reach = my_next
        if my_next > 0:
            near = sorted(sense.enemies, key=lambda e: gap(u.x, u.y, u.r, e))[:HUNTED]
            for e in near:
                odds = sense.book.melee(sense.view, u, e, _next(u.status))
                self.offense.append((e, sense.attack_value(odds, e)))

    # --- routes over several moves ------------------------------------------------------------------
    def allowances(self) -> tuple[float, float]:
        """(this move's furthest inches, each later move's): a Run where it may Run."""
        u, rs = self.u, self.s.rs
        walk = self.move
        if u.status in ("staggered", "dazed"):
            walk *= float(rs.staggered_move_factor if u.status == "staggered" else rs.dazed_move_factor)
        runs = not self.carrying and self.s.view.run_denial(u.id) is None
        later = self.move if self.carrying else self.span
        return walk * (float(rs.run_multiplier) if runs else 1.0), later

    def find_routes(self) -> None:
        """Ask the movement engine for the route to each token within :data:`HORIZON`
        moves as the crow flies (and climbs); keep those that differ from the straight
        line. A token no route reaches (or none this unit can walk, a climb too high for
        one move) is dropped: going for it is a wasted turn. Until this is asked, the
        score goes by the straight line.

        The tokens are asked nearest first (as the crow flies), and one is not asked
        when even its straight line (never dearer than a route) is worth less than a
        token asked before is along its route: its approach could not be the best."""
        u, s = self.u, self.s
        first, later = self.allowances()
        z = self.board.height_at(u.x, u.y)
        if not self.picker:
            self._hunt_routes(first, later, z)
            return
        keep = []
        best = 0.0
        for straight, entry in sorted(((self._straight(e[0], z), e) for e in self.tokens), key=lambda t: t[0]):
            tok, value, factor, denier = entry[:4]
            worth = value * factor * (0.3 if denier is not None else 1.0)
            flat = gap(u.x, u.y, u.r, tok)
            if (
                (flat <= s.contact and straight <= flat + 1e-9)
                or straight > HORIZON * later
                or self._approach(straight, first) * worth <= best
            ):
                keep.append(entry)
                continue
            within = HORIZON * later + u.r + tok.r
            route, turns = s.book.routes.best(s.view, u, (tok.x, tok.y), first, later, within)
            climb = self.board.height_at(tok.x, tok.y) - z
            too_high = climb >= self.span - 0.25  # more than one Run climbs
            if turns != turns:
                # not known (a planner's sandbox): the straight line, where one Run climbs it
                if not too_high:
                    keep.append(entry)
                continue
            if route is None and too_high:
                continue  # and no way up in steps
            if route is None:
                route, turns = self._ring_route(tok, first, later, within)
            if route is None and turns == turns:
                # no route to it within HORIZON moves: at least that far, less this move
                self.beyond[tok.id] = within - first - u.r - tok.r
                keep.append(entry)
                continue
            if route is None:  # not known beside it either: the straight line
                keep.append(entry)
                continue
            if turns == math.inf:
                continue
            # the way along the route where it is not the straight line: dearer, or up to
            # another level (the straight line leads to the foot of the wall under the
            # token, which may be no way up)
            if route.cost > straight + u.r + tok.r + 0.5 or route.stepped or abs(climb) > self.free_h:
                self.routes[tok.id] = route
                self.route_upto[tok.id] = route.stop(0.0, first)
            best = max(best, self._approach(route.cost - u.r - tok.r, first) * worth)
            keep.append(entry)
        self.tokens = keep
        self._hunt_routes(first, later, z)

    def _straight(self, tok, z: float) -> float:
        """Inches to contact with ``tok`` as the crow flies, with its climb: never more
        than a route there costs."""
        dz = abs(self.board.height_at(tok.x, tok.y) - z)
        return max(0.0, gap(self.u.x, self.u.y, self.u.r, tok)) + (dz if dz > self.free_h else 0.0)

    def _approach(self, cost: float, first: float) -> float:
        """The most a token ``cost`` inches away is worth at the end of this move (per
        point of its value), by :meth:`score`'s treasure term."""
        left = max(0.0, cost - first)
        return self.p.contact if left <= self.s.contact else self.p.approach * self.move / (self.move + left)

    def _hunt_routes(self, first: float, later: float, z: float) -> None:
        """The routes to the enemies it hunts that stand on another level (a roof, the
        ground below one): the straight line there is no way to them."""
        u, s = self.u, self.s
        for e, value in self.offense:
            dz = abs(self.board.height_at(e.x, e.y) - z)
            if value <= 0 or dz <= self.free_h or gap(u.x, u.y, u.r, e) + dz > HORIZON * later:
                continue
            within = HORIZON * later + u.r + e.r
            route, turns = s.book.routes.best(s.view, u, (e.x, e.y), first, later, within)
            if route is not None and turns < math.inf:
                self.routes[_unit_key(e.id)] = route
                self.route_upto[_unit_key(e.id)] = route.stop(0.0, first)

    def _ring_route(self, tok, first: float, later: float, within: float):
        """The route to a spot beside ``tok`` (its centre may be no place to end)."""
        u, s = self.u, self.s
        ring = u.r + tok.r + s.contact * 0.4
        a0 = math.atan2(u.y - tok.y, u.x - tok.x)
        for k in range(4):
            a = a0 + math.pi * k / 2
            route, turns = s.book.routes.best(
                s.view, u, (tok.x + ring * math.cos(a), tok.y + ring * math.sin(a)), first, later, within
            )
            if route is not None or turns != turns:
                return route, turns
        return None, math.inf

    def route_points(self, walk: float, run: float | None) -> list[tuple[float, float, bool, bool]]:
        """The places this move reaches along each route (x, y, needs a Run, needs a
        check): its furthest stop walking and running, and a little short of each (a
        stop the engine refuses, a base in the way, gives the next one a chance)."""
        out = []
        for route in self.routes.values():
            for budget, is_run in ((walk, False), (run, True)):
                if budget is None or budget <= 0:
                    continue
                s1 = route.stop(0.0, budget)
                for back in (0.0, 0.5, 1.5):
                    s = s1 - back
                    if s <= 0.25 or route._blocked(s):
                        continue
                    x, y = route.point(s)
                    out.append((x, y, is_run, route.checks_before(s) > 0))
        return out

    # --- candidates -------------------------------------------------------------------------------
    def candidates(self, reach) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Points (n x 2), whether each needs a Run (bool) and whether a check (bool)."""
        u = self.u
        pts, run, chk = [], [], []
        regions = [
            (reach.walk_free, False, False),
            (reach.walk_check, False, True),
            (reach.run_free, True, False),
            (reach.run_check, True, True),
        ]
        seen = set()
        for region, is_run, is_chk in regions:
            for x, y in _grid_points(region):
                key = (round(x, 2), round(y, 2))
                if key in seen:
                    continue
                seen.add(key)
                pts.append((x, y)), run.append(is_run), chk.append(is_chk)
        special = []
        for tok, *_ in self.tokens:
            d = math.hypot(tok.x - u.x, tok.y - u.y)
            if d - u.r - tok.r > (reach.run_allowance or reach.walk_allowance) + 1:
                continue
            ring = u.r + tok.r + self.s.contact * 0.4
            a0 = math.atan2(u.y - tok.y, u.x - tok.x)
            for k in range(RING):
                a = a0 + 2 * math.pi * k / RING
                special.append((tok.x + ring * math.cos(a), tok.y + ring * math.sin(a)))
        top = reach.run_allowance or reach.walk_allowance
        for lad in self.s.view.ladders:
            fx, fy = lad.foot
            if math.hypot(fx - u.x, fy - u.y) <= top + u.r + 1:
                special.append((fx, fy))
        area = (
            shapely.union_all([r for r, *_ in regions if r is not None and not r.is_empty])
            if any(r is not None and not r.is_empty for r, *_ in regions)
            else None
        )
        if area is not None and special:
            # only those the unit can reach (a token's ring may hang off a roof, a Run may be denied)
            S = np.array(special, float)
            special = [tuple(p) for p in S[shapely.dwithin(area, shapely.points(S), NEAR_AREA)].tolist()]
        for x, y in special if area is not None else ():
            pts.append((x, y)), run.append(not _in_walk(reach, x, y)), chk.append(False)
        for x, y, is_run, is_chk in self.route_points(reach.walk_allowance, reach.run_allowance):
            pts.append((x, y)), run.append(is_run), chk.append(is_chk)
        if area is not None:
            for x, y in _cover_points(self.s.view, u, area):
                pts.append((x, y)), run.append(not _in_walk(reach, x, y)), chk.append(False)
        if not pts:
            return np.zeros((0, 2)), np.zeros(0, bool), np.zeros(0, bool)
        P, R, C = np.array(pts, float), np.array(run, bool), np.array(chk, bool)
        # Never further than the allowance as the crow flies (the cheap test first).
        far = np.hypot(P[:, 0] - u.x, P[:, 1] - u.y) > np.where(R, top, reach.walk_allowance) + 1e-6
        return P[~far], R[~far], C[~far]

    # --- the score ----------------------------------------------------------------------------------
    def score(self, P: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The score of ending at each point of ``P`` (n x 2), and its terms: those of
        :meth:`score_numpy`, from a compiled kernel (:func:`.kernels.score_kernel`) once
        the process uses the kernels (:func:`game.engine.kernels.use`)."""
        if len(P) and engine_kernels.use():
            return compiled_score(self, P)
        return self.score_numpy(P)

    def score_numpy(self, P: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """:meth:`score` in numpy: the reference the kernel is held to."""
        s, p, u = self.s, self.p, self.u
        n = len(P)
        X, Y = P[:, 0], P[:, 1]
        Z = self.board.heights_at(X, Y)
        terms: dict[str, np.ndarray] = {}
        treasure, deny, routed, routed_tok, best_cost = self._token_terms(X, Y, Z)
        terms["treasure"], terms["deny"] = treasure, deny
        terms["_route_left"], terms["_route_tok"] = routed, routed_tok
        threat, nearest = self._threat_and_nearest(X, Y)
        caution = p.threat * (p.carrier_caution if self.carrying else 1.0)
        terms["threat"] = -caution * threat
        terms["hunt"], best_cost = self._hunt_term(X, Y, Z, best_cost)
        near_enemy = nearest <= float(s.rs.run_denial_range)
        run_wanted = (~self.carrying) & (best_cost > self.move) & np.isfinite(best_cost)
        terms["run_zone"] = -p.run_zone * (near_enemy & run_wanted)
        terms["_run_kept"] = (~near_enemy & run_wanted & (nearest <= float(s.rs.run_denial_range) + 3)).astype(float)
        friends = np.zeros(n)
        for a in s.mine:
            if a.id != u.id:
                friends += (np.hypot(X - a.x, Y - a.y) - u.r - a.r) <= SUPPORT_RANGE
        terms["support"] = p.support * np.minimum(friends, 2) * near_enemy
        total = sum(v for k, v in terms.items() if not k.startswith("_"))
        terms["_nearest"] = nearest
        return total, terms

    def _token_terms(self, X: np.ndarray, Y: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, ...]:
        """At each point: the treasure term, the deny term, the way left along the route
        of the token the treasure term is worth most for (nan where it has no route, or
        none counts) and that token's index (-1 where none), and the least cost to a token
        worth its full value."""
        s, p, u = self.s, self.p, self.u
        n = len(X)
        treasure = np.zeros(n)
        best_cost = np.full(n, np.inf)
        routed = np.full(n, np.nan)
        routed_tok = np.full(n, -1.0)
        deny = np.zeros(n)
        lim = float(s.rs.treasure_denial_range)
        for tok, value, factor, denier, pickers in self.tokens:
            tz = self.board.height_at(tok.x, tok.y)
            flat = np.hypot(X - tok.x, Y - tok.y) - u.r - tok.r
            dz = np.abs(tz - Z)
            route = self.routes.get(tok.id)
            if route is not None:  # what is left of the way along the route (its checks priced)
                cost = np.maximum(route.to_go(X, Y, Z, self.route_upto[tok.id]) - u.r - tok.r, 0.0)
            else:
                cost = np.maximum(flat, 0.0) + np.where(dz > self.free_h, dz, 0.0)
                if tok.id in self.beyond:
                    cost = np.maximum(cost, self.beyond[tok.id])
            if self.picker:
                touching = (flat <= s.contact) & (dz <= self.free_h)
                f = factor * (0.3 if denier is not None else 1.0)
                val = np.where(touching, p.contact, p.approach * self.move / (self.move + cost)) * value * f
                # the token the treasure term is worth most for (the first of equal ones), and
                # the way left along its route where it has one (nan: the straight line)
                better = val > treasure
                routed = np.where(better, cost if route is not None else np.nan, routed)
                routed_tok = np.where(better, float(s.free_tokens.index(tok)), routed_tok)
                treasure = np.maximum(treasure, val)
                if factor >= 1.0:
                    best_cost = np.minimum(best_cost, cost)
            if pickers:
                # An enemy in contact picks it up at its next upkeep unless someone denies it;
                # a friend already denying it makes one more of us worth little.
                urgent = any(gap(e.x, e.y, e.r, tok) <= s.contact for e in pickers)
                covered = any(a.id != u.id and gap(a.x, a.y, a.r, tok) <= lim for a in s.mine)
                weight = p.deny * value * (URGENT if urgent else 1.0) * (0.3 if covered else 1.0)
                deny = np.maximum(deny, np.where(flat <= lim, weight, 0.0))
        return treasure, deny, routed, routed_tok, best_cost

    def _threat_and_nearest(self, X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """At each point: the loss the threats may deal there (a shot counts half), and the
        distance to the nearest threat (to the nearest enemy where there is no threat)."""
        s, u = self.s, self.u
        n = len(X)
        threat = np.zeros(n)
        nearest = np.full(n, np.inf)
        for e, reach, loss, how in self.threats:
            d = np.hypot(X - e.x, Y - e.y) - u.r - e.r
            nearest = np.minimum(nearest, d)
            threat += np.where(d <= reach + s.contact, loss, 0.0) * (0.5 if how == "shoot" else 1.0)
        if not self.threats:
            for e in s.enemies:
                nearest = np.minimum(nearest, np.hypot(X - e.x, Y - e.y) - u.r - e.r)
        return threat, nearest

    def _hunt_term(
        self, X: np.ndarray, Y: np.ndarray, Z: np.ndarray, best_cost: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """At each point: the hunt term (the best enemy worth attacking, the nearer the
        more), and ``best_cost`` lowered by the way to an enemy where the unit does not go
        for tokens."""
        p, u = self.p, self.u
        hunt = np.zeros(len(X))
        for e, value in self.offense:
            if value <= 0:
                continue
            route = self.routes.get(_unit_key(e.id))
            if route is not None:  # an enemy up on a roof (or down below): the way there
                d = route.to_go(X, Y, Z, self.route_upto[_unit_key(e.id)]) - u.r - e.r - self.reach
            else:
                d = np.hypot(X - e.x, Y - e.y) - u.r - e.r - self.reach
            hunt = np.maximum(hunt, p.hunt * value * np.where(d <= 0, 1.0, self.move / (self.move + np.maximum(d, 0))))
            if not self.picker or not self.tokens:
                best_cost = np.minimum(best_cost, np.maximum(d, 0.0))
        return hunt, best_cost

    # --- the choice -----------------------------------------------------------------------------------
    def could_gain(self, hold: "Option") -> bool:
        """Could any place within the unit's furthest move (as the crow flies: every place
        it can reach is in that disc) beat standing still? A quick bound that spares the
        reachable area's search for units with nowhere better to go."""
        u, rs = self.u, self.s.rs
        walk = self.move
        if u.status in ("staggered", "dazed"):
            walk *= float(rs.staggered_move_factor if u.status == "staggered" else rs.dazed_move_factor)
        runs = not self.carrying and self.s.view.run_denial(u.id) is None
        r = walk * (float(rs.run_multiplier) if runs else 1.0)
        xs = np.arange(-r, r + 1e-9, STEP)
        gx, gy = np.meshgrid(xs, xs)
        inside = gx**2 + gy**2 <= r * r
        pts = [np.column_stack([u.x + gx[inside], u.y + gy[inside]])]
        for tok, *_ in self.tokens:
            ring = u.r + tok.r + self.s.contact * 0.4
            a = np.linspace(0, 2 * math.pi, 2 * RING, endpoint=False)
            pts.append(np.column_stack([tok.x + ring * np.cos(a), tok.y + ring * np.sin(a)]))
        P = np.vstack(pts)
        P = P[np.hypot(P[:, 0] - u.x, P[:, 1] - u.y) <= r + 1e-6]
        if not len(P):
            return False
        scores, _ = self.score(P)
        if self.s.weapon(u) is not None:
            # beyond the walk (as the crow flies) only a Run gets there, and a Run forfeits the shot
            scores = scores - np.where(np.hypot(P[:, 0] - u.x, P[:, 1] - u.y) > walk + 1e-6, self.p.shoot, 0.0)
        return float(scores.max()) > hold.score + self.p.min_gain

    def best(self, reach_of) -> tuple[Option, Option]:
        """(the best option, standing still): both scored; the best may be the hold.
        ``reach_of()`` gives the unit's reachable area (asked only when a move could pay)."""
        u, view = self.u, self.s.view
        self.find_routes()  # before standing still is scored: the foot of a wall is no place to wait
        here = np.array([[u.x, u.y]])
        h_score, h_terms = self.score(here)
        hold = Option((u.x, u.y), "hold", float(h_score[0]), _row(h_terms, 0))
        if not self.could_gain(hold):
            return hold, hold
        reach = reach_of()
        if reach is None:
            return hold, hold
        P, run, chk = self.candidates(reach)
        if not len(P):
            return hold, hold
        scores, terms = self.score(P)
        # a place that needs a check is worth at most its score if the check passes and
        # standing still if it fails (a Fall, less): weighed so, in order
        once = float(check_chance(self.s.rs, float(u.stats.get("agility", 0)), NORMAL))
        bound = np.where(chk & (scores > hold.score), once * scores + (1 - once) * hold.score, scores)
        order = np.argsort(-bound, kind="stable")
        # In the game itself (not a planner's rollout, which keeps to the best so its
        # plans compare on the same play) places near the best are as good: the seed picks.
        vary = 0.0 if view.thinking else float(self.p.vary)
        found: list[Option] = []
        weighed = 0
        for i in order[:TRIES]:
            if bound[i] <= hold.score + self.p.min_gain or weighed >= REFINE:
                break
            if not self.may_win(float(bound[i]), bool(run[i]), hold, found, vary):
                weighed += 1
                continue  # even at its best once planned it could not win: spare the path search
            x, y = float(P[i, 0]), float(P[i, 1])
            kinds = ("run",) if run[i] else ("move", "run")
            for kind in kinds:
                plan = view.plan_move(u.id, (x, y), run=(kind == "run"))
                if isinstance(plan, IllegalAction):
                    continue
                opt = Option((x, y), kind, float(scores[i]), _row(terms, i), plan)
                self._refine(opt, hold)
                found.append(opt)
                weighed += 1
                break
        return self.pick(found, hold, vary), hold

    def pick(self, found: list[Option], hold: Option, vary: float) -> Option:
        """The place to end the move among the planned ``found``: the best (the first
        found of equal ones), else standing still when none beats it by ``min_gain``;
        with ``vary`` > 0, one of those within ``vary`` of the best and at its height
        (:data:`LEVEL`), drawn with the bot's own generator (``View.rng``: one seed
        replays one game, another may play another place that is as good)."""
        good = [o for o in found if o.score > hold.score + self.p.min_gain]
        if not good:
            return hold
        best = max(good, key=lambda o: o.score)
        if vary <= 0:
            return best
        level = self.board.height_at(*best.point)
        near = [
            o for o in good if o.score >= best.score - vary and abs(self.board.height_at(*o.point) - level) <= LEVEL
        ]
        if len(near) == 1:
            return best
        return near[self.s.view.rng(f"place:{self.u.id}").randrange(len(near))]

    def may_win(self, score: float, run: bool, hold: Option, found: list[Option], vary: float = 0.0) -> bool:
        """Could a candidate of this static ``score`` (a bound: with a check, mixed with
        standing still by the chance to pass one; needing a Run or not) beat
        ``found`` (less ``vary``: a place that near the best may be picked) and standing
        still once :meth:`_refine` has weighed its plan? The most refining adds is every
        shooter's loss (as if all lost sight of it); a check's chance only mixes the score
        with a failure's, which is at best standing still; a Run by a shooter loses its
        shot for sure."""
        p = self.p
        bar = max([hold.score + p.min_gain] + [o.score - vary for o in found])
        lift = sum(0.5 * p.threat * loss for _e, _r, loss, how in self.threats if how == "shoot")
        forfeit = p.shoot if run and self.s.weapon(self.u) is not None else 0.0
        return max(score, hold.score) + lift - forfeit > bar

    def _refine(self, opt: Option, hold: Option) -> None:
        """The planned move: its checks' chance of failure, the shooters that see the end
        (and whether it is in cover there), a forfeited shot for a Run."""
        s, u, p = self.s, self.u, self.p
        plan = opt.plan
        chance = 1.0
        agility = float(u.stats.get("agility", 0))
        for t in getattr(plan, "checks", []):
            chance *= float(check_chance(s.rs, agility, DISADVANTAGE if t.disadvantage else NORMAL))
        # a failed climb up leaves the unit at the foot (M6): the risk is a Fall's alone
        falls = any(s.view.failure_falls(t) for t in getattr(plan, "checks", []))
        score = chance * opt.score + (1 - chance) * (hold.score - (p.check_risk if falls else 0.0))
        end = plan.end if plan is not None else opt.point
        shooters = [
            (e, loss)
            for e, reach, loss, how in self.threats
            if how == "shoot" and math.hypot(end[0] - e.x, end[1] - e.y) - u.r - e.r <= reach
        ]
        if shooters:
            with s.view.what_if() as st:
                st.units[u.id].x, st.units[u.id].y = end
                for e, loss in shooters:
                    seen = s.view.sight(e.id, u.id, st)
                    if seen is not None and not seen.visible:
                        score += 0.5 * p.threat * loss  # the static score counted it
                    elif seen is not None and getattr(seen, "cover", False):
                        score += 0.25 * p.threat * loss  # Disadvantage: about half the hits
        if opt.kind == "run" and s.weapon(u) is not None:
            score -= p.shoot
        opt.score = score
        opt.note = f"{chance:.0%} to pass {len(plan.checks)} check(s)" if plan is not None and plan.checks else ""


def packed(sc: PositionScorer, X: np.ndarray, Y: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arguments of :func:`.kernels.score_kernel` after the points: the scorer's
    scalars, its tokens, threats, enemies, hunted enemies, friends and the routes' way left
    from each point (see the column names in :mod:`game.bots.kernels`). Each scalar is
    the one :meth:`PositionScorer.score_numpy` computes, in the same order."""
    s, p, u = sc.s, sc.p, sc.u
    rdr = float(s.rs.run_denial_range)
    caution = p.threat * (p.carrier_caution if sc.carrying else 1.0)
    # in the order of the names in game.bots.kernels (MOVE, FREE_H, ... SUPPORT_RANGE)
    S = [sc.move, sc.free_h, s.contact, sc.picker, sc.carrying, float(s.rs.treasure_denial_range), p.contact]
    S += [p.approach * sc.move, -caution, -p.run_zone, p.support, rdr, sc.reach, not sc.picker or not sc.tokens]
    S += [rdr + 3, SUPPORT_RANGE]
    go: list[np.ndarray] = []

    def route_row(key: str) -> int:
        route = sc.routes.get(key)
        if route is None:
            return -1
        go.append(route.to_go(X, Y, Z, sc.route_upto[key]))
        return len(go) - 1

    tok = []
    for t, value, factor, denier, pickers in sc.tokens:
        row = route_row(t.id)
        share = factor * (0.3 if denier is not None else 1.0)
        index = float(s.free_tokens.index(t)) if sc.picker else -1.0
        z = sc.board.height_at(t.x, t.y)
        beyond = sc.beyond.get(t.id, math.nan)
        tok.append((t.x, t.y, t.r, z, row, beyond, value, factor, share, _deny_weight(sc, t, value, pickers), index))
    thr = [
        (e.x, e.y, e.r, reach + s.contact, loss, 0.5 if how == "shoot" else 1.0) for e, reach, loss, how in sc.threats
    ]
    ene = [(e.x, e.y, e.r) for e in s.enemies]
    off = [(e.x, e.y, e.r, p.hunt * value, route_row(_unit_key(e.id))) for e, value in sc.offense if value > 0]
    ally = [(a.x, a.y, a.r) for a in s.mine if a.id != u.id]
    GO = np.array(go) if go else np.zeros((0, len(X)))
    return np.array(S, dtype=float), _rows(tok, 11), _rows(thr, 6), _rows(ene, 3), _rows(off, 5), _rows(ally, 3), GO


def _deny_weight(sc: PositionScorer, tok, value: float, pickers) -> float:
    """The deny term's weight of a token within reach of it (nan: no enemy could take it),
    as :meth:`PositionScorer._token_terms` weighs it."""
    if not pickers:
        return math.nan
    s, u = sc.s, sc.u
    lim = float(s.rs.treasure_denial_range)
    urgent = any(gap(e.x, e.y, e.r, tok) <= s.contact for e in pickers)
    covered = any(a.id != u.id and gap(a.x, a.y, a.r, tok) <= lim for a in s.mine)
    return sc.p.deny * value * (URGENT if urgent else 1.0) * (0.3 if covered else 1.0)


def _rows(rows: list[tuple], width: int) -> np.ndarray:
    return np.array(rows, dtype=float) if rows else np.zeros((0, width))


def compiled_score(sc: PositionScorer, P: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:meth:`PositionScorer.score` by :func:`.kernels.score_kernel`: the same total and terms."""
    f = engine_kernels.f64
    X, Y = f(P[:, 0]), f(P[:, 1])
    Z = f(sc.board.heights_at(X, Y))
    out = bot_kernels.score_kernel(X, Y, Z, float(sc.u.r), *packed(sc, X, Y, Z))
    terms = dict(zip(bot_kernels.TERMS, out))
    terms["_nearest"] = out[bot_kernels.NEAREST]
    return out[bot_kernels.TOTAL], terms


def _unit_key(uid: str) -> str:
    """The key of a route to a unit in :attr:`PositionScorer.routes` (tokens go by their id)."""
    return f"unit:{uid}"


def _in_walk(reach, x: float, y: float) -> bool:
    return any(
        r is not None and not r.is_empty and shapely.contains_xy(r, x, y) for r in (reach.walk_free, reach.walk_check)
    )


def _row(terms: dict[str, np.ndarray], i: int) -> dict[str, float]:
    return {k: float(v[i]) for k, v in terms.items()}


def _grid_points(region) -> list[tuple[float, float]]:
    if region is None or region.is_empty:
        return []
    minx, miny, maxx, maxy = region.bounds
    xs = np.arange(minx + STEP / 2, maxx, STEP)
    ys = np.arange(miny + STEP / 2, maxy, STEP)
    if not len(xs) or not len(ys):
        c = region.representative_point()
        return [(c.x, c.y)]
    gx, gy = np.meshgrid(xs, ys)
    gx, gy = gx.ravel(), gy.ravel()
    shapely.prepare(region)
    inside = shapely.contains_xy(region, gx, gy)
    pts = list(zip(gx[inside].tolist(), gy[inside].tolist()))
    if len(pts) > MAX_POINTS:
        pts = pts[:: math.ceil(len(pts) / MAX_POINTS)]
    if not pts:
        c = region.representative_point()
        pts = [(c.x, c.y)]
    return pts


_RINGS: dict[tuple[int, float], tuple[object, object]] = {}


def _ring(t, r: float):
    """The line a base of radius ``r`` follows around terrain piece ``t`` (cached)."""
    key = (id(t), round(r, 4))
    hit = _RINGS.get(key)
    if hit is None or hit[0] is not t:
        if len(_RINGS) > 4096:
            _RINGS.clear()
        hit = _RINGS[key] = (t, shapely.Polygon(t.polygon).buffer(r + 0.1, quad_segs=2).exterior)
    return hit[1]


def _cover_points(view, u: Unit, area) -> list[tuple[float, float]]:
    """Points just off the solid terrain inside ``area`` (for cover), one per inch."""
    out = []
    for t in view.terrain:
        if not t.solid or t.height <= 0:
            continue
        ring = _ring(t, u.r)
        if not ring.intersects(area):
            continue
        part = ring.intersection(area)
        length = part.length
        for k in range(int(length)):
            pt = part.interpolate(k + 0.5)
            out.append((pt.x, pt.y))
    return out
