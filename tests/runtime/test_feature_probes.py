"""Feature probes (``hasattr`` conditions) on the way to an entry, read against the
``history`` fixture's upstream releases (``hup`` 1.0 -> 2.0): exact probes and answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.runtime.judge.feature_probes import Probe, has_attribute, probes
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import (
    Activation,
    ActivationStatus,
    Condition,
    Mechanism,
    PatchEntry,
)
from patchkeeper.runtime.syntax.names import Binding

TABLE = {"Request": Binding("hup.request.Request", "hup.request"), "hup": Binding("hup", "hup")}


def _entry(*conditions: tuple[str, str]) -> PatchEntry:
    found = tuple(Condition(kind, text, "p.py", n) for n, (kind, text) in enumerate(conditions))
    return PatchEntry(
        file="p.py",
        line=9,
        module="plug.p",
        scope="<module>",
        target="hup.request.Request.advance",
        mechanism=Mechanism.ASSIGNMENT,
        activation=Activation(ActivationStatus.CONDITIONAL, conditions=found),
    )


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
        (
            ("else", "not (not hasattr(Request, 'in_flight'))"),
            None,
        ),
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
