"""Saving over a hand-written map without losing what it held (ruamel.yaml round trip).

The editor edits a model (:class:`~game.engine.model.Scenario`); the file can hold more
than the model: comments, key order, its own layout, and items the loader could not
read (an unknown kind, a misspelled key, a bad number). Saving therefore does not write
the model out from scratch. It loads the file as it is on disk with ruamel.yaml in
round-trip mode (comments and order attached to the nodes), applies to that tree only
what the edits changed (:func:`merge`: the model as file data when the file was opened,
``base``, against the model now, ``new``), and writes the tree back (:func:`dump`).
Items and keys the model does not hold are never touched, so they are written back as
they were.

ruamel.yaml re-flows some layouts (a flow mapping spread over two lines becomes one
line), so :func:`dump` then puts back, byte for byte, the original lines of every list
item the edits did not touch (:func:`_splice`), and keeps that only when the result
reads back as the same data.

Loading stays safe: the file was first read by the loader's safe constructors
(:mod:`game.engine.yamlsrc`), which refuse any tag that is not plain YAML, and the
round-trip loader builds only ruamel's plain containers and scalars.
Pure Python, no pygame.
"""

from __future__ import annotations

import io
import math
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError as RuamelError
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarfloat import ScalarFloat

#: Lists of items with an ``id`` (matched by id, item for item).
ITEM_LISTS = ("terrain", "ladders", "treasure", "warbands")
#: Keys whose value is a mapping of names (matched key by key).
NAMED_MAPS = ("deployment",)


def _yaml(indent: int | None = None, seq_offset: int | None = None) -> YAML:
    y = YAML(typ="rt")
    y.width = 4096  # never wrap a long line the file had on one line
    y.preserve_quotes = True
    y.allow_unicode = True
    sequence = indent if indent and indent >= 2 else 4
    offset = seq_offset if seq_offset is not None and 0 <= seq_offset < sequence else 2
    y.indent(mapping=2, sequence=sequence, offset=offset)
    y.representer.add_representer(type(None), lambda r, d: r.represent_scalar("tag:yaml.org,2002:null", "null"))
    y.representer.add_representer(ScalarFloat, _exact_float)
    return y


def _exact_float(representer, data: ScalarFloat):
    """ruamel.yaml's own layout of a float it read (its width, its exponent), unless that
    text reads back as another number (``6.165936151570833e+16`` came out as
    ``...832e+16``): then the shortest text that reads back exactly, with a point, as
    the loader (YAML 1.1) wants one."""
    node = RoundTripRepresenter.represent_scalar_float(representer, data)
    try:
        same = float(node.value.replace("_", "")) == float(data)
    except ValueError:  # .inf, .nan
        return node
    if not same:
        text = repr(float(data))
        mantissa, e, exp = text.partition("e")
        node.value = (mantissa if "." in mantissa else mantissa + ".0") + e + exp
    return node


def guess_indent(text: str) -> tuple[int | None, int | None]:
    """How the file indents its block lists: (sequence indent, offset of the dash), from
    the first ``- `` item under a ``key:`` line (ruamel.yaml's own guess reads the whole
    file once more)."""
    prev = None
    for line in text.splitlines():
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        col = len(line) - len(line.lstrip(" "))
        if body.startswith("- ") and prev is not None and prev[1].rstrip().split("#")[0].rstrip().endswith(":"):
            offset = col - prev[0]
            if offset >= 0:
                return offset + 2, offset
        prev = (col, body)
    return None, None


class Tree:
    """A file's round-trip tree, with the indentation it was written with."""

    def __init__(self, text: str):
        #: The file's text exactly (an unedited save writes it back).
        self.raw = text
        #: A UTF-8 byte order mark the file starts with, written back after an edit.
        self.bom = text.startswith("\ufeff")
        text = text[1:] if self.bom else text
        #: The file's line end when it has one kind only (Windows ``\r\n``, old Mac ``\r``):
        #: worked on as ``\n`` and written back as it was.
        self.newline = line_end(text)
        text = text.replace(self.newline, "\n") if self.newline != "\n" else text
        #: Splicing counts lines by ``\n``: only when YAML counts no other line break.
        self.splice = not any(c in text for c in "\r\x85\u2028\u2029")
        self.text = text
        self.yaml = _yaml(*guess_indent(text))
        self.data = self.yaml.load(text)
        _keep_anchors(self.data)
        #: Where each list item was in the text (before any edit), for :func:`dump`.
        try:
            self.spans = _spans(self.data, _nlines(text)) if isinstance(self.data, CommentedMap) else {}
        except Exception:  # noqa: BLE001 - an odd layout: no splicing, the round trip still keeps all
            self.spans = {}

    #: Why the last :meth:`read` failed (a line and what ruamel.yaml said).
    error = ""

    @staticmethod
    def read(text: str) -> "Tree | None":
        """The tree of ``text``, or None when ruamel.yaml cannot read it (``Tree.error``
        says why; the editor then refuses to save over the file)."""
        try:
            tree = Tree(text)
        except (RuamelError, ValueError, TypeError, RecursionError) as exc:
            mark = getattr(exc, "problem_mark", None)
            what = getattr(exc, "problem", None) or str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            Tree.error = f"line {mark.line + 1}: {what}" if mark is not None else str(what)
            return None
        if not isinstance(tree.data, CommentedMap):
            Tree.error = "the file is not a mapping of key: value"
            return None
        return tree


# --- applying the edits ---------------------------------------------------------------------


def to_rt(value: Any) -> Any:
    """Plain data as round-trip nodes, in the layout ``dump_yaml`` uses (points and small
    numeric mappings in flow style)."""
    if isinstance(value, dict):
        m = CommentedMap((k, to_rt(v)) for k, v in value.items())
        if (
            value
            and len(value) <= 8
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values())
        ):
            m.fa.set_flow_style()
        return m
    if isinstance(value, list):
        s = CommentedSeq(to_rt(v) for v in value)
        flat = all(not isinstance(v, (list, dict)) for v in value)
        points = value and all(isinstance(v, list) and all(not isinstance(w, (list, dict)) for w in v) for v in value)
        if flat or points:
            s.fa.set_flow_style()
        return s
    return value


def _set(node: CommentedMap, key: Any, value: Any, order: list) -> None:
    """Set ``key`` (in place when the node has it, else where ``order`` puts it)."""
    if key in node:
        node[key] = to_rt(value)
        return
    pos = 0
    before = order[: order.index(key)] if key in order else order
    for i, k in enumerate(node):
        if k in before:
            pos = i + 1
    node.insert(pos, key, to_rt(value))


def _ident(node: Any) -> str | None:
    """The id an item has for the loader (which refuses yes/no and null as an id)."""
    if (
        isinstance(node, dict)
        and "id" in node
        and node["id"] is not None
        and not isinstance(node["id"], (dict, list, bool))
    ):
        return str(node["id"])
    return None


def merge(tree: CommentedMap, base: dict, new: dict, renames: dict[str, str] | None = None) -> set[int]:
    """Apply to ``tree`` what changed from ``base`` to ``new`` (both model file data);
    ``renames`` maps an item's new id to the id it had in ``base``.

    Returns the ids (``id()``) of the tree's nodes that were changed or added.
    """
    changed: set[int] = set()
    _merge_map(tree, base, new, changed, renames or {}, top=True)
    return changed


def _merge_map(
    node: CommentedMap, base: dict, new: dict, changed: set[int], renames: dict[str, str], top: bool = False
) -> bool:
    touched = False
    order = list(new)
    for key, value in new.items():
        old = base.get(key, _MISSING)
        if old == value:
            continue
        if (
            (top or key == "units")
            and (key in ITEM_LISTS or key == "units")
            and isinstance(node.get(key), list)
            and isinstance(value, list)
            and isinstance(old, list)
        ):
            touched |= _merge_items(node[key], old, value, changed, renames)
        elif (
            key in NAMED_MAPS
            and top
            and isinstance(node.get(key), dict)
            and isinstance(value, dict)
            and isinstance(old, dict)
        ):
            touched |= _merge_named(node[key], old, value, changed)
        else:
            _set(node, key, value, order)
            touched = True
    return _drop_removed(node, base, new, changed, touched)


def _merge_named(node: CommentedMap, base: dict, new: dict, changed: set[int]) -> bool:
    touched = False
    for key, value in new.items():
        if base.get(key, _MISSING) != value:
            _set(node, key, value, list(new))
            touched = True
    return _drop_removed(node, base, new, changed, touched)


def _drop_removed(node: CommentedMap, base: dict, new: dict, changed: set[int], touched: bool) -> bool:
    """Delete from ``node`` the keys ``base`` had and ``new`` has not; mark ``node`` changed
    if that or an earlier step touched it. Returns whether it was touched."""
    for key in base:
        if key not in new and key in node:
            del node[key]
            touched = True
    if touched:
        changed.add(id(node))
    return touched


def _merge_items(seq: CommentedSeq, base: list, new: list, changed: set[int], renames: dict[str, str]) -> bool:
    """Match items by id: change the changed ones, drop the deleted, insert the new ones
    after the item before them. Items the model never held stay where they are."""
    where: dict[str, int] = {}
    for i, node in enumerate(seq):
        key = _ident(node)
        if key is not None:
            where.setdefault(key, i)
    base_by_id = {str(b.get("id")): b for b in base if isinstance(b, dict)}
    new_ids = {str(n.get("id")) for n in new if isinstance(n, dict)}
    touched = False
    nodes: dict[str, Any] = {k: seq[i] for k, i in where.items() if k in base_by_id}
    # A renamed item (a new id where the model had one it no longer has) stays the same
    # node: its comments and the keys the model does not hold go with it.
    renamed = {
        k: old
        for k, old in renames.items()
        if k in new_ids and k not in base_by_id and old in nodes and old not in new_ids
    }
    for key, node in nodes.items():
        if key not in new_ids and key not in renamed.values():
            del seq[next(i for i, n in enumerate(seq) if n is node)]  # this node, not an equal one
            touched = True
    prev = None
    for item in new:
        key = str(item.get("id"))
        old_key = renamed.get(key, key)
        node = nodes.get(old_key)
        if node is not None and old_key in base_by_id:
            if base_by_id[old_key] != item:
                _merge_map(node, base_by_id[old_key], item, changed, renames)
                touched = True
        else:
            node = to_rt(item)
            pos = (
                next((i + 1 for i, n in enumerate(seq) if n is prev), len(seq))
                if prev is not None
                else _first_model_index(seq, nodes)
            )
            seq.insert(pos, node)
            changed.add(id(node))
            touched = True
        prev = node
    if touched:
        changed.add(id(seq))
    return touched


def _first_model_index(seq: CommentedSeq, nodes: dict) -> int:
    held = {id(n) for n in nodes.values()}
    return next((i for i, n in enumerate(seq) if id(n) in held), len(seq))


class _Missing:
    def __eq__(self, other):
        return False

    __hash__ = None  # type: ignore[assignment]


_MISSING = _Missing()


# --- writing ------------------------------------------------------------------------------------


def dump(tree: Tree, changed: set[int]) -> str:
    """The text of the merged tree; untouched list items keep their original lines."""
    if not changed:
        return tree.raw
    out = io.StringIO()
    tree.yaml.dump(tree.data, out)
    text = out.getvalue()
    result = text
    if tree.splice:
        try:
            spliced = _splice(tree, text, tree.spans, changed)
            if _same_shape(_read(spliced), _read(text)):
                result = spliced
        except Exception:  # noqa: BLE001 - the plain round trip is always there to fall back on
            pass
    result = result.replace("\n", tree.newline) if tree.newline != "\n" else result
    return "\ufeff" + result if tree.bom else result


def line_end(text: str) -> str:
    """The file's line end when every line ends the same way (``\r\n`` or ``\r``), else ``\n``."""
    crlf = text.count("\r\n")
    cr, lf = text.count("\r") - crlf, text.count("\n") - crlf
    if crlf and not cr and not lf:
        return "\r\n"
    if cr and not crlf and not lf:
        return "\r"
    return "\n"


def _keep_anchors(node: Any, seen: set[int] | None = None) -> None:
    """Every anchor the file wrote is written back, an anchor nothing refers to too
    (ruamel.yaml drops those unless told to keep them)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    anchor = getattr(node, "anchor", None)
    if anchor is not None and getattr(anchor, "value", None):
        anchor.always_dump = True
    if isinstance(node, dict):
        for key, value in node.items():
            _keep_anchors(value, seen)
    elif isinstance(node, list):
        for value in node:
            _keep_anchors(value, seen)


def _read(text: str) -> Any:
    """Plain data, read the way the loader reads (libyaml when present)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _same_shape(a: Any, b: Any) -> bool:
    """The same mappings (keys, in order), lists (lengths) and ids: splicing lines back
    cannot have moved anything. (Values may differ where ruamel.yaml re-wrote an
    untouched scalar its own way: the spliced text has the file's own.)"""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same_shape(a[k], b[k]) and (k != "id" or a[k] == b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_shape(x, y) for x, y in zip(a, b))
    return not isinstance(a, (dict, list)) and not isinstance(b, (dict, list))


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\n`` (only ``\n`` ends a line)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    return out + [parts[-1]] if parts[-1] else out


def _nlines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _spans(data: CommentedMap, nlines: int) -> dict[int, tuple[int, int]]:
    """id(node) -> (first line, end line) (0-based, end exclusive) of every item of the
    block lists of items (top-level lists and each warband's units)."""
    spans: dict[int, tuple[int, int]] = {}
    keys = list(data)
    for n, key in enumerate(keys):
        seq = data[key]
        if key not in ITEM_LISTS or not isinstance(seq, CommentedSeq) or seq.fa.flow_style() or not seq:
            continue
        end = data.lc.key(keys[n + 1])[0] if n + 1 < len(keys) else nlines
        _seq_spans(seq, end, spans)
        if key == "warbands":
            for w in seq:
                units = w.get("units") if isinstance(w, CommentedMap) else None
                if isinstance(units, CommentedSeq) and units and not units.fa.flow_style():
                    wk = list(w)
                    i = wk.index("units")
                    uend = w.lc.key(wk[i + 1])[0] if i + 1 < len(wk) else spans.get(id(w), (0, end))[1]
                    _seq_spans(units, uend, spans)
    return spans


def _seq_spans(seq: CommentedSeq, end: int, spans: dict) -> None:
    starts = [seq.lc.item(i)[0] for i in range(len(seq))]
    for i, node in enumerate(seq):
        stop = starts[i + 1] if i + 1 < len(seq) else end
        spans[id(node)] = (starts[i], stop)


def _splice(tree: Tree, text: str, spans: dict, changed: set[int]) -> str:
    """Put the original lines of every untouched item back into the emitted text."""
    emitted = _yaml().load(text)
    new_spans = _spans(emitted, _nlines(text))
    old_lines = _lines(tree.text)
    lines = _lines(text)
    swaps: list[tuple[tuple[int, int], list[str]]] = []

    def walk(mine: Any, theirs: Any) -> None:
        """``mine``: the merged tree; ``theirs``: the emitted text read back (same shape)."""
        if isinstance(mine, dict):
            for key in mine:
                if key in ITEM_LISTS or key == "units":
                    walk_seq(mine[key], theirs.get(key))
        return

    def walk_seq(seq: Any, back: Any) -> None:
        if not isinstance(seq, CommentedSeq) or not isinstance(back, CommentedSeq) or len(seq) != len(back):
            return
        for node, node_back in zip(seq, back):
            if id(node) in spans and id(node) not in changed and id(node_back) in new_spans:
                a, b = spans[id(node)]
                swaps.append((new_spans[id(node_back)], old_lines[a:b]))
            elif isinstance(node, dict):
                walk(node, node_back)

    walk(tree.data, emitted)
    for (a, b), old in sorted(swaps, key=lambda s: -s[0][0]):
        lines[a:b] = old
    out = "".join(lines)
    return out if out.endswith("\n") or not out else out + "\n"


# --- where things are in the file -----------------------------------------------------------------


def file_line(tree: CommentedMap, data: dict, where: str) -> int | None:
    """The line of the file (1-based) a problem's ``where`` path (into the model's file
    data ``data``) names, following items by id; None when the file does not hold it
    (an item added since the file was read)."""
    node_d: Any = data
    node_t: Any = tree
    line = None
    for part in where.split(".") if where else ():
        if isinstance(node_d, list):
            try:
                i = int(part)
                item = node_d[i]
            except (ValueError, IndexError):
                break
            key = _ident(item)
            if not isinstance(node_t, CommentedSeq):
                break
            j = next((k for k, n in enumerate(node_t) if _ident(n) == key), None) if key is not None else i
            if j is None or j >= len(node_t):
                return None
            line = node_t.lc.item(j)[0] + 1
            node_d, node_t = item, node_t[j]
        elif isinstance(node_d, dict):
            if not isinstance(node_t, CommentedMap) or part not in node_t or part not in node_d:
                break
            line = node_t.lc.key(part)[0] + 1
            node_d, node_t = node_d[part], node_t[part]
        else:
            break
    return line


def item_ids(tree: CommentedMap) -> set[str]:
    """Every id the file's item lists (and warbands' units) hold."""
    out: set[str] = set()
    for key in ITEM_LISTS:
        seq = tree.get(key)
        for node in seq if isinstance(seq, list) else ():
            if _ident(node) is not None:
                out.add(_ident(node))
            units = node.get("units") if key == "warbands" and isinstance(node, dict) else None
            for u in units if isinstance(units, list) else ():
                if _ident(u) is not None:
                    out.add(_ident(u))
    return out


def _point(value: Any) -> tuple[float, float] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    ):
        return (float(value[0]), float(value[1]))
    return None


def unread_shapes(tree: CommentedMap, model_ids: set[str]) -> list[tuple[str, str, Any]]:
    """Where the items the model does not hold would stand, as far as the file says:
    (label, "polygon" | "disc", points | (x, y, base_mm or None)). For drawing only."""
    out: list[tuple[str, str, Any]] = []

    def label(node: Any, what: str, i: int) -> str:
        return _ident(node) or f"{what} #{i + 1}"

    seqs: list[tuple[str, Any]] = [(k, tree.get(k)) for k in ("terrain", "ladders", "treasure")]
    for w in tree.get("warbands") or () if isinstance(tree.get("warbands"), list) else ():
        if isinstance(w, dict):
            seqs.append(("unit", w.get("units")))
    for what, seq in seqs:
        for i, node in enumerate(seq if isinstance(seq, list) else ()):
            if not isinstance(node, dict) or (_ident(node) in model_ids):
                continue
            if what == "terrain":
                poly = node.get("polygon")
                pts = [_point(p) for p in poly] if isinstance(poly, list) else []
                if len(pts) >= 3 and all(pts):
                    out.append((label(node, what, i), "polygon", pts))
            else:
                at = _point(node.get("foot") if what == "ladders" else node.get("at"))
                size = node.get("base_mm") if what == "unit" else node.get("size_mm")
                size = (
                    float(size) if isinstance(size, (int, float)) and not isinstance(size, bool) and size > 0 else None
                )
                if at:
                    out.append((label(node, what, i), "disc", (at[0], at[1], size)))
    return out
