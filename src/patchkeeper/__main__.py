"""``python -m patchkeeper`` and the console script.

``patchkeeper --version`` and ``patchkeeper --help`` are answered here, before the command
line's modules (click, the commands) are imported: loading them takes several times as long
as starting the interpreter. ``--help`` prints the text the command line rendered the last
time with the same code and width, kept in ``$PATCHKEEPER_CACHE/help/`` (default
``~/.cache/patchkeeper-corpus/help/``); the first time, and whenever ``main.py``, the
interpreter or the width differ, the command line renders it and the text is kept.
Everything else goes to :func:`patchkeeper.main.entry`.
"""

from __future__ import annotations

import os
import sys

from patchkeeper import __version__

#: :data:`patchkeeper.constants.CACHE_ENV` (not imported: that module loads ``re`` and ``enum``).
CACHE_ENV = "PATCHKEEPER_CACHE"

_HELP = (["--help"], ["-h"])


def _help_file() -> str | None:
    """Where the top-level help for this code, interpreter and width is kept (``None`` when
    that cannot be told)."""
    import zlib

    try:
        info = os.stat(os.path.join(os.path.dirname(__file__), "main.py"))
    except OSError:
        return None
    try:
        width = str(os.get_terminal_size(sys.__stdout__.fileno()).columns)  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        width = "-"
    parts = [__version__, sys.executable, str(info.st_size), str(info.st_mtime_ns)]
    parts += [os.environ.get("COLUMNS", ""), width]
    key = "\0".join(parts)
    env = os.environ.get(CACHE_ENV)
    root = os.path.expanduser(env) if env else os.path.expanduser("~/.cache/patchkeeper-corpus")
    return os.path.join(root, "help", f"{zlib.crc32(key.encode('utf-8', 'replace')):08x}.txt")


def _keep(path: str, text: str) -> None:
    from pathlib import Path

    from patchkeeper.system.atomic import write_atomic

    try:
        write_atomic(Path(path), text.encode("utf-8"), parents=True)
    except OSError:
        pass


def entry() -> None:
    """The console script: ``--version`` and a kept ``--help`` at once, else the command line
    (:func:`patchkeeper.main.entry`)."""
    argv = sys.argv[1:]
    if argv == ["--version"]:
        sys.stdout.write(f"patchkeeper, version {__version__}\n")  # click's version_option
        sys.exit(0)
    kept = _help_file() if argv in _HELP else None
    if kept is not None:
        try:
            with open(kept, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            text = ""
        if text:
            sys.stdout.write(text)
            sys.exit(0)
        import io

        from patchkeeper.main import main

        captured, real = io.StringIO(), sys.stdout
        sys.stdout = captured
        try:
            code = main()
        finally:
            sys.stdout = real
        text = captured.getvalue()
        sys.stdout.write(text)
        if code == 0 and text:
            _keep(kept, text)
        sys.exit(code)
    from patchkeeper.main import entry as command_line

    command_line()


if __name__ == "__main__":
    entry()
