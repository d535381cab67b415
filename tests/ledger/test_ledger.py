"""``patchkeeper ledger [--check]`` and ``patchkeeper retire`` on a downstream of the series workflow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ledger_support import LEDGER_TEXT, config_at, write_config

from patchkeeper.errors import PatchFormatError
from patchkeeper.ledger import table as ledger
from patchkeeper.main import main

TABLE = (
    "| patch | kind | what | upstream | cut against | retires when |\n"
    "|---|---|---|---|---|---|\n"
    "| size-knob | local | size read from PKG_SIZE \\| env | none | 1.0 | stays |\n"
    "| extra-module | feature | adds pkg.extra | pkg #12 (open) | 1.0 | upstreamed |\n"
)


def _expected(table: str) -> str:
    return LEDGER_TEXT.replace("do not edit it -->\n", "do not edit it -->\n" + table)


def test_ledger_writes_the_table_between_the_markers(downstream: Path, capsys) -> None:
    code = main(["-C", str(downstream), "ledger"])
    assert code == 0
    assert (downstream / "PATCHES.md").read_text() == _expected(TABLE)
    assert capsys.readouterr().out == "PATCHES.md: wrote the ledger (2 rows)\n"
    assert main(["-C", str(downstream), "ledger", "--check"]) == 0


def test_ledger_check_is_stale_with_a_diff_and_changes_nothing(downstream: Path, capsys) -> None:
    main(["-C", str(downstream), "ledger"])
    patch = downstream / "patches" / "extra-module.patch"
    patch.write_bytes(patch.read_bytes().replace(b"Kind: feature", b"Kind: fix"))
    before = (downstream / "PATCHES.md").read_bytes()
    capsys.readouterr()
    code = main(["-C", str(downstream), "ledger", "--check"])
    out = capsys.readouterr().out
    assert code == 1
    assert (downstream / "PATCHES.md").read_bytes() == before
    assert "-| extra-module | feature | adds pkg.extra |" in out
    assert "+| extra-module | fix | adds pkg.extra |" in out
    assert out.startswith("PATCHES.md: the ledger is stale; run 'patchkeeper ledger'")


def test_ledger_json(downstream: Path, capsys) -> None:
    main(["-C", str(downstream), "ledger", "--check", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["stale"] is True
    assert [row["name"] for row in data["rows"]] == ["size-knob", "extra-module"]
    assert data["rows"][0]["values"] == [
        "local",
        "size read from PKG_SIZE | env",
        "none",
        "1.0",
        "stays",
    ]


def test_escaping_pipes_and_newlines() -> None:
    assert ledger.escape_cell("a|b") == "a\\|b"
    assert ledger.escape_cell("one\n two\r\nthree") == "one<br>two<br>three"
    assert ledger.render_table(("patch", "what"), [("p", "x | y\nz")]) == (
        "| patch | what |\n|---|---|\n| p | x \\| y<br>z |\n"
    )


def test_a_backslash_before_a_pipe_stays_in_its_cell() -> None:
    """``\\|`` in a value was written ``\\\\|``: the renderer and :func:`table_rows` read
    the pipe as the end of the cell."""
    table = ledger.render_table(("patch", "what"), [("p", "match a\\|b or <b> & `x|y`")])
    assert table.splitlines()[2] == "| p | match a\\\\\\|b or &lt;b> & `x\\|y` |"
    rows = ledger.table_rows(f"<!-- b -->\n{table}<!-- e -->\n", "<!-- b", "<!-- e")
    assert [row.cells for row in rows or []] == [("p", "match a\\|b or <b> & `x|y`")]


def test_missing_marker_is_an_input_error(downstream: Path, capsys) -> None:
    (downstream / "PATCHES.md").write_text("# no markers\n")
    with pytest.raises(PatchFormatError) as caught:
        ledger.write_ledger(config_at(downstream))
    assert caught.value.message == "no line starting with '<!-- table:begin'"
    assert main(["-C", str(downstream), "ledger"]) == 2
    assert "PATCHES.md: no line starting with '<!-- table:begin'" in capsys.readouterr().err


def test_columns_and_markers_are_configurable(downstream: Path) -> None:
    write_config(
        downstream,
        '\n[headers]\ncolumns = ["Kind", "Upstream"]\n'
        '[ledger]\nfile = "docs/series.md"\nbegin-marker = "<!-- BEGIN"\n'
        'end-marker = "<!-- END -->"\nname-column = "topic"\n',
    )
    (downstream / "docs").mkdir()
    (downstream / "docs" / "series.md").write_text("<!-- BEGIN -->\nold\n<!-- END -->\n")
    ledger.write_ledger(config_at(downstream))
    assert (downstream / "docs" / "series.md").read_text() == (
        "<!-- BEGIN -->\n| topic | kind | upstream |\n|---|---|---|\n"
        "| size-knob | local | none |\n| extra-module | feature | pkg #12 (open) |\n"
        "<!-- END -->\n"
    )


def test_entries_get_their_own_rows_after_the_patches(downstream: Path) -> None:
    (downstream / "kvarn" / "files").mkdir(parents=True)
    (downstream / "kvarn" / "files" / "kvarn.py").write_text("X = 1\n")
    write_config(
        downstream,
        '\n[entries.overlays.kvarn-files]\nsource = "kvarn/files"\n'
        'fields = { Kind = "own", What = "KVarN | kernels", Upstream = "none", '
        'Cut-against = "1.0", Retires-when = "rides with KVarN" }\n',
    )
    result = ledger.write_ledger(config_at(downstream))
    assert [row.name for row in result.rows] == ["size-knob", "extra-module", "kvarn-files"]
    assert (downstream / "PATCHES.md").read_text() == _expected(
        TABLE + "| kvarn-files | own | KVarN \\| kernels | none | 1.0 | rides with KVarN |\n"
    )


def test_retire_takes_the_patch_out_and_records_it(downstream: Path, capsys) -> None:
    main(["-C", str(downstream), "ledger"])
    series_before = (downstream / "patches" / "series").read_text()
    assert series_before == "size-knob.patch\nextra-module.patch\n"
    code = main(
        [
            "-C",
            str(downstream),
            "retire",
            "extra-module",
            "--at",
            "1.1",
            "--why",
            "pkg #12 | in 1.1",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.endswith(
        "retired extra-module at 1.1: removed patches/extra-module.patch; took it out of "
        "patches/series; recorded in PATCHES.md\n"
    )
    assert not (downstream / "patches" / "extra-module.patch").exists()
    assert (downstream / "patches" / "series").read_text() == "size-knob.patch\n"
    table = TABLE.replace(
        "| extra-module | feature | adds pkg.extra | pkg #12 (open) | 1.0 | upstreamed |\n", ""
    )
    assert (downstream / "PATCHES.md").read_text() == _expected(table) + (
        "\n## Retired\n\n<!-- retired:begin -->\n"
        "| patch | kind | what | retired at | why |\n|---|---|---|---|---|\n"
        "| extra-module | feature | adds pkg.extra | 1.1 | pkg #12 \\| in 1.1 |\n"
        "<!-- retired:end -->\n"
    )
    assert main(["-C", str(downstream), "ledger", "--check"]) == 0
    # A second retirement appends to the same table.
    assert (
        main(["-C", str(downstream), "retire", "size-knob.patch", "--at", "2.0", "--why", "gone"])
        == 0
    )
    text = (downstream / "PATCHES.md").read_text()
    assert text.endswith(
        "| extra-module | feature | adds pkg.extra | 1.1 | pkg #12 \\| in 1.1 |\n"
        "| size-knob | local | size read from PKG_SIZE \\| env | 2.0 | gone |\n"
        "<!-- retired:end -->\n"
    )
    assert (downstream / "patches" / "series").read_text() == ""


def test_retire_unknown_name(downstream: Path, capsys) -> None:
    assert main(["-C", str(downstream), "retire", "nope", "--at", "1", "--why", "x"]) == 2
    assert "patches/series: nope is not in the series" in capsys.readouterr().err


def _retired_already(ledger: Path, row: str, name: str, at: str) -> str:
    """The error of ``retire NAME`` for a ``name`` retired ``at`` a version already, whose
    Retired table has ``row``: it names the row's line."""
    line = ledger.read_text().splitlines().index(row) + 1
    return (
        f"patchkeeper: error: {ledger}:{line}: {name} is retired already (at {at}): the "
        "ledger's Retired table has it\n"
        "  hint: nothing to do; to bring it back, add it to the series again\n"
    )


def test_retire_twice_names_the_retired_row(downstream: Path, capsys) -> None:
    """A patch retired already is not "not in the series": the error names its row of the
    Retired table, and nothing is written."""
    main(["-C", str(downstream), "ledger"])
    argv = ["-C", str(downstream), "retire", "extra-module.patch", "--at", "1.1", "--why", "x"]
    assert main(argv) == 0
    capsys.readouterr()
    ledger = downstream / "PATCHES.md"
    before = ledger.read_bytes(), (downstream / "patches" / "series").read_bytes()
    assert main(argv) == 2
    row = "| extra-module | feature | adds pkg.extra | 1.1 | x |"
    assert capsys.readouterr().err == _retired_already(ledger, row, "extra-module.patch", "1.1")
    assert (ledger.read_bytes(), (downstream / "patches" / "series").read_bytes()) == before


def test_retire_twice_reads_escaped_bars_in_the_retired_row(downstream: Path, capsys) -> None:
    """A Retired row whose name and what hold ``\\|`` (as the ledger escapes a ``|``) is read
    cell by cell at the unescaped bars: the name is found and the version is its own cell."""
    ledger = downstream / "PATCHES.md"
    ledger.write_text(
        ledger.read_text() + "\n## Retired\n\n<!-- retired:begin -->\n"
        "| patch | kind | what | retired at | why |\n|---|---|---|---|---|\n"
        "| odd\\|name | fix | reads a \\| b | 1.1 | pkg #12 |\n"
        "<!-- retired:end -->\n"
    )
    before = ledger.read_bytes()
    argv = ["-C", str(downstream), "retire", "odd|name.patch", "--at", "2.0", "--why", "x"]
    assert main(argv) == 2
    row = "| odd\\|name | fix | reads a \\| b | 1.1 | pkg #12 |"
    assert capsys.readouterr().err == _retired_already(ledger, row, "odd|name.patch", "1.1")
    assert ledger.read_bytes() == before


def test_html_in_a_header_is_written_as_text_and_read_back(downstream: Path) -> None:
    """A ``<`` a Markdown renderer reads as raw HTML (``<script>``, ``</b>``) is written
    ``&lt;``, and a ``&`` it reads as an entity ``&amp;``: the rendered ledger shows the
    header as written and runs none of it. Every other ``<`` and ``&`` stays as it is, and
    the reader gives each cell back as the header had it."""
    patch = downstream / "patches" / "extra-module.patch"
    what = "drop <script>alert(1)</script> & &lt; from a<2 | R&D"
    patch.write_text(patch.read_text().replace("What: adds pkg.extra", f"What: {what}"))
    assert main(["-C", str(downstream), "ledger"]) == 0
    row = (
        "| extra-module | feature | drop &lt;script>alert(1)&lt;/script> & &amp;lt; from a<2 "
        "\\| R&D | pkg #12 (open) | 1.0 | upstreamed |\n"
    )
    table = TABLE.replace(
        "| extra-module | feature | adds pkg.extra | pkg #12 (open) | 1.0 | upstreamed |\n", row
    )
    path = downstream / "PATCHES.md"
    assert path.read_text() == _expected(table)
    rows = ledger.table_rows(path.read_text(), "<!-- table:begin", "<!-- table:end")
    assert [r.cells[:3] for r in rows or []] == [
        ("size-knob", "local", "size read from PKG_SIZE | env"),
        ("extra-module", "feature", what),
    ]


def test_retire_a_mistyped_name_gives_the_closest_listed_one(downstream: Path, capsys) -> None:
    """A patch name typed with a character missing (a Debian patch named after its subject,
    ``0001-Update-patch-use-Python3.patch`` typed ``...Python.patch``): the hint names the
    listed patch it is closest to; a name close to none keeps the plain hint."""
    series = downstream / "patches" / "series"
    before = series.read_text()
    argv = ["-C", str(downstream), "retire", "sizeknob.patch", "--at", "2.0", "--why", "x"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {series}: sizeknob.patch is not in the series\n"
        "  hint: the series lists size-knob.patch: give that name if you meant it\n"
    )
    assert series.read_text() == before


def test_retire_names_the_entry_of_a_patch_in_a_subdirectory(downstream: Path, capsys) -> None:
    """A Debian series lists patches in subdirectories of its patch directory
    (python-internetarchive's ``CVE-2025-58438/0004-fixed-typo.patch``); the name without
    the directory is not the series' name, and the hint gives the one that is."""
    patches = downstream / "patches"
    (patches / "CVE-2025-58438").mkdir()
    (patches / "size-knob.patch").rename(patches / "CVE-2025-58438" / "size-knob.patch")
    series = patches / "series"
    series.write_text(
        series.read_text().replace("size-knob.patch", "CVE-2025-58438/size-knob.patch")
    )
    for name in ("size-knob", "size-knob.patch"):
        assert main(["-C", str(downstream), "retire", name, "--at", "2.0", "--why", "x"]) == 2
        assert capsys.readouterr().err == (
            f"patchkeeper: error: {series}: {name} is not in the series\n"
            "  hint: the series lists it as CVE-2025-58438/size-knob.patch: give that name\n"
        )
    argv = ["-C", str(downstream), "retire", "CVE-2025-58438/size-knob", "--at", "2.0"]
    assert main([*argv, "--why", "upstream has it"]) == 0
    assert series.read_text() == "extra-module.patch\n"


def test_retire_removes_the_directories_it_emptied(downstream: Path) -> None:
    """Retiring the only patch of ``upstream/cve/`` removes that directory and ``upstream/``
    it leaves empty, never the patch directory: a directory holding another file stays."""
    patches = downstream / "patches"
    (patches / "upstream" / "cve").mkdir(parents=True)
    (patches / "local").mkdir()
    (patches / "size-knob.patch").rename(patches / "upstream" / "cve" / "size-knob.patch")
    (patches / "extra-module.patch").rename(patches / "local" / "extra-module.patch")
    (patches / "local" / "README").write_text("kept\n")
    (patches / "series").write_text("upstream/cve/size-knob.patch\nlocal/extra-module.patch\n")

    for name in ("upstream/cve/size-knob", "local/extra-module"):
        assert main(["-C", str(downstream), "retire", name, "--at", "2.0", "--why", "x"]) == 0

    assert sorted(p.relative_to(patches).as_posix() for p in patches.rglob("*")) == [
        "local",
        "local/README",
        "series",
    ]


def test_retire_refuses_an_empty_reason_or_version(downstream: Path, capsys) -> None:
    """Before: ``--why ""`` retired the patch with an empty reason in the Retired table. The
    examples of the hint name this downstream's upstream (``pkg``) and versions (``--at``,
    else the pin), not the bundled example's ``minihttp``."""
    before = {p: p.read_bytes() for p in downstream.rglob("*") if p.is_file()}
    for at, why, option, example in (
        ("1.1", " ", "--why", "--why 'pkg #12 is in 1.1'"),
        ("", "upstream has it", "--at", "--at 1.0"),
    ):
        argv = ["-C", str(downstream), "retire", "size-knob", "--at", at, "--why", why]
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            f"patchkeeper: error: {downstream / 'PATCHES.md'}: {option} is empty: the Retired "
            f"table records it for size-knob\n  hint: give it, e.g. {example}\n"
        )
    assert {p: p.read_bytes() for p in downstream.rglob("*") if p.is_file()} == before


def test_retire_refuses_an_at_that_is_not_a_version(downstream: Path, capsys) -> None:
    """Before: any text went into the Retired table's version column."""
    before = {p: p.read_bytes() for p in downstream.rglob("*") if p.is_file()}
    for at in ("yesterday", "pkg==1.1", "1.1 (Debian)"):
        argv = ["-C", str(downstream), "retire", "size-knob", "--at", at, "--why", "in 1.1"]
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            f"patchkeeper: error: {downstream / 'PATCHES.md'}: --at {at!r} is not a version: "
            "the Retired table records the upstream release size-knob was retired at\n"
            "  hint: give the release as a version, e.g. --at 1.1 or --at 2.0rc1 (PEP 440)\n"
        )
    assert {p: p.read_bytes() for p in downstream.rglob("*") if p.is_file()} == before
    argv = ["-C", str(downstream), "retire", "size-knob", "--at", "2.0rc1", "--why", "in 2.0"]
    assert main(argv) == 0
    assert "| size-knob | local | size read from PKG_SIZE \\| env | 2.0rc1 | in 2.0 |\n" in (
        (downstream / "PATCHES.md").read_text()
    )


def test_series_comments_survive_retire(downstream: Path) -> None:
    series = downstream / "patches" / "series"
    series.write_text("# the order matters\nsize-knob.patch  # first\n\nextra-module.patch\n")
    ledger.retire(config_at(downstream), ledger.RetireRequest("size-knob", at="1.1", why="x"))
    assert series.read_text() == "# the order matters\n\nextra-module.patch\n"


DEP3_PATCH = (
    "Description: Read the size from PKG_SIZE\n"
    "Origin: vendor, https://example.org/pkg/size\n"
    "Bug: https://example.org/pkg/issues/7\n"
    "Forwarded: not-needed\n"
    "Last-Update: 2026-01-02\n"
    "---\n"
    "--- a/core.py\n+++ b/core.py\n@@ -1 +1 @@\n-a\n+b\n"
)


def test_the_retired_table_of_a_dep3_ledger_has_the_dep3_columns(tmp_path: Path, capsys) -> None:
    """With ``schema = "dep3"`` the Retired table has the live table's DEP-3 columns, as
    the live table does: a Debian patch has no ``Kind:``, so the kind column it had stayed
    empty (an Origin of ``vendor, URL`` apart) and the what column held the description."""
    root = write_config(tmp_path / "deb", '\n[headers]\nschema = "dep3"\n')
    (root / "patches" / "size.patch").write_text(DEP3_PATCH)
    (root / "patches" / "other.patch").write_text(
        DEP3_PATCH.replace("Read the size from PKG_SIZE", "Another change")
        .replace("vendor, https://example.org/pkg/size", "https://example.org/pkg/commit/1")
        .replace("Bug: https://example.org/pkg/issues/7\n", "")
    )
    (root / "patches" / "series").write_text("size.patch\nother.patch\n")
    assert main(["-C", str(root), "ledger"]) == 0
    for name, why in (("size.patch", "pkg #7 is in 1.1"), ("other.patch", "in 1.1")):
        assert main(["-C", str(root), "retire", name, "--at", "1.1", "--why", why]) == 0
    text = (root / "PATCHES.md").read_text()
    assert text.endswith(
        "\n## Retired\n\n<!-- retired:begin -->\n"
        "| patch | description | origin | bug | forwarded | last update | retired at | why |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| size | Read the size from PKG_SIZE | vendor, https://example.org/pkg/size "
        "| https://example.org/pkg/issues/7 | not-needed | 2026-01-02 | 1.1 | pkg #7 is in 1.1 |\n"
        "| other | Another change | https://example.org/pkg/commit/1 |  | not-needed "
        "| 2026-01-02 | 1.1 | in 1.1 |\n"
        "<!-- retired:end -->\n"
    )
    assert main(["-C", str(root), "ledger", "--check"]) == 0
    capsys.readouterr()
    assert main(["-C", str(root), "retire", "size", "--at", "1.1", "--why", "x"]) == 2
    assert "size is retired already (at 1.1)" in capsys.readouterr().err


def test_a_dep3_ledger_with_a_kind_what_retired_table_keeps_its_columns(tmp_path: Path) -> None:
    """A Retired table written before with the kind and what columns keeps them: a new row
    is laid out as the table's header says, so the ledger stays one table."""
    root = write_config(tmp_path / "deb", '\n[headers]\nschema = "dep3"\n')
    (root / "patches" / "size.patch").write_text(DEP3_PATCH)
    (root / "patches" / "series").write_text("size.patch\n")
    old = (
        "| patch | kind | what | retired at | why |\n|---|---|---|---|---|\n"
        "| gone | backport | An old change | 1.0 | in 1.0 |\n"
    )
    ledger_file = root / "PATCHES.md"
    ledger_file.write_text(
        ledger_file.read_text() + f"\n## Retired\n\n<!-- retired:begin -->\n{old}"
        "<!-- retired:end -->\n"
    )
    assert main(["-C", str(root), "retire", "size", "--at", "1.1", "--why", "x"]) == 0
    assert ledger_file.read_text().endswith(
        old + "| size | vendor | Read the size from PKG_SIZE | 1.1 | x |\n<!-- retired:end -->\n"
    )


def test_retire_keeps_the_columns_a_user_added_to_the_retired_table(
    downstream: Path, capsys
) -> None:
    """A Retired table with a column of the user's own (``Ticket``, between ``kind`` and
    ``what``, titles capitalised): the new row followed retire's own five columns, so its
    what stood under ``Ticket``. Each cell goes under its title; the user's column gets the
    patch's header of that name (``Ticket:``), or stays empty."""
    ledger = downstream / "PATCHES.md"
    ledger.write_text(
        ledger.read_text() + "\n## Retired\n\n<!-- retired:begin -->\n"
        "| Patch | Kind | Ticket | What | Retired at | Why |\n|---|---|---|---|---|---|\n"
        "| old-fix | fix | OPS-1 | an old fix | 1.0 | pkg #3 |\n"
        "<!-- retired:end -->\n"
    )
    patch = downstream / "patches" / "extra-module.patch"
    patch.write_text(
        patch.read_text().replace("What: adds pkg.extra", "What: adds pkg.extra\nTicket: OPS-7")
    )
    argv = ["-C", str(downstream), "retire", "extra-module.patch", "--at", "1.1", "--why", "x"]
    assert main(argv) == 0
    argv = ["-C", str(downstream), "retire", "size-knob.patch", "--at", "1.1", "--why", "y"]
    assert main(argv) == 0
    capsys.readouterr()
    text = ledger.read_text()
    assert text[text.index("<!-- retired:begin -->") :] == (
        "<!-- retired:begin -->\n"
        "| Patch | Kind | Ticket | What | Retired at | Why |\n|---|---|---|---|---|---|\n"
        "| old-fix | fix | OPS-1 | an old fix | 1.0 | pkg #3 |\n"
        "| extra-module | feature | OPS-7 | adds pkg.extra | 1.1 | x |\n"
        "| size-knob | local |  | size read from PKG_SIZE \\| env | 1.1 | y |\n"
        "<!-- retired:end -->\n"
    )
    assert main(argv) == 2
    assert "size-knob.patch is retired already (at 1.1)" in capsys.readouterr().err
