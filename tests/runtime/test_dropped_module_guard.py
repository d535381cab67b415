"""A patch of a module the new release dropped, under ``try: ... except ImportError``.

In the shape of a weight-compressing plugin: it wraps the loader's ``finish`` where it is
defined (``fup.loader.utils``) and where one loader module imported it by name
(``fup.loader.gguf``), the latter inside ``try: import ... except ImportError: pass``. The
new release drops ``fup.loader.gguf`` (no module of that name defines its names): the import
fails there and the guard skips the patch, which still applies at the releases that have the
module, so the decision is *retain* (before: *update*, "moved: retarget to" the methods of
the same name of unrelated classes). The same patch without the guard fails at the new
release's import: it is a leftover of the patch of ``fup.loader.utils`` (*remove*, as before). A guarded patch of a module the new release
moved (``fup.loader.tar`` -> ``fup.formats.tar``, same names) follows the module: *update*.

Where a module-level function went, the audit names module-level definitions of its name
(the definition a module only imported first, where it still is), never a method of the same
name of an unrelated class (before: ``fup.kernels.LinearKernel.finish``); with none left the
name is gone without a trace: *look* (before: *update*, "retarget to
fup.kernels.MoEKernel.seal"). A module that now imports a name extending the one it
imported (``finish`` -> ``finish_blocks``) renamed it: its readers call the new name, so the
patch is *update* (retarget), though another entry patches the old definition with the same
replacement (no leftover).
The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

UTILS = "def finish(model):\n    return model\n"
#: A loader module that only imports ``finish`` (the old release's ``fup.loader.gguf``).
GGUF = (
    "from fup.loader.utils import finish\n\n\nclass GGUFLoader:\n"
    "    def load(self, model):\n        return finish(model)\n"
)
#: A loader module whose own ``finish`` the plugin replaces (moved at the new release).
TAR = "def finish(model):\n    return model\n\n\nclass TarLoader:\n    pass\n"
#: Unrelated classes of the new release with a method of the same name.
KERNELS = (
    "class LinearKernel:\n    def finish(self, layer):\n        return layer\n\n\n"
    "class MoEKernel:\n    def finish(self, layer):\n        return layer\n\n"
    "    def seal(self, layer):\n        return layer\n"
)

PATCH = """import fup.loader.utils as utils


def wrapped(model):
    return model


def patch_loader():
    utils.finish = wrapped
    try:
        import fup.loader.gguf as gguf

        gguf.finish = wrapped
    except (ImportError, AttributeError):
        pass
    try:
        import fup.loader.tar as tar

        tar.finish = wrapped
    except ImportError:
        pass
    import fup.loader.sharded as sharded

    sharded.finish = wrapped
    import fup.loader.archive as archive

    archive.seal = wrapped
    import fup.loader.blocks as blocks

    blocks.finish = wrapped
"""


def test_a_guarded_patch_of_a_dropped_module_is_retained(tmp_path: Path) -> None:
    old, new = tmp_path / "fup-1.0", tmp_path / "fup-1.1"
    common = {"fup/__init__.py": "", "fup/loader/__init__.py": "", "fup/loader/utils.py": UTILS}
    write_files(
        old,
        {
            **common,
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.0"\n',
            "fup/loader/gguf.py": GGUF,
            "fup/loader/sharded.py": GGUF.replace("GGUF", "Sharded"),
            "fup/loader/tar.py": TAR,
            "fup/loader/archive.py": "def seal(model):\n    return model\n",
            "fup/loader/blocks.py": "from fup.loader.utils import finish\n",
        },
    )
    write_files(
        new,
        {
            **common,
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.1"\n',
            "fup/formats/__init__.py": "",
            "fup/formats/tar.py": TAR,
            "fup/kernels.py": KERNELS,
            "fup/loader/utils.py": UTILS + "\n\ndef finish_blocks(model):\n    return model\n",
            "fup/loader/blocks.py": "from fup.loader.utils import finish_blocks\n",
        },
    )
    plugin = write_files(
        tmp_path / "gplug",
        {
            "pyproject.toml": pyproject(
                "gplug", {"gplug": "gplug:register"}, group="fup.plugins", upstream="fup"
            ),
            "gplug/__init__.py": "def register():\n    from gplug.patch import loader\n\n"
            "    loader.patch_loader()\n",
            "gplug/patch/__init__.py": "",
            "gplug/patch/loader.py": PATCH,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries]
    assert found == [
        ("fup.loader.utils.finish", "retain", found[0][2]),
        (
            "fup.loader.gguf.finish",
            "retain",
            "fup.loader.gguf.finish existed at the old release; the new one dropped "
            "fup.loader.gguf, its module (no module of that name defines its names), and the "
            "patch is guarded by try ... except (ImportError, AttributeError) at "
            "gplug/patch/loader.py:10: at "
            "this release the import fails and the guard skips the patch, which still applies "
            "at the releases that have the module; nothing to do at this one (the branch goes "
            "when the plugin stops supporting those releases)",
        ),
        (
            "fup.loader.tar.finish",
            "update",
            "fup.loader.tar.finish moved: retarget to fup.formats.tar.finish (line 1), "
            "fup.loader.utils.finish (line 1)",
        ),
        (
            "fup.loader.sharded.finish",
            "remove",
            "fup.loader.sharded.finish no longer binds finish at the new release (the old "
            "module imported it from fup.loader.utils.finish): nothing reads the name there; "
            "gplug/patch/loader.py:9 already patches fup.loader.utils.finish with the same "
            "replacement, which every reader of the name reaches: this patch is a leftover",
        ),
        (
            "fup.loader.archive.seal",
            "look",
            "fup.loader.archive.seal existed at the old release and is gone from the new one "
            "without a trace: the patch no longer replaces anything there; find where "
            "upstream's code went (dropped, or folded into a caller the plugin must now patch) "
            "before removing it",
        ),
        (
            "fup.loader.blocks.finish",
            "update",
            "fup.loader.blocks.finish was renamed: retarget to fup.loader.utils.finish_blocks",
        ),
    ]
    # the places of a module-level function are module-level definitions of its name, the
    # definition a module only imported first: never a method of the same name elsewhere
    assert [a.new.candidates for a in result.entries[2:]] == [
        ("fup.formats.tar.finish (line 1)", "fup.loader.utils.finish (line 1)"),
        ("fup.loader.utils.finish (line 1)",),
        (),
        ("fup.loader.utils.finish (line 1)",),
    ]
    statuses = ["found", "moved", "moved", "moved", "removed", "moved"]
    assert [a.new.status for a in result.entries] == statuses
