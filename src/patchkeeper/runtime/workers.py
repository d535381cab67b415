"""The worker processes of :mod:`patchkeeper.runtime.parallel` and the pool that feeds them.

The pool is made of the public parts of :mod:`multiprocessing` (``Process``, ``Pipe``,
``Lock``, ``connection.wait``): the workers, forked from this process, take their tasks
from one pipe as each is free and answer each on a pipe of its own; in this process a
feeder thread writes the tasks and a dispatcher thread files the answers. No lock is shared
with this process (the workers' lock for reading a task is theirs alone), so killing the
workers at any moment, as :meth:`Pool.terminate` does, leaves nothing this process would
wait for: ``multiprocessing.Pool``'s shared queues did (its ``terminate()`` could wait for
ever for a lock a killed worker held), and stopping it safely took its private parts.

The signals (SIGINT blocked while a pool starts and stops, the test hook) are
:mod:`patchkeeper.runtime.parallel`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

#: How long the parent waits for a result before it looks for a Ctrl-C again (seconds): a
#: SIGINT handled just before the wait began is raised at the latest this much later.
WAIT_SECONDS = 0.1
#: How long the stop waits for each killed worker to be reaped, and for the dispatcher
#: thread to end (seconds; both take milliseconds).
STOP_SECONDS = 2.0


def _serve(
    initializer: Callable[[], None],
    tasks: Connection,
    taking: Any,
    answers: Connection,
    parent_ends: list[Connection],
) -> None:
    """A worker's life: take the next task ``(key, function, jobs)`` from ``tasks`` (the
    pipe every worker reads, one at a time: ``taking`` is their lock) and answer it on
    ``answers`` (its own pipe to the parent) with ``(key, True, [function(job) for job in
    jobs])``, or ``(key, False, error)`` when ``function`` raised ``error``, until the
    parent closes its end (or kills the worker). ``initializer()`` runs first.

    ``parent_ends``: the parent's ends of the pipes, closed here, so that the end of the
    parent ends this worker's wait. The worker leaves through ``os._exit``: no exit
    handler runs, no traceback is printed, and no output the parent had buffered when it
    forked is written a second time. Exit code 0 when the parent closed its end, 1 after
    any other error (the parent reports it)."""
    code = 1
    try:
        initializer()
        for end in parent_ends:
            end.close()
        while True:
            with taking:
                key, function, jobs = tasks.recv()
            try:
                reply: tuple[Any, bool, Any] = (key, True, [function(job) for job in jobs])
            except Exception as error:
                reply = (key, False, error)
            try:
                answers.send(reply)  # pickled whole before a byte is written
            except OSError:
                raise
            except Exception as error:  # a result or an error that cannot be pickled
                answers.send((key, False, RuntimeError(f"a worker's answer: {error!r}")))
    except (EOFError, OSError):
        code = 0
    finally:
        os._exit(code)


class Pool:
    """Worker processes forked from this one (:func:`_serve`) that take their tasks from
    one pipe, in the order :meth:`submit` was given them, each as it is free (so a long
    task delays no other), and answer each on a pipe of its own; and two threads of this
    process: the *feeder* writes the tasks into the pipe, the *dispatcher* files the
    answers in their batches. A feeder blocked on a full pipe never keeps an answer
    unread (a worker blocked on its answer would never read the next task).

    Only public parts of :mod:`multiprocessing` are used, and no lock is shared with this
    process: the lock the workers take to read a task is theirs alone, so a worker killed
    at any moment leaves nothing this process would wait for."""

    def __init__(self, processes: list[Any], tasks: Connection, answers: list[Connection]) -> None:
        import itertools
        import queue
        import threading

        self._processes = processes
        self._tasks = tasks
        self._answers = answers
        self._keys = itertools.count()
        #: Each task fed and not answered yet, by its key: its batch and index in it.
        self._sent: dict[int, tuple[Batch, int]] = {}
        self._feed: queue.SimpleQueue[tuple[int, Callable[[Any], Any], Sequence[Any]] | None]
        self._feed = queue.SimpleQueue()
        #: Why no more answers will come: a worker ended, or the pool was stopped.
        self.failure: BaseException | None = None
        self._stopping = False
        self._threads = [
            threading.Thread(target=target, name=f"patchkeeper-{name}", daemon=True)
            for name, target in (("feeder", self._write_tasks), ("dispatcher", self._dispatch))
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, function: Callable[[Any], Any], chunks: Sequence[Sequence[Any]]) -> Batch:
        """Hand the workers ``function(job)`` for every job of every chunk, a chunk a task,
        after the tasks handed earlier; the answers come in the returned batch."""
        batch = Batch(self, len(chunks))
        for index, chunk in enumerate(chunks):
            key = next(self._keys)
            self._sent[key] = batch, index
            self._feed.put((key, function, chunk))
        return batch

    def _write_tasks(self) -> None:
        """The feeder thread: write each task fed into the workers' pipe, until ``None``
        (the stop); an error while the pool stops (no worker left to read) ends it
        silently, another is the pool's :attr:`failure`."""
        try:
            while (task := self._feed.get()) is not None:
                self._tasks.send(task)
        except BaseException as error:
            if not self._stopping:
                self.failure = error

    def _dispatch(self) -> None:
        """The dispatcher thread: file the workers' answers in their batches, and make a
        worker's end that is not the pool's stop its :attr:`failure`. An error while the
        pool stops (a pipe closed by a killed worker) ends it silently."""
        from multiprocessing.connection import wait

        workers: dict[object, int] = {
            answers: number for number, answers in enumerate(self._answers)
        }
        ends: dict[object, Any] = {process.sentinel: process for process in self._processes}
        watched: list[Any] = [*self._answers, *ends]
        try:
            while not self._stopping:
                for ready in wait(watched):
                    if self._stopping:
                        return
                    if ready in ends:
                        raise _ended(ends[ready])
                    number = workers[ready]
                    try:
                        answer: tuple[int, bool, Any] = self._answers[number].recv()
                    except EOFError:  # its end of the pipe closed: the worker ended
                        raise _ended(self._processes[number]) from None
                    batch, index = self._sent.pop(answer[0])
                    batch.answered.put((index, answer[1:]))
        except BaseException as error:
            if not self._stopping:
                self.failure = error

    def terminate(self) -> None:
        """Kill the workers and reap them (see :func:`_kill`), end the two threads (their
        waits end with the workers; at most :data:`STOP_SECONDS` each), and close the
        pipes once both have ended. A batch not answered yet then raises an error rather
        than waiting for ever."""
        if self._stopping:
            return
        self._stopping = True
        kill(self._processes)
        self._feed.put(None)
        for thread in self._threads:
            thread.join(STOP_SECONDS)
        if not any(thread.is_alive() for thread in self._threads):  # they use the pipes
            for connection in (self._tasks, *self._answers):
                connection.close()
        if self.failure is None:
            self.failure = RuntimeError("the worker pool stopped before the work came back")


def _ended(process: Any) -> BaseException:
    """The error of a worker that ended while the pool ran (killed for memory, say)."""
    from patchkeeper.errors import PatchkeeperError

    process.join(STOP_SECONDS)  # its end seen, its exit code once it is reaped
    return PatchkeeperError(
        f"a worker process ended unexpectedly (exit code {process.exitcode})",
        hint="run the command again; `taskset -c 0 patchkeeper ...` does the work in one process",
    )


class Batch:
    """The answers to the tasks of one call handed to a :class:`Pool` (``size`` tasks,
    each ``function`` on a chunk of jobs): put in :attr:`answered` by the dispatcher as
    they come, taken in task order by :meth:`take` in the main thread.

    The answers pass through a ``queue.SimpleQueue``, whose wait a Ctrl-C interrupts
    cleanly (no lock of this module is held or taken again when ``KeyboardInterrupt`` is
    raised there)."""

    def __init__(self, pool: Pool, size: int) -> None:
        import queue

        self.pool = pool
        self.size = size
        self.answered: queue.SimpleQueue[tuple[int, tuple[bool, Any]]] = queue.SimpleQueue()
        self._early: dict[int, tuple[bool, Any]] = {}  # answers come in before their turn

    def take(self, index: int) -> list[Any]:
        """The results of task ``index``, waited for in slices of :data:`WAIT_SECONDS`
        (a timed wait ends, and a Ctrl-C handled just before it began is raised then); the
        error its function raised, or :attr:`Pool.failure`, is raised instead."""
        import queue

        while index not in self._early:
            try:
                number, answer = self.answered.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                if self.pool.failure is not None:
                    raise self.pool.failure from None
                continue
            self._early[number] = answer
        done, value = self._early.pop(index)
        if not done:
            raise value
        return value  # type: ignore[no-any-return]


def start_pool(workers: int, initializer: Callable[[], None]) -> Pool:
    """A :class:`Pool` of ``workers`` forked workers, each running ``initializer()`` as it
    starts; ``OSError`` when the system refuses one (the ones started are killed)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    processes: list[Any] = []
    tasks, to_workers = context.Pipe(duplex=False)
    answers: list[Connection] = []
    try:
        taking = context.Lock()
        for _ in range(workers):
            mine, theirs = context.Pipe(duplex=False)
            answers.append(mine)
            try:
                process = context.Process(
                    target=_serve,
                    args=(initializer, tasks, taking, theirs, [to_workers, *answers]),
                    daemon=True,
                )
                process.start()
            finally:
                theirs.close()
            processes.append(process)
        tasks.close()  # the workers' end
        return Pool(processes, to_workers, answers)
    except BaseException:
        kill(processes)
        for connection in (tasks, to_workers, *answers):
            connection.close()
        raise


def kill(workers: list[Any]) -> None:
    """Kill (SIGKILL) the ``workers`` (``multiprocessing.Process``) still running and
    reap them, waiting at most :data:`STOP_SECONDS` for each."""
    for process in workers:
        if process.exitcode is None:
            process.kill()
    for process in workers:
        process.join(STOP_SECONDS)
