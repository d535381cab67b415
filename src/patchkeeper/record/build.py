"""The audit record's content: everything ``AUDIT.md`` says, as plain data.

The runtime audit workflow, step 7 (docs/glossary.md): the record holds "the environment
correspondence table", "each retain/update/migrate/remove decision, concrete upstream evidence, and
removal condition", and "reproducible validation commands, results, and untested scope".
:func:`build_record` gathers them from the evidence store, the decisions file and a measured
environment; the document in :mod:`patchkeeper.record.audit_md` turns a :class:`Record` into
Markdown and HTML. Same inputs, same record: nothing here reads the clock.
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.config import Config, spelt_for
from patchkeeper.constants import OPTION_FROM, OPTION_PRISTINE, OPTION_TARGET, OPTION_TO
from patchkeeper.errors import Finding
from patchkeeper.record.decisions import Decisions
from patchkeeper.record.evidence_store import RecordedCommand, StoredEvidence
from patchkeeper.record.patch_evidence import Item
from patchkeeper.record.reconcile import Pin, Row, build_rows, record_findings
from patchkeeper.record.settings import ReportSettings
from patchkeeper.record.sources import (
    Source,
    directory_source,
    release_file_source,
    requirement_source,
)
from patchkeeper.record.stored_results import (
    audit_result,
    port_result,
    runtime_audit_result,
    runtime_check_result,
    runtime_inventory,
    runtime_inventory_result,
    verify_result,
)
from patchkeeper.runtime.settings import default_upstream_package

if TYPE_CHECKING:
    from patchkeeper.record.environment import Environment
    from patchkeeper.runtime.judge.stale import StaleBinding

#: Accelerator device files the environment probe looks for (see ``envprobe``).
DEVICES = "/dev/nvidia*, /dev/kfd, /dev/davinci*"


@dataclass(frozen=True)
class Validation:
    """One command and its result.

    Attributes:
        command: the command line, shell-quoted.
        by: ``"patchkeeper"`` (evidence saved by a command) or ``"recorded"`` (``record``).
        exit_code: its exit code.
        result: one line about what it found.
        duration: seconds (recorded commands only).
        tail: the last lines of its output (recorded commands only).
    """

    command: str
    by: str
    exit_code: int
    result: str
    duration: float | None = None
    tail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Record:
    """The content of ``AUDIT.md``.

    Attributes:
        downstream: the downstream directory.
        upstream, pin: the configured upstream and pin.
        time_line: the one sentence that depends on when the evidence was taken.
        environment: the measured environment, ``None`` when none was measured.
        rows: one per series patch and runtime entry, then decisions about unknown keys.
        validation: patchkeeper's commands, then the recorded ones.
        untested: the scope left untested, one sentence each.
        findings: what makes the record stale or false (shown as open problems).
        stale: the ``runtime audit``'s stale bindings, one sentence each.
        live: per package, its file in the ``runtime check`` process and in the measured
            environment (``(package, live file, measured file)``).
        decisions_file, evidence_dir: where the inputs are (downstream-relative).
    """

    downstream: str
    upstream: str | None
    pin: str | None
    time_line: str
    environment: Environment | None
    rows: tuple[Row, ...]
    validation: tuple[Validation, ...]
    untested: tuple[str, ...]
    findings: tuple[Finding, ...]
    decisions_file: str
    evidence_dir: str
    stale: tuple[str, ...] = ()
    live: tuple[tuple[str, str, str], ...] = ()


# --------------------------------------------------------------------------- summaries


def _counts(values: list[str]) -> str:
    return ", ".join(f"{n} {v}" for v, n in Counter(values).items())


def _n(count: int, one: str, many: str) -> str:
    """``1 patch``, ``2 patches``: ``count`` with the noun's singular or plural."""
    return f"{count} {one if count == 1 else many}"


def _verdict_summary(evidence: dict[str, StoredEvidence], command: str) -> str:
    """``audit``'s or ``port``'s verdicts, counted: ``7 patches against `...`: 1 clean, ...``."""
    names: list[str] = []
    target = ""
    if command == "audit" and (audit := audit_result(evidence)) is not None:
        names, target = [str(v.verdict) for v in audit.verdicts], audit.target
    elif command == "port" and (port := port_result(evidence)) is not None:
        names, target = [str(p.verdict) for p in port.patches], port.target
    return f"{_n(len(names), 'patch', 'patches')} against `{target}`: {_counts(names) or 'none'}"


def _verify_summary(evidence: dict[str, StoredEvidence], command: str) -> str:
    result = verify_result(evidence)
    if result is None:
        return ""
    states = [str(p.state) for p in result.state.patches]
    drifted = [f.path for f in result.state.files if f.drifted]
    text = f"{_n(len(states), 'patch', 'patches')} on `{result.target}`: "
    text += f"{_counts(states) or 'none'}"
    text += f"; {_n(len(drifted), 'file', 'files')} drifted"
    text += f" ({', '.join(drifted)})" if drifted else ""
    if result.record_mismatch:
        text += f"; {result.record_mismatch}"
    return text


def _runtime_audit_summary(evidence: dict[str, StoredEvidence], command: str) -> str:
    result = runtime_audit_result(evidence)
    if result is None:
        return ""
    decisions = dict(sorted(Counter(str(a.drift.decision) for a in result.entries).items()))
    total = sum(decisions.values())
    stale = [s for s in result.stale if not s.patched_by]
    listed = ", ".join(f"{n} {d}" for d, n in decisions.items())
    return (
        f"{_n(total, 'entry', 'entries')} from `{result.old}` to `{result.new}`: "
        f"{listed or 'none'}; "
        f"{_n(len(stale), 'stale binding', 'stale bindings')} not patched"
    )


def _runtime_check_summary(evidence: dict[str, StoredEvidence], command: str) -> str:
    result = runtime_check_result(evidence)
    if result is None:
        return ""
    states = [str(e.status) for e in result.entries]
    failed = [a for a in result.activation if not a.loaded]
    return (
        f"{_n(len(states), 'entry', 'entries')} live-checked in python "
        f"{result.version}: "
        f"{_counts(states) or 'none'}; {_n(len(failed), 'entry point', 'entry points')} failed; "
        f"{_n(len(result.stale), 'stale binding', 'stale bindings')}"
    )


def _inventory_summary(evidence: dict[str, StoredEvidence], command: str) -> str:
    result = runtime_inventory_result(evidence)
    if result is None:
        return ""
    return (
        f"{_n(len(result.entries), 'entry', 'entries')} in "
        f"{_n(len(result.files), 'file', 'files')}; "
        f"{_n(len(result.findings), 'finding', 'findings')}"
    )


#: Per evidence command, its result in one line: ``(evidence, command) -> text``.
SUMMARIES: dict[str, Callable[[dict[str, StoredEvidence], str], str]] = {
    "audit": _verdict_summary,
    "port": _verdict_summary,
    "verify": _verify_summary,
    "runtime audit": _runtime_audit_summary,
    "runtime check": _runtime_check_summary,
    "runtime inventory": _inventory_summary,
}


def validation_lines(
    evidence: dict[str, StoredEvidence], recorded: list[RecordedCommand]
) -> list[Validation]:
    """patchkeeper's evidence commands (in :data:`EVIDENCE_COMMANDS` order), then the
    recorded ones (in the order first recorded)."""
    out = []
    for name, stored in evidence.items():
        out.append(
            Validation(
                command="patchkeeper " + shlex.join(stored.argv),
                by="patchkeeper",
                exit_code=stored.exit_code,
                result=SUMMARIES[name](evidence, name) if name in SUMMARIES else "",
            )
        )
    for command in recorded:
        out.append(
            Validation(
                command=shlex.join(command.argv),
                by="recorded",
                exit_code=command.exit_code,
                result="passed" if command.exit_code == 0 else f"failed (exit {command.exit_code})",
                duration=command.duration,
                tail=command.tail,
            )
        )
    return out


# --------------------------------------------------------------------------- untested scope


def untested_scope(
    settings: ReportSettings,
    items: list[Item],
    evidence: dict[str, StoredEvidence],
    recorded: list[RecordedCommand],
    environment: Environment | None,
    source: Path | None = None,
) -> list[str]:
    """What the record does not cover, listed explicitly, one sentence each; a
    configuration table named as ``source``, the configuration file in use, spells it
    (:func:`patchkeeper.config.spelt_for`: ``[report]`` in a ``patchkeeper.toml``)."""
    out = []
    if not evidence:
        out.append(
            spelt_for(
                "no evidence saved: patchkeeper's own commands were not recorded (run audit, "
                "verify, port and the runtime commands with --save-evidence, or set "
                "`evidence = true` in [tool.patchkeeper.report])",
                source,
            )
        )
    has_series = any(i.kind == "series" for i in items)
    has_runtime = any(i.kind == "runtime" for i in items)
    if has_series and not ({"audit", "port"} & set(evidence)):
        out.append("audit and port not run: the series was not judged against a new upstream")
    if has_series and "verify" not in evidence:
        out.append("verify not run: no evidence that the series is applied to the upstream")
    if has_runtime and "runtime audit" not in evidence:
        out.append("runtime audit not run: no runtime entry was compared across versions")
    if has_runtime and "runtime check" not in evidence:
        out.append("runtime check not run: no live evidence that the runtime patches take effect")
    if environment is None or not environment.interpreter.accelerators:
        out.append(
            f"no GPU run: the audited environment has no accelerator device (looked for {DEVICES})"
        )
    python = environment.interpreter.executable if environment is not None else ""
    for origin in environment.origins if environment is not None else ():
        if not origin.distributions:
            out.append(
                f"{origin.package} is not installed in `{python}`: "
                "nothing was imported or run against an installed copy"
            )
    if not recorded:
        out.append("no validation command recorded (patchkeeper record -- CMD...)")
    for command in recorded:
        if command.exit_code != 0:
            out.append(
                f"`{shlex.join(command.argv)}` failed (exit {command.exit_code}): "
                "what it tests is not validated"
            )
    out.extend(settings.untested)
    return out


def time_line(
    evidence: dict[str, StoredEvidence], recorded: list[RecordedCommand], measured: str
) -> str:
    """The record's one line that depends on the clock: when its evidence was taken."""
    stamps = {e.recorded for e in evidence.values()} | {c.recorded for c in recorded}
    times = sorted((stamps | {measured}) - {""})
    if not times:  # ``report --check`` before any evidence or ``report``
        return "No evidence taken: no command's result was saved and no environment measured."
    span = times[0] if len(times) == 1 else f"between {times[0]} and {times[-1]}"
    return (
        f"Evidence taken {span} (UTC); this is the only line of the record that depends on "
        "when the commands ran."
    )


# --------------------------------------------------------------------------- environment inputs


def _spec_source(role: str, spec: str, cwd: str, kinds: tuple[str, ...]) -> Source:
    """The tree a command's option named: a requirement as the fetch cache holds it, a
    release's sdist or wheel file as the tree the command unpacked it to (its name, version
    and sha256: the tree it read, not a directory that is missing), else a directory."""
    from patchkeeper.upstream.fetch import is_requirement

    path = Path(cwd) / Path(spec).expanduser()
    if not path.exists() and is_requirement(spec):
        return requirement_source(role, spec, kinds)
    if path.is_file():
        found = release_file_source(role, path)
        if found is not None:
            return found
    return directory_source(role, path)


def environment_sources(
    config: Config, settings: ReportSettings, evidence: dict[str, StoredEvidence]
) -> list[Source]:
    """Every tree the evidence was read from, and the downstream; a tree read twice is listed
    once with its roles joined (``"pin, port base"``; the downstream's identity leaves the
    record's own files out)."""
    kinds = (config.fetch, "wheel" if config.fetch == "sdist" else "sdist")
    found = [directory_source("downstream", config.root, settings.record_files(config.root))]
    if config.pristine and config.series.exists():
        found.append(_spec_source("pin", config.pristine, str(config.root), kinds))
    elif config.upstream and config.pin and config.series.exists():
        found.append(requirement_source("pin", config.pin_requirement(), kinds))
    options = {
        "audit": ((OPTION_TO, "audit target"),),
        "port": ((OPTION_FROM, "port base"), (OPTION_TO, "port target")),
        "verify": (
            (OPTION_TARGET, "verify target"),
            (OPTION_PRISTINE, "verify pristine"),
        ),
        "runtime audit": ((OPTION_FROM, "runtime old"), (OPTION_TO, "runtime new")),
    }
    for command, pairs in options.items():
        stored = evidence.get(command)
        if stored is None:
            continue
        for option, role in pairs:
            spec = stored.option(option)
            if spec:
                found.append(_spec_source(role, spec, stored.cwd, kinds))
        if command == "runtime audit":
            audited = runtime_audit_result(evidence)
            if audited is not None and audited.inventory.plugin_root:
                found.append(directory_source("plugin", Path(audited.inventory.plugin_root)))
    merged: dict[tuple[str, str], Source] = {}
    for source in found:
        key = (source.kind, source.location)
        if key in merged and source.role not in merged[key].role.split(", "):
            old = merged[key]
            merged[key] = replace(old, role=f"{old.role}, {source.role}")
        else:
            merged.setdefault(key, source)
    return list(merged.values())


def environment_packages(
    config: Config, settings: ReportSettings, evidence: dict[str, StoredEvidence], python: Path
) -> list[str]:
    """The import packages whose origins to measure: the upstream's, the runtime upstream
    packages and the plugin (when there is runtime evidence), and the configured ones."""
    from patchkeeper.errors import TargetError
    from patchkeeper.record.wheel_contents import installed_packages
    from patchkeeper.trees.installed import locate_distribution
    from patchkeeper.upstream.fetch import canonical_name

    names: list[str] = []
    if config.upstream:
        try:
            dist = locate_distribution(config.upstream, python)
            names += [n.removesuffix(".py") for n in installed_packages(dist)]
        except TargetError:
            names.append(canonical_name(config.upstream).replace("-", "_"))
    inventory = runtime_inventory(evidence)
    if inventory is not None:
        table = config.sections.get("runtime") or {}
        names += list(table.get("upstream-packages") or [default_upstream_package(config)])
        if inventory.package:
            names.append(inventory.package)
    names += settings.packages
    return list(dict.fromkeys(names))


# --------------------------------------------------------------------------- runtime extras


#: How many unpatched bindings of one target the record names (the evidence has them all).
STALE_SHOWN = 5


def stale_bindings(evidence: dict[str, StoredEvidence]) -> list[str]:
    """The runtime audit workflow's "``from ... import ...`` already bound the old object", from
    ``runtime audit``: one sentence per patched target, naming the bindings nothing patches."""
    result = runtime_audit_result(evidence)
    by_target: dict[str, list[StaleBinding]] = {}
    for binding in result.stale if result is not None else ():
        by_target.setdefault(binding.target, []).append(binding)
    out = []
    for target, bindings in by_target.items():
        open_ = [b for b in bindings if not b.patched_by]
        where = ", ".join(f"`{b.file}:{b.line}`" for b in open_[:STALE_SHOWN])
        more = f" and {len(open_) - STALE_SHOWN} more" if len(open_) > STALE_SHOWN else ""
        out.append(
            f"`{target}`: bound at import by {len(bindings)} upstream module(s), "
            f"{len(open_)} not patched" + (f" ({where}{more})" if open_ else "")
        )
    return out


def live_origins(
    evidence: dict[str, StoredEvidence], environment: Environment | None
) -> tuple[list[tuple[str, str, str]], list[Finding]]:
    """Per package, the file the ``runtime check`` process imported and the one measured
    for this record; a finding where they or the interpreters differ (the runtime audit workflow,
    step 6: "compare them with the preflight plan")."""
    from patchkeeper.record.reconcile import CHECKED_ELSEWHERE_HINT, ENVIRONMENT_CHANGED

    live = runtime_check_result(evidence)
    if live is None or environment is None:
        return [], []
    measured = {o.package: o.file or "" for o in environment.origins}
    rows, findings = [], []
    python = environment.interpreter.executable
    if live.python and os.path.normpath(live.python) != os.path.normpath(python):
        findings.append(
            Finding(
                ENVIRONMENT_CHANGED,
                "",
                None,
                f"runtime check ran in {live.python}, the record measures {python}",
                CHECKED_ELSEWHERE_HINT,
            )
        )
    for package, file in sorted(live.package_files.items()):
        rows.append((package, file or "", measured.get(package, "")))
        if package in measured and (file or "") != measured[package]:
            findings.append(
                Finding(
                    ENVIRONMENT_CHANGED,
                    "",
                    None,
                    f"{package} came from {file} in the runtime check process, "
                    f"from {measured[package] or 'nowhere'} in the measured environment",
                    CHECKED_ELSEWHERE_HINT,
                )
            )
    return rows, findings


# --------------------------------------------------------------------------- the record


def configured_pin(config: Config, judged: str | None) -> Pin:
    """The pin the configuration records, the file (and table) it is written in, and
    ``judged``, the release the evidence judged the series against."""
    source = config.source
    if source is None:
        return Pin(config.pin, judged=judged)
    where = source.name if source.parent == config.root else str(source)
    if source.name == "pyproject.toml":
        where = f"[tool.patchkeeper] in {where}"
    return Pin(config.pin, where, judged)


def build_record(
    config: Config,
    settings: ReportSettings,
    evidence: dict[str, StoredEvidence],
    recorded: list[RecordedCommand],
    items: list[Item],
    decisions: Decisions,
    environment: Environment | None,
    measured: str,
    gone: tuple[Finding, ...] = (),
) -> Record:
    """Assemble the record from its inputs (nothing here is measured or read from disk);
    ``gone``: the upstream names the plugin still uses that the new release no longer
    defines there (:func:`patchkeeper.record.gone_names.standing_gone_names`), open
    problems after the rows' findings."""
    judged = port_result(evidence) or audit_result(evidence)
    target_version = judged.target_version if judged is not None else None
    rows = build_rows(items, decisions, target_version)
    live, live_findings = live_origins(evidence, environment)
    root = config.root
    path = decisions.path
    decisions_file = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    pin = configured_pin(config, target_version)
    findings = record_findings(rows, set(evidence), path, decisions_file, pin)
    findings += gone
    findings += live_findings

    from patchkeeper.record.evidence_store import EVIDENCE_DIR

    return Record(
        downstream=str(config.root),
        upstream=config.upstream,
        pin=config.pin,
        time_line=time_line(evidence, recorded, measured),
        environment=environment,
        rows=tuple(rows),
        validation=tuple(validation_lines(evidence, recorded)),
        untested=tuple(
            untested_scope(settings, items, evidence, recorded, environment, config.source)
        ),
        findings=tuple(findings),
        decisions_file=decisions_file,
        evidence_dir=EVIDENCE_DIR,
        stale=tuple(stale_bindings(evidence)),
        live=tuple(live),
    )
