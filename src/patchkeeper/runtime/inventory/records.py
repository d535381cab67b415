"""The inventory as nested tuples of builtin values, for the result cache.

:func:`patchkeeper.runtime.inventory.runtime_inventory.scan_plugin` keeps its result under a
digest of every file it depends on
(:meth:`patchkeeper.runtime.inventory.plugin.PluginTree.signature`): an unchanged
plugin is not searched again. These functions turn an :class:`Inventory` into a
:mod:`marshal`-able record and back, losslessly.
"""

from __future__ import annotations

from typing import Any

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.file_facts import (
    activation_from_record,
    activation_record,
    entry_from_record,
    entry_record,
)
from patchkeeper.runtime.model import (
    EntryPoint,
    Inventory,
    PatchEntry,
)


def _entry(record: tuple[Any, ...]) -> PatchEntry:
    entry = entry_from_record(record[0])
    activation = activation_from_record(record[1])
    return PatchEntry(**{**entry.__dict__, "activation": activation})


def inventory_record(inventory: Inventory) -> tuple[Any, ...]:
    """``inventory`` as nested tuples (see the module docstring)."""
    return (
        inventory.plugin_root,
        inventory.package,
        inventory.patch_directory,
        tuple((e.group, e.name, e.value, e.source) for e in inventory.entry_points),
        inventory.files,
        tuple((entry_record(e), activation_record(e.activation)) for e in inventory.entries),
        tuple((f.code, f.path, f.line, f.message, f.hint) for f in inventory.findings),
        inventory.counts,
        inventory.loading,
        inventory.tests_left_out,
    )


def inventory_from_record(record: tuple[Any, ...]) -> Inventory:
    """The inverse of :func:`inventory_record`."""
    root, package, directory, entry_points, files, entries, findings, counts, loading, tests = (
        record
    )
    return Inventory(
        plugin_root=root,
        package=package,
        patch_directory=directory,
        entry_points=tuple(EntryPoint(*e) for e in entry_points),
        files=tuple(files),
        entries=tuple(_entry(e) for e in entries),
        findings=tuple(Finding(*f) for f in findings),
        counts=counts,
        loading=tuple(loading),
        tests_left_out=tuple(tests),
    )
