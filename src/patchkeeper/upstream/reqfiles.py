"""The requirements a project's dependency files set for one project, read as their tools read
them: what a dependency bot (Dependabot, Renovate) rewrites when it raises the upstream's pin.

The files, by name (:func:`file_kind`), anywhere in a repository:

- ``requirements*.txt`` and ``requirements/*.txt``: pip's requirements files. A requirement
  line may be continued with a trailing ``\\``; a ``#`` at the start or after whitespace starts
  a comment; a line starting with ``-`` is an option (``-r``, ``--index-url``) and holds no
  requirement; a requirement's own options (``--hash=...``) follow it (pip's "Requirements
  File Format"). What is left is a PEP 508 requirement, parsed by ``packaging``.
- ``pyproject.toml``: PEP 621 ``[project] dependencies`` and ``optional-dependencies``, PEP
  735 ``[dependency-groups]`` (strings; an ``include-group`` table names no project), and
  Poetry's ``[tool.poetry.dependencies]``, ``dev-dependencies`` and
  ``[tool.poetry.group.NAME.dependencies]`` (:func:`poetry_specifier`).
- ``setup.cfg``: setuptools' ``[options] install_requires`` and ``[options.extras_require]``.
- ``uv.lock`` and ``poetry.lock``: each ``[[package]]`` table's ``name`` and ``version``,
  read as ``NAME==VERSION`` (both lock formats are TOML with that shape).

A byte order mark at the start of a file ("UTF-8 with BOM") is dropped from a requirements
file, as pip does, and refused in the others, as their parsers do (naming it).

Every requirement is returned as a :class:`FoundRequirement` with the file and, where the text
shows it, the 1-based line. A file that cannot be parsed raises :class:`RequirementFileError`
naming the file and the line.
"""

from __future__ import annotations

import configparser
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePosixPath
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from patchkeeper.config import BOM, BOM_HINT, BOM_WORDS, set_twice
from patchkeeper.errors import PatchkeeperError

if sys.version_info >= (3, 11):
    import tomllib
else:  # a declared dependency there
    import tomli as tomllib


class RequirementFileError(PatchkeeperError):
    """A dependency file that cannot be read as its tool reads it (a TOML or INI syntax error,
    a requirement that is not PEP 508, a Poetry constraint with no PEP 440 equivalent)."""


class FileKind(Enum):
    """The kinds of dependency file :func:`requirements_for` reads."""

    REQUIREMENTS = "requirements"  # requirements.txt, requirements-dev.txt, requirements/x.txt
    PYPROJECT = "pyproject"  # pyproject.toml: PEP 621, PEP 735, Poetry
    SETUP_CFG = "setup.cfg"  # setup.cfg: install_requires, extras_require
    LOCK = "lock"  # uv.lock, poetry.lock: [[package]] name, version


#: File names read as one kind wherever they are (the last path component).
NAMED_KINDS = {
    "pyproject.toml": FileKind.PYPROJECT,
    "setup.cfg": FileKind.SETUP_CFG,
    "uv.lock": FileKind.LOCK,
    "poetry.lock": FileKind.LOCK,
}


def file_kind(path: str) -> FileKind | None:
    """The kind of dependency file ``path`` (``/``-separated, relative to the repository) is,
    or ``None``. The names are the ones a dependency bot rewrites, in any folder: the same set
    as the workflow's ``paths:`` filter in docs/ci.md.

    >>> [file_kind(p) for p in ("requirements.txt", "deploy/requirements-gpu.txt")]
    [<FileKind.REQUIREMENTS: 'requirements'>, <FileKind.REQUIREMENTS: 'requirements'>]
    >>> file_kind("requirements/base.txt"), file_kind("a/b/uv.lock"), file_kind("docs/x.txt")
    (<FileKind.REQUIREMENTS: 'requirements'>, <FileKind.LOCK: 'lock'>, None)
    """
    parts = PurePosixPath(path).parts
    if not parts:
        return None
    name = parts[-1]
    if name in NAMED_KINDS:
        return NAMED_KINDS[name]
    in_requirements_dir = len(parts) > 1 and parts[-2] == "requirements"
    if name.endswith(".txt") and (name.startswith("requirements") or in_requirements_dir):
        return FileKind.REQUIREMENTS
    return None


@dataclass(frozen=True)
class FoundRequirement:
    """One requirement for the project asked about, where a dependency file sets it.

    Attributes:
        requirement: the parsed PEP 508 requirement (a lock file's entry as ``NAME==VERSION``).
        path: the file, as the caller named it (relative to the repository).
        line: the 1-based line it starts on, or ``None`` where the file's parser gives none
            (a PEP 621 string of a TOML file, found by its table, not its line; a Poetry
            entry has the line of the key that sets it).
    """

    requirement: Requirement
    path: str
    line: int | None

    @property
    def pin(self) -> str:
        """The requirement as patchkeeper takes it (``audit --to``): the name and the version
        specifier, without extras and markers, which do not change the upstream's code.

        >>> FoundRequirement(Requirement('vllm[audio]==0.32.0; python_version>"3"'), "r", 1).pin
        'vllm==0.32.0'
        """
        return f"{self.requirement.name}{self.requirement.specifier}"

    @property
    def where(self) -> str:
        """``path:line``, or ``path`` when the line is not known."""
        return self.path if self.line is None else f"{self.path}:{self.line}"


def requirements_for(
    name: str, path: str, text: str, kind: FileKind | None = None
) -> list[FoundRequirement]:
    """The requirements the dependency file ``path`` (whose content is ``text``) sets for the
    project ``name`` (PEP 503 names compared), in file order; ``[]`` for a file of no known
    kind. ``kind`` reads the file as that kind whatever its name (a file another requirements
    file reads in with ``-r``: :func:`included_files`); by default :func:`file_kind`.

    Raises:
        RequirementFileError: the file cannot be parsed (names the file and, where known, the
            line).
    """
    kind = kind or file_kind(path)
    if kind is None:
        return []
    if text.startswith(BOM) and kind is not FileKind.REQUIREMENTS:
        # pip reads a requirements file's byte order mark as the encoding mark it is
        # (:func:`_logical_lines` drops it); tomllib and configparser take it for the first
        # character of the first line, and their message would name nothing one can see.
        words = (
            "not valid INI: the file starts with a byte order mark (U+FEFF), which setuptools"
            " does not read"
            if kind is FileKind.SETUP_CFG
            else f"not valid TOML: {BOM_WORDS}"
        )
        raise RequirementFileError(words, path=path, line=1, hint=BOM_HINT)
    wanted = canonicalize_name(name)
    if kind is FileKind.REQUIREMENTS:
        found = list(_requirements_txt(path, text))
    elif kind is FileKind.PYPROJECT:
        found = list(_pyproject(path, text))
    elif kind is FileKind.SETUP_CFG:
        found = list(_setup_cfg(path, text))
    else:
        found = list(_lock(path, text))
    return [f for f in found if canonicalize_name(f.requirement.name) == wanted]


# ------------------------------------------------------------------ requirements files

#: A comment: ``#`` at the start of a line or after whitespace (pip's ``COMMENT_RE``).
_COMMENT = re.compile(r"(^|\s+)#.*$")
#: Where a requirement's own options begin: `` --hash=sha256:...`` (pip's per-requirement
#: options all start with ``--``).
_OPTIONS = re.compile(r"\s--[a-z]")


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines of a requirements file with comments removed and ``\\`` continuations
    joined, each with the 1-based number of its first physical line."""
    start = 0
    parts: list[str] = []
    # A byte order mark (an editor's "UTF-8 with BOM") is no part of the first line: pip
    # decodes a requirements file by its BOM and drops it.
    for number, raw in enumerate(text.removeprefix(BOM).splitlines(), start=1):
        line = _COMMENT.sub("", raw)
        if not parts:
            start = number
        if line.endswith("\\"):
            parts.append(line[:-1])
            continue
        parts.append(line)
        yield start, " ".join(parts).strip()
        parts = []
    if parts:
        yield start, " ".join(parts).strip()


#: A line of a requirements file that reads another file in, its path as written:
#: ``-r base.txt``, ``-rbase.txt``, ``--requirement=base.txt``, ``-c constraints.txt``,
#: ``--constraint constraints.txt`` (pip's "Requirements File Format").
_INCLUDE = re.compile(
    r"(?:--requirement|--constraint)(?:\s*=\s*|\s+)(?P<long>\S+)|-[rc]\s*(?P<short>\S+)"
)


def included_files(text: str) -> list[tuple[int, str]]:
    """The files the requirements file ``text`` reads in (``-r``, ``--requirement``, and the
    constraints files of ``-c``, ``--constraint``, whose pins bind the install as well), in
    file order: ``(1-based line, the path as written)``. A path is relative to the folder of
    the file that names it; a URL is returned as written too.

    >>> included_files("-r base.txt\\nvllm\\n--constraint=pins.txt  # the image's\\n-rdev.txt\\n")
    [(1, 'base.txt'), (3, 'pins.txt'), (4, 'dev.txt')]
    """
    out = []
    for number, line in _logical_lines(text):
        matched = _INCLUDE.fullmatch(line)
        if matched is not None:
            out.append((number, matched["long"] or matched["short"]))
    return out


def _requirements_txt(path: str, text: str) -> Iterator[FoundRequirement]:
    for number, line in _logical_lines(text):
        if not line or line.startswith("-"):
            continue  # an option line: -r, -c, -e, --index-url, ...
        requirement_text = _OPTIONS.split(" " + line, maxsplit=1)[0].strip()
        try:
            requirement = Requirement(requirement_text)
        except InvalidRequirement:
            if "/" in requirement_text or requirement_text.startswith("."):
                continue  # a path or URL to install, which names no project
            raise RequirementFileError(
                f"not a requirement (PEP 508): {requirement_text!r}",
                path=path,
                line=number,
                hint="fix the line, or put it in a file of another name",
            ) from None
        yield FoundRequirement(requirement, path, number)


# ------------------------------------------------------------------------------- TOML


def _toml(path: str, text: str) -> dict[str, Any]:
    """``text`` parsed as TOML.

    Raises:
        RequirementFileError: a syntax error, with the line tomllib reports (the last line
            when the file ends inside a value: tomllib then names none).
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"\(at line (\d+)", str(error))
        line = int(match[1]) if match else max(1, len(text.splitlines()))
        twice = set_twice(re.sub(r"\s*\(at line \d+, column \d+\)$", "", str(error)), text, line)
        raise RequirementFileError(
            f"not valid TOML: {twice[0] if twice else error}",
            path=path,
            line=line,
            hint=twice[1] if twice else "fix the file's syntax",
        ) from None


def _parsed(path: str, text: str, where: str) -> Requirement:
    """``text`` as a PEP 508 requirement.

    Raises:
        RequirementFileError: it is not one (names the file and the table it is in).
    """
    try:
        return Requirement(text)
    except InvalidRequirement as error:
        raise RequirementFileError(
            f"{where}: not a requirement (PEP 508): {text!r} ({error})",
            path=path,
            hint="fix the entry",
        ) from None


def _strings(value: Any) -> Iterator[str]:
    """The strings of a TOML array (other entries, such as PEP 735's ``include-group``
    tables, name no project)."""
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, str))


def _table(data: Any, *keys: str) -> dict[str, Any]:
    """The table at ``keys`` under ``data``, or ``{}`` where a key is missing or not a table
    (a file its own tool would refuse holds nothing to read here)."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _pyproject(path: str, text: str) -> Iterator[FoundRequirement]:
    data = _toml(path, text)
    project = _table(data, "project")
    tables: list[tuple[str, Any]] = [("[project] dependencies", project.get("dependencies"))]
    for extra, value in sorted(_table(project, "optional-dependencies").items()):
        tables.append((f"[project.optional-dependencies] {extra}", value))
    for group, value in sorted(_table(data, "dependency-groups").items()):
        tables.append((f"[dependency-groups] {group}", value))
    for where, value in tables:
        for item in _strings(value):
            yield FoundRequirement(_parsed(path, item, where), path, None)
    poetry = _table(data, "tool", "poetry")
    poetry_tables = [
        ("[tool.poetry.dependencies]", _table(poetry, "dependencies")),
        ("[tool.poetry.dev-dependencies]", _table(poetry, "dev-dependencies")),
    ]
    for group in sorted(_table(poetry, "group")):
        where = f"[tool.poetry.group.{group}.dependencies]"
        poetry_tables.append((where, _table(poetry, "group", group, "dependencies")))
    for where, table in poetry_tables:
        for name, value in table.items():
            if canonicalize_name(name) == "python":
                continue  # the interpreter's range, not a project
            line = _key_line(text, where, name)
            for requirement in _poetry_requirements(path, where, name, value):
                yield FoundRequirement(requirement, path, line)


def _key_line(text: str, header: str, key: str) -> int | None:
    """The 1-based line of the TOML ``text`` where the table ``header`` (``[tool.poetry.
    dependencies]``, as written) sets ``key`` (``urllib3 = "^1.26"``, a quoted key, or a dotted
    one: ``urllib3.version = ...``), names compared as PEP 503 normalises them; ``None`` when
    the table is not written so (an inline table, a key in a sub-table).

    >>> text = '[tool.poetry.dependencies]\\npython = "^3.9"\\n"Foo_Bar" = "^1.2"\\n'
    >>> _key_line(text, "[tool.poetry.dependencies]", "foo-bar")
    3
    """
    wanted = canonicalize_name(key)
    inside = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("["):
            inside = _COMMENT.sub("", line).strip().replace(" ", "") == header.replace(" ", "")
            continue
        if not inside or "=" not in line:
            continue
        name = line.split("=", 1)[0].strip().split(".", 1)[0].strip().strip("\"'")
        if canonicalize_name(name) == wanted:
            return number
    return None


def _poetry_requirements(path: str, where: str, name: str, value: Any) -> Iterator[Requirement]:
    """The PEP 508 requirements one Poetry dependency entry stands for: a constraint string
    (``"1.26.20"``, ``"^1.26"``), a table (``{version = "...", extras = [...], markers =
    "..."}``) or a list of tables (one per marker). An entry from git, a path or a URL without
    a ``version`` names no release and is left out."""
    entries = value if isinstance(value, list) else [value]
    for entry in entries:
        table = {"version": entry} if isinstance(entry, str) else entry
        if not isinstance(table, dict) or "version" not in table:
            continue
        try:
            specifier = poetry_specifier(str(table["version"]))
        except ValueError as error:
            raise RequirementFileError(
                f"{where} {name}: {error}",
                path=path,
                hint="write the constraint as PEP 440 specifiers (>=1.2,<2)",
            ) from None
        extras = table.get("extras") or []
        text = name + (f"[{','.join(extras)}]" if extras else "") + specifier
        if table.get("markers"):
            text += f"; {table['markers']}"
        yield _parsed(path, text, f"{where} {name}")


def poetry_specifier(constraint: str) -> str:
    """A Poetry version constraint as PEP 440 specifiers, by Poetry's documented rules
    ("Dependency specification"): a bare version is exact, ``^`` allows changes that keep the
    leftmost non-zero part, ``~`` allows patch-level changes (minor when only a major is
    given), ``*`` is any version, ``1.2.*`` a wildcard; comparisons (``>=1.2,<2``, comma- or
    space-separated) are PEP 440 already.

    >>> [poetry_specifier(c) for c in ("1.26.20", "^1.2.3", "^0.2.3", "^0.0.3", "~1.2.3", "~1")]
    ['==1.26.20', '<2.0.0,>=1.2.3', '<0.3.0,>=0.2.3', '<0.0.4,>=0.0.3', '<1.3.0,>=1.2.3', '<2,>=1']
    >>> [poetry_specifier(c) for c in ("*", "1.2.*", ">= 1.2, < 1.5", ">=1.2 <1.5")]
    ['', '==1.2.*', '<1.5,>=1.2', '<1.5,>=1.2']

    Raises:
        ValueError: ``||`` (a union of ranges, which no specifier set expresses) or text that
            is not a version or a PEP 440 specifier.
    """
    text = constraint.strip()
    if "||" in text or "|" in text:
        raise ValueError(f"the union {constraint!r} has no PEP 440 equivalent")
    if text in ("", "*"):
        return ""
    parts = [part for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", text) if part]
    specifiers: list[str] = []
    for part in parts:
        specifiers.extend(_poetry_part(part, constraint))
    try:
        return str(SpecifierSet(",".join(specifiers)))
    except InvalidSpecifier:
        raise ValueError(f"the constraint {constraint!r} is not a version range") from None


def _poetry_part(part: str, constraint: str) -> list[str]:
    """One comma-separated part of a Poetry constraint as PEP 440 specifiers."""
    operator = part[0] if part[0] in "^~" and not part.startswith("~=") else ""
    bare = part[len(operator) :].strip()
    if not operator and bare[:1] in "<>=!~":
        return [part.replace(" ", "")]  # already a PEP 440 comparison
    if not operator:
        return [f"=={bare}"]
    try:
        release = Version(bare).release
    except InvalidVersion:
        raise ValueError(f"the constraint {constraint!r} is not a version range") from None
    given = len(bare.split("."))
    if operator == "^":
        # The upper bound bumps the leftmost non-zero part of the given ones (^0.0 -> <0.1).
        index = next((i for i, n in enumerate(release[:given]) if n), given - 1)
    else:  # ~: the minor part, or the major one when only a major is given
        index = 0 if given == 1 else 1
    upper = [*release[:index], release[index] + 1] + [0] * (given - index - 1)
    return [f">={bare}", f"<{'.'.join(map(str, upper))}"]


# ---------------------------------------------------------------------------- setup.cfg


def _setup_cfg(path: str, text: str) -> Iterator[FoundRequirement]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=path)
    except configparser.Error as error:
        line = getattr(error, "lineno", None)
        raise RequirementFileError(
            f"not valid INI: {error.message}", path=path, line=line, hint="fix the file's syntax"
        ) from None
    values: list[tuple[str, str]] = []
    if parser.has_option("options", "install_requires"):
        values.append(("[options] install_requires", parser.get("options", "install_requires")))
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            values.append((f"[options.extras_require] {extra}", value))
    for where, value in values:
        for item in _cfg_list(value):
            yield FoundRequirement(_parsed(path, item, where), path, _line_of(text, item))


def _cfg_list(value: str) -> Iterable[str]:
    """setuptools' list value: one item a line (or ``;``-free commas), comments dropped."""
    items: list[str] = []
    for line in value.splitlines():
        line = _COMMENT.sub("", line).strip()
        if line:
            items.append(line)
    return items


def _line_of(text: str, item: str) -> int | None:
    """The 1-based line of the first line of ``text`` that holds ``item``, if any."""
    for number, line in enumerate(text.splitlines(), start=1):
        if item in line:
            return number
    return None


# -------------------------------------------------------------------------- lock files


def _lock(path: str, text: str) -> Iterator[FoundRequirement]:
    packages = _toml(path, text).get("package")
    for entry in packages if isinstance(packages, list) else []:
        if not isinstance(entry, dict):
            continue
        name, version = entry.get("name"), entry.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            continue  # a workspace member or a source without a version
        requirement = _parsed(path, f"{name}=={version}", "[[package]]")
        yield FoundRequirement(requirement, path, _lock_line(text, name, version))


def _lock_line(text: str, name: str, version: str) -> int | None:
    """The 1-based line of ``version = "VERSION"`` in the ``[[package]]`` table whose
    ``name`` is ``NAME`` (both lock formats write one key a line), if found."""
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = False
        elif stripped == f'name = "{name}"':
            inside = True
        elif inside and stripped == f'version = "{version}"':
            return number
    return None
