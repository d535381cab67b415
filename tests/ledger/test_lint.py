"""``patchkeeper lint``: every check, its code, its line, and the GitHub format."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ledger_support import commit_topic, config_at, git, make_upstream, write_config

from helpers import tree_bytes
from patchkeeper.ledger import lint
from patchkeeper.ledger.table import ledger_rows
from patchkeeper.main import main


def _texts(root: Path, **kwargs) -> list[str]:
    return [
        f.text() for f in lint.lint_downstream(config_at(root), lint.LintRequest(**kwargs)).findings
    ]


def _lint_options(root: Path, lines: str) -> None:
    """Add ``lines`` to the downstream's ``[lint]`` table."""
    path = root / "patchkeeper.toml"
    marker = 'knob-pattern = "PKG_*"\n'
    path.write_text(path.read_text().replace(marker, marker + lines))


def _edit(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


def test_clean_series_has_no_findings(downstream: Path, topics: Path, capsys) -> None:
    assert main(["-C", str(downstream), "lint", "--checkout", str(topics)]) == 0
    assert capsys.readouterr().out == "no problems in 2 patches\n"


def test_header_checks(downstream: Path, capsys) -> None:
    patch = downstream / "patches" / "size-knob.patch"
    _edit(patch, b"Kind: local\n", b"Kind: bugfix\n")
    _edit(patch, b"Upstream: none\n", b"Upstream: someday maybe\n")
    _edit(patch, b"Cut-against: 1.0\n", b"Cut-against: 1.01: moved\n")
    _edit(patch, b"Retires-when: stays\n", b"Retires-when: TODO\n")
    _edit(patch, b"What: size read from PKG_SIZE | env\n", b"What:\n")
    other = downstream / "patches" / "extra-module.patch"
    _edit(other, b"Upstream: pkg #12 (open)\n", b"")
    _edit(other, b"Retires-when: upstreamed\n", b"Retires-when: <when>\n")
    code = main(["-C", str(downstream), "lint"])
    assert code == 1
    assert capsys.readouterr().out.splitlines() == [
        "patches/size-knob.patch:3: PK103 kind 'bugfix' is not one of backport, fix, feature, "
        "local, own",
        "patches/size-knob.patch:4: PK102 header 'what' is empty",
        "patches/size-knob.patch:5: PK106 Upstream 'someday maybe' is not none, a URL, or "
        "PROJECT #NUMBER",
        "patches/size-knob.patch:6: PK104 Cut-against '1.01: moved' does not begin with 1.0",
        "patches/size-knob.patch:7: PK105 'retires-when' is a placeholder: 'TODO'",
        "patches/extra-module.patch:4: PK101 missing header 'Upstream:'",
        "patches/extra-module.patch:4: PK105 'retires-when' is a placeholder: '<when>'",
        "7 problems in 2 patches",
    ]


def test_github_format(downstream: Path, capsys) -> None:
    patch = downstream / "patches" / "size-knob.patch"
    _edit(patch, b"Kind: local\n", b"Kind: bug,fix\n")
    assert main(["-C", str(downstream), "lint", "--format", "github"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "::error file=patches/size-knob.patch,line=3,title=PK103::kind 'bug,fix' is not one of "
        "backport, fix, feature, local, own",
        "1 problem in 2 patches",
    ]


def test_upstream_reference_forms() -> None:
    good = [
        "none",
        "none yet",
        "none yet (upstream pads)",
        "none; vllm #54840 (open) logs a per-group block budget",
        "vllm #50021 (open)",
        "vllm #64141 (open), fixing #63944; runtime change credited to yueyinmochen",
        "vllm #58092 (merged after 0.30.0)",
        "vllm-project/flash-attention #12",
        "https://github.com/vllm-project/vllm/pull/59888",
    ]
    bad = ["upstream PR (syv-ai #94/#110)", "HyperQwen issue #405", "someday", "vllm 50021"]
    assert [v for v in good if not lint.UPSTREAM_VALUE.match(v)] == []
    assert [v for v in bad if lint.UPSTREAM_VALUE.match(v)] == []


def test_series_against_directory(downstream: Path) -> None:
    patches = downstream / "patches"
    (patches / "stray.patch").write_text("Kind: fix\n")
    (patches / "sub").mkdir()
    (patches / "sub" / "nested.diff").write_text("")
    (patches / "notes.txt").write_text("not a patch\n")
    (patches / "series").write_text(
        "size-knob.patch\nextra-module.patch\nsize-knob.patch\ngone.patch\n"
    )
    assert _texts(downstream) == [
        "patches/series:3: PK203 size-knob.patch is already listed on line 1: "
        "remove this line (the series applies each patch once)",
        "patches/series:4: PK201 gone.patch does not exist: "
        "restore gone.patch or remove the line from the series",
        "patches/stray.patch: PK202 not listed in patches/series",
        "patches/sub/nested.diff: PK202 not listed in patches/series",
    ]


def test_the_count_is_the_series_patches_naming_the_unread_ones(downstream: Path, capsys) -> None:
    """The summary counts the patches the series lists, each once, and names those that
    could not be read (a file gone, a directory): a series of four with two unread was
    summed up as "in 2 patches"."""
    patches = downstream / "patches"
    (patches / "sub.patch").mkdir()
    (patches / "series").write_text(
        "size-knob.patch\ngone.patch\nextra-module.patch\nsub.patch\nsize-knob.patch\n"
    )
    assert main(["-C", str(downstream), "lint"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "patches/series:2: PK201 gone.patch does not exist: "
        "restore gone.patch or remove the line from the series",
        "patches/series:4: PK201 sub.patch is a directory: "
        "put the patch file at sub.patch in its place, or fix the line",
        "patches/series:5: PK203 size-knob.patch is already listed on line 1: "
        "remove this line (the series applies each patch once)",
        "3 problems in 4 patches (2 not read: gone.patch, sub.patch)",
    ]
    assert main(["-C", str(downstream), "lint", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["patch_count"], data["unread"]) == (4, ["gone.patch", "sub.patch"])


def test_a_patch_that_is_a_symbolic_link_is_named_by_the_link(downstream: Path) -> None:
    """A series may list a link to another patch file (Debian packagers share a patch between
    two series so): every finding names the link, as the series does, never the file it
    points to, which is listed on its own line."""
    patches = downstream / "patches"
    (patches / "alias.patch").symlink_to("size-knob.patch")
    assert _texts(downstream) == ["patches/alias.patch: PK202 not listed in patches/series"]
    _edit(patches / "size-knob.patch", b"Kind: local\n", b"Kind: bugfix\n")
    (patches / "series").write_text("size-knob.patch\nextra-module.patch\nalias.patch\n")
    assert _texts(downstream) == [
        "patches/size-knob.patch:3: PK103 kind 'bugfix' is not one of backport, fix, feature, "
        "local, own",
        "patches/alias.patch:3: PK103 kind 'bugfix' is not one of backport, fix, feature, "
        "local, own",
    ]


def test_a_link_out_of_the_series_directory_is_not_read(downstream: Path, capsys) -> None:
    """A series line whose patch file is a symbolic link out of the series directory (to
    ``/etc/passwd``, or a patch of another checkout) is refused by every command that reads
    the series; lint read the file it points to and reported its lines (``PK304 the patch
    holds no diff``, ``PK101`` at line 24 of ``/etc/passwd``). Now it says what the others
    say, at the series line, and reads nothing there."""
    outside = downstream.parent / "elsewhere.patch"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (downstream / "patches" / "linked.patch").symlink_to(outside)
    (downstream / "patches" / "series").write_text(
        "size-knob.patch\nextra-module.patch\nlinked.patch\n"
    )
    assert main(["-C", str(downstream), "lint"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "patches/series:3: PK201 the series entry linked.patch leads outside the series "
        "directory (a symlink): copy the patch into the series directory instead of linking it",
        "1 problem in 3 patches (1 not read: linked.patch)",
    ]
    assert main(["-C", str(downstream), "lint", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["patch_count"], data["unread"]) == (3, ["linked.patch"])


def test_a_cover_letter_is_not_an_unlisted_patch(downstream: Path) -> None:
    """git format-patch --cover-letter's mail has no diff: not a patch; a file so named that
    holds a diff is one, and is reported when the series leaves it out."""
    patches = downstream / "patches"
    (patches / "0000-cover-letter.patch").write_text(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        "From: Dev <dev@example.org>\nSubject: [PATCH 0/2] *** SUBJECT HERE ***\n\n"
        "*** BLURB HERE ***\n\nDev (2):\n  size knob\n  extra module\n\n"
        " pkg/extra.py | 2 ++\n 1 file changed, 2 insertions(+)\n\n-- \n2.39.2\n\n"
    )
    assert _texts(downstream) == []
    (patches / "v3-0000-cover-letter.patch").write_text(
        "Subject: [PATCH v3 0/1] a patch\n\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert _texts(downstream) == [
        "patches/v3-0000-cover-letter.patch: PK202 not listed in patches/series"
    ]


def test_hand_edited_hunk_counts(downstream: Path) -> None:
    patch = downstream / "patches" / "extra-module.patch"
    _edit(patch, b"+    return 'extra'\n", b"+    return 'extra'\n+    # added by hand\n")
    assert _texts(downstream) == [
        "patches/extra-module.patch:15: PK301 hunk #1 of extra.py (@@ -0,0 +1,2 @@) has more "
        "lines than its header counts (0 old, 2 new): line 15 continues it: the hunk was "
        "edited by hand; regenerate the patch instead of editing it"
    ]


def test_hand_edit_against_re_export(downstream: Path, topics: Path) -> None:
    patch = downstream / "patches" / "size-knob.patch"
    _edit(patch, b"+    return envs.PKG_SIZE\n", b"+    return envs.PKG_SIZE  # tuned\n")
    assert _texts(downstream, checkout=topics) == [
        "patches/size-knob.patch:18: PK302 differs from re-exporting 4968156bf4ef (edited by hand?)"
    ]


def test_exported_from_commit_missing_from_checkout(downstream: Path, topics: Path) -> None:
    patch = downstream / "patches" / "extra-module.patch"
    _edit(patch, b"--- exported from 4bf84a1e", b"--- exported from 0bf84a1e")
    assert _texts(downstream, checkout=topics) == [
        "patches/extra-module.patch:6: PK303 commit 0bf84a1e5262 is not in " + str(topics)
    ]


def test_knob_rule(downstream: Path, tmp_path: Path) -> None:
    patch = downstream / "patches" / "size-knob.patch"
    # Drop the registration: the read through envs is now unregistered.
    _edit(patch, b'+    "PKG_SIZE"', b' #   "PKG_SIZE"')
    _edit(patch, b"@@ -1,5 +1,6 @@", b"@@ -1,6 +1,6 @@")
    text = _texts(downstream)
    assert text == [
        "patches/size-knob.patch:18: PK401 reads PKG_SIZE (envs) but does not "
        "register it in envs.py"
    ]
    # Knobs upstream registers count as registered with --upstream.
    upstream_tree = tmp_path / "pristine"
    (upstream_tree / "pkg").mkdir(parents=True)
    (upstream_tree / "pkg" / "envs.py").write_text('"PKG_SIZE": lambda: 1\n')
    assert _texts(downstream, upstream=upstream_tree) == []
    # An allow list also works.
    _lint_options(downstream, 'knob-allow = ["PKG_SIZE"]\n')
    assert _texts(downstream) == []


def test_an_upstream_tree_that_is_not_there_is_an_error(cli, downstream: Path) -> None:
    """``lint --upstream`` with a mistyped path ran as if no tree were given: no knob counted
    as registered upstream, exit 0 or PK401 findings, and nothing said the tree was never
    read. It is an input error naming the path."""
    before = tree_bytes(downstream)
    run = cli("lint", "--upstream", "../pristine-typo", "--json", cwd=downstream)
    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": "the upstream tree (--upstream) does not exist",
            "file": "../pristine-typo",
            "line": None,
            "hint": "pass --upstream the pristine upstream tree (an unpacked sdist or a "
            "checkout) whose envs.py registers the knobs upstream has",
        },
    )
    assert tree_bytes(downstream) == before


def test_an_upstream_tree_that_is_a_named_pipe_is_an_error(
    cli, downstream: Path, tmp_path: Path
) -> None:
    """``lint --upstream`` naming a named pipe passed the option's directory check (only a
    regular file is refused there) and lint said "no problems" without reading a tree."""
    pipe = tmp_path / "pristine"
    os.mkfifo(pipe)
    run = cli("lint", "--upstream", str(pipe), cwd=downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {pipe}: the upstream tree (--upstream) is a named pipe, not a "
        "directory\n  hint: pass --upstream the pristine upstream tree (an unpacked sdist or a "
        "checkout) whose envs.py registers the knobs upstream has\n",
    )


def test_knob_reads_every_form() -> None:
    from patchkeeper.series.parse import parse_patch

    data = (
        b"--- a/x.py\n+++ b/x.py\n@@ -1 +1,6 @@\n x\n"
        b'+a = os.environ["VLLM_A"]\n'
        b"+b = os.environ.get('VLLM_B', '1')\n"
        b'+c = os.getenv("VLLM_C")\n'
        b'+d = "VLLM_D" in os.environ or envs.VLLM_E\n'
        b'+e = os.getenv("OTHER")\n'
    )
    patch = parse_patch(data, name="x.patch", path=Path("x.patch"))
    assert lint.knob_reads(patch, "VLLM_*", "envs.py") == [
        ("VLLM_A", "os.environ", 5),
        ("VLLM_B", "os.environ", 6),
        ("VLLM_C", "os.getenv", 7),
        ("VLLM_D", "os.environ", 8),
        ("VLLM_E", "envs", 8),
    ]


def test_knob_scope_series_accepts_an_earlier_registration(downstream: Path) -> None:
    patch = downstream / "patches" / "extra-module.patch"
    _edit(patch, b"+    return 'extra'\n", b"+    return envs.PKG_SIZE\n")
    assert _texts(downstream) == [
        "patches/extra-module.patch:14: PK401 reads PKG_SIZE (envs) but does not register it "
        "in envs.py"
    ]
    _lint_options(downstream, 'knob-scope = "series"\n')
    assert _texts(downstream) == []


def test_disable_codes(downstream: Path) -> None:
    (downstream / "patches" / "stray.patch").write_text("")
    _lint_options(downstream, 'disable = ["PK202"]\n')
    assert _texts(downstream) == []


def test_dep3_schema(tmp_path: Path) -> None:
    root = write_config(tmp_path / "deb", '\n[headers]\nschema = "dep3"\n')
    patches = root / "patches"
    (patches / "a.patch").write_text(
        "From: A <a@b.c>\nSubject: fix a thing\nOrigin: upstream, https://x/1\n"
        "Forwarded: not-needed\n---\n x | 1 +\n\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    )
    (patches / "b.patch").write_text(
        "Origin: vendor\nLast-Update: TBD\n\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"
    )
    (patches / "series").write_text("a.patch\nb.patch\n")
    assert _texts(root) == [
        "patches/b.patch:2: PK101 missing header 'Description:'",
        "patches/b.patch:2: PK105 'last-update' is a placeholder: 'TBD'",
    ]


def test_dep3_schema_reads_the_message_of_git_show_and_git_log(tmp_path: Path) -> None:
    """A patch written by ``git show`` or ``git log -p`` (``commit <sha>``, ``Author:``,
    ``Date:``, the message indented by four spaces): the message's first paragraph is its
    description, as ``git format-patch`` of the same commit makes it the Subject."""
    upstream = make_upstream(tmp_path / "up", {"pkg/mod.py": "def f():\n    return 1\n"})
    commit_topic(
        upstream,
        "Return two from f, as the caller\nof the sum expects",
        "The old value broke the sum.\n\nOrigin: vendor\n",
        {"pkg/mod.py": "def f():\n    return 2\n"},
    )
    (upstream / "pkg" / "mod.py").write_text("def f():\n    return 3\n")
    git(upstream, "commit", "-q", "-a", "--allow-empty-message", "-m", "")
    root = write_config(tmp_path / "deb", '\n[headers]\nschema = "dep3"\n')
    patches = root / "patches"
    shapes = {
        "show.patch": ["show", "HEAD~1"],
        "decorated.patch": ["log", "-p", "-1", "--decorate=full", "HEAD~1"],
        "fuller.patch": ["log", "-p", "-1", "--format=fuller", "HEAD~1"],
        "raw.patch": ["log", "-p", "-1", "--format=raw", "HEAD~1"],
        "no-message.patch": ["show", "HEAD"],
    }
    for name, command in shapes.items():
        (patches / name).write_text(git(upstream, *command) + "\n")
    (patches / "series").write_text("".join(f"{name}\n" for name in shapes))
    assert (patches / "fuller.patch").read_text().splitlines()[:7] == [
        (patches / "show.patch").read_text().splitlines()[0],
        "Author:     Tess Ter <tess@example.org>",
        "AuthorDate: Tue Nov 14 22:13:20 2023 +0000",
        "Commit:     Tess Ter <tess@example.org>",
        "CommitDate: Tue Nov 14 22:13:20 2023 +0000",
        "",
        "    Return two from f, as the caller",
    ]
    assert _texts(root) == ["patches/no-message.patch:3: PK101 missing header 'Description:'"]
    description = "Return two from f, as the caller of the sum expects"
    assert [(row.name, row.values[0], row.line_no) for row in ledger_rows(config_at(root))] == [
        ("show", description, 2),
        ("decorated", description, 2),
        ("fuller", description, 2),
        ("raw", description, 7),
        ("no-message", "", 2),
    ]


def test_knob_rule_finds_the_registry_in_the_package_folder(tmp_path: Path) -> None:
    """A series made by ``git format-patch`` on the upstream repository names its files from
    the repository's top (``a/vllm/envs.py``), so with no ``directory`` configured the
    registry ``envs.py`` is ``vllm/envs.py``: a patch that registers its knob there, and reads
    it in a new module, was reported as not registering it. A registry two folders down is
    no registry, and a read the patch registers nowhere is still reported."""
    root = tmp_path / "fork"
    (root / "patches").mkdir(parents=True)
    (root / "patchkeeper.toml").write_text(
        'upstream = "vllm"\npin = "0.18.1"\n\n[headers]\nschema = "dep3"\n'
    )
    (root / "patches" / "series").write_text("0001-envs-banner.patch\n")
    patch = root / "patches" / "0001-envs-banner.patch"
    patch.write_text(
        "From 71b2943c3664163ce91d405465fc2f056edfab71 Mon Sep 17 00:00:00 2001\n"
        "From: Ana Fork <ana@fork.example>\n"
        "Subject: [PATCH] envs: VLLM_FORK_BANNER and the fork's banner module\n"
        "\n---\n"
        "diff --git a/vllm/envs.py b/vllm/envs.py\n"
        "--- a/vllm/envs.py\n+++ b/vllm/envs.py\n"
        "@@ -10,3 +10,4 @@ if TYPE_CHECKING:\n"
        "     VLLM_XLA_CHECK_RECOMPILATION: bool = False\n"
        "+    VLLM_FORK_BANNER: bool = True\n"
        '     VLLM_USE_RAY_COMPILED_DAG_CHANNEL_TYPE: Literal["auto"] = "auto"\n'
        "     VLLM_USE_RAY_COMPILED_DAG_OVERLAP_COMM: bool = False\n"
        "@@ -40,3 +41,4 @@ environment_variables = {\n"
        '     "VLLM_XLA_USE_SPMD": lambda: bool(int(os.getenv("VLLM_XLA_USE_SPMD", "0"))),\n'
        '+    "VLLM_FORK_BANNER": lambda: bool(int(os.getenv("VLLM_FORK_BANNER", "1"))),\n'
        "     # If set, the OpenAI API server will stay alive even after the underlying\n"
        "     # AsyncLLMEngine errors and stops serving requests\n"
        "diff --git a/vllm/fork_banner.py b/vllm/fork_banner.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n+++ b/vllm/fork_banner.py\n"
        "@@ -0,0 +1,3 @@\n"
        "+import vllm.envs as envs\n"
        "+SHOWN = envs.VLLM_FORK_BANNER\n"
        '+QUIET = os.getenv("VLLM_FORK_QUIET")\n'
    )
    assert _texts(root) == [
        "patches/0001-envs-banner.patch:26: PK401 reads VLLM_FORK_QUIET (os.getenv) but does "
        "not register it in envs.py"
    ]
    # A pristine tree given with --upstream has its registry in the package folder too.
    pristine = tmp_path / "vllm-0.18.1"
    (pristine / "vllm").mkdir(parents=True)
    (pristine / "vllm" / "envs.py").write_text('    "VLLM_FORK_QUIET": lambda: None,\n')
    assert _texts(root, upstream=pristine) == []
    # envs.py two folders down is another module's, not the registry.
    deeper = patch.read_text().replace("vllm/envs.py", "vllm/platforms/envs.py")
    patch.write_text(deeper)
    assert _texts(root, upstream=pristine) == [
        "patches/0001-envs-banner.patch:16: PK401 reads VLLM_FORK_BANNER (os.getenv) but does "
        "not register it in envs.py",
        "patches/0001-envs-banner.patch:25: PK401 reads VLLM_FORK_BANNER (envs) but does not "
        "register it in envs.py",
    ]


def test_unparsable_patch_says_what_to_do(downstream: Path) -> None:
    """A patch lint cannot parse gets the parser's advice, as ``apply`` prints it: a
    ``git format-patch`` file with a binary section, and a hunk cut short."""
    patches = downstream / "patches"
    (patches / "logo.patch").write_text(
        "From 5e1f0c3a Mon Sep 17 00:00:00 2001\n"
        "Subject: [PATCH] ship the logo\n\n---\n"
        " pkg/logo.png | Bin 0 -> 8 bytes\n\n"
        "diff --git a/pkg/logo.png b/pkg/logo.png\n"
        "new file mode 100644\n"
        "index 0000000..3f4e2a1\n"
        "GIT binary patch\n"
        "literal 8\n"
        "PcmZ?wbhEHbWMu#V0wV#U\n\n"
        "literal 0\n"
        "HcmV?d00001\n\n"
    )
    (patches / "series").write_text((patches / "series").read_text() + "logo.patch\n")
    _edit(patches / "extra-module.patch", b"+    return 'extra'\n", b"")
    assert [text for text in _texts(downstream) if ": PK3" in text] == [
        "patches/extra-module.patch:13: PK301 truncated hunk: the patch ends before the line "
        "counts of its header are met: regenerate the patch; do not edit hunks by hand",
        "patches/logo.patch:7: PK304 binary diff for pkg/logo.png: patchkeeper applies text "
        "diffs only: ship the binary file as an overlay, or regenerate the diff as text",
    ]


def test_an_empty_patch_is_no_parse_finding(downstream: Path) -> None:
    """A patch of a header alone (a ``quilt new`` placeholder described before its first
    change) is a no-op of the series, as apply and verify take it: its header is checked as
    any patch's, and no PK304 says it cannot be parsed."""
    patches = downstream / "patches"
    header = (patches / "size-knob.patch").read_bytes().split(b"\n---", 1)[0]
    (patches / "placeholder.patch").write_bytes(header + b"\n")
    (patches / "series").write_text((patches / "series").read_text() + "placeholder.patch\n")
    assert _texts(downstream) == []


def test_a_path_apply_refuses_is_reported(downstream: Path, capsys) -> None:
    """A patch whose path ``apply`` refuses in every tree (git format-patch's quoted Latin-1
    ``"caf\\351.txt"``, a control character, a ``..`` component) passed lint and stopped
    ``apply`` (exit 2); lint names each at its file's header, as apply would."""
    patches = downstream / "patches"
    (patches / "names.patch").write_bytes(
        b"Subject: add three notes\n\n---\n"
        b'diff --git "a/pkg/caf\\351.txt" "b/pkg/caf\\351.txt"\n'
        b"new file mode 100644\n"
        b"--- /dev/null\n"
        b'+++ "b/pkg/caf\\351.txt"\n'
        b"@@ -0,0 +1 @@\n+x\n"
        b'diff --git "a/pkg/x\\033y.txt" "b/pkg/x\\033y.txt"\n'
        b"new file mode 100644\n"
        b"--- /dev/null\n"
        b'+++ "b/pkg/x\\033y.txt"\n'
        b"@@ -0,0 +1 @@\n+x\n"
        b"--- a/../up.txt\n"
        b"+++ b/../up.txt\n"
        b"@@ -1 +1 @@\n-a\n+b\n"
    )
    (patches / "series").write_text((patches / "series").read_text() + "names.patch\n")
    hint = "rename the file in the patch (and in the commit it was made from)"
    assert [text for text in _texts(downstream) if "PK305" in text] == [
        'patches/names.patch:4: PK305 the patch path "pkg/caf\\351.txt" holds bytes that are '
        f"not valid utf-8 (the file system's encoding): apply refuses it: {hint}",
        "patches/names.patch:10: PK305 the patch path 'pkg/x\\x1by.txt' holds the control "
        f"character '\\x1b': apply refuses it: {hint}",
        "patches/names.patch:16: PK305 the patch path '../up.txt' leaves the tree (an absolute "
        f"path or a .. component): apply refuses it: {hint}",
    ]
