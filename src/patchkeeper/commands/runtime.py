"""``runtime``: the group of the commands on a plugin's runtime (monkey) patches; each
sub-command's module is loaded when that sub-command is asked for."""

from __future__ import annotations

from patchkeeper.commands.cli import LazyGroup

#: Each sub-command's name -> the module that defines it as ``command``.
SUBCOMMANDS = {
    "inventory": "patchkeeper.commands.runtime_inventory",
    "audit": "patchkeeper.commands.runtime_audit",
    "check": "patchkeeper.commands.runtime_check",
    "lock": "patchkeeper.commands.runtime_lock",
    "port": "patchkeeper.commands.runtime_port",
    "same-code": "patchkeeper.commands.runtime_same_code",
}

command = LazyGroup(
    "runtime",
    lazy=SUBCOMMANDS,
    help=(
        "Runtime (monkey) patches of a plugin: inventory, audit, port, lock, live check, same-code."
    ),
)
