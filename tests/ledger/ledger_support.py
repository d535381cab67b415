"""Helpers for the ledger tests: small real git repositories and downstreams of the series workflow."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

from patchkeeper.config import Config, load_config

FIXED_DATE = "1700000000 +0000"


def git(cwd: Path, *args: str, input: bytes | None = None) -> str:
    """Run git as a user would (the test's environment), return stripped stdout."""
    done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=True)
    return done.stdout.decode().strip()


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        path.write_bytes(content)


def make_upstream(path: Path, files: dict[str, str | bytes], tag: str = "v1.0") -> Path:
    """A git repository with one commit of ``files``, tagged ``tag``."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write_files(path, files)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "upstream release")
    git(path, "tag", tag)
    return path


def commit_topic(repo: Path, subject: str, body: str, files: dict[str, str | bytes]) -> str:
    """Commit ``files`` (None deletes) with ``subject`` and ``body``; return the commit id."""
    write_files(repo, files)
    git(repo, "add", "-A")
    message = subject + ("\n\n" + body if body else "\n")
    git(repo, "commit", "-q", "--cleanup=verbatim", "-F", "-", input=message.encode())
    return git(repo, "rev-parse", "HEAD")


UPSTREAM_FILES = {
    "pkg/__init__.py": "",
    "pkg/envs.py": textwrap.dedent(
        """\
        import os

        environment_variables = {
            "PKG_LEVEL": lambda: os.getenv("PKG_LEVEL", "INFO"),
        }
        """
    ),
    "pkg/core.py": textwrap.dedent(
        """\
        from pkg import envs


        def level():
            return envs.PKG_LEVEL


        def size():
            return 4
        """
    ),
    "README.md": "upstream\n",
}

LEDGER_TEXT = textwrap.dedent(
    """\
    # The patch series

    Prose the tool leaves alone.

    <!-- table:begin. patchkeeper ledger writes this table; do not edit it -->
    <!-- table:end -->

    Trailing prose.
    """
)


def write_config(root: Path, extra: str = "", *, checkout: Path | None = None) -> Path:
    """A downstream with ``patchkeeper.toml``, ``PATCHES.md`` and an empty series."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "patches").mkdir(exist_ok=True)
    series = root / "patches" / "series"
    if not series.exists():
        series.write_text("")
    if not (root / "PATCHES.md").exists():
        (root / "PATCHES.md").write_text(LEDGER_TEXT)
    git_table = '[git]\ntag = "pk"\n'
    if checkout is not None:
        git_table += f'checkout = "{checkout}"\n'
    text = (
        'upstream = "pkg"\npin = "1.0"\ndirectory = "pkg"\n\n'
        '[lint]\nknob-pattern = "PKG_*"\n\n' + git_table + extra
    )
    (root / "patchkeeper.toml").write_text(text)
    return root


def config_at(root: Path) -> Config:
    return load_config(root / "patchkeeper.toml")


def ledger_body(
    kind: str = "fix",
    what: str = "a change",
    upstream: str = "none",
    cut: str = "1.0",
    retires: str = "upstream PR",
    prose: str = "",
) -> str:
    """A commit body of the series workflow: optional prose, then the five ledger headers."""
    head = prose + "\n\n" if prose else ""
    return (
        f"{head}Kind: {kind}\nWhat: {what}\nUpstream: {upstream}\n"
        f"Cut-against: {cut}\nRetires-when: {retires}\n"
    )
