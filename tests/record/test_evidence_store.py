"""The evidence store: an evidence command saves its JSON result when asked or configured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recordhelpers import enable_evidence

from patchkeeper.audit.release import AuditRequest
from patchkeeper.config import load_config
from patchkeeper.record import evidence_store


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
    # the printed envelope holds the saved result; its target is an object, the label kept
    envelope = json.loads(printed.out)
    head = ("command", "patchkeeper_version", "exit_code", "target", "target_label")
    assert {key: envelope[key] for key in envelope if key not in head} == {
        key: value for key, value in saved["result"].items() if key != "target"
    }
    assert envelope["target_label"] == saved["result"]["target"]
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


@pytest.mark.parametrize("table", ["", "\n[report]\nevidence = false\n"], ids=["default", "off"])
def test_without_evidence_on_nothing_is_written(cli, example, table: str) -> None:
    with (example.downstream / "patchkeeper.toml").open("a") as handle:
        handle.write(table)
    assert cli("audit", "--to", "../upstream/minihttp-1.1", cwd=example.downstream).code == 1
    old = str(example.old)
    assert cli("verify", "--target", old, "--pristine", old, cwd=example.downstream).code == 1
    assert not (example.downstream / ".patchkeeper").exists()
    decide = cli("decide", cwd=example.downstream)
    assert decide.out.splitlines()[-1] == (
        "no evidence saved: run audit, port, verify or the runtime commands with "
        "--save-evidence, or set evidence = true in [report] to keep every "
        "run's result"
    )
    cli("report", cwd=example.downstream)
    text = (example.downstream / "AUDIT.md").read_text()
    assert (
        "- no evidence saved: patchkeeper's own commands were not recorded (run audit, "
        "verify, port and the runtime commands with --save-evidence, or set "
        "`evidence = true` in \\[report\\])"  # as patchkeeper.toml spells the table
    ) in text


def test_save_evidence_saves_one_run(cli, example) -> None:
    down = example.downstream
    assert cli("audit", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=down).code == 1
    assert sorted(p.name for p in (down / ".patchkeeper/evidence").iterdir()) == ["audit.json"]
    saved = json.loads((down / ".patchkeeper/evidence/audit.json").read_text())
    assert saved["argv"] == ["audit", "--to", "../upstream/minihttp-1.1", "--save-evidence"]
    assert cli("audit", "--to", "../upstream/minihttp-1.1", cwd=down).code == 1
    assert json.loads((down / ".patchkeeper/evidence/audit.json").read_text()) == saved


def test_a_corrupt_evidence_file_is_an_input_error(cli, audited: Path) -> None:
    (audited / ".patchkeeper/evidence/audit.json").write_text("{not json")
    run = cli("report", cwd=audited)
    assert run.code == 2
    assert run.err.startswith(
        f"patchkeeper: error: {audited}/.patchkeeper/evidence/audit.json: not JSON ("
    )
    assert run.err.endswith(
        "  hint: run 'patchkeeper audit' with --save-evidence again to rewrite it\n"
    )
    assert (
        cli("audit", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=audited).code == 1
    )
    assert cli("report", cwd=audited).code == 1


def test_a_corrupt_record_of_commands_stops_record_before_it_runs(cli, audited: Path) -> None:
    """``record`` reads recorded.json to add its run: a corrupt one stops it before the
    command runs (a long test run is not lost), and the hint says what rewrites it."""
    recorded = audited / ".patchkeeper/evidence/recorded.json"
    recorded.parent.mkdir(parents=True, exist_ok=True)
    recorded.write_text("{not json")
    marker = audited / "ran"
    run = cli("record", "--", "touch", str(marker), cwd=audited)
    assert run.code == 2
    assert run.err.startswith(f"patchkeeper: error: {recorded}: not JSON (")
    assert run.err.endswith(
        "  hint: delete it and record the commands again (patchkeeper record -- CMD...)\n"
    )
    assert not marker.exists()
    assert recorded.read_text() == "{not json"


def test_a_corrupt_environment_is_measured_again_by_report(cli, audited: Path) -> None:
    environment = audited / ".patchkeeper/evidence/environment.json"
    environment.parent.mkdir(parents=True, exist_ok=True)
    environment.write_text("{not json")
    run = cli("report", "--check", cwd=audited)
    assert run.code == 2
    assert run.err.endswith(
        "  hint: run 'patchkeeper report' to measure the environment again and rewrite it\n"
    )
    assert cli("report", cwd=audited).code == 1
    assert json.loads(environment.read_text())["format"] == evidence_store.FORMAT


def test_a_missing_command_has_no_evidence(example) -> None:
    assert evidence_store.load(load_config(start=example.downstream), "port") is None


def test_port_evidence_leads_the_suggestions(cli, audited: Path) -> None:
    assert cli("port", "--to", "../upstream/minihttp-1.1", cwd=audited).code == 1
    run = cli("decide", cwd=audited)
    assert run.out.splitlines()[1:] == [
        "  series retry-backoff-cap.patch: suggested: retire (upstreamed)",
        "  series redirect-strip-proxy-auth.patch: suggested: update (conflict)",
        "  series headers-merge-order.patch: suggested: carry (merged)",
        "  series client-describe-version.patch: suggested: carry (offset)",
        "  series metrics-redirects.patch: suggested: carry (offset)",
        "  series metrics-same-host.patch: suggested: carry (clean)",
        "  series redirect-strip-api-key.patch: suggested: update (blocked)",
        '7 suggestions to review: delete "suggested: " from a decision to accept it, or write '
        "your own; report --check fails until then",
    ]


def test_a_reference_the_port_finds_in_the_new_pin_meets_retires_when(cli, audited: Path) -> None:
    """``port --upstream-repo`` looks header references up; saved through the real result
    types, a carried ``#12`` meets ``Retires-when: the pin that carries #12``."""
    from patchkeeper.port.history import Commit, Reference
    from patchkeeper.port.rebase import PortedPatch
    from patchkeeper.port.results import PortResult

    config = load_config(start=audited)
    reference = Reference(
        "Upstream", "minihttp #12", "in the new pin", Commit("ab" * 20, "cap (#12)"), "v1.1"
    )
    ported = PortedPatch("retry-backoff-cap.patch", "offset", "applies", references=(reference,))
    result = PortResult("port", "done", "patches/series", patches=(ported,))
    evidence_store.save(config, "port", result, ["port", "--to", "../upstream/minihttp-1.1"])
    (audited / "patchkeeper-decisions.toml").write_text(
        '[series."retry-backoff-cap.patch"]\ndecision = "carry"\nremoval-condition = "the pin that carries #12"\n'
    )
    run = cli("report", "--json", cwd=audited)
    findings = [
        (f["code"], f["message"])
        for f in json.loads(run.out)["findings"]
        if f["message"].startswith("`retry-backoff-cap.patch`")
    ]
    assert findings == [
        (
            "condition-met",
            "`retry-backoff-cap.patch`: Retires-when 'the pin that carries #12' is met: port "
            f"finds minihttp #12 (in the new pin: {'ab' * 6}, first in v1.1); decided carry",
        )
    ]


def test_the_audit_command_run_from_python_saves_its_evidence(
    example, private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving is the command's job, not a side effect of printing: ``commands.audit.run``
    keeps the result, with the command line that asks for it."""
    from patchkeeper.commands import audit

    enable_evidence(example.downstream / "patchkeeper.toml")
    monkeypatch.chdir(example.downstream)
    request = AuditRequest("../upstream/minihttp-1.1")
    result = audit.run(load_config(start=example.downstream), request)
    stored = evidence_store.load(load_config(start=example.downstream), "audit")
    assert stored is not None
    assert stored.argv == ("audit", "--to", "../upstream/minihttp-1.1")
    assert stored.exit_code == result.exit_code == 1
    assert [v["verdict"] for v in stored.result["verdicts"]] == [
        "upstreamed",
        "conflict",
        "target gone",
        "offset",
        "offset",
        "clean",
        "blocked",
    ]


def test_a_store_that_cannot_be_written_is_a_warning_when_evidence_was_asked_for(
    cli, example, private_cache: Path
) -> None:
    enable_evidence(example.downstream / "patchkeeper.toml")
    (example.downstream / ".patchkeeper").write_text("not a directory\n")
    run = cli("audit", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines()[-1] == "to retire (already upstream): retry-backoff-cap.patch"
    assert run.err.startswith("patchkeeper: warning: the evidence was not saved: ")
