"""The worker pools of the runtime commands: same results in order, no pool inside a worker,
the calling process when the system refuses a process."""

from __future__ import annotations

import marshal
import os

import pytest

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
