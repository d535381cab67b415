"""``python -m patchkeeper`` and the console script.

``patchkeeper --version`` and ``patchkeeper --help`` are answered here, before the command
line's modules (click, the commands) are imported: loading them takes several times as long
as starting the interpreter. ``--help`` prints the text the command line rendered the last
time with the same code and width, kept in ``$PATCHKEEPER_CACHE/help/`` (default
``~/.cache/patchkeeper-corpus/help/``); the first time, and whenever ``main.py`` or a module
of ``patchkeeper/commands/`` (where each command's help text is), the interpreter or the width
differ, the command line renders it and the text is kept.
A plain ``apply`` (``[-C DIR] [--config FILE] apply [--target DIR | --python PATH]``, each
option at most once, no ``--json``) runs here too (:func:`run_apply`), with the same output,
errors and exit codes, without loading the command line: ``click`` and the definitions of
every command take a tenth of an ``apply`` of 1,000 patches. Everything else, and anything
click would refuse (a ``--target`` that is a file), goes to :func:`patchkeeper.main.entry`.
"""

from __future__ import annotations

import os
import sys

from patchkeeper import __version__

#: ``typing.TYPE_CHECKING`` without importing :mod:`typing` (which loads ``re``) at start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

#: :data:`patchkeeper.constants.CACHE_ENV` (not imported: that module loads ``re`` and ``enum``).
CACHE_ENV = "PATCHKEEPER_CACHE"

_HELP = (["--help"], ["-h"])

#: click's pattern of a terminal escape sequence (``click._compat._ansi_re``), stripped from
#: text that goes to a stream that is not a terminal, as ``click.echo`` does.
_ANSI = r"\033\[[;?0-9]*[a-zA-Z]"


def _help_file() -> str | None:
    """Where the top-level help for this code, interpreter and width is kept (``None`` when
    that cannot be told)."""
    import zlib

    here = os.path.dirname(__file__)
    try:  # the group's module and the command modules whose help texts it lists
        stamps = [_stamp(os.stat(os.path.join(here, "main.py")))]
        with os.scandir(os.path.join(here, "commands")) as found:
            stamps += sorted(f"{e.name}:{_stamp(e.stat())}" for e in found if ".py" in e.name)
    except OSError:
        return None
    try:
        width = str(os.get_terminal_size(sys.__stdout__.fileno()).columns)  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        width = "-"
    parts = [__version__, sys.executable, *stamps]
    parts += [os.environ.get("COLUMNS", ""), width]
    key = "\0".join(parts)
    env = os.environ.get(CACHE_ENV)
    root = os.path.expanduser(env) if env else os.path.expanduser("~/.cache/patchkeeper-corpus")
    return os.path.join(root, "help", f"{zlib.crc32(key.encode('utf-8', 'replace')):08x}.txt")


def _stamp(info: os.stat_result) -> str:
    """A file's size and modification time, as part of the kept help's key."""
    return f"{info.st_size}:{info.st_mtime_ns}"


def _keep(path: str, text: str) -> None:
    from pathlib import Path

    from patchkeeper.system.atomic import write_atomic

    try:
        write_atomic(Path(path), text.encode("utf-8"), parents=True)
    except OSError:
        pass


def _apply_options() -> dict[str, tuple[str, bool, bool]]:
    """The options of a plain ``apply`` (:func:`apply_arguments`): option -> (what it sets,
    whether it names a directory, whether it may come before the command). Read once a
    command line is neither ``--version`` nor ``--help``: :mod:`patchkeeper.constants` loads
    ``re`` and ``enum``, which every command loads anyway."""
    from patchkeeper.constants import (
        OPTION_CONFIG,
        OPTION_DIRECTORY,
        OPTION_PYTHON,
        OPTION_TARGET,
    )

    return {
        OPTION_DIRECTORY: ("directory", True, True),
        OPTION_CONFIG: ("config", False, True),
        OPTION_TARGET: ("target", True, False),
        OPTION_PYTHON: ("python", False, False),
    }


def apply_arguments(argv: list[str]) -> dict[str, str] | None:
    """The options of a plain ``apply`` command line, option name -> value (``directory``,
    ``config``, ``target``, ``python``), or ``None`` for any other command line: another
    command, another option (``--json``, ``--help``, ``--target=DIR``), an option given twice
    or without a value (or with a blank one, which the command line refuses by name), a
    value that starts with ``-``, or a path click's checks refuse
    (``click.Path``: a ``-C``/``--target`` that is a file, a ``--config``/``--python`` that
    is a directory, a path that cannot be read). Checked as it is and, after ``-C``, as seen
    from there.

    >>> apply_arguments(["-C", "down", "apply", "--target", "/nonexistent/tree"])
    {'directory': 'down', 'target': '/nonexistent/tree'}
    >>> apply_arguments(["apply", "--json"]), apply_arguments(["verify"])
    (None, None)
    """
    options = _apply_options()
    values: dict[str, str] = {}
    command = False
    words = iter(argv)
    for word in words:
        if word == "apply" and not command:
            command = True
            continue
        option = options.get(word)
        if option is None or option[0] in values or (not command and not option[2]):
            return None
        value = next(words, "")
        if not value.strip() or value.startswith("-") or not _path_allowed(value, option[1]):
            return None
        values[option[0]] = value
    return values if command else None


def _path_allowed(value: str, directory: bool) -> bool:
    """Whether ``click.Path`` (``file_okay=False`` for a directory, else ``dir_okay=False``;
    readable) takes ``value``."""
    import stat

    try:
        mode = os.stat(value).st_mode
    except (OSError, ValueError):
        return True  # a path that does not exist: the command names it
    if stat.S_ISREG(mode) if directory else stat.S_ISDIR(mode):
        return False
    return os.access(value, os.R_OK)


def _echo(message: str | bytes, stream: TextIO | None, colour: bool = False) -> None:
    """``click.echo(message, file=stream, color=colour or None)``: a line of text (escape
    sequences stripped unless coloured or a terminal), or bytes to the stream's buffer."""
    if stream is None:
        return
    if isinstance(message, bytes):
        stream.flush()
        buffer: Any = getattr(stream, "buffer", stream)
        buffer.write(message + b"\n")
        buffer.flush()
        return
    if not colour and not stream.isatty():
        import re

        message = re.sub(_ANSI, "", message)
    stream.write(message + "\n")
    stream.flush()


def run_apply(values: dict[str, str]) -> int | None:
    """Run ``apply`` with the options :func:`apply_arguments` read, as the command line would
    (``patchkeeper.main``: the configuration, warnings on standard error, the result's text on
    standard output, ``patchkeeper: error: ...`` and exit 2 on an input error, 130 on Ctrl-C,
    3 with the traceback in ``crash.log`` on a bug); return the exit code, or ``None``
    (nothing done) when the command line must decide: an unsupported platform, a ``-C``
    that cannot be entered, a path click refuses as seen from there."""
    import gc

    from patchkeeper.system.platforms import unsupported

    if unsupported(sys.platform) is not None:
        return None
    directory = values.get("directory")
    if directory is not None:
        try:
            os.chdir(directory)
        except OSError:
            return None
        for name, directory_type in (("config", False), ("target", True), ("python", False)):
            if name in values and not _path_allowed(values[name], directory_type):
                return None
    # As patchkeeper.main.main: many small objects, all freed at exit.
    gc.set_threshold(100_000, 50, 50)
    from pathlib import Path

    from patchkeeper import progress
    from patchkeeper.errors import PatchkeeperError

    source = None
    try:
        progress.set_warning_sink(lambda m: _echo(f"patchkeeper: warning: {m}", sys.stderr))
        if sys.stderr.isatty():
            from patchkeeper.render.console import progress_bar

            progress.set_sink(lambda message: _echo(message, sys.stderr))
            progress.set_bar_factory(progress_bar)
        from patchkeeper import render
        from patchkeeper.commands import apply as command
        from patchkeeper.config import load_config, require_series
        from patchkeeper.system.probes import interpreter_path
        from patchkeeper.trees.tree import TargetChoice

        path = values.get("config")
        config = load_config(Path(path) if path is not None else None)
        source = config.source
        require_series(config)
        target, python = values.get("target"), values.get("python")
        choice = TargetChoice(
            target=Path(target) if target is not None else None,
            python=interpreter_path(python) if python is not None else None,
        )
        result = command.run(config, choice)
        text, colour = render.terminal_text(result, sys.stdout)
        if text:
            data = render.output_bytes(text, getattr(sys.stdout, "encoding", None))
            _echo(text if data is None else data, sys.stdout, colour)
        return result.exit_code
    except PatchkeeperError as exc:
        from patchkeeper.config import spell_error

        spell_error(exc, source)
        _echo(f"patchkeeper: error: {exc}", sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # as click: a reader that went away (| head) ends it quietly
        return 1
    except KeyboardInterrupt:
        _echo("", sys.stderr)  # click's blank line after the terminal's ^C
        _echo("patchkeeper: interrupted", sys.stderr)
        return 130
    except Exception as exc:  # a bug: keep the traceback, tell the user where
        from patchkeeper.errors import log_bug
        from patchkeeper.system.filenames import encoding_refused
        from patchkeeper.system.refusals import machine_refused

        # as the command line: a file operation the machine refused (a full disk, no
        # permission) or a name the file system cannot encode is the user's, not a bug
        refused = machine_refused(exc) or encoding_refused(exc)
        if refused is not None:
            _echo(f"patchkeeper: error: {refused}", sys.stderr)
            return refused.exit_code
        log = log_bug()
        _echo(
            f"patchkeeper: internal error ({type(exc).__name__}: {exc}); "
            f"the traceback is in {log}; please report it",
            sys.stderr,
        )
        return 3


def _end(code: int) -> None:
    """End the process with ``code`` as soon as standard output and error are flushed,
    without the interpreter's finalization, which frees, one by one, every object of a run
    that is over (after an ``apply`` of 1,000 patches: 50 MiB of small objects, a twentieth
    of its time; git and GNU patch leave that to the kernel too). Nothing of the plain
    ``apply`` registers an exit handler. Output a reader no longer takes (``| head``) is
    dropped, as click drops it; when another flush fails, the process exits the usual way
    instead, so the interpreter reports it as it always does."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError):
            sys.exit(code)
    os._exit(code)


def interrupt_again(unraisable: Any) -> None:
    """``sys.unraisablehook`` of a command: a Ctrl-C whose ``KeyboardInterrupt`` landed in
    code the interpreter runs on the side and whose exceptions it only prints (the weakref
    callback of importlib's module locks while a module loads, a finalizer) would be lost:
    the command ran on to its end, exit 0, after ``Exception ignored in: ...`` and a
    traceback. It is raised again in the main thread instead, where the command's own
    handling ends it as any other Ctrl-C. Every other such exception goes to the
    interpreter's hook, as before."""
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
        import _thread

        _LOST_INTERRUPTS.append(unraisable.exc_type)
        # from another thread: raised here, in the hook, it would be ignored in turn
        _thread.start_new_thread(_thread.interrupt_main, ())
        return
    sys.__unraisablehook__(unraisable)


#: The Ctrl-Cs :func:`interrupt_again` took from the interpreter's hook, in the order they
#: came (a list: the hook runs in whatever thread the interpreter was in).
_LOST_INTERRUPTS: list[type[BaseException]] = []


def _raise_lost_interrupt() -> None:
    """Raise a Ctrl-C :func:`interrupt_again` took while the modules loaded, now that they
    have: the other thread's interrupt is asynchronous, and on a loaded machine it came only
    after a short command had run to its end. SIGINT is ignored from here on, so that the
    other thread's interrupt, if it is still to come, cannot land in the handling of this
    one (``signal``'s handler is what ``interrupt_main`` simulates; an ignored signal it
    leaves alone)."""
    if _LOST_INTERRUPTS:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt


def entry() -> None:
    """The console script: ``--version`` and a kept ``--help`` at once, else the command line
    (:func:`patchkeeper.main.entry`). A Ctrl-C before a command's own handling takes over
    (while the modules load) ends it as one after: ``patchkeeper: interrupted``, exit 130,
    never a traceback; also one that lands where the interpreter would only print it
    (:func:`interrupt_again`)."""
    sys.unraisablehook = interrupt_again
    try:
        _entry()
    except KeyboardInterrupt:
        _echo("", sys.stderr)  # click's blank line after the terminal's ^C
        _echo("patchkeeper: interrupted", sys.stderr)
        _end(130)


def _entry() -> None:
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

        _raise_lost_interrupt()
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
    plain_apply = apply_arguments(argv)
    applied = run_apply(plain_apply) if plain_apply is not None else None
    if applied is not None:
        _end(applied)
    from patchkeeper.main import entry as command_line

    _raise_lost_interrupt()
    command_line()


if __name__ == "__main__":
    entry()
