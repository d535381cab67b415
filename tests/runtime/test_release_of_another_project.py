"""A runtime command given a release of another project than the upstream (a WSGI server's
sdist where vLLM's was meant, the file or its requirement) says so naming what the user
typed, the option and the packages that release holds. It named the directory the file was
unpacked to in patchkeeper's cache (``.../trees/local/<digest>/gunicorn-2.0/gunicorn-2.0:
no vllm package in this upstream tree``), a path the user never gave, and told them to
"give the directory holding the upstream package" when they had given a file."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import LocalIndex, git, make_checkout, make_tar, vllm_plugin_pyproject, write_files

PATCH = '''"""Note: keep the output token ids for the n-gram processor.
Affected versions: 1.0
Remove at: never
"""


def register():
    from vllm.worker import InputBatch

    def _init(self, *args, **kwargs):
        return None

    InputBatch.__init__ = _init
'''
HINT = (
    "  hint: pass a release of the upstream whose package is vllm (its sdist or wheel file, "
    "its unpacked directory or NAME==VERSION), or name the packages to read in "
    "upstream-packages of [runtime] in the configuration\n"
)


def _plugin(root: Path) -> Path:
    pyproject = vllm_plugin_pyproject(
        "vllm-ngram", "0.3.0", 'ngram = "vllm_ngram:register"', package="vllm_ngram", pin="1.0"
    )
    write_files(
        root / "vllm-1.0",
        {"vllm/__init__.py": "", "vllm/worker.py": "class InputBatch:\n    pass\n"},
    )
    return write_files(
        root / "vllm-ngram",
        {"pyproject.toml": pyproject, "vllm_ngram/__init__.py": PATCH},
    )


def _server_sdist() -> bytes:
    top = "gunicorn-2.0"
    files = {
        "PKG-INFO": "Metadata-Version: 2.1\nName: gunicorn\nVersion: 2.0\n\n",
        "gunicorn/__init__.py": "",
        "gunicorn/util.py": "def chown(path):\n    return path\n",
        "tests/test_util.py": "",
    }
    return make_tar([(f"{top}/{name}", text.encode()) for name, text in files.items()])


def test_a_release_file_of_another_project_is_named_as_given(
    cli, tmp_path: Path, private_cache: Path
) -> None:
    plugin = _plugin(tmp_path)
    (tmp_path / "gunicorn-2.0.tar.gz").write_bytes(_server_sdist())

    audit = cli(
        "runtime", "audit", "--from", "../vllm-1.0", "--to", "../gunicorn-2.0.tar.gz", cwd=plugin
    )
    lock = cli("runtime", "lock", "--at", "../gunicorn-2.0.tar.gz", "--json", cwd=plugin)

    assert (audit.code, audit.out, audit.err) == (
        2,
        "",
        "patchkeeper: error: ../gunicorn-2.0.tar.gz: the new upstream (--to) holds no vllm "
        f"package (its packages: gunicorn)\n{HINT}",
    )
    assert (lock.code, json.loads(lock.out)["error"]) == (
        2,
        {
            "message": "the release to lock (--at) holds no vllm package (its packages: gunicorn)",
            "file": "../gunicorn-2.0.tar.gz",
            "line": None,
            "hint": HINT.removeprefix("  hint: ").rstrip("\n"),
        },
    )
    assert not (plugin / "vllm_ngram" / "patchkeeper.lock").exists()


def test_a_requirement_of_another_project_is_named_as_given(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    plugin = _plugin(tmp_path)
    # no configured upstream: the upstream packages are vLLM's, as for a plugin audited
    # with --plugin and --package alone
    (plugin / "pyproject.toml").write_text(
        '[project]\nname = "vllm-ngram"\nversion = "0.3.0"\n\n'
        '[project.entry-points."vllm.general_plugins"]\nngram = "vllm_ngram:register"\n',
        encoding="utf-8",
    )
    local_index.publish("gunicorn", "gunicorn-2.0.tar.gz", _server_sdist())

    run = cli(
        "runtime",
        "port",
        "--package",
        "vllm_ngram",
        "--from",
        "gunicorn==2.0",
        "--to",
        "../vllm-1.0",
        cwd=plugin,
    )

    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: the old upstream (--from) gunicorn==2.0 holds no vllm package "
        f"(its packages: gunicorn)\n{HINT}",
    )


def test_upgrade_refuses_it_before_it_starts(cli, tmp_path: Path, private_cache: Path) -> None:
    # upgrade keeps --to in its state: refused only at its runtime audit step, the release
    # left an upgrade that --continue could never finish, only --abort
    plugin = _plugin(tmp_path)
    (tmp_path / "gunicorn-2.0.tar.gz").write_bytes(_server_sdist())
    make_checkout(plugin, "the plugin")

    run = cli("upgrade", "--to", "../gunicorn-2.0.tar.gz", "--from", "../vllm-1.0", cwd=plugin)

    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: ../gunicorn-2.0.tar.gz: the new upstream (--to) holds no vllm "
        f"package (its packages: gunicorn)\n{HINT}",
    )
    assert not (plugin / ".git" / "patchkeeper-upgrade").exists()
    assert git(plugin, "status", "--porcelain") == ""
