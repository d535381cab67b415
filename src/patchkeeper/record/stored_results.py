"""The evidence store's results read back as the typed results that made them.

The store keeps each command's result as JSON (:mod:`patchkeeper.record.evidence_store`);
the record reads it through the result types of the features that made it
(:class:`~patchkeeper.audit.results.AuditResult`, :class:`~patchkeeper.port.results.PortResult`,
:class:`~patchkeeper.trees.results.VerifyResult`, the runtime's
:class:`~patchkeeper.runtime.model.Inventory`,
:class:`~patchkeeper.runtime.judge.runtime_audit.RuntimeAudit` and
:class:`~patchkeeper.runtime.live.check.LiveCheck`), decoded once per file by
:func:`patchkeeper.jsonable.from_jsonable`. So the record and its renderers read attributes
and compare verdicts with the verdicts' own constants: a field renamed in a result is an
error of the type checker, not a silent ``None``.

A member an older patchkeeper wrote under another name is read under its new one
(:data:`RENAMED`); a member it did not write takes the field's default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from patchkeeper.record.evidence_store import EvidenceError, StoredEvidence

if TYPE_CHECKING:
    from patchkeeper.audit.results import AuditResult
    from patchkeeper.port.results import PortResult
    from patchkeeper.runtime.judge.runtime_audit import RuntimeAudit
    from patchkeeper.runtime.live.check import LiveCheck
    from patchkeeper.runtime.model import Inventory
    from patchkeeper.trees.results import VerifyResult

R = TypeVar("R")

#: Per command, members of its stored result that an older patchkeeper wrote under another
#: name: old name -> the field's name now.
RENAMED: dict[str, dict[str, str]] = {
    # ``package_files`` is a mapping; ``files`` is a list in every other ``--json``
    "runtime check": {"files": "package_files"},
    "port": {"new_version": "target_version"},
}


def _typed(
    evidence: dict[str, StoredEvidence], command: str, cls: type[R], names: dict[str, Any]
) -> R | None:
    """The stored result of ``command`` as a ``cls`` (decoded once per loaded file), or
    ``None`` when the store has none.

    Raises:
        EvidenceError: the file's result does not fit ``cls`` (naming the file and the
            command that rewrites it).
    """
    from patchkeeper.jsonable import DecodeError, from_jsonable

    stored = evidence.get(command)
    if stored is None:
        return None
    if command in stored.decoded:
        return stored.decoded[command]  # type: ignore[no-any-return]
    data = stored.result
    renamed = RENAMED.get(command, {})
    if isinstance(data, dict) and any(old in data for old in renamed):
        data = {renamed.get(key, key): value for key, value in data.items()}
    try:
        value = from_jsonable(cls, data, names)
    except (DecodeError, TypeError, ValueError) as exc:
        raise EvidenceError(
            f"not the result of {command} this patchkeeper reads ({exc})",
            path=stored.path,
            hint=f"run 'patchkeeper {command}' with --save-evidence again to rewrite it",
        ) from None
    stored.decoded[command] = value
    return value


def audit_result(evidence: dict[str, StoredEvidence]) -> AuditResult | None:
    """The last saved ``audit``, or ``None``. Raises: as :func:`_typed`."""
    from patchkeeper.audit.results import AuditResult

    return _typed(evidence, "audit", AuditResult, {})


def port_result(evidence: dict[str, StoredEvidence]) -> PortResult | None:
    """The last saved ``port``, or ``None``. Raises: as :func:`_typed`."""
    from patchkeeper.port.results import PortResult

    return _typed(evidence, "port", PortResult, {})


def verify_result(evidence: dict[str, StoredEvidence]) -> VerifyResult | None:
    """The last saved ``verify``, or ``None``. Raises: as :func:`_typed`."""
    from patchkeeper.series.hunk_evidence import FileFailure
    from patchkeeper.trees.applied import FileCheck, SeriesState
    from patchkeeper.trees.results import VerifyResult

    names = {"SeriesState": SeriesState, "FileCheck": FileCheck, "FileFailure": FileFailure}
    return _typed(evidence, "verify", VerifyResult, names)


def runtime_inventory_result(evidence: dict[str, StoredEvidence]) -> Inventory | None:
    """The last saved ``runtime inventory``, or ``None``. Raises: as :func:`_typed`."""
    from patchkeeper.runtime.model import Inventory

    return _typed(evidence, "runtime inventory", Inventory, {})


def runtime_audit_result(evidence: dict[str, StoredEvidence]) -> RuntimeAudit | None:
    """The last saved ``runtime audit``, or ``None``. Raises: as :func:`_typed`."""
    from patchkeeper.runtime.judge.runtime_audit import RuntimeAudit

    return _typed(evidence, "runtime audit", RuntimeAudit, {})


def runtime_check_result(evidence: dict[str, StoredEvidence]) -> LiveCheck | None:
    """The last saved ``runtime check``, or ``None``. Raises: as :func:`_typed`."""
    from patchkeeper.runtime.live.check import LiveCheck

    return _typed(evidence, "runtime check", LiveCheck, {})


def runtime_inventory(evidence: dict[str, StoredEvidence]) -> Inventory | None:
    """The plugin's inventory the runtime evidence was read from: the last ``runtime
    audit``'s, else the last ``runtime inventory``; ``None`` without either. Raises: as
    :func:`_typed`."""
    audited = runtime_audit_result(evidence)
    return audited.inventory if audited is not None else runtime_inventory_result(evidence)
