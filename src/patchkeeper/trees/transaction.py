"""Atomic changes to a tree: a lock, a write-ahead journal, and roll-back after a crash.

The protocol (a rollback journal, as SQLite's): before the first file changes, the original
bytes of every file to be changed are copied into one journal file, and a manifest listing
them (path, offset, size, mode) is renamed into place. Each file is then rewritten, and when
every change is done the manifest is deleted: that single unlink is the commit. A process
killed at any moment therefore leaves the tree as before, fully changed, or with a manifest
that the next patchkeeper command uses to roll back before doing anything else. Like pip,
patchkeeper does not fsync: the guarantee is against a killed process, not a power cut.

How a file is rewritten: a plain file with a single link is overwritten in place (new bytes,
then the old tail cut off when the file was longer); anything else (a new file, a symlink, a
file with other hard links, which an in-place write would change too: installers such as uv
hard-link from their cache) gets a temporary file beside it that ``os.replace`` renames over
the path. The journal makes both safe against a kill. In-place is the fast path because ext4's
default ``auto_da_alloc`` starts writeback on every rename over an existing file (and on every
truncation to zero): on the 1,000-patch vLLM benchmark, renaming took about 0.7 s for 762
files and in-place writes about 0.02 s (``benchmarks/results/series.md``). Without a fault
to inject (the crash tests' hooks below), a file is written in one ``write``, and truncated
only when it was longer than its new bytes (``ftruncate`` costs as much as the write).

Two processes cannot interleave: every command holds an ``flock`` on the target's state
directory while it works; a second one waits a bounded time, then fails with a clear message.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.constants import STATE_DIR
from patchkeeper.errors import Interrupted, LockError, TargetError
from patchkeeper.system.atomic import write_atomic
from patchkeeper.system.english import plural
from patchkeeper.system.refusals import refusal_hint
from patchkeeper.system.removal import remove_tree
from patchkeeper.system.writable import try_write

MANIFEST = "manifest.json"
#: The journal file holding the original bytes of every changed file, one after another.
ORIGINALS = "originals"
TMP_SUFFIX = ".patchkeeper-tmp"
#: Testing hook: kill the process (SIGKILL) at the N-th journaled step (1-based).
FAULT_ENV = "PATCHKEEPER_FAULT_AT"
#: Testing hook: raise KeyboardInterrupt (a Ctrl-C) at the N-th journaled step.
INTERRUPT_ENV = "PATCHKEEPER_INTERRUPT_AT"


@dataclass(frozen=True)
class Change:
    """One file to write or delete.

    Attributes:
        path: the absolute path.
        data: the new bytes, or ``None`` to delete the file.
        mode: the permission bits to set, or ``None`` to keep the current ones (0o644 for a
            new file).
        original: the file's bytes and permission bits as the caller read them while holding
            the lock (so the journal need not read the file again), or ``None``: unknown, or
            no file.
    """

    path: Path
    data: bytes | None
    mode: int | None = None
    original: tuple[bytes, int] | None = None


@dataclass(frozen=True)
class Recovery:
    """A journal found and rolled back before the command ran.

    Attributes:
        journal: the journal directory.
        restored: the files put back as they were.
    """

    journal: Path
    restored: tuple[Path, ...]


class _Faults:
    """Testing hooks: at the N-th journaled step, kill the process (``PATCHKEEPER_FAULT_AT``)
    or raise ``KeyboardInterrupt`` as a Ctrl-C would (``PATCHKEEPER_INTERRUPT_AT``)."""

    def __init__(self) -> None:
        self.kill_at = self._read(FAULT_ENV)
        self.interrupt_at = self._read(INTERRUPT_ENV)
        self.count = 0

    @staticmethod
    def _read(name: str) -> int | None:
        value = os.environ.get(name, "")
        return int(value) if value.isdigit() else None

    @property
    def armed(self) -> bool:
        """Whether a fault is to be injected at some step."""
        return self.kill_at is not None or self.interrupt_at is not None

    def step(self) -> None:
        self.count += 1
        if self.kill_at is not None and self.count == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.interrupt_at is not None and self.count == self.interrupt_at:
            raise KeyboardInterrupt


def _wait_for_lock(fd: int, directory: Path, timeout: float, deadline: float, what: str) -> None:
    """Take an exclusive ``flock`` on ``fd`` (``directory`` opened), polling until
    ``deadline`` (:func:`time.monotonic` seconds).

    Raises:
        LockError: another process holds it past the deadline (``timeout``: the seconds
            said).
    """
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockError(
                    f"another patchkeeper process is working on {what}; waited {timeout:g} s",
                    path=directory,
                    hint="wait for it to finish, or raise 'lock-timeout' in the configuration",
                ) from None
            time.sleep(0.05)


def _open_to_lock(directory: Path) -> int | None:
    """``directory`` opened for :func:`_wait_for_lock`; ``None`` when it is not there.

    Raises:
        TargetError: it cannot be opened otherwise.
    """
    try:
        return os.open(directory, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TargetError(
            f"cannot open the target to lock it: {exc.strerror}",
            path=directory,
            hint=refusal_hint(exc, directory),
        ) from None


@contextmanager
def locked(directory: Path, timeout: float, what: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``directory`` for the duration of the block.

    Raises:
        LockError: another process holds it for longer than ``timeout`` seconds.
        TargetError: the directory cannot be opened.
    """
    fd = _open_to_lock(directory)
    if fd is None:
        raise TargetError(
            f"cannot open the target to lock it: {os.strerror(errno.ENOENT)}", path=directory
        )
    try:
        _wait_for_lock(fd, directory, timeout, time.monotonic() + timeout, what)
        yield
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` is still the file or directory ``fd`` has open (not removed, nor
    made anew after a removal)."""
    try:
        there = os.stat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)


@contextmanager
def locked_folder(folder: Path, timeout: float, what: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder``, made for the lock when it is missing and
    removed again at the end of the block, the lock still held, when this call made it and
    nothing was written there.

    A lock taken on a folder that another process removed meanwhile (one that made it and
    finished) locks nothing: a third process would make the folder anew and lock that one
    too. So the lock counts only when ``folder`` is still the directory locked; else it is let
    go and taken again on the folder now at the path, made anew if need be, all within
    ``timeout``.

    Raises:
        LockError: another process holds it for longer than ``timeout`` seconds.
        TargetError: the folder cannot be made or opened.
    """
    deadline = time.monotonic() + timeout
    while True:
        made = False
        try:
            folder.mkdir()
            made = True
        except FileExistsError:
            pass
        except OSError as exc:
            raise TargetError(
                f"cannot make the folder to lock it: {exc.strerror}",
                path=folder,
                hint=refusal_hint(exc, folder),
            ) from None
        fd = _open_to_lock(folder)
        if fd is None:
            continue  # removed by the process that made it, between mkdir and open
        try:
            _wait_for_lock(fd, folder, timeout, deadline, what)
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, folder):
            break
        os.close(fd)
    try:
        yield
    finally:
        try:
            if made:  # a folder something was written into is kept
                with suppress(OSError):
                    folder.rmdir()
        finally:
            os.close(fd)


#: What a read-only file is said to be part of, and what to do: ``commit(..., whose=...)``.
READ_ONLY = {
    "target": (
        "the target is read-only here; nothing was changed",
        "run as a user who can write the target, or apply to a copy with --target",
    ),
    "downstream": (
        "the downstream is read-only here; nothing was changed",
        "make the downstream's files and directories writable, or run as a user who can write them",
    ),
    "plugin": (
        "the plugin is read-only here; nothing was changed",
        "make the plugin's files writable, or leave --write out and write the diff elsewhere "
        "with --output FILE",
    ),
    "lock": (
        "the lock file's directory is read-only here; nothing was changed",
        "pass --output a file in a directory you can write (the plugin reads its lock from "
        "where the plugin ships it), or make that directory writable",
    ),
}


def _check_writable(changes: list[Change], whose: str = "target") -> None:
    """Refuse ``changes`` before anything is written when the machine will not let this user
    write them: each file that exists, and the nearest existing directory of each (where a
    new file or a missing directory is made).

    The write is tried (:func:`~patchkeeper.system.writable.try_write`: a file opened to
    append, an empty file made and removed in a directory; nothing is left), not guessed
    from the permission bits (``os.access``), so the refusal carries the machine's
    ``errno``: on a file system mounted read-only (``EROFS``) the hint says so. Any other
    failure (``ETXTBSY``, an executable being run) is left to the write, which replaces a
    file it cannot open rather than writing into it.

    Raises:
        TargetError: the read-only error of :data:`READ_ONLY` for ``whose``, naming the file
            when it exists, else its nearest existing directory.
    """
    # directory -> (its nearest existing directory, the errno refusing a write there or None)
    refused: dict[str, tuple[Path, int | None]] = {}
    for change in changes:
        target = change.path
        directory = os.path.dirname(target)
        if directory not in refused:
            existing = target.parent
            while not existing.exists():
                existing = existing.parent
            refused[directory] = (existing, _refusal(existing))
        parent, code = refused[directory]
        exists = change.original is not None or target.exists()
        if code is None and exists:
            code = _refusal(target)
        if code is not None:
            raise _read_only(whose, target if exists else parent, code)


def _refusal(path: Path) -> int | None:
    """The ``errno`` of the machine refusing to let this user write ``path``
    (:data:`_NOT_WRITABLE`), else ``None``."""
    try:
        try_write(path)
    except OSError as exc:
        if exc.errno in _NOT_WRITABLE:
            return exc.errno
    return None


def _read_only(whose: str, path: Path, code: int) -> TargetError:
    """The read-only error of :data:`READ_ONLY` for ``path``, refused with ``code``; on a
    file system mounted read-only (``EROFS``) the hint is the machine's for that
    (:func:`~patchkeeper.system.refusals.refusal_hint`): no user can write there, and
    "run as a user who can write" sent one to fix permissions that were fine."""
    message, hint = READ_ONLY[whose]
    if code == errno.EROFS:
        hint = refusal_hint(OSError(code, os.strerror(code)), path) or hint
    return TargetError(message, path=path, hint=hint)


def _missing_dirs(path: Path) -> list[Path]:
    missing = []
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    return list(reversed(missing))


def _atomic_write(path: Path, data: bytes, mode: int | None, faults: _Faults) -> None:
    tmp = path.with_name(path.name + TMP_SUFFIX)
    write_atomic(path, data, mode=mode, temporary=tmp, before_replace=faults.step)


def _write_in_place(path: Path, data: bytes, mode: int | None, faults: _Faults) -> bool:
    """Overwrite a plain, singly linked file's bytes in place; ``False`` (nothing written)
    for anything else: a missing file, a symlink (``O_NOFOLLOW``), a file with other links.

    The fault step falls between the two halves of the write, so that the crash tests also
    kill a process that has torn a file (the journal then puts it back).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            return False
        if faults.armed:
            half = len(data) // 2
            _write_all(fd, data[:half])
            faults.step()
            _write_all(fd, data[half:])
        else:
            _write_all(fd, data)
        if info.st_size > len(data):  # only a shorter file needs its tail cut
            os.ftruncate(fd, len(data))
        if mode is not None and mode != stat.S_IMODE(info.st_mode):
            os.fchmod(fd, mode)
    finally:
        os.close(fd)
    return True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _prune_empty_dirs(path: Path, stop: Path | None) -> None:
    """Remove the directories above a deleted file that it left empty, up to ``stop``, as GNU
    patch does when a diff deletes a file."""
    if stop is None:
        return
    parent = path.parent
    while parent != stop and parent.is_relative_to(stop):
        try:
            parent.rmdir()
        except OSError:
            return
        parent = parent.parent


def _remove_journal(journal: Path) -> None:
    for name in (ORIGINALS, MANIFEST):  # what a journal holds; anything else: rmtree
        try:
            os.unlink(journal / name)
        except OSError:
            pass
    try:
        journal.rmdir()
    except FileNotFoundError:
        pass
    except OSError:
        remove_tree(journal, ignore_errors=True)
    if journal.parent.name == STATE_DIR:
        try:
            journal.parent.rmdir()  # the state directory, when nothing else is in it
        except OSError:
            pass


def _inside(path: Path, root: Path) -> bool:
    """True when ``path``, symlinks resolved, is ``root`` or below it."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def check_journal(journal: Path, root: Path) -> None:
    """Refuse a journal that would make patchkeeper write outside ``root``.

    The journal must lie inside the target (not behind a symlink), and a manifest found there
    may only name paths inside it and backups inside the journal: a tree that ships a crafted
    ``.patchkeeper/journal`` must not turn a roll-back into a write anywhere (docs/architecture.md,
    "nothing is ever written outside the target").

    Raises:
        TargetError: naming the journal or the offending path; nothing was written.
    """
    if not _inside(journal, root):
        raise TargetError(
            "patchkeeper's journal directory leads outside the target (through a symlink)",
            path=journal,
            hint=f"remove {journal.parent} if it is a symlink; nothing was written",
        )
    manifest_path = journal / MANIFEST
    if not manifest_path.is_file():
        return
    hint = (
        f"this journal was not written by patchkeeper for this target: inspect and remove {journal}"
    )
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        paths = [str(e["path"]) for e in manifest["entries"]]
        paths += [str(d) for d in manifest["created_dirs"]]
        # format 1 kept one backup file per entry; format 2 keeps offsets into "originals"
        backups = [str(e["backup"]) for e in manifest["entries"] if e["existed"] and "backup" in e]
        for entry in manifest["entries"]:
            stored_at = (entry.get("offset"), entry.get("size"))
            if (
                entry["existed"]
                and "backup" not in entry
                and not all(isinstance(value, int) and value >= 0 for value in stored_at)
            ):
                raise ValueError(f"bad offset or size for {entry['path']}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TargetError(
            f"the journal of an interrupted run cannot be read ({exc})",
            path=manifest_path,
            hint=hint,
        ) from None
    for path in paths:
        if not os.path.isabs(path) or not _inside(Path(path), root):
            raise TargetError(
                f"the journal lists {path}, outside the target; nothing was rolled back",
                path=manifest_path,
                hint=hint,
            )
    for backup in backups:
        if not backup or "/" in backup or backup in (".", ".."):
            raise TargetError(
                f"the journal names the backup {backup!r}, outside the journal",
                path=manifest_path,
                hint=hint,
            )


def commit(
    changes: list[Change],
    journal: Path,
    prune_root: Path | None = None,
    root: Path | None = None,
    whose: str = "target",
) -> None:
    """Apply ``changes`` atomically, journaled in ``journal`` (which must not exist).

    Directories left empty by a deleted file are removed up to ``prune_root``. With ``root``
    (the target), the journal must lie inside it (see :func:`check_journal`). ``whose``
    (a key of :data:`READ_ONLY`: ``"target"``, an upstream tree; ``"downstream"``, the
    series' own files; ``"plugin"``, a plugin's files ``runtime port --write`` changes;
    ``"lock"``, the file ``runtime lock`` writes) says in a read-only error whose file it is
    and what to do.

    Raises:
        TargetError: the target is read-only or the journal would be outside it (checked
            before anything is written), or a write fails (everything already written is
            rolled back first).
    """
    if root is not None:
        check_journal(journal, root)
    _check_writable(changes, whose)
    faults = _Faults()
    _make_journal(journal, whose)
    try:
        manifest = _journal_originals(changes, journal, faults)
    except KeyboardInterrupt:
        _remove_journal(journal)  # nothing was written to the target yet
        raise Interrupted("interrupted before any file was written; nothing was changed") from None
    data = json.dumps(manifest, separators=(",", ":")).encode("utf-8")
    try:
        write_atomic(journal / MANIFEST, data, temporary=journal / (MANIFEST + ".tmp"))
    except KeyboardInterrupt:
        _remove_journal(journal)
        raise Interrupted("interrupted before any file was written; nothing was changed") from None
    try:
        faults.step()
        _write_changes(changes, prune_root, faults)
    except OSError as exc:
        rollback(journal)
        raise TargetError(
            f"writing failed ({exc.strerror}); everything was put back",
            path=exc.filename,
            hint=refusal_hint(exc),
        ) from None
    except KeyboardInterrupt:
        restored = rollback(journal)
        raise Interrupted(
            f"interrupted while writing; the {plural(len(restored), 'file')} of this run "
            f"{'was' if len(restored) == 1 else 'were'} put back, "
            "nothing was changed"
        ) from None
    (journal / MANIFEST).unlink()  # the commit point: from here on the change is done
    try:
        faults.step()
    except KeyboardInterrupt:
        pass  # the change is complete; finish the clean-up and report it
    try:
        _remove_journal(journal)
    except KeyboardInterrupt:
        _remove_journal(journal)


#: The ``errno`` values of a file or directory the machine refuses to let this user write
#: (into): no permission (also root, for an immutable one), or a file system mounted read-only.
_NOT_WRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)


def _make_journal(journal: Path, whose: str) -> None:
    """Make the journal directory (which must not exist), the first write of a commit.

    The check before it (:func:`_check_writable`) tries the files to change and their
    directories only; the journal's own directory (the target's top directory, where
    ``.patchkeeper/`` is made) can be the one that refuses, and a refusal there is only seen
    here. Nothing was written yet, so it is the same read-only error, naming the directory
    that could not be made.

    Raises:
        TargetError: the machine refused to make it (no permission, an immutable
            directory, a read-only file system); nothing was written.
    """
    try:
        journal.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        if exc.errno not in _NOT_WRITABLE:
            raise
        raise _read_only(whose, Path(exc.filename or journal), exc.errno) from None


def _journal_originals(changes: list[Change], journal: Path, faults: _Faults) -> dict[str, Any]:
    """Copy the original bytes of every file to change into the journal; return the manifest."""
    entries = []
    created_dirs: dict[str, None] = {}
    present: set[str] = set()  # directories known to exist
    offset = 0
    with open(journal / ORIGINALS, "wb") as originals:
        for change in changes:
            entry: dict[str, Any] = {"path": str(change.path), "existed": False}
            original = change.original if change.original is not None else _read(change.path)
            if original is not None:
                data, mode = original
                entry.update(existed=True, offset=offset, size=len(data), mode=mode)
                originals.write(data)
                offset += len(data)
                faults.step()
            parent = os.path.dirname(change.path)
            if parent not in present:
                for directory in _missing_dirs(change.path):
                    created_dirs.setdefault(str(directory), None)
                present.add(parent)
            entries.append(entry)
    return {"format": 2, "entries": entries, "created_dirs": list(created_dirs)}


def _read(path: Path) -> tuple[bytes, int] | None:
    """A file's bytes and permission bits, ``None`` when there is no file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    return path.read_bytes(), stat.S_IMODE(info.st_mode)


def _write_changes(changes: list[Change], prune_root: Path | None, faults: _Faults) -> None:
    for change in changes:
        if change.data is None:
            if change.path.exists():
                change.path.unlink()
                _prune_empty_dirs(change.path, prune_root)
            faults.step()
            continue
        if not _write_in_place(change.path, change.data, change.mode, faults):
            change.path.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(change.path, change.data, change.mode, faults)
        faults.step()


def rollback(journal: Path) -> tuple[Path, ...]:
    """Put every file listed in the journal's manifest back; remove the journal.

    Returns the files restored or removed. A journal without a manifest never changed
    anything (or finished) and is simply removed.
    """
    manifest_path = journal / MANIFEST
    restored: list[Path] = []
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        originals = journal / ORIGINALS
        stored = originals.read_bytes() if originals.exists() else b""
        for entry in manifest["entries"]:
            path = Path(entry["path"])
            tmp = path.with_name(path.name + TMP_SUFFIX)
            if tmp.exists():
                tmp.unlink()
            if entry["existed"]:
                if "backup" in entry:  # format 1: one backup file per entry
                    data = (journal / entry["backup"]).read_bytes()
                else:
                    data = stored[entry["offset"] : entry["offset"] + entry["size"]]
                write_atomic(path, data, mode=entry["mode"], parents=True, temporary=tmp)
            elif path.exists():
                path.unlink()
            restored.append(path)
        for directory in reversed(manifest["created_dirs"]):
            try:
                os.rmdir(directory)
            except OSError:
                pass
        manifest_path.unlink()
    _remove_journal(journal)
    return tuple(restored)


def _remove_empty_state_dir(journal: Path) -> None:
    """A run killed between creating ``.patchkeeper/`` and its journal (or after removing the
    journal) leaves the state directory empty: remove it."""
    if journal.parent.name == STATE_DIR and not journal.parent.is_symlink():
        try:
            journal.parent.rmdir()
        except OSError:
            pass


def recover(journal: Path, root: Path | None = None) -> Recovery | None:
    """Roll back an interrupted transaction, if ``journal`` exists; else return ``None``.

    With ``root`` (the target), the journal is checked first (:func:`check_journal`).

    Raises:
        TargetError: the journal exists but the target cannot be written, or it would make
            the roll-back write outside ``root``.
    """
    if not journal.exists():
        _remove_empty_state_dir(journal)
        return None
    if root is not None:
        check_journal(journal, root)
    try:
        restored = rollback(journal)
    except OSError as exc:
        raise TargetError(
            f"an interrupted patchkeeper run left a journal, and rolling it back failed: "
            f"{exc.strerror}",
            path=journal,
            hint="make the target writable and run the command again",
        ) from None
    return Recovery(journal, restored)


def invalidate_bytecode(paths: list[Path]) -> None:
    """Delete the cached bytecode of changed ``.py`` files, so a fresh interpreter compiles
    the new source (a rewrite within the same second and of the same size would otherwise
    pass the pyc's mtime/size check)."""
    listed: dict[str, list[str]] = {}  # __pycache__ -> its entries, listed once
    for path in paths:
        directory, base = os.path.split(os.fspath(path))
        if not base.endswith(".py") or base == ".py":
            continue
        cache = os.path.join(directory, "__pycache__")
        if cache not in listed:
            try:
                listed[cache] = os.listdir(cache)
            except OSError:
                listed[cache] = []
        prefix = base[:-3] + "."
        for name in listed[cache]:
            if name.startswith(prefix) and name.endswith(".pyc") and len(name) > len(prefix) + 3:
                try:
                    os.unlink(os.path.join(cache, name))
                except OSError:
                    pass
