"""``runtime same-code`` given a named pipe for one of its two files."""

from __future__ import annotations

import os
from pathlib import Path


def test_same_code_refuses_a_named_pipe(cli, tmp_path: Path) -> None:
    """``runtime same-code`` read its two files whole: a named pipe given for one (a typo of
    a process substitution) hung it, waiting for a writer. It is an input error naming it."""
    left = tmp_path / "worker.py"
    left.write_text("class Worker:\n    def execute(self):\n        return 1\n")
    pipe = tmp_path / "pipe.py"
    os.mkfifo(pipe)
    run = cli("runtime", "same-code", f"{left}::Worker.execute", f"{pipe}::Worker.execute")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {pipe}: cannot read: a named pipe, not a regular file\n"
        "  hint: give two Python files, or FILE::QUALNAME definitions "
        "(vllm/x.py::Cls.meth); relative paths start at the current directory\n",
    )


def test_same_code_names_a_binary_file_as_one(cli, tmp_path: Path) -> None:
    """A compiled module given for a source (``vllm_x/_C.abi3.so::f``, beside the ``.py``
    files of an unpacked wheel) was "not valid Python: not UTF-8 (byte 0xa0) and no coding
    line" with the advice to save it as UTF-8; it is a binary file, and the advice is to
    give the source that defines it."""
    left = tmp_path / "plugin.py"
    left.write_text("def register():\n    return None\n")
    compiled = tmp_path / "_C.abi3.so"
    compiled.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\n\xa0\x00\x00")
    run = cli("runtime", "same-code", f"{left}::register", f"{compiled}::register")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {compiled}:1: not valid Python: a binary file (a NUL byte), "
        "not a source file\n"
        "  hint: same-code compares Python sources: give the .py file that defines it\n",
    )
    cached = tmp_path / "plugin.cpython-311.pyc"
    cached.write_bytes(b"\xa7\r\r\n\x00\x00\x00\x00")
    run = cli("runtime", "same-code", str(left), str(cached))
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {cached}:2: not valid Python: a binary file (a NUL byte), "
        "not a source file",
    )


def test_same_code_tells_a_file_with_a_syntax_error_what_to_do(cli, tmp_path: Path) -> None:
    """A plugin's ``__init__.py`` left half edited (``def (:``) was "not valid Python:
    invalid syntax" with the hint "same-code compares Python sources", which it knows: the
    hint says to make it valid Python, or to give the release's own file."""
    left = tmp_path / "loader.py"
    left.write_text("class Loader:\n    def load(self):\n        return 1\n")
    broken = tmp_path / "broken.py"
    broken.write_text("import vllm.x\nvllm.x.f = 1\ndef (:\n")
    run = cli("runtime", "same-code", f"{left}::Loader.load", f"{broken}::Loader.load")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {broken}:3: not valid Python: invalid syntax\n"
        f"  hint: same-code compares Python sources: make {broken} valid Python (python -m "
        "py_compile shows the error), or give the release's own file\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.py", "loader.py"]
