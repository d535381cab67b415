"""Mine real upgrades with known outcomes from Debian's archive into the accuracy corpus format.

    python benchmarks/mine_debian.py [--jobs 3] [--limit N] [--only SOURCE[,SOURCE]]

(``--limit``: at most N source packages, the most used first.)

For every Python source package of Debian (a ``3.0 (quilt)`` source whose Build-Depends name
``dh-python``, ``dh-sequence-python3``, ``pybuild-plugin-pyproject`` or
``python3-setuptools``, or name another Python 3 package while it builds a ``python3-*``
package and its series touches a Python file, read from the apt ``Sources`` indexes that
``../shared/tools/debian-series`` keeps under ``~/.cache/debian-series-SUITE/lists``) whose
upstream version differs between two suites (bullseye, bookworm, trixie, forky, sid, and
the suites beside them: bookworm-backports, bookworm-security, trixie-backports,
trixie-security, experimental), most used projects first, the miner

1. fetches each suite's ``debian/`` directory into the corpus cache (``$PATCHKEEPER_CACHE`` or
   ``~/.cache/patchkeeper-corpus``, reused): the ``.debian.tar.*`` file the suite's
   ``Sources`` paragraph names, with apt's downloader, from the archive URI ``debian-series``
   uses. The archive this machine reaches serves only some of these files and answers 404
   for the others, every time: a 404 is remembered under ``debian-series/SUITE/.missing/``
   and counted. An upgrade is a pair of consecutive *served* suites with different upstream
   versions, so it may skip a suite whose files are not served (the newer changelog covers
   every version between); then every longer pair of served releases whose upstream
   versions differ, one per pair of upstream versions (a user of bullseye who upgrades to
   trixie carries the bullseye series over both upgrades at once). A suite beside the
   releases upgrades the newest served release up to the one it follows (a backport or
   security update of bookworm: bookworm's series; experimental: sid's) when it packages a
   newer upstream version, and so do the older
   served releases up to it, one per pair of upstream versions; the same older Debian
   version to the same upstream version is one upgrade, however many suites reach it. The
   security suites' indexes come from the machine's own security entry
   (:func:`security_index`);
2. maps the source package to a PyPI project (``debian/watch`` PyPI lines, the ``Homepage``,
   the ``python3-*`` binary names, the source name), checked against a local list of the
   index's names when one is given (``--names``), then fetches the sdists of the older and
   newer upstream versions with the CLI's own fetcher (the index client pip is configured
   with, ``unearth``), which also fills the cache the audit reads. When no project is found,
   the index has no sdist of either version, or the sdists lack files the series patches
   (tests, docs a Debian patch touches), the upgrade is audited on Debian's orig tarballs of
   both upstream versions instead, the trees the series applies to (as a Debian maintainer
   does), when they judge more patches: fetched with apt's downloader into the corpus cache
   (``debian-orig/``, at most 64 MiB each) and named in the row (``trees = "debian-orig"``,
   ``trees-why``, ``pin-orig``, ``to-orig``);
3. derives each patch's truth from what the maintainers did (``benchmarks/debian_truth.py``):
   ``upstreamed`` / ``carried`` / ``port``, each with the quoted source; other patches are
   left out and counted by reason;
4. writes one TOML per upgrade into ``benchmarks/accuracy/mined/`` (the format:
   ``benchmarks/accuracy/FORMAT.md``) and the counts into
   ``benchmarks/accuracy/mined-counts.toml``.

No patch text is written: only names, versions, outcomes and one quoted changelog or header
line per row. Downloads run at most ``--jobs`` at a time (default 3).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import accuracy
import debian_truth

SUITES = ("bullseye", "bookworm", "trixie", "forky", "sid")
#: Suites beside the releases, each after the release it follows: a backport or a security
#: update of a release, or experimental after sid, packages another upstream version with its
#: own series and changelog (read when ``debian-series`` has the suite's index).
EXTRA_SUITES = {
    "bookworm-backports": "bookworm",
    "bookworm-security": "bookworm",
    "trixie-backports": "trixie",
    "trixie-security": "trixie",
    "experimental": "sid",
}
ALL_SUITES = SUITES + tuple(EXTRA_SUITES)
MINED = accuracy.BENCHMARKS / "accuracy" / "mined"
COUNTS = accuracy.BENCHMARKS / "accuracy" / "mined-counts.toml"
#: A local list of the package index's project names (first column), when the machine has one.
DEFAULT_NAMES = Path("/work/.library/env/packages/pypi.tsv")
PYTHON_BUILD_DEPENDS = re.compile(
    r"(?:^|[\s,|])(dh-python|dh-sequence-python3|pybuild-plugin-pyproject|python3-setuptools)\b"
)
#: Any Python 3 build dependency (the interpreter, its headers, a ``python3-*`` module,
#: Cython): a source built without a Python build helper that still builds a ``python3-*``
#: package (bindings, a Python tool inside a larger project) is mined when its series
#: touches a Python file (:func:`touches_python`); one that only runs Python while it
#: builds (a C or Haskell project's build scripts) is not a Python project.
PYTHON_ANY_DEPENDS = re.compile(
    r"(?:^|[\s,|])(python3(?:-[a-z0-9][a-z0-9.+-]*)?|cython3)(?=[\s,(|\[:]|$)"
)
#: The names of Python files (sources, stubs, Cython).
PYTHON_FILE = re.compile(r"\.(py|pyi|pyx|pxd)$")
#: A PyPI project named in a watch line or a homepage (the index's host is not spelt out).
_PYPI_URL = re.compile(
    r"//(?:www\.)?pypi\.[a-z.]+/(?:project/|pypi/|packages/source/[^/\s]/|simple/)?"
    r"([A-Za-z0-9][A-Za-z0-9._-]*)"
)
#: A forge repository homepage: its last path component is often the project's name.
_FORGE_URL = re.compile(
    r"//(?:github\.com|gitlab\.com|codeberg\.org|bitbucket\.org)/[^/\s]+/([^/\s#?]+)"
)

#: Upgrade-level left-out reasons.
NO_SERIES = "no debian/patches/series in the older suite"
NO_PROJECT = "no PyPI project found for the source package"
NO_SDIST = "no sdist of the pin or the new version on the index"
NOT_PEP440 = "an upstream version that is not a PEP 440 version"
DOWNGRADE = "the newer suite packages an older upstream version"
NO_TRUTH = "no patch with a truth"
NO_PYTHON = "built without a Python build helper, and the older series touches no Python file"
#: Patch-level reasons for what a user cannot express today.
SDIST_LACKS = "files the sdist lacks"
NEW_SDIST_LACKS = "kept by Debian, files the new sdist lacks"
ORIG_LACKS = "files Debian's orig tarball lacks"
NEW_ORIG_LACKS = "kept by Debian, files the new orig tarball lacks"
#: Why an upgrade is audited on Debian's orig tarballs when the sdists judge every patch.
SDIST_LACKS_WHY = "the sdists lack files the series patches"
#: How an orig tarball was had (the counts' keys, after "orig tarballs: ").
ORIG_CACHED, ORIG_DOWNLOADED = "cached", "downloaded"
ORIG_NOT_FOUND, ORIG_FAILED = "not served by the archive (404)", "download failed"
ORIG_NONE = "none named by the suite's index"
ORIG_TOO_LARGE = "larger than 64 MiB (not fetched)"
#: The largest orig tarball the miner fetches (compressed), in bytes: a larger one is a
#: C or C++ project with Python bindings at most, and would fill the cache.
MAX_ORIG_BYTES = 64 * 1024 * 1024
NOT_A_DIFF = "not a diff (no hunk)"
#: Upgrade-level notes: written upgrades that need a setting beyond the defaults.
DIRECTORY_SET = "every patched path under one directory of the sdist (directory set)"
STRIPS_MIXED = "a series with several strip levels (per-entry -pN kept)"


def canonical(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Source:
    """One source package in one suite, from a ``Sources`` index paragraph: its name, Debian
    version, ``Homepage``, binary packages, and where its ``debian/`` tarball lies in the
    archive (``directory``: the pool directory, ``tarball``: the ``.debian.tar.*`` file name,
    ``sha256``: that file's SHA-256 from ``Checksums-Sha256``; empty when the paragraph names
    none)."""

    package: str
    version: str
    homepage: str
    binaries: tuple[str, ...]
    directory: str = ""
    tarball: str = ""
    sha256: str = ""
    orig: accuracy.OrigTarball | None = None
    #: Whether the build dependencies name a Python build helper (else only another
    #: Python 3 dependency: :data:`PYTHON_ANY_DEPENDS`).
    helper: bool = True


@dataclass
class Tally:
    """The miner's counts (thread-safe increments)."""

    counts: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, key: str, n: int = 1) -> None:
        """Add ``n`` to ``key``."""
        with self.lock:
            self.counts[key] += n


def sources_index(suite: str) -> Path | None:
    """The apt ``Sources`` index ``debian-series`` downloaded for ``suite``, if any."""
    base = os.environ.get("DEBIAN_SERIES_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "debian-series"
    )
    found = sorted(Path(f"{base}-{suite}/lists").glob("*_source_Sources*"))
    return found[0] if found else None


def security_index(suite: str) -> Path | None:
    """The ``Sources`` index of a ``*-security`` suite, downloaded once beside the ones
    ``debian-series`` keeps (that tool reads the main archive only): the machine's own
    Debian security entry (``/etc/apt/sources.list.d/*.sources``, its ``URIs`` and
    ``Signed-By``) as a source entry for ``suite``, read by ``apt-get update`` with the
    tool's options, the machine's apt configuration untouched. None when the machine has no
    such entry or the update fails."""
    found = sources_index(suite)
    if found is not None:
        return found
    entry = None
    for config in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for block in config.read_text(encoding="utf-8", errors="replace").split("\n\n"):
            fields = dict(re.findall(r"^(Types|URIs|Signed-By):\s*(.+)$", block, re.M))
            if (
                fields.get("Types", "").split()[:1] == ["deb"]
                and "security" in fields.get("URIs", "")
                and "debian-archive-keyring" in fields.get("Signed-By", "")
            ):
                entry = fields
    if entry is None:
        return None
    state = accuracy.debian_series_state(suite)
    (state / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (state / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (state / "src.sources").write_text(
        f"Types: deb-src\nURIs: {entry['URIs'].split()[0]}\nSuites: {suite}\n"
        f"Components: main\nSigned-By: {entry['Signed-By']}\n",
        encoding="utf-8",
    )
    options = [
        "-o", "Dir::Etc::SourceList=/dev/null", "-o", "Dir::Etc::SourceParts=-",
        "-o", f"Dir::Etc::SourceList={state / 'src.sources'}",
        "-o", f"Dir::State::Lists={state / 'lists'}",
        "-o", f"Dir::Cache::Archives={state / 'archives'}",
        "-o", "Debug::NoLocking=1", "-o", "APT::Sandbox::User=root",
    ]  # fmt: skip
    subprocess.run(
        ["apt-get", *options, "update", "-qq"], capture_output=True, timeout=600, check=False
    )
    return sources_index(suite)


def read_index(path: Path) -> str:
    """The text of a (possibly compressed) apt index, read with apt's own decompressors."""
    done = subprocess.run(
        ["/usr/lib/apt/apt-helper", "cat-file", str(path)], capture_output=True, check=True
    )
    return done.stdout.decode("utf-8", "replace")


def parse_sources(text: str) -> dict[str, Source]:
    """The Python source packages of a ``Sources`` index: ``3.0 (quilt)`` sources whose
    build dependencies name a Python build helper (:data:`PYTHON_BUILD_DEPENDS`) or, with
    ``helper`` false, another Python 3 dependency (:data:`PYTHON_ANY_DEPENDS`) while a
    ``python3-*`` binary package is built (Python bindings or tools); the highest version
    when a package is listed twice."""
    found: dict[str, Source] = {}
    for paragraph in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = ""
        for line in paragraph.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields.get("Format") != "3.0 (quilt)" or "Package" not in fields:
            continue
        keys = ("Build-Depends", "Build-Depends-Indep", "Build-Depends-Arch")
        depends = " ".join(fields.get(key, "") for key in keys)
        binaries = tuple(b.strip() for b in fields.get("Binary", "").split(",") if b.strip())
        helper = bool(PYTHON_BUILD_DEPENDS.search(depends))
        if not helper and not (
            PYTHON_ANY_DEPENDS.search(depends) and any(b.startswith("python3-") for b in binaries)
        ):
            continue
        tarball, sha256 = debian_tarball(fields.get("Checksums-Sha256", ""))
        orig = orig_tarball(fields.get("Checksums-Sha256", ""), fields.get("Directory", ""))
        entry = Source(
            fields["Package"],
            fields["Version"],
            fields.get("Homepage", ""),
            binaries,
            fields.get("Directory", ""),
            tarball,
            sha256,
            orig,
            helper,
        )
        known = found.get(entry.package)
        if known is None or debian_truth.compare_versions(entry.version, known.version) > 0:
            found[entry.package] = entry
    return found


def debian_tarball(checksums: str) -> tuple[str, str]:
    """``(file name, SHA-256)`` of the ``.debian.tar.*`` file a ``Checksums-Sha256`` field
    lists (its lines joined by spaces: ``HASH SIZE NAME`` triples), or ``("", "")``."""
    words = checksums.split()
    for digest, _size, name in zip(words[::3], words[1::3], words[2::3], strict=False):
        if ".debian.tar." in name:
            return name, digest
    return "", ""


def orig_tarball(checksums: str, directory: str) -> accuracy.OrigTarball | None:
    """The ``UPSTREAM.orig.tar.*`` file a ``Checksums-Sha256`` field lists (``HASH SIZE NAME``
    triples; a component tarball, ``.orig-NAME.tar.*``, is not it), in the pool
    ``directory``, with its size recorded in :data:`ORIG_SIZES`; or None.

    >>> orig_tarball(f"{'a' * 64} 12 x_1.0.orig.tar.gz", "pool/main/x/x").file
    'x_1.0.orig.tar.gz'
    """
    words = checksums.split()
    for digest, size, name in zip(words[::3], words[1::3], words[2::3], strict=False):
        if ".orig.tar." in name and directory:
            ORIG_SIZES[name] = int(size) if size.isdigit() else 0
            return accuracy.OrigTarball(name, directory, digest)
    return None


#: The size in bytes of each orig tarball the ``Sources`` indexes list, by file name.
ORIG_SIZES: dict[str, int] = {}


def orig_size(orig: accuracy.OrigTarball) -> int:
    """The size in bytes the index gave for ``orig`` (0 when unknown)."""
    return ORIG_SIZES.get(orig.file, 0)


def upgrade_pairs(indexes: dict[str, dict[str, Source]]) -> list[tuple[str, str, str]]:
    """``(source, older suite, newer suite)`` for consecutive suites (in :data:`SUITES`
    order, skipping suites without the package) whose upstream versions differ, the longer
    pairs, then the upgrades into the suites beside the releases (:func:`served_pairs` with
    every suite served), for every source package of ``indexes``, sorted by source."""
    names = sorted(set().union(*(index.keys() for index in indexes.values())))
    return [pair for name in names for pair in upgrade_pairs_of(name, indexes)]


def upgrade_pairs_of(
    source: str, indexes: dict[str, dict[str, Source]]
) -> list[tuple[str, str, str]]:
    """:func:`upgrade_pairs` of one source package."""
    present = {suite for suite in ALL_SUITES if source in indexes.get(suite, {})}
    return served_pairs(source, indexes, present)


def project_candidates(debian: Path, source: str) -> list[str]:
    """Names the source package's PyPI project may have, best first: ``debian/watch`` PyPI
    lines, a PyPI ``Homepage``, a forge ``Homepage``'s repository name, the ``python3-*``
    binary packages, the source name without ``python-``, the source name (a project may
    keep the prefix, as ``python-ldap`` does)."""
    found: list[str] = []
    watch, control = (
        path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        for path in (debian / "watch", debian / "control")
    )
    for match in _PYPI_URL.finditer(watch):
        found.append(match.group(1))
    homepage = re.search(r"^Homepage:\s*(\S+)", control, re.M)
    if homepage:
        for match in _PYPI_URL.finditer(homepage.group(1)):
            found.append(match.group(1))
        forge = _FORGE_URL.search(homepage.group(1))
        if forge:
            found.append(re.sub(r"\.git$", "", forge.group(1)))
    for binary in re.findall(r"^Package:\s*python3-(\S+)", control, re.M):
        found.append(binary)
    found += [re.sub(r"^(python3?|py)-", "", source), source]
    found = [re.sub(r"(\.tar\.gz|\.zip|-[0-9].*)$", "", name) for name in found]
    return list(dict.fromkeys(name for name in found if name))


def load_names(path: Path | None) -> dict[str, int] | None:
    """The canonical project names of a local list (tab-separated: name, version, month,
    download rank, summary), each with its download rank (``1_000_000`` when unranked), or
    None when there is no list."""
    if path is None or not path.is_file():
        return None
    names = {}
    with path.open(encoding="utf-8", errors="replace") as lines:
        next(lines, None)
        for line in lines:
            cells = line.split("\t", 4)
            rank = cells[3] if len(cells) > 3 else ""
            names[canonical(cells[0])] = int(rank) if rank.isdigit() else 1_000_000
    return names


def index_candidates(entry: Source) -> list[str]:
    """Names the project may have, from the ``Sources`` index alone (before any download):
    a PyPI or forge ``Homepage``, the ``python3-*`` binaries, the source name."""
    found = [m.group(1) for m in _PYPI_URL.finditer(entry.homepage)]
    forge = _FORGE_URL.search(entry.homepage)
    if forge:
        found.append(re.sub(r"\.git$", "", forge.group(1)))
    found += [b[len("python3-") :] for b in entry.binaries if b.startswith("python3-")]
    found.append(re.sub(r"^(python3?|py)-", "", entry.package))
    return found


def by_popularity(
    pairs: list[tuple[str, str, str]],
    indexes: dict[str, dict[str, Source]],
    names: dict[str, int] | None,
) -> list[tuple[str, str, str]]:
    """``pairs`` with the most downloaded projects first (by the local list's rank of the
    best name :func:`index_candidates` finds; unranked and unknown last, then by name), so
    that a bounded run (``--limit``) mines the projects most users carry patches on."""
    if names is None:
        return pairs

    def rank(pair: tuple[str, str, str]) -> tuple[int, str, int]:
        entry = indexes[pair[1]][pair[0]]
        ranks = [names.get(canonical(name), 2_000_000) for name in index_candidates(entry)]
        return (min(ranks), pair[0], ALL_SUITES.index(pair[1]))

    return sorted(pairs, key=rank)


def missing_marker(source: str, suite: str) -> Path:
    """Where a source the archive did not serve in ``suite`` is remembered (the file holds
    the Debian version that was asked for)."""
    return accuracy.cache_root() / "debian-series" / suite / ".missing" / source


def archive_uri(suite: str) -> str | None:
    """The archive URI ``debian-series`` reads ``suite`` from: the first ``URIs:`` value of
    the source entries it writes beside the suite's index (``src.sources``), or None."""
    index = sources_index(suite)
    config = index.parent.parent / "src.sources" if index is not None else None
    if config is None or not config.is_file():
        return None
    found = re.search(r"^URIs:\s*(\S+)", config.read_text(encoding="utf-8"), re.M)
    return found.group(1).rstrip("/") if found else None


def tarball_version(tarball: str) -> str:
    """The upstream version ``debian-series`` prints for a ``.debian.tar.*`` file name (its
    rule: the text between ``_`` and the first ``-``, the first ``+dfsg``/``~dfsg`` and
    ``+ds``/``~ds`` suffix removed).

    >>> tarball_version("python-django_3.2.25-0+deb12u3.debian.tar.xz")
    '3.2.25'
    """
    version = re.sub(r"^[^_]+_([^-]+)-.*", r"\1", tarball)
    version = re.sub(r"^[0-9]+:", "", version)
    version = re.sub(r"[+~]dfsg[0-9.]*", "", version, count=1)
    return re.sub(r"[+~]ds[0-9.]*", "", version, count=1)


#: How one ``debian/`` directory was had (the counts' keys).
CACHED, DOWNLOADED, SHARED = "cached", "downloaded", "same file as another suite's"
NOT_FOUND, FAILED = "not served by the archive (404)", "download failed (tried again next run)"


def fetch(source: str, suite: str, entry: Source) -> tuple[Path | None, str]:
    """The cached ``debian/`` directory of ``source`` in ``suite`` and how it was had
    (:data:`CACHED`, :data:`DOWNLOADED`, :data:`SHARED`), or ``(None, NOT_FOUND)`` /
    ``(None, FAILED)``.

    The ``.debian.tar.*`` file the suite's ``Sources`` paragraph names is downloaded with
    apt's own downloader (``apt-helper download-file``, which follows the machine's apt
    configuration and checks the SHA-256) from the URI ``debian-series`` uses, and unpacked
    (``tarfile``'s ``data`` filter) into the layout ``debian-series`` gives
    (``debian-series/SUITE/SOURCE/{UPSTREAM-VERSION,*.debian.tar.*,debian/}``), so that the
    accuracy run finds it. The same Debian version in two suites is one archive file: it is
    copied, and a 404 for it is remembered for every suite. A 404 is final (remembered under
    ``.missing/`` with the version); another failure is tried again on the next run.
    """
    root = accuracy.cache_root() / "debian-series"
    dest = root / suite / source
    if (dest / accuracy.VERSION_FILE).is_file():
        return dest / "debian", CACHED
    for other in ALL_SUITES:
        marker = missing_marker(source, other)
        if marker.is_file() and marker.read_text(encoding="utf-8").strip() == entry.version:
            return None, NOT_FOUND
    dest.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{source}.", dir=dest.parent))
    try:
        for other in ALL_SUITES:
            twin = root / other / source
            if entry.tarball and (twin / entry.tarball).is_file():
                shutil.copytree(twin, scratch, symlinks=True, dirs_exist_ok=True)
                os.rename(scratch, dest)
                return dest / "debian", SHARED
        uri = archive_uri(suite)
        if uri is None or not (entry.directory and entry.tarball and entry.sha256):
            return None, FAILED
        try:
            done = subprocess.run(
                [
                    "/usr/lib/apt/apt-helper",
                    "-o",
                    "APT::Sandbox::User=root",
                    "-o",
                    "Acquire::http::Timeout=60",
                    "download-file",
                    f"{uri}/{entry.directory}/{entry.tarball}",
                    str(scratch / entry.tarball),
                    f"SHA256:{entry.sha256}",
                ],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=300,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None, FAILED
        if done.returncode != 0:
            if re.search(r"\b404\b", done.stdout + done.stderr):
                marker = missing_marker(source, suite)
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text(entry.version + "\n", encoding="utf-8")
                return None, NOT_FOUND
            return None, FAILED
        with tarfile.open(scratch / entry.tarball) as archive:
            archive.extractall(scratch, filter="data")
        version = tarball_version(entry.tarball)
        (scratch / accuracy.VERSION_FILE).write_text(version + "\n", encoding="utf-8")
        os.rename(scratch, dest)
        return dest / "debian", DOWNLOADED
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def fetch_source(
    source: str, indexes: dict[str, dict[str, Source]], tally: Tally
) -> dict[str, Path]:
    """The served ``debian/`` directories of ``source``, by suite (every suite whose index
    lists it, in :data:`ALL_SUITES` order, one after the other so that a version two suites
    share is fetched once); each attempt counted by how it went."""
    served = {}
    for suite in ALL_SUITES:
        entry = indexes.get(suite, {}).get(source)
        if entry is None:
            continue
        debian, how = fetch(source, suite, entry)
        tally.add(f"debian/ directories: {how}")
        if debian is not None:
            served[suite] = debian
    return served


def served_pairs(
    source: str, indexes: dict[str, dict[str, Source]], served: set[str]
) -> list[tuple[str, str, str]]:
    """``(source, older suite, newer suite)`` for consecutive suites among those the archive
    served (in :data:`SUITES` order) whose upstream versions differ: an upgrade may skip a
    suite whose ``debian/`` the archive does not serve (the newer changelog covers every
    version between). Then every further pair of served releases whose upstream versions
    differ (:func:`longer_pairs`: a user of the older release who upgrades to a later one
    upgrades over the releases between), one per pair of upstream versions. Then the
    upgrades into the served suites beside the releases (:func:`extra_pairs`) that do not
    repeat one already paired: the same older Debian version to the same new upstream
    version is one upgrade (the same series audited on the same trees), however many
    suites reach it; the releases' pair is kept."""
    pairs = consecutive_pairs(source, indexes, served)
    spans = {span_key(pair, indexes) for pair in pairs}
    for pair in longer_pairs(source, indexes, served):
        if span_key(pair, indexes) not in spans:
            spans.add(span_key(pair, indexes))
            pairs.append(pair)
    seen = {pair_key(pair, indexes) for pair in pairs}
    for pair in extra_pairs(source, indexes, served):
        key = pair_key(pair, indexes)
        if key not in seen:
            seen.add(key)
            spans.add(span_key(pair, indexes))
            pairs.append(pair)
    for pair in extra_pairs(source, indexes, served, every=True):
        if pair_key(pair, indexes) not in seen and span_key(pair, indexes) not in spans:
            seen.add(pair_key(pair, indexes))
            spans.add(span_key(pair, indexes))
            pairs.append(pair)
    return pairs


def consecutive_pairs(
    source: str, indexes: dict[str, dict[str, Source]], served: set[str]
) -> list[tuple[str, str, str]]:
    """``(source, older suite, newer suite)`` for consecutive releases among the ``served``
    ones (in :data:`SUITES` order) whose upstream versions differ."""
    present = [s for s in SUITES if s in served and source in indexes.get(s, {})]
    pairs = []
    for old, new in itertools.pairwise(present):
        a = debian_truth.upstream_version(indexes[old][source].version)
        b = debian_truth.upstream_version(indexes[new][source].version)
        if a != b:
            pairs.append((source, old, new))
    return pairs


def longer_pairs(
    source: str, indexes: dict[str, dict[str, Source]], served: set[str]
) -> list[tuple[str, str, str]]:
    """``(source, older suite, newer suite)`` for the pairs of ``served`` releases (in
    :data:`SUITES` order, nearest newer suite first) that are not consecutive, whose
    Debian versions rise and whose upstream versions differ: the newer suite's changelog
    covers every version between, so its series is the maintainers' answer to the older
    one's over the whole span. Pairs of the same upstream versions are not removed here
    (:func:`served_pairs` keeps one)."""
    present = [s for s in SUITES if s in served and source in indexes.get(s, {})]
    pairs = []
    for i, old in enumerate(present):
        for new in present[i + 2 :]:
            a, b = indexes[old][source].version, indexes[new][source].version
            if debian_truth.compare_versions(b, a) <= 0:
                continue
            if debian_truth.upstream_version(a) != debian_truth.upstream_version(b):
                pairs.append((source, old, new))
    return pairs


def extra_pairs(
    source: str, indexes: dict[str, dict[str, Source]], served: set[str], every: bool = False
) -> list[tuple[str, str, str]]:
    """``(source, older suite, extra suite)`` for each served suite of
    :data:`EXTRA_SUITES` (in its order) whose Debian version is higher than, and whose
    upstream version differs from, the newest served release up to the one it follows
    (a backport of bookworm after bookworm, else bullseye; experimental after sid, else
    the newest release before it): that release's series upgraded by the suite's
    maintainers, whose changelog covers every version between. With ``every``, the older
    served releases up to the one it follows instead (each a longer upgrade into the
    suite, newest first). Repeats are not removed here (:func:`served_pairs` does)."""
    pairs = []
    for extra, follows in EXTRA_SUITES.items():
        entry = indexes.get(extra, {}).get(source)
        if entry is None or extra not in served:
            continue
        releases = SUITES[: SUITES.index(follows) + 1]
        older = [s for s in releases if s in served and source in indexes.get(s, {})]
        for release in reversed(older[:-1]) if every else older[-1:]:
            base = indexes[release][source]
            if debian_truth.compare_versions(entry.version, base.version) <= 0:
                continue
            if debian_truth.upstream_version(entry.version) != debian_truth.upstream_version(
                base.version
            ):
                pairs.append((source, release, extra))
    return pairs


def pair_key(
    pair: tuple[str, str, str], indexes: dict[str, dict[str, Source]]
) -> tuple[str, str, str]:
    """What makes an upgrade one: ``(source, older Debian version, new upstream version)``."""
    source, old, new = pair
    return (
        source,
        indexes[old][source].version,
        debian_truth.upstream_version(indexes[new][source].version),
    )


def span_key(
    pair: tuple[str, str, str], indexes: dict[str, dict[str, Source]]
) -> tuple[str, str, str]:
    """The upstream span of an upgrade: ``(source, older upstream version, newer upstream
    version)``; a longer upgrade over a span already paired adds no new trees."""
    source, old, new = pair
    return (
        source,
        debian_truth.upstream_version(indexes[old][source].version),
        debian_truth.upstream_version(indexes[new][source].version),
    )


def series_texts(debian: Path) -> tuple[list[tuple[str, int | None]], dict[str, str]]:
    """A fetched series: its entries and each patch's text (``""`` when the file is missing)."""
    series = debian / "patches" / "series"
    if not series.is_file():
        return [], {}
    entries = accuracy.read_series(series)
    texts = {}
    for name, _strip in entries:
        path = debian / "patches" / name
        texts[name] = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    return entries, texts


def touches_python(texts: Iterable[str]) -> bool:
    r"""Whether a patch of ``texts`` changes, creates or deletes a Python file
    (:data:`PYTHON_FILE`, by the names on its ``---``/``+++`` lines).

    >>> touches_python(["--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@\n"])
    True
    >>> touches_python(["--- a/src/x.c\n+++ b/src/x.c\n@@ -1 +1 @@\n"])
    False
    """
    return any(
        PYTHON_FILE.search(name)
        for text in texts
        for name in re.findall(r"^(?:---|\+\+\+) (\S+)", text, re.M)
    )


def modified_paths(text: str, strip: int) -> set[str]:
    """Paths (after ``strip`` components) of the files a patch modifies or deletes (not the
    ones it creates: their ``---`` side is ``/dev/null``)."""
    paths = set()
    for match in re.finditer(r"^--- (\S+).*\n\+\+\+ (\S+)", text, re.M):
        if match.group(1) == "/dev/null":
            continue
        parts = match.group(1).split("/")[strip:]
        if parts and ".." not in parts:
            paths.add("/".join(parts))
    return paths


def find_directory(tree: Path, missing: set[str]) -> str | None:
    """A directory of ``tree`` under which every path of ``missing`` exists, if exactly one
    (patches cut against a subdirectory of the sdist: the ``directory`` setting)."""
    if not missing:
        return None
    sample = sorted(missing)[0]
    found = []
    for candidate in tree.rglob(sample.rsplit("/", 1)[-1]):
        relative = candidate.relative_to(tree).as_posix()
        if relative.endswith("/" + sample):
            prefix = relative[: -len(sample) - 1]
            if all((tree / prefix / path).exists() for path in missing):
                found.append(prefix)
    return found[0] if len(found) == 1 else None


def toml_string(text: str) -> str:
    """A TOML basic string (JSON escapes are TOML escapes; DEL removed)."""
    return json.dumps(text.replace("\x7f", ""), ensure_ascii=False)


@dataclass
class Mined:
    """One mined upgrade ready to write, or the reason it was left out."""

    source: str
    old: str
    new: str
    reason: str = ""
    text: str = ""
    rows: Counter[str] = field(default_factory=Counter)
    left_out: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    project: str = ""
    #: Debian's orig tarballs (pin, new) when the upgrade is audited on them, and why.
    origs: tuple[accuracy.OrigTarball, accuracy.OrigTarball] | None = None
    trees_why: str = ""
    #: How each orig tarball the miner asked for was had (the counts' keys).
    origs_how: Counter[str] = field(default_factory=Counter)


def mine_pair(
    pair: tuple[str, str, str],
    indexes: dict[str, dict[str, Source]],
    names: dict[str, int] | None,
    debians: dict[str, Path],
) -> Mined:
    """Mine one upgrade (see the module docstring) from the fetched ``debian/`` directories
    of its source (``debians``: suite -> directory); never raises for a data problem.

    The pin and new trees are the PyPI sdists when both can be had and hold every file the
    series patches; otherwise Debian's orig tarballs of both upstream versions (the trees
    the series applies to), when they judge more patches: the row says which
    (``trees``, ``trees-why``)."""
    from packaging.version import InvalidVersion, Version

    from patchkeeper.errors import FetchError
    from patchkeeper.upstream.fetch import fetch_requirement

    source, old, new = pair
    mined = Mined(source, old, new)
    old_debian, new_debian = debians[old], debians[new]
    entries, old_texts = series_texts(old_debian)
    if not entries:
        mined.reason = NO_SERIES
        return mined
    if not indexes[old][source].helper and not touches_python(old_texts.values()):
        mined.reason = NO_PYTHON
        return mined
    old_version = accuracy.debian_version(old_debian) or indexes[old][source].version
    new_version = accuracy.debian_version(new_debian) or indexes[new][source].version
    pin = debian_truth.upstream_version(old_version)
    to = debian_truth.upstream_version(new_version)
    try:
        if Version(to) <= Version(pin):
            mined.reason = DOWNGRADE
            return mined
    except InvalidVersion:
        mined.reason = NOT_PEP440
        return mined
    candidates = project_candidates(old_debian, source)
    known = candidates
    if names is not None:
        known = [name for name in candidates if canonical(name) in names]
    new_entries, new_texts = series_texts(new_debian)
    changelog = new_debian / "changelog"
    log = debian_truth.parse_changelog(
        changelog.read_text(encoding="utf-8", errors="replace") if changelog.is_file() else ""
    )
    between = debian_truth.entries_between(log, old_version, new_version)
    series = Series(
        entries,
        old_texts,
        new_texts,
        between,
        to,
        f"{new} {new_version}",
        pin,
        {name: strip or 1 for name, strip in new_entries},
        debian_truth.unexplained_drops(old_texts, new_texts, between, to, pin),
    )
    judged: Judged | None = None
    why_not_sdist = NO_PROJECT if not known else ""
    if known:
        try:
            pin_tree = Path(fetch_requirement(f"{canonical(known[0])}=={pin}").root)
            to_tree = Path(fetch_requirement(f"{canonical(known[0])}=={to}").root)
        except FetchError:
            why_not_sdist = NO_SDIST
        else:
            judged = judge(series, pin_tree, to_tree, accuracy.SDIST_TREES)
            if judged.left_out[SDIST_LACKS] or judged.left_out[NEW_SDIST_LACKS]:
                why_not_sdist = SDIST_LACKS_WHY
    if why_not_sdist:
        pin_orig, to_orig = indexes[old][source].orig, indexes[new][source].orig
        on_orig = orig_trees((pin_orig, to_orig), old, mined)
        if on_orig is not None and pin_orig is not None and to_orig is not None:
            orig_judged = judge(series, *on_orig, accuracy.ORIG_TREES)
            if judged is None or orig_judged.patches() > judged.patches():
                judged = orig_judged
                mined.trees_why = why_not_sdist
                mined.origs = (pin_orig, to_orig)
    if judged is None:
        mined.reason = why_not_sdist
        return mined
    # the project: the PyPI name the sdists were fetched by, else the likeliest name (a
    # label only: the orig tarballs were audited)
    mined.project = canonical((known or candidates or [source])[0])
    mined.left_out, mined.notes = judged.left_out, judged.notes
    mined.rows = judged.truths
    if not judged.rows:
        mined.reason = NO_TRUTH
        return mined
    if len({strip or 1 for _name, strip in entries}) > 1:
        mined.notes[STRIPS_MIXED] += 1
    head = [
        "# Generated by benchmarks/mine_debian.py from Debian's archive: do not edit by hand.",
        f"source = {toml_string(source)}",
        f"suite = {toml_string(old)}",
        f"debian-version = {toml_string(old_version)}",
        f"upstream = {toml_string(mined.project)}",
        f"pin = {toml_string(pin)}",
        f"to = {toml_string(to)}",
        f"to-why = {toml_string(f'{new} upstream version (Debian {new_version})')}",
        "mined = true",
    ]
    if judged.directory:
        head.append(f"directory = {toml_string(judged.directory)}")
    if mined.origs is not None:
        head += [
            f"trees = {toml_string(accuracy.ORIG_TREES)}",
            f"trees-why = {toml_string(mined.trees_why)}",
            f"pin-orig = {orig_table(mined.origs[0])}",
            f"to-orig = {orig_table(mined.origs[1])}",
        ]
    mined.text = "\n".join(head + judged.rows) + "\n"
    return mined


@dataclass(frozen=True)
class Series:
    """What an upgrade's truths are read from: the older series (``entries``, ``(name,
    -pN or None)``; ``old_texts``, each patch's text), the newer one's texts, the newer
    changelog's entries after the older Debian version, the new upstream version, the
    label of the newer suite's version (``"trixie 2.0-1"``), the older upstream version
    (``pin``), the newer series' strip levels by name (``new_strips``) and how many older
    patches the newer series drops with no item naming them (``unexplained``:
    :func:`debian_truth.unexplained_drops`, counted over the whole older series)."""

    entries: list[tuple[str, int | None]]
    old_texts: dict[str, str]
    new_texts: dict[str, str]
    between: list[debian_truth.ChangelogEntry]
    to: str
    label: str
    pin: str = ""
    new_strips: dict[str, int] = field(default_factory=dict)
    unexplained: int = 0


@dataclass
class Judged:
    """An upgrade's rows on one kind of trees: the TOML lines of the ``[patches]`` tables,
    the truths written and the patches left out (by reason), notes, the ``directory``
    setting found."""

    rows: list[str] = field(default_factory=list)
    truths: Counter[str] = field(default_factory=Counter)
    left_out: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    directory: str = ""

    def patches(self) -> int:
        """How many patches got a truth."""
        return sum(self.truths.values())


def judge(series: Series, pin_tree: Path, to_tree: Path, kind: str) -> Judged:
    """The truths of ``series`` on the trees ``pin_tree`` and ``to_tree`` of ``kind``
    (:data:`accuracy.SDIST_TREES` or :data:`accuracy.ORIG_TREES`): a patch that modifies a
    file the pin's tree lacks, or that Debian kept on a file the new tree lacks, is left out
    (no audit of those trees can judge it), counted by a reason naming the kind."""
    judged = Judged()
    entries, old_texts = series.entries, series.old_texts
    lacks, new_lacks = (
        (SDIST_LACKS, NEW_SDIST_LACKS)
        if kind == accuracy.SDIST_TREES
        else (ORIG_LACKS, NEW_ORIG_LACKS)
    )
    paths = {name: modified_paths(old_texts[name], strip or 1) for name, strip in entries}
    missing = {name: {p for p in paths[name] if not (pin_tree / p).exists()} for name in paths}
    every_missing = set().union(*missing.values())
    if every_missing and every_missing == set().union(*paths.values()):
        judged.directory = find_directory(pin_tree, every_missing) or ""
        if judged.directory:
            missing = {name: set() for name in missing}
            judged.notes[DIRECTORY_SET] += 1
    new_root = to_tree / judged.directory if judged.directory else to_tree
    pin_root = pin_tree / judged.directory if judged.directory else pin_tree
    trees = debian_truth.Trees(
        file_reader(pin_root),
        file_reader(new_root),
        {name: strip or 1 for name, strip in entries},
        series.new_strips,
    )
    for name, _strip in entries:
        if not debian_truth.changed_lines(old_texts[name]):
            judged.left_out[NOT_A_DIFF] += 1
            continue
        if missing[name]:
            judged.left_out[lacks] += 1
            continue
        result = debian_truth.outcome(
            name,
            old_texts[name],
            series.new_texts,
            series.between,
            series.to,
            series.label,
            frozenset(old_texts),
            series.pin,
            trees,
            series.unexplained,
        )
        if result.truth is None:
            judged.left_out[result.reason] += 1
            continue
        kept = result.truth != debian_truth.UPSTREAMED
        if kept and any(not (new_root / path).exists() for path in paths[name]):
            # Debian kept the patch, so its files are in Debian's upstream tarball: the new
            # tree lacks them (tests, docs), and no audit of it can judge the patch
            judged.left_out[new_lacks] += 1
            continue
        judged.truths[result.truth] += 1
        judged.rows += [
            "",
            f"[patches.{toml_string(name)}]",
            f"truth = {toml_string(result.truth)}",
            f"why = {toml_string(result.why)}",
            f"source = {toml_string(result.source)}",
        ]
    return judged


def file_reader(root: Path) -> debian_truth.FileReader:
    """Reads a file of the tree ``root`` by its relative path: its lines (undecodable bytes
    replaced), or None when the tree has no such file or the path leaves the tree."""

    def read(path: str) -> list[str] | None:
        if ".." in path.split("/"):
            return None
        file = root / path
        if not file.is_file():
            return None
        return file.read_text(encoding="utf-8", errors="replace").splitlines()

    return read


def orig_trees(
    origs: tuple[accuracy.OrigTarball | None, accuracy.OrigTarball | None],
    suite: str,
    mined: Mined,
) -> tuple[Path, Path] | None:
    """The unpacked orig tarballs (pin, new) of an upgrade (:func:`accuracy.fetch_orig`, from
    the archive of the older ``suite``), or None when a suite's index names none, one is
    larger than :data:`MAX_ORIG_BYTES`, or one cannot be had; each tarball counted in
    ``mined.origs_how`` by how it went."""
    trees = []
    for orig in origs:
        if orig is None:
            mined.origs_how[ORIG_NONE] += 1
            return None
        if orig_size(orig) > MAX_ORIG_BYTES:
            mined.origs_how[ORIG_TOO_LARGE] += 1
            return None
        cached = (accuracy.cache_root() / accuracy.ORIG_CACHE / orig.file).is_dir()
        try:
            trees.append(accuracy.fetch_orig(orig, suite))
        except RuntimeError as error:
            mined.origs_how[ORIG_NOT_FOUND if str(error).endswith("404") else ORIG_FAILED] += 1
            return None
        mined.origs_how[ORIG_CACHED if cached else ORIG_DOWNLOADED] += 1
    return trees[0], trees[1]


def orig_table(orig: accuracy.OrigTarball) -> str:
    """A TOML inline table of an orig tarball (``file``, ``directory``, ``sha256``)."""
    return (
        f"{{ file = {toml_string(orig.file)}, directory = {toml_string(orig.directory)}, "
        f"sha256 = {toml_string(orig.sha256)} }}"
    )


def write_counts(tally: Tally, projects: set[str], started: float, path: Path) -> None:
    """Write the miner's counts as TOML (sorted keys, one table)."""
    lines = [
        "# Generated by benchmarks/mine_debian.py: what the miner found and what it left out.",
        f"mined-at = {toml_string(time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))}",
        f"seconds = {int(time.time() - started)}",
        f"projects = {len(projects)}",
        "",
        "[counts]",
    ]
    for key in sorted(tally.counts):
        lines.append(f"{toml_string(key)} = {tally.counts[key]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3, help="downloads at once (default 3)")
    parser.add_argument("--limit", type=int, help="mine at most this many source packages")
    parser.add_argument("--only", help="comma-separated source packages")
    parser.add_argument("--names", type=Path, default=DEFAULT_NAMES, help="local project names")
    parser.add_argument("--out", type=Path, default=MINED, help=f"default {MINED}")
    args = parser.parse_args(argv)
    started = time.time()
    indexes = {}
    for suite in SUITES:
        index = sources_index(suite)
        if index is None:
            print(
                f"mine_debian: no Sources index for {suite}: run "
                f"SUITE={suite} ../shared/tools/debian-series requests /tmp/x",
                file=sys.stderr,
            )
            return 2
        indexes[suite] = parse_sources(read_index(index))
    for suite in EXTRA_SUITES:
        index = security_index(suite) if suite.endswith("-security") else sources_index(suite)
        if index is None:
            print(
                f"mine_debian: no Sources index for {suite}: its upgrades are not mined",
                file=sys.stderr,
            )
            continue
        indexes[suite] = parse_sources(read_index(index))
    pairs = upgrade_pairs(indexes)
    if args.only:
        wanted = {name.strip() for name in args.only.split(",")}
        pairs = [pair for pair in pairs if pair[0] in wanted]
    tally = Tally()
    tally.add("python source packages (any suite)", len(set().union(*map(set, indexes.values()))))
    tally.add(
        "python source packages built without a Python build helper (any suite)",
        len({n for index in indexes.values() for n, e in index.items() if not e.helper}),
    )
    tally.add("suite pairs with a new upstream version", len(pairs))
    names = load_names(args.names)
    sources = list(dict.fromkeys(pair[0] for pair in by_popularity(pairs, indexes, names)))
    if args.limit is not None:
        sources = sources[: args.limit]
    tally.add("source packages tried", len(sources))
    args.out.mkdir(parents=True, exist_ok=True)
    projects: set[str] = set()
    fetched: dict[str, dict[str, Path]] = {}
    done = 0

    def fetch_one(source: str) -> None:
        nonlocal done
        try:
            served = fetch_source(source, indexes, tally)
        except Exception as error:  # a data problem must not stop the run: count it
            tally.add(f"source package left out: fetch error {type(error).__name__}")
            print(f"{source}: {type(error).__name__}: {error}", file=sys.stderr)
            return
        with tally.lock:
            fetched[source] = served
            done += 1
            if done % 250 == 0:
                print(f"{done}/{len(sources)} source packages fetched", file=sys.stderr)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(fetch_one, sources))
    upgrades = []
    for source in sources:
        served = set(fetched.get(source, {}))
        found = served_pairs(source, indexes, served)
        present = {suite for suite in SUITES if source in indexes.get(suite, {})}
        consecutive = {(old, new) for _s, old, new in consecutive_pairs(source, indexes, present)}
        among_served = {(old, new) for _s, old, new in consecutive_pairs(source, indexes, served)}
        for pair in found:
            if pair[2] in EXTRA_SUITES or (pair[1], pair[2]) in consecutive:
                continue
            if (pair[1], pair[2]) in among_served:
                tally.add("upgrades between served suites that skip a suite not served")
            else:
                tally.add(
                    "upgrades between served releases over a served release between "
                    "(every pair of upstream versions)"
                )
        both = sum(1 for old, new in consecutive if {old, new} <= served)
        extras = extra_pairs(source, indexes, served)
        kept = sum(1 for pair in found if pair[2] in EXTRA_SUITES and pair in extras)
        tally.add(
            "upgrades into a suite beside the releases from an older release",
            sum(1 for pair in found if pair[2] in EXTRA_SUITES and pair not in extras),
        )
        tally.add("upgrades into a suite beside the releases", kept)
        tally.add(
            "upgrades into a suite beside the releases left out: the same older Debian "
            "version to the same upstream version is paired already",
            len(extras) - kept,
        )
        tally.add("suite pairs with a new upstream version, both suites served", both)
        if not found:
            tally.add(
                "source package left out: fewer than two served suites of two upstream versions"
            )
        upgrades += found
    tally.add("upgrades between served suites", len(upgrades))
    done = 0

    def one(pair: tuple[str, str, str]) -> None:
        nonlocal done
        try:
            mined = mine_pair(pair, indexes, names, fetched[pair[0]])
        except Exception as error:  # a data problem must not stop the run: count it
            tally.add(f"upgrade left out: miner error {type(error).__name__}")
            print(f"{pair}: {type(error).__name__}: {error}", file=sys.stderr)
            return
        if mined.reason:
            tally.add(f"upgrade left out: {mined.reason}")
        else:
            (args.out / f"{mined.source}.{mined.old}-{mined.new}.toml").write_text(
                mined.text, encoding="utf-8"
            )
            with tally.lock:
                projects.add(mined.project)
            tally.add("upgrades written")
            for truth, n in mined.rows.items():
                tally.add(f"patches: {truth}", n)
                tally.add("patches with a truth", n)
        for reason, n in mined.left_out.items():
            tally.add(f"patch left out: {reason}", n)
        for how, n in mined.origs_how.items():
            tally.add(f"orig tarballs: {how}", n)
        if not mined.reason and mined.origs is not None:
            tally.add(f"upgrades written on Debian's orig tarballs: {mined.trees_why}")
        if not mined.reason:
            for note, n in mined.notes.items():
                tally.add(f"upgrades written with {note}", n)
        with tally.lock:
            done += 1
            if done % 25 == 0:
                write_counts(tally, projects, started, COUNTS)
                print(
                    f"{done}/{len(upgrades)} upgrades tried, {tally.counts['upgrades written']}"
                    f" written, {tally.counts['patches with a truth']} patches",
                    file=sys.stderr,
                )

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, upgrades))
    write_counts(tally, projects, started, COUNTS)
    sys.stdout.write(COUNTS.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
