"""A plugin file Python cannot parse is a finding at the line of the error, not line 0 (user
report: ``patch_broken.py:0: syntax: invalid syntax (line 2)``), saying what to do: a
package whose ``__init__.py`` has a syntax error said only "invalid syntax"."""

from __future__ import annotations

import json
from pathlib import Path

SOURCE = "import os\ndef broken(:\n    pass\n"


def test_a_syntax_error_is_reported_at_its_line(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    broken = plugin / "metaplug/patch/bugfix/patch_broken.py"
    broken.write_text(SOURCE)
    try:
        compile(SOURCE, str(broken), "exec")
    except SyntaxError as exc:
        message, line = exc.msg, exc.lineno
    assert line == 2
    file = "metaplug/patch/bugfix/patch_broken.py"
    run = cli("runtime", "inventory", cwd=plugin)
    assert (
        f"  {file}:2: syntax: {message}: make it valid Python (python -m py_compile {file} "
        "shows the error): until then its patches are not read\n"
    ) in run.out
    run = cli("runtime", "inventory", "--json", cwd=plugin)
    [finding] = [f for f in json.loads(run.out)["findings"] if f["code"] == "syntax"]
    assert finding == {
        "code": "syntax",
        "path": file,
        "line": 2,
        "message": message,
        "hint": f"make it valid Python (python -m py_compile {file} shows the error): until "
        "then its patches are not read",
    }
