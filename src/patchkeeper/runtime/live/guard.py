"""The import-time guard a plugin calls: is the running upstream the one that was audited?

``patchkeeper runtime lock`` writes a lock file (JSON) with, for every patched upstream
target, its module, qualified name, the sha256 of its source at the audited release
(:func:`definition_digest`) and the sha256 of its code without docstrings and comments
(:func:`code_digest`), and the sha256 of each module file. A plugin calls, before it
patches::

    import os
    from patchkeeper.guard import check
    LOCK = os.path.join(os.path.dirname(__file__), "patchkeeper.lock")  # beside this module
    check(LOCK)               # warns on a difference
    check(LOCK, strict=True)  # raises GuardError instead

A relative path is read from the current directory, which is not the plugin's when vLLM runs
(a relative path that is not found says so).

Only the standard library is imported, upstream is never imported (its files are read where
the running interpreter would import them from), and a module file whose bytes equal the
audited file's is not parsed at all, so an audited upstream costs one read and one sha256 per
file (``benchmarks/bench_guard.py`` measures 250 targets). In a file that differs, a target
whose source text differs too is compared once more without docstrings and comments (as
``runtime same-code`` compares): a change only there is no difference. A lock written before
the code digest existed has none; its targets are compared by their text alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from collections import namedtuple
from typing import Any

TYPE_CHECKING = False  # typing is not imported: it would cost the import time measured
if TYPE_CHECKING:
    import ast

#: Version of the lock file layout; another version is refused.
LOCK_FORMAT = 1


class GuardWarning(UserWarning):
    """A patched upstream target differs from the audited one (``check`` without strict)."""


class GuardError(RuntimeError):
    """A patched upstream target differs from the audited one (``check(strict=True)``), or
    the lock file cannot be read."""


#: The reason of the one difference when the upstream package cannot be found at all.
NOT_IMPORTABLE = "the upstream package is not importable"
#: The reason of the one difference when ``root=`` holds none of the locked files' packages
#: (the package folder itself given, or another directory): nothing can be compared there.
NOT_UNDER_ROOT = "the upstream package is not under root"
#: The reason of the one difference ``check`` returns in warn mode when the lock file
#: cannot be read (``differences`` raises instead).
LOCK_UNREADABLE = "the lock file cannot be read"


class Difference(namedtuple("Difference", "target reason")):
    """One target that is not as audited: ``target`` (dotted), ``reason`` (a sentence)."""

    __slots__ = ()


def find_definition(tree: ast.Module, qualname: str) -> ast.stmt | None:
    """The statement defining ``qualname`` (``Cls.meth``) in a module: a function or class,
    or an assignment of that name at the innermost level; ``None`` when absent."""
    import ast

    body = tree.body
    found: ast.stmt | None = None
    for part in qualname.split("."):
        found = None
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name == part:
                    found = node
            elif isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == part for t in node.targets):
                    found = node
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.target.id == part
            ):
                found = node
        if found is None:
            return None
        body = getattr(found, "body", [])
    return found


def definition_digest(lines: list[str], tree: ast.Module, qualname: str) -> str:
    """sha256 (hex) of the source of ``qualname`` in a module (``lines``: its text split
    with line ends kept; ``tree``: its parse): decorators included, dedented; ``""`` when
    the module does not define it."""
    import textwrap

    node = find_definition(tree, qualname)
    if node is None:
        return ""
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    text = textwrap.dedent("".join(lines[start - 1 : node.end_lineno]))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def strip_docstrings(node: ast.AST) -> ast.AST:
    """Remove every statement that is only a string from the statement lists inside ``node``
    (in place; a list left empty gets ``pass``) and return it. That is the docstring of each
    function, class and module, as ``runtime same-code`` removes them
    (:func:`patchkeeper.runtime.lookup.upstream_tree.strip_docstrings`), and also the attribute
    docstrings PEP 257 names (a string after an assignment, as vLLM's config classes document
    each field): a statement that is only a string does nothing when it runs. Written here
    because the guard imports nothing of patchkeeper's but this module."""
    import ast

    for sub in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(sub, field, None)
            if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
                continue
            kept = [statement for statement in body if not _only_a_string(statement)]
            if len(kept) != len(body):
                setattr(sub, field, kept or [ast.Pass()])
    return node


def _only_a_string(statement: ast.stmt) -> bool:
    import ast

    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def code_digest(tree: ast.Module, qualname: str) -> str:
    """sha256 (hex) of the code of ``qualname`` in a module's parse ``tree``, decorators
    included, without docstrings (:func:`strip_docstrings`, which changes ``tree`` in place)
    and comments (which never reach the AST): the hash of ``ast.unparse`` of the
    definition, so positions, blank lines, comments and quoting do not count. ``""`` when
    the module does not define it.

    ``ast.unparse`` writes source text, which stays the same from one Python release to the
    next far more than ``ast.dump`` (whose fields change: ``type_params`` in 3.12); where it
    does not, the guard reports the target as changed, as it would without this digest."""
    import ast

    node = find_definition(tree, qualname)
    if node is None:
        return ""
    text = ast.unparse(strip_docstrings(node))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def upstream_root(package: str) -> str | None:
    """The directory the running interpreter imports ``package`` from the parent of (the
    directory holding ``vllm/``); ``None`` when it is not importable. An imported package's
    ``__file__`` is used first; otherwise ``sys.path`` is searched without importing."""
    module = sys.modules.get(package)
    file: str | None = getattr(module, "__file__", None)
    if file:
        return os.path.dirname(os.path.dirname(os.path.abspath(file)))
    for entry in sys.path:
        base = os.path.join(entry or os.getcwd(), package)
        if os.path.isfile(os.path.join(base, "__init__.py")):
            return os.path.abspath(entry or os.getcwd())
    return None


def _load(lock_file: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        with open(lock_file, encoding="utf-8") as handle:
            lock = json.load(handle)
    except OSError as exc:
        where = ""
        if not os.path.isabs(lock_file):
            where = (
                f" (a relative path, read from the current directory {os.getcwd()}: pass the "
                "path built from the plugin module's __file__)"
            )
        raise GuardError(f"{lock_file}: cannot read the lock file: {exc.strerror}{where}") from None
    except ValueError as exc:
        raise GuardError(f"{lock_file}: cannot read the lock file: {exc}") from None
    if not isinstance(lock, dict) or lock.get("format") != LOCK_FORMAT:
        raise GuardError(f"{lock_file}: not a patchkeeper lock file of format {LOCK_FORMAT}")
    problem = _shape_problem(lock)
    if problem:
        raise GuardError(f"{lock_file}: not a patchkeeper lock file of format 1: {problem}")
    return lock


def _shape_problem(lock: dict[str, Any]) -> str:
    """What in a lock file of the right format is not as ``runtime lock`` writes it (a
    hand-edited or truncated file), in words; ``""`` when every key the guard reads is
    there with its type: ``package`` a name, ``files`` a table of module paths, each with
    ``sha256`` and ``targets``, each target with ``qualname`` and ``sha256`` (strings)."""
    if not isinstance(lock.get("package"), str) or not lock["package"]:
        return "'package' is not a name"
    files = lock.get("files")
    if not isinstance(files, dict):
        return "'files' is not a table"
    for relative, record in files.items():
        if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
            return f"files[{relative!r}] has no 'sha256'"
        targets = record.get("targets")
        if not isinstance(targets, dict):
            return f"files[{relative!r}] has no table 'targets'"
        for target, item in targets.items():
            if not isinstance(item, dict) or not all(
                isinstance(item.get(key), str) for key in ("qualname", "sha256")
            ):
                return f"target {target!r} has no 'qualname' and 'sha256'"
            if not isinstance(item.get("code_sha256", ""), str):
                return f"target {target!r}: 'code_sha256' is not text"
    return ""


def differences(lock_file: str | os.PathLike[str], root: str | None = None) -> list[Difference]:
    """Every locked target whose running source differs from the audited one.

    Args:
        lock_file: the JSON file ``patchkeeper runtime lock`` wrote.
        root: the directory holding the upstream package; default: where the running
            interpreter imports it from (:func:`upstream_root`).

    Raises:
        GuardError: the lock file cannot be read or has another format.
    """
    lock = _load(lock_file)
    if root:
        # root= the package folder itself (``.../vllm``) or another directory: every file
        # would be "missing", which reads as an upstream that changed
        tops = {relative.split("/")[0] for relative in lock["files"]}
        if tops and not any(os.path.isdir(os.path.join(root, top)) for top in tops):
            return [Difference(lock["package"], NOT_UNDER_ROOT)]
    root = root or upstream_root(lock["package"])
    if root is None:
        return [Difference(lock["package"], NOT_IMPORTABLE)]
    found: list[Difference] = []
    for relative, record in lock["files"].items():
        try:
            with open(os.path.join(root, relative), "rb") as handle:
                data = handle.read()
        except OSError:
            found += [Difference(t, f"{relative} is missing") for t in record["targets"]]
            continue
        if hashlib.sha256(data).hexdigest() == record["sha256"]:
            continue  # the audited file: every definition in it is the audited one
        # only when upstream differs: the audited case never parses
        from patchkeeper.runtime.syntax.parsing import parse_file

        try:
            tree = parse_file(data, os.path.join(root, relative), filename=relative)
        except (SyntaxError, ValueError):  # ValueError: a NUL byte, before Python 3.12
            found += [Difference(t, f"{relative} does not parse") for t in record["targets"]]
            continue
        lines = data.decode("utf-8", "replace").splitlines(True)
        for target, item in record["targets"].items():
            digest = definition_digest(lines, tree, item["qualname"])
            if not digest:
                found.append(Difference(target, f"{item['qualname']} is gone from {relative}"))
            elif digest != item["sha256"] and not _same_code(tree, item):
                found.append(Difference(target, f"{item['qualname']} in {relative} changed"))
    return found


def _same_code(tree: ast.Module, item: dict[str, Any]) -> bool:
    """Whether a target whose text differs from the audited one has the audited code (a
    change only in docstrings, comments or layout); ``False`` for a lock without the code
    digest (written before it existed: its targets are compared by text alone)."""
    audited = item.get("code_sha256")
    return bool(audited) and code_digest(tree, item["qualname"]) == audited


def check(
    lock_file: str | os.PathLike[str], *, strict: bool = False, root: str | None = None
) -> list[Difference]:
    """Warn (``GuardWarning``) or, with ``strict``, raise ``GuardError`` when a patched
    upstream target differs from the audited release recorded in ``lock_file``; return the
    differences (empty when the running upstream is the audited one).

    A lock file that is missing or cannot be read (a plugin wheel shipped without it) is a
    ``GuardWarning`` naming the file and what to do, and the one difference returned
    (reason :data:`LOCK_UNREADABLE`); with ``strict`` it is the ``GuardError`` (same
    message). :func:`differences` raises ``GuardError`` in both modes.

    Raises:
        GuardError: ``strict`` and a difference, or ``strict`` and an unreadable lock file.
    """
    try:
        found = differences(lock_file, root)
    except GuardError as exc:
        message = (
            f"{exc}; nothing was compared with the audited release: run patchkeeper runtime "
            "lock --at UPSTREAM==VERSION in the plugin's source tree and ship the lock file "
            "with the plugin (as package data)"
        )
        if strict:
            raise GuardError(message) from None
        warnings.warn(message, GuardWarning, stacklevel=2)
        return [Difference(str(lock_file), LOCK_UNREADABLE)]
    if found:
        lock_version = _load(lock_file).get("version", "?")
        listed = "; ".join(f"{d.target}: {d.reason}" for d in found[:5])
        more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
        message = (
            f"{len(found)} patched upstream target(s) differ from the audited release "
            f"{lock_version}: {listed}{more}; run patchkeeper runtime audit and lock again"
        )
        if len(found) == 1 and found[0].reason == NOT_IMPORTABLE:
            # Nothing was compared: a new audit and lock would not help.
            message = (
                f"{found[0].target} is not importable by this interpreter ({sys.executable}): "
                f"nothing was compared with the audited release {lock_version}; install it "
                "in this environment, or pass root= the directory that holds it"
            )
        if len(found) == 1 and found[0].reason == NOT_UNDER_ROOT and root:
            package = found[0].target
            parent = os.path.dirname(os.path.normpath(root))
            itself = (
                f" ({root} is the package itself: pass root={parent!r})"
                if os.path.basename(os.path.normpath(root)) == package
                else ""
            )
            message = (
                f"{package} is not under root={root!r}: nothing was compared with the audited "
                f"release {lock_version}; pass root= the directory that holds the folder "
                f"{package}{itself}"
            )
        if strict:
            raise GuardError(message)
        warnings.warn(message, GuardWarning, stacklevel=2)
    return found
