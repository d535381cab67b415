"""A plain ``apply`` runs without loading the command line (``patchkeeper.__main__``), and
prints, writes and exits exactly as the command line does (``patchkeeper.main``), which
takes every command line the short path does not: both run as real processes here, on the
example downstream, and their outputs, exit codes and trees are compared."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import Example, tree_bytes
from patchkeeper.__main__ import apply_arguments

#: Runs the console script's entry (the short path when the command line allows it) and
#: names the modules of the command line it loaded.
SHORT = """
import os, sys
def _exit(code):  # the short path ends the process at once: report first
    raise SystemExit(code)
os._exit = _exit
from patchkeeper.__main__ import entry
try:
    entry()
except SystemExit as exc:
    code = exc.code
loaded = sorted(m for m in sys.modules if m in ("click", "patchkeeper.main"))
sys.stderr.write("\\nEXIT %s LOADED %s\\n" % (code, loaded))
"""
#: Runs the command line itself (``patchkeeper.main``), as before the short path.
FULL = SHORT.replace("patchkeeper.__main__", "patchkeeper.main")
#: Runs the console script as it is (``python -m patchkeeper``).
MODULE = ["-m", "patchkeeper"]


def _run(program: str, args: list[str], cwd: Path, cache: Path) -> tuple[str, str, str]:
    env = dict(os.environ, PATCHKEEPER_CACHE=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", program, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    err, _, tail = done.stderr.rpartition("\nEXIT ")
    return done.stdout, err, tail.strip()


def _both(example: Example, args: list[str], cwd: Path) -> tuple[tuple[str, str, str], ...]:
    """The short path's and the command line's (stdout, stderr, tail), each on a fresh copy
    of the old upstream at ``target`` (``--target target`` is relative to ``cwd``)."""
    out = []
    for name, program in (("short", SHORT), ("full", FULL)):
        target = example.root / "target"
        if target.exists():
            import shutil

            shutil.rmtree(target)
        example.target()
        result = _run(program, args, cwd, example.root / f"cache-{name}")
        out.append((result, tree_bytes(target)))
    (short, short_tree), (full, full_tree) = out
    assert short_tree == full_tree
    return short, full


def test_apply_prints_and_writes_as_the_command_line(example: Example) -> None:
    args = ["-C", "downstream", "apply", "--target", "../target"]
    short, full = _both(example, args, example.root)
    target = (example.root / "target").resolve()
    assert short[0] == f"applied 7 patches on directory {target}: 4 files changed\n"
    assert short[1:] == ("", "0 LOADED []")
    assert full[:2] == short[:2]
    assert full[2] == "0 LOADED ['click', 'patchkeeper.main']"


def test_a_failing_patch_is_reported_as_by_the_command_line(example: Example) -> None:
    new = example.root / "new"
    import shutil

    shutil.copytree(example.new, new)
    args = ["apply", "--target", str(new), "-C", str(example.downstream)]
    before = tree_bytes(new)
    short = _run(SHORT, args, example.root, example.root / "cache-short")
    full = _run(FULL, args, example.root, example.root / "cache-full")
    assert tree_bytes(new) == before
    assert short[0].startswith(f"retry-backoff-cap.patch does not apply to directory {new}\n")
    assert short[0].endswith("nothing was changed\n")
    assert short[2] == "1 LOADED []"
    assert (short[0], short[1]) == (full[0], full[1])
    assert full[2] == "1 LOADED ['click', 'patchkeeper.main']"


def test_an_input_error_is_reported_as_by_the_command_line(example: Example) -> None:
    args = ["apply", "--target", str(example.root / "nowhere")]
    short = _run(SHORT, args, example.downstream, example.root / "cache")
    full = _run(FULL, args, example.downstream, example.root / "cache")
    message = (
        f"patchkeeper: error: {example.root / 'nowhere'}: the target directory does not exist\n"
        f"  hint: the nearest directory that exists is {example.root}: check the path\n"
    )
    assert short == ("", message, "2 LOADED []")
    assert full == ("", message, "2 LOADED ['click', 'patchkeeper.main']")


def test_no_configuration_is_reported_as_by_the_command_line(tmp_path: Path) -> None:
    short = _run(SHORT, ["apply"], tmp_path, tmp_path / "cache")
    full = _run(FULL, ["apply"], tmp_path, tmp_path / "cache")
    assert short[1].startswith(
        f"patchkeeper: error: no patchkeeper configuration here: no patchkeeper.toml, nor a "
        f"pyproject.toml with [tool.patchkeeper], in {tmp_path.resolve()} or a directory above it\n"
    )
    assert short[2] == "2 LOADED []"
    assert short[:2] == full[:2]


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "--target", "patchkeeper.toml"],  # a file where click wants a directory
        ["-C", "nowhere", "apply"],  # click names the -C it cannot enter
        ["apply", "--json"],
        ["apply", "--target=../target"],
    ],
)
def test_other_command_lines_go_to_the_command_line(example: Example, args: list[str]) -> None:
    short = _run(SHORT, args, example.downstream, example.root / "cache")
    full = _run(FULL, args, example.downstream, example.root / "cache")
    assert short == full


def test_a_blank_value_is_refused_as_by_the_command_line(example: Example) -> None:
    """``apply --python ' '`` ran the short path, which tried to run an interpreter named by
    a space; the command line refuses it as needing a value, before anything runs."""
    args = ["apply", "--python", " "]
    short = _run(SHORT, args, example.downstream, example.root / "cache")
    message = (
        "Usage: patchkeeper apply [OPTIONS]\nTry 'patchkeeper apply --help' for help.\n\n"
        "Error: --python needs a value\n"
    )
    assert short == ("", message, "2 LOADED ['click', 'patchkeeper.main']")
    assert _run(FULL, args, example.downstream, example.root / "cache") == short


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["apply"], {}),
        (
            ["--config", "p.toml", "apply", "--python", "py", "-C", "d"],
            {"config": "p.toml", "python": "py", "directory": "d"},
        ),
        (["apply", "--target", "a", "--target", "b"], None),  # given twice
        (["apply", "--target"], None),  # no value
        (["apply", "--target", "-C"], None),  # a value like an option
        (["apply", "--python", " "], None),  # a blank value, refused by name
        (["--target", "t", "apply"], None),  # a command's option before the command
        (["apply", "apply"], None),
        (["-C", "d", "verify"], None),
        (["apply", "-h"], None),
        ([], None),
    ],
)
def test_apply_arguments(argv: list[str], expected: dict[str, str] | None) -> None:
    assert apply_arguments(argv) == expected


def test_a_python_path_that_is_a_directory_is_left_to_click(tmp_path: Path) -> None:
    assert apply_arguments(["apply", "--python", str(tmp_path)]) is None
    assert apply_arguments(["apply", "--target", str(tmp_path)]) == {"target": str(tmp_path)}


def test_the_console_script_prints_everything_before_it_ends(example: Example) -> None:
    target = example.target()
    args = ["-C", str(example.downstream), "apply", "--target", str(target)]
    env = dict(os.environ, PATCHKEEPER_CACHE=str(example.root / "cache"))
    done = subprocess.run(
        [sys.executable, *MODULE, *args], capture_output=True, text=True, env=env, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"applied 7 patches on directory {target}: 4 files changed\n",
        "",
    )
    piped = subprocess.Popen(
        [sys.executable, *MODULE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    out, err = piped.communicate()
    assert (piped.returncode, out, err) == (
        0,
        f"apply: the series is already applied on directory {target}\nnothing was changed\n",
        "",
    )


def test_a_reader_that_went_away_ends_it_quietly_as_the_command_line(example: Example) -> None:
    """Standard output closed by its reader before anything is printed (``| head -c0``):
    exit 1 and no message on either path (click's rule), the tree patched."""
    results = []
    for name, program in (("short", ["-c", SHORT]), ("full", ["-c", FULL])):
        target = example.target(f"target-{name}")
        env = dict(os.environ, PATCHKEEPER_CACHE=str(example.root / "cache"))
        args = ["-C", str(example.downstream), "apply", "--target", str(target)]
        child = subprocess.Popen(
            [sys.executable, *program, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # long before the child prints
        err = child.stderr.read().decode()
        child.wait()
        message, _, tail = err.rpartition("\nEXIT ")
        results.append((tail.split()[0], message, tree_bytes(target)))
    assert results[0] == results[1]
    assert results[0][:2] == ("1", "")
