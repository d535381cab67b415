"""A generated upstream tree and a patch series over it, for the crash and lock tests.

``make_series(root, files=..., patches=...)`` writes ``root/upstream`` (a package of
``files`` modules), ``root/downstream`` (``patchkeeper.toml`` and ``patches/series``) and
returns the paths. The series is made with :mod:`difflib` against the tree as the earlier
patches leave it, so it applies in order; it modifies files (several hunks each), creates
files in new nested directories, deletes a file and renames one (a git rename with a hunk).
The content depends only on ``seed``.
"""

from __future__ import annotations

import difflib
import random
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "pkg"


@dataclass(frozen=True)
class GeneratedSeries:
    """Where :func:`make_series` wrote things.

    Attributes:
        upstream: the pristine tree (holds ``pkg/``).
        downstream: the directory with ``patchkeeper.toml`` and ``patches/``.
        names: the patch names in series order.
    """

    upstream: Path
    downstream: Path
    names: tuple[str, ...]


def _module(index: int, rng: random.Random, lines: int) -> list[str]:
    body = [f'"""Module {index} of the generated upstream."""\n', "\n"]
    for number in range(lines):
        body.append(f"VALUE_{index}_{number} = {rng.randrange(10**6)}  # line {number}\n")
    return body


def _edit(lines: list[str], rng: random.Random, tag: str) -> list[str]:
    """Change, insert and delete a few lines far apart, so the diff has several hunks."""
    out = list(lines)
    for spot in sorted(rng.sample(range(2, len(out) - 1), 3), reverse=True):
        kind = rng.choice(("change", "insert", "delete"))
        if kind == "change":
            out[spot] = out[spot].rstrip("\n") + f"  # {tag}\n"
        elif kind == "insert":
            out.insert(spot, f"ADDED_{tag} = {spot}\n")
        else:
            del out[spot]
    return out


def _diff(old: list[str], new: list[str], old_name: str, new_name: str) -> str:
    lines = difflib.unified_diff(old, new, old_name, new_name, n=3)
    return "".join(lines)


def make_series(
    root: Path, *, files: int = 24, patches: int = 10, lines: int = 40, seed: int = 7
) -> GeneratedSeries:
    """Write a generated upstream and a series of ``patches`` patches over it.

    Each patch modifies three existing modules; patch 2 creates a module two directories
    deep, patch 4 deletes a module, patch 6 renames one (with a change), and the last creates
    another nested module. Needs ``files >= 8`` and ``patches >= 7``.
    """
    rng = random.Random(seed)
    upstream = root / "upstream"
    downstream = root / "downstream"
    patches_dir = downstream / "patches"
    patches_dir.mkdir(parents=True)
    tree: dict[str, list[str]] = {}
    for index in range(files):
        path = f"{PACKAGE}/mod_{index:03d}.py"
        tree[path] = _module(index, rng, lines)
        target = upstream / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(tree[path]))
    names = []
    for number in range(1, patches + 1):
        parts = [f"Subject: generated change {number}\n\n---\n"]
        for path in sorted(rng.sample(sorted(p for p in tree if len(tree[p]) > 10), 3)):
            new = _edit(tree[path], rng, f"p{number}")
            parts.append(f"diff --git a/{path} b/{path}\n")
            parts.append(_diff(tree[path], new, f"a/{path}", f"b/{path}"))
            tree[path] = new
        if number in (2, patches):
            path = f"{PACKAGE}/extra_{number}/deep/new_{number}.py"
            new = [f"CREATED_BY = {number}\n", "\n", "def created():\n", "    return True\n"]
            parts.append(f"diff --git a/{path} b/{path}\nnew file mode 100644\n")
            parts.append(_diff([], new, "/dev/null", f"b/{path}"))
            tree[path] = new
        if number == 4:
            path = sorted(p for p in tree if "mod_" in p)[-1]
            parts.append(f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n")
            parts.append(_diff(tree[path], [], f"a/{path}", "/dev/null"))
            del tree[path]
        if number == 6:
            old = sorted(p for p in tree if "mod_" in p)[0]
            path = f"{PACKAGE}/renamed_{number}.py"
            new = _edit(tree[old], rng, f"p{number}")
            parts.append(
                f"diff --git a/{old} b/{path}\nsimilarity index 90%\n"
                f"rename from {old}\nrename to {path}\n"
            )
            parts.append(_diff(tree[old], new, f"a/{old}", f"b/{path}"))
            del tree[old]
            tree[path] = new
        name = f"{number:04d}-generated.patch"
        (patches_dir / name).write_text("".join(parts))
        names.append(name)
    (patches_dir / "series").write_text("".join(f"{name}\n" for name in names))
    (downstream / "patchkeeper.toml").write_text(
        'series = "patches/series"\nstrip = 1\nlock-timeout = 30\n'
    )
    return GeneratedSeries(upstream, downstream, tuple(names))
