"""The requirement a dependency bot's pull request sets for one project.

Dependabot and Renovate raise a pin by rewriting dependency files anywhere in the repository:
``vllm==0.31.0`` becomes ``vllm==0.32.0`` in a requirements file, in ``pyproject.toml``'s
``[project] dependencies`` (PEP 621) or ``[tool.poetry.dependencies]`` (``vllm = "0.32.0"``),
in ``setup.cfg``, and in a lock file's ``[[package]]`` (``uv.lock``, ``poetry.lock``). This
script reads, from the repository's root, every such file that differs between the merge base
of ``--base`` and ``HEAD`` (``git diff BASE...HEAD``), and prints the requirement the head's
side newly sets for the project ``NAME``::

    python bumped_requirement.py vllm --base origin/main
    vllm==0.32.0

With ``--file PATH`` it reads the requirement from one file instead (for a matrix of
candidates, or a push that is not a pull request).

Exit 0 with the requirement on standard output (and where it was read on standard error); 1
when the changes (or the file) set none; 2 when they set several that name no one version, a
file cannot be parsed, or git fails. The reading is patchkeeper's
(``patchkeeper.upstream.bump``), installed by the action's first step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from patchkeeper.errors import PatchkeeperError
from patchkeeper.upstream.bump import bumped_pin, one_pin
from patchkeeper.upstream.reqfiles import FoundRequirement, requirements_for


def read(name: str, base: str | None, path: Path | None) -> FoundRequirement:
    """The requirement for ``name``: from the file ``path`` when given, else from the changes
    since ``base``.

    Raises:
        PatchkeeperError: none, several, or a file or git failure.
    """
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise PatchkeeperError(f"cannot read it: {error}", path=path) from None
        return one_pin(name, requirements_for(name, path.as_posix(), text), str(path))
    return bumped_pin(Path.cwd(), base or "origin/main", name)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("name", help="the upstream project, as in the requirement (vllm)")
    parser.add_argument("--base", help="where the pull request starts (default origin/main)")
    parser.add_argument("--file", type=Path, help="read this file instead of the changes")
    args = parser.parse_args(argv)
    try:
        found = read(args.name, args.base, args.file)
    except PatchkeeperError as error:
        print(f"bumped_requirement: {error}", file=sys.stderr)
        return error.exit_code
    print(f"bumped_requirement: {found.pin} ({found.where})", file=sys.stderr)
    print(found.pin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
