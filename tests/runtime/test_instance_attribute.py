"""A patch that sets an attribute of an upstream instance (a module-level counter whose
dataclass declares the field, as vLLM's ``compilation_counter``): the audit says what it
is, never that upstream lacks the attribute."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

#: The upstream module, the same at both releases: a dataclass and its one instance.
COUNTER = """import dataclasses


@dataclasses.dataclass
class Counter:
    captured: int = 0


counter = Counter()
"""

#: The plugin puts the counter back after a trial capture, in the ``finally`` of a ``try``.
PATCH = (
    HEADER
    + """from tinyup.counter import counter


def trial(capture):
    before = counter.captured
    try:
        capture()
    finally:
        counter.captured = before


trial(lambda: None)
"""
)


def test_attribute_of_an_upstream_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    base = copy_releases(tmp_path, monkeypatch)
    for release in ("upstream-1.0", "upstream-2.0"):
        (base / release / "tinyup" / "counter.py").write_text(COUNTER)
    root = write_plugin(base, {"plug/patch/p_counter.py": PATCH})
    run = cli("runtime", "audit", *versions(base), "--json", cwd=root)
    drifts = [
        (a["entry"]["line"], a["entry"]["target"], a["drift"]["decision"], a["drift"]["evidence"])
        for a in json.loads(run.out)["entries"]
    ]
    assert drifts == [
        (
            12,
            "tinyup.counter.counter.captured",
            "retain",
            [
                "tinyup.counter.counter is a value upstream binds (line 9), not a class or a "
                "module: its attribute captured is the instance's state, not followed "
                "statically; nothing upstream to compare"
            ],
        )
    ]
