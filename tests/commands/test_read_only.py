"""A command that only reads writes nothing: every read-only command leaves a git downstream's
``git status --porcelain --ignored`` as it was; evidence is saved only when asked
(``--save-evidence``) or configured (``evidence = true``)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import EXAMPLES, patchkeeper_on_read_only_mount, set_read_only

FIXTURES = Path(__file__).resolve().parents[1] / "runtime" / "fixtures"
AUDIT = ("audit", "--to", "../upstream/minihttp-1.1")
RUNTIME_AUDIT = ("runtime", "audit", "--from", "../upstream-1.0", "--to", "../upstream-2.0")
SAME_CODE = ("upstream-1.0/tinyup/scheduler.py", "upstream-2.0/tinyup/scheduler.py")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def porcelain(root: Path) -> str:
    return git(root, "status", "--porcelain", "--ignored")


@pytest.fixture
def repo(cli, tmp_path: Path, private_cache: Path) -> Path:
    """A git repository holding the bundled example (downstream and both upstream trees), the
    runtime tests' fixture plugin and its upstreams under ``runtime/``, and ``target/``: the
    old upstream with the series applied (git-ignored, as a build tree is), all committed."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES, root)
    shutil.copytree(FIXTURES, root / "runtime")
    shutil.copytree(root / "upstream" / "minihttp-1.0", root / "target")
    (root / ".gitignore").write_text("target/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "downstream")
    assert cli("apply", "--target", "../target", cwd=root / "downstream").code == 0
    return root


# (directory under the repository, command line, exit code)
READ_ONLY = [
    ("downstream", ("verify", "--target", "../target"), 0),
    ("downstream", ("status", "--target", "../target"), 0),
    ("downstream", AUDIT, 1),
    ("downstream", ("lint",), 0),
    ("downstream", ("ledger", "--check"), 0),
    ("downstream", ("report", "--check"), 1),  # no record yet: findings, nothing written
    ("runtime/plugin", ("runtime", "inventory"), 1),
    ("runtime/plugin", RUNTIME_AUDIT, 1),
    ("runtime", ("runtime", "same-code", *SAME_CODE), 1),
]


@pytest.mark.parametrize(
    ("where", "args", "code"), READ_ONLY, ids=[" ".join(a[:2]) for _, a, _ in READ_ONLY]
)
def test_a_read_only_command_writes_nothing(cli, repo: Path, where, args, code) -> None:
    before = porcelain(repo)
    assert before == "!! target/\n"
    assert cli(*args, cwd=repo / where).code == code
    assert porcelain(repo) == before


@pytest.mark.parametrize(
    ("where", "args", "code", "saved"),
    [
        ("downstream", ("verify", "--target", "../target"), 0, "verify.json"),
        ("downstream", AUDIT, 1, "audit.json"),
        ("runtime/plugin", ("runtime", "inventory"), 1, "runtime-inventory.json"),
        ("runtime/plugin", RUNTIME_AUDIT, 1, "runtime-audit.json"),
    ],
    ids=["verify", "audit", "runtime inventory", "runtime audit"],
)
def test_save_evidence_saves_the_result(cli, repo: Path, where, args, code, saved) -> None:
    assert cli(*args, "--save-evidence", cwd=repo / where).code == code
    assert porcelain(repo) == f"?? {where}/.patchkeeper/\n!! target/\n"
    assert sorted(p.name for p in (repo / where / ".patchkeeper/evidence").iterdir()) == [saved]


def test_evidence_true_in_the_configuration_saves_every_run(cli, repo: Path) -> None:
    down = repo / "downstream"
    with (down / "patchkeeper.toml").open("a") as config:
        config.write("\n[report]\nevidence = true\n")
    assert cli(*AUDIT, cwd=down).code == 1
    assert sorted(p.name for p in (down / ".patchkeeper/evidence").iterdir()) == ["audit.json"]


@pytest.mark.parametrize(
    ("where", "args", "code"),
    [
        ("downstream", ("verify", "--target", "../target"), 0),
        ("downstream", AUDIT, 1),
        ("runtime/plugin", ("runtime", "inventory"), 1),
        ("runtime/plugin", RUNTIME_AUDIT, 1),
    ],
    ids=["verify", "audit", "runtime inventory", "runtime audit"],
)
def test_no_save_evidence_writes_nothing_where_the_configuration_keeps_evidence(
    cli, repo: Path, where, args, code
) -> None:
    """``--no-save-evidence`` runs an evidence command as one that only reads, whatever
    ``evidence = true`` says (the MCP server's read-only tools run it so)."""
    name = "patchkeeper.toml" if where == "downstream" else "pyproject.toml"
    table = "[report]" if where == "downstream" else "[tool.patchkeeper.report]"
    config = repo / where / name
    config.write_text(config.read_text() + f"\n{table}\nevidence = true\n")
    assert cli(*args, "--no-save-evidence", cwd=repo / where).code == code
    assert porcelain(repo) == f" M {where}/{name}\n!! target/\n"
    assert cli(*args, cwd=repo / where).code == code
    assert porcelain(repo) == f" M {where}/{name}\n?? {where}/.patchkeeper/\n!! target/\n"


def test_port_then_abort_leaves_no_evidence(cli, repo: Path) -> None:
    down = repo / "downstream"
    before = porcelain(repo)
    started = cli("port", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert started.code == 1  # stopped at a conflict
    assert cli("port", "--abort", cwd=down).code == 0
    assert not (down / ".patchkeeper/evidence/port.json").exists()
    assert porcelain(repo) == before


def test_port_with_save_evidence_keeps_its_result_after_abort(cli, repo: Path) -> None:
    down = repo / "downstream"
    assert cli("port", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=down).code == 1
    assert cli("port", "--abort", cwd=down).code == 0
    assert (down / ".patchkeeper/evidence/port.json").is_file()


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (AUDIT, "patches/retry-backoff-cap.patch"),
        (AUDIT, "patches/series"),
        (AUDIT, "patchkeeper.toml"),
        (AUDIT, "PATCHES.md"),
        (("lint",), "PATCHES.md"),
        (("port", "--to", "../upstream/minihttp-1.1"), "PATCHES.md"),
    ],
)
def test_markdown_never_replaces_a_file_of_the_downstream(
    repo: Path, cli, command: tuple[str, ...], name: str
) -> None:
    """``--markdown patches/fix.patch`` (a slip of the tab key) wrote the report over the
    patch, exit 1 as for any audit; the series file, the configuration and the ledger
    (``lint --markdown PATCHES.md`` replaced the table) likewise, refused before the
    command runs (``port`` leaves no work directory)."""
    down = repo / "downstream"
    run = cli(*command, "--markdown", name, cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {name}: --markdown names a file of the downstream's series, "
        "configuration or record: the report would replace it\n"
        "  hint: pass --markdown a file of its own, e.g. --markdown audit.md\n"
    )
    assert porcelain(repo) == "!! target/\n"
    again = cli(*AUDIT, "--markdown", "patches/audit.md", cwd=down)
    assert again.code == 1  # a file of its own beside the patches is fine, also the 2nd time
    assert cli(*AUDIT, "--markdown", "patches/audit.md", cwd=down).code == 1


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (
            "debian/changelog",
            "an existing file that is not a report (a report is a .md, .markdown or .txt "
            "file)",
        ),
        ("python-minihttp.spec", "an existing file that is not a report (a report is a .md, "
         ".markdown or .txt file)"),
        ("README.md", "one of the project's own documents, not a report"),
    ],
)  # fmt: skip
def test_markdown_never_replaces_a_file_that_is_not_a_report(
    repo: Path, cli, name: str, reason: str
) -> None:
    """``audit --markdown debian/changelog`` (a Debian downstream: the file ``init`` reads the
    pin from) replaced the changelog with the report: only a file named as a report is
    replaced (a report written before), never a project's README or changelog."""
    down = repo / "downstream"
    (down / name).parent.mkdir(parents=True, exist_ok=True)
    (down / name).write_text("kept\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a file of the project")
    run = cli(*AUDIT, "--markdown", name, cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {name}: --markdown names {reason}: the report would replace it\n"
        "  hint: pass --markdown a file of its own, e.g. --markdown audit.md\n"
    )
    assert porcelain(repo) == "!! target/\n"


def test_markdown_never_replaces_python_source(repo: Path, cli) -> None:
    plugin = repo / "runtime" / "plugin"
    name = "metaplug/patch/bugfix/fix_scheduler.py"
    run = cli(*RUNTIME_AUDIT, "--markdown", name, cwd=plugin)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(
        f"patchkeeper: error: {name}: --markdown names a Python source file (a plugin's "
        "patch?): the report would replace its code\n"
    )
    assert porcelain(repo) == "!! target/\n"


def test_port_refuses_an_unwritable_markdown_before_it_starts(repo: Path, cli) -> None:
    """A port whose report cannot be written failed after it had made its work directory:
    a failed command left a stopped port behind. The path is checked first."""
    down = repo / "downstream"
    run = cli("port", "--to", "../upstream/minihttp-1.1", "--markdown", "missing/r.md", cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        "patchkeeper: error: missing/r.md: cannot write the Markdown report: No such file or "
        "directory\n"
        "  hint: pass --markdown a file in a directory that exists and can be written\n"
    )
    assert porcelain(repo) == "!! target/\n"


def test_unwritable_markdown_says_the_write_s_own_cause(repo: Path, cli, tmp_path: Path) -> None:
    """The check before the command asked ``os.access``, which says no alike for a missing
    permission and a file system mounted read-only: the refusal said "Permission denied" on
    a read-only mount. The write is tried, and its own errno and hint are said, with a place
    to write the report instead."""
    reports = tmp_path / "reports"
    reports.mkdir()
    set_read_only(reports, True)
    try:
        run = cli(*AUDIT, "--markdown", str(reports / "out.md"), cwd=repo / "downstream")
    finally:
        set_read_only(reports, False)
    code = errno.EPERM if os.geteuid() == 0 else errno.EACCES
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {reports}/out.md: cannot write the Markdown report: "
        f"{os.strerror(code)}\n"
        "  hint: let this user write it and its directory, or work on a copy; or pass "
        "--markdown a file in a directory that exists and can be written, e.g. "
        "--markdown /tmp/out.md\n"
    )
    assert list(reports.iterdir()) == []
    assert porcelain(repo) == "!! target/\n"


def test_writable_markdown_is_tried_and_left_for_the_report(
    repo: Path, cli, tmp_path: Path
) -> None:
    """Trying the write leaves nothing of its own: the report is the only file written."""
    reports = tmp_path / "reports"
    reports.mkdir()
    run = cli(*AUDIT, "--markdown", str(reports / "out.md"), cwd=repo / "downstream")
    assert run.code == 1
    assert [p.name for p in reports.iterdir()] == ["out.md"]
    assert (reports / "out.md").read_text().startswith("## patchkeeper audit: 1.1\n")


def test_markdown_on_a_read_only_mount_says_so(repo: Path, tmp_path: Path) -> None:
    """A directory on a file system mounted read-only (a tmpfs mounted ``ro`` in a mount
    namespace of its own, ``unshare``) was said to be "Permission denied": the refusal now
    says the file system is read-only, and where to write the report instead."""
    reports = tmp_path / "reports"
    reports.mkdir()
    done = patchkeeper_on_read_only_mount(
        reports, [*AUDIT, "--markdown", str(reports / "out.md")], repo / "downstream"
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"patchkeeper: error: {reports}/out.md: cannot write the Markdown report: "
        "Read-only file system\n"
        "  hint: the file system is mounted read-only: work on a copy on a writable one; or "
        "pass --markdown a file in a directory that exists and can be written, e.g. "
        "--markdown /tmp/out.md\n"
    )
    assert list(reports.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (("decide",), 2, "patchkeeper: error: {ro}/patchkeeper-decisions.toml: cannot write"),
        (
            ("audit", "--to", "{upstream}/minihttp-1.1", "--save-evidence"),
            1,
            "patchkeeper: warning: the evidence was not saved: "
            "{ro}/.patchkeeper/evidence/audit.json: cannot write",
        ),
        (
            ("record", "--", "true"),
            2,
            "patchkeeper: error: {ro}/.patchkeeper/evidence/recorded.json: cannot write",
        ),
    ],
    ids=["decide", "audit --save-evidence", "record"],
)
def test_the_record_on_a_read_only_mount_says_so(repo: Path, args, code, said) -> None:
    """A downstream on a file system mounted read-only: the record's files (decisions,
    evidence) were refused with "make the downstream directory writable", which no change
    of permissions does there; the hint is now the machine's, as every other write's."""
    ro = repo / "ro"  # beside upstream/, so the example's ../upstream pristine is found
    ro.mkdir()
    line = [part.format(upstream=repo / "upstream") for part in args]
    done = patchkeeper_on_read_only_mount(ro, ["-C", str(ro), *line], repo, repo / "downstream")
    assert done.returncode == code
    assert done.stderr.splitlines()[-2:] == [
        said.format(ro=ro) + ": Read-only file system",
        "  hint: the file system is mounted read-only: work on a copy on a writable one",
    ]
    assert list(ro.iterdir()) == []
