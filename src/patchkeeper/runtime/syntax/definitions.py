"""The function or class definition at a line of a piece of Python source.

``runtime port`` works on a plugin file's lines as it edits them (version gates cut, line
ends made ``"\\n"``): to rewrite a copy's decorators, or to find a definition again after a
gate cut moved it, it parses those lines and takes the definition that starts at a line.
The lines are a fragment of work in progress, not a file as read, so they are parsed here
and not through :func:`patchkeeper.runtime.syntax.parsing.parse_file` (which lists files).

A class the plugin replaces is read in three trees, its old upstream definition, its new one
and the plugin's class: :func:`three_classes` gives the three class definitions, or says that
one of them is no class.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TypeAlias

from patchkeeper.runtime.syntax.astwalk import nodes

#: A definition: a function (sync or async) or a class.
Definition: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_KINDS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: One class in three trees: the old upstream's, the new upstream's and the plugin's.
ClassTrio: TypeAlias = tuple[ast.ClassDef, ast.ClassDef, ast.ClassDef]


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


def three_classes(
    old: ast.stmt | None, new: ast.stmt | None, mine: ast.stmt | None
) -> ClassTrio | None:
    """``(old, new, mine)`` when all three are class definitions: the old upstream's
    definition of a target, the new upstream's and the plugin's replacement; ``None`` when
    one of them is not (a function, or a span that does not parse: ``None``).

    >>> klass, function = ast.parse("class A: pass").body[0], ast.parse("def f(): pass").body[0]
    >>> [node.name for node in three_classes(klass, klass, klass)]
    ['A', 'A', 'A']
    >>> three_classes(klass, function, klass) is None
    True
    """
    if isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
        return (old, new, mine) if isinstance(mine, ast.ClassDef) else None
    return None
