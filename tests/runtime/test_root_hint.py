"""A plugin directory that is not found says both ways to name it: ``--plugin DIR``, or the
``root`` key with its table as the configuration file in use spells it (``[runtime]`` in a
``patchkeeper.toml``); "or set root" alone named no table."""

from __future__ import annotations

from pathlib import Path


def test_the_root_key_is_named_with_its_table(cli, tmp_path: Path) -> None:
    down = tmp_path / "down"
    down.mkdir()
    (down / "patchkeeper.toml").write_text('upstream = "vllm"\n\n[runtime]\npackage = "plug"\n')
    run = cli("runtime", "inventory", "--plugin", str(tmp_path / "nope"), cwd=down)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: the plugin directory {tmp_path / 'nope'} does not exist\n"
        '  hint: pass --plugin DIR (the directory holding the package), or set root = "DIR" '
        "in [runtime]\n",
    )
    (down / "elsewhere").mkdir()
    run = cli("runtime", "inventory", "--plugin", "elsewhere", cwd=down)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package plug is not under {down / 'elsewhere'}\n"
        '  hint: pass --plugin DIR (the directory holding the package), or set root = "DIR" '
        "in [runtime]\n",
    )


def test_a_single_module_plugin_is_named_as_a_module_not_a_missing_package(
    cli, tmp_path: Path
) -> None:
    # A plugin published as top-level modules (setuptools' py-modules = ["traceplug",
    # "traceplug_scheduler"], an sdist with traceplug.py beside its pyproject.toml) was told
    # to "pass --plugin DIR (the directory holding the package)": the directory passed.
    plugin = tmp_path / "traceplug-0.1.0"
    plugin.mkdir()
    (plugin / "pyproject.toml").write_text(
        '[project]\nname = "traceplug"\nversion = "0.1.0"\n\n'
        '[tool.setuptools]\npy-modules = ["traceplug", "traceplug_scheduler"]\n'
    )
    (plugin / "traceplug.py").write_text("import vllm.engine as engine\n\nengine.x = 1\n")
    (plugin / "traceplug_scheduler.py").write_text("")
    (tmp_path / "a").mkdir()  # the trees are there: the plugin is what is wrong
    (tmp_path / "b").mkdir()
    run = cli(
        "runtime",
        "audit",
        "--plugin",
        str(plugin),
        "--package",
        "traceplug",
        "--from",
        str(tmp_path / "a"),
        "--to",
        str(tmp_path / "b"),
        cwd=tmp_path,
    )
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: the plugin package traceplug is not under {plugin}: "
        f"{plugin / 'traceplug.py'} is a single module, and the runtime commands read a "
        "package (a directory with its __init__.py)\n"
        "  hint: to read the module, copy the plugin and move traceplug.py to "
        "traceplug/__init__.py in the copy (the import name stays traceplug), then pass "
        "the copy as --plugin\n",
    )


def test_a_single_module_in_a_src_layout_is_named_as_a_module(cli, tmp_path: Path) -> None:
    # A pytest plugin published as one module under src/ (a pytest11 entry point naming
    # the module, setuptools finding it in src/) was told the package "is not under" the
    # directory, with the advice to pass the directory holding the package: it had been.
    plugin = tmp_path / "pytest_retry-1.0"
    (plugin / "src").mkdir(parents=True)
    (plugin / "pyproject.toml").write_text(
        '[project]\nname = "pytest-retry"\nversion = "1.0"\n'
        'entry-points.pytest11.retry = "pytest_retry"\n'
    )
    (plugin / "src" / "pytest_retry.py").write_text("import _pytest.runner as runner\n")
    run = cli("runtime", "inventory", "--plugin", str(plugin), "--package", "pytest_retry")
    module = plugin / "src" / "pytest_retry.py"
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: the plugin package pytest_retry is not under {plugin / 'src'}: "
        f"{module} is a single module, and the runtime commands read a package (a directory "
        "with its __init__.py)\n"
        "  hint: to read the module, copy the plugin and move pytest_retry.py to "
        "pytest_retry/__init__.py in the copy (the import name stays pytest_retry), then "
        "pass the copy as --plugin\n",
    )
