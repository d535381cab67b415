"""Extension points upstream gained that can replace a monkey patch.

An entry is *migrate* when a registry, platform hook, custom op or narrower extension point
of the new upstream now supports what the patch does. A hook is consulted by code; this
module looks at the new upstream definition of the target and at the functions of the
target's module that call it, and lists the hooks they consult that the old release did not
define anywhere:

- a platform method: ``current_platform.<m>(...)``, ``<x>.platform.<m>``, ``Platform.<m>``;
- a registration function or method: ``register_<x>(...)``, ``<X>.register<_x>(...)``,
  ``CustomOp.register_oot`` (not a method of the object at hand, ``self.<x>.register_<y>``:
  that is a call into a collaborator, not an extension point a plugin fills);
- a registry read: ``<NAME>_REGISTRY[...]`` / ``.get(...)``, ``<x>_registry.<m>(...)``;
- an allocator or kernel-selection hook: a call of ``get_<x>_backend<...>``,
  ``<x>_allocator<...>`` or ``select_<x>``.

"Did not define" is checked in the whole old tree (:meth:`UpstreamTree.defined`), so a hook
that only moved is not new.
"""

from __future__ import annotations

import ast
import re
from typing import Any
from unicodedata import is_normalized

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.lookup.resolve import Resolution
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.syntax.astwalk import leveled_statements, nodes, statements
from patchkeeper.runtime.syntax.names import attribute_chain
from patchkeeper.runtime.syntax.parsing import parse_file

_PLATFORM_OBJECTS = re.compile(r"(?i)(^|\.)(current_platform|platform|platform_cls)$|Platform$")
_REGISTER = re.compile(r"^register(_\w+)?$|_register$|^register_oot$")
_REGISTRY = re.compile(r"(?i)registry$")
#: The object at hand (``self``, ``self.connector``): its methods are not extension points.
_INSTANCE = re.compile(r"^(self|cls)(\.|$)")
_SELECTION = re.compile(r"^get_\w*backend\w*$|allocator|^select_\w+$")


_CONSULTED: dict[int, tuple[ast.AST, dict[str, str]]] = {}


#: Words one of which the text of every hook a node consults holds (lower case): a platform
#: object, ``register``/``registry``, a backend, an allocator, ``select_``.
_HOOK_WORDS = ("platform", "regist", "backend", "allocator", "select_")


def consulted(node: ast.AST, text: str | None = None) -> dict[str, str]:
    """The hooks ``node`` consults: the hook's own name -> how it is reached
    (``"current_platform.get_attn_backend_cls"``); walked once per node in a process.
    ``text``, the node's source when known: an ASCII source without any of
    :data:`_HOOK_WORDS` (an identifier is its own text there) consults none, unwalked."""
    if text is not None and text.isascii():
        lowered = text.lower()
        if not any(word in lowered for word in _HOOK_WORDS):
            return {}
    hit = _CONSULTED.get(id(node))
    if hit is None or hit[0] is not node:
        hit = _CONSULTED[id(node)] = (node, _consulted(node))
    return dict(hit[1])


def _consulted(node: ast.AST) -> dict[str, str]:
    found: dict[str, str] = {}
    for sub in nodes(node):  # in ast.walk's order: the first way a hook is reached is kept
        if isinstance(sub, ast.Call):
            func = sub.func
            text = attribute_chain(func, rooted=False)
            name = text.rsplit(".", 1)[-1]
            owner = text.rsplit(".", 1)[0] if "." in text else ""
            platform = bool(owner) and bool(_PLATFORM_OBJECTS.search(owner))
            registers = bool(_REGISTER.search(name)) and not _INSTANCE.match(owner)
            if platform or registers or _SELECTION.search(name):
                found.setdefault(name, text)
            elif owner and _REGISTRY.search(owner.rsplit(".", 1)[-1]):
                found.setdefault(owner.rsplit(".", 1)[-1], text)
        elif isinstance(sub, ast.Subscript):
            text = attribute_chain(sub.value, rooted=False)
            if text and _REGISTRY.search(text.rsplit(".", 1)[-1]):
                found.setdefault(text.rsplit(".", 1)[-1], text + "[...]")
    return found


_PARSED: dict[tuple[str, str], ast.Module | None] = {}


def module_ast(tree: UpstreamTree, module: str, keep: bool = True) -> ast.Module | None:
    """The parsed module (once per tree and module in a process); ``keep=False`` for a
    caller that reads facts from the tree and lets it go: a tree parsed then is not kept
    (a whole module's tree is tens of times its source: kept, the trees of the modules the
    judging reads once filled memory that the next parse cannot reuse)."""
    key = (str(tree.root), module)
    if key in _PARSED:
        return _PARSED[key]
    try:
        found = tree.module_file(module)
        source = tree.source_text(module)
        parsed: ast.Module | None = parse_file(source, found[0] if found else module)
    except SyntaxError:
        parsed = None
    if keep:
        _PARSED[key] = parsed
    return parsed


def names_as_written(text: str) -> bool:
    """Whether every identifier of ``text`` (a module's text, as
    :meth:`UpstreamTree.source_text` reads it) is written as the parser reads it, so that
    a text not holding a name names it nowhere: an ASCII text, or one in its normal form
    (NFKC, as the parser reads identifiers) that was read whole as UTF-8 (no replacement
    character)."""
    return text.isascii() or ("\ufffd" not in text and is_normalized("NFKC", text))


#: The line ends :meth:`str.splitlines` (and so :meth:`UpstreamTree.source_lines`) knows
#: besides the parser's ``"\n"``, ``"\r\n"`` and ``"\r"``; ``"\r"`` is listed too (the
#: two count it alike): a module with any of them is read whole, not worth the doubt.
_OTHER_LINE_ENDS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def module_parts(tree: UpstreamTree, module: str) -> list[tuple[int, str]] | None:
    """The parts of ``module`` of ``tree`` in the order of the source, each ``(first line,
    text)``, each text parsing on its own with its lines where they are in the module
    (after ``first line - 1`` empty lines): every function defined directly in the
    module's body, every method defined directly in the body of such a class (after an
    ``if 1:`` line, as its lines are indented: the method is at the same depth of the
    parse as in the module), the rest of each such class (each of those methods left out
    for a ``pass`` at its indent and as many empty lines), and the lines between them
    (decorators go with their definition: the summary's spans). Each line holding code
    is in one part. A class holds most of a module, and the reads of one name are in a
    few of its methods. For a reader that needs the parts naming some identifier only:
    an identifier is written as its text where the text is in its normal form (NFKC, as
    the parser reads identifiers), so a part whose text does not name it does not hold
    it. ``None`` when the module has no summary made this run or stored
    (:meth:`UpstreamTree.summary`: it was parsed whole for it), does not parse (its
    summary says so), holds a line end the parser does not count (its summary's line
    numbers would not be its lines' places), or its text is not in its normal form or was
    not read whole as UTF-8."""
    found = tree.module_file(module)
    if found is None:
        return None
    summary = tree.summaries.get(module)
    if summary is None and tree.cache.valid(found[0]):
        summary = tree.summary(module)
    if summary is None or summary.syntax_error:
        return None
    lines = tree.source_lines(module, 1, 10**9)
    text = "".join(lines)
    if _OTHER_LINE_ENDS.search(text):  # lines the summary's numbers do not count
        return None
    if not names_as_written(text):
        return None
    spans: list[tuple[int, int, str]] = []
    methods: dict[str, list[tuple[int, int]]] = {}
    for qual, definition in summary.definitions.items():
        if definition.conditional or definition.kind not in ("function", "class"):
            continue
        owner, dot, name = qual.partition(".")
        if not dot:
            spans.append((definition.line, definition.end_line, qual))
        elif "." not in name and definition.kind == "function":
            methods.setdefault(owner, []).append((definition.line, definition.end_line))
    parts: list[tuple[int, str]] = []
    following = 1
    for start, end, qual in sorted(spans):
        if start < following:  # not met: the statements of a module do not overlap
            return None
        if start > following:
            parts.append((following, "".join(lines[following - 1 : start - 1])))
        inner = sorted(m for m in methods.get(qual, ()) if start < m[0] and m[1] <= end)
        if inner:  # a class with methods: each apart
            rest: list[str] = []
            at = start
            for first, last in inner:
                if first < at:  # not met: the statements of a class do not overlap
                    return None
                line = lines[first - 1]
                indent = line[: len(line) - len(line.lstrip())]
                rest += [*lines[at - 1 : first - 1], indent + "pass\n", *["\n"] * (last - first)]
                parts.append((first - 1, "if 1:\n" + "".join(lines[first - 1 : last])))
                at = last + 1
            rest += lines[at - 1 : end]
            parts.append((start, "".join(rest)))
        else:
            parts.append((start, "".join(lines[start - 1 : end])))
        following = end + 1
    if following <= len(lines):
        parts.append((following, "".join(lines[following - 1 :])))
    return parts


_Function = tuple[str, "ast.FunctionDef | ast.AsyncFunctionDef", int, int]
_FUNCTIONS: dict[tuple[str, str], list[_Function]] = {}


def _functions(tree: UpstreamTree, module: str) -> list[_Function]:
    """``(name, node, first line, last line)`` of every function of a module, decorators
    included in the span (built once per tree and module in a process)."""
    key = (str(tree.root), module)
    if key not in _FUNCTIONS:
        parsed = module_ast(tree, module)
        found: list[_Function] = []
        for node in statements(parsed) if parsed is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(_function(node))
        _FUNCTIONS[key] = found
    return _FUNCTIONS[key]


#: A module's parts (:func:`module_parts`) for :func:`_named_functions`, each
#: ``[first line, text, its functions with their depth]`` (``None`` until parsed); ``None``
#: for a module not read in parts.
_FUNCTION_PARTS: dict[tuple[str, str], list[list[Any]] | None] = {}


def _named_functions(tree: UpstreamTree, module: str, name: str) -> list[_Function] | None:
    """The functions of ``module`` of ``tree`` as :func:`_functions` gives them (in its
    order: by depth, then by line), but those of the parts (:func:`module_parts`) whose
    text is ASCII and does not name ``name``: parts that are not parsed, since
    :func:`_callers` passes over each such function unwalked anyway. Such a module was
    parsed whole for its summary already. ``None`` (the caller reads the whole module,
    :func:`_functions`) when its functions were read whole already, or the module is not
    split."""
    key = (str(tree.root), module)
    if key in _FUNCTIONS:
        return None
    if key not in _FUNCTION_PARTS:
        split = module_parts(tree, module)
        _FUNCTION_PARTS[key] = None if split is None else [[*part, None] for part in split]
    parts = _FUNCTION_PARTS[key]
    if parts is None:
        return None
    found: list[tuple[int, int, _Function]] = []
    for part in parts:
        first, text, functions = part
        if text.isascii() and name not in text:
            continue
        if functions is None:
            try:  # its lines where they are in the module
                parsed = ast.parse("\n" * (first - 1) + text)
            except (SyntaxError, ValueError):  # not met: each part is whole statements
                _FUNCTION_PARTS[key] = None
                return None
            functions = part[2] = [
                (depth, _function(node))
                for depth, node in leveled_statements(parsed)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
        found += [(depth, f[1].lineno, f) for depth, f in functions]
    found.sort(key=lambda row: row[:2])
    return [row[2] for row in found]


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Function:
    """``(name, node, first line, last line)`` of a function, decorators included."""
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    return (node.name, node, start, node.end_lineno or node.lineno)


_MENTIONS: dict[int, tuple[ast.AST, frozenset[str]]] = {}


def _mentioned(node: ast.AST) -> frozenset[str]:
    """The names (``Name`` ids, ``Attribute`` attributes) inside ``node`` (once per node)."""
    hit = _MENTIONS.get(id(node))
    if hit is None or hit[0] is not node:
        names = frozenset(
            s.id if isinstance(s, ast.Name) else s.attr
            for s in nodes(node)
            if isinstance(s, (ast.Name, ast.Attribute))
        )
        hit = _MENTIONS[id(node)] = (node, names)
    return hit[1]


def _callers(
    tree: UpstreamTree, found: Resolution
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """``(qualname, node, source)`` of the functions of the target's module that mention
    the target's name (its callers in that module). A function whose ASCII source does not
    contain the name cannot mention it (an identifier is its own text there), so only the
    others are walked; the parts of a summarized module holding none of them are not
    parsed (:func:`_named_functions`)."""
    name = found.qualname.rsplit(".", 1)[-1]
    callers = []
    functions = _named_functions(tree, found.module, name)
    if functions is None:
        functions = _functions(tree, found.module)
    for qual, node, start, end in functions:
        if qual == name:
            continue
        text = "".join(tree.source_lines(found.module, start, end))
        if text.isascii() and name not in text:
            continue
        if name in _mentioned(node):
            callers.append((qual, node, text))
    return callers


def _may_call(tree: UpstreamTree, found: Resolution) -> bool:
    """Whether a function of the target's module may mention the target and consult a hook
    (:func:`_callers`, :func:`consulted`), read from the module's text before it is parsed:
    not when the text is ASCII (an identifier is its own text there) and names the target
    at most once (its own definition: no other function mentions it), or holds none of
    :data:`_HOOK_WORDS` (no function consults a hook)."""
    text = tree.source_text(found.module)
    if not text.isascii():
        return True
    if text.count(found.qualname.rsplit(".", 1)[-1]) <= 1:
        return False
    lowered = text.lower()
    return any(word in lowered for word in _HOOK_WORDS)


def registers_name(node: ast.AST, name: str) -> bool:
    """Whether ``node`` (a caller of the target in its module) hands the target itself,
    by its module-level ``name``, to a registration: a call of ``register<_x>`` (not a
    method of the object at hand) or of a registry's method with ``name`` among its
    arguments (``KVCacheSpecRegistry.register(MambaSpec, MambaManager)``). The caller
    reads the name when it runs, after the plugin's module rebound it: what upstream
    registers is the plugin's replacement, and the caller's other registrations are of
    other names. Such a caller is a table of registrations, not an extension point the
    patch could move to."""
    for sub in nodes(node):
        if not isinstance(sub, ast.Call):
            continue
        text = attribute_chain(sub.func, rooted=False)
        called = text.rsplit(".", 1)[-1]
        owner = text.rsplit(".", 1)[0] if "." in text else ""
        registers = bool(_REGISTER.search(called)) and not _INSTANCE.match(owner)
        if not registers and not (owner and _REGISTRY.search(owner.rsplit(".", 1)[-1])):
            continue
        arguments = [*sub.args, *(k.value for k in sub.keywords)]
        if any(isinstance(a, ast.Name) and a.id == name for a in arguments):
            return True
    return False


_CANDIDATES: dict[tuple[Any, ...], dict[str, str]] = {}


def candidates(
    new: Resolution, new_tree: UpstreamTree, old_code: Code | None, new_code: Code | None
) -> dict[str, str]:
    """The hooks the new target (or a caller in its module) consults and the old target did
    not: hook name -> ``"<how it is reached> (in <where>)"`` (not yet checked against the
    old tree)."""
    if old_code is None or new_code is None or old_code.text == new_code.text:
        return {}
    key = (str(new_tree.root), new.module, new.qualname, new.location, old_code.text, new_code.text)
    if key not in _CANDIDATES:
        _CANDIDATES[key] = _candidates(new, new_tree, old_code, new_code)
    return dict(_CANDIDATES[key])


def _candidates(
    new: Resolution, new_tree: UpstreamTree, old_code: Code, new_code: Code
) -> dict[str, str]:
    old_node, new_node = old_code.parsed, new_code.parsed
    if old_node is None or new_node is None:
        return {}
    before = consulted(old_node, old_code.text)
    sites = [(new.location, consulted(new_node, new_code.text))]
    if new.qualname and "." not in new.qualname and _may_call(new_tree, new):
        callers = _callers(new_tree, new)  # a module-level definition: its callers
        name = new.qualname
        sites += [
            (f"{new.module}.{q}", consulted(n, text))
            for q, n, text in callers
            if not registers_name(n, name)
        ]
    found: dict[str, str] = {}
    for where, hooks in sites:
        for name, how in hooks.items():
            if name not in before and name not in found:
                found[name] = f"{how} (in {where})"
    return found
