"""Many files parsed on the machine's cores: each worker returns compact records, never ASTs.

A cold inventory of a large plugin (vllm-ascend: 700 files, 9.7 MB of Python) spends most of
its time in :func:`ast.parse` and the scan of each tree, one file after another. The files
are independent, so :func:`map_records` hands them to a pool of worker processes (one per
usable core, at most :data:`MAX_WORKERS`); a worker parses and scans a file and sends back
its record as :mod:`marshal` bytes (builtin values only: pickling an AST would cost more
than parsing it again). The parent stores the bytes as they came in the tree's cache
(:meth:`patchkeeper.runtime.cache.SummaryCache.put_encoded`), so the records are the ones a
warm run reads, and the results are the same as one process's.

Workers are forked (the parent's modules are already imported, nothing to start); where
``fork`` is not available (macOS's default is ``spawn``), with a single usable core, or for
fewer than :data:`MIN_FILES` files, the work is done in the calling process.
"""

from __future__ import annotations

import marshal
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

Job = TypeVar("Job")

#: Below this many files a pool costs more than it saves (forking, sending the records).
MIN_FILES = 48
#: The project's machine has 2 cores; more workers than cores only add switching.
MAX_WORKERS = 4


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers_for(count: int) -> int:
    """How many worker processes to use for ``count`` files: 0 (run in this process) for
    fewer than :data:`MIN_FILES` files, on one core, or without ``fork`` on Linux."""
    if count < MIN_FILES or not sys.platform.startswith("linux"):
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    cores = usable_cores()
    return min(cores, MAX_WORKERS) if cores > 1 else 0


def _encoded(work: tuple[Callable[[Any], Any], Any]) -> bytes:
    function, job = work
    return marshal.dumps(function(job))


def map_records(
    function: Callable[[Job], Any], jobs: Sequence[Job], sizes: Sequence[int] | None = None
) -> Iterator[tuple[Job, bytes]]:
    """``(job, marshal.dumps(function(job)))`` for every job, in the order of ``jobs``.

    Args:
        function: a module-level function (it is sent to the workers by reference) taking
            one job and returning builtin values only (a record).
        jobs: picklable descriptions of the work (paths and names, not file contents).
        sizes: each job's size (bytes of its file), used to hand out the largest first so
            that no worker is left with a large file at the end; same length as ``jobs``.

    Errors raised by ``function`` propagate (it should record them in its result).
    """
    workers = workers_for(len(jobs))
    if workers == 0:
        for job in jobs:
            yield job, marshal.dumps(function(job))
        return
    order = list(range(len(jobs)))
    if sizes is not None:
        order.sort(key=lambda index: -sizes[index])
    context = multiprocessing.get_context("fork")
    results: dict[int, bytes] = {}
    with context.Pool(workers) as pool:
        work = [(function, jobs[index]) for index in order]
        for index, data in zip(order, pool.imap(_encoded, work, chunksize=4), strict=True):
            results[index] = data
    for index, job in enumerate(jobs):
        yield job, results[index]
