"""unpack_archive on archives the tests build: what is accepted, what is refused."""

from __future__ import annotations

import os
import tarfile

import pytest

from patchkeeper.errors import FetchError
from patchkeeper.upstream.unpack import unpack_archive


def test_a_link_inside_the_tree_is_kept(tmp_path, tar_bytes):
    link = tarfile.TarInfo("top/pkg/alias.py")
    link.type, link.linkname = tarfile.SYMTYPE, "real.py"
    hard = tarfile.TarInfo("top/pkg/copy.py")
    hard.type, hard.linkname = tarfile.LNKTYPE, "top/pkg/real.py"
    archive = tmp_path / "top-1.0.tar.gz"
    archive.write_bytes(tar_bytes([("top/pkg/real.py", b"x = 1\n"), link, hard]))

    unpack_archive(archive, tmp_path / "out")

    pkg = tmp_path / "out" / "top" / "pkg"
    assert (pkg / "alias.py").is_symlink()
    assert os.readlink(pkg / "alias.py") == "real.py"
    assert (pkg / "copy.py").read_bytes() == (pkg / "real.py").read_bytes() == b"x = 1\n"


@pytest.mark.parametrize(
    ("name", "linkname", "why"),
    [
        ("top/link", "/etc/passwd", "a symbolic link to '/etc/passwd' outside the tree"),
        ("top/link", "../..", "a symbolic link to '../..' outside the tree"),
        ("top/hard", "../secret", "a hard link to '../secret' outside the tree"),
    ],
)
def test_links_leaving_the_tree_are_refused(tmp_path, tar_bytes, name, linkname, why):
    member = tarfile.TarInfo(name)
    member.type = tarfile.SYMTYPE if "link" in name else tarfile.LNKTYPE
    member.linkname = linkname
    archive = tmp_path / "top-1.0.tar.gz"
    archive.write_bytes(tar_bytes([("top/a.py", b""), member]))

    with pytest.raises(FetchError) as caught:
        unpack_archive(archive, tmp_path / "out")

    assert caught.value.message == (f"unsafe member {name!r}: {why}; nothing was unpacked")
    assert caught.value.path == archive
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["/abs.py", "C:/abs.py", "a/../../b.py"])
def test_unsafe_zip_names_are_refused(tmp_path, zip_bytes, name):
    archive = tmp_path / "top-1.0.zip"
    archive.write_bytes(zip_bytes([("top/a.py", b""), (name, b"")]))

    with pytest.raises(FetchError) as caught:
        unpack_archive(archive, tmp_path / "out")

    assert caught.value.message.startswith(f"unsafe member {name!r}: ")
    assert not (tmp_path / "out").exists()


def test_a_corrupt_archive_is_an_error(tmp_path, tar_bytes):
    archive = tmp_path / "top-1.0.tar.gz"
    archive.write_bytes(tar_bytes([("top/a.py", b"x" * 5000)])[:60])

    with pytest.raises(FetchError) as caught:
        unpack_archive(archive, tmp_path / "out")

    assert str(caught.value) == (
        f"{archive}: cannot unpack the archive: Compressed file ended before the "
        "end-of-stream marker was reached\n"
        "  hint: delete the file from the cache and fetch it again"
    )


def test_an_unknown_format_is_an_error(tmp_path):
    archive = tmp_path / "top-1.0.rar"
    archive.write_bytes(b"Rar!")

    with pytest.raises(FetchError) as caught:
        unpack_archive(archive, tmp_path / "out")

    assert str(caught.value) == (
        f"{archive}: unknown archive format\n"
        "  hint: patchkeeper unpacks .tar.gz, .tar.bz2, .tar.xz, .zip and .whl files"
    )
