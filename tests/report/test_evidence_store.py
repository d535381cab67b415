"""The evidence store: every evidence-producing command saves its JSON result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recordhelpers import enable_evidence

from patchkeeper import evidence_store
from patchkeeper.config import load_config


def test_audit_saves_its_json_result_argv_version_and_exit_code(cli, audited: Path) -> None:
    printed = cli("audit", "--json", "--to", "../upstream/minihttp-1.1", cwd=audited)
    saved = json.loads((audited / ".patchkeeper/evidence/audit.json").read_text())
    assert list(saved) == [
        "format",
        "command",
        "argv",
        "cwd",
        "patchkeeper",
        "exit_code",
        "recorded",
        "result",
    ]
    assert saved["command"] == "audit"
    assert saved["argv"] == ["audit", "--json", "--to", "../upstream/minihttp-1.1"]
    assert saved["cwd"] == str(audited)
    assert saved["patchkeeper"] == evidence_store.patchkeeper_version()
    assert saved["exit_code"] == printed.code == 1
    assert saved["result"] == json.loads(printed.out)
    stored = evidence_store.load(load_config(start=audited), "audit")
    assert stored is not None
    assert stored.option("--to") == "../upstream/minihttp-1.1"
    assert stored.result["verdicts"][0]["name"] == "retry-backoff-cap.patch"


def test_the_only_time_is_the_recorded_line_and_source_date_epoch_fixes_it(
    cli, audited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    cli("audit", "--to", "../upstream/minihttp-1.1", cwd=audited)
    text = (audited / ".patchkeeper/evidence/audit.json").read_text()
    assert json.loads(text)["recorded"] == "2023-11-14T22:13:20Z"
    assert [line for line in text.splitlines() if "2023-" in line] == [
        '  "recorded": "2023-11-14T22:13:20Z",'
    ]


def test_verify_saves_its_evidence(cli, example) -> None:
    enable_evidence(example.downstream / "patchkeeper.toml")
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    run = cli(
        "verify", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert run.code == 0
    stored = evidence_store.load(load_config(start=example.downstream), "verify")
    assert stored is not None
    assert stored.exit_code == 0
    assert [p["state"] for p in stored.result["state"]["patches"]] == ["applied"] * 7


def test_status_is_not_evidence(cli, example) -> None:
    enable_evidence(example.downstream / "patchkeeper.toml")
    cli("status", "--target", str(example.old), cwd=example.downstream)
    assert not (example.downstream / ".patchkeeper").exists()


def test_without_evidence_enabled_nothing_is_written(cli, example) -> None:
    assert cli("audit", "--to", "../upstream/minihttp-1.1", cwd=example.downstream).code == 1
    old = str(example.old)
    assert cli("verify", "--target", old, "--pristine", old, cwd=example.downstream).code == 1
    assert not (example.downstream / ".patchkeeper").exists()
    cli("report", cwd=example.downstream)
    text = (example.downstream / "AUDIT.md").read_text()
    assert (
        "- the evidence store is off (`evidence = false` in \\[tool.patchkeeper.report\\]): "
        "patchkeeper's own commands were not recorded"
    ) in text


def test_a_corrupt_evidence_file_is_an_input_error(cli, audited: Path) -> None:
    (audited / ".patchkeeper/evidence/audit.json").write_text("{not json")
    run = cli("report", cwd=audited)
    assert run.code == 2
    assert run.err.startswith(
        f"patchkeeper: error: {audited}/.patchkeeper/evidence/audit.json: not JSON ("
    )
    assert "hint: run the command again to rewrite it" in run.err


def test_a_missing_command_has_no_evidence(example) -> None:
    assert evidence_store.load(load_config(start=example.downstream), "port") is None


def test_port_evidence_is_read_by_patch_name_and_verdict(audited: Path) -> None:
    """``port`` is not on main yet: its result is read in the shape ``audit`` has (a list of
    ``{"name", "verdict", "summary"}`` under ``verdicts`` or ``patches``), and when both
    exist the port's verdict is the one a suggestion follows."""
    from patchkeeper.items import series_items

    config = load_config(start=audited)
    port = {
        "target": "minihttp 1.1",
        "patches": [
            {
                "name": "retry-backoff-cap.patch",
                "verdict": "upstreamed",
                "summary": "proposed for retirement",
            },
            {
                "name": "headers-merge-order.patch",
                "verdict": "clean",
                "summary": "refreshed onto httputil.py",
            },
        ],
    }
    evidence_store.save(config, "port", _Result(port), ["port", "--to", "../upstream/minihttp-1.1"])
    items = {i.key: i for i in series_items(config, evidence_store.load_all(config))}
    moved = items["headers-merge-order.patch"]
    assert (moved.source, moved.verdict, moved.suggested) == ("port", "clean", "carry")
    assert moved.evidence == (
        "audit: target gone: headers.py no longer exists; likely moved to httputil.py (same "
        "content: 4 of 4 context lines found there)",
        "port: clean: refreshed onto httputil.py",
    )


class _Result(dict):
    exit_code = 0
