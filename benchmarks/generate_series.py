"""Generate a realistic downstream series of small patches over an upstream tree.

    python benchmarks/generate_series.py UPSTREAM_ROOT DEST [--patches 1000] [--seed 2718]

Used by ``bench_series.py`` (the speed of apply and verify): each patch modifies one or
two existing ``.py`` files under ``vllm/`` with 1 to 3 hunks of 3 context lines (an inserted
block, a changed line, a deleted line), about 3 % create a new module, and about a third of the
files touched were touched by an earlier patch (so later patches see earlier changes, and some
touch the same lines). Patches look like a vLLM fork's exported series: a few header fields, the
``--- exported from <commit>`` line, then git diffs with ``index`` lines and the function
name after ``@@``. The same seed gives the same series, byte for byte.

``DEST`` receives ``patches/NNNN-*.patch``, ``patches/series`` and ``patchkeeper.toml``
(directory ``vllm``: patch paths are relative to the package, as in such a fork), and the
function returns the expected content of every file the series touches.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

#: The package directory inside the upstream tree that patch paths are relative to.
PACKAGE = "vllm"
CONTEXT = 3
#: Hunks of one file are at least this many lines apart, so ``diff`` would not merge them.
HUNK_GAP = 2 * CONTEXT + 4
#: git's default function-name rule: a line that starts with a letter, ``_`` or ``$``.
FUNCNAME = re.compile(rb"^[A-Za-z_$]")
WORDS = ("cache", "kernel", "scheduler", "block", "token", "plugin", "device", "stream")


@dataclass(frozen=True)
class Edit:
    """Replace ``removed`` lines from 0-based ``start`` of a file with ``added``."""

    start: int
    removed: int
    added: tuple[bytes, ...]


@dataclass
class Series:
    """What the generator produced: the patch names in order and the expected files."""

    names: list[str] = field(default_factory=list)
    expected: dict[str, bytes | None] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)


def blob_id(data: bytes) -> str:
    """git's blob id (``git hash-object``), abbreviated as in ``index`` lines."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:12]


def split(data: bytes) -> list[bytes]:
    """Lines that keep their ``\\n``; only ``\\n`` ends a line (as in GNU patch)."""
    lines = [line + b"\n" for line in data.split(b"\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _range(start: int, length: int) -> str:
    """A unified diff range as GNU diff and git write it (``5``, ``5,3``, ``4,0``)."""
    if length == 1:
        return str(start)
    if length == 0:
        return f"{start - 1},0"
    return f"{start},{length}"


def _body_line(marker: bytes, line: bytes) -> bytes:
    if line.endswith(b"\n"):
        return marker + line
    return marker + line + b"\n\\ No newline at end of file\n"


def _section(old: list[bytes], start: int) -> bytes:
    for line in reversed(old[:start]):
        if FUNCNAME.match(line):
            return b" " + line.rstrip()[:80]
    return b""


def hunks(old: list[bytes], edits: list[Edit]) -> tuple[bytes, list[bytes]]:
    """The hunks for ``edits`` (sorted, apart) on ``old``, and the new lines."""
    out: list[bytes] = []
    new: list[bytes] = []
    cursor = 0
    delta = 0
    for edit in edits:
        before = old[max(0, edit.start - CONTEXT) : edit.start]
        end = edit.start + edit.removed
        after = old[end : end + CONTEXT]
        old_start = edit.start - len(before) + 1
        old_len = len(before) + edit.removed + len(after)
        new_len = len(before) + len(edit.added) + len(after)
        header = f"@@ -{_range(old_start, old_len)} +{_range(old_start + delta, new_len)} @@"
        out.append(header.encode() + _section(old, old_start - 1) + b"\n")
        out.extend(_body_line(b" ", line) for line in before)
        out.extend(_body_line(b"-", line) for line in old[edit.start : end])
        out.extend(_body_line(b"+", line) for line in edit.added)
        out.extend(_body_line(b" ", line) for line in after)
        new.extend(old[cursor : edit.start])
        new.extend(edit.added)
        cursor = end
        delta += len(edit.added) - edit.removed
    new.extend(old[cursor:])
    return b"".join(out), new


class Generator:
    """Draws the series with one seeded :class:`random.Random`."""

    def __init__(self, upstream: Path, seed: int) -> None:
        self.base = upstream / PACKAGE
        self.rng = random.Random(seed)
        self.files: dict[str, bytes] = {}
        self.touched: list[str] = []
        self.candidates = sorted(
            path.relative_to(self.base).as_posix()
            for path in self.base.rglob("*.py")
            if path.stat().st_size > 400
        )

    def content(self, path: str) -> bytes:
        if path not in self.files:
            self.files[path] = (self.base / path).read_bytes()
        return self.files[path]

    def _new_lines(self, number: int, indent: bytes, count: int) -> tuple[bytes, ...]:
        """``count`` new lines at ``indent``: a comment, then assignments or log calls."""
        word = self.rng.choice(WORDS).encode()
        lines = [
            b"%s# downstream %d: keep the %s path in step with the plugin\n"
            % (indent, number, word)
        ]
        for k in range(1, count):
            if self.rng.random() < 0.5:
                value = self.rng.randint(0, 999)
                lines.append(b"%s_downstream_%d_%s_%d = %d\n" % (indent, number, word, k, value))
            else:
                lines.append(b'%slogger.debug("downstream %d: %s")\n' % (indent, number, word))
        return tuple(lines)

    def _edit(self, lines: list[bytes], start: int, number: int) -> Edit:
        line = lines[start]
        indent = line[: len(line) - len(line.lstrip(b" \t"))].rstrip(b"\n")
        kind = self.rng.choices(("insert", "change", "delete"), (50, 35, 15))[0]
        if kind == "change" and line.strip() and line.endswith(b"\n"):
            return Edit(start, 1, (line.rstrip(b"\n") + b"  # downstream %d\n" % number,))
        if kind == "delete" and line.endswith(b"\n"):
            return Edit(start, 1, ())
        return Edit(start, 0, self._new_lines(number, indent, self.rng.randint(1, 3)))

    def modify(self, path: str, number: int) -> bytes | None:
        """A file diff with 1-3 hunks for ``path``, or ``None`` when it is too short."""
        old = split(self.content(path))
        usable = len(old) - 1  # never edit the last line (keeps its newline question out)
        count = self.rng.randint(1, 3)
        if usable < count * HUNK_GAP:
            return None
        starts: list[int] = []
        for _ in range(20):
            start = self.rng.randrange(0, usable)
            if all(abs(start - other) >= HUNK_GAP for other in starts):
                starts.append(start)
            if len(starts) == count:
                break
        edits = [self._edit(old, start, number) for start in sorted(starts)]
        body, new = hunks(old, edits)
        data = b"".join(new)
        source = self.base / path
        mode = "100755" if source.exists() and source.stat().st_mode & 0o111 else "100644"
        header = (
            f"diff --git a/{path} b/{path}\nindex {blob_id(self.content(path))}..{blob_id(data)}"
            f" {mode}\n--- a/{path}\n+++ b/{path}\n"
        ).encode()
        self.files[path] = data
        return header + body

    def create(self, number: int) -> tuple[str, bytes]:
        word = self.rng.choice(WORDS)
        path = f"_downstream/{word}_{number:04d}.py"
        lines = [b'"""Downstream %s support (change %d)."""\n' % (word.encode(), number), b"\n"]
        for k in range(self.rng.randint(2, 6)):
            lines += [
                b"\n",
                b"def %s_hook_%d(value):\n" % (word.encode(), k),
                b'    """Adjust %s before the upstream code sees it."""\n' % word.encode(),
                b"    return value\n",
            ]
        data = b"".join(lines)
        self.files[path] = data
        header = (
            f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..{blob_id(data)}\n"
            f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +{_range(1, len(lines))} @@\n"
        ).encode()
        return path, header + b"".join(b"+" + line for line in lines)

    def pick(self) -> str:
        if self.touched and self.rng.random() < 0.3:
            return self.rng.choice(self.touched)
        return self.rng.choice(self.candidates)

    def patch(self, number: int) -> tuple[bytes, list[str]]:
        """One patch: its bytes and the paths it touches."""
        diffs: list[bytes] = []
        paths: list[str] = []
        if self.rng.random() < 0.03:
            path, diff = self.create(number)
            diffs.append(diff)
            paths.append(path)
        while len(paths) < self.rng.choice((1, 1, 2)) or not paths:
            path = self.pick()
            if path in paths:
                continue
            diff = self.modify(path, number)
            if diff is not None:
                diffs.append(diff)
                paths.append(path)
        commit = hashlib.sha1(b"%d" % number).hexdigest()
        preamble = (
            f"Subject: [bench] downstream change {number:04d}\n\n"
            f"Kind: local\nWhat: generated change {number} ({len(paths)} file(s))\n"
            f"Upstream: none\nCut-against: 0.27.1\nRetires-when: stays\n\n"
            f"--- exported from {commit}\n"
        ).encode()
        for path in paths:
            if path not in self.touched:
                self.touched.append(path)
        return preamble + b"".join(diffs), paths


CONFIG = """upstream = "vllm"
pin = "0.27.1"
series = "patches/series"
strip = 1
directory = "vllm"
"""


def generate(upstream: Path, dest: Path, count: int = 1000, seed: int = 2718) -> Series:
    """Write ``count`` patches, their series and ``patchkeeper.toml`` under ``dest``."""
    generator = Generator(upstream, seed)
    patches = dest / "patches"
    patches.mkdir(parents=True, exist_ok=True)
    result = Series()
    for number in range(1, count + 1):
        data, paths = generator.patch(number)
        name = f"{number:04d}-downstream-change.patch"
        (patches / name).write_bytes(data)
        result.names.append(name)
        for path in paths:
            if path.startswith("_downstream/") and path not in result.created:
                result.created.append(path)
    (patches / "series").write_text("".join(n + "\n" for n in result.names), encoding="utf-8")
    (dest / "patchkeeper.toml").write_text(CONFIG, encoding="utf-8")
    result.expected = {f"{PACKAGE}/{p}": generator.files[p] for p in generator.touched}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--patches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2718)
    args = parser.parse_args()
    series = generate(args.upstream, args.dest, args.patches, args.seed)
    print(
        f"{len(series.names)} patches, {len(series.expected)} files, "
        f"{len(series.created)} created, in {args.dest}"
    )


if __name__ == "__main__":
    main()
