"""Where an upgrade is: in a git checkout ``patchkeeper-upgrade/`` in its git directory (as
``git rebase`` keeps ``rebase-merge/``: the state is no file of the checkout, so the record's
measured checkout is not dirty because of it), else ``.patchkeeper-upgrade/`` in the
downstream::

    state.json      what the upgrade was started with (``--to``, ``--from``, the branch and
                    the one it started from) and every step's record: status, files written,
                    commit; the facts the to-do list is made of (conflicts, undecided
                    entries, suggestions)
    start.json      the stat data of every file of the downstream before the first step:
                    ``--abort`` deletes the files the upgrade created
    running.json    the step in progress and the stat data of every file of the downstream
                    before it started, so a run cut short finds what that step wrote
    left.json       the stat data of every file of the downstream as a run left it waiting
                    (the port stopped at a conflict, or a step stopped with an error): the
                    next ``--continue`` tells the files a person changed since from the
                    files its steps write

``state.json`` is written (atomically) after each step, so a run killed or interrupted
anywhere is resumed by ``upgrade --continue`` at the first step not done: a step cut short
runs again from its start (each writes its files atomically, and running it again on its
own output gives the same files), and the port, cut short, is continued, restarted or taken
as done by the port's own state (:func:`patchkeeper.upgrade.run.port_step`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchkeeper.constants import STATE_DIR, UPGRADE_WORK_DIR
from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.atomic import write_atomic
from patchkeeper.system.removal import remove_tree

FORMAT = 1
#: The state directory outside a git checkout, relative to the downstream root.
WORK_DIR = UPGRADE_WORK_DIR
#: The state directory in a git checkout, in its git directory.
GIT_WORK_DIR = "patchkeeper-upgrade"
STATE = "state.json"
RUNNING = "running.json"
START = "start.json"
LEFT = "left.json"

#: A file's stat data as the snapshot keeps it: size, modification time (ns), inode.
Stat = tuple[int, int, int]


class UpgradeStateError(PatchkeeperError):
    """An upgrade is in progress where none should be, or none is where one should be."""


@dataclass
class UpgradeState:
    """``state.json``: the options the upgrade started with, and each step's record (a
    dict of :class:`patchkeeper.upgrade.results.StepRecord`'s fields, by step name).

    ``facts`` holds what the to-do list is made of, by kind (``"conflicts"``,
    ``"undecided"``, ``"suggestions"``), each a list of dicts, kept as the steps found them.
    """

    to: str
    source: str
    branch: str = ""
    base: str = ""
    base_commit: str = ""
    target_version: str | None = None
    #: The directory of the new pin's tree the series steps read (``to`` itself when it is
    #: a directory, else where the release was unpacked), found before the first step;
    #: ``""`` without a series, or in a state written before it was kept.
    new_tree: str = ""
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    facts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **self.__dict__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UpgradeState:
        return cls(**{k: v for k, v in data.items() if k != "format"})


class UpgradeDir:
    """The state directory at ``root`` (it may not exist yet)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def exists(self) -> bool:
        return (self.root / STATE).is_file()

    def load(self) -> UpgradeState:
        """Read ``state.json``.

        Raises:
            UpgradeStateError: no upgrade is in progress, or the file is of another format.
        """
        if not self.exists:
            raise UpgradeStateError(
                "no upgrade is in progress",
                path=self.root,
                hint="no upgrade was started here, or the last one finished or was aborted; "
                "to start one, run 'patchkeeper upgrade --to NEWPIN'",
            )
        try:
            data = json.loads((self.root / STATE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UpgradeStateError(
                f"the upgrade's state cannot be read: {exc}",
                path=self.root / STATE,
                hint="run 'patchkeeper upgrade --abort', or remove the directory",
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UpgradeStateError(
                "the upgrade's state is not of a format this patchkeeper reads",
                path=self.root / STATE,
                hint="finish or abort it with the patchkeeper that started it",
            )
        return UpgradeState.from_json(data)

    def save(self, state: UpgradeState) -> None:
        """Write ``state.json`` atomically."""
        _write(self.root / STATE, state.to_json())

    def save_start(self, before: dict[str, Stat]) -> None:
        """Keep the snapshot taken before the first step."""
        _write(self.root / START, {"format": FORMAT, "before": before})

    def start(self) -> dict[str, Stat] | None:
        """The snapshot taken before the first step (``None`` when it cannot be read: the
        run was cut short before it was written, and no step had started)."""
        try:
            data = json.loads((self.root / START).read_text(encoding="utf-8"))
            return {k: (v[0], v[1], v[2]) for k, v in data["before"].items()}
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None

    def start_step(self, name: str, before: dict[str, Stat]) -> None:
        """Record that step ``name`` starts, with the snapshot taken before it."""
        _write(self.root / RUNNING, {"format": FORMAT, "step": name, "before": before})

    def running(self) -> tuple[str, dict[str, Stat]] | None:
        """The step a run was cut short in and the snapshot before it, or ``None``."""
        path = self.root / RUNNING
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            before = {k: (v[0], v[1], v[2]) for k, v in data["before"].items()}
            return str(data["step"]), before
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # cut short while writing it: the step had not started

    def save_left(self, now: dict[str, Stat]) -> None:
        """Keep the snapshot of the downstream as this run leaves the upgrade waiting."""
        _write(self.root / LEFT, {"format": FORMAT, "left": now})

    def left(self) -> dict[str, Stat] | None:
        """The snapshot :meth:`save_left` kept, or ``None`` (none kept: the run before was
        killed, or it is the first)."""
        try:
            data = json.loads((self.root / LEFT).read_text(encoding="utf-8"))
            return {k: (v[0], v[1], v[2]) for k, v in data["left"].items()}
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None

    def drop_left(self) -> None:
        """Forget the snapshot :meth:`save_left` kept, once a ``--continue`` has read it: a
        run killed after that leaves none, and the files its steps wrote are never taken
        for a person's."""
        (self.root / LEFT).unlink(missing_ok=True)

    def end_step(self) -> None:
        (self.root / RUNNING).unlink(missing_ok=True)

    def remove(self) -> None:
        remove_tree(self.root, ignore_errors=True)


def state_dir(root: Path) -> Path:
    """Where the upgrade of the downstream ``root`` keeps its state (see the module
    docstring)."""
    from patchkeeper.upstream import gitops

    try:
        done = gitops.call(["rev-parse", "--git-path", GIT_WORK_DIR], root)
    except PatchkeeperError:  # git is not installed
        return root / WORK_DIR
    if done.returncode != 0:
        return root / WORK_DIR
    return (root / done.stdout.decode("utf-8", "surrogateescape").strip()).resolve()


def in_progress(root: Path) -> str | None:
    """What a command run in the downstream ``root`` says of an upgrade in progress there,
    naming its next step (``an upgrade to 2.0 is in progress here, stopped at its runtime
    audit step: the next step is 'patchkeeper upgrade --continue' ...``), whether the
    downstream carries a series, runtime patches or both; ``None`` when none is (or its
    state cannot be read: ``upgrade --continue`` says why)."""
    from patchkeeper.upgrade.results import STEPS, StepStatus

    try:
        state = UpgradeDir(state_dir(root)).load()
    except UpgradeStateError:
        return None
    through = (StepStatus.DONE, StepStatus.SKIPPED)
    waiting = next(
        (str(s) for s in STEPS if state.steps.get(s, {}).get("status") not in through), None
    )
    if state.steps.get(waiting or "", {}).get("status") == StepStatus.STOPPED:
        where = f"stopped at the {waiting}'s conflict"
    elif waiting is not None:
        where = f"stopped at its {waiting} step"
    else:
        where = "every step done, its end not recorded"
    version = state.target_version or state.to
    return (
        f"an upgrade to {version} is in progress here, {where}: the next step is "
        "'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort' to put the "
        "downstream back)"
    )


def _write(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8", "surrogateescape"), parents=True)


def snapshot(root: Path, leave_out: Iterable[Path]) -> dict[str, Stat]:
    """The stat data of every file under ``root`` (relative POSIX path -> size,
    modification time in ns, inode), without ``.git``, the downstream's journal
    (``.patchkeeper/journal``) and the directories ``leave_out`` (the port's and the
    upgrade's own state). Symbolic links are listed, not followed. An atomic write
    replaces a file's inode, so any write shows."""
    skip = {p.resolve() for p in leave_out} | {(root / STATE_DIR / "journal").resolve()}
    out: dict[str, Stat] = {}
    for directory, dirs, files in os.walk(root):
        here = Path(directory)
        dirs[:] = sorted(d for d in dirs if d != ".git" and (here / d).resolve() not in skip)
        for name in files:
            path = here / name
            try:
                st = path.lstat()
            except OSError:
                continue
            out[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return out


def changed(before: dict[str, Stat], after: dict[str, Stat]) -> tuple[str, ...]:
    """The paths written, created or deleted between two snapshots, sorted.

    >>> changed({"a": (1, 1, 1), "b": (1, 1, 2)}, {"a": (1, 1, 1), "c": (1, 1, 3)})
    ('b', 'c')
    """
    return tuple(sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p)))
