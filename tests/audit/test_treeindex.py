"""The tree's line index: one pass over the tree answers every registered line."""

from __future__ import annotations

from pathlib import Path

from audit_support import write_tree

from patchkeeper.upstream.treesearch import TreeSearch


def test_one_pass_answers_every_registered_line(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pkg/a.py": "import os\n\ndef f():\n    return os.sep\n",
            "pkg/b.py": "def g():\n    return os.sep\n    x = 1\n",
            "docs/a.rst": "    return os.sep\n",
            "pkg/blob.py": "\0binary\n    return os.sep\n",
        },
    )
    search = TreeSearch(root)
    index = search.index
    index.want([b"    return os.sep\n", b"import os\n", b"x = 1"], "pkg/x.py")
    assert index.passes == 0
    assert index.holders(b"return os.sep") == ["pkg/a.py", "pkg/b.py"]
    assert index.holders(b"  import os") == ["pkg/a.py"]
    assert index.holders(b"x = 1") == ["pkg/b.py"]
    assert index.passes == 1  # binary files and other suffixes are not read
    assert index.best_file([b"return os.sep", b"import os"], ".py") == ("pkg/a.py", 2)
    assert index.best_file([b"return os.sep"], ".py", exclude=["pkg/a.py"]) == ("pkg/b.py", 1)
    # lines asked about later: one more pass for all of them together
    assert index.best_file([b"def f():", b"def g():"], ".py") == ("pkg/a.py", 1)
    assert index.passes == 2
    # a new suffix: the known lines are looked for in those files too
    index.want([b"return os.sep"], "docs/x.rst")
    assert index.holders(b"return os.sep") == ["docs/a.rst", "pkg/a.py", "pkg/b.py"]
