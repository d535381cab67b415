"""A Ctrl-C while patchkeeper's modules load (the first fraction of a second of every
command: ``timeout -s INT 0.2 patchkeeper audit ...``) ends the command as one later does:
``patchkeeper: interrupted`` and exit 130, never a Python traceback."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from helpers import REPO

#: The installed command (``[tool.setuptools] script-files``).
LAUNCHER = REPO / "scripts" / "patchkeeper"

#: Starts the console script's entry with the command line ``lint``, the SIGINT landing
#: while ``patchkeeper.main`` is imported (a finder that raises it, as the signal handler
#: would, at that import).
INTERRUPTED_IMPORT = """
import sys

class SigintAtImport:
    def find_spec(self, name, path=None, target=None):
        if name == "patchkeeper.main":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, SigintAtImport())
sys.argv = ["patchkeeper", "lint"]
from patchkeeper.__main__ import entry
entry()
"""


def test_a_ctrl_c_while_the_modules_load_is_an_interruption(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORT], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "\npatchkeeper: interrupted\n")


#: As :data:`INTERRUPTED_IMPORT`, the SIGINT landing in a weakref callback run during that
#: import (importlib drops a module's lock through one): the interpreter only prints an
#: exception raised there ("Exception ignored in: ...") and goes on.
INTERRUPTED_CALLBACK = """
import sys
import weakref

class Lock:
    pass

def dropped(ref):
    raise KeyboardInterrupt

class SigintInACallback:
    def find_spec(self, name, path=None, target=None):
        if name == "patchkeeper.main":
            lock = Lock()
            ref = weakref.ref(lock, dropped)
            del lock
        return None

sys.meta_path.insert(0, SigintInACallback())
sys.argv = ["patchkeeper", "lint"]
from patchkeeper.__main__ import entry
entry()
"""


def test_a_ctrl_c_the_interpreter_would_only_print_is_an_interruption(tmp_path) -> None:
    """The command does not run on to its end (here ``lint``'s error, exit 2) after a
    traceback: the Ctrl-C is raised again where the command handles it."""
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_CALLBACK], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "\npatchkeeper: interrupted\n")


#: As :data:`INTERRUPTED_CALLBACK`, on a machine so loaded that the thread which interrupts
#: the main one is not run before the command would end: its start does nothing here.
INTERRUPT_THREAD_LATE = INTERRUPTED_CALLBACK.replace(
    "sys.meta_path.insert(",
    "import _thread\n_thread.start_new_thread = lambda *args: None\nsys.meta_path.insert(",
)


def test_a_ctrl_c_taken_from_the_hook_does_not_wait_for_a_thread(tmp_path) -> None:
    """The Ctrl-C taken while the modules load is raised once they have loaded, before the
    command runs, however late the other thread would come."""
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_THREAD_LATE], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "\npatchkeeper: interrupted\n")


#: Runs the installed command's script (``lint``) with a finder that, when ``{name}`` is first
#: looked for, says ``waiting`` on standard output and sleeps until the test's SIGINT comes:
#: a real signal, at a known point of the start.
WAIT_AT_IMPORT = """
import runpy
import sys
import time

class WaitAtImport:
    def find_spec(self, name, path=None, target=None):
        if name == {name!r}:
            sys.meta_path.remove(self)
            sys.stdout.write("waiting\\n")
            sys.stdout.flush()
            time.sleep(600)
        return None

sys.meta_path.insert(0, WaitAtImport())
sys.argv = ["patchkeeper", "lint"]
runpy.run_path({launcher!r}, run_name="__main__")
"""


@pytest.mark.parametrize(
    "name",
    [
        "patchkeeper",  # the script's first import: before any of patchkeeper's code runs
        "patchkeeper.__main__",
        "patchkeeper.main",  # entry() handles it from here on
        "click",
    ],
)
def test_a_sigint_while_the_command_starts_is_an_interruption(tmp_path, name: str) -> None:
    """The wrapper an installer writes for an entry point had no handler around its imports:
    a Ctrl-C while ``patchkeeper`` or ``patchkeeper.__main__`` loaded printed a traceback."""
    code = WAIT_AT_IMPORT.format(name=name, launcher=str(LAUNCHER))
    with subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "waiting\n"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=300)
    assert (process.returncode, out, err) == (130, "", "\npatchkeeper: interrupted\n")


def test_the_script_is_the_command_line() -> None:
    """Run as the installed command, the script answers as ``python -m patchkeeper``."""
    done = subprocess.run(
        [sys.executable, str(LAUNCHER), "--version"], capture_output=True, text=True
    )
    from patchkeeper import __version__

    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"patchkeeper, version {__version__}\n",
        "",
    )
