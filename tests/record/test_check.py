"""``report --check`` fails on each way the record can be stale or false.

Each test starts from the audited example, writes decisions, runs ``report`` (so the record
is current) and then ``report --check``, and asserts the exact findings.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from recordhelpers import AGREEING, drop_from_series, write_decisions

from patchkeeper.record.environment import tree_digest


def check(cli, root: Path, *options: str) -> tuple[int, list[tuple[str, str, str]]]:
    """``report --check``'s exit code and findings, as ``(code, message, hint)``."""
    run = cli("report", "--check", "--json", *options, cwd=root)
    data = json.loads(run.out)
    return run.code, [(f["code"], f["message"], f["hint"]) for f in data["findings"]]


def reported(cli, root: Path, tables: dict[str, tuple[str, str]]) -> int:
    write_decisions(root, tables)
    return cli("report", cwd=root).code


def test_an_agreeing_record_passes(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    assert reported(cli, audited, AGREEING) == 0
    run = cli("report", "--check", cwd=audited)
    assert run.code == 0
    assert run.out == (
        f"the record {audited}/AUDIT.md is current and true "
        "(6 series patches, 0 runtime entries, 1 retired, 7 decided)\n"
    )


def test_a_patch_without_a_decision(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    tables = {k: v for k, v in AGREEING.items() if k != "client-describe-version.patch"}
    assert reported(cli, audited, tables) == 1
    assert check(cli, audited) == (
        1,
        [
            (
                "no-decision",
                "the patch `client-describe-version.patch` has no decision",
                "run patchkeeper decide to suggest one from the evidence, or write its decision in "
                "the decisions file",
            )
        ],
    )


def test_an_empty_decision_counts_as_none(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    reported(cli, audited, {**AGREEING, "headers-merge-order.patch": ("", "")})
    assert check(cli, audited)[1] == [
        (
            "no-decision",
            "the patch `headers-merge-order.patch` has no decision",
            "run patchkeeper decide to suggest one from the evidence, or write its decision in "
            "the decisions file",
        )
    ]


def test_a_retired_patch_still_in_the_series(cli, audited: Path) -> None:
    assert reported(cli, audited, AGREEING) == 1
    assert check(cli, audited) == (
        1,
        [
            (
                "dropped-but-present",
                "`retry-backoff-cap.patch` is decided retire, but it is still in the series",
                "run patchkeeper retire retry-backoff-cap.patch --at 1.1 --why TEXT (1.1: the "
                "release the evidence judged the series against; the pin in patchkeeper.toml "
                "is 1.0), or decide to keep it",
            )
        ],
    )


def test_a_kept_patch_without_a_removal_condition(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    reported(cli, audited, {**AGREEING, "client-describe-version.patch": ("carry", " ")})
    assert check(cli, audited) == (
        1,
        [
            (
                "kept-without-condition",
                "patchkeeper-decisions.toml:16: `client-describe-version.patch` is decided carry "
                "without a removal condition",
                'write in its removal-condition when it can go (e.g. "upstreamed" or "the pin that '
                'carries #123")',
            )
        ],
    )
    data = json.loads(cli("report", "--check", "--json", cwd=audited).out)
    [finding] = data["findings"]
    assert (finding["path"], finding["line"]) == ("patchkeeper-decisions.toml", 16)


def test_a_carried_upstreamed_patch_whose_retires_when_is_met(cli, audited: Path) -> None:
    tables = {**AGREEING, "retry-backoff-cap.patch": ("carry", "the pin that carries #12")}
    assert reported(cli, audited, tables) == 1
    assert check(cli, audited) == (
        1,
        [
            (
                "contradiction",
                "`retry-backoff-cap.patch`: carry of an upstreamed patch (audit: upstreamed)",
                "change the decision, or say in its reason why the evidence does not hold",
            ),
            (
                "condition-met",
                "`retry-backoff-cap.patch`: Retires-when 'the pin that carries #12' is met: "
                "audit finds the change upstream; decided carry",
                "decide retire (a runtime entry: remove) and take it out, or correct the condition",
            ),
        ],
    )


def test_a_patch_that_rides_with_a_removed_one(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch", "metrics-redirects.patch")
    tables = {**AGREEING, "metrics-redirects.patch": ("remove", "")}
    reported(cli, audited, tables)
    assert check(cli, audited) == (
        1,
        [
            (
                "condition-met",
                "`metrics-same-host.patch`: Retires-when 'rides with metrics-redirects' is met: "
                "metrics-redirects.patch is decided remove; decided carry",
                "decide retire (a runtime entry: remove) and take it out, or correct the condition",
            )
        ],
    )


def test_a_retired_patch_the_evidence_does_not_find_upstream(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch", "metrics-same-host.patch")
    reported(cli, audited, {**AGREEING, "metrics-same-host.patch": ("retire", "")})
    write_decisions(audited, {**AGREEING, "client-describe-version.patch": ("retire", "")})
    drop_from_series(audited, "client-describe-version.patch")
    cli("report", cwd=audited)
    code, findings = check(cli, audited)
    assert code == 1
    assert findings == [
        (
            "unknown-key",
            "`metrics-same-host.patch` is decided carry, but it is not in the series",
            "decide retire if it was taken out on purpose ('patchkeeper retire', a port); else "
            "delete its table from the decisions file, or correct the key to the name the "
            "series gives",
        )
    ]
    # On the terminal too, the finding names the table it is about.
    assert cli("report", "--check", cwd=audited).out.splitlines()[1:] == [
        "  unknown-key: patchkeeper-decisions.toml:26: `metrics-same-host.patch` is decided "
        "carry, but it is not in the series: decide retire if it was taken out on purpose "
        "('patchkeeper retire', a port); else delete its table from the decisions file, or "
        "correct the key to the name the series gives"
    ]


def test_a_patch_taken_out_with_retire_is_to_be_decided_retire(cli, audited: Path) -> None:
    """``retire`` takes a patch out of the series and records it in the ledger; its table in
    the decisions file stays, and the finding says to decide it retire (seen after retiring
    a patch of Debian's python-internetarchive series, decided carry by ``decide``)."""
    drop_from_series(audited, "retry-backoff-cap.patch")
    reported(cli, audited, AGREEING)
    run = cli("retire", "metrics-same-host.patch", "--at", "1.1", "--why", "upstream", cwd=audited)
    assert run.code == 0
    code, findings = check(cli, audited)
    assert (code, [f for f in findings if f[0] == "unknown-key"]) == (
        1,
        [
            (
                "unknown-key",
                "`metrics-same-host.patch` is decided carry, but it is not in the series",
                "decide retire if it was taken out on purpose ('patchkeeper retire', a port); "
                "else delete its table from the decisions file, or correct the key to the name "
                "the series gives",
            )
        ],
    )
    write_decisions(audited, {**AGREEING, "metrics-same-host.patch": ("retire", "")})
    cli("report", cwd=audited)
    assert check(cli, audited) == (0, [])


def test_the_environment_changed(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    reported(cli, audited, AGREEING)
    record_files = (".patchkeeper/evidence", "patchkeeper-decisions.toml", "AUDIT.md", "AUDIT.html")
    before, count = tree_digest(audited, record_files)
    (audited / "patches" / "notes.txt").write_text("a change outside the record\n")
    after, _ = tree_digest(audited, record_files)
    assert check(cli, audited) == (
        1,
        [
            (
                "environment-changed",
                f'environment changed: sources.0.identity: "tree sha256 {before} ({count} files)"'
                f' -> "tree sha256 {after} ({count + 1} files)"',
                "a tree the record read changed since it was written (an edit, a retire, a "
                "port): run the evidence commands again on it and then patchkeeper report",
            )
        ],
    )


@pytest.mark.slow  # makes a venv
def test_another_interpreter(cli, audited: Path, tmp_path: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    reported(cli, audited, AGREEING)
    other = tmp_path / "other"
    venv.create(other, with_pip=False)
    code, findings = check(cli, audited, "--python", str(other / "bin" / "python"))
    assert code == 1
    assert [message for _, message, _ in findings] == [
        f'environment changed: interpreter.executable: "{sys.executable}" -> "{other}/bin/python"',
        f'environment changed: interpreter.prefix: "{sys.prefix}" -> "{other}"',
        f'environment changed: notes.0: "minihttp is not installed in `{sys.executable}`" -> '
        f'"minihttp is not installed in `{other}/bin/python`"',
    ]
    # the interpreter changed, not a tree: the hint is about the interpreter
    assert {hint for _, _, hint in findings} == {
        "pass report --python the audited interpreter, or run the evidence commands again in "
        "this environment and then patchkeeper report"
    }


def test_the_record_is_older_than_the_decisions(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    reported(cli, audited, AGREEING)
    path = audited / "patchkeeper-decisions.toml"
    text = path.read_text()
    table = text.index('[series."metrics-redirects.patch"]')
    path.write_text(text[:table] + text[table:].replace('"reviewed"', '"re-reviewed"', 1))
    assert check(cli, audited) == (
        1,
        [
            (
                "record-not-current",
                "AUDIT.md differs from what report writes now",
                "run patchkeeper report",
            )
        ],
    )


def test_no_record_at_all(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    write_decisions(audited, AGREEING)
    assert check(cli, audited) == (
        1,
        [
            ("record-not-current", "no recorded environment", "run patchkeeper report"),
            ("record-not-current", "AUDIT.md is missing", "run patchkeeper report"),
        ],
    )
    # The headline says there is no record, not that a record is stale or false.
    run = cli("report", "--check", cwd=audited)
    assert run.out.splitlines()[0] == (
        f"the record {audited}/AUDIT.md does not exist: 2 findings (6 series patches, "
        "0 runtime entries, 1 retired, 7 decided)"
    )
    assert json.loads(cli("report", "--check", "--json", cwd=audited).out)["missing"] is True


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.mark.slow
def test_a_committed_record_in_a_git_downstream_stays_current(cli, audited: Path) -> None:
    drop_from_series(audited, "retry-backoff-cap.patch")
    write_decisions(audited, AGREEING)
    git(audited, "init", "-q")
    git(audited, "add", ".")
    git(audited, "commit", "-qm", "series and decisions")
    assert cli("report", cwd=audited).code == 0
    git(audited, "add", ".")
    git(audited, "commit", "-qm", "the audit record")
    assert cli("report", "--check", cwd=audited).code == 0
    (audited / "patches" / "series").write_text((audited / "patches" / "series").read_text() + "\n")
    code, findings = check(cli, audited)
    assert code == 1
    assert [message.split(": ", 2)[1] for _, message, _ in findings] == [
        "sources.0.detail",
        "sources.0.dirty",
    ]


def test_decides_suggestions_fail_the_check_until_a_person_accepts_them(cli, audited: Path) -> None:
    """``decide`` fills every table with a suggestion; nobody has reviewed them, so the
    record is not true yet: ``report --check`` names each suggested table (file, line, key)
    until a person accepts it (deletes ``suggested: ``) or writes another decision."""
    drop_from_series(audited, "retry-backoff-cap.patch")
    assert cli("decide", cwd=audited).code == 0
    path = audited / "patchkeeper-decisions.toml"
    text = path.read_text()
    assert 'decision = "suggested: carry"\n' in text
    assert cli("report", cwd=audited).code == 1
    run = cli("report", "--check", cwd=audited)
    assert run.code == 1
    lines = {
        "redirect-strip-proxy-auth.patch": (12, "update"),
        "headers-merge-order.patch": (20, "update"),
        "client-describe-version.patch": (28, "carry"),
        "metrics-redirects.patch": (36, "carry"),
        "metrics-same-host.patch": (44, "carry"),
        "redirect-strip-api-key.patch": (52, "update"),
    }
    assert run.out.splitlines() == [
        f"the record {audited}/AUDIT.md is stale or false: 6 findings "
        "(6 series patches, 0 runtime entries, 0 decided, 6 suggested)",
        *(
            f"  not-reviewed: patchkeeper-decisions.toml:{line}: `{key}`: decide suggested "
            f'"{word}" and nobody has reviewed it: delete "suggested: " from its decision to '
            "accept it, or write your own"
            for key, (line, word) in lines.items()
        ),
    ]
    data = json.loads(cli("report", "--check", "--json", cwd=audited).out)
    assert data["counts"] == {
        "series": 6,
        "runtime": 0,
        "retired": 0,
        "unknown": 0,
        "decided": 0,
        "suggested": 6,
    }
    assert data["findings"] == [
        {
            "code": "not-reviewed",
            "path": "patchkeeper-decisions.toml",
            "line": line,
            "message": f"patchkeeper-decisions.toml:{line}: `{key}`: decide suggested "
            f'"{word}" and nobody has reviewed it',
            "hint": 'delete "suggested: " from its decision to accept it, or write your own',
        }
        for key, (line, word) in lines.items()
    ]
    # A person accepts two, changes one and leaves three: only those three are named.
    accepted = text.replace('decision = "suggested: carry"', 'decision = "carry"', 2).replace(
        'decision = "suggested: update"', 'decision = "retain"', 1
    )
    path.write_text(accepted)
    cli("report", cwd=audited)
    assert [message for code, message, _ in check(cli, audited)[1] if code == "not-reviewed"] == [
        f"patchkeeper-decisions.toml:{line}: `{key}`: decide suggested "
        f'"{word}" and nobody has reviewed it'
        for key, line, word in (
            ("headers-merge-order.patch", 20, "update"),
            ("metrics-same-host.patch", 44, "carry"),
            ("redirect-strip-api-key.patch", 52, "update"),
        )
    ]


def test_the_summary_counts_the_tables_of_patches_no_longer_carried(cli, audited: Path) -> None:
    """After an upgrade's port takes patches out of the series, their tables stay in the
    decisions file, each suggestion still a ``not-reviewed`` finding: the summary counts
    them (``retired`` when decided retire, a table of an unknown key otherwise), so that
    its kinds add up to the rows and ``suggested`` to the ``not-reviewed`` findings."""
    assert cli("decide", cwd=audited).code == 0
    drop_from_series(audited, "retry-backoff-cap.patch", "headers-merge-order.patch")
    assert cli("report", cwd=audited).code == 1
    run = cli("report", "--check", cwd=audited)
    assert run.code == 1
    head, *listed = run.out.splitlines()
    assert head == (
        f"the record {audited}/AUDIT.md is stale or false: 8 findings (5 series patches, "
        "0 runtime entries, 1 retired, 1 table of an unknown key, 0 decided, 7 suggested)"
    )
    assert [line.split(": ")[0] for line in listed] == ["  not-reviewed"] * 7 + ["  unknown-key"]
    data = json.loads(cli("report", "--check", "--json", cwd=audited).out)
    assert data["counts"] == {
        "series": 5,
        "runtime": 0,
        "retired": 1,
        "unknown": 1,
        "decided": 0,
        "suggested": 7,
    }
    kinds = [f["code"] for f in data["findings"]]
    assert kinds.count("not-reviewed") == data["counts"]["suggested"]


def test_a_missing_python_is_refused_whether_or_not_an_environment_is_recorded(
    cli, audited: Path
) -> None:
    """Without a recorded environment the interpreter is never run: ``--python
    does/not/exist`` passed unnoticed, the check answering as if it had not been given."""
    hint = (
        "  hint: give --python the path of a Python executable (a virtual environment's "
        ".venv/bin/python)\n"
    )
    cases = [("does/not/exist", "no such file"), ("nosuch-python-9", "no such command on PATH")]
    for recorded in (False, True):
        if recorded:
            drop_from_series(audited, "retry-backoff-cap.patch")
            assert reported(cli, audited, AGREEING) == 0
        for given, problem in cases:
            run = cli("report", "--check", "--python", given, cwd=audited)
            assert (run.code, run.out, run.err) == (
                2,
                "",
                f"patchkeeper: error: --python {given}: {problem}\n{hint}",
            ), (recorded, given)
