"""The git calls of ``port``, with a controlled environment.

Interim module: ``patchkeeper.gitops`` (issue "patchkeeper 2") is the project's single place
for git calls; until it is on ``main``, ``port`` keeps its calls here with the same discipline
and the same function names (:func:`call`, :func:`run`), so switching is an import change.

The discipline (BRIEF.md, STYLE.md after pre-commit's ``git.py``): no system or global
configuration (``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL=/dev/null``), every ``GIT_*``
variable of the caller dropped, a fixed identity, the C locale, ``-c`` overrides for every
setting that changes what git prints (git-config(1)), and ``cwd=`` instead of ``os.chdir``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import GitError

IDENTITY_NAME = "patchkeeper"
IDENTITY_EMAIL = "patchkeeper@localhost"

#: ``-c`` settings on every call; a repository's own ``.git/config`` cannot undo them.
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
    "merge.conflictStyle=diff3",
    "i18n.logOutputEncoding=UTF-8",
    "log.showSignature=false",
    "log.decorate=false",
    "log.follow=false",
    "tag.sort=version:refname",
    "versionsort.suffix=-",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "advice.detachedHead=false",
    "init.defaultBranch=main",
)

#: Options for every diff ``port`` writes: no colour, no external or textconv driver, no
#: rename detection, three lines of context (the issue: "3 lines of context").
DIFF_OPTIONS: tuple[str, ...] = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "-U3",
)


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a git call: the caller's minus ``GIT_*``, plus fixed settings."""
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


def command(args: Sequence[str]) -> list[str]:
    """``git``, every ``-c`` override, then ``args``."""
    full = ["git"]
    for setting in CONFIG_OVERRIDES:
        full += ["-c", setting]
    return full + list(args)


@dataclass(frozen=True)
class Completed:
    """A finished git call: the arguments, exit code and both outputs as bytes."""

    args: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes


def call(args: Sequence[str], cwd: Path, *, input: bytes | None = None) -> Completed:
    """Run ``git ARGS`` in ``cwd``; return the outcome whatever the exit code.

    Raises:
        GitError: git cannot be started (not installed) or ``cwd`` does not exist.
    """
    try:
        process = subprocess.run(
            command(args),
            cwd=cwd,
            input=input if input is not None else b"",
            capture_output=True,
            env=environment(),
            check=False,
        )
    except FileNotFoundError as exc:
        missing = "git" if exc.filename in (None, "git") else str(cwd)
        raise GitError(
            f"cannot run git in {cwd}: {missing} not found",
            path=cwd,
            hint="install git, or check the path",
        ) from None
    except NotADirectoryError:
        raise GitError(f"{cwd} is not a directory", path=cwd) from None
    return Completed(tuple(args), process.returncode, process.stdout, process.stderr)


def failure(done: Completed, cwd: Path, hint: str | None = None) -> GitError:
    """A :class:`GitError` naming the command, its exit code and git's output."""
    output = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
    if len(output) > 2000:
        output = output[:2000] + " ..."
    shown = " ".join(["git", *done.args])
    return GitError(
        f"'{shown}' failed with exit code {done.returncode}: {output or '(no output)'}",
        path=cwd,
        hint=hint or "check that the path is a git checkout and the revision exists",
    )


def run(args: Sequence[str], cwd: Path, *, input: bytes | None = None) -> bytes:
    """Run ``git ARGS`` in ``cwd`` and return its standard output.

    Raises:
        GitError: git exits non-zero.
    """
    done = call(args, cwd, input=input)
    if done.returncode != 0:
        raise failure(done, cwd)
    return done.stdout


def run_text(args: Sequence[str], cwd: Path) -> str:
    """:func:`run`, decoded as UTF-8 and stripped."""
    return run(args, cwd).decode("utf-8", "surrogateescape").strip()
