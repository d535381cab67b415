"""The audit record as a document: ``AUDIT.md`` and its HTML page.

The record's sections follow step 7 of the runtime audit workflow (docs/glossary.md): the
environment correspondence table, every decision with its evidence and removal condition, the
validation commands and their results, and the untested scope. Both forms come from the same blocks
(:mod:`patchkeeper.record.markup`).
"""

from __future__ import annotations

import re
from typing import Any

from patchkeeper.record.build import Record
from patchkeeper.record.environment import Environment
from patchkeeper.record.markup import (
    Block,
    Bullets,
    Heading,
    Paragraph,
    Preformatted,
    Table,
    to_html,
    to_markdown,
)
from patchkeeper.record.reconcile import Row
from patchkeeper.record.sources import CHECKOUT, Source

NONE = "-"


def _code(text: Any) -> str:
    return f"`{text}`" if text not in (None, "") else NONE


def title(record: Record) -> str:
    """``Audit record: urllib3 1.26.12`` (or the downstream directory's name)."""
    what = " ".join(x for x in (record.upstream, record.pin) if x)
    return f"Audit record: {what}" if what else f"Audit record: {record.downstream}"


# --------------------------------------------------------------------------- environment


def _interpreter_table(env: Environment) -> Table:
    it = env.interpreter
    venv = (
        f"yes: {_code(it.prefix)} (base {_code(it.base_prefix)})"
        if it.virtual_env
        else f"no: {_code(it.prefix)}"
    )
    rows = (
        ("interpreter", f"{_code(it.executable)} ({it.implementation} {it.version})"),
        ("virtual environment", venv),
        ("platform", it.platform),
        ("PYTHONPATH", _code(it.pythonpath) if it.pythonpath else "(not set)"),
        ("accelerator devices", ", ".join(it.accelerators) or "none found"),
        ("probes ran in", _code(env.cwd)),
    )
    return Table(("what", "measured"), rows)


def _source_state(source: Source) -> str:
    identity = re.sub(r"\b([0-9a-f]{12,})\b", r"`\1`", source.identity or NONE)
    if source.kind == CHECKOUT:
        state = "dirty" if source.dirty else "clean"
        return f"{identity}, {state}" + (f" ({source.detail})" if source.detail else "")
    return identity


def _sources_table(env: Environment) -> Table:
    rows = []
    for s in env.sources:
        detail = s.detail if s.kind != CHECKOUT else ""
        read_from = f"{s.kind} {_code(detail)}" if detail else s.kind
        rows.append(
            (
                s.role,
                s.name,
                s.version or NONE,
                read_from,
                _code(s.location),
                _source_state(s),
            )
        )
    return Table(("role", "project", "version", "read from", "location", "identity"), tuple(rows))


def _origins_tables(env: Environment) -> list[Block]:
    rows, extension_rows = [], []
    for o in env.origins:
        inside = {True: "yes", False: "NO: outside its distribution", None: NONE}[o.inside]
        origin = _code(o.file) if o.file else f"not imported: {o.error}"
        rows.append(
            (
                _code(o.package),
                origin,
                _code(o.spec_origin),
                tuple(_code(p) for p in o.path) or NONE,
                ", ".join(o.distributions) or "none installed",
                inside,
                str(len(o.extensions)),
            )
        )
        for ext in o.extensions:
            extension_rows.append((_code(o.package), _code(ext.module), _code(ext.file)))
    headers = (
        "package",
        "`__file__` after import",
        "found by `find_spec`",
        "`__path__`",
        "distribution",
        "file inside it",
        "extension modules",
    )
    blocks: list[Block] = [Table(headers, tuple(rows))]
    if extension_rows:
        blocks.append(Paragraph("Extension modules each import loaded:"))
        blocks.append(Table(("package", "module", "file"), tuple(extension_rows)))
    return blocks


def _listing(label: str, paths: list[str], limit: int = 25) -> str:
    shown = ", ".join(_code(p) for p in paths[:limit])
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return f"{label} ({len(paths)}): {shown}{more}"


def _comparison_blocks(env: Environment) -> list[Block]:
    if not env.comparisons:
        return [Paragraph("No source tree was compared with an installed distribution.")]
    rows = []
    details = []
    for c in env.comparisons:
        rows.append(
            (
                _code(c.source),
                c.installed,
                ", ".join(_code(p) for p in c.packages),
                str(c.equal),
                str(len(c.different)),
                str(len(c.only_source)),
                str(len(c.only_installed)),
                str(len(c.changed_since_install)),
            )
        )
        for label, paths in (
            ("different", c.different),
            ("only in the source tree", c.only_source),
            ("only installed", c.only_installed),
            ("changed since install (RECORD hash differs)", c.changed_since_install),
        ):
            if paths:
                details.append(_listing(f"{c.installed}: {label}", list(paths)))
    headers = (
        "source tree",
        "installed",
        "packages",
        "equal",
        "different",
        "only in source",
        "only installed",
        "changed since install",
    )
    blocks: list[Block] = [Table(headers, tuple(rows))]
    if details:
        blocks.append(Bullets(tuple(details)))
    return blocks


def environment_blocks(env: Environment | None) -> list[Block]:
    """The environment correspondence section (``None``: not measured)."""
    if env is None:
        return [Heading(2, "Environment correspondence"), Paragraph("Not measured.")]
    blocks: list[Block] = [
        Heading(2, "Environment correspondence", "environment"),
        Heading(3, "Interpreter"),
        _interpreter_table(env),
        Heading(3, "Sources"),
        _sources_table(env),
        Heading(3, "Effective import origins"),
        Paragraph(
            "Each package imported in a fresh `python -c` process of the interpreter above, "
            "started in the downstream directory, with the network closed."
        ),
        *_origins_tables(env),
        Heading(3, "Content comparison"),
        *_comparison_blocks(env),
    ]
    if env.notes:
        blocks += [Heading(3, "Not measured"), Bullets(env.notes)]
    return blocks


def live_blocks(record: Record) -> list[Block]:
    """The origins seen by ``runtime check`` beside the measured ones."""
    if not record.live:
        return []
    rows = tuple(
        (_code(package), _code(live), _code(measured), "yes" if live == measured else "NO")
        for package, live, measured in record.live
    )
    return [
        Heading(3, "Origins in the runtime check process"),
        Table(("package", "runtime check", "measured above", "same"), rows, flag_column=None),
    ]


# --------------------------------------------------------------------------- decisions


def _decision_cells(row: Row) -> tuple[str, tuple[str, ...], str]:
    d = row.decision
    if d is None or not d.decision:
        return "(none)", (), ""
    words = tuple(x for x in (d.reason, f"notes: {d.notes}" if d.notes else "") if x)
    return d.written, words, d.removal_condition


def _flags(row: Row) -> tuple[str, ...]:
    """Every finding on the row (a contradiction, a missing decision or condition)."""
    from patchkeeper.record.reconcile import row_findings

    return tuple(found.in_row for found in row_findings(row))


def _rows_table(rows: list[Row], runtime: bool) -> Table:
    out = []
    for number, row in enumerate(rows, 1):
        item = row.item
        decision, words, condition = _decision_cells(row)
        header = ""
        if item is not None and item.condition and item.condition != condition:
            header = f"{item.condition_field}: {item.condition}"
        evidence = item.evidence if item is not None and item.evidence else ("no evidence",)
        name = _code(row.key.split("::", 1)[-1] if runtime else row.key)
        where = _code(item.where) if item is not None else "not in the code"
        cells: tuple[Any, ...] = (
            str(number),
            (name, where) if runtime else name,
            decision,
            evidence,
            tuple(x for x in (condition, f"header: {header}" if header else "") if x) or NONE,
            words or NONE,
            _flags(row),
        )
        out.append(cells)
    first = "entry" if runtime else "patch"
    headers = ("#", first, "decision", "evidence", "removal condition", "reason", "flag")
    widths = ("3%", "21%", "7%", "29%", "16%", "12%", "12%")
    return Table(headers, tuple(out), flag_column=6, widths=widths)


def decision_blocks(record: Record) -> list[Block]:
    """The inventory and decisions section."""
    series = [r for r in record.rows if r.kind == "series" and r.item is not None]
    runtime = [r for r in record.rows if r.kind == "runtime" and r.item is not None]
    unknown = [r for r in record.rows if r.item is None]
    blocks: list[Block] = [
        Heading(2, "Inventory and decisions", "decisions"),
        Paragraph(
            f"Decisions from `{record.decisions_file}`; evidence from `{record.evidence_dir}/`. "
            "A flag marks a decision the evidence or the patch header contradicts."
        ),
    ]
    if series:
        blocks += [Heading(3, f"Series patches ({len(series)})"), _rows_table(series, False)]
    if runtime:
        blocks += [Heading(3, f"Runtime entries ({len(runtime)})"), _rows_table(runtime, True)]
    if record.stale:
        blocks += [Heading(3, "Stale bindings (runtime audit)"), Bullets(record.stale)]
    if not series and not runtime:
        blocks.append(Paragraph("No series patch and no runtime entry is known."))
    if unknown:
        items = tuple(
            f"{r.kind} {_code(r.key)}: {r.decided or '(none)'}"
            + (f": {r.decision.reason}" if r.decision is not None and r.decision.reason else "")
            for r in unknown
        )
        blocks += [
            Heading(3, "Decisions about patches or entries no longer present"),
            Bullets(items),
        ]
    return blocks


# --------------------------------------------------------------------------- validation


def validation_blocks(record: Record) -> list[Block]:
    """The validation section: commands, results, output tails, untested scope."""
    blocks: list[Block] = [Heading(2, "Validation", "validation")]
    if record.validation:
        rows = tuple(
            (
                _code(v.command),
                v.by,
                str(v.exit_code),
                v.result,
                f"{v.duration:.1f} s" if v.duration is not None else NONE,
            )
            for v in record.validation
        )
        blocks.append(Table(("command", "by", "exit", "result", "duration"), rows))
    else:
        blocks.append(Paragraph("No command was run."))
    for v in record.validation:
        if v.tail:
            blocks.append(Paragraph(f"Last lines of {_code(v.command)}:"))
            blocks.append(Preformatted("\n".join(v.tail)))
    blocks += [Heading(3, "Not tested"), Bullets(record.untested or ("nothing listed",))]
    return blocks


def record_blocks(record: Record) -> list[Block]:
    """The whole record."""
    problems = tuple(f"{f.code}: {f.sentence()}" for f in record.findings)
    return [
        Heading(1, title(record)),
        Paragraph(record.time_line),
        Paragraph(
            f"Downstream `{record.downstream}`. Written by `patchkeeper report` from the "
            "evidence store and the decisions file; `patchkeeper report --check` fails when "
            "this record is stale or false."
        ),
        Heading(2, "Open problems", "problems"),
        Bullets(problems) if problems else Paragraph("None."),
        *environment_blocks(record.environment),
        *live_blocks(record),
        *decision_blocks(record),
        *validation_blocks(record),
    ]


def record_markdown(record: Record) -> str:
    """``AUDIT.md``."""
    return to_markdown(record_blocks(record))


def record_html(record: Record) -> str:
    """The self-contained HTML page with the same content."""
    return to_html(record_blocks(record), title(record))
