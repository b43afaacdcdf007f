"""YAML with line numbers: safe loading that remembers where every value came from.

``load_yaml(text, file)`` returns a :class:`Source`: the plain Python data (what
``yaml.safe_load`` would give) plus a map from each value's path to its 1-based line.
Only the safe constructors are used; a tag that is not safe, a duplicate key or a
syntax error becomes a :class:`~game.engine.errors.LoadError` with a line.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from game.engine.errors import NO_LINE, LoadError, Problem
from game.engine.limits import MAX_FILE_BYTES, MAX_INTEGER
from game.engine.rule_ids import RuleId

Path = tuple  # a tuple of keys and indexes, e.g. ("terrain", 2, "height")

#: Most values one file may expand to (aliases can make a small file huge).
MAX_NODES = 200_000


@dataclass
class Source:
    """Loaded YAML data with the line of every node."""

    file: str
    data: Any
    lines: dict[Path, int] = field(default_factory=dict)

    def line(self, path: Path) -> int:
        """The line of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)

    def problem(self, path: Path, message: str) -> Problem:
        return Problem(self.file, self.line(path), message, ".".join(str(p) for p in path))

    def sub(self, key: Any) -> "Source":
        """The part of the file under ``key`` (a mapping key), with its lines."""
        lines = {k[1:]: v for k, v in self.lines.items() if k[:1] == (key,)}
        lines.setdefault((), self.line((key,)))
        return Source(self.file, self.data[key], lines)


class _Builder(yaml.SafeLoader):
    """SafeLoader used only for its scalar constructors (tags resolved safely)."""


#: libyaml's safe loader, used only to compose nodes (constructing stays in _construct).
_FastComposer = getattr(yaml, "CSafeLoader", None)


class _TooBig(Exception):
    pass


def _mapping_entries(
    loader: _Builder, node: yaml.MappingNode, src: Source, problems: list[Problem]
) -> Iterator[tuple[Any, yaml.Node, yaml.Node]]:
    """The (key, key node, value node) a mapping node keeps, in order: merge keys (<<)
    resolved, a bad or duplicate key reported and left out. A generator, so that building
    nested values does not add a frame per level (deep files hit the recursion limit where
    they always did)."""
    own = {id(k) for k, _ in node.value}
    loader.flatten_mapping(node)
    seen: set = set()
    merged: set = set()  # keys that came from a merge key (<<): a key of the mapping's own overrides them
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            problems.append(Problem(src.file, key_node.start_mark.line + 1, "a mapping key must be a plain value"))
            continue
        try:
            key = loader.construct_object(key_node, deep=True)
        except yaml.YAMLError as exc:
            problems.append(Problem(src.file, key_node.start_mark.line + 1, _short(exc)))
            continue
        if not isinstance(key, (str, int, float, bool)) or key is None:
            problems.append(Problem(src.file, key_node.start_mark.line + 1, f"key {key!r} must be text"))
            continue
        if id(key_node) not in own:
            if key in seen:  # merged keys come first; an earlier merged map's key wins (YAML's merge)
                continue
            merged.add(key)
        elif key in merged:
            merged.discard(key)
        elif key in seen:
            problems.append(Problem(src.file, key_node.start_mark.line + 1, f"duplicate key {key!r}"))
            continue
        seen.add(key)
        yield key, key_node, value_node


def _construct_scalar(loader: _Builder, node: yaml.Node, path: Path, src: Source, problems: list[Problem]) -> Any:
    """A scalar node's value; None (and a problem) for a bad tag or value, a number too big,
    a NUL in text."""
    try:
        value = loader.construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        problems.append(src.problem(path, _short(exc)))
        return None
    except (ValueError, OverflowError) as exc:  # e.g. a timestamp out of range
        problems.append(src.problem(path, f"bad value: {exc}"))
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        problems.append(
            src.problem(
                path,
                f"the number {_clip(node.value)} is too big (about {int(value.bit_length() * 0.30103) + 1} digits): "
                f"it does not fit the numbers the program computes with",
            )
        )
        return None
    if isinstance(value, str) and "\0" in value:
        shown = _clip(value.replace("\0", "\\0"))
        problems.append(src.problem(path, f"the text '{shown}' holds a NUL character, which no name or text may hold"))
        return None
    if isinstance(value, float) and math.isinf(value) and "inf" not in str(node.value).lower():
        problems.append(src.problem(path, f"the number {_clip(node.value)} is too big: it does not fit a float"))
        return None
    return value


def _construct(loader: _Builder, node: yaml.Node, path: Path, src: Source, problems: list[Problem]) -> Any:
    """A node as plain data (dict, list, scalar), each value's line noted in ``src.lines``;
    what is not safe YAML or does not fit is reported in ``problems`` and becomes None."""
    if len(src.lines) > MAX_NODES:
        raise _TooBig()
    src.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        if node.tag not in ("tag:yaml.org,2002:map",):
            problems.append(src.problem(path, f"tag {node.tag!r} is not allowed (safe YAML only)"))
            return None
        out: dict = {}
        for key, key_node, value_node in _mapping_entries(loader, node, src, problems):
            out[key] = _construct(loader, value_node, path + (key,), src, problems)
            src.lines[path + (key,)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        if node.tag != "tag:yaml.org,2002:seq":
            problems.append(src.problem(path, f"tag {node.tag!r} is not allowed (safe YAML only)"))
            return None
        return [_construct(loader, item, path + (i,), src, problems) for i, item in enumerate(node.value)]
    return _construct_scalar(loader, node, path, src, problems)


def _clip(text: str, n: int = 24) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _short(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    text = f"{context}: {problem}" if context and problem else (problem or context or "YAML error")
    if "could not determine a constructor" in text:
        text = "tag not allowed (safe YAML only): " + text.split("tag", 1)[-1].strip(" :'")
    return text


def load_yaml(text: str, file: str) -> Source:
    """Parse ``text`` safely; raise :class:`LoadError` with lines on any problem."""
    src = Source(file, None)
    if not text.strip() or all(line.lstrip().startswith("#") or not line.strip() for line in text.splitlines()):
        raise LoadError([Problem(file, 1, "the file is empty")])
    try:
        # Compose with libyaml when present (same nodes and marks, ~10x faster on big maps).
        loader = _FastComposer(text) if _FastComposer is not None else _Builder(text)
        try:
            nodes = []
            while loader.check_node():
                nodes.append(loader.get_node())
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        last_line = max(1, len(text.splitlines()))  # libyaml marks the end of a file one line past it
        line = min(mark.line + 1, last_line) if mark else 1
        raise LoadError([Problem(file, line, f"YAML syntax error: {_short(exc)}")]) from None
    except yaml.YAMLError as exc:
        raise LoadError([Problem(file, 1, f"YAML error: {_short(exc)}")]) from None
    nodes = [n for n in nodes if n is not None]
    if not nodes:
        raise LoadError([Problem(file, 1, "the file is empty")])
    if len(nodes) > 1:
        raise LoadError([Problem(file, nodes[1].start_mark.line + 1, "only one YAML document is allowed")])
    problems: list[Problem] = []
    builder = _Builder("")
    try:
        src.data = _construct(builder, nodes[0], (), src, problems)
    except RecursionError:
        problems.append(Problem(file, 1, "the file nests too deeply"))
    except _TooBig:
        problems.append(Problem(file, 1, f"the file expands to more than {MAX_NODES} values (too many aliases?)"))
    finally:
        builder.dispose()
    if problems:
        raise LoadError(problems)
    return src


def read_text(path: str, exact: bool = False) -> str:
    """Read a UTF-8 file; a missing or unreadable file is a LoadError with no line (``FILE: ...``),
    text that is not UTF-8 one on line 1.

    ``exact``: line ends as they are in the file (the editor writes an unedited file
    back byte for byte); otherwise they are read as ``\n``."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(st.st_mode):
            raise LoadError([Problem(path, NO_LINE, "not a regular file (a device, a pipe or a socket): not read")])
        if st.st_size > MAX_FILE_BYTES:
            raise LoadError(
                [
                    Problem(
                        path,
                        NO_LINE,
                        f"the file is {st.st_size / 2**20:.0f} MB: files over "
                        f"{MAX_FILE_BYTES // 2**20} MB are not read",
                    )
                ]
            )
        with open(path, encoding="utf-8", newline="" if exact else None) as fh:
            text = fh.read(MAX_FILE_BYTES + 1)
        if len(text) > MAX_FILE_BYTES:  # it grew while being read
            raise LoadError([Problem(path, NO_LINE, f"the file is over {MAX_FILE_BYTES // 2**20} MB: not read")])
        return text
    except FileNotFoundError:
        raise LoadError([Problem(path, NO_LINE, "no such file")]) from None
    except IsADirectoryError:
        raise LoadError([Problem(path, NO_LINE, "is a directory, not a file")]) from None
    except UnicodeDecodeError as exc:
        raise LoadError([Problem(path, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    except OSError as exc:
        raise LoadError([Problem(path, NO_LINE, f"cannot read: {exc.strerror}")]) from None


def is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def describe_value(value: Any) -> str:
    """How an error message names a value a file gave: ``the number 3``, ``a list of 2``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (yes/no)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return f"text {value!r}" if isinstance(value, str) else f"{type(value).__name__} {value!r}"


# --- writing ---------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    pass


def _represent_list(dumper: yaml.SafeDumper, data: list):
    flat = all(not isinstance(v, (list, dict)) for v in data)
    points = all(isinstance(v, list) and all(not isinstance(w, (list, dict)) for w in v) for v in data) and data
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=bool(flat or points))


def _represent_dict(dumper: yaml.SafeDumper, data: dict):
    flat = (
        data and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in data.values()) and len(data) <= 8
    )
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=bool(flat))


def _represent_rule(dumper: yaml.SafeDumper, rule: RuleId):
    """A rule id is written as the plain text it is (``M9``), like any other string."""
    return dumper.represent_str(str(rule))


_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(dict, _represent_dict)
_Dumper.add_representer(RuleId, _represent_rule)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
