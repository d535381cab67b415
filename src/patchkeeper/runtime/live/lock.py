"""``patchkeeper runtime lock --at vllm==X``: the lock file the import-time guard reads.

For every entry of the plugin's inventory whose target resolves to a definition in the
audited upstream tree (:mod:`patchkeeper.runtime.lookup.resolve`: re-exports and inheritance
followed), the lock records the module file, the qualified name, the sha256 of the
definition's source (``sha256``: :func:`patchkeeper.runtime.live.guard.definition_digest`, the
function the guard itself uses) and of its code without docstrings and comments
(``code_sha256``: :func:`patchkeeper.runtime.live.guard.code_digest`, so that the guard does not
call a docstring-only change a difference), and per file the sha256 of its bytes. A target
the release removed or moved (searched by name in the whole tree,
:mod:`patchkeeper.runtime.lookup.resolve`) is *unguarded*: its patch replaces nothing the guard can
watch, a finding (exit 1) listed with where the name went; the lock is still written for the
rest. A name the release defines nowhere is *removed* only when something says it existed:
the earlier lock file being replaced recorded it, or the patch reads the original (a
wrapper). A name the plugin puts into an upstream module or class by assignment, ``setattr``,
a subclass swap or a decorator with ``allow_missing`` is *added by the plugin*: one release
cannot tell a removal from an addition, and the patch says it adds the name; nothing
upstream to guard, listed, not a finding. Other targets that do not resolve to a definition
(outside the upstream packages, attributes of instances) cannot be locked by nature: they
are listed, not findings. The file is JSON (the guard needs no TOML parser on Python 3.10)
and is written atomically.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.inventory.unparsed import refuse_unparsed, unlisted
from patchkeeper.runtime.judge.import_fallback import fallbacks
from patchkeeper.runtime.judge.unparsed_upstream import unparsed_fix
from patchkeeper.runtime.live.guard import LOCK_FORMAT, code_digest, definition_digest
from patchkeeper.runtime.lookup.resolve import (
    FOUND,
    MOVED,
    REMOVED,
    Resolution,
    defined_statically,
    resolve_all,
    unparsed_module,
)
from patchkeeper.runtime.lookup.targets import check_tree_spec, upstream_dir
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.settings import PluginLocation, resolve_settings
from patchkeeper.runtime.store.writes import write_files
from patchkeeper.runtime.syntax.gates import release_label
from patchkeeper.runtime.syntax.parsing import read_and_parse
from patchkeeper.system.regular import is_special, read_regular

#: How errors name the tree of ``--at``.
AT_RELEASE = "the release to lock (--at)"

#: Where the lock goes when ``--output`` is not given: beside the patch directory's files.
DEFAULT_NAME = "patchkeeper.lock"


@dataclass(frozen=True)
class LockResult:
    """The result of ``runtime lock``: the file written, the upstream release (``at``: its
    version, or ``directory ROOT`` when the tree states none), the
    number of targets and files locked (``target_count``, ``file_count``: counts, as
    ``lint``'s ``patch_count``; ``files`` is a list wherever it appears in ``--json``), the
    targets the release removed or moved (``unguarded``: ``(target, why)``, findings), and
    the other targets left out with why (``skipped``: not definitions upstream, outside its
    packages)."""

    path: str
    at: str
    target_count: int
    file_count: int
    unguarded: tuple[tuple[str, str], ...]
    skipped: tuple[tuple[str, str], ...]

    @property
    def exit_code(self) -> int:
        """1 when a target is unguarded (removed or moved at the release: its patch is not
        guarded), else 0; the lock is written either way."""
        return 1 if self.unguarded else 0


#: The mechanisms that put a name into an upstream module or class whether it was there or
#: not (a wrapper reads the original first: it was there).
ADDING = (Mechanism.ASSIGNMENT, Mechanism.SETATTR, Mechanism.SUBCLASS)


def added_by_plugin(entries: list[PatchEntry]) -> frozenset[str]:
    """The targets the plugin's patches add when upstream lacks them: each of its entries
    assigns the name (:data:`ADDING`) or is a decorator with ``allow_missing``."""
    adds: dict[str, bool] = {}
    for entry in entries:
        adding = entry.mechanism in ADDING or entry.allow_missing
        adds[entry.target] = adds.get(entry.target, True) and adding
    return frozenset(target for target, adding in adds.items() if adding)


def earlier_lock(path: Path) -> tuple[str, frozenset[str]]:
    """The release and the locked targets of the lock file at ``path`` that this run
    replaces (``("", frozenset())`` when there is none or it does not read as a lock; a
    named pipe or a device there is not read: :func:`patchkeeper.system.regular.read_regular`)."""
    try:
        data = json.loads(read_regular(path))
    except (OSError, ValueError):
        return "", frozenset()
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return "", frozenset()
    found = {
        target
        for record in data["files"].values()
        if isinstance(record, dict) and isinstance(record.get("targets"), dict)
        for target in record["targets"]
    }
    return str(data.get("version", "")), frozenset(found)


def _class_lacks(found: Resolution) -> bool:
    """Whether ``found`` is an upstream class that neither it nor its bases define the
    attribute of (``Linear._gguf_patched``): a name the plugin sets on the class is added by
    the plugin, as one it sets on a module is; an attribute of an instance is not known."""
    definition = found.definition
    return (
        found.status == FOUND
        and bool(found.partial)
        and "." not in found.partial
        and definition is not None
        and definition.kind == "class"
    )


def build_lock(
    tree: UpstreamTree,
    targets: list[str],
    version: str,
    added: frozenset[str] = frozenset(),
    earlier: tuple[str, frozenset[str]] = ("", frozenset()),
    fallen_back: Mapping[str, str] = MappingProxyType({}),
) -> tuple[dict[str, Any], list[tuple[str, str]], list[tuple[str, str]]]:
    """The lock mapping for ``targets`` in ``tree``, ``(target, reason)`` for those the
    release removed or moved (unguarded), and ``(target, reason)`` for the others left out;
    ``version`` names the release in the guard's warning and the reasons (its version, or
    ``directory ROOT``: :func:`patchkeeper.runtime.syntax.gates.release_label`). A target
    the release defines nowhere is *removed* when the ``earlier`` lock (``(its release,
    its targets)``: :func:`earlier_lock`) recorded it or it is not in ``added`` (the names
    the plugin's patches add: :func:`added_by_plugin`); else it is added by the plugin and
    left out, not a finding. A target the release does not define whose import falls back
    to the plugin's own object (``fallen_back``: target -> the reason, naming that object)
    patches nothing upstream: left out, not a finding."""
    files: dict[str, dict[str, Any]] = {}
    unguarded: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    resolved = resolve_all(tree, targets)
    parsed: dict[str, tuple[list[str], ast.Module] | None] = {}
    for target in sorted(set(targets)):
        found = resolved[target]
        if found.status != FOUND and target in fallen_back:
            skipped.append((target, fallen_back[target]))
            continue
        unparsed = None
        if found.status != FOUND or found.partial:
            unparsed = unparsed_module(tree, target)
        if unparsed is not None:
            # its module's names are unknown, not absent: neither removed nor added
            why = f"{unparsed.file} cannot be parsed at {version} ({unparsed.syntax_error})"
            unguarded.append(
                (target, f"{why}: whether it defines the name is unknown; {unparsed_fix()}")
            )
            continue
        if found.status == MOVED:
            where = ", ".join(found.candidates)
            unguarded.append((target, f"moved at {version}: defined now as {where}"))
            continue
        if found.status == REMOVED and target in earlier[1]:
            why = f"removed at {version}: the release defines no such name (the lock of "
            unguarded.append((target, f"{why}{earlier[0] or 'an earlier release'} had it)"))
            continue
        if target in added and (found.status == REMOVED or _class_lacks(found)):
            why = f"added by the plugin: {version} defines no such name; nothing upstream to guard"
            skipped.append((target, why))
            continue
        if found.status == REMOVED:
            unguarded.append((target, f"removed at {version}: the release defines no such name"))
            continue
        if found.status != FOUND or found.partial or not found.qualname:
            why = found.status if found.status != FOUND else "not a definition upstream"
            skipped.append((target, why))
            continue
        file = found.file
        if file not in parsed:
            read = read_and_parse(tree.root / file)
            parsed[file] = None
            if read is not None:
                data, module = read
                parsed[file] = (data.decode("utf-8", "replace").splitlines(True), module)
                files[file] = {"sha256": hashlib.sha256(data).hexdigest(), "targets": {}}
        lines_and_tree = parsed[file]
        if lines_and_tree is None:
            skipped.append((target, f"{file} cannot be read, or is not valid Python"))
            continue
        digest = definition_digest(*lines_and_tree, found.qualname)
        if not digest:
            skipped.append((target, f"{found.qualname} is not a top-level definition of {file}"))
            continue
        code = code_digest(lines_and_tree[1], found.qualname)
        files[file]["targets"][target] = {
            "qualname": found.qualname,
            "sha256": digest,
            "code_sha256": code,
        }
    files = {name: record for name, record in sorted(files.items()) if record["targets"]}
    lock = {
        "format": LOCK_FORMAT,
        "package": tree.packages[0],
        "version": version,
        "files": files,
    }
    return lock, unguarded, skipped


@dataclass(frozen=True, kw_only=True)
class LockRequest(PluginLocation):
    """What ``runtime lock`` is asked to do; each field is the option of the same parameter
    name, so the command builds it from click's parsed parameters; the plugin's location
    as :class:`PluginLocation` says.

    Attributes:
        at: the audited upstream release (``--at``): a directory or a requirement
            ``NAME==VERSION``.
        output: the lock file (``--output``); default ``None``,
            ``<patch-directory>/patchkeeper.lock``.
    """

    at: str
    output: Path | None = None


def write_lock(config: Any | None, request: LockRequest) -> LockResult:
    """Write the lock file of the plugin's targets at the upstream release ``request.at``
    to ``request.output`` (:class:`LockRequest`).

    Raises:
        ConfigError, FetchError; TargetError (also when a patch file does not parse: its
        targets would be left out of the lock unnoticed, and when ``output``'s directory does
        not exist: :func:`check_output_directory`).
    """
    at, output = request.at, request.output
    plugin, package, patch_directory = request.plugin, request.package, request.patch_directory
    if output is not None:
        check_output_directory(Path(output))
        check_output_file(Path(output))
    check_tree_spec(at, AT_RELEASE)  # a path typed wrong is named before the plugin
    settings = resolve_settings(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    scanned = scan_plugin(settings)
    refuse_unparsed(scanned.inventory, settings.root, "runtime lock")
    packages = settings.upstream_packages
    tree = UpstreamTree(upstream_dir(at, packages, AT_RELEASE), packages)
    entries = list(scanned.inventory.entries)
    targets = [e.target for e in entries if tree.contains(e.target)]
    outside = [e.target for e in entries if not tree.contains(e.target)]
    path = output or settings.root / settings.patch_directory / DEFAULT_NAME
    label = release_label(at, tree.root)
    own = fallbacks(
        (e for e in entries if e.target in targets),
        settings.root,
        settings.package,
        lambda owner: not defined_statically(tree, owner),
    )
    fallen_back = {
        target: f"{label} has no {target.rpartition('.')[0]}: the import fails and the plugin "
        f"falls back to its own {fallback.own} (except ImportError, {fallback.where}), "
        "so the patch replaces nothing upstream to guard"
        for target, fallback in own.items()
    }
    lock, unguarded, skipped = build_lock(
        tree, targets, label, added_by_plugin(entries), earlier_lock(path), fallen_back
    )
    skipped += [(t, "outside the upstream packages") for t in sorted(set(outside))]
    # a setattr whose attribute the inventory cannot name patches something the lock
    # cannot guard: said here, so a lock of fewer targets than the plugin patches is seen
    skipped += [
        (
            f"{f.path}:{f.line}",
            "a wrapper whose class or module cannot be told statically"
            if "installs a wrapper" in f.message
            else "a setattr whose attribute name cannot be told statically",
        )
        for f in unlisted(scanned.inventory)
    ]
    data = (json.dumps(lock, indent=1, sort_keys=True) + "\n").encode("utf-8")
    if is_special(path):  # --output /dev/stdout: written through, not replaced
        _write_through(Path(path), data)
    else:
        # journaled where the file goes: a lock written outside a read-only plugin (--output
        # in the CI's workspace) needs nothing of the plugin's directory
        written = Path(path).resolve()
        inside = written.is_relative_to(settings.root.resolve())
        write_files(settings.root if inside else written.parent, {written: data}, "lock")
    count = sum(len(record["targets"]) for record in lock["files"].values())
    label = lock["version"]
    return LockResult(
        str(path), label, count, len(lock["files"]), tuple(unguarded), tuple(sorted(skipped))
    )


def _write_through(output: Path, data: bytes) -> None:
    """Write the lock to the device or named pipe ``output`` names
    (:func:`patchkeeper.system.atomic.write_output`).

    Raises:
        TargetError: it cannot be written.
    """
    from patchkeeper.errors import TargetError
    from patchkeeper.system.atomic import write_output

    try:
        write_output(output, data)
    except OSError as exc:
        raise TargetError(
            f"cannot write the lock file: {exc.strerror}",
            path=output,
            hint="pass --output a file in a directory that exists and can be written",
        ) from None


def check_output_directory(output: Path) -> None:
    """Refuse an ``--output`` whose directory does not exist, before anything is read: no
    directory is created for it, as for ``--markdown`` and ``runtime port --output`` (a
    mistyped directory is named, not silently made).

    Raises:
        TargetError: naming the file and the missing directory.
    """
    from patchkeeper.errors import TargetError
    from patchkeeper.system.regular import not_a_directory

    parent = output.expanduser().absolute().parent
    if not parent.is_dir():
        there = not_a_directory(parent)
        raise TargetError(
            f"cannot write the lock file: {parent} {there}"
            if there
            else f"cannot write the lock file: no such directory: {parent}",
            path=output,
            hint="pass --output a file in a directory that exists (create it first), or leave "
            "--output out for <patch-directory>/patchkeeper.lock",
        )


def check_output_file(output: Path) -> None:
    """Refuse an ``--output`` that is an existing file other than a lock file (one whose JSON
    has a ``format`` key, as :func:`build_lock` writes): a slip such as ``--output
    pyproject.toml`` replaced the plugin's project file, entry points and configuration
    included, with the lock.

    Raises:
        TargetError: naming the file.
    """
    from patchkeeper.errors import TargetError

    if not output.exists() or is_special(output):  # /dev/stdout, a pipe: nothing to replace
        return
    try:
        with output.open("rb") as handle:
            existing = json.loads(handle.read())
    except (OSError, ValueError):
        existing = None
    if isinstance(existing, dict) and "format" in existing and "files" in existing:
        return  # an earlier lock: replaced, as the default path is
    raise TargetError(
        "--output names an existing file that is not a patchkeeper lock file: the lock "
        "would replace it",
        path=output,
        hint="pass --output a new file or an earlier lock file, e.g. --output patchkeeper.lock",
    )
