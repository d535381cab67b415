"""The miner's index reading and pairing (``benchmarks/mine_debian.py``) on written fixtures.

The ``Sources`` paragraphs have the shape of the archive's; no network, no cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark_scripts import load

mine = load("mine_debian")

SOURCES = """\
Package: python-foo
Binary: python3-foo, python-foo-doc
Version: 1:2.28.1+dfsg-1+deb12u1
Maintainer: Debian Python Team <team+python@tracker.debian.org>
Build-Depends: debhelper-compat (= 13),
 dh-sequence-python3,
 python3-all
Architecture: all
Format: 3.0 (quilt)
Files:
 0123456789abcdef0123456789abcdef 2101 python-foo_2.28.1+dfsg-1+deb12u1.dsc
 fedcba9876543210fedcba9876543210 61234 python-foo_2.28.1+dfsg.orig.tar.xz
 00112233445566778899aabbccddeeff 9932 python-foo_2.28.1+dfsg-1+deb12u1.debian.tar.xz
Checksums-Sha256:
 1111111111111111111111111111111111111111111111111111111111111111 2101 python-foo_2.28.1+dfsg-1+deb12u1.dsc
 2222222222222222222222222222222222222222222222222222222222222222 61234 python-foo_2.28.1+dfsg.orig.tar.xz
 3333333333333333333333333333333333333333333333333333333333333333 9932 python-foo_2.28.1+dfsg-1+deb12u1.debian.tar.xz
Homepage: https://github.com/example/foo
Directory: pool/main/p/python-foo

Package: foo-tool
Version: 0.3-1
Build-Depends: debhelper-compat (= 13), cmake
Format: 3.0 (quilt)
Directory: pool/main/f/foo-tool

Package: python-bar
Version: 1.0-1
Build-Depends: dh-python
Format: 3.0 (native)
Directory: pool/main/p/python-bar
"""


def test_parse_sources_keeps_python_quilt_sources_with_their_tarball() -> None:
    found = mine.parse_sources(SOURCES)
    assert list(found) == ["python-foo"]
    assert found["python-foo"] == mine.Source(
        package="python-foo",
        version="1:2.28.1+dfsg-1+deb12u1",
        homepage="https://github.com/example/foo",
        binaries=("python3-foo", "python-foo-doc"),
        directory="pool/main/p/python-foo",
        tarball="python-foo_2.28.1+dfsg-1+deb12u1.debian.tar.xz",
        sha256="3" * 64,
        orig=mine.accuracy.OrigTarball(
            "python-foo_2.28.1+dfsg.orig.tar.xz", "pool/main/p/python-foo", "2" * 64
        ),
    )


BINDINGS = """\
Package: libfoo
Binary: libfoo1, python3-libfoo
Version: 0.3-1
Build-Depends: debhelper-compat (= 13), cmake, python3-dev:native, libpython3-dev
Format: 3.0 (quilt)
Directory: pool/main/libf/libfoo

Package: foo-docs
Binary: foo-docs, python3-foo-docs
Version: 0.3-1
Build-Depends: debhelper-compat (= 13), libpython3-dev, python3.11-venv
Format: 3.0 (quilt)
Directory: pool/main/f/foo-docs

Package: foo-compiler
Binary: foo-compiler, libfoo-compiler-dev
Version: 9.4-1
Build-Depends: debhelper-compat (= 13), python3:native, python3-sphinx
Format: 3.0 (quilt)
Directory: pool/main/f/foo-compiler
"""


def test_parse_sources_keeps_other_python3_builds_without_the_helper_mark() -> None:
    # foo-compiler runs Python only to build: it ships no python3-* package
    found = mine.parse_sources(SOURCES + "\n" + BINDINGS)
    assert list(found) == ["python-foo", "libfoo"]
    assert (found["python-foo"].helper, found["libfoo"].helper) == (True, False)


def test_touches_python_reads_the_file_names_of_the_diff() -> None:
    c_only = "--- a/src/foo.c\n+++ b/src/foo.c\n@@ -1 +1 @@\n-a\n+b\n"
    created = "--- /dev/null\n+++ b/bindings/foo.pyx\n@@ -0,0 +1 @@\n+a\n"
    assert mine.touches_python([c_only]) is False
    assert mine.touches_python([c_only, created]) is True
    assert mine.touches_python(["Subject: fix foo.py\n"]) is False


def test_debian_tarball_without_one() -> None:
    assert mine.debian_tarball("") == ("", "")
    assert mine.debian_tarball(f"{'a' * 64} 10 x_1.0.orig.tar.gz") == ("", "")
    assert mine.debian_tarball(f"{'a' * 64} 10 x_1.0-2.debian.tar.gz") == (
        "x_1.0-2.debian.tar.gz",
        "a" * 64,
    )


def test_tarball_version_follows_the_series_tool() -> None:
    assert mine.tarball_version("python-django_3.2.25-0+deb12u3.debian.tar.xz") == "3.2.25"
    assert mine.tarball_version("python-foo_2.28.1+dfsg-1+deb12u1.debian.tar.xz") == "2.28.1"
    assert mine.tarball_version("jsonnet_0.18.0+ds-3.debian.tar.xz") == "0.18.0"
    assert mine.tarball_version("peewee_3.14.10+dfsg1-1.debian.tar.xz") == "3.14.10"


def _index(version: str) -> dict[str, object]:
    return {"foo": mine.Source("foo", version, "", ())}


INDEXES = {
    "bullseye": _index("1.0-1"),
    "bookworm": _index("1.2-1"),
    "trixie": _index("2.0-1"),
    "forky": _index("2.0-2"),
    "sid": _index("2.1-1"),
}


def test_upgrade_pairs_take_consecutive_suites_then_every_longer_span() -> None:
    assert mine.upgrade_pairs(INDEXES) == [
        ("foo", "bullseye", "bookworm"),
        ("foo", "bookworm", "trixie"),
        ("foo", "forky", "sid"),
        # bullseye -> forky and bookworm -> forky are 1.0 -> 2.0 and 1.2 -> 2.0 again,
        # trixie -> sid is forky -> sid's 2.0 -> 2.1
        ("foo", "bullseye", "trixie"),
        ("foo", "bullseye", "sid"),
        ("foo", "bookworm", "sid"),
    ]


def test_longer_pairs_rise_and_change_the_upstream_version() -> None:
    # sid went back to 0.9: no longer upgrade into it
    indexes = _indexes(bullseye="1.0-1", bookworm="1.0-4", trixie="2.0-1", sid="0.9-1")
    assert mine.longer_pairs("foo", indexes, set(indexes)) == [("foo", "bullseye", "trixie")]
    assert mine.span_key(("foo", "bullseye", "trixie"), indexes) == ("foo", "1.0", "2.0")
    # bullseye -> trixie is bookworm -> trixie's span: one upgrade, the consecutive one
    assert mine.served_pairs("foo", indexes, set(indexes)) == [
        ("foo", "bookworm", "trixie"),
        ("foo", "trixie", "sid"),
    ]


def test_served_pairs_skip_the_suites_the_archive_does_not_serve() -> None:
    served = {"bullseye", "trixie", "sid"}
    assert mine.served_pairs("foo", INDEXES, served) == [
        ("foo", "bullseye", "trixie"),
        ("foo", "trixie", "sid"),
        ("foo", "bullseye", "sid"),
    ]
    # forky's 2.0-2 is the same upstream version as trixie's: the upgrade starts there,
    # and trixie -> sid spans the same upstream versions
    assert mine.served_pairs("foo", INDEXES, {"trixie", "forky", "sid"}) == [
        ("foo", "forky", "sid")
    ]
    assert mine.served_pairs("foo", INDEXES, {"sid"}) == []


def _entry(version: str) -> object:
    return mine.Source(
        "python-foo",
        version,
        "",
        (),
        "pool/main/p/python-foo",
        f"python-foo_{version}.debian.tar.xz",
        "3" * 64,
    )


def test_fetch_shares_a_version_with_its_symlinks_and_remembers_a_404(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path))
    twin = tmp_path / "debian-series" / "trixie" / "python-foo"
    (twin / "debian" / "patches").mkdir(parents=True)
    (twin / "debian" / "patches" / "series").write_text("a.patch\n", encoding="utf-8")
    (twin / "debian" / "foo.service").symlink_to("built-by-the-package.service")
    (twin / "UPSTREAM-VERSION").write_text("2.0\n", encoding="utf-8")
    (twin / "python-foo_2.0-1.debian.tar.xz").write_bytes(b"")

    debian, how = mine.fetch("python-foo", "forky", _entry("2.0-1"))
    assert how == mine.SHARED
    assert debian == tmp_path / "debian-series" / "forky" / "python-foo" / "debian"
    assert (debian / "patches" / "series").read_text(encoding="utf-8") == "a.patch\n"
    assert str((debian / "foo.service").readlink()) == "built-by-the-package.service"
    assert mine.fetch("python-foo", "forky", _entry("2.0-1")) == (debian, mine.CACHED)

    marker = mine.missing_marker("python-foo", "bookworm")
    marker.parent.mkdir(parents=True)
    marker.write_text("1.0-1\n", encoding="utf-8")
    # the same version in another suite is the same archive file: not asked for again
    assert mine.fetch("python-foo", "bullseye", _entry("1.0-1")) == (None, mine.NOT_FOUND)
    assert not (tmp_path / "debian-series" / "bullseye" / "python-foo").exists()


def _indexes(**versions: str) -> dict[str, dict[str, object]]:
    """Indexes of one source ``foo``, by suite (``bookworm_backports`` is bookworm-backports)."""
    return {suite.replace("_", "-"): _index(version) for suite, version in versions.items()}


def test_a_backport_is_an_upgrade_of_the_release_it_follows() -> None:
    indexes = _indexes(
        bookworm="1.2-1", trixie="2.0-1", sid="2.4-1", bookworm_backports="2.2-1~bpo12+1"
    )
    assert mine.extra_pairs("foo", indexes, set(indexes)) == [
        ("foo", "bookworm", "bookworm-backports")
    ]
    assert mine.served_pairs("foo", indexes, set(indexes)) == [
        ("foo", "bookworm", "trixie"),
        ("foo", "trixie", "sid"),
        ("foo", "bookworm", "sid"),
        ("foo", "bookworm", "bookworm-backports"),
    ]
    # bookworm not served: the backport upgrades the newest served release before it
    indexes["bullseye"] = _index("1.0-1")
    assert mine.extra_pairs("foo", indexes, {"bullseye", "bookworm-backports"}) == [
        ("foo", "bullseye", "bookworm-backports")
    ]
    # no served release up to bookworm: no upgrade into the backport
    assert mine.extra_pairs("foo", indexes, {"trixie", "bookworm-backports"}) == []
    # both served: bullseye's series upgraded into the backport is a longer upgrade
    both = {"bullseye", "bookworm", "bookworm-backports"}
    assert mine.extra_pairs("foo", indexes, both, every=True) == [
        ("foo", "bullseye", "bookworm-backports")
    ]
    assert mine.served_pairs("foo", indexes, both) == [
        ("foo", "bullseye", "bookworm"),
        ("foo", "bookworm", "bookworm-backports"),
        ("foo", "bullseye", "bookworm-backports"),
    ]


def test_experimental_follows_sid_and_a_security_update_its_release() -> None:
    indexes = _indexes(
        trixie="2.0-1",
        forky="2.1-1",
        sid="2.1-1",
        experimental="3.0~rc1-1",
        trixie_security="2.0.3-0+deb13u1",
    )
    assert mine.extra_pairs("foo", indexes, set(indexes)) == [
        ("foo", "trixie", "trixie-security"),
        ("foo", "sid", "experimental"),
    ]
    # sid not served: forky's series is the one experimental's maintainers upgraded
    assert mine.extra_pairs("foo", indexes, {"forky", "experimental"}) == [
        ("foo", "forky", "experimental")
    ]


def test_no_upgrade_into_a_suite_of_the_same_or_an_older_version() -> None:
    # a rebuild of the same upstream version, and an experimental version sid has passed
    indexes = _indexes(bookworm="1.2-1", bookworm_backports="1.2-3~bpo12+1")
    assert mine.extra_pairs("foo", indexes, set(indexes)) == []
    indexes = _indexes(sid="2.1-1", experimental="2.0-1")
    assert mine.extra_pairs("foo", indexes, set(indexes)) == []
    assert mine.served_pairs("foo", indexes, set(indexes)) == []


def test_the_same_older_version_to_the_same_upstream_version_is_one_upgrade() -> None:
    # the backport packages trixie's upstream version: bookworm -> trixie already asks
    # the same question of the same series
    indexes = _indexes(
        bookworm="1.2-1",
        trixie="2.0-3",
        bookworm_backports="2.0-1~bpo12+1",
        bookworm_security="2.0-0+deb12u1",
    )
    assert mine.extra_pairs("foo", indexes, set(indexes)) == [
        ("foo", "bookworm", "bookworm-backports"),
        ("foo", "bookworm", "bookworm-security"),
    ]
    assert mine.served_pairs("foo", indexes, set(indexes)) == [("foo", "bookworm", "trixie")]
    # trixie not served: the backport is the upgrade, and the security update repeats it
    assert mine.served_pairs(
        "foo", indexes, {"bookworm", "bookworm-backports", "bookworm-security"}
    ) == [("foo", "bookworm", "bookworm-backports")]
    assert mine.upgrade_pairs(indexes) == [("foo", "bookworm", "trixie")]
    assert mine.pair_key(("foo", "bookworm", "bookworm-backports"), indexes) == (
        "foo",
        "1.2-1",
        "2.0",
    )


def test_project_candidates_end_with_the_source_name(tmp_path: Path) -> None:
    (tmp_path / "control").write_text(
        "Source: python-baz\n\nPackage: python3-baz\nArchitecture: all\n",
        encoding="utf-8",
    )
    assert mine.project_candidates(tmp_path, "python-baz") == ["baz", "python-baz"]
