"""Bytes kept as they are, and all-or-nothing writes, in ``ledger``, ``retire`` and ``export``.

The user-test report, bug 1: a patch header with a Latin-1 byte (``What: caf\\xe9``, common in
Debian's series) made ``ledger`` and ``retire`` exit 3 (``UnicodeEncodeError``), and
``retire`` had already taken the patch out of the series when it crashed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ledger_support import LEDGER_TEXT, config_at

from patchkeeper.errors import Interrupted
from patchkeeper.ledger import entries, export
from patchkeeper.main import main
from patchkeeper.trees.transaction import FAULT_ENV, INTERRUPT_ENV

OLD_WHAT = b"What: size read from PKG_SIZE | env"
LATIN1_WHAT = b"What: caf\xe9 | env"
#: The ledger table with the Latin-1 value, as bytes.
TABLE = (
    b"| patch | kind | what | upstream | cut against | retires when |\n"
    b"|---|---|---|---|---|---|\n"
    b"| size-knob | local | caf\xe9 \\| env | none | 1.0 | stays |\n"
    b"| extra-module | feature | adds pkg.extra | pkg #12 (open) | 1.0 | upstreamed |\n"
)
MARKER = b"do not edit it -->\n"


def _latin1(root: Path) -> None:
    patch = root / "patches" / "size-knob.patch"
    patch.write_bytes(patch.read_bytes().replace(OLD_WHAT, LATIN1_WHAT))


def _files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (the state directory included), relative path -> bytes."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_ledger_writes_a_latin1_header_byte_for_byte(downstream: Path, capsysbinary) -> None:
    _latin1(downstream)
    assert main(["-C", str(downstream), "ledger", "--check"]) == 1
    out = capsysbinary.readouterr().out
    assert b"+| size-knob | local | caf\xe9 \\| env | none | 1.0 | stays |\n" in out
    assert main(["-C", str(downstream), "ledger"]) == 0
    assert capsysbinary.readouterr().out == b"PATCHES.md: wrote the ledger (2 rows)\n"
    ledger_file = downstream / "PATCHES.md"
    assert ledger_file.read_bytes() == LEDGER_TEXT.encode().replace(MARKER, MARKER + TABLE)
    assert main(["-C", str(downstream), "ledger", "--check"]) == 0
    capsysbinary.readouterr()
    assert main(["-C", str(downstream), "ledger", "--check", "--json"]) == 0
    raw = capsysbinary.readouterr().out
    # the byte as its Latin-1 character (docs/json.md): no lone surrogate, which strict JSON
    # readers refuse and which cannot be encoded as UTF-8
    assert b'"caf\xc3\xa9 | env"' in raw
    value = json.loads(raw.decode("utf-8"))["rows"][0]["values"][1]
    assert value.encode("utf-8") == b"caf\xc3\xa9 | env"
    assert not (downstream / ".patchkeeper").exists()


def test_retire_records_a_latin1_header_byte_for_byte(downstream: Path, capsysbinary) -> None:
    _latin1(downstream)
    assert main(["-C", str(downstream), "ledger"]) == 0
    code = main(["-C", str(downstream), "retire", "size-knob", "--at", "1.1", "--why", "x"])
    assert code == 0
    assert capsysbinary.readouterr().out.endswith(
        b"retired size-knob at 1.1: removed patches/size-knob.patch; took it out of "
        b"patches/series; recorded in PATCHES.md\n"
    )
    assert (downstream / "patches" / "series").read_bytes() == b"extra-module.patch\n"
    assert not (downstream / "patches" / "size-knob.patch").exists()
    assert (
        (downstream / "PATCHES.md")
        .read_bytes()
        .endswith(
            b"| patch | kind | what | retired at | why |\n|---|---|---|---|---|\n"
            b"| size-knob | local | caf\xe9 \\| env | 1.1 | x |\n<!-- retired:end -->\n"
        )
    )
    assert main(["-C", str(downstream), "ledger", "--check"]) == 0
    assert not (downstream / ".patchkeeper").exists()


def test_check_branch_reads_a_ledger_with_a_latin1_byte(downstream: Path, capsys) -> None:
    _latin1(downstream)
    assert main(["-C", str(downstream), "ledger"]) == 0
    capsys.readouterr()
    assert main(["-C", str(downstream), "check-branch", "work"]) == 0
    assert capsys.readouterr().out == (
        "work against the series on v1.0: they agree (2 topics, 3 files compared)\n"
    )


def _retired_copy(downstream: Path, tmp_path: Path) -> dict[str, bytes]:
    """The downstream's files after a retire that ran to the end (in a copy)."""
    done = tmp_path / "done"
    shutil.copytree(downstream, done)
    assert main(["-C", str(done), "retire", "extra-module", "--at", "1.1", "--why", "x"]) == 0
    return _files(done)


def test_retire_is_all_or_nothing_at_every_interrupt(
    downstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _latin1(downstream)
    assert main(["-C", str(downstream), "ledger"]) == 0
    before = _files(downstream)
    after = _retired_copy(downstream, tmp_path)
    assert after != before
    rolled_back = 0
    for step in range(1, 40):
        work = tmp_path / f"step-{step}"
        shutil.copytree(downstream, work)
        monkeypatch.setenv(INTERRUPT_ENV, str(step))
        code = main(["-C", str(work), "retire", "extra-module", "--at", "1.1", "--why", "x"])
        monkeypatch.delenv(INTERRUPT_ENV)
        if code == 0:
            assert _files(work) == after
            break
        assert code == 130
        # The next command rolls back whatever journal is left; then no file is half done.
        assert main(["-C", str(work), "ledger", "--check"]) == 0
        state = _files(work)
        assert state in (before, after), f"step {step}: a half-done retire"
        rolled_back += state == before
    else:
        pytest.fail("retire never finished")
    assert rolled_back >= 6  # 3 files journaled, then series, ledger and the removal


def test_a_killed_retire_is_rolled_back_by_the_next_command(
    downstream: Path, tmp_path: Path
) -> None:
    _latin1(downstream)
    assert main(["-C", str(downstream), "ledger"]) == 0
    before = _files(downstream)
    command = [sys.executable, "-m", "patchkeeper", "-C", str(downstream), "retire"]
    env = {"PATH": "/usr/bin:/bin", FAULT_ENV: "5"}  # killed while rewriting the series
    done = subprocess.run([*command, "extra-module", "--at", "1.1", "--why", "x"], env=env)
    assert done.returncode == -9
    assert (downstream / ".patchkeeper" / "journal" / "manifest.json").is_file()
    assert main(["-C", str(downstream), "ledger", "--check"]) == 0
    assert _files(downstream) == before


def test_export_range_writes_patches_and_series_together(
    downstream: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    patches = downstream / "patches"
    for name in ("size-knob.patch", "extra-module.patch"):
        (patches / name).unlink()
    (patches / "series").write_bytes(b"# ours\n")
    before = _files(downstream)
    monkeypatch.setenv(INTERRUPT_ENV, "3")  # after the first file, before the series
    with pytest.raises(Interrupted) as caught:
        export.export_range(config_at(downstream), "v1.0..work")
    assert caught.value.message == (
        "interrupted while writing; the 3 files of this run were put back, nothing was changed"
    )
    assert _files(downstream) == before
    monkeypatch.delenv(INTERRUPT_ENV)
    result = export.export_range(config_at(downstream), "v1.0..work")
    assert [p.changed for p in result.patches] == [True, True]
    assert (patches / "series").read_bytes() == b"# ours\nsize-knob.patch\nextra-module.patch\n"


def test_a_pin_file_with_a_latin1_byte(tmp_path: Path) -> None:
    pin = tmp_path / "PIN"
    pin.write_bytes(b"# pinned by Ren\xe9\nv2.0\n")
    assert entries.read_pin(pin) == "v2.0"
    pin.write_bytes(b"Note: caf\xe9\nCommit: 0123456789abcdef\n")
    assert entries.read_pin(pin) == "0123456789abcdef"


def test_records_keep_a_latin1_byte(tmp_path: Path) -> None:
    """What ``report`` writes (AUDIT.md, the evidence JSON) keeps a header's byte too."""
    from patchkeeper.record import evidence_store

    value = b"Retires-when: caf\xe9 done".decode("utf-8", "surrogateescape")
    evidence_store.write_text(tmp_path / "AUDIT.md", f"| {value} |\n")
    assert (tmp_path / "AUDIT.md").read_bytes() == b"| Retires-when: caf\xe9 done |\n"
    evidence_store.write_json(tmp_path / "e.json", {"why": value})
    assert (tmp_path / "e.json").read_bytes() == (
        b'{\n  "why": "Retires-when: caf\\udce9 done"\n}\n'
    )
    assert evidence_store.read_json(tmp_path / "e.json", "") == {"why": value}


def test_decisions_toml_gets_a_replacement_character_and_reads_only_utf8(tmp_path: Path) -> None:
    """A Latin-1 removal condition goes into the TOML decisions file as U+FFFD (TOML is UTF-8);
    a decisions file with a byte that is not UTF-8 is an input error naming its line."""
    from patchkeeper.errors import ConfigError
    from patchkeeper.record import decisions

    condition = b"caf\xe9 upstreamed".decode("utf-8", "surrogateescape")
    table = decisions.Decision("series", "a.patch", "carry", "", condition, "")
    path = tmp_path / "patchkeeper-decisions.toml"
    path.write_text(decisions.render_table(table))
    assert path.read_bytes().splitlines()[3] == b'removal-condition = "caf\xef\xbf\xbd upstreamed"'
    assert decisions.load(path).get("series", "a.patch").removal_condition == "caf\ufffd upstreamed"
    path.write_bytes(path.read_bytes() + b"# Ren\xe9\n")
    with pytest.raises(ConfigError) as caught:
        decisions.load(path)
    assert (caught.value.message, caught.value.line) == ("not UTF-8 (TOML is): byte 0xe9", 6)
