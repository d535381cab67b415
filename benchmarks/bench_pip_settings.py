"""Benchmark: reading pip's index settings (only when the corpus cache cannot answer).

Times :func:`patchkeeper.upstream.pipsettings.read_pip_settings` two ways: through ``python -m pip
config list`` in a subprocess (pip installed for this interpreter, the usual case), and by
:func:`patchkeeper.upstream.pipfiles.read_configuration` (pip's files and variables read
without pip,
the fallback), each best of ``--repeat`` runs, in this machine's real pip configuration.

Run: ``python benchmarks/bench_pip_settings.py [--repeat 5]``
"""

from __future__ import annotations

import argparse
import time

from patchkeeper.upstream.pipfiles import read_configuration
from patchkeeper.upstream.pipsettings import merged_values, read_pip_settings, settings_from_values


def best(function, repeat: int) -> float:
    """The fastest of ``repeat`` calls of ``function``, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    read_pip_settings()  # import unearth once, as the fetch code has by then
    through_pip = best(read_pip_settings, repeat)
    without_pip = best(lambda: settings_from_values(merged_values(read_configuration())), repeat)
    print(f"pip config list (subprocess): {through_pip:.0f} ms")
    print(f"files and variables read without pip: {without_pip:.1f} ms")


if __name__ == "__main__":
    main()
