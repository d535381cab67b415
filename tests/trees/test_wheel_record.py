"""RECORD rows added and removed byte for byte, whatever line end the installer used."""

from __future__ import annotations

import pytest

from patchkeeper.trees.installed import RecordEntry, add_record_rows, without_record_rows

SHA = "00" * 32
ROW = "pkg/new.py,sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,12"


@pytest.mark.parametrize("end", ["\r\n", "\n"])
def test_rows_are_appended_with_the_files_line_end_and_removed_exactly(end: str) -> None:
    original = (
        f'pkg/a.py,sha256=x,1{end}"pkg/odd,name.py",sha256=y,2{end}pkg-1.dist-info/RECORD,,{end}'
    )
    data = original.encode()
    added = add_record_rows(data, [RecordEntry("pkg/new.py", SHA, 12)])
    assert added == (original + ROW + end).encode()
    assert without_record_rows(added, {"pkg/new.py"}) == data
    assert without_record_rows(data, {"pkg/odd,name.py"}) == (
        f"pkg/a.py,sha256=x,1{end}pkg-1.dist-info/RECORD,,{end}".encode()
    )


def test_a_record_without_final_line_end_gets_one_before_new_rows() -> None:
    added = add_record_rows(b"pkg/a.py,,\r\npkg/b.py,,", [RecordEntry("pkg/new.py", SHA, 12)])
    assert added == f"pkg/a.py,,\r\npkg/b.py,,\r\n{ROW}\r\n".encode()
