"""``record -- CMD`` and the written record: its sections, its bytes, its reproducibility."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from recordhelpers import AGREEING, drop_from_series, write_decisions


def test_record_keeps_exit_code_duration_and_output_tail(cli, audited: Path) -> None:
    script = "import sys\nfor i in range(40): print('line', i)\nsys.exit(3)"
    run = cli("record", "--", sys.executable, "-c", script, cwd=audited)
    assert run.code == 1
    data = json.loads((audited / ".patchkeeper/evidence/recorded.json").read_text())
    [command] = data["commands"]
    assert command["argv"] == [sys.executable, "-c", script]
    assert command["cwd"] == str(audited)
    assert command["exit_code"] == 3
    assert 0 <= command["duration"] < 30
    assert command["tail"] == [f"line {i}" for i in range(10, 40)]
    assert run.out.splitlines()[0].startswith(f"{sys.executable} -c ")
    assert run.out.splitlines()[-1] == "  | line 39"


def test_recording_the_same_command_again_replaces_it(cli, audited: Path) -> None:
    cli("record", "--", sys.executable, "-c", "print('first')", cwd=audited)
    cli("record", "--", sys.executable, "-c", "raise SystemExit(1)", cwd=audited)
    assert cli("record", "--", sys.executable, "-c", "print('first')", cwd=audited).code == 0
    data = json.loads((audited / ".patchkeeper/evidence/recorded.json").read_text())
    assert [(c["argv"][-1], c["exit_code"]) for c in data["commands"]] == [
        ("print('first')", 0),
        ("raise SystemExit(1)", 1),
    ]


def test_a_command_that_cannot_start_is_recorded_as_127(cli, audited: Path) -> None:
    run = cli("record", "--", "no-such-command-here", cwd=audited)
    assert run.code == 1
    data = json.loads((audited / ".patchkeeper/evidence/recorded.json").read_text())
    assert (data["commands"][0]["exit_code"], data["commands"][0]["tail"]) == (
        127,
        ["cannot run no-such-command-here: No such file or directory"],
    )


def test_a_command_that_is_there_but_cannot_run_is_recorded_as_126(
    cli, audited: Path, tmp_path: Path
) -> None:
    """A validation script without its executable bit (``record -- ./run-tests.sh`` after a
    checkout that lost the mode) was recorded as 127, "not found", which the shell keeps for
    a program that is not there; it is 126, as a shell gives it."""
    script = tmp_path / "run-tests.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    for program, why in ((script, "Permission denied"), (tmp_path, "Permission denied")):
        run = cli("record", "--", str(program), cwd=audited)
        assert (run.code, run.out.splitlines()[1]) == (1, f"  | cannot run {program}: {why}")
        data = json.loads((audited / ".patchkeeper/evidence/recorded.json").read_text())
        recorded = {c["argv"][0]: c["exit_code"] for c in data["commands"]}
        assert recorded[str(program)] == 126


@pytest.mark.parametrize("option", ["--markdown", "--jsno"])
def test_an_option_record_does_not_have_is_refused_not_run(cli, audited: Path, option: str) -> None:
    """``record --markdown FILE -- pytest`` (an option of other commands) or a mistyped
    ``--jsno`` was taken as the command: it could not start, and a failed validation run
    named ``--markdown`` went into the record. It is a usage error, and nothing is kept."""
    run = cli("record", option, "out.md", "--", sys.executable, "-c", "pass", cwd=audited)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[-1] == (
        f"Error: No such option: {option} (record takes --json, -C and --config; the command "
        "to record goes after '--': patchkeeper record -- python -m pytest)"
    )
    assert not (audited / ".patchkeeper/evidence/recorded.json").exists()
    assert not (audited / "out.md").exists()


def test_record_json_says_what_the_command_did(cli, audited: Path, monkeypatch) -> None:
    """``record --json`` printed only the evidence file's path: the command it ran, its exit
    code and its output were dropped from the envelope (its field ``command`` collided with
    the envelope's), so a CI job or an agent could not tell why the validation failed."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    script = "import sys\nprint('3 passed, 1 failed')\nsys.exit(1)"
    run = cli("record", "--json", "--", sys.executable, "-c", script, cwd=audited)
    data = json.loads(run.out)
    assert run.code == 1
    duration = data["run"].pop("duration")
    assert 0 <= duration < 30
    assert data == {
        "command": "record",
        "patchkeeper_version": data["patchkeeper_version"],
        "exit_code": 1,
        "path": str(audited / ".patchkeeper/evidence/recorded.json"),
        "run": {
            "argv": [sys.executable, "-c", script],
            "cwd": str(audited),
            "exit_code": 1,
            "tail": ["3 passed, 1 failed"],
            "recorded": "2023-11-14T22:13:20Z",
        },
    }


def test_record_without_a_command_is_a_usage_error(cli, audited: Path) -> None:
    assert cli("record", cwd=audited).code == 2


@pytest.fixture
def agreed(cli, audited: Path) -> Path:
    drop_from_series(audited, "retry-backoff-cap.patch")
    write_decisions(audited, AGREEING)
    cli("record", "--", sys.executable, "-c", "print('ok')", cwd=audited)
    cli("record", "--", sys.executable, "-c", "raise SystemExit(2)", cwd=audited)
    return audited


def section(text: str, heading: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next(
        (
            i
            for i in range(start, len(lines))
            if lines[i].startswith("#") and lines[i].count("#") <= heading.count("#")
        ),
        len(lines),
    )
    return [line for line in lines[start:end] if line]


def test_the_record_lists_decisions_validation_and_untested_scope(cli, agreed: Path) -> None:
    assert cli("report", cwd=agreed).code == 0
    text = (agreed / "AUDIT.md").read_text()
    assert text.splitlines()[0] == "# Audit record: minihttp 1.0"
    assert section(text, "## Open problems") == ["None."]
    rows = section(text, "### Series patches (6)")
    assert rows[:2] == [
        "| # | patch | decision | evidence | removal condition | reason | flag |",
        "|---|---|---|---|---|---|---|",
    ]
    assert rows[5] == (
        "| 4 | `metrics-redirects.patch` | carry | audit: offset: applies at fuzz 0; hunks "
        "moved: client.py #1 +5; to do: carry (it applies) | upstreamed | reviewed |  |"
    )
    assert section(text, "### Decisions about patches or entries no longer present") == [
        "- series `retry-backoff-cap.patch`: retire: reviewed"
    ]
    validation = section(text, "## Validation")
    assert validation[2] == (
        "| `patchkeeper audit --to ../upstream/minihttp-1.1` | patchkeeper | 1 | 7 patches "
        f"against `directory {agreed.parent / 'upstream' / 'minihttp-1.1'}`: 1 upstreamed, "
        "1 conflict, 1 target gone, 2 offset, 1 clean, 1 blocked | - |"
    )
    assert validation[3].startswith(
        f"| `{sys.executable} -c 'print('\"'\"'ok'\"'\"')'` | recorded | 0 | passed | "
    )
    assert validation[4].startswith(
        f"| `{sys.executable} -c 'raise SystemExit(2)'` | recorded | 2 | failed (exit 2) | "
    )
    assert section(text, "### Not tested") == [
        "- verify not run: no evidence that the series is applied to the upstream",
        "- no GPU run: the audited environment has no accelerator device (looked for "
        "/dev/nvidia\\*, /dev/kfd, /dev/davinci\\*)",
        f"- minihttp is not installed in `{sys.executable}`: nothing was imported or run "
        "against an installed copy",
        f"- `{sys.executable} -c 'raise SystemExit(2)'` failed (exit 2): what it tests is not validated",
    ]
    times = [line for line in text.splitlines() if "UTC" in line]
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    assert len(times) == 1
    assert re.fullmatch(
        rf"Evidence taken (between {stamp} and )?{stamp} \(UTC\); this is the only line of the "
        "record that depends on when the commands ran.",
        times[0],
    )


def test_the_same_inputs_give_the_same_bytes(cli, agreed: Path) -> None:
    cli("report", "--html", cwd=agreed)
    first = (agreed / "AUDIT.md").read_bytes(), (agreed / "AUDIT.html").read_bytes()
    environment = (agreed / ".patchkeeper/evidence/environment.json").read_bytes()
    assert cli("report", "--html", cwd=agreed).code == 0
    assert ((agreed / "AUDIT.md").read_bytes(), (agreed / "AUDIT.html").read_bytes()) == first
    assert (agreed / ".patchkeeper/evidence/environment.json").read_bytes() == environment
    assert cli("report", "--check", "--html", cwd=agreed).code == 0


def test_the_html_page_has_the_same_tables_and_no_external_resource(cli, agreed: Path) -> None:
    cli("report", "--html", cwd=agreed)
    page = (agreed / "AUDIT.html").read_text()
    markdown = (agreed / "AUDIT.md").read_text()
    assert page.count("<table") == sum(
        1 for line in markdown.splitlines() if line.startswith("|---")
    )
    assert "<code>metrics-<wbr>redirects.<wbr>patch</code>" in page
    for external in ("http://", "https://", "<link", "<script", "src="):
        assert external not in page


def test_report_paths_come_from_the_report_section(cli, audited: Path) -> None:
    config = audited / "patchkeeper.toml"
    config.write_text(
        config.read_text()
        + 'audit-file = "docs/RECORD.md"\ndecisions-file = "docs/decisions.toml"\n'
        + 'untested = ["no multi-node run"]\n'
    )
    assert cli("decide", cwd=audited).code == 0
    assert (audited / "docs" / "decisions.toml").is_file()
    cli("report", cwd=audited)
    text = (audited / "docs" / "RECORD.md").read_text()
    assert section(text, "### Not tested")[-2:] == [
        "- no validation command recorded (patchkeeper record -- CMD...)",
        "- no multi-node run",
    ]
    config.write_text(config.read_text() + "unknown-key = 1\n")
    run = cli("report", cwd=audited)
    assert run.code == 2
    assert "unknown key 'report.unknown-key'" in run.err
