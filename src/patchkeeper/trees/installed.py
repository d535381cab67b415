"""An installed distribution: where it is, its ``RECORD``, and patchkeeper's install manifest.

The distribution is found through ``importlib.metadata`` in the interpreter that runs
patchkeeper, or in another environment's interpreter (``--python``) through a subprocess.
``RECORD`` (the wheel spec, PEP 376/627) lists every installed file with
``sha256=<urlsafe base64, no padding>`` and its size: that is the pristine reference.

What patchkeeper applied, the *install manifest* (docs/glossary.md), is written to
``<name>-<version>.dist-info/patchkeeper.json`` and listed in ``RECORD``, as are files the
series creates, so ``pip uninstall`` removes them.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.config import dotted_key_line
from patchkeeper.constants import APPLIED_RECORD
from patchkeeper.errors import TargetError
from patchkeeper.system.probes import ProbeWords, probe_failed, run_probe

_LOCATE = r"""
import importlib.metadata as m, json, sys
try:
    d = m.distribution(sys.argv[1])
except m.PackageNotFoundError:
    # the import package of that name, when another distribution provides it (Python 3.10+)
    pkg = sys.argv[1].lower().replace("-", "_").replace(".", "_")
    table = getattr(m, "packages_distributions", dict)()
    providers = []
    for other in sorted(set(table.get(pkg, []))):
        try:
            o = m.distribution(other)
            providers.append([o.metadata["Name"], o.version])
        except Exception:
            pass
    print(json.dumps({"patchkeeper-locate": 1, "missing": True, "import": pkg,
                      "providers": providers}))
    raise SystemExit(0)
url = d.read_text("direct_url.json")
editable = None
if url:
    info = json.loads(url)
    if info.get("dir_info", {}).get("editable"):
        editable = info.get("url", "")
print(json.dumps({"patchkeeper-locate": 1, "info": str(d._path),
                  "site": str(d.locate_file("")), "version": d.version,
                  "name": d.metadata["Name"], "python": sys.executable,
                  "editable": editable}))
"""


#: How the location query words an interpreter that does not run or answer.
_LOCATE_WORDS = ProbeWords(
    run_hint="pass --python the path of a Python executable",
    too_slow="the interpreter did not answer within {timeout:g} s",
    too_slow_hint="pass --python the path of a Python executable",
)


@dataclass(frozen=True)
class RecordEntry:
    """One ``RECORD`` row: ``path,sha256=...,size`` (hash and size may be empty)."""

    path: str
    sha256: str | None
    size: int | None


@dataclass(frozen=True)
class InstalledDistribution:
    """A distribution installed in some environment.

    Attributes:
        name: the project name as its metadata spells it.
        version: the installed version.
        dist_info: the ``.dist-info`` directory.
        site: the directory ``RECORD`` paths are relative to (site-packages).
        python: the interpreter whose environment holds it.
    """

    name: str
    version: str
    dist_info: Path
    site: Path
    python: str

    @property
    def record_path(self) -> Path:
        return self.dist_info / "RECORD"

    @property
    def applied_record_path(self) -> Path:
        return self.dist_info / APPLIED_RECORD

    def record_key(self, path: Path) -> str:
        """The ``RECORD`` spelling of an absolute path inside ``site``."""
        return path.relative_to(self.site).as_posix()


def _answer(stdout: str) -> dict[str, Any] | None:
    """The location query's answer, or ``None`` when the program did not give one."""
    for line in reversed(stdout.splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("patchkeeper-locate") == 1:
            return data
    return None


def _editable_url(url: str) -> str:
    return json.dumps({"url": url, "dir_info": {"editable": True}})


def check_installed(
    dist: InstalledDistribution, direct_url: str | None, where: str | None = None
) -> None:
    """Refuse a distribution whose files patchkeeper cannot manage.

    Args:
        dist: the distribution.
        direct_url: the text of its ``direct_url.json`` (PEP 610), or ``None``.
        where: the interpreter or directory it was found through, for the message.

    Raises:
        TargetError: it is an editable install (its files are in a checkout, not listed in
            ``RECORD``), or it has no ``RECORD`` (its pristine content is unknown).
    """
    info = json.loads(direct_url) if direct_url else {}
    if isinstance(info, dict) and info.get("dir_info", {}).get("editable"):
        source = str(info.get("url", "")).removeprefix("file://") or "its source directory"
        raise TargetError(
            f"{dist.name} {dist.version} is installed in editable mode from {source}: its "
            "files are not in site-packages and RECORD does not list them",
            path=where or dist.dist_info,
            hint=f"patch the checkout itself with --target {source}",
        )
    if not dist.record_path.is_file():
        raise TargetError(
            f"{dist.name} {dist.version} has no RECORD, so its pristine content is unknown",
            path=dist.dist_info,
            hint="reinstall it from a wheel with pip",
        )


def locate_distribution(
    name: str, python: Path | None = None, source: Path | None = None, pin: str | None = None
) -> InstalledDistribution:
    """Find the installed distribution ``name``.

    Args:
        name: the distribution name (``"vllm"``).
        python: another environment's interpreter; ``None`` means the one running
            patchkeeper.
        source: the configuration file that names ``name`` as ``upstream``, if any: when
            ``name`` is not installed but another distribution installs the import package
            of that name (``pdfminer``, from ``pdfminer.six``), the error names that line.
        pin: the version the series is cut against, if known: the advice to install the
            distribution names it (``pip install name==pin``), as the latest release would
            be another one than the series is cut against.

    Raises:
        TargetError: the interpreter does not run, or the distribution is not installed
            (naming the distribution that installs the import package of that name, when
            one does), or it has no ``RECORD`` (not installed from a wheel by a PEP 376
            installer).
    """
    interpreter = str(python) if python is not None else sys.executable
    proc = run_probe(interpreter, ["-I", "-c", _LOCATE, name], _LOCATE_WORDS, timeout=60)
    if proc.returncode != 0:
        raise probe_failed(
            proc, interpreter, f"the interpreter failed to locate {name}", _LOCATE_WORDS.run_hint
        )
    found = _answer(proc.stdout)
    if found is None:
        raise TargetError(
            "this is not a Python interpreter (it did not answer the location query)",
            path=interpreter,
            hint="pass --python the path of a Python executable, such as VENV/bin/python",
        )
    if found.get("missing"):
        install = "pip install " + shlex.quote(f"{name}=={pin}" if pin else name)
        providers = found.get("providers") or []
        if providers:  # the project is named otherwise on the index: say which name
            other, version = providers[0]
            raise TargetError(
                f"{name} is not installed in the environment of {interpreter}, but its "
                f"import package {found['import']} is: the distribution {other} {version} "
                "installs it",
                path=source,
                line=dotted_key_line(source, "upstream"),
                hint=f"if {other} is the project the series is cut against, set upstream = "
                f'"{other}"; else install {name} ({install}), pass --python for '
                "another environment, or --target DIR for a source tree",
            )
        raise TargetError(
            f"{name} is not installed in the environment of {interpreter}",
            hint=f"install it ({install}), pass --python for another environment, "
            "or --target DIR for a source tree",
        )
    dist = InstalledDistribution(
        name=found["name"],
        version=found["version"],
        dist_info=Path(found["info"]),
        site=Path(found["site"]),
        python=found["python"],
    )
    editable = found.get("editable")
    check_installed(dist, None if editable is None else _editable_url(editable), interpreter)
    return dist


def record_hash(data: bytes) -> str:
    """``RECORD``'s hash spelling of ``data``: ``sha256=<urlsafe base64 without padding>``."""
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def read_record(dist: InstalledDistribution) -> list[RecordEntry]:
    """Parse ``RECORD``.

    Raises:
        TargetError: it cannot be read or a row is malformed (naming the line).
    """
    try:
        text = dist.record_path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _unreadable_record(dist, exc) from None
    entries = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row:
            continue
        if len(row) != 3:
            raise TargetError("a RECORD row must have 3 fields", path=dist.record_path, line=number)
        path, digest, size = row
        sha = None
        if digest.startswith("sha256="):
            raw = digest[len("sha256=") :]
            sha = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).hex()
        entries.append(RecordEntry(path, sha, int(size) if size else None))
    return entries


def _unreadable_record(dist: InstalledDistribution, exc: OSError) -> TargetError:
    """The error of a ``RECORD`` the OS would not read (``exc``)."""
    return TargetError(
        f"cannot read RECORD: {exc.strerror}",
        path=dist.record_path,
        hint="make the installed distribution's RECORD readable (or reinstall it)",
    )


def render_record(entries: list[RecordEntry], line_end: str = "\n") -> bytes:
    """Write ``RECORD`` rows (hashes in ``RECORD``'s base64 spelling), each ending ``line_end``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=line_end)
    for entry in entries:
        digest = ""
        if entry.sha256 is not None:
            raw = bytes.fromhex(entry.sha256)
            digest = "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
        writer.writerow([entry.path, digest, "" if entry.size is None else str(entry.size)])
    return out.getvalue().encode("utf-8")


def read_record_bytes(dist: InstalledDistribution) -> bytes:
    """``RECORD`` as it is on disk.

    Raises:
        TargetError: it cannot be read.
    """
    try:
        return dist.record_path.read_bytes()
    except OSError as exc:
        raise _unreadable_record(dist, exc) from None


def _row_path(line: bytes) -> str | None:
    text = line.decode("utf-8", "surrogateescape").rstrip("\r\n")
    if not text:
        return None
    return next(csv.reader([text]))[0]


def add_record_rows(data: bytes, entries: list[RecordEntry]) -> bytes:
    """``RECORD``'s bytes ``data`` with ``entries`` appended, every existing byte kept.

    New rows end as the file's first row does: pip writes ``RECORD`` with csv's default
    ``\r\n``, other installers with ``\n``; so that ``unapply`` gives the file back byte
    for byte (with :func:`without_record_rows`).
    """
    first = data.find(b"\n")
    line_end = "\r\n" if first > 0 and data[first - 1 : first] == b"\r" else "\n"
    if data and not data.endswith(b"\n"):
        data += line_end.encode("ascii")
    return data + render_record(entries, line_end)


def without_record_rows(data: bytes, paths: set[str]) -> bytes:
    """``RECORD``'s bytes ``data`` without the rows whose path is in ``paths``; every other
    byte kept."""
    return b"".join(line for line in data.splitlines(keepends=True) if _row_path(line) not in paths)


@dataclass(frozen=True)
class AppliedRecord:
    """The install manifest: what patchkeeper applied to an installed distribution
    (``patchkeeper.json``).

    Attributes:
        series: ``(patch name, sha256 of the patch file)`` in apply order.
        files: path (``RECORD`` spelling) -> ``(sha256 before or None, sha256 after or None)``.
        created: the paths the series created (added to ``RECORD``).
        directory: the configured directory patch paths are relative to.
        landed: by patch, in the order of ``series``: by file diff, the 1-based line where
            each hunk's post-image starts in the file that diff left
            (:attr:`patchkeeper.series.engine.PatchOutcome.landed`), so that undoing a hunk
            finds it where it was put; empty for a record written without them (undoing then
            searches, as for any tree).
    """

    series: tuple[tuple[str, str], ...]
    files: dict[str, tuple[str | None, str | None]]
    created: tuple[str, ...]
    directory: str
    landed: tuple[tuple[tuple[int, ...], ...], ...] = ()

    def to_bytes(self) -> bytes:
        series: list[dict[str, Any]] = [{"name": n, "sha256": s} for n, s in self.series]
        for entry, landed in zip(series, self.landed):
            entry["landed"] = [list(lines) for lines in landed]
        data = {
            "format": 1,
            "directory": self.directory,
            "series": series,
            "files": {p: {"before": b, "after": a} for p, (b, a) in sorted(self.files.items())},
            "created": sorted(self.created),
        }
        return (json.dumps(data, indent=2, sort_keys=False) + "\n").encode("utf-8")

    def landing(self) -> dict[tuple[str, str], tuple[tuple[int, ...], ...]]:
        """``(patch name, sha256 of the patch file)`` -> its :attr:`landed` lines (empty
        without them): a patch changed since it was applied finds none."""
        return dict(zip(self.series, self.landed))

    @classmethod
    def load(cls, path: Path) -> AppliedRecord | None:
        """Read the record, or ``None`` when there is none.

        Raises:
            TargetError: the file exists but is not a record patchkeeper wrote.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            landed = tuple(
                tuple(tuple(int(line) for line in lines) for lines in e["landed"])
                for e in data["series"]
                if "landed" in e
            )
            return cls(
                series=tuple((e["name"], e["sha256"]) for e in data["series"]),
                files={p: (v["before"], v["after"]) for p, v in data["files"].items()},
                created=tuple(data["created"]),
                directory=data["directory"],
                landed=landed if len(landed) == len(data["series"]) else (),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise TargetError(
                f"not a patchkeeper record ({exc})",
                path=path,
                hint="restore it from a backup, or reinstall the distribution",
            ) from None
