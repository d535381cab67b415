"""An upstream source tree, read statically: module files, per-module summaries, a
tree-wide name index. Summaries are cached per file and the index per tree
(:mod:`patchkeeper.runtime.store.cache`), so a tree is parsed once.

Only the modules a question touches are parsed with :mod:`ast`; the tree-wide index (which
modules define a name, which modules ``from X import`` it) is built from the text
(:mod:`patchkeeper.runtime.lookup.nameindex`), each half only when a question needs it.
"""

from __future__ import annotations

import ast
import hashlib
import marshal
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patchkeeper.runtime.lookup import nameindex
from patchkeeper.runtime.store.cache import (
    SummaryCache,
    file_state,
    parsed_module,
    prefetch_records,
    start_prefetch,
)
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.names import Binding, Table
from patchkeeper.runtime.syntax.parsing import parse_file, undecodable

if TYPE_CHECKING:
    from patchkeeper.errors import TargetError


@dataclass(frozen=True)
class Definition:
    """One top-level or class-level definition of a module.

    ``kind``: ``function``, ``class`` or ``value`` (an assignment); ``line``..``end_line``
    the source span (decorators included); ``bases`` of a class as dotted paths;
    ``conditional``: bound inside ``if``/``try``. Signatures and bodies are compared from
    the source span (:mod:`patchkeeper.runtime.judge.drift`), not stored here.
    """

    qualname: str
    kind: str
    line: int
    end_line: int
    bases: tuple[str, ...] = ()
    conditional: bool = False


@dataclass
class ModuleSummary:
    """What the resolver needs from one upstream module."""

    module: str
    file: str
    definitions: dict[str, Definition] = field(default_factory=dict)
    imports: dict[str, Binding] = field(default_factory=dict)
    star_imports: tuple[str, ...] = ()
    #: Why the module could not be parsed, ending with ``(line N)`` (``"invalid syntax
    #: (line 2)"``, ``"not UTF-8 (byte 0xff) and no coding line: ... (line 1)"``); ``""``
    #: when it was. Its names are then unknown, not absent.
    syntax_error: str = ""


def strip_docstrings(node: ast.AST) -> ast.AST:
    """Remove docstrings from every function, class and module body inside ``node`` (in
    place) and return it; a body left empty gets ``pass``."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = sub.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                sub.body = body[1:] or [ast.Pass()]
    return node


def _definition(node: ast.stmt, qual: str, conditional: bool, table: Table) -> Definition:
    end = getattr(node, "end_lineno", node.lineno) or node.lineno
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return Definition(qual, "function", start, end, conditional=conditional)
    if isinstance(node, ast.ClassDef):
        bases = []
        for base in node.bases:
            bound = names.dotted(base, table)
            bases.append(bound.dotted if bound else ast.unparse(base))
        return Definition(qual, "class", start, end, bases=tuple(bases), conditional=conditional)
    return Definition(qual, "value", start, end, conditional=conditional)


def _aliased_away(before: Definition | None, after: Definition) -> bool:
    """Whether ``after``, a later binding of a name ``before`` defines, leaves ``before``
    the definition of record: ``before`` is an unconditional function or class and
    ``after`` an assignment inside ``if``/``try`` (``if current_platform.is_cpu():
    causal_conv1d_update = causal_conv1d_update_cpu``). The name binds the function
    wherever the test fails, which is where a patch of it runs unless the plugin is for
    the platform tested; the assignment holds no code to compare, and reading it as the
    name's definition would make a change of kind out of a branch added for another
    platform."""
    return (
        before is not None
        and not before.conditional
        and before.kind in ("function", "class")
        and after.conditional
        and after.kind == "value"
    )


def summarize(
    source: bytes, module: str, file: str, is_package: bool, path: str | None = None
) -> ModuleSummary:
    """Parse one upstream module into a :class:`ModuleSummary` (never raises); ``path``:
    where the file is, for the parse log (:mod:`~patchkeeper.runtime.syntax.parsing`; ``file``
    when not given)."""
    summary = ModuleSummary(module, file)
    summary.syntax_error = undecodable(source)
    if summary.syntax_error:
        return summary
    try:
        tree = parse_file(source, file if path is None else path)
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte, before Python 3.12
        line = getattr(exc, "lineno", None) or source[: source.find(b"\0")].count(b"\n") + 1
        summary.syntax_error = f"{getattr(exc, 'msg', None) or exc} (line {line})"
        return summary
    table = names.scope_table(tree.body, {}, module, is_package)
    summary.imports = {k: v for k, v in table.items()}
    stars: list[str] = []

    def visit(body: list[ast.stmt], conditional: bool, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.If, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(node, part, []), True, prefix)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, True, prefix)
                continue
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                stars.append(names.absolute_module(module, is_package, node.level, node.module))
            targets: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                targets = [node.name]
            elif isinstance(node, ast.Assign):
                targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                targets = [node.target.id]
            for name in targets:
                qual = f"{prefix}{name}"
                definition = _definition(node, qual, conditional, table)
                if _aliased_away(summary.definitions.get(qual), definition):
                    continue
                if definition is not None:
                    summary.definitions[qual] = definition
                    if prefix == "":
                        summary.imports.pop(name, None)
            if isinstance(node, ast.ClassDef):
                visit(node.body, conditional, f"{prefix}{node.name}.")

    visit(tree.body, False, "")
    summary.star_imports = tuple(stars)
    return summary


def _missing_package_hint(root: Path, packages: tuple[str, ...]) -> str:
    """What to pass instead of ``root``, which holds none of ``packages``: the one tree
    inside it when it is the directory an sdist was unpacked into (``vllm-0.31.0/`` holding
    ``vllm-0.31.0/vllm``), else the directory holding the package in general."""
    from patchkeeper.trees.layout_hint import sole_tree

    inner = sole_tree(root)
    if inner is not None and any((inner / p).is_dir() for p in packages):
        return f"it holds one tree, {inner.name}, with the package: pass {inner}"
    return (
        "give the directory holding the upstream package (an unpacked sdist); "
        "the packages looked for are [runtime] upstream-packages in the configuration "
        '(default: the import name of the configured upstream = "NAME", else vllm)'
    )


def missing_package_error(root: Path, packages: tuple[str, ...]) -> TargetError:
    """The error for the upstream tree ``root``, which holds none of ``packages``."""
    from patchkeeper.errors import TargetError

    return TargetError(
        f"no {' or '.join(packages)} package in this upstream tree",
        path=root,
        hint=_missing_package_hint(root, packages),
    )


class UpstreamTree:
    """One upstream tree (an unpacked sdist, a checkout, site-packages).

    Args:
        root: the directory holding the packages (``root/vllm``), resolved: what
            :func:`patchkeeper.runtime.lookup.targets.upstream_root` gives for a tree that
            is the package directory itself (``.../vllm``) or a path with symbolic links
            (the caller finds it once, for the tree's store and for what it remembers).
        packages: the top-level packages to read (``("vllm",)``).
        importers: the caller will ask for the importer index (:meth:`importers`) too:
            build it in the same pass over the files as the definition index.

    Raises:
        TargetError: none of ``packages`` is in ``root``.
    """

    def __init__(self, root: Path, packages: tuple[str, ...], *, importers: bool = False) -> None:
        present = tuple(p for p in packages if (root / p).is_dir())
        if not present:
            raise missing_package_error(root, packages)
        self.root = root
        self._root_text = str(root).rstrip("/")
        self.packages = present
        self.cache = SummaryCache(root, "upstream")
        self.summaries: dict[str, ModuleSummary] = {}
        self._files: dict[str, tuple[Path, bool] | None] = {}
        self._lines: dict[str, list[str]] = {}
        self._texts: dict[str, str] = {}
        self._signature: tuple[list[str], str] | None = None
        self._defined: nameindex.DefinitionIndex = {}
        self._name_sets: list[bytes] | None = None
        self._imported: nameindex.ImporterIndex | None = None
        #: While :meth:`unread_modules` runs: the modules asked for with no summary yet.
        self._unread: set[str] | None = None
        #: Build the importer index with the definition index (one read of the tree for
        #: both) when the caller will ask for both.
        self.index_importers = importers
        #: Summaries handed to the pool by :meth:`start_prefetch`, stored when settled.
        self._started: list[Callable[[], int]] = []
        #: The modules handed to the pool by :meth:`start_prefetch` (one started twice
        #: before its record is stored would be parsed twice).
        self._handed: set[str] = set()
        #: The indexes :meth:`start_indexes` handed to the pool, taken when first needed.
        self._indexes_started: (
            Callable[[], tuple[list[bytes] | None, nameindex.ImporterIndex | None]] | None
        ) = None

    def contains(self, dotted: str) -> bool:
        """Whether ``dotted`` starts with one of this tree's packages."""
        return dotted.split(".")[0] in self.packages

    def module_file(self, module: str) -> tuple[Path, bool] | None:
        """``(file, is_package)`` of a module of the tree, or ``None``."""
        if module not in self._files and not all(module.split(".")):
            self._files[module] = _module_path(self.root, module)  # "", "a..b": pathlib's way
        if module not in self._files:
            # os.path on the text: a lookup asks for thousands of modules, most without a
            # file, and pathlib's joins and tests cost more than the system calls
            base = f"{self._root_text}/{module.replace('.', '/')}"
            if os.path.isfile(f"{base}/__init__.py"):
                self._files[module] = (Path(f"{base}/__init__.py"), True)
            elif os.path.isfile(f"{base}.py"):
                self._files[module] = (Path(f"{base}.py"), False)
            else:
                self._files[module] = None
        return self._files[module]

    def relative(self, file: Path) -> str:
        return file.relative_to(self.root).as_posix()

    def summary(self, module: str) -> ModuleSummary | None:
        """The parsed summary of ``module`` (cached), or ``None`` when it has no file (or,
        inside :meth:`unread_modules`, when it has no summary yet)."""
        if self._started:
            self._settle()
        if self._unread is not None and module not in self.summaries:
            found = self.module_file(module)
            if found is not None and not self.cache.valid(found[0]):
                self._unread.add(module)
                return None

        def parse(file: Path, is_package: bool) -> ModuleSummary:
            return summarize(file.read_bytes(), module, self.relative(file), is_package, str(file))

        codec = (summary_record, summary_from_record)
        return parsed_module(module, self.summaries, self.module_file, self.cache, parse, codec)

    def prefetch(self, modules: Iterable[str]) -> int:
        """Summarize the modules of ``modules`` that have no valid record in the cache, on
        every usable core (:func:`patchkeeper.runtime.parallel.map_records`), and store their
        records; :meth:`summary` then decodes them as on a warm run. Only a speed-up: the
        summaries are the ones :meth:`summary` would compute. Returns how many modules were
        summarized (0 when the work was too small for a pool)."""

        self._settle()
        return prefetch_records(
            modules, self.summaries, self.module_file, self.cache, self._job, summary_job
        )

    def _job(self, module: str, file: Path, is_package: bool) -> tuple[Any, ...]:
        """The job of :func:`summary_job` for one module."""
        return (str(file), module, self.relative(file), is_package)

    def start_prefetch(self, modules: Iterable[str]) -> None:
        """:meth:`prefetch` handed to the running pool now
        (:func:`patchkeeper.runtime.store.cache.start_prefetch`), its records stored the
        next time a summary is asked for: the workers summarize the modules while this
        process does other work (the plugin's activation search). Nothing is started
        outside a :func:`patchkeeper.runtime.parallel.shared_workers` pool; a module
        handed to it before is not handed again."""
        fresh = [module for module in modules if module not in self._handed]
        store = start_prefetch(
            fresh, self.summaries, self.module_file, self.cache, self._job, summary_job
        )
        if store is not None:
            self._handed.update(fresh)
            self._started.append(store)

    def _settle(self) -> None:
        """Store the records of the work :meth:`start_prefetch` started (waiting for it)."""
        while self._started:
            self._started.pop(0)()

    def unread_modules(self, lookups: Callable[[], object]) -> set[str]:
        """The modules ``lookups()`` asks :meth:`summary` for that have no summary yet
        (neither read this run nor stored): meanwhile each is answered ``None``, as a module
        without a file, so the lookups go on without parsing anything. What ``lookups()``
        returns is thrown away (it is an answer without those modules)."""
        self._unread = set()
        try:
            lookups()
        finally:
            unread, self._unread = self._unread, None
        return unread

    def source_lines(self, module: str, start: int, end: int) -> list[str]:
        """Lines ``start``..``end`` (1-based, inclusive) of a module, with line ends."""
        if module not in self._lines:
            found = self.module_file(module)
            text = found[0].read_text(encoding="utf-8", errors="replace") if found else ""
            self._lines[module] = text.splitlines(True)
        return self._lines[module][start - 1 : end]

    def source_text(self, module: str) -> str:
        """The whole text of a module (its :meth:`source_lines` joined; ``""`` for a module
        without a file), joined once: the judging of each entry reads the text of the same
        modules (a target's module, its callers), some of them tens of thousands of lines."""
        text = self._texts.get(module)
        if text is None:
            text = self._texts[module] = "".join(self.source_lines(module, 1, 10**9))
        return text

    # ----------------------------------------------------------------- the name index
    def _files_signature(self) -> tuple[list[str], str]:
        """Every Python file of the packages (paths, :func:`nameindex.python_files`), and a
        digest of their names, sizes and modification times (what the indexes are valid
        for)."""
        if self._signature is None:
            files: list[str] = []
            states: list[tuple[int, int, int, int]] = []
            for package in self.packages:
                for file in self._python_files(self.root / package):
                    stat = os.stat(file)
                    files.append(file)
                    states.append(file_state(stat))
            # one marshalled list, hashed once (a warm audit takes this for every file)
            digest = hashlib.sha256(marshal.dumps((files, states))).hexdigest()
            self._signature = files, digest
        return self._signature

    def _python_files(self, directory: Path) -> list[str]:
        """:func:`nameindex.python_files` of ``directory``, its folders listed from the
        store while none changed (:meth:`SummaryCache.python_folders`)."""
        found = [
            f"{folder}/{name}"
            for folder, names in self.cache.python_folders(directory)
            for name in names
        ]
        # by path components: "/" replaced by the lowest character gives the same order
        return sorted(found, key=lambda path: path.replace("/", "\0"))

    def python_files(self) -> list[str]:
        """Every Python file of the tree's packages (absolute paths, in path order)."""
        return self._files_signature()[0]

    def relative_path(self, file: str) -> str:
        """``file`` (a path of :meth:`python_files`) relative to the tree's root, POSIX."""
        return Path(file).relative_to(self.root).as_posix()

    def signature(self) -> str:
        """A digest of the path and stat data (:func:`patchkeeper.runtime.store.cache.file_state`)
        of every Python file of the tree's packages: two equal signatures mean the same
        sources (computed once)."""
        return self._files_signature()[1]

    def start_indexes(self) -> None:
        """Hand the reading of the tree's files for the indexes :meth:`_build_indexes`
        builds (those the store does not hold) to the running pool now
        (:func:`nameindex.start_index`): the workers read the tree once they are done with
        the work given them before, while this process does other work, and the first
        lookup that needs an index takes it. Nothing is started outside a
        :func:`patchkeeper.runtime.parallel.shared_workers` pool, or when the store holds
        the indexes (a warm run)."""
        if self._indexes_started is not None:
            return
        files, signature = self._files_signature()
        definitions = self._name_sets is None and self.cache.get_value("#names", signature) is None
        importers = (
            self.index_importers
            and self._imported is None
            and self.cache.get_value("#importers", signature) is None
        )
        if definitions or importers:
            self._indexes_started = nameindex.start_index(
                self.root, files, definitions=definitions, importers=importers
            )

    def _take_started_indexes(self, signature: str) -> None:
        """Store the indexes :meth:`start_indexes` had built (waiting for them if need be)."""
        started, self._indexes_started = self._indexes_started, None
        if started is None:
            return
        self._store_indexes(signature, *started())

    def _build_indexes(self, importers: bool) -> None:
        """Load or build the per-file names (:func:`nameindex.defined_names`) and, when
        ``importers`` (or the tree was made with ``importers=True``), the importer index:
        one read of the tree's files for both (:func:`nameindex.build_index`, or the
        reading :meth:`start_indexes` started), each cached under the digest of the file
        list."""
        if self._indexes_started is not None:
            self._take_started_indexes(self._files_signature()[1])
        want_importers = (importers or self.index_importers) and self._imported is None
        if self._name_sets is not None and not want_importers:
            return
        files, signature = self._files_signature()
        if self._name_sets is None:
            self._name_sets = self.cache.get_value("#names", signature)
        if want_importers:
            self._imported = self.cache.get_value("#importers", signature)
            want_importers = self._imported is None
        if self._name_sets is not None and not want_importers:
            return
        sets, imported = nameindex.build_index(
            self.root, files, definitions=self._name_sets is None, importers=want_importers
        )
        self._store_indexes(signature, sets, imported)

    def _store_indexes(
        self,
        signature: str,
        sets: list[bytes] | None,
        imported: nameindex.ImporterIndex | None,
    ) -> None:
        """Keep and cache (under ``signature``, the digest of the file list) the indexes
        just read: either may be ``None`` (not asked for)."""
        if sets is not None:
            self._name_sets = sets
            self.cache.put_value("#names", signature, sets)
        if imported is not None:
            self._imported = imported
            self.cache.put_value("#importers", signature, imported)

    def importers_index(self) -> nameindex.ImporterIndex:
        """The ``from X import name`` index of the whole tree (built once, cached under the
        digest of the tree's file list)."""
        if self._imported is None:
            self._build_indexes(importers=True)
        assert self._imported is not None, "built by _build_indexes"
        return self._imported

    def find_definitions(self, wanted: Iterable[str]) -> None:
        """Look up where each name of ``wanted`` is defined: the files whose names
        (:meth:`_build_indexes`, one pass over the tree per run, cached) hold one of the
        names are read and matched with :func:`nameindex.definitions`. Results are cached
        per name."""
        names = [name for name in dict.fromkeys(wanted) if name not in self._defined]
        if not names:
            return  # nothing to look up: no walk over the tree's files
        files, signature = self._files_signature()
        missing = []
        for name in names:
            cached = self.cache.get_value(f"#defined:{name}", signature)
            if cached is not None:
                self._defined[name] = cached
            else:
                missing.append(name)
        if not missing:
            return
        self._build_indexes(importers=False)
        found: nameindex.DefinitionIndex = {name: [] for name in missing}
        # The names of a file are ASCII words (the patterns' \w in bytes): a name with other
        # characters is looked for in every file's bytes, as a substring.
        needles = {name.encode() for name in missing}
        plain = {needle for needle in needles if needle.isascii()}
        other = needles - plain
        patterns = nameindex.definition_pattern(missing)
        assert self._name_sets is not None, "built by _build_indexes"
        holds = nameindex.name_search(plain)
        for file, defined in zip(files, self._name_sets, strict=True):
            named = holds(defined)
            if not other and not named:
                continue
            with open(file, "rb") as handle:
                data = handle.read()
            if not named and not any(needle in data for needle in other):
                continue
            module = nameindex.module_of(self.root, Path(file))[0]
            for name, line in nameindex.definitions(data, patterns):
                found[name].append((module, line))
        for name, rows in found.items():
            self._defined[name] = rows
            self.cache.put_value(f"#defined:{name}", signature, rows)

    def defined(self, name: str) -> list[tuple[str, int]]:
        """Modules (with a line) whose text defines ``name`` (``def``/``class`` at any depth,
        an assignment at column 0); see :meth:`find_definitions`."""
        if name not in self._defined:
            self.find_definitions([name])
        return self._defined[name]

    def importers(self, name: str) -> list[tuple[str, str, str, int, int]]:
        """``(module, from-module, local name, line, indent)`` for every ``from X import
        name`` of the tree."""
        return self.importers_index().get(name, [])

    def save(self) -> None:
        self._settle()
        if self._indexes_started is not None:
            self._take_started_indexes(self._files_signature()[1])
        self.cache.save()


def _module_path(root: Path, module: str) -> tuple[Path, bool] | None:
    """``(file, is_package)`` of ``module`` under ``root`` found with :mod:`pathlib` (the
    reference :meth:`UpstreamTree.module_file` follows on the text of the paths)."""
    base = root / module.replace(".", "/")
    if (base / "__init__.py").is_file():
        return base / "__init__.py", True
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py"), False
    return None


def summary_record(summary: ModuleSummary) -> tuple[Any, ...]:
    """``summary`` as nested tuples of builtin values (for the cache)."""
    return (
        summary.module,
        summary.file,
        tuple(
            (d.qualname, d.kind, d.line, d.end_line, d.bases, d.conditional)
            for d in summary.definitions.values()
        ),
        tuple((k, b.dotted, b.module) for k, b in summary.imports.items()),
        summary.star_imports,
        summary.syntax_error,
    )


def summary_job(job: tuple[str, str, str, bool]) -> tuple[Any, ...]:
    """The record (:func:`summary_record`) of one upstream module, ``job`` being ``(path,
    module, relative path, is_package)``: the work of :meth:`UpstreamTree.prefetch`'s
    worker processes."""
    path, module, relative, is_package = job
    with open(path, "rb") as handle:
        data = handle.read()
    return summary_record(summarize(data, module, relative, is_package, path))


def summary_from_record(record: tuple[Any, ...]) -> ModuleSummary:
    """The inverse of :func:`summary_record`."""
    module, file, definitions, imports, stars, error = record
    return ModuleSummary(
        module,
        file,
        {d[0]: Definition(*d) for d in definitions},
        {k: Binding(dotted, mod) for k, dotted, mod in imports},
        tuple(stars),
        error,
    )
