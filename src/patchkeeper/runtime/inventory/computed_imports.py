"""Module names computed at run time: lazy imports the activation search follows.

A plugin (or the upstream, given a name the plugin computes) often imports its model
modules by a name it builds: ``f"vllm_omni.model_executor.models.{folder}.{name}"`` handed
to ``importlib.import_module`` or to a lazy registry (vLLM's ``_LazyRegisteredModel``, its
``ModelRegistry.register_model(arch, "module:Class")``), the parts read from a table of
strings (``{"Arch": ("folder", "name", "Class"), ...}``). No import statement names those
modules, so without this they look *never imported*.

An f-string whose leading text is a dotted prefix inside the plugin package is such a
*computed module name* (its text up to a ``:`` is the module); so is the same name built by
``+``, ``str.format`` or ``%``, and a literal ``str.format`` template of such a name kept
apart from the ``format`` that fills it (:func:`pattern`). Two facts are drawn from it:

- the module names the file's own string tables give it (:func:`table_names`: each tuple
  or list of literal strings, each key and value of a dict of them, fills the placeholders
  with consecutive strings), and those the tables the scope imports by name from another
  plugin module give it (:func:`named_tables` of that module, or of the module it
  re-exports the table from, read by the activation search): reached, when the scope
  holding the name runs, under the condition that the name is asked for (a lazy import);
- its *pattern* (:func:`pattern`), which every plugin module fits whose name starts with
  the prefix and has a part for each placeholder: such a module may be imported by it, and
  the trees cannot tell whether it is (the values come from elsewhere, at run time).
"""

from __future__ import annotations

import ast
import re
import string
from functools import lru_cache

from patchkeeper.runtime.inventory.loop_literals import module_tables

#: What one placeholder of a pattern stands for: a dotted name of one or more parts.
_PART = r"\w+(?:\.\w+)*"
#: The text of a placeholder in :func:`pattern`'s result.
HOLE = "{}"
#: The kind of the condition of a module reached by a computed name.
CONDITION = "computed-import"


def pattern(node: ast.expr, package: str) -> str:
    """The module part of the computed name ``node`` with ``{}`` for each placeholder
    (``"vllm_omni.models.{}.{}"``) when its leading text starts inside ``package``
    (``"vllm_omni."``) and a placeholder comes before any ``:``; ``""`` otherwise.

    ``node`` is an f-string, a sum of a string with other values (``"vllm_omni.models." +
    folder + "." + name``: each value not a literal string is a placeholder), a
    ``str.format`` or ``%`` of a literal string (each replacement field or conversion
    specifier a placeholder), or a literal string holding ``str.format`` replacement fields
    (``"vllm_omni.models.{}"``): a template kept apart from the ``format`` call that fills
    it (``template.format(name)``, the template handed in as an argument or read from a
    list), which names a module only once filled."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        pieces = _format_pieces(node.value) if "{" in node.value else []
    else:
        pieces = _pieces(node)
    if not pieces:
        return ""
    first = pieces[0]
    if first is None or not first.startswith(package + "."):
        return ""
    out: list[str] = []
    for piece in pieces:
        if piece is None:
            out.append(HOLE)
            continue
        text, colon, _rest = piece.partition(":")
        out.append(text)
        if colon:
            break
    text = "".join(out)
    if HOLE not in text or not re.fullmatch(r"[\w.]*(?:\{\}[\w.]*)+", text):
        return ""
    return text


def parts_read(node: ast.expr) -> set[int]:
    """The ids of the nodes inside the computed name ``node`` that :func:`pattern` read as
    parts of it (the inner sums and f-strings of ``a + b + f"..."``): not names themselves."""
    out: set[int] = set()
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        out.update((id(node.left), id(node.right)))
        node = node.left
    return out


#: A conversion specifier of ``%`` formatting (``%s``, ``%(name)s``, ``%-4d``), or ``%%``.
_PERCENT = re.compile(r"%(?:%|(?:\([^)]*\))?[#0 +-]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa])")


def _pieces(node: ast.expr) -> list[str | None]:
    """The literal texts of a computed name, ``None`` for each placeholder, in order; ``[]``
    when ``node`` is none of the forms of :func:`pattern`."""
    if isinstance(node, ast.JoinedStr):
        return [
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else None
            for v in node.values
        ]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _pieces(node.left)
        if not left:
            return []
        right = node.right
        if isinstance(right, ast.Constant) and isinstance(right.value, str):
            return [*left, right.value]
        return [*left, *(_pieces(right) or [None])]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        text = node.left
        if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
            return []
        out: list[str | None] = []
        start = 0
        for found in _PERCENT.finditer(text.value):
            out.append(text.value[start : found.start()])
            out.append("%" if found.group() == "%%" else None)
            start = found.end()
        return [*out, text.value[start:]]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return _format_pieces(node.func.value.value)
    return []


def _format_pieces(text: str) -> list[str | None]:
    """The literal texts of the ``str.format`` template ``text``, ``None`` for each
    replacement field, in order; ``[]`` when ``text`` is no valid template."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return []
    out: list[str | None] = []
    for literal, name, _spec, _conversion in fields:
        out.append(literal)
        if name is not None:
            out.append(None)
    return out


@lru_cache(maxsize=256)
def regex(text: str) -> re.Pattern[str]:
    """The regular expression of the module names a :func:`pattern` ``text`` fits."""
    return re.compile("^" + _PART.join(re.escape(part) for part in text.split(HOLE)) + "$")


def named_tables(tree: ast.Module) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The rows (:func:`table_rows`) of each display of strings the module binds once, by
    name, at its top level (``_MODELS = {"Arch": ("folder", "name", "Cls")}``): what a
    module importing ``_MODELS`` may build computed names from. Names without rows are left
    out."""
    found: dict[str, tuple[tuple[str, ...], ...]] = {}
    for name, display in module_tables(tree).items():
        rows = table_rows(display)
        if rows:
            found[name] = tuple(rows)
    return found


def table_rows(tree: ast.AST) -> list[tuple[str, ...]]:
    """The rows of the string tables of a module, in file order: every tuple, list or set
    display of literal strings, and per dict display each key with its value when both are
    literal strings or the value a tuple of them (``"Arch": ("folder", "name", "Class")``
    gives ``("Arch", "folder", "name", "Class")``)."""
    rows: list[tuple[str, ...]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            row = _strings(node.elts)
            if row:
                rows.append(row)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:
                    continue
                head = _strings([key])
                tail = (
                    _strings(value.elts)
                    if isinstance(value, (ast.Tuple, ast.List))
                    else _strings([value])
                )
                if head and tail:
                    rows.append(head + tail)
    return rows


def _strings(items: list[ast.expr]) -> tuple[str, ...]:
    """The values of ``items`` when every one is a literal string, else ``()``."""
    out = tuple(i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str))
    return out if len(out) == len(items) else ()


def table_names(text: str, rows: list[tuple[str, ...]]) -> list[str]:
    """The module names the :func:`pattern` ``text`` takes from ``rows`` (each run of as
    many consecutive strings of a row as it has placeholders), sorted, without repeats."""
    parts = text.split(HOLE)
    holes = len(parts) - 1
    found: set[str] = set()
    fits = regex(text)
    for row in rows:
        for start in range(len(row) - holes + 1):
            values = row[start : start + holes]
            name = parts[0] + "".join(v + p for v, p in zip(values, parts[1:], strict=True))
            if fits.match(name):
                found.add(name)
    return sorted(found)
