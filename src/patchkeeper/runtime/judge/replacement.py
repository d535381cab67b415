"""The plugin's replacement spans the runtime audit's judges compare, read once before
the judging from the sources the inventory located
(:meth:`patchkeeper.runtime.inventory.plugin.PluginTree.replacement_sources`): the
judges are handed each span as data (:class:`~patchkeeper.runtime.judge.drift.Code`) and
never call back into the plugin tree.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from patchkeeper.runtime.inventory.plugin import PluginTree, ReplacementSource
from patchkeeper.runtime.judge.calling import outer_aliases
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.syntax.astwalk import nodes, of_kinds, statements
from patchkeeper.runtime.syntax.gates import evaluate_node
from patchkeeper.runtime.syntax.parsing import forget_plugin_trees, plugin_file_tree


def replacement_codes(
    sources: dict[str, ReplacementSource], *, forget: bool = True
) -> dict[str, Code]:
    """The :class:`Code` of each located replacement ``module:qualname`` (``sources``), by
    replacement: its span, decorators excluded from the span and listed in
    :attr:`Code.decorators`, whether its module tests upstream's release
    (:attr:`Code.gated`) and what it imports (:attr:`Code.imports`). The plugin trees
    kept are let go after (:func:`~patchkeeper.runtime.syntax.parsing.
    forget_plugin_trees`) unless ``forget`` is false (the caller reads more of them
    first, and lets them go itself)."""
    codes = {replacement: source_code(found) for replacement, found in sources.items()}
    if forget:
        forget_plugin_trees()  # the facts are kept; the trees would stay in every worker
    return codes


def plugin_code(tree: PluginTree, replacement: str) -> Code | None:
    """The :class:`Code` of one replacement ``module:qualname`` of ``tree``; ``None`` for
    an expression or a name without a file or span."""
    found = tree.replacement_sources((replacement,)).get(replacement)
    return None if found is None else source_code(found)


def source_code(found: ReplacementSource) -> Code:
    """The :class:`Code` of one located replacement (see :func:`replacement_codes`); the
    patch decorator is not part of the compared lines."""
    file, start, end = found.file, found.start, found.end
    lines = _plugin_lines(file)[start - 1 : end]
    decorators = () if found.first is None else _decorators(file, found.first, start, end)
    gated, imports = _gated_file(file), _imports_of(file)
    gated_names = _gated_names(file) if gated else ()
    aliases = outer_aliases(plugin_tree(file), start)
    return Code(
        found.relative,
        start,
        tuple(lines),
        decorators,
        gated,
        imports,
        gated_names,
        aliases,
        _own_functions(file),
        _version_flags(file) if may_hold_gate(file) else (),
    )


@functools.lru_cache(maxsize=64)
def _version_flags(file: Path) -> tuple[str, ...]:
    """:attr:`Code.version_flags` of a plugin file: the names its module-level statements
    (those of the module's body and of the ``if``/``try`` blocks in it) assign, alone, a
    test of upstream's release that :func:`patchkeeper.runtime.syntax.gates.evaluate`
    decides (``_IS_VLLM_RELEASE = vllm_version_is("0.25.1")``); empty when it does not
    parse."""
    tree = plugin_tree(file)
    if tree is None:
        return ()
    names: dict[str, None] = {}
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.If, ast.Try)):
            todo.extend(node.body)
            todo.extend(node.orelse)
            if isinstance(node, ast.Try):
                todo.extend(node.finalbody)
                for handler in node.handlers:
                    todo.extend(handler.body)
            continue
        if isinstance(node, ast.Assign) and node.value is not None:
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if evaluate_node(value, "0") is None:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                names[target.id] = None
    return tuple(names)


@functools.lru_cache(maxsize=256)
def _own_functions(file: Path) -> tuple[tuple[str, str], ...]:
    """:attr:`Code.own_functions` of a plugin file: each module-level function's name and
    source, its decorators included; empty when the file does not parse."""
    tree = plugin_tree(file)
    if tree is None:
        return ()
    lines = _plugin_lines(file)
    out: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append((node.name, "".join(lines[first - 1 : node.end_lineno])))
    return tuple(out)


@functools.lru_cache(maxsize=256)
def _plugin_lines(file: Path) -> tuple[str, ...]:
    try:
        return tuple(file.read_text(encoding="utf-8", errors="replace").splitlines(True))
    except OSError:
        return ()


def plugin_tree(file: Path) -> ast.Module | None:
    """The parse of a plugin file (:func:`patchkeeper.runtime.syntax.parsing.
    plugin_file_tree`), ``None`` when it cannot be read or does not parse: one parse of
    each file for the facts :func:`source_code` reads of it (whether it tests upstream's
    release, what it imports, the names its gates bind), for the version gates
    :func:`patchkeeper.runtime.judge.gated_binding.gated_bindings` reads and for the
    feature probes' checks, and none for a patch file the inventory scanned in this
    process (its tree is kept). Nothing reads the tree but to collect facts: it is not
    changed, and the judging lets the trees go once it has the facts, before its workers
    are forked (:func:`replacement_codes`, or the judging itself)."""
    return plugin_file_tree(file)


@functools.lru_cache(maxsize=64)
def _decorators_by_line(file: Path) -> dict[int, tuple[str, ...]]:
    """The decorators of every function and class of a plugin file, by the line of its
    ``def``/``class`` (``ast.unparse`` of each); empty when the file does not parse."""
    tree = plugin_tree(file)
    if tree is None:
        return {}
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        node.lineno: tuple(ast.unparse(d) for d in node.decorator_list)
        for node in nodes(tree)
        if isinstance(node, kinds) and node.decorator_list
    }


@functools.lru_cache(maxsize=64)
def _gated_file(file: Path) -> bool:
    """Whether a plugin file tests upstream's release (:func:`holds_version_gate`); ``False``
    when it does not parse."""
    if not may_hold_gate(file):
        return False
    tree = plugin_tree(file)
    return False if tree is None else holds_version_gate(tree)


def may_hold_gate(file: Path) -> bool:
    """Whether a plugin file may hold a test :func:`patchkeeper.runtime.syntax.gates.
    evaluate` decides, read from its text, unparsed: every such test names a release
    through an identifier holding "version" (``version_is``, ``__version__``,
    ``VLLM_VERSION``), so an ASCII file without the word holds none (an identifier is its
    own text there)."""
    text = "".join(_plugin_lines(file))
    return not text.isascii() or "version" in text.lower()


@functools.lru_cache(maxsize=64)
def _gated_names(file: Path) -> tuple[str, ...]:
    """:attr:`Code.gated_names` of a plugin file: the names (``as`` names, or the first
    part of a plain ``import a.b``) imported, defined or assigned in either branch of an
    ``if`` that tests upstream's release (a test
    :func:`patchkeeper.runtime.syntax.gates.evaluate` decides); empty when it does not
    parse."""
    tree = plugin_tree(file)
    if tree is None:
        return ()
    names: dict[str, None] = {}
    for node in nodes(tree):
        if not (isinstance(node, ast.If) and evaluate_node(node.test, "0") is not None):
            continue
        for statement in (*node.body, *node.orelse):
            for sub in nodes(statement):
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    for alias in sub.names:
                        names[alias.asname or alias.name.split(".")[0]] = None
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names[sub.name] = None
                elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names[sub.id] = None
    return tuple(names)


@functools.lru_cache(maxsize=64)
def _imports_of(file: Path) -> tuple[tuple[str, str], ...]:
    """:attr:`Code.imports` of a plugin file (every ``from m import ...`` at any depth);
    empty when it does not parse."""
    tree = plugin_tree(file)
    if tree is None:
        return ()
    return tuple(
        (alias.asname or alias.name, node.module)
        for node in statements(tree)
        if isinstance(node, ast.ImportFrom) and node.module and not node.level
        for alias in node.names
    )


def holds_version_gate(node: ast.AST, flags: tuple[str, ...] = ()) -> bool:
    """Whether ``node`` holds a test of upstream's release: an ``if`` or a conditional
    expression whose test :func:`patchkeeper.runtime.syntax.gates.evaluate` can decide
    (``if vllm_version_is("0.25.1"):``, ``vllm.__version__ >= "0.30"``), or whose test
    reads one of ``flags``, names its module binds to such a test
    (:attr:`~patchkeeper.runtime.judge.drift.Code.version_flags`: ``if not _IS_RELEASE and
    layer.scattered:``)."""
    for found in of_kinds(node, _TESTS):
        test = found.test  # type: ignore[attr-defined]
        if evaluate_node(test, "0") is not None:
            return True
        if flags and any(
            isinstance(name, ast.Name) and name.id in flags for name in of_kinds(test, _NAME)
        ):
            return True
    return False


#: The node :func:`holds_version_gate` reads a flag from.
_NAME = frozenset({ast.Name})


#: The nodes whose test :func:`holds_version_gate` reads (in any order: the answer is
#: whether one of them decides).
_TESTS = frozenset({ast.If, ast.IfExp})


def _decorators(file: Path, first: int, start: int, end: int) -> tuple[str, ...]:
    """The decorators (``ast.unparse`` of each) of the definition whose ``def``/``class`` is
    on line ``start`` of a plugin file, its decorators starting on line ``first`` and its
    body ending on line ``end``: that source alone is parsed (inside ``if 1:`` when
    indented), not the file. Where that reading could differ from the file's parse (a
    line end :meth:`str.splitlines` counts and the parser does not, a decorator not
    starting its line, a span that does not parse alone), the file is parsed
    (:func:`_decorators_by_line`)."""
    lines = _plugin_lines(file)
    part = lines[first - 1 : end]
    if not part or not part[0].lstrip(" \t").startswith("@") or not _newlines_only(file):
        return _decorators_by_line(file).get(start, ())
    indented = part[0][:1] in (" ", "\t")
    source = ("if 1:\n" if indented else "") + "".join(part)
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return _decorators_by_line(file).get(start, ())
    node = body[0].body[0] if indented and isinstance(body[0], ast.If) else body[0]
    if (
        not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        or node.lineno != start - first + 1 + indented
    ):
        return _decorators_by_line(file).get(start, ())
    return tuple(ast.unparse(d) for d in node.decorator_list)


#: The line ends :meth:`str.splitlines` knows besides ``"\n"``: the parser counts lines by
#: ``"\n"``, ``"\r\n"`` and ``"\r"`` only.
_OTHER_LINE_ENDS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


@functools.lru_cache(maxsize=256)
def _newlines_only(file: Path) -> bool:
    r"""Whether ``"\n"`` is the only line end of a plugin file (:func:`_plugin_lines` then
    numbers its lines as the parser does)."""
    return not any(_OTHER_LINE_ENDS.search(line) for line in _plugin_lines(file))
