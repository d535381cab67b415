"""The plugin's source tree: module lookup and cached per-file facts, with the tree's layout
(:mod:`patchkeeper.runtime.inventory.layout`) read once when it is made.

Static only: files are read and parsed, never imported.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from patchkeeper.progress import track
from patchkeeper.runtime.inventory.file_facts import (
    MODULE_SCOPE,
    UNREADABLE,
    FileFacts,
    ScanSettings,
    from_record,
    to_record,
)
from patchkeeper.runtime.inventory.layout import PatchFile, PluginLayout, read_layout
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.settings import RuntimeSettings
from patchkeeper.runtime.store.cache import (
    SummaryCache,
    parsed_module,
    prefetch_records,
    start_prefetch,
)
from patchkeeper.runtime.store.plugin_stores import ParseStore
from patchkeeper.system.regular import read_regular


class ReplacementSource(NamedTuple):
    """Where a replacement ``module:qualname`` of the plugin is
    (:meth:`PluginTree.replacement_sources`): its module's ``file`` (and as ``relative``
    to the root), the ``start`` and ``end`` lines (1-based, inclusive) of its definition
    from the ``def``/``class`` line (the scanned facts' span), and the line of its first
    decorator (``None`` without one)."""

    file: Path
    relative: str
    start: int
    end: int
    first: int | None


@dataclass(frozen=True)
class PluginReading:
    """What the audit's judging reads of the plugin besides its inventory, read from the
    tree once, before the judging, and handed to it as data (:meth:`PluginTree.reading`):
    the judging never asks the tree again.

    Attributes:
        module_files: the file of each replacement's module that has one, with its path
            relative to the root (by module).
        replacements: the :class:`ReplacementSource` of each replacement
            ``module:qualname`` found (by replacement).
        patch_files: each file of the patch directory with its facts
            (:meth:`PluginTree.patch_file_facts`).
    """

    module_files: dict[str, tuple[Path, str]]
    replacements: dict[str, ReplacementSource]
    patch_files: tuple[tuple[PatchFile, FileFacts | None], ...]


class PluginTree:
    """Module lookup and cached :class:`FileFacts` for one plugin source tree, with its
    :class:`PluginLayout` read once (:attr:`layout`) and its store of parsed files
    (:attr:`cache`).

    Args:
        settings: the plugin's settings.
        parse: its parse store, opened with its package's folders listed
            (:func:`patchkeeper.runtime.store.plugin_stores.parse_store`).
    """

    def __init__(
        self, settings: RuntimeSettings, parse: ParseStore, *, keep_trees: bool = False
    ) -> None:
        self.settings = settings
        #: Whether the patch files scanned in this process keep their parse
        #: (:func:`~patchkeeper.runtime.syntax.parsing.keep_plugin_tree`) for the audit's
        #: checks, which read many of them whole.
        self.keep_trees = keep_trees
        self.root = settings.root
        self._top = settings.package.split(".")[0]
        self.scan_settings = ScanSettings(
            settings.package,
            settings.decorators,
            settings.patch_directory.strip("/").replace("/", "."),
        )
        self.cache: SummaryCache = parse.store
        self.layout: PluginLayout = read_layout(settings, parse.folders)
        self.facts: dict[str, FileFacts] = {}
        self._patch_modules = frozenset(f.module for f in self.layout.patch_files)
        # each module outside the package's listing, once it is looked up
        self._others: dict[str, tuple[Path, bool] | None] = {}

    def module_file(self, module: str) -> tuple[Path, bool] | None:
        """``(file, is_package)`` of a plugin module, or ``None`` when there is no such file.
        Modules of the plugin's top-level package come from one walk of its directory
        (thousands of lookups, no ``stat`` each); others are looked up on disk."""
        listed = self.layout.package_files.get(module)
        if listed is not None:
            return listed
        if module not in self._others:
            top = module.split(".")[0]
            self._others[module] = None if top == self._top else self._find(module)
        return self._others[module]

    def _find(self, module: str) -> tuple[Path, bool] | None:
        base = self.root / module.replace(".", "/")
        if (base / "__init__.py").is_file():
            return base / "__init__.py", True
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), False
        return None

    def split(self, dotted: str) -> tuple[str, str] | None:
        """``(module, qualname)`` of a plugin dotted path (the longest prefix with a file);
        qualname ``""`` for a module; ``None`` when no prefix is a plugin module."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if self.module_file(module) is not None:
                return module, ".".join(parts[cut:])
        return None

    def relative(self, file: Path) -> str:
        return file.relative_to(self.root).as_posix()

    def facts_of(self, module: str) -> FileFacts | None:
        """The facts of a plugin module (parsed once, cached on disk), or ``None``."""
        known = self.facts.get(module)
        if known is not None:  # the activation search asks thousands of times
            return known

        def scan(file: Path, is_package: bool) -> FileFacts:
            try:
                data = read_regular(file)
            except OSError as exc:
                return unreadable(module, self.relative(file), exc)
            relative = self.relative(file)
            keep = self.keep_trees and module in self._patch_modules
            return scan_source(
                data, module, relative, is_package, self.scan_settings, path=str(file), keep=keep
            )

        codec = (to_record, from_record)
        return parsed_module(module, self.facts, self.module_file, self.cache, scan, codec)

    def prefetch(
        self,
        modules: list[str],
        here: Collection[str] = (),
        then: Callable[[], None] | None = None,
    ) -> None:
        """Scan the modules of ``modules`` that have no valid record in the cache, on every
        usable core (:func:`patchkeeper.runtime.parallel.map_records`), and store their
        records; :meth:`facts_of` then decodes them as on a warm run. Only a speed-up: the
        facts are the ones :meth:`facts_of` would compute, and a module is still added to
        :attr:`facts` only when it is asked for (the unreached ones stay out of it).

        ``here``: modules of ``modules`` asked for next, scanned in this process
        (:meth:`facts_of`) while the workers scan the others (when a :func:`~patchkeeper.
        runtime.parallel.shared_workers` pool runs; after them otherwise): with
        :attr:`keep_trees`, their parse stays here for the audit's checks. ``then``: called
        once those are scanned, before the workers' records are waited for: work it hands
        the pool is queued behind the scan, so the workers go on to it without a pause."""

        def job(module: str, file: Path, is_package: bool) -> tuple[Any, ...]:
            return (str(file), module, self.relative(file), is_package, self.scan_settings)

        mine = set(here)
        others = [module for module in modules if module not in mine]
        store = start_prefetch(others, self.facts, self.module_file, self.cache, job, scan_record)
        if store is None:
            prefetch_records(others, self.facts, self.module_file, self.cache, job, scan_record)
        for module in dict.fromkeys(here):
            self.facts_of(module)
        if then is not None:
            then()
        if store is not None:
            store()

    def patch_facts(
        self, layout: PluginLayout, then: Callable[[], None] | None = None
    ) -> Iterator[tuple[PatchFile, FileFacts]]:
        """Each file of ``layout``'s patch directory (the tree's :attr:`layout`, which the
        inventory reads as data) with its facts, in :attr:`PluginLayout.patch_files`' order
        (a file without facts left out), the progress shown as "reading patch files".
        The activation search then reads nearly every module of the package: all of them
        are scanned on every core first (:meth:`prefetch`), then read from the store as
        they are asked for. ``then``: as :meth:`prefetch` takes it (with
        :attr:`keep_trees`, the patch files' facts are in :attr:`facts` by then)."""
        files = layout.patch_files
        here = [f.module for f in files] if self.keep_trees else []
        self.prefetch([*(f.module for f in files), *layout.package_modules], here, then)
        with track("reading patch files", len(files)) as advance:
            for patch in files:
                advance()
                facts = self.facts_of(patch.module)
                if facts is not None:
                    yield patch, facts

    def patch_file_facts(
        self, leave_out: Collection[str] = ()
    ) -> tuple[tuple[PatchFile, FileFacts | None], ...]:
        """Each file of the patch directory (:attr:`PluginLayout.patch_files`' order) but
        those ``leave_out`` names (relative paths: the inventory's
        :attr:`~patchkeeper.runtime.model.Inventory.tests_left_out`) with its facts: those
        the inventory read this run (:meth:`patch_facts`), else its record in the store (an
        inventory remembered), else scanned now; ``None`` for a file no module name
        reaches."""
        return tuple(
            (patch, self.facts_of(patch.module))
            for patch in self.layout.patch_files
            if patch.relative not in leave_out
        )

    def replacement_sources(self, replacements: Iterable[str]) -> dict[str, ReplacementSource]:
        """The :class:`ReplacementSource` of each replacement ``module:qualname`` found
        (its module's file and facts looked up once, for the audit to hand its judges as
        data), at its definition: a name the module re-exports from another plugin module
        is found there (:meth:`definition`); an expression, a module or a name without a
        file or span is left out."""
        found: dict[str, ReplacementSource] = {}
        for replacement in replacements:
            module, _, qual = replacement.partition(":")
            if not qual or "<" in replacement or replacement in found:
                continue
            defined = self.definition(module, qual)
            if defined is None:
                continue
            facts, span = defined
            located = self.module_file(facts.module)
            if located is None:
                continue
            file = located[0]
            first = facts.decorated.get(span[0])
            found[replacement] = ReplacementSource(file, self.relative(file), *span, first)
        return found

    def definition(
        self, module: str, qual: str, depth: int = 0
    ) -> tuple[FileFacts, tuple[int, int]] | None:
        """The facts of the plugin module that defines ``qual`` (a function or class, or a
        name inside one) named as ``module:qual``, with its span (:meth:`FileFacts.span`):
        ``module`` itself, else, when it re-exports the first part of ``qual`` (``from .x
        import Name`` at its top level, as a package's ``__init__`` often does), the module
        it imports it from (up to :data:`REEXPORT_STEPS` steps); ``None`` when none."""
        facts = self.facts_of(module)
        if facts is None:
            return None
        span = facts.span(qual)
        if span is not None:
            return facts, span
        if depth >= REEXPORT_STEPS:
            return None
        head, dot, rest = qual.partition(".")
        for source in reexported_from(facts, head):
            origin, _, name = source.rpartition(".")
            found = self.definition(origin, name + dot + rest, depth + 1)
            if found is not None:
                return found
        return None

    def reading(
        self, replacements: Iterable[str], leave_out: Collection[str] = ()
    ) -> PluginReading:
        """The :class:`PluginReading` of the replacements ``module:qualname`` (an entry's
        :attr:`~patchkeeper.runtime.model.PatchEntry.replacement`; an expression is left
        out), each module's file looked up and each file's facts read once; the patch files
        without those ``leave_out`` names (the test modules the inventory left out: their
        imports and version gates are not the plugin's either)."""
        named = sorted({r for r in replacements if r.partition(":")[2] and "<" not in r})
        module_files: dict[str, tuple[Path, str]] = {}
        for module in sorted({r.partition(":")[0] for r in named}):
            located = self.module_file(module)
            if located is not None:
                module_files[module] = (located[0], self.relative(located[0]))
        patch_files = self.patch_file_facts(frozenset(leave_out))
        return PluginReading(module_files, self.replacement_sources(named), patch_files)


#: How many re-exports (``from .x import Name`` in a module of the plugin) a lookup of a
#: name's definition follows before it gives up.
REEXPORT_STEPS = 4


def reexported_from(facts: FileFacts, name: str) -> list[str]:
    """The dotted names (``module.NAME``) that the module of ``facts`` imports ``name``
    from at its top level (``from .x import NAME``, in the order of its import edges), a
    re-export of another module's name; itself left out."""
    here = f"{facts.module}.{name}"
    return [
        edge.target
        for edge in facts.edges
        if edge.kind == "import"
        and edge.scope == MODULE_SCOPE
        and edge.target.rpartition(".")[2] == name
        and edge.target != here
    ]


def scan_record(job: tuple[str, str, str, bool, ScanSettings]) -> tuple[Any, ...]:
    """The record (:func:`to_record`) of one plugin file, ``job`` being ``(path, module,
    relative path, is_package, scan settings)``: the work of
    :meth:`PluginTree.prefetch`'s worker processes."""
    path, module, relative, is_package, settings = job
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return to_record(unreadable(module, relative, exc))
    return to_record(scan_source(data, module, relative, is_package, settings, path=path))


def unreadable(module: str, relative: str, exc: OSError) -> FileFacts:
    """The facts of a plugin file that cannot be read (a symbolic link to a missing file, a
    file without read permission): no entry, and the reason (:func:`unreadable_reason`) as
    its ``syntax_error``, so the inventory names it (an ``unreadable`` finding) and
    ``runtime lock``/``port`` refuse as for a file that does not parse (its patches are
    unknown)."""
    facts = FileFacts(module=module, file=relative)
    facts.syntax_error = f"{UNREADABLE}: {unreadable_reason(exc)}"
    return facts


def unreadable_reason(exc: OSError) -> str:
    """Why a file could not be read, ``exc`` being the error its read raised: a symbolic
    link is named as one (``a symbolic link to ../gone.py that does not exist``, ``a
    symbolic link loop``), since the system's words (``No such file or directory``) name a
    file the user can see listed; otherwise the system's words."""
    import errno
    import os

    path = exc.filename
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop"
    if exc.errno == errno.ENOENT and isinstance(path, str) and os.path.islink(path):
        try:
            return f"a symbolic link to {os.readlink(path)} that does not exist"
        except OSError:
            pass  # the link went away in the meantime
    return exc.strerror or type(exc).__name__
