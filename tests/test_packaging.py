"""The package as published: license, project URLs, the changelog, the install paths the docs
name, and the version a build takes from the git tag.

The docs and the changelog stay in step: an install line or a pre-commit/action reference in
any doc file names patchkeeper's repository at the changelog's latest release tag, and never
a distribution name no package index has yet (``pip install patchkeeper``).
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import metadata
from pathlib import Path

import pytest

from helpers import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
#: The repository every project URL and every doc names.
REPOSITORY = "https://github.com/patchkeeper/patchkeeper"

#: A release heading of the changelog: ``## [0.2.0] - 2026-12-04``.
RELEASE = re.compile(r"^## \[(?P<version>\d[^\]]*)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.M)
#: An install command and its arguments, up to the end of the line, of a code span or of the
#: shell command (``&&``, ``;``, ``|``).
INSTALL = re.compile(r"\b(?:pip3?|pipx|uv tool|uv pip) install\b(?P<args>[^\n`&;|]*)")
#: An install argument that is patchkeeper's name alone (with extras or a version specifier),
#: which no package index holds yet.
BARE_NAME = re.compile(r"""^["']?patchkeeper(?:\[[^\]]*\])?(?:[<>=!~].*)?["']?$""")
#: A reference to a ref of patchkeeper's repository: a git URL (``.../patchkeeper@v0.2.0``)
#: or the action (``patchkeeper/patchkeeper/.github/actions/patchkeeper-audit@v0.2.0``).
AT_REF = re.compile(r"patchkeeper(?:/[\w.-]+)*@(?P<ref>[^\s\"'`)]+)")
#: A pre-commit ``rev:`` under a ``repo:`` naming patchkeeper.
PRE_COMMIT_REV = re.compile(r"repo:\s*\S*patchkeeper\S*[ \t]*\n[ \t]*rev:\s*(?P<ref>\S+)")
#: A GitHub repository of that name, with its owner.
GITHUB = re.compile(r"github\.com/(?P<owner>[\w.-]+)/patchkeeper\b")


def latest_release() -> str:
    """The version of the changelog's newest release heading (``"0.2.0"``)."""
    found = RELEASE.search((REPO / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert found is not None, "CHANGELOG.md has no '## [VERSION] - YYYY-MM-DD' heading"
    return found["version"]


def doc_files() -> list[Path]:
    """Every doc file a user may copy an install line from: the Markdown and YAML files at
    the top and under docs/, examples/, benchmarks/, skills/ and .github/."""
    found = [*REPO.glob("*.md"), *REPO.glob("*.yml"), *REPO.glob("*.yaml")]
    for folder in ("docs", "examples", "benchmarks", "skills", ".github"):
        for pattern in ("*.md", "*.yml", "*.yaml"):
            found += (REPO / folder).rglob(pattern)
    return sorted(found)


def install_problems(text: str, latest: str) -> list[str]:
    """What in ``text`` names an install path that does not work: patchkeeper's bare name
    after an install command, a ref of patchkeeper's repository that is not ``v<latest>``,
    or another owner's repository of that name. Each as ``line N: what``."""
    problems = []

    def line(position: int) -> int:
        return text.count("\n", 0, position) + 1

    for found in INSTALL.finditer(text):
        try:  # as the shell splits them: "patchkeeper[mcp] @ git+URL" is one argument
            words = shlex.split(found["args"])
        except ValueError:  # a quote the line does not close
            words = found["args"].split()
        for word in words:
            if BARE_NAME.match(word):
                problems.append(
                    f"line {line(found.start())}: {found[0].strip()!r} names a distribution "
                    "no package index has: install from the git URL at the release tag"
                )
    for pattern in (AT_REF, PRE_COMMIT_REV):
        for found in pattern.finditer(text):
            if found["ref"] != f"v{latest}":
                problems.append(
                    f"line {line(found.start('ref'))}: {found['ref']} is not the changelog's "
                    f"latest release tag v{latest}"
                )
    for found in GITHUB.finditer(text):
        if f"https://{found[0]}" != REPOSITORY:
            problems.append(f"line {line(found.start())}: {found[0]} is not {REPOSITORY}")
    return problems


def test_the_checks_find_what_does_not_work() -> None:
    text = (
        "- run: pip install patchkeeper\n"
        "pipx install 'patchkeeper[test]>=0.1'\n"
        "pip install . && patchkeeper --version; uv tool install git+https://github.com/"
        "patchkeeper/patchkeeper@v0.2.0\n"
        "  - repo: https://github.com/patchkeeper/patchkeeper\n"
        "    rev: v0.1.0\n"
        "uses: patchkeeper/patchkeeper/.github/actions/patchkeeper-audit@v0.1.0\n"
        "git clone https://github.com/someone/patchkeeper\n"
        'pip install "patchkeeper[mcp] @ git+https://github.com/patchkeeper/patchkeeper@v0.2.0"\n'
        "git clone https://github.com/vllm-project/vllm && git -C vllm checkout v0.32.0\n"
    )
    assert install_problems(text, "0.2.0") == [
        "line 1: 'pip install patchkeeper' names a distribution no package index has: "
        "install from the git URL at the release tag",
        "line 2: \"pipx install 'patchkeeper[test]>=0.1'\" names a distribution no package "
        "index has: install from the git URL at the release tag",
        "line 6: v0.1.0 is not the changelog's latest release tag v0.2.0",
        "line 5: v0.1.0 is not the changelog's latest release tag v0.2.0",
        "line 7: github.com/someone/patchkeeper is not https://github.com/patchkeeper/patchkeeper",
    ]


def test_every_doc_names_install_paths_that_work() -> None:
    latest = latest_release()
    problems = [
        f"{path.relative_to(REPO)}: {problem}"
        for path in doc_files()
        for problem in install_problems(path.read_text(encoding="utf-8"), latest)
    ]
    assert problems == []
    # the CI page's pre-commit config, install step and both workflows name the release
    ci = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    refs = [found["ref"] for found in AT_REF.finditer(ci)]
    refs += [found["ref"] for found in PRE_COMMIT_REV.finditer(ci)]
    assert refs == [f"v{latest}"] * 4


#: :data:`INSTALL` at every place it starts, one inside another's arguments too (a
#: sentence's "pip install X (or pipx install Y)").
INSTALL_IN_TEXT = re.compile(
    r"(?=\b(?P<tool>pip3?|pipx|uv tool|uv pip) install\b(?P<args>[^\n`&;|]*))"
)


def bare_name_installs(source: str) -> list[str]:
    """The install commands in ``source``'s string literals (f-strings' text parts too)
    whose argument is patchkeeper's bare name, each as ``line N: text``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        for install in INSTALL_IN_TEXT.finditer(node.value):
            # a parenthesis or a comma ends the command in a sentence: "... (or pipx ...)"
            args = re.split(r"[(),]", install["args"])[0]
            if any(BARE_NAME.match(word.strip("'\"")) for word in args.split()):
                found.append(f"line {node.lineno}: {install['tool']} install{args.rstrip()}")
    return found


def test_the_source_check_finds_a_bare_name() -> None:
    source = (
        "INSTALL = \"pip install 'patchkeeper[mcp]'\"\n"
        "HINT = f\"run {python} -m pip install 'mcp<3' (or pipx install patchkeeper)\"\n"
        'OK = "install it (pip install vllm), or pip install -e ."\n'
    )
    assert bare_name_installs(source) == [
        "line 1: pip install 'patchkeeper[mcp]'",
        "line 2: pipx install patchkeeper",
    ]


def test_no_message_names_an_install_that_finds_nothing() -> None:
    """A hint the package prints (the MCP server's missing SDK) never tells a user to
    install patchkeeper by its bare name, which no package index holds yet."""
    problems = [
        f"{path.relative_to(REPO)}: {problem}"
        for path in sorted((REPO / "src" / "patchkeeper").rglob("*.py"))
        for problem in bare_name_installs(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


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


#: Standard-library modules newer than the oldest supported Python (3.10), with the version
#: that added each: importing one without a version guard fails at start-up there.
NEWER_STDLIB = {"tomllib": (3, 11)}


def unguarded_imports(source: str) -> list[str]:
    """The imports of :data:`NEWER_STDLIB` modules in ``source`` that no ``if
    sys.version_info >= (X, Y):`` around them guards, each as ``line N: module``."""
    found = []

    def guard(test: ast.expr) -> tuple[int, ...] | None:
        if (
            isinstance(test, ast.Compare)
            and ast.unparse(test.left) == "sys.version_info"
            and isinstance(test.ops[0], ast.GtE)
            and isinstance(test.comparators[0], ast.Tuple)
        ):
            return tuple(ast.literal_eval(test.comparators[0]))
        return None

    def visit(node: ast.AST, at_least: tuple[int, ...]) -> None:
        if isinstance(node, ast.If):
            version = guard(node.test)
            for child in node.body:
                visit(child, max(at_least, version) if version else at_least)
            for child in node.orelse:
                visit(child, at_least)
            return
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module.split(".")[0]]
        for name in names:
            if name in NEWER_STDLIB and at_least < NEWER_STDLIB[name]:
                found.append(f"line {node.lineno}: {name}")
        for child in ast.iter_child_nodes(node):
            visit(child, at_least)

    visit(ast.parse(source), ())
    return found


def test_the_guard_check_finds_an_unguarded_import() -> None:
    source = (
        "import tomllib\n"
        "if sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    import tomli\n"
        "def f():\n    from tomllib import loads\n"
    )
    assert unguarded_imports(source) == ["line 1: tomllib", "line 7: tomllib"]


def test_every_module_imports_on_the_oldest_supported_python() -> None:
    """``tomllib`` came with Python 3.11: an unguarded import of it stopped every command
    that reads a tree's version (audit, apply, verify, port) on 3.10, which the package
    declares it supports, with "internal error (ModuleNotFoundError ...)"."""
    problems = [
        f"{path.relative_to(REPO)}: {problem}"
        for path in sorted((REPO / "src" / "patchkeeper").rglob("*.py"))
        for problem in unguarded_imports(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


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
