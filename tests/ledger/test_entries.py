"""Entries that are not patches: overlay, foreign diff, vendored tree with a PIN file."""

from __future__ import annotations

from pathlib import Path

import pytest
from ledger_support import commit_topic, config_at, git, make_upstream, write_files

from patchkeeper.errors import ConfigError
from patchkeeper.ledger import entries, lint
from patchkeeper.main import main

FIELDS = (
    'fields = { Kind = "feature", What = "w", Upstream = "none", Cut-against = "1.0", '
    'Retires-when = "stays" }\n'
)


def _configure(root: Path, table: str) -> None:
    path = root / "patchkeeper.toml"
    path.write_text(path.read_text() + "\n" + table)


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """Another repository (a vLLM fork's flash-attention / pth-flash-attn), two commits."""
    repo = make_upstream(
        tmp_path / "foreign",
        {
            "csrc/attn.cu": "int a = 1;\nint b = 2;\nint c = 3;\n",
            "py/fa.py": "X = 1\n",
            "README": "fa\n",
        },
        tag="v2.0",
    )
    commit_topic(repo, "later", "", {"csrc/attn.cu": "int a = 10;\nint b = 2;\nint c = 3;\n"})
    return repo


def test_overlay_files_for_apply_and_verify(downstream: Path, tmp_path: Path) -> None:
    write_files(downstream, {"kvarn/files/ops/kvarn.py": "K = 1\n", "kvarn/files/top.py": "T\n"})
    _configure(
        downstream,
        '[entries.overlays.kvarn]\nsource = "kvarn/files"\ntarget = "model_executor"\n' + FIELDS,
    )
    config = config_at(downstream)
    assert entries.overlay_files(config) == {
        "model_executor/ops/kvarn.py": b"K = 1\n",
        "model_executor/top.py": b"T\n",
    }
    tree = tmp_path / "tree"
    write_files(
        tree,
        {"pkg/model_executor/ops/kvarn.py": "K = 1\n", "pkg/model_executor/top.py": "changed\n"},
    )
    assert [f.text() for f in entries.check_overlay_tree(config, tree)] == [
        f"patchkeeper.toml: PK501 overlay file model_executor/top.py differs in {tree / 'pkg'}"
    ]


def test_overlay_lint_and_fields(downstream: Path) -> None:
    _configure(
        downstream,
        '[entries.overlays.kvarn]\nsource = "kvarn/files"\nfields = { Kind = "other" }\n',
    )
    findings = [f.text() for f in lint.lint_downstream(config_at(downstream)).findings]
    lines = (downstream / "patchkeeper.toml").read_text().splitlines()
    table = lines.index("[entries.overlays.kvarn]") + 1
    at = f"patchkeeper.toml:{table + 2}:"  # the fields key, two lines below the header
    add = "to the fields of [entries.overlays.kvarn]"
    assert findings == [
        f"{at} PK101 kvarn: missing field 'What': add What = \"...\" {add}",
        f"{at} PK101 kvarn: missing field 'Upstream': add Upstream = \"...\" {add}",
        f"{at} PK101 kvarn: missing field 'Cut-against': add Cut-against = \"...\" {add}",
        f"{at} PK101 kvarn: missing field 'Retires-when': add Retires-when = \"...\" {add}",
        f"{at} PK103 kvarn: kind 'other' is not one of backport, fix, feature, local, own",
        f"patchkeeper.toml:{table}: PK501 overlay 'kvarn': kvarn/files is missing or empty",
    ]


def test_entry_configuration_errors(downstream: Path) -> None:
    _configure(downstream, '[entries.overlays.bad]\nsource = "../outside"\n')
    with pytest.raises(ConfigError) as caught:
        entries.load_entries(config_at(downstream))
    assert caught.value.message == "source '../outside' is outside the downstream"
    text = (
        (downstream / "patchkeeper.toml").read_text().replace('source = "../outside"', "sauce = 1")
    )
    (downstream / "patchkeeper.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        entries.load_entries(config_at(downstream))
    assert caught.value.message == "unknown key 'entries.overlays.bad.sauce'"
    lines = (downstream / "patchkeeper.toml").read_text().splitlines()
    assert caught.value.line == lines.index("sauce = 1") + 1


@pytest.mark.parametrize(
    ("table", "message", "hint", "header"),
    [
        (
            '[entries.overlay.kvarn]\nsource = "kvarn/files"\n',
            "unknown key 'entries.overlay'",
            "did you mean 'overlays'? the known keys here are: foreign-diffs, overlays, vendored",
            "[entries.overlay.kvarn]",
        ),
        (
            "[entries.vendored]\npthfa = 5\n",
            "key 'entries.vendored.pthfa' must be a table",
            'write it as a table [entries.vendored.pthfa] with directory = "..."',
            "pthfa = 5",
        ),
        (
            '[entries.foreign-diffs.fa2]\ncommit = "abc"\n',
            "entry 'fa2' needs 'diff'",
            'add diff = "..." to [entries.foreign-diffs.fa2]',
            "[entries.foreign-diffs.fa2]",
        ),
        (
            '[entries.vendored.pthfa]\ndirectory = "  "\n',
            "entry 'pthfa' needs 'directory'",
            'add directory = "..." to [entries.vendored.pthfa]',
            'directory = "  "',
        ),
    ],
)
def test_entry_errors_name_the_whole_key_and_its_line(
    downstream: Path, capsys, table: str, message: str, hint: str, header: str
) -> None:
    """The error names the dotted key as the file writes it, and the line of the key or,
    for a table written only as a header, of the header; the hint spells the table as a
    patchkeeper.toml does."""
    _configure(downstream, table)
    lines = (downstream / "patchkeeper.toml").read_text().splitlines()
    assert main(["-C", str(downstream), "lint"]) == 2
    err = capsys.readouterr().err
    line = lines.index(header) + 1
    assert err == (
        f"patchkeeper: error: {downstream}/patchkeeper.toml:{line}: {message}\n  hint: {hint}\n"
    )


def test_foreign_diff_applies_at_its_pinned_commit(downstream: Path, foreign: Path, capsys) -> None:
    pinned = git(foreign, "rev-parse", "v2.0")
    write_files(
        downstream,
        {
            "fa2/fp8.diff": (
                "--- a/csrc/attn.cu\n+++ b/csrc/attn.cu\n@@ -1,3 +1,3 @@\n"
                " int a = 1;\n-int b = 2;\n"
                "+int b = 8;\n int c = 3;\n"
            )
        },
    )
    _configure(
        downstream,
        f'[entries.foreign-diffs.fa2]\ndiff = "fa2/fp8.diff"\ncommit = "{pinned}"\n' + FIELDS,
    )
    assert main(["-C", str(downstream), "lint", "--foreign-checkout", str(foreign)]) == 0
    assert capsys.readouterr().out == "no problems in 2 patches and 1 entry\n"
    # The checkout's HEAD moved on: the check still uses the pinned commit, not HEAD.
    assert git(foreign, "rev-parse", "HEAD") != pinned
    # Pinned at the later commit, the context 'int a = 1;' is gone: no fuzz, a finding.
    later = git(foreign, "rev-parse", "HEAD")
    text = (downstream / "patchkeeper.toml").read_text().replace(pinned, later)
    (downstream / "patchkeeper.toml").write_text(text)
    assert main(["-C", str(downstream), "lint", "--foreign-checkout", f"fa2={foreign}"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"fa2/fp8.diff: PK505 does not apply at {later[:12]}: patch failed: csrc/attn.cu:1",
        f"fa2/fp8.diff: PK505 does not apply at {later[:12]}: csrc/attn.cu: patch does not apply",
        "2 problems in 2 patches and 1 entry",
    ]
    # Without a checkout the diff is not checked (nothing to check it against).
    assert main(["-C", str(downstream), "lint"]) == 0


def test_a_foreign_checkout_that_is_no_directory_is_refused(
    downstream: Path, tmp_path: Path, capsys
) -> None:
    """A mistyped checkout is refused even when no entry needs one (it was ignored)."""
    before = sorted(p.relative_to(downstream) for p in downstream.rglob("*"))
    missing = tmp_path / "no-such-checkout"
    code = main(["-C", str(downstream), "lint", "--foreign-checkout", f"fa2={missing}"])
    err = capsys.readouterr().err
    assert (code, err.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for '--foreign-checkout': {missing}: no such directory; give "
        "the checkout the foreign diffs and vendored trees are compared with",
    )
    assert sorted(p.relative_to(downstream) for p in downstream.rglob("*")) == before


def test_vendored_tree_checked_file_by_file(downstream: Path, foreign: Path) -> None:
    pinned = git(foreign, "rev-parse", "v2.0")
    write_files(
        downstream,
        {
            "pthfa/PIN": f"# vendored from pth-flash-attn\n{pinned}\n",
            "pthfa/csrc/attn.cu": "int a = 1;\nint b = 2;\nint c = 3;\n",
            "pthfa/py/fa.py": "X = 2\n",
            "pthfa/install.sh": "#!/bin/sh\n",
            "pthfa/extra.txt": "ours\n",
        },
    )
    _configure(
        downstream,
        '[entries.vendored.pthfa]\ndirectory = "pthfa"\nexclude = ["install.sh"]\n'
        "complete = true\n" + FIELDS,
    )
    findings = [
        f.text()
        for f in lint.lint_downstream(
            config_at(downstream), lint.LintRequest(foreign_checkouts={"": foreign})
        ).findings
    ]
    assert findings == [
        f"pthfa/extra.txt: PK503 not in {pinned[:12]}",
        f"pthfa/py/fa.py: PK502 differs from {pinned[:12]}",
        f"pthfa/README: PK504 missing; {pinned[:12]} has it",
    ]
    assert entries.read_pin(downstream / "pthfa" / "PIN") == pinned
    (downstream / "pthfa" / "PIN").write_text("Repository: x\nCommit: v2.0\n")
    assert entries.read_pin(downstream / "pthfa" / "PIN") == "v2.0"
    (downstream / "pthfa" / "PIN").write_text("deadbeefdeadbeef\n")
    findings = [
        f.text()
        for f in lint.lint_downstream(
            config_at(downstream), lint.LintRequest(foreign_checkouts={"": foreign})
        ).findings
    ]
    table = (
        (downstream / "patchkeeper.toml").read_text().splitlines().index("[entries.vendored.pthfa]")
    )
    assert findings == [
        f"patchkeeper.toml:{table + 1}: PK506 pthfa: no commit 'deadbeefdeadbeef' in {foreign}: "
        "fetch the tag or commit into the checkout, or check its name"
    ]


def test_entry_rows_use_fields_case_insensitively(downstream: Path) -> None:
    _configure(
        downstream,
        '[entries.vendored.pthfa]\ndirectory = "pthfa"\n'
        'fields = { kind = "local", WHAT = "an extension" }\n',
    )
    rows = entries.entry_rows(config_at(downstream), ("Kind", "What", "Upstream"))
    assert [(r.name, r.values) for r in rows] == [("pthfa", ("local", "an extension", ""))]
