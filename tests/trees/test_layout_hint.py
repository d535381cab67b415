"""``apply`` on a directory target where none of a patch's files is where the patch says also
says where they are, when that is one place nearby: the target one level too high or too
deep, ``directory`` not matching the patch paths, one leading directory too many.

New user's report: ``apply --target ../j2-tree`` with Debian's jinja2 series, ``j2-tree``
holding the unpacked ``Jinja2-3.1.2/``, listed five files as "the file does not exist" and
nothing else (``verify`` then listed 198 drifted files). The tree here is the example's
minihttp 1.0; the series is one patch written by this test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from trees_support import retry_downstream

from helpers import Example, tree_bytes


@pytest.fixture
def nested(tmp_path: Path, example: Example) -> Path:
    """``outer/minihttp-1.0/``: an unpacked sdist inside the directory it was unpacked in."""
    shutil.copytree(example.old, tmp_path / "outer" / "minihttp-1.0")
    return tmp_path / "outer"


def _apply(cli, downstream: Path, target: Path) -> list[str]:
    before = tree_bytes(target.parent)
    run = cli("apply", "--target", str(target), cwd=downstream)
    assert (run.code, run.err) == (1, "")
    assert tree_bytes(target.parent) == before
    lines = run.out.splitlines()
    assert lines[0] == f"retry.patch does not apply to directory {target}"
    return lines


def test_a_target_one_level_too_high(cli, tmp_path, example, nested) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    lines = _apply(cli, downstream, nested)
    tree = nested / "minihttp-1.0"
    assert lines[1:] == [
        "  minihttp/retry.py: the file does not exist",
        "nothing was changed",
        f"hint: these files are under {tree}: pass --target {tree}",
    ]
    run = cli("apply", "--target", str(nested), "--json", cwd=downstream)
    data = json.loads(run.out)
    assert data["note"] == (
        f"nothing was changed\nhint: these files are under {tree}: pass --target {tree}"
    )
    assert cli("apply", "--target", str(tree), cwd=downstream).code == 0


def test_a_target_one_level_too_deep(cli, tmp_path, example, nested) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    tree = nested / "minihttp-1.0"
    lines = _apply(cli, downstream, tree / "minihttp")
    assert lines[-2:] == [
        "nothing was changed",
        f"hint: these files are under {tree}: pass --target {tree}",
    ]


def test_directory_not_set_for_paths_relative_to_the_package(cli, tmp_path, example) -> None:
    downstream = retry_downstream(tmp_path, example, "")
    tree = shutil.copytree(example.old, tmp_path / "minihttp-1.0")
    lines = _apply(cli, downstream, tree)
    assert (
        lines[-1] == f'hint: these files are under {tree / "minihttp"}: set directory = "minihttp"'
    )


def test_directory_set_for_paths_relative_to_the_root(cli, tmp_path, example) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/", directory="minihttp")
    tree = shutil.copytree(example.old, tmp_path / "minihttp-1.0")
    lines = _apply(cli, downstream, tree)
    assert lines[-1] == (
        f'hint: these files are under {tree} itself: set directory = "" (not "minihttp")'
    )


def test_one_leading_directory_too_many(cli, tmp_path, example) -> None:
    downstream = retry_downstream(tmp_path, example, "build/minihttp/")
    tree = shutil.copytree(example.old, tmp_path / "minihttp-1.0")
    lines = _apply(cli, downstream, tree)
    assert lines[-1] == (
        f"hint: these files are under {tree} without their first directory (build/): "
        "strip one more leading directory (-pN on the patch's series line, or strip)"
    )


def test_no_hint_when_the_files_are_nowhere_near(cli, tmp_path, example) -> None:
    downstream = retry_downstream(tmp_path, example, "elsewhere/")
    tree = shutil.copytree(example.old, tmp_path / "minihttp-1.0")
    lines = _apply(cli, downstream, tree)
    assert lines[1:] == ["  elsewhere/retry.py: the file does not exist", "nothing was changed"]


def test_verify_and_status_say_it_too(cli, tmp_path, example, nested) -> None:
    """``verify`` of the same target listed every file of the tree as drifted and said
    nothing of where the tree is; ``status`` and ``--json`` say it too."""
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    config = downstream / "patchkeeper.toml"
    config.write_text(config.read_text() + f'pristine = "{nested / "minihttp-1.0"}"\n')
    tree = nested / "minihttp-1.0"
    hint = f"hint: these files are under {tree}: pass --target {tree}"
    for command in ("verify", "status"):
        run = cli(command, "--target", str(nested), cwd=downstream)
        assert run.code == 1
        assert run.out.splitlines()[-1] == hint
    data = json.loads(cli("verify", "--target", str(nested), "--json", cwd=downstream).out)
    assert data["layout_hint"] == hint
    run = cli("verify", "--target", str(tree), cwd=downstream)
    assert run.out.splitlines()[-1] == "not ok: 0 of 1 patches applied, 0 files drifted"
    assert (
        json.loads(cli("verify", "--target", str(tree), "--json", cwd=downstream).out)[
            "layout_hint"
        ]
        == ""
    )


def test_verify_lists_a_few_files_of_a_target_one_level_too_high(
    cli, tmp_path, example, nested
) -> None:
    """``verify --target`` the directory an sdist was unpacked in compared every file of the
    tree twice (missing at the top, unknown one level down): a real sdist of 400 files gave
    800 lines above the hint that says which directory to give. The first few are listed,
    the rest counted; ``--json`` keeps every one."""
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    tree = nested / "minihttp-1.0"
    for name in ("cookies", "proxy", "status"):
        (tree / "minihttp" / f"{name}.py").write_text(f'"""minihttp {name}."""\n')
    config = downstream / "patchkeeper.toml"
    config.write_text(config.read_text() + f'pristine = "{tree}"\n')

    run = cli("verify", "--target", str(nested), cwd=downstream)

    changed = [line for line in run.out.splitlines() if "changed outside the series" in line]
    assert (run.code, len(changed), changed[-1]) == (
        1,
        6,
        "  changed outside the series: 10 more files, not listed: the target is not the tree "
        "the patches name (the hint below says where it is; --json lists every file)",
    )
    assert run.out.splitlines()[-2:] == [
        "not ok: 0 of 1 patches applied, 16 files drifted",
        f"hint: these files are under {tree}: pass --target {tree}",
    ]
    data = json.loads(cli("verify", "--target", str(nested), "--json", cwd=downstream).out)
    assert len(data["untouched"]) == 15
