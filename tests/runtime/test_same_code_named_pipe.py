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
