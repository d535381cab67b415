"""Benchmark: ``runtime inventory`` of a plugin with one large file of N small functions.

Generated code, vendored kernels and large model files put tens of thousands of functions in
one module. The scan builds a name table per function; this benchmark shows how its cost
grows with N (it should grow about linearly: each function's table costs what the function
binds, not what the module binds).

Run: ``python benchmarks/bench_scan_large.py [--sizes 5000 20000 60000] [--where patch]``.
For each N it writes, in a temporary directory, a plugin package ``bigplug`` whose file
``bigplug/patch/big.py`` (``--where patch``: its entries are reported) or
``bigplug/models/big.py`` (``--where model``: imported by the patch package, its entries not
reported, only its edges) holds N functions: most plain, some with a local import, an alias
of a module name, a nested function, a method of a class; every tenth function is assigned
over an upstream attribute (a patch statement). ``runtime inventory --json`` then runs in a
fresh process with an empty ``PATCHKEEPER_CACHE``; printed: N, the file's size, wall and CPU
seconds (user + system of the child, ``os.wait4``) and its peak resident set.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from bench_runtime import timed  # the same child timing (wall, CPU, peak RSS)

HEADER = '''"""A generated module of {n} functions."""
import os
import vllm.model_executor.layers as layers
from vllm.worker import worker as upstream_worker
from bigplug import helpers
from bigplug.helpers import scale

'''

#: Function shapes, chosen in turn; ``{i}`` is the function's number.
SHAPES = (
    "def f{i}(x):\n    y = x + {i}\n    return scale(y)\n\n",
    "def f{i}(x):\n    from vllm.model_executor.layers import linear as lin{i}\n"
    "    return lin{i}.apply(x)\n\n",
    "def f{i}(x):\n    fn = helpers.scale\n    return fn(x) + os.getpid()\n\n",
    "def f{i}(x):\n    def inner(y):\n        return scale(y)\n\n    return inner(x)\n\n",
    "class C{i}:\n    def run(self, x):\n        import bigplug.helpers as h\n"
    "        return h.scale(x)\n\n",
    "def f{i}(x):\n    layers = x\n    return layers + 1\n\n",
    "def f{i}(x):\n    return layers.Linear(x)\n\n",
)
PYPROJECT = """[project]
name = "bigplug"
version = "0.1"

[project.entry-points."vllm.general_plugins"]
bigplug = "bigplug:register"
"""
#: A patch statement after every tenth function (``--where patch``: an entry each).
PATCH = "upstream_worker.Worker.method{i} = f{i}\n\n"


def module_text(count: int) -> str:
    """The source of a module of ``count`` functions (and classes) in :data:`SHAPES`."""
    parts = [HEADER.format(n=count)]
    for i in range(count):
        shape = SHAPES[i % len(SHAPES)]
        parts.append(shape.format(i=i))
        if i % 10 == 0 and shape.startswith("def"):
            parts.append(PATCH.format(i=i))
    return "".join(parts)


def write_plugin(root: Path, count: int, where: str) -> Path:
    """Write the plugin ``bigplug`` under ``root``; returns its large file."""
    package = root / "bigplug"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (package / "patch").mkdir(parents=True)
    (package / "models").mkdir()
    (package / "__init__.py").write_text(
        "def register():\n    import bigplug.patch  # noqa: F401\n", encoding="utf-8"
    )
    (package / "helpers.py").write_text("def scale(x):\n    return x\n", encoding="utf-8")
    (package / "models" / "__init__.py").write_text("", encoding="utf-8")
    (package / "patch" / "__init__.py").write_text(
        f"import bigplug.{where}.big  # noqa: F401\n", encoding="utf-8"
    )
    folder = "patch" if where == "patch" else "models"
    large = package / folder / "big.py"
    large.write_text(module_text(count), encoding="utf-8")
    return large


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000, 60000])
    parser.add_argument("--where", choices=("patch", "model"), default="patch")
    args = parser.parse_args()
    print(f"{'N':>7} {'file KiB':>9} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for count in args.sizes:
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "plugin"
            large = write_plugin(root, count, "patch" if args.where == "patch" else "models")
            (Path(scratch) / "patchkeeper.toml").write_text('upstream = "vllm"\n', encoding="utf-8")
            env = dict(os.environ, PATCHKEEPER_CACHE=str(Path(scratch) / "cache"))
            argv = [sys.executable, "-m", "patchkeeper", "runtime", "inventory"]
            argv += ["--plugin", str(root), "--package", "bigplug", "--json"]
            seconds, cpu, rss = timed(argv, env, Path(scratch))
            size = large.stat().st_size / 1024
            print(f"{count:>7} {size:>9.0f} {seconds:>8.2f} {cpu:>8.2f} {rss / 1024:>9.0f}")


if __name__ == "__main__":
    main()
