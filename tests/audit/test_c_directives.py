"""In C and C++ files ``#include``, ``#define``, ``#if`` lines are code, not comments: a patch
that adds them is judged on them (upstream has them: upstreamed), where the same lines in a
Python file are comments and prove nothing. A file's kind and language follow its suffix."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

from patchkeeper.series.filekinds import kind_of, language_of
from patchkeeper.series.substantive_lines import substantive

OLD = """#include <Python.h>

static int width(void)
{
    return 80;
}
"""

# upstream added the patch's two lines, and changed the function below them
NEW = """#include <Python.h>
#include <stdint.h>

#define PK_HAVE_STDINT 1

static int width(void)
{
    return 100;
}
"""

PATCH = """--- a/src/_speedups.{suffix}
+++ b/src/_speedups.{suffix}
@@ -1,5 +1,8 @@
 #include <Python.h>
+#include <stdint.h>
+
+#define PK_HAVE_STDINT 1
 
 static int width(void)
 {{
     return 80;
"""


def _judge(tmp_path: Path, suffix: str, new: str = NEW) -> tuple[str, str, str]:
    path = f"src/_speedups.{suffix}"
    (verdict,) = judge(
        tmp_path,
        {path: new},
        [("stdint.patch", PATCH.format(suffix=suffix))],
        old={path: OLD},
    )
    return verdict.verdict, verdict.action, verdict.summary


def test_directives_upstream_in_a_c_file_are_upstreamed(tmp_path: Path) -> None:
    assert _judge(tmp_path, "c") == (
        "upstreamed",
        "retire",
        "every hunk's post-image is there (src/_speedups.c #1); 2 of 2 substantive added "
        "lines already upstream (strongest: src/_speedups.c 2/2); to do: retire (upstream "
        "has it)",
    )


def test_a_directive_upstream_lacks_is_not_upstreamed(tmp_path: Path) -> None:
    new = NEW.replace("#define PK_HAVE_STDINT 1\n", "#define PK_HAVE_STDINT 0\n")
    verdict, action, summary = _judge(tmp_path, "cpp", new)
    assert (verdict, action) == ("conflict", "port")
    assert "1 of 2 substantive added lines already upstream" in summary


def test_the_same_lines_in_a_python_file_are_comments(tmp_path: Path) -> None:
    verdict, action, summary = _judge(tmp_path, "py")
    assert (verdict, action) == ("conflict", "port")
    assert "it adds no substantive lines" in summary


@pytest.mark.parametrize(
    ("line", "language", "expected"),
    [
        (b"#include <stdint.h>\n", "c", b"#include <stdint.h>"),
        (b"#  if defined(_WIN32)\n", "c", b"# if defined(_WIN32)"),
        (b"#endif /* _WIN32 */\n", "c", None),
        (b"# else\n", "c", None),
        (b"// a comment\n", "c", None),
        (b"#include <stdint.h>\n", "python", None),
        (b"#include <stdint.h>\n", "", None),
    ],
)
def test_substantive_by_language(line: bytes, language: str, expected: bytes | None) -> None:
    assert substantive(line, language) == expected


def test_kind_and_language_follow_the_suffix() -> None:
    assert [language_of(p) for p in ("a/x.hpp", "a/x.cc", "a/x.pyx", "a/x.pxd", "x.md")] == [
        "c",
        "c",
        "python",
        "python",
        "",
    ]
    # a source file is code whatever its name, in C++ and Cython as in Python
    assert [kind_of(p) for p in ("src/changes.cpp", "src/news.pyx", "src/changes.py")] == [
        "code",
        "code",
        "code",
    ]
