"""Saved results read back as the typed results that made them
(:mod:`patchkeeper.record.stored_results`, :func:`patchkeeper.jsonable.from_jsonable`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from patchkeeper.audit.results import AuditResult
from patchkeeper.audit.verdicts import UPSTREAMED
from patchkeeper.config import load_config
from patchkeeper.constants import WordEnum
from patchkeeper.jsonable import NOT_IN_JSON, DecodeError, from_jsonable, to_jsonable
from patchkeeper.record import evidence_store
from patchkeeper.record.stored_results import audit_result


def test_a_saved_audit_reads_back_as_the_result_that_made_it(audited: Path) -> None:
    evidence = evidence_store.load_all(load_config(start=audited))
    result = audit_result(evidence)
    assert isinstance(result, AuditResult)
    assert [(v.name, v.verdict) for v in result.verdicts][:2] == [
        ("retry-backoff-cap.patch", UPSTREAMED),
        ("redirect-strip-proxy-auth.patch", "conflict"),
    ]
    assert to_jsonable(result) == evidence["audit"].result  # nothing lost on the way
    assert audit_result(evidence) is result  # decoded once per loaded file


def test_a_saved_result_that_does_not_fit_names_the_file(cli, audited: Path) -> None:
    saved = audited / ".patchkeeper/evidence/audit.json"
    data = json.loads(saved.read_text())
    data["result"]["verdicts"] = {"retry-backoff-cap.patch": "upstreamed"}
    saved.write_text(json.dumps(data))
    run = cli("decide", "--json", cwd=audited)
    assert run.code == 2
    assert json.loads(run.out)["error"] == {
        "message": "not the result of audit this patchkeeper reads (an array expected for "
        "tuple[patchkeeper.audit.verdicts.PatchVerdict, ...], not dict)",
        "file": str(saved),
        "line": None,
        "hint": "run 'patchkeeper audit' with --save-evidence again to rewrite it",
    }


class Colour(WordEnum):
    RED = "red"


@dataclass(frozen=True)
class Shape:
    name: str
    colour: Colour
    corners: tuple[int, ...] = ()
    inside: Shape | None = None
    where: Path | None = None


def test_from_jsonable_reads_what_to_jsonable_wrote() -> None:
    shape = Shape("box", Colour.RED, (1, 2), Shape("dot", Colour.RED), Path("/a/b"))
    assert from_jsonable(Shape, to_jsonable(shape)) == shape


def test_a_missing_member_takes_its_default_and_an_unknown_one_is_left_out() -> None:
    read = from_jsonable(Shape, {"name": "box", "colour": "red", "new": 1})
    assert read == Shape("box", Colour.RED)


@dataclass(frozen=True)
class Worded:
    words: str
    where: int | None = field(default=None, metadata=NOT_IN_JSON)


def test_a_field_marked_not_in_json_is_left_out_and_reads_back_as_its_default() -> None:
    assert to_jsonable(Worded("at line 3", 3)) == {"words": "at line 3"}
    assert from_jsonable(Worded, {"words": "at line 3", "where": 3}) == Worded("at line 3")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": "red"}, "Shape without its 'name'"),
        ({"name": "box", "colour": "blue"}, "'blue' is no Colour"),
        ([], "an object expected for Shape, not list"),
    ],
)
def test_what_does_not_fit_is_a_decode_error(data: object, message: str) -> None:
    with pytest.raises(DecodeError) as raised:
        from_jsonable(Shape, data)
    assert str(raised.value) == message


def test_a_live_check_keeps_the_members_the_probe_wrote_and_reads_back() -> None:
    """An entry point's ``module``, ``detail`` and ``trace`` are absent from the JSON when
    the probe did not write them (``ABSENT_WHEN_NONE``), present when it did, even empty."""
    from patchkeeper.render.runtime import check_text
    from patchkeeper.runtime.live.check import EntryPointActivation, LiveCheck, StaleLiveBinding

    trace = "Traceback (most recent call last):\nImportError: no cup\n"
    result = LiveCheck(
        python="/env/bin/python",
        version="3.12.1",
        activation=(
            EntryPointActivation("vllm.general_plugins", "ok", "cplug:register", "ok"),
            EntryPointActivation(
                "vllm.platform_plugins",
                "imp",
                "cplug:platform",
                "import-error",
                "",
                "no cup",
                trace,
            ),
        ),
        entries=(),
        stale=(StaleLiveBinding("cup.ops.scale", "cup.api", "scale"),),
        package_files={"cplug": None},
        extensions=(),
    )
    data = to_jsonable(result)
    assert (data["activation"], data["stale"]) == (
        [
            {
                "group": "vllm.general_plugins",
                "name": "ok",
                "value": "cplug:register",
                "status": "ok",
            },
            {
                "group": "vllm.platform_plugins",
                "name": "imp",
                "value": "cplug:platform",
                "status": "import-error",
                "module": "",
                "detail": "no cup",
                "trace": trace,
            },
        ],
        [{"target": "cup.ops.scale", "importer": "cup.api", "local": "scale"}],
    )
    assert from_jsonable(LiveCheck, data) == result
    assert result.exit_code == 1
    assert check_text(result).splitlines() == [
        "interpreter /env/bin/python (Python 3.12.1)",
        "file of cplug: not imported",
        "entry point vllm.general_plugins:ok = cplug:register: ok",
        "entry point vllm.platform_plugins:imp = cplug:platform: import-error  no cup",
        "  Traceback (most recent call last):",
        "  ImportError: no cup",
        "stale live binding: cup.api.scale keeps the original cup.ops.scale",
    ]


FINDING_JSON = """{
  "code": "PK202",
  "path": "patches/a.patch",
  "line": null,
  "message": "not listed in patches/series",
  "hint": ""
}"""
MOVED_JSON = """{
  "path": "src/old.py",
  "likely": "src/new.py",
  "found": 5,
  "total": 6,
  "reason": "same content"
}"""
STATE_JSON = """{
  "name": "a.patch",
  "state": "conflict",
  "applied_hunks": [],
  "missing_hunks": [],
  "problems": [
    "x: one",
    "y: two"
  ],
  "missing_changes": [],
  "waits_for": ""
}"""
PORT_JSON = """{
  "old": "../up-1.0",
  "new": "../up-2.0",
  "entries": [],
  "diff": "",
  "files": [],
  "written": false,
  "output": "",
  "old_release": "1.0",
  "new_release": "2.0"
}"""


def test_fields_marked_not_in_json_write_and_read_the_json_written_before() -> None:
    # The texts are what these results wrote when the fields were named with a leading "_".
    from patchkeeper.errors import Finding
    from patchkeeper.jsonable import json_text
    from patchkeeper.runtime.port.results import RuntimePort
    from patchkeeper.trees.applied import PatchState
    from patchkeeper.upstream.treesearch import MovedFile

    message = "not listed in patches/series"
    finding = Finding("PK202", "patches/a.patch", None, message, named_files=("patches/series",))
    moved = MovedFile("src/old.py", "src/new.py", 5, 6, "same content", (3, 4))
    state = PatchState(
        "a.patch", "conflict", (), (), ("x: one", "y: two"), hunk_note_indexes=frozenset({1})
    )
    port = RuntimePort("../up-1.0", "../up-2.0", (), "", (), False, "", True, "1.0", "2.0")
    assert finding.text("patches") == "a.patch: PK202 not listed in series"
    assert moved.counted == (3, 4)
    assert (state.hunk_notes, state.file_problems) == (("y: two",), ("x: one",))
    assert port.write_asked is True
    cases = [
        (finding, FINDING_JSON),
        (moved, MOVED_JSON),
        (state, STATE_JSON),
        (port, PORT_JSON),
    ]
    for result, text in cases:
        assert json_text(to_jsonable(result)) == text
        read = from_jsonable(type(result), json.loads(text))
        assert json_text(to_jsonable(read)) == text
    assert from_jsonable(Finding, json.loads(FINDING_JSON)).named_files == ()
    assert from_jsonable(MovedFile, json.loads(MOVED_JSON)).counted == (5, 6)
    assert from_jsonable(PatchState, json.loads(STATE_JSON)).hunk_note_indexes == frozenset()
    assert from_jsonable(RuntimePort, json.loads(PORT_JSON)).write_asked is False
