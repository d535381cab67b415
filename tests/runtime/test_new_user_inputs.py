"""Runtime commands on odd but real plugin inputs, found by running them on published vLLM
plugins (vllm-rbln 0.12.0, vllm-hi 0.1.0, vllm-kunlun 0.11.1, vllm-musa 0.1.1 wheels) and on
plugins written in their shapes: symbolic links in the patch directory, a byte-order mark,
a NUL byte, a Latin-1 file, a ``src/`` layout, report paths over the plugin's own files.

Each plugin here is written by the test, in the shape of the real one; the upstream is the
``tinyup`` fixture (1.0 and 2.0) of ``tests/runtime/fixtures``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, PYPROJECT, copy_releases, versions, write_plugin


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".patchkeeper" not in p.parts
    }


STEP = HEADER + (
    "import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
    "engine.step = step\n"
)


def test_port_write_refuses_a_patch_file_linked_from_outside_the_plugin(
    upstream: Path, cli
) -> None:
    # A patch file that is a symbolic link to a shared checkout: --write changed that
    # other tree's file (its 'Affected versions:' gained 'Reviewed against 2.0.').
    shared = upstream / "shared"
    shared.mkdir()
    (shared / "p_step.py").write_text(STEP)
    root = write_plugin(
        upstream,
        {"plug/patch/p_own.py": STEP},
        links={"plug/patch/p_link.py": shared / "p_step.py"},
    )
    before, outside = _snapshot(root), (shared / "p_step.py").read_bytes()
    run = cli("runtime", "port", *versions(upstream), "--write", cwd=root)
    assert run.code == 2
    assert run.out == ""
    assert run.err.splitlines() == [
        f"patchkeeper: error: {root / 'plug/patch/p_link.py'}: a symbolic link to "
        f"{shared.resolve() / 'p_step.py'}, outside the plugin directory {root.resolve()}: "
        "runtime port --write does not write through it, and nothing was written",
        "  hint: replace the link by a copy of the file, or leave --write out and apply the "
        "diff (--output FILE) where the link leads by hand",
    ]
    assert _snapshot(root) == before
    assert (shared / "p_step.py").read_bytes() == outside
    # Without --write the diff is still shown, the link's file included.
    shown = cli("runtime", "port", *versions(upstream), cwd=root)
    assert shown.code == 0
    assert "+++ b/plug/patch/p_link.py" in shown.out
    assert (shared / "p_step.py").read_bytes() == outside


def test_lock_output_never_replaces_the_plugins_project_file(upstream: Path, cli) -> None:
    # runtime lock --output pyproject.toml replaced the plugin's project file (its entry
    # points with it: every entry then read 'never imported').
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    before = _snapshot(root)
    run = cli(
        "runtime",
        "lock",
        "--at",
        str(upstream / "upstream-1.0"),
        "--output",
        "pyproject.toml",
        cwd=root,
    )
    assert run.code == 2
    assert run.out == ""
    assert run.err.splitlines() == [
        "patchkeeper: error: pyproject.toml: --output names an existing file that is not a "
        "patchkeeper lock file: the lock would replace it",
        "  hint: pass --output a new file or an earlier lock file, e.g. --output patchkeeper.lock",
    ]
    assert _snapshot(root) == before
    # A new file, then that lock again, are written.
    first = cli(
        "runtime",
        "lock",
        "--at",
        str(upstream / "upstream-1.0"),
        "--output",
        "guard.lock",
        cwd=root,
    )
    assert first.code == 0
    again = cli(
        "runtime",
        "lock",
        "--at",
        str(upstream / "upstream-2.0"),
        "--output",
        "guard.lock",
        cwd=root,
    )
    assert again.code == 0
    assert '"version": "2.0"' in (root / "guard.lock").read_text()


@pytest.mark.parametrize("name", ["pyproject.toml", "setup.cfg", "requirements.txt"])
def test_runtime_markdown_never_replaces_a_project_file(upstream: Path, cli, name: str) -> None:
    # runtime audit --markdown pyproject.toml replaced the plugin's project file with the
    # report (only a .py file was refused).
    project, config = PYPROJECT.split("[tool.patchkeeper]\n")
    files = {
        "plug/patch/p_step.py": STEP,
        "patchkeeper.toml": config.replace("tool.patchkeeper.", ""),
    }
    if name != "pyproject.toml":
        files[name] = "[metadata]\n"
    root = write_plugin(upstream, files, pyproject=project)
    before = _snapshot(root)
    for command in (["runtime", "inventory"], ["runtime", "audit", *versions(upstream)]):
        run = cli(*command, "--markdown", name, cwd=root)
        assert run.code == 2
        assert run.out == ""
        assert run.err.splitlines() == [
            f"patchkeeper: error: {name}: --markdown names a project, configuration or patch "
            "file, not a report: the report would replace it",
            "  hint: pass --markdown a file of its own, e.g. --markdown audit.md",
        ]
    assert _snapshot(root) == before


def test_a_dangling_link_in_the_patch_directory_is_named_not_a_traceback(
    upstream: Path, cli
) -> None:
    # A patch file that is a symbolic link to a missing file: inventory, audit, lock and
    # port stopped with an internal error (FileNotFoundError, exit 3).
    root = write_plugin(
        upstream, {"plug/patch/p_step.py": STEP}, links={"plug/patch/p_gone.py": upstream / "no"}
    )
    before = _snapshot(root)
    gone = f"the file cannot be read: a symbolic link to {upstream / 'no'} that does not exist"
    inventory = cli("runtime", "inventory", cwd=root)
    assert inventory.code == 1
    assert f"  plug/patch/p_gone.py: unreadable: {gone}" in inventory.out.splitlines()
    audit = cli("runtime", "audit", *versions(upstream), cwd=root)
    assert audit.code == 1
    assert audit.out.splitlines()[-6:-4] == [
        "not audited (1 file(s); their entries are unknown):",
        f"  plug/patch/p_gone.py: {gone}",
    ]
    for command in (
        ["lock", "--at", str(upstream / "upstream-2.0")],
        ["port", *versions(upstream), "--write"],
    ):
        run = cli("runtime", *command, cwd=root)
        assert run.code == 2
        assert run.err.splitlines() == [
            f"patchkeeper: error: {root / 'plug/patch/p_gone.py'}: {gone}: runtime "
            f"{command[0]} cannot read this file's patches, and would act as if it had none",
            "  hint: restore the file (a symbolic link must lead to a file that exists) or "
            "remove it from the patch directory, and run the command again",
        ]
    assert _snapshot(root) == before


def test_a_nul_byte_is_a_syntax_finding_at_its_line(upstream: Path, cli) -> None:
    # Python names no line for a NUL byte: the finding read 'source code string cannot
    # contain null bytes (line None)', at no line.
    text = STEP.encode() + b"VALUE = 1\x00\n"
    root = write_plugin(upstream, {"plug/patch/p_step.py": text})
    run = cli("runtime", "inventory", "--json", cwd=root)
    assert run.code == 1
    import json

    findings = json.loads(run.out)["findings"]
    assert [f for f in findings if f["code"] == "syntax"] == [
        {
            "code": "syntax",
            "path": "plug/patch/p_step.py",
            "line": 12,
            "message": "source code string cannot contain null bytes",
            "hint": "make it valid Python (python -m py_compile plug/patch/p_step.py shows the "
            "error): until then its patches are not read",
        }
    ]


def test_port_names_a_latin1_patch_file_instead_of_a_traceback(upstream: Path, cli) -> None:
    # A patch file in Latin-1 with its PEP 263 'coding:' line (valid Python): runtime port
    # stopped with an internal error (UnicodeEncodeError, exit 3).
    latin = (
        b"# -*- coding: latin-1 -*-\n# Note: caf\xe9\n# Affected versions: 1.0\n# Remove at: 3.0\n"
        b"import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
        b"engine.step = step\n"
    )
    root = write_plugin(upstream, {"plug/patch/p_latin.py": latin})
    before = _snapshot(root)
    run = cli("runtime", "port", *versions(upstream), "--write", cwd=root)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"patchkeeper: error: {root / 'plug/patch/p_latin.py'}:2: not UTF-8 (byte 0xe9): "
        "runtime port reads and writes patch files as UTF-8, and nothing was written",
        "  hint: convert the file to UTF-8 (e.g. iconv -f latin-1 -t utf-8, and drop its "
        "'coding:' line), then run the command again",
    ]
    assert _snapshot(root) == before
    # The read-only commands read it as Python does.
    inventory = cli("runtime", "inventory", cwd=root)
    assert "plug/patch/p_latin.py:12  assignment  tinyup.engine.step" in inventory.out


REGISTRY = """from importlib import import_module

_DESCRIPTORS = []


def register_patch(*, target, reason, priority=50):
    def _decorator(replacement):
        _DESCRIPTORS.append((target, replacement, priority))
        return replacement

    return _decorator


def apply_registered_patches():
    for target, replacement, _priority in sorted(_DESCRIPTORS, key=lambda d: d[2]):
        module, _, attr = target.rpartition(".")
        setattr(import_module(module), attr, replacement)
"""

RBLN_SHAPED = (
    HEADER
    + """from plug.patch.registry import register_patch


@register_patch(
    target="tinyup.scheduler.Scheduler.schedule",
    reason="cap the budget at the device's batch size",
)
def patched_schedule(self, budget):
    return min(budget, 8)


def _sample(logits):
    return logits[0]


register_patch(target="tinyup.sampler.sample", reason="greedy on the device")(_sample)
"""
)


def test_a_register_patch_decorator_naming_its_whole_target_is_read(upstream: Path, cli) -> None:
    # vllm-rbln 0.12.0 patches vLLM through '@register_patch(target="vllm.x.Class.attr",
    # reason=...)' (42 of them): the inventory listed none of them, and a configured
    # 'decorators = [...register_patch]' only gave "the patch decorator's module is not a
    # constant string" for each.
    files = {"plug/patch/registry.py": HEADER + REGISTRY, "plug/patch/p_rbln.py": RBLN_SHAPED}
    root = write_plugin(upstream, files)
    run = cli("runtime", "inventory", cwd=root)
    assert run.code == 0
    assert run.out.splitlines()[2:7] == [
        "plug/patch/p_rbln.py:7  decorator   tinyup.scheduler.Scheduler.schedule  <- "
        "plug.patch.p_rbln:patched_schedule",
        "    active",
        "plug/patch/p_rbln.py:19  decorator   tinyup.sampler.sample  <- plug.patch.p_rbln:_sample",
        "    active",
        "mechanism: decorator 2",
    ]
    audit = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    import json

    entries = json.loads(audit.out)["entries"]
    # Resolved in both releases as any other target: module and qualified name found.
    assert [(e["entry"]["target"], e["old"]["module"], e["new"]["qualname"]) for e in entries] == [
        ("tinyup.scheduler.Scheduler.schedule", "tinyup.scheduler", "Scheduler.schedule"),
        ("tinyup.sampler.sample", "tinyup.sampler", "sample"),
    ]


def test_a_header_after_a_byte_order_mark_is_read(upstream: Path, cli) -> None:
    # A patch file saved with a UTF-8 byte-order mark (valid Python): its first header line
    # was not read, 'header-missing: no 'Note:' in the header'.
    root = write_plugin(upstream, {"plug/patch/p_step.py": b"\xef\xbb\xbf" + STEP.encode()})
    run = cli("runtime", "inventory", cwd=root)
    assert run.code == 0
    assert run.out.splitlines()[2:5] == [
        "plug/patch/p_step.py:11  assignment  tinyup.engine.step  <- plug.patch.p_step:step",
        "    active",
        "mechanism: assignment 1",
    ]


def test_a_src_layout_plugin_keeps_its_entry_points(upstream: Path, cli) -> None:
    # A plugin in a src/ layout (the package under src/, pyproject.toml beside src/):
    # '--plugin DIR' said the package is not under DIR, and '--plugin DIR/src' lost the
    # entry points of DIR/pyproject.toml, so every entry read 'never imported'.
    flat = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    (flat / "src").mkdir()
    (flat / "plug").rename(flat / "src" / "plug")
    expected = [
        f"plugin plug ({flat / 'src'}), patch directory plug/patch: 2 files, 1 entry",
        "entry point tinyup.general_plugins:plug = plug.patch:apply (../pyproject.toml)",
        "plug/patch/p_step.py:11  assignment  tinyup.engine.step  <- plug.patch.p_step:step",
        "    active",
    ]
    for plugin in (flat, flat / "src"):
        run = cli("runtime", "inventory", "--plugin", str(plugin), cwd=flat)
        assert run.code == 0
        assert run.out.splitlines()[:4] == expected


GONE_MODULE = (
    HEADER
    + """

def patch_kernels():
    import tinyup.kernels as kernels_module

    kernels_module.fused = lambda x: x


def apply_all():
    patch_kernels()
"""
)


def test_an_imported_module_the_new_release_lost_is_a_finding(upstream: Path, cli) -> None:
    # vllm-hi 0.1.0 runs 'import vllm.entrypoints.openai.cli_args as cli_args_module' in a
    # patch function; vLLM 0.29.0 moved that module away. 'from m import name' and attribute
    # chains were checked, a plain 'import m' was not: no finding, the patch failed at run time.
    root = write_plugin(upstream, {"plug/patch/p_gone.py": GONE_MODULE})
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    import json

    findings = json.loads(run.out)["findings"]
    assert findings == [
        {
            "code": "breaks-when-called",
            "path": "plug/patch/p_gone.py",
            "line": 7,
            "message": "tinyup.kernels is gone from the new upstream: the plugin breaks when the "
            "code using it runs",
            "hint": "",
        }
    ]


GUARDED_GONE_MODULE = (
    HEADER
    + """

def patch():
    try:
        from tinyup import kernels
        from tinyup.missing_in_both import helper
    except Exception:
        return
    try:
        import tinyup.kernels as again
    except ImportError:
        raise
    kernels.fused = lambda x: x
    again.fused = helper
"""
)


def test_an_import_of_a_lost_module_that_a_try_catches_is_said_to_stop_patching(
    upstream: Path, cli
) -> None:
    # vllm-service-ple 0.2.2 imports vllm.models.qwen4_exp... inside 'try: ... except
    # Exception: return'; at a release without that module the audit said 'the plugin
    # breaks when the code using it runs', though the except runs and the plugin silently
    # stops patching. An except that raises again still breaks the plugin.
    root = write_plugin(upstream, {"plug/patch/p_guarded.py": GUARDED_GONE_MODULE})
    before = _snapshot(root)
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    assert run.code == 1
    findings = json.loads(run.out)["findings"]
    assert findings == [
        {
            "code": "guarded-gone",
            "path": "plug/patch/p_guarded.py",
            "line": 8,
            "message": "tinyup.kernels is gone from the new upstream: the `except` at line 10 "
            "catches the error, so the rest of its `try` no longer runs and what it patches "
            "is no longer patched",
            "hint": "use the name where the new upstream defines it, or remove the patches "
            "this `try` guards if the new upstream no longer needs them",
        },
        {
            "code": "breaks-when-called",
            "path": "plug/patch/p_guarded.py",
            "line": 13,
            "message": "tinyup.kernels is gone from the new upstream: the plugin breaks when the "
            "code using it runs",
            "hint": "",
        },
    ]
    assert _snapshot(root) == before


def test_the_guard_says_where_a_relative_lock_path_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The guard's documented call, check("vllm_metax/patch/patchkeeper.lock"), reads the
    # path from the current directory: in a vLLM server started anywhere else the shipped
    # lock was 'cannot read ... No such file or directory', with 'ship the lock file' as
    # the only advice, though it was shipped.
    from patchkeeper.guard import GuardError, GuardWarning, check

    monkeypatch.chdir(tmp_path)
    expected = (
        "plug/patch/patchkeeper.lock: cannot read the lock file: No such file or directory (a "
        f"relative path, read from the current directory {tmp_path}: pass the path built from "
        "the plugin module's __file__); nothing was compared with the audited release: run "
        "patchkeeper runtime lock --at UPSTREAM==VERSION in the plugin's source tree and ship "
        "the lock file with the plugin (as package data)"
    )
    with pytest.warns(GuardWarning) as caught:
        check("plug/patch/patchkeeper.lock")
    assert [str(w.message) for w in caught] == [expected]
    with pytest.raises(GuardError) as raised:
        check("plug/patch/patchkeeper.lock", strict=True)
    assert str(raised.value) == expected


def test_the_errors_of_a_first_run_name_the_package_and_patch_directory_to_pass(
    upstream: Path, cli
) -> None:
    # A new user's first runs on published plugins: the vllm-musa wheel installs the package
    # vllm_musa_platform, and vllm-rbln keeps its patches in vllm_rbln/patches; each error
    # only said to pass --plugin / --patch-dir.
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    (root / "plug" / "patch").rename(root / "plug" / "patches")
    (root / "plug" / "patches" / "patch_v2").mkdir()
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "plugin", cwd=root)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package plugin is not under {root}\n"
        "  hint: the packages there: plug; pass --package NAME, one of them\n",
    )
    # No <package>/patch: the whole package is scanned (no error), its patches found where
    # they are.
    run = cli("runtime", "inventory", "--json", cwd=root)
    data = json.loads(run.out)
    assert (run.code, data["patch_directory"]) == (0, "plug")
    assert [(e["file"], e["line"], e["target"]) for e in data["entries"]] == [
        ("plug/patches/p_step.py", 11, "tinyup.engine.step")
    ]
    # A patch directory the user names and that is not there is still an error.
    run = cli("runtime", "inventory", "--patch-dir", "plug/patch", cwd=root)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the patch directory plug/patch does not exist under {root}\n"
        "  hint: the package has plug/patches, plug/patches/patch_v2: pass --patch-dir "
        "plug/patches (or set patch-directory in [tool.patchkeeper.runtime])\n",
    )
    run = cli("runtime", "inventory", "--patch-dir", "plug/patches", cwd=root)
    assert run.code == 0


@pytest.mark.parametrize("layout", ["", "src/"])
def test_a_plugin_without_package_names_the_packages_there(
    cli, tmp_path: Path, layout: str
) -> None:
    # 'runtime inventory --plugin vllm_mblt-0.8.0' (an unpacked wheel) without --package, or
    # vllm-hust-opset's sdist (a src layout): the error said only to pass --package NAME.
    (tmp_path / f"{layout}vllm_mblt").mkdir(parents=True)
    (tmp_path / f"{layout}vllm_mblt" / "__init__.py").write_text("def register():\n    pass\n")
    (tmp_path / "vllm_mblt-0.8.0.dist-info").mkdir()
    run = cli("runtime", "inventory", "--plugin", str(tmp_path), cwd=tmp_path)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: the plugin package is not configured\n"
        f"  hint: the packages in {tmp_path}: vllm_mblt; pass --package NAME or set package = "
        '"NAME" in [tool.patchkeeper.runtime]\n',
    )


@pytest.mark.parametrize("given", ["../../etc", "/etc", "plugin/plug", ".plug"])
def test_a_package_given_as_a_path_is_refused_as_given(upstream: Path, cli, given: str) -> None:
    # '--package ../../etc' made each dot a slash: the package was looked for as ROOT///////etc,
    # i.e. /etc, and the patch directory shown as '//////etc/patch'. The package is an
    # import name; a path is the plugin directory's to give.
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", given, cwd=upstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: the plugin package {given!r} is a path, not an import name\n"
        "  hint: give the directory holding the package as --plugin DIR (or root) and its "
        "import name as --package NAME (or package), e.g. --plugin . --package vllm_ascend\n",
    )
    assert "//" not in run.err


def test_a_configured_package_given_as_a_path_names_the_configuration_file(
    upstream: Path, cli
) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    assert 'package = "plug"' in text
    pyproject.write_text(text.replace('package = "plug"', 'package = "../../etc"'))
    run = cli("runtime", "inventory", cwd=root)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {pyproject}: the plugin package '../../etc' is a path, not an "
        "import name\n"
        "  hint: give the directory holding the package as --plugin DIR (or root) and its "
        "import name as --package NAME (or package), e.g. --plugin . --package vllm_ascend\n",
    )


@pytest.mark.parametrize("given", ["./plug//patch/", "plug/./patch", "plug//patch"])
def test_a_patch_dir_written_loosely_is_shown_and_read_as_the_plain_one(
    upstream: Path, cli, given: str
) -> None:
    # '--patch-dir plug//patch' was shown as written in every result, and the entries' files
    # (plug/patch/p_step.py) were matched against it by prefix.
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    plain = cli("runtime", "inventory", "--json", "--patch-dir", "plug/patch", cwd=root)
    loose = cli("runtime", "inventory", "--json", "--patch-dir", given, cwd=root)
    assert (loose.code, loose.out) == (plain.code, plain.out)
    assert json.loads(loose.out)["patch_directory"] == "plug/patch"
    text = cli("runtime", "inventory", "--patch-dir", given, cwd=root)
    assert text.out.splitlines()[0] == (
        f"plugin plug ({root}), patch directory plug/patch: 2 files, 1 entry"
    )


def test_a_plugin_whose_project_table_is_malformed(upstream: Path, cli) -> None:
    """``entry-points`` written as a string (``entry-points = "plug.patch:apply"``, not the
    table PEP 621 asks for) stopped the inventory with "internal error (ValueError:
    dictionary update sequence ...)". The plugin declares no entry point then: its patch is
    listed, its loading untraced, as for a plugin whose pyproject.toml cannot be read."""
    broken = PYPROJECT.replace(
        '[project.entry-points."tinyup.general_plugins"]\nplug = "plug.patch:apply"\n',
        "",
    ).replace('version = "0.1"\n', 'version = "0.1"\nentry-points = "plug.patch:apply"\n')
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=broken)
    run = cli("runtime", "inventory", "--json", cwd=root)
    data = json.loads(run.out)
    assert (run.code, data["entry_points"]) == (0, []), run.err
    assert [(e["file"], e["target"]) for e in data["entries"]] == [
        ("plug/patch/p_step.py", "tinyup.engine.step")
    ]


def test_port_says_a_lost_import_a_try_catches_stops_patching(upstream: Path, cli) -> None:
    # runtime port of the same vllm-service-ple shape: the import of the lost module was
    # listed as one that 'breaks at' the new release, though its except catches it.
    root = write_plugin(upstream, {"plug/patch/p_guarded.py": GUARDED_GONE_MODULE})
    before = _snapshot(root)
    run = cli("runtime", "port", *versions(upstream), "--json", cwd=root)
    assert run.code == 1
    imports = [e for e in json.loads(run.out)["entries"] if e["decision"] == "import"]
    assert [(e["line"], e["detail"]) for e in imports] == [
        (
            8,
            "`from tinyup import kernels` fails at 2.0, its `except` at line 10 catching that "
            "(what the rest of the `try` patches is no longer patched): tinyup has no kernels "
            "there (no module of 2.0 defines it): rewrite the import by hand",
        ),
        (
            13,
            "`import tinyup.kernels` breaks at 2.0: no module tinyup.kernels there: rewrite it "
            "by hand",
        ),
    ]
    assert _snapshot(root) == before


REGISTER_MODELS = (
    HEADER
    + """import tinyup.registry as registry

_MODELS = {"TinyForCausalLM": ("tiny", "modeling_tiny", "TinyForCausalLM")}

for arch, (folder, name, cls) in _MODELS.items():
    registry.BACKENDS[arch] = f"plug.models.{folder}.{name}:{cls}"
"""
)
MODEL = (
    HEADER
    + """import tinyup.engine as engine


def step(logits):
    return None


engine.step = step
"""
)


def test_a_module_an_f_string_names_for_the_upstream_is_not_never_imported(
    upstream: Path, cli
) -> None:
    # vllm-omni 0.31.0rc1 registers each model as
    # f"vllm_omni.model_executor.models.{mod_folder}.{mod_relname}:{cls_name}" in vLLM's lazy
    # model registry, which imports the module when that model is served. Nothing imported
    # the model modules statically: 25 of their entries, all kept in 0.32.0rc1, were
    # 'never imported' and *remove*.
    pyproject = PYPROJECT.replace('package = "plug"', 'package = "plug"\npatch-directory = "plug"')
    root = write_plugin(
        upstream,
        {
            "plug/patch/p_models.py": REGISTER_MODELS,
            "plug/models/__init__.py": "",
            "plug/models/tiny/__init__.py": "",
            "plug/models/tiny/modeling_tiny.py": MODEL,
        },
        pyproject,
    )
    before = _snapshot(root)
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    entries = {
        e["entry"]["file"]: (e["entry"]["activation"], e["drift"]["decision"])
        for e in json.loads(run.out)["entries"]
    }
    activation, decision = entries["plug/models/tiny/modeling_tiny.py"]
    assert (activation["status"], decision) == ("conditional", "retain")
    assert activation["conditions"] == [
        {
            "kind": "computed-import",
            "text": "f'plug.models.{folder}.{name}:{cls}' names it (imported when that name"
            " is asked for)",
            "file": "plug/patch/p_models.py",
            "line": 9,
        }
    ]
    assert _snapshot(root) == before


SESSION = (
    HEADER
    + """

class StreamSession:
    def __init__(self, device):
        if device == "npu":
            from plug.patch import npu_wrapper

            self.wrapper = npu_wrapper
"""
)


def test_a_module_imported_only_in_an_uncalled_method_is_look(upstream: Path, cli) -> None:
    # vllm-omni 0.31.0rc1 imports platforms/npu/models/moss_tts_streaming_decode_wrapper.py
    # only in _MossCodecStreamSession.__init__, a method of a module that runs but that no
    # call the plugin's loading reaches runs. Its entry was 'never imported' and *remove*,
    # though the maintainers kept it in 0.32.0rc1: the model builds the session at run time.
    root = write_plugin(
        upstream,
        {"plug/patch/p_session.py": SESSION, "plug/patch/npu_wrapper.py": MODEL},
    )
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    drift = {e["entry"]["file"]: e["drift"] for e in json.loads(run.out)["entries"]}
    assert drift["plug/patch/npu_wrapper.py"]["decision"] == "look"
    assert drift["plug/patch/npu_wrapper.py"]["evidence"][0] == (
        "never imported (imported only in functions no reached scope calls: "
        "plug/patch/p_session.py:9 (in StreamSession.__init__)): the modules holding those "
        "imports run, but no call the plugin's loading reaches runs the functions; a user, a "
        "test or upstream may call them (a method of a class upstream builds): find out "
        "whether they run before removing it"
    )


def test_a_src_layout_with_a_package_at_its_top_names_the_plugin_package_first(
    cli, tmp_path: Path
) -> None:
    # vllm-hust-vspec's sdist: its package under src/ (packages.find where = ["src"]), and a
    # benchmarks/ package of its own at the top. The hint listed benchmarks alone, for a
    # mistyped --package (vllm-hust-vspec) and for none at all.
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "vllm-hust-vspec"\nversion = "0.14.2"\n\n'
        '[tool.setuptools.packages.find]\nwhere = ["src"]\n'
    )
    for package in ("src/vllm_hust_vspec", "benchmarks"):
        (tmp_path / package).mkdir(parents=True)
        (tmp_path / package / "__init__.py").write_text("")
    run = cli("runtime", "inventory", "--plugin", str(tmp_path), cwd=tmp_path)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: the plugin package is not configured\n"
        f"  hint: the packages in {tmp_path}: vllm_hust_vspec, benchmarks; pass --package "
        'NAME or set package = "NAME" in [tool.patchkeeper.runtime]\n',
    )
    given = ["--plugin", str(tmp_path), "--package", "vllm-hust-vspec"]
    run = cli("runtime", "inventory", *given, cwd=tmp_path)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package vllm-hust-vspec is not under {tmp_path}\n"
        "  hint: the packages there: vllm_hust_vspec, benchmarks; pass --package NAME, one "
        "of them\n",
    )


def test_a_subpackage_as_the_plugin_package_is_refused_naming_the_patch_dir(
    upstream: Path, cli
) -> None:
    # 'runtime inventory --package vllm_hust_vspec.backends': the entry point loads
    # vllm_hust_vspec, which was not read, so every patch of the subpackage was listed as
    # never imported although the plugin imports it when loaded.
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "plug.patch")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: the plugin package plug.patch is a subpackage of plug: the plugin "
        "is loaded through plug, which plug.patch alone would not read (its patches would "
        "look never imported)\n"
        "  hint: pass --package plug --patch-dir plug/patch for the patches of plug.patch (or "
        'set package = "plug" and patch-directory = "plug/patch" in '
        "[tool.patchkeeper.runtime])\n",
    )
    # what the hint says to pass reads the subpackage's patches as the plugin loads them
    given = ["--plugin", str(root), "--package", "plug", "--patch-dir", "plug/patch"]
    run = cli("runtime", "inventory", "--json", *given)
    entries = json.loads(run.out)["entries"]
    assert [(e["target"], e["activation"]["status"]) for e in entries] == [
        ("tinyup.engine.step", "active")
    ]


def test_a_place_typed_wrong_is_named_before_the_package_left_out(upstream: Path, cli) -> None:
    """Without a package configured, a missing --plugin, --from, --to, --at or --patch-dir
    was answered "the plugin package is not configured": the user fixed the package and
    only then learned of the path they had mistyped."""
    hint = (
        "  hint: give a directory, a release's sdist or wheel file, or a pinned requirement "
        "such as vllm==0.32.0\n"
    )
    good_old, good_new = str(upstream / "upstream-1.0"), str(upstream / "upstream-2.0")
    runs = [
        (
            ("runtime", "inventory", "--plugin", "/does/not/exist"),
            "patchkeeper: error: the plugin directory /does/not/exist does not exist\n"
            "  hint: pass --plugin DIR (the directory holding the package), or set root = "
            '"DIR" in [tool.patchkeeper.runtime]\n',
        ),
        (
            ("runtime", "audit", "--from", "./gone-1.0", "--to", good_new),
            "patchkeeper: error: the old upstream (--from): no such directory: ./gone-1.0\n" + hint,
        ),
        (
            ("runtime", "port", "--from", good_old, "--to", "./gone-2.0"),
            "patchkeeper: error: the new upstream (--to): no such directory: ./gone-2.0\n" + hint,
        ),
        (
            ("runtime", "lock", "--at", "gone-1.0/"),
            "patchkeeper: error: the release to lock (--at): no such directory: gone-1.0/\n" + hint,
        ),
        (
            ("runtime", "inventory", "--patch-dir", "plug/patches"),
            f"patchkeeper: error: the patch directory plug/patches does not exist under "
            f"{upstream}\n"
            f"  hint: give --patch-dir relative to the plugin directory {upstream} (the folder "
            "holding the patch modules, as PACKAGE/patches), and the package: --package NAME "
            'or package = "NAME" in [tool.patchkeeper.runtime]\n',
        ),
        (
            ("runtime", "inventory", "--patch-dir", "../patches"),
            f"patchkeeper: error: the patch directory ../patches leaves the plugin directory "
            f"{upstream}\n"
            "  hint: give --patch-dir (or patch-directory) relative to the plugin directory, "
            "inside it\n",
        ),
    ]
    for args, err in runs:
        run = cli(*args, cwd=upstream)
        assert (run.code, run.out, run.err) == (2, "", err), args
    # with the places right, the package left out is what is said
    run = cli("runtime", "audit", "--from", good_old, "--to", good_new, cwd=upstream)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        "patchkeeper: error: the plugin package is not configured",
    )
