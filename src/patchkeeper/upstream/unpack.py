"""Unpack a downloaded sdist or wheel safely: nothing is written outside the destination.

Every member is checked before anything is extracted (docs/architecture.md, *Principles*; the same
rules as ``tarfile``'s ``data`` filter, PEP 706, applied by hand so that they hold on every Python
and so that an absolute member name is refused instead of silently made relative):

- no absolute name (``/etc/passwd``, ``C:/x``) and no ``..`` component;
- tar only: no device or FIFO member, no symbolic or hard link whose target leaves the tree.

On Pythons that have it, tar extraction then also runs with ``filter="data"``. Nothing is ever
built or executed: ``setup.py`` is a file like any other.
"""

from __future__ import annotations

import calendar
import lzma
import os
import posixpath
import re
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TypeVar

from patchkeeper.errors import FetchError
from patchkeeper.progress import Advance, track

_Member = TypeVar("_Member", tarfile.TarInfo, zipfile.ZipInfo)

#: File name endings of archives this module unpacks, longest first.
TAR_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tbz", ".txz", ".tar")
ZIP_SUFFIXES = (".whl", ".zip")

#: A Windows drive prefix in a member name: ``C:/evil`` or ``c:\\evil``.
_DRIVE = re.compile(r"^[A-Za-z]:")


def archive_stem(filename: str) -> str:
    """Return ``filename`` without its archive ending.

    >>> archive_stem("urllib3-1.26.20.tar.gz")
    'urllib3-1.26.20'
    >>> archive_stem("six-1.16.0-py2.py3-none-any.whl")
    'six-1.16.0-py2.py3-none-any'
    """
    for suffix in TAR_SUFFIXES + ZIP_SUFFIXES:
        if filename.endswith(suffix):
            return filename[: -len(suffix)]
    return filename


def sdist_release(filename: str) -> tuple[str, str]:
    """``(project, version)`` of an sdist's file name, the project as PEP 503 normalises it.

    PEP 625 names an sdist ``NAME-VERSION.tar.gz``; the package indexes keep older sdists
    under the other endings pip downloads and this module unpacks (``.zip``, ``.tar.bz2``,
    ``.tgz``, ...), read by the same rule.

    >>> sdist_release("pytz-2013.7.tar.bz2"), sdist_release("Django-1.4.tgz")
    (('pytz', '2013.7'), ('django', '1.4'))

    Raises:
        packaging.utils.InvalidSdistFilename: the name is no sdist's.
    """
    from packaging.utils import parse_sdist_filename

    for suffix in TAR_SUFFIXES:
        if filename.endswith(suffix) and suffix != ".tar.gz":
            filename = filename[: -len(suffix)] + ".tar.gz"
            break
    name, version = parse_sdist_filename(filename)
    return str(name), str(version)


def is_archive(filename: str) -> bool:
    """Whether :func:`unpack_archive` knows the format of ``filename`` (by its ending)."""
    return filename.endswith(TAR_SUFFIXES + ZIP_SUFFIXES)


#: What to do with a corrupt archive patchkeeper downloaded into its cache.
CACHED_HINT = "delete the file from the cache and fetch it again"


def local_hint(requirement: str, wheel: bool) -> str:
    """What to do with a corrupt archive the user gave (``--to FILE``, a file in
    ``--releases DIR``): not patchkeeper's to delete, so the cache's advice would send them
    to the wrong file; they download the release ``requirement`` again.

    >>> local_hint("dacite==1.8.0", wheel=False)[:84]
    'the file is cut short or damaged: download it again (pip download --no-deps --no-bin'
    """
    binary = "" if wheel else " --no-binary :all:"
    return (
        f"the file is cut short or damaged: download it again (pip download --no-deps"
        f"{binary} {requirement}), or give the directory it unpacks to instead"
    )


def unpack_archive(archive: Path, dest: Path, hint: str = CACHED_HINT) -> None:
    """Extract the tar or zip file ``archive`` into the directory ``dest`` (created if missing).

    ``hint`` is the advice given with a corrupt archive: :data:`CACHED_HINT` for a file
    of patchkeeper's cache, :func:`local_hint` for one the user gave.

    Raises:
        FetchError: the archive is unreadable or corrupt, of an unknown format, or has an
            unsafe member (``path=archive``, so the message does not name it again; it
            names the member). All members are checked before the first one is written, so
            a refused archive writes nothing.
    """
    name = archive.name
    try:
        if name.endswith(ZIP_SUFFIXES):
            _unpack_zip(archive, dest)
        elif name.endswith(TAR_SUFFIXES):
            _unpack_tar(archive, dest)
        else:
            raise FetchError(
                "unknown archive format",
                path=archive,
                hint="patchkeeper unpacks .tar.gz, .tar.bz2, .tar.xz, .zip and .whl files",
            )
    except (
        tarfile.TarError,
        zipfile.BadZipFile,
        EOFError,
        OSError,
        zlib.error,
        lzma.LZMAError,
    ) as exc:
        raise FetchError(
            f"cannot unpack the archive: {damage(name, exc)}",
            path=archive,
            hint=hint,
        ) from exc


#: What a tar file that cannot be opened at all was meant to be, by its ending.
_TAR_KINDS = {
    ".tar.gz": "gzip-compressed tar",
    ".tgz": "gzip-compressed tar",
    ".tar.bz2": "bzip2-compressed tar",
    ".tbz": "bzip2-compressed tar",
    ".tar.xz": "xz-compressed tar",
    ".txz": "xz-compressed tar",
    ".tar": "tar",
}


def damage(filename: str, exc: BaseException) -> str:
    """What is wrong with the archive ``filename``, in one line, from the error reading it
    raised: ``tarfile`` lists every compression it tried, one line each, for a file it
    cannot open at all (a page saved in a download's place, or one cut short before its
    first member), which is said here as the kind of file it is not.

    >>> damage("x-1.0.tar.gz", tarfile.ReadError("file could not be opened successfully:"))
    'it is not a gzip-compressed tar file, or it is cut short'
    >>> damage("x-1.0.whl", zipfile.BadZipFile("File is not a zip file"))
    'it is not a zip file, or it is cut short'
    >>> damage("x-1.0.tar.xz", EOFError("Compressed file ended before the end-of-stream marker"))
    'Compressed file ended before the end-of-stream marker'
    """
    text = str(exc).strip()
    if isinstance(exc, tarfile.ReadError) and text.startswith("file could not be opened"):
        kind = next((k for s, k in _TAR_KINDS.items() if filename.endswith(s)), "tar")
        article = "an" if kind[0] in "aeiox" else "a"
        return f"it is not {article} {kind} file, or it is cut short"
    if isinstance(exc, zipfile.BadZipFile) and text == "File is not a zip file":
        return "it is not a zip file, or it is cut short"
    first = text.splitlines()[0] if text else type(exc).__name__
    return first.rstrip(":")


def unsafe_name(name: str) -> str | None:
    """Say why the archive member name ``name`` is unsafe, or return ``None`` if it is fine.

    >>> unsafe_name("urllib3-1.26.20/src/urllib3/__init__.py") is None
    True
    >>> unsafe_name("../evil")
    'it leaves the destination (..)'
    >>> unsafe_name("/etc/evil")
    'it is an absolute path'
    """
    if name.startswith(("/", "\\")) or _DRIVE.match(name):
        return "it is an absolute path"
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return "it leaves the destination (..)"
    return None


def _refuse(archive: Path, member: str, why: str) -> FetchError:
    return FetchError(
        f"unsafe member {member!r}: {why}; nothing was unpacked",
        path=archive,
        hint="the distribution file is malformed or hostile; report it to the project",
    )


def _tar_member_problem(member: tarfile.TarInfo) -> str | None:
    why = unsafe_name(member.name)
    if why is not None or member.isfile() or member.isdir():
        return why
    if member.issym():
        target = member.linkname
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(member.name), target))
        if target.startswith("/") or joined == ".." or joined.startswith("../"):
            return f"a symbolic link to {target!r} outside the tree"
        return None
    if member.islnk():
        if unsafe_name(member.linkname) is not None:
            return f"a hard link to {member.linkname!r} outside the tree"
        return None
    return "a device, FIFO or other special file"


def _unpack_tar(archive: Path, dest: Path) -> None:
    with tarfile.open(archive, mode="r:*") as tar:
        members = tar.getmembers()
        for member in members:
            why = _tar_member_problem(member)
            if why is not None:
                raise _refuse(archive, member.name, why)
        dest.mkdir(parents=True, exist_ok=True)
        with track(f"unpacking {archive.name}", len(members)) as advance:
            if hasattr(tarfile, "data_filter"):
                try:
                    tar.extractall(dest, members=_counted(members, advance), filter="data")
                except tarfile.FilterError as exc:
                    refused = str(getattr(getattr(exc, "tarinfo", None), "name", "?"))
                    raise _refuse(archive, refused, str(exc)) from exc
            else:  # pragma: no cover - Pythons without PEP 706 (before 3.10.12 / 3.11.4)
                tar.extractall(dest, members=_counted(members, advance))
        _read_to_the_end(tar)


def _read_to_the_end(tar: tarfile.TarFile) -> None:
    """Decompress what is left of ``tar``'s file after its last member, so that the
    compression's own check runs (gzip's CRC, bzip2's and xz's block checks): ``tarfile``
    stops quietly at a header that damage made unreadable, and would leave the members
    after it out without a word.

    Raises:
        OSError, EOFError, zlib.error, lzma.LZMAError: the compressed data is damaged.
    """
    stream = tar.fileobj
    if stream is None or not hasattr(stream, "read"):
        return
    while stream.read(1 << 20):
        pass


def _unpack_zip(archive: Path, dest: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            why = unsafe_name(info.filename)
            if why is not None:
                raise _refuse(archive, info.filename, why)
        dest.mkdir(parents=True, exist_ok=True)
        with track(f"unpacking {archive.name}", len(infos)) as advance:
            zf.extractall(dest, members=_counted(infos, advance))
        _keep_zip_times(infos, dest)


def _keep_zip_times(infos: list[zipfile.ZipInfo], dest: Path) -> None:
    """Give each extracted file the modification time its zip member holds, as tar
    extraction does: ``ZipFile.extractall`` leaves the time of the unpacking, and a
    release's files are what tell its day (an unpacked wheel read as unpacked today would
    date the release today). A zip time has no zone; it is read as UTC, within a day of
    the writer's. Directories keep the unpacking's time."""
    for info in infos:
        if info.is_dir():
            continue
        try:
            stamp = float(calendar.timegm((*info.date_time, 0, 0, 0)))
            os.utime(dest / info.filename, (stamp, stamp))
        except (OverflowError, ValueError, OSError):
            continue  # the time is only evidence: a file without it keeps the unpacking's


def _counted(members: list[_Member], advance: Advance) -> Iterator[_Member]:
    """``members`` one by one, counting each for the progress bar as it is taken."""
    for member in members:
        yield member
        advance()
