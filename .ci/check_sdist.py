"""Check that an sdist holds exactly the files git tracks, plus those the build writes.

Usage: ``python .ci/check_sdist.py dist/patchkeeper-VERSION.tar.gz`` (run in the clone the
sdist was built from). The tests read the example, the docs, the benchmarks, the CI files and
their own fixtures, so an sdist missing a tracked file cannot run them; a file git does not
track (a test's leftover, a cache) does not belong in it. Exit 0 when the lists agree; exit 1
naming each missing and each extra file.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile

#: Tracked files the sdist leaves out: the archive's version file is for ``git archive`` only
#: (an sdist carries its version in PKG-INFO; MANIFEST.in excludes it).
LEFT_OUT = {".git_archival.txt"}

#: Files the build writes into the sdist: the metadata and the version file.
WRITTEN = {"PKG-INFO", "setup.cfg", "src/patchkeeper/_version.py"}
WRITTEN_UNDER = "src/patchkeeper.egg-info/"


def sdist_files(path: str) -> set[str]:
    """The regular files of the sdist ``path``, relative to its top directory."""
    with tarfile.open(path) as archive:
        return {
            member.name.split("/", 1)[1]
            for member in archive.getmembers()
            if member.isfile() and "/" in member.name
        }


def tracked_files() -> set[str]:
    """The files git tracks in the current directory's repository."""
    listing = subprocess.run(
        ["git", "ls-files", "-z"], check=True, capture_output=True, text=True
    ).stdout
    return {name for name in listing.split("\0") if name}


def main(argv: list[str]) -> int:
    """Compare the one sdist named in ``argv`` with ``git ls-files``; 0 when they agree."""
    if len(argv) != 1:
        print("usage: python .ci/check_sdist.py SDIST", file=sys.stderr)
        return 2
    found = sdist_files(argv[0])
    expected = tracked_files() - LEFT_OUT
    missing = sorted(expected - found)
    extra = sorted(
        name
        for name in found - expected
        if name not in WRITTEN and not name.startswith(WRITTEN_UNDER)
    )
    for name in missing:
        print(f"{argv[0]}: missing {name} (tracked by git; see MANIFEST.in)", file=sys.stderr)
    for name in extra:
        print(f"{argv[0]}: holds {name}, which git does not track", file=sys.stderr)
    if missing or extra:
        return 1
    print(f"{argv[0]}: {len(found)} files, every tracked file and nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
