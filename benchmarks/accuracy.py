"""How often `audit --to` is right: the accuracy corpus of real upgrades.

    python benchmarks/accuracy.py [--set SET[,SET]] [--only NAME[,NAME]] [--jobs N]
                                  [--json FILE] [--markdown FILE]
    python benchmarks/accuracy.py --at-pin [--only NAME]     # does each series apply at its pin?

Three sets (``--set``, default all): ``hand-written`` (``benchmarks/accuracy/upgrades/``),
and the mined corpus (``benchmarks/accuracy/mined/``, written by ``mine_debian.py``) split by
project into ``development`` and ``test`` (``benchmarks/accuracy/split.toml``). The report
starts with what a maintainer does next, per set and truth class: the audit's ``action``
(retire, carry, port, look) against the truth (upstreamed -> retire, carried -> carry, port ->
port; a hand-written carried patch may be carried or ported, partial is ported), with
``look`` counted on its own, *false retire* (a kept patch the audit would retire), and the
naive baseline's actions; then the same outcomes per set and per rule that decided the
verdict (the audit's ``rule``); then the miner's counts; then the hand-written corpus's
report below; then the development set's actions that are not right. The test set is
reported by its totals only (per truth class and per rule), and ``--json`` holds only its
totals.

Every ``benchmarks/accuracy/upgrades/*.toml`` names a Debian source package, the suite its
patch series comes from, the PyPI release the series is cut against (``pin``), a later release
(``to``) and, for every patch of the series, the truth written by hand: ``upstreamed``,
``partial`` or ``carried``, with a short why, written from evidence before the audit ran
(the format: ``benchmarks/accuracy/FORMAT.md``). For each upgrade the script

1. fetches the Debian series with ``../shared/tools/debian-series`` (``SUITE`` set to the
   suite) into the corpus cache (``$PATCHKEEPER_CACHE`` or ``~/.cache/patchkeeper-corpus``,
   under ``debian-series/SUITE/SOURCE``) once, and reuses it; warns when the Debian version
   differs from the file's ``debian-version`` (the truth was written for that one);
2. builds a temporary downstream (the patches copied, a ``patchkeeper.toml`` with upstream,
   pin, series, strip and directory) and runs the installed CLI, only as a subprocess:
   ``patchkeeper -C DIR audit --to UPSTREAM==TO --json`` (the CLI fetches the sdists); a
   mined upgrade on Debian's orig tarballs (``trees = "debian-orig"``) is audited as
   ``audit --to NEW-DIR --pristine PIN-DIR --json`` on both tarballs, fetched once from the
   archive ``debian-series`` uses into the corpus cache (``debian-orig/FILE/``) and reused;
3. runs the naive baseline on the same new tree: GNU ``patch -R --dry-run --fuzz 0 -pSTRIP``
   of each patch in series order on a scratch copy of the files the series names, where each
   patch that reverse-applies is then reversed for real (so that a later patch sees the tree
   without it); "upstreamed" when it reverse-applies, otherwise "carried";
4. scores both against the truth: a verdict is right when truth *upstreamed* gets
   *upstreamed*, truth *partial* gets *partially upstreamed*, truth *carried* gets any carried
   verdict (*clean*, *offset*, *conflict*, *target gone*, *blocked*).

It prints per-upgrade and total confusion tables (truth against verdict), the accuracy, the
upstreamed patches found, the carried patches called upstreamed or partially upstreamed (the
worst error: a maintainer who trusts the verdict drops a fix upstream lacks), every
disagreement with the tool's evidence, the baseline's tables and the wall times. The report is
Markdown; the whole corpus also writes it to ``benchmarks/results/accuracy.md`` (``--only``
writes it only when ``--markdown`` is given). ``--json FILE`` writes every patch's truth,
verdict, baseline verdict and evidence. Exit status: 0 when every upgrade ran, 1 when one
failed (fetch, audit), 2 on a bad upgrade file.

Standard library only (``tomllib``; ``tomli`` on Python 3.10, a dependency of the project).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

BENCHMARKS = Path(__file__).resolve().parent
REPOSITORY = BENCHMARKS.parent
UPGRADES = BENCHMARKS / "accuracy" / "upgrades"
RESULTS = BENCHMARKS / "results" / "accuracy.md"
#: The shared download tool, beside the repository (shared/REAL-DATA.md), or beside the
#: folder of worktrees when the repository is a worktree one level deeper.
DEBIAN_SERIES = next(
    (
        path
        for path in (
            REPOSITORY.parent / "shared" / "tools" / "debian-series",
            REPOSITORY.parent.parent / "shared" / "tools" / "debian-series",
        )
        if path.is_file()
    ),
    REPOSITORY.parent / "shared" / "tools" / "debian-series",
)
#: Written beside ``debian/`` once a fetched series is complete: the upstream version, one line.
VERSION_FILE = "UPSTREAM-VERSION"

TRUTHS = ("upstreamed", "partial", "carried")
#: Truths a mined upgrade may also carry: ``port`` (kept, its changed lines rewritten).
MINED_TRUTHS = (*TRUTHS, "port")
MINED = BENCHMARKS / "accuracy" / "mined"
MINED_COUNTS = BENCHMARKS / "accuracy" / "mined-counts.toml"
SPLIT = BENCHMARKS / "accuracy" / "split.toml"
#: Mined truths corrected by hand, each on evidence the miner does not read (quoted).
CORRECTIONS = BENCHMARKS / "accuracy" / "corrections.toml"
#: The sets, in report order: the hand-written corpus, then the mined corpus split by project.
SETS = ("hand-written", "development", "test")
#: What a maintainer does next (the audit's ``action``).
ACTIONS = ("retire", "carry", "port", "look")
#: The right actions per truth. A hand-written ``carried`` truth does not say whether the
#: patch still applies, so carry and port are both right there; ``partial`` is ported (the
#: rest of it is carried). A mined ``carried`` truth is a patch kept with the same lines
#: (carry); ``port`` is one kept with rewritten lines.
RIGHT_ACTIONS = {
    "hand-written": {
        "upstreamed": {"retire"},
        "partial": {"port"},
        "carried": {"carry", "port"},
    },
    "mined": {
        "upstreamed": {"retire"},
        "partial": {"port"},
        "carried": {"carry"},
        "port": {"port"},
    },
}
#: The action a verdict implies when the audit's JSON names none.
VERDICT_ACTION = {
    "upstreamed": "retire",
    "partially upstreamed": "port",
    "clean": "carry",
    "offset": "carry",
    "conflict": "port",
    "target gone": "port",
    "blocked": "port",
}
#: The audit's verdicts, in the order of the tables' columns.
VERDICTS = (
    "upstreamed",
    "partially upstreamed",
    "clean",
    "offset",
    "conflict",
    "target gone",
    "blocked",
)
CARRIED_VERDICTS = frozenset(VERDICTS[2:])
#: Which verdict class is right for each truth.
RIGHT = {"upstreamed": {"upstreamed"}, "partial": {"partially upstreamed"}}
RIGHT["carried"] = set(CARRIED_VERDICTS)
BASELINE_VERDICTS = ("upstreamed", "carried")
REQUIRED_KEYS = {"source": str, "suite": str, "debian-version": str, "upstream": str}
REQUIRED_KEYS |= {"pin": str, "to": str, "to-why": str}
PATCH_FLAGS = ("tests-only", "notes-only", "creates-file", "deletes-file")
#: The kinds of pin and new trees an upgrade is audited on (the key ``trees``): the PyPI
#: sdists (``NAME==VERSION``, the default), or Debian's orig tarballs of both upstream
#: versions, the trees Debian's series applies to (``audit --to DIR --pristine DIR``).
SDIST_TREES, ORIG_TREES = "sdist", "debian-orig"
TREE_KINDS = (SDIST_TREES, ORIG_TREES)
#: Where unpacked orig tarballs are kept in the corpus cache, one directory per file name.
ORIG_CACHE = "debian-orig"


class UpgradeFileError(ValueError):
    """An upgrade file that is not in the corpus format (the message names file and key)."""


@dataclass(frozen=True)
class OrigTarball:
    """One Debian orig tarball (``UPSTREAM.orig.tar.*``) as a suite's ``Sources`` index names
    it: the file name, the archive's pool directory it lies in, and its SHA-256."""

    file: str
    directory: str
    sha256: str


@dataclass(frozen=True)
class Truth:
    """The hand-written truth of one patch: ``truth`` is one of :data:`TRUTHS`."""

    name: str
    truth: str
    why: str
    flags: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Upgrade:
    """One upgrade file: a Debian series (``source`` in ``suite``) from ``pin`` to ``to``."""

    path: Path
    source: str
    suite: str
    debian_version: str
    upstream: str
    pin: str
    to: str
    to_why: str
    strip: int
    directory: str
    truths: dict[str, Truth]
    mined: bool = False
    group: str = "hand-written"
    trees: str = SDIST_TREES
    pin_orig: OrigTarball | None = None
    to_orig: OrigTarball | None = None


@dataclass
class PatchResult:
    """One patch of one upgrade: its truth (None when the file has none) and both verdicts."""

    name: str
    truth: Truth | None
    verdict: str | None = None
    summary: str = ""
    baseline: str | None = None
    action: str | None = None
    baseline_action: str | None = None
    rule: str | None = None


@dataclass
class UpgradeResult:
    """What one upgrade gave: patches in series order, warnings, errors, wall times (s)."""

    upgrade: Upgrade
    patches: list[PatchResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    debian_version: str | None = None
    audit_seconds: float | None = None
    baseline_seconds: float | None = None
    target: str = ""


def load_upgrade(path: Path, group: str = "hand-written") -> Upgrade:
    """Read and check one upgrade file (``group``: the set it is scored in).

    A mined file (``mined = true``) may also have the truth ``port`` and a ``source`` per
    patch (the quoted changelog, header or series line the truth was read from).

    Raises:
        UpgradeFileError: not TOML, a required key missing or of the wrong type, an unknown
            truth value.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UpgradeFileError(f"{path}: {error}") from None
    for key, kind in REQUIRED_KEYS.items():
        if not isinstance(data.get(key), kind):
            raise UpgradeFileError(f"{path}: key {key!r} must be a string")
    strip = data.get("strip", 1)
    directory = data.get("directory", "")
    if not isinstance(strip, int) or isinstance(strip, bool) or strip < 0:
        raise UpgradeFileError(f"{path}: key 'strip' must be a whole number >= 0")
    if not isinstance(directory, str):
        raise UpgradeFileError(f"{path}: key 'directory' must be a string")
    mined = data.get("mined") is True
    trees = data.get("trees", SDIST_TREES)
    if trees not in TREE_KINDS:
        raise UpgradeFileError(f"{path}: key 'trees' must be one of {', '.join(TREE_KINDS)}")
    origs = {key: orig_entry(path, data, key) for key in ("pin-orig", "to-orig")}
    if trees == ORIG_TREES and None in origs.values():
        raise UpgradeFileError(f"{path}: trees = {ORIG_TREES!r} needs pin-orig and to-orig")
    allowed = MINED_TRUTHS if mined else TRUTHS
    truths = {}
    for name, entry in data.get("patches", {}).items():
        truth = entry.get("truth") if isinstance(entry, dict) else None
        if truth not in allowed:
            raise UpgradeFileError(
                f"{path}: [patches.{name!r}] truth must be one of {', '.join(allowed)}"
            )
        flags = tuple(flag for flag in PATCH_FLAGS if entry.get(flag) is True)
        why, source = str(entry.get("why", "")), str(entry.get("source", ""))
        truths[name] = Truth(name, str(truth), why, flags, source)
    return Upgrade(
        path=path,
        source=data["source"],
        suite=data["suite"],
        debian_version=data["debian-version"],
        upstream=data["upstream"],
        pin=data["pin"],
        to=data["to"],
        to_why=data["to-why"],
        strip=strip,
        directory=directory,
        truths=truths,
        mined=mined,
        group=group,
        trees=trees,
        pin_orig=origs["pin-orig"],
        to_orig=origs["to-orig"],
    )


def orig_entry(path: Path, data: dict[str, Any], key: str) -> OrigTarball | None:
    """The orig tarball an upgrade file names under ``key`` (an inline table of the strings
    ``file``, ``directory``, ``sha256``), or None when it names none.

    Raises:
        UpgradeFileError: the table lacks one of them, or holds a file name with a ``/``.
    """
    entry = data.get(key)
    if entry is None:
        return None
    fields = entry if isinstance(entry, dict) else {}
    values = [fields.get(name) for name in ("file", "directory", "sha256")]
    if not all(isinstance(value, str) and value for value in values):
        raise UpgradeFileError(
            f"{path}: key {key!r} must be a table of the strings file, directory, sha256"
        )
    file, directory, sha256 = (str(value) for value in values)
    if "/" in file or not re.fullmatch(r"[0-9a-f]{64}", sha256):
        raise UpgradeFileError(f"{path}: key {key!r}: a bare file name and a SHA-256 in hex")
    return OrigTarball(file, directory, sha256)


def cache_root() -> Path:
    """``$PATCHKEEPER_CACHE`` (``~`` expanded) or ``~/.cache/patchkeeper-corpus``."""
    configured = os.environ.get("PATCHKEEPER_CACHE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "patchkeeper-corpus"


def fetch_series(source: str, suite: str) -> Path:
    """Return the cached ``debian/`` directory of ``source`` in ``suite``, fetching it once.

    The tool downloads into a scratch directory that is renamed into place when complete, so
    a cut-short download is never taken for a cached one.

    Raises:
        RuntimeError: the tool failed (its message included).
    """
    dest = cache_root() / "debian-series" / suite / source
    if not (dest / VERSION_FILE).is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{source}.", dir=dest.parent))
        try:
            done = subprocess.run(
                [str(DEBIAN_SERIES), source, str(scratch)],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "SUITE": suite},
                check=False,
            )
            lines = done.stdout.strip().splitlines()
            if done.returncode != 0 or not lines:
                message = done.stderr.strip() or "no Debian source tarball downloaded"
                raise RuntimeError(f"debian-series {source} ({suite}) failed: {message}")
            (scratch / VERSION_FILE).write_text(lines[-1] + "\n", encoding="utf-8")
            if dest.exists():
                shutil.rmtree(dest)
            os.rename(scratch, dest)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return dest / "debian"


def debian_series_state(suite: str) -> Path:
    """Where ``debian-series`` keeps its apt state for ``suite`` (its ``src.sources`` and
    ``lists/``): ``$DEBIAN_SERIES_CACHE`` or ``$XDG_CACHE_HOME/debian-series``, ``-SUITE``."""
    base = os.environ.get("DEBIAN_SERIES_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "debian-series"
    )
    return Path(f"{base}-{suite}")


def archive_uri(suite: str) -> str | None:
    """The archive URI ``debian-series`` reads ``suite`` from: the first ``URIs:`` value of
    the source entries it writes (``src.sources``), else another suite's (every suite is read
    from the same archive), or None when it has written none."""
    states = [debian_series_state(suite)]
    states += sorted(debian_series_state("").parent.glob(f"{debian_series_state('').name}*"))
    for state in states:
        config = state / "src.sources"
        if config.is_file():
            found = re.search(r"^URIs:\s*(\S+)", config.read_text(encoding="utf-8"), re.M)
            if found:
                return found.group(1).rstrip("/")
    return None


def download_from_archive(uri: str, file: str, sha256: str, dest: Path) -> str | None:
    """Download the archive file ``uri`` to ``dest`` with apt's own downloader (``apt-helper
    download-file``, which follows the machine's apt configuration and checks the SHA-256).

    Returns:
        None when downloaded, ``"404"`` when the archive does not serve it, else apt's last
        message line (a failure worth trying again).
    """
    command = ["/usr/lib/apt/apt-helper", "-o", "APT::Sandbox::User=root"]
    command += ["-o", "Acquire::http::Timeout=60", "download-file", uri, str(dest)]
    try:
        done = subprocess.run(
            [*command, f"SHA256:{sha256}"],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=900,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"{file}: no answer in 900 s"
    if done.returncode == 0:
        return None
    if re.search(r"\b404\b", done.stdout + done.stderr):
        return "404"
    lines = (done.stderr.strip() or done.stdout.strip() or "apt-helper failed").splitlines()
    return f"{file}: {lines[-1]}"


def fetch_orig(orig: OrigTarball, suite: str) -> Path:
    """The unpacked orig tarball ``orig`` (the upstream tree Debian's series of ``suite``
    applies to), fetched once into the corpus cache (``debian-orig/FILE/``) and reused.

    The file is downloaded from the archive ``debian-series`` uses (:func:`archive_uri`) and
    unpacked with ``tarfile``'s ``data`` filter; as ``dpkg-source`` does, a tarball whose
    entries all lie under one directory is that directory's tree, any other is its own
    (named ``FILE`` without ``.orig.tar.*``). The tarball is not kept. The work is done in a
    scratch directory renamed into place when complete, so a cut-short download is never
    taken for a cached one.

    Returns:
        The tree's root directory.

    Raises:
        RuntimeError: no archive URI, the archive does not serve the file (the message ends
            in ``404``), another download failure, or a tarball that cannot be unpacked.
    """
    dest = cache_root() / ORIG_CACHE / orig.file
    if dest.is_dir():
        return orig_root(dest)
    uri = archive_uri(suite)
    if uri is None:
        raise RuntimeError(
            f"no archive URI for {orig.file}: run SUITE={suite} {DEBIAN_SERIES} requests /tmp/x"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{orig.file}.", dir=dest.parent))
    try:
        tarball = scratch / orig.file
        failed = download_from_archive(
            f"{uri}/{orig.directory}/{orig.file}", orig.file, orig.sha256, tarball
        )
        if failed is not None:
            raise RuntimeError(f"{orig.file} not downloaded: {failed}")
        unpack_orig(tarball, scratch)
        tarball.unlink()
        try:
            os.rename(scratch, dest)
        except OSError:
            if not dest.is_dir():  # else another worker unpacked the same file first
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return orig_root(dest)


def unpack_orig(tarball: Path, into: Path) -> Path:
    """Unpack an orig tarball into the directory ``into`` as ``dpkg-source`` lays it out: a
    tarball whose entries all lie under one directory gives that directory, any other a
    directory named after the file without ``.orig.tar.*``; ``tarfile``'s ``data`` filter
    refuses links and paths that leave it.

    Returns:
        The tree's root directory (inside ``into``).

    Raises:
        RuntimeError: the tarball cannot be read or unpacked.
    """
    unpacked = into / ".unpacked"
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(unpacked, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise RuntimeError(f"{tarball.name} cannot be unpacked: {error}") from None
    tops = list(unpacked.iterdir())
    if len(tops) == 1 and tops[0].is_dir() and not tops[0].is_symlink():
        root = into / tops[0].name
        tops[0].rename(root)
        unpacked.rmdir()
    else:
        root = into / re.sub(r"\.orig\.tar\..*$", "", tarball.name)
        unpacked.rename(root)
    return root


def orig_root(dest: Path) -> Path:
    """The one directory a cached orig tarball's folder holds (:func:`fetch_orig`).

    Raises:
        RuntimeError: it holds none or several (a cache laid by hand): remove it.
    """
    inner = [entry for entry in dest.iterdir() if entry.is_dir()]
    if len(inner) != 1:
        raise RuntimeError(f"{dest} is not one unpacked orig tarball: remove it")
    return inner[0]


def debian_version(debian: Path) -> str | None:
    """The Debian version (no epoch) of a fetched series, from its ``.debian.tar.*`` name."""
    for tarball in sorted(debian.parent.glob("*.debian.tar.*")):
        return tarball.name.split("_", 1)[1].split(".debian.tar.")[0]
    return None


def read_series(series: Path) -> list[tuple[str, int | None]]:
    """``(patch name, -pN or None)`` of each entry of a quilt series file, in order."""
    entries = []
    for line in series.read_text(encoding="utf-8", errors="replace").splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        strip = None
        for word in words[1:]:
            if re.fullmatch(r"-p\d+", word):
                strip = int(word[2:])
        entries.append((words[0], strip))
    return entries


def patchkeeper_command() -> str:
    """The installed CLI: beside this interpreter (a venv), else on ``PATH``."""
    beside = Path(sys.executable).parent / "patchkeeper"
    if beside.is_file():
        return str(beside)
    found = shutil.which("patchkeeper")
    if found is None:
        raise RuntimeError("patchkeeper is not installed: python -m pip install -e .")
    return found


def make_downstream(upgrade: Upgrade, debian: Path, work: Path) -> Path:
    """Write a downstream in ``work``: ``patches/`` (the series) and its ``patchkeeper.toml``."""
    shutil.copytree(debian / "patches", work / "patches")
    config = (
        f"upstream = {json.dumps(upgrade.upstream)}\n"
        f"pin = {json.dumps(upgrade.pin)}\n"
        'series = "patches/series"\n'
        f"strip = {upgrade.strip}\n"
        f"directory = {json.dumps(upgrade.directory)}\n"
        "\n[report]\nevidence = false\n"
    )
    (work / "patchkeeper.toml").write_text(config, encoding="utf-8")
    return work


def run_audit(
    downstream: Path,
    requirement: str,
    pristine: Path | None = None,
    extra: tuple[str, ...] = (),
) -> tuple[dict[str, Any], float]:
    """Run ``patchkeeper -C DOWNSTREAM audit --to REQUIREMENT --json`` (``REQUIREMENT``: a
    requirement or a directory; with ``pristine``, ``--pristine PRISTINE`` too, the pin's
    tree; ``extra``: more options, ``--between``); return (JSON, seconds).

    Raises:
        RuntimeError: the audit exited 2 or 3 without verdicts (exit 2 with verdicts: a
            patch file could not be read, the others were judged), or wrote no JSON (its
            stderr included).
    """
    command = [patchkeeper_command(), "-C", str(downstream), "audit", "--to", requirement]
    if pristine is not None:
        command += ["--pristine", str(pristine)]
    command += extra
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--json"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - start
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = None
    # exit 2 with verdicts: a patch file could not be read, the others were judged
    judged = done.returncode == 2 and isinstance(report, dict) and "verdicts" in report
    if done.returncode not in (0, 1) and not judged:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {tail}")
    if not isinstance(report, dict):
        raise RuntimeError(f"{' '.join(command)} wrote no JSON: {done.stderr.strip()}")
    return report, seconds


def new_tree(audit: dict[str, Any], upgrade: Upgrade) -> Path:
    """The unpacked new release the audit read, found in the cache from the audit's target.

    The JSON envelope's ``target`` is an object whose ``path`` is the unpacked tree; its
    ``target_label`` reads ``NAME VERSION (sdist FILE, sha256 ...)`` (the CLI unpacks
    ``FILE`` under ``trees/*/STEM/`` with the sdist's top directory inside).

    Raises:
        RuntimeError: no such tree in the cache.
    """
    found = audit.get("target")
    if isinstance(found, dict) and found.get("path") and Path(found["path"]).is_dir():
        return Path(found["path"])
    target = audit.get("target_label") or (found if isinstance(found, str) else "")
    match = re.search(r"\((?:sdist|wheel) ([^,)]+)", target)
    stems = []
    if match:
        stems.append(re.sub(r"\.(tar\.gz|tar\.bz2|tar\.xz|zip|tgz|whl)$", "", match.group(1)))
    stems.append(f"*-{upgrade.to}")
    for stem in stems:
        for candidate in sorted((cache_root() / "trees").glob(f"*/{stem}")):
            inner = [entry for entry in candidate.iterdir() if entry.is_dir()]
            if len(inner) == 1:
                return inner[0]
    raise RuntimeError(f"the new tree of {target!r} is not in {cache_root() / 'trees'}")


def patch_paths(patch: Path, strip: int) -> set[str]:
    """The paths (after stripping ``strip`` components) a unified diff names."""
    paths = set()
    text = patch.read_text(encoding="utf-8", errors="replace")
    for match in re.finditer(r"^(?:---|\+\+\+) (\S+)", text, re.M):
        name = match.group(1)
        if name == "/dev/null":
            continue
        parts = name.split("/")[strip:]
        if parts and ".." not in parts:
            paths.add("/".join(parts))
    return paths


def run_baseline(
    upgrade: Upgrade, debian: Path, tree: Path, work: Path
) -> tuple[dict[str, str], float, dict[str, str]]:
    """The naive reverse-apply baseline; return ({patch: "upstreamed"|"carried"}, seconds,
    {patch: action}).

    GNU patch at fuzz 0 (``--fuzz 0``), reversed (``-R``), with ``--force``: it never asks
    and never takes a patch that looks reversed for a reversed one (``--batch`` would, and
    would call a patch that still applies forwards "upstreamed"); a scratch copy holds only
    the files the series names. The action: *retire* when it reverse-applies, else *carry*
    when a forward ``--dry-run`` at fuzz 0 applies, else *port*.
    """
    start = time.perf_counter()
    series = read_series(debian / "patches" / "series")
    root = tree / upgrade.directory if upgrade.directory else tree
    scratch = work / "baseline"
    scratch.mkdir()
    for name, strip in series:
        for relative in patch_paths(debian / "patches" / name, strip or upgrade.strip):
            source = root / relative
            if source.is_file():
                (scratch / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, scratch / relative)
    verdicts, actions = {}, {}
    for name, strip in series:
        patch = str(debian / "patches" / name)
        base = ["patch", "-R", "--fuzz", "0", f"-p{strip or upgrade.strip}", "--force"]
        base += ["--no-backup-if-mismatch", "-s", "-d", str(scratch), "-i", patch]
        dry = subprocess.run([*base, "--dry-run"], capture_output=True, stdin=subprocess.DEVNULL)
        if dry.returncode == 0:
            subprocess.run(base, capture_output=True, stdin=subprocess.DEVNULL)
            verdicts[name], actions[name] = "upstreamed", "retire"
        else:
            verdicts[name] = "carried"
            forward = subprocess.run(
                [base[0], *base[2:], "--dry-run"], capture_output=True, stdin=subprocess.DEVNULL
            )
            actions[name] = "carry" if forward.returncode == 0 else "port"
    return verdicts, time.perf_counter() - start, actions


def run_upgrade(upgrade: Upgrade, at_pin: bool = False, between: bool = False) -> UpgradeResult:
    """Fetch, audit and baseline one upgrade; errors land in the result, not raised. With
    ``between``, an upgrade on the sdists is audited with ``--between`` (the releases
    between the pin and the new one, fetched into the cache as the CLI fetches them)."""
    result = UpgradeResult(upgrade)
    try:
        debian = fetch_series(upgrade.source, upgrade.suite)
    except RuntimeError as error:
        result.error = str(error)
        return result
    result.debian_version = debian_version(debian)
    if result.debian_version != upgrade.debian_version:
        result.warnings.append(
            f"Debian version {result.debian_version} differs from the truth's "
            f"{upgrade.debian_version}: check the truths against the new series"
        )
    series = [name for name, _strip in read_series(debian / "patches" / "series")]
    for name in series:
        result.patches.append(PatchResult(name, upgrade.truths.get(name)))
        if name not in upgrade.truths:
            result.warnings.append(f"{name} has no truth: reported, not scored")
    for name in upgrade.truths:
        if name not in series:
            result.warnings.append(f"truth for {name}, which is not in the series")
    with tempfile.TemporaryDirectory(prefix=f"accuracy-{upgrade.source}-") as scratch:
        work = Path(scratch)
        downstream = make_downstream(upgrade, debian, work / "downstream")
        version = upgrade.pin if at_pin else upgrade.to
        try:
            if upgrade.trees == ORIG_TREES:
                assert upgrade.pin_orig is not None and upgrade.to_orig is not None
                pin = fetch_orig(upgrade.pin_orig, upgrade.suite)
                to = pin if at_pin else fetch_orig(upgrade.to_orig, upgrade.suite)
                audit, result.audit_seconds = run_audit(downstream, str(to), pin)
            else:
                requirement = f"{upgrade.upstream}=={version}"
                extra = ("--between",) if between and not at_pin else ()
                audit, result.audit_seconds = run_audit(downstream, requirement, None, extra)
        except RuntimeError as error:
            result.error = str(error)
            return result
        result.target = audit.get("target_label") or str(audit.get("target", ""))
        by_name = {entry["name"]: entry for entry in audit.get("verdicts", [])}
        for patch in result.patches:
            entry = by_name.get(patch.name)
            if entry is not None:
                patch.verdict, patch.summary = entry["verdict"], entry.get("summary", "")
                patch.action = entry.get("action") or VERDICT_ACTION.get(patch.verdict)
                patch.rule = entry.get("rule") or None
        if at_pin:
            return result
        try:
            tree = new_tree(audit, upgrade)
            baseline, result.baseline_seconds, actions = run_baseline(upgrade, debian, tree, work)
        except (RuntimeError, OSError) as error:
            result.warnings.append(f"baseline not run: {error}")
            return result
        for patch in result.patches:
            patch.baseline = baseline.get(patch.name)
            patch.baseline_action = actions.get(patch.name)
    return result


def verdict_class(verdict: str | None) -> str:
    """``upstreamed``, ``partial`` or ``carried``: the truth a verdict claims."""
    if verdict == "upstreamed":
        return "upstreamed"
    if verdict == "partially upstreamed":
        return "partial"
    return "carried"


def is_right(truth: str, verdict: str) -> bool:
    """Whether ``verdict`` (an audit or baseline verdict) agrees with ``truth``."""
    return verdict_class(verdict) == truth


@dataclass
class Score:
    """Counts over scored patches: (truth, verdict) pairs, of the tool or the baseline."""

    pairs: list[tuple[str, str]] = field(default_factory=list)

    def count(self, truth: str, verdict: str) -> int:
        """How many patches have this truth and this verdict."""
        return sum(1 for pair in self.pairs if pair == (truth, verdict))

    @property
    def right(self) -> int:
        """Patches whose verdict agrees with the truth."""
        return sum(1 for truth, verdict in self.pairs if is_right(truth, verdict))

    @property
    def upstreamed_found(self) -> tuple[int, int]:
        """(truth upstreamed called upstreamed, truth upstreamed)."""
        found = self.count("upstreamed", "upstreamed")
        return found, sum(1 for truth, _verdict in self.pairs if truth == "upstreamed")

    @property
    def carried_called_upstream(self) -> tuple[int, int]:
        """(truth carried called upstreamed or partially upstreamed, truth carried)."""
        wrong = sum(
            1
            for truth, verdict in self.pairs
            if truth == "carried" and verdict in ("upstreamed", "partially upstreamed")
        )
        return wrong, sum(1 for truth, _verdict in self.pairs if truth == "carried")


def scores(results: list[UpgradeResult]) -> tuple[Score, Score]:
    """(the tool's score, the baseline's score) over the patches with a truth and a verdict."""
    tool, baseline = Score(), Score()
    for result in results:
        for patch in result.patches:
            if patch.truth is None or patch.verdict is None:
                continue
            tool.pairs.append((patch.truth.truth, patch.verdict))
            if patch.baseline is not None:
                baseline.pairs.append((patch.truth.truth, patch.baseline))
    return tool, baseline


def percent(part: int, whole: int) -> str:
    """``"part of whole (P%)"``, or ``"0 of 0"``."""
    if whole == 0:
        return "0 of 0"
    return f"{part} of {whole} ({100 * part / whole:.1f}%)"


def table(score: Score, columns: tuple[str, ...]) -> list[str]:
    """A Markdown confusion table: a row per truth, a column per verdict, then right/total."""
    lines = [
        "| truth \\ verdict | " + " | ".join(columns) + " | right | total |",
        "| --- " * (len(columns) + 3) + "|",
    ]
    for truth in TRUTHS:
        total = sum(1 for pair in score.pairs if pair[0] == truth)
        right = sum(1 for pair in score.pairs if pair[0] == truth and is_right(*pair))
        cells = [str(score.count(truth, column)) for column in columns]
        lines.append(f"| {truth} | " + " | ".join(cells) + f" | {right} | {total} |")
    return lines


def summary_lines(score: Score) -> list[str]:
    """Accuracy, upstreamed found and the worst error, one bullet each."""
    found, upstreamed = score.upstreamed_found
    wrong, carried = score.carried_called_upstream
    return [
        f"- verdicts right: {percent(score.right, len(score.pairs))}",
        f"- upstreamed found: {percent(found, upstreamed)}",
        f"- carried called upstreamed or partially upstreamed: {percent(wrong, carried)}",
    ]


def seconds(value: float | None) -> str:
    """Wall time as ``"1.23 s"``, or ``"-"`` when not measured."""
    return "-" if value is None else f"{value:.2f} s"


def one_line(text: str) -> str:
    """``text`` on one line, safe in a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def render_upgrade(result: UpgradeResult) -> list[str]:
    """The Markdown section of one upgrade."""
    upgrade = result.upgrade
    lines = [
        f"### {upgrade.source}: {upgrade.upstream} {upgrade.pin} -> {upgrade.to}",
        "",
        f"Debian {upgrade.suite} {result.debian_version or upgrade.debian_version}; "
        f"to {upgrade.to}: {upgrade.to_why}.",
        "",
    ]
    lines += [f"- warning: {warning}" for warning in result.warnings]
    if result.error:
        return [*lines, f"- error: {one_line(result.error)}", ""]
    tool, baseline = scores([result])
    lines += ["", *table(tool, VERDICTS), "", *summary_lines(tool), ""]
    wrong = [
        p
        for p in result.patches
        if p.truth and p.verdict and not is_right(p.truth.truth, p.verdict)
    ]
    if wrong:
        lines += [
            "Disagreements:",
            "",
            "| patch | truth | verdict | evidence |",
            "| --- | --- | --- | --- |",
        ]
        for patch in wrong:
            evidence = one_line(patch.summary)
            truth = patch.truth.truth if patch.truth else "-"
            lines.append(f"| {patch.name} | {truth} | {patch.verdict} | {evidence} |")
        lines.append("")
    lines += ["Naive baseline (GNU patch -R --dry-run --fuzz 0):", ""]
    lines += [*table(baseline, BASELINE_VERDICTS), "", *summary_lines(baseline), ""]
    lines.append(
        f"Wall time: audit {seconds(result.audit_seconds)}, "
        f"baseline {seconds(result.baseline_seconds)}."
    )
    return [*lines, ""]


def machine() -> str:
    """One line on where and when the figures were taken: UTC time, commit, CPUs, load."""
    done = subprocess.run(
        ["git", "-C", str(REPOSITORY), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    commit = done.stdout.strip() or "unknown"
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (
        f"Run {when} at commit {commit}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {load} (the machine is shared: times vary)."
    )


OUTCOMES = ("right", "look", "wrong", "false retire", "not judged")
#: The key of the patches the audit gave no rule (it failed on the upgrade, or is older).
NO_RULE = "(none)"


def outcome_of(result: UpgradeResult, patch: PatchResult, baseline: bool = False) -> str:
    """The outcome of one patch with a truth (one of :data:`OUTCOMES` but *false retire*),
    of the audit's action, or of the baseline's with ``baseline`` (:func:`three_way`)."""
    assert patch.truth is not None
    rights = RIGHT_ACTIONS["mined" if result.upgrade.mined else "hand-written"]
    action = None if result.error else patch.baseline_action if baseline else patch.action
    if action is None:
        return "not judged"
    if action in rights[patch.truth.truth]:
        return "right"
    return "look" if action == "look" else "wrong"


def _count(
    table: dict[str, Counter[str]], keys: tuple[str, ...], outcome: str, retire: bool
) -> None:
    """Count one patch's ``outcome`` under each of ``keys``; ``retire``: a false retire."""
    for key in keys:
        counts = table.setdefault(key, Counter())
        counts["patches"] += 1
        counts[outcome] += 1
        if retire:
            counts["false retire"] += 1


def three_way(results: list[UpgradeResult], baseline: bool = False) -> dict[str, Counter[str]]:
    """Per truth class (and ``"all"``): how many patches, and how many of them each outcome
    of :data:`OUTCOMES` (of the audit's action, or of the baseline's with ``baseline``).

    *right*: the action is one of :data:`RIGHT_ACTIONS` for the truth; *look*: the audit
    says a person must decide (never right, never wrong); *wrong*: any other action, and
    *false retire* counts the wrong ones that retire a patch upstream does not have (the
    worst error: a maintainer who trusts it drops a fix); *not judged*: no action (the
    audit failed on the upgrade, or the patch had no verdict).
    """
    table: dict[str, Counter[str]] = {}
    for result in results:
        for patch in result.patches:
            if patch.truth is None:
                continue
            truth = patch.truth.truth
            outcome = outcome_of(result, patch, baseline)
            action = patch.baseline_action if baseline else patch.action
            retire = not result.error and action == "retire" and truth != "upstreamed"
            _count(table, (truth, "all"), outcome, retire)
    return table


def per_rule(results: list[UpgradeResult]) -> dict[str, Counter[str]]:
    """Per rule of the audit (the JSON's ``rule``: the rule that decided the verdict and
    action; :data:`NO_RULE` for none): how many patches with a truth, and how many of them
    each outcome of :data:`OUTCOMES`, as :func:`three_way` counts them."""
    table: dict[str, Counter[str]] = {}
    for result in results:
        for patch in result.patches:
            if patch.truth is None:
                continue
            outcome = outcome_of(result, patch)
            rule = NO_RULE if result.error else patch.rule or NO_RULE
            retire = not result.error and patch.action == "retire"
            _count(table, (rule,), outcome, retire and patch.truth.truth != "upstreamed")
    return table


def rule_lines(by_set: dict[str, list[UpgradeResult]]) -> list[str]:
    """The per-rule table: per set and rule (alphabetical), the audit's outcomes."""
    lines = [
        "| set | rule | patches | right | look | wrong | false retire | not judged |",
        "| --- " * 8 + "|",
    ]
    for name in SETS:
        table = per_rule(by_set.get(name, []))
        for rule in sorted(table):
            counts = table[rule]
            whole = counts["patches"]
            cells = [
                percent(counts[o], whole) if o == "right" else str(counts[o]) for o in OUTCOMES
            ]
            lines.append(f"| {name} | {rule} | {whole} | " + " | ".join(cells) + " |")
    return lines


def three_way_lines(by_set: dict[str, list[UpgradeResult]]) -> list[str]:
    """The three-way table: per set and truth class, the audit's and the baseline's outcomes."""
    lines = [
        "| set | truth | patches | right | look | wrong | false retire | not judged "
        "| baseline right | baseline wrong | baseline false retire |",
        "| --- " * 11 + "|",
    ]
    for name in SETS:
        results = by_set.get(name)
        if not results:
            continue
        tool, base = three_way(results), three_way(results, baseline=True)
        for truth in (*MINED_TRUTHS, "all"):
            counts = tool.get(truth)
            if not counts:
                continue
            b = base.get(truth, Counter())
            whole = counts["patches"]
            cells = [
                percent(counts[o], whole) if o == "right" else str(counts[o]) for o in OUTCOMES
            ]
            lines.append(
                f"| {name} | {truth} | {whole} | "
                + " | ".join(cells)
                + f" | {percent(b['right'], whole)} | {b['wrong']} | {b['false retire']} |"
            )
    return lines


def miner_lines(by_set: dict[str, list[UpgradeResult]]) -> list[str]:
    """The miner's counts (``mined-counts.toml``) and the size of each mined set."""
    if not MINED_COUNTS.is_file():
        return []
    data = tomllib.loads(MINED_COUNTS.read_text(encoding="utf-8"))
    lines = [
        f"The mined corpus (benchmarks/mine_debian.py, {data.get('mined-at', '?')}): "
        f"{data.get('projects', 0)} projects.",
        "",
        "| count | value |",
        "| --- | --- |",
    ]
    lines += [f"| {key} | {value} |" for key, value in data.get("counts", {}).items()]
    same = sum(1 for path in sorted(MINED.glob("*.toml")) if same_trees(load_upgrade(path)))
    lines.append(f"| upgrades left out by this run: {SAME_TREES} | {same} |")
    for name in SETS[1:]:
        results = by_set.get(name, [])
        projects = {canonical(r.upgrade.upstream) for r in results}
        patches = sum(len(r.upgrade.truths) for r in results)
        lines.append(
            f"| {name} set in this run | {len(results)} upgrades, {len(projects)} projects, "
            f"{patches} patches with a truth |"
        )
    return [*lines, ""]


def dev_disagreements(results: list[UpgradeResult]) -> list[str]:
    """Every development-set patch whose action is not right (look or wrong), with evidence.

    Never called for the test set: no rule is written from its failures."""
    lines = [
        "| upgrade | patch | truth | action | verdict | evidence |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        upgrade = result.upgrade
        label = f"{upgrade.source} {upgrade.pin} -> {upgrade.to}"
        if result.error:
            lines.append(f"| {label} | (all) | - | - | error | {one_line(result.error)[:300]} |")
            continue
        rights = RIGHT_ACTIONS["mined"]
        for patch in result.patches:
            if patch.truth is None or patch.action is None:
                continue
            if patch.action in rights[patch.truth.truth]:
                continue
            evidence = one_line(patch.summary)[:300]
            lines.append(
                f"| {label} | {patch.name} | {patch.truth.truth} | {patch.action} "
                f"| {patch.verdict} | {evidence} |"
            )
    return [*lines, ""]


def render(results: list[UpgradeResult], command: str) -> str:
    """The whole report: the three-way table per set, the miner's counts, the hand-written
    corpus's report (totals, timings, each upgrade), the development set's disagreements.
    The test set is reported by its totals only."""
    by_set: dict[str, list[UpgradeResult]] = {}
    for result in results:
        by_set.setdefault(result.upgrade.group, []).append(result)
    lines = [
        "# Accuracy of `audit --to` on real upgrades",
        "",
        f"Produced by `{command}` (benchmarks/accuracy.py; the hand-written upgrades are in "
        "benchmarks/accuracy/upgrades/, the mined ones in benchmarks/accuracy/mined/, split "
        "by project in benchmarks/accuracy/split.toml).",
        "",
        machine(),
        "",
        "## What a maintainer does next: retire, carry, port (per set)",
        "",
        "Right actions: upstreamed -> retire; carried -> carry (hand-written: carry or port); "
        "port -> port; partial -> port. `look` is counted on its own. The baseline retires "
        "what reverse-applies at fuzz 0, carries what applies forwards, ports the rest.",
        "",
        *three_way_lines(by_set),
        "",
        "## Which rule decided it (per set)",
        "",
        "Each verdict's `rule` (the rule whose evidence its action follows; "
        "docs/commands/audit.md lists them): the patches it decided and their outcomes, "
        "counted as above. The test set too, by its totals per rule.",
        "",
        *rule_lines(by_set),
        "",
        *miner_lines(by_set),
    ]
    for name in SETS[1:]:
        mined = by_set.get(name, [])
        if mined:
            errors = sum(1 for r in mined if r.error)
            audit_total = sum(r.audit_seconds or 0 for r in mined)
            lines += [
                f"{name} set: {len(mined)} upgrades run, {errors} failed; audit wall time "
                f"{audit_total:.0f} s.",
                "",
            ]
    hand = by_set.get("hand-written", [])
    if hand:
        lines += render_hand_written(hand)
    development = by_set.get("development", [])
    if development:
        lines += ["## Development set: actions that are not right", ""]
        lines += dev_disagreements(development)
    return "\n".join(lines).rstrip() + "\n"


def render_hand_written(results: list[UpgradeResult]) -> list[str]:
    """The hand-written corpus's report: totals first, then the timings, then each upgrade."""
    tool, baseline = scores(results)
    upstreamed = sum(1 for truth, _verdict in tool.pairs if truth == "upstreamed")
    unscored = sum(1 for r in results for p in r.patches if p.truth is None or p.verdict is None)
    lines = [
        "## The hand-written corpus",
        "",
        f"{len(results)} upgrades, {len(tool.pairs)} patches scored "
        f"({upstreamed} truly upstreamed), {unscored} not scored.",
        "",
        "### Total: patchkeeper audit --to",
        "",
        *table(tool, VERDICTS),
        "",
        *summary_lines(tool),
        "",
        "### Total: naive baseline (GNU patch -R --dry-run --fuzz 0, series order)",
        "",
        *table(baseline, BASELINE_VERDICTS),
        "",
        *summary_lines(baseline),
        "",
        "### Per upgrade (wall clock times of this run)",
        "",
        "| upgrade | patches scored | upstreamed | right | upstreamed found "
        "| carried called upstream | baseline right | audit | baseline |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        upgrade = result.upgrade
        one, base = scores([result])
        found, truly = one.upstreamed_found
        worst, _carried = one.carried_called_upstream
        lines.append(
            f"| {upgrade.source} {upgrade.pin} -> {upgrade.to} | {len(one.pairs)} | {truly} "
            f"| {one.right} | {found} | {worst} | {base.right} "
            f"| {seconds(result.audit_seconds)} | {seconds(result.baseline_seconds)} |"
        )
    audit_total = sum(r.audit_seconds or 0 for r in results)
    baseline_total = sum(r.baseline_seconds or 0 for r in results)
    found, truly = tool.upstreamed_found
    worst, _carried = tool.carried_called_upstream
    lines += [
        f"| total | {len(tool.pairs)} | {truly} | {tool.right} | {found} | {worst} "
        f"| {baseline.right} | {audit_total:.2f} s | {baseline_total:.2f} s |",
        "",
    ]
    for result in results:
        lines += render_upgrade(result)
    return lines


def to_json(results: list[UpgradeResult]) -> dict[str, Any]:
    """Every patch's truth, verdict, baseline verdict and evidence, per upgrade; the test
    set only as totals (``test_totals``), so that no rule is written from its failures."""
    test = [r for r in results if r.upgrade.group == "test"]
    return {
        "test_totals": {k: dict(v) for k, v in three_way(test).items()},
        "test_rule_totals": {k: dict(v) for k, v in per_rule(test).items()},
        "upgrades": [
            {
                "source": r.upgrade.source,
                "set": r.upgrade.group,
                "pin": r.upgrade.pin,
                "to": r.upgrade.to,
                "debian_version": r.debian_version,
                "error": r.error,
                "warnings": r.warnings,
                "audit_seconds": r.audit_seconds,
                "baseline_seconds": r.baseline_seconds,
                "patches": [
                    {
                        "name": p.name,
                        "truth": p.truth.truth if p.truth else None,
                        "verdict": p.verdict,
                        "baseline": p.baseline,
                        "summary": p.summary,
                        "action": p.action,
                        "baseline_action": p.baseline_action,
                        "rule": p.rule,
                    }
                    for p in r.patches
                ],
            }
            for r in results
            if r.upgrade.group != "test"
        ],
    }


def render_at_pin(results: list[UpgradeResult]) -> str:
    """Whether each series applies at its pin: every verdict clean or offset."""
    lines = []
    for result in results:
        upgrade = result.upgrade
        if result.error:
            lines.append(f"{upgrade.source} {upgrade.pin}: error: {one_line(result.error)}")
            continue
        bad = [p for p in result.patches if p.verdict not in ("clean", "offset")]
        state = "applies" if not bad else f"{len(bad)} of {len(result.patches)} do not apply"
        lines.append(f"{upgrade.source} {upgrade.pin}: {state}")
        lines += [f"  {p.name}: {p.verdict}: {one_line(p.summary)}" for p in bad]
    return "\n".join(lines) + "\n"


def select(paths: list[Path], only: str | None) -> list[Path]:
    """The upgrade files named by ``--only`` (file stems, comma-separated), or all of them."""
    if not only:
        return paths
    wanted = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in {path.stem for path in paths}]
    if unknown:
        raise UpgradeFileError(f"no upgrade file for {', '.join(unknown)} in {UPGRADES} or {MINED}")
    return [path for path in paths if path.stem in wanted]


def canonical(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def load_split(path: Path = SPLIT) -> dict[str, str]:
    """``{project: "development" | "test"}`` from the committed split file.

    Raises:
        UpgradeFileError: the file is missing or malformed (run benchmarks/split_mined.py).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        groups = {canonical(p): "development" for p in data["development"]["projects"]}
        groups |= {canonical(p): "test" for p in data["test"]["projects"]}
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError) as error:
        raise UpgradeFileError(
            f"{path}: no usable split ({error}): run python benchmarks/split_mined.py"
        ) from None
    return groups


@dataclass(frozen=True)
class Correction:
    """A mined truth corrected by hand: in the upgrade file ``upgrade`` (its stem), the
    patch ``patch`` whose mined truth ``mined`` is wrong is ``truth``, for ``why``, on the
    quoted ``source``."""

    upgrade: str
    patch: str
    mined: str
    truth: str
    why: str
    source: str


def load_corrections(path: Path = CORRECTIONS) -> dict[tuple[str, str], Correction]:
    """``{(upgrade stem, patch): Correction}`` from the corrections file (none when it is
    missing): a ``[[correction]]`` table per row, with the strings ``upgrade``, ``patch``,
    ``mined``, ``truth`` (one of :data:`MINED_TRUTHS`), ``why`` and ``source``.

    Raises:
        UpgradeFileError: not TOML, a key missing or not a string, an unknown truth, a row
            given twice.
    """
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UpgradeFileError(f"{path}: {error}") from None
    out: dict[tuple[str, str], Correction] = {}
    keys = ("upgrade", "patch", "mined", "truth", "why", "source")
    for number, entry in enumerate(data.get("correction", []), 1):
        if not isinstance(entry, dict) or any(not isinstance(entry.get(k), str) for k in keys):
            raise UpgradeFileError(
                f"{path}: correction {number} needs the strings {', '.join(keys)}"
            )
        if entry["truth"] not in MINED_TRUTHS or entry["mined"] not in MINED_TRUTHS:
            raise UpgradeFileError(
                f"{path}: correction {number}: truth and mined must be one of "
                f"{', '.join(MINED_TRUTHS)}"
            )
        correction = Correction(*(entry[k] for k in keys))
        key = (correction.upgrade, correction.patch)
        if key in out:
            raise UpgradeFileError(f"{path}: correction {number} repeats {key[0]} {key[1]}")
        out[key] = correction
    return out


def corrected(upgrade: Upgrade, corrections: dict[tuple[str, str], Correction]) -> Upgrade:
    """``upgrade`` with the corrections of its file applied: each names the truth it
    replaces, so a row the miner has since changed is not corrected blindly.

    Raises:
        UpgradeFileError: a correction names a patch the file has no truth for, or a mined
            truth other than the file's (mine again or update the correction).
    """
    stem = upgrade.path.stem
    truths = dict(upgrade.truths)
    for (name, patch), fix in corrections.items():
        if name != stem:
            continue
        truth = truths.get(patch)
        if truth is None or truth.truth != fix.mined:
            found = truth.truth if truth is not None else "no truth"
            raise UpgradeFileError(
                f"{CORRECTIONS.name}: {stem} {patch}: the correction replaces {fix.mined!r}, "
                f"the mined file says {found!r}: update or remove the correction"
            )
        why = f"{fix.why} (mined: {truth.truth}, {truth.why})"
        truths[patch] = Truth(patch, fix.truth, why, truth.flags, fix.source)
    return replace(upgrade, truths=truths)


#: Why an upgrade is left out whose pin and new release are one tree.
SAME_TREES = "the pin's and the new release's trees are one tarball: no upstream change to judge"


def same_trees(upgrade: Upgrade) -> bool:
    """Whether ``upgrade`` audits a tree against itself: the same version, or two orig
    tarballs with one SHA-256 (Debian's ``2.12.7+dfsg+really2.9.14`` is 2.9.14 again). What
    the maintainers did to such a series says nothing of upstream."""
    if upgrade.pin == upgrade.to:
        return True
    pin, to = upgrade.pin_orig, upgrade.to_orig
    return (
        upgrade.trees == ORIG_TREES
        and pin is not None
        and to is not None
        and (pin.sha256 == to.sha256)
    )


def load_all(only: str | None, sets: list[str]) -> tuple[list[Upgrade], list[str]]:
    """The upgrades of ``sets`` (hand-written, development, test), filtered by ``--only``,
    and warnings (a mined project missing from the split is left out, named, and so is a
    mined upgrade of a tree to itself, :func:`same_trees`).

    Raises:
        UpgradeFileError: a bad upgrade file, an unknown ``--only`` name, no split file.
    """
    hand = sorted(UPGRADES.glob("*.toml"))
    mined = sorted(MINED.glob("*.toml"))
    paths = set(select(hand + mined, only))
    upgrades, warnings = [], []
    if "hand-written" in sets:
        upgrades += [load_upgrade(path) for path in hand if path in paths]
    wanted_mined = [path for path in mined if path in paths]
    if wanted_mined and ({"development", "test"} & set(sets)):
        split = load_split()
        corrections = load_corrections()
        for path in wanted_mined:
            upgrade = load_upgrade(path)
            group = split.get(canonical(upgrade.upstream))
            if group is None:
                warnings.append(f"{path.name}: {upgrade.upstream} is in no set of {SPLIT.name}")
            elif same_trees(upgrade):
                warnings.append(f"{path.name}: left out, {SAME_TREES}")
            elif group in sets:
                upgrades.append(corrected(load_upgrade(path, group), corrections))
    return upgrades, warnings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated upgrade names (file stems)")
    parser.add_argument("--jobs", type=int, default=1, help="upgrades run at once (default 1)")
    parser.add_argument("--json", type=Path, help="write every patch's result to this file")
    parser.add_argument("--markdown", type=Path, help=f"the report file (default {RESULTS})")
    parser.add_argument("--at-pin", action="store_true", help="audit against the pin instead")
    parser.add_argument(
        "--between",
        action="store_true",
        help="audit the sdist upgrades with --between (the releases between pin and new)",
    )
    parser.add_argument(
        "--set",
        default=",".join(SETS),
        help=f"comma-separated sets to run (default {','.join(SETS)})",
    )
    args = parser.parse_args(argv)
    sets = [name.strip() for name in args.set.split(",") if name.strip()]
    unknown = [name for name in sets if name not in SETS]
    try:
        if unknown:
            raise UpgradeFileError(f"--set: unknown set {', '.join(unknown)} ({', '.join(SETS)})")
        upgrades, warnings = load_all(args.only, sets)
    except UpgradeFileError as error:
        print(f"accuracy: {error}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"accuracy: warning: {warning}", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda u: run_upgrade(u, args.at_pin, args.between), upgrades))
    if args.at_pin:
        sys.stdout.write(render_at_pin(results))
        return 1 if any(r.error for r in results) else 0
    command = "python benchmarks/accuracy.py" + (f" --only {args.only}" if args.only else "")
    if args.between:
        command += " --between"
    if args.set != ",".join(SETS):
        command += f" --set {args.set}"
    report = render(results, command)
    sys.stdout.write(report)
    whole = not args.only and args.set == ",".join(SETS) and not args.between
    markdown = args.markdown or (RESULTS if whole else None)
    if markdown is not None:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(report, encoding="utf-8")
    if args.json is not None:
        args.json.write_text(json.dumps(to_json(results), indent=2) + "\n", encoding="utf-8")
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
