"""A Ctrl-C while patchkeeper's modules load (the first fraction of a second of every
command: ``timeout -s INT 0.2 patchkeeper audit ...``) ends the command as one later does:
``patchkeeper: interrupted`` and exit 130, never a Python traceback."""

from __future__ import annotations

import subprocess
import sys

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
