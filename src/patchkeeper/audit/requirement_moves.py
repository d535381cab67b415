"""A requirement a patch changes in a packaging file the new release no longer has
(``setup.py`` replaced by ``pyproject.toml``) is judged on what the new release's packaging
metadata admits, not on line text.

A hunk is such a change when every line it adds or removes is a requirement (PEP 508, read
with :mod:`packaging.requirements` once quotes and a trailing comma are removed, as
``setup.py``, ``setup.cfg`` and ``requirements*.txt`` write them) and each project it adds
a line for it also removes one for: the patch moves that project's specifier from *old* to
*new*. The new release meets it when its metadata requires the project with a specifier that
admits every version the patch newly admits and none the patch newly excludes: a floor
raised (``unidecode`` -> ``unidecode>=1.3.6``) is met by upstream requiring ``>=1.3.6`` or
more; a cap relaxed (``<0.9.0`` -> ``<1.1.0``) by upstream admitting up to 1.1.0 or beyond.
Versions are compared on the specifiers' own boundaries (each boundary, just below and just
above it, pre-releases included), where two specifier sets can differ.

The new release's requirements are read from its top-level ``pyproject.toml`` (PEP 621
``project.dependencies``; Poetry's ``tool.poetry.dependencies``, ``^`` and ``~`` as Poetry
defines them), ``setup.cfg`` (``options.install_requires``) and ``requirements.txt``.

A project the new release no longer requires at all meets any change of its specifier: the
patch moved a bound of a dependency upstream dropped (:func:`no_longer_required`). That is
said only when the metadata lists its requirements (not ``dynamic``) and none of the
packaging files names the project in any spelling: a name still in a requirements file
the metadata is not read from may be required from there.
"""

from __future__ import annotations

import configparser
import re
import sys
from collections.abc import Iterable, Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from patchkeeper.series.model import ADDED, REMOVED, Hunk
from patchkeeper.upstream.treesearch import TreeSearch

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: The new release's files read for its requirements, in this order.
METADATA_FILES = ("pyproject.toml", "setup.cfg", "requirements.txt")


def requirement(line: bytes | str) -> Requirement | None:
    """The requirement one line of a packaging file states, or ``None`` (a comment, code,
    anything PEP 508 does not read).

    >>> str(requirement(b"        'unidecode>=1.3.6',"))
    'unidecode>=1.3.6'
    >>> requirement(b"install_requires=[") is None
    True
    """
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.split(" #", 1)[0].strip().rstrip(",").strip().strip("\"'")
    if not text or text.startswith(("#", "[", "-")):
        return None
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def specifier_changes(hunks: Sequence[Hunk]) -> dict[str, tuple[SpecifierSet, SpecifierSet]]:
    """``{project: (old specifier, new specifier)}`` of hunks whose every changed non-blank
    line is a requirement, each project both removed and added; ``{}`` when any changed
    line is something else, or no project's specifier changes."""
    removed: dict[str, SpecifierSet] = {}
    added: dict[str, SpecifierSet] = {}
    for hunk in hunks:
        for line in hunk.lines:
            if line.kind not in (ADDED, REMOVED) or not line.text.strip():
                continue
            found = requirement(line.text)
            if found is None:
                return {}
            side = added if line.kind == ADDED else removed
            side[canonicalize_name(found.name)] = found.specifier
    if not added or set(added) != set(removed):
        return {}
    return {name: (removed[name], added[name]) for name in added if removed[name] != added[name]}


def _probes(specifiers: Iterable[SpecifierSet]) -> list[Version]:
    """Versions where the given specifier sets can differ: each boundary version, one just
    below (``.dev0``) and one just above (``.post1``) it, and the extremes."""
    out = {Version("0.dev0"), Version("99999")}
    for specifier in specifiers:
        for spec in specifier:
            try:
                version = Version(spec.version.replace(".*", ""))
            except InvalidVersion:
                continue
            base = version.base_version
            out |= {version, Version(f"{base}.dev0"), Version(f"{base}.post1")}
    return sorted(out)


def meets(old: SpecifierSet, new: SpecifierSet, theirs: SpecifierSet) -> bool:
    """Whether ``theirs`` admits every version ``new`` admits and ``old`` does not, and none
    that ``old`` admits and ``new`` does not (see the module's docstring).

    >>> meets(SpecifierSet(""), SpecifierSet(">=1.3.6"), SpecifierSet(">=1.3.6"))
    True
    >>> meets(SpecifierSet(""), SpecifierSet(">=1.3.6"), SpecifierSet(">=1.3"))
    False
    >>> relaxed = SpecifierSet("<1.1,>=0.5.3")
    >>> meets(SpecifierSet("<0.9,>=0.5.3"), relaxed, SpecifierSet("<2,>=0.5.3"))
    True
    """
    for version in _probes((old, new, theirs)):
        was, wants, has = (s.contains(version, prereleases=True) for s in (old, new, theirs))
        if wants and not was and not has:
            return False
        if was and not wants and has:
            return False
    return True


def _poetry_specifier(value: object) -> SpecifierSet | None:
    """A Poetry dependency's version as PEP 440 (``^1.2.3`` as ``>=1.2.3,<2.0.0``, ``~1.2``
    as ``>=1.2,<1.3``, ``*`` as any), or ``None`` when it cannot be read."""
    if isinstance(value, dict):
        value = value.get("version", "*")
    if not isinstance(value, str):
        return None
    parts = []
    for item in value.split(","):
        item = item.strip()
        if item in ("", "*"):
            continue
        if item[0] in "^~" and item[1:2] != "=":
            try:
                release = list(Version(item[1:]).release)
            except InvalidVersion:
                return None
            if item[0] == "^":
                first = next((i for i, n in enumerate(release) if n), len(release) - 1)
            else:
                first = min(1, len(release) - 1) if len(item[1:].split(".")) > 1 else 0
            upper = release[: first + 1]
            upper[-1] += 1
            parts += [f">={item[1:]}", "<" + ".".join(map(str, upper))]
        else:
            parts.append(item if item[0] in "<>=!~" else f"=={item}")
    try:
        return SpecifierSet(",".join(parts))
    except InvalidSpecifier:
        return None


def metadata_requirements(search: TreeSearch) -> dict[str, tuple[SpecifierSet, str]]:
    """``{project: (specifier, file)}``: what the tree's top-level packaging metadata
    requires (:data:`METADATA_FILES`; the first file naming a project wins)."""
    found: dict[str, tuple[SpecifierSet, str]] = {}

    def add(name: str, specifier: SpecifierSet | None, path: str) -> None:
        if specifier is not None:
            found.setdefault(canonicalize_name(name), (specifier, path))

    text = search.read("pyproject.toml").decode("utf-8", "replace")
    if text:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            data = {}
        for line in data.get("project", {}).get("dependencies", []) or []:
            if (req := requirement(str(line))) is not None:
                add(req.name, req.specifier, "pyproject.toml")
        poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {}) or {}
        for name, value in poetry.items():
            if name.lower() != "python":
                add(name, _poetry_specifier(value), "pyproject.toml")
    text = search.read("setup.cfg").decode("utf-8", "replace")
    if text:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
            lines = parser.get("options", "install_requires", fallback="").splitlines()
        except configparser.Error:
            lines = []
        for line in lines:
            if (req := requirement(line)) is not None:
                add(req.name, req.specifier, "setup.cfg")
    for line in search.read("requirements.txt").splitlines():
        if (req := requirement(line)) is not None:
            add(req.name, req.specifier, "requirements.txt")
    return found


#: Files whose text may name a requirement the metadata is not read from: setup scripts,
#: requirements files (``requirements-docs.txt``, ``requirements/base.txt``), pip-tools input.
_PACKAGING_TEXT = re.compile(
    r"(?:^|/)(?:setup\.py|setup\.cfg|pyproject\.toml|[^/]*requirements[^/]*\.(?:txt|in))$"
    r"|(?:^|/)requirements/[^/]+\.(?:txt|in)$"
)

#: How deep below the tree's top a packaging file is read (``requirements/base.txt``: 1).
_PACKAGING_DEPTH = 1


def _names_project(text: str, name: str) -> bool:
    """Whether ``text`` names the project ``name`` (canonical) in any spelling
    (``PyYAML``, ``py_yaml`` for ``pyyaml``, ``py-yaml``), as a whole name."""
    spelled = re.sub(r"[-_.]+", "-", text.lower())
    return re.search(rf"(?<![a-z0-9-]){re.escape(name)}(?![a-z0-9-])", spelled) is not None


def no_longer_required(
    name: str, search: TreeSearch, theirs: dict[str, tuple[SpecifierSet, str]]
) -> str | None:
    """The metadata file that shows the new release requires no version of ``name`` (a
    canonical project name), or ``None``: ``theirs`` (:func:`metadata_requirements`) lists
    requirements and not ``name``, ``pyproject.toml`` does not declare its dependencies
    ``dynamic``, and no packaging file of the tree's top or one folder below
    (:data:`_PACKAGING_TEXT`) names the project."""
    if not theirs or name in theirs:
        return None
    text = search.read("pyproject.toml").decode("utf-8", "replace")
    if text:
        try:
            project = tomllib.loads(text).get("project", {})
        except tomllib.TOMLDecodeError:
            return None
        if "dependencies" in (project.get("dynamic") or []):
            return None
    for path in search.files():
        if path.count("/") > _PACKAGING_DEPTH or not _PACKAGING_TEXT.search(path):
            continue
        if _names_project(search.read(path).decode("utf-8", "replace"), name):
            return None
    paths = sorted({path for _spec, path in theirs.values()})
    return paths[0] if len(paths) == 1 else ", ".join(paths)


def requirements_met(hunks: Sequence[Hunk], search: TreeSearch) -> str | None:
    """The evidence that the new release's packaging metadata meets every requirement
    change of ``hunks`` (:func:`specifier_changes`, :func:`meets`), or no longer requires
    the project at all (:func:`no_longer_required`), else ``None``."""
    changes = specifier_changes(hunks)
    if not changes:
        return None
    theirs = metadata_requirements(search)
    parts = []
    for name, (old, new) in sorted(changes.items()):
        if name not in theirs:
            where = no_longer_required(name, search, theirs)
            if where is None:
                return None
            count = len(theirs)
            parts.append(
                f"it no longer requires {name} (its {where} requires {count} "
                f"project{'s' if count != 1 else ''}, none of them {name}; the patch: {name}{new})"
            )
            continue
        if not meets(old, new, theirs[name][0]):
            return None
        specifier, path = theirs[name]
        parts.append(f"its {path} requires {name}{specifier or ''} (the patch: {name}{new})")
    return "the new release meets its requirement: " + "; ".join(parts)
