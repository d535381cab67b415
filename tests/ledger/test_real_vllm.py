"""Export, import and check-branch on a real upstream: the vLLM 0.27.1 sdist as a git repository.

A contributor's clone carries four topic commits in the series workflow's shape (ledger headers,
``[qwen38] <topic>`` subjects, a knob registered in ``envs.py`` and read through ``envs``);
they are exported, linted and tabled, then imported into another clone that never saw those
commits, exported back and compared byte for byte, also under a hostile git configuration.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ledger_support import git
from realrepo import TAG, commit_files, show, vllm_clone_bare_tree

from patchkeeper.config import load_config
from patchkeeper.ledger import check_branch, export, importer, lint
from patchkeeper.ledger import table as ledger
from patchkeeper.main import main

pytestmark = [pytest.mark.network, pytest.mark.slow]

CONFIG = """\
upstream = "vllm"
pin = "0.27.1"
directory = "vllm"

[git]
tag = "qwen38"
branch = "integration"
"""

LEDGER = """\
# The patch series

<!-- table:begin. patchkeeper ledger writes this table from the patch headers; do not edit it -->
<!-- table:end -->
"""

HOSTILE = """\
[diff]
    noprefix = true
    mnemonicPrefix = true
    renames = copies
[color]
    ui = always
[core]
    abbrev = 7
"""


def _headers(kind: str, what: str, upstream: str, cut: str, retires: str, prose: str) -> str:
    return (
        f"{prose}\n\nKind: {kind}\nWhat: {what}\nUpstream: {upstream}\n"
        f"Cut-against: {cut}\nRetires-when: {retires}\n"
    )


def _topics(repo: Path) -> str:
    """Four topic commits on ``work`` in the contributor's clone; return the branch tip."""
    envs = show(repo, TAG, "vllm/envs.py")
    logger = show(repo, TAG, "vllm/logger.py")
    sampling = show(repo, TAG, "vllm/sampling_params.py")
    knob_envs = envs.replace(
        '    VLLM_LOGGING_PREFIX: str = ""\n',
        '    VLLM_LOGGING_PREFIX: str = ""\n    VLLM_LOG_FILEINFO: bool = True\n',
        1,
    ).replace(
        '    "VLLM_LOGGING_PREFIX": lambda: os.getenv("VLLM_LOGGING_PREFIX", ""),\n',
        '    "VLLM_LOGGING_PREFIX": lambda: os.getenv("VLLM_LOGGING_PREFIX", ""),\n'
        "    # if 0, log lines leave out the file and line\n"
        '    "VLLM_LOG_FILEINFO": lambda: bool(int(os.getenv("VLLM_LOG_FILEINFO", "1"))),\n',
        1,
    )
    assert knob_envs.count("VLLM_LOG_FILEINFO") == 3
    knob_logger = logger.replace(
        '    "[%(fileinfo)s:%(lineno)d] %(message)s"\n',
        '    + ("[%(fileinfo)s:%(lineno)d] " if envs.VLLM_LOG_FILEINFO else "")\n'
        '    + "%(message)s"\n',
        1,
    )
    assert knob_logger != logger
    tip = git(repo, "rev-parse", TAG)
    tip = commit_files(
        repo,
        tip,
        "[qwen38] log-fileinfo-knob\n\n"
        + _headers(
            "local",
            "env knob `VLLM_LOG_FILEINFO=0` drops the file:line | prefix from log lines",
            "none",
            "0.27.1",
            "stays while the knob exists",
            "Registers the knob in envs.py, so it is in the torch.compile cache key,\n"
            "and reads it through vllm.envs.",
        ),
        {"vllm/envs.py": knob_envs, "vllm/logger.py": knob_logger},
    )
    tip = commit_files(
        repo,
        tip,
        "[qwen38] max-tokens-default\n\n"
        + _headers(
            "fix",
            "default max_tokens 16 -> 64",
            "vllm #12345 (open)",
            "0.27.1: the dataclass field and the constructor default move together",
            "the pin that carries #12345",
            "Raise the default completion length.",
        ),
        {
            "vllm/sampling_params.py": sampling.replace(
                "max_tokens: int | None = 16", "max_tokens: int | None = 64"
            )
        },
    )
    tip = commit_files(
        repo,
        tip,
        "[qwen38] pk-helper\n\n"
        + _headers(
            "feature",
            "a helper module\n  over two lines",
            "none",
            "0.27.1",
            "upstreamed",
            "Adds vllm/utils/pk_helper.py.",
        ),
        {"vllm/utils/pk_helper.py": '"""Helper."""\n\n\ndef helper() -> int:\n    return 1\n'},
    )
    tip = commit_files(
        repo,
        tip,
        "[qwen38] envs-comment\n\n"
        + _headers(
            "own",
            "comment beside the knob",
            "none",
            "0.27.1",
            "rides with log-fileinfo-knob",
            "Touches envs.py after log-fileinfo-knob.",
        ),
        {
            "vllm/envs.py": knob_envs.replace(
                "    # if 0, log lines leave out the file and line\n",
                "    # if 0, log lines leave out the file and line (log-fileinfo-knob)\n",
            )
        },
    )
    git(repo, "update-ref", "refs/heads/work", tip)
    return tip


@pytest.fixture(scope="module")
def contributor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = vllm_clone_bare_tree(tmp_path_factory.mktemp("contributor") / "vllm")
    _topics(repo)
    return repo


@pytest.fixture
def downstream(tmp_path: Path, contributor: Path) -> Path:
    root = tmp_path / "down"
    (root / "patches").mkdir(parents=True)
    (root / "patches" / "series").write_text("")
    (root / "patchkeeper.toml").write_text(CONFIG + f'checkout = "{contributor}"\n')
    (root / "PATCHES.md").write_text(LEDGER)
    assert main(["-C", str(root), "export", "--range", f"{TAG}..work"]) == 0
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "patches").iterdir())}


def test_export_lint_and_ledger_on_vllm(downstream: Path, contributor: Path, capsys) -> None:
    files = _files(downstream)
    assert files["series"] == (
        b"log-fileinfo-knob.patch\nmax-tokens-default.patch\npk-helper.patch\nenvs-comment.patch\n"
    )
    knob = files["log-fileinfo-knob.patch"].decode()
    tip = git(contributor, "rev-parse", "work~3")
    assert knob.startswith(
        "Registers the knob in envs.py, so it is in the torch.compile cache key,\n"
        "and reads it through vllm.envs.\n\nKind: local\n"
    )
    assert f"Retires-when: stays while the knob exists\n--- exported from {tip}\n" in knob
    assert "diff --git a/envs.py b/envs.py\n" in knob
    assert "diff --git a/logger.py b/logger.py\n" in knob
    assert "+    VLLM_LOG_FILEINFO: bool = True\n" in knob
    capsys.readouterr()
    assert main(["-C", str(downstream), "lint", "--checkout", str(contributor)]) == 0
    assert capsys.readouterr().out == "no problems in 4 patches\n"
    assert main(["-C", str(downstream), "ledger"]) == 0
    table = (downstream / "PATCHES.md").read_text().split("-->\n", 1)[1]
    assert table == (
        "| patch | kind | what | upstream | cut against | retires when |\n"
        "|---|---|---|---|---|---|\n"
        "| log-fileinfo-knob | local | env knob `VLLM_LOG_FILEINFO=0` drops the file:line \\| "
        "prefix from log lines | none | 0.27.1 | stays while the knob exists |\n"
        "| max-tokens-default | fix | default max_tokens 16 -> 64 | vllm #12345 (open) | "
        "0.27.1: the dataclass field and the constructor default move together | "
        "the pin that carries #12345 |\n"
        "| pk-helper | feature | a helper module over two lines | none | 0.27.1 | upstreamed |\n"
        "| envs-comment | own | comment beside the knob | none | 0.27.1 | "
        "rides with log-fileinfo-knob |\n"
        "<!-- table:end -->\n"
    )
    # The knob rule catches a read whose registration is dropped.
    patch = downstream / "patches" / "log-fileinfo-knob.patch"
    renamed = patch.read_bytes().replace(b"VLLM_LOG_FILEINFO", b"VLLM_LOG_FILEINF0")
    patch.write_bytes(renamed.replace(b"envs.VLLM_LOG_FILEINF0", b"envs.VLLM_LOG_FILEINFO"))
    findings = lint.lint_downstream(load_config(downstream / "patchkeeper.toml")).findings
    assert [(f.code, f.message) for f in findings] == [
        ("PK401", "reads VLLM_LOG_FILEINFO (envs) but does not register it in envs.py")
    ]


def test_import_export_round_trip_byte_for_byte(
    downstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _files(downstream)
    config_path = downstream / "patchkeeper.toml"
    integration = vllm_clone_bare_tree(tmp_path / "integration")
    config_path.write_text(CONFIG + f'checkout = "{integration}"\n')
    config = load_config(config_path)
    result = importer.import_series(config)
    assert result.branch == "integration"
    assert [c.topic for c in result.commits] == [
        "log-fileinfo-knob",
        "max-tokens-default",
        "pk-helper",
        "envs-comment",
    ]
    for path in (downstream / "patches").glob("*.patch"):
        path.unlink()
    export.export_range(config, f"{TAG}..integration")
    assert _files(downstream) == before
    ledger.write_ledger(config)
    assert check_branch.check_branch(config).differences == ()
    # The same under a hostile configuration, global and in the repository.
    hostile = tmp_path / "hostile.gitconfig"
    hostile.write_text(HOSTILE)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(hostile))
    third = vllm_clone_bare_tree(tmp_path / "hostile")
    (third / ".git" / "config").write_text((third / ".git" / "config").read_text() + HOSTILE)
    config_path.write_text(CONFIG + f'checkout = "{third}"\n')
    config = load_config(config_path)
    hostile_import = importer.import_series(config)
    shown = git(third, "show", "--format=", "integration~3")  # the user's git is hostile
    assert "diff --git vllm/envs.py vllm/envs.py" in shown and "\x1b[" in shown
    assert [c.commit for c in hostile_import.commits] == [c.commit for c in result.commits]
    for path in (downstream / "patches").glob("*.patch"):
        path.unlink()
    export.export_range(config, f"{TAG}..integration")
    assert _files(downstream) == before


def test_check_branch_on_vllm(downstream: Path, contributor: Path, capsys) -> None:
    ledger.write_ledger(load_config(downstream / "patchkeeper.toml"))
    assert main(["-C", str(downstream), "check-branch", "work"]) == 0
    assert capsys.readouterr().out == (
        "work against the series on v0.27.1: they agree (4 topics, 4 files compared)\n"
    )
    patch = downstream / "patches" / "max-tokens-default.patch"
    patch.write_bytes(patch.read_bytes().replace(b"= 64", b"= 65"))
    result = check_branch.check_branch(
        load_config(downstream / "patchkeeper.toml"), check_branch.CheckBranchRequest(branch="work")
    )
    assert [(d.kind, d.name, d.detail) for d in result.differences] == [
        ("file", "vllm/sampling_params.py", "differs from the branch at line 262"),
    ]
