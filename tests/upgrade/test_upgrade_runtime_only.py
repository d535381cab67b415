"""``upgrade`` of a downstream that carries runtime patches only (the runtime tests' ``upplug``
plugin of ``upup``, 1.0 -> 2.0): the series steps are skipped, the runtime audit, the
suggestions, the runtime update and the record are committed, and the entry the runtime audit
answers *look* for is listed with its evidence for a person."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from upgrade_support import git, make_checkout, subjects

PORTED = [
    "upplug/patch/dup_a.py",
    "upplug/patch/dup_b.py",
    "upplug/patch/gaps.py",
    "upplug/patch/gates.py",
    "upplug/patch/refs.py",
]
FIXTURES = Path(__file__).resolve().parent.parent / "runtime" / "fixtures" / "update"


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    shutil.copytree(FIXTURES, tmp_path / "work")
    return tmp_path / "work" / "upplug"


def test_runtime_only_upgrade(cli, plugin: Path) -> None:
    base = make_checkout(plugin)
    run = cli(
        "upgrade",
        "--to",
        "../upup-2.0",
        "--from",
        "../upup-1.0",
        "--branch",
        "up",
        "--json",
        cwd=plugin,
    )
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(s["name"], s["status"], s["files"], s["subject"]) for s in data["steps"]] == [
        ("audit", "skipped", [], None),
        (
            "runtime audit",
            "done",
            [".patchkeeper/evidence/runtime-audit.json"],
            "upgrade: audit the runtime patches against 2.0",
        ),
        (
            "decide",
            "done",
            ["patchkeeper-decisions.toml"],
            "upgrade: suggest decisions from the evidence",
        ),
        ("runtime port", "done", PORTED, "upgrade: port the runtime patches to 2.0"),
        ("port", "skipped", [], None),
        (
            "report",
            "done",
            [".patchkeeper/evidence/environment.json", "AUDIT.md"],
            "upgrade: write the audit record",
        ),
    ]
    assert data["steps"][1]["summary"] == "21 runtime entries, 1 to look at"
    assert subjects(plugin, base) == [
        "upgrade: audit the runtime patches against 2.0",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the runtime patches to 2.0",
        "upgrade: write the audit record",
    ]
    assert git(plugin, "status", "--porcelain", "--untracked-files=all") == ""
    assert (data["outcome"], data["conflicts"]) == ("done", [])
    assert data["undecided"] == [
        {
            "kind": "runtime",
            "key": "upplug/patch/refs.py::upup.kernels.fused_mul",
            "verdict": "look",
            "evidence": [
                "runtime audit: look: upup.kernels.fused_mul is in neither release: a "
                "typo or a future name; upup.kernels.fused_mul is not at that path in either "
                "release; no definition of the name anywhere in the new upstream"
            ],
        }
    ]
    # every entry but the one to look at has a suggestion
    assert len(data["suggestions"]) == 20
    assert "upplug/patch/refs.py::upup.kernels.fused_mul" not in {
        s["key"] for s in data["suggestions"]
    }
    assert data["verify"] == [
        "patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the plugin "
        f"and {plugin.parent / 'upup-2.0'} installed",
        "patchkeeper report --check",
    ]
