"""Requirements on the command line are checked before anything is fetched: the project must be
the configured upstream (PEP 503 names), and an option that names one release takes one version
(user report: ``audit --to flask==2.2.2`` in a werkzeug downstream; ``verify --pristine
'werkzeug>=2.2'`` verified against the newest release)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import Example, tree_bytes


def _config_line(example: Example) -> str:
    return f"{example.downstream / 'patchkeeper.toml'}:2"


@pytest.mark.parametrize(
    ("args", "option", "spec"),
    [
        (("audit", "--to", "flask==2.2.2"), "--to", "flask==2.2.2"),
        (("audit", "--to", "flask>=1.0,<2"), "--to", "flask>=1.0,<2"),
        (("audit", "--to", "../upstream/minihttp-1.1", "--pristine", "Flask==1.0"), "--pristine",
         "Flask==1.0"),
        (("port", "--to", "flask==2.2.2"), "--to", "flask==2.2.2"),
        (("port", "--to", "../upstream/minihttp-1.1", "--from", "flask==1.0"), "--from",
         "flask==1.0"),
        (("verify", "--target", "../upstream/minihttp-1.0", "--pristine", "flask==1.0"),
         "--pristine", "flask==1.0"),
        (("status", "--target", "../upstream/minihttp-1.0", "--pristine", "flask==1.0"),
         "--pristine", "flask==1.0"),
        (("runtime", "audit", "--plugin", ".", "--package", "p", "--from", "torch==2.0",
          "--to", "minihttp==1.1"), "--from", "torch==2.0"),
        (("runtime", "audit", "--plugin", ".", "--package", "p", "--from",
          "../upstream/minihttp-1.0", "--to", "torch==2.0"), "--to", "torch==2.0"),
        (("runtime", "port", "--plugin", ".", "--package", "p", "--from",
          "../upstream/minihttp-1.0", "--to", "Torch>=2"), "--to", "Torch>=2"),
        (("runtime", "port", "--plugin", ".", "--package", "p", "--from", "torch==2.0",
          "--to", "../upstream/minihttp-1.1"), "--from", "torch==2.0"),
        (("runtime", "lock", "--plugin", ".", "--package", "p", "--at", "torch==2.0"), "--at",
         "torch==2.0"),
    ],
)  # fmt: skip
def test_a_requirement_of_another_project_is_refused(
    cli, example: Example, args: tuple[str, ...], option: str, spec: str, tmp_path, monkeypatch
) -> None:
    """Refused before anything is fetched: the download cache stays empty (user report:
    ``runtime audit --from torch==2.0`` in a vllm downstream tried to fetch torch)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    before = tree_bytes(example.root)
    run = cli(*args, cwd=example.downstream)
    assert run.code == 2
    assert not cache.exists()
    project = re.match(r"[\w.-]+", spec)[0]
    assert run.err == (
        f"patchkeeper: error: {_config_line(example)}: {option} {spec} names the project "
        f"{project}, but the configured upstream is minihttp\n"
        f"  hint: pass a requirement of minihttp ({option} minihttp==VERSION), or fix "
        "'upstream' in patchkeeper.toml\n"
    )
    assert tree_bytes(example.root) == before


def test_names_are_compared_as_pep_503_names(cli, example: Example) -> None:
    """``upstream = "MiniHTTP"`` and ``--to 'MINIHTTP>=1.0'`` name one project."""
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('upstream = "minihttp"', 'upstream = "MiniHTTP"'))
    run = cli("audit", "--to", "MINIHTTP>=1.0", "--releases", "../upstream",
              cwd=example.downstream)  # fmt: skip
    assert (run.code, run.err) == (1, "")
    assert "releases in MINIHTTP>=1.0: 1.0, 1.1, 1.2" in run.out


@pytest.mark.parametrize(
    ("args", "option", "spec", "what"),
    [
        (("port", "--to", "minihttp>=1.1"), "--to", "minihttp>=1.1", "the range >=1.1"),
        (("port", "--to", "../upstream/minihttp-1.1", "--from", "minihttp==1.*"), "--from",
         "minihttp==1.*", "the range ==1.*"),
        (("verify", "--target", "../upstream/minihttp-1.0", "--pristine", "minihttp>=1.0"),
         "--pristine", "minihttp>=1.0", "the range >=1.0"),
        (("status", "--target", "../upstream/minihttp-1.0", "--pristine", "minihttp~=1.0"),
         "--pristine", "minihttp~=1.0", "the range ~=1.0"),
        (("unapply", "--target", "../upstream/minihttp-1.0", "--pristine", "minihttp!=1.0"),
         "--pristine", "minihttp!=1.0", "the range !=1.0"),
        (("audit", "--to", "minihttp>=1.0", "--pristine", "minihttp>=1.0"), "--pristine",
         "minihttp>=1.0", "the range >=1.0"),
        (("runtime", "audit", "--plugin", ".", "--package", "p", "--from", "minihttp>=1.0",
          "--to", "minihttp==1.1"), "--from", "minihttp>=1.0", "the range >=1.0"),
        (("runtime", "port", "--plugin", ".", "--package", "p", "--from", "minihttp==1.0",
          "--to", "minihttp<2"), "--to", "minihttp<2", "the range <2"),
        (("runtime", "lock", "--plugin", ".", "--package", "p", "--at", "minihttp>0"), "--at",
         "minihttp>0", "the range >0"),
    ],
)  # fmt: skip
def test_an_option_naming_one_release_refuses_a_range(
    cli, example: Example, args: tuple[str, ...], option: str, spec: str, what: str
) -> None:
    before = tree_bytes(example.root)
    run = cli(*args, cwd=example.downstream)
    assert run.code == 2
    name = re.match(r"[\w.-]+", spec)[0]
    assert run.err == (
        f"patchkeeper: error: {option} names one release, but {spec} has {what}, not one "
        f"version\n  hint: use {option} {name}==VERSION (or a directory)\n"
    )
    assert tree_bytes(example.root) == before


def test_a_path_and_an_exact_pin_are_not_refused(cli, example: Example) -> None:
    """A directory is not a requirement; ``audit --to`` with a range stays the horizon."""
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../upstream",
              "--pristine", "../upstream/minihttp-1.0", cwd=example.downstream)  # fmt: skip
    assert run.code == 1
    assert "next pin: stay at 1.0" in run.out


def test_the_configured_pristine_is_checked_too(cli, example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    text = config.read_text().replace('pristine = "../upstream/minihttp-1.0"', "")
    config.write_text(text + 'pristine = "minihttp>=1.0"\n')
    line = len(config.read_text().splitlines())
    target = example.target()
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {config}:{line}: pristine names one release, but minihttp>=1.0 "
        'has the range >=1.0, not one version\n  hint: use pristine = "minihttp==VERSION" (or '
        "a directory)\n",
    )
    config.write_text(text + 'pristine = "requests==2.0"\n')
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f'patchkeeper: error: {config}:2: pristine = "requests==2.0" names the project '
        "requests, but the configured upstream is minihttp\n  hint: pass a requirement of "
        "minihttp (pristine = \"minihttp==VERSION\"), or fix 'upstream' in patchkeeper.toml\n",
    )


@pytest.mark.parametrize(
    ("spec", "what"),
    [
        # an sdist is a release: of another project than the upstream, before it is read
        (
            "flask-2.2.2.tar.gz",
            "this is a release of flask, but the configured upstream is minihttp",
        ),
        (
            "./flask==2.2.2",
            "this is a file; a target is an upstream tree (a directory), an sdist or wheel "
            "file, or a requirement such as NAME==VERSION",
        ),
    ],
)
def test_a_path_is_not_a_requirement_of_another_project(
    cli, example: Example, spec: str, what: str
) -> None:
    """An sdist's file name or a path (here existing files) is no requirement: the tree code
    says what it is, never "names the project flask"."""
    (example.downstream / spec).write_bytes(b"")
    run = cli("audit", "--to", spec, cwd=example.downstream)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {spec.removeprefix('./')}: {what}",
    )


@pytest.mark.parametrize("command", ["apply", "verify", "status", "unapply"])
def test_an_sdist_given_as_target_says_to_unpack_it(cli, example: Example, command: str) -> None:
    """``--target`` takes a tree: the sdist file itself (the first thing a new user has after
    ``pip download``) is refused with what to pass, as ``audit --to`` does, where click only
    said "Directory ... is a file"; nothing is written."""
    sdist = example.root / "minihttp-1.0.tar.gz"
    sdist.write_bytes(b"")
    before = sorted(p.name for p in example.downstream.iterdir())
    run = cli(command, "--target", str(sdist), cwd=example.downstream)
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for '--target': {sdist} is a file; a target is an upstream "
        "tree (a directory): unpack the sdist and pass its directory",
    )
    assert sorted(p.name for p in example.downstream.iterdir()) == before


@pytest.mark.parametrize("command", ["inventory", "audit", "check", "lock"])
def test_a_wheel_given_as_plugin_says_to_unpack_it(cli, tmp_path: Path, command: str) -> None:
    """``--plugin`` takes the directory holding the plugin's package: the wheel ``pip
    download vllm-mblt==0.8.0`` gives was refused with click's "Directory ... is a file"."""
    wheel = tmp_path / "vllm_mblt-0.8.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    run = cli("runtime", command, "--plugin", str(wheel), "--package", "vllm_mblt", cwd=tmp_path)
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for '--plugin': {wheel} is a file; a plugin is the directory "
        "holding its package: unpack the wheel or sdist and pass its directory",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [wheel.name]


@pytest.mark.parametrize("command", ["inventory", "audit", "check", "lock"])
def test_a_module_given_as_plugin_says_to_pass_its_directory(
    cli, tmp_path: Path, command: str
) -> None:
    """A module of the plugin given as ``--plugin`` (``p/__init__.py``, a slip of the shell's
    completion) was told to "unpack the wheel or sdist", which it is not: it is told to pass
    the directory instead, and nothing is written."""
    package = tmp_path / "gridbook"
    package.mkdir()
    module = package / "__init__.py"
    module.write_text("import vllm.model_executor\n", encoding="utf-8")
    run = cli("runtime", command, "--plugin", str(module), "--package", "gridbook", cwd=tmp_path)
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for '--plugin': {module} is a file; a plugin is the directory "
        "holding its package, not a file in it: pass that directory",
    )
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gridbook"]


@pytest.mark.parametrize("command", ["audit", "port", "upgrade"])
def test_a_release_option_without_its_value_says_so(cli, example: Example, command: str) -> None:
    """``audit --to --json`` (the release forgotten): click gave ``--json`` to ``--to``,
    which was then fetched from the package index as a requirement and refused as "not a
    requirement: '--json'". The command line refuses it first, as a usage error naming
    both (:func:`patchkeeper.commands.cli.refuse_option_as_value`), in the JSON envelope
    the ``--json`` on the command line asks for."""
    before = tree_bytes(example.root)
    run = cli(command, "--to", "--json", cwd=example.downstream)
    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": "--to needs a value; got the option --json",
            "file": None,
            "line": None,
            "hint": f"run 'patchkeeper {command} --help' to see how to call it",
        },
    )
    assert tree_bytes(example.root) == before


@pytest.mark.parametrize("command", ["audit", "port", "upgrade"])
def test_a_release_option_given_an_option_in_one_word(cli, example: Example, command: str) -> None:
    """``audit --to=--json``: the value is given on purpose, and the command refuses a
    release that is an option, with the configured upstream in its hint."""
    before = tree_bytes(example.root)
    run = cli(command, "--to=--json", cwd=example.downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: --to has no value: --json is an option, which --to took as its "
        "value\n  hint: give --to its release first, e.g. --to minihttp==VERSION (or a "
        "directory), then the other options\n",
    )
    assert tree_bytes(example.root) == before


MARKED = "minihttp==1.1; python_version < '3'"


@pytest.mark.parametrize(
    ("args", "option", "spec", "plain"),
    [
        (("audit", "--to", MARKED), "--to", MARKED, "minihttp==1.1"),
        (("audit", "--to", "minihttp>=1.0,<2 ;sys_platform=='win32'"), "--to",
         "minihttp>=1.0,<2 ;sys_platform=='win32'", "minihttp>=1.0,<2"),
        (("port", "--to", MARKED), "--to", MARKED, "minihttp==1.1"),
        (("upgrade", "--to", "../upstream/minihttp-1.1", "--from", MARKED), "--from", MARKED,
         "minihttp==1.1"),
        (("verify", "--target", "../upstream/minihttp-1.0", "--pristine", MARKED), "--pristine",
         MARKED, "minihttp==1.1"),
        (("runtime", "audit", "--plugin", ".", "--package", "p", "--from", MARKED, "--to",
          "../upstream/minihttp-1.1"), "--from", MARKED, "minihttp==1.1"),
        (("runtime", "lock", "--plugin", ".", "--package", "p", "--at", MARKED), "--at", MARKED,
         "minihttp==1.1"),
    ],
)  # fmt: skip
def test_a_requirement_with_an_environment_marker_is_refused(
    cli,
    example: Example,
    args: tuple[str, ...],
    option: str,
    spec: str,
    plain: str,
    tmp_path,
    monkeypatch,
) -> None:
    """``--to "minihttp==1.1; python_version < '3'"`` was audited as minihttp==1.1, the
    marker ignored: it says where a dependency is installed, nothing about the release to
    read. Refused before anything is fetched, naming the option."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    before = tree_bytes(example.root)
    run = cli(*args, cwd=example.downstream)
    marker = spec.partition(";")[2].strip().replace("'", '"').replace("==", " == ")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {option} {spec} has an environment marker ({marker}), which "
        "says where a dependency is installed and means nothing for the release to read\n"
        f"  hint: leave the marker out: {option} {plain}\n",
    )
    assert not cache.exists()
    assert tree_bytes(example.root) == before


def test_a_configured_pristine_with_a_marker_names_the_configuration(cli, example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    config.write_text(
        config.read_text().replace(
            'pristine = "../upstream/minihttp-1.0"', f'pristine = "{MARKED}"'
        )
    )
    run = cli("verify", "--target", "../upstream/minihttp-1.0", cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {config}:8: pristine {MARKED} has an environment marker "
        '(python_version < "3"), which says where a dependency is installed and means '
        "nothing for the release to read\n"
        '  hint: leave the marker out: pristine = "minihttp==1.1"\n'
    )


@pytest.mark.parametrize("given", ["venv", "venv/bin"])
def test_a_virtual_environment_given_as_python_names_its_interpreter(
    cli, tmp_path: Path, given: str
) -> None:
    """``runtime check --python ~/venv`` (the environment, not its interpreter) answered
    click's "File '...' is a directory.", which says nothing to do: the error names the
    interpreter the environment holds, and nothing is written."""
    import venv

    venv.create(tmp_path / "venv", with_pip=False)
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    directory = tmp_path / given
    run = cli(
        "runtime", "check", "--python", str(directory), "--plugin", str(tmp_path),
        "--package", "plug", cwd=tmp_path,
    )  # fmt: skip
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for '--python': {directory} is a directory; --python takes an "
        f"interpreter: pass {directory}/{'bin/python' if given == 'venv' else 'python'}",
    )
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before


def test_a_directory_without_an_interpreter_given_as_python_says_how_to_find_one(
    cli, tmp_path: Path
) -> None:
    """A directory that holds no interpreter is told how to find the environment's."""
    run = cli("status", "--python", str(tmp_path), cwd=tmp_path)
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for '--python': {tmp_path} is a directory; --python takes an "
        "interpreter, not a directory: pass the environment's python (VENV/bin/python; "
        "'python -c \"import sys; print(sys.executable)\"' prints it)",
    )
