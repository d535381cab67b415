"""``init`` in a runtime plugin's directory (a package that patches its upstream at run time,
no series): when it can tell the pin (an exact requirement, or ``--upstream``) and the import
package (the entry point), it adds the configuration the ``runtime`` commands read to
``pyproject.toml``, and they run there with no option; otherwise it says what it found, points
to the ``runtime`` commands and the keys to fill in, and writes nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import vllm_plugin_pyproject

PLATFORM_PLUGIN = vllm_plugin_pyproject(
    "vllm-acme",
    "0.3.0",
    'acme = "vllm_acme:register"',
    dependencies=("torch>=2.5", "vllm==0.32.0"),
    group="platform_plugins",
)

DEPENDENCY_ONLY = """\
[project]
name = "vllm-acme-kernels"
version = "1.0"
dependencies = ["vllm>=0.30,<0.33"]
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def plugin_checkout(tmp_path: Path, pyproject: str) -> Path:
    """A git checkout of a plugin: its pyproject.toml, its package and a patch module."""
    root = tmp_path / "plugin"
    (root / "vllm_acme" / "patch").mkdir(parents=True)
    (root / "pyproject.toml").write_text(pyproject)
    (root / "vllm_acme" / "__init__.py").write_text("def register():\n    return None\n")
    (root / "vllm_acme" / "patch" / "__init__.py").write_text(
        "from vllm.worker import Worker\n\n\ndef _execute(self):\n    return None\n\n\n"
        "Worker.execute = _execute\n"
    )
    git(root.parent, "init", "-q", str(root))
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "plugin")
    return root


#: What init adds at the end of the platform plugin's pyproject.toml.
CONFIGURED = """
# patchkeeper settings, written by patchkeeper init (see docs/starting.md)
[tool.patchkeeper]
upstream = "vllm"
pin = "0.32.0"

[tool.patchkeeper.runtime]
package = "vllm_acme"
"""


def test_init_in_a_platform_plugin_writes_the_runtime_configuration(cli, tmp_path: Path) -> None:
    root = plugin_checkout(tmp_path, PLATFORM_PLUGIN)
    run = cli("init", cwd=root)
    assert (run.code, run.out.splitlines(), run.err) == (
        0,
        [
            "found a runtime plugin of vllm (entry point vllm.platform_plugins): its patches "
            "are made at run time",
            "upstream vllm, pin 0.32.0: from pyproject.toml (its requirement vllm==0.32.0)",
            "package vllm_acme: the runtime commands read it",
            "wrote pyproject.toml",
            "next:",
            "  patchkeeper runtime inventory  # the runtime patches and whether each is live",
            "  patchkeeper runtime audit --from vllm==0.32.0 --to vllm==VERSION  # what a newer "
            "release does to each",
        ],
        "",
    )
    assert (root / "pyproject.toml").read_text() == PLATFORM_PLUGIN + CONFIGURED
    assert git(root, "status", "--porcelain") == " M pyproject.toml\n"
    inventory = json.loads(cli("runtime", "inventory", "--json", cwd=root).out)
    assert [(e["file"], e["target"]) for e in inventory["entries"]] == [
        ("vllm_acme/patch/__init__.py", "vllm.worker.Worker.execute")
    ]
    run = cli("init", cwd=root)  # configured now: init never overwrites
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {root / 'pyproject.toml'}: this downstream is configured already: "
        "pyproject.toml has a [tool.patchkeeper] table; init never overwrites",
    )


def test_init_adds_one_blank_line_before_its_keys(cli, tmp_path: Path) -> None:
    """A pyproject.toml that ends with a blank line (or without its last newline) gets its
    keys after one blank line, as any other: init made a second one after the file's own."""
    cases = {
        "blank": (PLATFORM_PLUGIN + "\n", PLATFORM_PLUGIN + CONFIGURED),
        "unended": (PLATFORM_PLUGIN.removesuffix("\n"), PLATFORM_PLUGIN + CONFIGURED),
        "two-blank": (PLATFORM_PLUGIN + "\n\n", PLATFORM_PLUGIN + "\n" + CONFIGURED),
    }
    for case, (text, expected) in cases.items():
        root = plugin_checkout(tmp_path / case, text)
        assert cli("init", cwd=root).code == 0
        assert (root / "pyproject.toml").read_text() == expected


def test_init_takes_the_pin_from_upstream_when_the_requirement_is_a_range(
    cli, tmp_path: Path
) -> None:
    root = plugin_checkout(tmp_path, PLATFORM_PLUGIN.replace("vllm==0.32.0", "vllm>=0.30"))
    run = cli("init", "--upstream", "vllm==0.32.0", "--json", cwd=root)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert (data["upstream"], data["pin"], data["pin_reason"], data["package"]) == (
        "vllm",
        "0.32.0",
        "from --upstream vllm==0.32.0",
        "vllm_acme",
    )
    assert (root / "pyproject.toml").read_text().endswith(CONFIGURED)


def test_init_in_a_plugin_known_by_its_dependency(cli, tmp_path: Path) -> None:
    """A plugin with no entry point that requires the upstream in a range: no pin, and no
    package directory named after the project: both are left for the user to fill in."""
    root = plugin_checkout(tmp_path, DEPENDENCY_ONLY)
    run = cli("init", "--json", cwd=root)
    assert run.code == 2
    error = json.loads(run.out)["error"]
    assert (error["message"], error["hint"]) == (
        "no patch series here: pyproject.toml declares a runtime plugin of vllm (dependency "
        "vllm>=0.30,<0.33), whose patches are made at run time",
        "the runtime commands read them: 'patchkeeper runtime inventory --plugin . --package "
        "PACKAGE' lists them, then runtime audit, port and check; to configure the plugin, add "
        '[tool.patchkeeper] upstream = "vllm", pin = "VERSION" and [tool.patchkeeper.runtime] '
        'package = "PACKAGE" to pyproject.toml (docs/commands/runtime.md); init writes them '
        "with --upstream vllm==VERSION and an entry point naming the package",
    )
    assert git(root, "status", "--porcelain") == ""


def test_init_in_another_project_keeps_the_series_hint(cli, tmp_path: Path) -> None:
    root = plugin_checkout(
        tmp_path, '[project]\nname = "tool"\nversion = "1.0"\ndependencies = ["requests"]\n'
    )
    # its modules patch no upstream either: it is no runtime plugin
    (root / "vllm_acme" / "patch" / "__init__.py").write_text("def run():\n    return None\n")
    run = cli("init", "--json", cwd=root)
    assert run.code == 2
    assert json.loads(run.out)["error"]["hint"].startswith(
        "run init in the directory that holds the series, or pass --patches PATH"
    )


#: An unpacked wheel of a vLLM platform plugin, as 'pip download --no-deps' gives it and
#: unzip lays it out: no pyproject.toml, the entry points in the dist-info.
WHEEL_ENTRY_POINTS = """[console_scripts]
vllm-accel = vllm_accel.cli:main

[vllm.platform_plugins]
accel = vllm_accel.plugin:accel_platform_plugin
"""
WHEEL_METADATA = """Metadata-Version: 2.4
Name: vllm-accel
Version: 0.6.0
Requires-Dist: numpy>=1.24.0
Requires-Dist: vllm==0.31.0
Requires-Dist: vllm-flash>=2.0; extra == "vllm"
"""


def test_init_in_an_unpacked_wheel_points_to_the_runtime_commands(cli, tmp_path: Path) -> None:
    root = tmp_path / "wheel"
    info = root / "vllm_accel-0.6.0.dist-info"
    info.mkdir(parents=True)
    (info / "entry_points.txt").write_text(WHEEL_ENTRY_POINTS, encoding="utf-8")
    (info / "METADATA").write_text(WHEEL_METADATA, encoding="utf-8")
    (root / "vllm_accel" / "patches").mkdir(parents=True)
    (root / "vllm_accel" / "__init__.py").write_text("", encoding="utf-8")
    before = sorted(p.name for p in root.rglob("*"))

    run = cli("init", "--json", cwd=root)

    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": "no patch series here: vllm_accel-0.6.0.dist-info/entry_points.txt "
            "declares a runtime plugin of vllm (entry point vllm.platform_plugins), an "
            "unpacked wheel whose patches are made at run time",
            "file": str(root),
            "line": None,
            "hint": "the runtime commands read it as it is: 'patchkeeper runtime inventory "
            "--plugin . --package vllm_accel', then 'patchkeeper runtime audit --plugin . "
            "--package vllm_accel --from vllm==0.31.0 --to vllm==VERSION'; init configures a "
            "plugin in its source tree, where its pyproject.toml is",
        },
    )
    assert sorted(p.name for p in root.rglob("*")) == before


def test_init_in_an_unpacked_wheel_without_entry_points(cli, tmp_path: Path) -> None:
    """A plugin its users load by name (``--worker-cls vllm_accel.worker.Worker``) declares
    no entry point: its unpacked wheel still points to the runtime commands, writing
    nothing."""
    root = tmp_path / "wheel"
    info = root / "vllm_accel-0.6.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.4\nName: vllm-accel\nVersion: 0.6.0\n", encoding="utf-8"
    )
    (root / "vllm_accel" / "patches").mkdir(parents=True)
    (root / "vllm_accel" / "__init__.py").write_text("", encoding="utf-8")
    (root / "vllm_accel" / "worker.py").write_text(
        "from vllm.v1.worker.gpu_worker import Worker as GPUWorker\n\n\n"
        "class Worker(GPUWorker):\n    pass\n",
        encoding="utf-8",
    )
    before = sorted(p.name for p in root.rglob("*"))

    run = cli("init", "--json", cwd=root)

    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": "no patch series here: no patches/series (quilt), no "
            "debian/patches/series (Debian), no git format-patch files (0001-*.patch) in "
            "patches/ or here, no RPM spec with Patch tags or a %patchlist here, and no git "
            "branch with commits since a tag; vllm_accel-0.6.0.dist-info is an unpacked wheel "
            "of the package vllm_accel, which declares no entry point in a plugin group; if "
            "it is a plugin its users load by name (a worker class given as vLLM's "
            "--worker-cls), its patches are made at run time",
            "hint": "the runtime commands read it as it is: 'patchkeeper runtime inventory "
            "--plugin . --package vllm_accel' lists its patches, then runtime audit, port and "
            "lock; name the function or class that loads it as activation in "
            "[tool.patchkeeper.runtime] (docs/commands/runtime.md), or the activation of its "
            "patches is untraced",
            "file": str(root),
            "line": None,
        },
    )
    assert sorted(p.name for p in root.rglob("*")) == before


def test_init_in_an_unpacked_wheel_with_its_package_under_data(cli, tmp_path: Path) -> None:
    """A wheel may keep its package under ``NAME-VERSION.data/purelib`` (pip installs it into
    site-packages all the same): init names that package too, writing nothing."""
    root = tmp_path / "wheel"
    info = root / "vllm_accel-0.6.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.4\nName: vllm-accel\nVersion: 0.6.0\n", encoding="utf-8"
    )
    package = root / "vllm_accel-0.6.0.data" / "purelib" / "vllm_accel"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    before = sorted(p.name for p in root.rglob("*"))

    run = cli("init", "--json", cwd=root)

    error = json.loads(run.out)["error"]
    assert run.code == 2
    assert error["message"].endswith(
        "vllm_accel-0.6.0.dist-info is an unpacked wheel of the package vllm_accel, which "
        "declares no entry point in a plugin group; if it is a plugin its users load by name "
        "(a worker class given as vLLM's --worker-cls), its patches are made at run time"
    )
    assert error["hint"].startswith(
        "the runtime commands read it as it is: 'patchkeeper runtime inventory --plugin . "
        "--package vllm_accel' lists its patches"
    )
    assert sorted(p.name for p in root.rglob("*")) == before
    # and the runtime command it names reads the wheel as it is
    inventory = cli("runtime", "inventory", "--plugin", ".", "--package", "vllm_accel", cwd=root)
    assert (inventory.code, inventory.err) == (0, "")
    assert inventory.out.splitlines()[0] == (
        f"plugin vllm_accel ({root / 'vllm_accel-0.6.0.data' / 'purelib'}), patch directory "
        "vllm_accel: 1 file, 0 entries"
    )


#: A plugin that names the upstream only in an optional extra, with no entry point: its users
#: load it by name, so only its modules tell that it patches the upstream at run time.
EXTRA_ONLY = """\
[project]
name = "vllm-acme"
version = "0.3.0"
dependencies = ["torch>=2.5"]

[project.optional-dependencies]
vllm = ["vllm>=0.30"]
"""


def test_init_finds_a_plugin_by_the_modules_that_patch_the_upstream(cli, tmp_path: Path) -> None:
    root = plugin_checkout(tmp_path, EXTRA_ONLY)
    run = cli("init", "--json", cwd=root)
    assert run.code == 2
    error = json.loads(run.out)["error"]
    assert (error["message"], error["hint"]) == (
        "no patch series here: the runtime inventory finds that vllm_acme/patch/__init__.py:8 "
        "patches vllm.worker.Worker.execute at run time, so this is a runtime plugin of vllm, "
        "whose patches are made at run time",
        "the runtime commands read them: 'patchkeeper runtime inventory --plugin . --package "
        "vllm_acme' lists them, then runtime audit, port and check; to configure the plugin, "
        'add [tool.patchkeeper] upstream = "vllm", pin = "VERSION" and '
        '[tool.patchkeeper.runtime] package = "vllm_acme" to pyproject.toml '
        "(docs/commands/runtime.md); init writes them with --upstream vllm==VERSION",
    )
    assert git(root, "status", "--porcelain") == ""
    # with the pin given, init writes what it writes for any plugin
    run = cli("init", "--upstream", "vllm==0.32.0", cwd=root)
    assert (run.code, run.out.splitlines()[:4], run.err) == (
        0,
        [
            "found a runtime plugin of vllm (vllm_acme/patch/__init__.py:8 patches "
            "vllm.worker.Worker.execute at run time): its patches are made at run time",
            "upstream vllm, pin 0.32.0: from --upstream vllm==0.32.0",
            "package vllm_acme: the runtime commands read it",
            "wrote pyproject.toml",
        ],
        "",
    )
    assert (root / "pyproject.toml").read_text() == EXTRA_ONLY + CONFIGURED


def test_init_with_the_pin_in_a_plugin_without_pyproject_names_the_file(
    cli, tmp_path: Path
) -> None:
    """A plugin found by the modules that patch the upstream, with ``--upstream`` given, in a
    directory without ``pyproject.toml`` (an unpacked source of modules): the pin and the
    package are known, the file the settings go in is missing, and the error says so; it
    asked for the ``--upstream`` it had been given."""
    root = plugin_checkout(tmp_path, EXTRA_ONLY)
    (root / "pyproject.toml").unlink()
    run = cli("init", "--upstream", "vllm==0.32.0", "--json", cwd=root)
    assert run.code == 2
    error = json.loads(run.out)["error"]
    assert (error["message"], error["hint"]) == (
        "no patch series here: the runtime inventory finds that vllm_acme/patch/__init__.py:8 "
        "patches vllm.worker.Worker.execute at run time, so this is a runtime plugin of vllm, "
        "whose patches are made at run time; init writes a plugin's settings into its "
        "pyproject.toml, and there is none here",
        "run init in the plugin's source tree, where its pyproject.toml is; or write "
        '[tool.patchkeeper] upstream = "vllm", pin = "0.32.0" and [tool.patchkeeper.runtime] '
        'package = "vllm_acme" into a pyproject.toml here (docs/commands/runtime.md)',
    )
    assert not (root / "pyproject.toml").exists()
