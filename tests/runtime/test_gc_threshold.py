"""The cyclic collector around a cold scan (:mod:`patchkeeper.runtime.gc_threshold`)."""

from __future__ import annotations

import gc

from patchkeeper.runtime.gc_threshold import fewer_collections


def test_off_inside_on_after_and_what_was_kept_is_left_out_of_collections() -> None:
    gc.unfreeze()
    assert gc.isenabled()
    try:
        with fewer_collections():
            assert not gc.isenabled()
            kept = [[index] for index in range(10_000)]
        assert gc.isenabled()
        # the block's survivors are in the permanent generation: no collection walks them
        assert gc.get_freeze_count() >= 10_001
        tracked = (obj for generation in (0, 1, 2) for obj in gc.get_objects(generation))
        assert not any(obj is kept for obj in tracked)
    finally:
        gc.unfreeze()


def test_left_off_when_it_was_off_before() -> None:
    gc.unfreeze()
    gc.disable()
    try:
        with fewer_collections():
            assert not gc.isenabled()
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_cycle_made_after_the_block_is_still_collected() -> None:
    gc.unfreeze()
    try:
        with fewer_collections():
            pass
        cycle: list = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
    finally:
        gc.unfreeze()
