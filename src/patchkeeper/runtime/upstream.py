"""An upstream source tree, read statically: module files, per-module summaries, a
tree-wide name index. Summaries and the index are cached per file
(:mod:`patchkeeper.runtime.cache`), so a tree is parsed once.

Only the modules a question touches are parsed with :mod:`ast`; the tree-wide index (which
modules define a name, which modules ``from X import`` it) is built with two regular
expressions over every file, which is several times faster than parsing the tree.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from patchkeeper.runtime import names
from patchkeeper.runtime.cache import SummaryCache
from patchkeeper.runtime.names import Binding

#: ``def name`` / ``class name`` at any indentation, or ``NAME = `` / ``NAME: T =`` at column 0.
DEFINITION = re.compile(
    rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|^(\w+)[ \t]*(?::[^=\n]*)?=(?!=)", re.M
)
#: ``from vllm.x import a, b as c`` (parenthesised lists included), at any indentation.
FROM_IMPORT = re.compile(
    rb"^([ \t]*)from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M
)


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


def fingerprint(node: ast.AST, rename: str | None = None) -> str:
    """A hash of ``node``'s AST without docstrings, positions or (when ``rename`` is given)
    its own name, so a replacement named differently compares equal to the original."""
    import copy

    clone = strip_docstrings(copy.deepcopy(node))
    if rename is not None and isinstance(
        clone, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    ):
        clone.name = rename
    return hashlib.sha256(ast.dump(clone, annotate_fields=False).encode()).hexdigest()[:20]


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


@dataclass(frozen=True)
class FileIndex:
    """The regular-expression facts of one file: names it defines, names it imports
    (``(indent, from-module, name, as-name, line)``)."""

    defined: tuple[tuple[str, int], ...]
    imported: tuple[tuple[int, str, str, str, int], ...]


def index_source(data: bytes) -> FileIndex:
    """Build the :class:`FileIndex` of one file's bytes."""
    defined = []
    for match in DEFINITION.finditer(data):
        name = match.group(1) or match.group(2)
        defined.append((name.decode(), data.count(b"\n", 0, match.start()) + 1))
    imported = []
    for match in FROM_IMPORT.finditer(data):
        line = data.count(b"\n", 0, match.start()) + 1
        listing = match.group(3).decode("utf-8", "replace").strip().strip("()")
        for item in listing.replace("\n", " ").split(","):
            parts = item.split("#")[0].split()
            if not parts or parts[0] == "*":
                continue
            asname = parts[2] if len(parts) == 3 and parts[1] == "as" else parts[0]
            imported.append((len(match.group(1)), match.group(2).decode(), parts[0], asname, line))
    return FileIndex(tuple(defined), tuple(imported))


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
                hint="give the directory holding the upstream package (an unpacked sdist)",
            )
        self.root = root
        self.packages = present
        self.cache = SummaryCache(root, "upstream")
        self.summaries: dict[str, ModuleSummary] = {}
        self._files: dict[str, tuple[Path, bool] | None] = {}
        self._lines: dict[str, list[str]] = {}
        self._defined: dict[str, list[tuple[str, int]]] | None = None
        self._imported: dict[str, list[tuple[str, str, str, int, int]]] | None = None

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
        if module in self.summaries:
            return self.summaries[module]
        found = self.module_file(module)
        if found is None:
            return None
        file, is_package = found
        key = file.with_name(file.name + "#summary")
        summary = None
        cached = self.cache.entries.get(str(key))
        stat = file.stat()
        if cached and cached[:2] == (stat.st_size, stat.st_mtime_ns):
            summary = cached[2]
        if summary is None:
            summary = summarize(file.read_bytes(), module, self.relative(file), is_package)
            self.cache.entries[str(key)] = (stat.st_size, stat.st_mtime_ns, summary)
            self.cache.dirty = True
        self.summaries[module] = summary
        return summary

    def source_lines(self, module: str, start: int, end: int) -> list[str]:
        """Lines ``start``..``end`` (1-based, inclusive) of a module, with line ends."""
        if module not in self._lines:
            found = self.module_file(module)
            text = found[0].read_text(encoding="utf-8", errors="replace") if found else ""
            self._lines[module] = text.splitlines(True)
        return self._lines[module][start - 1 : end]

    # ----------------------------------------------------------------- the name index
    def _files_signature(self) -> tuple[list[Path], str]:
        files: list[Path] = []
        digest = hashlib.sha256()
        for package in self.packages:
            for file in sorted((self.root / package).rglob("*.py")):
                stat = file.stat()
                files.append(file)
                digest.update(f"{file}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        return files, digest.hexdigest()

    def _build_index(self) -> None:
        """Build (or load) the tree-wide index; it is cached whole, keyed by the list of
        files with their sizes and modification times."""
        files, signature = self._files_signature()
        key = str(self.root / "#index")
        cached = self.cache.entries.get(key)
        if cached and cached[0] == signature:
            self._defined, self._imported = cached[2]
            return
        self._defined, self._imported = build_index(self.root, files)
        self.cache.entries[key] = (signature, 0, (self._defined, self._imported))
        self.cache.dirty = True

    def defined(self, name: str) -> list[tuple[str, int]]:
        """Modules (with a line) whose text defines ``name`` (``def``/``class`` at any depth,
        an assignment at column 0)."""
        if self._defined is None:
            self._build_index()
        assert self._defined is not None
        return self._defined.get(name, [])

    def importers(self, name: str) -> list[tuple[str, str, str, int, int]]:
        """``(module, from-module, local name, line, indent)`` for every ``from X import
        name`` of the tree."""
        if self._imported is None:
            self._build_index()
        assert self._imported is not None
        return self._imported.get(name, [])

    def save(self) -> None:
        self.cache.save()


def build_index(
    root: Path, files: list[Path]
) -> tuple[dict[str, list[tuple[str, int]]], dict[str, list[tuple[str, str, str, int, int]]]]:
    """The tree-wide name index of ``files`` (see :meth:`UpstreamTree.defined` and
    :meth:`UpstreamTree.importers`)."""
    defined: dict[str, list[tuple[str, int]]] = {}
    imported: dict[str, list[tuple[str, str, str, int, int]]] = {}
    for file in files:
        index = index_source(file.read_bytes())
        rel = file.relative_to(root).with_suffix("").parts
        is_package = rel[-1] == "__init__"
        module = ".".join(rel[:-1] if is_package else rel)
        for name, line in index.defined:
            defined.setdefault(name, []).append((module, line))
        for indent, base, name, asname, line in index.imported:
            level = len(base) - len(base.lstrip("."))
            source = names.absolute_module(module, is_package, level, base.lstrip(".") or None)
            imported.setdefault(name, []).append((module, source, asname, line, indent))
    return defined, imported
