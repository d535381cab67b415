"""The one launcher of probes that run in another interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from patchkeeper.errors import TargetError
from patchkeeper.probe_launcher import ProbeWords, answer_after, run_probe

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
