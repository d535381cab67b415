"""Upstream history as evidence (``--upstream-repo``) on a real git repository.

The repository is built from the example's two upstream trees (two tagged commits) with the
upstream changes between them as commits of their own, with squash-merge ``(#N)`` subjects.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from port_support import git, resolve, start, upstream_repository

from helpers import Example

OLD_RETRY_LINE = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization"])\n'
COOKIE_LINE = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])\n'


def _retry_steps(example: Example) -> tuple[bytes, bytes]:
    """retry.py after #12 (the backoff cap) and after #14 (cookies): the latter is 1.1's."""
    new = (example.new / "minihttp" / "retry.py").read_bytes()
    after_12 = new.replace(COOKIE_LINE, OLD_RETRY_LINE)
    return after_12, new


@pytest.fixture
def upstream(example: Example, tmp_path: Path) -> Path:
    after_12, after_14 = _retry_steps(example)
    moved = (example.new / "minihttp" / "httputil.py").read_bytes()
    return upstream_repository(
        tmp_path / "minihttp.git",
        ("v1.0", example.old),
        ("v1.1", example.new),
        [
            ("Cap the retry backoff at BACKOFF_MAX (#12)", {"minihttp/retry.py": after_12}),
            ("Strip cookies on cross-host redirects (#14)", {"minihttp/retry.py": after_14}),
            (
                "Move the header helpers to httputil (#16)",
                {"minihttp/headers.py": None, "minihttp/httputil.py": moved},
            ),
            ("Merge pull request #17 from someone/docs", {}),
        ],
    )


def commit_of(repo: Path, subject: str) -> str:
    return git(repo, "log", "--all", "-F", f"--grep={subject}", "--format=%H")


def test_references_and_causes_from_the_upstream_history(
    cli, example: Example, upstream: Path
) -> None:
    run = start(cli, example, "--upstream-repo", str(upstream))
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert data["history"] == f"{upstream} (v1.0..v1.1)"
    by_name = {p["name"]: p for p in data["patches"]}
    cap = commit_of(upstream, "(#12)")
    cookie = commit_of(upstream, "(#14)")
    move = commit_of(upstream, "(#16)")
    assert by_name["retry-backoff-cap.patch"]["references"] == [
        {
            "field": "Upstream",
            "text": "minihttp #12",
            "status": "in the new pin",
            "commit": {"id": cap, "subject": "Cap the retry backoff at BACKOFF_MAX (#12)"},
            "first_tag": "v1.1",
        }
    ]
    stopped = by_name["redirect-strip-proxy-auth.patch"]
    assert stopped["references"] == [
        {
            "field": "Upstream",
            "text": "minihttp #15",
            "status": "not found",
            "commit": None,
            "first_tag": None,
        }
    ]
    # the hunk's lines are 8-14 on the old pin (5 of its 7 lines; the other two come from
    # retry-backoff-cap), 8-17 on the new pin; both upstream commits changed them
    assert stopped["causes"] == [
        {
            "path": "retry.py",
            "hunk": 1,
            "header": "@@ -8,7 +8,7 @@ class Retry:",
            "old_range": [8, 14],
            "new_range": [8, 17],
            "commits": [
                {"id": cookie, "subject": "Strip cookies on cross-host redirects (#14)"},
                {"id": cap, "subject": "Cap the retry backoff at BACKOFF_MAX (#12)"},
            ],
            "file_commits": [],
            "note": "",
        }
    ]
    moved = by_name["headers-merge-order.patch"]
    assert moved["verdict"] == "merged"
    assert [(c["path"], c["note"], c["file_commits"]) for c in moved["causes"]] == [
        (
            "headers.py",
            "the file is gone from the new pin",
            [{"id": move, "subject": "Move the header helpers to httputil (#16)"}],
        )
    ]
    instructions = (
        example.downstream / ".patchkeeper-port" / "conflict" / "INSTRUCTIONS.md"
    ).read_text()
    assert (
        f"  - `{cookie[:12]}` Strip cookies on cross-host redirects (#14) (changed these lines)"
        in instructions
    )


def test_a_merge_commit_is_a_reference_too(cli, example: Example, upstream: Path) -> None:
    patch = example.downstream / "patches" / "metrics-same-host.patch"
    patch.write_bytes(patch.read_bytes().replace(b"Upstream: none", b"Upstream: minihttp #17"))
    run = start(cli, example, "--upstream-repo", str(upstream))
    data = json.loads(run.out)
    references = data["patches"][5]["references"]
    assert [(r["text"], r["status"], r["commit"]["subject"]) for r in references] == [
        ("minihttp #17", "in the new pin", "Merge pull request #17 from someone/docs")
    ]
    merge = commit_of(upstream, "Merge pull request #17")
    assert (
        f"metrics-same-host.patch: its Upstream reference minihttp #17 is in the new pin "
        f"({merge[:12]}, first in v1.1), yet the patch is clean, not upstreamed: upstream "
        "rewrote the change since; consider retiring it instead of carrying it"
    ) in data["todo"]


def test_a_url_reference_is_named_as_the_header_writes_it(
    cli, example: Example, upstream: Path
) -> None:
    """A DEP-3 URL (Debian's python-asyncssh: ``Forwarded:`` a pull request) is named whole,
    not by the part of it that is looked up (it was ``/minihttp/pull/17``)."""
    patch = example.downstream / "patches" / "metrics-same-host.patch"
    url = "https://github.com/example/minihttp/pull/17"
    patch.write_bytes(
        patch.read_bytes().replace(
            b"Upstream: none", b"Upstream: none\nForwarded: " + url.encode() + b","
        )
    )
    run = start(cli, example, "--upstream-repo", str(upstream))
    references = json.loads(run.out)["patches"][5]["references"]
    assert [(r["field"], r["text"], r["status"]) for r in references] == [
        ("Forwarded", url, "in the new pin")
    ]


def test_the_resolved_port_records_the_retirement_reason(
    cli, example: Example, upstream: Path
) -> None:
    ledger = example.downstream / "PATCHES.md"
    ledger.write_text("<!-- table:begin -->\n<!-- table:end -->\n")
    args = ["--in-place", "--retire", "--upstream-repo", str(upstream)]
    run = cli(
        "port", "--to", str(example.new), "--from", str(example.old), *args, cwd=example.downstream
    )
    assert run.code == 1
    files = example.downstream / ".patchkeeper-port" / "conflict" / "files"
    resolve(files / "retry.py", COOKIE_LINE.replace(b'"])', b'", "Proxy-Authorization"])'))
    assert cli("port", "--continue", cwd=example.downstream).code == 1
    resolve(
        files / "retry.py",
        COOKIE_LINE.replace(b'"])', b'", "Proxy-Authorization", "X-Api-Key"])'),
    )
    assert cli("port", "--continue", cwd=example.downstream).code == 0
    cap = commit_of(upstream, "(#12)")
    assert (
        "| retry-backoff-cap | backport | cap the retry backoff at BACKOFF_MAX (120 s) | 1.1 | "
        "upstreamed in 1.1: every hunk's post-image is there (retry.py #1); minihttp #12 is "
        f"{cap[:12]}, first in v1.1 |"
    ) in ledger.read_text()


def test_a_checkout_without_the_tags_is_an_input_error(
    cli, example: Example, tmp_path: Path
) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    run = cli(
        "port",
        "--to",
        str(example.new),
        "--from",
        str(example.old),
        "--upstream-repo",
        str(repo),
        cwd=example.downstream,
    )
    assert run.code == 2
    assert "the upstream checkout has no tag for 1.0 (tried v1.0, 1.0)" in run.err
