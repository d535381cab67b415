"""Rule 5 of :mod:`patchkeeper.runtime.judge.judge`: a registry entry whose key upstream
has now.

A plugin that writes a key into an upstream registry (``MODEL_ARCH_CONFIG_CONVERTORS
["deepseek_v4"] = AscendConvertor``) either adds what upstream lacked or overrides upstream's
value. When the new upstream release has the key, the entry is not simply obsolete: if the
old release had it too, the plugin overrode upstream's value on purpose (*retain*); if
upstream added it, the registration moved upstream only when upstream registers the
plugin's own value (*remove*); another value of upstream's is overridden by the plugin's
(*retain*); values that cannot be read leave the question open (*look*).
"""

from __future__ import annotations

import ast
import re

from patchkeeper.runtime.judge.drift import LOOK, RETAIN, Code
from patchkeeper.runtime.model import PatchEntry


def registry_key_decision(
    entry: PatchEntry, old_location: str, old_code: Code | None, new_code: Code | None
) -> tuple[str, str] | None:
    """``(decision, reason)`` for a registry entry (``entry.key`` set) that the earlier rules
    would remove because the new upstream registry has its key, or ``None`` when the
    removal stands. ``old_location``: where the old upstream registry is, for the reason;
    ``old_code``, ``new_code``: the registry's definition in each release."""
    key = entry.key or ""
    if _key_value(old_code, key) is not None:
        return (
            RETAIN,
            f"the old upstream {old_location} had the key {entry.key} too: the plugin "
            "overrides upstream's value on purpose",
        )
    if entry.replacement == "<removed>":
        return None
    return _key_override(entry, new_code)


def _key_value(code: Code | None, key: str) -> ast.expr | None:
    """The value the registry definition ``code`` gives the literal key ``key`` (quoted or
    not: ``'npu'`` is the key ``npu``), read from its parse: the first dict display, or
    ``dict(...)`` call with keywords, in :func:`ast.walk`'s order that holds the key;
    ``None`` when none does or the definition does not parse."""
    parsed = code.parsed if code is not None else None
    bare = key.strip("'\"")
    if parsed is None:
        return None
    for node in ast.walk(parsed):
        pairs: list[tuple[ast.expr | None, ast.expr]] = []
        if isinstance(node, ast.Dict):
            pairs = list(zip(node.keys, node.values, strict=True))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "dict":
            pairs = [(ast.Constant(k.arg), k.value) for k in node.keywords if k.arg]
        for name, value in pairs:
            if isinstance(name, ast.Constant) and str(name.value) == bare:
                return value
    return None


def key_value_names(code: Code | None, key: str) -> tuple[str, ...] | None:
    """The names in the value the registry definition ``code`` gives the literal key ``key``
    (``{"deepseek_v4": DeepseekV4Convertor}`` gives ``("DeepseekV4Convertor",)``; a value
    ``("vllm.a", "Model")`` gives ``("vllm", "a", "Model")``), or ``None`` when the
    definition is not a dict display (or a ``dict(...)`` call) holding that key
    (:func:`_key_value`)."""
    value = _key_value(code, key)
    if value is None:
        return None
    return tuple(re.findall(r"[A-Za-z_]\w*", ast.unparse(value)))


def _key_override(entry: PatchEntry, new_code: Code | None) -> tuple[str, str] | None:
    """Rule 5b: a registry key the new upstream added (the old one did not have it, rule 5
    went first) is *remove* only when upstream registers the plugin's own value under it
    (the name of the plugin's replacement is in upstream's value: the registration landed
    upstream). When upstream registers another value, the plugin's registration replaces
    upstream's new one (an ``AscendDeepseekV4Convertor`` over upstream's
    ``DeepseekV4Convertor``: the vllm-ascend maintainers kept it): *retain*. When the
    plugin's value or upstream's cannot be read, the trees cannot tell: *look*. Returns
    ``(decision, reason)``, or ``None`` when the removal stands."""
    location = entry.target
    # a replacement the scan could not name (``<lambda>``, ``<expr>``) has no ``:``
    ours = entry.replacement.rpartition(":")[2].rpartition(".")[2]
    if ":" not in entry.replacement:
        ours = ""
    theirs = key_value_names(new_code, entry.key or "")
    if ours and theirs is not None and ours in theirs:
        return None
    if not ours or not theirs:
        return (
            LOOK,
            f"the new upstream {location} now has the key {entry.key}, but which value it "
            "registers there, or which one the plugin registers, cannot be read: find out "
            "whether upstream's value does what the plugin's does before removing it",
        )
    listed = ".".join(theirs) if len(theirs) < 4 else ", ".join(theirs[:3]) + ", ..."
    return (
        RETAIN,
        f"the new upstream {location} now registers {listed} under the key {entry.key}, "
        f"not the plugin's {ours}: the plugin's registration replaces upstream's value; "
        "keep it while the plugin's own value is wanted",
    )
