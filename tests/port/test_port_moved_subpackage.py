"""``port`` of patches that create a module in a brand-new subpackage of a package upstream
moved (python-dateutil 2.8.2 -> 2.9.0.post0: ``dateutil/`` became ``src/dateutil/``; the
patch creates ``dateutil/contrib/local.py``). Before: the creation was *clean* and carried
as it was, the new series creating the module at the tree's root, outside the package."""

from __future__ import annotations

from pathlib import Path

from port_support import port_one_patch

from moved_package_shape import BOTH, CREATES, MOVED, PIN


def test_a_created_module_follows_its_moved_package(cli, tmp_path: Path) -> None:
    run, down = port_one_patch(cli, tmp_path, "python-dateutil", (PIN, MOVED), "c.patch", CREATES)
    assert run.code == 0, run.err
    assert (
        "  c.patch  merged   dateutil/contrib/local.py is gone, merged into "
        "src/dateutil/contrib/local.py; git's three-way merge carried the patch\n"
    ) in run.out
    assert (down / "patches-2.0" / "c.patch").read_text() == CREATES.replace(
        "dateutil/contrib/local.py", "src/dateutil/contrib/local.py"
    ).replace("index 0000000..1111111", "index 0000000..465f720")


def test_a_created_module_beside_a_changed_file_follows_it(cli, tmp_path: Path) -> None:
    run, down = port_one_patch(cli, tmp_path, "python-dateutil", (PIN, MOVED), "b.patch", BOTH)
    assert run.code == 0, run.err
    assert (
        "    change: dateutil/utils.py -> src/dateutil/utils.py, "
        "dateutil/contrib/local.py -> src/dateutil/contrib/local.py\n"
    ) in run.out
    text = (down / "patches-2.0" / "b.patch").read_text()
    assert [line for line in text.splitlines() if line.startswith("+++ ")] == [
        "+++ b/src/dateutil/utils.py",
        "+++ b/src/dateutil/contrib/local.py",
    ]
