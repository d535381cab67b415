"""The one atomic file write: the old content or the whole new one, never a torn file."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import pytest

from patchkeeper.atomic import write_atomic


def test_replaces_the_file_keeping_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "ledger.md"
    path.write_bytes(b"old\n")
    path.chmod(0o640)
    assert write_atomic(path, b"new\r\n\xe9") is None
    assert path.read_bytes() == b"new\r\n\xe9"
    assert path.stat().st_mode & 0o7777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.md"]


def test_a_new_file_gets_the_mode_asked_for_and_its_parents(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "state.json"
    write_atomic(path, b"{}\n", mode=0o600, parents=True)
    assert path.read_bytes() == b"{}\n"
    assert path.stat().st_mode & 0o7777 == 0o600


def test_a_writer_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "wheel.whl"
    path.write_bytes(b"verified")

    def download(out: BinaryIO) -> str:
        out.write(b"half a download")
        raise ValueError("digest differs")

    with pytest.raises(ValueError, match="digest differs"):
        write_atomic(path, download)
    assert path.read_bytes() == b"verified"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wheel.whl"]


def test_a_writer_returns_its_value(tmp_path: Path) -> None:
    def write(out: BinaryIO) -> int:
        return out.write(b"12345")

    assert write_atomic(tmp_path / "f", write) == 5
    assert (tmp_path / "f").read_bytes() == b"12345"


def test_an_interrupt_before_the_rename_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "retry.py"
    path.write_bytes(b"old")
    temporary = tmp_path / "retry.py.patchkeeper-tmp"

    def interrupt() -> None:
        assert temporary.read_bytes() == b"new"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, b"new", temporary=temporary, before_replace=interrupt)
    assert path.read_bytes() == b"old"
    assert not temporary.exists()
