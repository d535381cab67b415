"""fetch_requirement against a package index the test writes on disk (file://, no network)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from patchkeeper.errors import FetchError
from patchkeeper.upstream.fetch import FetchedTree, fetch_requirement, find_cached, record_path

SETUP_PY = b"raise SystemExit('an sdist is never built')\n"
INIT_PY = b"VALUE = 1\n"
UNREACHABLE = "http://127.0.0.1:9/simple"  # the discard port on loopback: refused at once


def demo_sdist(tar_bytes, version: str = "1.0") -> bytes:
    top = f"pk_demo-{version}"
    return tar_bytes([(f"{top}/setup.py", SETUP_PY), (f"{top}/pk_demo/__init__.py", INIT_PY)])


def test_fetches_verifies_and_unpacks_an_sdist(local_index, private_cache, tar_bytes):
    data = demo_sdist(tar_bytes)
    real = local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", data)

    tree = fetch_requirement("pk-demo==1.0")

    top = private_cache / "trees" / "pk-demo" / "pk_demo-1.0" / "pk_demo-1.0"
    assert tree == FetchedTree(
        "pk-demo==1.0", "pk-demo", "1.0", "sdist", "pk_demo-1.0.tar.gz", real, top
    )
    assert (tree.root / "setup.py").read_bytes() == SETUP_PY
    assert (tree.root / "pk_demo" / "__init__.py").read_bytes() == INIT_PY
    assert (private_cache / "downloads" / "pk-demo" / "pk_demo-1.0.tar.gz").read_bytes() == data
    record = json.loads(record_path("pk-demo", "1.0", "sdist").read_text(encoding="utf-8"))
    assert record["sha256"] == real
    assert record["index-hashes"] == {"sha256": real}
    assert record["root"] == "trees/pk-demo/pk_demo-1.0/pk_demo-1.0"


def test_second_fetch_is_served_from_the_cache(local_index, tar_bytes, monkeypatch):
    local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", demo_sdist(tar_bytes))
    first = fetch_requirement("pk-demo==1.0")
    monkeypatch.setenv("PIP_INDEX_URL", UNREACHABLE)
    (local_index.root / "simple" / "pk-demo" / "index.html").unlink()

    again = fetch_requirement("PK_Demo == 1.0")

    assert again.root == first.root
    assert again.requirement == "PK_Demo == 1.0"
    assert find_cached("pk-demo==1.0") == FetchedTree(
        "pk-demo==1.0", "pk-demo", "1.0", "sdist", first.filename, first.sha256, first.root
    )


def test_fast_path_imports_no_index_client(local_index, tar_bytes):
    local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", demo_sdist(tar_bytes))
    tree = fetch_requirement("pk-demo==1.0")
    code = (
        "import sys\n"
        "from patchkeeper.upstream.fetch import fetch_requirement\n"
        "print(fetch_requirement('pk-demo==1.0').root)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('unearth', 'pip', 'packaging', 'httpx2')))\n"
    )
    env = {**os.environ, "PIP_INDEX_URL": UNREACHABLE}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [str(tree.root), "[]"]


def test_a_range_picks_the_highest_matching_version(local_index, tar_bytes):
    for version in ("1.0", "1.1", "2.0"):
        local_index.publish("pk-demo", f"pk_demo-{version}.tar.gz", demo_sdist(tar_bytes, version))

    tree = fetch_requirement("pk-demo>=1.0,<2")

    assert (tree.version, tree.root.name) == ("1.1", "pk_demo-1.1")
    assert find_cached("pk-demo==1.1") is not None
    assert find_cached("pk-demo==2.0") is None


def test_a_hash_mismatch_is_an_error_and_leaves_no_file(local_index, private_cache, tar_bytes):
    bad = "0" * 64
    real = local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", demo_sdist(tar_bytes), bad)

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.0")

    assert caught.value.message == (
        f"hash mismatch for pk_demo-1.0.tar.gz: the index says sha256={bad}, "
        f"the downloaded file has sha256={real}; the file was deleted"
    )
    assert caught.value.hint
    assert list((private_cache / "downloads" / "pk-demo").iterdir()) == []
    assert not (private_cache / "trees").exists()
    assert not record_path("pk-demo", "1.0", "sdist").exists()


def test_a_corrupt_cached_download_is_fetched_again(local_index, private_cache, tar_bytes):
    data = demo_sdist(tar_bytes)
    real = local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", data)
    first = fetch_requirement("pk-demo==1.0")
    record_path("pk-demo", "1.0", "sdist").unlink()
    archive = private_cache / "downloads" / "pk-demo" / "pk_demo-1.0.tar.gz"
    archive.write_bytes(data[:100])

    again = fetch_requirement("pk-demo==1.0")

    assert again.sha256 == real == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert again.root == first.root


def test_only_a_wheel_says_how_to_ask_for_it(local_index, zip_bytes):
    wheel = zip_bytes([("pk_demo/__init__.py", INIT_PY), ("pk_demo-1.0.dist-info/RECORD", b"")])
    local_index.publish("pk-demo", "pk_demo-1.0-py3-none-any.whl", wheel)

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.0")

    assert caught.value.message == "no sdist of pk-demo==1.0 on the package indexes, only a wheel"
    assert caught.value.hint == 'set fetch = "wheel" in [tool.patchkeeper] to use the wheel'
    tree = fetch_requirement("pk-demo==1.0", kind="wheel")
    assert sorted(p.name for p in tree.root.iterdir()) == ["pk_demo", "pk_demo-1.0.dist-info"]


def test_a_pure_wheel_is_preferred_and_any_platform_is_accepted(local_index, zip_bytes):
    native = "pk_demo-1.0-cp39-cp39-win_amd64.whl"
    local_index.publish("pk-demo", native, zip_bytes([("pk_demo/native.py", b"")]))
    assert fetch_requirement("pk-demo==1.0", kind="wheel").filename == native

    pure = "pk_demo-1.1-py3-none-any.whl"
    local_index.publish("pk-demo", "pk_demo-1.1-cp39-cp39-win_amd64.whl", zip_bytes([]))
    local_index.publish("pk-demo", pure, zip_bytes([("pk_demo/pure.py", b"")]))
    tree = fetch_requirement("pk-demo==1.1", kind="wheel")
    assert (tree.filename, (tree.root / "pk_demo" / "pure.py").is_file()) == (pure, True)


def test_an_unknown_project_is_an_error(local_index):
    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-no-such-project==1.0")

    assert caught.value.message == "no project named 'pk-no-such-project' on the package indexes"
    assert f"Looking in indexes: {local_index.url}" in caught.value.hint


@pytest.mark.parametrize("command", ["pin", "range"])
def test_an_untrusted_http_index_is_named_not_the_project(pip_isolated, private_cache, command):
    """An index over plain http from a host not in ``trusted-host`` is skipped, never asked
    (as pip does): "no project named 'x' on the package indexes" sent the user to check a
    name the index may well hold. The address is a documentation one: the index is never asked."""
    pip_isolated.setenv("PIP_INDEX_URL", "http://deploy:s3cret@192.0.2.1:8080/simple")
    with pytest.raises(FetchError) as caught:
        if command == "pin":
            fetch_requirement("pk-demo==1.0")
        else:
            fetch_requirement("pk-demo>=1.0")

    assert caught.value.message == (
        "no project named 'pk-demo' on the package indexes asked; not asked: "
        "http://****@192.0.2.1:8080/simple/pk-demo/ (plain http from a host pip does not "
        "trust)"
    )
    assert caught.value.hint == (
        "trust the host as pip does (trusted-host = 192.0.2.1 in pip's configuration, or "
        "PIP_TRUSTED_HOST), or serve the index over https (Looking in indexes: "
        "http://deploy:****@192.0.2.1:8080/simple)"
    )


def test_no_matching_version_lists_the_versions(local_index, tar_bytes):
    for version in ("1.0", "1.1"):
        local_index.publish("pk-demo", f"pk_demo-{version}.tar.gz", demo_sdist(tar_bytes, version))

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo>=3")

    assert caught.value.message == "no version of pk-demo matches pk-demo>=3"
    assert caught.value.hint == "available versions: 1.0, 1.1"


def test_a_long_version_list_says_it_is_cut(local_index, tar_bytes):
    # a project versioned by date, with more releases than the hint names: a mistyped
    # version (a digit dropped) must not read as "the pin is not on the index", and the
    # versions shown are those around it, the one meant (20221101) among them
    dates = [f"2022{m:02}01" for m in range(1, 13)] + ["20231228", "20240706"]
    for version in dates:
        local_index.publish("pk-demo", f"pk_demo-{version}.tar.gz", demo_sdist(tar_bytes, version))

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==2022110")

    assert caught.value.message == "no version of pk-demo matches pk-demo==2022110"
    assert caught.value.hint == (
        "available versions (12 of 14, around 2022110): 20220101, 20220201, 20220301, "
        "20220401, 20220501, 20220601, 20220701, 20220801, 20220901, 20221001, 20221101, "
        "20221201"
    )
    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo>=20250101")
    assert caught.value.hint == (
        "available versions (the newest 12 of 14): 20220301, 20220401, 20220501, 20220601, "
        "20220701, 20220801, 20220901, 20221001, 20221101, 20221201, 20231228, 20240706"
    )


def test_a_pin_the_index_never_had_is_shown_between_its_neighbours(local_index, tar_bytes):
    """A Debian pin packaged from a tag that was never published (1.1.0 between 1.0 and
    1.2, in a project with 20 releases since): the newest twelve did not show 1.0 and 1.2,
    the releases to choose between."""
    versions = ["0.6.0", "0.7", "0.8", "0.9", "0.9.1", "1.0", "1.2", "1.3", "1.3.1", "1.4"]
    versions += [f"1.4.{n}" for n in range(1, 3)] + [f"1.5.{n}" for n in range(10)]
    for version in versions:
        local_index.publish("pk-demo", f"pk_demo-{version}.tar.gz", demo_sdist(tar_bytes, version))

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.1.0")

    assert caught.value.hint == (
        "available versions (12 of 22, around 1.1.0): 0.6.0, 0.7, 0.8, 0.9, 0.9.1, 1.0, 1.2, "
        "1.3, 1.3.1, 1.4, 1.4.1, 1.4.2"
    )


def test_an_unreachable_index_names_the_requirement_and_the_index(private_cache, pip_isolated):
    pip_isolated.setenv("PIP_INDEX_URL", UNREACHABLE)

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.0")

    assert caught.value.message.startswith(
        f"cannot reach the package index for pk-demo==1.0 ({UNREACHABLE}/pk-demo/): "
    )
    assert caught.value.hint.startswith(f"Looking in indexes: {UNREACHABLE}; check the network")


@pytest.mark.parametrize(
    ("requirement", "kind", "message"),
    [
        ("pk-demo==1.0", "egg", "unknown distribution kind 'egg'"),
        ("pk demo", "sdist", "not a requirement: 'pk demo' ("),
        ("pk-demo @ file:///x.tar.gz", "sdist", "a direct URL requirement is not supported: "),
    ],
)
def test_bad_requests_are_errors(private_cache, requirement, kind, message):
    with pytest.raises(FetchError) as caught:
        fetch_requirement(requirement, kind)

    assert caught.value.message.startswith(message)


@pytest.mark.slow
def test_concurrent_fetches_share_one_complete_tree(local_index, private_cache, tar_bytes):
    files = [(f"pk_demo-1.0/pk_demo/m{i}.py", b"x = %d\n" % i * 2000) for i in range(300)]
    local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", tar_bytes(files))
    code = (
        "from patchkeeper.upstream.fetch import fetch_requirement\n"
        "print(fetch_requirement('pk-demo==1.0').root)\n"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    roots = {run.communicate()[0].strip() for run in runs}

    assert [run.returncode for run in runs] == [0, 0, 0]
    assert len(roots) == 1
    root = Path(roots.pop())
    assert len(list((root / "pk_demo").iterdir())) == 300
    leftovers = [p for p in private_cache.rglob("*") if p.name.endswith(".part")]
    assert leftovers == []


@pytest.mark.parametrize(
    ("member", "why"),
    [
        ("../evil", "it leaves the destination (..)"),
        ("pk_demo-1.0/../../evil", "it leaves the destination (..)"),
        ("ABSOLUTE", "it is an absolute path"),
        ("SYMLINK", "a symbolic link to '../../../../../outside' outside the tree"),
        ("DEVICE", "a device, FIFO or other special file"),
    ],
)
def test_unsafe_tar_members_are_refused(
    local_index, private_cache, tmp_path, tar_bytes, member, why
):
    outside = tmp_path / "outside"
    if member == "ABSOLUTE":
        member = str(outside)
        entry: tarfile.TarInfo | tuple[str, bytes] = (member, b"owned\n")
    elif member == "SYMLINK":
        entry = tarfile.TarInfo(member := "pk_demo-1.0/link")
        entry.type, entry.linkname = tarfile.SYMTYPE, "../../../../../outside"
    elif member == "DEVICE":
        entry = tarfile.TarInfo(member := "pk_demo-1.0/null")
        entry.type, entry.devmajor, entry.devminor = tarfile.CHRTYPE, 1, 3
    else:
        entry = (member, b"owned\n")
    data = tar_bytes([("pk_demo-1.0/setup.py", SETUP_PY), entry])
    local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", data)

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.0")

    assert caught.value.message == (f"unsafe member {member!r}: {why}; nothing was unpacked")
    assert not outside.exists()
    assert [p for p in tmp_path.rglob("*evil*")] == []
    assert list((private_cache / "trees" / "pk-demo").iterdir()) == []
    assert not record_path("pk-demo", "1.0", "sdist").exists()


def test_unsafe_wheel_members_are_refused(local_index, private_cache, tmp_path, zip_bytes):
    wheel = zip_bytes([("pk_demo/__init__.py", INIT_PY), ("../evil.py", b"owned\n")])
    local_index.publish("pk-demo", "pk_demo-1.0-py3-none-any.whl", wheel)

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.0", kind="wheel")

    assert caught.value.message == (
        "unsafe member '../evil.py': it leaves the destination (..); nothing was unpacked"
    )
    assert [p for p in tmp_path.rglob("*evil*")] == []
    assert list((private_cache / "trees" / "pk-demo").iterdir()) == []


def test_no_index_and_no_find_links_is_an_error(private_cache, pip_isolated):
    pip_isolated.setenv("PIP_NO_INDEX", "1")

    with pytest.raises(FetchError) as caught:
        fetch_requirement("pk-demo==1.0")

    assert caught.value.message == (
        "pip is configured with no index (no-index) and no usable find-links"
    )


def test_find_links_alone_is_enough(private_cache, pip_isolated, tmp_path, tar_bytes):
    links = tmp_path / "links"
    links.mkdir()
    data = demo_sdist(tar_bytes)
    (links / "pk_demo-1.0.tar.gz").write_bytes(data)
    pip_isolated.setenv("PIP_NO_INDEX", "1")
    pip_isolated.setenv("PIP_FIND_LINKS", f"{tmp_path / 'missing'} {links}")

    tree = fetch_requirement("pk-demo==1.0")

    assert tree.sha256 == hashlib.sha256(data).hexdigest()
    assert (tree.root / "setup.py").read_bytes() == SETUP_PY


class TerminalStream(io.StringIO):
    """A stream that says it is a terminal, as standard error is in one."""

    def isatty(self) -> bool:
        return True


def test_a_download_and_its_unpacking_show_progress_on_a_terminal(local_index, tar_bytes):
    """docs/terminal-output.md, Progress: a download's bar counts bytes, unpacking counts members."""
    from patchkeeper import progress
    from patchkeeper.render.console import progress_bar

    data = demo_sdist(tar_bytes)
    local_index.publish("pk-demo", "pk_demo-1.0.tar.gz", data)
    stream = TerminalStream()
    progress.set_bar_factory(lambda *args: progress_bar(*args, stream=stream, delay=0))
    try:
        fetch_requirement("pk-demo==1.0")
    finally:
        progress.set_bar_factory(None)
    shown = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", stream.getvalue())
    assert "downloading pk_demo-1.0.tar.gz" in shown
    assert f" {len(data)}/{len(data)} bytes " in shown
    assert "unpacking pk_demo-1.0.tar.gz" in shown
    assert " 2/2 " in shown  # setup.py and pk_demo/__init__.py
