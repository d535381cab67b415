"""Pre-fetch the real corpus (shared/REAL-DATA.md) into the cache; one line per item.

    python benchmarks/fetch_corpus.py [--only urllib3,python-urllib3]

Prints ``KIND  ITEM  downloaded|cached  SECONDS  PATH`` per item, then the size of the cache.
The benchmark and CI call it so that later runs find everything in place.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "tests"))  # the corpus helpers live with the tests

from corpus import VERSION_FILE, debian_series  # noqa: E402
from patchkeeper.upstream.fetch import cache_root, fetch_requirement, record_path  # noqa: E402

#: (kind, requirement) of every upstream release the tests and benchmarks use.
RELEASES = [
    ("sdist", "urllib3==1.26.12"),
    ("sdist", "urllib3==1.26.20"),
    ("sdist", "Django==3.2.25"),
    ("sdist", "Django>=4.2,<4.3"),
    ("sdist", "requests==2.28.1"),
    ("sdist", "vllm==0.27.1"),
    ("sdist", "vllm==0.28.0"),
    ("sdist", "vllm==0.30.0"),
    ("sdist", "vllm==0.32.0"),
    ("sdist", "vllm-ascend==0.30.0rc2"),
    # runtime_history.py: consecutive plugin releases and the vLLM each one pins
    *(("sdist", f"vllm=={v}") for v in ("0.24.0", "0.25.1", "0.26.0", "0.29.0")),
    *(
        ("sdist", f"vllm-ascend=={v}")
        for v in ("0.24.0rc1", "0.25.1rc1", "0.26.0rc1", "0.27.1rc1", "0.28.0rc1", "0.29.0rc1")
    ),
    ("sdist", "vllm-ascend==0.30.0rc1"),
    ("wheel", "six==1.16.0"),
]

#: Debian source packages whose patch series the tests use.
DEBIAN = ["python-urllib3", "python-django", "requests"]


def fetch_release(kind: str, requirement: str) -> tuple[str, Path]:
    """Fetch one release; return ("downloaded" or "cached", its tree root)."""
    start = time.time()
    tree = fetch_requirement(requirement, kind)
    written = record_path(tree.name, tree.version, kind).stat().st_mtime
    return ("downloaded" if written >= start - 1 else "cached"), tree.root


def fetch_debian(_kind: str, srcpkg: str) -> tuple[str, Path]:
    """Fetch one Debian series; return ("downloaded" or "cached", its patches directory)."""
    was_cached = (cache_root() / "debian" / srcpkg / VERSION_FILE).is_file()
    patches, _version = debian_series(srcpkg)
    return ("cached" if was_cached else "downloaded"), patches


def tree_size(root: Path) -> int:
    """Total bytes of the regular files under ``root``."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated names to fetch (default: all)")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(",")) if args.only else None
    items = [(kind, req, fetch_release) for kind, req in RELEASES]
    items += [("debian", pkg, fetch_debian) for pkg in DEBIAN]
    for kind, item, fetch in items:
        name = item.split("=")[0].split(">")[0].split("<")[0]
        if wanted is not None and name not in wanted and item not in wanted:
            continue
        start = time.perf_counter()
        how, path = fetch(kind, item)
        seconds = time.perf_counter() - start
        print(f"{kind:6}  {item:24}  {how:10}  {seconds:6.2f} s  {path}", flush=True)
    size = tree_size(cache_root())
    print(f"cache {cache_root()}: {size / 2**20:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
