"""The command that verifies an upgrade to ``NAME==VERSION`` copies the release it fetched.

The steps fetch and unpack the new release into the cache; the list of what is left gave
"COPY: an unpacked tinyserve==2.0" and left a person to fetch and unpack it again. It now
names the unpacked release, as it names a directory given as ``--to``, and the command runs
as written.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from upgrade_support import MODULE_NEW, MODULE_OLD, STOP_PATCH

from helpers import make_tar, write_files


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
        f"   - cp -R {fetched} COPY && patchkeeper apply --target COPY && patchkeeper verify "
        "--target COPY"
    )
    assert command in run.out.splitlines()
    copy = tmp_path / "COPY"
    shutil.copytree(fetched, copy)
    assert cli("apply", "--target", str(copy), cwd=down).code == 0
    assert cli("verify", "--target", str(copy), cwd=down).code == 0
