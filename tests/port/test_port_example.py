"""``port`` end to end on the bundled example (minihttp 1.0 -> 1.1, seven patches).

The example covers every case: a patch upstream took (retry-backoff-cap), two real conflicts
on one line (redirect-strip-proxy-auth, then redirect-strip-api-key on top of it), a file
upstream moved (headers.py -> httputil.py, merged there by git), offsets, a clean patch and a
new file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from port_support import (
    API_KEY,
    CONFLICT_REGION,
    FINAL,
    PROXY,
    port_to_the_end,
    resolve,
    start,
    work_files,
)

from helpers import Example, tree_bytes

FIRST_STOP = [
    ("retry-backoff-cap.patch", "upstreamed", False),
    ("redirect-strip-proxy-auth.patch", "conflict", False),
    ("headers-merge-order.patch", "merged", True),
    ("client-describe-version.patch", "offset", True),
    ("metrics-redirects.patch", "offset", True),
    ("metrics-same-host.patch", "clean", True),
    ("redirect-strip-api-key.patch", "blocked", True),
]

HEADERS_MERGE_ORDER = b'''From: Example Maintainer <maintainer@example.org>
Subject: [minihttp] headers-merge-order

Our proxy logs headers in insertion order and wants the request's own first.

Kind: feature
What: merged headers list the overriding dict's names first
Upstream: none
Cut-against: 1.1
Retires-when: upstreamed
---
diff --git a/httputil.py b/httputil.py
index f3d405f..849ad75 100644
--- a/httputil.py
+++ b/httputil.py
@@ -7,7 +7,8 @@ def normalize(name):
 
 
 def merge(first, second):
-    """Merge two header dicts; ``second`` wins."""
-    out = {normalize(k): v for k, v in first.items()}
-    out.update({normalize(k): v for k, v in second.items()})
+    """Merge two header dicts; ``second`` wins, and its names come first."""
+    out = {normalize(k): v for k, v in second.items()}
+    for name, value in first.items():
+        out.setdefault(normalize(name), value)
     return out
'''


def test_port_stops_at_the_first_conflict_with_its_files(cli, example: Example) -> None:
    before = tree_bytes(example.downstream)
    run = start(cli, example)
    assert run.code == 1
    data = json.loads(run.out)
    assert [(p["name"], p["verdict"], p["pending"]) for p in data["patches"]] == FIRST_STOP
    assert (data["outcome"], data["stopped_at"]) == ("stopped", "redirect-strip-proxy-auth.patch")
    conflict = data["patches"][1]
    assert conflict["files"] == [
        {"path": "retry.py", "target": "retry.py", "status": "conflict", "conflicts": 1}
    ]
    assert conflict["summary"].startswith(
        "git's three-way merge stopped at retry.py (1 conflict region); fuzz 0: retry.py #1 "
        "fails at fuzz 0 (closest: retry.py line 8, 6 of 7 lines match)"
    )
    work = example.downstream / ".patchkeeper-port"
    retry = (work_files(example) / "retry.py").read_bytes()
    assert CONFLICT_REGION in retry
    assert retry.replace(CONFLICT_REGION, b"") == (
        example.new / "minihttp" / "retry.py"
    ).read_bytes().replace(
        b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])\n', b""
    )
    assert (work / "conflict" / "reference" / "new" / "retry.py").read_bytes() == (
        example.new / "minihttp" / "retry.py"
    ).read_bytes()
    assert (work / "conflict" / "reference" / "redirect-strip-proxy-auth.patch").read_bytes() == (
        example.downstream / "patches" / "redirect-strip-proxy-auth.patch"
    ).read_bytes()
    instructions = (work / "conflict" / "INSTRUCTIONS.md").read_text()
    assert instructions.startswith("# Port stopped at `redirect-strip-proxy-auth.patch`: conflict")
    assert "Upstream history evidence is missing" in instructions
    # nothing outside the work directory was written
    after = {
        k: v for k, v in tree_bytes(example.downstream).items() if ".patchkeeper-port" not in k
    }
    assert after == before
    assert data["todo"][-1].startswith("upstream history evidence is missing")


def test_port_continue_twice_then_the_new_series_verifies(cli, example: Example) -> None:
    data = port_to_the_end(cli, example)
    assert [(p["name"], p["verdict"]) for p in data["patches"]] == FINAL
    assert not any(p["pending"] for p in data["patches"])
    out = example.downstream / "patches-1.1"
    assert data["output"] == str(out)
    assert not (example.downstream / ".patchkeeper-port").exists()
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["series", "patchkeeper.toml"] + [name for name, _ in FINAL]
    )
    series = (out / "series").read_text().splitlines()
    assert series[1] == (
        "# retry-backoff-cap.patch  # upstreamed in 1.1: proposed for retirement by "
        "'patchkeeper port'"
    )
    assert series[2:] == [name for name, _ in FINAL[1:]]
    # upstreamed: kept as it was, for review
    old = example.downstream / "patches"
    assert (out / "retry-backoff-cap.patch").read_bytes() == (
        old / "retry-backoff-cap.patch"
    ).read_bytes()
    # moved upstream: merged into the new file, headers kept but Cut-against
    assert (out / "headers-merge-order.patch").read_bytes() == HEADERS_MERGE_ORDER
    # every refreshed patch keeps its preamble but Cut-against
    for name, _ in FINAL[1:]:
        before = (old / name).read_bytes().split(b"\n---\n")[0]
        after = (out / name).read_bytes().split(b"\n---\n")[0]
        assert after == before.replace(b"Cut-against: 1.0", b"Cut-against: 1.1")
    # the range-diff of the resolved patch
    change = data["patches"][6]["change"]
    assert change["same"] is False
    assert [(line["side"], line["kind"], line["text"]) for line in change["lines"]] == [
        ("-", "-", '    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization"])'),
        (
            "-",
            "+",
            '    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization", '
            '"X-Api-Key"])',
        ),
        ("+", "-", PROXY.decode().rstrip("\n")),
        ("+", "+", API_KEY.decode().rstrip("\n")),
    ]
    assert data["patches"][5]["change"]["same"] is True
    # the new directory holds the series and a configuration for it, not the downstream:
    # replacing the series' directory with it would keep the old pin (and, for a series
    # beside the configuration, an RPM spec or a ledger, lose them)
    review = [item for item in data["todo"] if item.startswith("review ")]
    assert review == [
        f"review {out}; 'patchkeeper -C {out} apply --target COPY' applies it; then copy its "
        f'series and patch files over those in {old}, set pin = "1.1" in the configuration '
        "and run 'patchkeeper ledger' to rewrite PATCHES.md ('patchkeeper port --to "
        f"{example.new} --in-place' does all three; "
        "the directory holds only the series, so do not replace the downstream with it)"
    ]
    # the new directory shares the downstream's ledger, whose Cut-against column is the old
    # pin's until the series is copied over and the ledger rewritten, as the item says
    assert cli("-C", str(out), "ledger", "--check").code == 1
    # verify passes on the new pin with the new series
    target = example.root / "target-1.1"
    shutil.copytree(example.new, target)
    assert cli("-C", str(out), "apply", "--target", str(target)).code == 0
    # the new directory's configuration names the new tree as its pristine reference
    run = cli("-C", str(out), "verify", "--target", str(target))
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 6 of 6 patches applied, 0 files drifted",
    )
    # the item's steps, done by hand, leave a current ledger
    for item in out.iterdir():
        if item.name != "patchkeeper.toml":
            shutil.copyfile(item, old / item.name)
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "1.0"', 'pin = "1.1"'))
    assert cli("ledger", cwd=example.downstream).code == 0
    assert cli("ledger", "--check", cwd=example.downstream).code == 0


def test_port_in_place_retire_updates_series_pin_and_ledger(cli, example: Example) -> None:
    ledger = example.downstream / "PATCHES.md"
    ledger.write_text("# Patches\n\n<!-- table:begin -->\n<!-- table:end -->\n")
    assert cli("ledger", cwd=example.downstream).code == 0
    data = port_to_the_end(cli, example, "--in-place", "--retire")
    assert data["retired"] == ["retry-backoff-cap.patch"]
    patches = example.downstream / "patches"
    assert not (patches / "retry-backoff-cap.patch").exists()
    assert "retry-backoff-cap.patch" not in (patches / "series").read_text()
    config = (example.downstream / "patchkeeper.toml").read_text()
    assert 'pin = "1.1"\n' in config and 'pin = "1.0"' not in config
    assert 'pristine = "../upstream/minihttp-1.1"\n' in config
    text = ledger.read_text()
    assert (
        "| retry-backoff-cap | backport | cap the retry backoff at BACKOFF_MAX (120 s) | 1.1 |"
        in text
    )
    assert (
        "| redirect-strip-api-key | own | also drop X-Api-Key on a cross-host redirect | none | 1.1 |"
        in text
    )
    assert cli("ledger", "--check", cwd=example.downstream).code == 0
    target = example.root / "target-1.1"
    shutil.copytree(example.new, target)
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    # the configured pristine tree is now 1.1's
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 6 of 6 patches applied, 0 files drifted",
    )


def test_port_abort_leaves_everything_as_it_was(cli, example: Example) -> None:
    before = tree_bytes(example.downstream)
    assert start(cli, example).code == 1
    run = cli("port", "--abort", cwd=example.downstream)
    assert run.code == 0
    assert run.out.startswith("aborted the port of ")
    assert tree_bytes(example.downstream) == before


def test_port_refuses_what_does_not_make_sense(cli, example: Example) -> None:
    run = cli("port", "--continue", cwd=example.downstream)
    assert (run.code, run.err.splitlines()[0].endswith(": no port is in progress")) == (2, True)
    # no port was started (and the downstream is no git checkout): the pin tells the user
    assert run.err.splitlines()[1] == (
        "  hint: no port was started here, or the last one finished: the series is at pin "
        "1.0; to port the series, run 'patchkeeper port --to NEWPIN'"
    )
    run = start(cli, example, "--retire")
    assert run.code == 2
    assert "--retire records retirements in the ledger of the series in use" in run.err
    assert start(cli, example).code == 1
    run = start(cli, example)
    assert run.code == 2
    assert "a port is already in progress" in run.err
    run = cli("port", "--continue", cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: {work_files(example) / 'retry.py'}:11: conflict markers are left "
        "in this file"
    )
    run = cli("port", "--continue", "--to", "x", cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        "Error: --to and --continue exclude each other: --continue is for the port in "
        "progress, which keeps the options it was started with"
    )


def test_port_continue_names_every_file_with_markers_left(cli, example: Example) -> None:
    """Markers left in two files: ``--continue`` names both, each with its first marker
    line, so that one run shows all that is left to resolve."""
    assert start(cli, example).code == 1
    files = work_files(example)
    (files / "extra").mkdir()
    (files / "extra" / "notes.py").write_bytes(b"# notes\n\n" + CONFLICT_REGION)
    run = cli("port", "--continue", cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"patchkeeper: error: {files}: conflict markers are left in 2 files: "
        "extra/notes.py:3, retry.py:11",
        "  hint: edit each file to the content the patch should produce, remove the markers, "
        "then run 'patchkeeper port --continue'",
    ]
    data = json.loads(cli("port", "--continue", "--json", cwd=example.downstream).out)
    assert data["error"] == {
        "message": "conflict markers are left in 2 files: extra/notes.py:3, retry.py:11",
        "file": str(files),
        "line": None,
        "hint": "edit each file to the content the patch should produce, remove the markers, "
        "then run 'patchkeeper port --continue'",
    }


def test_port_refuses_an_existing_output_directory(cli, example: Example) -> None:
    (example.downstream / "patches-1.1").mkdir()
    (example.downstream / "patches-1.1" / "x").write_text("x")
    run = start(cli, example)
    assert run.code == 2
    assert json.loads(run.out)["error"] == {
        "message": "the new series directory already exists",
        "file": str(example.downstream / "patches-1.1"),
        "line": None,
        "hint": "remove it, give --output a directory that does not exist yet or is empty, or "
        "port --in-place",
    }
    assert not (example.downstream / ".patchkeeper-port").exists()


def test_an_output_given_that_exists_is_not_told_to_give_output(cli, example: Example) -> None:
    """``port --output patches`` (the series' own directory) was told to "pass --output DIR",
    which the user had done: the hint says what the directory given must be."""
    before = tree_bytes(example.downstream)
    run = start(cli, example, "--output", "patches")
    assert run.code == 2
    assert json.loads(run.out)["error"] == {
        "message": "the new series directory already exists",
        "file": str(example.downstream / "patches"),
        "line": None,
        "hint": "give --output a directory that does not exist yet or is empty, or port --in-place",
    }
    assert tree_bytes(example.downstream) == before


def test_port_text_and_markdown_reports(cli, example: Example, tmp_path: Path) -> None:
    report = tmp_path / "port.md"
    run = cli(
        "port",
        "--to",
        str(example.new),
        "--from",
        str(example.old),
        "--markdown",
        str(report),
        cwd=example.downstream,
    )
    assert run.code == 1
    assert "7 patches: 1 upstreamed, 1 conflict, 5 pending" in run.out
    assert (
        "  headers-merge-order.patch (pending (merged)):\n    file: headers.py -> httputil.py: clean"
        in run.out
    )
    markdown = report.read_text()
    assert markdown.startswith("## patchkeeper port: 1.0 -> 1.1\n")
    assert (
        "| `redirect-strip-api-key.patch` | pending (blocked) | retry.py #1 needs lines "
        in markdown
    )


def test_port_from_defaults_to_the_configured_pristine_tree(cli, example: Example) -> None:
    run = cli("port", "--json", "--to", str(example.new), cwd=example.downstream)
    assert run.code == 1
    data = json.loads(run.out)
    assert (data["source"], data["source_version"]) == (f"directory {example.old}", "1.0")


def test_port_evidence_names_the_defaulted_from(cli, example: Example) -> None:
    """A port without ``--from`` reads the configured pristine tree; its evidence names that
    tree as ``--from``, as if it had been given, on the command line and from Python."""
    from patchkeeper.commands.port import run
    from patchkeeper.config import load_config
    from patchkeeper.port.request import PortRequest
    from patchkeeper.record import evidence_store

    down = example.downstream
    run_ = cli("port", "--to", str(example.new), "--save-evidence", cwd=down)
    assert run_.code == 1
    config = load_config(start=down)
    stored = evidence_store.load(config, "port")
    assert stored is not None
    assert stored.argv == (
        "port",
        "--to",
        str(example.new),
        "--save-evidence",
        "--from",
        str(example.old),
    )
    assert cli("port", "--abort", cwd=down).code == 0
    run(config, PortRequest(to=str(example.new)), save_evidence=True)
    stored = evidence_store.load(config, "port")
    assert stored is not None
    assert stored.argv == ("port", "--to", str(example.new), "--from", str(example.old))


def test_a_series_that_does_not_apply_to_its_old_pin_is_an_input_error(
    cli, example: Example
) -> None:
    # --from: a release the series was not cut against (1.1's files, another version)
    source = example.root / "minihttp-1.0.9"
    shutil.copytree(example.new, source)
    project = source / "pyproject.toml"
    project.write_text(project.read_text().replace('version = "1.1"', 'version = "1.0.9"'))
    run = cli("port", "--to", str(example.new), "--from", str(source), cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: {example.downstream / 'patches' / 'retry-backoff-cap.patch'}:17: "
        f"retry-backoff-cap.patch does not apply to {source}, the release the series is "
        "ported from: retry.py #1 fails at fuzz 0 (closest: line 13, 10 of 13 lines match)"
    )
    assert not (example.downstream / ".patchkeeper-port").exists()


def test_a_port_to_the_release_the_downstream_is_at_is_refused(cli, example: Example) -> None:
    """As ``upgrade`` refuses it: every patch would be clean, and its saved evidence would
    replace the record's evidence of the real upgrade."""
    down = example.downstream
    before = sorted(p.relative_to(down).as_posix() for p in down.rglob("*"))
    run = cli("port", "--to", "../upstream/minihttp-1.0", "--save-evidence", cwd=down)
    config = down / "patchkeeper.toml"
    line = config.read_text().splitlines().index('pristine = "../upstream/minihttp-1.0"') + 1
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {config}:{line}: nothing to port: --to is 1.0, the release "
        "the downstream is at\n  hint: pass a newer release as --to; to write the record "
        "again, run 'patchkeeper report'\n",
    )
    assert sorted(p.relative_to(down).as_posix() for p in down.rglob("*")) == before


def test_no_port_in_a_checkout_whose_series_changed(cli, example: Example) -> None:
    """A Ctrl-C after a port's last write leaves no work directory and the series changed
    since the last commit: ``git diff`` shows what that port wrote."""
    down = example.downstream
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "down"]):
        subprocess.run(["git", *args], cwd=down, check=True, capture_output=True)
    run = cli("port", "--abort", cwd=down)
    assert run.err.splitlines()[1] == (
        "  hint: no port was started here, or the last one finished: the series is at pin "
        "1.0; to port the series, run 'patchkeeper port --to NEWPIN'"
    )
    series = down / "patches" / "series"
    series.write_text(series.read_text() + "# upstreamed-fix.patch  # upstreamed in 1.1\n")
    run = cli("port", "--abort", cwd=down)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {down / '.patchkeeper-port'}: no port is in progress",
            "  hint: the series is at pin 1.0: the last port has finished and its changes "
            "are not committed (git diff shows them); to port the series, run 'patchkeeper "
            "port --to NEWPIN'",
        ],
    )


def test_port_writes_pristine_through_a_symlink_as_given(cli, example: Example) -> None:
    """``--to ../releases/minihttp-1.1``, where ``releases`` is a symlink to a folder
    elsewhere, is written as ``pristine`` as the user gave it, relative to the
    configuration file; resolved, it named the symlink's target instead."""
    elsewhere = example.root.parent / "mirror"
    elsewhere.mkdir()
    shutil.move(example.new, elsewhere / "minihttp-1.1")
    (example.root / "releases").symlink_to(elsewhere, target_is_directory=True)
    run = cli(
        "port",
        "--to",
        "../releases/minihttp-1.1",
        "--from",
        "../upstream/minihttp-1.0",
        "--in-place",
        cwd=example.downstream,
    )
    assert run.code == 1, run.err
    resolve(work_files(example) / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=example.downstream).code == 1
    resolve(work_files(example) / "retry.py", API_KEY)
    assert cli("port", "--continue", cwd=example.downstream).code == 0
    config = (example.downstream / "patchkeeper.toml").read_text().splitlines()
    assert [line for line in config if line.startswith(("pin ", "pristine "))] == [
        'pin = "1.1"',
        'pristine = "../releases/minihttp-1.1"',
    ]


def test_port_reads_the_version_from_a_directory_named_project_version(
    cli, example: Example
) -> None:
    """A new tree without PKG-INFO or a version in pyproject.toml, in a directory named
    ``<upstream>-<version>`` (an unpacked sdist, a checkout named so): the version is read
    from the name, and the report says so on the ``to`` line. Before, the port asked for
    NAME==VERSION."""
    checkout = example.root / "checkouts" / "minihttp-1.1"
    shutil.copytree(example.new, checkout)
    (checkout / "pyproject.toml").unlink()
    run = cli(
        "port",
        "--to",
        "../checkouts/minihttp-1.1",
        "--from",
        "../upstream/minihttp-1.0",
        cwd=example.downstream,
    )
    assert run.code == 1, run.err
    assert run.out.splitlines()[:3] == [
        f"port of {example.downstream / 'patches' / 'series'}: 1.0 -> 1.1",
        f"  from directory {example.old}",
        f"  to   directory {checkout} (version 1.1 read from its name)",
    ]
    assert cli("port", "--abort", cwd=example.downstream).code == 0
    run = cli(
        "port", "--to", str(checkout), "--from", str(example.old), "--json", cwd=example.downstream
    )
    data = json.loads(run.out)
    assert (run.code, data["target"], data["target_label"], data["target_version"]) == (
        1,
        {"kind": "directory", "path": str(checkout), "name": "minihttp", "version": "1.1"},
        f"directory {checkout} (version 1.1 read from its name)",
        "1.1",
    )


def test_port_asks_for_the_version_of_a_directory_named_for_another_project(
    cli, example: Example
) -> None:
    """``<name>-<version>`` gives the version only when the name is the configured
    upstream's: another project's name keeps the error that asks for NAME==VERSION."""
    checkout = example.root / "checkouts" / "otherhttp-1.1"
    shutil.copytree(example.new, checkout)
    (checkout / "pyproject.toml").unlink()
    before = tree_bytes(example.downstream)
    run = cli("port", "--to", str(checkout), "--from", str(example.old), cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: {checkout}: cannot tell the version of the new pin"
    )
    assert tree_bytes(example.downstream) == before


def test_port_names_the_old_pin_of_a_pristine_tree_without_metadata(cli, example: Example) -> None:
    """The old tree (the configured ``pristine``, a copy without PKG-INFO or a version in
    pyproject.toml) says no version: the port names it by its directory's name when that is
    ``<upstream>-<version>``, as for the new tree, else by the configured pin it stands for.
    Before, the report said ``? -> 1.1`` and the ported configuration "ported from ?"."""
    for name, old in (("minihttp-1.0", "1.0"), ("pristine", "1.0")):
        copy = example.root / "copies" / name
        shutil.copytree(example.old, copy)
        (copy / "pyproject.toml").unlink()
        config = example.downstream / "patchkeeper.toml"
        config.write_text(
            config.read_text().replace(
                'pristine = "../upstream/minihttp-1.0"', f'pristine = "../copies/{name}"'
            )
        )
        run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
        assert run.code == 1, run.err
        assert run.out.splitlines()[:2] == [
            f"port of {example.downstream / 'patches' / 'series'}: {old} -> 1.1",
            f"  from directory {copy}",
        ]
        assert cli("port", "--abort", cwd=example.downstream).code == 0
        run = cli("port", "--to", "../upstream/minihttp-1.1", "--json", cwd=example.downstream)
        assert (run.code, json.loads(run.out)["source_version"]) == (1, old)
        assert cli("port", "--abort", cwd=example.downstream).code == 0
        config.write_text(
            config.read_text().replace(
                f'pristine = "../copies/{name}"', 'pristine = "../upstream/minihttp-1.0"'
            )
        )
