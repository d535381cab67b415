"""The version comes from the git tag (setuptools-scm), and ``--version`` prints it."""

from __future__ import annotations

from packaging.version import Version

from helpers import REPO
from patchkeeper import __version__
from patchkeeper.config import tomllib


def test_version_prints_the_package_version(cli) -> None:
    run = cli("--version")
    assert (run.code, run.out, run.err) == (0, f"patchkeeper, version {__version__}\n", "")


def test_the_version_is_written_from_the_git_tag_at_build_time() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert "dynamic" not in pyproject["tool"]["setuptools"]
    assert pyproject["tool"]["setuptools_scm"] == {
        "version_file": "src/patchkeeper/_version.py",
        "fallback_version": "0.0+unknown",
    }
    assert "setuptools-scm>=8" in pyproject["build-system"]["requires"]
    # the build wrote the version file the package reads (a PEP 440 version); .ci/run checks
    # that an installed wheel's --version is the wheel's own version
    from patchkeeper._version import __version__ as written

    assert (__version__, str(Version(__version__))) == (written, written)
    assert __version__ != "0.0+unknown"


def test_the_version_file_is_not_tracked() -> None:
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/src/patchkeeper/_version.py" in ignored
