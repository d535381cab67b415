"""``audit --to TARGET``: the upgrade question, answered patch by patch with evidence
(:mod:`patchkeeper.audit.release`; a range: :mod:`patchkeeper.audit.range_audit`). The
command keeps the result in the evidence store.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.audit.release import AuditRequest, audit_release
from patchkeeper.audit.results import AuditResult
from patchkeeper.commands.cli import ARGV, DirectoryPath, config_of, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    RELEASE,
    json_option,
    pristine_option,
    pull_request_markdown_option,
    request_from,
    request_options,
    save_evidence_option,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_RELEASES
from patchkeeper.record import evidence_store


def run(
    config: Config,
    request: AuditRequest,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool | None = None,
) -> AuditResult:
    """Audit the configured series against the upstream ``request.to``
    (:func:`patchkeeper.audit.release.audit_release`); keep the result in the evidence
    store when ``save_evidence`` (``--save-evidence``) or ``evidence = true`` says so, never
    when ``save_evidence`` is false (``--no-save-evidence``), with ``argv`` (the command
    line; default: the one that asks for this audit).

    Raises: as :func:`patchkeeper.audit.release.audit_release`.
    """
    result = audit_release(config, request)  # the releases between too, as asked
    line = command_line(["audit"], request_options(command, request), argv)
    evidence_store.keep(config, "audit", result, line, save_evidence)
    return result


@click.command("audit")
@to_option(
    f"The new upstream: {RELEASE}; a range ('PROJECT>=A,<B') audits every release in "
    "it (the upgrade horizon).",
    required=True,
)
@click.option(
    OPTION_RELEASES,
    type=DirectoryPath(
        "pass the directory of releases that holds it (NAME-VERSION subdirectories, sdist "
        "and wheel files)"
    ),
    help="With a range: choose the releases among the NAME-VERSION subdirectories and the "
    "sdist and wheel files of this directory instead of the package indexes.",
)
@pristine_option(
    "The old pin's tree, to weigh the evidence against: a directory or a requirement "
    "(default: the configured pristine, else upstream==pin)."
)
@click.option(
    "--between",
    is_flag=True,
    help="With one release NAME==VERSION: also judge the releases between the pin and it "
    "(fetched into the cache; of more than 12, the last of each release series, at most 12) "
    "for the patches that fail there; one a release between has (it reverse-applies there) "
    "is upstreamed at that release, changed since.",
)
@pull_request_markdown_option
@save_evidence_option
@json_option
@click.pass_context
def command(
    ctx: click.Context,
    /,
    markdown: Path | None,
    save_evidence: bool | None,
    as_json: bool,
    **_: Any,
) -> None:
    """Apply the series to a new upstream release in memory and judge every patch."""
    from patchkeeper.audit.horizon import is_range

    request = request_from(ctx, AuditRequest)
    if request.releases is not None or is_range(request.to):
        from patchkeeper.audit.range_audit import audit_range

        if save_evidence:
            raise click.UsageError("--save-evidence keeps one release's audit; pass NAME==VERSION")
        emit(audit_range(config_of(ctx), request), as_json, markdown)
    config = config_of(ctx)
    result = run(config, request, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json, markdown)
