"""The pin-bump workflow of docs/ci.md, run on Dependabot-shaped pull requests.

Each test builds a real git repository in the shape of a downstream (the bundled example's
``patches/`` and ``patchkeeper.toml`` in ``downstream/``, its upstream trees in ``upstream/``)
whose ``main`` pins ``minihttp==1.0``, and a branch on which ``dependabot[bot]`` raises the pin
to 1.1 in one kind of dependency file, in a folder of its own. The checkout is the one
``actions/checkout`` makes for a pull request (a clone with the whole history, ``HEAD`` the
merge of the branch into ``main``). Then the workflow's YAML, read from docs/ci.md with
PyYAML, runs on it job by job and step by step (``gha_run``), with the variables and the event
GitHub sets (``GITHUB_*``, ``github.event.pull_request.user.login``).

By design some steps are not run: the steps that use other projects' actions
(``actions/checkout``, ``actions/setup-python``), whose effect the test provides (the clone
above; the test's Python, with patchkeeper installed, first on ``PATH``), and, in the fast
tests, the composite action's "Install patchkeeper" step (the slow test runs it, in a fresh
venv). The repository's own composite action (``uses: <owner>/patchkeeper/...``) is run step by
step. ``gh``, GitHub's command line, is the one thing stood in for: a script that records its
arguments and the report it was given, since a test cannot post to a pull request.

The upstream release 1.1 comes from the patchkeeper cache, put there by a real fetch from a
package index on disk. The workflow's ``with:`` gets the example's values (``upstream:
minihttp``, ``working-directory: downstream``); everything else is as documented.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gha_run import JobResult, Runner, equal, evaluate
from gha_yaml import load

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
ACTION = REPO / ".github" / "actions" / "patchkeeper-audit"
SCRIPT = ACTION / "bumped_requirement.py"
BOT = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
MAINTAINER = "Mae Maintainer <mae@example.org>"
BRANCH = "dependabot/pip/minihttp-1.1"
PR_NUMBER = 7

# ------------------------------------------------------------------------ dependency files

REQUIREMENTS = """\
# serving pins, raised by Dependabot
numpy>=1.26  # any recent one
minihttp==1.0 \\
    --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000
"""

PEP621 = """\
[project]
name = "serving"
version = "1.0"
dependencies = [
    "numpy>=1.26",
    "minihttp[socks]==1.0; python_version >= '3.8'",
]
"""

POETRY = """\
[tool.poetry]
name = "serving"
version = "1.0"

[tool.poetry.dependencies]
python = "^3.10"
minihttp = "1.0"
numpy = { version = "^1.26", extras = ["blas"] }
"""

POETRY_TABLE = """\
[tool.poetry]
name = "serving"
version = "1.0"

[tool.poetry.dependencies]
python = "^3.10"
minihttp = {version = "^1.0", extras = ["socks"]}
"""

POETRY_LOCK = """\
[[package]]
name = "minihttp"
version = "1.0"
description = "A small HTTP client"
optional = false
python-versions = ">=3.8"

[metadata]
lock-version = "2.0"
python-versions = "^3.10"
"""

UV_PYPROJECT = """\
[project]
name = "serving"
version = "1.0"
dependencies = ["minihttp>=1.0"]
"""

UV_LOCK = """\
version = 1
requires-python = ">=3.10"

[[package]]
name = "minihttp"
version = "1.0"
source = {{ registry = "https://index.example/simple" }}

[[package]]
name = "serving"
version = "1.0"
source = {{ editable = "." }}
dependencies = [{{ name = "minihttp" }}]
"""

#: Each bump: the files on ``main``, the same files on the bot's branch, and what the workflow
#: reads (the requirement and where).
BUMPS: dict[str, tuple[dict[str, str], dict[str, str], str]] = {
    "requirements file in a subfolder": (
        {"deploy/requirements.txt": REQUIREMENTS},
        {"deploy/requirements.txt": REQUIREMENTS.replace("minihttp==1.0", "minihttp==1.1")},
        "minihttp==1.1 (deploy/requirements.txt:3)",
    ),
    "PEP 621 dependencies": (
        {"service/pyproject.toml": PEP621},
        {"service/pyproject.toml": PEP621.replace("==1.0;", "==1.1;")},
        "minihttp==1.1 (service/pyproject.toml)",
    ),
    "Poetry dependencies": (
        {"service/pyproject.toml": POETRY},
        {"service/pyproject.toml": POETRY.replace('minihttp = "1.0"', 'minihttp = "1.1"')},
        "minihttp==1.1 (service/pyproject.toml:7)",
    ),
    "Poetry table form with poetry.lock": (
        {"service/pyproject.toml": POETRY_TABLE, "service/poetry.lock": POETRY_LOCK},
        {
            "service/pyproject.toml": POETRY_TABLE.replace('"^1.0"', '"^1.1"'),
            "service/poetry.lock": POETRY_LOCK.replace('version = "1.0"', 'version = "1.1"'),
        },
        "minihttp==1.1 (service/poetry.lock:3)",
    ),
    "uv.lock with its pyproject.toml": (
        {"service/pyproject.toml": UV_PYPROJECT, "service/uv.lock": UV_LOCK.format()},
        {
            "service/pyproject.toml": UV_PYPROJECT.replace(">=1.0", ">=1.1"),
            "service/uv.lock": UV_LOCK.format().replace(
                'name = "minihttp"\nversion = "1.0"', 'name = "minihttp"\nversion = "1.1"'
            ),
        },
        "minihttp==1.1 (service/uv.lock:6)",
    ),
}


# -------------------------------------------------------------------------------- git


def git(cwd: Path, *args: str, who: str | None = None) -> str:
    """Run git in ``cwd``; ``who`` ("Name <email>") is the author and committer."""
    env = dict(os.environ)
    if who is not None:
        name, email = re.fullmatch(r"(.*) <(.*)>", who).groups()  # type: ignore[union-attr]
        env.update(
            GIT_AUTHOR_NAME=name,
            GIT_AUTHOR_EMAIL=email,
            GIT_COMMITTER_NAME=name,
            GIT_COMMITTER_EMAIL=email,
        )
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class PullRequest:
    """A bot's pull request: the repository it was opened in, and the checkout a runner
    makes of it (``HEAD`` = the merge of the branch into ``main``)."""

    origin: Path
    checkout: Path


def pull_request(
    base: Path, before: dict[str, str], after: dict[str, str], *, maintainer_push: bool = False
) -> PullRequest:
    """The downstream repository with ``before`` on ``main`` and ``dependabot[bot]``'s commit
    writing ``after`` on its branch; with ``maintainer_push``, a maintainer's later commit on
    that branch (the ported patches). Returns it with a runner's checkout."""
    origin = base / "origin"
    shutil.copytree(EXAMPLES / "downstream", origin / "downstream")
    shutil.copytree(EXAMPLES / "upstream", origin / "upstream")
    write(origin, before)
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "serving: the patch series on minihttp 1.0", who=MAINTAINER)
    git(origin, "checkout", "-q", "-b", BRANCH)
    write(origin, after)
    git(origin, "commit", "-q", "-am", "Bump minihttp from 1.0 to 1.1", who=BOT)
    if maintainer_push:
        ledger = origin / "downstream" / "PATCHES.md"
        ledger.write_text(ledger.read_text(encoding="utf-8") + "\nPorting to 1.1.\n")
        git(origin, "commit", "-q", "-am", "Port the series to minihttp 1.1", who=MAINTAINER)
    git(origin, "checkout", "-q", "main")
    checkout = base / "workspace"
    git(base, "clone", "-q", str(origin), str(checkout))
    git(checkout, "checkout", "-q", "--detach", "origin/main")
    git(
        checkout,
        "merge",
        "-q",
        "--no-ff",
        "--no-edit",
        f"origin/{BRANCH}",
        who="GitHub <noreply@github.com>",
    )
    return PullRequest(origin, checkout)


# ------------------------------------------------------------------ the release 1.1


def sdist(name: str, version: str, tree: Path) -> bytes:
    """An sdist of the directory ``tree`` (``NAME-VERSION/`` with a ``PKG-INFO``)."""
    buffer = io.BytesIO()
    top = f"{name}-{version}"
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        members = [
            (
                f"{top}/PKG-INFO",
                f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
            )
        ]
        for path in sorted(tree.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                members.append((f"{top}/{path.relative_to(tree).as_posix()}", path.read_bytes()))
        for member, data in members:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A patchkeeper cache holding minihttp 1.1, fetched by patchkeeper from a package index
    on disk (a PEP 503 page naming the sdist with its sha256)."""
    from patchkeeper.upstream.fetch import fetch_requirement

    root = tmp_path_factory.mktemp("index")
    data = sdist("minihttp", "1.1", EXAMPLES / "upstream" / "minihttp-1.1")
    (root / "files").mkdir()
    (root / "files" / "minihttp-1.1.tar.gz").write_bytes(data)
    page = root / "simple" / "minihttp" / "index.html"
    page.parent.mkdir(parents=True)
    digest = hashlib.sha256(data).hexdigest()
    page.write_text(
        f'<a href="../../files/minihttp-1.1.tar.gz#sha256={digest}">minihttp-1.1.tar.gz</a>\n'
    )
    cache_dir = root / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATCHKEEPER_CACHE", str(cache_dir))
        patch.setenv("PIP_CONFIG_FILE", os.devnull)
        patch.setenv("PIP_INDEX_URL", (root / "simple").as_uri())
        for name in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"):
            patch.delenv(name, raising=False)
        fetched = fetch_requirement("minihttp==1.1")
    assert (fetched.name, fetched.version) == ("minihttp", "1.1")
    yield cache_dir


# ----------------------------------------------------------------------- the workflow


def documented_workflow(name: str) -> dict[str, Any]:
    """The workflow called ``name`` among docs/ci.md's YAML blocks, parsed as GitHub does."""
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    for block in re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M):
        data = load(block)
        if isinstance(data, dict) and data.get("name") == name:
            return data
    raise AssertionError(f"no workflow {name!r} in docs/ci.md")


def pin_bump_workflow() -> dict[str, Any]:
    """docs/ci.md's pin-bump workflow with the example's values in the audit step's
    ``with:`` (the upstream project and the downstream's folder)."""
    workflow = documented_workflow("audit a pin bump")
    for step in workflow["jobs"]["audit"]["steps"]:
        if step.get("id") == "audit":
            step["with"].update({"upstream": "minihttp", "working-directory": "downstream"})
    return workflow


GH = """#!/bin/sh
# GitHub's command line, stood in for: records its arguments and the report it was given.
printf '%s\\n' "$*" >> "$GH_LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = "--body-file" ]; then head -n 1 "$2" >> "$GH_LOG"; fi
  shift
done
"""


def run_pin_bump(
    request: PullRequest,
    scratch: Path,
    cache_dir: Path,
    *,
    author: str = "dependabot[bot]",
    actor: str = "dependabot[bot]",
    python_bin: Path = Path(sys.executable).parent,
    skip: frozenset[str] = frozenset({"Install patchkeeper"}),
    actions: Path = REPO,
) -> tuple[JobResult, list[str]]:
    """Run the documented workflow's ``audit`` job on ``request``'s checkout as GitHub runs it
    for a ``pull_request`` event opened by ``author`` and last pushed by ``actor``; returns the
    job's result and the lines ``gh`` recorded."""
    scratch.mkdir(parents=True, exist_ok=True)
    tools = scratch / "bin"
    tools.mkdir()
    (tools / "gh").write_text(GH)
    (tools / "gh").chmod(0o755)
    head = git(request.checkout, "rev-parse", "HEAD").strip()
    event = {
        "action": "synchronize",
        "number": PR_NUMBER,
        "pull_request": {
            "number": PR_NUMBER,
            "user": {"login": author},
            "base": {"ref": "main"},
            "head": {"ref": BRANCH},
        },
        "sender": {"login": actor},
    }
    (scratch / "event.json").write_text(json.dumps(event))
    github = {
        "event": event,
        "event_name": "pull_request",
        "actor": actor,
        "triggering_actor": actor,
        "base_ref": "main",
        "head_ref": BRANCH,
        "ref": f"refs/pull/{PR_NUMBER}/merge",
        "sha": head,
        "repository": "acme/serving",
        "token": "ghs_token",
        "workspace": str(request.checkout),
    }
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GITHUB_", "RUNNER_"))
    }
    environment.update(
        PATH=os.pathsep.join([str(tools), str(python_bin), os.environ["PATH"]]),
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(scratch / "event.json"),
        GITHUB_ACTOR=actor,
        GITHUB_TRIGGERING_ACTOR=actor,
        GITHUB_BASE_REF="main",
        GITHUB_HEAD_REF=BRANCH,
        GITHUB_REF=f"refs/pull/{PR_NUMBER}/merge",
        GITHUB_SHA=head,
        GITHUB_REPOSITORY="acme/serving",
        GITHUB_WORKSPACE=str(request.checkout),
        RUNNER_TEMP=str(scratch),
        PATCHKEEPER_CACHE=str(cache_dir),
        GH_LOG=str(scratch / "gh.log"),
    )
    runner = Runner(request.checkout, environment, github, scratch, skip, actions)
    result = runner.run_job(pin_bump_workflow(), "audit")
    log = scratch / "gh.log"
    return result, log.read_text().splitlines() if log.exists() else []


def statuses(result: JobResult) -> list[tuple[str, str]]:
    """Each step's (name, status), the composite action's steps after it, indented."""
    rows = []
    for step in result.steps:
        rows.append((step.name, step.status))
        rows += [(f"  {inner.name}", inner.status) for inner in step.inner]
    return rows


#: The steps of a bot's pull request whose audit finds patches that need work.
AUDITED = [
    ("actions/checkout@v4", "not run"),
    ("actions/setup-python@v5", "not run"),
    ("audit", "success"),
    ("  Install patchkeeper", "not run"),
    ("  The requirement to audit", "success"),
    ("  patchkeeper audit", "success"),
    ("Post the report on the pull request", "success"),
    ("Fail when a patch needs work", "failure"),
]


def assert_audited(
    result: JobResult, gh: list[str], where: str, *, installed: bool = False
) -> None:
    """The exact trace of an audited bump of minihttp to 1.1 read at ``where`` (with the
    install step run when ``installed``)."""
    install = ("  Install patchkeeper", "success" if installed else "not run")
    expected = [install if name == install[0] else (name, s) for name, s in AUDITED]
    assert (result.conclusion, statuses(result)) == ("failure", expected)
    find = result.step("The requirement to audit")
    assert (find.outputs, find.stderr) == (
        {"requirement": "minihttp==1.1"},
        f"bumped_requirement: {where}\n",
    )
    audit = result.step("patchkeeper audit")
    assert (
        audit.stdout.splitlines()[0] == "patchkeeper audit --to minihttp==1.1 --markdown audit.md"
    )
    assert audit.stdout.splitlines()[-1] == "to retire (already upstream): retry-backoff-cap.patch"
    assert audit.outputs == {"exit-code": "1"}
    assert result.step("audit").outputs == {
        "requirement": "minihttp==1.1",
        "exit-code": "1",
        "markdown": "downstream/audit.md",
    }
    assert gh == [
        f"pr comment {PR_NUMBER} --body-file downstream/audit.md --edit-last",
        "## patchkeeper audit: 1.1",
    ]
    failed = result.step("Fail when a patch needs work")
    assert (failed.exit_code, failed.stdout) == (
        1,
        "::error::patchkeeper audit --to minihttp==1.1: patches need work (see the comment)\n",
    )


# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize("kind", list(BUMPS))
def test_a_bots_bump_is_read_and_audited(kind: str, tmp_path: Path, cache: Path) -> None:
    before, after, where = BUMPS[kind]
    request = pull_request(tmp_path, before, after)
    result, gh = run_pin_bump(request, tmp_path / "runner", cache)
    assert_audited(result, gh, where)


def test_a_maintainers_push_to_the_bots_branch_is_audited(tmp_path: Path, cache: Path) -> None:
    """The actor is the maintainer who pushed last; the pull request's author is still the
    bot, so the audit runs (a job gated on ``github.actor`` was skipped, and passed)."""
    before, after, where = BUMPS["requirements file in a subfolder"]
    request = pull_request(tmp_path, before, after, maintainer_push=True)
    result, gh = run_pin_bump(request, tmp_path / "runner", cache, actor="mae")
    assert_audited(result, gh, where)


def test_a_persons_pull_request_is_audited_too(tmp_path: Path, cache: Path) -> None:
    """A person who raises the pin by hand gets the audit a bot gets: the workflow gated the
    job on the pull request's author, so such a bump merged with a green check and no
    audit."""
    before, after, where = BUMPS["requirements file in a subfolder"]
    request = pull_request(tmp_path, before, after)
    result, gh = run_pin_bump(request, tmp_path / "runner", cache, author="mae", actor="mae")
    assert_audited(result, gh, where)


def test_a_bots_bump_of_another_project_audits_nothing_and_passes(
    tmp_path: Path, cache: Path
) -> None:
    before = {"deploy/requirements.txt": REQUIREMENTS}
    after = {"deploy/requirements.txt": REQUIREMENTS.replace("numpy>=1.26", "numpy>=2.1")}
    request = pull_request(tmp_path, before, after)
    result, gh = run_pin_bump(request, tmp_path / "runner", cache)
    assert (result.conclusion, statuses(result), gh) == (
        "success",
        [
            ("actions/checkout@v4", "not run"),
            ("actions/setup-python@v5", "not run"),
            ("audit", "success"),
            ("  Install patchkeeper", "not run"),
            ("  The requirement to audit", "success"),
            ("  patchkeeper audit", "skipped"),
            ("Post the report on the pull request", "skipped"),
            ("Fail when a patch needs work", "skipped"),
        ],
        [],
    )
    find = result.step("The requirement to audit")
    assert (find.outputs, find.stdout) == (
        {"requirement": ""},
        "::notice::the changes since origin/main set no new requirement for minihttp: "
        "nothing to audit\n",
    )
    assert result.step("audit").outputs == {
        "requirement": "",
        "exit-code": "",
        "markdown": "downstream/audit.md",
    }


def test_nothing_in_the_job_can_skip_the_audit() -> None:
    """No job of a documented workflow can pass by being skipped, and no step up to the
    audit has an ``if:`` or reads who opened or pushed the pull request (an author gate let
    a person's pin bump merge unaudited; ``github.actor`` is whoever pushed last)."""
    workflow = documented_workflow("audit a pin bump")
    text = json.dumps(workflow)
    assert [job_id for job_id, job in workflow["jobs"].items() if "if" in job] == []
    assert "github.actor" not in text
    assert "user.login" not in text
    steps = workflow["jobs"]["audit"]["steps"]
    assert [step.get("id", step.get("uses")) for step in steps if "if" not in step] == [
        "actions/checkout@v4",
        "actions/setup-python@v5",
        "audit",
    ]


#: GitHub's path filter patterns as regular expressions ("Filter pattern cheat sheet"):
#: ``**/`` is any folders, the root too; ``**`` any characters; ``*`` any but ``/``.
def path_filter(pattern: str) -> re.Pattern[str]:
    regex = (
        re.escape(pattern)
        .replace(r"\*\*/", "(?:.*/)?")
        .replace(r"\*\*", ".*")
        .replace(r"\*", "[^/]*")
    )
    return re.compile(regex + r"\Z")


def test_the_paths_filter_matches_dependency_files_in_any_folder() -> None:
    from patchkeeper.upstream.reqfiles import file_kind

    patterns = [path_filter(p) for p in pin_bump_workflow()["on"]["pull_request"]["paths"]]
    samples = [
        "requirements.txt",
        "deploy/requirements.txt",
        "a/b/requirements-gpu.txt",
        "requirements/base.txt",
        "svc/requirements/prod.txt",
        "pyproject.toml",
        "service/pyproject.toml",
        "setup.cfg",
        "lib/setup.cfg",
        "uv.lock",
        "service/uv.lock",
        "poetry.lock",
        "service/poetry.lock",
        "docs/notes.txt",
        "downstream/patches/series",
        "pyproject.toml.orig",
    ]
    matched = [s for s in samples if any(p.match(s) for p in patterns)]
    assert matched == samples[:13]
    # The filter and the reader name the same files.
    assert [s for s in samples if file_kind(s) is not None] == matched


def test_the_docs_give_no_pull_request_target_advice() -> None:
    """``permissions: pull-requests: write`` lets a ``pull_request`` run comment, Dependabot's
    too; ``pull_request_target`` (the base's token and secrets on a pull request's code) is
    neither needed nor advised."""
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "pull_request_target" not in text
    workflow = documented_workflow("audit a pin bump")
    assert list(workflow["on"]) == ["pull_request"]
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("steps.audit.outputs.exit-code == '0'", True),  # a skipped step's output is null: 0
        ("steps.audit.outputs.exit-code == '1'", False),
        ("steps.audit.outputs.requirement != ''", False),
        ("steps.find.outputs.requirement != ''", True),
        ("'ABC' == 'abc' && !(1 == 2)", True),
        ("github.event.pull_request.user.login == 'dependabot[bot]' || false", True),
    ],
)
def test_the_runner_compares_as_github_does(expression: str, value: bool) -> None:
    """GitHub's loose equality, which the workflow's ``if:``s are written for."""
    context = {
        "steps": {"audit": {"outputs": {}}, "find": {"outputs": {"requirement": "x==1"}}},
        "github": {"event": {"pull_request": {"user": {"login": "Dependabot[bot]"}}}},
    }
    assert evaluate(expression, context, {}) is value
    assert equal(None, "") and not equal("", "0 ")


# ------------------------------------------------------- the reading script, by hand


def run_script(*args: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd
    )
    return done.returncode, done.stdout, done.stderr


def test_the_pin_is_read_from_the_root_in_a_subfolder(tmp_path: Path) -> None:
    """Run from the downstream's folder, the script still sees ``deploy/requirements.txt``
    (a ``git diff -- '*.txt'`` there saw only that folder)."""
    before, after, _ = BUMPS["requirements file in a subfolder"]
    request = pull_request(tmp_path, before, after)
    assert run_script("minihttp", "--base", "origin/main", cwd=request.checkout / "downstream") == (
        0,
        "minihttp==1.1\n",
        "bumped_requirement: minihttp==1.1 (deploy/requirements.txt:3)\n",
    )
    assert run_script("minihttp", "--file", "deploy/requirements.txt", cwd=request.checkout) == (
        0,
        "minihttp==1.1\n",
        "bumped_requirement: minihttp==1.1 (deploy/requirements.txt:3)\n",
    )


def test_two_pins_that_name_no_one_version_are_refused(tmp_path: Path) -> None:
    before = {"requirements.txt": "minihttp==1.0\n"}
    after = {
        "requirements.txt": "minihttp==1.1 ; python_version >= '3.10'\n"
        "minihttp==1.0 ; python_version < '3.10'\n"
    }
    request = pull_request(tmp_path, before, after)
    assert run_script("minihttp", "--base", "origin/main", cwd=request.checkout) == (
        2,
        "",
        "bumped_requirement: requirements.txt:1: the changes from origin/main to HEAD set "
        "several requirements for minihttp that name no one version: minihttp==1.1 "
        "(requirements.txt:1); minihttp==1.0 (requirements.txt:2)\n"
        "  hint: audit each with `patchkeeper audit --to REQUIREMENT` (a matrix of jobs), or "
        "make the files agree\n",
    )


def test_a_shallow_clone_is_told_to_fetch_the_history(tmp_path: Path) -> None:
    before, after, _ = BUMPS["requirements file in a subfolder"]
    request = pull_request(tmp_path, before, after)
    shallow = tmp_path / "shallow"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        "--branch",
        BRANCH,
        request.origin.as_uri(),
        str(shallow),
    )
    git(shallow, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    code, out, err = run_script("minihttp", "--base", "origin/main", cwd=shallow)
    assert (code, out) == (2, "")
    assert err == (
        f"bumped_requirement: {shallow}: 'origin/main' and 'HEAD' have no common commit in "
        f"{shallow}\n  hint: the clone is shallow: check out with the whole history "
        "(actions/checkout with fetch-depth: 0)\n"
    )


# ------------------------------------------------------------- the whole job, slow


@pytest.mark.slow  # a fresh venv, and pip installs patchkeeper into it from the action's ref
def test_the_whole_job_with_the_install_step(tmp_path: Path, cache: Path) -> None:
    """Every ``run:`` step, the composite action's install step too: pip installs patchkeeper
    from the action's files (``git archive`` of the committed ``HEAD``, tagged as a release in
    a clone: a runner downloads an action's ref as such an archive, without ``.git``, and the
    docs keep the action at a release tag) into a fresh venv that stands for setup-python's
    Python. The installed patchkeeper says the tag's version, which git wrote into the
    archive's ``.git_archival.txt``."""
    before, after, where = BUMPS["requirements file in a subfolder"]
    request = pull_request(tmp_path, before, after)
    runner_python = tmp_path / "python"
    venv.create(runner_python, with_pip=True)
    action_ref = tmp_path / "_actions" / "patchkeeper"
    clone = tmp_path / "patchkeeper-clone"
    subprocess.run(["git", "clone", "-q", "--no-tags", str(REPO), str(clone)], check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["git", "tag", "-a", "v9.8.7", "-m", "a release", head], cwd=clone, check=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", "v9.8.7"], cwd=clone, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(action_ref, filter="data")
        else:  # Python < 3.12 without the filter backport: git's own archive of HEAD
            tar.extractall(action_ref)
    result, gh = run_pin_bump(
        request,
        tmp_path / "runner",
        cache,
        python_bin=runner_python / "bin",
        skip=frozenset(),
        actions=action_ref,
    )
    install = result.step("Install patchkeeper")
    assert (install.status, install.stdout) == ("success", ""), install.stderr
    assert_audited(result, gh, where, installed=True)
    installed = subprocess.run(
        [str(runner_python / "bin" / "patchkeeper"), "--version"], capture_output=True, text=True
    )
    assert installed.stdout == "patchkeeper, version 9.8.7\n"
