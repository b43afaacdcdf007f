"""The docs are for their readers (issue 44): short paragraphs, no lab-notebook dates.

Measurements belong on docs/benchmarks.md (written by ``make bench``), history in
CHANGELOG.md and docs/decisions/; those pages are left out here.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: The reader's docs: the README and docs/*.md, without the pages that keep measurements.
READER_DOCS = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "benchmarks.md")
MAX_PARAGRAPH = 1200
MAX_DATED_LINES = 10
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def paragraphs(text: str) -> list[str]:
    """Prose paragraphs and list items; code blocks and table rows are not prose."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    out = []
    for block in re.split(r"\n\s*\n", text):
        for item in re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", block):
            if item.strip() and not item.lstrip().startswith("|"):
                out.append(item)
    return out


def test_paragraphs_split_at_blank_lines_and_list_items_but_skip_code_and_tables():
    text = "one\ntwo\n\n- a\n- b\n\n```\ncode\n```\n\n| x | y |\n|---|---|\n"
    assert paragraphs(text) == ["one\ntwo", "- a", "- b"]


@pytest.mark.parametrize("path", READER_DOCS, ids=lambda p: p.name)
def test_no_paragraph_is_over_1200_characters(path):
    long = [(len(p), p[:60]) for p in paragraphs(path.read_text(encoding="utf-8")) if len(p) > MAX_PARAGRAPH]
    assert not long, f"{path.name}: paragraphs over {MAX_PARAGRAPH} characters: {long}"


def test_at_most_ten_dated_lines_in_the_readers_docs():
    dated = [
        f"{path.name}:{n}"
        for path in READER_DOCS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DATE.search(line)
    ]
    assert len(dated) <= MAX_DATED_LINES, dated
