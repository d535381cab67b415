"""``upgrade`` finds the trees of the old and the new pin, and refuses an empty series,
before it writes anything: the state of an upgrade keeps ``--to`` and ``--from``, so a
mistyped directory or a release the package index does not hold, found by the audit step,
left an upgrade in progress that ``--continue`` could never finish (only ``--abort``).

The downstream is a Debian source package's ``debian/`` directory in a git checkout, its
DEP-3 patch cut against an sdist's root, as a distribution carries a Python library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import LocalIndex, git, make_checkout, make_tar, write_files

PATCH = """From: A Maintainer <maintainer@example.org>
Subject: Avoid timestamps in the gzip-compressed tables
Forwarded: not-needed

---
--- a/tools/conv_table.py
+++ b/tools/conv_table.py
@@ -1,3 +1,3 @@
 import gzip
-out = gzip.open(path, "wb")
+out = gzip.GzipFile("", "wb", 9, open(path, "wb"), 0.0)
 # end
"""
CONFIG = """upstream = "pdfthing"
pin = "1.0"
series = "debian/patches/series"
strip = 1
"""
CONV = 'import gzip\nout = gzip.open(path, "wb")\n# end\n'


def _release(version: str) -> dict[str, str]:
    info = f"Metadata-Version: 2.1\nName: pdfthing\nVersion: {version}\n\n"
    return {"PKG-INFO": info, "tools/conv_table.py": CONV}


def _releases(root: Path) -> None:
    """pdfthing 1.0 and 2.0 unpacked at ``root/pdfthing-1.0`` and ``root/pdfthing-2.0``."""
    for version in ("1.0", "2.0"):
        write_files(root / f"pdfthing-{version}", _release(version))


def _downstream(root: Path, series: str = "timestamps.patch\n") -> Path:
    down = root / "down"
    write_files(
        down,
        {
            "debian/patches/series": series,
            "debian/patches/timestamps.patch": PATCH,
            "patchkeeper.toml": CONFIG,
        },
    )
    make_checkout(down)
    return down


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_mistyped_new_pin_directory_starts_no_upgrade(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    _releases(tmp_path)
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.O", "--from", "../pdfthing-1.0", cwd=down)

    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: ../pdfthing-2.O: the new upstream (--to) does not exist\n"
        f"  hint: relative paths start at {down} (-C DIR's, when given), and there is no "
        f"directory {tmp_path / 'pdfthing-2.O'}\n",
    )
    assert _files(down) == before
    again = cli("upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.0", cwd=down)
    assert (again.code, again.out.splitlines()[-1]) == (0, "   - patchkeeper report --check")


def test_a_mistyped_old_pin_directory_starts_no_upgrade(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    write_files(tmp_path / "pdfthing-2.0", _release("2.0"))
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.O", cwd=down)

    assert (run.code, run.err.splitlines()[0]) == (
        2,
        "patchkeeper: error: ../pdfthing-1.O: the old upstream (--from, or the configured "
        "pin) does not exist",
    )
    assert _files(down) == before


def test_a_release_the_index_does_not_hold_starts_no_upgrade(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    for version in ("1.0", "2.0"):
        members = [(f"pdfthing-{version}/{p}", t.encode()) for p, t in _release(version).items()]
        local_index.publish("pdfthing", f"pdfthing-{version}.tar.gz", make_tar(members))
    down = _downstream(tmp_path)
    before = _files(down)

    run = cli("upgrade", "--to", "pdfthing==2.1", "--json", cwd=down)

    error = json.loads(run.out)["error"]
    assert (run.code, error["message"], error["hint"]) == (
        2,
        "the new upstream (--to) pdfthing==2.1 cannot be fetched: no version of pdfthing "
        "matches pdfthing==2.1",
        "available versions: 1.0, 2.0",
    )
    assert _files(down) == before
    again = cli("upgrade", "--to", "pdfthing==2.0", "--json", cwd=down)
    assert (again.code, json.loads(again.out)["outcome"]) == (0, "done")


def test_an_empty_series_is_nothing_to_upgrade(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path, series="# every patch went upstream\n")
    _releases(tmp_path)
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.0", cwd=down)

    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {down / 'debian/patches/series'}: nothing to upgrade: the series "
        "lists no patches and no runtime patches are configured\n"
        "  hint: list the patches in the series file (one name a line), or configure the "
        "plugin in [runtime]\n",
    )
    assert _files(down) == before


def test_an_older_release_is_refused_before_anything_is_written(cli, tmp_path: Path) -> None:
    """A version typed with a digit dropped (1.0 for 2.10) named an older release, and the
    upgrade moved the whole downstream back, its record calling that an upgrade."""
    down = _downstream(tmp_path)
    (down / "patchkeeper.toml").write_text(CONFIG.replace('pin = "1.0"', 'pin = "2.0"'))
    git(down, "commit", "-q", "-am", "at 2.0")
    write_files(tmp_path / "pdfthing-1.0", _release("1.0"))
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-1.0", cwd=down)

    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {down / 'patchkeeper.toml'}:2: --to is 1.0, older than 2.0, the "
        "release the downstream is at: upgrade moves a downstream to a newer release\n"
        "  hint: pass a newer release as --to; to move the downstream back on purpose, run "
        "'patchkeeper port --to RELEASE' (and 'patchkeeper runtime port --to RELEASE --write' "
        "for runtime patches)\n",
    )
    assert _files(down) == before


def test_an_older_release_than_from_names_from(cli, tmp_path: Path) -> None:
    """A --from release newer than --to (one not published, or mistyped) was named "the
    release the downstream is at" and the hint asked only for another --to."""
    down = _downstream(tmp_path)
    write_files(tmp_path / "pdfthing-2.0", _release("2.0"))
    write_files(tmp_path / "pdfthing-9.9", _release("9.9"))
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-9.9", cwd=down)

    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: --to is 2.0, older than 9.9, the release --from names: upgrade "
        "moves a downstream to a newer release\n"
        "  hint: pass a newer release as --to, or as --from the release the series applies "
        "to; to move the downstream back on purpose, run 'patchkeeper port --to RELEASE' (and "
        "'patchkeeper runtime port --to RELEASE --write' for runtime patches)\n",
    )
    assert _files(down) == before


@pytest.mark.parametrize("name", ["AUDIT.md", "patchkeeper-decisions.toml"])
def test_markdown_naming_a_file_a_step_writes_starts_no_upgrade(
    cli, tmp_path: Path, name: str
) -> None:
    """``--markdown AUDIT.md`` wrote the step table over the audit record the report step
    had just written (and over the decisions file decide had written): both are refused
    before anything is written, though neither exists yet."""
    _assert_markdown_refused(
        cli,
        tmp_path,
        name,
        "names a file of the downstream's series, configuration or record: the report would "
        "replace it",
    )


def _assert_markdown_refused(cli, tmp_path: Path, name: str, why: str) -> None:
    """``upgrade --markdown NAME`` stops with ``why`` (what --markdown names, and what would
    happen) and the hint to name a file of its own, before it writes anything."""
    down = _downstream(tmp_path)
    _releases(tmp_path)
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.0", "--markdown", name, cwd=down)

    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {name}: --markdown {why}\n"
        "  hint: pass --markdown a file of its own, e.g. --markdown audit.md\n",
    )
    assert _files(down) == before


def _branches(down: Path) -> list[str]:
    return git(down, "branch", "--format=%(refname:short)").split()


def test_a_series_naming_a_missing_patch_starts_no_upgrade(cli, tmp_path: Path) -> None:
    """A patch taken out of ``debian/patches/`` but left in the series: the audit step ran and
    committed its evidence, then decide stopped the upgrade half done."""
    down = _downstream(tmp_path, series="timestamps.patch\nreproducible-cmaps.patch\n")
    _releases(tmp_path)
    before = _files(down)

    run = cli(
        "upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.0", "--branch", "up",
        cwd=down,
    )  # fmt: skip

    series = down / "debian/patches/series"
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {series}:2: the series lists reproducible-cmaps.patch, which "
        "does not exist\n"
        f"  hint: restore {down / 'debian/patches/reproducible-cmaps.patch'} or remove the "
        "line from the series\n",
    )
    assert (_files(down), _branches(down)) == (before, ["main"])
    assert not (down / ".git" / "patchkeeper-upgrade").exists()


def test_a_truncated_patch_starts_no_upgrade(cli, tmp_path: Path) -> None:
    """A patch cut short (a copy that stopped mid-hunk) is found before the first step."""
    down = _downstream(tmp_path)
    patch = down / "debian/patches/timestamps.patch"
    patch.write_text(PATCH[: PATCH.index("+out")])
    git(down, "commit", "-q", "-am", "a patch cut short")
    _releases(tmp_path)
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.0", "--json", cwd=down)

    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": "truncated hunk: the patch ends before the line counts of its header "
            "are met",
            "file": str(patch),
            "line": 10,
            "hint": "regenerate the patch; do not edit hunks by hand",
        },
    )
    assert _files(down) == before
    assert not (down / ".git" / "patchkeeper-upgrade").exists()


def test_a_broken_ledger_starts_no_upgrade(cli, tmp_path: Path) -> None:
    """The port step rewrites the ledger's table after the series and the pin: a begin marker
    edited away stopped the port there, after the audit and decide had committed."""
    down = _downstream(tmp_path)
    ledger = down / "PATCHES.md"
    ledger.write_text("# Patches\n\n| patch |\n|---|\n<!-- table:end -->\n")
    (down / "patchkeeper.toml").write_text(CONFIG + '\n[ledger]\nfile = "PATCHES.md"\n')
    git(down, "add", "-A")
    git(down, "commit", "-q", "-m", "a ledger")
    _releases(tmp_path)
    before = _files(down)

    run = cli(
        "upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.0", "--branch", "up",
        cwd=down,
    )  # fmt: skip

    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {ledger}:5: a '<!-- table:end -->' line, but no line starting "
        "with '<!-- table:begin' before it\n"
        "  hint: add a line <!-- table:begin ... --> where the table starts\n",
    )
    assert (_files(down), _branches(down)) == (before, ["main"])


def test_a_malformed_decisions_file_starts_no_upgrade(cli, tmp_path: Path) -> None:
    """decide adds to the decisions file after the audit: one that is no TOML stopped it
    there, the audit's evidence written."""
    down = _downstream(tmp_path)
    decisions = down / "patchkeeper-decisions.toml"
    decisions.write_text('[series."timestamps.patch"\ndecision = "carry"\n')
    _releases(tmp_path)
    before = _files(down)

    run = cli("upgrade", "--to", "../pdfthing-2.0", "--from", "../pdfthing-1.0", cwd=down)

    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {decisions}:1: not valid TOML: Expected ']' at the end of a "
        "table declaration (column 27)",
    )
    assert _files(down) == before


@pytest.mark.parametrize(
    "name", [".patchkeeper/evidence/port.json", ".patchkeeper/evidence/upgrade.md"]
)
def test_markdown_in_the_evidence_directory_starts_no_upgrade(
    cli, tmp_path: Path, name: str
) -> None:
    """A ``--markdown`` path in the evidence directory is refused before anything is
    written, though no file is there yet: the port step saves ``port.json`` there, and the
    record reads the directory."""
    _assert_markdown_refused(
        cli,
        tmp_path,
        name,
        "names a file in the evidence directory (.patchkeeper/evidence/), where the commands "
        "save their evidence and the record reads it: the report would be mixed into it, or "
        "replaced by a step",
    )
