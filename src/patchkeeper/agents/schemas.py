"""The output schema of each tool, cut from the ``--json`` contract.

``json-schema.json`` (in the package, the same bytes as ``docs/json-schema.json``: a test
keeps them equal) is one schema for the envelope of every command: the envelope's keys, the
type of each shared key, then one ``if``/``then`` per command (``"command": {"const":
"audit"}``) for the keys its result always has. A tool's output schema is that document with
``command`` fixed to the tool's command and only the ``if``/``then`` entries that do not name
another command kept: the contract itself, narrowed, never a second copy of it.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

#: The contract's file name in the package (and in ``docs/``).
SCHEMA_FILE = "json-schema.json"


@cache
def contract() -> dict[str, Any]:
    """The envelope schema of every command's ``--json`` output (draft 2020-12), read once
    from the package."""
    text = resources.files("patchkeeper").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _names_command(entry: Any) -> str | None:
    """The command an ``allOf`` entry's ``if`` is about (``"audit"``), or ``None``."""
    condition = entry.get("if") if isinstance(entry, dict) else None
    if not isinstance(condition, dict):
        return None
    command = condition.get("properties", {}).get("command", {})
    value = command.get("const") if isinstance(command, dict) else None
    return value if isinstance(value, str) else None


def output_schema(command: str) -> dict[str, Any]:
    """The schema of ``command``'s envelope (``"runtime audit"``): the contract with
    ``command`` fixed to it and the other commands' entries left out.

    >>> schema = output_schema("ledger")
    >>> schema["properties"]["command"], schema["title"]
    ({'const': 'ledger'}, 'patchkeeper ledger --json output')
    >>> sorted({_names_command(e) or "" for e in schema["allOf"]})
    ['', 'ledger']
    """
    schema = copy.deepcopy(contract())
    schema["title"] = f"patchkeeper {command} --json output"
    schema["properties"]["command"] = {"const": command}
    schema["allOf"] = [
        entry for entry in schema.get("allOf", []) if _names_command(entry) in (None, command)
    ]
    return schema
