"""A zip release (a wheel, an older project's ``.zip`` sdist) unpacked with the times its
members hold, as a tar release is: the audit dates a release by its newest file, and an
unpacked wheel whose files carried the day of the unpacking read as a release made today
(so a patch cherry-picked from upstream a year after the release was said to be "made
before the new release"). The shape of a real platform wheel: a package, its tests and a
``.dist-info``, built on the release's day."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

from patchkeeper.audit.upstream_commit import tree_day
from patchkeeper.upstream.fetch import unpack_local
from patchkeeper.upstream.treesearch import TreeSearch

RELEASED = (2024, 11, 22, 20, 34, 58)


def dated_zip(members: list[str], when: tuple[int, int, int, int, int, int]) -> bytes:
    """A zip whose every member (``b"x = 1\\n"``) is dated ``when``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=when), b"x = 1\n")
    return buffer.getvalue()


def test_an_unpacked_wheel_keeps_its_members_times(tmp_path: Path, private_cache: Path) -> None:
    wheel = tmp_path / "pk_web-6.4.2-cp38-abi3-manylinux2014_x86_64.whl"
    wheel.write_bytes(
        dated_zip(
            [
                "pk_web/__init__.py",
                "pk_web/httputil.py",
                "pk_web/test/httputil_test.py",
                "pk_web-6.4.2.dist-info/METADATA",
            ],
            RELEASED,
        )
    )

    tree = unpack_local(wheel)

    stamp = dt.datetime(*RELEASED, tzinfo=dt.timezone.utc).timestamp()
    assert (tree.root / "pk_web" / "httputil.py").stat().st_mtime == stamp
    assert (tree.root / "pk_web-6.4.2.dist-info" / "METADATA").stat().st_mtime == stamp
    assert tree_day(TreeSearch(tree.root, "wheel")) == dt.date(2024, 11, 22)


def test_a_zip_sdist_keeps_its_members_times(tmp_path: Path, private_cache: Path) -> None:
    sdist = tmp_path / "pk_web-1.0.zip"
    sdist.write_bytes(
        dated_zip(["pk_web-1.0/setup.py", "pk_web-1.0/pk_web/__init__.py"], (2013, 5, 6, 7, 8, 10))
    )

    tree = unpack_local(sdist)

    assert (
        tree.root == private_cache / "trees" / "local" / tree.sha256 / "pk_web-1.0" / "pk_web-1.0"
    )
    assert tree_day(TreeSearch(tree.root, "sdist")) == dt.date(2013, 5, 6)


def test_a_wheel_built_without_times_gives_no_day(tmp_path: Path, private_cache: Path) -> None:
    # a reproducible build writes zip's first day: no day, and so no dated evidence
    wheel = tmp_path / "pk_web-6.4.2-py3-none-any.whl"
    wheel.write_bytes(dated_zip(["pk_web/__init__.py"], (1980, 1, 1, 0, 0, 0)))

    tree = unpack_local(wheel)

    assert tree_day(TreeSearch(tree.root, "wheel")) is None
