"""One unreadable patch never costs the rest of the series its verdicts: it gets the verdict
*unreadable* naming the file, the line, what is wrong and what to do, the other patches are
judged without it, and ``audit`` exits 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from json_schema_check import output, schema_errors
from patchkeeper.errors import PatchFormatError
from patchkeeper.series.parse import parse_patch

OLD = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
NEW = OLD + "x = 1\n"

ONE = """--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,3 +1,3 @@
 a = 1
-b = 2
+b = 20
 c = 3
"""

# truncated mid-hunk: its header promises three lines on each side, the file ends after two
TWO = """Subject: truncated
---
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -3,3 +3,3 @@
 c = 3
-d = 4
"""

THREE = """--- a/pkg/m.py
+++ b/pkg/m.py
@@ -3,3 +3,3 @@
 c = 3
-d = 4
+d = 40
 e = 5
"""


def _downstream(root: Path) -> Path:
    for version, text in (("1.0", OLD), ("1.1", NEW)):
        (root / f"pkg-{version}" / "pkg").mkdir(parents=True)
        (root / f"pkg-{version}" / "pkg" / "m.py").write_text(text)
    downstream = root / "downstream"
    (downstream / "patches").mkdir(parents=True)
    for name, text in (("one.patch", ONE), ("two.patch", TWO), ("three.patch", THREE)):
        (downstream / "patches" / name).write_text(text)
    (downstream / "patches" / "series").write_text("one.patch\ntwo.patch\nthree.patch\n")
    (downstream / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\nstrip = 1\n'
        'pristine = "../pkg-1.0"\n'
    )
    return downstream


def test_a_truncated_patch_gets_its_own_verdict_and_the_rest_are_judged(
    cli, tmp_path: Path
) -> None:
    downstream = _downstream(tmp_path)
    run = cli("audit", "--to", "../pkg-1.1", "--json", cwd=downstream)
    assert run.code == 2
    data = output(run.out)  # valid against docs/json-schema.json
    assert data["exit_code"] == 2
    assert "error" not in data
    problem = (
        f"{downstream / 'patches' / 'two.patch'}:7: truncated hunk: the patch ends before "
        "the line counts of its header are met"
    )
    assert [
        (v["name"], v["verdict"], v["action"], v["unreadable"], v["rule"]) for v in data["verdicts"]
    ] == [
        ("one.patch", "clean", "carry", "", "applies"),
        ("two.patch", "unreadable", "look", problem, "unreadable"),
        ("three.patch", "clean", "carry", "", "applies"),
    ]
    assert data["verdicts"][1]["summary"] == (
        f"{problem} (regenerate the patch; do not edit hunks by hand); the later patches "
        "were judged without it; to do: look (the patch file cannot be read: fix it, then "
        "audit again)"
    )
    # the schema knows the verdict: a verdict it does not list is refused
    wrong = {**data, "verdicts": [{**data["verdicts"][1], "verdict": "garbled"}]}
    assert schema_errors(wrong) == [
        "verdicts/0/verdict: 'garbled' is not one of ['clean', 'offset', 'upstreamed', "
        "'partially upstreamed', 'conflict', 'target gone', 'blocked', 'unreadable']"
    ]
    # and the rules: a rule it does not list is refused
    guessed = {**data, "verdicts": [{**data["verdicts"][1], "rule": "guessed"}]}
    [error] = schema_errors(guessed)
    assert error.startswith("verdicts/0/rule: 'guessed' is not one of ['applies', ")
    text = cli("audit", "--to", "../pkg-1.1", cwd=downstream)
    assert text.code == 2
    assert text.out.splitlines()[-1] == "3 patches: 2 clean, 1 unreadable"


# git format-patch of a commit that adds a Latin-1 named file: git quotes the name
LATIN_1 = b"""From 5e1f0c3a Mon Sep 17 00:00:00 2001
Subject: [PATCH] add a note

---
diff --git "a/pkg/caf\\351.txt" "b/pkg/caf\\351.txt"
new file mode 100644
--- /dev/null
+++ "b/pkg/caf\\351.txt"
@@ -0,0 +1 @@
+note
"""


def test_a_path_apply_refuses_is_an_unreadable_patch(cli, tmp_path: Path) -> None:
    """A patch naming a file apply refuses in any tree (a name that is not valid UTF-8)
    stopped the whole audit (exit 2, no verdict at all), where a binary diff costs only its
    own verdict; now it is *unreadable*, naming the file, the line and what to do."""
    downstream = _downstream(tmp_path)
    (downstream / "patches" / "two.patch").write_bytes(LATIN_1)
    run = cli("audit", "--to", "../pkg-1.1", "--json", cwd=downstream)
    assert run.code == 2
    data = output(run.out)
    problem = (
        f'{downstream / "patches" / "two.patch"}:5: the patch path "pkg/caf\\351.txt" holds '
        "bytes that are not valid utf-8 (the file system's encoding)"
    )
    assert [(v["name"], v["verdict"], v["unreadable"]) for v in data["verdicts"]] == [
        ("one.patch", "clean", ""),
        ("two.patch", "unreadable", problem),
        ("three.patch", "clean", ""),
    ]
    assert data["verdicts"][1]["summary"].startswith(f"{problem} (rename the file in the patch);")


def test_a_readable_series_exits_as_before(cli, tmp_path: Path) -> None:
    downstream = _downstream(tmp_path)
    (downstream / "patches" / "series").write_text("one.patch\nthree.patch\n")
    run = cli("audit", "--to", "../pkg-1.1", cwd=downstream)
    assert (run.code, run.out.splitlines()[-1]) == (0, "2 patches: 2 clean")


# its last context line was blank: an editor dropped it from the end of the file
CHOPPED = """--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,3 +1,3 @@
 a = 1
-b = 2
+b = 20
"""


def test_a_chopped_trailing_blank_context_line_is_read_as_gnu_patch_reads_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n\nc = 3\n")
    (tmp_path / "chopped.patch").write_text(CHOPPED.replace("pkg/m.py", "m.py"))
    gnu = subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "-i", "chopped.patch"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert gnu.returncode == 0
    assert (tmp_path / "m.py").read_text() == "a = 1\nb = 20\n\nc = 3\n"
    patch = parse_patch(CHOPPED.encode(), name="chopped.patch", path=Path("chopped.patch"))
    (hunk,) = patch.files[0].hunks
    assert (hunk.pre_image, hunk.post_image) == (
        (b"a = 1\n", b"b = 2\n", b"\n"),
        (b"a = 1\n", b"b = 20\n", b"\n"),
    )
    # two lines short on one side only: no blank context can fill that, it stays truncated
    with pytest.raises(PatchFormatError, match="truncated hunk"):
        parse_patch(TWO.encode(), name="two.patch", path=Path("two.patch"))


def test_a_chopped_patch_is_audited_twice_alike(cli, tmp_path: Path) -> None:
    # the second audit reads the series through the parse cache
    downstream = _downstream(tmp_path)
    old = "a = 1\nb = 2\n\nc = 3\n"
    for version in ("1.0", "1.1"):
        (tmp_path / f"pkg-{version}" / "pkg" / "m.py").write_text(old)
    (downstream / "patches" / "series").write_text("chopped.patch\n")
    (downstream / "patches" / "chopped.patch").write_text(CHOPPED)
    for _ in range(2):
        run = cli("audit", "--to", "../pkg-1.1", cwd=downstream)
        assert (run.code, run.out.splitlines()[-1]) == (0, "1 patch: 1 clean")
