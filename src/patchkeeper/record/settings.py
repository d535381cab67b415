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

import os
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.config import Bounds, Config, NotBlank, NotEmpty, register_section
from patchkeeper.constants import UPGRADE_WORK_DIR

SECTION = "report"

register_section(
    SECTION,
    {
        "evidence": (bool, None),
        "decisions-file": (
            str,
            "patchkeeper-decisions.toml",
            NotEmpty('the decisions file: decisions-file = "patchkeeper-decisions.toml"'),
        ),
        "audit-file": (str, "AUDIT.md", NotEmpty('the audit record: audit-file = "AUDIT.md"')),
        "html-file": (str, "AUDIT.html", NotEmpty('its HTML page: html-file = "AUDIT.html"')),
        "python": (
            str,
            "",
            NotBlank('the interpreter of the record\'s environment: python = ".venv/bin/python"'),
        ),
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
        """The record's own files, relative to ``root`` (POSIX), with the evidence store and
        the state directory of an upgrade outside a git checkout: they never count as a
        change of the downstream (the upgrade writes the record while its state is there,
        and deletes the state when it is done, as a git checkout keeps it in ``.git``)."""
        from patchkeeper.record.evidence_store import EVIDENCE_DIR

        out = [EVIDENCE_DIR, UPGRADE_WORK_DIR]
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
    files = {
        "decisions-file": path("decisions-file", "patchkeeper-decisions.toml"),
        "audit-file": path("audit-file", "AUDIT.md"),
        "html-file": path("html-file", "AUDIT.html"),
    }
    _refuse_shared_files(config, files)
    return ReportSettings(
        evidence=table.get("evidence") is True,
        decisions_file=files["decisions-file"],
        audit_file=files["audit-file"],
        html_file=files["html-file"],
        python=(root / python) if python else None,
        packages=tuple(table.get("packages") or ()),
        import_timeout=float(table.get("import-timeout", 120)),
        output_tail=int(table.get("output-tail", 30)),
        untested=tuple(table.get("untested") or ()),
    )


def _downstream_files(config: Config) -> dict[str, str]:
    """The downstream's own files a record file must not be: ``{real path: what}`` (the
    configuration, the series file, each patch it lists, the ledger file)."""
    from patchkeeper.errors import PatchkeeperError
    from patchkeeper.ledger.settings import ledger_settings
    from patchkeeper.series.parse import parse_series
    from patchkeeper.system.realpaths import RealPaths

    real = RealPaths()
    own = {real.real(str(config.series)): "the series file"}
    if config.source is not None:
        own[real.real(str(config.source))] = "the configuration file"
    own[real.real(str(ledger_settings(config).file))] = "the ledger file"
    try:
        names = [entry.name for entry in parse_series(config.series).entries]
    except (PatchkeeperError, OSError):
        names = []
    patches_dir = str(config.patches_dir)
    for name in names:
        own.setdefault(real.real(os.path.join(patches_dir, name)), f"the patch {name}")
    return own


def _refuse_shared_files(config: Config, files: dict[str, Path]) -> None:
    """Refuse ``[report]`` file settings that name one of the downstream's own files or
    the same file twice: ``report`` writes the audit and HTML files and ``decide`` the
    decisions file over whatever is there (``audit-file = "patches/series"`` replaced the
    series).

    Raises:
        ConfigError: naming the key, its line, the file and what it already is.
    """
    from patchkeeper.config import dotted_key_line
    from patchkeeper.errors import ConfigError

    own = _downstream_files(config)
    seen: dict[Path, str] = {}
    for key, file in files.items():
        what = own.get(str(file)) or (f"the {seen[file]}" if file in seen else None)
        seen.setdefault(file, key)
        if what is None:
            continue
        source = config.source or config.root
        raise ConfigError(
            f"key 'report.{key}' names {what} ({file}): the record would replace it",
            path=source,
            line=dotted_key_line(source, f"report.{key}"),
            hint=f"set '{key}' in [tool.patchkeeper.report] to a file of its own",
        )
