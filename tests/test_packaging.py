"""The package as published: license, project URLs, the changelog, and the version a build
takes from the git tag."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import metadata
from pathlib import Path

import pytest

from helpers import REPO
from patchkeeper.config import tomllib

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
#: The repository every project URL and every doc names.
REPOSITORY = "https://github.com/patchkeeper/patchkeeper"

#: A release heading of the changelog: ``## [0.2.0] - 2026-12-04``.
RELEASE = re.compile(r"^## \[(?P<version>\d[^\]]*)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.M)


def latest_release() -> str:
    """The version of the changelog's newest release heading (``"0.2.0"``)."""
    found = RELEASE.search((REPO / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert found is not None, "CHANGELOG.md has no '## [VERSION] - YYYY-MM-DD' heading"
    return found["version"]


def test_the_changelog_keeps_a_changelog() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## .*$", text, re.M)
    assert headings[0] == "## [Unreleased]"
    releases = [(found["version"], found["date"]) for found in RELEASE.finditer(text)]
    assert len(releases) == len(headings) - 1, "every heading after Unreleased is a release"
    assert releases[-1] == ("0.2.0", "2026-12-04")
    # newest first, each release's sections among Keep a Changelog's six
    assert [version for version, _ in releases] == sorted(
        (version for version, _ in releases),
        key=lambda v: tuple(int(part) for part in v.split(".")),
        reverse=True,
    )
    sections = set(re.findall(r"^### (.*)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", text, re.M))
    latest = releases[0][0]
    assert links["Unreleased"] == f"{REPOSITORY}/compare/v{latest}...HEAD"
    for version, _ in releases:
        assert links[version] == f"{REPOSITORY}/releases/tag/v{version}"


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    project = PYPROJECT["project"]
    assert (project["license"], project["license-files"]) == ("Apache-2.0", ["LICENSE"])
    assert "setuptools>=77" in PYPROJECT["build-system"]["requires"]
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:5] == ["Apache", "License", "Version", "2.0,", "January"]
    assert "END OF TERMS AND CONDITIONS" in text
    # what the installed distribution says (the metadata the build wrote)
    installed = metadata("patchkeeper")
    assert installed["License-Expression"] == "Apache-2.0"
    assert installed.get_all("License-File") == ["LICENSE"]


def test_the_project_urls_name_one_repository() -> None:
    assert PYPROJECT["project"]["urls"] == {
        "Homepage": REPOSITORY,
        "Documentation": f"{REPOSITORY}/tree/main/docs",
        "Source": REPOSITORY,
        "Issues": f"{REPOSITORY}/issues",
        "Changelog": f"{REPOSITORY}/blob/main/CHANGELOG.md",
    }
    installed = metadata("patchkeeper").get_all("Project-URL")
    assert installed is not None
    assert f"Source, {REPOSITORY}" in installed


def test_the_classifiers_name_the_supported_pythons() -> None:
    classifiers = PYPROJECT["project"]["classifiers"]
    versions = [c.rsplit(" :: ", 1)[1] for c in classifiers if re.search(r"Python :: 3\.\d+$", c)]
    assert versions == ["3.10", "3.11", "3.12", "3.13"]
    assert PYPROJECT["project"]["requires-python"] == ">=3.10"
    assert "Typing :: Typed" in classifiers
    assert (REPO / "src" / "patchkeeper" / "py.typed").is_file()


def wheel_version(source: Path, out: Path) -> tuple[str, str]:
    """Build a wheel of ``source`` with pip (build isolation: setuptools and setuptools-scm
    from the index); its file name's version and the ``__version__`` line of its
    ``patchkeeper/_version.py``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), "."],
        cwd=source,
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read("patchkeeper/_version.py").decode()
    (line,) = [x for x in text.splitlines() if x.startswith("__version__ = ")]
    return wheel.name.split("-")[1], line


@pytest.mark.network
@pytest.mark.slow
def test_a_tagged_clone_an_archive_and_a_copy_build_their_versions(tmp_path: Path) -> None:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-tags", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", "--detach", head], cwd=clone, check=True)
    subprocess.run(["git", "tag", "-a", "v9.8.7", "-m", "release 9.8.7"], cwd=clone, check=True)
    assert wheel_version(clone, tmp_path / "tagged") == (
        "9.8.7",
        "__version__ = version = '9.8.7'",
    )
    # an archive of the tag (what GitHub serves, and installs an action from): git fills in
    # .git_archival.txt, which gives the version without .git
    archive = tmp_path / "archive"
    archive.mkdir()
    tar = subprocess.run(
        ["git", "archive", "v9.8.7"], cwd=clone, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "x", "-C", str(archive)], input=tar, check=True)
    assert "describe-name: v9.8.7\n" in (archive / ".git_archival.txt").read_text()
    assert wheel_version(archive, tmp_path / "archived") == (
        "9.8.7",
        "__version__ = version = '9.8.7'",
    )
    # a copy of the files with no git and no filled-in archive file builds, saying so
    copy = tmp_path / "copy"
    shutil.copytree(clone, copy, ignore=shutil.ignore_patterns(".git"))
    assert wheel_version(copy, tmp_path / "copied") == (
        "0.0+unknown",
        "__version__ = version = '0.0+unknown'",
    )
