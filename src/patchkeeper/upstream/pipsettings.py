"""pip's index settings, as pip itself sees them, read through pip's supported interface.

pip has no Python API (its documentation says so of ``pip._internal``). Its settings are read
the way a user reads them: ``python -m pip config list`` in a subprocess of this interpreter
(or, when pip is not installed for it, by :mod:`patchkeeper.upstream.pipfiles` following
pip's rules),
which merges pip's configuration files in pip's documented order (``PIP_CONFIG_FILE``, global,
user, site) and the ``PIP_*`` environment variables (listed as ``:env:.NAME``), one line per
key: ``SECTION.NAME='VALUE'``. The sections apply as pip's option parser applies them to ``pip
download``: ``global``, then ``download``, then the environment, the later one winning.

The settings kept are the ones the fetch code uses: ``index-url``, ``extra-index-url``,
``no-index``, ``find-links``, ``trusted-host``, ``cert``, ``client-cert``, ``proxy``,
``timeout`` (alias ``default-timeout``). Values are converted as pip converts them: the list
options split on whitespace, ``no-index`` with pip's yes/no words, ``timeout`` as a float.
When nothing sets ``index-url``, the package finder's default index applies (unearth's, which
is pip's); this project never names an index itself (BRIEF).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from patchkeeper.errors import FetchError

#: The pip command whose section applies between ``global`` and the environment.
COMMAND = "download"
#: Sections in the order pip's option parser applies them; a later one overrides.
SECTION_ORDER = ("global", COMMAND, ":env:")
#: pip's timeout when nothing sets one (``pip download --help``: "default 15"), seconds.
DEFAULT_TIMEOUT = 15.0
#: Configuration names (pip's long option names) and the setting each one fills.
NAMES = {
    "index-url": "index_url",
    "extra-index-url": "extra_index_urls",
    "no-index": "no_index",
    "find-links": "find_links",
    "trusted-host": "trusted_hosts",
    "cert": "cert",
    "client-cert": "client_cert",
    "proxy": "proxy",
    "timeout": "timeout",
    "default-timeout": "timeout",
}
#: Settings that hold a list: pip splits a configured value on whitespace.
LISTS = frozenset({"extra_index_urls", "find_links", "trusted_hosts"})
#: pip's words for a boolean (``pip._internal.utils.misc.strtobool``, documented in
#: pip's configuration page: "Boolean options").
TRUE_WORDS = frozenset({"y", "yes", "t", "true", "on", "1"})
FALSE_WORDS = frozenset({"n", "no", "f", "false", "off", "0"})


@dataclass(frozen=True)
class PipSettings:
    """Where pip looks for distributions, with the options that shape its connections.

    Attributes:
        index_urls: ``index-url`` first (the finder's default when unset), then each
            ``extra-index-url``; empty under ``no-index``.
        find_links: ``find-links`` entries: URLs, or absolute paths that exist (pip ignores
            missing local ones, and so does this).
        trusted_hosts: ``trusted-host`` entries (``host`` or ``host:port``).
        cert: a CA bundle path, or ``None`` for the default trust store.
        client_cert: a client certificate (PEM with key), or ``None``.
        proxy: ``scheme://[user:passwd@]host:port``, or ``None``.
        timeout: seconds per socket operation.
    """

    index_urls: tuple[str, ...]
    find_links: tuple[str, ...]
    trusted_hosts: tuple[str, ...] = ()
    cert: str | None = None
    client_cert: str | None = None
    proxy: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    def describe(self) -> str:
        """Say where pip looks, in pip's words, passwords hidden.

        ``Looking in indexes: URL, URL`` (and ``; Looking in links: PATH``), as ``pip
        download`` prints before it searches.
        """
        indexes = ", ".join(redact_url(url) for url in self.index_urls) or "none"
        text = f"Looking in indexes: {indexes}"
        if self.find_links:
            links = ", ".join(redact_url(url) for url in self.find_links)
            text += f"; Looking in links: {links}"
        return text


def read_pip_settings(python: str | None = None) -> PipSettings:
    """Read pip's settings the way ``pip download`` applies them (files, then ``PIP_*``).

    Args:
        python: the interpreter whose pip (and whose site configuration file) to ask;
            this interpreter (``sys.executable``) by default, and when pip is not installed
            for it, its files and variables are read without pip
            (:func:`patchkeeper.upstream.pipfiles.read_configuration`, pip's rules).

    Raises:
        FetchError: pip is not installed for the ``python`` given, ``pip config list``
            fails (an unreadable configuration file), or a value is invalid (the message
            names the key and the value, the hint says how to see where it is set).
    """
    if python is None and importlib.util.find_spec("pip") is None:
        from patchkeeper.upstream.pipfiles import read_configuration

        listing = read_configuration()
    else:
        listing = pip_config_list(python or sys.executable)
    return settings_from_values(merged_values(listing))


def pip_config_list(python: str) -> dict[str, str]:
    """Run ``PYTHON -m pip config list``; return ``{"SECTION.NAME": value}`` as pip prints it.

    The subprocess inherits this process's environment, so the ``PIP_*`` variables and
    ``PIP_CONFIG_FILE`` apply as they would to ``pip download``.

    Raises:
        FetchError: pip is not installed for ``python``, or it fails (its message is kept).
    """
    if python == sys.executable and importlib.util.find_spec("pip") is None:
        raise _no_pip(python)
    try:
        done = subprocess.run(
            [python, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except OSError as exc:
        raise _no_pip(python) from exc
    if done.returncode != 0:
        if "No module named pip" in done.stderr:
            raise _no_pip(python)
        raise FetchError(
            f"`{python} -m pip config list` failed: {done.stderr.strip() or done.stdout.strip()}",
            hint="fix the pip configuration file it names (`python -m pip config debug` "
            "lists them all)",
        )
    return parse_config_list(done.stdout)


def parse_config_list(text: str) -> dict[str, str]:
    """Parse ``pip config list`` output: one ``SECTION.NAME='VALUE'`` per line.

    pip prints each value with Python's ``repr``; a line in any other shape is skipped.

    >>> parse_config_list("global.index-url='file:///srv/simple'\\n:env:.no-index='1'\\n")
    {'global.index-url': 'file:///srv/simple', ':env:.no-index': '1'}
    """
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, literal = line.partition("=")
        if not sep or "." not in key:
            continue
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            values[key] = value
    return values


def merged_values(listing: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Apply the sections in pip's order; return ``{name: (value, "SECTION.NAME")}``.

    Only the names in :data:`NAMES` are kept; ``timeout`` and ``default-timeout`` are one
    setting (the later section wins, as in pip).

    >>> merged_values({"global.timeout": "5", ":env:.default-timeout": "9", "install.cert": "x"})
    {'timeout': ('9', ':env:.default-timeout')}
    """
    merged: dict[str, tuple[str, str]] = {}
    for section in SECTION_ORDER:
        for key, value in listing.items():
            key_section, _, name = key.rpartition(".")
            if key_section == section and name in NAMES:
                merged[NAMES[name]] = (value, key)
    return merged


def settings_from_values(values: Mapping[str, tuple[str, str]]) -> PipSettings:
    """Build :class:`PipSettings` from :func:`merged_values`, converting as pip converts.

    Raises:
        FetchError: ``no-index`` is not one of pip's yes/no words, or ``timeout`` is not a
            number.
    """
    text = {name: value for name, (value, _) in values.items()}
    lists = {name: tuple(text.get(name, "").split()) for name in LISTS}
    no_index = _boolean(*values["no_index"]) if "no_index" in values else False
    if no_index:
        index_urls: tuple[str, ...] = ()
    else:
        index_url = text.get("index_url") or default_index_url()
        index_urls = (index_url, *lists["extra_index_urls"])
    return PipSettings(
        index_urls=index_urls,
        find_links=tuple(_usable_find_links(lists["find_links"])),
        trusted_hosts=lists["trusted_hosts"],
        cert=text.get("cert") or None,
        client_cert=text.get("client_cert") or None,
        proxy=text.get("proxy") or None,
        timeout=_seconds(*values["timeout"]) if "timeout" in values else DEFAULT_TIMEOUT,
    )


def default_index_url() -> str:
    """The index the package finder asks when none is configured (unearth's, pip's own).

    Read from an ``unearth.PackageFinder`` made with no index, so the address is the
    library's, never written here.
    """
    import unearth

    return str(unearth.PackageFinder().sources[0]["url"])


def redact_url(url: str) -> str:
    """Hide the password of ``url`` as pip does in its messages (a lone token too).

    >>> redact_url("http://user:secret@127.0.0.1:8080/simple")
    'http://user:****@127.0.0.1:8080/simple'
    >>> redact_url("https://token@127.0.0.1/simple")
    'https://****@127.0.0.1/simple'
    >>> redact_url("/srv/wheels")
    '/srv/wheels'
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    user_info, _, host = parts.netloc.rpartition("@")
    user, sep, _password = user_info.partition(":")
    shown = f"{user}:****" if sep else "****"
    return urlunsplit(parts._replace(netloc=f"{shown}@{host}"))


def _boolean(value: str, key: str) -> bool:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise FetchError(
        f"pip's configuration sets {key} to {value!r}, which is not a yes/no value",
        hint=f"use one of {', '.join(sorted(TRUE_WORDS | FALSE_WORDS))}; "
        "`python -m pip config debug` shows where it is set",
    )


def _seconds(value: str, key: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise FetchError(
            f"pip's configuration sets {key} to {value!r}, which is not a number of seconds",
            hint="`python -m pip config debug` shows where it is set",
        ) from None


def _no_pip(python: str) -> FetchError:
    return FetchError(
        f"pip is not installed for {python}",
        hint="patchkeeper reads pip's index settings with `python -m pip config list`: "
        f"install pip for it (`{python} -m ensurepip`)",
    )


def _usable_find_links(entries: tuple[str, ...]) -> Iterator[str]:
    # pip's SearchScope.create: expand "~", make existing paths absolute; a local path that
    # does not exist is skipped (pip warns and ignores it), a URL is kept as it is.
    for entry in entries:
        if "://" in entry:
            yield entry
            continue
        path = os.path.expanduser(entry)
        if os.path.exists(path):
            yield os.path.abspath(path)
