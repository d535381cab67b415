"""The one launcher of probes that run in another interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from patchkeeper.errors import TargetError
from patchkeeper.system.probes import ProbeWords, answer_after, run_probe

WORDS = ProbeWords(
    missing="no such interpreter",
    run_hint="give --python a Python executable",
    too_slow="the probe took more than {timeout:g} s",
    too_slow_hint="raise --timeout",
)


def test_the_probe_reads_its_request_and_answers_after_the_marker(tmp_path: Path) -> None:
    script = "import sys, json; print('noise'); print('PK ' + json.dumps(sys.stdin.read()))"
    done = run_probe(sys.executable, ["-c", script], WORDS, timeout=60, request='{"a": 1}')
    assert done.returncode == 0
    assert answer_after(done.stdout, "PK ") == '{"a": 1}'
    assert answer_after(done.stdout, "NONE ") is None


def test_a_missing_interpreter_is_worded_by_the_probe(tmp_path: Path) -> None:
    python = tmp_path / "bin" / "python"
    with pytest.raises(TargetError) as raised:
        run_probe(python, ["-c", "pass"], WORDS, timeout=60)
    assert str(raised.value) == (
        f"{python}: no such interpreter\n  hint: give --python a Python executable"
    )


def test_an_interpreter_that_cannot_run_gives_the_reason(tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text("not executable\n")
    with pytest.raises(TargetError) as raised:
        run_probe(python, ["-c", "pass"], WORDS, timeout=60)
    assert raised.value.message == "cannot run the interpreter: Permission denied"


def test_a_probe_that_does_not_finish_in_time() -> None:
    with pytest.raises(TargetError) as raised:
        run_probe(sys.executable, ["-c", "import time; time.sleep(30)"], WORDS, timeout=0.5)
    assert raised.value.message == "the probe took more than 0.5 s"
    assert raised.value.hint == "raise --timeout"


@pytest.mark.parametrize(
    ("program", "answered"),
    [
        ("/bin/sh", "{shell}, exit 2"),
        ("/bin/echo", "\"-c print('PK''PY')\", exit 0"),
        ("garbage", "'hello there', exit 0"),
    ],
)
def test_a_program_that_is_not_python_is_told_so(
    tmp_path: Path, program: str, answered: str
) -> None:
    """A shell, ``echo`` or a script that prints something else is refused before the probe's
    Python source is handed to it, quoting what it answered to ``-c "print('PK''PY')"``."""
    if program == "garbage":
        program = str(tmp_path / "python")
        Path(program).write_text("#!/bin/sh\necho 'hello there'\n")
        Path(program).chmod(0o755)
    # the shell's own words for the syntax error (dash: 'Syntax error: word unexpected')
    said = subprocess.run(["/bin/sh", "-c", "print('PK''PY')"], capture_output=True, text=True)
    answered = answered.format(shell=repr(said.stderr.strip()))
    marker = tmp_path / "ran"
    with pytest.raises(TargetError) as raised:
        run_probe(program, ["-c", f"touch {marker}"], WORDS, timeout=60)
    assert str(raised.value) == (
        f"{program} is not a Python interpreter (it answered {answered})\n"
        "  hint: pass --python the environment's Python executable, such as .venv/bin/python"
    )
    assert not marker.exists()


def test_a_python_that_fails_is_left_to_the_probe(tmp_path: Path) -> None:
    """An interpreter whose answer speaks of Python (a broken one) is run, and its failure
    reported by the probe's caller."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n")
    python.chmod(0o755)
    done = run_probe(python, ["-c", "pass"], WORDS, timeout=60)
    assert (done.returncode, done.stderr) == (1, "Fatal Python error: init_fs_encoding\n")
