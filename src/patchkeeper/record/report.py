"""``report [--html] [--check]``: write the audit record, or check that it is still true.

``report`` measures the environment (:mod:`patchkeeper.record.environment`), saves it in the
evidence store (``environment.json``), and writes ``AUDIT.md`` (``audit-file`` in
``[tool.patchkeeper.report]``) from the evidence, the decisions file and that measurement;
``--html`` also writes one self-contained page (``html-file``). An unchanged environment keeps
its recorded time, so the same inputs give the same bytes.

``report --check`` writes nothing and exits 1 when the record is stale or false: every
finding of :mod:`patchkeeper.record.reconcile` (a patch or entry without a decision, a dropped one
still in the code, a kept one without a removal condition, a decision the evidence or the
headers contradict), an environment that differs from the recorded one, and an ``AUDIT.md``
(or, with ``--html``, an HTML page) that differs from what ``report`` would write now.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from patchkeeper.config import Config
from patchkeeper.errors import TargetError
from patchkeeper.record import evidence_store as store
from patchkeeper.record.build import (
    Record,
    build_record,
    environment_packages,
    environment_sources,
)
from patchkeeper.record.decisions import load as load_decisions
from patchkeeper.record.environment import differences, measure
from patchkeeper.record.patch_evidence import all_items
from patchkeeper.record.reconcile import ENVIRONMENT_CHANGED, RECORD_NOT_CURRENT, Finding
from patchkeeper.record.results import ReportResult
from patchkeeper.record.settings import ReportSettings, report_settings

#: What to do with an ``environment.json`` that cannot be read: ``report`` (without
#: ``--check``) measures again and rewrites it.
ENVIRONMENT_HINT = "run 'patchkeeper report' to measure the environment again and rewrite it"


def environment_path(config: Config) -> Path:
    """``.patchkeeper/evidence/environment.json``."""
    return store.evidence_dir(config) / store.file_name(store.ENVIRONMENT)


def measure_now(
    config: Config,
    settings: ReportSettings,
    evidence: dict[str, store.StoredEvidence],
    python: Path,
) -> dict[str, Any]:
    """Measure the environment for this record; its JSON form."""
    from patchkeeper.jsonable import to_jsonable

    sources = environment_sources(config, settings, evidence)
    packages = environment_packages(config, settings, evidence, python)
    environment = measure(python, config.root, sources, packages, settings.import_timeout)
    return dict(to_jsonable(environment))


def _interpreter(python: Path | None, settings: ReportSettings, recorded: Any) -> Path:
    """The audited interpreter, absolute but not resolved (a venv's ``python`` is a symlink
    whose target is another environment)."""
    import os

    chosen = python or settings.python
    if chosen is None and isinstance(recorded, dict) and recorded.get("python"):
        chosen = Path(recorded["python"])
    return Path(os.path.abspath(chosen or sys.executable))


def _counts(record: Record) -> dict[str, int]:
    counts = {"series": 0, "runtime": 0, "decided": 0, "suggested": 0}
    for row in record.rows:
        if row.item is not None:
            counts[row.kind] += 1
            counts["suggested" if row.suggested else "decided"] += bool(row.decided)
    return counts


def _inputs(config: Config, settings: ReportSettings) -> tuple[Any, ...]:
    evidence = store.load_all(config)
    recorded = store.load_recorded(config)
    items = all_items(config, evidence)
    decisions = load_decisions(settings.decisions_file)
    return evidence, recorded, items, decisions


def write_report(
    config: Config, *, python: Path | None = None, html: bool = False, check: bool = False
) -> ReportResult:
    """Write the record (or check it with ``check=True``).

    Raises:
        ConfigError: the decisions file is malformed.
        EvidenceError: the evidence store is unreadable.
        TargetError: the interpreter cannot be run (``report``; ``--check`` reports it).
        PatchFormatError: the series cannot be parsed.
    """
    if check:
        return _check(config, python, html)
    from patchkeeper.record.audit_md import record_html, record_markdown

    settings = report_settings(config)
    evidence, recorded, items, decisions = _inputs(config, settings)
    try:  # only to keep the time of an unchanged measurement: an unreadable one is rewritten
        previous = store.read_json(environment_path(config), ENVIRONMENT_HINT)
    except store.EvidenceError:
        previous = None
    interpreter = _interpreter(python, settings, None)
    environment = measure_now(config, settings, evidence, interpreter)
    if isinstance(previous, dict) and previous.get("environment") == environment:
        measured = str(previous.get("recorded", ""))
    else:
        measured = store.now_utc()
        store.write_json(
            environment_path(config),
            {
                "format": store.FORMAT,
                "python": str(interpreter),
                "recorded": measured,
                "environment": environment,
            },
        )
    record = build_record(
        config, settings, evidence, recorded, items, decisions, environment, measured
    )
    written = [settings.audit_file]
    store.write_text(settings.audit_file, record_markdown(record))
    if html:
        store.write_text(settings.html_file, record_html(record))
        written.append(settings.html_file)
    return ReportResult(
        check=False,
        audit_file=str(settings.audit_file),
        html_file=str(settings.html_file) if html else None,
        written=tuple(str(p) for p in written),
        counts=_counts(record),
        findings=record.findings,
    )


def _check(config: Config, python: Path | None, html: bool) -> ReportResult:
    from patchkeeper.record.audit_md import record_html, record_markdown

    settings = report_settings(config)
    evidence, recorded, items, decisions = _inputs(config, settings)
    stored = store.read_json(environment_path(config), ENVIRONMENT_HINT)
    findings: list[Finding] = []
    if not isinstance(stored, dict) or "environment" not in stored:
        findings.append(
            Finding(RECORD_NOT_CURRENT, "", "no recorded environment: run patchkeeper report")
        )
        stored = {"environment": {}, "recorded": ""}
    record = build_record(
        config,
        settings,
        evidence,
        recorded,
        items,
        decisions,
        stored["environment"],
        str(stored.get("recorded", "")),
    )
    findings.extend(record.findings)
    if stored["environment"]:
        interpreter = _interpreter(python, settings, stored)
        try:
            current = measure_now(config, settings, evidence, interpreter)
            changes = differences(stored["environment"], current)
        except TargetError as exc:
            changes = [f"the interpreter cannot be measured: {exc.message}"]
        for change in changes:
            findings.append(Finding(ENVIRONMENT_CHANGED, "", f"environment changed: {change}"))
    expected = [(settings.audit_file, record_markdown(record))]
    if html:
        expected.append((settings.html_file, record_html(record)))
    for path, text in expected:
        try:
            actual = path.read_bytes().decode("utf-8", "surrogateescape")  # as written
        except OSError:
            actual = None
        if actual != text:
            state = "is missing" if actual is None else "differs from what report writes now"
            findings.append(
                Finding(
                    RECORD_NOT_CURRENT,
                    "",
                    f"{path.name} {state}: run patchkeeper report"
                    + (" --html" if path == settings.html_file else ""),
                )
            )
    return ReportResult(
        check=True,
        audit_file=str(settings.audit_file),
        html_file=str(settings.html_file) if html else None,
        written=(),
        counts=_counts(record),
        findings=tuple(findings),
    )
