"""The configured pin against the project's own dependency files (lint PK601, PK602).

A downstream names the upstream release twice: in ``pin`` of its patchkeeper configuration and
in the dependency files that install it (``vllm==0.32.0`` in ``docker/requirements.txt``, a
``pyproject.toml`` dependency, a ``uv.lock`` entry). When one is raised and the other is not,
every command checks the series against a release the project does not install. This module
reads the files a dependency bot rewrites (:func:`patchkeeper.upstream.reqfiles.file_kind`)
where a project declares its dependencies, at the root and up to two folders below it (never
in ``.git``, a virtualenv, ``node_modules`` or a build folder), with the same reader the
pull-request audit uses, and reports each requirement of the upstream
that the pin does not satisfy: an exact version (``==X``, a lock entry) other than the pin, or
a range the pin is outside of. A requirements file's ``-r``/``-c`` lines are followed: the file
they name (inside the downstream, whatever its name and depth) is read as a requirements file
too, since pip installs what it says. It reads only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from patchkeeper.config import Config, table_name
from patchkeeper.constants import CACHE_ENV
from patchkeeper.errors import Finding
from patchkeeper.ledger.findings import display_path
from patchkeeper.system.regular import read_regular
from patchkeeper.upstream.reqfiles import (
    FileKind,
    RequirementFileError,
    file_kind,
    included_files,
    requirements_for,
)

#: How many folders deep below the downstream root dependency files are looked for: the root,
#: its folders (``docker/requirements.txt``, ``requirements/base.txt``) and theirs
#: (``deploy/gpu/requirements.txt``, ``docker/requirements/base.txt``). A project declares its
#: dependencies there; deeper is another project's, or a copy of one, and walking a big
#: checkout all the way down is slow.
DEPTH = 2

#: Folders whose files are not the project's dependency files: build output and the places
#: tools keep copies of other projects. A folder whose name starts with a dot (``.git``,
#: ``.venv``, ``.tox``, ``.patchkeeper``) is tool state and is left out too, as is every
#: ``*.egg-info``.
SKIP_DIRS = frozenset(
    {"__pycache__", "node_modules", "site-packages", "build", "dist", "htmlcov", "wheelhouse"}
)


def _project_dir(path: Path, skip: set[Path]) -> bool:
    """Whether the folder ``path`` may hold the project's dependency files: not tool state or
    build output (:data:`SKIP_DIRS`), not a directory the configuration names (``skip``),
    not another repository (its own ``.git``: an upstream checkout, a submodule) and not a
    Python environment (``pyvenv.cfg``, or conda's ``conda-meta``)."""
    name = path.name
    if name.startswith(".") or name in SKIP_DIRS or name.endswith(".egg-info"):
        return False
    if path.resolve() in skip or (path / ".git").exists():
        return False
    return not ((path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir())


def _known_dirs(config: Config) -> set[Path]:
    """The upstream checkouts, trees and work directories the configuration names (resolved):
    ``pristine`` when it is a directory, ``[git] checkout``, ``[port] work-dir``, each entry's
    ``checkout``, and the download cache; their dependency files are the upstream's or
    patchkeeper's, not the project's."""
    # [port] work-dir, default port.settings.WORK_DIR (a module of a higher layer)
    named: list[str] = [str(config.sections.get("port", {}).get("work-dir", ".patchkeeper-port"))]
    if config.pristine:
        named.append(config.pristine)
    checkout = config.sections.get("git", {}).get("checkout")
    if isinstance(checkout, str) and checkout:
        named.append(checkout)
    for table in ("foreign-diffs", "vendored"):
        for entry in config.sections.get("entries", {}).get(table, {}).values():
            value = entry.get("checkout") if isinstance(entry, dict) else None
            if isinstance(value, str) and value:
                named.append(value)
    dirs = {(config.root / os.path.expanduser(name)).resolve() for name in named}
    cache = os.environ.get(CACHE_ENV)  # fetch.cache_root's directory, without creating it
    dirs.add(Path(cache).expanduser() if cache else Path.home() / ".cache/patchkeeper-corpus")
    return {d.resolve() for d in dirs if d.is_dir()}


def dependency_files(config: Config) -> list[Path]:
    """The project's dependency files, sorted by path: every file whose name a dependency bot
    rewrites at the downstream root and in the folders up to :data:`DEPTH` below it, leaving
    out the folders :func:`_project_dir` refuses (tool state, build output, environments,
    other repositories, the directories the configuration names: :func:`_known_dirs`).
    Symbolic links to folders are not followed."""
    root = config.root.resolve()
    skip = _known_dirs(config)
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        here = Path(directory)
        if len(here.relative_to(root).parts) >= DEPTH:
            dirnames[:] = []
        else:
            dirnames[:] = [name for name in sorted(dirnames) if _project_dir(here / name, skip)]
        for name in sorted(filenames):
            path = here / name
            if file_kind(path.relative_to(root).as_posix()) is not None and path.is_file():
                found.append(path)
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


#: A TOML basic or literal string on one line: ``"vllm==0.32.0"``, ``'vllm>=0.30'``.
_TOML_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'')


def string_line(text: str, requirement: Requirement) -> int | None:
    """The 1-based line of the first one-line string of the TOML ``text`` that is
    ``requirement`` (compared parsed, so spacing does not matter), or ``None``: the line of a
    ``pyproject.toml`` dependency string, which the TOML reader does not give.

    >>> text = 'dependencies = [\\n  "vllm >= 0.30",\\n]\\n'
    >>> string_line(text, Requirement("vllm>=0.30")), string_line(text, Requirement("vllm"))
    (2, None)
    """
    wanted = str(requirement)
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _TOML_STRING.finditer(line):
            value = match[1] if match[1] is not None else match[2]
            try:
                if str(Requirement(value)) == wanted:
                    return number
            except InvalidRequirement:
                continue
    return None


def check_pin_files(config: Config) -> list[Finding]:
    """PK601 for each requirement of ``config.upstream`` in the downstream's dependency files
    (and the files their ``-r``/``-c`` lines read in, :func:`_included`) that ``config.pin``
    does not satisfy, PK602 for a dependency file that cannot be read, sorted by file and line;
    ``[]`` when the upstream or the pin is not configured (or the pin is no version)."""
    if not config.upstream or not config.pin:
        return []
    try:
        pin = Version(config.pin)
    except InvalidVersion:
        return []
    setting = table_name(config.source, "pin")
    out: list[Finding] = []
    root = config.root.resolve()
    queue: list[tuple[Path, FileKind | None]] = [(p, None) for p in dependency_files(config)]
    seen = {path for path, _ in queue}
    for path, kind in queue:  # grows as requirements files name others
        shown = display_path(path, config.root)
        try:
            text = read_regular(path).decode("utf-8")
            found = requirements_for(config.upstream, shown, text, kind)
        except UnicodeDecodeError as error:
            out.append(
                Finding("PK602", shown, None, f"not UTF-8 (byte {error.start})", "save it so")
            )
            continue
        except RequirementFileError as error:
            out.append(Finding("PK602", shown, error.line, error.message, error.hint or ""))
            continue
        except OSError as error:
            out.append(Finding("PK602", shown, None, f"cannot be read ({error.strerror})"))
            continue
        if (kind or file_kind(shown)) is FileKind.REQUIREMENTS:
            for included in _included(path, text, root):
                if included not in seen:
                    seen.add(included)
                    queue.append((included, FileKind.REQUIREMENTS))
        for item in found:
            specifier = item.requirement.specifier
            if specifier.contains(pin, prereleases=True):
                continue
            exact = [s.operator for s in specifier] in (["=="], ["==="])
            what = "pins" if exact else "requires"
            out.append(
                Finding(
                    "PK601",
                    shown,
                    item.line if item.line is not None else string_line(text, item.requirement),
                    f'{what} {item.pin}, but pin = "{config.pin}" in {setting}',
                    _pin_hint(specifier, pin, setting),
                )
            )
    return sorted(out, key=lambda f: (f.path, f.line or 0))  # the files read in, in place


def _pin_hint(specifier: SpecifierSet, pin: Version, setting: str) -> str:
    """What to change when ``pin`` is outside ``specifier``, in the direction that brings
    them together: a pin below every release the requirement allows is raised (or the
    requirement lowered); a pin above them (the pin an upgrade moved, a requirement left
    behind) is what the requirement is raised to; one the requirement excludes otherwise
    (``!=``) is changed.

    >>> _pin_hint(SpecifierSet(">=0.33"), Version("0.32.0"), "p.toml").split(",")[0]
    'raise pin in p.toml or lower the requirement'
    >>> _pin_hint(SpecifierSet("==0.31.0"), Version("0.32.0"), "p.toml").split(",")[0]
    'raise the requirement to 0.32.0 or lower pin in p.toml'
    >>> _pin_hint(SpecifierSet("~=0.31.1"), Version("0.32.0"), "p.toml").split(",")[0]
    'raise the requirement to 0.32.0 or lower pin in p.toml'
    >>> _pin_hint(SpecifierSet("!=0.32.0"), Version("0.32.0"), "p.toml").split(",")[0]
    'change pin in p.toml or the requirement'
    """
    both = "so that both name the release the project installs"
    below = above = False
    for spec in specifier:
        if spec.contains(pin, prereleases=True):
            continue
        operator, text = spec.operator, spec.version.removesuffix(".*")
        try:
            bound = Version(text)
        except InvalidVersion:
            continue
        if operator in (">", ">=") or (operator in ("==", "===", "~=") and bound > pin):
            below = True
        elif operator in ("<", "<=") or (operator in ("==", "===", "~=") and bound < pin):
            above = True
    if below and not above:
        return f"raise pin in {setting} or lower the requirement, {both}"
    if above and not below:
        return f"raise the requirement to {pin} or lower pin in {setting}, {both}"
    return f"change pin in {setting} or the requirement, {both}"


def _included(path: Path, text: str, root: Path) -> list[Path]:
    """The files the requirements file ``path`` (its ``text``) reads in with ``-r`` or ``-c``
    (:func:`patchkeeper.upstream.reqfiles.included_files`) that are files inside ``root`` (the
    resolved downstream root), resolved: a URL, a missing file and a file outside the
    downstream (another project's) are not read."""
    out = []
    for _line, name in included_files(text):
        if "://" in name:
            continue
        included = (path.parent / os.path.expanduser(name)).resolve()
        if included.is_file() and included.is_relative_to(root):
            out.append(included)
    return out
