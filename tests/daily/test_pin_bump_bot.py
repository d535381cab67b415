"""The dependency-bot workflow: the composite action and the workflows of docs/ci.md parse as
YAML, and the requirement a bot's pull request sets is found in real git diffs (a requirements
file and a pyproject.toml bump) by ``bumped_requirement.py``, run as the action runs it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
ACTION = REPO / ".github" / "actions" / "patchkeeper-audit"
SCRIPT = ACTION / "bumped_requirement.py"

REQUIREMENTS = """\
# runtime pins, raised by Dependabot
numpy>=1.26  # any recent one
vllm==0.31.0 \\
    --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000
torch==2.5.1
"""

PYPROJECT = """\
[project]
name = "vllm-myaccel"
version = "1.0"
dependencies = [
    "numpy>=1.26",
    "vllm==0.31.0",
]

[project.optional-dependencies]
test = ["pytest>=8"]
"""


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return done.stdout


def bot_branch(tmp_path: Path, name: str, before: str, after: str) -> Path:
    """A repository whose ``main`` has ``name`` = ``before`` and whose checked-out branch
    ``bump`` rewrites it to ``after``, as a bot's pull request does."""
    repo = tmp_path / "downstream"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / name).write_text(before)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", "pins")
    git(repo, "checkout", "-q", "-b", "bump")
    (repo / name).write_text(after)
    git(repo, "commit", "-q", "-am", "Bump vllm from 0.31.0 to 0.32.0")
    return repo


def run_script(*args: str, stdin: str = "", cwd: Path | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], input=stdin, capture_output=True, text=True, cwd=cwd
    )
    return done.returncode, done.stdout, done.stderr


def test_requirements_txt_bump_found_in_the_diff(tmp_path: Path) -> None:
    after = REQUIREMENTS.replace("vllm==0.31.0", "vllm==0.32.0")
    repo = bot_branch(tmp_path, "requirements.txt", REQUIREMENTS, after)
    diff = git(repo, "diff", "main...HEAD", "--", "*.txt", "*.toml")
    assert "+vllm==0.32.0 \\" in diff
    assert run_script("vllm", stdin=diff) == (0, "vllm==0.32.0\n", "")
    assert run_script("torch", stdin=diff) == (
        1,
        "",
        "bumped_requirement: no requirement for torch in the diff's added lines\n",
    )
    assert run_script("vllm", "--file", str(repo / "requirements.txt")) == (
        0,
        "vllm==0.32.0\n",
        "",
    )


def test_pyproject_bump_found_in_the_diff(tmp_path: Path) -> None:
    after = PYPROJECT.replace('"vllm==0.31.0"', '"vllm==0.32.0"')
    repo = bot_branch(tmp_path, "pyproject.toml", PYPROJECT, after)
    diff = git(repo, "diff", "main...HEAD", "--", "*.txt", "*.toml")
    assert '+    "vllm==0.32.0",' in diff
    assert run_script("VLLM", stdin=diff) == (0, "vllm==0.32.0\n", "")
    assert run_script("vllm", "--file", str(repo / "pyproject.toml")) == (0, "vllm==0.32.0\n", "")


def test_two_different_requirements_are_refused(tmp_path: Path) -> None:
    before = "vllm==0.31.0\n"
    after = "vllm==0.32.0 ; python_version >= '3.10'\nvllm==0.30.0 ; python_version < '3.10'\n"
    repo = bot_branch(tmp_path, "requirements.txt", before, after)
    diff = git(repo, "diff", "main...HEAD")
    code, out, err = run_script("vllm", stdin=diff)
    assert (code, out) == (2, "")
    assert err == (
        "bumped_requirement: the diff's added lines set several requirements for vllm: "
        'vllm==0.32.0; python_version >= "3.10", vllm==0.30.0; python_version < "3.10"; '
        "audit each with a matrix\n"
    )


def action() -> dict:
    return yaml.safe_load((ACTION / "action.yml").read_text(encoding="utf-8"))


def test_action_parses_and_finds_the_requirement_as_a_workflow_runs_it(tmp_path: Path) -> None:
    data = action()
    assert data["runs"]["using"] == "composite"
    assert list(data["inputs"]) == [
        "to",
        "upstream",
        "base",
        "markdown",
        "working-directory",
        "package",
        "fail-on-findings",
    ]
    assert list(data["outputs"]) == ["requirement", "exit-code", "markdown"]
    find = next(step for step in data["runs"]["steps"] if step.get("id") == "find")
    after = PYPROJECT.replace('"vllm==0.31.0"', '"vllm==0.32.0"')
    repo = bot_branch(tmp_path, "pyproject.toml", PYPROJECT, after)
    output = tmp_path / "github_output"
    env = {
        **os.environ,
        "TO": "",
        "UPSTREAM": "vllm",
        "BASE": "main",
        "ACTION_PATH": str(ACTION),
        "GITHUB_OUTPUT": str(output),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "-e", "-c", find["run"]], cwd=repo, env=env, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert output.read_text() == "requirement=vllm==0.32.0\n"


def ci_workflows() -> list[dict]:
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text.split("## When a dependency bot bumps the pin", 1)[1]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]


def test_the_workflows_in_docs_ci_md_parse_and_use_the_action() -> None:
    bump, matrix = ci_workflows()
    assert bump[True] == {"pull_request": {"paths": ["requirements*.txt", "pyproject.toml"]}}
    steps = bump["jobs"]["audit"]["steps"]
    uses = [step.get("uses", "") for step in steps]
    assert uses[2] == "patchkeeper/patchkeeper/.github/actions/patchkeeper-audit@v0.2.0"
    assert steps[2]["with"] == {
        "upstream": "vllm",
        "markdown": "audit.md",
        "fail-on-findings": "false",
    }
    assert "gh pr comment" in steps[3]["run"]
    assert steps[4]["if"] == "steps.audit.outputs.exit-code != '0'"
    job = matrix["jobs"]["candidates"]
    assert job["strategy"]["matrix"]["pin"] == ["vllm==0.30.0", "vllm==0.31.0", "vllm==0.32.0"]
    assert job["steps"][2]["with"]["to"] == "${{ matrix.pin }}"
