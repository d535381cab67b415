"""The command that verifies an upgrade to ``NAME==VERSION`` copies the release it fetched.

The steps fetch and unpack the new release into the cache; the list of what is left gave
"COPY: an unpacked tinyserve==2.0" and left a person to fetch and unpack it again. It now
names the unpacked release, as it names a directory given as ``--to``, and the command runs
as written.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from upgrade_support import MODULE_NEW, MODULE_OLD, STOP_PATCH

from helpers import make_tar, write_files
from patchkeeper.upgrade.run import verify_commands
from patchkeeper.upgrade.state import UpgradeState


def test_the_verify_command_copies_the_fetched_release(
    cli, tmp_path: Path, local_index, private_cache: Path
) -> None:
    top = "tinyserve-2.0"
    local_index.publish(
        "tinyserve",
        f"{top}.tar.gz",
        make_tar(
            [
                (f"{top}/PKG-INFO", b"Metadata-Version: 2.1\nName: tinyserve\nVersion: 2.0\n"),
                (f"{top}/tinyserve/server.py", MODULE_NEW.encode()),
            ]
        ),
    )
    write_files(
        tmp_path / "tinyserve-1.0",
        {
            "PKG-INFO": "Metadata-Version: 2.1\nName: tinyserve\nVersion: 1.0\n",
            "tinyserve/server.py": MODULE_OLD,
        },
    )
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "tinyserve"\npin = "1.0"\n'
            'series = "debian/patches/series"\npristine = "../tinyserve-1.0"\n',
            "debian/patches/series": "clean-shutdown.patch\n",
            "debian/patches/clean-shutdown.patch": STOP_PATCH,
        },
    )
    run = cli("upgrade", "--to", "tinyserve==2.0", cwd=down)
    assert run.code == 0, run.out + run.err
    fetched = private_cache / "trees" / "tinyserve" / top / top
    command = (
        f"   - COPY=$(mktemp -d) && cp -R {fetched}/. $COPY && patchkeeper apply --target $COPY "
        "&& patchkeeper verify --target $COPY"
    )
    assert command in run.out.splitlines()
    copy = tmp_path / "COPY"
    shutil.copytree(fetched, copy)
    assert cli("apply", "--target", str(copy), cwd=down).code == 0
    assert cli("verify", "--target", str(copy), cwd=down).code == 0


def test_the_verify_commands_are_made_of_the_state_alone() -> None:
    """The tree to copy is the one the start found and kept in the state; a state written
    before it was kept names none, and the command leaves the copy to a person."""
    state = UpgradeState(
        to="tinyserve==2.0",
        source="1.0",
        new_tree="/cache/trees/tinyserve 2.0",
        steps={"port": {"status": "done"}, "runtime port": {"status": "done"}},
    )
    assert verify_commands(state) == (
        "COPY=$(mktemp -d) && cp -R '/cache/trees/tinyserve 2.0/.' $COPY && patchkeeper apply "
        "--target $COPY && patchkeeper verify --target $COPY",
        "patchkeeper lint",
        "patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the plugin "
        "and tinyserve==2.0 installed",
        "patchkeeper report --check",
    )
    older = replace(state, new_tree="", steps={"port": {"status": "stopped"}})
    assert verify_commands(older) == (
        "patchkeeper apply --target COPY && patchkeeper verify --target COPY"
        "  # COPY: an unpacked tinyserve==2.0, outside this downstream",
        "patchkeeper lint",
        "patchkeeper report --check",
    )
