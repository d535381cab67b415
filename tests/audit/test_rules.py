"""The rules that decide a verdict: one list in the code, the docs and the JSON schema."""

from __future__ import annotations

import json
import re

from helpers import REPO
from patchkeeper.audit.rules import RULES


def test_the_docs_list_every_rule_in_the_order_of_the_code() -> None:
    text = (REPO / "docs" / "commands" / "audit.md").read_text(encoding="utf-8")
    section = text.split("## Which rule decided it\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z-]+)` \|", section, re.MULTILINE)
    assert tuple(listed) == RULES


def test_the_schema_admits_exactly_the_rules() -> None:
    for path in (REPO / "docs" / "json-schema.json", REPO / "src/patchkeeper/json-schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        [audit] = [
            rule["then"]
            for rule in schema["allOf"]
            if rule.get("if", {}).get("properties", {}).get("command") == {"const": "audit"}
            and "verdicts" in rule["then"].get("properties", {})
        ]
        verdict = audit["properties"]["verdicts"]["items"]
        assert "rule" in verdict["required"]
        assert tuple(verdict["properties"]["rule"]["enum"]) == RULES
