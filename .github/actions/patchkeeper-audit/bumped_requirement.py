"""The requirement a dependency bot's pull request sets for one project.

Dependabot and Renovate raise a pin by rewriting one line: ``vllm==0.31.0`` becomes
``vllm==0.32.0`` in a requirements file, or the string ``"vllm==0.32.0"`` in ``pyproject.toml``'s
``[project] dependencies`` (PEP 621). This script reads the pull request's unified diff
(``git diff BASE...HEAD``) on standard input and prints the requirement its added lines give the
project ``NAME``::

    git diff origin/main...HEAD -- '*.txt' '*.toml' | python bumped_requirement.py vllm
    vllm==0.32.0

With ``--file PATH`` it reads the requirement from a requirements file or ``pyproject.toml``
instead (for a matrix of candidates, or a push that is not a pull request).

Exit 0 with the requirement on standard output; 1 when the diff or file sets none (the
message on standard error says so); 2 when it sets several different ones.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from unidiff import PatchSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # patchkeeper depends on tomli there
    import tomli as tomllib

#: A quoted string in a TOML line: where pyproject.toml holds a requirement.
QUOTED = re.compile(r"""(["'])(?P<text>[^"']+)\1""")


def requirement_texts(path: str, line: str) -> list[str]:
    """The requirement candidates in one line of the file ``path``: the quoted strings of a
    ``.toml`` line, else the line of a requirements file without its comment, options
    (``--hash=...``) and line continuation."""
    if path.endswith(".toml"):
        return [match["text"] for match in QUOTED.finditer(line)]
    text = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].rstrip().rstrip("\\")
    text = re.split(r"\s--?\w", " " + text, maxsplit=1)[0].strip()
    return [text] if text and not text.startswith("-") else []


def matching(name: str, texts: Iterable[str]) -> list[str]:
    """The texts that are requirements for the project ``name`` (PEP 503 names compared),
    each once, in order."""
    wanted = canonicalize_name(name)
    found: list[str] = []
    for text in texts:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == wanted and str(requirement) not in found:
            found.append(str(requirement))
    return found


def from_diff(name: str, diff: str) -> list[str]:
    """The requirements for ``name`` on the added lines of the unified diff ``diff``."""
    texts: list[str] = []
    for patched in PatchSet(diff):
        for hunk in patched:
            for line in hunk:
                if line.is_added:
                    texts += requirement_texts(patched.path, line.value.rstrip("\n"))
    return matching(name, texts)


def from_file(name: str, path: Path) -> list[str]:
    """The requirements for ``name`` in a requirements file, or in ``pyproject.toml``'s
    ``[project]`` ``dependencies`` and ``optional-dependencies``."""
    if path.name.endswith(".toml"):
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
        texts = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            texts += extra
        return matching(name, texts)
    lines = path.read_text(encoding="utf-8").splitlines()
    return matching(name, [t for line in lines for t in requirement_texts(path.name, line)])


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the upstream project, as in the requirement (vllm)")
    parser.add_argument("--file", type=Path, help="read this file instead of a diff on stdin")
    args = parser.parse_args(argv)
    where = str(args.file) if args.file else "the diff's added lines"
    found = from_file(args.name, args.file) if args.file else from_diff(args.name, sys.stdin.read())
    if not found:
        print(f"bumped_requirement: no requirement for {args.name} in {where}", file=sys.stderr)
        return 1
    if len(found) > 1:
        print(
            f"bumped_requirement: {where} set several requirements for {args.name}: "
            f"{', '.join(found)}; audit each with a matrix",
            file=sys.stderr,
        )
        return 2
    print(found[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
