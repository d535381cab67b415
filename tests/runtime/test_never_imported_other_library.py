"""A patch the plugin's loading never imports, of a library other than the upstream.

In the shape of a quantization plugin that vendors a kernel package with its own
integrations: ``integrations/hub.py`` registers the kernel's quantizer in another library's
registries (``hflib.quantizers.auto.AUTO_QUANTIZER_MAPPING[...]``), and nothing the plugin's
entry point imports reaches it (that library's users import it themselves). The upgrade of
the upstream cannot change another library's registry: *retain*, the never-imported fact in
the evidence (before: *remove*, "never imported ... remove it, or re-enable the import").
A never-imported patch of the upstream itself stays *remove*. The upstream releases and the
plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

ENGINE = "def step(x):\n    return x\n"

HUB = """from hflib.quantizers import auto

from kplug.kernels.quantizer import KernelConfig, KernelQuantizer

auto.AUTO_QUANTIZER_MAPPING["kernel"] = KernelQuantizer
auto.AUTO_QUANTIZATION_CONFIG_MAPPING["kernel"] = KernelConfig
"""

DORMANT = """import fup.engine


def step(x):
    return x


fup.engine.step = step
"""


def test_a_never_imported_patch_of_another_library_is_retained(tmp_path: Path) -> None:
    old, new = tmp_path / "fup-1.0", tmp_path / "fup-1.1"
    for root, version in ((old, "1.0"), (new, "1.1")):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "fup"\nversion = "{version}"\n',
                "fup/__init__.py": "",
                "fup/engine.py": ENGINE,
            },
        )
    plugin = write_files(
        tmp_path / "kplug",
        {
            "pyproject.toml": pyproject(
                "kplug", {"kplug": "kplug:register"}, group="fup.plugins", upstream="fup"
            ),
            "kplug/__init__.py": "def register():\n    from kplug.kernels import quantizer\n",
            "kplug/kernels/__init__.py": "",
            "kplug/kernels/quantizer.py": "class KernelQuantizer:\n    pass\n\n\n"
            "class KernelConfig:\n    pass\n",
            "kplug/kernels/integrations/__init__.py": "",
            "kplug/kernels/integrations/hub.py": HUB,
            "kplug/kernels/integrations/dormant.py": DORMANT,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries]
    never = "never imported (no import of kplug.kernels.integrations.{} in the modules read)"
    other = (
        "hflib.quantizers.auto.{} is not part of the upstream being upgraded: this upgrade "
        "does not change it; the plugin's loading does not reach it either ("
        + never.format("hub")
        + "): another library's patch may be imported by that library's users; if nothing "
        "imports it, delete it apart from this upgrade"
    )
    assert found == [
        (
            "fup.engine.step",
            "remove",
            never.format("dormant") + ": remove it, or re-enable the import",
        ),
        (
            "hflib.quantizers.auto.AUTO_QUANTIZER_MAPPING",
            "retain",
            other.format("AUTO_QUANTIZER_MAPPING"),
        ),
        (
            "hflib.quantizers.auto.AUTO_QUANTIZATION_CONFIG_MAPPING",
            "retain",
            other.format("AUTO_QUANTIZATION_CONFIG_MAPPING"),
        ),
    ]
    assert [a.entry.key for a in result.entries] == [None, "'kernel'", "'kernel'"]
