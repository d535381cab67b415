"""An upstream that keeps its package below the top of its tree (the src layout:
``tinyserve-2.0/src/tinyserve/``, as a setuptools or hatch project's sdist unpacks) is read
by the runtime commands from its directory, its sdist file or its requirement, as a flat
tree is: they refused it ("no tinyserve package in this upstream tree", naming the
directory in the cache for a file or a requirement), though the user had given the
release, and no other spelling of a file or a requirement could reach the ``src`` folder.
A lock made at such a release names its version, read from the tree's ``PKG-INFO``.

The plugin is in the shape of a WSGI server's downstream: one module that replaces a
method of the server's channel class when imported."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import LocalIndex, make_tar, write_files

CONFIG = """upstream = "tinyserve"
pin = "1.0"

[runtime]
package = "serve_tweaks"
patch-directory = "serve_tweaks"
"""
PATCH = '''"""Note: read the request body in one piece.
Affected versions: 1.0
Remove at: never
"""
import tinyserve.channel


def _received(self, data):
    return len(data)


tinyserve.channel.HTTPChannel.received = _received
'''
CHANNEL = {
    "1.0": "class HTTPChannel:\n    def received(self, data):\n        return 0\n",
    "2.0": "class HTTPChannel:\n    def received(self, data):\n        return -1\n",
}


def _release(version: str) -> dict[str, str]:
    """The files of tinyserve's sdist at ``version``, relative to its top folder."""
    return {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: tinyserve\nVersion: {version}\n\n",
        "pyproject.toml": f'[project]\nname = "tinyserve"\nversion = "{version}"\n',
        "src/tinyserve/__init__.py": "",
        "src/tinyserve/channel.py": CHANNEL[version],
    }


def _plugin(root: Path) -> Path:
    for version in ("1.0", "2.0"):
        write_files(root / f"tinyserve-{version}", _release(version))
    return write_files(
        root / "tweaks", {"patchkeeper.toml": CONFIG, "serve_tweaks/__init__.py": PATCH}
    )


def _sdist(version: str) -> bytes:
    top = f"tinyserve-{version}"
    return make_tar([(f"{top}/{name}", text.encode()) for name, text in _release(version).items()])


AUDIT = """runtime audit of serve_tweaks: {old} -> {new}
RETAIN       serve_tweaks/__init__.py:12  assignment  tinyserve.channel.HTTPChannel.received  \
<- serve_tweaks:_received
    the upstream change (1 hunk(s)) lies only in code the replacement does not copy (it keeps \
0% of the old upstream's lines, none of those upstream changed): nothing of it reaches the \
plugin's code
    upstream tinyserve.channel.HTTPChannel.received changed: body; the downstream change is \
not in the new upstream
stale bindings: 0 (0 not patched)
mechanism: assignment 1
activation: active 1
decision: retain 1
"""


def test_a_src_layout_directory_is_audited(cli, tmp_path: Path, private_cache: Path) -> None:
    plugin = _plugin(tmp_path)

    run = cli(
        "runtime", "audit", "--from", "../tinyserve-1.0", "--to", "../tinyserve-2.0", cwd=plugin
    )

    assert (run.code, run.out, run.err) == (
        0,
        AUDIT.format(old="../tinyserve-1.0", new="../tinyserve-2.0"),
        "",
    )


def test_a_src_layout_sdist_and_requirement_are_audited_and_locked(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    plugin = _plugin(tmp_path)
    (tmp_path / "tinyserve-1.0.tar.gz").write_bytes(_sdist("1.0"))
    local_index.publish("tinyserve", "tinyserve-2.0.tar.gz", _sdist("2.0"))

    audit = cli(
        "runtime",
        "audit",
        "--from",
        "../tinyserve-1.0.tar.gz",
        "--to",
        "tinyserve==2.0",
        cwd=plugin,
    )
    lock = cli("runtime", "lock", "--at", "../tinyserve-1.0.tar.gz", "--json", cwd=plugin)

    assert (audit.code, audit.out, audit.err) == (
        0,
        AUDIT.format(old="../tinyserve-1.0.tar.gz", new="tinyserve==2.0"),
        "",
    )
    result = json.loads(lock.out)
    assert (lock.code, result["at"], result["target_count"], result["file_count"]) == (
        0,
        "1.0",
        1,
        1,
    )
    written = json.loads((plugin / "serve_tweaks" / "patchkeeper.lock").read_text())
    assert (written["package"], written["version"], sorted(written["files"])) == (
        "tinyserve",
        "1.0",
        ["tinyserve/channel.py"],
    )
