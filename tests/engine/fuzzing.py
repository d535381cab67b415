"""A seeded mutation fuzzer for the engine's commands.

A base downstream (a series of real-shaped patches: git modifications with several hunks, a
creation, a deletion, a rename, a mode change, a ``diff -U0`` patch, a CRLF file, an overlay)
is mutated one input at a time: one patch file, the series file or ``patchkeeper.toml`` gets
bytes flipped, inserted or removed, lines duplicated, swapped or dropped, numbers made huge,
or diff syntax spliced in. One command (``apply``, ``status``, ``verify``, ``unapply``,
``audit --to``) then runs in-process on a pristine or an applied target, and must:

- exit 0, 1 or 2 (never 3, a bug, nor anything else);
- finish within :data:`TIME_LIMIT` seconds;
- change nothing when it fails (exit 1 or 2), and nothing ever for a command that only reads
  (``status``, ``verify``, ``audit``) but the downstream's evidence store.

:func:`fuzz` runs the loop and returns the :class:`FuzzReport`; the suite runs a few hundred
inputs (``tests/engine/test_fuzz.py``), ``benchmarks/fuzz_engine.py`` runs tens of thousands.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import random
import shutil
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from patchkeeper.main import main

#: Seconds one command may take before it counts as a hang.
TIME_LIMIT = 10
COMMANDS = ("apply", "status", "verify", "unapply", "audit")


def _module(name: str, count: int) -> list[str]:
    return [
        f"{name.upper()}_{number} = {number * 7 % 13}  # line {number}\n" for number in range(count)
    ]


PRISTINE: dict[str, bytes] = {
    "pkg/a.py": "".join(_module("a", 30)).encode(),
    "pkg/b.py": "".join(_module("b", 20)).encode(),
    "pkg/gone.py": b"GONE = 1\nSTILL = 2\n",
    "pkg/crlf.txt": b"one\r\ntwo\r\nthree\r\nfour\r\n",
    "pkg/empty.txt": b"",
    "pkg/tool.sh": b"#!/bin/sh\necho hi\n",
}


def _diff(old: bytes, new: bytes, old_name: str, new_name: str, context: int = 3) -> str:
    lines = difflib.unified_diff(
        old.decode().splitlines(keepends=True),
        new.decode().splitlines(keepends=True),
        old_name,
        new_name,
        n=context,
    )
    return "".join(line.replace("--- \n", "---\n") for line in lines)


def _edited(data: bytes, changes: dict[int, str | None], inserts: dict[int, str]) -> bytes:
    lines = data.decode().splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines):
        if number in inserts:
            out.append(inserts[number])
        change = changes.get(number, line)
        if change is not None:
            out.append(change)
    return "".join(out).encode()


def base_patches() -> dict[str, bytes]:
    """The base series: ``name -> bytes``, in series order."""
    a1 = _edited(PRISTINE["pkg/a.py"], {3: "A_3 = 'three'\n", 25: None}, {15: "NEW = 15\n"})
    b2 = _edited(PRISTINE["pkg/b.py"], {10: "B_10 = 'ten'\n"}, {})
    a2 = _edited(a1, {7: None}, {20: "ALSO = 20\n"})
    crlf = PRISTINE["pkg/crlf.txt"].replace(b"two\r\n", b"TWO\r\n")
    created = b"def created():\n    return True\n"
    return {
        "01-modify.patch": (
            "Subject: modify a\n\n---\n diff stat\n\n"
            "diff --git a/pkg/a.py b/pkg/a.py\nindex 1111111..2222222 100644\n"
            + _diff(PRISTINE["pkg/a.py"], a1, "a/pkg/a.py", "b/pkg/a.py")
            + "-- \n2.39.5\n"
        ).encode(),
        "02-create-delete.patch": (
            "diff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\n"
            + _diff(b"", created, "/dev/null", "b/pkg/new.py")
            + "diff --git a/pkg/gone.py b/pkg/gone.py\ndeleted file mode 100644\n"
            + _diff(PRISTINE["pkg/gone.py"], b"", "a/pkg/gone.py", "/dev/null")
        ).encode(),
        "03-rename.patch": (
            "diff --git a/pkg/b.py b/pkg/b2.py\nsimilarity index 95%\n"
            "rename from pkg/b.py\nrename to pkg/b2.py\n"
            + _diff(PRISTINE["pkg/b.py"], b2, "a/pkg/b.py", "b/pkg/b2.py")
            + "diff --git a/pkg/tool.sh b/pkg/tool.sh\nold mode 100644\nnew mode 100755\n"
        ).encode(),
        "04-zero-context.patch": _diff(a1, a2, "a/pkg/a.py", "b/pkg/a.py", context=0).encode(),
        "05-crlf.patch": (
            _diff(PRISTINE["pkg/crlf.txt"], crlf, "a/pkg/crlf.txt", "b/pkg/crlf.txt")
        ).encode(),
        "06-fill-empty.patch": b"--- a/pkg/empty.txt\n+++ b/pkg/empty.txt\n@@ -0,0 +1 @@\n+x\n",
    }


SERIES = (
    b"# the base series\n01-modify.patch\n02-create-delete.patch -p1\n03-rename.patch\n"
    b"04-zero-context.patch  # diff -U0\n05-crlf.patch\n06-fill-empty.patch\n"
)
CONFIG = (
    b'series = "patches/series"\nstrip = 1\npristine = "../pristine"\nlock-timeout = 5\n'
    b'[entries.overlays.extra]\nsource = "extra"\ntarget = "pkg/extra"\n'
)

#: Lines spliced into a mutated file: diff syntax, git headers, odd names and numbers.
TOKENS = (
    b"diff --git a/pkg/a.py b/pkg/a.py\n",
    b"--- /dev/null\n",
    b"+++ /dev/null\n",
    b"--- a/pkg/a.py\n",
    b"+++ b/../escape.py\n",
    b"+++ b/.patchkeeper/journal/manifest.json\n",
    b'+++ "b/new\\nline"\n',
    b"+++ b/pkg/caf\xe9.py\n",
    b"@@ -0,0 +1 @@\n",
    b"@@ -1,2 +0,0 @@\n",
    b"@@ -1 +1 @@\n",
    b"@@ -99999999999999999999 +1 @@\n",
    b"new file mode 120000\n",
    b"new file mode 100755\n",
    b"deleted file mode 100644\n",
    b"old mode 100755\n",
    b"rename from pkg/a.py\n",
    b"rename to pkg/b.py\n",
    b"copy from pkg/a.py\n",
    b"similarity index 100%\n",
    b"Binary files a/x and b/x differ\n",
    b"GIT binary patch\n",
    b"\\ No newline at end of file\n",
    b"index e69de29..d00491f\n",
    b"-A_3 = 3  # line 3\n",
    b"+x\r\n",
    b" \n",
    b"\x00\n",
    b"../outside.patch\n",
    b"/etc/passwd\n",
    b"01-modify.patch -p99999\n",
    b"x" * 300 + b".patch\n",
    b'upstream = "\xff"\n',
    b'series = "patches/series\\u0000"\n',
    b"strip = -1\n",
    b'directory = "../.."\n',
    b"[entries.overlays.more]\n",
    b'source = "/etc"\n',
    b"lock-timeout = 1e400\n",
    b"strip = 99999999999999999999999999\n",
)
BYTES = b'\x00\xff\r\n\t @-+\\"/.0123456789aZ#=[]{}'


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four random mutations of ``data`` (one most often)."""
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        data = _mutate_once(data, rng)
    return data


def _mutate_once(data: bytes, rng: random.Random) -> bytes:
    lines = data.splitlines(keepends=True)
    kind = rng.randrange(10)
    at = rng.randint(0, len(data))
    if kind == 0 and data:  # flip a byte
        index = rng.randrange(len(data))
        return data[:index] + bytes([data[index] ^ (1 << rng.randrange(8))]) + data[index + 1 :]
    if kind == 1:  # insert a byte
        return data[:at] + bytes([rng.choice(BYTES)]) + data[at:]
    if kind == 2 and data:  # delete a run
        end = min(len(data), at + rng.randint(1, 40))
        return data[:at] + data[end:]
    if kind == 3 and lines:  # duplicate a line
        index = rng.randrange(len(lines))
        return b"".join([*lines[: index + 1], lines[index], *lines[index + 1 :]])
    if kind == 4 and len(lines) > 1:  # swap two lines
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines)
    if kind == 5 and lines:  # drop a line
        del lines[rng.randrange(len(lines))]
        return b"".join(lines)
    if kind == 6:  # splice in a token line
        index = rng.randint(0, len(lines))
        return b"".join([*lines[:index], rng.choice(TOKENS), *lines[index:]])
    if kind == 7:  # a number made huge, negative or zero
        digits = [i for i, byte in enumerate(data) if 48 <= byte <= 57]
        if digits:
            index = rng.choice(digits)
            new = rng.choice((b"0", b"-1", b"9" * rng.choice((5, 13, 5000)), b"2147483648"))
            return data[:index] + new + data[index + 1 :]
    if kind == 8:  # truncate
        return data[:at]
    if kind == 9 and lines:  # a line's ending changed
        index = rng.randrange(len(lines))
        line = lines[index].rstrip(b"\r\n")
        lines[index] = line + rng.choice((b"\r\n", b"", b"\r", b"\n\n"))
        return b"".join(lines)
    return data + rng.choice(TOKENS)


@dataclass
class FuzzReport:
    """What a fuzz run found.

    Attributes:
        inputs: how many mutated inputs were run (one command each).
        exits: exit code -> count.
        problems: one line per violation (input number, command, what went wrong).
        seconds: the wall time of the run.
        slowest: the longest single command, in seconds.
    """

    inputs: int = 0
    exits: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    slowest: float = 0.0


class Hang(BaseException):
    """Raised by the alarm when a command runs past :data:`TIME_LIMIT` (a BaseException, so
    that ``main``'s handler of unexpected errors does not take it for a bug)."""


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _state(root: Path) -> dict[str, tuple[bytes | str, int]]:
    out: dict[str, tuple[bytes | str, int]] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if key == ".patchkeeper" or ".patchkeeper/evidence" in key or "__pycache__" in key:
            continue
        info = path.lstat()
        if path.is_symlink():
            out[key] = (os.readlink(path), 0)
        elif path.is_file():
            out[key] = (path.read_bytes(), info.st_mode & 0o777)
        else:
            out[key] = ("dir", 0)
    return out


def prepare(root: Path) -> tuple[Path, Path]:
    """Write the base downstream and pristine tree under ``root / "base"``, and an applied
    copy of the target; return ``(base, applied_target)``."""
    base = root / "base"
    patches = base / "down" / "patches"
    patches.mkdir(parents=True)
    for name, data in base_patches().items():
        (patches / name).write_bytes(data)
    (patches / "series").write_bytes(SERIES)
    (base / "down" / "patchkeeper.toml").write_bytes(CONFIG)
    (base / "down" / "extra").mkdir()
    (base / "down" / "extra" / "tool.py").write_bytes(b"TOOL = 1\n")
    _write_tree(base / "pristine", PRISTINE)
    applied = root / "applied"
    shutil.copytree(base / "pristine", applied)
    code, out = run_command(base / "down", "apply", applied)
    if code != 0:
        raise RuntimeError(f"the base series does not apply:\n{out}")
    return base, applied


def run_command(down: Path, command: str, target: Path) -> tuple[int, str]:
    """Run one command in-process, bounded by :data:`TIME_LIMIT`; return (exit, output)."""
    where = ["--to", str(target)] if command == "audit" else ["--target", str(target)]
    argv = ["-C", str(down), command, *where]
    out = io.StringIO()
    before = os.getcwd()

    def alarm(signum: int, frame: object) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(TIME_LIMIT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(before)
    return code, out.getvalue()


def _keep(root: Path, number: int, mutated: Path) -> None:
    """Keep the mutated input of a problem as ``root/problems/<number>-<name>``."""
    kept = root / "problems"
    kept.mkdir(exist_ok=True)
    shutil.copyfile(mutated, kept / f"{number}-{mutated.name}")


def fuzz(root: Path, inputs: int, seed: int = 0, progress: int = 0) -> FuzzReport:
    """Run ``inputs`` mutated inputs under ``root`` (a scratch directory); see the module."""
    rng = random.Random(seed)
    base, applied = prepare(root)
    report = FuzzReport()
    started = time.monotonic()
    work = root / "work"
    names = [*base_patches(), "series", "patchkeeper.toml"]
    for number in range(inputs):
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(base, work, symlinks=True)
        target = work / "target"
        shutil.copytree(rng.choice((base / "pristine", applied)), target)
        down = work / "down"
        name = rng.choice(names)
        path = down / ("patches/" + name if name.endswith(("patch", "series")) else name)
        if name == "series":
            path = down / "patches" / "series"
        path.write_bytes(mutate(path.read_bytes(), rng))
        command = rng.choice(COMMANDS)
        before = {
            "target": _state(target),
            "down": _state(down),
            "pristine": _state(work / "pristine"),
        }
        tick = time.monotonic()
        label = f"input {number} (seed {seed}, {name}, {command})"
        try:
            code, out = run_command(down, command, target)
        except Hang:
            report.problems.append(f"{label}: no answer within {TIME_LIMIT} s")
            _keep(root, number, path)
            continue
        finally:
            report.slowest = max(report.slowest, time.monotonic() - tick)
        report.inputs += 1
        report.exits[code] += 1
        if code not in (0, 1, 2):
            report.problems.append(f"{label}: exit {code}: {out.strip()[:300]}")
            _keep(root, number, path)
        after = {
            "target": _state(target),
            "down": _state(down),
            "pristine": _state(work / "pristine"),
        }
        reads_only = command in ("status", "verify", "audit")
        if (code != 0 or reads_only) and after != before:
            changed = sorted(
                f"{side}/{key}"
                for side in before
                for key in set(before[side]) | set(after[side])
                if before[side].get(key) != after[side].get(key)
            )
            report.problems.append(f"{label}: exit {code} but changed {changed[:5]}")
            _keep(root, number, path)
        if progress and (number + 1) % progress == 0:
            print(f"{number + 1} inputs, {len(report.problems)} problems", flush=True)
    report.seconds = time.monotonic() - started
    return report
