"""The lines of a plugin file that can hold an edge to another plugin object.

An edge (:mod:`patchkeeper.runtime.inventory.scan`) is recorded for a name bound to a plugin path
(an import of the plugin, a function or class of the file, an alias of either) or for a
string naming the plugin package; every such name or string is written on some line of the
statement that holds it. So a statement whose lines contain none of those names and not
the package's name has no edge, and its expressions need not be walked: most statements of
a plugin's non-patch files (the activation search reads all ~700 files of vllm-ascend).
The set of names is a superset (every binding that *may* refer to the plugin, matched as
substrings), so nothing is skipped that could hold an edge.
"""

from __future__ import annotations

import ast
import itertools
import re
from typing import cast

from patchkeeper.runtime.inventory.file_facts import is_plugin
from patchkeeper.runtime.syntax import names


def plugin_names(
    bindings: names.ScopeBindings, module: str, is_package: bool, package: str
) -> set[str]:
    """Every name the file may bind to a plugin path, in any scope: the functions and classes
    it defines outside class bodies (a method's name is never bound in a scope: the scanner's
    name tables hold the module's and the enclosing functions' definitions, imports and
    aliases, :func:`patchkeeper.runtime.syntax.names.scope_table`), its imports of the plugin, and
    aliases of either. ``bindings``: the file's binding statements (one walk of its tree)."""
    bound: set[str] = set()
    #: alias name by the name at the root of its value (``orig = m.f``: ``m`` -> ``orig``)
    aliases: dict[str, list[str]] = {}
    for key, found in bindings.scopes.items():
        in_class = key in bindings.classes
        for node in found:
            kind = node.__class__
            if kind is ast.Import or kind is ast.ImportFrom:
                statement = cast("ast.Import | ast.ImportFrom", node)
                for local, binding in names.import_bindings(statement, module, is_package).items():
                    dotted = binding.dotted
                    if is_plugin(dotted, package) or package.startswith(dotted + "."):
                        bound.add(local)
            elif kind is ast.Assign or kind is ast.AnnAssign:
                assign = cast("ast.Assign | ast.AnnAssign", node)
                target = assign.targets[0] if isinstance(assign, ast.Assign) else assign.target
                if target.__class__ is ast.Name and assign.value is not None:
                    root = _root(assign.value)
                    if root.__class__ is ast.Name:
                        aliases.setdefault(root.id, []).append(target.id)
                    elif root.__class__ is ast.Call and _names_package(root, package):
                        bound.add(target.id)  # importlib.import_module("vllm_ascend.x")
            elif not in_class:
                bound.add(cast("ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef", node).name)
    waiting = [name for name in aliases if name in bound]
    while waiting:  # aliases of aliases
        for alias in aliases.get(waiting.pop(), ()):
            if alias not in bound:
                bound.add(alias)
                waiting.append(alias)
    return bound


def _root(expr: ast.expr) -> ast.expr:
    """The expression at the root of ``expr`` through attributes and ``getattr(obj, "name")``
    / ``getattr(obj, "name", default)`` calls (which name ``obj.name``,
    :func:`patchkeeper.runtime.syntax.names.dotted`): ``m`` for ``getattr(m, "f").g``, so an
    alias bound through ``getattr`` is an alias of ``m`` and its lines are walked."""
    while True:
        kind = expr.__class__
        if kind is ast.Attribute:
            expr = cast(ast.Attribute, expr).value
        elif kind is ast.Call and _is_getattr(cast(ast.Call, expr)):
            expr = cast(ast.Call, expr).args[0]
        else:
            return expr


def _is_getattr(call: ast.Call) -> bool:
    """Whether ``call`` may be the builtin ``getattr`` naming an attribute by a string (the
    form :func:`patchkeeper.runtime.syntax.names.dotted` resolves; a rebound ``getattr`` is
    matched too: the names are a superset)."""
    func = call.func
    return (
        isinstance(func, ast.Name)
        and func.id == "getattr"
        and len(call.args) in (2, 3)
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
    )


def _names_package(call: ast.Call, package: str) -> bool:
    """Whether a positional argument of ``call`` is a string holding ``package``."""
    return any(
        isinstance(a, ast.Constant) and isinstance(a.value, str) and package in a.value
        for a in call.args
    )


#: A run of word characters: a name written in a file is inside one.
WORD = re.compile(r"\w+")
#: Above this many needles, :func:`hot_lines` reads the words of the text once rather than
#: searching the text once per needle (a file defining thousands of functions has as many
#: needles: the searches would cost needles x size).
MANY_NEEDLES = 64


def hot_lines(text: str, needles: set[str]) -> list[int]:
    """The sorted 1-based numbers of the lines of ``text`` holding one of ``needles``
    (as a substring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # the parser's line ends
    needles = {n for n in needles if n}
    words = {n for n in needles if WORD.fullmatch(n)} if len(needles) > MANY_NEEDLES else set()
    positions = _word_positions(text, words) if words else []
    for needle in needles - words:
        position = text.find(needle)
        while position != -1:
            positions.append(position)
            end = text.find("\n", position)  # one hit per line is enough
            position = text.find(needle, end) if end != -1 else -1
    positions.sort()
    lines: list[int] = []
    line, last = 1, 0
    for position in positions:
        line += text.count("\n", last, position)
        last = position
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _word_positions(text: str, needles: set[str]) -> list[int]:
    """The offsets of the words of ``text`` (runs of word characters) holding one of
    ``needles`` (themselves words) as a substring: a word needle written on a line lies
    inside one run of word characters, so these are the lines holding one, found in one
    pass over the text (each distinct word tested once, by one search of the needles'
    alternation: the regular-expression engine tries them in C, where testing each of
    the word's substrings against the set took most of the scan of a file with many
    needles)."""
    search = re.compile("|".join(map(re.escape, sorted(needles)))).search
    holds: dict[str, bool] = {}
    positions: list[int] = []
    for match in WORD.finditer(text):
        word = match.group()
        found = holds.get(word)
        if found is None:
            found = holds[word] = search(word) is not None
        if found:
            positions.append(match.start())
    return positions


def line_counts(hot: list[int], text: str) -> list[int]:
    """``counts[n]``: how many lines of ``hot`` (sorted numbers of lines of ``text``) are
    ``<= n``, for every line ``n`` of ``text`` and one past its end: lines ``first..last``
    hold no hot line when ``counts[last] == counts[first - 1]`` (two list reads, where a
    search of the sorted lines takes a call)."""
    lines = text.count("\n") + text.count("\r") + 2  # the parser's lines, at most
    flags = bytearray(lines + 1)
    for line in hot:
        flags[line] = 1
    return list(itertools.accumulate(flags))
