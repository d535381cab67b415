"""A patch file's header is ``#`` comment lines (``# Note:``, ``# Affected versions:``,
``# Remove at:``), not the module docstring, which the workflow says not to substitute for
them. A file that has the fields only in its docstring, as a Python author writes a module's
description, was told "no 'Note:', ... in the header" with nothing to do, though the fields
were there for anyone to see: the finding now says the docstring has them and that the
header is comment lines, and every header-missing finding says how to write the fields."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from helpers import vllm_plugin_pyproject, write_files
from patchkeeper.runtime.inventory.patch_headers import check_header

DOCSTRING_HEADER = '''"""Note: keep the output token ids for the n-gram processor.

Affected versions: 0.10.1.1
Remove at: vLLM tracks output tokens for logits processors itself
"""
from vllm.worker import InputBatch


def _init(self, *args, **kwargs):
    return None


InputBatch.__init__ = _init
'''
NO_HEADER = """from vllm.worker import InputBatch

InputBatch.trace = True
"""
COMMENT_HEADER = """# Note: count the speculative tokens once.
# Affected versions: 0.10.1.1
# Remove at: vLLM counts them itself
from vllm.worker import InputBatch

InputBatch.count = 0
"""
HINT = (
    "write each field as a comment line at the top of the file: '# Note: ...', "
    "'# Affected versions: ...', '# Remove at: ...'"
)


def test_a_header_in_the_docstring_is_named_and_the_form_is_said(cli, tmp_path: Path) -> None:
    pyproject = vllm_plugin_pyproject(
        "vllm-ngram", "0.3.0", 'ngram = "vllm_ngram:register"', package="vllm_ngram"
    )
    plugin = write_files(
        tmp_path / "vllm-ngram",
        {
            "pyproject.toml": pyproject,
            "vllm_ngram/__init__.py": "def register():\n    from vllm_ngram.patch import a, b, c\n",
            "vllm_ngram/patch/__init__.py": "",
            "vllm_ngram/patch/a.py": DOCSTRING_HEADER,
            "vllm_ngram/patch/b.py": NO_HEADER,
            "vllm_ngram/patch/c.py": COMMENT_HEADER,
        },
    )

    text = cli("runtime", "inventory", cwd=plugin)
    findings = json.loads(cli("runtime", "inventory", "--json", cwd=plugin).out)["findings"]

    fields = "'Note:', 'Affected versions:', 'Remove at:'"
    assert [line for line in text.out.splitlines() if "header-missing" in line] == [
        f"  vllm_ngram/patch/a.py:1: header-missing: no {fields} in the header's comment lines "
        f"(the module docstring has {fields}, but the header is '#' comment lines, not a "
        f"docstring): {HINT}",
        f"  vllm_ngram/patch/b.py:1: header-missing: no {fields} in the header's comment "
        f"lines: {HINT}",
    ]
    assert findings == [
        {
            "code": "header-missing",
            "path": "vllm_ngram/patch/a.py",
            "line": 1,
            "message": f"no {fields} in the header's comment lines (the module docstring has "
            f"{fields}, but the header is '#' comment lines, not a docstring)",
            "hint": HINT,
        },
        {
            "code": "header-missing",
            "path": "vllm_ngram/patch/b.py",
            "line": 1,
            "message": f"no {fields} in the header's comment lines",
            "hint": HINT,
        },
    ]


FIELDS = ("Note", "Affected versions", "Remove at")
#: The note the header-missing finding adds for fields the docstring has.
IN_DOCSTRING = (
    "no 'Note:', 'Affected versions:', 'Remove at:' in the header's comment lines (the module "
    "docstring has 'Note:', 'Affected versions:', 'Remove at:', but the header is '#' comment "
    "lines, not a docstring)"
)


def _messages(text: str, tree: ast.Module | None) -> list[str]:
    return [f.message for f in check_header(text, FIELDS, "p/a.py", tree)]


def test_the_docstring_is_read_from_the_parse_the_scan_kept() -> None:
    # the audit hands the parse of the file's bytes it kept: the same finding, no parse
    kept = ast.parse(DOCSTRING_HEADER.encode())
    assert _messages(DOCSTRING_HEADER, kept) == _messages(DOCSTRING_HEADER, None) == [IN_DOCSTRING]


def test_the_text_is_parsed_where_the_bytes_may_read_otherwise() -> None:
    # a parse with no docstring stands for bytes Python reads otherwise than the text
    other = ast.parse(NO_HEADER)
    coding = "# -*- coding: latin-1 -*-\n" + DOCSTRING_HEADER
    assert _messages(coding, other) == [IN_DOCSTRING]
    assert _messages(DOCSTRING_HEADER.replace("n-gram", "n\u2011gram"), other) == [IN_DOCSTRING]
    # an ASCII text without a coding line is read from the parse given
    assert _messages(DOCSTRING_HEADER, other) == [
        "no 'Note:', 'Affected versions:', 'Remove at:' in the header's comment lines"
    ]
