"""Live validation that reports exactly what ``speedheim check`` reports, fast.

``speedheim check FILE`` reads the file's text with :func:`game.engine.yamlsrc.load_yaml`
(values plus the line of every value) and runs :func:`parse_scenario` on it. The
editor must report the same problems for the file a save would write, within 50 ms of
an edit on big maps, so it builds the same :class:`Source` without re-reading the whole
text each time:

* the saved text is :func:`dump_yaml` of :func:`scenario_to_dict`; in block style that
  text is the concatenation of one chunk per top-level key, and a list of mappings
  (``terrain:``, ``warbands:`` ...) is ``key:`` plus one chunk per item;
* each chunk is emitted and read back (libyaml, then yamlsrc's own safe constructors)
  once and cached by its value: an edit re-reads only the items it changed;
* the chunks' values and lines, shifted by where each chunk starts, are the values and
  lines ``load_yaml`` gives for the whole text (tests check the text, values and lines
  agree on every bundled map), and ``parse_scenario`` runs the same checks on them.

Pure Python, no pygame.
"""

from __future__ import annotations

from typing import Any

import yaml

from game.engine import yamlsrc
from game.engine.errors import LoadError, Problem
from game.engine.scenario import load_scenario, parse_scenario
from game.engine.yamlsrc import _represent_dict, _represent_list, dump_yaml
from game.engine.yamlsrc import Source

if getattr(yaml, "__with_libyaml__", False):

    class _CDumper(yaml.CSafeDumper):
        pass

    _CDumper.add_representer(list, _represent_list)
    _CDumper.add_representer(dict, _represent_dict)
    _CLoader: Any = yaml.CSafeLoader
else:  # pragma: no cover - libyaml ships in the PyYAML wheels
    _CDumper = None
    _CLoader = yaml.SafeLoader


def fast_dump(data: Any) -> str:
    """The text :func:`dump_yaml` writes (tests check they agree), emitted by libyaml."""
    if _CDumper is None:
        return dump_yaml(data)
    return yaml.dump(data, Dumper=_CDumper, sort_keys=False, allow_unicode=True, width=100)


def read_chunk(text: str, file: str) -> tuple[Any, dict]:
    """Values and lines of a YAML text, built by yamlsrc's constructors (libyaml parses)."""
    node = yaml.compose(text, Loader=_CLoader)
    src = Source(file, None)
    problems: list[Problem] = []
    builder = yamlsrc._Builder("")
    try:
        data = yamlsrc._construct(builder, node, (), src, problems)
    finally:
        builder.dispose()
    if problems:
        raise LoadError(problems)
    return data, src.lines


def _is_item_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


class LiveValidator:
    """Builds the Source ``load_yaml`` would give for the saved text, re-reading only changes."""

    def __init__(self) -> None:
        self._cache: dict[tuple, tuple[Any, str, Any, dict]] = {}
        self.reread = 0  # chunks read again at the last call (tests and the benchmark look)

    def _chunk(self, key: tuple, value: Any, as_item: bool, file: str) -> tuple[str, Any, dict]:
        hit = self._cache.get(key)
        if hit is not None and hit[0] == value:
            return hit[1], hit[2], hit[3]
        text = fast_dump([value] if as_item else value)
        data, lines = read_chunk(text, file)
        self._cache[key] = (_copy(value), text, data, lines)
        self.reread += 1
        return text, data, lines

    def source(self, file: str, data: dict) -> tuple[str, Source]:
        """The saved text of ``data`` and its Source (values and lines), as load_yaml reads it."""
        self.reread = 0
        parts: list[str] = []
        lines: dict[tuple, int] = {(): 1}
        values: dict[str, Any] = {}
        line = 1
        seen: set[tuple] = set()
        for key, value in data.items():
            if _is_item_list(value):
                lines[(key,)] = line
                parts.append(f"{key}:\n")
                line += 1
                items = []
                for i, item in enumerate(value):
                    ck = (key, i, str(item.get("id")))
                    seen.add(ck)
                    text, idata, rel = self._chunk(ck, item, True, file)
                    for p, ln in rel.items():
                        if p:
                            lines[(key, i) + p[1:]] = line + ln - 1
                    parts.append(text)
                    line += text.count("\n")
                    items.append(idata[0])
                values[key] = items
            else:
                ck = ("", key)
                seen.add(ck)
                text, sdata, rel = self._chunk(ck, {key: value}, False, file)
                for p, ln in rel.items():
                    if p:
                        lines[p] = line + ln - 1
                parts.append(text)
                line += text.count("\n")
                values[key] = sdata[key]
        for stale in [k for k in self._cache if k not in seen]:
            del self._cache[stale]
        return "".join(parts), Source(file, values, lines)

    def check(self, file: str, data: dict) -> list[Problem]:
        """The problems ``speedheim check`` reports for the file ``data`` would be saved as
        (a map that cannot start a game included: ``playable``)."""
        try:
            _, src = self.source(file, data)
        except Exception:  # noqa: BLE001 - anything unusual: the plain, slower way
            return _slow_check(file, dump_yaml(data))
        try:
            parse_scenario(src, playable=True)
        except LoadError as exc:
            return list(exc.problems)
        return []


def _slow_check(file: str, text: str) -> list[Problem]:
    try:
        load_scenario(file, text=text, playable=True)
    except LoadError as exc:
        return list(exc.problems)
    return []


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
