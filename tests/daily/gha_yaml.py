"""YAML read as GitHub reads a workflow: YAML 1.2's booleans (``true``/``false`` only), so the
key ``on`` stays the string ``"on"`` (PyYAML's default resolver, YAML 1.1, makes it ``True``)."""

from __future__ import annotations

import re
from typing import Any

import yaml


class GitHubLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's boolean words."""


GitHubLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
GitHubLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load(text: str) -> Any:
    """``text`` parsed as GitHub parses a workflow or an action."""
    return yaml.load(text, Loader=GitHubLoader)  # a subclass of the safe loader
