"""On a real series: Debian's loguru 0.6.0 patches only tests, and loguru 0.7.3's sdist ships
no ``tests/`` at all. A test left out of a release is not a test upstream removed: both
patches are *target gone*, to do *look*, never *upstreamed*."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import debian_series
from patchkeeper.main import main

pytestmark = pytest.mark.network

LEFT_OUT = (
    "no longer exists; its content was not found elsewhere (the new release has no tests/ at "
    "all); to do: look (its file is gone and its content was not found)"
)


def test_loguru_tests_left_out_of_the_release_are_to_look_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    patches, version = debian_series("loguru")
    assert version == "0.6.0"
    root = tmp_path / "loguru"
    root.mkdir()
    (root / "patchkeeper.toml").write_text(
        f'upstream = "loguru"\npin = "{version}"\nseries = "{patches}/series"\n'
    )
    code = main(["-C", str(root), "audit", "--json", "--to", "loguru==0.7.3"])
    verdicts = json.loads(capsys.readouterr().out)["verdicts"]
    assert code == 1
    assert [(v["name"], v["verdict"], v["action"], v["summary"]) for v in verdicts] == [
        (
            "test_time_rotation_reopening_native.patch",
            "target gone",
            "look",
            f"tests/test_filesink_rotation.py {LEFT_OUT}",
        ),
        ("python3.11.patch", "target gone", "look", f"tests/test_repr.py {LEFT_OUT}"),
    ]
