"""How a plugin's copy is compared with upstream's definition (a plugin ``cplug`` and two
releases of an upstream ``cup``, written by this test): the copy's own decorators, name
and signature layout are no difference; a wrapper and a plugin class of another origin are
not copies. Upstream changes only ``Config`` between the releases (its base and body)."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit
from patchkeeper.runtime.port import runtime_port as port

KERN = """def triton_jit(fn):
    return fn


@triton_jit
def mm_k(a, b):
    c = a @ b
    return c


def scale(x, factor, *, bias=0):
    y = x * factor
    return y + bias


def shift(x, by):
    z = x + by
    return z
"""

CONFIG = {
    "1.0": "class Config:\n    def __init__(self):\n        self.size = 1\n        self.name = 'cpu'\n",
    "2.0": "class Base:\n    pass\n\n\nclass Config(Base):\n    def __init__(self):\n"
    "        self.size = 2\n        self.name = 'cpu'\n",
}

BANNER_OPEN = "    # /------ Modification ------\\\n"
BANNER_CLOSE = "    # \\---------------------------/\n"

PATCH = f"""# Note: n
# Affected versions: cup 1.0
# Remove at: 3.0
import cup.configs
import cup.kern
from cup.kern import triton_jit


@triton_jit
def mm_k(a, b):
    c = a @ b
{BANNER_OPEN}    c = c.npu()
{BANNER_CLOSE}    return c


def npu_scale(
    x,
    factor,
    *,
    bias=0,
):
    y = x * factor
{BANNER_OPEN}    y = y.npu()
{BANNER_CLOSE}    return y + bias


_orig_shift = cup.kern.shift


def shift(x, by):
{BANNER_OPEN}    x = x.npu()
{BANNER_CLOSE}    return _orig_shift(x, by)


class NpuConfig:
    device = "npu"

    def describe(self):
        return self.device


cup.kern.mm_k = mm_k
cup.kern.scale = npu_scale
cup.kern.shift = shift
cup.configs.Config = NpuConfig
"""

PYPROJECT = """[project]
name = "cplug"
version = "0.1"

[project.entry-points."cup.general_plugins"]
cplug = "cplug:register"

[tool.patchkeeper]
upstream = "cup"

[tool.patchkeeper.runtime]
package = "cplug"
entry-point-groups = ["cup.general_plugins"]
upstream-packages = ["cup"]
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    for version, config in CONFIG.items():
        _write(
            tmp_path / f"cup-{version}",
            {
                "pyproject.toml": f'[project]\nname = "cup"\nversion = "{version}"\n',
                "cup/__init__.py": "",
                "cup/kern.py": KERN,
                "cup/configs.py": config,
            },
        )
    _write(
        tmp_path / "plugin",
        {
            "pyproject.toml": PYPROJECT,
            "cplug/__init__.py": "def register():\n    import cplug.patch.patch_kern  # noqa: F401\n",
            "cplug/patch/__init__.py": "",
            "cplug/patch/patch_kern.py": PATCH,
        },
    )
    return tmp_path


def _options(work: Path) -> dict[str, str]:
    return {"old": str(work / "cup-1.0"), "new": str(work / "cup-2.0")}


def test_a_copy_is_compared_as_a_copy(work: Path) -> None:
    config = load_config(work / "plugin" / "pyproject.toml")
    result = runtime_audit.audit_runtime(config, **_options(work))
    facts = [
        (a.entry.target, a.entry.mechanism.value, a.drift.decision, a.drift.outside_banners)
        for a in result.entries
    ]
    assert facts == [
        # @triton_jit above both definitions: not a decorator the copy removed
        ("cup.kern.mm_k", "assignment", "retain", ()),
        # npu_scale is scale under its own name, its signature wrapped over several lines
        ("cup.kern.scale", "assignment", "retain", ()),
        # a wrapper calls the original: its lines are not a copy's
        ("cup.kern.shift", "wrapper", "retain", ()),
        # NpuConfig is the plugin's own class, not a copy of upstream's Config
        ("cup.configs.Config", "assignment", "update", ()),
    ]


def test_port_does_not_merge_upstream_into_a_class_of_another_origin(work: Path) -> None:
    config = load_config(work / "plugin" / "pyproject.toml")
    result = port.port_runtime(config, port.RuntimePortRequest(**_options(work)))
    assert [(e.target, e.action, e.detail) for e in result.entries if e.decision == "update"] == [
        (
            "cup.configs.Config",
            "by hand",
            "the replacement at cplug/patch/patch_kern.py:41 is not a copy of upstream's "
            "cup.configs.Config (another kind of definition, or a class that neither derives "
            "from it nor keeps half its lines): nothing to merge; read it against upstream's "
            "change by hand",
        )
    ]
    assert result.diff == ""
