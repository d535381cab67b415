"""The environment correspondence table, measured in real virtual environments.

The distribution installed here is a wheel the test writes (a zip with ``.dist-info``) and
installs with the venv's own pip (``--no-index``, nothing downloaded); the real urllib3
wheel is in ``test_real_records.py``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from helpers import pure_wheel
from patchkeeper.jsonable import to_jsonable
from patchkeeper.record.environment import (
    Environment,
    differences,
    directory_source,
    fetched_since,
    measure,
    requirement_source,
)
from patchkeeper.record.import_origins import Interpreter
from patchkeeper.record.sources import Source

INIT = b"import _decimal\nVALUE = 1\n"
CORE = b"def answer():\n    return 42\n"


def make_wheel(directory: Path) -> Path:
    """``pkdemo-1.0-py3-none-any.whl`` holding ``pkdemo/__init__.py`` and ``pkdemo/core.py``."""
    return pure_wheel(directory, "pkdemo", {"pkdemo/__init__.py": INIT, "pkdemo/core.py": CORE})


@pytest.fixture(scope="module")
def demo_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with ``pkdemo`` 1.0 installed by pip from the wheel above."""
    root = tmp_path_factory.mktemp("demo")
    venv.create(root / "env", with_pip=True)
    python = root / "env" / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            str(make_wheel(root)),
        ],
        check=True,
        capture_output=True,
    )
    return root / "env"


def source_tree(root: Path) -> Path:
    """An sdist-shaped tree of pkdemo 1.0 (``PKG-INFO`` and the package, src layout)."""
    (root / "src" / "pkdemo").mkdir(parents=True)
    (root / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: pkdemo\nVersion: 1.0\n")
    (root / "src" / "pkdemo" / "__init__.py").write_bytes(INIT)
    (root / "src" / "pkdemo" / "core.py").write_bytes(CORE)
    return root


def site_packages(env: Path) -> Path:
    return env / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def extension_expected() -> list[dict[str, str]]:
    """``_decimal`` is an extension module in most CPython builds, built in in some."""
    origin = importlib.util.find_spec("_decimal").origin
    if origin and origin.endswith(".so"):
        return [{"module": "_decimal", "file": origin}]
    return []


def as_json(value):
    from patchkeeper.jsonable import to_jsonable

    return json.loads(json.dumps(to_jsonable(value)))


@pytest.mark.slow  # demo_env: a real venv with a wheel pip builds
def test_an_installed_wheel_against_its_source_tree(demo_env: Path, tmp_path: Path) -> None:
    tree = source_tree(tmp_path / "pkdemo-1.0")
    python = demo_env / "bin" / "python"
    site = site_packages(demo_env)
    env = as_json(measure(python, tmp_path, [directory_source("sdist", tree)], ["pkdemo"]))
    assert env["interpreter"]["executable"] == str(python)
    assert env["interpreter"]["virtual_env"] is True
    assert env["interpreter"]["prefix"] == str(demo_env)
    record = site / "pkdemo-1.0.dist-info" / "RECORD"
    assert env["sources"] == [
        {
            "role": "sdist",
            "name": "pkdemo",
            "version": "1.0",
            "kind": "directory",
            "location": str(tree),
            "identity": env["sources"][0]["identity"],
            "dirty": None,
            "detail": "",
        },
        {
            "role": "installed",
            "name": "pkdemo",
            "version": "1.0",
            "kind": "installed",
            "location": str(site),
            "identity": "RECORD sha256 " + hashlib.sha256(record.read_bytes()).hexdigest(),
            "dirty": None,
            "detail": "pkdemo-1.0.dist-info",
        },
    ]
    assert env["sources"][0]["identity"].endswith(" (3 files)")
    assert env["origins"] == [
        {
            "package": "pkdemo",
            "spec_origin": str(site / "pkdemo" / "__init__.py"),
            "file": str(site / "pkdemo" / "__init__.py"),
            "path": [str(site / "pkdemo")],
            "distributions": ["pkdemo 1.0"],
            "inside": True,
            "extensions": extension_expected(),
            "error": "",
        }
    ]
    assert env["comparisons"] == [
        {
            "source": str(tree),
            "installed": f"pkdemo 1.0 in {site}",
            "packages": ["pkdemo"],
            "equal": 2,
            "different": [],
            "only_source": [],
            "only_installed": [],
            "changed_since_install": [],
        }
    ]
    assert env["notes"] == []


@pytest.mark.slow
def test_differences_between_source_wheel_and_installed_files(
    demo_env: Path, tmp_path: Path
) -> None:
    tree = source_tree(tmp_path / "pkdemo-1.0")
    (tree / "src" / "pkdemo" / "core.py").write_bytes(CORE + b"# local change\n")
    (tree / "src" / "pkdemo" / "extra.py").write_bytes(b"")
    installed = site_packages(demo_env) / "pkdemo" / "__init__.py"
    try:
        installed.write_bytes(INIT + b"# patched in place\n")
        env = as_json(
            measure(
                demo_env / "bin" / "python", tmp_path, [directory_source("sdist", tree)], ["pkdemo"]
            )
        )
    finally:
        installed.write_bytes(INIT)
    comparison = env["comparisons"][0]
    assert (comparison["equal"], comparison["different"]) == (1, ["pkdemo/core.py"])
    assert comparison["only_source"] == ["pkdemo/extra.py"]
    assert comparison["only_installed"] == []
    assert comparison["changed_since_install"] == ["pkdemo/__init__.py"]


@pytest.mark.slow
def test_the_current_directory_shadows_the_installed_package(
    demo_env: Path, tmp_path: Path
) -> None:
    shadow = tmp_path / "work"
    (shadow / "pkdemo").mkdir(parents=True)
    (shadow / "pkdemo" / "__init__.py").write_text("")
    env = as_json(measure(demo_env / "bin" / "python", shadow, [], ["pkdemo"]))
    origin = env["origins"][0]
    assert origin["file"] == str(shadow / "pkdemo" / "__init__.py")
    assert origin["distributions"] == ["pkdemo 1.0"]
    assert origin["inside"] is False


def test_an_absent_package_and_a_slow_import(tmp_path: Path) -> None:
    (tmp_path / "slowpkg").mkdir()
    (tmp_path / "slowpkg" / "__init__.py").write_text("import time\ntime.sleep(30)\n")
    # The absent package is probed with the default time limit, so that a busy machine
    # never turns "not installed" into "too slow"; the slow one sleeps far past its limit,
    # which leaves the interpreter's own probe time on a busy machine.
    absent = as_json(measure(Path(sys.executable), tmp_path, [], ["nosuchpkg"]))
    slow = as_json(measure(Path(sys.executable), tmp_path, [], ["slowpkg"], timeout=10))
    origins = absent["origins"] + slow["origins"]
    assert [(o["package"], o["file"], o["error"]) for o in origins] == [
        ("nosuchpkg", None, "ModuleNotFoundError: No module named 'nosuchpkg'"),
        ("slowpkg", None, "the environment probe (package slowpkg) took more than 10 s"),
    ]
    assert absent["notes"] + slow["notes"] == [
        f"nosuchpkg is not installed in `{sys.executable}`",
        f"slowpkg is not installed in `{sys.executable}`",
    ]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def test_a_checkout_with_its_commit_and_dirty_state(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.py").write_text("A = 1\n")
    (repo / "AUDIT.md").write_text("old record\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    head = git(repo, "rev-parse", "HEAD").strip()
    clean = directory_source("downstream", repo)
    assert (clean.kind, clean.identity, clean.dirty, clean.detail) == (
        "checkout",
        f"commit {head}",
        False,
        "",
    )
    (repo / "a.py").write_text("A = 2\n")
    (repo / "new.py").write_text("")
    dirty = directory_source("downstream", repo)
    assert (dirty.identity, dirty.dirty, dirty.detail) == (
        f"commit {head}",
        True,
        "2 changed: a.py, new.py",
    )
    (repo / "a.py").write_text("A = 1\n")
    (repo / "new.py").unlink()
    (repo / "AUDIT.md").write_text("new record\n")
    git(repo, "commit", "-qam", "record only")
    excluded = directory_source("downstream", repo, ("AUDIT.md",))
    assert (excluded.identity, excluded.dirty) == (f"commit {head}", False)


def test_a_requirement_is_read_from_the_fetch_cache_only(tmp_path: Path, private_cache) -> None:
    from patchkeeper.upstream.fetch import RECORD_FORMAT, record_path

    root = tmp_path / "cache" / "trees" / "pkdemo" / "pkdemo-1.0" / "pkdemo-1.0"
    root.mkdir(parents=True)
    record = {
        "format": RECORD_FORMAT,
        "name": "pkdemo",
        "version": "1.0",
        "kind": "sdist",
        "filename": "pkdemo-1.0.tar.gz",
        "sha256": "ab" * 32,
        "root": "trees/pkdemo/pkdemo-1.0/pkdemo-1.0",
    }
    path = record_path("pkdemo", "1.0", "sdist")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record))
    found = requirement_source("pin", "pkdemo==1.0", ("sdist",))
    assert (found.kind, found.version, found.identity, found.detail, found.location) == (
        "sdist",
        "1.0",
        "sha256 " + "ab" * 32,
        "pkdemo-1.0.tar.gz",
        str(root),
    )
    assert directory_source("audit target", root).identity == "sha256 " + "ab" * 32
    missing = requirement_source("pin", "pkdemo==2.0", ("sdist", "wheel"))
    assert (missing.kind, missing.version, missing.identity) == ("not in the cache", "2.0", "")


def test_differences_name_the_changed_fields() -> None:
    recorded = {"interpreter": {"version": "3.11.7"}, "sources": [{"identity": "commit a"}]}
    current = {"interpreter": {"version": "3.12.1"}, "sources": [{"identity": "commit b"}]}
    assert differences(recorded, current) == [
        'interpreter.version: "3.11.7" -> "3.12.1"',
        'sources.0.identity: "commit a" -> "commit b"',
    ]
    assert differences(recorded, recorded) == []


def _measured(python: str, *sources: Source) -> Environment:
    interpreter = Interpreter(
        "/venv/bin/python", python, "cpython", "/venv", "/usr", True, "", "linux", ()
    )
    return Environment("/down", interpreter, sources, (), ())


def _pin(kind: str, version: str = "1.1", identity: str = "") -> Source:
    return Source("pin", "chunky", version, kind, "", identity)


def _changes(recorded: Environment, current: Environment) -> list[str]:
    """What report --check finds between two measurements."""
    return differences(to_jsonable(recorded), to_jsonable(fetched_since(recorded, current)))


def test_a_pin_fetched_since_the_record_is_no_change_but_any_other_move_is() -> None:
    unfetched = _measured("3.12.1", _pin("not in the cache"))
    cached = _measured("3.12.1", _pin("sdist", identity="sha256 aa"))
    assert _changes(unfetched, cached) == []
    # the record read the cached file: gone from the cache, or another file, is reported
    assert _changes(cached, unfetched) == [
        'sources.0.identity: "sha256 aa" -> ""',
        'sources.0.kind: "sdist" -> "not in the cache"',
    ]
    assert _changes(cached, _measured("3.12.1", _pin("sdist", identity="sha256 bb"))) == [
        'sources.0.identity: "sha256 aa" -> "sha256 bb"'
    ]
    # another version of the pin, fetched or not, is reported
    assert _changes(unfetched, _measured("3.12.1", _pin("sdist", "1.2", "sha256 cc"))) == [
        'sources.0.identity: "" -> "sha256 cc"',
        'sources.0.kind: "not in the cache" -> "sdist"',
        'sources.0.version: "1.1" -> "1.2"',
    ]
    # the rest of the measurement is compared as before
    assert _changes(unfetched, _measured("3.13.0", _pin("sdist", identity="sha256 aa"))) == [
        'interpreter.version: "3.12.1" -> "3.13.0"'
    ]
