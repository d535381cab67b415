"""Helpers for the port tests: resolving conflicts, building an upstream git history, porting
a one-patch series between two small release trees, and porting the bundled example (its
resolved lines, its conflict region, its last report)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from helpers import Example, git, resolve, write_files

__all__ = ["git", "resolve"]


def _replace_tree(repo: Path, tree: Path) -> None:
    """Make ``repo``'s work tree (all but ``.git``) a copy of ``tree``.

    The files are copied without their times (``shutil.copy``, not ``copy2``): a file of
    the same size whose kept modification time equals the one git's index recorded for the
    file it replaces (two releases' files written within one tick of the kernel's file
    clock) is taken as unchanged by ``git add``, and the release commit would keep the old
    content.
    """
    for entry in repo.iterdir():
        if entry.name == ".git":
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(tree, repo, dirs_exist_ok=True, copy_function=shutil.copy)


def upstream_repository(
    dest: Path,
    old: tuple[str, Path],
    new: tuple[str, Path],
    commits: list[tuple[str, Mapping[str, bytes | None]]],
    release_subject: str = "Release",
) -> Path:
    """A git repository with the two trees as tagged commits and ``commits`` between them.

    Args:
        dest: where to create it.
        old, new: ``(tag, tree)`` of the two releases (an unpacked sdist, a directory).
        commits: ``(subject, {path: content or None to delete})``, written on top of the old
            tree in order; the new tree is then committed as it is and tagged.
    """
    dest.mkdir(parents=True)
    git(dest, "init", "-q", "-b", "main")
    _replace_tree(dest, old[1])
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"{release_subject} {old[0]}")
    git(dest, "tag", old[0])
    for subject, files in commits:
        for path, data in files.items():
            target = dest / path
            if data is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        git(dest, "add", "-A")
        git(dest, "commit", "-q", "--allow-empty", "-m", subject)
    _replace_tree(dest, new[1])
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "--allow-empty", "-m", f"{release_subject} {new[0]}")
    git(dest, "tag", new[0])
    return dest


def port_one_patch(
    cli: Callable[..., Any],
    root: Path,
    upstream: str,
    trees: tuple[dict[str, str], dict[str, str]],
    name: str,
    patch: str,
) -> tuple[Any, Path]:
    """``port --to ../new`` of a downstream ``root/down`` whose series is the one patch
    ``name`` (text ``patch``) on ``upstream`` 1.0, its pristine.

    ``trees`` are the files of 1.0 and 2.0 (path -> text), written to ``root/old`` and
    ``root/new``, each with a ``PKG-INFO`` naming ``upstream`` and its version. Returns the
    ``cli`` run and the downstream directory.
    """
    for folder, files, version in (("old", trees[0], "1.0"), ("new", trees[1], "2.0")):
        info = f"Metadata-Version: 2.1\nName: {upstream}\nVersion: {version}\n"
        write_files(root / folder, {**files, "PKG-INFO": info})
    down = write_files(
        root / "down",
        {
            "patchkeeper.toml": f'upstream = "{upstream}"\npin = "1.0"\npristine = "../old"\n',
            "patches/series": f"{name}\n",
            f"patches/{name}": patch,
        },
    )
    return cli("port", "--to", "../new", cwd=down), down


PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'


API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)


FINAL = [
    ("retry-backoff-cap.patch", "upstreamed"),
    ("redirect-strip-proxy-auth.patch", "resolved"),
    ("headers-merge-order.patch", "merged"),
    ("client-describe-version.patch", "offset"),
    ("metrics-redirects.patch", "offset"),
    ("metrics-same-host.patch", "clean"),
    ("redirect-strip-api-key.patch", "resolved"),
]


CONFLICT_REGION = (
    b"<<<<<<< new pin 1.1\n"
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])\n'
    b"||||||| old pin 1.0\n"
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization"])\n'
    b"=======\n"
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization"])\n'
    b">>>>>>> redirect-strip-proxy-auth.patch\n"
)


def start(cli, example: Example, *extra: str):
    return cli(
        "port",
        "--json",
        "--to",
        str(example.new),
        "--from",
        str(example.old),
        *extra,
        cwd=example.downstream,
    )


def work_files(example: Example) -> Path:
    return example.downstream / ".patchkeeper-port" / "conflict" / "files"


def port_to_the_end(cli, example: Example, *extra: str) -> dict:
    """Start, resolve both conflicts, and return the last report."""
    assert start(cli, example, *extra).code == 1
    resolve(work_files(example) / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=example.downstream).code == 1
    resolve(work_files(example) / "retry.py", API_KEY)
    run = cli("port", "--continue", "--json", cwd=example.downstream)
    assert run.code == 0, run.out + run.err
    return json.loads(run.out)
