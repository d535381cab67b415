"""The record's open problems of upstream names the plugin still uses that the new release
no longer defines there: each finding of the saved ``runtime audit`` that a name is gone
(``breaks-at-import``, ``breaks-when-called``, ``guarded-gone``) whose file still names it.

``runtime port`` rewrites some of them (an import of a patch file whose name moved to one
module) and leaves the others to a person; the evidence is the audit's, taken before the
port, so each finding is checked against the plugin's file as it is now: a file that no
longer names the name (rewritten by the port or by hand) or that is gone holds no problem. A
file Python cannot parse keeps its problems: nothing shows they were fixed. Listed here, a
plugin that breaks at import keeps the record open after an upgrade's last step.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.errors import Finding
from patchkeeper.record.evidence_store import StoredEvidence
from patchkeeper.record.stored_results import runtime_audit_result


def standing_gone_names(config: Config, evidence: dict[str, StoredEvidence]) -> list[Finding]:
    """Each gone-name finding of the saved ``runtime audit`` whose file still names the name,
    as an open problem of the record: its code, the file (relative to the downstream) and
    line in the message, what to do and the command that lists them in the hint; in the
    audit's order. Empty without that evidence.

    Raises:
        EvidenceError: the saved audit cannot be read (:func:`runtime_audit_result`).
    """
    from patchkeeper.runtime.judge.crosscheck import GONE_NAME, gone_name

    result = runtime_audit_result(evidence)
    if result is None:
        return []
    root = Path(result.inventory.plugin_root)
    root = root if root.is_absolute() else config.root / root
    command = (
        f"patchkeeper runtime audit --from {shlex.quote(result.old)} "
        f"--to {shlex.quote(result.new)} --save-evidence"
    )
    hint = (
        f"use the name where the new upstream defines it, then run '{command}' (it lists "
        "them) and 'patchkeeper report'"
    )
    named: dict[str, set[str] | None] = {}
    out = []
    for finding in result.findings:
        if finding.code not in GONE_NAME or not finding.path:
            continue
        name = gone_name(finding)
        if finding.path not in named:
            named[finding.path] = _names_used(root, finding.path, result.inventory.package)
        used = named[finding.path]
        if used is not None and name not in used:
            continue
        path = root / finding.path
        try:
            shown = Path(os.path.relpath(path, config.root)).as_posix()
        except ValueError:  # another drive
            shown = str(path)
        if shown.startswith("../"):
            shown = str(path)
        where = f"{shown}:{finding.line}" if finding.line else shown
        out.append(Finding(finding.code, shown, finding.line, f"{where}: {finding.message}", hint))
    return out


def _names_used(root: Path, relative: str, package: str) -> set[str] | None:
    """The dotted upstream names the plugin file ``relative`` (under ``root``) uses, as the
    runtime audit reads them (:func:`~patchkeeper.runtime.syntax.references.tree_facts`);
    an empty set for a file that is gone, ``None`` for one that cannot be read or parsed."""
    from patchkeeper.runtime.syntax.parsing import parse_file
    from patchkeeper.runtime.syntax.references import tree_facts

    path = root / relative
    if not path.is_file():
        return set()
    try:
        tree = parse_file(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    module, is_package = _module_of(relative, package)
    references, _tests = tree_facts(tree, module, is_package)
    return {dotted for dotted, *_rest in references}


def _module_of(relative: str, package: str) -> tuple[str, bool]:
    """The module name of the plugin file ``relative`` (its parts from the plugin's top-level
    ``package`` on, a ``src/`` folder skipped) and whether it is a package.

    >>> _module_of("src/toolplug/sub/__init__.py", "toolplug")
    ('toolplug.sub', True)
    """
    parts = Path(relative).with_suffix("").parts
    top = package.split(".")[0]
    if top in parts:
        parts = parts[parts.index(top) :]
    is_package = bool(parts) and parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package
