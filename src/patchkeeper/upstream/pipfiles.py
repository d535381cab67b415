"""pip's configuration read without pip: its files and its ``PIP_*`` variables.

Used when pip is not installed for the running interpreter (an environment made by a tool
that installs no pip), so ``python -m pip config list`` cannot answer
(:mod:`patchkeeper.upstream.pipsettings`). The result has the shape of that command's output,
``{"SECTION.NAME": value, ":env:.NAME": value}``, the same files and variables merged the
same way, so both sources feed one interpretation. The rules are pip's (its "Configuration"
page, and where the page is silent, what ``pip config debug`` shows pip doing):

- files (INI, read with :class:`configparser.RawConfigParser`), by level, a later level
  overriding an earlier one: *global* (each ``$XDG_CONFIG_DIRS`` entry's ``pip/pip.conf``,
  default ``/etc/xdg``, then ``/etc/pip.conf``; on macOS ``/Library/Application
  Support/pip/pip.conf``), *user* (``~/.pip/pip.conf``, then
  ``$XDG_CONFIG_HOME/pip/pip.conf``, default ``~/.config``; on macOS ``~/Library/Application
  Support/pip/pip.conf`` when that directory exists), *site* (``sys.prefix/pip.conf``), then
  the file named by ``PIP_CONFIG_FILE``;
- ``PIP_CONFIG_FILE`` set to ``os.devnull`` loads no file at all; set to a file that exists,
  the user level is skipped (only pip's ``--isolated`` on its command line skips more, and
  patchkeeper has no such option; ``PIP_ISOLATED_MODE`` does not, as ``pip config list``
  shows);
- each ``PIP_NAME`` variable is ``:env:.name`` (lower case, ``_`` as ``-``) and overrides
  every file; names are normalised the same way in files.
"""

from __future__ import annotations

import configparser
import locale
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from patchkeeper.errors import FetchError

#: pip's configuration file name (``pip.ini`` on Windows, which patchkeeper does not run on).
BASENAME = "pip.conf"
#: Variables pip does not read as settings.
IGNORED_VARIABLES = frozenset({"version", "help"})


def normalise(name: str) -> str:
    """A setting's name as pip keys it: lower case, ``_`` as ``-``, no leading ``--``.

    >>> normalise("--Index_URL")
    'index-url'
    """
    name = name.lower().replace("_", "-")
    return name[2:] if name.startswith("--") else name


def _xdg(variable: str, default: str, environ: Mapping[str, str]) -> str:
    value = environ.get(variable, "").strip()
    return value or os.path.expanduser(default)


def global_files(platform: str, environ: Mapping[str, str]) -> list[Path]:
    """The global level's files, in loading order."""
    if platform == "darwin":
        return [Path("/Library/Application Support/pip", BASENAME)]
    dirs = _xdg("XDG_CONFIG_DIRS", "/etc/xdg", environ).split(os.pathsep)
    return [*(Path(d, "pip", BASENAME) for d in dirs), Path("/etc", BASENAME)]


def user_files(platform: str, environ: Mapping[str, str]) -> list[Path]:
    """The user level's files, in loading order (the legacy one first)."""
    home = Path(os.path.expanduser("~"))
    legacy = home / ".pip" / BASENAME
    if platform == "darwin":
        library = home / "Library" / "Application Support" / "pip"
        current = library if library.is_dir() else home / ".config" / "pip"
    else:
        current = Path(_xdg("XDG_CONFIG_HOME", "~/.config", environ), "pip")
    return [legacy, current / BASENAME]


def config_files(
    environ: Mapping[str, str], prefix: str, platform: str
) -> Iterator[tuple[str, list[Path]]]:
    """``(level, files)`` in override order: global, user, site, ``PIP_CONFIG_FILE``."""
    named = environ.get("PIP_CONFIG_FILE")
    if named == os.devnull:
        return
    yield "global", global_files(platform, environ)
    if not (named and os.path.exists(named)):
        yield "user", user_files(platform, environ)
    yield "site", [Path(prefix, BASENAME)]
    if named is not None:
        yield "env", [Path(named)]


def read_file(path: Path) -> dict[str, str]:
    """``{"SECTION.NAME": value}`` of one configuration file; ``{}`` when it does not exist.

    Raises:
        FetchError: the file is not valid INI, or not in the locale's encoding (as pip).
    """
    if not path.exists():
        return {}
    parser = configparser.RawConfigParser()
    encoding = locale.getpreferredencoding(False)
    try:
        parser.read(path, encoding=encoding)
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise FetchError(
            f"pip's configuration file cannot be read: {exc}",
            path=path,
            hint=f"fix it: pip reads it as INI text in {encoding}",
        ) from None
    return {
        f"{section}.{normalise(name)}": value
        for section in parser.sections()
        for name, value in parser.items(section)
    }


def read_configuration(
    environ: Mapping[str, str] | None = None,
    prefix: str | None = None,
    platform: str | None = None,
) -> dict[str, str]:
    """pip's merged configuration, shaped as ``pip config list`` prints it.

    Args:
        environ: the environment (default ``os.environ``).
        prefix: the interpreter's ``sys.prefix``, where the site file is.
        platform: ``sys.platform``.

    Raises:
        FetchError: a file cannot be read (see :func:`read_file`).
    """
    environ = os.environ if environ is None else environ
    merged: dict[str, str] = {}
    for _level, files in config_files(environ, prefix or sys.prefix, platform or sys.platform):
        for path in files:
            merged.update(read_file(path))
    for key, value in environ.items():
        name = key[4:].lower()
        if key.startswith("PIP_") and name not in IGNORED_VARIABLES:
            merged[f":env:.{normalise(name)}"] = value
    return merged
