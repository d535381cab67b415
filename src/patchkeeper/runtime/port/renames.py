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

A copy that lives in another module than upstream's definition often reaches upstream's
module-level helpers through their module (``mamba_utils.collect_mamba_copy_meta(...)``
where upstream writes ``collect_mamba_copy_meta(...)``): every line calling one differs
from upstream, and conflicts when upstream changed it. :func:`qualified_names` finds the
names the copy writes only so (never bare, always behind the same module name) that the old
upstream definition uses as free names; :func:`qualify` writes them so in both upstream
definitions before the merge (the base and the new release), so only upstream's own change
is merged into the copy, in the copy's spelling.
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
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
        out[arg.arg] = ast.unparse(kw_default) if kw_default is not None else ""
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


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None


def _bound(node: ast.AST) -> set[str]:
    """The names the definition binds itself: parameters, assignment targets, imports,
    nested definitions, loop and ``with``/``except`` targets."""
    out: set[str] = set()
    for found in ast.walk(node):
        if isinstance(found, ast.Name) and not isinstance(found.ctx, ast.Load):
            out.add(found.id)
        elif isinstance(found, ast.arg):
            out.add(found.arg)
        elif isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(found.name)
        elif isinstance(found, ast.alias):
            out.add((found.asname or found.name).split(".")[0])
        elif isinstance(found, ast.ExceptHandler) and found.name:
            out.add(found.name)
    return out


def qualified_names(old: str, mine: str, modules: frozenset[str], new: str = "") -> dict[str, str]:
    """The free names of the old upstream definition ``old`` that the copy ``mine`` (two
    definitions' source) writes only behind one module name (name -> ``module.name``): the
    copy never uses the name bare and always as ``module.name`` with the same ``module``,
    one of ``modules`` (the names the copy's file binds to upstream's module of the
    definition: ``np.max`` for ``max`` is another function, not a spelling), and no
    definition binds it (nor the new upstream one, ``new``, when given: a local of that
    name there is no module-level name). Empty when ``old`` or ``mine`` does not parse.

    >>> qualified_names("def f(x):\\n    return helper(x)\\n",
    ...                 "def f(x):\\n    return utils.helper(x) + 1\\n", frozenset({"utils"}))
    {'helper': 'utils.helper'}
    """
    before, copy = _parse(old), _parse(mine)
    if before is None or copy is None or not modules:
        return {}
    bound = _bound(before) | _bound(copy)
    after = _parse(new) if new else None
    if new and after is None:
        return {}
    if after is not None:
        bound |= _bound(after)
    free = {
        n.id for n in ast.walk(before) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    bare = {n.id for n in ast.walk(copy) if isinstance(n, ast.Name)}
    behind: dict[str, set[str]] = {}
    for found in ast.walk(copy):
        if isinstance(found, ast.Attribute) and isinstance(found.value, ast.Name):
            behind.setdefault(found.attr, set()).add(found.value.id)
    out: dict[str, str] = {}
    for name in sorted(free - bound - bare):
        owners = behind.get(name, set())
        if len(owners) == 1:
            (module,) = owners
            if module not in bound and module in modules:
                out[name] = f"{module}.{name}"
    return out


def module_aliases(source: str, module: str) -> frozenset[str]:
    """The names a module's ``source`` binds to the module ``module`` at its top level
    (``from a.b import c`` or ``import a.b.c as c`` for ``a.b.c``); empty when it does not
    parse.

    >>> sorted(module_aliases("from a.b import c\\nimport a.b.c as d\\n", "a.b.c"))
    ['c', 'd']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    found = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if f"{node.module}.{alias.name}" == module:
                    found.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module and alias.asname:
                    found.add(alias.asname)
    return frozenset(found)


def qualify(text: str, names: dict[str, str]) -> str:
    """``text`` (a definition's source, indented or not) with every bare use of a name in
    ``names`` (an ``ast.Name`` read, not an attribute, keyword or parameter) written as its
    qualified form; ``text`` unchanged when it does not parse.

    >>> qualify("def f(x):\\n    return helper(x, helper=1)\\n", {"helper": "u.helper"})
    'def f(x):\\n    return u.helper(x, helper=1)\\n'
    """
    if not names:
        return text
    lines = text.splitlines(True)
    flat = textwrap.dedent(text).splitlines(True)
    tree = _parse(text)
    if tree is None or len(flat) != len(lines):
        return text
    edits = [
        (n.lineno, n.col_offset, n.end_col_offset or n.col_offset, names[n.id])
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
    ]
    for row, start, end, name in sorted(edits, reverse=True):
        raw = lines[row - 1].encode("utf-8", "surrogateescape")
        # the parse's columns start after the indentation dedent took off this line
        cut = len(raw) - len(flat[row - 1].encode("utf-8", "surrogateescape"))
        head, tail = raw[: cut + start], raw[cut + end :]
        lines[row - 1] = (head + name.encode() + tail).decode("utf-8", "surrogateescape")
    return "".join(lines)


__all__ = ["module_aliases", "qualified_names", "qualify", "rename", "renamed_parameters"]
