"""A patch that renames a file, on a release that ends its lines in CRLF, is refreshed as a
patch that only edits the file is.

The pin 1.0 ends its lines in LF; 1.1 is the same code with CRLF line endings (its sdist
written on another system) and one line more at the end. The patch, made by ``git
format-patch`` from a checkout of 1.0, renames ``shop/cart.py`` to ``shop/basket.py`` and
changes one line of it. Only the line endings keep its hunk from applying: the audit
refreshes it (*carry*) and the port carries it (*merged*), as they do the same change
without the rename. A rename was never refreshed: the audit said *port* and the port
stopped at a modify/delete conflict of the old path.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import git, make_checkout, write_files

CART = "def total(items):\n    return sum(items)\n\n\ndef empty():\n    return []\n"
PATCH_NAME = "0001-Rename-the-cart-to-the-basket.patch"


def _downstream(root: Path) -> Path:
    """1.0 (LF), 1.1 (CRLF, one line more) and ``down``, a downstream carrying the rename
    patch ``git format-patch`` writes from a checkout of 1.0."""
    releases = {"1.0": CART, "1.1": CART + "# 1.1\n"}
    for version, module in releases.items():
        tree = write_files(
            root / f"shop-{version}",
            {"PKG-INFO": f"Metadata-Version: 2.1\nName: shop\nVersion: {version}\n"},
        )
        (tree / "shop").mkdir()
        data = module.encode()
        if version == "1.1":
            data = data.replace(b"\n", b"\r\n")
        (tree / "shop" / "cart.py").write_bytes(data)
    checkout = write_files(root / "checkout", {"shop/cart.py": CART})
    make_checkout(checkout, "1.0")
    git(checkout, "mv", "shop/cart.py", "shop/basket.py")
    basket = checkout / "shop" / "basket.py"
    basket.write_text(CART.replace("sum(items)", "sum(items, 0)"))
    git(checkout, "commit", "-qam", "Rename the cart to the basket")
    down = write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "shop"\npin = "1.0"\npristine = "../shop-1.0"\n',
            "patches/series": f"{PATCH_NAME}\n",
        },
    )
    git(checkout, "format-patch", "-q", "-M", "-1", "-o", str(down / "patches"))
    return down


def test_a_rename_on_a_crlf_release_is_refreshed(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "../shop-1.1", "--json", cwd=down)
    assert run.code == 1, run.err
    (verdict,) = json.loads(run.out)["verdicts"]
    assert (verdict["verdict"], verdict["action"], verdict["rule"]) == (
        "conflict",
        "carry",
        "refresh",
    )
    assert verdict["refresh"] == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (by git's three-way "
        "merge, in the file's CRLF line endings)"
    )


def test_the_port_carries_a_rename_on_a_crlf_release(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("port", "--to", "../shop-1.1", "--in-place", cwd=down)
    assert run.code == 0, run.err
    assert run.out.splitlines()[5:12] == [
        "  patch                                     verdict  evidence",
        f"  {PATCH_NAME}  merged   git's three-way merge stopped at shop/cart.py "
        "(modify/delete); refreshed as the audit does: its 1 hunk (1 file) lands with its "
        "+ and - lines unchanged (by git's three-way merge, in the file's CRLF line endings)",
        "",
        f"  {PATCH_NAME} (merged):",
        "    file: shop/cart.py: modify/delete",
        "",
        "1 patch: 1 merged",
    ]
    copy = shutil.copytree(tmp_path / "shop-1.1", tmp_path / "copy")
    applied = cli("apply", "--target", str(copy), cwd=down)
    assert applied.code == 0, applied.err
    assert not (copy / "shop" / "cart.py").exists()
    assert (copy / "shop" / "basket.py").read_bytes() == (
        CART.replace("sum(items)", "sum(items, 0)") + "# 1.1\n"
    ).replace("\n", "\r\n").encode()
