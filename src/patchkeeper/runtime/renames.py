"""Parameters upstream renamed, carried into a copy before it is merged.

When upstream renames a parameter of a function (``output_col`` becomes ``cache_col``) and
uses the new name everywhere in its body, every line naming it changes. A plugin's copy
that changed one of those lines for its own reason then conflicts with upstream on that
line in a three-way merge, though the two changes are independent: one is the rename, the
other the plugin's edit. :func:`renamed_parameters` finds such renames by comparing the two
upstream signatures (same position, same annotation and default, the old name gone from
the new definition and the new name absent from the old one); :func:`rename` applies them
to the old upstream text (the merge base) and to the copy, one Python name token at a time
(attribute names after a ``.``, strings and comments left alone), so the merge sees the
rename as no change and carries the plugin's edits over with the new name.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize


def _function(text: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = node.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Each parameter's default as source (``""``: none)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    out = {a.arg: "" for a in _parameters(node)}
    for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
        out[arg.arg] = ast.unparse(default)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        out[arg.arg] = ast.unparse(default) if default is not None else ""
    return out


def _names(node: ast.AST) -> set[str]:
    """Every identifier the definition uses: names, parameters, keywords, attributes."""
    out: set[str] = set()
    for found in ast.walk(node):
        if isinstance(found, ast.Name):
            out.add(found.id)
        elif isinstance(found, (ast.arg, ast.keyword)) and found.arg:
            out.add(found.arg)
        elif isinstance(found, ast.Attribute):
            out.add(found.attr)
    return out


def renamed_parameters(old: str, new: str, mine: str) -> dict[str, str]:
    """The parameters (old name -> new name) that upstream renamed from the function
    ``old`` to ``new`` (two definitions' source) and that the copy ``mine`` still takes
    under the old name: a parameter at the same position with the same annotation and
    default whose old name the new definition never uses and whose new name the old one
    never used. Empty when any of them is not a function or does not parse.

    >>> renamed_parameters("def f(a, col=None):\\n    return col\\n",
    ...                    "def f(a, cache=None):\\n    return cache\\n",
    ...                    "def f(a, col=None):\\n    return col + 1\\n")
    {'col': 'cache'}
    """
    before, after, copy = _function(old), _function(new), _function(mine)
    if before is None or after is None or copy is None:
        return {}
    old_args, new_args = _parameters(before), _parameters(after)
    if len(old_args) != len(new_args):
        return {}
    old_defaults, new_defaults = _defaults(before), _defaults(after)
    old_names, new_names = _names(before), _names(after)
    taken = {a.arg for a in _parameters(copy)}
    out = {}
    for a, b in zip(old_args, new_args, strict=True):
        if a.arg == b.arg or a.arg in new_names or b.arg in old_names or a.arg not in taken:
            continue
        same_annotation = ast.dump(a.annotation) if a.annotation else ""
        if same_annotation != (ast.dump(b.annotation) if b.annotation else ""):
            continue
        if old_defaults[a.arg] != new_defaults[b.arg] or b.arg in taken:
            continue
        out[a.arg] = b.arg
    return out


def rename(text: str, renames: dict[str, str]) -> str:
    """``text`` (Python source lines) with every name token in ``renames`` replaced, except
    an attribute's name (after ``.``); strings and comments are not name tokens. ``text``
    unchanged when it does not tokenize.

    >>> rename("x = col + obj.col  # col\\n", {"col": "cache"})
    'x = cache + obj.col  # col\\n'
    """
    if not renames:
        return text
    lines = text.splitlines(True)
    edits: list[tuple[int, int, int, str]] = []
    previous = ""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and token.string in renames and previous != ".":
                row, col = token.start
                edits.append((row, col, col + len(token.string), renames[token.string]))
            if token.type not in (tokenize.NL, tokenize.COMMENT):
                previous = token.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text
    for row, start, end, name in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + name + line[end:]
    return "".join(lines)


__all__ = ["rename", "renamed_parameters"]
