"""A requirement a patch changes in ``setup.py``, where the new release replaced ``setup.py``
by ``pyproject.toml``: judged on what the new metadata admits (PEP 440, with ``packaging``),
not on line text. Drawn from a floor raise whose project moved to Poetry's table (beets:
``'unidecode'`` -> ``'unidecode>=1.3.6'``, ``unidecode = ">=1.3.6"`` upstream)."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge
from packaging.specifiers import SpecifierSet

from patchkeeper.audit.requirement_moves import meets, metadata_requirements
from patchkeeper.upstream.treesearch import TreeSearch

SETUP = """from setuptools import setup

setup(
    name='player',
    install_requires=[
        'unidecode',
        'pyyaml',
        'mediafile>=0.2.0',
    ],
)
"""

PATCH = """Subject: require unidecode 1.3.6
---
--- a/setup.py
+++ b/setup.py
@@ -3,7 +3,7 @@ from setuptools import setup
 setup(
     name='player',
     install_requires=[
-        'unidecode',
+        'unidecode>=1.3.6',
         'pyyaml',
         'mediafile>=0.2.0',
     ],
"""

POETRY = """[tool.poetry]
name = "player"

[tool.poetry.dependencies]
python = ">=3.8,<4"
unidecode = "{unidecode}"
pyyaml = "*"
mediafile = "^0.12.0"
"""


def test_a_floor_raise_in_a_replaced_setup_py_is_upstream(tmp_path: Path) -> None:
    old = {"setup.py": SETUP, "player/__init__.py": ""}
    new = {"pyproject.toml": POETRY.format(unidecode=">=1.3.8"), "player/__init__.py": ""}
    [verdict] = judge(tmp_path, new, [("unidecode.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary == (
        "setup.py is gone upstream; the new release meets its requirement: its pyproject.toml "
        "requires unidecode>=1.3.8 (the patch: unidecode>=1.3.6); 0 of 1 substantive added "
        "lines already upstream (strongest: setup.py 0/1); to do: retire (upstream has it)"
    )


def test_a_lower_floor_upstream_does_not_meet_it(tmp_path: Path) -> None:
    old = {"setup.py": SETUP, "player/__init__.py": ""}
    new = {"pyproject.toml": POETRY.format(unidecode="^1.3"), "player/__init__.py": ""}
    [verdict] = judge(tmp_path, new, [("unidecode.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")


@pytest.mark.parametrize(
    ("old", "new", "theirs", "expected"),
    [
        ("", ">=1.3.6", ">=1.3.6", True),  # the same floor
        ("", ">=1.3.6", ">=2", True),  # a higher floor
        ("", ">=1.3.6", ">=1.3", False),  # a lower one admits what the patch excludes
        ("<0.9.0,>=0.5.3", "<1.1.0,>=0.5.3", "<2.0.0,>=0.5.3", True),  # a cap relaxed further
        ("<0.9.0,>=0.5.3", "<1.1.0,>=0.5.3", "<1.0.0,>=0.5.3", False),  # not far enough
        ("==1.2", "==1.3", "~=1.3.0", True),
        ("==1.2", "==1.3", ">=1.2", False),  # still admits the pin the patch left
    ],
)
def test_meets(old: str, new: str, theirs: str, expected: bool) -> None:
    assert meets(SpecifierSet(old), SpecifierSet(new), SpecifierSet(theirs)) is expected


def test_metadata_requirements_of_pep_621_poetry_and_setup_cfg(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["requests>=2.28", "idna"]\n'
        + POETRY.split("\n", 2)[2].format(unidecode="~1.3")
    )
    (tmp_path / "setup.cfg").write_text(
        "[options]\ninstall_requires =\n    requests>=2\n    attrs>=21.3  # comment\n"
    )
    found = {
        name: (str(spec), path)
        for name, (spec, path) in metadata_requirements(TreeSearch(tmp_path)).items()
    }
    assert found == {
        "requests": (">=2.28", "pyproject.toml"),
        "idna": ("", "pyproject.toml"),
        "unidecode": ("<1.4,>=1.3", "pyproject.toml"),
        "pyyaml": ("", "pyproject.toml"),
        "mediafile": ("<0.13,>=0.12.0", "pyproject.toml"),
        "attrs": (">=21.3", "setup.cfg"),
    }


# a cap relaxed on a project the new release no longer requires at all
CAP = SETUP.replace("'pyyaml',", "'pyyaml<6',")
CAP_PATCH = """Subject: allow pyyaml 6
---
--- a/setup.py
+++ b/setup.py
@@ -4,7 +4,7 @@ setup(
     name='player',
     install_requires=[
         'unidecode',
-        'pyyaml<6',
+        'pyyaml<7',
         'mediafile>=0.2.0',
     ],
 )
"""
WITHOUT_YAML = """[project]
name = "player"
dependencies = ["unidecode>=1.3.8", "mediafile>=0.12.0"]
"""


def test_a_requirement_the_new_release_dropped_is_upstream(tmp_path: Path) -> None:
    old = {"setup.py": CAP, "player/__init__.py": ""}
    new = {"pyproject.toml": WITHOUT_YAML, "player/__init__.py": ""}
    [verdict] = judge(tmp_path, new, [("pyyaml.patch", CAP_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary == (
        "setup.py is gone upstream; the new release meets its requirement: it no longer "
        "requires pyyaml (its pyproject.toml requires 2 projects, none of them pyyaml; the "
        "patch: pyyaml<7); 0 of 1 substantive added lines already upstream (strongest: "
        "setup.py 0/1); to do: retire (upstream has it)"
    )


@pytest.mark.parametrize(
    ("files", "why"),
    [
        # the name is still in a packaging file the metadata is not read from
        ({"requirements/base.txt": "PyYAML>=5\n"}, "a requirements file"),
        ({"requirements-docs.txt": "pyYAML\n"}, "a requirements file, spelled otherwise"),
        # the metadata says its dependencies are computed: absent from the list says nothing
        (
            {
                "pyproject.toml": '[project]\nname = "player"\ndynamic = ["dependencies"]\n',
                "requirements.txt": "unidecode>=1.3.8\n",
            },
            "dynamic dependencies",
        ),
        ({"pyproject.toml": '[project]\nname = "player"\n'}, "no requirements read"),
    ],
)
def test_a_requirement_named_elsewhere_or_unread_is_not_dropped(
    tmp_path: Path, files: dict[str, str], why: str
) -> None:
    old = {"setup.py": CAP, "player/__init__.py": ""}
    new = {"pyproject.toml": WITHOUT_YAML, "player/__init__.py": "", **files}
    [verdict] = judge(tmp_path, new, [("pyyaml.patch", CAP_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look"), why
