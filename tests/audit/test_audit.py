"""``audit --to``: every verdict, with its evidence, on the bundled example."""

from __future__ import annotations

import json

from helpers import Example, tree_bytes

EXPECTED = [
    ("retry-backoff-cap.patch", "upstreamed"),
    ("redirect-strip-proxy-auth.patch", "conflict"),
    ("headers-merge-order.patch", "target gone"),
    ("client-describe-version.patch", "offset"),
    ("metrics-redirects.patch", "offset"),
    ("metrics-same-host.patch", "clean"),
    ("redirect-strip-api-key.patch", "blocked"),
]


def test_audit_example_verdicts_and_evidence(cli, example: Example) -> None:
    before = tree_bytes(example.new)
    run = cli("audit", "--json", "--to", str(example.new), cwd=example.downstream)
    assert run.code == 1
    data = json.loads(run.out)
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == EXPECTED
    by_name = {v["name"]: v for v in data["verdicts"]}
    assert by_name["retry-backoff-cap.patch"]["summary"] == (
        "every hunk's post-image is there (retry.py #1); 2 of 2 substantive added lines "
        "already upstream (strongest: retry.py 2/2); to do: retire (upstream has it)"
    )
    assert [v["action"] for v in data["verdicts"]] == [
        "retire", "port", "port", "carry", "carry", "carry", "port"
    ]  # fmt: skip
    # the rule that decided each verdict and action
    assert [v["rule"] for v in data["verdicts"]] == [
        "hunks-present", "hunks-fail", "file-moved", "applies", "applies", "applies", "blocked"
    ]  # fmt: skip
    assert data["pin_tree"] == f"directory {example.old.resolve()}"
    assert by_name["headers-merge-order.patch"]["moved"] == [
        {
            "path": "headers.py",
            "likely": "httputil.py",
            "found": 4,
            "total": 4,
            "reason": "same content",
        }
    ]
    assert (
        by_name["redirect-strip-api-key.patch"]["blocked_by"] == "redirect-strip-proxy-auth.patch"
    )
    assert by_name["client-describe-version.patch"]["max_offset"] == 5
    conflict = by_name["redirect-strip-proxy-auth.patch"]
    hunk = conflict["failures"][0]["hunks"][0]
    assert (hunk["path"], hunk["index"], hunk["header"], hunk["patch_line"]) == (
        "retry.py",
        1,
        "@@ -8,7 +8,7 @@ class Retry:",
        16,
    )
    assert (hunk["closest_line"], hunk["matching"], hunk["total"]) == (8, 6, 7)
    assert hunk["mismatches"] == [
        {
            "line": 11,
            "expected": '    REMOVE_ON_REDIRECT = frozenset(["Authorization"])',
            "found": '    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])',
        }
    ]
    assert tree_bytes(example.new) == before  # audit never writes


def test_audit_text_and_markdown(cli, example: Example, tmp_path) -> None:
    report = tmp_path / "audit.md"
    run = cli("audit", "--to", str(example.new), "--markdown", str(report), cwd=example.downstream)
    assert run.code == 1
    assert (
        "7 patches: 1 clean, 2 offset, 1 upstreamed, 1 conflict, 1 target gone, 1 blocked"
        in run.out
    )
    assert "to retire (already upstream): retry-backoff-cap.patch" in run.out
    assert (
        "        line 11: expected '    REMOVE_ON_REDIRECT = frozenset([\"Authorization\"])'"
        in run.out
    )
    markdown = report.read_text()
    assert markdown.startswith("## patchkeeper audit: 1.1\n")  # the version its pyproject declares
    assert (
        "| `headers-merge-order.patch` | target gone | headers.py no longer exists; likely "
        "moved to httputil.py (same content: 4 of 4 context lines found there); to do: port "
        "(onto the file its content moved to) |" in markdown
    )
    assert "### To retire\n\n- `retry-backoff-cap.patch`\n" in markdown


def test_audit_against_the_pin_itself_is_clean(cli, example: Example) -> None:
    run = cli("audit", "--to", str(example.old), cwd=example.downstream)
    assert run.code == 0
    assert "7 patches: 7 clean" in run.out
