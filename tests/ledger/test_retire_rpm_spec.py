"""``retire`` of a patch whose series was read from an RPM spec: the spec still names the
patch in its ``Patch`` tag after the file is deleted, and ``rpmbuild`` would stop at the
missing file. The spec is the packager's to edit (its ``%changelog`` too), so ``retire``
leaves it alone and says which line names the patch (seen with a Fedora-style spec of
asyncssh whose upstreamed patch was retired after a port).

The series is the bundled example's, with a spec beside it naming its patches, as
``patchkeeper init`` finds a Fedora package's.
"""

from __future__ import annotations

import json

from helpers import Example, minihttp_spec


def test_retire_names_the_spec_tag_left_to_remove(cli, example: Example) -> None:
    spec = example.downstream / "patches" / "python-minihttp.spec"
    spec.write_text(minihttp_spec(), encoding="utf-8")
    run = cli(
        "retire", "retry-backoff-cap.patch", "--at", "1.1", "--why", "in 1.1",
        cwd=example.downstream,
    )  # fmt: skip
    assert (run.code, run.out.splitlines()) == (
        0,
        [
            "retired retry-backoff-cap at 1.1: removed patches/retry-backoff-cap.patch; took "
            "it out of patches/series; recorded in PATCHES.md",
            "to do: patches/python-minihttp.spec:8 still names it (its Patch tag): take the "
            "tag out (and its %patch line, if any), or rpmbuild stops at the missing file",
        ],
    )
    assert spec.read_text(encoding="utf-8") == minihttp_spec()
    run = cli(
        "retire", "metrics-same-host.patch", "--at", "1.1", "--why", "in 1.1", "--json",
        cwd=example.downstream,
    )  # fmt: skip
    assert json.loads(run.out)["spec_tag"] == "patches/python-minihttp.spec:13"


def test_without_a_spec_there_is_nothing_to_say(cli, example: Example) -> None:
    run = cli(
        "retire", "retry-backoff-cap.patch", "--at", "1.1", "--why", "in 1.1", "--json",
        cwd=example.downstream,
    )  # fmt: skip
    assert json.loads(run.out)["spec_tag"] == ""
