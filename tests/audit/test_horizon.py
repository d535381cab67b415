"""The upgrade horizon: ``audit --to RANGE`` judges the series at every release of the range.

Offline on the bundled example (minihttp 1.0, 1.1 and 1.2 under ``examples/upstream``); the
real index range is in ``tests/commands/test_horizon_real.py``.
"""

from __future__ import annotations

import json
import shutil

import pytest
from packaging.requirements import Requirement

from helpers import Example, tree_bytes
from patchkeeper.audit.horizon import in_range, is_range

TABLE_80 = """\
  patch                            1.0    1.1          1.2
  retry-backoff-cap.patch          clean  upstreamed   upstreamed
  redirect-strip-proxy-auth.patch  clean  conflict     conflict
  headers-merge-order.patch        clean  target gone  target gone
  client-describe-version.patch    clean  offset       upstreamed
  metrics-redirects.patch          clean  offset       conflict
  metrics-same-host.patch          clean  clean        blocked
  redirect-strip-api-key.patch     clean  blocked      blocked
"""

TABLE_50 = """\
  patch                  1.0    1.1       1.2
  retry-backoff-cap....  clean  upstr.    upstr.
  redirect-strip-pro...  clean  conflict  conflict
  headers-merge-orde...  clean  gone      gone
  client-describe-ve...  clean  offset    upstr.
  metrics-redirects....  clean  offset    conflict
  metrics-same-host....  clean  clean     blocked
  redirect-strip-api...  clean  blocked   blocked
  (gone = target gone, upstr. = upstreamed)
"""


def test_horizon_table_at_80_columns(cli, example: Example, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    before = tree_bytes(example.root)
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream", cwd=example.downstream)
    series = example.downstream / "patches" / "series"
    assert run.code == 1
    head, table, tail = run.out.split("\n\n")
    # $COLUMNS is set: every line fits it; the head's long paths wrap (docs/terminal-output.md)
    words = (
        f"upgrade horizon of {series} (pin 1.0)\n"
        "releases in minihttp>=1.0: 1.0, 1.1, 1.2\n"
        f"weighed against the old pin's tree: directory {example.old}"
    )
    assert "".join(head.split()) == "".join(words.split())  # the same text, wrapped
    assert table + "\n" == TABLE_80
    assert tail == ("next pin: stay at 1.0 (highest release that needs no patch ported by hand)\n")
    assert max(len(line) for line in run.out.splitlines()) <= 80
    assert tree_bytes(example.root) == before  # a command that reads writes nothing


def test_horizon_releases_unpacked_into_directories_of_their_name(
    cli, example: Example, monkeypatch, tmp_path
) -> None:
    """``--releases`` whose ``NAME-VERSION`` directories each hold only the sdist's own
    ``NAME-VERSION`` directory (as an archive unpacked into a directory named after it, and
    as patchkeeper's cache keeps them) are judged there: a new user's ``--releases
    ~/.cache/patchkeeper-corpus/trees/markdown`` got *target gone* for every patch, at the
    pin too."""
    monkeypatch.setenv("COLUMNS", "80")
    for version in ("1.0", "1.1", "1.2"):
        name = f"minihttp-{version}"
        shutil.copytree(example.root / "upstream" / name, tmp_path / "rel" / name / name)
    (tmp_path / "rel" / "minihttp-1.2" / "minihttp-1.2").rename(
        tmp_path / "rel" / "minihttp-1.2" / "MiniHTTP-1.2"
    )
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", str(tmp_path / "rel"),
              cwd=example.downstream)  # fmt: skip
    assert run.code == 1
    assert run.out.split("\n\n")[1] + "\n" == TABLE_80


def test_horizon_table_narrow_terminal_uses_short_words(cli, example: Example, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream", cwd=example.downstream)
    assert run.code == 1
    table = run.out.split("\n\n")[1] + "\n"
    assert table == TABLE_50
    assert max(len(line) for line in table.splitlines()) <= 50


TABLE_30 = """\
  patch             1.0
  retry-backoff...  clean
  redirect-stri...  clean
  headers-merge...  clean
  client-descri...  clean
  metrics-redir...  clean
  metrics-same-...  clean
  redirect-stri...  clean

  patch             1.1
  retry-backoff...  upstr.
  redirect-stri...  conflict
  headers-merge...  gone
  client-descri...  offset
  metrics-redir...  offset
  metrics-same-...  clean
  redirect-stri...  blocked

  patch             1.2
  retry-backoff...  upstr.
  redirect-stri...  conflict
  headers-merge...  gone
  client-descri...  upstr.
  metrics-redir...  conflict
  metrics-same-...  blocked
  redirect-stri...  blocked
"""


def test_horizon_releases_that_do_not_fit_side_by_side_get_blocks(
    cli, example: Example, monkeypatch
) -> None:
    """When the releases do not fit side by side even in short words, each block of
    releases that does is a table of its own: a table row folded by the wrapper put a
    verdict under another release's column (a new user's six-release certifi horizon at
    40 columns)."""
    monkeypatch.setenv("COLUMNS", "30")
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream", cwd=example.downstream)
    assert run.code == 1
    start = run.out.index("  patch ")
    end = run.out.index("  (gone = ")
    assert run.out[start:end] == TABLE_30
    assert max(len(line) for line in TABLE_30.splitlines()) <= 30


def test_horizon_of_an_empty_series(cli, example: Example) -> None:
    (example.downstream / "patches" / "series").write_text("# nothing carried yet\n")
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream", cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.split("\n\n")[1:] == [
        "  patch  1.0  1.1  1.2",
        "next pin: 1.2 (highest release that needs no patch ported by hand)\n",
    ]


def test_horizon_range_excludes_the_pin_and_suggests_no_pin(cli, example: Example) -> None:
    markdown = example.root / "horizon.md"
    run = cli(
        "audit",
        "--to",
        "minihttp>1.0",
        "--releases",
        "../upstream",
        "--markdown",
        str(markdown),
        "--json",
        cwd=example.downstream,
    )
    assert run.code == 1
    data = json.loads(run.out)
    assert data["requirement"] == "minihttp>1.0"
    assert data["next_pin"] is None
    assert data["patches"] == [
        "retry-backoff-cap.patch",
        "redirect-strip-proxy-auth.patch",
        "headers-merge-order.patch",
        "client-describe-version.patch",
        "metrics-redirects.patch",
        "metrics-same-host.patch",
        "redirect-strip-api-key.patch",
    ]
    assert [
        (r["version"], r["target"], [v["verdict"] for v in r["verdicts"]]) for r in data["releases"]
    ] == [
        (
            "1.1",
            f"directory {example.root / 'upstream' / 'minihttp-1.1'}",
            ["upstreamed", "conflict", "target gone", "offset", "offset", "clean", "blocked"],
        ),
        (
            "1.2",
            f"directory {example.root / 'upstream' / 'minihttp-1.2'}",
            [
                "upstreamed",
                "conflict",
                "target gone",
                "upstreamed",
                "conflict",
                "blocked",
                "blocked",
            ],
        ),
    ]
    metrics = data["releases"][1]["verdicts"][4]
    assert metrics["summary"].startswith(
        "client.py #1 fails at fuzz 0 (closest: client.py line 22, 5 of 6 lines match)"
    )
    series = example.downstream / "patches" / "series"
    assert markdown.read_text() == (
        "## Upgrade horizon: minihttp>1.0\n"
        "\n"
        f"Series `{series}`, pin 1.0; releases 1.1, 1.2.\n"
        "\n"
        "| patch | 1.1 | 1.2 |\n"
        "|---|---|---|\n"
        "| `retry-backoff-cap.patch` | upstreamed | upstreamed |\n"
        "| `redirect-strip-proxy-auth.patch` | conflict | conflict |\n"
        "| `headers-merge-order.patch` | target gone | target gone |\n"
        "| `client-describe-version.patch` | offset | upstreamed |\n"
        "| `metrics-redirects.patch` | offset | conflict |\n"
        "| `metrics-same-host.patch` | clean | blocked |\n"
        "| `redirect-strip-api-key.patch` | blocked | blocked |\n"
        "\n"
        "**next pin: none (every release needs a patch ported by hand)**\n"
    )


def test_horizon_no_release_in_range_names_what_there_is(cli, example: Example) -> None:
    run = cli("audit", "--to", "minihttp>1.2", "--releases", "../upstream", cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        "patchkeeper: error: no release of minihttp in ../upstream matches minihttp>1.2",
        "  hint: releases found: 1.0, 1.1, 1.2; widen the range",
    ]


def test_horizon_releases_needs_a_version_specifier(cli, example: Example) -> None:
    run = cli("audit", "--to", "minihttp", "--releases", "../upstream", cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        "patchkeeper: error: --to 'minihttp' is not a requirement with a version range, which "
        "--releases needs",
        "  hint: pass --to NAME followed by a range, such as 'vllm>=0.28,<0.34' or "
        "'minihttp>1.0'; for one release, leave --releases out",
    ]


def test_horizon_releases_with_a_directory_to_names_releases(cli, example: Example) -> None:
    """``--to DIR --releases DIR``: the directory is one release, and --releases is the
    option that asked for a range; the message named neither option."""
    run = cli(
        "audit", "--to", "../upstream/minihttp-1.1", "--releases", "../upstream",
        cwd=example.downstream,
    )  # fmt: skip
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        "patchkeeper: error: --to '../upstream/minihttp-1.1' is not a requirement with a "
        "version range, which --releases needs",
        "  hint: pass --to NAME followed by a range, such as 'vllm>=0.28,<0.34' or "
        "'minihttp>1.0'; for one release, leave --releases out",
    ]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("vllm>=0.28,<0.34", True),
        ("vllm==0.32.0", False),
        ("vllm == 0.32.0", False),
        ("vllm==0.32.*", True),
        ("vllm~=0.32.0", True),
        ("vllm", False),
        ("../upstream/minihttp-1.1", False),
        ("examples/upstream", False),
    ],
)
def test_is_range(spec: str, expected: bool) -> None:
    assert is_range(spec) is expected


def test_in_range_takes_pre_releases_only_when_named() -> None:
    versions = ["0.33.0rc1", "0.32.0", "0.28.1", "0.27.0", "0.34.0", "0.30.0", "0.31.0.post1"]
    assert in_range(Requirement("vllm>=0.28,<0.34"), versions) == [
        "0.28.1",
        "0.30.0",
        "0.31.0.post1",
        "0.32.0",
    ]
    assert in_range(Requirement("vllm>=0.33.0rc1"), versions) == ["0.33.0rc1", "0.34.0"]
    assert in_range(Requirement("vllm>0.34"), ["0.35.0rc1"]) == []


def test_next_pin_is_the_highest_release_without_a_blocking_verdict() -> None:
    from patchkeeper.audit.horizon import HorizonResult, ReleaseVerdicts, next_pin
    from patchkeeper.audit.verdicts import PatchVerdict
    from patchkeeper.render.horizon import next_pin_line

    def release(version: str, *verdicts: str) -> ReleaseVerdicts:
        judged = tuple(PatchVerdict(f"p{i}.patch", v, "") for i, v in enumerate(verdicts))
        return ReleaseVerdicts(version, f"tree {version}", judged)

    releases = [
        release("0.30.0", "clean", "offset"),
        release("0.31.0", "upstreamed", "partially upstreamed"),
        release("0.32.0", "upstreamed", "conflict"),
    ]
    assert next_pin(releases) == "0.31.0"
    assert next_pin(releases[2:]) is None
    result = HorizonResult(
        "series", "0.30", "vllm>=0.30", tuple(releases), ("p0.patch", "p1.patch"), "0.31.0"
    )
    assert result.row("p1.patch") == ("offset", "partially upstreamed", "conflict")
    assert next_pin_line(result) == (
        "next pin: 0.31.0 (highest release that needs no patch ported by hand)"
    )
    assert result.exit_code == 1
    assert result.envelope_target == {
        "kind": "requirement", "path": None, "name": "vllm", "version": None, "range": ">=0.30"
    }  # fmt: skip
    older = HorizonResult("s", "0.33", "vllm<0.33", tuple(releases), ("p0.patch",), None)
    assert (older.below_pin, result.below_pin) == (True, False)
    assert next_pin_line(older) == (
        "next pin: none (every release of the range is older than the pin 0.33: audit a"
        " range above it, such as 'vllm>0.33')"
    )
    spaced = HorizonResult("s", None, "Vllm [audio] >= 0.30, <0.33", (), (), None, None, None, "/r")
    assert spaced.envelope_target == {
        "kind": "requirement", "path": "/r", "name": "Vllm", "version": None,
        "range": ">=0.30,<0.33",
    }  # fmt: skip


def test_save_evidence_with_a_range_is_a_usage_error(cli, example: Example) -> None:
    run = cli(
        "audit",
        "--to",
        "minihttp>=1.0",
        "--releases",
        "../upstream",
        "--save-evidence",
        cwd=example.downstream,
    )
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[-1] == (
        "Error: --save-evidence keeps one release's audit; pass NAME==VERSION"
    )
    assert not (example.downstream / ".patchkeeper").exists()


#: A DEP-3 patch of a documentation file that no release's sdist ships (Debian's joblib
#: series patches ``examples/`` files the sdist of its pin 1.2.0 lacks).
DOCS_PATCH = """\
Description: do not download example data while building the documentation
Forwarded: not-needed

--- a/examples_data.py
+++ b/examples_data.py
@@ -1,2 +1,2 @@
 # fetch the example data
-download = True
+download = False
"""


def test_horizon_says_when_the_series_misses_its_own_pin(cli, example: Example) -> None:
    down = example.downstream
    (down / "patches" / "no-download.patch").write_text(DOCS_PATCH, encoding="utf-8")
    with (down / "patches" / "series").open("a", encoding="utf-8") as series:
        series.write("no-download.patch\n")
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream", cwd=down)
    assert run.code == 1
    assert run.out.splitlines()[-1] == (
        "next pin: none (every release needs a patch ported by hand); the "
        "series does not apply at its pin 1.0 itself (no-download.patch): fix or drop that "
        "patch, then audit again"
    )
    run = cli("audit", "--to", "minihttp>1.0", "--releases", "../upstream", cwd=down)
    assert run.out.splitlines()[-1] == (
        "next pin: none (every release needs a patch ported by hand)"
    )


def test_horizon_leaves_out_releases_older_than_the_pin(
    cli, example: Example, monkeypatch, tmp_path
) -> None:
    """A range that also admits releases before the pin (``!=1.1``) audits the pin and the
    releases after it; the older ones are neither fetched nor judged, and one line says how
    many were left out and why (text and JSON)."""
    monkeypatch.setenv("COLUMNS", "200")
    releases = tmp_path / "rel"
    for version in ("1.0", "1.1", "1.2"):
        name = f"minihttp-{version}"
        shutil.copytree(example.root / "upstream" / name, releases / name)
    for version in ("0.8", "0.9"):
        shutil.copytree(
            example.root / "upstream" / "minihttp-1.0", releases / f"minihttp-{version}"
        )
    note = (
        "left out 2 releases older than the pin 1.0: an upgrade audit is of the pin and later"
        " releases (to audit older ones, pass a range below the pin, such as 'minihttp<1.0')"
    )
    run = cli("audit", "--to", "minihttp!=1.1", "--releases", str(releases),
              cwd=example.downstream)  # fmt: skip
    assert run.code == 1
    assert run.out.splitlines()[1:3] == ["releases in minihttp!=1.1: 1.0, 1.2", note]
    run = cli("audit", "--to", "minihttp!=1.1", "--releases", str(releases), "--json",
              cwd=example.downstream)  # fmt: skip
    data = json.loads(run.out)
    assert [r["version"] for r in data["releases"]] == ["1.0", "1.2"]
    assert (data["left_out"], data["left_out_note"]) == (2, note)
    # a range wholly below the pin asks for those releases: none is left out
    run = cli("audit", "--to", "minihttp<1.0", "--releases", str(releases), "--json",
              cwd=example.downstream)  # fmt: skip
    data = json.loads(run.out)
    assert [r["version"] for r in data["releases"]] == ["0.8", "0.9"]
    assert (data["left_out"], data["left_out_note"]) == (0, None)
