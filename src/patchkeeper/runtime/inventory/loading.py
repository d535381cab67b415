"""How a plugin gets loaded: the roots of the activation search, for every loading style.

A patch only runs when something imports its module. vLLM plugins are loaded in four
styles, each a root of :class:`patchkeeper.runtime.inventory.activation.Reachability`:

1. an entry point in one of vLLM's groups (``vllm.platform_plugins``,
   ``vllm.general_plugins``), or the ``activation`` function the configuration names;
2. the upstream itself imports the plugin: vLLM's own platform detection names
   ``"tpu_inference.platforms.tpu_platform.TpuPlatform"`` and its ``vllm/platforms/tpu.py``
   does ``from tpu_inference.platforms import TpuPlatform`` (a platform vLLM loads itself,
   without an entry point) -- found by reading the upstream tree for imports of the
   plugin's package and for dotted strings naming it;
3. the plugin's console scripts (``vllm-kunlun = vllm_kunlun.cmdline:main``): running one
   runs its function;
4. ``import plugin`` before vLLM (vllm-mindspore's documented use): the package's
   ``__init__`` runs, and any ``register()`` it calls.

Besides vLLM, other programs run parts of the plugin, each a root as a console script is
(:mod:`patchkeeper.runtime.inventory.runners`): an entry point of another group
(vllm-lens's ``inspect_ai``, vllm-ascend's ``ms_service_metric.providers``: the other
program loads it) and a script of the package (``python -m`` runs a module with a
module-level ``if __name__ == "__main__":``, or a ``__main__.py``).

Styles 1 and 2 are declared to vLLM: an entry none of the roots reaches is *never
imported*, a fact. When neither exists, the plugin's loading is not declared anywhere the
trees show: the search starts from the package's import and its console scripts, and an
entry they do not reach is still *never imported* but *untraced* (:func:`loading`'s
reason): the user's own code may import it, so the audit never says *remove* for that
alone (:mod:`patchkeeper.runtime.judge.judge`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Protocol

from patchkeeper.runtime.inventory.file_facts import is_plugin
from patchkeeper.runtime.inventory.scan import DOTTED_STRING
from patchkeeper.runtime.model import EntryPoint
from patchkeeper.runtime.store.cache import SummaryCache
from patchkeeper.runtime.syntax.parsing import parse_file


class UpstreamFiles(Protocol):
    """What the loading search reads of an upstream tree (an
    :class:`patchkeeper.runtime.lookup.upstream_tree.UpstreamTree`, which the inventory,
    below the lookup layer, does not import): its root, its Python files, their
    signature and a store for the answer."""

    @property
    def root(self) -> Any: ...

    @property
    def cache(self) -> SummaryCache: ...

    def signature(self) -> str: ...

    def python_files(self) -> list[str]: ...

    def relative_path(self, file: str) -> str: ...


#: The console-script group of the packaging specification's entry points.
CONSOLE_SCRIPTS = "console_scripts"


@dataclass(frozen=True)
class Loading:
    """The roots of the activation search (``(label, dotted target)``, labels shown as the
    first step of an activation chain) and, when the plugin's loading is not declared to
    the upstream, why (``untraced``; ``""`` when traced)."""

    roots: tuple[tuple[str, str], ...]
    untraced: str = ""

    @property
    def facts(self) -> tuple[str, ...]:
        """The loading as sentences for the inventory: each root's label, then the reason
        when untraced."""
        labels = tuple(label for label, _target in self.roots)
        return (*labels, self.untraced) if self.untraced else labels


def upstream_imports(upstream: UpstreamFiles, package: str) -> list[tuple[str, str]]:
    """Where the upstream tree imports the plugin ``package`` or names one of its objects in
    a dotted string: ``(label, dotted target)`` per place, in file and line order. Only
    files whose bytes hold the package's name are parsed (a few of vLLM's 2,600); the
    answer is cached under the tree's file signature."""
    key = f"#loads:{package}"
    signature = upstream.signature()
    cached = upstream.cache.get_value(key, signature)
    if cached is not None:
        return [(label, target) for label, target in cached]
    needle = package.encode()
    found: list[tuple[str, str]] = []
    for file in upstream.python_files():
        try:
            with open(file, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if needle not in data:
            continue
        try:
            tree = parse_file(data, file)
        except (SyntaxError, ValueError):
            continue
        relative = upstream.relative_path(file)
        found += _named_in(tree, relative, package)
    upstream.cache.put_value(key, signature, tuple(found))
    return found


def _named_in(tree: ast.Module, relative: str, package: str) -> list[tuple[str, str]]:
    """``(label, target)`` of every import of ``package`` and every dotted string naming
    it in one upstream module (``relative``: its path in the tree)."""
    out: list[tuple[str, int, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_plugin(alias.name, package):
                    out.append((relative, node.lineno, f"import {alias.name}", alias.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if is_plugin(node.module, package):
                for alias in node.names:
                    target = node.module if alias.name == "*" else f"{node.module}.{alias.name}"
                    text = f"from {node.module} import {alias.name}"
                    out.append((relative, node.lineno, text, target))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if DOTTED_STRING.match(text) and is_plugin(text.split(":")[0], package):
                out.append((relative, node.lineno, repr(text), text.replace(":", ".")))
    out.sort(key=lambda item: (item[1], item[2]))
    return [(f"the upstream loads it: {text} ({file}:{line})", t) for file, line, text, t in out]


def loading(
    package: str,
    entry_points: tuple[EntryPoint, ...],
    scripts: tuple[EntryPoint, ...],
    activation: str,
    upstream: UpstreamFiles | None,
    unread: str = "",
    others: tuple[EntryPoint, ...] = (),
    run: tuple[tuple[str, str, int], ...] = (),
) -> Loading:
    """The roots of the activation search for ``package`` (see the module docstring):
    ``entry_points`` in the configured groups, the configured ``activation`` function,
    the places ``upstream`` loads the package (``None``: no upstream tree given), and the
    console ``scripts``, the entry points of other programs' groups (``others``) and the
    package's scripts (``run``: ``(module, file relative to the root, line of its
    __main__ guard)``, :func:`patchkeeper.runtime.inventory.runners.scripts`); with the
    package's own import as a root, and the reason, when nothing declares the plugin to
    the upstream. Without an upstream tree, whether vLLM
    loads the plugin itself is unknown: the reason then starts "loading not traced without
    the upstream" and says why none was read (``unread``: no pinned release, or the error
    reading it)."""
    roots = [
        (f"entry point {e.group}:{e.name} = {e.value} ({e.source})", e.value.replace(":", "."))
        for e in entry_points
    ]
    if activation:
        roots.append((f"configured activation {activation}", activation.replace(":", ".")))
    if upstream is not None:
        roots += upstream_imports(upstream, package)
    declared = bool(roots)
    roots += [
        (f"console script {e.name} = {e.value} ({e.source})", e.value.replace(":", "."))
        for e in scripts
    ]
    roots += [
        (f"{e.group} entry point {e.name} = {e.value} ({e.source})", e.value.replace(":", "."))
        for e in others
    ]
    roots += [(f"script python -m {module} ({file}:{line})", module) for module, file, line in run]
    if declared:
        return Loading(tuple(roots))
    roots.append((f"import {package} (its users import it before the upstream)", package))
    if upstream is None:
        why = unread or "no upstream tree was given"
        untraced = (
            f"loading not traced without the upstream ({why}): nothing else declares "
            f"{package} to the upstream (no entry point in its groups, no configured "
            "activation), and whether the upstream imports it itself is unknown"
        )
        return Loading(tuple(roots), untraced)
    untraced = (
        f"nothing declares {package} to the upstream (no entry point in its groups, no "
        "configured activation; the upstream does not import it): it is activated by "
        "importing it or by its console scripts, and what its users import besides cannot "
        "be traced"
    )
    return Loading(tuple(roots), untraced)
