"""An upstream source tree, read statically: module files, per-module summaries, a
tree-wide name index. Summaries are cached per file and the index per tree
(:mod:`patchkeeper.runtime.cache`), so a tree is parsed once.

Only the modules a question touches are parsed with :mod:`ast`; the tree-wide index (which
modules define a name, which modules ``from X import`` it) is built from the text
(:mod:`patchkeeper.runtime.nameindex`), each half only when a question needs it.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from patchkeeper.progress import track
from patchkeeper.runtime import nameindex, names
from patchkeeper.runtime.cache import SummaryCache, parsed_module
from patchkeeper.runtime.names import Binding


@dataclass(frozen=True)
class Definition:
    """One top-level or class-level definition of a module.

    ``kind``: ``function``, ``class`` or ``value`` (an assignment); ``line``..``end_line``
    the source span (decorators included); ``bases`` of a class as dotted paths;
    ``conditional``: bound inside ``if``/``try``. Signatures and bodies are compared from
    the source span (:mod:`patchkeeper.runtime.drift`), not stored here.
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


def _definition(node: ast.stmt, qual: str, conditional: bool, table) -> Definition:
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


def summarize(source: bytes, module: str, file: str, is_package: bool) -> ModuleSummary:
    """Parse one upstream module into a :class:`ModuleSummary` (never raises)."""
    summary = ModuleSummary(module, file)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        summary.syntax_error = str(exc)
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
                if definition is not None:
                    summary.definitions[qual] = definition
                    if prefix == "":
                        summary.imports.pop(name, None)
            if isinstance(node, ast.ClassDef):
                visit(node.body, conditional, f"{prefix}{node.name}.")

    visit(tree.body, False, "")
    summary.star_imports = tuple(stars)
    return summary


class UpstreamTree:
    """One upstream tree (an unpacked sdist, a checkout, site-packages).

    Args:
        root: the tree; the packages are found in it (``root/vllm``) or it is the package
            directory itself (``.../vllm``), in which case its parent is used.
        packages: the top-level packages to read (``("vllm",)``).

    Raises:
        TargetError: none of ``packages`` is in ``root``.
    """

    def __init__(self, root: Path, packages: tuple[str, ...]) -> None:
        from patchkeeper.errors import TargetError

        root = root.resolve()
        if not any((root / p).is_dir() for p in packages) and root.name in packages:
            root = root.parent
        present = tuple(p for p in packages if (root / p).is_dir())
        if not present:
            raise TargetError(
                f"no {' or '.join(packages)} package in this upstream tree",
                path=root,
                hint="give the directory holding the upstream package (an unpacked sdist); "
                "the packages looked for are [runtime] upstream-packages in the configuration "
                '(default: the configured upstream = "NAME", else vllm)',
            )
        self.root = root
        self.packages = present
        self.cache = SummaryCache(root, "upstream")
        self.summaries: dict[str, ModuleSummary] = {}
        self._files: dict[str, tuple[Path, bool] | None] = {}
        self._lines: dict[str, list[str]] = {}
        self._signature: tuple[list[Path], str] | None = None
        self._defined: nameindex.DefinitionIndex = {}
        self._imported: nameindex.ImporterIndex | None = None

    def contains(self, dotted: str) -> bool:
        """Whether ``dotted`` starts with one of this tree's packages."""
        return dotted.split(".")[0] in self.packages

    def module_file(self, module: str) -> tuple[Path, bool] | None:
        """``(file, is_package)`` of a module of the tree, or ``None``."""
        if module not in self._files:
            base = self.root / module.replace(".", "/")
            if (base / "__init__.py").is_file():
                self._files[module] = (base / "__init__.py", True)
            elif base.with_suffix(".py").is_file():
                self._files[module] = (base.with_suffix(".py"), False)
            else:
                self._files[module] = None
        return self._files[module]

    def relative(self, file: Path) -> str:
        return file.relative_to(self.root).as_posix()

    def summary(self, module: str) -> ModuleSummary | None:
        """The parsed summary of ``module`` (cached), or ``None`` when it has no file."""

        def parse(file: Path, is_package: bool) -> ModuleSummary:
            return summarize(file.read_bytes(), module, self.relative(file), is_package)

        codec = (summary_record, summary_from_record)
        return parsed_module(module, self.summaries, self.module_file, self.cache, parse, codec)

    def source_lines(self, module: str, start: int, end: int) -> list[str]:
        """Lines ``start``..``end`` (1-based, inclusive) of a module, with line ends."""
        if module not in self._lines:
            found = self.module_file(module)
            text = found[0].read_text(encoding="utf-8", errors="replace") if found else ""
            self._lines[module] = text.splitlines(True)
        return self._lines[module][start - 1 : end]

    # ----------------------------------------------------------------- the name index
    def _files_signature(self) -> tuple[list[Path], str]:
        """Every Python file of the packages, and a digest of their names, sizes and
        modification times (what the index is valid for)."""
        if self._signature is None:
            files: list[Path] = []
            digest = hashlib.sha256()
            for package in self.packages:
                for file in sorted((self.root / package).rglob("*.py")):
                    stat = file.stat()
                    files.append(file)
                    digest.update(f"{file}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
            self._signature = files, digest.hexdigest()
        return self._signature

    def importers_index(self) -> nameindex.ImporterIndex:
        """The ``from X import name`` index of the whole tree (built once, cached under the
        digest of the tree's file list)."""
        if self._imported is None:
            files, signature = self._files_signature()
            cached = self.cache.get_value("#importers", signature)
            if cached is None:
                cached = nameindex.build_importers(self.root, files)
                self.cache.put_value("#importers", signature, cached)
            self._imported = cached
        return self._imported

    def find_definitions(self, wanted: Iterable[str]) -> None:
        """Look up where each name of ``wanted`` is defined, in one pass over the tree: a
        file's text is searched for the name's bytes first and only a file containing one
        is matched with :func:`nameindex.definitions`. Results are cached per name."""
        names = [name for name in dict.fromkeys(wanted) if name not in self._defined]
        if not names:
            return  # nothing to look up: no walk over the tree's files
        files, signature = self._files_signature()
        missing = []
        for name in names:
            if name in self._defined:
                continue
            cached = self.cache.get_value(f"#defined:{name}", signature)
            if cached is not None:
                self._defined[name] = cached
            else:
                missing.append(name)
        if not missing:
            return
        found: nameindex.DefinitionIndex = {name: [] for name in missing}
        needles = [name.encode() for name in missing]
        patterns = nameindex.definition_pattern(missing)
        with track("looking up definitions", len(files)) as advance:
            for file in files:
                advance()
                data = file.read_bytes()
                if not any(needle in data for needle in needles):
                    continue
                module = nameindex.module_of(self.root, file)[0]
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
        self.cache.save()


def summary_record(summary: ModuleSummary) -> tuple:
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


def summary_from_record(record: tuple) -> ModuleSummary:
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
