"""``audit --to DIR`` and ``port --to DIR`` where ``DIR`` is the pin's own release with the
series applied: a copy patched by ``apply``, or a site-packages directory patched in place.
Judged against it, every applied patch reverse-applies, and the audit advised to retire the
whole series. Refused instead (exit 2), naming the patch, the file that differs from the
pin's tree and what to pass; an unchanged copy of the pin is audited as any release, and
so is a checkout, whose pyproject.toml may keep the pin's version while its files move on."""

from __future__ import annotations

import shutil
from pathlib import Path

from trees_support import retry_downstream

from helpers import Example

HINT = (
    "  hint: pass the new release (NAME==VERSION, its sdist or unpacked directory); "
    "'patchkeeper verify --target DIR' tells what is applied in a changed tree; if this tree "
    "is the pin as another source ships it, pass it as --pristine too\n"
)


def _refusal(downstream: Path, tree: Path, old: Path) -> str:
    return (
        f"patchkeeper: error: {downstream / 'patches' / 'retry.patch'}:1: the new upstream "
        f"(--to), {tree}, is 1.0, the pin itself, but its minihttp/retry.py differs from the "
        f"pin's tree (directory {old}): it is a changed tree (the series applied?), not a "
        f"release, and every patch applied in it would read as upstreamed\n{HINT}"
    )


def test_a_patched_copy_of_the_pin_is_refused(cli, tmp_path: Path, example: Example) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    copy = tmp_path / "minihttp-1.0"
    shutil.copytree(example.old, copy)
    (copy / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: minihttp\nVersion: 1.0\n")
    run = cli("audit", "--to", str(copy), "--pristine", str(example.old), cwd=downstream)
    assert (run.code, run.err) == (0, ""), run.err
    assert run.out.splitlines()[-1] == "1 patch: 1 clean"
    assert cli("apply", "--target", str(copy), cwd=downstream).code == 0
    for command, old in (("audit", "--pristine"), ("port", "--from")):
        run = cli(command, "--to", str(copy), old, str(example.old), cwd=downstream)
        assert (run.code, run.out) == (2, ""), command
        assert run.err == _refusal(downstream, copy, example.old), command
    assert not (downstream / ".patchkeeper-port").exists()


def test_a_checkout_at_the_pins_version_is_audited(cli, tmp_path: Path, example: Example) -> None:
    """A checkout (no PKG-INFO) whose pyproject.toml still says the pin's version while its
    files moved on, as a main branch between releases does, is audited as given."""
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    checkout = tmp_path / "checkout"
    shutil.copytree(example.old, checkout)
    assert 'version = "1.0"' in (checkout / "pyproject.toml").read_text()
    retry = checkout / "minihttp" / "retry.py"
    retry.write_text(retry.read_text() + "# downstream\n")
    run = cli("audit", "--to", str(checkout), "--pristine", str(example.old), cwd=downstream)
    assert run.err == ""
    assert run.out.splitlines()[-2:] == [
        "1 patch: 1 upstreamed",
        "to retire (already upstream): retry.patch",
    ]


def test_a_patched_site_packages_is_refused(cli, tmp_path: Path, example: Example) -> None:
    """A site-packages directory has no version of its own: its ``.dist-info`` says it."""
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    site = tmp_path / "site-packages"
    shutil.copytree(example.old / "minihttp", site / "minihttp")
    info = site / "minihttp-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: minihttp\nVersion: 1.0\n")
    (info / "RECORD").write_text("")
    retry = site / "minihttp" / "retry.py"
    retry.write_text(retry.read_text() + "# downstream\n")
    run = cli("audit", "--to", str(site), "--pristine", str(example.old), cwd=downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == _refusal(downstream, site, example.old)


def test_a_patched_pin_among_the_releases_is_refused(cli, tmp_path: Path, example: Example) -> None:
    """``audit --to RANGE --releases DIR`` whose directory holds the pin's release with the
    series applied: the column of that release would read every patch as upstreamed."""
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    releases = tmp_path / "rel"
    for version in ("1.0", "1.1"):
        shutil.copytree(example.root / "upstream" / f"minihttp-{version}",
                        releases / f"minihttp-{version}")  # fmt: skip
    pin = releases / "minihttp-1.0"
    (pin / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: minihttp\nVersion: 1.0\n")
    args = ("audit", "--to", "minihttp>=1.0", "--releases", str(releases),
            "--pristine", str(example.old))  # fmt: skip
    assert cli(*args, cwd=downstream).code == 0  # an unchanged copy of the pin is judged
    assert cli("apply", "--target", str(pin), cwd=downstream).code == 0
    run = cli(*args, cwd=downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == _refusal(downstream, pin, example.old).replace(
        "the new upstream (--to)", "the release 1.0 (--releases)"
    )
