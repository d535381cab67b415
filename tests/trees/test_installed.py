"""apply / verify / unapply on a distribution pip installed into a real virtual environment.

Two real wheels: minihttp 1.0 built by pip from the bundled example (``pip wheel``), with the
example's series; and six 1.16.0 from the index (through :mod:`patchkeeper.upstream.fetch`), with a
two-patch series this test writes against the downloaded ``six.py``. Checked, exactly:
``RECORD`` gains the created files (sha256 and size) and ``patchkeeper.json``, which records
the series; a fresh interpreter of the environment imports and calls the patched code (and
never stale bytecode); ``unapply`` puts ``RECORD`` back byte for byte; after ``apply``,
``pip uninstall`` leaves no file behind. Also the default target: patchkeeper installed in
the environment patches the environment it runs in.
"""

from __future__ import annotations

import base64
import csv
import difflib
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import EXAMPLE_SERIES as SERIES
from helpers import EXAMPLES, REPO, Example

pytestmark = [pytest.mark.network, pytest.mark.slow]


class Venv:
    """A virtual environment made by ``python -m venv``."""

    def __init__(self, root: Path) -> None:
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
        self.root = root
        self.python = root / "bin" / "python"
        self.site = Path(self.run("import sysconfig; print(sysconfig.get_paths()['purelib'])"))

    def env(self) -> dict[str, str]:
        """The environment of a fresh interpreter: bytecode is written, as by default."""
        dropped = ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONHOME", "PATCHKEEPER_FAULT_AT")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        return env

    def run(self, code: str) -> str:
        """Run ``code`` in a fresh interpreter of the environment; return its stdout."""
        done = subprocess.run(
            [str(self.python), "-c", code],
            env=self.env(),
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def pip(self, *args: str, cwd: Path | None = None) -> None:
        subprocess.run(
            [str(self.python), "-m", "pip", *args],
            env=self.env(),
            cwd=cwd,
            check=True,
            capture_output=True,
        )

    def listing(self) -> list[str]:
        """Every path under site-packages."""
        return sorted(p.relative_to(self.site).as_posix() for p in self.site.rglob("*"))


def copy_of_the_checkout(destination: Path) -> Path:
    """The repository's files (tracked, and new ones git does not ignore) copied under
    ``destination``: pip builds in the source directory (``*.egg-info``, ``build/``), which
    must not be the checkout the tests run from."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """One environment for the module, with patchkeeper itself installed from a copy of the
    checkout."""
    env = Venv(tmp_path_factory.mktemp("venv") / "env")
    env.pip("install", "--quiet", str(copy_of_the_checkout(tmp_path_factory.mktemp("source"))))
    return env


@pytest.fixture
def cleanup(venv: Venv) -> Iterator[list[str]]:
    """Names to uninstall after the test, even when it failed half-way (the environment is
    shared by the module's tests)."""
    names: list[str] = []
    yield names
    for name in names:
        subprocess.run(
            [str(venv.python), "-m", "pip", "uninstall", "--yes", name],
            env=venv.env(),
            capture_output=True,
        )


@pytest.fixture(scope="module")
def minihttp_wheel(tmp_path_factory: pytest.TempPathFactory, venv: Venv) -> Path:
    """minihttp 1.0 built into a wheel by pip, from a copy of the example (pip builds in
    the source directory, which must not be the repository's)."""
    work = tmp_path_factory.mktemp("minihttp-wheel")
    source = work / "minihttp-1.0"
    shutil.copytree(EXAMPLES / "upstream" / "minihttp-1.0", source)
    venv.pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(work / "dist"), str(source))
    (wheel,) = (work / "dist").glob("minihttp-1.0-*.whl")
    return wheel


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def record_row(path: str, data: bytes, line_end: str = "\r\n") -> bytes:
    """A RECORD row as pip writes it (csv's default line end, ``\\r\\n``)."""
    out = io.StringIO()
    csv.writer(out, lineterminator=line_end).writerow([path, record_hash(data), len(data)])
    return out.getvalue().encode()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: Where each patch of the example's series puts its hunks in minihttp 1.0: by file diff, the
#: line where each hunk's new lines start (the install manifest's ``landed``).
LANDED = [[[10]], [[8]], [[7]], [[23]], [[16], [1]], [[1, 9]], [[8]]]
DESCRIBE = "import minihttp; print(minihttp.Client().describe())"
PATCHED = (
    "import minihttp, minihttp.metrics as m, minihttp.headers as h; "
    "print(minihttp.Client().describe()); print(m.count_redirect(), m.count_same_host()); "
    "print(sorted(minihttp.Retry.REMOVE_ON_REDIRECT)); print(list(h.merge({'a': 1}, {'b': 2})))"
)


def test_minihttp_apply_verify_unapply_uninstall(
    cli, example: Example, venv: Venv, minihttp_wheel: Path, cleanup: list[str]
) -> None:
    before_install = venv.listing()
    cleanup.append("minihttp")
    venv.pip("install", "--quiet", "--no-deps", str(minihttp_wheel))
    package = venv.site / "minihttp"
    info = venv.site / "minihttp-1.0.dist-info"
    record = (info / "RECORD").read_bytes()
    pristine = {
        name: (package / name).read_bytes() for name in ("client.py", "headers.py", "retry.py")
    }
    assert venv.run(DESCRIBE) == "minihttp client (timeout=10.0, retries=3)"
    assert (package / "__pycache__" / f"client.{sys.implementation.cache_tag}.pyc").is_file()

    python = str(venv.python)
    label = f"minihttp 1.0 installed in {venv.site} (python {python})"
    run = cli("apply", "--python", python, cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [f"applied 7 patches on {label}: 4 files changed"]

    # RECORD: the created file and patchkeeper.json are added, every other row is unchanged.
    metrics = (package / "metrics.py").read_bytes()
    applied_record = (info / "patchkeeper.json").read_bytes()
    assert (info / "RECORD").read_bytes() == (
        record
        + record_row("minihttp/metrics.py", metrics)
        + record_row("minihttp-1.0.dist-info/patchkeeper.json", applied_record)
    )
    data = json.loads(applied_record)
    patches_dir = example.downstream / "patches"
    assert data["series"] == [
        {"name": name, "sha256": sha((patches_dir / name).read_bytes()), "landed": landed}
        for name, landed in zip(SERIES, LANDED)
    ]
    assert data["created"] == ["minihttp/metrics.py"]
    assert data["directory"] == "minihttp"
    assert data["files"] == {
        f"minihttp/{name}": {
            "before": sha(pristine[name]) if name in pristine else None,
            "after": sha((package / name).read_bytes()),
        }
        for name in ("client.py", "headers.py", "metrics.py", "retry.py")
    }

    verify = cli("verify", "--python", python, cwd=example.downstream)
    assert (verify.code, verify.err) == (0, "")
    assert verify.out.splitlines()[0] == f"verify: {label} against RECORD of minihttp 1.0"
    assert verify.out.splitlines()[-1] == "ok: 7 of 7 patches applied, 0 files drifted"

    # A change outside the series, in a recorded file and as an unrecorded file: drift.
    init = (package / "__init__.py").read_bytes()
    (package / "__init__.py").write_bytes(init + b"# edited\n")
    (package / "extra.py").write_bytes(b"extra = 1\n")
    drift = cli("verify", "--python", python, cwd=example.downstream)
    assert drift.code == 1
    assert [line.split(" (sha256")[0] for line in drift.out.splitlines()[-3:-1]] == [
        "  changed outside the series: __init__.py differs from pristine",
        "  changed outside the series: extra.py exists",
    ]
    (package / "__init__.py").write_bytes(init)
    (package / "extra.py").unlink()

    assert venv.run(PATCHED).splitlines() == [
        "minihttp 1.0 client (timeout=10.0, retries=3)",
        "1 1",
        "['Authorization', 'Proxy-Authorization', 'X-Api-Key']",
        "['B', 'A']",
    ]

    undo = cli("unapply", "--python", python, cwd=example.downstream)
    assert (undo.code, undo.err) == (0, "")
    assert undo.out.splitlines() == [f"unapplied 7 patches on {label}: 4 files changed"]
    assert (info / "RECORD").read_bytes() == record
    assert not (info / "patchkeeper.json").exists()
    assert not (package / "metrics.py").exists()
    assert {name: (package / name).read_bytes() for name in pristine} == pristine
    assert venv.run(DESCRIBE) == "minihttp client (timeout=10.0, retries=3)"
    assert venv.run("import importlib.util as u; print(u.find_spec('minihttp.metrics'))") == "None"
    status = cli("status", "--python", python, cwd=example.downstream)
    assert status.code == 1
    assert status.out.splitlines()[-1] == "not ok: 0 of 7 patches applied, 0 files drifted"

    # Applied again (and the created module imported, so its bytecode exists), then removed.
    assert cli("apply", "--python", python, cwd=example.downstream).code == 0
    assert venv.run("import minihttp.metrics as m; print(m.count_redirect())") == "1"
    assert (package / "__pycache__" / f"metrics.{sys.implementation.cache_tag}.pyc").is_file()
    venv.pip("uninstall", "--yes", "minihttp")
    assert venv.listing() == before_install


# --------------------------------------------------------------------------- six


def six_series(downstream: Path, six_py: bytes) -> None:
    """Two patches: ensure_str defaults to ascii/ignore (same size: a stale pyc would pass
    the size check), and a new module ``six_extras.py`` beside ``six.py``."""
    old = six_py.decode().splitlines(keepends=True)
    line = "def ensure_str(s, encoding='utf-8', errors='strict'):\n"
    new_line = "def ensure_str(s, encoding='ascii', errors='ignore'):\n"
    assert len(line) == len(new_line) and old.count(line) == 1
    new = [new_line if text == line else text for text in old]
    patches = downstream / "patches"
    patches.mkdir(parents=True)
    (patches / "ensure-str-ascii.patch").write_text(
        "Subject: ensure_str drops what ascii cannot say\n---\n"
        + "".join(difflib.unified_diff(old, new, "a/six.py", "b/six.py"))
    )
    extras = [
        "import six\n",
        "\n",
        "\n",
        "def shout(s):\n",
        "    return six.ensure_str(s).upper()\n",
    ]
    (patches / "six-extras.patch").write_text(
        "Subject: six_extras.shout\n---\n"
        "diff --git a/six_extras.py b/six_extras.py\nnew file mode 100644\n"
        + "".join(difflib.unified_diff([], extras, "/dev/null", "b/six_extras.py"))
    )
    (patches / "series").write_text("ensure-str-ascii.patch\nsix-extras.patch\n")
    (downstream / "patchkeeper.toml").write_text('upstream = "six"\npin = "1.16.0"\n')


def test_six_wheel_series_and_no_stale_bytecode(
    cli, tmp_path: Path, venv: Venv, cleanup: list[str]
) -> None:
    from patchkeeper.upstream.fetch import cache_root, fetch_requirement

    fetched = fetch_requirement("six==1.16.0", kind="wheel")
    wheel = cache_root() / "downloads" / fetched.name / fetched.filename
    assert sha(wheel.read_bytes()) == fetched.sha256
    before_install = venv.listing()
    cleanup.append("six")
    venv.pip("install", "--quiet", "--no-deps", str(wheel))
    six_py = venv.site / "six.py"
    info = venv.site / "six-1.16.0.dist-info"
    record = (info / "RECORD").read_bytes()
    original = six_py.read_bytes()
    downstream = tmp_path / "downstream"
    six_series(downstream, original)

    call = "import six; print(repr(six.ensure_str(b'caf\\xc3\\xa9')))"
    assert venv.run(call) == "'café'"
    pyc = venv.site / "__pycache__" / f"six.{sys.implementation.cache_tag}.pyc"
    assert pyc.is_file()
    stat = six_py.stat()

    python = str(venv.python)
    run = cli("apply", "--python", python, cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [
        f"applied 2 patches on six 1.16.0 installed in {venv.site} (python {python}): "
        "2 files changed"
    ]
    patched = six_py.read_bytes()
    assert len(patched) == len(original) and patched != original
    # As if the patch had landed within the pyc's second: same size, same mtime. Only the
    # removal of the cached bytecode makes the new source run.
    os.utime(six_py, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert venv.run(call) == "'caf'"
    assert venv.run("import six_extras; print(six_extras.shout(b'caf\\xc3\\xa9'))") == "CAF"

    extras = (venv.site / "six_extras.py").read_bytes()
    applied_record = (info / "patchkeeper.json").read_bytes()
    assert (info / "RECORD").read_bytes() == (
        record
        + record_row("six_extras.py", extras)
        + record_row("six-1.16.0.dist-info/patchkeeper.json", applied_record)
    )
    assert json.loads(applied_record)["files"] == {
        "six.py": {"before": sha(original), "after": sha(patched)},
        "six_extras.py": {"before": None, "after": sha(extras)},
    }
    verify = cli("verify", "--python", python, cwd=downstream)
    assert verify.code == 0
    assert verify.out.splitlines()[1:] == [
        "  applied  ensure-str-ascii.patch",
        "  applied  six-extras.patch",
        "ok: 2 of 2 patches applied, 0 files drifted",
    ]

    undo = cli("unapply", "--python", python, cwd=downstream)
    assert undo.code == 0
    assert six_py.read_bytes() == original
    assert (info / "RECORD").read_bytes() == record
    assert not (info / "patchkeeper.json").exists()
    os.utime(six_py, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert venv.run(call) == "'café'"

    assert cli("apply", "--python", python, cwd=downstream).code == 0
    assert venv.run("import six_extras; print(six_extras.shout('x'))") == "X"
    venv.pip("uninstall", "--yes", "six")
    assert venv.listing() == before_install


# --------------------------------------------------------------------------- default target


def test_default_target_is_the_environment_patchkeeper_runs_in(
    example: Example, venv: Venv, minihttp_wheel: Path, cleanup: list[str]
) -> None:
    before_install = venv.listing()
    cleanup.append("minihttp")
    venv.pip("install", "--quiet", "--no-deps", str(minihttp_wheel))
    script = venv.root / "bin" / "patchkeeper"
    interpreter = script.read_text().splitlines()[0].removeprefix("#!")
    label = f"minihttp 1.0 installed in {venv.site} (python {interpreter})"

    def patchkeeper(*args: str) -> tuple[int, str]:
        done = subprocess.run(
            [str(script), *args],
            cwd=example.downstream,
            env=venv.env(),
            capture_output=True,
            text=True,
        )
        assert done.stderr == ""
        return done.returncode, done.stdout

    assert patchkeeper("apply") == (0, f"applied 7 patches on {label}: 4 files changed\n")
    code, out = patchkeeper("verify")
    assert (code, out.splitlines()[-1]) == (0, "ok: 7 of 7 patches applied, 0 files drifted")
    assert venv.run(DESCRIBE) == "minihttp 1.0 client (timeout=10.0, retries=3)"
    assert patchkeeper("unapply") == (0, f"unapplied 7 patches on {label}: 4 files changed\n")
    assert venv.run(DESCRIBE) == "minihttp client (timeout=10.0, retries=3)"
    venv.pip("uninstall", "--yes", "minihttp")
    assert venv.listing() == before_install


# --------------------------------------------------------------------------- crash


def installed_files(venv: Venv) -> dict[str, bytes]:
    """minihttp's files and its .dist-info, bytecode aside."""
    out = {}
    for top in ("minihttp", "minihttp-1.0.dist-info"):
        for path in sorted((venv.site / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                out[path.relative_to(venv.site).as_posix()] = path.read_bytes()
    return out


def test_kill_at_every_step_of_apply_and_unapply_on_an_installed_distribution(
    cli, example: Example, venv: Venv, minihttp_wheel: Path, cleanup: list[str]
) -> None:
    """After a kill, the next command rolls back first, then reads RECORD: the retried
    command finishes, and files, RECORD and patchkeeper.json are exactly pristine or applied."""
    cleanup.append("minihttp")
    venv.pip("install", "--quiet", "--no-deps", str(minihttp_wheel))
    python = str(venv.python)
    pristine = installed_files(venv)
    assert cli("apply", "--python", python, cwd=example.downstream).code == 0
    applied = installed_files(venv)
    journal = venv.site / "minihttp-1.0.dist-info" / "patchkeeper-journal"
    env = {k: v for k, v in os.environ.items() if k != "PATCHKEEPER_FAULT_AT"}
    label = f"minihttp 1.0 installed in {venv.site} (python {python})"
    for command, start, end in (("unapply", applied, pristine), ("apply", pristine, applied)):
        step = 0
        while True:
            step += 1
            assert installed_files(venv) == start
            killed = subprocess.run(
                [sys.executable, "-m", "patchkeeper", command, "--python", python],
                cwd=example.downstream,
                env={**env, "PATCHKEEPER_FAULT_AT": str(step)},
                capture_output=True,
            )
            if killed.returncode == 0:  # past the last step: the command simply finished
                assert installed_files(venv) == end
                break
            assert killed.returncode == -signal.SIGKILL
            had_journal = journal.exists()
            retry = cli(command, "--python", python, cwd=example.downstream)
            assert (retry.code, retry.err) == (0, "")
            lines = retry.out.splitlines()
            if had_journal:
                assert lines.pop(0).startswith("recovered: rolled back an interrupted run (")
            verb = "applied" if command == "apply" else "unapplied"
            assert lines[0] in (
                f"{verb} 7 patches on {label}: 4 files changed",
                f"{command}: the series is already {'applied' if command == 'apply' else 'pristine'} on {label}",
            )
            assert installed_files(venv) == end
            assert not journal.exists()
            back = "unapply" if command == "apply" else "apply"
            assert cli(back, "--python", python, cwd=example.downstream).code == 0
        assert step > 15  # every journaled step was a kill point
    venv.pip("uninstall", "--yes", "minihttp")


def test_editable_install_is_refused_with_the_checkout_to_patch(
    cli, example: Example, venv: Venv, cleanup: list[str], tmp_path: Path
) -> None:
    """An editable install's files live in the checkout, not in site-packages: say so."""
    source = tmp_path / "minihttp-1.0"
    shutil.copytree(EXAMPLES / "upstream" / "minihttp-1.0", source)
    cleanup.append("minihttp")
    venv.pip("install", "--quiet", "--no-deps", "-e", str(source))
    run = cli("apply", "--python", str(venv.python), cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"patchkeeper: error: {venv.python}: minihttp 1.0 is installed in editable mode from "
        f"{source}: its files are not in site-packages and RECORD does not list them",
        f"  hint: patch the checkout itself with --target {source}",
    ]


def test_target_site_packages_is_the_installed_distribution(
    cli, example: Example, venv: Venv, minihttp_wheel: Path, cleanup: list[str]
) -> None:
    """--target SITE_PACKAGES that holds the upstream's .dist-info keeps RECORD true too."""
    before_install = venv.listing()
    cleanup.append("minihttp")
    venv.pip("install", "--quiet", "--no-deps", str(minihttp_wheel))
    run = cli("apply", "--target", str(venv.site), cwd=example.downstream)
    assert (run.code, run.out.splitlines()) == (
        0,
        [f"applied 7 patches on minihttp 1.0 installed in {venv.site}: 4 files changed"],
    )
    record = (venv.site / "minihttp-1.0.dist-info" / "RECORD").read_text()
    assert "minihttp/metrics.py,sha256=" in record
    assert "minihttp-1.0.dist-info/patchkeeper.json,sha256=" in record
    run = cli("verify", "--target", str(venv.site), cwd=example.downstream)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 7 of 7 patches applied, 0 files drifted",
    )
    venv.pip("uninstall", "--yes", "minihttp")
    assert venv.listing() == before_install
