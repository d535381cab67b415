"""How ``benchmarks/runtime_history.py`` scores what ``runtime port`` did for a truth
*update* entry (no network): a merge port reported clean that writes what neither the
maintainers nor upstream's change did is *clean, wrong*; upstream's change applied faithfully where the
maintainers did otherwise is *clean, not theirs*; one whose every change the maintainers'
new copy agrees with is *clean, partial* (they did more)."""

from __future__ import annotations

import ast
from pathlib import Path

from benchmark_scripts import load
from patchkeeper.runtime.judge.drift import Drift
from patchkeeper.runtime.judge.results import AuditedEntry
from patchkeeper.runtime.lookup.resolve import Resolution
from patchkeeper.runtime.model import Mechanism, PatchEntry

history = load("runtime_history")

COPY = "def f(x):\n    y = x + 1\n    return y\n"
#: what port wrote: upstream's new line merged in
MERGED = "def f(x):\n    y = x + 1\n    y = y * 2\n    return y\n"


def _release(root: Path, text: str) -> Path:
    (root / "plug").mkdir(parents=True)
    (root / "plug" / "__init__.py").write_text("")
    (root / "plug" / "p.py").write_text(text)
    return root


#: upstream's definition before and after: it added ``y = y * 2``
UPSTREAM = (
    "def g(x):\n    y = x\n    return y\n",
    "def g(x):\n    y = x\n    y = y * 2\n    return y\n",
)


def _tokens(text: str):
    return history._code_tokens(ast.parse(text).body[0])


def _outcome(
    tmp_path: Path,
    theirs: str,
    kind: str = "merged",
    verdict: str = "different",
    merged: str = MERGED,
):
    plugin = _release(tmp_path / "old", COPY)
    newer = _release(tmp_path / "new", theirs)
    entry = PatchEntry("plug/p.py", 1, "plug.p", "<module>", "up.f", Mechanism.ASSIGNMENT,
                       replacement="plug.p:f")  # fmt: skip
    upstream = (_tokens(UPSTREAM[0]), _tokens(UPSTREAM[1]))
    return history.port_outcome(
        entry, kind, verdict, plugin, newer, {"plug/p.py": merged}, upstream
    )


def test_a_clean_merge_the_maintainers_agree_with_is_partial(tmp_path: Path) -> None:
    theirs = "def f(x):\n    y = x + 1\n    y = y * 2\n    log(y)\n    return y\n"
    assert _outcome(tmp_path, theirs) == "clean, partial"


def test_upstreams_change_the_maintainers_did_not_take_is_not_theirs(tmp_path: Path) -> None:
    theirs = "def f(x):\n    y = x + 1\n    y = y * 3\n    return y\n"
    assert _outcome(tmp_path, theirs) == "clean, not theirs"


def test_a_clean_merge_writing_a_line_nobody_wrote_is_wrong(tmp_path: Path) -> None:
    theirs = "def f(x):\n    y = x + 1\n    y = y * 3\n    return y\n"
    twice = "def f(x):\n    y = x + 1\n    y = y * 2\n    y = y * 2\n    return y\n"
    assert _outcome(tmp_path, theirs, merged=twice) == "clean, wrong"
    lost = "def f(x):\n    y = y * 2\n    return y\n"  # the copy's own line deleted
    assert _outcome(tmp_path / "lost", theirs, merged=lost) == "clean, wrong"


def test_exact_and_flagged_outcomes(tmp_path: Path) -> None:
    assert _outcome(tmp_path, MERGED, verdict="equal") == "exact"
    assert history.port_outcome(None, "conflict", "conflict", tmp_path, tmp_path, {}) == "conflict"
    assert history.OUTCOMES.index("clean, wrong") == 3


def test_a_release_without_an_importable_package_is_said_so(tmp_path: Path) -> None:
    """A release that ships its package under a name with ``-`` (as one corpus plugin does)
    has nothing to import: the inventory figures say so instead of a failed scan."""
    (tmp_path / "plug-x_pypi" / "plug-x").mkdir(parents=True)
    (tmp_path / "plug-x_pypi" / "plug-x" / "__init__.py").write_text("")
    assert history.unimportable_note(tmp_path, "plug_x") == (
        "no importable package plug_x: the release ships it as plug-x_pypi/plug-x, a name no "
        "import can reach; nothing of it runs"
    )
    assert history.unimportable_note(tmp_path, "other") == (
        "no package other in the release: nothing to scan"
    )


def test_a_file_kept_under_src_is_not_said_deleted(tmp_path: Path) -> None:
    """A release in a src layout keeps its patch file under ``src/``: a *remove* the audit
    disagrees with is not blamed on a deleted file there; a file in neither place is."""
    newer = tmp_path / "plug-2"
    (newer / "src" / "plug" / "backends").mkdir(parents=True)
    (newer / "src" / "plug" / "backends" / "kept.py").write_text("X = 1\n")
    assert history.deleted_note("backends/kept.py::vllm.a.f", "remove", None, newer, "plug") == ""
    assert history.deleted_note("backends/kept.py::vllm.a.f", "retain", None, newer, "plug") == ""

    entry = PatchEntry(
        file="plug/gone.py", line=3, module="plug.gone", scope="<module>", target="vllm.a.f",
        mechanism=Mechanism.ASSIGNMENT,
    )  # fmt: skip
    audited = AuditedEntry(
        entry=entry,
        old=Resolution("vllm.a.f", "found"),
        new=Resolution("vllm.a.f", "found"),
        drift=Drift("retain", ()),
    )
    assert history.deleted_note("gone.py::vllm.a.f", "remove", audited, newer, "plug") == (
        "The newer release deleted the whole file `gone.py` while upstream left the target "
        "unchanged: the reason lies outside the target."
    )
