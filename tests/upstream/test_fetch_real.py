"""Real releases through the indexes pip is configured with, into the shared corpus cache."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys

import pytest

from corpus import debian_series, sdist_tree
from patchkeeper.errors import FetchError
from patchkeeper.upstream.fetch import cache_root, fetch_requirement, record_path

pytestmark = pytest.mark.network

UNREACHABLE = "http://127.0.0.1:9/simple"


def file_sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("version", ["1.26.12", "1.26.20"])
def test_urllib3_sdist(version):
    tree = fetch_requirement(f"urllib3=={version}")

    assert (tree.name, tree.version, tree.kind) == ("urllib3", version, "sdist")
    assert tree.filename == f"urllib3-{version}.tar.gz"
    assert tree.root.name == f"urllib3-{version}"
    assert (tree.root / "src" / "urllib3" / "util" / "retry.py").is_file()
    record = json.loads(record_path("urllib3", version, "sdist").read_text(encoding="utf-8"))
    download = cache_root() / "downloads" / "urllib3" / tree.filename
    assert tree.sha256 == record["sha256"] == record["index-hashes"]["sha256"]
    assert tree.sha256 == file_sha256(download)


def test_a_cached_pin_needs_no_network(monkeypatch):
    first = fetch_requirement("urllib3==1.26.20")

    def refuse(*args, **kwargs):
        raise OSError("network access during a cached fetch")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("PIP_INDEX_URL", UNREACHABLE)
    assert fetch_requirement("urllib3==1.26.20") == first

    code = "from patchkeeper.upstream.fetch import fetch_requirement as f; print(f('urllib3==1.26.20').root)"
    env = {**os.environ, "PIP_INDEX_URL": UNREACHABLE, "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == str(first.root)


def test_six_wheel():
    tree = fetch_requirement("six==1.16.0", kind="wheel")

    assert (tree.kind, tree.filename) == ("wheel", "six-1.16.0-py2.py3-none-any.whl")
    assert (tree.root / "six.py").is_file()
    assert (tree.root / "six-1.16.0.dist-info" / "RECORD").is_file()
    assert tree.root.name == "six-1.16.0-py2.py3-none-any"


def test_a_range_resolves_to_the_best_version():
    tree = fetch_requirement("idna>=3.0,<3.5")

    assert (tree.version, tree.root.name) == ("3.4", "idna-3.4")
    assert (tree.root / "idna" / "core.py").is_file()


def test_an_unknown_project_on_the_real_index():
    with pytest.raises(FetchError) as caught:
        fetch_requirement("patchkeeper-made-up-project-q7z==1.0")

    assert caught.value.message == (
        "no project named 'patchkeeper-made-up-project-q7z' on the package indexes"
    )
    assert caught.value.hint.startswith("check the name (Looking in indexes: ")


def test_debian_urllib3_series(monkeypatch):
    patches, version = debian_series("python-urllib3")

    series = (patches / "series").read_text(encoding="utf-8").split()
    assert version == "1.26.12"
    assert len([line for line in series if not line.startswith("#")]) == 12
    assert all((patches / name).is_file() for name in series)

    def no_apt(*args, **kwargs):
        raise AssertionError("debian_series ran the download again")

    monkeypatch.setattr(subprocess, "run", no_apt)
    assert debian_series("python-urllib3") == (patches, "1.26.12")


def test_debian_series_applies_to_the_sdist_of_its_version():
    patches, version = debian_series("python-urllib3")
    root = sdist_tree(f"urllib3=={version}")
    first = (patches / "series").read_text(encoding="utf-8").split()[0]

    done = subprocess.run(
        ["patch", "-p1", "--dry-run", "--fuzz", "0", "-i", str(patches / first)],
        cwd=root,
        capture_output=True,
        text=True,
    )

    assert done.returncode == 0, done.stdout + done.stderr
