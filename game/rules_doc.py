"""The players' rules reference (``game/assets/rules.md``, shipped in the package): every
rule id the program cites, with its text in plain words. ``docs/rules.md`` in the
repository is the same file (a symbolic link).

:func:`entries` reads it once: a rule is a ``### ID Title`` heading and the text under it.
:func:`find_ids` finds the rule ids in a line of the log or a refusal, with their place,
so the window can show a rule's text when the pointer is over its id. No pygame here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from game.bundled import rules_doc

#: A rule's heading: ``### M5 Units block`` (the id, then its title).
_HEADING = re.compile(r"^###\s+([A-Za-z]+\d*)\s+(.*)$")
#: A rule id of the rules (G1, M12, U6 ...) as it appears in a sentence.
_RULE_ID = re.compile(r"(?<![A-Za-z0-9_])([GMULSFETO]\d{1,2})(?![A-Za-z0-9_])")
#: The other ids a refusal or a log line names right before its colon ("turn: ...").
_WORD_ID = re.compile(r"(?<![A-Za-z0-9_\-])([a-z]+)(?=: )")


def path() -> str:
    """The file: ``game/assets/rules.md`` in the installed package."""
    return rules_doc()


@dataclass(frozen=True)
class RuleEntry:
    rule: str
    title: str
    text: str  # paragraphs joined with blank lines; list items start with "- "


def parse(markdown: str) -> dict[str, RuleEntry]:
    """Every ``### ID Title`` section of ``markdown``, in order of the file."""
    out: dict[str, RuleEntry] = {}
    rule = title = None
    body: list[str] = []

    def close():
        if rule is not None:
            out[rule] = RuleEntry(rule, title, _paragraphs(body))

    for line in markdown.splitlines():
        m = _HEADING.match(line)
        if m or line.startswith("#"):
            close()
            rule, title, body = (m.group(1), m.group(2).strip(), []) if m else (None, None, [])
        elif rule is not None:
            body.append(line)
    close()
    return out


def _paragraphs(lines: list[str]) -> str:
    """Markdown lines as plain paragraphs: wrapped lines joined, list items kept apart."""
    paras: list[str] = []
    cur: list[str] = []
    for line in lines + [""]:
        s = line.strip()
        if not s or s.startswith("- "):
            if cur:
                paras.append(" ".join(cur))
            cur = [s] if s else []
        else:
            cur.append(s)
    return "\n".join(p.replace("**", "").replace("`", "") for p in paras)


@lru_cache(maxsize=1)
def entries() -> dict[str, RuleEntry]:
    """The shipped rules reference, by rule id."""
    with open(path(), encoding="utf-8") as fh:
        return parse(fh.read())


def lookup(rule: str) -> RuleEntry | None:
    return entries().get(rule)


def find_ids(line: str) -> list[tuple[int, int, str]]:
    """The rule ids in ``line`` that have an entry: (start, end, id), left to right. Rule
    ids of the book (M5, U6) anywhere; the other ids (turn, action ...) only right before
    a colon, as refusals write them ("refused move: turn: ...")."""
    known = entries()
    found = [(m.start(1), m.end(1), m.group(1)) for m in _RULE_ID.finditer(line) if m.group(1) in known]
    found += [
        (m.start(1), m.end(1), m.group(1))
        for m in _WORD_ID.finditer(line)
        if m.group(1) in known and not _RULE_ID.fullmatch(m.group(1))
    ]
    return sorted(found)
