"""``report [--html] [--check]``: write the audit record, or check that it is still true.

``report`` measures the environment (:mod:`patchkeeper.record.environment`), saves it in the
evidence store (``environment.json``), and writes ``AUDIT.md`` (``audit-file`` in
``[tool.patchkeeper.report]``) from the evidence, the decisions file and that measurement;
``--html`` also writes one self-contained page (``html-file``). An unchanged environment keeps
its recorded time, so the same inputs give the same bytes.

``report --check`` writes nothing and exits 1 when the record is stale or false: every
finding of :mod:`patchkeeper.record.reconcile` (a patch or entry without a decision, a dropped one
still in the code, a kept one without a removal condition, a decision the evidence or the
headers contradict), an environment that differs from the recorded one (a tree the record
found not in the fetch cache and that was fetched since is not a difference), and an ``AUDIT.md``
(or, with ``--html``, an HTML page) that differs from what ``report`` would write now.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.config import Config
from patchkeeper.errors import Finding, TargetError
from patchkeeper.jsonable import to_jsonable
from patchkeeper.record import evidence_store as store
from patchkeeper.record.build import (
    Record,
    build_record,
    environment_packages,
    environment_sources,
)
from patchkeeper.record.decisions import DROPS, RUNTIME, SERIES
from patchkeeper.record.decisions import load as load_decisions
from patchkeeper.record.environment import Environment, differences, fetched_since, measure
from patchkeeper.record.gone_names import standing_gone_names
from patchkeeper.record.patch_evidence import all_items
from patchkeeper.record.reconcile import (
    ENVIRONMENT_CHANGED,
    ENVIRONMENT_CHANGED_HINT,
    RECORD_NOT_CURRENT,
    SOURCE_CHANGED_HINT,
)
from patchkeeper.record.results import RecordCounts, ReportResult
from patchkeeper.record.settings import ReportSettings, report_settings
from patchkeeper.system.regular import read_regular

#: What to do about a record that is not current (a ``record-not-current`` finding's hint).
REPORT_AGAIN = "run patchkeeper report"

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
) -> Environment:
    """Measure the environment for this record."""
    sources = environment_sources(config, settings, evidence)
    packages = environment_packages(config, settings, evidence, python)
    return measure(python, config.root, sources, packages, settings.import_timeout)


@dataclass(frozen=True)
class RecordedEnvironment:
    """``environment.json``: the interpreter measured, when, and the measurement (its JSON
    form ``data``, compared as it is with a new one, and read as an :class:`Environment`,
    ``None`` when it is empty)."""

    python: str
    recorded: str
    data: Any
    environment: Environment | None


def read_environment(config: Config, *, rewritten: bool = False) -> RecordedEnvironment | None:
    """The recorded environment, or ``None`` when none was recorded (``rewritten``: also
    when the file cannot be read, as ``report`` measures again and rewrites it).

    Raises:
        EvidenceError: the file cannot be read, is not JSON or holds no environment this
            patchkeeper reads (unless ``rewritten``).
    """
    from patchkeeper.jsonable import DecodeError, from_jsonable

    path = environment_path(config)
    try:
        stored = store.read_json(path, ENVIRONMENT_HINT)
        if not isinstance(stored, dict) or "environment" not in stored:
            return None
        data = stored["environment"]
        environment = from_jsonable(Environment, data) if data else None
    except store.EvidenceError:
        if rewritten:
            return None
        raise
    except (DecodeError, TypeError, ValueError) as exc:
        if rewritten:
            return None
        raise store.EvidenceError(
            f"not an environment this patchkeeper reads ({exc})", path=path, hint=ENVIRONMENT_HINT
        ) from None
    python = stored.get("python")
    return RecordedEnvironment(
        str(python) if python else "", str(stored.get("recorded", "")), data, environment
    )


def _interpreter(
    python: Path | None, settings: ReportSettings, recorded: RecordedEnvironment | None
) -> Path:
    """The audited interpreter, absolute but not resolved (a venv's ``python`` is a symlink
    whose target is another environment)."""
    import os

    chosen = python or settings.python
    if chosen is None and recorded is not None and recorded.python:
        chosen = Path(recorded.python)
    return Path(os.path.abspath(chosen or sys.executable))


def _counts(record: Record) -> RecordCounts:
    """Every row of the record counted once by kind (a table of a patch or entry no
    longer carried is ``retired`` or ``unknown``), and once by how it is decided, so
    that the summary adds up to the rows the record lists and the findings name."""
    rows = record.rows
    carried = [row for row in rows if row.item is not None]
    gone = [row for row in rows if row.item is None]
    return RecordCounts(
        series=sum(row.kind == SERIES for row in carried),
        runtime=sum(row.kind == RUNTIME for row in carried),
        retired=sum(row.decided in DROPS for row in gone),
        unknown=sum(row.decided not in DROPS for row in gone),
        decided=sum(bool(row.decided) and not row.suggested for row in rows),
        suggested=sum(bool(row.decided) and row.suggested for row in rows),
    )


def _inputs(config: Config, settings: ReportSettings) -> tuple[Any, ...]:
    evidence = store.load_all(config)
    recorded = store.load_recorded(config)
    items = all_items(config, evidence)
    decisions = load_decisions(settings.decisions_file)
    return evidence, recorded, items, decisions


@dataclass(frozen=True)
class ReportRequest:
    """What ``report`` is asked to do; each field is the option of the same parameter name,
    so the command builds it from click's parsed parameters.

    Attributes:
        python: the audited interpreter (``--python``); default ``None``,
            ``[tool.patchkeeper.report] python``, else the running one.
        html: also write the record as one self-contained HTML page (``--html``); default
            ``False``.
        check: write nothing and compare the record with the evidence (``--check``);
            default ``False``.
    """

    python: Path | None = None
    html: bool = False
    check: bool = False


def write_report(config: Config, request: ReportRequest = ReportRequest()) -> ReportResult:
    """Write the record (or check it with ``request.check``), as ``request`` says
    (:class:`ReportRequest`; default: write it, for the configured interpreter).

    Raises:
        ConfigError: the decisions file is malformed.
        EvidenceError: the evidence store is unreadable.
        TargetError: the interpreter cannot be run (``report``; ``--check`` reports it).
        PatchFormatError: the series cannot be parsed.
    """
    python, html, check = request.python, request.html, request.check
    if check:
        return _check(config, python, html)
    from patchkeeper.record.audit_md import record_html, record_markdown

    settings = report_settings(config)
    evidence, recorded, items, decisions = _inputs(config, settings)
    # only to keep the time of an unchanged measurement: an unreadable one is rewritten
    previous = read_environment(config, rewritten=True)
    interpreter = _interpreter(python, settings, None)
    environment = measure_now(config, settings, evidence, interpreter)
    data = dict(to_jsonable(environment))
    if previous is not None and previous.data == data:
        measured = previous.recorded
    else:
        measured = store.now_utc()
        store.write_json(
            environment_path(config),
            {
                "format": store.FORMAT,
                "python": str(interpreter),
                "recorded": measured,
                "environment": data,
            },
        )
    gone = tuple(standing_gone_names(config, evidence))
    record = build_record(
        config, settings, evidence, recorded, items, decisions, environment, measured, gone
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


def _change_hint(change: str, recorded: Environment | None) -> str:
    """What to do about one change of the environment (``"sources.1.dirty: false ->
    true"``): a tree the record read (not an installed distribution) changed in its files,
    which another interpreter would not undo (:data:`SOURCE_CHANGED_HINT`); anything else
    (the interpreter, the installed distributions, the import origins) may be measured in
    another interpreter than the audited one (:data:`ENVIRONMENT_CHANGED_HINT`)."""
    path = change.split(":", 1)[0].split(".")
    if recorded is not None and len(path) > 1 and path[0] == "sources" and path[1].isdigit():
        index = int(path[1])
        sources = recorded.sources
        if index < len(sources) and sources[index].kind not in ("installed", "absent"):
            return SOURCE_CHANGED_HINT
    return ENVIRONMENT_CHANGED_HINT


def _check(config: Config, python: Path | None, html: bool) -> ReportResult:
    from patchkeeper.record.audit_md import record_html, record_markdown
    from patchkeeper.system.probes import check_interpreter_given

    # without a recorded environment the interpreter is never run: a --python typed wrong
    # would pass unnoticed
    check_interpreter_given(python)
    settings = report_settings(config)
    evidence, recorded, items, decisions = _inputs(config, settings)
    stored = read_environment(config)
    findings: list[Finding] = []
    if stored is None:
        findings.append(
            Finding(RECORD_NOT_CURRENT, "", None, "no recorded environment", REPORT_AGAIN)
        )
    record = build_record(
        config,
        settings,
        evidence,
        recorded,
        items,
        decisions,
        stored.environment if stored is not None else None,
        stored.recorded if stored is not None else "",
        tuple(standing_gone_names(config, evidence)),
    )
    findings.extend(record.findings)
    if stored is not None and stored.data:
        interpreter = _interpreter(python, settings, stored)
        try:
            measured = measure_now(config, settings, evidence, interpreter)
            current = to_jsonable(fetched_since(stored.environment, measured))
            changes = differences(stored.data, current)
        except TargetError as exc:
            changes = [f"the interpreter cannot be measured: {exc.message}"]
        for change in changes:
            findings.append(
                Finding(
                    ENVIRONMENT_CHANGED,
                    "",
                    None,
                    f"environment changed: {change}",
                    _change_hint(change, stored.environment),
                )
            )
    expected = [(settings.audit_file, record_markdown(record))]
    if html:
        expected.append((settings.html_file, record_html(record)))
    for path, text in expected:
        try:
            actual = read_regular(path).decode("utf-8", "surrogateescape")  # as written
        except OSError:
            actual = None
        if actual != text:
            state = "is missing" if actual is None else "differs from what report writes now"
            again = REPORT_AGAIN + (" --html" if path == settings.html_file else "")
            findings.append(Finding(RECORD_NOT_CURRENT, "", None, f"{path.name} {state}", again))
    return ReportResult(
        check=True,
        audit_file=str(settings.audit_file),
        html_file=str(settings.html_file) if html else None,
        written=(),
        counts=_counts(record),
        findings=tuple(findings),
        missing=not settings.audit_file.is_file(),
    )
