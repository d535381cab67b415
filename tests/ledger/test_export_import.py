"""``export``, ``export --range`` and ``import`` on small real git repositories."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from ledger_support import commit_topic, config_at, git, ledger_body, write_config

from patchkeeper.errors import ConfigError, GitError
from patchkeeper.ledger import export, importer
from patchkeeper.main import main
from patchkeeper.upstream import gitops

HOSTILE = """\
[diff]
    noprefix = true
    mnemonicPrefix = true
    renames = copies
    algorithm = histogram
    context = 5
    orderFile = {order}
[color]
    ui = always
    diff = always
[core]
    abbrev = 7
    quotePath = false
[log]
    showSignature = true
[format]
    signature = hostile
"""


def _patches(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "patches").iterdir())}


def test_export_range_writes_topics_and_series(downstream: Path) -> None:
    files = _patches(downstream)
    assert list(files) == ["extra-module.patch", "series", "size-knob.patch"]
    assert files["series"] == b"size-knob.patch\nextra-module.patch\n"
    assert files["extra-module.patch"] == (
        b"Kind: feature\nWhat: adds pkg.extra\nUpstream: pkg #12 (open)\nCut-against: 1.0\n"
        b"Retires-when: upstreamed\n"
        b"--- exported from 4bf84a1e5262fdbc009190f644d6e87ccc42fb3f\n"
        b"diff --git a/extra.py b/extra.py\n"
        b"new file mode 100644\n"
        b"index 0000000000000000000000000000000000000000.."
        b"3b1f81a677d340be5761685e72193415087e9d15\n"
        b"--- /dev/null\n+++ b/extra.py\n@@ -0,0 +1,2 @@\n+def extra():\n+    return 'extra'\n"
    )


def test_export_single_commit_cli(downstream: Path, topics: Path, capsys) -> None:
    target = downstream / "patches" / "size-knob.patch"
    before = target.read_bytes()
    target.unlink()
    code = main(["-C", str(downstream), "export", "work~1"])
    assert code == 0
    assert capsys.readouterr().out == "wrote patches/size-knob.patch (from 4968156bf4ef)\n"
    assert target.read_bytes() == before
    assert main(["-C", str(downstream), "export", "work~1"]) == 0
    assert capsys.readouterr().out == "unchanged patches/size-knob.patch (from 4968156bf4ef)\n"
    out = downstream / "elsewhere.patch"
    assert main(["-C", str(downstream), "export", "work", "-o", str(out)]) == 0
    assert out.read_bytes() == (downstream / "patches" / "extra-module.patch").read_bytes()


def test_export_of_a_topic_the_series_does_not_list_says_so(
    downstream: Path, topics: Path, capsys
) -> None:
    """A new topic's file is written, and the output says the series does not list it yet
    (apply reads the series, not the directory); a listed file or one written outside the
    series' directory gets no such line."""
    series = downstream / "patches" / "series"
    series.write_bytes(b"size-knob.patch\n")
    target = downstream / "patches" / "extra-module.patch"
    target.unlink()
    capsys.readouterr()
    assert main(["-C", str(downstream), "export", "work"]) == 0
    assert capsys.readouterr().out == (
        "wrote patches/extra-module.patch (from 4bf84a1e5262)\n"
        "extra-module.patch is not in patches/series: apply and verify leave it out until its "
        "line is added there, in apply order ('export --range BASE..BRANCH' writes the "
        "series)\n"
    )
    assert series.read_bytes() == b"size-knob.patch\n"
    result = export.export_commit(config_at(downstream), "work", checkout=topics)
    assert (result.unlisted, result.series_file) == (("extra-module.patch",), series)
    listed = export.export_commit(config_at(downstream), "work~1", checkout=topics)
    assert (listed.unlisted, listed.series_file) == ((), None)
    named = downstream / "patches" / "extra.patch"
    by_name = export.export_commit(config_at(downstream), "work", output=named)
    assert (by_name.unlisted, by_name.series_file) == (("extra.patch",), series)
    out = downstream / "elsewhere.patch"
    assert main(["-C", str(downstream), "export", "work", "-o", str(out)]) == 0
    assert capsys.readouterr().out == "wrote elsewhere.patch (from 4bf84a1e5262)\n"


def test_export_into_a_named_pipe(downstream: Path, topics: Path, capsys) -> None:
    """``-o`` naming a named pipe (a shell's ``>(...)``, ``/dev/stdout`` in a pipeline): the
    patch goes into the pipe and the pipe stays (before, a new regular file was renamed over
    it). The reading end is opened without blocking first, so nothing waits."""
    pipe = downstream / "pipe"
    os.mkfifo(pipe)
    fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    capsys.readouterr()
    try:
        code = main(["-C", str(downstream), "export", "work", "-o", str(pipe)])
        data = os.read(fd, 1 << 16)
    finally:
        os.close(fd)
    assert (code, capsys.readouterr().out) == (0, "wrote pipe (from 4bf84a1e5262)\n")
    assert data == (downstream / "patches" / "extra-module.patch").read_bytes()
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_export_to_a_missing_directory_is_refused(downstream: Path, topics: Path, capsys) -> None:
    """``-o`` in a directory that does not exist is refused, as every file output of the
    tool (``--markdown``, ``runtime port --output``, ``runtime lock --output``): nothing is
    created."""
    out = downstream / "new" / "dir" / "x.patch"
    capsys.readouterr()
    assert main(["-C", str(downstream), "export", "work", "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {out}: cannot write the patch file: no such directory: "
        f"{out.parent}\n  hint: pass -o a file in a directory that exists (create it first)\n"
    )
    assert not (downstream / "new").exists()
    notes = downstream / "notes.txt"
    notes.write_text("a file\n", encoding="utf-8")
    out = notes / "x.patch"
    assert main(["-C", str(downstream), "export", "work", "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {out}: cannot write the patch file: {notes} is a regular file, "
        "not a directory\n  hint: pass -o a file in a directory that exists (create it first)\n"
    )


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("patches/series", "the series file"),
        ("patchkeeper.toml", "the configuration file"),
        ("PATCHES.md", "the ledger file"),
    ],
)
def test_export_never_writes_over_the_series_configuration_or_ledger(
    downstream: Path, topics: Path, capsys, name: str, what: str
) -> None:
    """``export REV -o patches/series`` wrote the patch over the series file (exit 0)."""
    before = {p: p.read_bytes() for p in downstream.rglob("*") if p.is_file()}
    assert main(["-C", str(downstream), "export", "work", "-o", name]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {name}: -o names {what}: the patch would replace it\n"
        "  hint: pass -o a patch file, e.g. -o patches/NAME.patch\n"
    )
    assert {p: p.read_bytes() for p in downstream.rglob("*") if p.is_file()} == before


def test_export_is_independent_of_git_configuration(
    downstream: Path, topics: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _patches(downstream)
    order = tmp_path / "order"
    order.write_text("extra.py\nenvs.py\ncore.py\n")
    hostile = tmp_path / "hostile.gitconfig"
    hostile.write_text(HOSTILE.format(order=order))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(hostile))
    monkeypatch.setenv("GIT_DIFF_OPTS", "--unified=9")
    # The repository's own configuration is read by git too: make it hostile as well.
    (topics / ".git" / "config").write_text(
        (topics / ".git" / "config").read_text() + HOSTILE.format(order=order)
    )
    assert "a/" not in git(topics, "show", "--format=", "work")  # the user's git is hostile
    for path in (downstream / "patches").glob("*.patch"):
        path.unlink()
    export.export_range(config_at(downstream), "v1.0..work")
    assert _patches(downstream) == before


def test_range_refuses_non_topic_commits_and_duplicates(downstream: Path, topics: Path) -> None:
    before = _patches(downstream)
    commit_topic(topics, "fix typo", "", {"pkg/extra.py": "def extra():\n    return 'x'\n"})
    with pytest.raises(export.ExportError) as caught:
        export.export_range(config_at(downstream), "v1.0..work")
    head = git(topics, "rev-parse", "HEAD")[:12]
    assert caught.value.message == f"{head} is not a topic commit: 'fix typo'"
    git(topics, "commit", "-q", "--amend", "-m", "[pk] extra-module")
    with pytest.raises(export.ExportError) as caught:
        export.export_range(config_at(downstream), "v1.0..work")
    assert caught.value.message.startswith("topic extra-module is carried by two commits: ")
    assert _patches(downstream) == before


def test_changes_outside_the_directory_are_refused(downstream: Path, topics: Path) -> None:
    commit_topic(topics, "[pk] readme", ledger_body(), {"README.md": "changed\n"})
    with pytest.raises(export.ExportError) as caught:
        export.export_commit(config_at(downstream), "work")
    assert caught.value.message.endswith("changes files outside pkg/: README.md")


def test_merge_commit_refused(downstream: Path, topics: Path) -> None:
    git(topics, "checkout", "-q", "-b", "side", "v1.0")
    commit_topic(topics, "[pk] side", ledger_body(), {"pkg/side.py": "x = 1\n"})
    git(topics, "checkout", "-q", "work")
    git(topics, "merge", "-q", "--no-ff", "-m", "[pk] merged", "side")
    with pytest.raises(export.ExportError) as caught:
        export.export_commit(config_at(downstream), "work")
    assert "is a merge commit; a topic commit has exactly one parent" in caught.value.message


def test_series_rewrite_keeps_comments_and_reports_dropped(downstream: Path) -> None:
    series = downstream / "patches" / "series"
    series.write_text("# our series\nold-topic.patch\nextra-module.patch  # keep me\n")
    result = export.export_range(config_at(downstream), "v1.0..work")
    assert series.read_text() == "# our series\nsize-knob.patch\nextra-module.patch  # keep me\n"
    assert result.dropped == ("old-topic.patch",)
    assert [p.changed for p in result.patches] == [False, False]


def test_no_tag_no_checkout(tmp_path: Path, topics: Path) -> None:
    root = write_config(tmp_path / "bare")
    (root / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\ndirectory = "pkg"\n')
    with pytest.raises(ConfigError) as caught:
        export.export_range(config_at(root), "v1.0..work", checkout=topics)
    assert caught.value.message == "no topic tag"
    with pytest.raises(ConfigError) as caught:
        export.export_commit(config_at(root), "work")
    assert caught.value.message == "no upstream checkout given"


def test_import_then_export_round_trips_in_another_clone(downstream: Path, tmp_path: Path) -> None:
    """The series was exported from commits that the other clone does not have."""
    before = _patches(downstream)
    clone = tmp_path / "integration"
    source = downstream.parent / "upstream"
    git(tmp_path, "clone", "-q", "--no-local", "-b", "main", str(source), str(clone))
    git(clone, "update-ref", "-d", "refs/remotes/origin/work")
    git(clone, "reflog", "expire", "--expire=now", "--all")
    git(clone, "gc", "-q", "--prune=now")
    assert not gitops.has_revision(clone, "4bf84a1e5262fdbc009190f644d6e87ccc42fb3f^{commit}")
    status_before = git(clone, "status", "--porcelain=v1", "-b")
    result = importer.import_series(config_at(downstream), importer.ImportRequest(checkout=clone))
    assert result.branch == "patchkeeper/1.0"
    assert [c.topic for c in result.commits] == ["size-knob", "extra-module"]
    assert [c.origin for c in result.commits] == [
        "4968156bf4ef7e240ef557cd3aa11024be0539db",
        "4bf84a1e5262fdbc009190f644d6e87ccc42fb3f",
    ]
    assert git(clone, "status", "--porcelain=v1", "-b") == status_before  # HEAD, index, tree
    log = git(clone, "log", "--format=%s|%an|%cn", "v1.0..patchkeeper/1.0")
    assert log.splitlines() == [
        "[pk] extra-module|patchkeeper|patchkeeper",
        "[pk] size-knob|patchkeeper|patchkeeper",
    ]
    for path in (downstream / "patches").glob("*.patch"):
        path.unlink()
    export.export_range(config_at(downstream), "v1.0..patchkeeper/1.0", checkout=clone)
    assert _patches(downstream) == before


def test_import_is_deterministic_and_refuses_an_existing_branch(
    downstream: Path, topics: Path, capsys
) -> None:
    first = importer.import_series(config_at(downstream))
    with pytest.raises(importer.SeriesImportError) as caught:
        importer.import_series(config_at(downstream))
    assert caught.value.message == "branch patchkeeper/1.0 already exists"
    second = importer.import_series(config_at(downstream), importer.ImportRequest(force=True))
    assert [c.commit for c in second.commits] == [c.commit for c in first.commits]
    capsys.readouterr()
    assert main(["-C", str(downstream), "import", "--branch", "again"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"created branch again at v1.0 with 2 commits in {topics}"
    assert out[1:] == [f"  {c.commit[:12]} {c.topic}" for c in first.commits]


def test_an_amended_commit_gets_its_own_id(downstream: Path, topics: Path) -> None:
    """Provenance is kept only for unchanged content: a note copied to an amended commit
    (notes.rewriteRef) no longer matches its hash, so the new id is written."""
    importer.import_series(config_at(downstream))
    git(topics, "checkout", "-q", "patchkeeper/1.0")
    message = git(topics, "log", "-1", "--format=%B").replace("adds pkg.extra", "adds extra")
    git(
        topics,
        "-c",
        "notes.rewriteRef=refs/notes/patchkeeper",
        "commit",
        "-q",
        "--amend",
        "--cleanup=verbatim",
        "-m",
        message + "\n",
    )
    amended = git(topics, "rev-parse", "HEAD")
    assert git(topics, "notes", "--ref=patchkeeper", "list", amended)  # the note followed
    export.export_range(config_at(downstream), "v1.0..patchkeeper/1.0")
    text = (downstream / "patches" / "extra-module.patch").read_bytes()
    assert f"--- exported from {amended}\n".encode() in text
    assert b"What: adds extra\n" in text
    size = (downstream / "patches" / "size-knob.patch").read_bytes()
    assert b"--- exported from 4968156bf4ef7e240ef557cd3aa11024be0539db\n" in size


def test_import_author_from_mail_headers(downstream: Path, topics: Path) -> None:
    patch = downstream / "patches" / "extra-module.patch"
    patch.write_bytes(
        b"From: =?utf-8?q?Rapha=C3=ABl_Hertzog?= <hertzog@debian.org>\n"
        b"Date: Sun, 11 Oct 2015 11:43:19 +1100\n" + patch.read_bytes()
    )
    result = importer.import_series(config_at(downstream))
    out = git(
        topics, "log", "-1", "--format=%an|%ae|%ad|%B", "--date=raw", result.commits[1].commit
    )
    assert out.startswith(
        "Raphaël Hertzog|hertzog@debian.org|1444524199 +1100|[pk] extra-module\n\n"
        "From: =?utf-8?q?Rapha=C3=ABl_Hertzog?= <hertzog@debian.org>\n"
    )


def test_import_stops_on_a_patch_that_does_not_apply(downstream: Path, topics: Path) -> None:
    patch = downstream / "patches" / "size-knob.patch"
    patch.write_bytes(patch.read_bytes().replace(b"-    return 4\n", b"-    return 5\n"))
    with pytest.raises(importer.SeriesImportError) as caught:
        importer.import_series(config_at(downstream))
    assert caught.value.message.startswith("size-knob.patch does not apply: error: patch failed:")
    assert not gitops.has_revision(topics, "refs/heads/patchkeeper/1.0")


def test_git_errors_carry_command_code_and_output(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError) as caught:
        gitops.run(["log", "-1"], tmp_path / "plain")
    message = caught.value.message
    assert message.startswith("'git log -1' failed with exit code 128: fatal: not a git repository")
    with pytest.raises(GitError) as caught:
        gitops.toplevel(tmp_path / "plain")
    assert caught.value.message == f"{tmp_path / 'plain'} is not a git checkout"


def test_environment_drops_caller_git_variables(
    upstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "nowhere-index"))
    env = gitops.environment()
    assert "GIT_DIR" not in env and "GIT_INDEX_FILE" not in env
    assert env["GIT_CONFIG_GLOBAL"] == "/dev/null" and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert gitops.commit_id(upstream, "v1.0") == git(
        upstream.parent,
        "-C",
        str(upstream),
        "--git-dir",
        str(upstream / ".git"),
        "rev-parse",
        "v1.0",
    )


def test_hash_blob_matches_git(upstream: Path) -> None:
    data = (upstream / "pkg" / "core.py").read_bytes()
    assert gitops.hash_blob(data) == git(upstream, "hash-object", "pkg/core.py")
    shutil.rmtree(upstream / ".git" / "hooks", ignore_errors=True)


def test_gitops_helpers_for_other_commands(topics: Path) -> None:
    """The general helpers (``port`` uses them for git log evidence)."""
    records = gitops.log(topics, "v1.0..work", "%H%x00%s%x00%an")
    assert [(r[1], r[2]) for r in records] == [
        ("[pk] size-knob", "Tess Ter"),
        ("[pk] extra-module", "Tess Ter"),
    ]
    assert [r[0] for r in records] == gitops.rev_list(topics, "v1.0..work")
    assert gitops.tags(topics) == ["v1.0"]
    assert gitops.show_file(topics, "work", "pkg/extra.py") == b"def extra():\n    return 'extra'\n"
    assert sorted(gitops.ls_tree(topics, "work", "pkg")) == [
        "__init__.py",
        "core.py",
        "envs.py",
        "extra.py",
    ]
    assert gitops.diff_names(topics, "v1.0", "work") == [
        "pkg/core.py",
        "pkg/envs.py",
        "pkg/extra.py",
    ]
    gitops.create_tag(topics, "v1.1", "work")
    assert gitops.commit_id(topics, "v1.1") == gitops.commit_id(topics, "work")
    with pytest.raises(GitError) as caught:
        gitops.show_file(topics, "v1.0", "pkg/extra.py")
    assert "'git cat-file blob v1.0:pkg/extra.py' failed with exit code 128" in caught.value.message


def test_a_topic_of_several_words_is_named_with_the_subject_to_write(
    downstream: Path, topics: Path
) -> None:
    """Before: the hint only repeated '[pk] <topic>', which the subject seemed to be."""
    commit_topic(topics, "[pk] rename help", "", {"pkg/extra.py": "def extra():\n    return 1\n"})
    with pytest.raises(export.ExportError) as caught:
        export.export_range(config_at(downstream), "v1.0..work")
    head = git(topics, "rev-parse", "HEAD")[:12]
    assert caught.value.message == f"{head} is not a topic commit: '[pk] rename help'"
    assert caught.value.hint == (
        "a topic is one word (letters, digits and . _ + - /; it names the patch file): "
        "reword the commit as '[pk] rename-help'"
    )


def test_a_binary_change_is_named_by_its_file(downstream: Path, topics: Path) -> None:
    """Before: '... changes a binary file', without naming it."""
    commit_topic(topics, "[pk] logo", "", {"pkg/logo.png": b"\x89PNG\r\n\x1a\n\x00\x01"})
    with pytest.raises(export.ExportError) as caught:
        export.export_range(config_at(downstream), "v1.0..work")
    head = git(topics, "rev-parse", "HEAD")[:12]
    assert caught.value.message == f"{head} changes a binary file: pkg/logo.png"


def test_a_file_name_apply_refuses_is_not_exported(downstream: Path, topics: Path) -> None:
    """A commit that adds a file whose name is not valid UTF-8 (a Latin-1 ``café.txt``) was
    exported as a patch (git's quoted ``"caf\\351.txt"``) that apply then refused; export
    refuses it as it refuses a binary change, naming the file as git does, and writes
    nothing."""
    commit_topic(topics, "[pk] latin-note", "", {"pkg/caf\udce9.txt": b"x\n"})
    series = (downstream / "patches" / "series").read_bytes()
    with pytest.raises(export.ExportError) as caught:
        export.export_range(config_at(downstream), "v1.0..work")
    head = git(topics, "rev-parse", "HEAD")[:12]
    assert (caught.value.message, caught.value.hint) == (
        f'{head} changes "pkg/caf\\351.txt", a name apply refuses: it holds bytes that are '
        "not valid utf-8 (the file system's encoding)",
        "rename the file in the commit (git mv) and export again",
    )
    assert (downstream / "patches" / "series").read_bytes() == series
    assert not (downstream / "patches" / "latin-note.patch").exists()


def test_export_refuses_a_series_entry_linked_outside_the_series_directory(
    downstream: Path, topics: Path, capsys
) -> None:
    """A series entry that is a symbolic link to a file outside the series directory (one
    patch shared by two series) is refused by name, as apply, audit and lint refuse it:
    export read the linked file as its form and replaced the link with a regular file."""
    shared = downstream.parent / "shared" / "size-knob.patch"
    shared.parent.mkdir()
    link = downstream / "patches" / "size-knob.patch"
    shared.write_bytes(b"Shared by two series.\n" + link.read_bytes())
    link.unlink()
    link.symlink_to(shared)
    before = shared.read_bytes()
    series_before = (downstream / "patches" / "series").read_bytes()
    error = (
        f"patchkeeper: error: {downstream / 'patches' / 'series'}:1: the series entry "
        "size-knob.patch leads outside "
        "the series directory (a symlink)\n"
        "  hint: copy the patch into the series directory instead of linking it\n"
    )
    capsys.readouterr()
    for args in (["work~1"], ["--range", "v1.0..work"], ["work~1", "-o", str(link)]):
        assert main(["-C", str(downstream), "export", *args]) == 2
        assert capsys.readouterr().err == error
        assert (link.is_symlink(), os.readlink(link)) == (True, str(shared))
        assert shared.read_bytes() == before
        assert (downstream / "patches" / "series").read_bytes() == series_before


@pytest.mark.parametrize("inside", [True, False])
def test_export_writes_through_an_output_link_the_series_does_not_list(
    downstream: Path, topics: Path, capsys, inside: bool
) -> None:
    """``-o`` naming a symbolic link the series does not list, leading into the series
    directory or out of it, writes the file it leads to as ``-o`` naming that file does,
    and the link stays (as a shell's ``>``, ``--markdown`` and the runtime outputs do)."""
    patches = downstream / "patches"
    shared = patches / "size-knob.patch" if inside else downstream.parent / "shared.patch"
    if not inside:
        shared.write_bytes(b"Kept elsewhere.\n")
    before = shared.read_bytes()
    link = patches / "alias.patch"
    link.symlink_to(shared)
    capsys.readouterr()
    assert main(["-C", str(downstream), "export", "work~1", "-o", str(link)]) == 0
    capsys.readouterr()
    through = shared.read_bytes()
    shared.write_bytes(before)
    assert main(["-C", str(downstream), "export", "work~1", "-o", str(shared)]) == 0
    assert (link.is_symlink(), os.readlink(link), through) == (
        True,
        str(shared),
        shared.read_bytes(),
    )
    assert through != before or inside
    assert sorted(p.name for p in shared.parent.iterdir() if p.name.endswith(".part")) == []


def _strip_zero(downstream: Path) -> bytes:
    """``size-knob.patch`` made a ``-p0`` patch (plain ``---``/``+++`` names without the
    ``a/``/``b/`` prefixes, no ``diff --git`` or ``index`` line), listed with ``-p0``; its
    bytes."""
    patches = downstream / "patches"
    lines = (patches / "size-knob.patch").read_bytes().splitlines(keepends=True)
    data = b"".join(
        line[:4] + line[6:] if line.startswith((b"--- a/", b"+++ b/")) else line
        for line in lines
        if not line.startswith((b"diff --git ", b"index "))
    )
    (patches / "size-knob.patch").write_bytes(data)
    series = (patches / "series").read_bytes()
    (patches / "series").write_bytes(series.replace(b"size-knob.patch\n", b"size-knob.patch -p0\n"))
    return data


@pytest.mark.parametrize("given", ["relative", "absolute", "link"])
def test_export_reads_an_entry_at_its_own_strip_level_however_o_names_it(
    downstream: Path, topics: Path, capsys, given: str
) -> None:
    """A series entry with its own strip level (``-p0``) is read at that level whether
    ``-o`` names it as given on the command line (``patches/size-knob.patch``), absolute,
    or through a symbolic link the series does not list: each time it is the file it was,
    and it is left as it is. Named relatively it was read at the configured level (1), its
    sections did not match the commit and it was written in git's form (``a/`` and ``b/``
    prefixes under ``-p0``)."""
    before = _strip_zero(downstream)
    knob = downstream / "patches" / "size-knob.patch"
    (downstream / "knob.patch").symlink_to(knob)
    output = {"relative": "patches/size-knob.patch", "absolute": str(knob), "link": "knob.patch"}
    head = git(topics, "rev-parse", "--short=12", "work~1")
    capsys.readouterr()
    assert main(["-C", str(downstream), "export", "work~1", "-o", output[given]]) == 0
    assert capsys.readouterr().out == f"unchanged patches/size-knob.patch (from {head})\n"
    assert knob.read_bytes() == before
    assert b"--- core.py\n+++ core.py\n" in before


def test_import_force_never_moves_a_checked_out_branch(
    downstream: Path, topics: Path, tmp_path: Path
) -> None:
    """``import --force`` onto the branch a work tree has checked out (the integration
    branch, after ``check-branch`` found it differs) moved it under that work tree: the old
    branch's work showed as staged changes there. It is refused, as ``git branch -f`` does,
    in the main work tree and in one of ``git worktree add``."""
    head = gitops.rev_parse(topics, "refs/heads/work")
    with pytest.raises(importer.SeriesImportError) as caught:
        importer.import_series(
            config_at(downstream), importer.ImportRequest(branch="work", force=True)
        )
    assert (caught.value.message, caught.value.hint) == (
        f"branch work is checked out in {topics}: moving it would leave that work tree's files "
        "and index behind the new commits",
        f"switch {topics} to another branch first (git -C {topics} switch --detach), or pass "
        "--branch NAME for another",
    )
    assert gitops.rev_parse(topics, "refs/heads/work") == head
    assert git(topics, "status", "--porcelain") == ""
    importer.import_series(config_at(downstream))
    other = tmp_path / "other-tree"
    git(topics, "worktree", "add", "-q", str(other), "patchkeeper/1.0")
    with pytest.raises(importer.SeriesImportError) as caught:
        importer.import_series(config_at(downstream), importer.ImportRequest(force=True))
    assert caught.value.message.startswith(f"branch patchkeeper/1.0 is checked out in {other}:")
