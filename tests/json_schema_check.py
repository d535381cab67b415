"""Validate a command's ``--json`` output against docs/json-schema.json (draft 2020-12)."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from helpers import REPO

SCHEMA = json.loads((REPO / "docs" / "json-schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)


def schema_errors(data: Any) -> list[str]:
    """Every way ``data`` breaks the schema, as ``path: message`` lines (``[]`` when valid)."""
    return sorted(
        f"{'/'.join(str(part) for part in error.absolute_path)}: {error.message}"
        for error in VALIDATOR.iter_errors(data)
    )


def output(text: str) -> dict[str, Any]:
    """A command's standard output as JSON, checked against the schema."""
    data = json.loads(text)
    assert schema_errors(data) == []
    return data
