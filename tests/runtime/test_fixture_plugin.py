"""The seed-shaped fixture plugin: inventory, audit, stale bindings, same-code, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchkeeper.config import load_config
from patchkeeper.runtime.inventory import runtime_inventory as inventory
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.judge import samecode
from patchkeeper.runtime.settings import resolve_settings


def _config(plugin: Path):
    return load_config(plugin / "pyproject.toml")


def test_inventory_entries_mechanisms_activation(runtime_trees: Path) -> None:
    plugin = runtime_trees / "plugin"
    result = inventory.take_inventory(_config(plugin))
    rows = [
        (
            e.file,
            e.line,
            e.mechanism.value,
            e.target,
            e.key,
            e.replacement,
            e.allow_missing,
            e.descriptors,
            e.activation.status.value,
        )
        for e in result.entries
    ]
    assert rows == [
        (
            "metaplug/patch/bugfix/fix_disabled.py",
            11,
            "decorator",
            "tinyup.sampler.sample",
            None,
            "metaplug.patch.bugfix.fix_disabled:sample",
            False,
            (),
            "never-imported",
        ),
        (
            "metaplug/patch/bugfix/fix_sampler.py",
            19,
            "wrapper",
            "tinyup.sampler.sample",
            None,
            "metaplug.patch.bugfix.fix_sampler:_sample_with_guard",
            False,
            (),
            "active",
        ),
        (
            "metaplug/patch/bugfix/fix_scheduler.py",
            11,
            "decorator",
            "tinyup.scheduler.Scheduler.schedule",
            None,
            "metaplug.patch.bugfix.fix_scheduler:schedule",
            False,
            (),
            "active",
        ),
        (
            "metaplug/patch/bugfix/fix_scheduler.py",
            21,
            "decorator",
            "tinyup.scheduler.Scheduler.make",
            None,
            "metaplug.patch.bugfix.fix_scheduler:make",
            False,
            ("staticmethod",),
            "active",
        ),
        (
            "metaplug/patch/bugfix/fix_scheduler.py",
            29,
            "decorator",
            "tinyup.scheduler.Scheduler.create",
            None,
            "metaplug.patch.bugfix.fix_scheduler:create",
            False,
            ("classmethod",),
            "active",
        ),
        (
            "metaplug/patch/enhancement/backends.py",
            10,
            "registry",
            "tinyup.registry.BACKENDS",
            "'npu'",
            "<expr>",
            False,
            (),
            "conditional",
        ),
        (
            "metaplug/patch/performance/kernels.py",
            12,
            "decorator",
            "tinyup.kernels.add_kernel",
            None,
            "metaplug.patch.performance.kernels:add_kernel",
            False,
            ("jit",),
            "conditional",
        ),
        (
            "metaplug/patch/performance/kernels.py",
            22,
            "decorator",
            "tinyup.kernels.sub_kernel",
            None,
            "metaplug.patch.performance.kernels:_sub",
            True,
            (),
            "conditional",
        ),
    ]
    never = result.entries[0].activation
    assert never.note == (
        "import commented out at metaplug/patch/bugfix/__init__.py:11: "
        "# import metaplug.patch.bugfix.fix_disabled"
    )
    registry = result.entries[5].activation
    assert [(c.kind, c.file, c.line) for c in registry.conditions] == [
        ("try-import", "metaplug/patch/enhancement/__init__.py", 8)
    ]
    kernel = result.entries[6].activation
    assert [(c.kind, c.text) for c in kernel.conditions] == [
        ("version", "tinyup.__version__.startswith('1.')")
    ]
    assert result.entries[2].activation.chain[0] == (
        "entry point tinyup.general_plugins:metaplug = metaplug:register (pyproject.toml)"
    )
    assert [(f.code, f.path, f.line, f.message) for f in result.findings] == [
        (
            "header-placeholder",
            "metaplug/patch/bugfix/fix_disabled.py",
            2,
            "'Note:' is a placeholder: TODO",
        ),
    ]
    assert result.counts == {
        "mechanism": {"decorator": 6, "registry": 1, "wrapper": 1},
        "activation": {"active": 4, "conditional": 3, "never-imported": 1},
    }
    assert result.exit_code == 1


def test_decorator_under_a_descriptor_is_a_finding(runtime_trees: Path) -> None:
    kernels = runtime_trees / "plugin/metaplug/patch/performance/kernels.py"
    text = kernels.read_text()
    kernels.write_text(
        text.replace(
            '@patch("tinyup.kernels", "add_kernel")\n@jit\n',
            '@jit\n@patch("tinyup.kernels", "add_kernel")\n',
        )
    )
    result = inventory.take_inventory(_config(runtime_trees / "plugin"))
    assert [(f.code, f.line) for f in result.findings if f.code == "decorator-order"] == [
        ("decorator-order", 13)
    ]


def test_audit_decisions_with_evidence(runtime_trees: Path) -> None:
    plugin = runtime_trees / "plugin"
    result = audit.audit_runtime(
        _config(plugin),
        old=str(runtime_trees / "upstream-1.0"),
        new=str(runtime_trees / "upstream-2.0"),
    )
    decisions = [(a.entry.target, a.entry.line, a.drift.decision) for a in result.entries]
    assert decisions == [
        ("tinyup.sampler.sample", 11, "remove"),
        ("tinyup.sampler.sample", 19, "retain"),
        ("tinyup.scheduler.Scheduler.schedule", 11, "update"),
        ("tinyup.scheduler.Scheduler.make", 21, "retain"),
        ("tinyup.scheduler.Scheduler.create", 29, "update"),
        ("tinyup.registry.BACKENDS", 10, "look"),
        ("tinyup.kernels.add_kernel", 12, "update"),
        ("tinyup.kernels.sub_kernel", 22, "retain"),
    ]
    assert result.entries[0].drift.evidence[0] == (
        "never imported (import commented out at metaplug/patch/bugfix/__init__.py:11: "
        "# import metaplug.patch.bugfix.fix_disabled): remove it, or re-enable the import"
    )
    schedule = result.entries[2].drift
    assert schedule.upstream_changes == ("body",)
    assert "-    return budget\n+    return min(budget, 64)\n" in schedule.upstream_diff
    assert schedule.evidence[1] == (
        "the replacement's code outside its Modification banners equals the old upstream"
    )
    assert "-    if budget <= 0:\n" in schedule.downstream_diff
    create = result.entries[4].drift
    assert create.upstream_changes == ("signature: (cls) -> (cls, name=None)", "body")
    # the plugin registers a string under the key upstream added: which value is not read
    assert result.entries[5].drift.evidence == (
        "the new upstream tinyup.registry.BACKENDS now has the key 'npu', but which value it "
        "registers there, or which one the plugin registers, cannot be read: find out whether "
        "upstream's value does what the plugin's does before removing it",
        "the new upstream tinyup.registry.BACKENDS already has the key 'npu'",
    )
    assert result.entries[6].drift.evidence == (
        "tinyup.kernels.add_kernel moved: retarget to tinyup.ops.kernels.add_kernel (line 5)",
        "tinyup.kernels.add_kernel is moved in the new upstream; now defined at "
        "tinyup.ops.kernels.add_kernel (line 5)",
    )
    assert result.entries[7].drift.evidence == (
        "tinyup.kernels.sub_kernel is in neither release; the patch adds it on purpose "
        "(allow_missing)",
        # not "removed": the old release did not have it either (issue 10 item 7)
        "tinyup.kernels.sub_kernel is not at that path in either release; no definition of "
        "the name anywhere in the new upstream",
    )
    assert [(s.importer, s.local, s.file, s.line, s.patched_by) for s in result.stale] == [
        ("tinyup.engine", "sample", "tinyup/engine.py", 1, ""),
    ]
    assert result.counts["decision"] == {"look": 1, "remove": 1, "retain": 3, "update": 3}
    assert result.exit_code == 1


def test_audit_cli_json_and_warm_cache(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    args = [
        "runtime",
        "audit",
        "--from",
        str(runtime_trees / "upstream-1.0"),
        "--to",
        str(runtime_trees / "upstream-2.0"),
        "--json",
    ]
    first = cli(*args, cwd=plugin)
    second = cli(*args, cwd=plugin)
    assert first.code == 1 and second.code == 1
    assert first.out == second.out
    data = json.loads(first.out)
    assert data["counts"]["decision"]["update"] == 3
    assert data["stale"][0]["importer"] == "tinyup.engine"


def test_inventory_cli_text(runtime_trees: Path, cli) -> None:
    run = cli("runtime", "inventory", cwd=runtime_trees / "plugin")
    assert run.code == 1
    assert run.out.splitlines()[-2:] == [
        "mechanism: decorator 6, registry 1, wrapper 1",
        "activation: active 4, conditional 3, never-imported 1",
    ]


def test_missing_package_is_an_input_error(tmp_path: Path, cli) -> None:
    run = cli("runtime", "inventory", "--plugin", str(tmp_path), "--package", "nothing")
    assert run.code == 2
    assert "the plugin package nothing is not under" in run.err


def test_plugin_and_patch_directory_slips_are_named(runtime_trees: Path, cli, tmp_path) -> None:
    """A new user's slips: a --plugin that does not exist, the package directory itself as
    --plugin, and a --patch-dir outside the plugin (``../..`` was read: "mechanism: none",
    exit 0)."""
    plugin = runtime_trees / "plugin"
    package = next(p.name for p in plugin.iterdir() if (p / "patch").is_dir())
    run = cli("runtime", "inventory", "--plugin", str(tmp_path / "nope"), "--package", package)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin directory {tmp_path / 'nope'} does not exist\n"
        '  hint: pass --plugin DIR (the directory holding the package), or set root = "DIR" '
        "in [tool.patchkeeper.runtime]\n",
    )
    run = cli("runtime", "inventory", "--plugin", str(plugin / package), "--package", package)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package {package} is not under {plugin / package}\n"
        f"  hint: {plugin / package} is the package {package} itself: pass --plugin {plugin}\n",
    )
    for outside in ("../..", str(tmp_path)):
        run = cli("runtime", "inventory", "--plugin", str(plugin), "--package", package,
                  "--patch-dir", outside)  # fmt: skip
        assert (run.code, run.err) == (
            2,
            f"patchkeeper: error: the patch directory {outside} leaves the plugin directory "
            f"{plugin}\n  hint: give --patch-dir (or patch-directory) relative to the plugin "
            "directory, inside it\n",
        )


def test_plugin_inside_its_package_names_the_directory_above(tmp_path: Path, cli) -> None:
    """A --plugin inside the package (a subpackage, its folder of C sources) holds no
    package: the hint names the directory above the top package, not the subpackages found
    there (``the packages there: diffusion`` sent the user to a package the plugin never
    loads), and a subpackage given as the package its patch directory."""
    package = tmp_path / "ggplug" / "ggplug"
    (package / "adapters" / "diffusion").mkdir(parents=True)
    (package / "csrc").mkdir()
    for init in ("", "adapters/", "adapters/diffusion/"):
        (package / f"{init}__init__.py").write_text("")
    (package / "plugin.py").write_text(
        "from vllm.engine.arg_utils import EngineArgs\n\n\n"
        "def register():\n    EngineArgs.create_model_config = lambda self: None\n"
    )
    plugin = package.parent

    cases = {
        ("adapters", "ggplug"): f"pass --plugin {plugin}",
        ("adapters/diffusion", "ggplug"): f"pass --plugin {plugin}",
        ("csrc", "ggplug"): f"pass --plugin {plugin}",
        ("adapters", "adapters"): f"pass --plugin {plugin} --package ggplug --patch-dir "
        "ggplug/adapters (the plugin is loaded through ggplug)",
        ("adapters/diffusion", "ggplug.adapters.diffusion"): f"pass --plugin {plugin} "
        "--package ggplug --patch-dir ggplug/adapters/diffusion (the plugin is loaded "
        "through ggplug)",
        ("adapters", "other"): f"pass --plugin {plugin} and --package NAME, one of the "
        "packages there: ggplug",
    }
    for (folder, name), advice in cases.items():
        given = package / folder
        run = cli("runtime", "inventory", "--plugin", str(given), "--package", name)
        where = f"is inside the package ggplug ({package})"
        assert (run.code, run.err) == (
            2,
            f"patchkeeper: error: the plugin package {name} is not under {given}\n"
            f"  hint: {given} {where}: {advice}\n",
        ), (folder, name)
    run = cli("runtime", "inventory", "--plugin", str(package), "--package", "other")
    assert run.err.endswith(
        f"  hint: {package} is the package ggplug itself: pass --plugin {plugin} and "
        "--package NAME, one of the packages there: ggplug\n"
    )
    run = cli("runtime", "inventory", "--plugin", str(plugin), "--package", "ggplug",
              "--patch-dir", "ggplug/adapters")  # fmt: skip
    assert run.code == 0


def test_a_folder_of_downloaded_archives_is_told_to_unpack_one(tmp_path: Path, cli) -> None:
    """``pip download -d dl`` fills a folder with wheels and sdists: given as --plugin, it
    holds no package, and the hint says so and how to unpack one (it gave the generic
    "pass --plugin DIR")."""
    downloads = tmp_path / "dl"
    downloads.mkdir()
    for name in ("qplug-0.1-py3-none-any.whl", "qplug-0.1.tar.gz", "README.txt"):
        (downloads / name).write_bytes(b"PK")
    unpack = (
        f"  hint: {downloads} holds archives, not an unpacked plugin (qplug-0.1-py3-none-any."
        "whl, qplug-0.1.tar.gz): unpack the plugin's (python -m zipfile -e FILE.whl DIR, or "
        "tar -xf FILE.tar.gz -C DIR) and pass its directory as --plugin\n"
    )
    run = cli("runtime", "inventory", "--plugin", str(downloads), "--package", "qplug")
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package qplug is not under {downloads}\n" + unpack,
    )
    run = cli("runtime", "inventory", "--plugin", str(downloads))
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: the plugin package is not configured\n" + unpack,
    )


def test_a_patch_module_given_as_the_patch_directory_names_its_folder(tmp_path: Path, cli) -> None:
    """--patch-dir a module of the patches (``ggplug/patches/engine.py``): the hint names the
    folder that holds it, not the generic "pass --patch-dir" the user just did."""
    plugin = tmp_path / "plug"
    (plugin / "ggplug" / "patches").mkdir(parents=True)
    (plugin / "ggplug" / "__init__.py").write_text("")
    (plugin / "ggplug" / "patches" / "__init__.py").write_text("")
    (plugin / "ggplug" / "patches" / "engine.py").write_text("import vllm\n")
    run = cli("runtime", "inventory", "--plugin", str(plugin), "--package", "ggplug",
              "--patch-dir", "ggplug/patches/engine.py")  # fmt: skip
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the patch directory ggplug/patches/engine.py under {plugin} is a "
        "regular file, not a directory\n  hint: the patch directory is the folder holding the "
        "patch modules: pass --patch-dir ggplug/patches (or set patch-directory in "
        "[tool.patchkeeper.runtime])\n",
    )


def test_same_code_ignores_docstrings_and_comments(runtime_trees: Path, cli) -> None:
    old = runtime_trees / "upstream-1.0/tinyup/scheduler.py"
    new = runtime_trees / "upstream-2.0/tinyup/scheduler.py"
    same = samecode.same_code(f"{old}::Scheduler.make", f"{new}::Scheduler.make")
    assert same.same is True and same.exit_code == 0
    differs = samecode.same_code(f"{old}::Scheduler.schedule", f"{new}::Scheduler.schedule")
    assert (differs.same, differs.left_line, differs.right_line) == (False, 6, 6)
    assert differs.difference == "budget  !=  min(budget, 64)"
    run = cli("runtime", "same-code", str(old), str(new))
    assert run.code == 1
    assert run.out.startswith(f"different code: {old}:6 vs {new}:6")
    missing = cli("runtime", "same-code", f"{old}::Nope", str(new))
    assert missing.code == 2 and "no function or class Nope" in missing.err


@pytest.mark.parametrize(
    ("qualname", "hint"),
    [
        # defined in a class: the qualified name to write
        ("schedule", "{f} defines it as Scheduler.schedule: write {f}::Scheduler.schedule"),
        # a typo of a name the class defines
        ("Scheduler.schedul", "did you mean Scheduler.schedule? write {f}::Scheduler.schedule"),
        # nothing near: what the class defines, or the module at its top
        ("Scheduler.run", "Scheduler in {f} defines: schedule, make, create"),
        ("Nope", "{f} defines at its top: Scheduler"),
    ],
)
def test_same_code_of_a_missing_name_says_what_the_file_defines(
    runtime_trees: Path, cli, qualname: str, hint: str
) -> None:
    old = runtime_trees / "upstream-1.0/tinyup/scheduler.py"
    new = runtime_trees / "upstream-2.0/tinyup/scheduler.py"
    run = cli("runtime", "same-code", f"{old}::{qualname}", f"{new}::Scheduler.schedule")
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {old}: no function or class {qualname}\n"
        f"  hint: {hint.format(f=old)}\n"
    )


def test_same_code_of_a_name_in_a_file_without_definitions(tmp_path: Path, cli) -> None:
    constants = tmp_path / "constants.py"
    constants.write_text("LIMIT = 64\n")
    run = cli("runtime", "same-code", f"{constants}::LIMIT", str(constants))
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {constants}: no function or class LIMIT\n"
        f"  hint: {constants} defines no function or class: give the file alone to compare "
        "it whole\n"
    )


def test_same_code_of_a_definition_and_a_whole_file_is_refused(tmp_path: Path, cli) -> None:
    """A ``::QUALNAME`` left off one side compared a function with a module: "different
    code" (exit 1, the module at line 0). It is a slip to name: exit 2, with the file side
    completed when that file defines the name, else what it defines."""
    plugin = tmp_path / "plugin.py"
    plugin.write_text("def register():\n    return None\n")
    loader = tmp_path / "loader.py"
    loader.write_text("class Loader:\n    def load(self):\n        pass\n")
    for left, right in ((f"{plugin}::register", str(plugin)), (str(plugin), f"{plugin}::register")):
        run = cli("runtime", "same-code", left, right)
        assert (run.code, run.out, run.err) == (
            2,
            "",
            f"patchkeeper: error: {plugin}: the whole file, compared with the definition "
            f"{plugin}::register: same-code compares a definition with a definition, a file "
            f"with a file\n  hint: compare {plugin}::register with {plugin}::register\n",
        )
    run = cli("runtime", "same-code", str(loader), f"{plugin}::register")
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {loader}: the whole file, compared with the definition "
        f"{plugin}::register: same-code compares a definition with a definition, a file with "
        f"a file\n  hint: add ::QUALNAME to {loader}: {loader} defines at its top: Loader\n",
    )


def test_same_code_gives_the_def_line_of_a_changed_argument_list(runtime_trees: Path, cli):
    """An argument list has no line of its own in the AST: the difference is at the ``def``
    line (before: ``:0`` on both sides)."""
    old = runtime_trees / "upstream-1.0/tinyup/scheduler.py"
    new = runtime_trees / "upstream-2.0/tinyup/scheduler.py"
    differs = samecode.same_code(f"{old}::Scheduler.create", f"{new}::Scheduler.create")
    assert (differs.left_line, differs.right_line) == (13, 14)
    assert differs.difference == "cls  !=  cls, name=None"
    run = cli("runtime", "same-code", f"{old}::Scheduler.create", f"{new}::Scheduler.create")
    assert run.out == (
        f"different code: {old}::Scheduler.create:13 vs {new}::Scheduler.create:14: "
        "cls  !=  cls, name=None\n"
    )


def test_settings_defaults(runtime_trees: Path) -> None:
    settings = resolve_settings(_config(runtime_trees / "plugin"))
    assert (settings.package, settings.patch_directory, settings.upstream_packages) == (
        "metaplug",
        "metaplug/patch",
        ("tinyup",),
    )


@pytest.mark.parametrize("command", ["inventory", "audit"])
def test_runtime_text_fits_80_columns_word_for_word(
    runtime_trees: Path, cli, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """With ``$COLUMNS`` the long entry lines wrap at words under themselves; without it (a
    pipe) each stays one line (docs/terminal-output.md)."""
    args = ["runtime", command]
    if command == "audit":
        args += ["--from", str(runtime_trees / "upstream-1.0")]
        args += ["--to", str(runtime_trees / "upstream-2.0")]
    plugin = runtime_trees / "plugin"
    plain = cli(*args, cwd=plugin).out
    monkeypatch.setenv("COLUMNS", "80")
    fitted = cli(*args, cwd=plugin).out
    assert max(len(line) for line in plain.splitlines()) > 80  # there is something to fit
    assert max(len(line) for line in fitted.splitlines()) <= 80
    assert "".join(fitted.split()) == "".join(plain.split())  # the same text
    # no word that fits a line is cut in two (the temporary paths are longer than a line)
    short = [word for word in plain.split() if len(word) <= 60]
    assert [word for word in fitted.split() if word in short] == short
    assert len(fitted.splitlines()) > len(plain.splitlines())
