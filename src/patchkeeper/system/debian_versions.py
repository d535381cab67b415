"""Debian's package versions read as the upstream versions they carry: one rule for ``init``
(the pin of a Debian series, from ``debian/changelog``) and for the hint given when a pin
written in Debian's form (``0.39.1+ds``) cannot be fetched."""

from __future__ import annotations

import re

#: Repack suffixes of a Debian upstream version (a tarball repacked for the archive).
REPACK = re.compile(r"[+~](?:dfsg|ds|repack)\.?\d*$")
#: Debian's ``+really`` (``2.0+really1.9``: a version that went back to upstream's 1.9 keeps
#: the higher number in front, since a package version may only rise); upstream's is after it.
REALLY = re.compile(r"\+really(?=\d)", re.IGNORECASE)


def debian_upstream_version(version: str) -> str:
    """The upstream version of a Debian package version.

    >>> debian_upstream_version("1:2.0.0~rc1+dfsg-3")
    '2.0.0rc1'
    >>> debian_upstream_version("1.26.12-1ubuntu0.1"), debian_upstream_version("3.4")
    ('1.26.12', '3.4')
    >>> debian_upstream_version("2.0+really1.9+dfsg.1-1")
    '1.9'
    """
    version = version.split(":", 1)[1] if ":" in version else version
    version = version.rsplit("-", 1)[0] if "-" in version else version
    version = REALLY.split(version)[-1]
    version = REPACK.sub("", version)
    return version.replace("~", "")


def debian_pin_upstream(pin: str) -> str | None:
    """The upstream version of a pin written as Debian writes its package's version: a
    repack suffix (``0.39.1+ds``, ``0.39.1+dfsg``) or a Debian revision (``0.39.1-1``,
    ``0.39.1+dfsg-1``); ``None`` for a pin without either. PEP 440 reads such a pin as a local
    version or a post-release that no package index holds, so its release cannot be fetched;
    the upstream release it repacks is the pin meant.

    >>> debian_pin_upstream("0.39.1+ds"), debian_pin_upstream("0.39.1+dfsg-1")
    ('0.39.1', '0.39.1')
    >>> debian_pin_upstream("1.0-1"), debian_pin_upstream("0.39.1"), debian_pin_upstream("1.0+git5")
    ('1.0', None, None)
    """
    from packaging.version import InvalidVersion, Version

    if not (REPACK.search(pin.rsplit("-", 1)[0]) or re.search(r"-\d[0-9a-z.+~]*$", pin)):
        return None
    upstream = debian_upstream_version(pin)
    try:
        Version(upstream)
    except InvalidVersion:
        return None
    return upstream if upstream != pin else None
