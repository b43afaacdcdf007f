"""``speedheim rules [ID]``: the rules reference at the command line, for players and for
whoever changes a rule.

With no id, every rule id and its title, in the order of the reference. With an id, the
rule's text (``game/assets/rules.md``), the parameters of the bundled ruleset that belong
to it (:func:`game.engine.ruleset.rules_of`) with their values, and the places in ``game/``
that cite it as ``path:line`` (:mod:`game.rule_citations`): first the engine code that
enforces it (a refusal, a step or roll, a ``RuleId`` member, a function whose docstring
opens with the id), then the rest (the id in a message, the UI, the bots). An unknown id prints one line
with the nearest ids and exits 2. No pygame here.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import textwrap

from game import rules_doc
from game.rule_citations import Citation, citations_of

EXIT_OK, EXIT_BAD = 0, 2
#: Where the code that enforces a rule lives (a mere mention there counts as elsewhere).
ENGINE = os.path.join("game", "engine", "")
#: The width the rule's text is wrapped to.
WIDTH = 88


def format_value(value) -> str:
    """A parameter's value as its ruleset file writes it: ``true``, ``null``, ``1.5``,
    a list or table as one line of JSON."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (int, str)):
        return str(value)
    return json.dumps(value, sort_keys=False)


def parameters_of(rule: str) -> list[tuple[str, object]]:
    """The parameters of the bundled base ruleset that belong to ``rule``, with their values,
    in the order of the ruleset."""
    from game.engine.ruleset import NOT_RULES, load_ruleset, rules_of

    rs = load_ruleset()
    return [(key, rs[key]) for key in rs if key not in NOT_RULES and rule in rules_of(key)]


def _place(c: Citation) -> str:
    where = f"  {c.where}" if c.where else ""
    return f"  {c}  {c.kind}{where}"


def describe(rule: str) -> list[str]:
    """The lines ``speedheim rules RULE`` prints for a known ``rule``."""
    entry = rules_doc.entries()[rule]
    out = [f"{entry.rule} {entry.title}", ""]
    for para in entry.text.split("\n"):
        indent = "  " if para.startswith("- ") else ""
        out += textwrap.wrap(para, WIDTH, subsequent_indent=indent) or [""]
    params = parameters_of(rule)
    out += ["", "Parameters (bundled ruleset speedheim):" if params else "Parameters: none"]
    out += [f"  {key} = {format_value(value)}" for key, value in params]
    cited = citations_of(rule)
    engine = [c for c in cited if c.kind != "mentions" and c.path.startswith(ENGINE)]
    rest = [c for c in cited if c not in engine]
    out += ["", "Enforced in the engine:" if engine else "Enforced in the engine: no citation"]
    out += [_place(c) for c in engine]
    if rest:
        out += ["", "Cited elsewhere:"] + [_place(c) for c in rest]
    return out


def suggestion(rule: str) -> str:
    """`` (did you mean M9?)`` for an id close to a known one (any case), else ``""``."""
    known = list(rules_doc.entries())
    by_case = {k.lower(): k for k in known}
    close = difflib.get_close_matches(rule.lower(), list(by_case), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(by_case[c] for c in close)}?)" if close else ""


def rules_cli(rule: str | None) -> int:
    """Print the list of rules, or one rule; an unknown id exits 2 with one line on stderr."""
    entries = rules_doc.entries()
    if rule is None:
        width = max(len(r) for r in entries)
        for entry in entries.values():
            print(f"{entry.rule:<{width}}  {entry.title}")
        return EXIT_OK
    if rule not in entries:
        exact = {k.lower(): k for k in entries}.get(rule.lower())
        if exact is None:
            print(
                f"speedheim rules: unknown rule id {rule!r}{suggestion(rule)}; `speedheim rules` lists them all",
                file=sys.stderr,
            )
            return EXIT_BAD
        rule = exact
    print("\n".join(describe(rule)))
    return EXIT_OK
