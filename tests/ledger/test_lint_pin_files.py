"""``lint`` compares the configured pin with the project's own dependency files (PK601): a
requirements file, a ``pyproject.toml`` dependency or a ``uv.lock`` entry that names another
release of the upstream than ``pin`` (or a range the pin is outside of) is a finding, naming
the file and the line; a range the pin is inside is not. An upstream checkout, a virtualenv, patchkeeper's work directories and
the configured checkouts are not the project's files. The project is a real git repository,
its files in the shape a team and uv write them."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import git

CONFIG = """upstream = "vllm"
pin = "0.32.0"
series = "patches/series"

[git]
checkout = "upstream/vllm"

[port]
work-dir = "work/port"
"""

REQUIREMENTS = """# the serving image
--extra-index-url https://example.org/simple
vllm[audio]==0.31.0 \\
    --hash=sha256:0123
transformers>=4.50
"""

PYPROJECT = """[project]
name = "serving"
version = "1.0"
dependencies = [
    "vllm>=0.30,<0.32",
    "fastapi",
]

[project.optional-dependencies]
bench = ["vllm>=0.30"]
"""

UV_LOCK = """version = 1
requires-python = ">=3.10"

[[package]]
name = "fastapi"
version = "0.115.0"
source = { registry = "https://example.org/simple" }

[[package]]
name = "vllm"
version = "0.31.0"
source = { registry = "https://example.org/simple" }
"""

TEXT = [
    'docker/requirements.txt:3: PK601 pins vllm==0.31.0, but pin = "0.32.0" in '
    "patchkeeper.toml: raise the requirement to 0.32.0 or lower pin in patchkeeper.toml, so "
    "that both name the release the project installs",
    'pyproject.toml:5: PK601 requires vllm<0.32,>=0.30, but pin = "0.32.0" in patchkeeper.toml: '
    "raise the requirement to 0.32.0 or lower pin in patchkeeper.toml, so that both name the "
    "release the project installs",
    'uv.lock:11: PK601 pins vllm==0.31.0, but pin = "0.32.0" in patchkeeper.toml: raise the '
    "requirement to 0.32.0 or lower pin in patchkeeper.toml, so that both name the release "
    "the project installs",
    "3 problems in 0 patches",
]


def _project(root: Path) -> Path:
    """A git repository holding a downstream with an empty series, its dependency files and
    the directories whose dependency files are not its own."""
    files = {
        "patchkeeper.toml": CONFIG,
        "patches/series": "",
        "docker/requirements.txt": REQUIREMENTS,
        "requirements/base.txt": "vllm==0.32.0\n",
        "pyproject.toml": PYPROJECT,
        "uv.lock": UV_LOCK,
        "docs/notes.txt": "vllm==0.1.0\n",  # not a name a dependency bot rewrites
        # the configured upstream checkout, the port's work directory, a virtualenv and
        # another repository: none of them is the project's
        "upstream/vllm/requirements/common.txt": "vllm==0.20.0\n",
        "work/port/requirements.txt": "vllm==0.20.0\n",
        ".venv/pyvenv.cfg": "home = /usr/bin\n",
        ".venv/lib/requirements.txt": "vllm==0.20.0\n",
        "third_party/other/requirements.txt": "vllm==0.20.0\n",
        "third_party/other/.git": "gitdir: ../../.git/modules/other\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "init", "-q")
    git(root, "add", "patchkeeper.toml", "patches", "docker", "requirements", "pyproject.toml")
    git(root, "add", "uv.lock", "docs")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "project")
    return root


def test_requirements_that_disagree_with_the_pin(cli, tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    status = git(root, "status", "--porcelain", "--ignored")
    run = cli("lint", cwd=root)
    assert (run.code, run.out.splitlines(), run.err) == (1, TEXT, "")
    data = json.loads(cli("lint", "--json", cwd=root).out)
    hint = (
        "raise the requirement to 0.32.0 or lower pin in patchkeeper.toml, so that both name "
        "the release the project installs"
    )
    assert data["findings"] == [
        {"code": "PK601", "path": "docker/requirements.txt", "line": 3,
         "message": 'pins vllm==0.31.0, but pin = "0.32.0" in patchkeeper.toml', "hint": hint},
        {"code": "PK601", "path": "pyproject.toml", "line": 5,
         "message": 'requires vllm<0.32,>=0.30, but pin = "0.32.0" in patchkeeper.toml',
         "hint": hint},
        {"code": "PK601", "path": "uv.lock", "line": 11,
         "message": 'pins vllm==0.31.0, but pin = "0.32.0" in patchkeeper.toml', "hint": hint},
    ]  # fmt: skip
    assert git(root, "status", "--porcelain", "--ignored") == status  # lint writes nothing


def test_files_that_agree_or_none_are_no_finding(cli, tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    (root / "docker" / "requirements.txt").write_text(REQUIREMENTS.replace("0.31.0", "0.32.0"))
    (root / "pyproject.toml").write_text(PYPROJECT.replace("<0.32", "<0.33"))
    (root / "uv.lock").write_text(UV_LOCK.replace('"0.31.0"', '"0.32.0"'))
    assert cli("lint", cwd=root).out == "no problems in 0 patches\n"
    for name in ("docker/requirements.txt", "requirements/base.txt", "pyproject.toml", "uv.lock"):
        (root / name).unlink()
    assert cli("lint", cwd=root).out == "no problems in 0 patches\n"


def test_a_pin_in_pyproject_and_a_file_that_cannot_be_read(cli, tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    (root / "patchkeeper.toml").unlink()
    pyproject = (
        PYPROJECT.replace("<0.32", "<0.33")
        + "\n[tool.patchkeeper]\n"
        + CONFIG.replace("[git]", "[tool.patchkeeper.git]").replace(
            "[port]", "[tool.patchkeeper.port]"
        )
    )
    (root / "pyproject.toml").write_text(pyproject)
    (root / "requirements-dev.txt").write_text("pytest\nvllm @@ 0.32\n")
    run = cli("lint", cwd=root)
    assert run.out.splitlines() == [
        'docker/requirements.txt:3: PK601 pins vllm==0.31.0, but pin = "0.32.0" in the '
        "[tool.patchkeeper] table of pyproject.toml: raise the requirement to 0.32.0 or lower "
        "pin in the [tool.patchkeeper] table of pyproject.toml, so that both name the release "
        "the project installs",
        "requirements-dev.txt:2: PK602 not a requirement (PEP 508): 'vllm @@ 0.32': fix the "
        "line, or put it in a file of another name",
        'uv.lock:11: PK601 pins vllm==0.31.0, but pin = "0.32.0" in the [tool.patchkeeper] '
        "table of pyproject.toml: raise the requirement to 0.32.0 or lower pin in the "
        "[tool.patchkeeper] table of pyproject.toml, so that both name the release the project "
        "installs",
        "3 problems in 0 patches",
    ]


def test_only_where_a_project_declares_its_dependencies(cli, tmp_path: Path) -> None:
    """The root and two folders below it are read; a ``.venv`` (even one with no
    ``pyvenv.cfg``, as a copied or conda environment), a virtualenv of another name, build
    output, ``node_modules`` and anything deeper are not: their files are other projects'
    copies, and walking them in a big checkout is slow."""
    root = _project(tmp_path / "project")
    stray = "vllm==0.20.0\n"
    files = {
        "deploy/gpu/requirements.txt": "vllm==0.31.0\n",  # two folders down: read
        ".venv/requirements.txt": stray,
        ".venv/lib/python3.12/site-packages/tool/requirements.txt": stray,
        "env/conda-meta/history": "",
        "env/requirements.txt": stray,
        "venv/pyvenv.cfg": "home = /usr/bin\n",
        "venv/requirements.txt": stray,
        "node_modules/pkg/requirements.txt": stray,
        "build/requirements.txt": stray,
        "dist/requirements.txt": stray,
        "serving.egg-info/requirements.txt": stray,
        ".tox/py312/requirements.txt": stray,
        "services/api/docker/requirements.txt": stray,  # three folders down: not read
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    run = cli("lint", cwd=root)
    assert (run.code, run.out.splitlines(), run.err) == (
        1,
        [
            'deploy/gpu/requirements.txt:1: PK601 pins vllm==0.31.0, but pin = "0.32.0" in '
            "patchkeeper.toml: raise the requirement to 0.32.0 or lower pin in "
            "patchkeeper.toml, so that both name the release the project installs",
            *TEXT[:3],
            "4 problems in 0 patches",
        ],
        "",
    )


POETRY = """[tool.poetry]
name = "serving"
version = "1.0"

[tool.poetry.dependencies]
python = "^3.10"
fastapi = "*"
vllm = { version = "^0.31", extras = ["audio"] }

[tool.poetry.group.bench.dependencies]
"VLLM" = "0.31.0"
"""


def test_a_poetry_dependency_is_named_by_its_line(cli, tmp_path: Path) -> None:
    """Poetry's constraint (``"^0.31"``) is no PEP 508 string, so the finding is placed by
    the key that sets it in its table, as the other files' findings are."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "patchkeeper.toml").write_text(CONFIG)
    (root / "patches").mkdir()
    (root / "patches" / "series").write_text("")
    (root / "pyproject.toml").write_text(POETRY)
    run = cli("lint", cwd=root)
    assert (run.code, run.out.splitlines()) == (
        1,
        [
            'pyproject.toml:8: PK601 requires vllm<0.32,>=0.31, but pin = "0.32.0" in '
            "patchkeeper.toml: raise the requirement to 0.32.0 or lower pin in "
            "patchkeeper.toml, so that both name the release the project installs",
            'pyproject.toml:11: PK601 pins VLLM==0.31.0, but pin = "0.32.0" in patchkeeper.toml: '
            "raise the requirement to 0.32.0 or lower pin in patchkeeper.toml, so that both "
            "name the release the project installs",
            "2 problems in 0 patches",
        ],
    )


def test_files_a_requirements_file_reads_in_are_read_too(cli, tmp_path: Path) -> None:
    """``-r`` and ``-c`` lines are followed, whatever the file's name and depth, as pip reads
    them: a cycle is read once; a URL, a missing file and a file outside the downstream are
    not read."""
    root = _project(tmp_path / "project")
    files = {
        "requirements/base.txt": (
            "-r ../docker/common.txt\n"
            "--constraint ../services/api/deps/pins.txt\n"
            "-r https://example.org/requirements.txt\n"
            "-r missing.txt\n"
            "-r ../../outside.txt\n"
            "vllm==0.32.0\n"
        ),
        "docker/common.txt": "-r ../requirements/base.txt\nvllm>=0.33\n",  # back: a cycle
        "services/api/deps/pins.txt": "vllm==0.31.0\n",  # three folders down, named in -c
        "../outside.txt": "vllm==0.20.0\n",  # another project's
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    run = cli("lint", cwd=root)
    assert (run.code, run.out.splitlines(), run.err) == (
        1,
        [
            'docker/common.txt:2: PK601 requires vllm>=0.33, but pin = "0.32.0" in '
            "patchkeeper.toml: raise pin in patchkeeper.toml or lower the requirement, so that "
            "both name the release the project installs",
            TEXT[0],
            TEXT[1],
            'services/api/deps/pins.txt:1: PK601 pins vllm==0.31.0, but pin = "0.32.0" in '
            "patchkeeper.toml: raise the requirement to 0.32.0 or lower pin in "
            "patchkeeper.toml, so that both name the release the project installs",
            TEXT[2],
            "5 problems in 0 patches",
        ],
        "",
    )


def test_a_requirements_file_saved_with_a_byte_order_mark(cli, tmp_path: Path) -> None:
    """A requirements file an editor saved as "UTF-8 with BOM" (a project's
    ``docs/requirements.txt``) is read as pip reads it, the mark dropped: its first line is a
    requirement, and its ``-r`` line is followed. A ``pyproject.toml`` with the mark, which
    TOML does not allow, is a PK602 that says so."""
    root = _project(tmp_path / "project")
    (root / "docker" / "requirements.txt").write_bytes(
        b"\xef\xbb\xbf-r ../extra/pins.txt\n" + REQUIREMENTS.encode()
    )
    (root / "extra").mkdir()
    (root / "extra" / "pins.txt").write_bytes(b"\xef\xbb\xbfvllm==0.31.0\n")
    (root / "docs" / "requirements.txt").write_bytes(b"\xef\xbb\xbfsphinx==7.0\nvllm==0.32.0\n")
    (root / "pyproject.toml").write_bytes(b"\xef\xbb\xbf" + PYPROJECT.encode())
    run = cli("lint", cwd=root)
    assert (run.code, run.out.splitlines(), run.err) == (
        1,
        [
            TEXT[0].replace(":3:", ":4:"),
            'extra/pins.txt:1: PK601 pins vllm==0.31.0, but pin = "0.32.0" in '
            "patchkeeper.toml: raise the requirement to 0.32.0 or lower pin in "
            "patchkeeper.toml, so that both name the release the project installs",
            "pyproject.toml:1: PK602 not valid TOML: the file starts with a byte order mark "
            "(U+FEFF), which TOML does not allow: save the file as UTF-8 without a BOM (the "
            'editor\'s "UTF-8", not "UTF-8 with BOM")',
            TEXT[2],
            "4 problems in 0 patches",
        ],
        "",
    )


def test_the_hint_moves_the_pin_or_the_requirement_toward_the_other(cli, tmp_path: Path) -> None:
    """The advice points the way that brings the two together: a requirement left below the
    pin (the pin an upgrade moved: ``vllm==0.30.0`` with ``pin = "0.32.0"``) is raised to it,
    a pin below the requirement is raised, and a pin the requirement only excludes (``!=``)
    is changed. Every case was told to raise the pin, which drove a pin above the requirement
    further from it."""
    root = tmp_path / "plugin"
    root.mkdir()
    (root / "patchkeeper.toml").write_text('upstream = "vllm"\npin = "0.32.0"\nseries = "s"\n')
    (root / "s").write_text("")
    hint = "so that both name the release the project installs"
    for requirement, advice in (
        ("vllm==0.30.0", "raise the requirement to 0.32.0 or lower pin in patchkeeper.toml"),
        ("vllm~=0.31.1", "raise the requirement to 0.32.0 or lower pin in patchkeeper.toml"),
        ("vllm<0.32", "raise the requirement to 0.32.0 or lower pin in patchkeeper.toml"),
        ("vllm>=0.33", "raise pin in patchkeeper.toml or lower the requirement"),
        ("vllm==0.33.*", "raise pin in patchkeeper.toml or lower the requirement"),
        ("vllm!=0.32.0", "change pin in patchkeeper.toml or the requirement"),
    ):
        (root / "requirements.txt").write_text(requirement + "\n")
        run = cli("lint", "--json", cwd=root)
        finding = json.loads(run.out)["findings"][0]
        assert (run.code, finding["code"], finding["hint"]) == (
            1,
            "PK601",
            f"{advice}, {hint}",
        ), requirement
