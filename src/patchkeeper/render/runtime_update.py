"""Terminal forms of ``runtime lock`` and ``runtime port`` results."""

from __future__ import annotations

from patchkeeper.render import payload_renderer, text_renderer
from patchkeeper.runtime.live.lock import LockResult
from patchkeeper.runtime.port.runtime_port import RuntimePort
from patchkeeper.system.english import plural


@text_renderer(LockResult)
def lock_text(result: LockResult) -> str:
    lines = [
        f"locked {plural(result.target_count, 'target')} in "
        f"{plural(result.file_count, 'upstream file')} at "
        f"{result.at}: {result.path}"
    ]
    if result.unguarded:
        lines.append(
            f"unguarded ({len(result.unguarded)}): the release removed or moved these targets; "
            "their patches replace nothing the guard can check (runtime audit says what to do "
            "with each):"
        )
        lines += [f"  {target}: {why}" for target, why in result.unguarded]
    if result.skipped:
        lines.append(f"not locked ({len(result.skipped)}):")
        lines += [f"  {target}: {why}" for target, why in result.skipped]
    return "\n".join(lines)


@payload_renderer(RuntimePort)
def port_diff(result: RuntimePort) -> str | None:
    """The diff, for standard output, unless it went to ``--output`` or ``--write`` was
    given (``None``); the report (:func:`port_text`) then goes to standard error, so ``>
    update.diff`` holds exactly the diff, empty when there is nothing to change."""
    return None if result.output or result.write_asked else result.diff


@text_renderer(RuntimePort)
def port_text(result: RuntimePort) -> str:
    """One line per entry that is not *nothing to do*, then the summary line."""
    lines = []
    counts: dict[str, int] = {}
    for entry in result.entries:
        counts[entry.action] = counts.get(entry.action, 0) + 1
        if entry.action != "nothing to do":
            where = f"{entry.file}:{entry.line}" if entry.line else entry.file  # 0: no line
            lines.append(f"{entry.action.upper():<13} {where} {entry.target}: {entry.detail}")
    if result.written:
        where = "written to the plugin"
    elif not result.diff and result.exit_code:
        # the plugin lacks what port left by hand: it does not have every change it needs
        where = "nothing to write; what is listed above is left by hand"
    elif not result.diff:
        where = "nothing to write (the plugin has every change this port makes)"
    else:
        where = "not written (--write applies it)"
    if result.output:
        where += f"; diff in {result.output}"
    summary = ", ".join(f"{action} {count}" for action, count in sorted(counts.items()))
    summary = summary or "no runtime patches"
    lines.append(f"runtime port {result.old_release} -> {result.new_release}: {summary}; {where}")
    return "\n".join(lines)
