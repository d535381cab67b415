"""pip's settings as patchkeeper reads them, requirement detection, the cache location."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest
from pip._internal.models.index import PyPI

import patchkeeper.upstream.fetch
import patchkeeper.upstream.finder
import patchkeeper.upstream.unpack
from patchkeeper.upstream.fetch import cache_root, is_requirement
from patchkeeper.upstream.pipsettings import PipSettings, read_pip_settings


def test_pip_default_index_when_nothing_is_configured(pip_isolated):
    settings = read_pip_settings()

    assert settings.index_urls == (PyPI.simple_url,)
    assert settings.find_links == ()


def test_environment_variables_as_pip_reads_them(pip_isolated, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    pip_isolated.setenv("PIP_INDEX_URL", "file:///srv/simple")
    pip_isolated.setenv("PIP_EXTRA_INDEX_URL", "file:///a/simple file:///b/simple")
    pip_isolated.setenv("PIP_FIND_LINKS", f"{tmp_path / 'missing'} {wheels}")
    pip_isolated.setenv("PIP_TRUSTED_HOST", "127.0.0.1:8080")
    pip_isolated.setenv("PIP_DEFAULT_TIMEOUT", "42")

    settings = read_pip_settings()

    assert settings == PipSettings(
        index_urls=("file:///srv/simple", "file:///a/simple", "file:///b/simple"),
        find_links=(str(wheels),),
        trusted_hosts=("127.0.0.1:8080",),
        cert=settings.cert,  # the machine's global pip.conf may name a CA bundle
        timeout=42.0,
    )
    assert settings.describe() == (
        "Looking in indexes: file:///srv/simple, file:///a/simple, file:///b/simple; "
        f"Looking in links: {wheels}"
    )


def test_a_configuration_file_as_pip_reads_it(pip_isolated, tmp_path):
    config = tmp_path / "pip.conf"
    config.write_text(
        "[global]\n"
        "index-url = file:///srv/simple\n"
        "extra-index-url =\n    file:///a/simple\n    file:///b/simple\n"
        f"find-links = {tmp_path / 'missing'}\n",
        encoding="utf-8",
    )
    pip_isolated.setenv("PIP_CONFIG_FILE", str(config))

    settings = read_pip_settings()

    assert settings.index_urls == ("file:///srv/simple", "file:///a/simple", "file:///b/simple")
    assert settings.find_links == ()


def test_no_index_leaves_only_find_links(pip_isolated, tmp_path):
    pip_isolated.setenv("PIP_NO_INDEX", "1")
    pip_isolated.setenv("PIP_FIND_LINKS", str(tmp_path))

    settings = read_pip_settings()

    assert (settings.index_urls, settings.find_links) == ((), (str(tmp_path),))


def test_passwords_are_hidden_in_messages():
    settings = PipSettings(index_urls=("http://user:secret@127.0.0.1:8080/simple",), find_links=())

    assert settings.describe() == "Looking in indexes: http://user:****@127.0.0.1:8080/simple"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("vllm==0.28.0", True),
        ("urllib3 == 1.26.20", True),
        ("django>=4.2,<5", True),
        ("vllm-ascend==0.30.0rc2", True),
        ("requests[socks]~=2.28", True),
        ("django", False),
        ("./x", False),
        ("../upstream", False),
        ("/opt/tree", False),
        ("~/tree", False),
        ("git:v1.0", False),
        ("pkg @ file:///x.tar.gz", False),
        ("", False),
    ],
)
def test_is_requirement(spec, expected):
    assert is_requirement(spec) is expected


def test_an_existing_directory_is_not_a_requirement(tmp_path, monkeypatch):
    (tmp_path / "vllm==0.28.0").mkdir()
    monkeypatch.chdir(tmp_path)

    assert is_requirement("vllm==0.28.0") is False


def test_cache_root_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    assert (tmp_path / "c").is_dir()

    monkeypatch.delenv("PATCHKEEPER_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "patchkeeper-corpus"


@pytest.mark.parametrize(
    "module", [patchkeeper.upstream.fetch, patchkeeper.upstream.finder, patchkeeper.upstream.unpack]
)
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)

    assert (result.failed, result.attempted > 0) == (0, True)


def test_paths_are_not_left_relative(pip_isolated, tmp_path, monkeypatch):
    (tmp_path / "links").mkdir()
    monkeypatch.chdir(tmp_path)
    pip_isolated.setenv("PIP_FIND_LINKS", "links")

    assert read_pip_settings().find_links == (os.path.join(str(Path(tmp_path)), "links"),)
