"""The port step of ``upgrade`` lists the files whose bytes it changed, and no other.

The in-place port writes the series' patches in one transaction. A patch that lands on the
new release as it stands (its preamble has no ``Cut-against`` to move, its hunks land where
they were) comes out byte for byte as it was: the step does not list it as written, and its
commit does not hold it. Here the new release moves the module one patch changes three lines
down and leaves the test file the other patch changes as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

from upgrade_support import (
    STOP_PATCH_MOVED,
    committed_files,
    make_checkout,
    tinyserve_downstream,
)

from helpers import DROP_FLAKY_TEST


def test_the_port_step_lists_only_the_files_whose_bytes_changed(cli, tmp_path: Path) -> None:
    down = tinyserve_downstream(tmp_path)
    make_checkout(down)
    run = cli("upgrade", "--to", "../tinyserve-2.0", "--branch", "up", "--json", cwd=down)
    assert run.code == 0, run.err
    port = next(s for s in json.loads(run.out)["steps"] if s["name"] == "port")
    assert (port["status"], port["summary"], port["files"]) == (
        "done",
        "1 clean, 1 offset",
        [
            ".patchkeeper/evidence/port.json",
            "debian/patches/clean-shutdown.patch",
            "patchkeeper.toml",
        ],
    )
    assert committed_files(down, port["commit"]) == port["files"]
    patches = down / "debian" / "patches"
    assert (patches / "remove-poll-test.patch").read_text("utf-8") == DROP_FLAKY_TEST
    assert (patches / "clean-shutdown.patch").read_text("utf-8") == STOP_PATCH_MOVED
