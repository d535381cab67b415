"""The upstream project and pin of a new downstream, from ``--upstream`` or the tree's metadata.

Where each form finds them (the first that answers wins):

- ``--upstream NAME==VERSION`` on the command line, always first.
- Debian: the version is the upstream part of the newest ``debian/changelog`` entry (no
  epoch ``N:``, no Debian revision ``-R``, no repack suffix ``+dfsg``/``+ds``/``+repack``,
  ``~`` dropped as PEP 440 spells a pre-release: ``1:2.0.0~rc1+dfsg-3`` is ``2.0.0rc1``).
  The project is the name the unpacked upstream source declares (``PKG-INFO``, or the static
  ``[project]`` name of ``pyproject.toml``), else the project a ``debian/watch`` line names on
  a Python package index, else the source name under the Debian Python Policy's naming
  (source ``python-NAME`` builds ``python3-NAME`` from the project ``NAME``), else the source
  name itself when ``debian/control`` builds ``python3-SOURCE``. A name from the source name
  is a guess: the reason names the repository ``Homepage`` or ``debian/upstream/metadata``
  gives when its name differs.
- quilt and git format-patch directories: ``PKG-INFO`` (an unpacked sdist), else the static
  ``[project]`` name and version of ``pyproject.toml``.
- a git branch: the project as above, in the checkout; the version is the tag (``v0.27.1`` is
  ``0.27.1``).

A version must be one PEP 440 reads (``packaging.version.Version``). When the name or the
version cannot be told, :func:`find_pin` fails and asks for ``--upstream``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from patchkeeper.config import CONFIG_FILE
from patchkeeper.errors import PatchkeeperError
from patchkeeper.start.forms import DEBIAN, GIT, RPM, Found
from patchkeeper.system.debian_versions import debian_upstream_version
from patchkeeper.system.regular import read_regular
from patchkeeper.trees.target_label import declared_metadata

#: The form a ``--upstream`` value takes.
OPTION_HINT = (
    "pass --upstream NAME==VERSION (the upstream project and the version the series is cut "
    "against, e.g. --upstream urllib3==2.0.7)"
)
#: A Debian changelog entry's first line: ``source (version) distributions; urgency=...``.
CHANGELOG_HEAD = re.compile(r"^([a-z0-9][a-z0-9.+-]+) \(([^()\s]+)\)")
#: A ``debian/watch`` URL on a Python package index: ``//pypi.HOST/NAME/...`` (also after
#: ``simple/`` or ``project/``), or the ``/packages/source/L/NAME/`` path of an index's files,
#: also on a ``pypi.`` host (the older watch files' ``//pypi.HOST/packages/source/i/NAME/``,
#: whose first path part is no project).
WATCH_PROJECT = re.compile(
    r"//pypi\.[^/\s]+/(?!packages/)(?:simple/|project/)?([A-Za-z0-9][A-Za-z0-9._-]*)/"
    r"|/packages/source/./([A-Za-z0-9][A-Za-z0-9._-]*)/"
)


@dataclass(frozen=True)
class Pin:
    """The upstream project and the version the series is cut against.

    Attributes:
        upstream: the distribution name (``"urllib3"``).
        pin: the version (``"2.0.7"``).
        reason: where both were read, in a sentence.
    """

    upstream: str
    pin: str
    reason: str


def from_option(value: str) -> Pin:
    """``--upstream NAME==VERSION`` as a :class:`Pin`.

    >>> from_option("urllib3==2.0.7")
    Pin(upstream='urllib3', pin='2.0.7', reason='from --upstream urllib3==2.0.7')

    Raises:
        PatchkeeperError: not a requirement with exactly one ``==`` version (exit 2).
    """
    try:
        requirement = Requirement(value)
        (specifier,) = requirement.specifier
    except (InvalidRequirement, ValueError):
        specifier = None
    if specifier is None or specifier.operator != "==" or "*" in specifier.version:
        raise PatchkeeperError(
            f"--upstream {value!r} is not NAME==VERSION",
            hint="give the project and its exact version, e.g. --upstream urllib3==2.0.7",
        )
    _check_version(specifier.version, f"--upstream {value}")
    return Pin(requirement.name, specifier.version, f"from --upstream {value}")


def find_pin(root: Path, found: Found) -> Pin:
    """The project and pin of the downstream in ``root`` whose series is ``found``.

    Raises:
        PatchkeeperError: they cannot be told: the message says what was read, the hint asks
            for ``--upstream`` (exit 2).
    """
    if found.form == DEBIAN:
        # the package the series belongs to: its debian/ holds the series (QUILT_PATCHES or
        # --patches may name another package's), its changelog, control and watch files
        return _debian(found.series.parent.parent.parent)
    if found.form == RPM and found.source is not None and found.spec is not None:
        spec = found.spec
        if spec.name is not None and spec.version is not None:
            _check_version(spec.version, f"Version in {found.source.name}", hint=OPTION_HINT)
            why = f"from {found.source.name}"
            return Pin(spec.name, spec.version, why)
    name, version = declared_metadata(root)
    source = "PKG-INFO" if (root / "PKG-INFO").is_file() else "pyproject.toml"
    if found.form == GIT and found.tag is not None:
        tag_version = found.tag.removeprefix("v")
        if name is None:
            _cannot(root, f"the tag {found.tag} gives the version, but {source} names no project")
        _check_version(tag_version, f"the tag {found.tag}", hint=OPTION_HINT)
        why = f"{name} from {source}, {tag_version} from the tag {found.tag}"
        return Pin(str(name), tag_version, why)
    if name is None or version is None:
        missing = "a name" if name is None else f"a static version for {name}"
        _cannot(root, f"neither PKG-INFO nor pyproject.toml here gives {missing}")
    _check_version(str(version), source, hint=OPTION_HINT)
    return Pin(str(name), str(version), f"from {source}")


def _cannot(root: Path, what: str) -> None:
    raise PatchkeeperError(
        f"cannot tell the upstream project and pin: {what}", path=root, hint=OPTION_HINT
    )


def _check_version(version: str, where: str, hint: str | None = None) -> None:
    try:
        Version(version)
    except InvalidVersion:
        raise PatchkeeperError(
            f"{version!r} ({where}) is not a version PEP 440 reads",
            hint=hint or "give the version as the package index spells it, e.g. 2.0.7",
        ) from None


def _first_line_number(path: Path) -> int:
    """The 1-based number of the first line of ``path`` that is not blank (1 when none)."""
    try:
        lines = read_regular(path).decode("utf-8", "replace").splitlines()
    except OSError:
        return 1
    return next((number for number, line in enumerate(lines, 1) if line.strip()), 1)


def _debian(root: Path) -> Pin:
    changelog = root / "debian" / "changelog"
    try:
        first = read_regular(changelog).decode("utf-8", "replace").lstrip().splitlines()[0]
    except (OSError, IndexError):
        _cannot(root, "debian/changelog cannot be read")
        raise AssertionError from None  # unreachable: _cannot raises
    match = CHANGELOG_HEAD.match(first)
    if match is None:
        raise PatchkeeperError(
            "the first line is not a changelog entry's 'source (version) ...'",
            path=changelog,
            line=1,
            hint=OPTION_HINT,
        )
    source, full = match[1], match[2]
    version = debian_upstream_version(full)
    _check_version(version, f"debian/changelog's {full}", hint=OPTION_HINT)
    local = Version(version).local
    if local is not None:
        # PEP 440 keeps local versions off the package indexes: no release has this one
        raise PatchkeeperError(
            f"the upstream version {version} (from {full}) is no release of a package index: "
            f"its +{local} part names a snapshot or a local build, which the indexes do not "
            "hold, so the pin could not be fetched",
            path=changelog,
            line=_first_line_number(changelog),
            hint="pass --upstream NAME==VERSION with the release the series is cut against "
            "(and later --pristine DIR with the snapshot's tree, where it differs)",
        )
    name, why, watch = _debian_name(root, source)
    if name is None:
        _unindexed_watch(root, watch, source, version)
        _cannot(
            root,
            f"debian/changelog gives the version {version}, but the source name {source} is "
            "not python-NAME, and neither the upstream source (PKG-INFO, pyproject.toml), "
            "debian/watch nor debian/control names the Python project",
        )
    reason = f"{name} from {why}, {version} from debian/changelog ({full})"
    if why.startswith("the source name"):  # a guess: say where another name is written
        reason += _other_repository(root, str(name))
    return Pin(str(name), version, reason)


#: Where a Debian source package names its upstream repository: ``debian/control``'s
#: ``Homepage`` and ``debian/upstream/metadata``'s ``Repository`` (DEP-12).
REPOSITORY_FIELDS = (("control", "Homepage"), ("upstream/metadata", "Repository"))


def _other_repository(root: Path, name: str) -> str:
    """When the project was named after the Debian source (``pdfminer``, a guess) and the
    package's upstream repository has another name (``Homepage:
    https://github.com/pdfminer/pdfminer.six``), the clause that says so and how to name it
    (the package index's ``pdfminer`` is another project, whose releases the pin is not);
    else ``""``."""
    from packaging.utils import canonicalize_name

    for file, field in REPOSITORY_FIELDS:
        try:
            text = read_regular(root / "debian" / file).decode("utf-8", "replace")
        except OSError:
            continue
        match = re.search(rf"^{field}:\s*(\S+)\s*$", text, re.MULTILINE)
        if match is None:
            continue
        parts = [part for part in match[1].split("/") if part]
        last = parts[-1].removesuffix(".git") if len(parts) > 2 else ""
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", last):
            continue
        if canonicalize_name(last) != canonicalize_name(name):
            return (
                f"; but debian/{file}'s {field} is the repository {last}: if the package "
                f'index names the project {last}, set upstream = "{last}" in '
                f"{CONFIG_FILE}"
            )
    return ""


#: A URL in a ``debian/watch`` line: what the line watches.
WATCH_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def _unindexed_watch(root: Path, watch: list[str], source: str, version: str) -> None:
    """When no Python project was found and ``debian/watch`` (its lines ``watch``, as
    :func:`_debian_name` read them; none when it cannot be read) watches a URL that names
    none (a repository's tags page, a project's download page: :data:`WATCH_PROJECT` reads
    only a package index's), fail at the watch line's URL, so the user sees why the watch
    file named nothing and which option names the project instead. Returns when the file
    has no URL line.

    Raises:
        PatchkeeperError: the watch line (its file and line), with ``--upstream`` to pass.
    """
    path = root / "debian" / "watch"
    for number, line in enumerate(watch, 1):
        url = WATCH_URL.search(line)
        if url is None or line.lstrip().startswith("#"):
            continue
        raise PatchkeeperError(
            f"debian/changelog gives the version {version}, but the source name {source} is "
            f"not python-NAME, and this line watches {url[0]}, which names no project of a "
            "Python package index",
            path=path,
            line=number,
            hint=f"pass --upstream NAME=={version} with the project's name on the package "
            "index, or make this line watch the project's page on a package index",
        )


def _debian_name(root: Path, source: str) -> tuple[str | None, str, list[str]]:
    """The Python project of a Debian source package, where it was read, and the lines of
    its ``debian/watch`` when they were read (always when no project is found; none when
    the file cannot be read), for :func:`_unindexed_watch` to say why they name none."""
    name, _ = declared_metadata(root)
    if name is not None:
        return name, "PKG-INFO" if (root / "PKG-INFO").is_file() else "pyproject.toml", []
    try:
        watch = read_regular(root / "debian" / "watch").decode("utf-8", "replace")
    except OSError:
        watch = ""
    lines = watch.splitlines()
    for line in lines:
        match = WATCH_PROJECT.search(line)
        if match and not line.lstrip().startswith("#"):
            return match[1] or match[2], "debian/watch", lines
    if source.startswith("python-") and len(source) > len("python-"):
        return source.removeprefix("python-"), f"the source name {source} (python-NAME)", lines
    try:
        control = read_regular(root / "debian" / "control").decode("utf-8", "replace")
    except OSError:
        control = ""
    if re.search(rf"^Package:\s*python3-{re.escape(source)}\s*$", control, re.MULTILINE):
        return source, f"the source name {source} (debian/control builds python3-{source})", lines
    return None, "", lines
