"""A series that creates a module in a brand-new subpackage of a package upstream moved
(python-dateutil 2.8.2 -> 2.9.0.post0 moved ``dateutil/`` to ``src/dateutil/``; a patch
creates ``dateutil/contrib/local.py``, a directory neither release has). A creation needs
no context, so the patch applied at the old place, outside the package. Before: *clean*,
"to do: carry (it applies)", and ``port`` carried the module to the tree's root."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from moved_package_shape import BOTH, CREATES, LOCAL, MOVED, PIN, SERIES


def test_a_module_created_in_a_new_subpackage_of_a_moved_package(tmp_path: Path) -> None:
    verdicts = judge(tmp_path, MOVED, SERIES, old=PIN)
    assert [(v.verdict, v.action, v.rule) for v in verdicts] == [
        ("target gone", "port", "file-moved"),
        ("target gone", "port", "file-moved"),
    ]
    assert [v.summary for v in verdicts] == [
        "dateutil/contrib/local.py would be created in dateutil/contrib/, under dateutil/, "
        "which the new release no longer has; likely moved to src/dateutil/ (7 of 7 files "
        "of dateutil/ found there); to do: port (into the directory its files moved to)",
        "dateutil/utils.py no longer exists; likely moved to src/dateutil/utils.py (same "
        "name: 2 of 2 context lines found there); to do: port (onto the file its content "
        "moved to)",
    ]
    assert [(m.path, m.likely) for m in verdicts[0].moved] == [
        ("dateutil/contrib/local.py", "src/dateutil/contrib/local.py")
    ]


def test_the_module_already_at_the_moved_place_is_upstreamed(tmp_path: Path) -> None:
    new = {**MOVED, "src/dateutil/contrib/local.py": LOCAL}
    [verdict] = judge(tmp_path, new, SERIES[:1], old=PIN)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("upstreamed", "retire", "file-moved")
    assert verdict.summary == (
        "dateutil/contrib/local.py would be created in dateutil/contrib/, under dateutil/, "
        "which the new release no longer has; likely moved to src/dateutil/ (7 of 7 files "
        "of dateutil/ found there); the patch reverse-applies: the new upstream already has "
        "its post-image; 3 of 3 substantive added lines already upstream (strongest: "
        "src/dateutil/contrib/local.py 3/3); to do: retire (upstream has it)"
    )


def test_a_new_subpackage_of_a_package_that_stayed_is_still_clean(tmp_path: Path) -> None:
    verdicts = judge(tmp_path, PIN, SERIES, old=PIN)
    assert [(v.verdict, v.action, v.rule) for v in verdicts] == [
        ("clean", "carry", "applies"),
        ("clean", "carry", "applies"),
    ]


def test_a_new_top_directory_is_still_clean(tmp_path: Path) -> None:
    """A directory neither tree has, with no directory of the pin above it: nothing moved."""
    top = CREATES.replace("dateutil/contrib/", "contrib/")
    [verdict] = judge(tmp_path, MOVED, [("top.patch", top)], old=PIN)
    assert (verdict.verdict, verdict.action) == ("clean", "carry")


def test_a_creation_beside_a_changed_file_of_the_moved_package(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, MOVED, [("both.patch", BOTH)], old=PIN)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("target gone", "port", "file-moved")
    assert verdict.summary == (
        "dateutil/utils.py no longer exists; likely moved to src/dateutil/utils.py (same "
        "name: 2 of 2 context lines found there); to do: port (onto the file its content "
        "moved to)"
    )
