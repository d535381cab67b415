"""A pin written as Debian writes its package's version (``1.0+ds``, ``1.0+dfsg-1``,
``1.0-1``) names no release a package index has: the error said only that the pin's tree
"cannot be fetched". It now says the pin is a Debian version and gives the upstream release
as the pin to set (or ``pristine``); ``audit``, which goes on without the pin's tree, says
so in its note."""

from __future__ import annotations

import pytest

from helpers import write_files

SERIES = {
    "patches/series": "b.patch\n",
    "patches/b.patch": (
        "Subject: B is 20\n\n--- a/pk_demo/core.py\n+++ b/pk_demo/core.py\n"
        "@@ -1,2 +1,2 @@\n A = 1\n-B = 2\n+B = 20\n"
    ),
}


def downstream(tmp_path, local_index, pin: str):
    """A downstream pinned to ``pin`` where the local index has pk-demo 1.0 and 1.1."""
    for version in ("1.0", "1.1"):
        local_index.publish_sdist("pk-demo", version, {"pk_demo/core.py": b"A = 1\nB = 2\n"})
    root = tmp_path / "downstream"
    config = f'upstream = "pk-demo"\npin = "{pin}"\n'
    write_files(root, {**SERIES, "patchkeeper.toml": config})
    write_files(tmp_path / "target", {"pk_demo/core.py": "A = 1\nB = 2\n"})
    return root


@pytest.mark.parametrize("pin", ["1.0+ds", "1.0+dfsg-1", "1.0-1"])
def test_verify_gives_the_upstream_version_as_the_pin(cli, tmp_path, local_index, pin: str) -> None:
    root = downstream(tmp_path, local_index, pin)
    run = cli("verify", "--target", str(tmp_path / "target"), cwd=root)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {root / 'patchkeeper.toml'}:2: the pristine reference "
        f"pk-demo=={pin} (upstream==pin) cannot be fetched: no version of pk-demo matches "
        f"pk-demo=={pin} ({pin} is a Debian version of upstream 1.0)\n"
        '  hint: available versions: 1.0, 1.1; set pin = "1.0", the upstream release (an '
        "index has no Debian repack or revision), or pass --pristine DIR|REQUIREMENT, or set "
        'pristine = "DIR" in the configuration\n'
    )


def test_audit_says_so_in_its_note(cli, tmp_path, local_index) -> None:
    root = downstream(tmp_path, local_index, "1.0+ds")
    run = cli("audit", "--to", "pk-demo==1.1", cwd=root)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[2] == (
        "the old pin's tree could not be had (the pristine reference pk-demo==1.0+ds "
        "(upstream==pin) cannot be fetched: no version of pk-demo matches pk-demo==1.0+ds "
        "(1.0+ds is a Debian version of upstream 1.0)): lines it already had count as "
        "evidence too"
    )
