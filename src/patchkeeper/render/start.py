"""Terminal and Markdown forms of ``patchkeeper init``'s result."""

from __future__ import annotations

from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.start.forms import shown
from patchkeeper.start.init import InitResult
from patchkeeper.start.plugin import PluginInitResult

#: The form's name in a sentence.
FORM_NAMES = {
    "quilt": "a quilt series",
    "debian": "a Debian series",
    "format-patch": "a git format-patch directory",
    "git": "a git branch over an upstream tag",
    "rpm": "an RPM spec's patches",
}


@text_renderer(InitResult)
def init_text(result: InitResult) -> str:
    """What was found and why, what was written, then the next commands."""
    root = result.root
    count = f"{result.patch_count} patch" + ("" if result.patch_count == 1 else "es")
    lines = [
        f"found {FORM_NAMES.get(result.form, result.form)} ({count}): {result.form_reason}",
        f"upstream {result.upstream}, pin {result.pin}: {result.pin_reason}",
        f"header schema {result.schema}: {result.schema_reason}",
    ]
    lines += [f"wrote {shown(path, root)}" for path in result.written_files]
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines + _next(result.next_commands))


@markdown_renderer(InitResult)
def init_markdown(result: InitResult) -> str:
    written = ", ".join(f"`{shown(path, result.root)}`" for path in result.written_files)
    return (
        f"Started a downstream of `{result.upstream}=={result.pin}` from "
        f"{FORM_NAMES.get(result.form, result.form)}: wrote {written}.\n"
    )


@text_renderer(PluginInitResult)
def plugin_init_text(result: PluginInitResult) -> str:
    """What was found, the configuration written, then the next commands."""
    lines = [
        f"found a runtime plugin of {result.upstream} ({result.reason}): its patches are made "
        "at run time",
        f"upstream {result.upstream}, pin {result.pin}: {result.pin_reason}",
        f"package {result.package}: the runtime commands read it",
    ]
    lines += [f"wrote {shown(path, result.root)}" for path in result.written_files]
    return "\n".join(lines + _next(result.next_commands))


def _next(commands: tuple[str, ...]) -> list[str]:
    """The lines that end init's output: ``next:``, then each command indented."""
    return ["next:", *(f"  {command}" for command in commands)]


@markdown_renderer(PluginInitResult)
def plugin_init_markdown(result: PluginInitResult) -> str:
    return (
        f"Configured the runtime plugin `{result.package}` of "
        f"`{result.upstream}=={result.pin}` in `{shown(result.config_file, result.root)}`.\n"
    )
