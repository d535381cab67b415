"""Rule 5 of :mod:`patchkeeper.runtime.judge.judge`: a registry entry whose key upstream
has now.

A plugin that writes a key into an upstream registry (``MODEL_ARCH_CONFIG_CONVERTORS
["deepseek_v4"] = AscendConvertor``) either adds what upstream lacked or overrides upstream's
value. When the new upstream release has the key, the entry is not simply obsolete: if the
old release had it too, the plugin overrode upstream's value on purpose (*retain*); if
upstream added it, the registration moved upstream only when upstream registers the
plugin's own value (*remove*); another value of upstream's is overridden by the plugin's
(*retain*); values that cannot be read leave the question open (*look*).

A key upstream registers through a call or a decorator
(:mod:`patchkeeper.runtime.judge.registrations`: ``Factory.register_engine("nccl", ...)``,
``@register_speculator("dspark")``) is a key the release has, as one its registry's
definition holds: the same rules apply, its value read from the call. A registration that
runs only under a condition (an ``if``, a ``try``, a function's body) may not run where
the plugin's does: upstream registering the plugin's own value that way is *look*, never
*remove*.
"""

from __future__ import annotations

import ast
import re

from patchkeeper.runtime.judge.drift import LOOK, RETAIN, Code
from patchkeeper.runtime.judge.registrations import Registration
from patchkeeper.runtime.model import PatchEntry

#: How each release registers an entry's key through a call or a decorator, old then new
#: (:func:`patchkeeper.runtime.judge.registrations.registration`; ``None`` when it does not).
Registered = tuple[Registration | None, Registration | None]


def registry_key_decision(
    entry: PatchEntry,
    old_location: str,
    old_code: Code | None,
    new_code: Code | None,
    registered: Registered = (None, None),
) -> tuple[str, str] | None:
    """``(decision, reason)`` for a registry entry (``entry.key`` set) that the earlier rules
    would remove because the new upstream registry has its key, or ``None`` when the
    removal stands. ``old_location``: where the old upstream registry is, for the reason;
    ``old_code``, ``new_code``: the registry's definition in each release; ``registered``:
    how each release registers the key through a call (:data:`Registered`)."""
    key = entry.key or ""
    before = registered[0]
    if _key_value(old_code, key) is not None or before is not None:
        how = f" ({before.described()})" if before is not None else ""
        return (
            RETAIN,
            f"the old upstream {old_location} had the key {entry.key} too{how}: the plugin "
            "overrides upstream's value on purpose",
        )
    if entry.replacement == "<removed>":
        return None
    return _key_override(entry, new_code, registered[1])


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


def _key_override(
    entry: PatchEntry, new_code: Code | None, made: Registration | None
) -> tuple[str, str] | None:
    """Rule 5b: a registry key the new upstream added (the old one did not have it, rule 5
    went first) is *remove* only when upstream registers the plugin's own value under it
    (the name of the plugin's replacement is in upstream's value: the registration landed
    upstream), unconditionally. When upstream registers another value, the plugin's
    registration replaces upstream's new one (an ``AscendDeepseekV4Convertor`` over
    upstream's ``DeepseekV4Convertor``: the vllm-ascend maintainers kept it): *retain*.
    When the plugin's value or upstream's cannot be read, or upstream's registration
    (``made``, a call's, when the definition does not hold the key) runs only under a
    condition, the trees cannot tell: *look*. Returns ``(decision, reason)``, or ``None``
    when the removal stands."""
    location = entry.target
    # a replacement the scan could not name (``<lambda>``, ``<expr>``) has no ``:``
    ours = entry.replacement.rpartition(":")[2].rpartition(".")[2]
    if ":" not in entry.replacement:
        ours = ""
    theirs = key_value_names(new_code, entry.key or "")
    if theirs is None and made is not None:
        theirs = made.value_names()
    else:
        made = None  # the definition holds the key: the call is not what registers it
    if ours and theirs is not None and ours in theirs:
        if made is not None and made.condition:
            return (
                LOOK,
                f"the new upstream {location} registers the plugin's {ours} under the key "
                f"{entry.key} itself, but not always ({made.described()}): find out "
                "whether upstream's registration runs wherever the plugin's does before "
                "removing it",
            )
        return None
    if not ours or not theirs:
        return (
            LOOK,
            f"the new upstream {location} now has the key {entry.key}, but which value it "
            "registers there, or which one the plugin registers, cannot be read: find out "
            "whether upstream's value does what the plugin's does before removing it",
        )
    listed = ".".join(theirs) if len(theirs) < 4 else ", ".join(theirs[:3]) + ", ..."
    if made is not None:
        listed = made.value if len(made.value) <= 80 else made.value[:77] + "..."
    return (
        RETAIN,
        f"the new upstream {location} now registers {listed} under the key {entry.key}, "
        f"not the plugin's {ours}: the plugin's registration replaces upstream's value; "
        "keep it while the plugin's own value is wanted",
    )
