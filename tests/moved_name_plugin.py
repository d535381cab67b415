"""A plugin scanned whole (no ``<package>/patch`` folder) whose module that holds no patch
imports a name the new release of its made-up ``vllm`` moved, written for the tests of what
``runtime port`` and ``upgrade`` say of the audit's findings they do not rewrite
(tests/runtime/test_port_unhandled_findings.py, tests/upgrade/test_upgrade_unhandled_findings.py).

``vllm`` 1.0 defines ``make_tool_call_id`` in ``vllm.entrypoints.chat_utils`` and
``random_uuid`` in ``vllm.utils``; 2.0 defines them in ``vllm.renderers.chat_utils`` and
``vllm.ids``. The plugin ``toolplug`` patches ``vllm.engine.step`` in ``engine_patch.py`` and
uses both names in ``tools.py``, which holds no patch: an import (``breaks-at-import``) and an
attribute chain called in a function (``breaks-when-called``).
"""

from __future__ import annotations

from pathlib import Path

from helpers import write_files

#: ``vllm/engine.py`` at both releases.
ENGINE = "def step(x):\n    return x\n"

#: The releases ``vllm-1.0`` and ``vllm-2.0``: relative path -> text.
RELEASES = {
    "1.0": {
        "pyproject.toml": '[project]\nname = "vllm"\nversion = "1.0"\n',
        "vllm/__init__.py": "",
        "vllm/engine.py": ENGINE,
        "vllm/utils.py": "def random_uuid():\n    return 'u'\n",
        "vllm/entrypoints/__init__.py": "",
        "vllm/entrypoints/chat_utils.py": (
            "def make_tool_call_id():\n    return 'id'\n\n\ndef parse_chat(x):\n    return x\n"
        ),
    },
    "2.0": {
        "pyproject.toml": '[project]\nname = "vllm"\nversion = "2.0"\n',
        "vllm/__init__.py": "",
        "vllm/engine.py": ENGINE,
        "vllm/ids.py": "def random_uuid():\n    return 'u'\n",
        "vllm/utils.py": "def cdiv(a, b):\n    return -(a // -b)\n",
        "vllm/entrypoints/__init__.py": "",
        "vllm/entrypoints/chat_utils.py": "def parse_chat(x):\n    return x\n",
        "vllm/renderers/__init__.py": "",
        "vllm/renderers/chat_utils.py": "def make_tool_call_id():\n    return 'id'\n",
    },
}

#: ``toolplug/tools.py``: no patch; line 2 imports the moved name, line 6 calls the other.
TOOLS = (
    "import vllm.utils\n"
    "from vllm.entrypoints.chat_utils import make_tool_call_id, parse_chat\n"
    "\n"
    "\n"
    "def new_id():\n"
    "    return parse_chat(make_tool_call_id()) + vllm.utils.random_uuid()\n"
)

#: The plugin project: relative path -> text.
PLUGIN = {
    "pyproject.toml": (
        '[project]\nname = "toolplug"\nversion = "0.1"\n\n'
        '[project.entry-points."vllm.general_plugins"]\ntoolplug = "toolplug:register"\n\n'
        '[tool.patchkeeper]\nupstream = "vllm"\n\n'
        '[tool.patchkeeper.runtime]\npackage = "toolplug"\n'
        'entry-point-groups = ["vllm.general_plugins"]\nupstream-packages = ["vllm"]\n'
    ),
    "toolplug/__init__.py": "def register():\n    import toolplug.engine_patch  # noqa: F401\n",
    "toolplug/engine_patch.py": (
        "import vllm.engine\n\n\ndef step(x):\n    return x + 1\n\n\nvllm.engine.step = step\n"
    ),
    "toolplug/tools.py": TOOLS,
}


def write_moved_name_plugin(root: Path) -> Path:
    """The plugin under ``root/toolplug`` and the releases as ``root/vllm-1.0`` and
    ``root/vllm-2.0``; the plugin's folder."""
    for version, files in RELEASES.items():
        write_files(root / f"vllm-{version}", files)
    return write_files(root / "toolplug", PLUGIN)
