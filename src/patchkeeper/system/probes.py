"""The one launcher for probes that run in another interpreter.

Three things run a small standard-library script in an interpreter that is not patchkeeper's
(the audited environment, ``--python``): locating an installed distribution
(:mod:`patchkeeper.trees.installed`), measuring the interpreter and the import origins
(:mod:`patchkeeper.record.import_origins` with :mod:`patchkeeper.record.envprobe`), and the
live check of runtime patches (:mod:`patchkeeper.runtime.live.check` with
:mod:`patchkeeper.runtime.live.probe`). Each runs with a timeout and its output captured; an
interpreter that cannot be started or does not finish in time is a :class:`TargetError`
naming it, worded by the probe (:class:`ProbeWords`). The probe answers with one line of
JSON, found by :func:`answer_after`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.constants import OPTION_PYTHON
from patchkeeper.errors import TargetError


@dataclass(frozen=True)
class ProbeWords:
    """How one probe words its failures; each names the interpreter as the error's path.

    Attributes:
        not_run: the interpreter cannot be started; ``{reason}`` is the system's reason.
        missing: the interpreter does not exist (default: :attr:`not_run`).
        run_hint: the hint for both.
        too_slow: the probe did not finish; ``{timeout}`` is the limit in seconds.
        too_slow_hint: the hint for it.
    """

    not_run: str = "cannot run the interpreter: {reason}"
    missing: str = ""
    run_hint: str | None = None
    too_slow: str = "the probe took more than {timeout:g} s"
    too_slow_hint: str | None = None


def interpreter_path(value: str) -> Path:
    """The interpreter an option names (``--python VALUE``), as a path that :func:`run_probe`
    reads the way the value was typed: a value with a directory part names a file, a bare
    name is looked up on ``PATH``.

    ``Path("./python")`` is ``python``, a bare name, so a value whose directory part is only
    ``.`` is made absolute (from the current directory, which ``-C`` has entered): it names
    the file there, as ``./python`` does in a shell.

    >>> interpreter_path("python3"), interpreter_path("venv/bin/python")
    (PosixPath('python3'), PosixPath('venv/bin/python'))
    >>> interpreter_path("./python") == Path.cwd() / "python"
    True
    """
    path = Path(value)
    separators = [os.sep] + ([os.altsep] if os.altsep else [])
    typed = any(sep in value for sep in separators)
    if typed and not any(sep in str(path) for sep in separators):
        return Path(os.path.abspath(value))
    return path


def check_interpreter_given(python: Path | str | None, option: str = OPTION_PYTHON) -> None:
    """Refuse the interpreter ``option`` names when nothing is there: a path (with a
    directory part) that does not exist, or a bare name not found on ``PATH``. A command
    checks this before the work that would only need the interpreter later, or not at all
    (``report --check`` with no recorded environment to compare), so that a value typed
    wrong is named at once rather than ignored or named after another error.

    Raises:
        TargetError: naming the option and the value (exit 2, as a usage error).
    """
    if python is None:
        return
    import shutil

    program = str(python)
    separators = [os.sep] + ([os.altsep] if os.altsep else [])
    if any(sep in program for sep in separators):
        if os.path.lexists(program):
            return
        problem = "no such file"
    elif shutil.which(program) is not None:
        return
    else:
        problem = "no such command on PATH"
    raise TargetError(
        f"{option} {program}: {problem}",
        hint=f"give {option} the path of a Python executable (a virtual environment's "
        ".venv/bin/python)",
    )


def run_probe(
    python: Path | str,
    args: Sequence[str],
    words: ProbeWords,
    *,
    timeout: float,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    request: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGS...`` and return what it did (exit code, standard output and error as
    text); ``request`` is written to its standard input (default: none, ``/dev/null``).

    A relative ``python`` with a directory part (``../venv/bin/python``) names a file from
    the current directory, as the user typed it, also when ``cwd`` is another directory (the
    child would look for it from there); symbolic links are kept (a virtual environment's
    ``python`` is one). A bare name (``python3``) is looked up on ``PATH``.

    Raises:
        TargetError: the interpreter cannot be started or takes more than ``timeout``
            seconds, worded by ``words``.
    """
    program = str(python)
    if os.sep in program and not os.path.isabs(program):
        program = os.path.abspath(program)
    if program != sys.executable:
        _refuse_a_program_not_python(python, program, words, timeout)
    try:
        return subprocess.run(
            [program, *args],
            input=request,
            stdin=subprocess.DEVNULL if request is None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=None if env is None else dict(env),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise TargetError(
            words.too_slow.format(timeout=timeout), path=python, hint=words.too_slow_hint
        ) from None
    except OSError as exc:
        wording = words.missing if isinstance(exc, FileNotFoundError) else ""
        hint = words.run_hint
        if os.sep not in program and os.path.exists(program):
            # a bare name is looked up on PATH, not in the current directory
            here = (
                f"{program} is looked up on PATH; for the file in this directory, give ./{program}"
            )
            hint = f"{hint}; {here}" if hint else here
        elif isinstance(exc, FileNotFoundError) and program != str(python):
            # a relative path is read from -C's directory when one is given, as git -C
            # does: a user who typed it from elsewhere is told where it was looked for
            here = (
                f"relative paths start at {Path.cwd()} (-C DIR's, when given), and there is "
                f"no file {program}"
            )
            hint = f"{hint}; {here}" if hint else here
        raise TargetError(
            (wording or words.not_run).format(reason=exc.strerror),
            path=python,
            hint=hint,
        ) from None


#: What :func:`_refuse_a_program_not_python` asks: Python prints ``PKPY`` (two literals
#: joined); a shell reads it as a syntax error and runs nothing, ``echo`` prints it unjoined.
_IDENTIFY = "print('PK''PY')"
_IDENTIFIED = "PKPY"
#: What the interpreters that were checked said (program -> its answer when not Python).
_CHECKED: dict[str, str | None] = {}


def _refuse_a_program_not_python(
    python: Path | str, program: str, words: ProbeWords, timeout: float
) -> None:
    """Refuse ``program`` when it runs but is not a Python interpreter (``/bin/sh``,
    ``/bin/echo``, a script that prints something else), before a probe's Python source is
    given to it: a shell would run the source as shell commands and answer with their noise.

    It is asked to run ``python -c "print('PK''PY')"``, once a process. A program that
    answers ``PKPY`` is Python; one that cannot be started, answers nothing, or whose answer
    speaks of Python (``Fatal Python error``, a traceback: a broken interpreter) is left to
    the probe, whose failure says more.

    Raises:
        TargetError: it answered otherwise, quoted (its first line and exit code).
    """
    if program not in _CHECKED:
        try:
            done = subprocess.run(
                [program, "-c", _IDENTIFY],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise TargetError(
                words.too_slow.format(timeout=timeout), path=python, hint=words.too_slow_hint
            ) from None
        except OSError:
            return  # the probe's own run says why it cannot be started
        _CHECKED[program] = _answer_not_python(done)
    answered = _CHECKED[program]
    if answered is not None:
        raise TargetError(
            f"{python} is not a Python interpreter (it answered {answered})",
            hint=f"pass {OPTION_PYTHON} the environment's Python executable, such as "
            ".venv/bin/python",
        )


def _answer_not_python(done: subprocess.CompletedProcess[str]) -> str | None:
    """What a program asked to run ``-c "print('PK''PY')"`` answered, in words, when that
    shows it is not Python; ``None`` when it is, or when its answer does not tell.

    >>> def ran(code, out, err=""):
    ...     return _answer_not_python(subprocess.CompletedProcess([], code, out, err))
    >>> ran(0, "PKPY\\n") is None, ran(1, "") is None
    (True, True)
    >>> ran(1, "", "Fatal Python error: init_fs_encoding\\n") is None
    True
    >>> ran(2, "", "sh: 1: Syntax error: word unexpected\\n")
    "'sh: 1: Syntax error: word unexpected', exit 2"
    >>> print(ran(0, "-c print('PK''PY')\\n"))
    "-c print('PK''PY')", exit 0
    """
    said = done.stdout + done.stderr
    if any(line.strip() == _IDENTIFIED for line in done.stdout.splitlines()):
        return None
    if not said.strip() or "Python" in said or "Traceback" in said:
        return None
    first = next(
        line.strip() for line in (done.stderr + "\n" + done.stdout).splitlines() if line.strip()
    )
    if len(first) > 120:
        first = first[:117] + "..."
    return f"{first!r}, exit {done.returncode}"


def probe_failed(
    done: subprocess.CompletedProcess[str], python: Path | str, what: str, hint: str | None
) -> TargetError:
    """The error for a probe that ran but gave no answer: ``what`` happened (``"the
    interpreter failed to locate vllm"``), its exit code and the end of its standard error,
    or that it wrote none (``/bin/false``, a wrapper script that exits at once), then the
    ``hint`` and how to see the cause.

    >>> done = subprocess.CompletedProcess(["false"], 1, "", "")
    >>> error = probe_failed(done, "/bin/false", "the probe printed no result", "give --python")
    >>> error.message
    'the probe printed no result (exit 1) and wrote nothing on standard error'
    >>> error.hint
    "give --python; run '/bin/false -c pass' to see what the interpreter does"
    """
    said = done.stderr.strip()
    told = f": {said[-400:]}" if said else " and wrote nothing on standard error"
    see = f"run '{python} -c pass' to see what the interpreter does"
    return TargetError(
        f"{what} (exit {done.returncode}){told}",
        path=python,
        hint=f"{hint}; {see}" if hint else see,
    )


def answer_after(stdout: str, marker: str) -> Any | None:
    """The JSON value on the first line of ``stdout`` that starts with ``marker``, or ``None``.

    >>> answer_after('noise\\nPK {"a": 1}\\n', "PK ")
    {'a': 1}
    """
    line = next((x for x in stdout.splitlines() if x.startswith(marker)), None)
    return None if line is None else json.loads(line[len(marker) :])
