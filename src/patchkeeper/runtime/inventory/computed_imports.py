"""Module names computed at run time: lazy imports the activation search follows.

A plugin (or the upstream, given a name the plugin computes) often imports its model
modules by a name it builds: ``f"vllm_omni.model_executor.models.{folder}.{name}"`` handed
to ``importlib.import_module`` or to a lazy registry (vLLM's ``_LazyRegisteredModel``, its
``ModelRegistry.register_model(arch, "module:Class")``), the parts read from a table of
strings (``{"Arch": ("folder", "name", "Class"), ...}``). No import statement names those
modules, so without this they look *never imported*.

An f-string whose leading text is a dotted prefix inside the plugin package is such a
*computed module name* (its text up to a ``:`` is the module). Two facts are drawn from it:

- the module names the file's own string tables give it (:func:`table_names`: each tuple
  or list of literal strings, each key and value of a dict of them, fills the placeholders
  with consecutive strings): reached, when the scope holding the f-string runs, under the
  condition that the name is asked for (a lazy import);
- its *pattern* (:func:`pattern`), which every plugin module fits whose name starts with
  the prefix and has a part for each placeholder: such a module may be imported by it, and
  the trees cannot tell whether it is (the values come from elsewhere, at run time).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

#: What one placeholder of a pattern stands for: a dotted name of one or more parts.
_PART = r"\w+(?:\.\w+)*"
#: The text of a placeholder in :func:`pattern`'s result.
HOLE = "{}"
#: The kind of the condition of a module reached by a computed name.
CONDITION = "computed-import"


def pattern(node: ast.JoinedStr, package: str) -> str:
    """The module part of the f-string ``node`` with ``{}`` for each placeholder
    (``"vllm_omni.models.{}.{}"``) when its leading text starts inside ``package``
    (``"vllm_omni."``) and a placeholder comes before any ``:``; ``""`` otherwise."""
    values = node.values
    if not values:
        return ""
    first = values[0]
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return ""
    if not first.value.startswith(package + "."):
        return ""
    out: list[str] = []
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            text, colon, _rest = value.value.partition(":")
            out.append(text)
            if colon:
                break
        else:
            out.append(HOLE)
    text = "".join(out)
    if HOLE not in text or not re.fullmatch(r"[\w.]*(?:\{\}[\w.]*)+", text):
        return ""
    return text


@lru_cache(maxsize=256)
def regex(text: str) -> re.Pattern[str]:
    """The regular expression of the module names a :func:`pattern` ``text`` fits."""
    return re.compile("^" + _PART.join(re.escape(part) for part in text.split(HOLE)) + "$")


def table_rows(tree: ast.Module) -> list[tuple[str, ...]]:
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
