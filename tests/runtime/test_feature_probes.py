"""Feature probes (``hasattr`` conditions) on the way to an entry, read against the
``history`` fixture's upstream releases (``hup`` 1.0 -> 2.0): exact probes and answers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from plugin_trees import conditional_entry

from patchkeeper.runtime.judge.feature_probes import Probe, has_attribute, probes
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import (
    Condition,
    PatchEntry,
)
from patchkeeper.runtime.syntax.names import Binding

TABLE = {"Request": Binding("hup.request.Request", "hup.request"), "hup": Binding("hup", "hup")}


def _entry(*conditions: tuple[str, str]) -> PatchEntry:
    found = (Condition(kind, text, "p.py", n) for n, (kind, text) in enumerate(conditions))
    return conditional_entry("hup.request.Request.advance", *found)


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        (("if", "not hasattr(Request, 'in_flight')"), ("hup.request.Request", "in_flight", True)),
        (("if", 'hasattr(Request, "in_flight")'), ("hup.request.Request", "in_flight", False)),
        # the else branch of a probe runs when it is false: its text is the negated test
        (
            ("else", "not (hasattr(Request, 'in_flight'))"),
            ("hup.request.Request", "in_flight", True),
        ),
        # the else of ``if not hasattr(...)``: its text is the test without its ``not``
        (("else", "hasattr(Request, 'in_flight')"), ("hup.request.Request", "in_flight", False)),
        (("if", "not hasattr(hup.utils, 'helper')"), ("hup.utils", "helper", True)),
        # a name the file does not import, a computed attribute, a compound test: no probe
        (("if", "not hasattr(request, 'in_flight')"), None),
        (("if", "not hasattr(Request, NAME)"), None),
        (("if", "not hasattr(Request, 'a') and x"), None),
    ],
)
def test_probes(condition: tuple[str, str], expected) -> None:
    found = probes(_entry(condition), TABLE)
    if expected is None:
        assert found == []
    else:
        dotted, attribute, when_missing = expected
        kind, text = condition
        assert found == [Probe(Condition(kind, text, "p.py", 0), dotted, attribute, when_missing)]


@pytest.mark.parametrize(
    ("release", "dotted", "attribute", "expected"),
    [
        # set in __init__ at 2.0 only
        ("hup-1.0", "hup.request.Request", "in_flight", False),
        ("hup-2.0", "hup.request.Request", "in_flight", True),
        # a method, a module's function, a module without the name, an object not there
        ("hup-1.0", "hup.request.Request", "advance", True),
        ("hup-1.0", "hup.utils", "helper", True),
        ("hup-1.0", "hup.utils", "ceil_div", False),
        ("hup-1.0", "hup.renderers", "DeviceRenderer", None),
    ],
)
def test_has_attribute(
    runtime_trees: Path, release: str, dotted: str, attribute: str, expected
) -> None:
    tree = UpstreamTree(runtime_trees / "history" / release, ("hup",))
    assert has_attribute(tree, dotted, attribute) is expected


def test_probe_tables_reads_each_probed_file_once_for_both_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names of each plugin file with a ``hasattr`` condition, built once and handed to
    both probe rules (the probe that stops a patch, the one that lets it run first): a file
    without a probe gets none, one that does not parse an empty table, and each file is
    parsed once however many entries it holds."""
    from patchkeeper.runtime.judge.feature_probes import probe_tables
    from patchkeeper.runtime.syntax.parsing import PARSE_LOG_ENV, ParsedFiles

    log = tmp_path / "parsed.log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    root = tmp_path / "plugin"
    (root / "plug").mkdir(parents=True)
    (root / "plug" / "p.py").write_text(
        "from hup.request import Request\nimport hup.utils as utils\n"
        "try:\n    from hup import extra\nexcept ImportError:\n    extra = None\n"
    )
    (root / "plug" / "broken.py").write_text("def (\n")
    (root / "plug" / "plain.py").write_text("from hup.request import Request\n")
    probed = ("if", "not hasattr(Request, 'in_flight')")
    entries = [
        _entry(probed),
        replace(_entry(("if", "hasattr(utils, 'helper')")), line=12),
        replace(_entry(probed), file="plug/broken.py", module="plug.broken"),
        replace(_entry(("if", "flag")), file="plug/plain.py", module="plug.plain"),
        replace(_entry(probed), activation=None, file="plug/other.py"),
    ]
    entries[:2] = [replace(e, file="plug/p.py") for e in entries[:2]]
    tables = probe_tables(ParsedFiles(root), entries)
    assert {file: dict(table) for file, table in tables.items()} == {
        "plug/p.py": {
            "Request": Binding("hup.request.Request", "hup.request"),
            "utils": Binding("hup.utils", "hup.utils"),
            "extra": Binding("hup.extra", "hup"),
        },
        "plug/broken.py": {},
    }
    assert log.read_text() == f"{root}/plug/p.py\n{root}/plug/broken.py\n"
