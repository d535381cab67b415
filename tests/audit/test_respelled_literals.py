"""A line of the new release that differs from an added line by a string literal of other
content is another line, not the added one spelled differently: ``== "identity"`` is not
``== ""``, whatever literals the old pin had (the empty string is in almost every file). A
local renamed, or the same literal in other quotes, is still the same line.
"""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit.shares import _literal, _swaps_literal, nearest_lines
from patchkeeper.series.engine import FileState

PIN = b"""def set_body_reader(self):
    chunked = False
    self.scheme = ""
    for (name, value) in self.headers:
        if name == "TRANSFER-ENCODING":
            if value.lower() == "chunked":
                chunked = True
"""


def _state(text: bytes) -> FileState:
    return FileState(tuple(text.splitlines(keepends=True)))


def test_an_empty_literal_swapped_for_another_is_not_a_respelling() -> None:
    new = _state(b'            elif val.lower() == "identity":\n')
    assert nearest_lines(b'elif value.lower() == "":', new, _state(PIN)) == (None, None)


def test_a_literal_the_pin_had_swapped_for_another_is_not_a_respelling() -> None:
    # "chunked" is at the pin; upstream testing for "identity" there tests something else
    new = _state(b'            elif val.lower() == "identity":\n')
    assert nearest_lines(b'elif value.lower() == "chunked":', new, _state(PIN)) == (None, None)


def test_the_same_literal_in_other_quotes_with_a_local_renamed_is_respelled() -> None:
    new = _state(b"            elif val.lower() == 'identity':\n")
    assert nearest_lines(b'elif value.lower() == "identity":', new, _state(PIN)) == (
        "elif val.lower() == 'identity':",
        None,
    )


def test_a_renamed_local_is_still_respelled() -> None:
    new = _state(b'            elif val.lower() == "identity":\n')
    assert nearest_lines(b'elif value.lower() == "identity":', new, _state(PIN)) == (
        'elif val.lower() == "identity":',
        None,
    )


def test_a_literal_escaped_otherwise_is_no_swap() -> None:
    # the tokens keep a literal single-quoted when double quotes would need an escape
    escaped, plain = b"'say \\'hi\\''", b"\"say 'hi'\""
    assert _literal(escaped) == _literal(plain) == b"say 'hi'"
    assert _swaps_literal([([escaped], [plain])]) is False
    assert _swaps_literal([([escaped], [b'"say hi"'])]) is True


OLD = (
    PIN.decode()
    + """    if chunked:
        self.body = Body(ChunkedReader(self, self.unreader))
"""
)

# a backport in the shape of a request-framing fix: refuse stacked chunking, accept
# identity, refuse an empty coding
FRAMING = """Subject: fail-safe on unsupported request framing
---
--- a/pkg/http/message.py
+++ b/pkg/http/message.py
@@ -4,6 +4,13 @@ def set_body_reader(self):
     for (name, value) in self.headers:
         if name == "TRANSFER-ENCODING":
             if value.lower() == "chunked":
+                if chunked:
+                    raise InvalidHeader("TRANSFER-ENCODING", req=self)
                 chunked = True
+            elif value.lower() == "identity":
+                pass
+            elif value.lower() == "":
+                self.force_close()
+                raise UnsupportedTransferCoding(value)
     if chunked:
         self.body = Body(ChunkedReader(self, self.unreader))
"""

# upstream splits the header into its codings and refuses stacked chunking, but has no
# branch for the empty coding nor the patch's error
NEW = """def set_body_reader(self):
    chunked = False
    for (name, value) in self.headers:
        if name == "TRANSFER-ENCODING":
            vals = [v.strip() for v in value.split(",")]
            for val in vals:
                if val.lower() == "chunked":
                    if chunked:
                        raise InvalidHeader("TRANSFER-ENCODING", req=self)
                    chunked = True
                elif val.lower() == "identity":
                    continue
    if chunked:
        self.body = Body(ChunkedReader(self, self.unreader))
"""


def test_a_fix_whose_empty_coding_branch_upstream_lacks_is_not_retired(tmp_path: Path) -> None:
    path = "pkg/http/message.py"
    [verdict] = judge(tmp_path, {path: NEW}, [("framing.patch", FRAMING)], {path: OLD})
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    [share] = verdict.shares
    assert share.counted == (2, 5)
    assert share.respelled == (
        ('elif value.lower() == "identity":', 'elif val.lower() == "identity":'),
    )
    assert share.missing == (
        'elif value.lower() == "":',
        "self.force_close()",
        "raise UnsupportedTransferCoding(value)",
    )
