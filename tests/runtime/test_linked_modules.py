"""A plugin module that is a symbolic link leading nowhere: to a file that does not exist, or
round a loop of links. The runtime commands name it as the link it is, not as a file that
does not parse, and never stop with a traceback.

The plugin is written by the test in the shape of a real one (:mod:`tinyplug`); the upstream
is the ``tinyup`` fixture of ``tests/runtime/fixtures``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


STEP = HEADER + (
    "import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
    "engine.step = step\n"
)


def test_a_link_to_a_missing_file_and_a_link_loop_are_named_as_links(upstream: Path, cli) -> None:
    root = write_plugin(
        upstream,
        {"plug/patch/p_step.py": STEP},
        links={
            "plug/patch/p_gone.py": upstream / "no.py",
            "plug/patch/p_loop.py": Path("p_loop.py"),
        },
    )
    gone = f"a symbolic link to {upstream / 'no.py'} that does not exist"
    loop = "a symbolic link loop"
    inventory = cli("runtime", "inventory", cwd=root)
    assert (inventory.code, inventory.err) == (1, "")
    assert [
        line for line in inventory.out.splitlines() if "p_gone" in line or "p_loop" in line
    ] == [
        f"  plug/patch/p_gone.py: unreadable: the file cannot be read: {gone}",
        f"  plug/patch/p_loop.py: unreadable: the file cannot be read: {loop}",
    ]
    body = json.loads(cli("runtime", "inventory", "--json", cwd=root).out)
    assert [f for f in body["findings"] if f["code"] != "header-missing"] == [
        {
            "code": "unreadable",
            "path": "plug/patch/p_gone.py",
            "line": None,
            "message": f"the file cannot be read: {gone}",
            "hint": "",
        },
        {
            "code": "unreadable",
            "path": "plug/patch/p_loop.py",
            "line": None,
            "message": f"the file cannot be read: {loop}",
            "hint": "",
        },
    ]
    audit = cli("runtime", "audit", *versions(upstream), cwd=root)
    assert (audit.code, audit.err) == (1, "")
    start = audit.out.splitlines().index("not audited (2 file(s); their entries are unknown):")
    assert audit.out.splitlines()[start + 1 : start + 3] == [
        f"  plug/patch/p_gone.py: the file cannot be read: {gone}",
        f"  plug/patch/p_loop.py: the file cannot be read: {loop}",
    ]
    # lock and port, which act on the entries, refuse the file rather than act as if it
    # had no patch
    run = cli("runtime", "lock", "--at", str(upstream / "upstream-2.0"), cwd=root)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {root / 'plug/patch/p_gone.py'}: the file cannot be read: "
            f"{gone} (and 1 more file(s)): runtime lock cannot read this file's patches, and "
            "would act as if it had none",
            "  hint: restore the file (a symbolic link must lead to a file that exists) or "
            "remove it from the patch directory, and run the command again",
        ],
    )
