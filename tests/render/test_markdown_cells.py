"""Every Markdown table of patchkeeper escapes a value the same way
(:func:`patchkeeper.system.markdown_cells.escape_cell`): a ``|`` cannot end the cell, and no tag or
entity of it reaches the rendered page. The ledger escaped HTML; ``audit``, ``port`` and
``upgrade`` escaped ``|`` only, and the runtime audit's evidence and the branch check's
differences nothing, so an evidence sentence quoting ``<script>`` ran as HTML in a pull
request's description."""

from __future__ import annotations

import pytest

from patchkeeper.audit.results import AuditResult
from patchkeeper.audit.verdicts import PatchVerdict
from patchkeeper.ledger.check_branch import BranchDifference, CheckBranchResult
from patchkeeper.port.rebase import PortedPatch
from patchkeeper.port.results import PortResult
from patchkeeper.record.markup import Table, to_markdown
from patchkeeper.render.audit import audit_markdown
from patchkeeper.render.ledger import check_branch_markdown
from patchkeeper.render.port import port_markdown
from patchkeeper.render.upgrade import upgrade_markdown
from patchkeeper.system.markdown_cells import escape_cell, escape_inline, unescape_cell
from patchkeeper.upgrade.results import Edited, StepRecord, UpgradeResult

#: A value holding a tag, an entity, a pipe and text a renderer shows as it is.
VALUE = "drop <script>alert(1)</script> & &amp; | R&D, a < b"
#: :data:`VALUE` in a cell.
CELL = "drop &lt;script>alert(1)&lt;/script> & &amp;amp; \\| R&D, a < b"


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        (VALUE, CELL),
        # a backslash that would escape what follows is written twice: \| stays in the cell
        ("match a\\|b", "match a\\\\\\|b"),
        ("C:\\dir\\", "C:\\dir\\\\"),
        # a code span shows its text as it is: only its | is escaped
        ("`Optional[int] | None` and `<T>`", "`Optional[int] \\| None` and `<T>`"),
    ],
)
def test_a_value_in_a_cell_reads_back_as_written(value: str, cell: str) -> None:
    assert (escape_cell(value), unescape_cell(cell)) == (cell, value)


def test_line_breaks_in_a_cell() -> None:
    assert escape_cell("one\n two\r\nthree") == "one<br>two<br>three"
    assert unescape_cell("one<br>a \\| b") == "one<br>a | b"


def test_a_paragraph_escapes_html_outside_its_code_spans() -> None:
    assert escape_inline(VALUE + " `<b>`") == (
        "drop &lt;script>alert(1)&lt;/script> & &amp;amp; | R&D, a < b `<b>`"
    )


def test_the_audit_table_and_its_needs_work_section() -> None:
    verdict = PatchVerdict("fix.patch", "conflict", VALUE, action="port")
    text = audit_markdown(AuditResult("patches/series", "1.0", "/up/m-1.1", "1.1", (verdict,)))
    lines = text.splitlines()
    assert lines[lines.index("| patch | verdict | evidence |") + 2] == (
        f"| `fix.patch` | conflict | {CELL} |"
    )
    assert lines[lines.index("#### `fix.patch`: conflict") + 2] == escape_inline(VALUE)


def test_the_port_table() -> None:
    result = PortResult(
        "port", "done", "patches/series", "/up/m-1.0", "/up/m-1.1", "1.0", "1.1",
        (PortedPatch("fix.patch", "merged", VALUE),),
    )  # fmt: skip
    lines = port_markdown(result).splitlines()
    assert lines[lines.index("| patch | verdict | evidence |") + 2] == (
        f"| `fix.patch` | merged | {CELL} |"
    )


def test_the_upgrade_table_with_a_persons_edit() -> None:
    step = StepRecord("audit", "done", VALUE, commit="0123456789abcdef", subject=VALUE)
    edit = Edited(("a|<b>.patch",), "audit", "fedcba9876543210", VALUE)
    result = UpgradeResult(
        "upgrade", "done", "/down", "m==1.1", "m==1.0", "1.1", "up", "main", (step,), None,
        "patchkeeper-decisions.toml", edited=(edit,),
    )  # fmt: skip
    assert upgrade_markdown(result).splitlines()[4:] == [
        f"| (by hand) | edited | a\\|&lt;b>.patch | `fedcba987654` {CELL} |",
        f"| audit | done | {CELL} | `0123456789ab` {CELL} |",
    ]


def test_the_branch_check_table() -> None:
    difference = BranchDifference("topic", "fix", VALUE)
    result = CheckBranchResult("downstream", "main", ("fix",), 1, (difference,))
    assert check_branch_markdown(result) == (
        f"| kind | name | difference |\n|---|---|---|\n| topic | `fix` | {CELL} |\n"
    )


def test_the_records_table() -> None:
    """The audit record writes its own text (emphasis and links as text too, every ``<``),
    with the cells' HTML escape: an entity's ``&`` shows."""
    table = Table(("patch", "evidence"), (("fix.patch", VALUE),))
    assert to_markdown([table]).splitlines()[2] == (
        "| fix.patch | drop &lt;script>alert(1)&lt;/script> & &amp;amp; \\| R&D, a &lt; b |"
    )
