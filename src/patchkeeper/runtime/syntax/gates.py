"""Version gates in a plugin: ``if vllm_version_is("0.25.0"):``, ``vllm.__version__``
comparisons, ``packaging`` version checks; which branch is live at a release.

A gate is a test the inventory recorded as a ``version`` condition. :func:`evaluate` decides
it at a given upstream version when it is made only of forms whose meaning is known:

- ``NAME_version_is("X")`` (vllm-ascend's ``vllm_version_is``): true when the release's
  public version equals ``X`` (the plugin's own helper compares ``Version(...).public``);
- comparisons of ``__version__`` (``vllm.__version__``, ``VLLM_VERSION``), ``Version(...)``
  or ``parse(...)`` of it, with a string or a ``Version("X")``: PEP 440 ordering
  (:mod:`packaging.version`);
- ``not``, ``and``, ``or`` of those.

Anything else (a ``model_version`` attribute, an environment variable) is *unknown*
(``None``): such a test is not a gate on the upstream release.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from packaging.version import InvalidVersion, Version

from patchkeeper.runtime.syntax.astwalk import nodes, of_kinds

_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


@dataclass(frozen=True)
class Gate:
    """A version gate of the plugin: ``file``/``line`` of the ``if``, its ``test`` text,
    whether the ``if`` branch is live at the old and the new release (``None``: unknown),
    the versions it names, and the ``edit`` it needs (a sentence, ``""`` when none)."""

    file: str
    line: int
    test: str
    live_old: bool | None
    live_new: bool | None
    versions: tuple[str, ...]
    edit: str


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _is_current(node: ast.expr) -> bool:
    """``vllm.__version__``, ``__version__``, ``VLLM_VERSION`` and ``Version``/``parse`` of one."""
    if isinstance(node, ast.Call) and node.args and _name(node.func) in ("Version", "parse"):
        return _is_current(node.args[0])
    name = _name(node)
    return name.endswith("__version__") or name.upper() == "VLLM_VERSION"


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr if not isinstance(node.value, ast.Name) else f"{node.value.id}.{node.attr}"
    return ""


def _literal(node: ast.expr) -> Version | None:
    """``"0.25.0"`` or ``Version("0.25.0")`` / ``parse("0.25.0")``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _version(node.value)
    if isinstance(node, ast.Call) and node.args and _name(node.func).endswith(("Version", "parse")):
        return _literal(node.args[0])
    return None


def _eval(node: ast.expr, current: Version) -> bool | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _eval(node.operand, current)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, current) for v in node.values]
        if isinstance(node.op, ast.And):
            if any(v is False for v in values):
                return False
            return None if None in values else True
        if any(v is True for v in values):
            return True
        return None if None in values else False
    if isinstance(node, ast.Call) and _name(node.func).split(".")[-1].endswith("version_is"):
        wanted = _literal(node.args[0]) if node.args else None
        return None if wanted is None else Version(current.public) == wanted
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = node.left, node.comparators[0]
        compare = _COMPARE.get(type(node.ops[0]))
        if compare is None:
            return None
        if _is_current(left) and (other := _literal(right)) is not None:
            return bool(compare(current, other))
        if _is_current(right) and (other := _literal(left)) is not None:
            return bool(compare(other, current))
    return None


def evaluate(test: str, version: str) -> bool | None:
    """Whether the gate ``test`` (source text) holds at upstream ``version``; ``None`` when
    the test is not made only of known version forms, or ``version`` is not PEP 440.

    >>> evaluate('vllm_version_is("0.29.0")', "0.30.0")
    False
    >>> evaluate('not vllm_version_is("0.29.0")', "0.30.0")
    True
    >>> evaluate('Version(vllm.__version__) >= Version("0.30")', "0.30.0")
    True
    >>> evaluate('getattr(spec, "model_version", None) == "v4"', "0.30.0") is None
    True
    """
    current = _version(version)
    if current is None:
        return None
    try:
        node = ast.parse(test, mode="eval").body
    except SyntaxError:
        return None
    return _eval(node, current)


def evaluate_node(test: ast.expr, version: str) -> bool | None:
    """:func:`evaluate` of the parsed test ``test`` (``ast.unparse`` of it, parsed again).
    Every form :func:`evaluate` decides names a release through an identifier holding
    "version" (``vllm_version_is``, ``__version__``, ``VLLM_VERSION``): a test without a
    name or attribute holding it is ``None`` without being written out and parsed again
    (most tests of a plugin file are of that kind)."""
    for node in of_kinds(test, _NAMED):
        name = node.id if isinstance(node, ast.Name) else cast(ast.Attribute, node).attr
        if "version" in name.lower():
            return evaluate(ast.unparse(test), version)
    return None


#: The nodes whose identifier :func:`evaluate_node` looks at.
_NAMED = frozenset({ast.Name, ast.Attribute})


def moves(test: ast.expr, versions: tuple[str, str]) -> bool:
    """Whether ``test``, or a part of it (an operand of ``not``/``and``/``or``: ``gate or
    packed(groups)``), is a version test decided at both releases of ``versions`` (old,
    new) with different outcomes (:func:`evaluate_node`)."""
    for node in nodes(test):
        if not isinstance(node, ast.expr):
            continue
        before, after = (evaluate_node(node, version) for version in versions)
        if before is not None and after is not None and before != after:
            return True
    return False


def versions_named(test: str) -> tuple[str, ...]:
    """The version strings a gate names, in order (``('0.29.0',)``)."""
    try:
        tree = ast.parse(test, mode="eval")
    except SyntaxError:
        return ()
    found = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and _version(n.value)
    ]
    return tuple(found)


def gate_edit(test: str, live_old: bool | None, live_new: bool | None, new: str) -> str:
    """The edit a gate needs at the new release, as a sentence (``""``: none)."""
    if live_old is None or live_new is None or live_old == live_new:
        return ""
    if live_old and not live_new:
        return (
            f"the `if` branch of `{test}` is dead at {new}: delete it, or name {new} if the "
            "patch inside is still needed"
        )
    return f"the `else` branch of `{test}` is dead at {new}: delete it and drop the test"


def release_label(spec: str, root: Path) -> str:
    """How a report, a lock file or a merge label names an upstream tree: its version
    (:func:`release_version`), else ``directory ROOT`` (the absolute directory, as the series
    commands name a directory target), never the spec as typed (``../up2`` means nothing
    once written into a file).

    >>> release_label("vllm==0.32.0", Path("/nonexistent"))
    '0.32.0'
    >>> release_label("../up2", Path("/work/up2"))
    'directory /work/up2'
    """
    return release_version(spec, root) or f"directory {root}"


def release_version(spec: str, root: Path) -> str:
    """The upstream version a tree is: the pin of a requirement (``vllm==0.30.0``), else the
    ``Version:`` of the tree's ``PKG-INFO`` (an unpacked sdist), else the ``version = "X"``
    line of its ``pyproject.toml``, else the ``Version:`` of its one ``*.dist-info`` (an
    unpacked wheel); ``""`` when unknown. A ``root`` that is the source folder
    of the tree (``waitress-3.0.1/src``, the src layout) is read through the tree's top,
    where those files are."""
    from patchkeeper.system.pyproject import source_dirs

    _name, sep, version = spec.partition("==")
    if sep and _version(version.strip()) is not None and not Path(spec).exists():
        return version.strip()
    if not (root / "PKG-INFO").is_file() and root in source_dirs(root.parent):
        root = root.parent
    info = root / "PKG-INFO"
    if info.is_file():
        for line in info.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
            if not line.strip():
                break
    project = root / "pyproject.toml"
    if project.is_file():
        text = project.read_text(encoding="utf-8", errors="replace")
        found = re.search(r'(?m)^version\s*=\s*["\']([^"\']+)["\']', text)
        if found:
            return found.group(1)
    return _wheel_version(root)


def _wheel_version(root: Path) -> str:
    """The ``Version:`` of the one ``*.dist-info/METADATA`` directly under ``root`` (an
    unpacked wheel: its release's version, which it carries in no ``PKG-INFO``); ``""``
    when there is none or several (a ``site-packages``: whose would it be?)."""
    try:
        infos = [p for p in root.glob("*.dist-info") if (p / "METADATA").is_file()]
    except OSError:
        return ""
    if len(infos) != 1:
        return ""
    try:
        text = (infos[0] / "METADATA").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    for line in text.splitlines():
        if not line.strip():
            break
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    return ""
