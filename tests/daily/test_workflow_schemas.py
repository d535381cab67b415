"""Every GitHub YAML the project ships or documents is valid for GitHub: the ``yaml`` blocks
of ``docs/*.md`` and the YAML files under ``docs/`` and ``.github/workflows/``, validated
against the workflow schema, and every ``action.yml`` against the action schema, with the
SchemaStore schemas that check-jsonschema bundles (``--builtin-schema
vendor.github-workflows`` / ``vendor.github-actions``, run as a subprocess, nothing
downloaded).

A documented block is often part of a workflow: a job (``paperwork: {runs-on, steps}``) is
validated inside a minimal workflow, a list of steps inside a minimal job. A pre-commit
configuration block is not GitHub's: its hook ids are checked against the repository's
``.pre-commit-hooks.yaml`` instead. A block of any other shape fails the test, so a new one is
never left unchecked."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gha_yaml import load

REPO = Path(__file__).resolve().parents[2]
#: A fenced YAML block of a Markdown page.
YAML_BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    """One YAML document the test checks: where it is, and its parsed data."""

    where: str  # docs/ci.md:239, or a file's path
    data: Any


def doc_blocks() -> list[Block]:
    """The ``yaml`` blocks of every page of ``docs/``, with the line of their fence."""
    blocks = []
    for page in sorted((REPO / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in YAML_BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            where = f"{page.relative_to(REPO)}:{line}"
            blocks.append(Block(where, load(match[1])))
    return blocks


def yaml_files(*folders: str) -> list[Path]:
    """The ``.yml``/``.yaml`` files under the given folders of the repository."""
    found: list[Path] = []
    for folder in folders:
        root = REPO / folder
        if root.is_dir():
            found += sorted(p for p in root.rglob("*") if p.suffix in (".yml", ".yaml"))
    return found


def as_workflow(block: Block) -> dict[str, Any] | None:
    """``block`` as a whole workflow: itself, a job inside a minimal workflow, a list of
    steps inside a minimal job; ``None`` when it is none of these."""
    data = block.data
    if isinstance(data, dict) and "jobs" in data:
        return data
    if (
        isinstance(data, dict)
        and data
        and all(
            isinstance(job, dict) and ("steps" in job or "uses" in job) for job in data.values()
        )
    ):
        return {"on": "pull_request", "jobs": data}
    if (
        isinstance(data, list)
        and data
        and all(isinstance(step, dict) and ("run" in step or "uses" in step) for step in data)
    ):
        job = {"runs-on": "ubuntu-latest", "steps": data}
        return {"on": "pull_request", "jobs": {"job": job}}
    return None


def is_pre_commit_config(block: Block) -> bool:
    """Whether ``block`` is a ``.pre-commit-config.yaml`` (or its ``repos`` list's entries)."""
    data = block.data
    if isinstance(data, dict) and "repos" in data:
        return True
    return isinstance(data, list) and all(isinstance(r, dict) and "hooks" in r for r in data)


def validate(schema: str, instances: dict[str, Any], tmp_path: Path) -> tuple[int, str]:
    """Run ``check-jsonschema --builtin-schema SCHEMA`` on ``instances`` (name -> data),
    each written as a JSON file named after it; returns (exit code, output)."""
    executable = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    assert executable, "check-jsonschema is in the test extra: pip install -e '.[test]'"
    files = []
    for name, data in instances.items():
        path = tmp_path / (re.sub(r"[^\w.-]", "_", name) + ".json")
        path.write_text(json.dumps(data), encoding="utf-8")
        files.append(str(path))
    done = subprocess.run(
        [executable, "--builtin-schema", schema, *files], capture_output=True, text=True
    )
    return done.returncode, done.stdout + done.stderr


def test_every_yaml_block_of_the_docs_is_a_known_kind() -> None:
    blocks = doc_blocks()
    unknown = [b.where for b in blocks if as_workflow(b) is None and not is_pre_commit_config(b)]
    assert unknown == []
    workflows = [as_workflow(b) for b in blocks]
    jobs = [sorted(w["jobs"]) for w in workflows if w is not None]
    # The page's pin-bump workflow and its matrix over candidates are among them.
    assert ["audit"] in jobs
    assert ["candidates"] in jobs


def test_documented_workflows_are_valid_for_github(tmp_path: Path) -> None:
    instances = {}
    for block in doc_blocks():
        workflow = as_workflow(block)
        if workflow is not None:
            instances[block.where] = workflow
    for path in yaml_files("docs", ".github/workflows"):
        instances[str(path.relative_to(REPO))] = load(path.read_text(encoding="utf-8"))
    assert validate("vendor.github-workflows", instances, tmp_path) == (
        0,
        "ok -- validation done\n",
    )


def test_every_action_is_valid_for_github(tmp_path: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "*action.yml", "*action.yaml"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    actions = [REPO / name for name in sorted(listed.splitlines())]
    assert [p.relative_to(REPO).as_posix() for p in actions] == [
        ".github/actions/patchkeeper-audit/action.yml"
    ]
    instances = {str(p.relative_to(REPO)): load(p.read_text(encoding="utf-8")) for p in actions}
    assert validate("vendor.github-actions", instances, tmp_path) == (
        0,
        "ok -- validation done\n",
    )


def test_the_schema_check_catches_a_wrong_workflow(tmp_path: Path) -> None:
    """The check can fail: a step with both ``run`` and ``uses``, and a job without
    ``runs-on``, are refused."""
    bad = {
        "on": "pull_request",
        "jobs": {"audit": {"steps": [{"run": "true", "uses": "actions/checkout@v4"}]}},
    }
    code, output = validate("vendor.github-workflows", {"bad": bad}, tmp_path)
    assert code == 1
    assert "Schema validation errors were encountered." in output


def test_pre_commit_blocks_name_hooks_the_repository_ships() -> None:
    shipped = {
        hook["id"] for hook in load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    }
    named = []
    for block in doc_blocks():
        if not is_pre_commit_config(block):
            continue
        repos = block.data["repos"] if isinstance(block.data, dict) else block.data
        for repo in repos:
            if repo.get("repo") not in ("local", "meta"):
                named += [(block.where, hook["id"]) for hook in repo["hooks"]]
    assert named
    assert [(where, hook) for where, hook in named if hook not in shipped] == []


@pytest.mark.parametrize("name", ["vendor.github-workflows", "vendor.github-actions"])
def test_the_schemas_are_bundled_not_downloaded(name: str) -> None:
    """check-jsonschema answers ``--builtin-schema`` from its own package data."""
    from check_jsonschema.builtin_schemas import get_builtin_schema

    schema = get_builtin_schema(name)
    assert schema["$schema"].startswith("http://json-schema.org/")
