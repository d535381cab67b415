"""The worker pools of the runtime commands: same results in order, no pool inside a worker,
the calling process when the system refuses a process."""

from __future__ import annotations

import marshal
import os

import pytest

from patchkeeper.errors import PatchkeeperError
from patchkeeper.runtime import parallel


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)


def square_and_pid(job: int) -> tuple[int, int]:
    return job * job, os.getpid()


def test_records_come_back_in_job_order_from_workers(two_cores) -> None:
    jobs = list(range(9))
    sizes = [1, 9, 2, 8, 3, 7, 4, 6, 5]  # handed out largest first, given back in order
    found = [
        (job, marshal.loads(data))
        for job, data in parallel.map_records(square_and_pid, jobs, sizes)
    ]
    assert [(job, result[0]) for job, result in found] == [(j, j * j) for j in jobs]
    assert os.getpid() not in {result[1] for _job, result in found}


def test_a_worker_runs_nested_work_itself(two_cores) -> None:
    """map_records called inside map_forked's worker runs in that worker (a daemonic pool
    worker may not start processes)."""

    def nested(item: int) -> tuple[int, set[int]]:
        pids = {
            marshal.loads(data)[1] for _job, data in parallel.map_records(square_and_pid, [1, 2, 3])
        }
        return os.getpid(), pids

    results = list(parallel.map_forked(nested, [10, 20, 30]))
    assert all(pids == {pid} for pid, pids in results)
    assert os.getpid() not in {pid for pid, _pids in results}


def test_grouped_items_run_in_one_worker_and_come_back_in_item_order(two_cores) -> None:
    items = [1, 2, 3, 4, 5, 6, 7, 8]
    groups = ["a", "b", "a", "c", "b", "a", "c", "d"]
    results = list(parallel.map_forked(square_and_pid, items, groups=groups))
    assert [square for square, _pid in results] == [1, 4, 9, 16, 25, 36, 49, 64]
    pids = {key: {pid for (_s, pid), k in zip(results, groups) if k == key} for key in groups}
    assert all(len(found) == 1 for found in pids.values())
    assert os.getpid() not in set().union(*pids.values())
    assert parallel._TASK is None


def test_a_refused_process_leaves_the_work_to_this_process(two_cores, monkeypatch) -> None:
    monkeypatch.setattr(parallel, "_pool", lambda workers: None)
    assert [r[1] for r in parallel.map_forked(square_and_pid, [1, 2])] == [os.getpid()] * 2
    found = [marshal.loads(data) for _job, data in parallel.map_records(square_and_pid, [3])]
    assert found == [(9, os.getpid())]
    assert parallel._TASK is None


def test_few_items_or_one_core_run_here(monkeypatch) -> None:
    assert parallel.workers_for(parallel.MIN_FILES - 1) == 0
    monkeypatch.setattr(parallel, "usable_cores", lambda: 1)
    assert parallel.workers_for(10_000) == 0
    monkeypatch.setattr(parallel, "usable_cores", lambda: 8)
    assert parallel.workers_for(10_000) == parallel.MAX_WORKERS


def test_one_pool_serves_every_call_inside_shared_workers(two_cores, monkeypatch) -> None:
    started = []
    real_pool = parallel._pool

    def counted(workers: int):
        started.append(workers)
        return real_pool(workers)

    monkeypatch.setattr(parallel, "_pool", counted)
    with parallel.shared_workers():
        with parallel.shared_workers():  # nested: the outer block's pool
            first = [marshal.loads(d) for _j, d in parallel.map_records(square_and_pid, [1, 2])]
        second = [marshal.loads(d) for _j, d in parallel.map_records(square_and_pid, [3, 4, 5])]
        assert started == [2]
        assert parallel._SHARED is not None
    assert parallel._SHARED is None  # stopped at the end of the block
    assert [r[0] for r in first + second] == [1, 4, 9, 16, 25]
    workers = {r[1] for r in first + second}
    assert os.getpid() not in workers
    assert len(workers) <= 2


def test_map_forked_stops_the_shared_pool_and_a_later_call_starts_another(
    two_cores, monkeypatch
) -> None:
    started = []
    real_pool = parallel._pool

    def counted(workers: int):
        started.append(workers)
        return real_pool(workers)

    monkeypatch.setattr(parallel, "_pool", counted)
    with parallel.shared_workers():
        before = {marshal.loads(d)[1] for _j, d in parallel.map_records(square_and_pid, [1, 2])}
        forked = [r[0] for r in parallel.map_forked(square_and_pid, [6, 7])]
        assert parallel._SHARED is None  # stopped before map_forked forked its workers
        after = {marshal.loads(d)[1] for _j, d in parallel.map_records(square_and_pid, [3, 4])}
    assert forked == [36, 49]
    assert started == [2, 2, 2]
    assert before.isdisjoint(after)  # the first pool's workers are gone
    assert parallel._SHARED is None


def test_outside_shared_workers_each_call_has_its_own_pool(two_cores) -> None:
    first = {marshal.loads(d)[1] for _j, d in parallel.map_records(square_and_pid, [1, 2])}
    second = {marshal.loads(d)[1] for _j, d in parallel.map_records(square_and_pid, [3, 4])}
    assert first.isdisjoint(second)
    assert parallel._SHARED is None


def test_started_records_come_back_later_in_job_order(two_cores) -> None:
    assert parallel.start_records(square_and_pid, [1, 2]) is None  # no shared block: nothing
    with parallel.shared_workers():
        started = parallel.start_records(square_and_pid, [1, 2, 3, 4, 5], [1, 5, 2, 4, 3])
        assert started is not None
        assert [started] == parallel._STARTED
        # other work meanwhile, in the same pool, after the started jobs
        other = [marshal.loads(d)[0] for _j, d in parallel.map_records(square_and_pid, [6, 7])]
        found = [(job, marshal.loads(data)) for job, data in started.results()]
        assert parallel._STARTED == []
    assert other == [36, 49]
    assert [(job, result[0]) for job, result in found] == [(j, j * j) for j in [1, 2, 3, 4, 5]]
    assert os.getpid() not in {result[1] for _job, result in found}


def test_started_work_not_read_is_waited_for_before_the_pool_stops(two_cores) -> None:
    with parallel.shared_workers():
        started = parallel.start_records(square_and_pid, [1, 2, 3])
        assert started is not None
    assert parallel._SHARED is None and parallel._STARTED == []
    assert [marshal.loads(data)[0] for _job, data in started.results()] == [1, 4, 9]
    with parallel.shared_workers():
        first = parallel.start_records(square_and_pid, [4, 5])
        forked = [r[0] for r in parallel.map_forked(square_and_pid, [6, 7])]
        assert parallel._SHARED is None  # map_forked stopped the pool once it came back
    assert first is not None and forked == [36, 49]
    assert [marshal.loads(data)[0] for _job, data in first.results()] == [16, 25]


def test_an_error_in_the_block_stops_the_pool_without_waiting(two_cores) -> None:
    with pytest.raises(KeyboardInterrupt), parallel.shared_workers():
        assert parallel.start_records(square_and_pid, [1, 2, 3]) is not None
        raise KeyboardInterrupt
    assert parallel._SHARED is None and parallel._STARTED == []


def fail_on_three(job: int) -> int:
    if job == 3:
        raise ValueError(f"job {job} failed")
    return job


def end_on_three(job: int) -> int:
    if job == 3:
        os._exit(7)  # as a worker killed for memory ends: without an answer
    return job


def test_an_error_in_a_worker_is_raised_here(two_cores) -> None:
    with pytest.raises(ValueError) as raised:
        list(parallel.map_forked(fail_on_three, [1, 2, 3, 4]))
    assert str(raised.value) == "job 3 failed"
    with pytest.raises(ValueError) as raised, parallel.shared_workers():
        started = parallel.start_records(fail_on_three, [1, 2, 3, 4])
        assert started is not None
        list(started.results())
    assert str(raised.value) == "job 3 failed"
    assert parallel._SHARED is None


def test_a_worker_that_ends_unexpectedly_is_reported(two_cores) -> None:
    with pytest.raises(PatchkeeperError) as raised:
        list(parallel.map_records(end_on_three, [1, 2, 3, 4]))
    assert str(raised.value) == (
        "a worker process ended unexpectedly (exit code 7)\n"
        "  hint: run the command again; `taskset -c 0 patchkeeper ...` does the work in one"
        " process"
    )
