"""``[tool.patchkeeper.report]``: where the audit record goes and what it measures.

A sample (every key optional)::

    [tool.patchkeeper.report]
    evidence = true                 # audit, port, verify and the runtime commands save their
                                    # results in .patchkeeper/evidence/ on every run (default:
                                    # off; --save-evidence saves one run)
    decisions-file = "patchkeeper-decisions.toml"
    audit-file = "AUDIT.md"
    html-file = "AUDIT.html"        # written by ``report --html``
    python = ".venv/bin/python"     # the audited interpreter (default: the one running
                                    # patchkeeper); ``report --python`` overrides it
    packages = ["vllm_ascend"]      # more import packages whose origins to measure
    import-timeout = 120            # seconds for each import probe
    output-tail = 30                # lines of output ``record`` keeps
    untested = ["no multi-node run"]  # scope you know is untested, listed in the record

Paths are relative to the downstream root. Evidence is not saved by default: a command that
reads writes nothing. ``evidence = true`` saves every evidence command's result,
``--save-evidence`` one run's; a failure to save is a warning, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchkeeper.config import Bounds, Config, register_section

SECTION = "report"

register_section(
    SECTION,
    {
        "evidence": (bool, None),
        "decisions-file": (str, "patchkeeper-decisions.toml"),
        "audit-file": (str, "AUDIT.md"),
        "html-file": (str, "AUDIT.html"),
        "python": (str, ""),
        "packages": (list, []),
        "import-timeout": ((int, float), 120, Bounds(0, exclusive=True, unit="seconds")),
        "output-tail": (int, 30, Bounds(0, unit="lines")),
        "untested": (list, []),
    },
)


@dataclass(frozen=True)
class ReportSettings:
    """The resolved section: absolute paths, the interpreter (``None``: patchkeeper's own)."""

    evidence: bool
    decisions_file: Path
    audit_file: Path
    html_file: Path
    python: Path | None
    packages: tuple[str, ...]
    import_timeout: float
    output_tail: int
    untested: tuple[str, ...]

    def record_files(self, root: Path) -> tuple[str, ...]:
        """The record's own files, relative to ``root`` (POSIX), with the evidence store:
        they never count as a change of the downstream's checkout."""
        from patchkeeper.record.evidence_store import EVIDENCE_DIR

        out = [EVIDENCE_DIR]
        for path in (self.decisions_file, self.audit_file, self.html_file):
            if path.is_relative_to(root):
                out.append(path.relative_to(root).as_posix())
        return tuple(out)


def report_settings(config: Config) -> ReportSettings:
    """Read ``[tool.patchkeeper.report]`` of ``config`` (defaults filled in by the schema)."""
    table = config.sections.get(SECTION) or {}
    root = config.root

    def path(key: str, default: str) -> Path:
        return (root / (table.get(key) or default)).resolve()

    python = table.get("python") or ""
    return ReportSettings(
        evidence=table.get("evidence") is True,
        decisions_file=path("decisions-file", "patchkeeper-decisions.toml"),
        audit_file=path("audit-file", "AUDIT.md"),
        html_file=path("html-file", "AUDIT.html"),
        python=(root / python) if python else None,
        packages=tuple(table.get("packages") or ()),
        import_timeout=float(table.get("import-timeout", 120)),
        output_tail=int(table.get("output-tail", 30)),
        untested=tuple(table.get("untested") or ()),
    )
