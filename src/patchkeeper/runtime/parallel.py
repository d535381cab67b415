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

The pool is the project's own (:class:`patchkeeper.runtime.workers.Pool`), made of the
public parts of :mod:`multiprocessing`, with no lock shared with a worker: killing the
workers at any moment leaves nothing for the parent to wait for.

Ctrl-C reaches only the parent, whenever it comes, and ends the command as any Ctrl-C does
(``patchkeeper: interrupted``, exit 130) with no process left behind: the workers ignore
SIGINT; the pool is started with SIGINT blocked, so a Ctrl-C during the start is raised once
the pool exists and stops it; the parent waits for results in short slices
(:data:`~patchkeeper.runtime.workers.WAIT_SECONDS`), as a signal caught just before an
untimed wait is not seen until the wait ends; a pool is stopped with SIGINT blocked, by
killing its workers and reaping them; and the workers are daemonic processes, which
:mod:`multiprocessing` ends when this process exits, should a second Ctrl-C land before a
stop has begun.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from patchkeeper.runtime.workers import Batch, Pool, start_pool

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
#: How many jobs of :func:`map_records` and :func:`start_records` a worker is sent at once
#: (fewer messages; few enough that the jobs left at the end are shared out).
RECORDS_A_TASK = 4
#: Testing hook: at this stage of a pool's life, send SIGINT to the process group, as
#: Ctrl-C in a terminal does: ``start`` (before the workers are forked), ``forked`` (the
#: workers forked, SIGINT still blocked in the parent), ``worker`` (sent by each worker as
#: it starts, before it ignores SIGINT), ``result`` (the parent has the first result, the
#: workers still work), ``stop`` (the pool is being stopped).
INTERRUPT_ENV = "PATCHKEEPER_INTERRUPT_POOL"


def _interrupt_at(stage: str) -> None:
    """Send SIGINT to this process's group if :data:`INTERRUPT_ENV` names ``stage``."""
    if os.environ.get(INTERRUPT_ENV) == stage:
        import signal

        os.killpg(os.getpgid(0), signal.SIGINT)


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
    took it printed its traceback under the parent's "patchkeeper: interrupted"."""
    global _IN_WORKER
    import signal

    from patchkeeper import progress

    _interrupt_at("worker")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by _pool's fork
    _IN_WORKER = True
    progress.set_bar_factory(None)
    progress.set_sink(None)


def _pool(workers: int) -> Pool | None:
    """A pool of ``workers`` forked processes, or ``None`` when the system refuses to
    start them (a process limit, no memory: the work then runs in this process).

    SIGINT is blocked while the workers are forked, so a Ctrl-C that lands before a worker
    has run :func:`_quiet` waits, pending, until that worker ignores it (POSIX discards a
    pending signal once it is ignored; a worker that took it printed its traceback), and
    reaches this process once the pool exists. The dispatcher thread starts with SIGINT
    blocked too, so it goes to the main thread only. A Ctrl-C that came during the start
    stops the new pool and is raised (``KeyboardInterrupt``) when SIGINT is unblocked; one
    that came just before is raised before any process is forked.
    """
    import signal

    _interrupt_at("start")
    unblocked, interrupted = _sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    if interrupted:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        raise KeyboardInterrupt
    pool = None
    try:
        pool = start_pool(workers, _quiet)
        _interrupt_at("forked")
    except OSError:
        pass
    finally:
        _, interrupted = _sigmask(signal.SIG_SETMASK, unblocked)
        if interrupted:
            if pool is not None:
                _stop(pool)
            raise KeyboardInterrupt
    return pool


def _sigmask(how: int, signals: Any) -> tuple[Any, bool]:
    """``signal.pthread_sigmask(how, signals)`` made in any case: the mask before it, and
    whether a Ctrl-C was raised by it (it runs Python's pending signal handlers: a SIGINT
    caught earlier, or pending while blocked, is raised there, after the change)."""
    import signal

    interrupted = False
    while True:
        try:
            before = signal.pthread_sigmask(signal.SIG_BLOCK, ())  # reads the mask only
            break
        except KeyboardInterrupt:
            interrupted = True
    try:
        signal.pthread_sigmask(how, signals)
    except KeyboardInterrupt:
        interrupted = True
    return before, interrupted


def _stop(pool: Pool) -> None:
    """Stop ``pool`` (:meth:`Pool.terminate`) with SIGINT blocked: a Ctrl-C during the
    stop does not cut it short (which left workers running), and is raised
    (``KeyboardInterrupt``) once the workers are reaped. The stop takes milliseconds: the
    workers are killed, not asked to finish."""
    import signal

    unblocked, interrupted = _sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        _interrupt_at("stop")
        pool.terminate()
    finally:
        _, again = _sigmask(signal.SIG_SETMASK, unblocked)
    if interrupted or again:
        raise KeyboardInterrupt


def _each(
    pool: Pool, function: Callable[[Any], Any], jobs: Sequence[Any], chunk: int
) -> Iterator[Any]:
    """``function(job)`` for every job, in order, computed by ``pool``'s workers ``chunk``
    jobs at a time, each chunk waited for in slices of ``WAIT_SECONDS`` (:class:`Batch`): Python
    handles a signal in the main thread and then raises it, but a SIGINT handled just
    before an untimed wait began does not end that wait (it lasted until the next result,
    or for ever); a timed wait ends, and the Ctrl-C is raised then."""
    return _waited(pool.submit(function, _chunks(jobs, chunk)))


def _chunks(jobs: Sequence[Job], size: int) -> list[Sequence[Job]]:
    """``jobs`` cut into chunks of ``size`` (the last one shorter), in order: one task each."""
    return [jobs[start : start + size] for start in range(0, len(jobs), size)]


def _waited(batch: Batch) -> Iterator[Any]:
    """The results of ``batch``'s tasks, in order, each task waited for in slices of
    ``WAIT_SECONDS`` (see :func:`_each`)."""
    for index in range(batch.size):
        results = batch.take(index)
        if index == 0:
            _interrupt_at("result")
        yield from results


#: How many :func:`shared_workers` blocks are open (nested blocks share the outer one's pool).
_SHARING = 0
#: The pool of the open :func:`shared_workers` block, once a :func:`map_records` started it.
_SHARED: Pool | None = None


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
    except BaseException:
        _STARTED.clear()  # an error or a Ctrl-C: the pool stops now, the started work unread
        raise
    finally:
        _SHARING -= 1
        if _SHARING == 0:
            _stop_shared()


def shared_pool_running() -> bool:
    """Whether a :func:`shared_workers` pool runs (a few jobs are then worth sending)."""
    return _SHARED is not None


def _stop_shared() -> None:
    """Stop the shared pool, if one runs (as leaving ``with pool:`` does), once the work
    :func:`start_records` gave it has come back (a Ctrl-C meanwhile stops it at once)."""
    global _SHARED
    try:
        while _STARTED:
            _STARTED[0].wait()
    finally:
        _STARTED.clear()
        pool, _SHARED = _SHARED, None
        if pool is not None:
            _stop(pool)


def _shared_pool(workers: int) -> Pool | None:
    """The open :func:`shared_workers` block's pool (started now if none runs yet), or
    ``None`` when the system refuses a process."""
    global _SHARED
    if _SHARED is None:
        _SHARED = _pool(workers)
    return _SHARED


def _encoded(work: tuple[Callable[[Any], Any], Any]) -> bytes:
    function, job = work
    return marshal.dumps(function(job))


def _largest_first(
    function: Callable[[Job], Any], jobs: Sequence[Job], sizes: Sequence[int] | None
) -> tuple[list[int], list[tuple[Callable[[Job], Any], Job]]]:
    """The indexes of ``jobs`` largest first by ``sizes`` (as given without them), and
    the work of each, ``(function, job)`` in that order: the largest files are handed out
    first, so that no worker is left with a large one at the end."""
    order = list(range(len(jobs)))
    if sizes is not None:
        order.sort(key=lambda index: -sizes[index])
    return order, [(function, jobs[index]) for index in order]


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
    results: dict[int, bytes] = {}
    pool = None
    try:
        if workers:
            pool = _shared_pool(workers) if shared else _pool(workers)
        if pool is not None:
            order, work = _largest_first(function, jobs, sizes)
            records = _each(pool, _encoded, work, RECORDS_A_TASK)
            for index, data in zip(order, records, strict=True):
                results[index] = data
    finally:
        if pool is not None and not shared:
            _stop(pool)
    if pool is None:
        for job in jobs:
            yield job, marshal.dumps(function(job))
        return
    for index, job in enumerate(jobs):
        yield job, results[index]


class Started:
    """Work :func:`start_records` handed to the shared pool: :meth:`results` gives ``(job,
    marshal.dumps(function(job)))`` for every job, in the order of the jobs, once each has
    come back (waiting for them if need be)."""

    def __init__(self, jobs: Sequence[Any], order: list[int], batch: Batch) -> None:
        self.jobs = jobs
        self._order = order
        self._batch: Batch | None = batch
        self._data: dict[int, bytes] | None = None

    def wait(self) -> None:
        """Wait until every job has come back (in slices of ``WAIT_SECONDS``)."""
        if self._data is None:
            assert self._batch is not None, "dropped once its answers are taken"
            data = dict(zip(self._order, _waited(self._batch), strict=True))
            self._data, self._batch = data, None
            if self in _STARTED:
                _STARTED.remove(self)

    def results(self) -> Iterator[tuple[Any, bytes]]:
        """``(job, record bytes)`` for every job, in the order of the jobs."""
        self.wait()
        assert self._data is not None, "filled by wait()"
        for index, job in enumerate(self.jobs):
            yield job, self._data[index]


#: The :class:`Started` work not waited for yet (waited for before the shared pool stops).
_STARTED: list[Started] = []


def start_records(
    function: Callable[[Job], Any],
    jobs: Sequence[Job],
    sizes: Sequence[int] | None = None,
) -> Started | None:
    """:func:`map_records`' work handed to the :func:`shared_workers` pool now, its results
    taken later (:meth:`Started.results`): the workers compute them while this process does
    other work. ``None`` (nothing started: the caller computes what it needs when it needs
    it) outside a :func:`shared_workers` block and where :func:`map_records` would not use
    a pool. The pool stops only once the started work has come back."""
    if _SHARING == 0:
        return None
    minimum = MIN_FILES_SHARED if _SHARED is not None else None
    workers = workers_for(len(jobs), minimum)
    pool = _shared_pool(workers) if workers else None
    if pool is None:
        return None
    order, work = _largest_first(function, jobs, sizes)
    started = Started(jobs, order, pool.submit(_encoded, _chunks(work, RECORDS_A_TASK)))
    _STARTED.append(started)
    return started


#: The function and items of the running :func:`map_forked` (read by the forked workers).
_TASK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _run_task(index: int) -> Any:
    function, items = _TASK  # type: ignore[misc]  # set before the workers were forked
    return function(items[index])


def map_forked(
    function: Callable[[Job], Any],
    items: Sequence[Job],
    minimum: int | None = None,
    groups: Sequence[object] | None = None,
) -> Iterator[Any]:
    """``function(item)`` for every item, in order, computed by forked workers that share
    this process's state as it was at the call (parsed trees, remembered lookups): for
    work that reads much state and returns a small picklable result (an entry's drift or
    decision). ``function`` may be a closure: only the items' indexes are sent. What the
    workers remember on the way is lost with them; results must not depend on it. Runs
    in this process when :func:`workers_for` says so (fewer than ``minimum`` items,
    default :data:`MIN_ITEMS`), and inside another :func:`map_forked`.

    ``groups``: a key per item (same length as ``items``); the items of one key go to one
    worker together, so that what it remembers on the way (a module it parsed for one
    item) serves the others, which another worker would have parsed again. The results
    and their order are the same; without ``groups`` the items go two at a time."""
    global _TASK
    workers = workers_for(len(items), MIN_ITEMS if minimum is None else minimum)
    if workers == 0 or _TASK is not None:
        for item in items:
            yield function(item)
        return
    _stop_shared()  # no fork while its threads run; a later map_records starts another
    _TASK = (function, items)  # before the fork: the workers read it
    pool = None
    try:
        pool = _pool(workers)
        if pool is not None:
            if groups is None:
                yield from _each(pool, _run_task, range(len(items)), 2)
            else:
                yield from _grouped(pool, groups)
    finally:
        _TASK = None
        if pool is not None:
            _stop(pool)
    if pool is None:
        for item in items:
            yield function(item)


def _grouped(pool: Pool, groups: Sequence[object]) -> Iterator[Any]:
    """:func:`map_forked`'s results in the order of its items, the items of each key of
    ``groups`` computed together by one of ``pool``'s workers (the keys in the order of
    their first item, so that the results come back about as early as in item order)."""
    members: dict[object, list[int]] = {}
    for index, key in enumerate(groups):
        members.setdefault(key, []).append(index)
    tasks = list(members.values())
    returned = _waited(pool.submit(_run_task, tasks))
    done: dict[int, Any] = {}
    following = 0
    for index, result in zip((i for task in tasks for i in task), returned, strict=True):
        done[index] = result
        while following in done:
            yield done.pop(following)
            following += 1
