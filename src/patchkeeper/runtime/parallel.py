"""Many files parsed on the machine's cores: each worker returns compact records, never ASTs.

A cold inventory of a large plugin (vllm-ascend: 700 files, 9.7 MB of Python) spends most of
its time in :func:`ast.parse` and the scan of each tree, one file after another. The files
are independent, so :func:`map_records` hands them to a pool of worker processes (one per
usable core, at most :data:`MAX_WORKERS`); a worker parses and scans a file and sends back
its record as :mod:`marshal` bytes (builtin values only: pickling an AST would cost more
than parsing it again). The parent stores the bytes as they came in the tree's cache
(:meth:`patchkeeper.runtime.store.cache.SummaryCache.put_encoded`), so the records are the ones a
warm run reads, and the results are the same as one process's.

The audit's per-entry work (comparing each entry's spans, judging it) reads the parsed
trees rather than files: :func:`map_forked` runs it in forked workers that inherit those
trees, and sends back only each entry's small result.

Inside :func:`shared_workers` (a cold audit calls :func:`map_records` six times: the two
trees' modules, their name indexes, the patch files) one pool serves every call: starting a
pool (forking its workers from a parent holding the parsed trees) and stopping it took
0.1-0.15 s of wall time each on the project's machine.

Workers are forked (the parent's modules are already imported, nothing to start); where
``fork`` is not available (macOS's default is ``spawn``), with a single usable core, for
fewer than :data:`MIN_FILES` files, inside a worker (no pool of a pool) or when the system
refuses a process, the work is done in the calling process: the results are the same.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

Job = TypeVar("Job")

#: Below this many files a pool costs more than it saves (forking, sending the records).
MIN_FILES = 48
#: Below this many items (entries to judge) :func:`map_forked` runs in this process.
MIN_ITEMS = 24
#: The project's machine has 2 cores; more workers than cores only add switching.
MAX_WORKERS = 4
#: The fewest files :func:`map_records` sends to a :func:`shared_workers` pool that runs
#: already (nothing to start: sending a path and getting a record back costs less than
#: parsing the file here).
MIN_FILES_SHARED = 2


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers_for(count: int, minimum: int | None = None) -> int:
    """How many worker processes to use for ``count`` items: 0 (run in this process) for
    fewer than ``minimum`` (default :data:`MIN_FILES`), on one core, or without ``fork``
    on Linux."""
    if _IN_WORKER or count < (MIN_FILES if minimum is None else minimum):
        return 0
    if not sys.platform.startswith("linux"):
        return 0
    import multiprocessing  # here: a warm run, which parses nothing, does not import it

    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    cores = usable_cores()
    return min(cores, MAX_WORKERS) if cores > 1 else 0


#: True in a worker process: a worker starts no pool of its own (its work runs in it).
_IN_WORKER = False


def _quiet() -> None:
    """A worker's start: no progress bar or note of its own (the parent reports progress
    as the results come in; two processes drawing on one terminal would garble it), no
    pool of its own, and Ctrl-C left to the parent (which stops the pool): a worker that
    took it printed "Process ForkPoolWorker-1:" and its traceback under the parent's
    "patchkeeper: interrupted"."""
    global _IN_WORKER
    import signal

    from patchkeeper import progress

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by _pool's fork
    _IN_WORKER = True
    progress.set_bar_factory(None)
    progress.set_sink(None)


def _pool(workers: int) -> Any | None:
    """A pool of ``workers`` forked processes, or ``None`` when the system refuses to
    start them (a process limit, no memory: the work then runs in this process).

    SIGINT is blocked while the workers are forked, so a Ctrl-C that lands before a worker
    has run :func:`_quiet` waits, pending, until that worker ignores it (POSIX discards a
    pending signal once it is ignored), and reaches this process once the pool exists. A
    worker that took it in that window died holding the task queue's lock, and the parent's
    ``Pool.terminate()`` then waited for that lock for ever; the pool's own threads start
    with SIGINT blocked too, so Python delivers it to the main thread only.
    """
    import multiprocessing
    import signal

    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return multiprocessing.get_context("fork").Pool(workers, initializer=_quiet)
    except OSError:
        return None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


#: How many :func:`shared_workers` blocks are open (nested blocks share the outer one's pool).
_SHARING = 0
#: The pool of the open :func:`shared_workers` block, once a :func:`map_records` started it.
_SHARED: Any | None = None


@contextlib.contextmanager
def shared_workers() -> Iterator[None]:
    """Inside the block, every :func:`map_records` call uses one pool, started by the first
    call that needs one (a warm run, which parses nothing, starts none) and stopped at the
    end of the block, or before :func:`map_forked` forks its own workers (they must see the
    state of that moment; and no process is forked while a pool's threads run). The results
    are the same: a :func:`map_records` worker reads only its job (paths and names), never
    the parent's state, so a worker forked earlier computes the same record."""
    global _SHARING
    _SHARING += 1
    try:
        yield
    finally:
        _SHARING -= 1
        if _SHARING == 0:
            _stop_shared()


def shared_pool_running() -> bool:
    """Whether a :func:`shared_workers` pool runs (a few jobs are then worth sending)."""
    return _SHARED is not None


def _stop_shared() -> None:
    """Stop the shared pool, if one runs (as leaving ``with pool:`` does)."""
    global _SHARED
    pool, _SHARED = _SHARED, None
    if pool is not None:
        pool.terminate()


def _shared_pool(workers: int) -> Any | None:
    """The open :func:`shared_workers` block's pool (started now if none runs yet), or
    ``None`` when the system refuses a process."""
    global _SHARED
    if _SHARED is None:
        _SHARED = _pool(workers)
    return _SHARED


def _encoded(work: tuple[Callable[[Any], Any], Any]) -> bytes:
    function, job = work
    return marshal.dumps(function(job))


def map_records(
    function: Callable[[Job], Any],
    jobs: Sequence[Job],
    sizes: Sequence[int] | None = None,
    minimum: int | None = None,
) -> Iterator[tuple[Job, bytes]]:
    """``(job, marshal.dumps(function(job)))`` for every job, in the order of ``jobs``.

    Args:
        function: a module-level function (it is sent to the workers by reference) taking
            one job and returning builtin values only (a record).
        jobs: picklable descriptions of the work (paths and names, not file contents).
        sizes: each job's size (bytes of its file), used to hand out the largest first so
            that no worker is left with a large file at the end; same length as ``jobs``.
        minimum: the fewest jobs worth a pool (default :data:`MIN_FILES`; a job that is
            a chunk of many files may ask for fewer; at most :data:`MIN_FILES_SHARED`
            while a :func:`shared_workers` pool runs).

    Errors raised by ``function`` propagate (it should record them in its result).
    Inside :func:`shared_workers` the block's pool does the work (``function`` must then
    depend on its job alone, as it must anyway: a worker is a copy of the parent).
    """
    if _SHARED is not None:
        minimum = min(MIN_FILES if minimum is None else minimum, MIN_FILES_SHARED)
    workers = workers_for(len(jobs), minimum)
    shared = _SHARING > 0
    if workers == 0:
        pool = None
    else:
        pool = _shared_pool(workers) if shared else _pool(workers)
    if pool is None:
        for job in jobs:
            yield job, marshal.dumps(function(job))
        return
    order = list(range(len(jobs)))
    if sizes is not None:
        order.sort(key=lambda index: -sizes[index])
    results: dict[int, bytes] = {}
    work = [(function, jobs[index]) for index in order]
    with contextlib.nullcontext() if shared else pool:
        for index, data in zip(order, pool.imap(_encoded, work, chunksize=4), strict=True):
            results[index] = data
    for index, job in enumerate(jobs):
        yield job, results[index]


#: The function and items of the running :func:`map_forked` (read by the forked workers).
_TASK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _run_task(index: int) -> Any:
    function, items = _TASK  # type: ignore[misc]  # set before the workers were forked
    return function(items[index])


def map_forked(
    function: Callable[[Job], Any], items: Sequence[Job], minimum: int | None = None
) -> Iterator[Any]:
    """``function(item)`` for every item, in order, computed by forked workers that share
    this process's state as it was at the call (parsed trees, remembered lookups): for
    work that reads much state and returns a small picklable result (an entry's drift or
    decision). ``function`` may be a closure: only the items' indexes are sent. What the
    workers remember on the way is lost with them; results must not depend on it. Runs
    in this process when :func:`workers_for` says so (fewer than ``minimum`` items,
    default :data:`MIN_ITEMS`), and inside another :func:`map_forked`."""
    global _TASK
    workers = workers_for(len(items), MIN_ITEMS if minimum is None else minimum)
    if workers == 0 or _TASK is not None:
        for item in items:
            yield function(item)
        return
    _stop_shared()  # no fork while its threads run; a later map_records starts another
    _TASK = (function, items)  # before the fork: the workers read it
    pool = _pool(workers)
    if pool is None:
        _TASK = None
        for item in items:
            yield function(item)
        return
    try:
        with pool:
            yield from pool.imap(_run_task, range(len(items)), chunksize=2)
    finally:
        _TASK = None
