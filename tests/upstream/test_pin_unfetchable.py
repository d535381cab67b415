"""A configured pin whose release the index does not have (a typo, ``pin = "0.4.99"``) is
named where it is written: the configuration file and the line of ``pin``, with the versions
the index has and the advice to fix the pin. ``verify`` gave the file alone and hid the
versions behind its own hint; ``port`` named no file at all."""

from __future__ import annotations

import json

from upstream_support import downstream


def test_verify_names_the_pin_and_the_versions(cli, tmp_path, local_index) -> None:
    root = downstream(tmp_path, local_index)
    run = cli("verify", "--target", str(tmp_path / "target"), "--json", cwd=root)
    assert run.code == 2
    assert json.loads(run.out)["error"] == {
        "message": "the pristine reference pk-demo==1.99 (upstream==pin) cannot be fetched: "
        "no version of pk-demo matches pk-demo==1.99",
        "file": str(root / "patchkeeper.toml"),
        "line": 3,
        "hint": "available versions: 1.0, 1.1; set 'pin' to the release the series is cut "
        'against, or pass --pristine DIR|REQUIREMENT, or set pristine = "DIR" in the '
        "configuration",
    }


def test_port_names_the_pin_and_the_versions(cli, tmp_path, local_index) -> None:
    root = downstream(tmp_path, local_index)
    run = cli("port", "--to", "pk-demo==1.1", cwd=root)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {root / 'patchkeeper.toml'}:3: the old upstream pk-demo==1.99 "
        "(upstream==pin) cannot be fetched: no version of pk-demo matches pk-demo==1.99\n"
        "  hint: available versions: 1.0, 1.1; set 'pin' to the release the series is cut "
        'against, or pass --from DIR|REQUIREMENT, or set pristine = "DIR" in the '
        "configuration\n"
    )
    assert not (root / ".patchkeeper-port").exists()
