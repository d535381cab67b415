"""``runtime inventory`` reads the pin's tree from the configured ``pristine`` directory,
as the series commands do, rather than fetching ``upstream==pin`` from the package index: a
downstream that names its pin's tree works offline (seen with the example downstream, whose
``pristine`` is ``../upstream/minihttp-1.0``: the inventory asked the index for
``minihttp==1.0`` and printed the index's answer about another project of that name).

The plugin is written by the test in the shape of a real one, on the ``tinyup`` fixture."""

from __future__ import annotations

from pathlib import Path

import pytest
from tinyplug import HEADER, PYPROJECT, copy_releases, write_plugin

STEP = HEADER + (
    "import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
    "engine.step = step\n"
)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path``, a private cache, no reachable index."""
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    return copy_releases(tmp_path, monkeypatch)


def test_the_configured_pristine_directory_is_the_pins_tree(upstream: Path, cli) -> None:
    pyproject = PYPROJECT.replace(
        'upstream = "tinyup"\n', 'upstream = "tinyup"\npin = "1.0"\npristine = "../upstream-1.0"\n'
    ).replace('[project.entry-points."tinyup.general_plugins"]\nplug = "plug.patch:apply"\n', "")
    assert "entry-points" not in pyproject  # loaded by its users' import: the tree is read
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=pyproject)
    run = cli("runtime", "inventory", cwd=root)
    assert (run.code, run.err) == (0, "")
    loading = [line for line in run.out.splitlines() if line.startswith("loading:")]
    assert loading[0] == "loading: import plug (its users import it before the upstream)"
    assert loading[1] == (
        "loading: nothing declares plug to the upstream (no entry point in its groups, no "
        "configured activation; the upstream does not import it): it is activated by importing "
        "it or by its console scripts, and what its users import besides cannot be traced"
    )
    assert "not traced" not in run.out
    assert not (upstream / "cache" / "downloads").exists()
