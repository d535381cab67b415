"""Requirements given as options (``--to``, ``--pristine``, ``--from``, ``--at``), checked
before anything is fetched.

Two rules, both exit 2 (:class:`~patchkeeper.errors.TargetError`):

- the requirement's project must be the configured upstream, names compared as PEP 503
  normalised names (``packaging.utils.canonicalize_name``): ``audit --to flask==2.2.2`` in a
  downstream of ``werkzeug`` would judge the series against another project's tree;
- an option that names one release takes a requirement pinned to one version (``==X`` without
  a wildcard, or ``===X``), never a range the index would answer with its newest release.

A spec that is a path (it exists, starts like one: ``./``, ``/``, ``~``, or holds a slash)
or not a requirement at all is left alone: the tree code reports it. A bare word that is no
directory and names another project (``1.1``, ``minihttp-1.1``) is refused as neither.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from patchkeeper.constants import OPTION_FROM, OPTION_TO
from patchkeeper.errors import ConfigError, TargetError

_PATH_START = (".", "/", "~")
#: How the file names of sdists and wheels end (PEP 625, PEP 427, older sdists): such a name
#: without a version specifier is a path, even when the file is missing.
_ARCHIVE_ENDINGS = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip", ".whl")
#: A version specifier's operator, a marker or a direct URL's ``@``: a requirement, not a path.
_SPECIFIER_OR_URL = re.compile(r"[=<>!~;@\[]")


def looks_like_path(spec: str) -> bool:
    """Whether ``spec`` can only be a path: it starts like one (``./``, ``/``, ``~``) or holds
    a slash without an ``@`` (PEP 508 allows a slash only in a direct URL, ``NAME @ URL``):
    ``upstream/minihttp-1.1`` is a directory that does not exist, never a malformed
    requirement. So is the file name of an sdist or wheel without a version specifier
    (``minihttp-1.1.tar.gz`` typed in the wrong directory), as :func:`parsed_requirement`
    reads it: it is never looked up on the package indexes as a project of that name.

    >>> looks_like_path("up/minihttp-1.1"), looks_like_path("~/x"), looks_like_path("x==1")
    (True, True, False)
    >>> looks_like_path("x @ https://host/x.tar.gz")
    False
    >>> looks_like_path("minihttp-1.1.tar.gz"), looks_like_path("six-1.16.0-py3-none-any.whl")
    (True, True)
    """
    text = spec.strip()
    return (
        text.startswith(_PATH_START)
        or ("/" in text and "@" not in text)
        or (text.lower().endswith(_ARCHIVE_ENDINGS) and not _SPECIFIER_OR_URL.search(text))
    )


def parsed_requirement(spec: str) -> Any | None:
    """``spec`` as a ``packaging`` ``Requirement`` when it reads as one and is not a path,
    else ``None`` (a directory, an sdist's path, a malformed requirement).

    >>> str(parsed_requirement("Flask==2.2.2").name), parsed_requirement("./flask==2.2.2")
    ('Flask', None)
    >>> parsed_requirement("werkzeug-2.2.2.tar.gz") is None
    True
    """
    text = spec.strip()
    if not text or looks_like_path(text) or os.path.exists(os.path.expanduser(spec)):
        return None
    from packaging.requirements import InvalidRequirement, Requirement  # not for a path

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    if requirement.url is not None:
        return None
    if not requirement.specifier and text.lower().endswith(_ARCHIVE_ENDINGS):
        return None
    return requirement


def one_version(requirement: Any) -> str | None:
    """The one version ``requirement`` admits (``==X`` without ``*``, or ``===X``), else
    ``None`` (PEP 440: only these two operators name a single release).

    >>> from packaging.requirements import Requirement
    >>> one_version(Requirement("werkzeug==2.2.3")), one_version(Requirement("werkzeug>=2.2"))
    ('2.2.3', None)
    >>> one_version(Requirement("werkzeug==2.*")), one_version(Requirement("x===1.0-local"))
    (None, '1.0-local')
    """
    specs = list(requirement.specifier)
    if len(specs) != 1 or specs[0].operator not in ("==", "===") or "*" in specs[0].version:
        return None
    return str(specs[0].version)


def downgrade(old: str | None, new: str | None) -> str:
    """The warning for an audit from ``old`` to ``new`` when each names one release (a
    requirement ``NAME==VERSION``, or the sdist or wheel file ``pip download`` leaves, by
    its file name) and ``new`` is the older one: the audit reads a downgrade as an upgrade
    (what the newer release added looks removed); ``""`` otherwise (a directory, a range,
    an unreadable version, or ``new`` not older).

    >>> downgrade("vllm==0.11.0", "vllm==0.10.1.1").split(": ")[0]
    '--to vllm==0.10.1.1 is older than --from vllm==0.11.0'
    >>> downgrade("vllm==0.10.1.1", "vllm==0.11.0"), downgrade("vllm==0.11.0", "up/vllm-0.10")
    ('', '')
    """
    from packaging.version import InvalidVersion, Version

    if not old or not new:
        return ""
    versions = [_one_release(spec) for spec in (old, new)]
    if versions[0] is None or versions[1] is None:
        return ""
    try:
        older = Version(versions[1]) < Version(versions[0])
    except InvalidVersion:
        return ""
    if not older:
        return ""
    return (
        f"{OPTION_TO} {new.strip()} is older than {OPTION_FROM} {old.strip()}: the audit reads "
        f"it as an upgrade from {versions[0]} to {versions[1]}; swap {OPTION_FROM} and "
        f"{OPTION_TO} if the plugin is moving to {versions[0]}"
    )


def _one_release(spec: str) -> str | None:
    """The version of the one release ``spec`` names: a requirement's ``==X``, or an
    existing sdist or wheel file's name (PEP 625, PEP 427); else ``None``."""
    from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_wheel_filename

    from patchkeeper.upstream.unpack import is_archive, sdist_release

    path = Path(spec).expanduser()
    if path.is_file() and is_archive(path.name):
        try:
            if path.name.endswith(".whl"):
                return str(parse_wheel_filename(path.name)[1])
            return sdist_release(path.name)[1]
        except (InvalidSdistFilename, InvalidWheelFilename):
            return None
    found = parsed_requirement(spec)
    return one_version(found) if found is not None else None


def check_project(
    spec: str | None, option: str, upstream: str | None, config_file: Path | None
) -> None:
    """Refuse a requirement ``spec`` (given as ``option``) whose project is not the
    configured ``upstream``; nothing to check when either is missing or ``spec`` is a path.

    Raises:
        TargetError: naming the option, both projects and the configuration file (and the
            line of its ``upstream`` key).
    """
    requirement = parsed_requirement(spec) if spec else None
    if spec is None or requirement is None or not upstream:
        return
    from packaging.utils import canonicalize_name

    if canonicalize_name(requirement.name) == canonicalize_name(upstream):
        return
    if not requirement.specifier:
        raise _neither_error(spec.strip(), option, upstream)
    raise TargetError(
        f"{_given(option, spec.strip())} names the project {requirement.name}, but the "
        f"configured upstream is {upstream}",
        path=config_file,
        line=_upstream_line(config_file),
        hint=f"pass a requirement of {upstream} ({_given(option, upstream + '==VERSION')}), "
        f"or fix 'upstream' in {config_file.name if config_file else 'the configuration'}",
    )


def _neither_error(spec: str, option: str, upstream: str) -> TargetError:
    """The error for a bare word (no version specifier) that is no directory either: meant as
    a path (a tree in another directory: ``-C`` reads relative paths from its directory) or
    as a release (``1.1``, ``minihttp-1.1``), it would otherwise be read as the name of
    another project. The hint says which requirement names that release when the word is a
    version or ``UPSTREAM-VERSION``.

    >>> print(_neither_error("1.1", "--to", "minihttp").hint)
    for the release, pass --to minihttp==1.1; for a tree, pass its directory
    >>> print(_neither_error("minihttp-1.5", "pristine =", "minihttp").message[:45])
    pristine = "minihttp-1.5": no such directory,
    """
    version = _version_in(spec, upstream)
    where = "no such directory"  # a configured path is read from the downstream's root
    if option.startswith("-"):
        where = f"no directory {os.path.abspath(spec)}"
    if version is not None:
        hint = (
            f"for the release, pass {_given(option, f'{upstream}=={version}')}; "
            "for a tree, pass its directory"
        )
    else:
        hint = (
            f"pass an upstream tree's directory, or a requirement of {upstream} "
            f"({_given(option, upstream + '==VERSION')})"
        )
    return TargetError(
        f"{_given(option, spec)}: {where}, and as a requirement it names no release of {upstream}",
        hint=hint,
    )


def _version_in(spec: str, upstream: str) -> str | None:
    """The release ``spec`` names when it is a version (``1.1``) or the upstream's name and a
    version (``minihttp-1.1``, ``MiniHTTP_1.1``: an sdist's directory name), else ``None``.

    >>> _version_in("1.1", "minihttp"), _version_in("minihttp-1.1", "MiniHTTP")
    ('1.1', '1.1')
    >>> _version_in("django_storages-1.14.5", "django-storages"), _version_in("flask", "x")
    ('1.14.5', None)
    """
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    candidates = [spec]
    for cut in range(len(spec)):
        if spec[cut] in "-_" and canonicalize_name(spec[:cut]) == canonicalize_name(upstream):
            candidates.append(spec[cut + 1 :])
    for candidate in candidates:
        try:
            return str(Version(candidate))
        except InvalidVersion:
            continue
    return None


def check_one_release(spec: str | None, option: str, config_file: Path | None = None) -> None:
    """Refuse a requirement ``spec`` (given as ``option``, which names one release) that is
    not pinned to one version: ``werkzeug>=2.2`` would silently mean the newest release.
    ``option`` is a command-line option (``"--pristine"``), or a configuration key ending in
    ``=`` (``"pristine ="``) set in ``config_file``.

    Raises:
        TargetError: naming the option and the requirement, saying to use ``NAME==VERSION``.
    """
    requirement = parsed_requirement(spec) if spec else None
    if spec is None or requirement is None or one_version(requirement) is not None:
        return
    if not requirement.specifier:  # a bare name: a directory that is not there, or no release
        raise _neither_error(spec.strip(), option, requirement.name)
    what = f"the range {requirement.specifier}"
    key = option.endswith("=")
    raise TargetError(
        f"{option.rstrip(' =')} names one release, but {spec.strip()} has {what}, not one version",
        path=config_file if key else None,
        line=_key_line(config_file, option.rstrip(" =")) if key else None,
        hint=f"use {_given(option, requirement.name + '==VERSION')} (or a directory)",
    )


def _given(option: str, value: str) -> str:
    """How ``value`` is written for ``option``: ``--to werkzeug==2.2.3`` on the command line,
    ``pristine = "werkzeug==2.2.3"`` in the configuration.

    >>> _given("--to", "x==1"), _given("pristine =", "x==1")
    ('--to x==1', 'pristine = "x==1"')
    """
    return f'{option} "{value}"' if option.endswith("=") else f"{option} {value}"


def check_release_option(
    spec: str | None,
    option: str,
    upstream: str | None,
    config_file: Path | None,
    *,
    range_allowed: bool = False,
) -> None:
    """Both checks for one option: :func:`check_project`, then (unless ``range_allowed``, as
    for ``audit --to``'s horizon) :func:`check_one_release`.

    Raises:
        TargetError: as those functions; ``spec`` empty (``--to needs a value``).
    """
    if spec is not None and not spec.strip():
        # an empty value is no release: fetched, it failed as "() cannot be fetched"
        raise TargetError(
            f"{option} needs a value",
            hint=f"give {option} a release, e.g. {option} {upstream or 'NAME'}==VERSION "
            "(or a directory)",
        )
    if spec is not None and spec.startswith("-") and not os.path.exists(spec):
        # 'audit --to --json': the shell's next option became the value, and was then
        # fetched as a requirement ("not a requirement: '--json'")
        raise TargetError(
            f"{option} has no value: {spec} is an option, which {option} took as its value",
            hint=f"give {option} its release first, e.g. {option} "
            f"{upstream or 'NAME'}==VERSION (or a directory), then the other options",
        )
    check_no_marker(spec, option, config_file)
    check_project(spec, option, upstream, config_file)
    if not range_allowed:
        check_one_release(spec, option, config_file)


def check_no_marker(spec: str | None, option: str, config_file: Path | None = None) -> None:
    """Refuse a requirement ``spec`` (given as ``option``, or the configuration key
    ``option`` ending in ``=`` set in ``config_file``) that carries an environment marker
    (``vllm==0.32.0; python_version < "3.10"``): a marker says in which environments a
    dependency is installed, which means nothing for the release (or range) an option
    names to read; read without it, the marker was silently ignored.

    >>> check_no_marker("vllm==0.32.0", "--to")
    >>> try:
    ...     check_no_marker("vllm==0.32.0; python_version<'3'", "--to")
    ... except TargetError as error:
    ...     print(error.hint)
    leave the marker out: --to vllm==0.32.0

    Raises:
        TargetError: naming the option, the requirement and its marker.
    """
    requirement = parsed_requirement(spec) if spec else None
    if spec is None or requirement is None or requirement.marker is None:
        return
    plain = spec.partition(";")[0].strip()  # PEP 508: the marker follows the one ';'
    key = option.endswith("=")
    raise TargetError(
        f"{option.rstrip(' =')} {spec.strip()} has an environment marker "
        f"({requirement.marker}), which says where a dependency is installed and means "
        "nothing for the release to read",
        path=config_file if key else None,
        line=_key_line(config_file, option.rstrip(" =")) if key else None,
        hint=f"leave the marker out: {_given(option, plain)}",
    )


def check_same_project(old: str | None, new: str | None) -> None:
    """Refuse ``--from`` and ``--to`` requirements that name two different projects
    (``--from torch==2.0.0 --to vllm==0.32.0``): an upgrade goes from one release of the
    upstream to another, and without a configured upstream nothing else would catch it
    before both were fetched (the second then read as a tree without the upstream's
    package). Nothing to check when either is missing or a path.

    >>> check_same_project("vllm==0.31.0", "VLLM==0.32.0")
    >>> check_same_project("vllm==0.31.0", "../vllm-0.32.0")
    >>> try:
    ...     check_same_project("torch==2.0.0", "vllm==0.32.0")
    ... except TargetError as error:
    ...     print(error.message)
    --from torch==2.0.0 and --to vllm==0.32.0 name two projects, torch and vllm
    """
    from packaging.utils import canonicalize_name

    found = [parsed_requirement(spec) if spec else None for spec in (old, new)]
    if found[0] is None or found[1] is None or old is None or new is None:
        return
    if canonicalize_name(found[0].name) == canonicalize_name(found[1].name):
        return
    raise TargetError(
        f"{OPTION_FROM} {old.strip()} and {OPTION_TO} {new.strip()} name two projects, "
        f"{found[0].name} and {found[1].name}",
        hint=f"give both as releases of the upstream the plugin patches "
        f"({OPTION_FROM} {found[1].name}==OLD {OPTION_TO} {found[1].name}==NEW), or either "
        "as a directory",
    )


def check_new_release(
    command: str, to: str | None, source: str | None, upstream: str | None, config_file: Path | None
) -> str:
    """The checks a command that carries the downstream to a new release (``port``,
    ``upgrade``) makes before it starts: ``--to`` given, then :func:`check_release_option`
    of ``--to`` and of ``--from``. Returns ``to``.

    Raises:
        ConfigError: no ``--to`` (``port needs --to NEWPIN``).
        TargetError: as :func:`check_release_option`.
    """
    if not to:
        raise ConfigError(
            f"{command} needs {OPTION_TO} NEWPIN",
            hint=f"pass {OPTION_TO} NAME==VERSION or {OPTION_TO} DIR",
        )
    check_release_option(to, OPTION_TO, upstream, config_file)
    check_release_option(source, OPTION_FROM, upstream, config_file)
    check_same_project(source, to)
    return to


def _upstream_line(config_file: Path | None) -> int | None:
    return _key_line(config_file, "upstream")


def _key_line(config_file: Path | None, key: str) -> int | None:
    """The line of the top-level patchkeeper key ``key`` in ``config_file``, if found."""
    if config_file is None:
        return None
    from patchkeeper.config import nests_in_tool, table_key_line

    table = ("tool", "patchkeeper") if nests_in_tool(config_file) else ()
    try:
        text = config_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return table_key_line(text, table, key)
