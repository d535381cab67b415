"""End-to-end: apply, verify, status and unapply on copies of the bundled example.

Every run goes through ``patchkeeper.main.main`` (the ``cli`` fixture) and asserts the exit
code, the exact output lines and the exact bytes of the tree. The bytes ``apply`` writes are
compared with what GNU ``patch -p1 --fuzz 0`` makes of the same series on another copy.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import EXAMPLE_SERIES as SERIES
from helpers import Example, tree_bytes

CHANGED = ["client.py", "headers.py", "metrics.py", "retry.py"]


def gnu_patch(tree: Path, patches_dir: Path, names: list[str]) -> None:
    """Apply ``names`` in order with GNU patch (``-p1 --fuzz 0``) inside ``tree/minihttp``."""
    for name in names:
        subprocess.run(
            [
                "patch",
                "-p1",
                "--fuzz",
                "0",
                "--batch",
                "--no-backup-if-mismatch",
                "-s",
                "-d",
                str(tree / "minihttp"),
                "-i",
                str(patches_dir / name),
            ],
            check=True,
        )


def status_table(states: list[str]) -> list[str]:
    width = max(len(state) for state in states)
    return [f"  {state.ljust(width)}  {name}" for state, name in zip(states, SERIES)]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_apply_matches_gnu_patch_and_is_idempotent(cli, example: Example) -> None:
    target = example.target()
    reference = example.target("gnu")
    gnu_patch(reference, example.downstream / "patches", SERIES)
    pristine = tree_bytes(target)

    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [
        f"applied 7 patches on directory {target.resolve()}: 4 files changed"
    ]
    after = tree_bytes(target)
    assert after == tree_bytes(reference)
    assert sorted(k for k in after if after[k] != pristine.get(k)) == [
        f"minihttp/{name}" for name in CHANGED
    ]
    assert not (target / ".patchkeeper").exists()  # the journal is gone after the commit

    again = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (again.code, again.err) == (0, "")
    assert again.out.splitlines() == [
        f"apply: the series is already applied on directory {target.resolve()}",
        "nothing was changed",
    ]
    assert tree_bytes(target) == after


def test_offsets_are_reported_and_match_gnu_patch(cli, example: Example) -> None:
    target = example.target()
    reference = example.target("gnu")
    for tree in (target, reference):
        retry = tree / "minihttp" / "retry.py"
        retry.write_bytes(
            b"# vendored copy\n# (two lines added by the vendor)\n" + retry.read_bytes()
        )
    gnu_patch(reference, example.downstream / "patches", SERIES)

    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.code == 0
    assert run.out.splitlines() == [
        f"applied 7 patches on directory {target.resolve()}: 4 files changed",
        "  offset: retry-backoff-cap.patch retry.py hunk #1 at line 12 (+2 lines)",
        "  offset: redirect-strip-proxy-auth.patch retry.py hunk #1 at line 10 (+2 lines)",
        "  offset: redirect-strip-api-key.patch retry.py hunk #1 at line 10 (+2 lines)",
    ]
    assert tree_bytes(target) == tree_bytes(reference)
    verify = cli(
        "verify", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert verify.code == 1  # the two vendor lines are drift against the pristine 1.0
    assert verify.out.splitlines()[-1] == "not ok: 7 of 7 patches applied, 1 file drifted"


def test_status_and_verify_on_applied_and_pristine(cli, example: Example) -> None:
    target = example.target()
    label = f"directory {target.resolve()} against directory {example.old.resolve()}"
    pristine = ("--pristine", str(example.old))

    run = cli("verify", "--target", str(target), *pristine, cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines() == [
        f"verify: {label}",
        *status_table(["not applied"] * 7),
        "not ok: 0 of 7 patches applied, 0 files drifted",
    ]

    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    for command in ("verify", "status"):
        run = cli(command, "--target", str(target), *pristine, cwd=example.downstream)
        assert (run.code, run.err) == (0, "")
        assert run.out.splitlines() == [
            f"{command}: {label}",
            *status_table(["applied"] * 7),
            "ok: 7 of 7 patches applied, 0 files drifted",
        ]


def test_verify_without_a_pristine_reference_is_an_input_error(cli, example: Example) -> None:
    target = example.target()
    config = example.downstream / "patchkeeper.toml"
    config.write_text('series = "patches/series"\ndirectory = "minihttp"\n')  # no pin
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        "patchkeeper: error: verify needs a pristine reference for a directory target",
        "  hint: pass --pristine DIR|REQUIREMENT, or configure upstream and pin",
    ]
    status = cli("status", "--target", str(target), cwd=example.downstream)
    assert status.code == 1
    assert status.out.splitlines()[-1] == (
        "not ok: 0 of 7 patches applied; drift not checked (no pristine reference: pass --pristine)"
    )


def test_partially_applied_target_is_refused_and_listed(cli, example: Example) -> None:
    target = example.target()
    gnu_patch(target, example.downstream / "patches", SERIES[:3])
    before = tree_bytes(target)

    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (1, "")
    missing = [
        "    client-describe-version.patch: client.py hunk #1 not applied",
        "    metrics-redirects.patch: client.py hunk #1 not applied",
        "    metrics-redirects.patch: metrics.py hunk #1 not applied",
        "    metrics-same-host.patch: metrics.py hunk #1 not applied",
        "    metrics-same-host.patch: metrics.py hunk #2 not applied",
        "    redirect-strip-api-key.patch: retry.py hunk #1 not applied",
    ]
    states = ["applied"] * 3 + ["not applied"] * 4
    assert run.out.splitlines() == [
        f"apply: the series is partially applied on directory {target.resolve()}",
        *status_table(states),
        *missing,
        "nothing was changed; run 'patchkeeper status' for details, "
        "then 'patchkeeper unapply' or restore the upstream",
    ]
    assert tree_bytes(target) == before

    status = cli(
        "status", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert status.code == 1
    assert status.out.splitlines()[1:] == [
        *status_table(states),
        *missing,
        "not ok: 3 of 7 patches applied, 0 files drifted",
    ]
    assert tree_bytes(target) == before


def test_partially_applied_patch_names_its_hunks(cli, example: Example) -> None:
    """metrics-same-host has two hunks; only the first is applied by hand."""
    target = example.target()
    gnu_patch(target, example.downstream / "patches", SERIES[:5])
    metrics = target / "minihttp" / "metrics.py"
    text = metrics.read_text()
    metrics.write_text(text.replace("REDIRECTS = 0\n", "REDIRECTS = 0\nSAME_HOST = 0\n"))
    before = tree_bytes(target)

    run = cli(
        "status", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert run.code == 1
    assert run.out.splitlines()[1:] == [
        *status_table(["applied"] * 5 + ["partially applied", "not applied"]),
        "    metrics-same-host.patch: metrics.py hunk #1 applied (line 1)",
        "    metrics-same-host.patch: metrics.py hunk #2 not applied",
        "    redirect-strip-api-key.patch: retry.py hunk #1 not applied",
        "not ok: 5 of 7 patches applied, 0 files drifted",
    ]
    refused = cli("apply", "--target", str(target), cwd=example.downstream)
    assert refused.code == 1
    assert refused.out.splitlines()[0] == (
        f"apply: the series is partially applied on directory {target.resolve()}"
    )
    assert tree_bytes(target) == before


def test_drift_after_apply_is_named(cli, example: Example) -> None:
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    client = target / "minihttp" / "client.py"
    edited = client.read_bytes().replace(b"follow redirects", b"follow REDIRECTS", 1)
    client.write_bytes(edited)
    pristine_client = (example.old / "minihttp" / "client.py").read_bytes()
    undone = pristine_client.replace(b"follow redirects", b"follow REDIRECTS", 1)
    assert undone != pristine_client

    run = cli(
        "verify", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert run.code == 1
    assert run.out.splitlines()[1:] == [
        *status_table(["applied"] * 7),
        f"  drift: client.py differs from pristine once the series is undone "
        f"(sha256 {sha(undone)[:12]}, pristine {sha(pristine_client)[:12]})",
        "not ok: 7 of 7 patches applied, 1 file drifted",
    ]
    data = json.loads(
        cli(
            "verify",
            "--json",
            "--target",
            str(target),
            "--pristine",
            str(example.old),
            cwd=example.downstream,
        ).out
    )
    assert [f for f in data["state"]["files"] if f["drifted"]] == [
        {
            "path": "client.py",
            "drifted": True,
            "expected_sha256": sha(pristine_client),
            "actual_sha256": sha(undone),
            "expected_mode": None,
            "actual_mode": None,
            "created": False,
        }
    ]

    before = tree_bytes(target)
    refused = cli(
        "unapply", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert refused.code == 1
    assert refused.out.splitlines()[-3:] == [
        "undoing the series would not give the pristine files; nothing was changed",
        "changed outside the series: client.py",
        "restore them from the upstream, or run 'patchkeeper unapply --force' to undo the "
        "series anyway (their current bytes are kept in a backup directory first)",
    ]
    assert tree_bytes(target) == before
    assert not (example.downstream / ".patchkeeper" / "backup").exists()


def test_unapply_returns_to_pristine_and_removes_created_directories(cli, example: Example) -> None:
    # A patch that creates a file two directories deep, appended to the series.
    patches = example.downstream / "patches"
    (patches / "telemetry.patch").write_text(
        "Subject: add a telemetry sink\n"
        "---\n"
        "diff --git a/contrib/sinks/log.py b/contrib/sinks/log.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ b/contrib/sinks/log.py\n"
        "@@ -0,0 +1,2 @@\n"
        "+def emit(event):\n"
        "+    return event\n"
    )
    with (patches / "series").open("a") as handle:
        handle.write("telemetry.patch\n")
    target = example.target()
    pristine = tree_bytes(target)

    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    assert (target / "minihttp/contrib/sinks/log.py").read_bytes() == (
        b"def emit(event):\n    return event\n"
    )
    run = cli(
        "unapply", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [
        f"unapplied 8 patches on directory {target.resolve()}: 5 files changed"
    ]
    assert tree_bytes(target) == pristine
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*")) == sorted(
        p.relative_to(example.old).as_posix() for p in example.old.rglob("*")
    )

    again = cli(
        "unapply", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert again.code == 0
    assert again.out.splitlines() == [
        f"unapply: the series is already pristine on directory {target.resolve()}",
        "nothing was changed",
    ]


def test_failing_patch_names_patch_file_hunk_and_closest_lines(cli, example: Example) -> None:
    target = example.root / "target"
    shutil.copytree(example.new, target)
    before = tree_bytes(target)

    run = cli("apply", "--target", str(target), cwd=example.downstream)
    # the tree is minihttp 1.1, as its pyproject.toml says: the series is pinned to 1.0
    assert (run.code, run.err.startswith(f"patchkeeper: warning: {target} is minihttp 1.1")) == (
        1,
        True,
    )
    assert run.out.splitlines() == [
        f"retry-backoff-cap.patch does not apply to directory {target.resolve()}",
        "  retry.py:",
        "    hunk #1 @@ -10,13 +10,16 @@ class Retry:  (patch line 17)",
        "      expected at line 10; closest match at line 13: 10 of 13 lines match",
        "      line 13: expected '    #: Headers removed when a redirect leaves the host.'",
        "               found    '    #: The longest wait between two attempts, in seconds.'",
        "      line 14: expected '    REMOVE_ON_REDIRECT = frozenset([\"Authorization\"])'",
        "               found    '    BACKOFF_MAX = 120'",
        "      line 22: expected '        return self.backoff_factor * (2 ** (attempt - 1))'",
        "               found    '        return min(self.BACKOFF_MAX, self.backoff_factor * (2 ** (attempt - 1)))'",
        "nothing was changed",
    ]
    assert tree_bytes(target) == before
    assert sorted(p.name for p in target.iterdir()) == ["minihttp", "pyproject.toml"]


def test_a_later_failing_patch_changes_nothing(cli, example: Example) -> None:
    """Patches 1..6 apply in memory; the 7th fails; not one byte is written."""
    target = example.target()
    patches = example.downstream / "patches"
    last = patches / "redirect-strip-api-key.patch"
    last.write_bytes(
        last.read_bytes().replace(b" \n     #: The longest", b" \n     #: The LONGEST")
    )
    before = tree_bytes(target)

    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines() == [
        f"redirect-strip-api-key.patch does not apply to directory {target.resolve()}",
        "  retry.py:",
        "    hunk #1 @@ -8,7 +8,7 @@ class Retry:  (patch line 16)",
        "      expected at line 8; closest match at line 8: 6 of 7 lines match",
        "      line 13: expected '    #: The LONGEST wait between two attempts, in seconds.'",
        "               found    '    #: The longest wait between two attempts, in seconds.'",
        "nothing was changed",
    ]
    assert tree_bytes(target) == before


MALFORMED = [
    pytest.param(
        # one more line on the old side only: equal counts on both sides would read as blank
        # context lines chopped off the patch's end, as GNU patch reads them
        lambda text: text.replace("@@ -10,13 +10,16 @@", "@@ -10,14 +10,16 @@"),
        34,
        "truncated hunk: the patch ends before the line counts of its header are met",
        id="counts-too-high",
    ),
    pytest.param(
        lambda text: text.replace("@@ -10,13 +10,16 @@", "@@ -10,12 +10,15 @@"),
        34,
        "hunk #1 of retry.py (@@ -10,12 +10,15 @@ class Retry:) has more lines than its header "
        "counts (12 old, 15 new): line 34 continues it",
        id="counts-too-low",
    ),
    pytest.param(
        lambda text: "".join(text.splitlines(keepends=True)[:25]),
        25,
        "truncated hunk: the patch ends before the line counts of its header are met",
        id="truncated",
    ),
    pytest.param(
        lambda text: "Subject: stray hunk\n\n@@ -1,1 +1,1 @@\n-a\n+b\n",
        3,
        "hunk before any file header",
        id="hunk-before-header",
    ),
    pytest.param(
        lambda text: (
            "Subject: logo\n---\n"
            "diff --git a/logo.png b/logo.png\n"
            "index 1234567..89abcde 100644\n"
            "Binary files a/logo.png and b/logo.png differ\n"
        ),
        3,
        "binary diff for logo.png: patchkeeper applies text diffs only",
        id="binary",
    ),
]


@pytest.mark.parametrize(("edit", "line", "message"), MALFORMED)
def test_malformed_patch_is_an_input_error_with_file_and_line(
    cli, example: Example, edit, line: int, message: str
) -> None:
    patch = example.downstream / "patches" / "retry-backoff-cap.patch"
    patch.write_text(edit(patch.read_text()))
    target = example.target()
    before = tree_bytes(target)
    for command in ("apply", "status"):
        run = cli(command, "--target", str(target), cwd=example.downstream)
        assert (run.code, run.out) == (2, "")
        assert run.err.splitlines()[0] == f"patchkeeper: error: {patch}:{line}: {message}"
    assert tree_bytes(target) == before


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('colour = "red"', "unknown key 'colour'"),
        ('lock-timeout = "soon"', "key 'lock-timeout' must be an integer or a number, not 'soon'"),
    ],
)
def test_bad_configuration_names_the_key(cli, example: Example, setting: str, message: str) -> None:
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text() + setting + "\n")
    target = example.target()
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    line = len(config.read_text().splitlines())  # the setting is the last line
    assert run.err.splitlines()[0] == f"patchkeeper: error: {config}:{line}: {message}"
    assert tree_bytes(target) == tree_bytes(example.old)


def test_wrong_type_replaces_a_default(cli, example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace("strip = 1", 'strip = "1"'))
    run = cli("apply", "--target", str(example.target()), cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"patchkeeper: error: {config}:5: key 'strip' must be an integer, not '1'",
        "  hint: fix 'strip' in patchkeeper.toml",
    ]


def test_json_outputs(cli, example: Example) -> None:
    target = example.target()
    applied = json.loads(
        cli("apply", "--json", "--target", str(target), cwd=example.downstream).out
    )
    assert applied["action"] == "apply"
    assert applied["outcome"] == "applied"
    assert applied["patches"] == SERIES
    assert applied["changed"] == CHANGED
    assert applied["offsets"] == []
    assert applied["failed_patch"] is None

    run = cli(
        "status",
        "--json",
        "--target",
        str(target),
        "--pristine",
        str(example.old),
        cwd=example.downstream,
    )
    assert run.code == 0
    data = json.loads(run.out)
    assert data["command"] == "status"
    assert [(p["name"], p["state"]) for p in data["state"]["patches"]] == [
        (name, "applied") for name in SERIES
    ]
    assert [(f["path"], f["drifted"]) for f in data["state"]["files"]] == [
        ("retry.py", False),
        ("headers.py", False),
        ("client.py", False),
        ("metrics.py", False),
    ]
    hunks = data["state"]["patches"][5]["applied_hunks"]
    assert [(h["path"], h["index"], h["line"]) for h in hunks] == [
        ("metrics.py", 1, 1),
        ("metrics.py", 2, 9),
    ]

    failed = cli("apply", "--json", "--target", str(example.new), cwd=example.downstream)
    assert failed.code == 1
    data = json.loads(failed.out)
    assert (data["outcome"], data["failed_patch"]) == ("failed", "retry-backoff-cap.patch")
    (failure,) = data["failures"]
    assert failure["path"] == "retry.py"
    assert [
        (h["index"], h["closest_line"], h["matching"], h["total"]) for h in failure["hunks"]
    ] == [(1, 13, 10, 13)]


def test_unapply_undoes_the_applied_patches_when_one_in_the_middle_was_undone_by_hand(
    cli, example: Example
) -> None:
    target = example.target()
    pristine = tree_bytes(target)
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    subprocess.run(
        [
            "patch",
            "-p1",
            "-R",
            "-s",
            "--fuzz",
            "0",
            "--no-backup-if-mismatch",
            "-d",
            str(target / "minihttp"),
            "-i",
            str(example.downstream / "patches" / "client-describe-version.patch"),
        ],
        check=True,
    )
    status = cli("status", "--target", str(target), cwd=example.downstream)
    assert status.out.splitlines()[1:] == [
        *status_table(["applied"] * 3 + ["not applied"] + ["applied"] * 3),
        "    client-describe-version.patch: client.py hunk #1 not applied",
        "not ok: 6 of 7 patches applied, 0 files drifted",
    ]
    run = cli("unapply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [
        f"unapplied 6 patches on directory {target.resolve()}: 4 files changed",
        "not applied, so left as they were: client-describe-version.patch; the target is "
        "pristine again (checked against the pristine reference)",
    ]
    assert tree_bytes(target) == pristine


def test_unapply_refuses_a_patch_that_is_half_applied(cli, example: Example) -> None:
    target = example.target()
    gnu_patch(target, example.downstream / "patches", SERIES[:5])
    metrics = target / "minihttp" / "metrics.py"
    metrics.write_text(
        metrics.read_text().replace("REDIRECTS = 0\n", "REDIRECTS = 0\nSAME_HOST = 0\n")
    )
    before = tree_bytes(target)
    run = cli("unapply", "--target", str(target), cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines()[-1] == (
        "nothing was changed: metrics-same-host.patch is neither applied nor undone (see "
        "'patchkeeper status'); undo its applied hunks by hand, or reinstall the upstream"
    )
    assert tree_bytes(target) == before
