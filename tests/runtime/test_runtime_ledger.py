"""The ledger comment in vllm-ascend's shape: targets written with an item or an
assignment inside the backquotes, sections whose targets are not recognised, files gone."""

from __future__ import annotations

from patchkeeper.runtime.inventory.patch_headers import LedgerItem, check_ledger, parse_ledger
from patchkeeper.runtime.model import Mechanism, PatchEntry

LEDGER = """\
# ** 1. File: worker/patch_mamba_utils.py**
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
#   1. `vllm.v1.worker.mamba_utils.batch_memcpy_kernel = batch_memcpy_kernel`
#    Why:
#       `vllm.not.a.target` after Why: is prose.
# ** 2. File: worker/patch_kv_cache_dtype.py**
#   1. `vllm.utils.torch_utils.STR_DTYPE_TO_TORCH_DTYPE["fp8"]`
#    Why:
# ** 3. File: worker/patch_prose.py**
#   1. the kernels of `triton` (no dotted name)
#    Why:
# ** 4. File: platform/patch_gone.py**
#   1. `vllm.entrypoints.openai.protocol.ChatCompletionResponse`
#    Why:
"""


def _entry(file: str, line: int, target: str, key: str | None = None) -> PatchEntry:
    return PatchEntry(
        file=f"plug/patch/{file}",
        line=line,
        module="plug.patch." + file[:-3].replace("/", "."),
        scope="<module>",
        target=target,
        mechanism=Mechanism.REGISTRY if key else Mechanism.ASSIGNMENT,
        key=key,
    )


def test_parse_ledger_targets_and_sections() -> None:
    assert parse_ledger(LEDGER) == [
        LedgerItem("worker/patch_mamba_utils.py", "", 1),
        LedgerItem(
            "worker/patch_mamba_utils.py", "vllm.v1.worker.mamba_utils.batch_memcpy_kernel", 3
        ),
        LedgerItem("worker/patch_kv_cache_dtype.py", "", 6),
        LedgerItem(
            "worker/patch_kv_cache_dtype.py", "vllm.utils.torch_utils.STR_DTYPE_TO_TORCH_DTYPE", 7
        ),
        LedgerItem("worker/patch_prose.py", "", 9),
        LedgerItem("platform/patch_gone.py", "", 12),
        LedgerItem(
            "platform/patch_gone.py", "vllm.entrypoints.openai.protocol.ChatCompletionResponse", 13
        ),
    ]


def test_check_ledger_sections_without_targets_and_missing_files() -> None:
    entries = [
        _entry("worker/patch_mamba_utils.py", 10, "vllm.v1.worker.mamba_utils.batch_memcpy_kernel"),
        _entry("worker/patch_mamba_utils.py", 11, "vllm.v1.worker.mamba_utils.do_copy"),
        _entry(
            "worker/patch_kv_cache_dtype.py",
            5,
            "vllm.utils.torch_utils.STR_DTYPE_TO_TORCH_DTYPE",
            "'fp8'",
        ),
        _entry("worker/patch_prose.py", 3, "vllm.triton_utils.tl"),
        _entry("worker/patch_unlisted.py", 4, "vllm.x.y"),
    ]
    files = [e.file for e in entries]
    findings = check_ledger(parse_ledger(LEDGER), entries, "plug/patch", "L", files)
    assert [(f.code, f.path, f.line, f.message) for f in findings] == [
        (
            "ledger-missing-code",
            "L",
            13,
            "documented target vllm.entrypoints.openai.protocol.ChatCompletionResponse is not "
            "patched by platform/patch_gone.py; plug/patch/platform/patch_gone.py does not exist",
        ),
        (
            "ledger-undocumented",
            "plug/patch/worker/patch_mamba_utils.py",
            11,
            "vllm.v1.worker.mamba_utils.do_copy is patched but not documented under "
            "worker/patch_mamba_utils.py",
        ),
        (
            "ledger-undocumented",
            "plug/patch/worker/patch_prose.py",
            3,
            "vllm.triton_utils.tl is patched but not documented under worker/patch_prose.py",
        ),
        (
            "ledger-undocumented",
            "plug/patch/worker/patch_unlisted.py",
            4,
            "vllm.x.y is patched but worker/patch_unlisted.py has no section in the ledger",
        ),
    ]
