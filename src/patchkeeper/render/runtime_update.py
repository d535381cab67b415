"""Terminal forms of ``runtime lock`` and ``runtime port`` results."""

from __future__ import annotations

from patchkeeper.render import text_renderer
from patchkeeper.runtime.lock import LockResult


@text_renderer(LockResult)
def lock_text(result: LockResult) -> str:
    lines = [
        f"locked {result.targets} targets in {result.files} upstream files at {result.at}: "
        f"{result.path}"
    ]
    if result.skipped:
        lines.append(f"not locked ({len(result.skipped)}):")
        lines += [f"  {target}: {why}" for target, why in result.skipped]
    return "\n".join(lines)
