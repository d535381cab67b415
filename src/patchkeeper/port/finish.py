"""The end of a port: the new series written, retirements recorded, what is left to do."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.constants import WordEnum
from patchkeeper.errors import ConfigError
from patchkeeper.port.context import PortContext
from patchkeeper.port.history import IN_NEW, IN_OLD
from patchkeeper.port.output import (
    config_change,
    config_text,
    pristine_setting,
    retire_reason,
    series_bytes,
    write_directory,
    write_in_place,
)
from patchkeeper.port.rebase import CARRIED, DROPPED, RETIRING, PortedPatch, Step
from patchkeeper.series.parse import parse_series
from patchkeeper.system.english import first_clause, plural
from patchkeeper.trees.transaction import Change


class PortOutcome(WordEnum):
    """Where ``port`` ended."""

    DONE = "done"  # every patch through, the new series written
    STOPPED = "stopped"  # a conflict waits in the work directory
    ABORTED = "aborted"  # ``port --abort`` dropped the work directory


DONE = PortOutcome.DONE
STOPPED = PortOutcome.STOPPED


def _why(record: PortedPatch, version: str) -> str:
    """The Retired table's reason: the verdict's first clause (:func:`first_clause`: a quoted
    changelog line or a parenthesis with a ``;`` in it is kept whole) and the carrying commit."""
    reason = first_clause(record.summary)
    found = [r for r in record.references if r.commit is not None and r.status == "in the new pin"]
    if found:
        reason += "; " + ", ".join(
            f"{r.text} is {r.commit.id[:12]}, first in {r.first_tag}"  # type: ignore[union-attr]
            for r in found
        )
    return f"{'dropped' if record.verdict == DROPPED else 'upstreamed'} in {version}: {reason}"


#: The to-do item that says the port rewrote the ledger's table (a fact, nothing to edit).
LEDGER_REWRITTEN = "the ledger table was rewritten from the refreshed headers"


def needs_review(record: PortedPatch) -> bool:
    """Whether a patch the port proposes to retire must be looked at before it is: its audit
    says *upstreamed* but its action is not the plain *retire* ("upstream has it"), either
    *look* (upstream has it at one place of two, ...) or a retire with a condition ("after
    reviewing the lines not found"). ``--retire`` retires only the others: a patch resolved
    by hand to no change, or one that upstream has whole."""
    from patchkeeper.audit.verdicts import UPSTREAMED, plainly_upstream

    audit = record.audit
    if record.verdict == DROPPED or audit is None or audit.verdict != UPSTREAMED:
        return False
    return not plainly_upstream(audit)


def _action_words(record: PortedPatch) -> str:
    """The audit's to-do of ``record`` as its summary ends: ``look (upstream has it at ...)``."""
    return record.summary.rsplit("; to do: ", 1)[-1]


def finish(ctx: PortContext, steps: list[Step]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Write the new series; return ``(where, retired names, extra to-do items)``.

    With ``--retire``, the patches to retire whose evidence asks for a review
    (:func:`needs_review`) are not retired: their series lines are commented out as
    proposed, as without ``--retire``, and the to-do names them."""
    records = [step.record for step in steps]
    retiring = {r.name for r in records if r.verdict in RETIRING}
    automatic = (
        {r.name for r in records if r.name in retiring and not needs_review(r)}
        if ctx.state.retire
        else set()
    )
    dropped = {r.name for r in records if r.verdict == DROPPED}
    files = {step.record.name: step.data for step in steps if step.data is not None}
    original = ctx.series.path.read_bytes()
    todo: list[str] = []
    if not ctx.state.in_place:
        out = Path(ctx.state.output or "")
        kept = {p.name: p.raw for p in ctx.patches if p.name in retiring}
        data = series_bytes(original, ctx.series, retiring, ctx.new_version, dropped)
        pristine = ctx.state.new if os.path.isdir(ctx.state.new) else None
        text = config_text(ctx.config, ctx.new_version, ctx.old_version, pristine, out)
        write_directory(out, {**kept, **files}, data, text)
        spec, spec_todo = moved_spec(ctx)
        if spec is not None and spec.data is not None:
            # the directory holds the series alone: the spec's edit is said, not written
            before = spec.path.read_bytes().decode("utf-8", "surrogateescape").splitlines()
            after = spec.data.decode("utf-8", "surrogateescape").splitlines()
            edits = "; ".join(new.strip() for old, new in zip(before, after) if old != new)
            spec_todo = (
                f"in {spec.path}, write {edits} with the series ({_in_place(ctx)} does it)",
                *spec_todo,
            )
        return str(out), (), spec_todo
    series_path = Path(ctx.state.series)
    if series_path.read_bytes() != original:
        raise ConfigError(
            "the series file changed while the port was in progress",
            path=series_path,
            hint="restore it (the port's copy is in the work directory) or port --abort",
        )
    series = parse_series(series_path)
    comment = retiring - automatic
    data = series_bytes(original, series, comment, ctx.new_version, dropped)
    settings = {"pin": (ctx.config.pin, ctx.new_version)}
    if ctx.config.pristine:
        settings["pristine"] = (ctx.config.pristine, _pristine_setting(ctx))
    change = config_change(ctx.config, settings)
    if change is None and any(old is not None and old != new for old, new in settings.values()):
        wanted = ", ".join(f'{key} = "{new}"' for key, (_, new) in settings.items())
        todo.append(f"set {wanted} in the configuration")
    spec, spec_todo = moved_spec(ctx)
    todo += spec_todo
    # the ledger is rewritten after the series: a marker broken while the port waited at a
    # conflict would stop it there, the series and the pin written and the ledger not
    from patchkeeper.ledger.table import check_ledger_markers

    check_ledger_markers(ctx.config)
    ctx.work.root.mkdir(parents=True, exist_ok=True)
    extra = [change] if change else []
    if spec is not None:
        extra.append(spec)
    write_in_place(series, files, data, extra, ctx.work.journal, ctx.config.root)
    retired: list[str] = []
    if ctx.state.retire:
        from patchkeeper.ledger.table import retire_patch

        for record in records:
            if record.name in automatic:
                why = _why(record, ctx.new_version)
                done = retire_patch(ctx.config, record.name, at=ctx.new_version, why=why)
                retired.append(record.name)
                if done.spec_tag:
                    todo.append(
                        f"{done.spec_tag} still names {record.name} (its Patch tag): take "
                        "the tag out (and its %patch line, if any), or rpmbuild stops at the "
                        "missing file"
                    )
    if _refresh_ledger(ctx.config):
        todo.append(LEDGER_REWRITTEN)
    return str(series_path.parent), tuple(retired), tuple(todo)


def _in_place(ctx: PortContext, retire: bool = False) -> str:
    """The command line that ports the series in place (``--retire``: retiring the upstreamed
    patches too), quoted: said as a whole command line, the MCP server names the tool and
    arguments that run it (:mod:`patchkeeper.agents.hints`) whatever tool was called; the
    bare words "port with --in-place" kept options ``write_port_continue`` does not take.

    >>> from types import SimpleNamespace as NS
    >>> _in_place(NS(state=NS(new="../minihttp-1.1")), retire=True)
    "'patchkeeper port --to ../minihttp-1.1 --in-place --retire'"
    """
    to = shlex.quote(str(ctx.state.new))
    return f"'patchkeeper port --to {to} --in-place{' --retire' if retire else ''}'"


def moved_spec(ctx: PortContext) -> tuple[Change | None, tuple[str, ...]]:
    """The RPM spec the series was read from (an RPM spec series: the one spec beside the
    series file whose ``Patch`` tags name its patches,
    :func:`patchkeeper.start.rpm_spec.series_spec`) moved to the new pin as the pin is:
    its ``Version:`` set to the new release and its ``Release:`` started again at 1
    (:func:`patchkeeper.start.rpm_spec.move_version`), as a change written with the series;
    and what is left to do by hand. ``(None, ())`` for the other series forms."""
    from patchkeeper.start.rpm_spec import move_version, series_spec

    old = ctx.config.pin or ctx.old_version
    found = series_spec(Path(ctx.state.series).parent, tuple(p.name for p in ctx.patches))
    if found is None or old is None:
        return None, ()
    path, text = found
    moved, todo = move_version(text, path, old, ctx.new_version)
    if moved == text:
        return None, todo
    return Change(path, moved.encode("utf-8", "surrogateescape")), todo


def _pristine_setting(ctx: PortContext) -> str:
    """The new pin as a ``pristine`` value: a directory relative to the downstream, or the
    requirement."""
    if os.path.isdir(ctx.state.new):
        return pristine_setting(ctx.state.new, ctx.config.root)
    return ctx.state.new


def _refresh_ledger(config: Config) -> bool:
    """Rewrite the ledger table when the downstream keeps one (``Cut-against`` changed)."""
    from patchkeeper.ledger import table as ledger
    from patchkeeper.ledger.settings import ledger_settings

    if not Path(ledger_settings(config).file).is_file():
        return False
    return ledger.update_ledger(config).written  # port holds the downstream's lock


def _ledger_file(config: Config) -> str:
    """The downstream's ledger file as its configuration names it, ``""`` when it keeps none:
    the new series directory shares it, so its table follows the series once it is copied."""
    from patchkeeper.ledger.settings import ledger_settings

    path = Path(ledger_settings(config).file)
    if not path.is_file():
        return ""
    try:
        return path.relative_to(config.root).as_posix()
    except ValueError:
        return str(path)


def todo_items(
    ctx: PortContext, records: list[PortedPatch], outcome: str, where: str | None
) -> list[str]:
    todo = []
    stopped = next(
        (r for r in records if r.verdict not in CARRIED | RETIRING and not r.pending), None
    )
    if outcome == STOPPED and stopped is not None:
        todo.append(
            f"resolve {stopped.name} in {ctx.work.conflict / 'files'} "
            f"(see {ctx.work.conflict / 'INSTRUCTIONS.md'}), then run 'patchkeeper port "
            "--continue' (or 'patchkeeper port --abort')"
        )
        pending = sum(1 for r in records if r.pending)
        if pending:
            follow = "follows" if pending == 1 else "follow"
            todo.append(
                f"{plural(pending, 'more patch')} {follow} it (their verdicts are a preview)"
            )
    for record in records:
        taken = [r for r in record.references if r.status in (IN_NEW, IN_OLD)]
        if taken and record.verdict not in RETIRING:
            ref = taken[0]
            where = "the new pin" if ref.status == IN_NEW else "the old pin already"
            todo.append(
                f"{record.name}: its {ref.field} reference {ref.text} is in {where} "
                f"({ref.commit.id[:12] if ref.commit else '?'}, first in {ref.first_tag}), yet "
                f"the patch is {record.verdict}, not upstreamed: upstream rewrote the change "
                "since; consider retiring it instead of carrying it"
            )
    for dropped in (False, True):  # each named for why it goes: upstream has it, or not
        retiring = [
            r.name
            for r in records
            if r.verdict in RETIRING and not r.pending and (r.verdict == DROPPED) == dropped
        ]
        if retiring and not ctx.state.retire:
            # a port made in place has moved the pin: no port again retires them, retire does
            again = "" if ctx.state.in_place else f", or {_in_place(ctx, retire=True)}"
            todo.append(
                "retire "
                + ", ".join(retiring)
                + f" ({retire_reason(ctx.new_version, dropped)}): 'patchkeeper retire NAME --at "
                f"{ctx.new_version} --why TEXT'{again}"
            )
    if ctx.state.retire:
        todo += [
            f"review {r.name} before retiring it: its audit says {_action_words(r)}, and its "
            f"series line is commented out; then 'patchkeeper retire {r.name} --at "
            f"{ctx.new_version} --why TEXT', or put the line back"
            for r in records
            if r.verdict in RETIRING and not r.pending and needs_review(r)
        ]
    if outcome == DONE and not ctx.state.in_place and where:
        ledger = _ledger_file(ctx.config)
        steps = (
            f'set pin = "{ctx.new_version}" in the configuration and run \'patchkeeper '
            f"ledger' to rewrite {ledger} ({_in_place(ctx)} does all three"
            if ledger
            else f'set pin = "{ctx.new_version}" in the configuration ({_in_place(ctx)} does both'
        )
        todo.append(
            f"review {where}; 'patchkeeper -C {where} apply --target COPY' applies it; then "
            f"copy its series and patch files over those in {Path(ctx.state.series).parent}, "
            f"{steps}; the directory holds only the series, so do not replace the downstream "
            "with it)"
        )
    if ctx.history is None:
        todo.append(
            "upstream history evidence is missing: pass --upstream-repo PATH (a checkout "
            "with both pins' tags) for the commits behind each conflict and reference"
        )
    return todo
