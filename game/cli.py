"""The ``speedheim`` command (FORMATS.md): play, edit, check, measure, los, legal, advise, replay, render,
simulate, rules.

Bad input exits 2 with ``FILE:LINE: what is wrong`` lines on stderr, never a traceback.
Each command lives with its concern; this module only parses arguments and dispatches.
"""

from __future__ import annotations

import argparse

from game.bundled import default_scenario, version
from game.engine.errors import LoadError

EXIT_OK, EXIT_BAD = 0, 2


def file_kind(path: str) -> str:
    """Guess what a file is: 'scenario', 'actions', 'save', 'ruleset' or 'personality' (a
    bot's weights) by its top keys."""
    from game.engine.yamlsrc import load_yaml, read_text

    try:
        data = load_yaml(read_text(path), path).data
    except LoadError:
        return "scenario"
    if isinstance(data, dict):
        if "scenario" in data and ("actions" in data or "speedheim_save" in data):
            return "save"
        if "actions" in data or "seed" in data or "dice" in data:
            return "actions"
        if "warbands" not in data and ("phases" in data or "extends" in data or "check_die" in data):
            return "ruleset"
        if "warbands" not in data and "weights" in data:
            return "personality"
    return "scenario"


def cmd_check(args) -> int:
    from game.engine.ruleset import load_ruleset
    from game.engine.scenario import load_scenario

    bad = False
    for path in args.files:
        kind = file_kind(path)
        said = ""
        try:
            if kind == "actions":
                from game.engine.actions import load_script

                load_script(path)
            elif kind == "save":  # a saved game: it must replay
                from game.engine.saves import UPGRADE_NOTE, load_game

                said = "".join(f"; {text}" for _, text, kind_ in load_game(path).notes if kind_ == UPGRADE_NOTE)
            elif kind == "ruleset":
                load_ruleset(path)
            elif kind == "personality":
                from game.bots.personality import load_personality

                load_personality(path)
            else:
                load_scenario(path, playable=True)
        except LoadError as exc:
            exc.report()
            bad = True
            continue
        print(f"{path}: ok ({kind}){said}")
    return EXIT_BAD if bad else EXIT_OK


def cmd_measure(args) -> int:
    from game.commands.measure import measure_cli

    return measure_cli(args.scenario, args.a, args.b, ignore_height=args.ignore_height)


def cmd_los(args) -> int:
    from game.engine.sight import los_cli

    return los_cli(args.scenario, args.a, args.b, as_json=args.json)


def cmd_replay(args) -> int:
    from game.commands.replay import replay_cli

    return replay_cli(args.scenario, args.actions, as_json=args.json, save=args.save)


def cmd_legal(args) -> int:
    from game.commands.legal import legal_cli

    return legal_cli(args.scenario, args.actions, as_json=args.json)


def cmd_advise(args) -> int:
    from game.bots.advise import DEFAULT_BOT, advise_cli

    return advise_cli(
        args.scenario, args.actions, bot=DEFAULT_BOT if args.bot is None else args.bot, top=args.top, as_json=args.json
    )


def cmd_render(args) -> int:
    from game.ui.render import render_cli

    return render_cli(
        args.scenario, args.output, actions=args.actions, reveal=args.reveal, width=args.width, los=args.los
    )


def cmd_simulate(args) -> int:
    from game.sim.command import build_report, simulate

    return build_report(args.report) if args.report else simulate(args)


def cmd_rules(args) -> int:
    from game.rules_command import rules_cli

    return rules_cli(args.rule)


def _windowed(run) -> int:
    """Run a command that opens the window; with no display to show it on (game/ui/display.py),
    exit 2 with one line before pygame starts, or as soon as SDL falls back to a driver
    that shows nothing."""
    import sys

    from game.ui.display import NoDisplay, display_problem

    problem = display_problem()
    if problem is None:
        try:
            return run()
        except NoDisplay as exc:
            problem = str(exc)
    print(problem, file=sys.stderr)
    return EXIT_BAD


def cmd_play(args) -> int:
    def run() -> int:
        from game.ui.launch import play_cli

        return play_cli(
            args.scenario or default_scenario(), resume=args.resume, bots=tuple(args.bot or ()), bot_name=args.bot_name
        )

    return _windowed(run)


def cmd_edit(args) -> int:
    def run() -> int:
        from game.editor.app import edit_cli

        return edit_cli(args.scenario)

    return _windowed(run)


def _add_window_commands(sub) -> None:
    """The commands that open a window: play and edit."""
    p = sub.add_parser("play", help="open the table (no argument: the bundled default scenario)")
    p.add_argument("scenario", nargs="?")
    p.add_argument("--resume", action="store_true", help="resume the autosaved game without asking")
    p.add_argument(
        "--bot",
        type=int,
        choices=(1, 2),
        action="append",
        metavar="PLAYER",
        help="a bot plays this player (1 or 2; give both for a demo); the game is a bot game: "
        "placeholder combat, a turn limit and bot Neutrals unless the ruleset says otherwise",
    )
    p.add_argument(
        "--bot-name",
        default=None,
        metavar="NAME",
        help="the bot: utility (default), random, greedy, cautious, aggressive, utility:PERSONALITY.yaml, "
        "planner, planner:BUDGET (250ms, 2s); without --bot, the bot the hint (I) asks",
    )
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("edit", help="open the map editor")
    p.add_argument("scenario", nargs="?")
    p.set_defaults(func=cmd_edit)


def _add_query_commands(sub) -> None:
    """The commands that read a file and answer: check, measure, los, replay, legal, advise."""
    p = sub.add_parser("check", help="validate scenarios, action scripts, rulesets and bot personalities")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("measure", help="edge-to-edge distance in inches between A and B")
    p.add_argument("scenario")
    p.add_argument("a", metavar="A", help="a unit id, a treasure id or x,y")
    p.add_argument("b", metavar="B", help="a unit id, a treasure id or x,y")
    p.add_argument("--ignore-height", action="store_true", help="measure across the table only (the G2 variant)")
    p.set_defaults(func=cmd_measure)

    p = sub.add_parser("los", help="line of sight and cover (L1, L2) from unit A to unit B")
    p.add_argument("scenario")
    p.add_argument("a", metavar="A", help="the viewer's unit id")
    p.add_argument("b", metavar="B", help="the target's unit id")
    p.add_argument("--json", action="store_true", help="one JSON object: visible, cover, clear_lines, lines, distance")
    p.set_defaults(func=cmd_los)

    p = sub.add_parser("replay", help="apply an action script; --json prints one line per action")
    p.add_argument("scenario")
    p.add_argument("actions")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--save", metavar="GAME.yaml", help="also write the game as a save (every move with its resolved path)"
    )
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("legal", help="what each unit of the side to act may do now, and why not")
    p.add_argument("scenario")
    p.add_argument("actions", nargs="?", help="apply this action script first")
    p.add_argument("--json", action="store_true", help="one JSON line per unit, then the pending decision")
    p.set_defaults(func=cmd_legal)

    p = sub.add_parser("advise", help="a bot's best next actions for the side to act, with values and reasons")
    p.add_argument("scenario")
    p.add_argument("actions", nargs="?", help="apply this action script first")
    p.add_argument(
        "--bot",
        default=None,
        metavar="NAME",
        help="the bot that advises: any name simulate --bots takes (default planner)",
    )
    p.add_argument("--top", type=int, default=3, metavar="K", help="how many options (default 3)")
    p.add_argument("--json", action="store_true", help="one JSON object: player, bot, options")
    p.set_defaults(func=cmd_advise)


def _add_output_commands(sub) -> None:
    """The commands that write files or explain: render, simulate, rules."""
    p = sub.add_parser("render", help="draw the table to a PNG, headless")
    p.add_argument("scenario")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png")
    p.add_argument("--actions", help="apply this action script first")
    p.add_argument("--reveal", action="store_true", help="show what hides under treasure tokens")
    p.add_argument("--width", type=int, default=None, help="image width in pixels")
    p.add_argument("--los", metavar="UNIT", help="shade what UNIT cannot see; mark enemies visible, in cover or hidden")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("simulate", help="bot-versus-bot games in batch, and a balance report (docs/simulate.md)")
    p.add_argument("scenario", nargs="?", help="a scenario, or a study file (studies/*.yaml)")
    p.add_argument("--games", type=int, metavar="N", help="seeds per variant (default 100)")
    p.add_argument(
        "--bots",
        metavar="A,B",
        action="append",
        help="the bots of player 1 and player 2 (default utility,utility); repeatable: every pairing "
        "plays every variant on the same seeds",
    )
    p.add_argument(
        "--variant",
        action="append",
        metavar="SPEC",
        help="repeatable: a ruleset name or path, or key=value overrides joined by commas",
    )
    p.add_argument("--seed", type=int, metavar="S", help="game k of a variant uses seed S+k (default 0)")
    p.add_argument("--swap", action="store_true", help="also play every seed with the seats swapped")
    p.add_argument("--turn-limit", type=int, metavar="T", help="T1 (default: the scenario's or ruleset's, else 12)")
    p.add_argument("--workers", type=int, metavar="K", help="local processes (default: all cores)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run on a Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--out", metavar="DIR", help="where results go (default sim-out/)")
    p.add_argument("--resume", action="store_true", help="finish an interrupted run in DIR")
    p.add_argument("--keep-logs", action="store_true", help="write every game's action script")
    p.add_argument("--report", metavar="DIR", help="only rebuild summary.json and report.html from DIR/games.jsonl")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("rules", help="the rule ids; with ID, its text, its parameters and the code that enforces it")
    p.add_argument("rule", nargs="?", metavar="ID", help="a rule id, as `speedheim rules` lists them")
    p.set_defaults(func=cmd_rules)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="speedheim", description="Speedheim Table: a digital tabletop for Speedheim.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_window_commands(sub)
    _add_query_commands(sub)
    _add_output_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD
    try:
        return args.func(args)
    except LoadError as exc:
        return exc.report()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a file error no command caught: one line, never a traceback
        import sys

        print(f"{exc.filename or 'speedheim'}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD


if __name__ == "__main__":
    raise SystemExit(main())
