"""The port's to-do says how many patches follow the conflict in the singular when there is
one: ``1 more patch follows it``, never ``1 more patches follow it`` (seen porting Debian's
django-storages series, three patches, stopped at the first)."""

from __future__ import annotations

import json

from helpers import Example


def test_one_more_patch_follows(cli, example: Example) -> None:
    series = example.downstream / "patches" / "series"
    lines = series.read_text().splitlines()
    series.write_text("\n".join(lines[:4]) + "\n")  # the comment, then three patches
    run = cli("port", "--to", str(example.new), "--json", cwd=example.downstream)
    assert run.code == 1
    data = json.loads(run.out)
    assert [(p["name"], p["verdict"], p["pending"]) for p in data["patches"]] == [
        ("retry-backoff-cap.patch", "upstreamed", False),
        ("redirect-strip-proxy-auth.patch", "conflict", False),
        ("headers-merge-order.patch", "merged", True),
    ]
    assert data["todo"][1] == "1 more patch follows it (their verdicts are a preview)"
