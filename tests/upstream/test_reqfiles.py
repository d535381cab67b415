"""Reading the requirement for one project from each kind of dependency file a bot rewrites,
and choosing the one pin a pull request's changes set (``patchkeeper.upstream.reqfiles`` and
``patchkeeper.upstream.bump``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.errors import GitError, PatchkeeperError
from patchkeeper.upstream.bump import ChangedFile, NoBumpError, bumped, changed_files, one_pin
from patchkeeper.upstream.reqfiles import (
    RequirementFileError,
    included_files,
    poetry_specifier,
    requirements_for,
)


def found(name: str, path: str, text: str) -> list[tuple[str, str, int | None]]:
    return [(str(f.requirement), f.pin, f.line) for f in requirements_for(name, path, text)]


def test_requirements_file_lines_continuations_comments_and_options() -> None:
    text = (
        "-r base.txt\n"
        "--index-url https://index.example/simple\n"
        "# urllib3==0.1 is a comment\n"
        "./local/pkg\n"
        "Urllib3[socks]==1.26.20 ; python_version >= '3.8' \\\n"
        "    --hash=sha256:00  # pinned\n"
        "urllib3>=2 --hash=sha256:11\n"
    )
    assert found("urllib3", "deploy/requirements-prod.txt", text) == [
        ('Urllib3[socks]==1.26.20; python_version >= "3.8"', "Urllib3==1.26.20", 5),
        ("urllib3>=2", "urllib3>=2", 7),
    ]


def test_a_line_that_is_no_requirement_names_the_file_and_line() -> None:
    with pytest.raises(RequirementFileError) as caught:
        requirements_for("urllib3", "requirements.txt", "numpy\nurllib3 === = 1\n")
    assert str(caught.value) == (
        "requirements.txt:2: not a requirement (PEP 508): 'urllib3 === = 1'\n"
        "  hint: fix the line, or put it in a file of another name"
    )


def test_pyproject_pep621_optional_groups_and_poetry() -> None:
    text = """\
[project]
dependencies = ["urllib3==1.26.20; python_version >= '3.8'", "numpy"]
[project.optional-dependencies]
socks = ["urllib3[socks]>=1.26"]
[dependency-groups]
dev = [{include-group = "test"}, "urllib3<3"]
[tool.poetry.dependencies]
python = "^3.10"
urllib3 = "1.26.20"
[tool.poetry.group.docs.dependencies]
urllib3 = {version = "^1.26", extras = ["socks"]}
[tool.poetry.group.old.dependencies]
urllib3 = [
    {version = "~1.25", markers = "python_version < '3.8'"},
    {git = "https://git.example/urllib3.git"},
]
"""
    assert found("urllib3", "pyproject.toml", text) == [
        ('urllib3==1.26.20; python_version >= "3.8"', "urllib3==1.26.20", None),
        ("urllib3[socks]>=1.26", "urllib3>=1.26", None),
        ("urllib3<3", "urllib3<3", None),
        ("urllib3==1.26.20", "urllib3==1.26.20", 9),
        ("urllib3[socks]<2.0,>=1.26", "urllib3<2.0,>=1.26", 11),
        ('urllib3<1.26,>=1.25; python_version < "3.8"', "urllib3<1.26,>=1.25", 13),
    ]


def test_setup_cfg_and_lock_files() -> None:
    cfg = "[options]\ninstall_requires =\n    numpy\n    urllib3==1.26.20  # pinned\n"
    cfg += "[options.extras_require]\nsocks = urllib3[socks]==1.26.20\n"
    assert found("urllib3", "lib/setup.cfg", cfg) == [
        ("urllib3==1.26.20", "urllib3==1.26.20", 4),
        ("urllib3[socks]==1.26.20", "urllib3==1.26.20", 6),
    ]
    lock = (
        'version = 1\n\n[[package]]\nname = "certifi"\nversion = "1.26.20"\n\n'
        '[[package]]\nname = "urllib3"\nversion = "1.26.20"\n'
    )
    assert found("urllib3", "uv.lock", lock) == [("urllib3==1.26.20", "urllib3==1.26.20", 9)]
    assert found("urllib3", "sub/poetry.lock", lock) == [
        ("urllib3==1.26.20", "urllib3==1.26.20", 9)
    ]


def test_a_toml_syntax_error_names_the_file_and_line() -> None:
    with pytest.raises(RequirementFileError) as caught:
        requirements_for("urllib3", "svc/pyproject.toml", "[project]\ndependencies = [\n=\n")
    assert (caught.value.path.as_posix(), caught.value.line) == ("svc/pyproject.toml", 3)  # type: ignore[union-attr]


def test_a_byte_order_mark_is_dropped_by_pip_and_refused_by_toml_and_setuptools() -> None:
    bom = "\ufeff"
    assert found("urllib3", "requirements.txt", bom + "urllib3==1.26.20\n") == [
        ("urllib3==1.26.20", "urllib3==1.26.20", 1)
    ]
    assert included_files(bom + "-r base.txt\n") == [(1, "base.txt")]
    errors = {}
    for path, text in {
        "pyproject.toml": '[project]\ndependencies = ["urllib3"]\n',
        "uv.lock": '[[package]]\nname = "urllib3"\nversion = "2.0"\n',
        "setup.cfg": "[options]\ninstall_requires = urllib3\n",
    }.items():
        with pytest.raises(RequirementFileError) as caught:
            requirements_for("urllib3", path, bom + text)
        errors[path] = (caught.value.line, caught.value.message, caught.value.hint)
    hint = 'save the file as UTF-8 without a BOM (the editor\'s "UTF-8", not "UTF-8 with BOM")'
    toml = (
        "not valid TOML: the file starts with a byte order mark (U+FEFF), which TOML does not allow"
    )
    assert errors == {
        "pyproject.toml": (1, toml, hint),
        "uv.lock": (1, toml, hint),
        "setup.cfg": (
            1,
            "not valid INI: the file starts with a byte order mark (U+FEFF), which setuptools"
            " does not read",
            hint,
        ),
    }


def test_a_toml_file_ending_inside_a_value_names_its_last_line() -> None:
    with pytest.raises(RequirementFileError) as caught:
        requirements_for("urllib3", "svc/pyproject.toml", '[project]\ndependencies = ["urllib3",\n')
    assert (caught.value.path.as_posix(), caught.value.line) == ("svc/pyproject.toml", 2)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("constraint", "specifier"),
    [
        ("^1.2", "<2.0,>=1.2"),
        ("^0", "<1,>=0"),
        ("^0.0", "<0.1,>=0.0"),
        ("~1.2", "<1.3,>=1.2"),
        ("~=1.2", "~=1.2"),
        ("!=1.3", "!=1.3"),
        ("1.2.3b1", "==1.2.3b1"),
    ],
)
def test_poetry_constraints_as_pep440(constraint: str, specifier: str) -> None:
    assert poetry_specifier(constraint) == specifier


def test_a_poetry_union_is_refused_with_what_to_do() -> None:
    with pytest.raises(RequirementFileError) as caught:
        requirements_for(
            "urllib3", "pyproject.toml", '[tool.poetry.dependencies]\nurllib3 = "^1.2 || ^2.0"\n'
        )
    assert str(caught.value) == (
        "pyproject.toml: [tool.poetry.dependencies] urllib3: the union '^1.2 || ^2.0' has no "
        "PEP 440 equivalent\n  hint: write the constraint as PEP 440 specifiers (>=1.2,<2)"
    )


def test_only_new_requirements_count_and_the_lock_pin_wins() -> None:
    changes = [
        ChangedFile(
            "pyproject.toml",
            '[project]\ndependencies = ["urllib3>=1.25"]\n',
            '[project]\ndependencies = ["urllib3>=1.26", "numpy"]\n',
        ),
        ChangedFile(
            "uv.lock",
            '[[package]]\nname = "urllib3"\nversion = "1.25.11"\n',
            '[[package]]\nname = "urllib3"\nversion = "1.26.20"\n',
        ),
        ChangedFile("requirements.txt", "urllib3==1.26.20\n", "urllib3==1.26.20\nnumpy\n"),
        ChangedFile("old/requirements.txt", "urllib3==1.0\n", None),
    ]
    new = bumped("urllib3", changes)
    assert [(f.pin, f.where) for f in new] == [
        ("urllib3>=1.26", "pyproject.toml"),
        ("urllib3==1.26.20", "uv.lock:3"),
    ]
    assert one_pin("urllib3", new, "the changes").where == "uv.lock:3"


def test_no_new_requirement_is_exit_1_and_disagreement_exit_2() -> None:
    with pytest.raises(NoBumpError) as none:
        one_pin("urllib3", [], "the changes")
    assert (none.value.exit_code, str(none.value)) == (
        1,
        "the changes set no new requirement for urllib3\n"
        "  hint: nothing to audit; or check that 'urllib3' is the upstream's project name",
    )
    disagree = requirements_for("urllib3", "requirements.txt", "urllib3>=2\nurllib3==1.26.20\n")
    with pytest.raises(PatchkeeperError) as several:
        one_pin("urllib3", disagree, "requirements.txt")
    assert several.value.exit_code == 2
    assert several.value.where() == "requirements.txt:1"


def test_outside_a_checkout_says_where_to_run(tmp_path: Path) -> None:
    with pytest.raises(GitError) as caught:
        changed_files(tmp_path, "origin/main")
    assert str(caught.value) == (
        f"{tmp_path}: {tmp_path} is not in a git checkout\n"
        "  hint: run it in the pull request's checkout, or pass --file with a dependency file"
    )


def test_tables_of_the_wrong_type_hold_nothing_to_read() -> None:
    text = 'package = 3\n[project]\ndependencies = "urllib3"\noptional-dependencies = 3\n'
    text += "[tool]\npoetry = 1\n"
    assert found("urllib3", "pyproject.toml", text) == []
    assert found("urllib3", "uv.lock", text) == []


def test_a_key_or_table_given_twice_is_named_as_such() -> None:
    """A dependency file with a key or table given twice (a dependencies list added again at
    the end of ``pyproject.toml``) was "Cannot overwrite a value" with "fix the file's
    syntax", which is right there."""
    errors = {}
    for path, text in {
        "pyproject.toml": '[project]\nname = "svc"\ndependencies = ["urllib3"]\n'
        'dependencies = ["urllib3==2.0.7"]\n',
        "uv.lock": '[[package]]\nname = "urllib3"\n[options]\n[options]\n',
    }.items():
        with pytest.raises(RequirementFileError) as caught:
            requirements_for("urllib3", path, text)
        errors[path] = (caught.value.line, caught.value.message, caught.value.hint)
    assert errors == {
        "pyproject.toml": (
            4,
            "not valid TOML: dependencies is set twice: a later line cannot replace its value",
            "keep one of the two lines that set dependencies: a key is set once in its table",
        ),
        "uv.lock": (
            4,
            "not valid TOML: the table [options] is declared twice",
            "merge the two [options] tables into one: each table header is written once",
        ),
    }
