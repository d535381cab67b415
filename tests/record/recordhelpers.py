"""Helpers of the audit-record tests (import them as ``from recordhelpers import ...``)."""

from __future__ import annotations

import json
from pathlib import Path


def enable_evidence(config: Path) -> None:
    """Switch the evidence store on in a ``patchkeeper.toml`` or ``pyproject.toml``."""
    table = "[tool.patchkeeper.report]" if config.name == "pyproject.toml" else "[report]"
    config.write_text(config.read_text() + f"\n{table}\nevidence = true\n")


def write_decisions(root: Path, tables: dict[str, tuple[str, str]], kind: str = "series") -> Path:
    """Write ``patchkeeper-decisions.toml``: ``{key: (decision, removal condition)}``."""
    lines = []
    for key, (decision, condition) in tables.items():
        lines += [
            f"[{kind}.{json.dumps(key)}]",
            f"decision = {json.dumps(decision)}",
            'reason = "reviewed"',
            f"removal-condition = {json.dumps(condition)}",
            "",
        ]
    path = root / "patchkeeper-decisions.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def drop_from_series(root: Path, *names: str) -> None:
    """Remove patches from the example's series file (the patch files stay)."""
    series = root / "patches" / "series"
    kept = [line for line in series.read_text().splitlines() if line.strip() not in names]
    series.write_text("\n".join(kept) + "\n")


#: Decisions for the example that agree with its audit evidence, once
#: ``retry-backoff-cap.patch`` (upstreamed, decided retire) is out of the series.
AGREEING = {
    "retry-backoff-cap.patch": ("retire", ""),
    "redirect-strip-proxy-auth.patch": ("update", ""),
    "headers-merge-order.patch": ("update", ""),
    "client-describe-version.patch": ("carry", "stays"),
    "metrics-redirects.patch": ("carry", "upstreamed"),
    "metrics-same-host.patch": ("carry", "rides with metrics-redirects"),
    "redirect-strip-api-key.patch": ("update", ""),
}


def evidence_downstream(
    root: Path, path: str, releases: tuple[str, str], patch: str, name: str
) -> Path:
    """Releases ``pkg-1.0`` and ``pkg-1.1`` of ``pkg`` under ``root``, holding ``path`` as
    ``releases`` gives it (old, new), and ``root/downstream``, keeping evidence, whose series
    carries ``patch`` as ``name`` on 1.0 (``../pkg-1.0`` its pristine tree); returns it."""
    for version, text in zip(("1.0", "1.1"), releases):
        (root / f"pkg-{version}" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / f"pkg-{version}" / path).write_text(text)
    downstream = root / "downstream"
    (downstream / "patches").mkdir(parents=True)
    (downstream / "patches" / "series").write_text(f"{name}\n")
    (downstream / "patches" / name).write_text(patch)
    (downstream / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\nstrip = 1\n'
        'pristine = "../pkg-1.0"\n'
    )
    enable_evidence(downstream / "patchkeeper.toml")
    return downstream
