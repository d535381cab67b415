"""An interpreter that runs but fails without a word is said to, with what to do.

``--python`` given a program that exits 1 and prints nothing (``/bin/false``, a wrapper
script that stops at once) read "the interpreter failed to locate NAME (exit 1): " with
nothing after the colon and no hint; ``runtime check`` said "the probe printed no result
(exit 1): " the same way. Both say now that it wrote nothing, name the option to fix and
how to see what the interpreter does.
"""

from __future__ import annotations

from pathlib import Path

from helpers import write_files

SILENT = "#!/bin/sh\nexit 1\n"
LOUD = "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n"


def interpreter(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "venv" / "bin" / "python"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_verify_says_the_interpreter_wrote_nothing(cli, tmp_path: Path) -> None:
    root = tmp_path / "downstream"
    write_files(root, {"patches/series": "", "patchkeeper.toml": 'upstream = "app"\npin = "1.0"\n'})
    python = interpreter(tmp_path, SILENT)
    run = cli("verify", "--python", str(python), cwd=root)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {python}: the interpreter failed to locate app (exit 1) and "
            "wrote nothing on standard error",
            "  hint: pass --python the path of a Python executable; run "
            f"'{python} -c pass' to see what the interpreter does",
        ],
    )
    python.write_text(LOUD)
    run = cli("verify", "--python", str(python), cwd=root)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {python}: the interpreter failed to locate app (exit 1): Fatal "
        "Python error: init_fs_encoding",
    )


def test_runtime_check_says_it_too(cli, tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    write_files(
        root,
        {
            "pyproject.toml": '[project]\nname = "vllm-steer"\nversion = "0.1"\n\n'
            '[tool.patchkeeper]\nupstream = "vllm"\npin = "0.30.0"\n\n'
            '[tool.patchkeeper.runtime]\npackage = "steer"\n',
            "steer/__init__.py": "from vllm.v1.engine.core import EngineCore\n\n\n"
            "def core_init(self):\n    return None\n\n\nEngineCore.__init__ = core_init\n",
        },
    )
    python = interpreter(tmp_path, SILENT)
    run = cli("runtime", "check", "--python", str(python), cwd=root)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {python}: the probe printed no result (exit 1) and wrote "
            "nothing on standard error",
            "  hint: give --python the interpreter of the audited environment; run "
            f"'{python} -c pass' to see what the interpreter does",
        ],
    )
