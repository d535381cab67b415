"""pip's index settings, as pip itself sees them.

Read through pip's own option parser for ``pip download`` (configuration files, then ``PIP_*``
environment variables): ``index-url``, ``extra-index-url``, ``no-index``, ``find-links``,
``trusted-host``, ``cert``, ``client-cert``, ``proxy``, ``timeout``. When nothing sets
``index-url``, pip's own default applies (``pip._internal.models.index.PyPI.simple_url``); this
project never names an index itself (BRIEF).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from patchkeeper.errors import FetchError


@dataclass(frozen=True)
class PipSettings:
    """Where pip looks for distributions, with the options that shape its connections.

    Attributes:
        index_urls: ``index-url`` first (pip's default when unset), then each
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
    timeout: float = 15.0

    def describe(self) -> str:
        """Say where pip looks, in pip's words, passwords hidden.

        ``Looking in indexes: URL, URL`` (and ``; Looking in links: PATH``), as ``pip
        download`` prints before it searches.
        """
        from pip._internal.utils.misc import redact_auth_from_url

        indexes = ", ".join(redact_auth_from_url(url) for url in self.index_urls) or "none"
        text = f"Looking in indexes: {indexes}"
        if self.find_links:
            links = ", ".join(redact_auth_from_url(url) for url in self.find_links)
            text += f"; Looking in links: {links}"
        return text


def read_pip_settings() -> PipSettings:
    """Read pip's settings the way ``pip download`` does (files, then ``PIP_*`` variables).

    Raises:
        FetchError: pip is not importable, or its configuration is invalid.
    """
    try:
        from pip._internal.commands import create_command
    except ImportError as exc:
        raise FetchError(
            "pip is not importable in this interpreter",
            hint="patchkeeper follows pip's index settings: install pip into this environment",
        ) from exc
    try:
        options, _ = create_command("download").parse_args([])
    except SystemExit as exc:  # pip's option parser exits on a bad configuration value
        raise FetchError(
            "pip's configuration is invalid",
            hint="run `python -m pip config list` and fix the value pip complains about",
        ) from exc
    index_urls = [] if options.no_index else [options.index_url, *options.extra_index_urls]
    return PipSettings(
        index_urls=tuple(index_urls),
        find_links=tuple(_usable_find_links(options.find_links)),
        trusted_hosts=tuple(options.trusted_hosts),
        cert=options.cert or None,
        client_cert=options.client_cert or None,
        proxy=options.proxy or None,
        timeout=float(options.timeout),
    )


def _usable_find_links(entries: list[str]) -> Iterator[str]:
    # pip's SearchScope.create: expand "~", make existing paths absolute; a local path that
    # does not exist is skipped (pip warns and ignores it), a URL is kept as it is.
    for entry in entries:
        if "://" in entry:
            yield entry
            continue
        path = os.path.expanduser(entry)
        if os.path.exists(path):
            yield os.path.abspath(path)
