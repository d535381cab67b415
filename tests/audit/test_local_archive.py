"""A release given as a local sdist or wheel file (what ``pip download`` leaves): the
options that read a release (``audit --to``, ``--pristine``, ``port --to``) unpack it into
the cache once and judge it as they judge its unpacked directory; ``--target``, which is
written, still takes a directory only."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from helpers import Example, pure_wheel, tree_bytes


def _sdist(example: Example) -> Path:
    sdist = example.root / "minihttp-1.1.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(example.new, arcname="minihttp-1.1")
    return sdist


def _verdicts(out: str) -> list[tuple[str, str, str]]:
    return [(v["name"], v["verdict"], v["summary"]) for v in json.loads(out)["verdicts"]]


pytestmark = pytest.mark.usefixtures("private_cache")


def test_audit_to_a_local_sdist_judges_it_as_its_directory(cli, example: Example) -> None:
    down = example.downstream
    by_directory = cli("audit", "--to", str(example.new), "--json", cwd=down)
    sdist = _sdist(example)
    before = tree_bytes(example.root / "downstream")
    by_sdist = cli("audit", "--to", str(sdist), "--json", cwd=down)
    assert (by_sdist.code, _verdicts(by_sdist.out)) == (
        by_directory.code,
        _verdicts(by_directory.out),
    )
    target = json.loads(by_sdist.out)["target"]
    assert (target["kind"], target["name"], target["version"]) == ("requirement", "minihttp", "1.1")
    assert tree_bytes(example.root / "downstream") == before  # the audit writes nothing
    # a second audit reads the tree unpacked the first time
    again = cli("audit", "--to", str(sdist), "--json", cwd=down)
    assert json.loads(again.out)["target"]["path"] == target["path"]


def test_a_local_wheel_is_a_release_too(cli, example: Example) -> None:
    files = {
        path.relative_to(example.new).as_posix(): path.read_bytes()
        for path in sorted((example.new / "minihttp").rglob("*.py"))
    }
    wheel = pure_wheel(example.root, "minihttp", files, version="1.1")
    down = example.downstream
    by_directory = cli("audit", "--to", str(example.new), "--json", cwd=down)
    by_wheel = cli("audit", "--to", str(wheel), "--json", cwd=down)
    assert _verdicts(by_wheel.out) == _verdicts(by_directory.out)


def test_a_file_that_is_no_archive_and_a_target_archive_are_still_refused(
    cli, example: Example
) -> None:
    down = example.downstream
    notes = example.root / "minihttp-1.1.txt"
    notes.write_text("not a release\n")
    run = cli("audit", "--to", str(notes), cwd=down)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {notes}: this is a file; a target is an upstream tree (a "
        "directory), an sdist or wheel file, or a requirement such as NAME==VERSION\n"
        "  hint: pass the release's sdist (.tar.gz) or wheel (.whl), its unpacked directory, "
        "or NAME==VERSION\n",
    )
    # apply writes its target: an archive is unpacked by the user, not into the cache
    run = cli("apply", "--target", str(_sdist(example)), cwd=down)
    assert run.code == 2
    assert "unpack the sdist and pass its directory" in run.err


def test_a_local_sdist_is_a_pristine_reference_too(cli, example: Example) -> None:
    old = example.root / "minihttp-1.0.tar.gz"
    with tarfile.open(old, "w:gz") as archive:
        archive.add(example.old, arcname="minihttp-1.0")
    down = example.downstream
    new = str(example.new)
    by_directory = cli("audit", "--to", new, "--pristine", str(example.old), "--json", cwd=down)
    by_sdist = cli("audit", "--to", new, "--pristine", str(old), "--json", cwd=down)
    assert _verdicts(by_sdist.out) == _verdicts(by_directory.out)
    assert by_sdist.code == by_directory.code


def test_releases_given_as_the_files_pip_download_leaves(cli, example: Example) -> None:
    """``pip download -d dl`` of each release, then ``audit --to RANGE --releases dl``:
    ``--to`` takes those files, but ``--releases`` read only ``NAME-VERSION`` directories and
    answered "releases found: none". Each sdist is judged as its directory is; a wheel of a
    version that has an sdist too is left (the series names the sdist's files), one alone is
    judged; another project's file and other files are no releases."""
    down = example.downstream
    by_directory = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream", cwd=down)
    dl = example.root / "dl"
    dl.mkdir()
    for version in ("1.0", "1.1"):
        with tarfile.open(dl / f"minihttp-{version}.tar.gz", "w:gz") as archive:
            archive.add(example.root / "upstream" / f"minihttp-{version}", f"minihttp-{version}")
    # a wheel of 1.1 whose retry.py is no release's: judged, it would change the verdicts
    pure_wheel(dl, "minihttp", {"minihttp/retry.py": b"# not minihttp 1.1\n"}, version="1.1")
    release = example.root / "upstream" / "minihttp-1.2"
    files = {
        path.relative_to(release).as_posix(): path.read_bytes()
        for path in sorted((release / "minihttp").rglob("*.py"))
    }
    pure_wheel(dl, "minihttp", files, version="1.2")
    pure_wheel(dl, "otherhttp", {"otherhttp/__init__.py": b""}, version="1.3")
    (dl / "minihttp-1.3.txt").write_text("notes\n")
    before = tree_bytes(down)

    run = cli("audit", "--to", "minihttp>=1.0", "--releases", str(dl), cwd=down)

    assert (run.code, run.err) == (1, "")
    assert run.out.split("\n\n")[1:] == by_directory.out.split("\n\n")[1:]
    assert "releases in minihttp>=1.0: 1.0, 1.1, 1.2\n" in run.out
    assert tree_bytes(down) == before


def test_a_cut_short_local_sdist_says_to_download_it_again(cli, example: Example) -> None:
    """An sdist file cut short (a download stopped half way), given as ``--to`` or in
    ``--releases``: the error names the file and says to download that release again. Before,
    it said to "delete the file from the cache and fetch it again", the advice for a
    download of patchkeeper's own cache: the user's file is in none."""
    down = example.downstream
    whole = _sdist(example).read_bytes()
    dl = example.root / "dl"
    dl.mkdir()
    cut = dl / "minihttp-1.1.tar.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    expected = (
        2,
        f"patchkeeper: error: {cut}: cannot unpack the archive: Compressed file ended "
        "before the end-of-stream marker was reached\n"
        "  hint: the file is cut short or damaged: download it again (pip download --no-deps "
        "--no-binary :all: minihttp==1.1), or give the directory it unpacks to instead\n",
    )
    run = cli("audit", "--to", str(cut), cwd=down)
    assert (run.code, run.err) == expected
    run = cli("audit", "--to", "minihttp>=1.1", "--releases", str(dl), cwd=down)
    assert (run.code, run.err) == expected


def test_an_older_sdists_ending_is_a_release_too(cli, example: Example) -> None:
    """The package indexes keep older sdists as ``.tar.bz2``, ``.tgz`` or ``.zip``, and pip
    downloads them: ``--to minihttp-1.1.tar.bz2`` was refused as "no sdist's file name", and
    ``--releases`` left such a file out, though patchkeeper unpacks each of them."""
    down = example.downstream
    by_directory = cli("audit", "--to", str(example.new), "--json", cwd=down)
    dl = example.root / "dl"
    dl.mkdir()
    for name, mode in (("minihttp-1.1.tar.bz2", "w:bz2"), ("minihttp-1.2.tgz", "w:gz")):
        release = example.root / "upstream" / name.removesuffix(".tar.bz2").removesuffix(".tgz")
        with tarfile.open(dl / name, mode) as archive:
            archive.add(release, arcname=release.name)
    run = cli("audit", "--to", str(dl / "minihttp-1.1.tar.bz2"), "--json", cwd=down)
    assert (run.code, _verdicts(run.out)) == (by_directory.code, _verdicts(by_directory.out))
    target = json.loads(run.out)["target"]
    assert (target["name"], target["version"]) == ("minihttp", "1.1")
    run = cli("audit", "--to", "minihttp>=1.1", "--releases", str(dl), cwd=down)
    assert "releases in minihttp>=1.1: 1.1, 1.2\n" in run.out
    # a name that is no release's is still refused, with the endings it may have
    other = dl / "snapshot.tar.bz2"
    other.write_bytes((dl / "minihttp-1.1.tar.bz2").read_bytes())
    run = cli("audit", "--to", str(other), cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {other}: this file name is no sdist's (NAME-VERSION.tar.gz, or an "
        "older sdist's .zip, .tar.bz2, .tgz) or wheel's (NAME-VERSION-TAGS.whl), so it names no "
        "release",
    )


def _tree_members(tree: Path, top: str) -> list[tuple[str, bytes]]:
    """``(name in the archive, bytes)`` of every file of ``tree``, sorted, under ``top``."""
    return [
        (f"{top}/{f.relative_to(tree).as_posix()}", f.read_bytes())
        for f in sorted(tree.rglob("*"))
        if f.is_file()
    ]


def _archive(example: Example, ending: str) -> Path:
    """The release 1.1 as a file of ``ending``, its members' dates and owners fixed (so the
    tar's bytes, and the checksums of its compressed forms, are the same at every run); a
    zip's members are stored, not compressed, so a damaged byte is a member's own."""
    import io
    import zipfile

    path = example.root / f"minihttp-1.1{ending}"
    if ending.endswith((".zip", ".whl")):
        top = "minihttp-1.1" if ending == ".zip" else "minihttp"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
            for name, data in _tree_members(example.new, top):
                zf.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data)
        return path
    mode = {".tar.gz": "w:gz", ".tar.bz2": "w:bz2", ".tar.xz": "w:xz"}[ending]
    with tarfile.open(path, mode) as archive:
        for name, data in _tree_members(example.new, "minihttp-1.1"):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            archive.addfile(info, io.BytesIO(data))
    return path


#: The one-line reason for each archive kind, cut to half its length and replaced by a page
#: of text (what a proxy or a failed download leaves in the file's place).
CUT = {
    ".tar.gz": "Compressed file ended before the end-of-stream marker was reached",
    ".tar.bz2": "it is not a bzip2-compressed tar file, or it is cut short",
    ".tar.xz": "Compressed file ended before the end-of-stream marker was reached",
    ".zip": "it is not a zip file, or it is cut short",
    ".whl": "it is not a zip file, or it is cut short",
}
NOT_ONE = {
    ".tar.gz": "it is not a gzip-compressed tar file, or it is cut short",
    ".tar.bz2": "it is not a bzip2-compressed tar file, or it is cut short",
    ".tar.xz": "it is not an xz-compressed tar file, or it is cut short",
    ".zip": "it is not a zip file, or it is cut short",
    ".whl": "it is not a zip file, or it is cut short",
}


@pytest.mark.parametrize("ending", list(CUT))
def test_a_damaged_archive_of_any_kind_is_one_line_and_exit_2(
    cli, example: Example, ending: str
) -> None:
    """Every archive kind a release comes in, cut short or not an archive at all, given to
    ``--to``: one error line naming the file and what is wrong, the hint to download it
    again, exit 2 and no traceback. ``tarfile`` said of a file it cannot open one line for
    each compression it tried, and a damaged xz stream ended in a traceback."""
    whole = _archive(example, ending).read_bytes()
    wheel = ending == ".whl"
    dl = example.root / "dl"
    dl.mkdir()
    name = "minihttp-1.1-py3-none-any.whl" if wheel else f"minihttp-1.1{ending}"
    bad = dl / name
    binary = "" if wheel else " --no-binary :all:"
    hint = (
        "  hint: the file is cut short or damaged: download it again (pip download --no-deps"
        f"{binary} minihttp==1.1), or give the directory it unpacks to instead\n"
    )
    for content, reason in (
        (whole[: len(whole) // 2], CUT[ending]),
        (b"<html><body>503 Service Unavailable</body></html>\n", NOT_ONE[ending]),
    ):
        bad.write_bytes(content)
        run = cli("audit", "--to", str(bad), cwd=example.downstream)
        error = f"patchkeeper: error: {bad}: cannot unpack the archive: {reason}\n"
        assert (run.code, run.out, run.err) == (2, "", error + hint)


def test_a_damaged_stream_or_member_is_refused(cli, example: Example) -> None:
    """A ``.tar.gz`` whose data is damaged (its checksum does not match) or a zip member
    whose bytes changed: refused in one line, where ``tarfile`` stopped quietly at the first
    header the damage made unreadable and the release was judged without the files after
    it."""
    import zipfile

    sdist = _archive(example, ".tar.gz")
    whole = sdist.read_bytes()
    stored = int.from_bytes(whole[-8:-4], "little")
    sdist.write_bytes(whole[:-8] + b"\0\0\0\0" + whole[-4:])
    run = cli("audit", "--to", str(sdist), cwd=example.downstream)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {sdist}: cannot unpack the archive: CRC check failed"
        f" 0x0 != {hex(stored)}",
    )
    wheel = _archive(example, ".whl").rename(example.root / "minihttp-1.1-py3-none-any.whl")
    first = zipfile.ZipFile(wheel).infolist()[0]
    data = bytearray(wheel.read_bytes())
    at = first.header_offset + 30 + len(first.filename)
    data[at] ^= 0xFF
    wheel.write_bytes(bytes(data))
    run = cli("audit", "--to", str(wheel), cwd=example.downstream)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {wheel}: cannot unpack the archive: Bad CRC-32 for file"
        f" '{first.filename}'",
    )
