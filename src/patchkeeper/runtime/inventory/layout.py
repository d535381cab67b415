"""What a plugin tree is (:class:`PluginLayout`), read once from its files: the modules of its
package, the files of its patch directory, its entry points and console scripts, and the
signature its inventory is remembered under.

Entry points are read from the plugin's ``pyproject.toml``
(``[project.entry-points."vllm.general_plugins"]``), its ``setup.cfg``
(``[options.entry_points]``), the ``entry_points=`` literal of ``setup.py``, or an
``*.egg-info/entry_points.txt`` of an sdist, in that order of preference; in an installed
tree (``--plugin`` a ``site-packages``, the plugin installed from its wheel), the
``*.dist-info/entry_points.txt`` entries whose object is in the plugin's package (the other
distributions' entry points there are not the plugin's).
"""

from __future__ import annotations

import ast
import configparser
import hashlib
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.loading import CONSOLE_SCRIPTS
from patchkeeper.runtime.model import EntryPoint
from patchkeeper.runtime.settings import RuntimeSettings, wheel_root
from patchkeeper.runtime.store.cache import file_state
from patchkeeper.runtime.syntax.parsing import parse_file
from patchkeeper.system.pyproject import source_dirs
from patchkeeper.system.regular import is_special

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class PatchFile(NamedTuple):
    """One Python file of the patch directory: its path, its path relative to the plugin's
    root (as findings name it), its dotted module name and whether it is a package's
    ``__init__.py``."""

    path: Path
    relative: str
    module: str
    is_package: bool


@dataclass(frozen=True)
class PluginLayout:
    """What a plugin tree is, read once (:func:`read_layout`) when its
    :class:`~patchkeeper.runtime.inventory.plugin.PluginTree` is made: what the inventory and
    the audit ask of it besides the parsed modules.

    Attributes:
        signature: a digest of what an inventory of the tree reads (the settings, and the
            path and stat data of every file of the plugin package, of the files that
            declare entry points and of the ledger file): the inventory is remembered under
            it.
        patch_files: every Python file of the patch directory, initializers included,
            sorted by path.
        package_files: ``module -> (file, is_package)`` of every module of the plugin's
            top-level package (:func:`package_files`).
        entry_points: the plugin's entry points in the configured groups (see the module
            docstring).
        console_scripts: its console scripts whose function is in its package (running one
            runs the function: a root of the activation search).
        other_entry_points: its entry points of every other group whose object is in its
            package (``inspect_ai``, ``pytest11``: another program loads them, a root of the
            activation search as well).
        project_problems: a ``project-file`` finding for each project file that declares
            entry points and cannot be read (:func:`project_file_problems`).
    """

    signature: str
    patch_files: tuple[PatchFile, ...]
    package_files: Mapping[str, tuple[Path, bool]]
    entry_points: tuple[EntryPoint, ...]
    console_scripts: tuple[EntryPoint, ...]
    other_entry_points: tuple[EntryPoint, ...] = ()
    project_problems: tuple[Finding, ...] = ()

    @property
    def package_modules(self) -> tuple[str, ...]:
        """Every module of the plugin's top-level package, in the listing's order."""
        return tuple(self.package_files)


def read_layout(settings: RuntimeSettings, folders: list[tuple[str, list[str]]]) -> PluginLayout:
    """The :class:`PluginLayout` of the plugin ``settings`` describes, its package's folders
    listed already (``folders``: ``(folder, sorted names of its *.py files)``, as
    :meth:`patchkeeper.runtime.store.cache.SummaryCache.python_folders` lists them)."""
    root = settings.root
    top = settings.package.split(".")[0]
    files = package_files(root, folders)
    patch_files = tuple(
        PatchFile(path, path.relative_to(root).as_posix(), *module_name(root, path))
        for path in sorted((root / settings.patch_directory).rglob("*.py"))
        if not is_special(path)  # a FIFO or socket named *.py is no module: reading it would hang
    )
    # each project file read and parsed once, for both its entry points and its findings
    listing = {base: project_files(base) for base in project_dirs(root)}
    read = {path: _read_project_file(path) for paths in listing.values() for path in paths}
    declared = _entry_points(root, top, listing, read)
    groups = {*settings.entry_point_groups, CONSOLE_SCRIPTS}
    return PluginLayout(
        signature=_signature(settings, files, [p.path for p in patch_files], listing),
        patch_files=patch_files,
        package_files=files,
        entry_points=tuple(e for e in declared if e.group in settings.entry_point_groups),
        console_scripts=tuple(
            e
            for e in declared
            if e.group == CONSOLE_SCRIPTS and e.value.split(":")[0].split(".")[0] == top
        ),
        other_entry_points=tuple(
            e
            for e in declared
            if e.group not in groups and e.value.split(":")[0].split(".")[0] == top
        ),
        project_problems=project_file_problems(root, top, listing, read),
    )


def package_files(root: Path, folders: list[tuple[str, list[str]]]) -> dict[str, tuple[Path, bool]]:
    """``module -> (file, is_package)`` of every module of a package, from the listing of
    its folders (:meth:`patchkeeper.runtime.store.cache.SummaryCache.python_folders`):
    a folder's ``__init__.py`` is its module; a ``NAME.py`` beside a ``NAME/`` package
    loses to it, as for the import system."""
    found: dict[str, tuple[Path, bool]] = {}
    for directory, files in folders:
        base = Path(directory)
        module = ".".join(base.relative_to(root).parts)
        for name in files:
            if name == "__init__.py":
                found[module] = (base / name, True)
            elif name.endswith(".py"):
                found.setdefault(f"{module}.{name[:-3]}", (base / name, False))
    return found


def module_name(root: Path, file: Path) -> tuple[str, bool]:
    """The dotted module name of a file under ``root``, and whether it is a package."""
    parts = list(file.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def project_dirs(root: Path) -> list[Path]:
    """Where the plugin's project files (``pyproject.toml``, ``setup.cfg``, ``setup.py``,
    ``*.egg-info``, ``*.dist-info``) are read from: the root, and for a ``src`` layout (the
    root a ``src`` directory, as setuptools' and hatch's ``src/`` layouts have it, or the
    folder the parent's project files name, :func:`~patchkeeper.system.pyproject.source_dirs`)
    its parent too; for a package an unpacked wheel keeps under ``NAME-VERSION.data/purelib``
    (:func:`~patchkeeper.runtime.settings.wheel_root`), the wheel's top folder too."""
    if root.name == "src" or root in source_dirs(root.parent):
        return [root, root.parent]
    wheel = wheel_root(root)
    return [root] if wheel is None else [root, wheel]


def project_files(base: Path) -> list[Path]:
    """The project files entry points are read from in the folder ``base`` (one of
    :func:`project_dirs`), whether they exist or not: ``pyproject.toml``, ``setup.cfg``,
    ``setup.py``, then each ``*.egg-info`` and ``*.dist-info`` ``entry_points.txt``."""
    files = [base / n for n in ("pyproject.toml", "setup.cfg", "setup.py")]
    files += sorted(base.glob("*.egg-info/entry_points.txt"))
    return files + sorted(base.glob("*.dist-info/entry_points.txt"))


def _signature(
    settings: RuntimeSettings,
    files: Mapping[str, tuple[Path, bool]],
    patch_files: list[Path],
    listing: Mapping[Path, list[Path]],
) -> str:
    """:attr:`PluginLayout.signature`, the stat data being
    :func:`patchkeeper.runtime.store.cache.file_state`'s; ``listing``: the project files of
    each of :func:`project_dirs`."""
    root = settings.root
    digest = hashlib.sha256(repr(settings).encode())
    extra = [f for paths in listing.values() for f in paths]
    if settings.ledger_file:
        extra.append(root / settings.ledger_file)
    listed = [found[0] for found in files.values()]
    listed += patch_files  # also when the patch directory is outside the package
    for file in [*listed, *extra]:
        try:
            stat = file.stat()
        except OSError:
            continue
        digest.update(f"{file}\0{file_state(stat)}\n".encode())
    return digest.hexdigest()


def _entry_points(
    root: Path,
    top: str,
    listing: Mapping[Path, list[Path]],
    read: Mapping[Path, ProjectFile | None],
) -> tuple[EntryPoint, ...]:
    """Every entry point the plugin declares, of every group (see the module docstring):
    those of its first project file that declares any, else its installed package's (those
    whose object is in the top-level package ``top``). ``listing``: the project files of
    each of :func:`project_dirs`; ``read``: each of them read (:func:`_read_project_file`)."""
    for base, paths in listing.items():
        found = (
            _from_pyproject(read[base / "pyproject.toml"])
            or _from_setup_cfg(read[base / "setup.cfg"])
            or _from_setup_py(read[base / "setup.py"])
            or _from_metadata(base, paths, ".egg-info", read)
        )
        if found:
            prefix = "" if base == root else "../"
            return tuple(EntryPoint(e.group, e.name, e.value, prefix + e.source) for e in found)
    for base, paths in listing.items():
        installed = [
            e
            for e in _from_metadata(base, paths, ".dist-info", read)
            if e.value.split(":")[0].split(".")[0] == top
        ]
        if installed:
            prefix = "" if base == root else os.path.relpath(base, root) + "/"
            return tuple(EntryPoint(e.group, e.name, e.value, prefix + e.source) for e in installed)
    return ()


#: What a ``project-file`` finding tells to do.
_PROJECT_HINT = (
    "fix the file: the plugin's entry points, which say how the upstream loads the plugin, "
    "are read from it"
)


def project_file_problems(
    root: Path,
    top: str,
    listing: Mapping[Path, list[Path]],
    read: Mapping[Path, ProjectFile | None],
) -> tuple[Finding, ...]:
    """A ``project-file`` finding for each of the plugin's project files (those
    :func:`_entry_points` reads entry points from: ``listing``, by folder of
    :func:`project_dirs`; ``read``, each read by :func:`_read_project_file`) that exists
    and cannot be read: not UTF-8, not valid TOML, INI or Python. Such a file's entry
    points are not read, so the plugin's loading would be traced without them (every patch
    never imported) with nothing said; the finding names the file, the line when the
    parser gives one, and what is wrong. A ``*.dist-info`` file counts only when it names
    the plugin's top-level package ``top``: a ``site-packages`` given as ``--plugin`` holds
    every other installed distribution's too, which are not the plugin's."""
    out: list[Finding] = []
    name_of_top = top.encode()
    for base, paths in listing.items():
        prefix = "" if base == root else os.path.relpath(base, root) + "/"
        for path in paths:
            found = read[path]
            if found is None or found.problem is None:
                continue
            if path.parent.name.endswith(".dist-info") and (
                found.data is None or name_of_top not in found.data
            ):
                continue  # another distribution's, or one that cannot tell
            line, what = found.problem
            name = prefix + path.relative_to(base).as_posix()
            out.append(
                Finding(
                    "project-file",
                    name,
                    line,
                    f"{what}: its entry points are not read",
                    _PROJECT_HINT,
                )
            )
    return tuple(out)


def _ini_reason(exc: configparser.Error, text: str) -> str:
    """What ``configparser`` found wrong in ``text``, said without the file's path."""
    if isinstance(exc, configparser.DuplicateOptionError):
        return f"option {exc.option} appears twice in [{exc.section}]"
    if isinstance(exc, configparser.DuplicateSectionError):
        return f"section [{exc.section}] appears twice"
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return "a line before the first [section] header"
    if isinstance(exc, configparser.ParsingError) and exc.errors:
        lines = text.splitlines()
        number = exc.errors[0][0]
        shown = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        return f"cannot parse {shown!r}"
    return str(exc).splitlines()[0].rstrip(".")


class ProjectFile(NamedTuple):
    """A project file read once (:func:`_read_project_file`), for both its entry points
    and its ``project-file`` finding."""

    #: Its bytes; ``None`` when it cannot be read.
    data: bytes | None
    #: What the entry points are read from: the TOML document of a ``pyproject.toml``, the
    #: ``ConfigParser`` of a ``setup.cfg``, the module of a ``setup.py``, the text of an
    #: ``entry_points.txt``; ``None`` when it cannot be parsed.
    parsed: Any
    #: ``(line, what is wrong)`` when it cannot be read as its kind, else ``None``.
    problem: tuple[int | None, str] | None


def _read_project_file(path: Path) -> ProjectFile | None:
    """The project file ``path`` read and parsed as its kind (by its name); ``None`` when
    there is no such file."""
    if not path.is_file():
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        return ProjectFile(None, None, (None, f"cannot be read ({exc.strerror})"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        # Python reads a setup.py's bytes (a coding line may declare another encoding)
        module = _parsed_setup_py(path, data)[0] if path.name == "setup.py" else None
        return ProjectFile(data, module, (line, f"not UTF-8 (byte 0x{data[exc.start]:02x})"))
    parsed, problem = _parsed(path, data, text)
    if "\r" in text and path.name in ("pyproject.toml", "setup.cfg"):
        # the entry points are read as a text file reads, its line ends made "\n": a lone
        # "\r" ends a line there, where the check of the file calls it an error
        parsed = _parsed(path, data, text.replace("\r\n", "\n").replace("\r", "\n"))[0]
    return ProjectFile(data, parsed, problem)


def _parsed(path: Path, data: bytes, text: str) -> tuple[Any, tuple[int | None, str] | None]:
    """The project file ``path`` (its bytes and its text) parsed as its kind, and ``(line,
    what is wrong)`` when it cannot be (the parse is then ``None``)."""
    if path.name == "pyproject.toml":
        try:
            return tomllib.loads(text), None
        except tomllib.TOMLDecodeError as exc:
            # the message ends "(at line L, column C)" on every Python version
            at = re.search(r"\(at line (\d+), column \d+\)$", str(exc))
            reason = re.sub(r"\s*\(at line \d+, column \d+\)$", "", str(exc))
            return None, ((int(at.group(1)) if at else None), f"not valid TOML ({reason})")
    if path.name == "setup.cfg":
        parser = configparser.ConfigParser()
        try:
            parser.read_string(text, str(path))
        except configparser.Error as exc:
            line = getattr(exc, "lineno", None)
            errors = getattr(exc, "errors", None)
            if line is None and errors:
                line = errors[0][0]
            return None, (line, f"not a valid setup.cfg ({_ini_reason(exc, text)})")
        return parser, None
    if path.name == "setup.py":
        return _parsed_setup_py(path, data)
    return text, None


def _parsed_setup_py(path: Path, data: bytes) -> tuple[Any, tuple[int | None, str] | None]:
    """The module a ``setup.py`` (its bytes) holds, or ``None`` and what is wrong."""
    try:
        return parse_file(data, path), None
    except (SyntaxError, ValueError) as exc:
        return None, (
            getattr(exc, "lineno", None),
            f"not valid Python ({getattr(exc, 'msg', exc)})",
        )


def _parse_spec(group: str, line: str, source: str) -> EntryPoint | None:
    name, sep, value = line.partition("=")
    if not sep:
        return None
    return EntryPoint(group.strip(), name.strip(), value.split("[")[0].strip(), source)


def _from_pyproject(read: ProjectFile | None) -> list[EntryPoint]:
    document = read.parsed if read is not None else None
    project = document.get("project") if isinstance(document, dict) else None
    project = project if isinstance(project, dict) else {}
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


def _from_setup_cfg(read: ProjectFile | None) -> list[EntryPoint]:
    parser = read.parsed if read is not None else None
    if parser is None or not parser.has_section("options.entry_points"):
        return []
    out = []
    for group, text in parser.items("options.entry_points"):
        for line in text.splitlines():
            spec = _parse_spec(group, line, "setup.cfg") if line.strip() else None
            if spec:
                out.append(spec)
    return out


def _from_setup_py(read: ProjectFile | None) -> list[EntryPoint]:
    tree = read.parsed if read is not None else None
    if tree is None:
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


def _from_metadata(
    base: Path, paths: list[Path], suffix: str, read: Mapping[Path, ProjectFile | None]
) -> list[EntryPoint]:
    """The entry points of the ``entry_points.txt`` files of ``paths`` (project files of
    the folder ``base``) in a folder named ``*suffix`` (``.egg-info``, ``.dist-info``), in
    the INI-like format of the packaging specification's entry points file."""
    out = []
    for path in paths:
        found = read[path]
        if not path.parent.name.endswith(suffix) or found is None or found.parsed is None:
            continue  # not UTF-8: a project-file finding (project_file_problems)
        group = ""
        for line in found.parsed.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                group = line[1:-1]
            elif line and group:
                spec = _parse_spec(group, line, path.relative_to(base).as_posix())
                if spec:
                    out.append(spec)
    return out
