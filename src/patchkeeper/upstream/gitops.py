"""Every git call patchkeeper makes, with a controlled environment.

Output must not depend on the machine: the system and global configuration files are not
read (``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL=/dev/null``) but for the one setting
that is the user's decision, not a matter of output: the ``safe.directory`` entries that
trust a checkout owned by another user (:func:`trusted_directories`). Every ``GIT_*`` variable of
the caller is dropped (a hook's ``GIT_DIR`` or ``GIT_INDEX_FILE`` would redirect us), the
identity is fixed, and ``-c`` options pin every setting that changes what git prints, because
a repository's own ``.git/config`` is still read (``diff.noprefix``, ``diff.mnemonicPrefix``,
``color.ui``, ``core.abbrev``, ``diff.renames``, ...; git-config(1), "diff.*"). Git runs with
``cwd=``, never ``os.chdir`` (STYLE.md, after pre-commit's ``git.py``).

A failed call raises :class:`patchkeeper.errors.GitError` with the command, the exit code and
git's output (pre-commit's ``util.py``).
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.errors import GitError

#: The identity of commits, tags and notes patchkeeper writes when nothing else is given.
IDENTITY_NAME = "patchkeeper"
IDENTITY_EMAIL = "patchkeeper@localhost"

#: ``-c`` settings on every call: each one is a configuration variable that changes git's
#: output or behaviour (git-config(1)); a repository's ``.git/config`` cannot undo them.
CONFIG_OVERRIDES: tuple[str, ...] = (
    "color.ui=never",
    "color.diff=never",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.renames=false",
    "diff.algorithm=myers",
    "diff.context=3",
    "diff.interHunkContext=0",
    "diff.indentHeuristic=true",
    "diff.suppressBlankEmpty=false",
    "diff.relative=false",
    "core.abbrev=12",
    "core.quotePath=true",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.attributesFile=/dev/null",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "i18n.commitEncoding=UTF-8",
    "i18n.logOutputEncoding=UTF-8",
    "log.showSignature=false",
    "log.decorate=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "advice.detachedHead=false",
    "init.defaultBranch=main",
)

#: Options for every diff patchkeeper writes: no colour, no external or textconv driver,
#: ``a/`` and ``b/`` prefixes, no rename or copy detection, git's file order.
DIFF_OPTIONS: tuple[str, ...] = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--no-renames",
    "-O/dev/null",
)

#: The empty tree's object id (git's well-known constant for SHA-1 repositories).
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the environment for a git call.

    The caller's variables minus every ``GIT_*`` one, plus no system or global configuration,
    a fixed identity, the C locale and no prompts; ``extra`` (``GIT_INDEX_FILE``,
    ``GIT_AUTHOR_DATE``, ...) is applied last.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_AUTHOR_NAME": IDENTITY_NAME,
            "GIT_AUTHOR_EMAIL": IDENTITY_EMAIL,
            "GIT_COMMITTER_NAME": IDENTITY_NAME,
            "GIT_COMMITTER_EMAIL": IDENTITY_EMAIL,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "LC_ALL": "C",
            "LANG": "C",
        }
    )
    if extra:
        env.update(extra)
    return env


@functools.cache
def trusted_directories() -> tuple[str, ...]:
    """The user's ``safe.directory`` entries from git's system and global configuration, in
    their order (an empty entry resets the list, as in git).

    git reads a checkout owned by another user only when one of these trusts it (git-config(1),
    ``safe.directory``; since 2.35.2). Every call here runs without those files, so the
    entries are read once and passed on with ``-c``, which git counts as protected
    configuration: a checkout the user trusts for git is trusted for patchkeeper too, and
    nothing else of their configuration reaches the output.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANG": "C"})
    try:
        done = subprocess.run(
            ["git", "config", "--includes", "--get-all", "safe.directory"],
            cwd=os.sep,
            input=b"",
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
            **_OWN_GROUP,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if done.returncode != 0:  # 1: no entry
        return ()
    return tuple(done.stdout.decode("utf-8", "surrogateescape").splitlines())


def command(args: Sequence[str]) -> list[str]:
    """Return the full argument list: ``git``, every ``-c`` override (with the user's
    :func:`trusted_directories`), then ``args``."""
    full = ["git"]
    for setting in CONFIG_OVERRIDES:
        full += ["-c", setting]
    for directory in trusted_directories():
        full += ["-c", f"safe.directory={directory}"]
    return full + list(args)


#: What git prints when it refuses a repository owned by another user (setup.c, since
#: 2.35.2; the C locale every call runs in keeps it in English).
DUBIOUS_OWNERSHIP = b"detected dubious ownership in repository at "


def _refused(done: Completed, cwd: Path) -> GitError | None:
    """The error for a call git refused because the checkout is owned by another user and
    not trusted (``None`` for any other outcome).

    Each caller would otherwise read the failure as its own: "not a git checkout", "no such
    tag", "no commit". The message names the repository git names and the command that
    trusts it.
    """
    if done.returncode == 0 or DUBIOUS_OWNERSHIP not in done.stderr:
        return None
    start = done.stderr.index(DUBIOUS_OWNERSHIP) + len(DUBIOUS_OWNERSHIP)
    line = done.stderr[start:].split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
    repo = line.strip().strip("'") or str(cwd)
    return GitError(
        f"git refuses to read the checkout {repo}: it is owned by another user",
        path=Path(repo),
        hint=f"if you trust it, run 'git config --global --add safe.directory {repo}' "
        "(patchkeeper follows git's safe.directory), or work as the user who owns it",
    )


#: How git is started: in a process group of its own, so that a Ctrl-C at the terminal
#: (SIGINT to the foreground process group) reaches patchkeeper and not git. patchkeeper
#: passes the interrupt on to a call it is interrupted in (:func:`_pass_on_interrupt`),
#: and lets a call in a block that must happen whole (an upgrade step's commit and its
#: record, :mod:`patchkeeper.system.deferred`) finish first: a git killed by the same
#: Ctrl-C made the step fail as "'git add ...' failed with exit code -2", exit 2, instead
#: of the interruption it was.
_OWN_GROUP: dict[str, Any] = (
    {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}
)

#: Seconds a git passed a Ctrl-C has to end (it removes its lock files and stops) before it
#: is killed.
INTERRUPT_GRACE = 10.0


def _pass_on_interrupt(process: subprocess.Popen[bytes]) -> None:
    """Give the git that ``process`` runs the Ctrl-C patchkeeper got (SIGINT to its
    process group, which it leads), as the terminal would have, and wait for it to end:
    git then removes its lock files (``index.lock``) as it does on a Ctrl-C, where a kill
    would leave them and stop the next git command in that checkout. Killed if it has not
    ended after :data:`INTERRUPT_GRACE` seconds or at a second Ctrl-C."""
    try:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(INTERRUPT_GRACE)
    except (ProcessLookupError, PermissionError):
        pass  # it has ended already
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        process.kill()


@dataclass(frozen=True)
class Completed:
    """A finished git call: exit code and both outputs, as bytes."""

    args: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes


def call(
    args: Sequence[str],
    cwd: Path,
    *,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> Completed:
    """Run ``git ARGS`` in ``cwd`` and return the outcome whatever the exit code.

    ``timeout``: seconds before the call is given up (``None``: no limit).

    Raises:
        GitError: git cannot be started at all (not installed), ``cwd`` does not exist, the
            call took more than ``timeout`` seconds, or git refused the checkout as owned
            by another user (:func:`trusted_directories` does not trust it).
    """
    try:
        with subprocess.Popen(
            command(args),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment(env),
            **_OWN_GROUP,
        ) as process:
            try:
                stdout, stderr = process.communicate(input or b"", timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise
            except KeyboardInterrupt:
                _pass_on_interrupt(process)
                raise
    except FileNotFoundError:
        if cwd is not None and not Path(cwd).is_dir():
            raise GitError(
                "the directory does not exist",
                path=cwd,
                hint="check the path of the git checkout (--checkout, --upstream-repo, or "
                "checkout in the configuration's [git] table)",
            ) from None
        raise GitError(
            f"cannot run git in {cwd}: git not found",
            path=cwd,
            hint="install git, or put it on PATH",
        ) from None
    except NotADirectoryError:
        raise GitError(f"{cwd} is not a directory", path=cwd) from None
    except subprocess.TimeoutExpired:
        shown = " ".join(["git", *args])
        raise GitError(f"'{shown}' took more than {timeout:g} s", path=cwd) from None
    done = Completed(tuple(args), process.returncode, stdout, stderr)
    refused = _refused(done, cwd)
    if refused is not None:
        raise refused
    return done


def _failure(done: Completed, cwd: Path) -> GitError:
    output = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
    if len(output) > 2000:
        output = output[:2000] + " ..."
    shown = " ".join(["git", *done.args])
    return GitError(
        f"'{shown}' failed with exit code {done.returncode}: {output or '(no output)'}",
        path=cwd,
        hint="check that the path is a git checkout and the revision exists",
    )


def run(
    args: Sequence[str],
    cwd: Path,
    *,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run ``git ARGS`` in ``cwd`` and return its standard output.

    Raises:
        GitError: git exits non-zero; the message holds the command, exit code and output.
    """
    done = call(args, cwd, input=input, env=env)
    if done.returncode != 0:
        raise _failure(done, cwd)
    return done.stdout


def run_text(args: Sequence[str], cwd: Path, **kwargs: object) -> str:
    """:func:`run`, decoded as UTF-8 and stripped of surrounding whitespace."""
    return run(args, cwd, **kwargs).decode("utf-8", "surrogateescape").strip()  # type: ignore[arg-type]


# --------------------------------------------------------------------------- helpers


def toplevel(path: Path) -> Path:
    """Return the top directory of the work tree holding ``path``.

    Raises:
        GitError: ``path`` is not inside a git work tree.
    """
    done = call(["rev-parse", "--show-toplevel"], path)
    if done.returncode != 0:
        raise GitError(
            f"{path} is not a git checkout",
            path=path,
            hint="pass the path of an upstream git checkout (git clone, or git init + commit)",
        )
    return Path(done.stdout.decode("utf-8", "surrogateescape").strip())


def rev_parse(cwd: Path, rev: str) -> str:
    """Return the full object id ``rev`` names (a commit for ``rev^{commit}`` forms).

    Raises:
        GitError: the revision does not exist.
    """
    done = call(["rev-parse", "--verify", "--quiet", "--end-of-options", rev], cwd)
    if done.returncode != 0:
        # The name as the user gave it: git's peeling suffix is ours, not theirs.
        name, kind = rev, "revision"
        for suffix in ("commit", "tree"):
            if rev.endswith(f"^{{{suffix}}}"):
                name, kind = rev[: -len(suffix) - 3], suffix
        raise GitError(
            f"no {kind} '{name}' in {cwd}",
            path=cwd,
            hint="fetch the tag or commit into the checkout, or check its name",
        )
    return done.stdout.decode("ascii").strip()


def commit_id(cwd: Path, rev: str) -> str:
    """Return the full id of the commit ``rev`` names (a tag is peeled)."""
    return rev_parse(cwd, f"{rev}^{{commit}}")


def check_branch_name(name: str, cwd: Path, hint: str = "pass another --branch") -> None:
    """Refuse a name git would not take for a new branch (as ``git check-ref-format
    --branch`` does: no space, ``..``, ``~``, ``^``, ``:``, ``?``, ``*``, ``[``, ``\\``, no
    leading ``-``, not ``HEAD``, ...), before anything is made: git's own failure would come
    later, when creating the branch, as a bare exit code. ``hint`` says where the name came
    from and how to give another.

    Raises:
        GitError: naming the branch, what git refuses in it, and ``hint``.
    """
    # what --branch adds to the plain check: no leading dash, not HEAD
    done = call(["check-ref-format", f"refs/heads/{name}"], cwd)
    if done.returncode != 0 or name.startswith("-") or name == "HEAD":
        raise GitError(
            f"{name!r} is not a valid git branch name (no spaces, '..', '~', '^', ':', '?', "
            "'*', '[', '\\' or a leading '-'; see git check-ref-format)",
            hint=hint,
        )


def has_revision(cwd: Path, rev: str) -> bool:
    """Whether ``rev`` names an object in the repository at ``cwd``."""
    return call(["rev-parse", "--verify", "--quiet", "--end-of-options", rev], cwd).returncode == 0


def commit_object(cwd: Path, commit: str) -> bytes:
    """Return the raw commit object (headers, blank line, message), exactly as stored."""
    return run(["cat-file", "commit", commit], cwd)


def commit_message(cwd: Path, commit: str) -> bytes:
    """Return the commit message bytes exactly as stored (no cleanup, no re-encoding)."""
    raw = commit_object(cwd, commit)
    _, _, message = raw.partition(b"\n\n")
    return message


def commit_parents(cwd: Path, commit: str) -> list[str]:
    """Return the parent ids of ``commit`` in order."""
    raw = commit_object(cwd, commit)
    head, _, _ = raw.partition(b"\n\n")
    return [line[7:].decode("ascii") for line in head.split(b"\n") if line.startswith(b"parent ")]


def log(cwd: Path, rev_range: str, fmt: str = "%H%x00%s") -> list[list[str]]:
    """Return ``git log`` records for ``rev_range``, oldest first, split on ``%x00``.

    Args:
        rev_range: ``BASE..BRANCH`` or any revision arguments git log accepts.
        fmt: a ``--format`` string whose fields are separated by ``%x00``.
    """
    out = run(
        ["log", "--reverse", "--no-merges", f"--format={fmt}%x01", rev_range, "--"],
        cwd,
    ).decode("utf-8", "surrogateescape")
    records = [record.strip("\n") for record in out.split("\x01")]
    return [record.split("\x00") for record in records if record]


def rev_list(cwd: Path, rev_range: str, *, include_merges: bool = True) -> list[str]:
    """Return the commit ids in ``rev_range``, oldest first."""
    args = ["rev-list", "--reverse"]
    if not include_merges:
        args.append("--no-merges")
    out = run_text([*args, rev_range, "--"], cwd)
    return out.split() if out else []


def show_file(cwd: Path, rev: str, path: str) -> bytes:
    """Return the bytes of ``path`` at ``rev`` (``git cat-file blob REV:PATH``).

    Raises:
        GitError: the path does not exist at that revision.
    """
    return run(["cat-file", "blob", f"{rev}:{path}"], cwd)


def ls_tree(cwd: Path, rev: str, path: str = "") -> dict[str, tuple[str, str]]:
    """Return ``{path: (mode, blob id)}`` for every file under ``path`` at ``rev``.

    Paths are relative to ``path`` (a directory, ``""`` for the root).
    """
    treeish = f"{rev}:{path}" if path else rev
    out = run(["ls-tree", "-r", "-z", "--full-tree", treeish], cwd)
    files: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, _kind, sha = meta.decode("ascii").split()
        files[name.decode("utf-8", "surrogateescape")] = (mode, sha)
    return files


def diff_names(cwd: Path, old: str, new: str) -> list[str]:
    """Return the paths that differ between two tree-ishes (no rename detection)."""
    out = run(["diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new], cwd)
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def diff_patch(cwd: Path, old: str, new: str, *, relative: str = "", abbrev: int = 40) -> bytes:
    """Return the unified diff from tree-ish ``old`` to ``new``, deterministic bytes.

    Args:
        relative: a directory (``"vllm"``); paths are written relative to it and changes
            outside it are left out (``--relative``).
        abbrev: hex digits of the blob ids on ``index`` lines; 40 writes full ids.
    """
    args = ["diff-tree", "-p", "-r", *DIFF_OPTIONS]
    args.append("--full-index" if abbrev >= 40 else f"--abbrev={abbrev}")
    if relative:
        args.append(f"--relative={relative.strip('/')}/")
    return run([*args, old, new, "--"], cwd)


def tree_of(cwd: Path, rev: str) -> str:
    """Return the tree id of a commit (or of ``rev:path``)."""
    return rev_parse(cwd, rev if ":" in rev else f"{rev}^{{tree}}")


def tags(cwd: Path) -> list[str]:
    """Return every tag name in the repository."""
    out = run_text(["tag", "--list"], cwd)
    return out.split("\n") if out else []


def create_tag(cwd: Path, name: str, commit: str) -> None:
    """Create the lightweight tag ``name`` at ``commit`` (``git tag``)."""
    run(["tag", name, commit], cwd)


def checked_out_at(cwd: Path, ref: str) -> list[Path]:
    """The work trees of the repository at ``cwd`` (the main one and those of ``git
    worktree add``) whose ``HEAD`` is the branch ``ref`` (``refs/heads/NAME``), as ``git
    worktree list`` names them: moving that branch would leave their index and files behind
    it, as ``git branch -f`` refuses to."""
    listing = run(["worktree", "list", "--porcelain"], cwd)
    found: list[Path] = []
    path = ""
    for field in listing.decode("utf-8", "surrogateescape").splitlines():
        if field.startswith("worktree "):
            path = field.removeprefix("worktree ")
        elif field == f"branch {ref}" and path:
            found.append(Path(path))
    return found


def update_ref(cwd: Path, ref: str, new: str, old: str | None = None) -> None:
    """Point ``ref`` at ``new`` (only if it is at ``old``, when given; ``""`` = must not exist)."""
    args = ["update-ref", ref, new]
    if old is not None:
        args.append(old if old else "0" * 40)
    run(args, cwd)


def hash_blob(data: bytes) -> str:
    """Return git's blob id of ``data`` without calling git (sha1 of ``blob N\\0data``).

    >>> hash_blob(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def init_repository(path: Path) -> None:
    """``git init`` a new repository at ``path`` (branch ``main``)."""
    path.mkdir(parents=True, exist_ok=True)
    run(["init", "--quiet", str(path)], path)


def cat_file_batch(cwd: Path, ids: Sequence[str]) -> dict[str, bytes]:
    """Return ``{id: content}`` for many objects in one ``git cat-file --batch`` call.

    An object git does not find (``REV:PATH`` of a path the revision lacks) is left out.
    git answers ``<object name> missing`` (or ``ambiguous``) for it, where the name is the
    one asked for and may hold spaces (``REV:pkg/help me.py``); a found object's answer is
    ``<full id> <type> <size>`` (git-cat-file(1), "BATCH OUTPUT"), so its last word is the
    size.
    """
    if not ids:
        return {}
    out = run(
        ["cat-file", "--batch"],
        cwd,
        input="".join(f"{i}\n" for i in ids).encode("utf-8", "surrogateescape"),
    )
    contents: dict[str, bytes] = {}
    position = 0
    for object_id in ids:
        end = out.index(b"\n", position)
        header = out[position:end].rsplit(b" ", 2)
        if len(header) < 3 or not header[2].isdigit():  # "<name> missing" / "ambiguous"
            position = end + 1
            continue
        size = int(header[2])
        contents[object_id] = out[end + 1 : end + 1 + size]
        position = end + 1 + size + 1
    return contents


def notes(cwd: Path, ref: str) -> dict[str, bytes]:
    """Return ``{annotated commit id: note text}`` for every note under ``ref``."""
    if not has_revision(cwd, ref):
        return {}
    listing = run_text(["notes", f"--ref={ref}", "list"], cwd)
    pairs = [line.split() for line in listing.splitlines() if line.strip()]
    blobs = cat_file_batch(cwd, [blob for blob, _ in pairs])
    return {target: blobs.get(blob, b"") for blob, target in pairs}
