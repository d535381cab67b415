"""The environment correspondence table, measured, never asked.

The audit seed (section 7) ends with "the environment correspondence table: interpreter/venv,
both local checkouts and commits/dirty state, both installed distributions and package
locations, effective import origins, content-comparison results". This module measures each:

- the interpreter (path, version, virtual environment) by running :mod:`patchkeeper.envprobe`
  in it;
- every upstream tree the evidence was read from (:class:`Source`): an sdist or wheel from the
  fetch cache with its sha256, a git checkout with its commit and dirty state, another
  directory with a digest of its files; and the installed distributions with version and
  location (or *absent*);
- the effective import origins of the upstream and plugin packages, each in a fresh process of
  that interpreter started in the downstream directory, with a timeout and no network;
- a content comparison of a source tree and the installed distribution of the same version
  (:mod:`patchkeeper.contents`).

:func:`differences` compares a recorded environment with a new measurement (``report
--check``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.contents import ContentComparison, compare
from patchkeeper.errors import TargetError
from patchkeeper.installed import InstalledDistribution

MARKER = "PATCHKEEPER-ENV "
#: Proxies pointed at a closed local port: the probe's imports cannot reach a network.
NO_NETWORK = {
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
}
SDIST, WHEEL, CHECKOUT, DIRECTORY, INSTALLED, ABSENT, NOT_FETCHED = (
    "sdist",
    "wheel",
    "checkout",
    "directory",
    "installed",
    "absent",
    "not in the cache",
)


@dataclass(frozen=True)
class Source:
    """Where one upstream (or the downstream) was read from.

    Attributes:
        role: what it was for (``"pin"``, ``"audit target"``, ``"installed"``, ``"plugin"``).
        name: the project name, when known.
        version: its version, when known.
        kind: ``sdist``, ``wheel``, ``checkout``, ``directory``, ``installed``, ``absent`` or
            ``not in the cache``.
        location: the directory (an unpacked tree, a checkout, site-packages).
        identity: ``sha256 <hex>`` of the downloaded file, ``commit <hex>``, ``tree sha256
            <hex> (N files)``, or the installed ``RECORD``'s sha256.
        dirty: for a checkout, whether it has uncommitted changes.
        detail: the file name, the changed files, where it is not installed.
    """

    role: str
    name: str
    version: str | None
    kind: str
    location: str
    identity: str
    dirty: bool | None = None
    detail: str = ""


@dataclass(frozen=True)
class ExtensionModule:
    """An extension module an import loaded: its name and file."""

    module: str
    file: str


@dataclass(frozen=True)
class ImportOrigin:
    """Where ``import package`` comes from in a fresh process.

    Attributes:
        package: the import name.
        spec_origin: where ``find_spec`` locates it before importing (``None``: nowhere).
        file: the module's ``__file__`` (``None``: not imported, or a namespace package).
        path: its ``__path__``.
        distributions: ``"name version"`` of the distributions providing it.
        inside: whether ``file`` lies in the providing distribution's location (``None``
            when there is no file or no distribution).
        extensions: the extension modules the import loaded.
        error: the import error, ``""`` when it imported.
    """

    package: str
    spec_origin: str | None
    file: str | None
    path: tuple[str, ...]
    distributions: tuple[str, ...]
    inside: bool | None
    extensions: tuple[ExtensionModule, ...]
    error: str = ""


@dataclass(frozen=True)
class Interpreter:
    """The audited interpreter, as it reports itself."""

    executable: str
    version: str
    implementation: str
    prefix: str
    base_prefix: str
    virtual_env: bool
    pythonpath: str
    platform: str
    accelerators: tuple[str, ...]


@dataclass(frozen=True)
class Environment:
    """Everything :func:`measure` found.

    Attributes:
        cwd: the directory the probes ran in (the downstream root).
        interpreter: the audited interpreter.
        sources: every tree read, then the installed distributions.
        origins: one per probed package.
        comparisons: source tree vs installed distribution, where both exist.
        notes: what could not be measured, one sentence each.
    """

    cwd: str
    interpreter: Interpreter
    sources: tuple[Source, ...]
    origins: tuple[ImportOrigin, ...]
    comparisons: tuple[ContentComparison, ...]
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- probes


def run_probe(python: Path, args: list[str], cwd: Path, timeout: float) -> dict[str, Any]:
    """Run :mod:`patchkeeper.envprobe` in ``python`` and return its JSON.

    Raises:
        TargetError: the interpreter does not run, times out, or prints no result.
    """
    source = Path(__file__).with_name("envprobe.py").read_text(encoding="utf-8")
    env = {**os.environ, **NO_NETWORK}
    try:
        done = subprocess.run(
            [str(python), "-c", source, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as exc:
        raise TargetError(
            f"cannot run the interpreter: {exc.strerror}",
            path=python,
            hint="give --python (or [tool.patchkeeper.report] python) a Python executable",
        ) from None
    except subprocess.TimeoutExpired:
        raise TargetError(
            f"the environment probe ({' '.join(args)}) took more than {timeout:g} s",
            path=python,
            hint="raise import-timeout in [tool.patchkeeper.report]",
        ) from None
    line = next((x for x in done.stdout.splitlines() if x.startswith(MARKER)), None)
    if line is None:
        raise TargetError(
            f"the environment probe printed no result (exit {done.returncode}): "
            f"{done.stderr.strip()[-600:]}",
            path=python,
        )
    return dict(json.loads(line[len(MARKER) :]))


def probe_interpreter(python: Path, cwd: Path, timeout: float) -> Interpreter:
    """The interpreter's own description (see :mod:`patchkeeper.envprobe`)."""
    data = run_probe(python, ["interpreter"], cwd, timeout)
    data["accelerators"] = tuple(data.get("accelerators", ()))
    return Interpreter(**data)


def probe_package(
    python: Path, package: str, cwd: Path, timeout: float
) -> tuple[ImportOrigin, list[dict[str, str]]]:
    """Import ``package`` in a fresh process; return its origin and providing distributions.

    A timeout is recorded as the origin's error, not raised: it is a finding about the
    environment.
    """
    try:
        data = run_probe(python, ["package", package], cwd, timeout)
    except TargetError as exc:
        if "took more than" not in exc.message:
            raise
        return ImportOrigin(package, None, None, (), (), None, (), exc.message), []
    dists = list(data.get("distributions", []))
    file = data.get("file")
    inside = None
    if file and dists:
        inside = any(Path(file).is_relative_to(Path(d["location"])) for d in dists)
    origin = ImportOrigin(
        package=package,
        spec_origin=data.get("spec_origin"),
        file=file,
        path=tuple(data.get("path", ())),
        distributions=tuple(f"{d['name']} {d['version']}" for d in dists),
        inside=inside,
        extensions=tuple(ExtensionModule(e["module"], e["file"]) for e in data["extensions"]),
        error=data.get("error", ""),
    )
    return origin, dists


# --------------------------------------------------------------------------- sources


def git(directory: Path, *args: str) -> str | None:
    """Run ``git -C directory args`` with no user or system configuration; ``None`` on failure.

    ``GIT_OPTIONAL_LOCKS=0``: a status never rewrites the index of a tree it only reads.
    """
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
    }
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotePath=false", "-C", str(directory), *args],
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def checkout_source(role: str, directory: Path, exclude: tuple[str, ...] = ()) -> Source | None:
    """``directory`` as a git checkout (commit and dirty state), or ``None`` if it is not one.

    ``exclude``: paths (relative to ``directory``) that neither count as dirty nor as the
    commit's last change: the record's own files, so that committing ``AUDIT.md`` does not
    make the record stale.
    """
    if git(directory, "rev-parse", "--is-inside-work-tree") is None:
        return None
    specs = ["--", ".", *(f":(exclude){path}" for path in exclude)]
    commit = (git(directory, "log", "-1", "--format=%H", *specs) or "").strip()
    status = git(directory, "status", "--porcelain", "--untracked-files=normal", *specs) or ""
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    meta = _sdist_metadata(directory)
    return Source(
        role=role,
        name=meta.get("name", directory.name),
        version=meta.get("version"),
        kind=CHECKOUT,
        location=str(directory),
        identity=f"commit {commit}" if commit else "no commit yet",
        dirty=bool(changed),
        detail=(f"{len(changed)} changed: " + ", ".join(sorted(changed)[:5])) if changed else "",
    )


def _sdist_metadata(directory: Path) -> dict[str, str]:
    """``name``/``version`` from an unpacked sdist's ``PKG-INFO``, else from the static
    ``[project]`` table of ``pyproject.toml`` (PEP 621); empty when neither says."""
    try:
        text = (directory / "PKG-INFO").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return _pyproject_metadata(directory)
    out = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version"):
            out[key.lower()] = value.strip()
    return out


def _pyproject_metadata(directory: Path) -> dict[str, str]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib

    try:
        with (directory / "pyproject.toml").open("rb") as handle:
            project = tomllib.load(handle).get("project", {})
    except (OSError, ValueError):
        return {}
    return {k: str(project[k]) for k in ("name", "version") if isinstance(project.get(k), str)}


def tree_digest(directory: Path, exclude: tuple[str, ...] = ()) -> tuple[str, int]:
    """A digest of a directory's files (paths and contents, sorted; ``.git``,
    ``__pycache__`` and the paths ``exclude`` left out) and how many files it covers."""
    digest = hashlib.sha256()
    count = 0
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        parts = f"/{relative}/"
        if (
            not path.is_file()
            or "/.git/" in parts
            or "/__pycache__/" in parts
            or any(f"/{relative}".startswith(f"/{e.rstrip('/')}" + "/") for e in exclude)
            or relative in exclude
        ):
            continue
        digest.update(relative.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        count += 1
    return digest.hexdigest(), count


def _cached_by_root(directory: Path) -> dict[str, Any] | None:
    """The fetch cache's record of the tree unpacked at ``directory``, if it is one."""
    from patchkeeper.fetch import cache_root

    root = cache_root()
    if not directory.is_relative_to(root):
        return None
    for record_file in sorted((root / "index").glob("*/*.json")):
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and (root / str(record.get("root", ""))) == directory:
            return record
    return None


def _fetched_source(role: str, record: dict[str, Any], root: Path) -> Source:
    return Source(
        role=role,
        name=str(record["name"]),
        version=str(record["version"]),
        kind=str(record["kind"]),
        location=str(root),
        identity=f"sha256 {record['sha256']}",
        detail=str(record["filename"]),
    )


def directory_source(role: str, directory: Path, exclude: tuple[str, ...] = ()) -> Source:
    """A directory as a checkout, a tree from the fetch cache, or else by its files' digest."""
    directory = directory.resolve()
    if not directory.is_dir():
        return Source(role, directory.name, None, ABSENT, str(directory), "", detail="missing")
    checkout = checkout_source(role, directory, exclude)
    if checkout is not None:
        return checkout
    record = _cached_by_root(directory)
    if record is not None:
        return _fetched_source(role, record, directory)
    meta = _sdist_metadata(directory)
    digest, count = tree_digest(directory, exclude)
    return Source(
        role=role,
        name=meta.get("name", directory.name),
        version=meta.get("version"),
        kind=DIRECTORY,
        location=str(directory),
        identity=f"tree sha256 {digest} ({count} files)",
    )


def requirement_source(role: str, requirement: str, kinds: tuple[str, ...]) -> Source:
    """A requirement as the fetch cache holds it (never fetched here: no network)."""
    from patchkeeper.fetch import find_cached

    for kind in kinds:
        fetched = find_cached(requirement, kind)
        if fetched is not None:
            record = {
                "name": fetched.name,
                "version": fetched.version,
                "kind": fetched.kind,
                "sha256": fetched.sha256,
                "filename": fetched.filename,
            }
            return _fetched_source(role, record, fetched.root)
    name, _, version = requirement.partition("==")
    return Source(role, name.strip(), version.strip() or None, NOT_FETCHED, "", "")


def installed_source(dist: InstalledDistribution) -> Source:
    """An installed distribution: version, location, and the sha256 of its ``RECORD`` (an
    ``.egg-info`` left in a source tree by a build has none, and says so)."""
    try:
        digest = hashlib.sha256(dist.record_path.read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return Source(
        role="installed",
        name=dist.name,
        version=dist.version,
        kind=INSTALLED,
        location=str(dist.site),
        identity=f"RECORD sha256 {digest}" if digest else f"no RECORD in `{dist.dist_info}`",
        detail=dist.dist_info.name,
    )


# --------------------------------------------------------------------------- measure


def measure(
    python: Path,
    cwd: Path,
    sources: list[Source],
    packages: list[str],
    timeout: float = 120.0,
) -> Environment:
    """Measure the environment of ``python`` for the trees ``sources`` and the import
    packages ``packages`` (upstream first, then the plugin).

    Raises:
        TargetError: the interpreter cannot be run or prints no result.
    """
    interpreter = probe_interpreter(python, cwd, timeout)
    origins, installed, notes = [], [], []
    seen: set[str] = set()
    for package in packages:
        origin, dists = probe_package(python, package, cwd, timeout)
        origins.append(origin)
        if not dists:
            installed.append(Source("installed", package, None, ABSENT, "", "", detail=""))
            notes.append(f"{package} is not installed in `{interpreter.executable}`")
        for d in dists:
            if d["dist_info"] in seen:
                continue
            seen.add(d["dist_info"])
            dist = InstalledDistribution(
                d["name"], d["version"], Path(d["dist_info"]), Path(d["location"]), str(python)
            )
            installed.append(installed_source(dist))
    comparisons = _comparisons(sources, installed, python, notes)
    return Environment(
        cwd=str(cwd),
        interpreter=interpreter,
        sources=(*sources, *installed),
        origins=tuple(origins),
        comparisons=tuple(comparisons),
        notes=tuple(notes),
    )


def _same_name(a: str, b: str) -> bool:
    from patchkeeper.fetch import canonical_name

    return canonical_name(a) == canonical_name(b)


def _comparisons(
    sources: list[Source], installed: list[Source], python: Path, notes: list[str]
) -> list[ContentComparison]:
    """Compare each installed distribution with a source tree of its name and version: one
    the evidence read, else the cached sdist of that version."""
    from patchkeeper.fetch import find_cached

    out = []
    for inst in installed:
        if inst.kind != INSTALLED or not inst.identity.startswith("RECORD"):
            continue
        tree = next(
            (
                Path(s.location)
                for s in sources
                if s.kind in (SDIST, CHECKOUT, DIRECTORY)
                and s.version == inst.version
                and _same_name(s.name, inst.name)
            ),
            None,
        )
        if tree is None:
            cached = find_cached(f"{inst.name}=={inst.version}", "sdist")
            tree = cached.root if cached else None
        if tree is None:
            notes.append(
                f"no source tree of {inst.name} {inst.version} was read or cached: "
                "the installed files are not compared with a source"
            )
            continue
        dist = InstalledDistribution(
            inst.name,
            str(inst.version),
            Path(inst.location) / inst.detail,
            Path(inst.location),
            str(python),
        )
        out.append(compare(tree, dist))
    return out


def differences(recorded: Any, current: Any, prefix: str = "", limit: int = 20) -> list[str]:
    """Where two JSON forms of :class:`Environment` differ, as ``"path: old -> new"`` lines.

    >>> differences({"a": {"b": 1}}, {"a": {"b": 2}})
    ['a.b: 1 -> 2']
    """
    out: list[str] = []
    if isinstance(recorded, dict) and isinstance(current, dict):
        for key in sorted(set(recorded) | set(current)):
            out += differences(recorded.get(key), current.get(key), f"{prefix}{key}.", limit)
    elif isinstance(recorded, list) and isinstance(current, list) and len(recorded) == len(current):
        for index, (a, b) in enumerate(zip(recorded, current)):
            out += differences(a, b, f"{prefix}{index}.", limit)
    elif recorded != current:
        out.append(f"{prefix.rstrip('.')}: {_short(recorded)} -> {_short(current)}")
    return out[:limit]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
