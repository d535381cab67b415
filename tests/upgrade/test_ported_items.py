"""The runtime port's summary in ``upgrade``, read from the port's own result type
(:class:`patchkeeper.runtime.port.results.RuntimePort`): its entries counted as the runtime
audit counts them, the version gates, header lines and imports it went through named apart."""

from __future__ import annotations

from patchkeeper.runtime.port.results import PortedEntry, RuntimePort
from patchkeeper.upgrade.run import _ported_items


def _entry(target: str, decision: str, action: str = "merged") -> PortedEntry:
    return PortedEntry("plug/patch.py", 3, target, decision, action, "")


def _port(*entries: PortedEntry) -> RuntimePort:
    return RuntimePort("../up-1.0", "../up-2.0", entries, "", ())


def test_entries_alone() -> None:
    assert _ported_items(_port(_entry("up.a.f", "update"))) == "1 entry"
    assert _ported_items(_port()) == "0 entries"


def test_other_items_named_apart_in_a_fixed_order() -> None:
    port = _port(
        _entry("up.b.g", "import", "retargeted"),
        _entry("up.a.f", "update"),
        _entry("up.a.f", "header", "nothing to do"),
        _entry("up.c.h", "gate", "gate cut"),
        _entry("up.d.i", "retain", "by hand"),
        _entry("up.e.j", "gate", "gate cut"),
    )
    assert _ported_items(port) == "2 entries (and 2 version gates, 1 header line, 1 import)"
