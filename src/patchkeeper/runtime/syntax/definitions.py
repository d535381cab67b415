"""The function or class definition at a line of a piece of Python source.

``runtime port`` works on a plugin file's lines as it edits them (version gates cut, line
ends made ``"\\n"``): to rewrite a copy's decorators, or to find a definition again after a
gate cut moved it, it parses those lines and takes the definition that starts at a line.
The lines are a fragment of work in progress, not a file as read, so they are parsed here
and not through :func:`patchkeeper.runtime.syntax.parsing.parse_file` (which lists files).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TypeAlias

from patchkeeper.runtime.syntax.astwalk import nodes

#: A definition: a function (sync or async) or a class.
Definition: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_KINDS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def definition_at(
    lines: Sequence[str], line: int | None, name: str | None = None
) -> Definition | None:
    """The definition of the source ``lines`` (each with its line end) whose ``def`` or
    ``class`` line is the 1-based ``line`` (decorators are above it); when none starts
    there and ``name`` is given, the one definition of that name, at any depth. ``None``
    when the lines do not parse, or no single definition is found so.

    >>> source = ["class A:\\n", "    @staticmethod\\n", "    def f():\\n", "        pass\\n"]
    >>> definition_at(source, 3).name
    'f'
    >>> definition_at(["def f():\\n", "    pass\\n"], 2, "f").lineno
    1
    """
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return None
    defined = [node for node in nodes(tree) if isinstance(node, _KINDS)]
    found = [node for node in defined if node.lineno == line]
    if not found and name is not None:
        found = [node for node in defined if node.name == name]
    return found[0] if len(found) == 1 else None
