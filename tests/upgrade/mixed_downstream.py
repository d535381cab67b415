"""A downstream that carries both kinds of change: the runtime tests' plugin ``metaplug``
(its monkey patches of ``tinyup``) with a patch series of ``tinyup`` beside it, configured in
the plugin's ``pyproject.toml``; the two ``tinyup`` releases beside the plugin."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "runtime" / "fixtures"

#: Conflicts at 2.0: upstream added a backend on the line the patch changes.
REGISTRY = b"""Subject: register the Ascend backend

Kind: local
What: the Ascend backend in the registry
Upstream: none
Cut-against: 1.0
Retires-when: never
---
--- a/tinyup/registry.py
+++ b/tinyup/registry.py
@@ -1 +1 @@
-BACKENDS = {"cuda": "tinyup.backends.Cuda"}
+BACKENDS = {"cuda": "tinyup.backends.Cuda", "ascend": "tinyup.backends.Ascend"}
"""
#: Clean at 2.0: the sampler did not change.
SAMPLER = b'''Subject: say which index the sampler picks on a tie

Kind: local
What: the sampler's docstring names the tie rule
Upstream: none
Cut-against: 1.0
Retires-when: never
---
--- a/tinyup/sampler.py
+++ b/tinyup/sampler.py
@@ -1,3 +1,3 @@
 def sample(logits):
-    """Pick the index of the largest value."""
+    """Pick the index of the largest value (the first one on a tie)."""
     return max(range(len(logits)), key=logits.__getitem__)
'''
#: The resolution of the registry patch's conflict: both backends kept.
RESOLVED = (
    b'BACKENDS = {"cuda": "tinyup.backends.Cuda", "npu": "tinyup.backends.Npu", '
    b'"ascend": "tinyup.backends.Ascend"}\n'
)
#: The resolution of the runtime port's two conflict regions in the scheduler's copy:
#: upstream's cap kept, with the plugin's zero budget (each a pair for ``resolve``).
SCHEDULER = "metaplug/patch/bugfix/fix_scheduler.py"
SCHEDULER_RESOLVED = (
    b'    """Return how many requests run (changed in 2.0: a cap)."""\n'
    b"    # /------------------------  MetaX Modification -------------------------\\\n"
    b"    if budget < 0:\n",
    b"    # \\-----------------------------------------------------------------------/\n"
    b"    return min(budget, 64)\n",
)
SETTINGS = """pin = "1.0"
series = "patches/series"
pristine = "../upstream-1.0"
"""


def mixed_downstream(work: Path) -> Path:
    """The fixtures copied to ``work`` with the series added to the plugin; the plugin
    directory (the downstream)."""
    shutil.copytree(FIXTURES, work)
    plugin = work / "plugin"
    patches = plugin / "patches"
    patches.mkdir()
    (patches / "registry-ascend.patch").write_bytes(REGISTRY)
    (patches / "sampler-tie.patch").write_bytes(SAMPLER)
    (patches / "series").write_text("registry-ascend.patch\nsampler-tie.patch\n")
    pyproject = plugin / "pyproject.toml"
    head = '[tool.patchkeeper]\nupstream = "tinyup"\n'
    pyproject.write_text(pyproject.read_text().replace(head, head + SETTINGS))
    return plugin
