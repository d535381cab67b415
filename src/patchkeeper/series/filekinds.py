"""What a file of an upstream tree is: code, tests, docs, configuration or release notes.

The audit weighs a patch's files by kind: the change *is* the code; an upstream fix comes with
its own tests, documentation and release notes, written differently; build and tool
configuration is neither code nor documentation (nor is the package metadata generated from
it: an sdist's ``PKG-INFO``, an ``*.egg-info`` directory); a release-note fragment
(towncrier's ``newsfragments/``, ``changes/``, ``changelog.d/`` of scriv,
``changelogs/fragments/`` of antsibull-changelog) is consumed into the changelog at release
time and never decides a verdict on its own.

The rules are on path names only (no content), in this order: release notes, configuration,
tests, documentation, else code.
"""

from __future__ import annotations

CODE = "code"
TESTS = "tests"
DOCS = "docs"
CONFIG = "configuration"
NOTES = "release notes"

#: Directories whose files are release-note fragments or release notes (towncrier, scriv,
#: reno, antsibull-changelog's ``changelogs/``, Sphinx projects' ``docs/releases/``).
NOTE_DIRS = frozenset(
    {"newsfragments", "newsfragment", "changes", "changelog.d", "changes.d", "news",
     "releasenotes", "release-notes", "release_notes", "releases", "changelogs"}
)  # fmt: skip
#: File-name stems (before the first dot, upper case) of changelogs.
NOTE_STEMS = frozenset(
    {"NEWS", "CHANGES", "CHANGELOG", "HISTORY", "RELEASE-NOTES", "RELEASE_NOTES", "RELEASENOTES",
     "WHATSNEW"}
)  # fmt: skip
#: Build and tool configuration files (setuptools, pytest, tox, flake8, coverage, mypy, PEP 518).
CONFIG_NAMES = frozenset(
    {"pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml", "setup.py", ".coveragerc",
     "mypy.ini", ".flake8", "MANIFEST.in", "noxfile.py", "conftest.ini", "requirements.txt",
     "Makefile", "CMakeLists.txt", ".pre-commit-config.yaml", "meson.build"}
)  # fmt: skip
_CONFIG_PREFIXES = ("requirements",)
#: The suffixes of C and C++ files (an extension module's sources and headers), where a
#: ``#`` line is a preprocessor directive (code), not a comment.
C_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++")
#: The suffixes of Python and Python-like files (Cython's ``.pyx``/``.pxd``/``.pxi``), where a
#: ``#`` line is a comment.
PYTHON_SUFFIXES = (".py", ".pyi", ".pyx", ".pxd", ".pxi")
#: The languages :func:`language_of` tells apart.
C_FAMILY = "c"
PYTHON = "python"
#: Source files are never notes, whatever their name (``src/pkg/changes.py``).
_SOURCE_SUFFIXES = (*PYTHON_SUFFIXES, *C_SUFFIXES, ".rs", ".js", ".ts", ".go")
_RELEASE_DIRS = frozenset({"releases", "release-notes", "release_notes", "releasenotes"})
_TEST_DIRS = frozenset({"test", "tests", "testing", "testcases", "t"})
_DOC_DIRS = frozenset({"doc", "docs", "documentation", "man"})
_DOC_SUFFIXES = (".rst", ".md", ".txt", ".adoc", ".html", ".1")


def language_of(path: str) -> str:
    """The language of ``path`` by its suffix, as far as telling comments from code needs
    it: :data:`C_FAMILY` (C and C++), :data:`PYTHON` (Cython included), else ``""``.

    >>> language_of("src/_speedups.c"), language_of("pkg/_ext.pyx"), language_of("a.txt")
    ('c', 'python', '')
    """
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(C_SUFFIXES):
        return C_FAMILY
    if name.endswith(PYTHON_SUFFIXES):
        return PYTHON
    return ""


def _stem(name: str) -> str:
    return name.split(".", 1)[0].upper()


def is_notes(path: str) -> bool:
    """Whether ``path`` is a changelog or a release-note fragment.

    >>> is_notes("newsfragments/3433.bugfix.rst"), is_notes("CHANGES.rst")
    (True, True)
    >>> is_notes("docs/releases/4.2.14.txt"), is_notes("src/changes.py")
    (True, False)
    """
    parts = path.split("/")
    if parts[-1].endswith(_SOURCE_SUFFIXES):
        return False
    if _stem(parts[-1]) in NOTE_STEMS:
        return True
    return any(part.lower() in NOTE_DIRS for part in parts[:-1])


def is_changelog(path: str) -> bool:
    """Whether ``path`` is where a release's notes are collected (not a fragment): a
    ``NEWS``/``CHANGES``/``HISTORY``/``CHANGELOG`` file, ``docs/changelog*``,
    ``docs/changes*``, or a file under ``docs/releases/`` or ``release-notes/``.

    >>> is_changelog("CHANGES.rst"), is_changelog("docs/changelog.rst")
    (True, True)
    >>> is_changelog("newsfragments/1.bugfix"), is_changelog("docs/releases/4.2.txt")
    (False, True)
    """
    parts = path.split("/")
    if parts[-1].endswith(_SOURCE_SUFFIXES):
        return False
    if _stem(parts[-1]) in NOTE_STEMS:
        return True
    lowered = [part.lower() for part in parts[:-1]]
    name = parts[-1].lower()
    if lowered and lowered[0] in _DOC_DIRS and name.startswith(("changelog", "changes")):
        return True
    return any(part in _RELEASE_DIRS for part in lowered)


def is_config(path: str) -> bool:
    """Whether ``path`` is build or tool configuration, or package metadata generated from
    it (an sdist's ``PKG-INFO``, the files of an ``*.egg-info`` directory).

    >>> is_config("pytest.ini"), is_config("src/pkg/setup.cfg"), is_config("pkg/config.py")
    (True, True, False)
    >>> is_config("PKG-INFO"), is_config("lib/pkg.egg-info/requires.txt")
    (True, True)
    """
    parts = path.split("/")
    name = parts[-1]
    if name == "PKG-INFO" or any(part.endswith(".egg-info") for part in parts[:-1]):
        return True
    return name in CONFIG_NAMES or (name.startswith(_CONFIG_PREFIXES) and name.endswith(".txt"))


def is_test(path: str) -> bool:
    """Whether ``path`` is a test file.

    >>> is_test("tests/i18n/tests.py"), is_test("src/x/conftest.py"), is_test("src/x/y.py")
    (True, True, False)
    """
    parts = path.split("/")
    name = parts[-1]
    return (
        any(part in _TEST_DIRS for part in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name in ("conftest.py", "tests.py")
    )


def is_doc(path: str) -> bool:
    """Whether ``path`` is documentation (release notes included: see :func:`kind_of`).

    >>> is_doc("docs/ref/utils.txt"), is_doc("README.md"), is_doc("a/b.py")
    (True, True, False)
    """
    parts = path.split("/")
    return parts[0].lower() in _DOC_DIRS or parts[-1].lower().endswith(_DOC_SUFFIXES)


def kind_of(path: str) -> str:
    """The kind of ``path``: :data:`NOTES`, :data:`CONFIG`, :data:`TESTS`, :data:`DOCS` or
    :data:`CODE`, the first rule that holds in that order.

    >>> [kind_of(p) for p in ("CHANGES.rst", "tox.ini", "tests/t.py", "docs/a.rst", "a/b.py")]
    ['release notes', 'configuration', 'tests', 'docs', 'code']
    """
    if is_notes(path):
        return NOTES
    if is_config(path):
        return CONFIG
    if is_test(path):
        return TESTS
    if is_doc(path):
        return DOCS
    return CODE


#: The order in which a patch's kinds decide its verdict: the first kind the patch touches
#: is the one judged (a tests-only patch is judged on its tests).
PRIMARY_ORDER = (CODE, CONFIG, TESTS, DOCS, NOTES)


def primary_kind(paths: list[str]) -> str:
    """The kind that decides the verdict of a patch touching ``paths``.

    >>> primary_kind(["tests/a.py", "CHANGES.rst"]), primary_kind(["a.py", "tests/a.py"])
    ('tests', 'code')
    """
    kinds = {kind_of(path) for path in paths}
    return next((kind for kind in PRIMARY_ORDER if kind in kinds), CODE)
