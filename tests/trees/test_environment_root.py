"""``--target`` a virtual environment's root (the directory holding ``pyvenv.cfg``) instead
of its ``site-packages``: taken as a plain directory, ``apply`` said only that the patched
file does not exist, and ``verify`` reported the interpreter and every installed package as
drift. Every command refuses it, naming the ``site-packages`` to pass, and writes nothing;
a directory that holds ``pyvenv.cfg`` and the series' files is a tree like any other.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import venv_with_installed, write_files

CORE = "A = 1\n"
PATCH = "--- a/pkdemo/core.py\n+++ b/pkdemo/core.py\n@@ -1 +1 @@\n-A = 1\n+A = 2\n"
COMMANDS = ("apply", "verify", "status", "unapply")


def _venv_with_pkdemo(root: Path) -> tuple[Path, Path]:
    """A venv with pkdemo 1.0 installed as pip installs its wheel: (python, site)."""
    return venv_with_installed(root, "pkdemo", "1.0", {"pkdemo/core.py": CORE})


def _listing(root: Path) -> dict[str, bytes | str]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes() if path.is_file() else "dir"
        for path in sorted(root.rglob("*"))
        if not path.is_symlink()
    }


@pytest.fixture
def down(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "pkdemo"\npin = "1.0"\nseries = "patches/series"\n'
            'pristine = "../pristine"\n',
            "patches/series": "core.patch\n",
            "patches/core.patch": PATCH,
            "../pristine/pkdemo/core.py": CORE,
        },
    )


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """One environment for the commands that refuse it (none writes): (root, python, site)."""
    root = tmp_path_factory.mktemp("environment") / "venv"
    return (root, *_venv_with_pkdemo(root))


@pytest.mark.parametrize("command", COMMANDS)
def test_the_environment_root_is_refused_naming_site_packages(
    cli, down: Path, environment: tuple[Path, Path, Path], command: str
) -> None:
    venv, python, site = environment
    before = _listing(venv)
    run = cli(command, "--target", str(venv), cwd=down)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {venv}: the target is a virtual environment's root (it holds "
            "pyvenv.cfg), not the upstream's tree: none of the files the series patches is "
            "there; nothing was changed",
            f"  hint: pass the site-packages where the upstream is installed: --target {site}; "
            f"or the environment's interpreter: --python {python}",
        ],
    )
    assert _listing(venv) == before


def test_the_site_packages_it_names_is_patched(cli, down: Path, tmp_path: Path) -> None:
    _, site = _venv_with_pkdemo(tmp_path / "venv")
    run = cli("apply", "--target", str(site), cwd=down)
    assert (run.code, run.out) == (
        0,
        f"applied 1 patch on pkdemo 1.0 installed in {site}: 1 file changed\n",
    )
    assert (site / "pkdemo" / "core.py").read_text(encoding="utf-8") == "A = 2\n"


def test_an_environment_made_inside_the_tree_is_the_tree(cli, down: Path, tmp_path: Path) -> None:
    """``python -m venv .`` in a checkout: the series' files are there, so it is patched."""
    tree = write_files(tmp_path / "checkout", {"pyvenv.cfg": "home = /usr/bin\n"})
    write_files(tree, {"pkdemo/core.py": CORE})
    run = cli("apply", "--target", str(tree), cwd=down)
    assert (run.code, run.out) == (0, f"applied 1 patch on directory {tree}: 1 file changed\n")
    assert (tree / "pkdemo" / "core.py").read_text(encoding="utf-8") == "A = 2\n"
