"""pip's index settings read through ``pip config list`` (no ``pip._internal``), real files."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import helpers
from patchkeeper.errors import FetchError
from patchkeeper.upstream.pipsettings import PipSettings, default_index_url, read_pip_settings

ROOT = Path(__file__).resolve().parents[2]

#: Every pip variable these tests read or that could change what pip reads.
PIP_VARIABLES = (
    *helpers.PIP_VARIABLES,
    "PIP_CERT",
    "PIP_CLIENT_CERT",
    "PIP_TIMEOUT",
    "PIP_DEFAULT_TIMEOUT",
    "PIP_CONFIG_FILE",
    "PIP_ISOLATED_MODE",
)


@pytest.fixture
def pip_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME with pip's user and global locations under ``tmp_path``, nothing set."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path / "xdg"))
    for name in PIP_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_module_of_pip_is_imported():
    code = (
        "import os, sys\n"
        "os.environ['PIP_CONFIG_FILE'] = os.devnull\n"
        "from patchkeeper.upstream.pipsettings import read_pip_settings\n"
        "read_pip_settings()\n"
        "print(sorted(m for m in sys.modules if m == 'pip' or m.startswith('pip.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout == "[]\n"


def test_pip_is_not_a_runtime_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    assert [d for d in project["dependencies"] if d.split(">")[0].split("=")[0] == "pip"] == []


def test_the_user_file_in_xdg_config_home(pip_home, monkeypatch):
    write(
        pip_home / ".config" / "pip" / "pip.conf",
        "[global]\nindex-url = file:///srv/simple\ntrusted-host = 127.0.0.1:8080 10.0.0.1\n"
        "cert = /etc/ca.pem\nclient-cert = /etc/me.pem\nproxy = http://u:p@10.0.0.2:3128\n"
        "timeout = 7.5\n",
    )

    assert read_pip_settings() == PipSettings(
        index_urls=("file:///srv/simple",),
        find_links=(),
        trusted_hosts=("127.0.0.1:8080", "10.0.0.1"),
        cert="/etc/ca.pem",
        client_cert="/etc/me.pem",
        proxy="http://u:p@10.0.0.2:3128",
        timeout=7.5,
    )


def test_extra_indexes_alone_keep_the_default_index_first(pip_home):
    write(pip_home / ".pip" / "pip.conf", "[global]\nextra-index-url = file:///a/simple\n")

    assert read_pip_settings().index_urls == (default_index_url(), "file:///a/simple")


def test_sections_and_levels_apply_in_pips_order(pip_home, tmp_path, monkeypatch):
    # global file (XDG_CONFIG_DIRS) < user file; [global] < [download] < PIP_* variables.
    write(
        tmp_path / "xdg" / "pip" / "pip.conf",
        "[global]\nindex-url = file:///global/simple\ntimeout = 3\n",
    )
    write(
        pip_home / ".config" / "pip" / "pip.conf",
        "[global]\nindex-url = file:///user/simple\n"
        "[download]\nindex-url = file:///download/simple\n"
        "[install]\nindex-url = file:///install/simple\n",
    )
    assert read_pip_settings().index_urls == ("file:///download/simple",)
    assert read_pip_settings().timeout == 3.0

    monkeypatch.setenv("PIP_INDEX_URL", "file:///env/simple")
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "9")
    assert (read_pip_settings().index_urls, read_pip_settings().timeout) == (
        ("file:///env/simple",),
        9.0,
    )


@pytest.mark.parametrize(("word", "indexes"), [("yes", ()), ("off", None), ("0", None)])
def test_no_index_in_pips_words(pip_home, monkeypatch, word, indexes):
    write(pip_home / ".config" / "pip" / "pip.conf", f"[global]\nno-index = {word}\n")

    expected = indexes if indexes is not None else (default_index_url(),)
    assert read_pip_settings().index_urls == expected


def test_an_invalid_value_names_the_key(pip_home):
    write(pip_home / ".config" / "pip" / "pip.conf", "[global]\nno-index = maybe\n")

    with pytest.raises(FetchError) as caught:
        read_pip_settings()

    assert caught.value.message == (
        "pip's configuration sets global.no-index to 'maybe', which is not a yes/no value"
    )


def test_an_unreadable_configuration_file_is_pips_own_error(pip_home):
    write(pip_home / ".config" / "pip" / "pip.conf", "index-url = file:///no/section\n")

    with pytest.raises(FetchError) as caught:
        read_pip_settings()

    assert caught.value.message.startswith(f"`{sys.executable} -m pip config list` failed: ")
    assert "pip.conf" in caught.value.message


@pytest.mark.slow
def test_the_site_file_of_the_interpreter_asked(pip_home, tmp_path):
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    write(env_dir / "pip.conf", "[global]\nfind-links = file:///srv/wheels\n")
    python = str(env_dir / "bin" / "python")

    assert read_pip_settings(python).find_links == ("file:///srv/wheels",)
    assert read_pip_settings().find_links == ()


def test_an_interpreter_without_pip(pip_home, tmp_path):
    env_dir = tmp_path / "bare"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = str(env_dir / "bin" / "python")

    with pytest.raises(FetchError) as caught:
        read_pip_settings(python)

    assert (caught.value.message, caught.value.hint) == (
        f"pip is not installed for {python}",
        "patchkeeper reads pip's index settings with `python -m pip config list`: "
        f"install pip for it (`{python} -m ensurepip`)",
    )
    assert os.path.exists(python)


@pytest.fixture(scope="module")
def pip_env(tmp_path_factory) -> Path:
    """A virtual environment with pip: its own site configuration file can be written."""
    env_dir = tmp_path_factory.mktemp("pipenv") / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    return env_dir


def layered_files(tmp_path: Path, home: Path, site: Path) -> Path:
    """One file per level, each setting its own key and index-url; returns the
    PIP_CONFIG_FILE candidate (not yet named)."""
    write(
        tmp_path / "xdg1" / "pip" / "pip.conf", "[global]\nindex-url = file:///xdg1\ntimeout = 1\n"
    )
    write(tmp_path / "xdg2" / "pip" / "pip.conf", "[global]\nindex-url = file:///xdg2\ncert = /c\n")
    write(home / ".pip" / "pip.conf", "[global]\nindex-url = file:///legacy\nproxy = http://p\n")
    write(
        home / ".config" / "pip" / "pip.conf",
        "[global]\nindex-url = file:///user\n[download]\nno_index = no\n",
    )
    write(site / "pip.conf", "[global]\nindex-url = file:///site\nfind-links =\n  /a\n  /b\n")
    return write(tmp_path / "named.conf", "[global]\nindex-url = file:///named\n[install]\nx = 1\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"PIP_INDEX_URL": "file:///env", "PIP_NO_CACHE_DIR": "1"},
        {"PIP_CONFIG_FILE": "NAMED"},
        {"PIP_CONFIG_FILE": "MISSING", "PIP_TRUSTED_HOST": "h"},
        {"PIP_CONFIG_FILE": os.devnull, "PIP_DEFAULT_TIMEOUT": "3"},
        {"PIP_ISOLATED_MODE": "1", "PIP_INDEX_URL": "file:///env"},
    ],
    ids=["files", "variables", "named-file", "missing-named-file", "devnull", "isolated"],
)
def test_read_without_pip_as_pip_reads_it(pip_home, pip_env, tmp_path, monkeypatch, variables):
    from patchkeeper.upstream.pipfiles import read_configuration
    from patchkeeper.upstream.pipsettings import pip_config_list

    named = layered_files(tmp_path, pip_home, pip_env)
    monkeypatch.setenv("XDG_CONFIG_DIRS", f"{tmp_path / 'xdg1'}{os.pathsep}{tmp_path / 'xdg2'}")
    for name, value in variables.items():
        value = {"NAMED": str(named), "MISSING": str(tmp_path / "missing.conf")}.get(value, value)
        monkeypatch.setenv(name, value)
    python = str(pip_env / "bin" / "python")

    ours = read_configuration(prefix=str(pip_env))

    assert ours == pip_config_list(python)
    assert "global.index-url" in ours or variables.get("PIP_CONFIG_FILE") == os.devnull


def test_settings_are_read_without_pip_when_it_is_not_installed(pip_home, tmp_path):
    env_dir = tmp_path / "bare"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    path = tmp_path / "path"
    path.mkdir()
    (path / "patchkeeper").symlink_to(ROOT / "src" / "patchkeeper")
    write(
        pip_home / ".config" / "pip" / "pip.conf",
        "[global]\nindex-url = file:///srv/simple\nextra-index-url = file:///x file:///y\n",
    )
    code = (
        "import importlib.util, sys\n"
        "assert importlib.util.find_spec('pip') is None\n"
        "from patchkeeper.upstream.pipsettings import read_pip_settings\n"
        "print(read_pip_settings().index_urls)\n"
    )
    done = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(path)},
        check=False,
    )

    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "('file:///srv/simple', 'file:///x', 'file:///y')\n",
        "",
    )
