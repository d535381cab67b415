"""``verify`` ignores build and test leftovers; ``unapply`` names drifted files and ``--force``."""

from __future__ import annotations

import hashlib
import json

import pytest

from helpers import Example, tree_bytes
from patchkeeper.config import load_config
from patchkeeper.constants import DEFAULT_IGNORE
from patchkeeper.errors import ConfigError
from patchkeeper.trees.leftovers import ignored_by


def leave_build_leftovers(target):
    base = target / "minihttp"
    for path in (
        ".pytest_cache/v/cache/nodeids",
        "build/lib/minihttp/client.py",
        "minihttp.egg-info/SOURCES.txt",
        ".pybuild/cpython3_3.12/build/x.py",
        "tests/.hypothesis/examples/x",
        "old.pyc",
        ".pc/applied-patches",
        ".pc/fix.patch/client.py",
    ):
        (base / path).parent.mkdir(parents=True, exist_ok=True)
        (base / path).write_text("left behind\n")


def test_verify_ignores_build_and_test_leftovers(cli, example: Example) -> None:
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    leave_build_leftovers(target)
    args = ("verify", "--target", str(target), "--pristine", str(example.old))

    text = cli(*args, cwd=example.downstream)
    data = json.loads(cli(*args, "--json", cwd=example.downstream).out)

    assert text.code == 0
    assert text.out.splitlines()[-2:] == [
        "  ignored (build and test leftovers): .pc/, .pybuild/, .pytest_cache/, build/, "
        "minihttp.egg-info/, old.pyc, tests/.hypothesis/",
        "ok: 7 of 7 patches applied, 0 files drifted",
    ]
    assert (data["untouched"], data["ignored"]) == (
        [],
        [
            ".pc/",
            ".pybuild/",
            ".pytest_cache/",
            "build/",
            "minihttp.egg-info/",
            "old.pyc",
            "tests/.hypothesis/",
        ],
    )


def test_a_configured_ignore_list_replaces_the_defaults(cli, example: Example) -> None:
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    (target / "minihttp" / ".pytest_cache").mkdir()
    (target / "minihttp" / ".pytest_cache" / "x").write_text("x\n")
    (target / "minihttp" / "debug.log").write_text("y\n")
    with (example.downstream / "patchkeeper.toml").open("a") as config:
        config.write('ignore = ["*.log"]\n')

    run = cli(
        "verify",
        "--json",
        "--target",
        str(target),
        "--pristine",
        str(example.old),
        cwd=example.downstream,
    )
    data = json.loads(run.out)

    assert run.code == 1
    assert [f["path"] for f in data["untouched"]] == [".pytest_cache/x"]
    assert data["ignored"] == ["debug.log"]


def test_ignore_is_validated(example: Example) -> None:
    with (example.downstream / "patchkeeper.toml").open("a") as config:
        config.write('ignore = "build/"\n')

    with pytest.raises(ConfigError) as caught:
        load_config(start=example.downstream)

    assert caught.value.message == "key 'ignore' must be a list of strings, not 'build/'"


@pytest.mark.parametrize(
    ("path", "is_dir", "expected"),
    [
        ("build", True, "/build/"),
        ("build/lib/x.py", False, "/build/"),
        ("pkg/operations/build/wheel.py", False, None),
        ("build", False, None),
        ("src/x.egg-info", True, "*.egg-info/"),
        ("a/b/__pycache__/m.cpython-312.pyc", False, "__pycache__/"),
        ("a/m.pyc", False, "*.pyc"),
        ("a/m.py", False, None),
        (".tox/py312/lib/x.py", False, ".tox/"),
        ("docs/.nox", True, ".nox/"),
        (".mypy_cache/3.12/x.json", False, ".mypy_cache/"),
        (".ruff_cache/CACHEDIR.TAG", False, ".ruff_cache/"),
    ],
)
def test_default_patterns(path, is_dir, expected) -> None:
    assert ignored_by(path, DEFAULT_IGNORE, is_dir=is_dir) == expected


def test_anchored_patterns_match_segment_by_segment() -> None:
    assert ignored_by("gen/x/out.c", ["gen/*/out.c"]) == "gen/*/out.c"
    assert ignored_by("gen/x/y/out.c", ["gen/*/out.c"]) is None
    assert ignored_by("src/gen/x/out.c", ["gen/*/out.c"]) is None
    assert ignored_by("src/gen/out.c", ["gen/"]) == "gen/"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def drift_client(cli, example: Example):
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    client = target / "minihttp" / "client.py"
    drifted = client.read_bytes().replace(b"follow redirects", b"follow REDIRECTS", 1)
    client.write_bytes(drifted)
    return target, drifted


def test_unapply_force_undoes_the_series_and_keeps_the_drifted_bytes(cli, example: Example) -> None:
    target, drifted = drift_client(cli, example)
    pristine = tree_bytes(example.old)

    run = cli(
        "unapply",
        "--force",
        "--json",
        "--target",
        str(target),
        "--pristine",
        str(example.old),
        cwd=example.downstream,
    )
    data = json.loads(run.out)

    backups = list((example.downstream / ".patchkeeper" / "backup").iterdir())
    assert run.code == 0
    assert (data["outcome"], data["backup"]) == ("unapplied", str(backups[0]))
    assert data["note"] == (
        "the series was undone anyway (--force); these files still differ from pristine: "
        f"client.py; their bytes from before are saved in {backups[0]}"
    )
    assert tree_bytes(backups[0]) == {"client.py": drifted}
    after = tree_bytes(target)
    undone = pristine["minihttp/client.py"].replace(b"follow redirects", b"follow REDIRECTS", 1)
    assert after == {**pristine, "minihttp/client.py": undone}
