"""A series that lists one patch on two lines (a line pasted again at the end of a Debian
series, as a merge of two branches leaves it) is refused by ``ledger``, ``retire`` and
``export --range`` as ``apply``, ``audit`` and the rest refuse it, naming the series file,
the second line and the first. ``ledger`` wrote the patch's row twice, ``retire`` took out
the first line and deleted the patch file while the second line still listed it (a series
no command could read any more, which nothing said), and ``export --range`` kept both lines
and called the series unchanged."""

from __future__ import annotations

from pathlib import Path

#: A patch in the shape of Debian's gunicorn series (gbp pq mail headers, DEP-3).
EMPTY_NAMES = b"""\
From: Tess Ter <tess@example.org>
Date: Mon, 4 Dec 2023 17:08:16 -0500
Subject: Disallow empty header names.

---
 server/http/message.py | 2 ++
 1 file changed, 2 insertions(+)

diff --git a/server/http/message.py b/server/http/message.py
--- a/server/http/message.py
+++ b/server/http/message.py
@@ -1,2 +1,4 @@
 def parse(name):
+    if not name:
+        raise ValueError(name)
     return name
"""
CHOWN = b"""\
From: Tess Ter <tess@example.org>
Date: Tue, 5 Dec 2023 10:00:00 -0500
Subject: Don't call chown(2) if it would be a no-op

---
diff --git a/server/util.py b/server/util.py
--- a/server/util.py
+++ b/server/util.py
@@ -1,2 +1,3 @@
 def chown(path, uid):
+    # skip the call when nothing changes
     return path
"""
SERIES = (
    "0001-Disallow-empty-header-names.patch\n"
    "0002-Don-t-call-chown-2-if-it-would-be-a-no-op.patch\n"
    "0001-Disallow-empty-header-names.patch\n"
)
LEDGER = """# Patches

<!-- table:begin -->
<!-- table:end -->
"""


def _downstream(root: Path) -> Path:
    patches = root / "debian" / "patches"
    patches.mkdir(parents=True)
    (patches / "series").write_text(SERIES)
    (patches / "0001-Disallow-empty-header-names.patch").write_bytes(EMPTY_NAMES)
    (patches / "0002-Don-t-call-chown-2-if-it-would-be-a-no-op.patch").write_bytes(CHOWN)
    (root / "patchkeeper.toml").write_text(
        'upstream = "server"\npin = "1.0"\nseries = "debian/patches/series"\n\n'
        '[headers]\nschema = "dep3"\n'
    )
    (root / "PATCHES.md").write_text(LEDGER)
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_ledger_and_retire_refuse_a_patch_listed_twice(cli, tmp_path: Path) -> None:
    root = _downstream(tmp_path / "server")
    before = _files(root)
    series = root / "debian" / "patches" / "series"
    error = (
        f"patchkeeper: error: {series}:3: 0001-Disallow-empty-header-names.patch is listed "
        "twice (first on line 1)\n"
        "  hint: a patch applies once: remove one of the two lines\n"
    )

    write = cli("ledger", cwd=root)
    check = cli("ledger", "--check", cwd=root)
    retire = cli(
        "retire",
        "0001-Disallow-empty-header-names.patch",
        "--at",
        "1.1",
        "--why",
        "upstream has it",
        cwd=root,
    )

    assert [(run.code, run.out, run.err) for run in (write, check, retire)] == [
        (2, "", error),
        (2, "", error),
        (2, "", error),
    ]
    assert _files(root) == before


def test_the_ledger_is_written_once_the_line_is_gone(cli, tmp_path: Path) -> None:
    root = _downstream(tmp_path / "server")
    series = root / "debian" / "patches" / "series"
    series.write_text(SERIES.rsplit("0001", 1)[0])

    run = cli("ledger", cwd=root)

    assert (run.code, run.out, run.err) == (0, "PATCHES.md: wrote the ledger (2 rows)\n", "")


def test_export_of_a_range_refuses_it(downstream: Path, capsys) -> None:
    # export --range rewrites the series from the branch but kept each listed line: the
    # second line stayed and the series was said to be unchanged
    from patchkeeper.main import main

    series = downstream / "patches" / "series"
    first = series.read_text().splitlines()[0]
    series.write_text(series.read_text() + first + "\n")
    before = _files(downstream)

    code = main(["-C", str(downstream), "export", "--range", "v1.0..work"])

    lines = series.read_text().splitlines()
    assert (code, capsys.readouterr().err) == (
        2,
        f"patchkeeper: error: {series}:{len(lines)}: {first} is listed twice (first on line "
        f"{lines.index(first) + 1})\n"
        "  hint: a patch applies once: remove one of the two lines\n",
    )
    assert _files(downstream) == before
