"""The work directory of a port that stopped at a conflict, like ``.git/rebase-merge``.

One directory per downstream (default ``.patchkeeper-port/`` beside the configuration)::

    state.json                  what the port was started with, and where it stopped; the
                                sha256 of every input (series, patches, configuration)
    original/series             the series as it was when the port started, and its patches
    original/<patch>
    resolved/<n>/               resolutions recorded by ``port --continue``: manifest.json
                                (patch name, every path with its mode or absence) and files/
    conflict/INSTRUCTIONS.md    what to do, with the cause of the conflict
    conflict/manifest.json      the stopped patch and its paths
    conflict/files/<path>       the files to resolve: git's merge, conflict markers included
    conflict/reference/         the original patch; old/, patched/, new/ copies of each path
                                (git's stages 1, 2 and 3: base, the patch's side, the new pin)

Nothing outside this directory is written until the port finishes, so ``port --abort`` only
removes it. The port is replayed from ``original/`` on every ``--continue``, using the
resolutions recorded so far (the replay is deterministic: same trees, same patches). An edit
to an input while the port is stopped would therefore be lost (the user-test report, bug 4):
``--continue`` compares every input with the sha256 recorded when the port started
(:func:`changed_inputs`) and refuses when one differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.errors import PatchkeeperError
from patchkeeper.port.merge import MODIFY_DELETE, FileMerge
from patchkeeper.series.engine import FileState
from patchkeeper.series.model import Patch, Series
from patchkeeper.system.atomic import write_atomic
from patchkeeper.system.english import plural
from patchkeeper.system.removal import remove_tree
from patchkeeper.trees.tree import read_file, safe_path

FORMAT = 1
STATE = "state.json"
MANIFEST = "manifest.json"
INSTRUCTIONS = "INSTRUCTIONS.md"
#: Every name a port writes at the top of its work directory (the memo's ``judged.pickle``
#: and its temporary files included): anything else there is not the port's to delete.
OWN_NAMES = frozenset(
    {STATE, MANIFEST, INSTRUCTIONS, "original", "conflict", "journal", "resolved", "judged.pickle"}
)
#: Lines git's merge leaves around a conflict (git-merge-file(1), diff3 style).
MARKERS = (b"<<<<<<< ", b"||||||| ", b">>>>>>> ")
SEPARATOR = b"======="


class PortStateError(PatchkeeperError):
    """A port is in progress where none should be, or none is where one should be."""


class UnresolvedError(PatchkeeperError):
    """``port --continue`` found conflict markers left in a file."""


@dataclass(frozen=True)
class PortState:
    """What ``port`` was started with (``state.json``).

    Attributes:
        series: the series file being ported.
        old: the ``--from`` spec; new: the ``--to`` spec.
        in_place: rewrite the series where it is.
        retire: record upstreamed patches in the ledger's Retired section.
        output: the new series directory (when not in place).
        upstream_repo: the ``--upstream-repo`` checkout, if any.
        stopped: the patch the port stopped at.
        inputs: absolute path -> sha256 (hex) of every file the port read when it started:
            the series, its patches, the configuration (``None`` in a work directory made
            by a patchkeeper that did not record them).
    """

    series: str
    old: str
    new: str
    in_place: bool
    retire: bool
    output: str | None
    upstream_repo: str | None
    stopped: str | None = None
    inputs: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **self.__dict__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PortState:
        fields = {k: v for k, v in data.items() if k != "format"}
        return cls(**fields)


class WorkDir:
    """The work directory at ``root`` (it may not exist yet)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def exists(self) -> bool:
        return (self.root / STATE).is_file()

    def file_in_the_way(self) -> Path | None:
        """The file where the work directory should be: its own path, or the nearest folder
        above it that exists and is not a directory (``None`` when there is none). A port
        cannot keep its state there, so none can be in progress."""
        for path in (self.root, *self.root.parents):
            if path.is_dir():
                return None
            if path.exists() or path.is_symlink():
                return path
        return None

    @property
    def conflict(self) -> Path:
        return self.root / "conflict"

    @property
    def journal(self) -> Path:
        return self.root / "journal"

    # ----------------------------------------------------------------- state

    def load(self) -> PortState:
        """Read ``state.json``.

        Raises:
            PortStateError: no port is in progress here.
        """
        if not self.exists:
            raise PortStateError(
                "no port is in progress",
                path=self.root,
                hint="start one with 'patchkeeper port --to NEWPIN'",
            )
        data = json.loads((self.root / STATE).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise PortStateError(
                f"the work directory has format {data.get('format')!r}, not {FORMAT}",
                path=self.root / STATE,
                hint="finish or abort it with the patchkeeper that started it",
            )
        return PortState.from_json(data)

    def save(self, state: PortState) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        _write(self.root / STATE, json.dumps(state.to_json(), indent=1).encode() + b"\n")

    def start(self, state: PortState, series: Series, patches: list[Patch]) -> None:
        """Create the directory: the state and a copy of the series and its patches.

        Raises:
            PortStateError: a port is already in progress.
        """
        if self.exists:
            raise PortStateError(
                "a port is already in progress",
                path=self.root,
                hint="run 'patchkeeper port --continue' or 'patchkeeper port --abort'",
            )
        self._refuse_foreign()
        if self.root.exists():
            remove_tree(self.root)
        original = self.root / "original"
        original.mkdir(parents=True)
        _write(original / "series", series.path.read_bytes())
        for patch in patches:
            _write(safe_path(original, patch.name), patch.raw)
        self.save(state)

    def refuse_file(self) -> None:
        """Refuse to start a port where a file stands in the work directory's way
        (:meth:`file_in_the_way`): it could not keep its state or its journal there.

        Raises:
            PortStateError: naming the file and what to do.
        """
        blocker = self.file_in_the_way()
        if blocker is not None:
            raise PortStateError(
                self.file_words(blocker),
                path=blocker,
                hint=f"move the file {blocker} away (a port keeps its state in a directory "
                "there), or set [tool.patchkeeper.port] work-dir to a directory of its own",
            )

    def file_words(self, blocker: Path) -> str:
        """The error's words for :meth:`file_in_the_way`'s ``blocker``."""
        if blocker == self.root:
            return "the port's work directory is a file"
        return f"the port's work directory {self.root} would be inside this file"

    def _refuse_foreign(self) -> None:
        """Refuse a work directory that holds anything a port does not write there (the
        configured ``[port] work-dir`` naming the series directory, the downstream itself,
        or another directory of files): starting a port empties the work directory first,
        and that would delete them. A port's leftovers (:data:`OWN_NAMES`, a run killed
        before ``state.json`` was written) are removed as before.

        Raises:
            PortStateError: naming the directory and the first name that is not a port's.
        """
        self.refuse_file()
        if not self.root.exists():
            return
        foreign = sorted(
            p.name
            for p in self.root.iterdir()
            if p.name not in OWN_NAMES and not p.name.endswith(".part")  # write_atomic's
        )
        if foreign:
            raise PortStateError(
                f"the port's work directory holds files a port did not write ({foreign[0]}"
                f"{', ...' if len(foreign) > 1 else ''}); starting a port would delete them",
                path=self.root,
                hint="set [tool.patchkeeper.port] work-dir to a directory of its own "
                '(default ".patchkeeper-port"), or remove the directory',
            )

    def original_series(self) -> Path:
        return self.root / "original" / "series"

    def remove(self) -> None:
        remove_tree(self.root, ignore_errors=True)

    # ----------------------------------------------------------------- conflicts

    def write_conflict(
        self,
        patch: Patch,
        merges: list[FileMerge],
        base: Mapping[str, FileState | None],
        old: Mapping[str, FileState | None],
        patched: Mapping[str, FileState | None],
        instructions: str,
    ) -> None:
        """Lay out the stopped patch's files for resolution (replacing any earlier one).

        The files are written to ``conflict.part/``, which is then renamed to ``conflict/``: a
        run cut short leaves a whole conflict or none (and ``--continue`` replays the port up
        to its stop, :attr:`has_conflict`), never a conflict missing files.
        """
        part = self.conflict.with_name(self.conflict.name + ".part")
        if part.exists():
            remove_tree(part)
        files = part / "files"
        reference = part / "reference"
        files.mkdir(parents=True)
        paths: dict[str, dict[str, Any]] = {}
        for merge in merges:
            state = merge.result if merge.status != "gone" else None
            if state is not None:
                _write(safe_path(files, merge.target), state.data)
            mode = next(
                (s.mode for s in (base.get(merge.target), patched.get(merge.path)) if s), None
            )
            paths[merge.target] = {"path": merge.path, "status": merge.status, "mode": mode}
            for side, states, key in (
                ("old", old, merge.path),
                ("patched", patched, merge.path),
                ("new", base, merge.target),
            ):
                state = states.get(key)
                if state is not None:
                    _write(safe_path(reference / side, key), state.data)
        _write(safe_path(reference, patch.name), patch.raw)
        manifest = {"patch": patch.name, "paths": paths}
        _write(part / MANIFEST, json.dumps(manifest, indent=1).encode() + b"\n")
        _write(part / INSTRUCTIONS, instructions.encode("utf-8", "surrogateescape"))
        if self.conflict.exists():
            remove_tree(self.conflict)
        part.rename(self.conflict)

    @property
    def has_conflict(self) -> bool:
        """Whether a stopped patch's files wait for resolution: false in a work directory
        whose run was cut short before it wrote them (or after ``--continue`` recorded the
        resolution and before the next stop was written)."""
        return (self.conflict / MANIFEST).is_file()

    def read_resolution(self) -> tuple[str, dict[str, FileState | None]]:
        """The stopped patch's name and its resolved files (path -> content, ``None`` = absent).

        Every file under ``conflict/files`` counts, listed or not; a listed path whose file
        was removed is a deletion.

        Raises:
            PortStateError: there is no conflict to resolve.
            UnresolvedError: a file still has conflict markers (naming the file and line).
        """
        manifest_path = self.conflict / MANIFEST
        if not manifest_path.is_file():
            raise PortStateError(
                "the port has no conflict to resolve", path=self.root, hint="run port --abort"
            )
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        files = self.conflict / "files"
        resolved: dict[str, FileState | None] = {}
        for target, info in manifest["paths"].items():
            state = read_file(safe_path(files, target))
            if state is not None and info.get("mode") is not None:
                state = FileState(state.lines, info["mode"])
            resolved[target] = state
        for path in sorted(files.rglob("*")):
            relative = path.relative_to(files).as_posix()
            if path.is_file() and relative not in resolved:
                resolved[relative] = read_file(path)
        deleted = {
            t for t, info in manifest["paths"].items() if info.get("status") == MODIFY_DELETE
        }
        references = {target: self.references(target, manifest) for target in resolved}
        _check_markers(files, resolved, deleted, references)
        self._check_removed(manifest, resolved)
        return manifest["patch"], resolved

    def _check_removed(
        self, manifest: Mapping[str, Any], resolved: Mapping[str, FileState | None]
    ) -> None:
        """Refuse a resolution that removes a file the stopped patch leaves in place: one
        it changes (or creates) and does not delete, laid out under ``conflict/files``.
        Removing a file there makes the regenerated patch delete it from upstream, which
        neither the patch nor the new pin did: most likely a slip, and the port would go
        on with it silently ("resolved"), as ``git rebase --continue`` never does with a
        path nobody marked as removed. A modify/delete (the patch deletes the file) and a
        file gone from the new pin are left as they are: removing those is the deletion.

        Raises:
            UnresolvedError: naming the first such file under ``conflict/files``.
        """
        files, patched = self.conflict / "files", self.conflict / "reference" / "patched"
        for target, info in sorted(manifest["paths"].items()):
            if resolved.get(target) is not None or info.get("status") in (MODIFY_DELETE, "gone"):
                continue
            if not safe_path(patched, info.get("path") or target).is_file():
                continue  # the patch itself deletes it
            raise UnresolvedError(
                "this file was removed, so the patch would delete it; the patch changes it "
                "and does not delete it",
                path=files / target,
                hint=f"put it back: the new pin's file is {self.conflict}/reference/new/"
                f"{target}, the file with the patch on the old pin reference/patched/"
                f"{info.get('path') or target}; make the patch's change in it (or keep the new "
                "pin's file as it is, to drop that change), then run 'patchkeeper port "
                "--continue'",
            )

    def references(
        self, target: str, manifest: Mapping[str, Any] | None = None
    ) -> tuple[FileState, ...]:
        """The stopped patch's file ``target`` (a path under ``conflict/files``) as the old
        pin had it, with the patch, and as the new pin has it: the copies under
        ``conflict/reference`` (those that exist; none for a file the manifest does not
        list). ``manifest``: the conflict's manifest when the caller has read it."""
        try:
            if manifest is None:
                manifest = json.loads((self.conflict / MANIFEST).read_text(encoding="utf-8"))
            path = manifest["paths"][target]["path"]
        except (OSError, ValueError, KeyError, TypeError):
            return ()
        reference = self.conflict / "reference"
        out = []
        for side, key in (("old", path), ("patched", path), ("new", target)):
            state = read_file(safe_path(reference / side, key))
            if state is not None:
                out.append(state)
        return tuple(out)

    def save_resolution(self, name: str, resolved: Mapping[str, FileState | None]) -> None:
        """Record a resolution under ``resolved/``; the conflict directory is removed."""
        number = len(self.resolutions())
        dest = self.root / "resolved" / f"{number:04d}"
        part = dest.with_name(dest.name + ".part")  # renamed when whole, as write_conflict's
        for stale in (dest, part):
            if stale.exists():
                remove_tree(stale)
        paths = {}
        for path, state in resolved.items():
            paths[path] = None if state is None else state.mode
            if state is not None:
                _write(safe_path(part / "files", path), state.data)
        _write(part / MANIFEST, json.dumps({"patch": name, "paths": paths}, indent=1).encode())
        part.rename(dest)
        remove_tree(self.conflict, ignore_errors=True)

    def resolutions(self) -> dict[str, dict[str, FileState | None]]:
        """Every recorded resolution: patch name -> path -> content (``None`` = absent)."""
        out: dict[str, dict[str, FileState | None]] = {}
        root = self.root / "resolved"
        if not root.is_dir():
            return out
        for entry in sorted(root.iterdir()):
            if entry.name.endswith(".part"):  # a save_resolution cut short
                continue
            manifest = json.loads((entry / MANIFEST).read_text(encoding="utf-8"))
            states: dict[str, FileState | None] = {}
            for path, mode in manifest["paths"].items():
                if mode is None and not safe_path(entry / "files", path).is_file():
                    states[path] = None
                    continue
                data = safe_path(entry / "files", path).read_bytes()
                states[path] = FileState.from_bytes(data, mode)
            out[manifest["patch"]] = states
        return out


def input_digests(files: Mapping[Path, bytes]) -> dict[str, str]:
    """``{absolute path: sha256 hex}`` of the bytes each file had when the port read it.

    >>> input_digests({Path("/d/series"): b"a.patch\\n"})
    {'/d/series': 'c8e4f4be59dfbb338a380a7018c08486ee56c6a5e286142a41834fb73239bfd6'}
    """
    return {str(path): hashlib.sha256(data).hexdigest() for path, data in files.items()}


def changed_inputs(recorded: Mapping[str, str]) -> list[tuple[Path, str]]:
    """The recorded inputs whose file differs now: ``(path, "edited" | "removed" |
    "unreadable")``, in recorded order; ``[]`` when every file has its recorded bytes."""
    changed = []
    for name, expected in recorded.items():
        path = Path(name)
        try:
            actual = hashlib.sha256(path.read_bytes()).hexdigest()
        except FileNotFoundError:
            changed.append((path, "removed"))
            continue
        except OSError:
            changed.append((path, "unreadable"))
            continue
        if actual != expected:
            changed.append((path, "edited"))
    return changed


def _underlined(states: Sequence[FileState]) -> set[bytes]:
    """The lines that ``states`` have right before a bare ``=======`` line of their own."""
    out = set()
    for state in states:
        before = b""
        for line in state.lines:
            bare = line.rstrip(b"\r\n")
            if bare == SEPARATOR:
                out.add(before)
            before = bare
    return out


def first_marker(state: FileState, references: Sequence[FileState] = ()) -> int | None:
    """The 1-based line of the first conflict marker in ``state``, ``None`` when it has none.

    A bare ``=======`` line is git's separator unless one of ``references`` (the file on the
    old pin, with the patch, on the new pin) has such a line after the same line: a
    reStructuredText heading's underline (``License`` over seven ``=``) is the file's own,
    and a resolution that keeps it has no marker left.
    """
    own = _underlined(references)
    before = b""
    for number, line in enumerate(state.lines, 1):
        bare = line.rstrip(b"\r\n")
        if line.startswith(MARKERS) or (bare == SEPARATOR and before not in own):
            return number
        before = bare
    return None


def _check_markers(
    files: Path,
    resolved: Mapping[str, FileState | None],
    deleted: Set[str] = frozenset(),
    references: Mapping[str, Sequence[FileState]] | None = None,
) -> None:
    """Refuse a resolution with markers left, naming every such file (relative to
    ``files``) and its first marker line, so that one run shows all that is left. A file
    in ``deleted`` (a modify/delete: the patch deletes it) gets the advice to delete it too.
    ``references`` holds each file's versions the conflict was laid out with
    (:meth:`WorkDir.references`), whose own ``=======`` lines are no markers.

    Raises:
        UnresolvedError: one file (its path and line) or several (the directory, and each
            ``PATH:LINE`` in the message).
    """
    left = [
        (target, line)
        for target, state in sorted(resolved.items())
        if state is not None
        and (line := first_marker(state, (references or {}).get(target, ()))) is not None
    ]
    if not left:
        return
    if len(left) == 1:
        [(target, line)] = left
        if target in deleted:
            hint = (
                "the patch deletes this file and the new pin changed it: delete the file to "
                "keep the deletion, or edit it to the lines to keep and remove the markers, "
                "then run 'patchkeeper port --continue'"
            )
        else:
            hint = (
                "edit the file to the content the patch should produce, remove the "
                "markers, then run 'patchkeeper port --continue'"
            )
        raise UnresolvedError(
            "conflict markers are left in this file", path=files / target, line=line, hint=hint
        )
    gone = [target for target, _ in left if target in deleted]
    raise UnresolvedError(
        f"conflict markers are left in {plural(len(left), 'file')}: "
        + ", ".join(f"{target}:{line}" for target, line in left),
        path=files,
        hint="edit each file to the content the patch should produce, remove the markers, "
        + (
            f"(the patch deletes {', '.join(gone)}: delete {'it' if len(gone) == 1 else 'them'} "
            "to keep the deletion), "
            if gone
            else ""
        )
        + "then run 'patchkeeper port --continue'",
    )


def _write(path: Path, data: bytes) -> None:
    write_atomic(path, data, parents=True, temporary=path.with_name(path.name + ".tmp"))


def has_markers(data: bytes, references: Sequence[FileState] = ()) -> bool:
    """Whether ``data`` has a conflict marker line (:func:`first_marker`)."""
    return first_marker(FileState.from_bytes(data, None), references) is not None
