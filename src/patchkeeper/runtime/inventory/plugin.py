"""The plugin's source tree: module files, entry points, and cached per-file facts.

Static only: files are read and parsed, never imported. Entry points are read from the
plugin's ``pyproject.toml`` (``[project.entry-points."vllm.general_plugins"]``), its
``setup.cfg`` (``[options.entry_points]``), the ``entry_points=`` literal of ``setup.py``, or
an ``*.egg-info/entry_points.txt`` of an sdist, in that order of preference; in an
installed tree (``--plugin`` a ``site-packages``, the plugin installed from its wheel), the
``*.dist-info/entry_points.txt`` entries whose object is in the plugin's package (the other
distributions' entry points there are not the plugin's).
"""

from __future__ import annotations

import ast
import configparser
import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from patchkeeper.progress import track
from patchkeeper.runtime.inventory.file_facts import (
    UNREADABLE,
    FileFacts,
    ScanSettings,
    from_record,
    to_record,
)
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.model import EntryPoint
from patchkeeper.runtime.settings import RuntimeSettings
from patchkeeper.runtime.store.cache import (
    SummaryCache,
    file_state,
    parsed_module,
    prefetch_records,
)
from patchkeeper.runtime.syntax.parsing import parse_file
from patchkeeper.system.pyproject import project_table


class PatchFile(NamedTuple):
    """One Python file of the patch directory: its path, its path relative to the plugin's
    root (as findings name it), its dotted module name and whether it is a package's
    ``__init__.py``."""

    path: Path
    relative: str
    module: str
    is_package: bool


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
class PluginLayout:
    """What a plugin tree is, read once when its :class:`PluginTree` is made: what the
    inventory and the audit ask of it besides the parsed modules.

    Attributes:
        signature: a digest of what an inventory of the tree reads (the settings, and the
            path and stat data of every file of the plugin package, of the files that
            declare entry points and of the ledger file): the inventory is remembered under
            it.
        patch_files: every Python file of the patch directory, initializers included,
            sorted by path.
        package_modules: every module of the plugin's top-level package.
        entry_points: the plugin's entry points in the configured groups (see the module
            docstring).
        console_scripts: its console scripts whose function is in its package (running one
            runs the function: a root of the activation search).
    """

    signature: str
    patch_files: tuple[PatchFile, ...]
    package_modules: tuple[str, ...]
    entry_points: tuple[EntryPoint, ...]
    console_scripts: tuple[EntryPoint, ...]


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
    (:attr:`cache`)."""

    def __init__(self, settings: RuntimeSettings) -> None:
        self.settings = settings
        self.root = settings.root
        self._top = settings.package.split(".")[0]
        self.scan_settings = ScanSettings(
            settings.package,
            settings.decorators,
            settings.patch_directory.strip("/").replace("/", "."),
        )
        self.cache = SummaryCache(self.root, f"plugin\0{self.scan_settings!r}")
        # os.walk's folders, listed from the store while none changed
        folders = self.cache.python_folders(self.root / self._top)
        self.facts: dict[str, FileFacts] = {}
        self._files = _package_files(self.root, folders)
        self.layout = self._read_layout()

    def _read_layout(self) -> PluginLayout:
        """The :class:`PluginLayout` of the tree (its package's files listed already)."""
        settings = self.settings
        patch_files = tuple(
            PatchFile(path, self.relative(path), *self.module_name(path))
            for path in sorted((self.root / settings.patch_directory).rglob("*.py"))
        )
        declared = self._entry_points()
        return PluginLayout(
            signature=self._signature([p.path for p in patch_files]),
            patch_files=patch_files,
            package_modules=tuple(m for m, found in self._files.items() if found is not None),
            entry_points=tuple(e for e in declared if e.group in settings.entry_point_groups),
            console_scripts=tuple(
                e
                for e in declared
                if e.group == "console_scripts" and e.value.split(":")[0].split(".")[0] == self._top
            ),
        )

    def module_file(self, module: str) -> tuple[Path, bool] | None:
        """``(file, is_package)`` of a plugin module, or ``None`` when there is no such file.
        Modules of the plugin's top-level package come from one walk of its directory
        (thousands of lookups, no ``stat`` each); others are looked up on disk."""
        if module not in self._files:
            top = module.split(".")[0]
            self._files[module] = None if top == self._top else self._find(module)
        return self._files[module]

    def _find(self, module: str) -> tuple[Path, bool] | None:
        base = self.root / module.replace(".", "/")
        if (base / "__init__.py").is_file():
            return base / "__init__.py", True
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), False
        return None

    def _signature(self, patch_files: list[Path]) -> str:
        """:attr:`PluginLayout.signature`, the stat data being
        :func:`patchkeeper.runtime.store.cache.file_state`'s."""
        digest = hashlib.sha256(repr(self.settings).encode())
        extra = [
            d / n for d in self.project_dirs() for n in ("pyproject.toml", "setup.cfg", "setup.py")
        ]
        extra += sorted(
            f for d in self.project_dirs() for f in d.glob("*.egg-info/entry_points.txt")
        )
        extra += sorted(self.root.glob("*.dist-info/entry_points.txt"))
        if self.settings.ledger_file:
            extra.append(self.root / self.settings.ledger_file)
        files = [found[0] for found in self._files.values() if found is not None]
        files += patch_files  # also when the patch directory is outside the package
        for file in [*files, *extra]:
            try:
                stat = file.stat()
            except OSError:
                continue
            digest.update(f"{file}\0{file_state(stat)}\n".encode())
        return digest.hexdigest()

    def split(self, dotted: str) -> tuple[str, str] | None:
        """``(module, qualname)`` of a plugin dotted path (the longest prefix with a file);
        qualname ``""`` for a module; ``None`` when no prefix is a plugin module."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if self.module_file(module) is not None:
                return module, ".".join(parts[cut:])
        return None

    def module_name(self, file: Path) -> tuple[str, bool]:
        """The dotted module name of a file under the root, and whether it is a package."""
        parts = list(file.relative_to(self.root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        return ".".join(parts), is_package

    def relative(self, file: Path) -> str:
        return file.relative_to(self.root).as_posix()

    def facts_of(self, module: str) -> FileFacts | None:
        """The facts of a plugin module (parsed once, cached on disk), or ``None``."""
        known = self.facts.get(module)
        if known is not None:  # the activation search asks thousands of times
            return known

        def scan(file: Path, is_package: bool) -> FileFacts:
            try:
                data = file.read_bytes()
            except OSError as exc:
                return unreadable(module, self.relative(file), exc)
            relative = self.relative(file)
            return scan_source(
                data, module, relative, is_package, self.scan_settings, path=str(file)
            )

        codec = (to_record, from_record)
        return parsed_module(module, self.facts, self.module_file, self.cache, scan, codec)

    def prefetch(self, modules: list[str]) -> None:
        """Scan the modules of ``modules`` that have no valid record in the cache, on every
        usable core (:func:`patchkeeper.runtime.parallel.map_records`), and store their
        records; :meth:`facts_of` then decodes them as on a warm run. Only a speed-up: the
        facts are the ones :meth:`facts_of` would compute, and a module is still added to
        :attr:`facts` only when it is asked for (the unreached ones stay out of it)."""

        def job(module: str, file: Path, is_package: bool) -> tuple[Any, ...]:
            return (str(file), module, self.relative(file), is_package, self.scan_settings)

        prefetch_records(modules, self.facts, self.module_file, self.cache, job, scan_record)

    def patch_facts(self) -> Iterator[tuple[PatchFile, FileFacts]]:
        """Each file of the patch directory with its facts, in :attr:`PluginLayout.patch_files`'
        order (a file without facts left out), the progress shown as "reading patch files".
        The activation search then reads nearly every module of the package: all of them
        are scanned on every core first (:meth:`prefetch`), then read from the store as
        they are asked for."""
        files = self.layout.patch_files
        self.prefetch([*(f.module for f in files), *self.layout.package_modules])
        with track("reading patch files", len(files)) as advance:
            for patch in files:
                advance()
                facts = self.facts_of(patch.module)
                if facts is not None:
                    yield patch, facts

    def patch_file_facts(self) -> tuple[tuple[PatchFile, FileFacts | None], ...]:
        """Each file of the patch directory (:attr:`PluginLayout.patch_files`' order) with
        its facts: those the inventory read this run (:meth:`patch_facts`), else its record
        in the store (an inventory remembered), else scanned now; ``None`` for a file no
        module name reaches."""
        return tuple((patch, self.facts_of(patch.module)) for patch in self.layout.patch_files)

    def replacement_sources(self, replacements: Iterable[str]) -> dict[str, ReplacementSource]:
        """The :class:`ReplacementSource` of each replacement ``module:qualname`` found
        (its module's file and facts looked up once, for the audit to hand its judges as
        data); an expression, a module or a name without a file or span is left out."""
        found: dict[str, ReplacementSource] = {}
        for replacement in replacements:
            module, _, qual = replacement.partition(":")
            if not qual or "<" in replacement or replacement in found:
                continue
            located = self.module_file(module)
            facts = self.facts_of(module) if located is not None else None
            span = facts.span(qual) if facts is not None else None
            if located is None or facts is None or span is None:
                continue
            file = located[0]
            first = facts.decorated.get(span[0])
            found[replacement] = ReplacementSource(file, self.relative(file), *span, first)
        return found

    def reading(self, replacements: Iterable[str]) -> PluginReading:
        """The :class:`PluginReading` of the replacements ``module:qualname`` (an entry's
        :attr:`~patchkeeper.runtime.model.PatchEntry.replacement`; an expression is left
        out), each module's file looked up and each file's facts read once."""
        named = sorted({r for r in replacements if r.partition(":")[2] and "<" not in r})
        module_files: dict[str, tuple[Path, str]] = {}
        for module in sorted({r.partition(":")[0] for r in named}):
            located = self.module_file(module)
            if located is not None:
                module_files[module] = (located[0], self.relative(located[0]))
        return PluginReading(module_files, self.replacement_sources(named), self.patch_file_facts())

    def project_dirs(self) -> list[Path]:
        """Where the plugin's project files (``pyproject.toml``, ``setup.cfg``, ``setup.py``,
        ``*.egg-info``) are read from: the root, and for a ``src`` layout (the root a ``src``
        directory, as setuptools' and hatch's ``src/`` layouts have it) its parent too."""
        if self.root.name == "src":
            return [self.root, self.root.parent]
        return [self.root]

    def _entry_points(self) -> tuple[EntryPoint, ...]:
        """Every entry point the plugin declares, of every group (see the module docstring):
        those of its first project file that declares any, else its installed package's."""
        for base in self.project_dirs():
            for reader in (_from_pyproject, _from_setup_cfg, _from_setup_py, _from_egg_info):
                found = reader(base)
                if found:
                    prefix = "" if base == self.root else "../"
                    return tuple(
                        EntryPoint(e.group, e.name, e.value, prefix + e.source) for e in found
                    )
        installed = _from_metadata(self.root, "*.dist-info/entry_points.txt")
        return tuple(e for e in installed if e.value.split(":")[0].split(".")[0] == self._top)


def _package_files(
    root: Path, folders: list[tuple[str, list[str]]]
) -> dict[str, tuple[Path, bool] | None]:
    """``module -> (file, is_package)`` of every module of a package, from the listing of
    its folders (:meth:`patchkeeper.runtime.store.cache.SummaryCache.python_folders`):
    a folder's ``__init__.py`` is its module; a ``NAME.py`` beside a ``NAME/`` package
    loses to it, as for the import system."""
    found: dict[str, tuple[Path, bool] | None] = {}
    for directory, files in folders:
        base = Path(directory)
        module = ".".join(base.relative_to(root).parts)
        for name in files:
            if name == "__init__.py":
                found[module] = (base / name, True)
            elif name.endswith(".py"):
                found.setdefault(f"{module}.{name[:-3]}", (base / name, False))
    return found


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
    file without read permission): no entry, and the reason as its ``syntax_error``, so
    the inventory names it and ``runtime lock``/``port`` refuse as for a file that does not
    parse (its patches are unknown)."""
    facts = FileFacts(module=module, file=relative)
    reason = exc.strerror or type(exc).__name__
    facts.syntax_error = f"{UNREADABLE}: {reason}"
    return facts


def _parse_spec(group: str, line: str, source: str) -> EntryPoint | None:
    name, sep, value = line.partition("=")
    if not sep:
        return None
    return EntryPoint(group.strip(), name.strip(), value.split("[")[0].strip(), source)


def _from_pyproject(root: Path) -> list[EntryPoint]:
    project = project_table(root)
    declared = project.get("entry-points")
    table = dict(declared) if isinstance(declared, dict) else {}
    if isinstance(project.get("scripts"), dict):  # [project.scripts]: the console scripts
        table["console_scripts"] = project["scripts"]
    return [
        EntryPoint(group, name, str(value), "pyproject.toml")
        for group, items in table.items()
        if isinstance(items, dict)
        for name, value in items.items()
    ]


def _from_setup_cfg(root: Path) -> list[EntryPoint]:
    path = root / "setup.cfg"
    if not path.is_file():
        return []
    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError):
        return []
    if not parser.has_section("options.entry_points"):
        return []
    out = []
    for group, text in parser.items("options.entry_points"):
        for line in text.splitlines():
            spec = _parse_spec(group, line, "setup.cfg") if line.strip() else None
            if spec:
                out.append(spec)
    return out


def _from_setup_py(root: Path) -> list[EntryPoint]:
    path = root / "setup.py"
    if not path.is_file():
        return []
    try:
        tree = parse_file(path.read_bytes(), path)
    except (SyntaxError, OSError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "entry_points":
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, dict):
                for group, items in value.items():
                    for line in [items] if isinstance(items, str) else items:
                        spec = _parse_spec(group, line, "setup.py")
                        if spec:
                            out.append(spec)
    return out


def _from_egg_info(root: Path) -> list[EntryPoint]:
    return _from_metadata(root, "*.egg-info/entry_points.txt")


def _from_metadata(root: Path, pattern: str) -> list[EntryPoint]:
    """The entry points of the ``entry_points.txt`` files matching ``pattern`` under
    ``root`` (the INI-like format of the packaging specification's entry points file)."""
    out = []
    for path in sorted(root.glob(pattern)):
        group = ""
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                group = line[1:-1]
            elif line and group:
                spec = _parse_spec(group, line, path.relative_to(root).as_posix())
                if spec:
                    out.append(spec)
    return out
