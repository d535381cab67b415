"""The JSON of ``runtime inventory`` and ``runtime audit`` remembered with what it was read from.

A warm run of either command (nothing it reads has changed since the last run) prints the
JSON the last run wrote, without importing the scanner, the audit or their result types and
without rebuilding and encoding the result: what it pays is the check that nothing changed.

What a result is read from (its *dependencies*, listed by
:mod:`patchkeeper.runtime.store.watched`) is remembered as stat data per path, as git's
index keeps stat data per tracked file: every folder of the plugin's package, of its patch
directory, of each upstream tree's packages and of patchkeeper's own code, with every
``*.py`` file in them; the files outside them that are read (``pyproject.toml``,
``setup.cfg``, ``setup.py``, the ``*.egg-info`` and ``*.dist-info`` entry points, the
ledger file, ``PKG-INFO``) and the tree roots. A path's stat data is its inode, size,
modification and change times (nanoseconds), or "absent". Editing a file changes its own
modification time; adding, removing or renaming one changes its folder's (POSIX), so a
remembered listing with unchanged folders is the one a walk would give; a file replaced by
another (a rename over it, an unpack) has another inode or change time. The remembered
JSON is printed only when every path still has the stat data it had *before* the result
was computed (a file changed meanwhile is read again by the next run).

As git does for a "racily clean" entry, nothing is remembered when a dependency was modified
within :data:`RACY_SECONDS` of the run: a second change in the same tick of the file
system's clock could leave the same stat data behind.

What a result is computed with (the settings, as :func:`patchkeeper.runtime.settings.
resolve_settings` combines the configuration and the options; the upstream specs as given
and the trees they name; patchkeeper's version; the interpreter) names the store and is
kept in it (compared when it is read): one file per question in
``$PATCHKEEPER_CACHE/runtime/remembered/`` (the :data:`KEEP` most recently written are
kept). A missing, unreadable or foreign store is a miss, never an error.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from patchkeeper import __version__
from patchkeeper.jsonable import JsonReady
from patchkeeper.runtime.lookup.targets import (
    NEW_UPSTREAM,
    OLD_UPSTREAM,
    check_tree_spec,
    upstream_dir,
    with_requirement_packages,
)
from patchkeeper.runtime.settings import (
    PluginLocation,
    RuntimeAuditRequest,
    located_settings,
    warn_missing_packages,
)
from patchkeeper.runtime.store import cache
from patchkeeper.runtime.store.watched import code_paths, plugin_paths, upstream_paths
from patchkeeper.system import cachedir
from patchkeeper.system.atomic import write_atomic

#: Bump when the store's layout changes.
FORMAT = "remembered-2"

#: A dependency modified this recently (seconds) when the run starts makes the result not
#: remembered (git's "racily clean" entries).
RACY_SECONDS = cache.RACY_SECONDS

#: How many remembered results are kept (the others are removed, least recently written first).
KEEP = 16

#: A path's stat data (:func:`patchkeeper.runtime.store.cache.file_state`: size, modification and
#: change times, inode), or ``None`` when it is absent.
State = cache.State | None


def state_of(path: str) -> State:
    """The stat data :func:`unchanged` compares, ``None`` for a path that does not exist."""
    try:
        return cache.file_state(os.stat(path))
    except OSError:
        return None


def asked(question: tuple[Any, ...]) -> str:
    """The question (the command and what it is computed with, as builtin values) with
    the interpreter and patchkeeper's version, as the text a store keeps and compares."""
    return repr((FORMAT, __version__, sys.version, question))


def store_path(question: tuple[Any, ...]) -> Path:
    """The store of one question, named by the CRC-32 and Adler-32 checksums of
    :func:`asked` (:mod:`zlib`: no cryptographic digest to load on a warm run; two questions
    with the same name only take turns in one store, which keeps the question it answers)."""
    material = asked(question).encode("utf-8", "surrogateescape")
    name = f"{zlib.crc32(material):08x}{zlib.adler32(material):08x}"
    return cachedir.cache_root() / "runtime" / "remembered" / f"{name}.marshal"


def unchanged(paths: list[str], states: list[State]) -> bool:
    """Whether every path still has the stat data remembered for it (one ``stat`` each)."""
    stat, file_state = os.stat, cache.file_state
    for path, state in zip(paths, states, strict=True):
        try:
            found = stat(path)
        except OSError:
            if state is None:
                continue
            return False
        if state != file_state(found):
            return False
    return True


def recall(store: Path, question: str) -> JsonReady | None:
    """The remembered JSON in ``store`` when it answers ``question`` (:func:`asked`) and
    none of its dependencies changed, else ``None`` (no store, an unreadable or foreign
    one, or a dependency changed). The result object itself (:attr:`JsonReady.result`) is
    not available from a store: the caller sets it."""
    try:
        with open(store, "rb") as handle:
            loaded = marshal.loads(handle.read())
        form, paths, states, exit_code, fields, plain, body = loaded
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if form != question or not unchanged(paths, states):
        return None
    return JsonReady(exit_code, body, tuple(fields), plain)


def remember(
    store: Path,
    question: str,
    paths: list[str],
    states: list[State],
    started: int,
    ready: JsonReady,
) -> None:
    """Keep ``ready``'s JSON in ``store`` with the stat data of its dependencies, taken
    before the result was computed (at ``started``, nanoseconds since the epoch); nothing is
    kept when one of them was modified within :data:`RACY_SECONDS` before that, or after
    (errors are ignored: a cache)."""
    newest = max((state[1] for state in states if state is not None), default=0)
    if newest >= started - RACY_SECONDS * 1_000_000_000:
        return
    data = (question, paths, states, ready.exit_code, list(ready.fields), ready.plain, ready.body)
    try:
        write_atomic(store, marshal.dumps(data), parents=True)
    except (OSError, ValueError):
        return
    cachedir.prune(store.parent, KEEP)


def answer(
    question: tuple[Any, ...],
    dependencies: Callable[[], list[str]],
    compute: Callable[[], Any],
    again: Callable[[], Any],
) -> JsonReady:
    """The result of ``compute`` with its JSON, remembered under ``question``, or the
    remembered JSON when none of its dependencies changed since (the result object is then
    computed by ``again`` only when asked for: the text and Markdown forms).
    ``dependencies`` lists the paths the result is read from (called on a miss only: the
    store keeps them)."""
    store = store_path(question)
    ready = recall(store, asked(question))
    if ready is not None:
        ready.set_loader(again)
        return ready
    started = time.time_ns()
    paths = dependencies()
    states = [state_of(path) for path in paths]  # before computing: a change meanwhile misses
    ready = JsonReady.of(compute())
    remember(store, asked(question), paths, states, started, ready)
    return ready


def inventory(config: Any | None, location: PluginLocation) -> JsonReady:
    """:func:`patchkeeper.runtime.inventory.runtime_inventory.take_inventory` of the plugin
    ``location`` names, remembered with its JSON, with the upstream release the plugin runs
    on read when the configuration's pin or the plugin's exact requirement names one
    (:func:`patchkeeper.runtime.inventory.upstream_pin.pinned_requirement`).

    Raises: as :func:`patchkeeper.runtime.inventory.runtime_inventory.take_inventory`.
    """
    from patchkeeper.runtime.inventory.upstream_pin import pinned_requirement

    settings = located_settings(config, location)
    # The release the plugin runs on, read as the audit reads its --from tree: where vLLM
    # loads the plugin itself is part of its activation.
    packages = settings.upstream_packages
    spec = pinned_requirement(config, settings.root, packages, settings.package)

    def dependencies() -> list[str]:
        return plugin_paths(settings) + code_paths()

    def compute() -> Any:
        from patchkeeper.errors import FetchError, TargetError
        from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
        from patchkeeper.runtime.lookup.resolve import same_definition
        from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

        if spec is None:
            unread = "no release pinned: neither the plugin's requirements nor the configuration"
            return scan_plugin(settings, unread=unread + " name one").inventory
        try:
            tree = UpstreamTree(upstream_dir(spec, packages), packages)
        except (TargetError, FetchError) as error:
            # one clause of the loading line: the error's message and hint, never its
            # "\n  hint:" form, which would break the line the reason is printed on
            hint = f"; {error.hint}" if error.hint else ""
            unread = f"{spec} could not be read: {error.located()}{hint}"
            return scan_plugin(settings, unread=unread).inventory
        return scan_plugin(
            settings, upstream=tree, same=lambda a, b: same_definition(tree, a, b)
        ).inventory

    key = ("runtime inventory", repr(settings), spec or "")
    return answer(key, dependencies, compute, compute)


def audit(config: Any | None, request: RuntimeAuditRequest) -> JsonReady:
    """:func:`patchkeeper.runtime.judge.runtime_audit.audit_runtime` as ``request`` asks,
    remembered with its JSON (the settings resolved once, here, and handed down).

    Raises: as :func:`patchkeeper.runtime.judge.runtime_audit.audit_runtime`.
    """
    old, new = request.old, request.new
    check_tree_spec(old, OLD_UPSTREAM)  # a path typed wrong is named before the plugin
    check_tree_spec(new, NEW_UPSTREAM)
    settings = with_requirement_packages(located_settings(config, request), old, new)
    packages = settings.upstream_packages
    old_root = upstream_dir(old, packages, OLD_UPSTREAM)
    new_root = upstream_dir(new, packages, NEW_UPSTREAM)
    roots = [old_root, new_root]
    warn_missing_packages(packages, (old_root, new_root))  # a remembered result warns too

    def dependencies() -> list[str]:
        paths = plugin_paths(settings) + code_paths()
        for root in roots:
            paths += upstream_paths(root, packages)
        return paths

    def compute() -> Any:
        from patchkeeper.runtime.judge.runtime_audit import audit_plugin

        return audit_plugin(settings, old, new, (old_root, new_root))

    question = ("runtime audit", repr(settings), old, new, [str(root) for root in roots])
    return answer(question, dependencies, compute, compute)
