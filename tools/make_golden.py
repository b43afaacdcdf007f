"""Golden replays: every bundled action script replayed to its `replay --json` lines.

    python tools/make_golden.py          # rewrite tests/golden/*.jsonl from the manifest
    python tools/make_golden.py --random # also regenerate the random scripts (once, by hand)

tests/test_golden.py replays each (scenario, script) pair of tests/golden/manifest.yaml and
compares the output with the stored lines: a refactoring must not change a single line. A
rule change that does change them regenerates the files, and the diff is read by hand.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import random
import sys
from contextlib import redirect_stdout

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
GOLDEN = os.path.join(ROOT, "tests", "golden")


def manifest() -> list[dict]:
    with open(os.path.join(GOLDEN, "manifest.yaml"), encoding="utf-8") as fh:
        return yaml.safe_load(fh)["replays"]


def replay_lines(scenario: str, script: str) -> str:
    from game.commands.replay import replay_cli

    out = io.StringIO()
    with redirect_stdout(out):
        replay_cli(os.path.join(ROOT, scenario), os.path.join(ROOT, script), as_json=True)
    return out.getvalue()


def random_script(scenario_path: str, seed: int, n: int) -> dict:
    """Random actions, legal or not, chosen with the engine's help so that most are legal."""
    from game.engine.game import Game
    from game.engine.dice import Dice
    from game.engine.scenario import load_scenario

    rng = random.Random(seed)
    sc = load_scenario(scenario_path)
    game = Game(sc, dice=Dice(seed=seed), history=False)
    actions = []
    for _ in range(n):
        if game.is_over():
            break
        st = game.state
        kinds = game.legal_action_kinds()
        mine = [u for u in st.units.values() if u.active and game.warband_player(u.warband) == st.player]
        everyone = [u for u in st.units.values() if u.active]
        kind = _random_kind(rng, game, kinds)
        act = _unit_action(rng, game, kind, mine, everyone)
        if act is None:
            act = _other_action(rng, game, kind, mine)
        if rng.random() < 0.1:
            act = {"end_phase": {}}
        game.try_apply(act)
        actions.append(act)
    return {"seed": seed, "actions": actions}


def _random_kind(rng: random.Random, game, kinds: list[str]) -> str:
    """A legal action kind, mostly a move where one may move, an engage where one may."""
    kind = rng.choice(kinds)
    if "move" in kinds and rng.random() < 0.75:
        kind = rng.choice(["move", "move", "run", "reload"])
    elif "engage" in kinds and rng.random() < 0.4:
        kind = "engage"
    elif game.pending and rng.random() < 0.7:
        kind = rng.choice([k for k in kinds if k not in ("rout", "roll", "check")] or kinds)
    return kind


def _move_to(rng: random.Random, kind: str, u, everyone: list) -> dict:
    """A move or run of ``u`` a random distance, mostly towards the nearest foe."""
    reach = rng.uniform(0.5, 9 if kind == "run" else 6.5)
    a = rng.uniform(0, 2 * math.pi)
    foes = [o for o in everyone if o.warband != u.warband]
    if foes and rng.random() < 0.6:
        f = min(foes, key=lambda o: math.hypot(o.x - u.x, o.y - u.y))
        a = math.atan2(f.y - u.y, f.x - u.x) + rng.uniform(-0.4, 0.4)
    to = [round(u.x + reach * math.cos(a), 2), round(u.y + reach * math.sin(a), 2)]
    act = {kind: {"unit": u.id, "to": to}}
    if rng.random() < 0.2:
        act[kind]["descend"] = "jump"
    return act


def _unit_action(rng: random.Random, game, kind: str, mine: list, everyone: list) -> dict | None:
    """A random action of ``kind`` that moves, engages or marks a unit; None for the other kinds
    (or where this one does not apply)."""
    if kind in ("move", "run") and mine and rng.random() < 0.85:
        return _move_to(rng, kind, rng.choice(mine), everyone)
    if kind == "pick_up" and game.pending and game.pending.options:
        unit, token = rng.choice(game.pending.options)
        return {"pick_up": {"unit": unit, "token": token}}
    if kind == "engage" and mine:
        u = rng.choice(mine)
        others = sorted((o for o in everyone if o.warband != u.warband), key=lambda o: game.board.distance(u, o))[:2]
        return {"engage": {"unit": u.id, "target": rng.choice(others).id}} if others else {"end_phase": {}}
    if kind == "set_status" and everyone:
        return {
            "set_status": {
                "unit": rng.choice(everyone).id,
                "status": rng.choice(["staggered", "dazed", "stunned", "normal"]),
            }
        }
    if kind == "incapacitate" and everyone and rng.random() < 0.3:
        return {"incapacitate": {"unit": rng.choice(everyone).id}}
    if kind == "check" and everyone:
        return {"check": {"unit": rng.choice(everyone).id, "stat": "agility"}}
    return None


def _other_action(rng: random.Random, game, kind: str, mine: list) -> dict:
    """A random action of ``kind`` among the rest (rolls, spells, answers to a pending
    decision, the ends of steps and phases); an end_phase where none applies."""
    if kind == "roll":
        return {"roll": {"sides": 6, "count": 2}}
    if kind == "reload" and mine:
        return {"reload": {"unit": rng.choice(mine).id}}
    if kind == "cast" and mine:
        return {"cast": {"unit": rng.choice(mine).id, "spell": "mist", "ongoing": rng.random() < 0.5}}
    if kind == "disengage" and mine:
        return {"disengage": {"unit": rng.choice(mine).id}}
    if kind in ("rout", "play_on") and game.pending:
        return {kind: {"player": game.pending.player}}
    if kind == "grab" and game.pending:
        p = game.pending
        return {"grab": {"unit": rng.choice(p.units), "token": p.token}}
    if kind in ("end_step", "end_phase", "end_turn"):
        return {kind: {}}
    return {"end_phase": {}}


RANDOM = [  # (scenario, script file, seed, actions)
    ("maps/default.yaml", "tests/scripts/random-default.yaml", 11, 400),
    ("maps/teach-climb.yaml", "tests/scripts/random-climb.yaml", 12, 200),
    ("maps/teach-treasure.yaml", "tests/scripts/random-treasure.yaml", 13, 300),
    ("tests/scripts/duel.yaml", "tests/scripts/random-duel.yaml", 14, 300),
    ("maps/stress.yaml", "tests/scripts/random-stress.yaml", 15, 120),
    ("tests/scripts/close.yaml", "tests/scripts/random-close.yaml", 16, 300),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", action="store_true", help="regenerate the random scripts first")
    ap.add_argument("--only", help="with --random: only the scripts whose path contains this")
    args = ap.parse_args()
    if args.random:
        for scen, script, seed, n in RANDOM:
            if args.only and args.only not in script:
                continue
            data = random_script(os.path.join(ROOT, scen), seed, n)
            lines = [
                f"# Random actions on {scen} (tools/make_golden.py --random); legal or not, for the golden replays.",
                f"seed: {data['seed']}",
                "actions:",
            ]
            lines += [
                "  - " + yaml.safe_dump(a, default_flow_style=True, width=10_000).strip() for a in data["actions"]
            ]
            with open(os.path.join(ROOT, script), "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
            print("wrote", script)
    for item in manifest():
        text = replay_lines(item["scenario"], item["script"])
        with open(os.path.join(GOLDEN, item["golden"]), "w", encoding="utf-8") as fh:
            fh.write(text)
        print("wrote", item["golden"], len(text.splitlines()), "lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
