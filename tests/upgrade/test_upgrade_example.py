"""``upgrade --to NEWPIN --branch NAME`` end to end on the bundled example (minihttp 1.0 ->
1.1): it stops at the port's first conflict with every other step done and committed; after
each resolution ``--continue`` goes on; at the end ``verify`` of the new series on the new
pin and ``report --check`` pass; ``--abort`` puts the branch and the work tree back."""

from __future__ import annotations

import json
import shutil

from upgrade_support import (
    API_KEY,
    AT_THE_STOP,
    PORTED,
    PROXY,
    RECORD,
    SUGGESTED,
    committed_files,
    git,
    make_checkout,
    resolve,
    start_upgrade,
    step_rows,
    subjects,
    tracked_tree,
)

from helpers import Example


def test_upgrade_stops_at_the_conflict_with_every_other_step_committed(
    cli, example: Example
) -> None:
    down = example.downstream
    base = make_checkout(down)
    run = start_upgrade(cli, example)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert (data["command"], data["action"], data["outcome"]) == ("upgrade", "upgrade", "stopped")
    assert (data["branch"], data["base"], data["target_version"]) == ("up", "main", "1.1")
    assert step_rows(data) == [
        ("audit", "done", [".patchkeeper/evidence/audit.json"], AT_THE_STOP[0]),
        ("runtime audit", "skipped", [], None),
        ("decide", "done", ["patchkeeper-decisions.toml"], AT_THE_STOP[1]),
        ("runtime port", "skipped", [], None),
        ("port", "stopped", [".patchkeeper/evidence/port.json"], AT_THE_STOP[2]),
        ("report", "done", RECORD, AT_THE_STOP[3]),
    ]
    assert [s["exit_code"] for s in data["steps"]] == [1, 0, 0, 0, 1, 1]
    assert data["steps"][4]["summary"] == (
        "stopped at redirect-strip-proxy-auth.patch; 1 upstreamed, 1 conflict, 5 pending"
    )
    assert git(down, "branch", "--show-current") == "up"
    assert subjects(down, base) == AT_THE_STOP
    for step, commit in zip(
        (0, 2, 4, 5), git(down, "rev-list", "--reverse", f"{base}..HEAD").split()
    ):
        assert data["steps"][step]["commit"] == commit
        assert committed_files(down, commit) == data["steps"][step]["files"]
    # what is left, in order: the conflict, the suggestions, the commands that check
    assert data["conflicts"] == [
        {
            "kind": "series",
            "name": "redirect-strip-proxy-auth.patch",
            "files": [".patchkeeper-port/conflict/files/retry.py"],
            "hint": "edit them to what the patch should make of the new pin (see "
            ".patchkeeper-port/conflict/INSTRUCTIONS.md), then run 'patchkeeper upgrade "
            "--continue' (or 'patchkeeper upgrade --abort')",
        }
    ]
    assert data["undecided"] == []
    assert [(s["key"], s["decision"], s["verdict"]) for s in data["suggestions"]] == SUGGESTED
    assert data["decisions_file"] == "patchkeeper-decisions.toml"
    assert data["verify"] == [
        f"COPY=$(mktemp -d) && cp -R {example.new}/. $COPY && patchkeeper apply --target "
        "$COPY && patchkeeper verify --target $COPY",
        "patchkeeper lint",
        "patchkeeper report --check",
    ]
    # the state is in the git directory; nothing but the port's work is left uncommitted
    assert data["state_dir"] == str(down / ".git" / "patchkeeper-upgrade")
    assert git(down, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        "?? .patchkeeper-port/conflict/INSTRUCTIONS.md",
        "?? .patchkeeper-port/conflict/files/retry.py",
        "?? .patchkeeper-port/conflict/manifest.json",
        "?? .patchkeeper-port/conflict/reference/new/retry.py",
        "?? .patchkeeper-port/conflict/reference/old/retry.py",
        "?? .patchkeeper-port/conflict/reference/patched/retry.py",
        "?? .patchkeeper-port/conflict/reference/redirect-strip-proxy-auth.patch",
        "?? .patchkeeper-port/judged.pickle",
        "?? .patchkeeper-port/original/client-describe-version.patch",
        "?? .patchkeeper-port/original/headers-merge-order.patch",
        "?? .patchkeeper-port/original/metrics-redirects.patch",
        "?? .patchkeeper-port/original/metrics-same-host.patch",
        "?? .patchkeeper-port/original/redirect-strip-api-key.patch",
        "?? .patchkeeper-port/original/redirect-strip-proxy-auth.patch",
        "?? .patchkeeper-port/original/retry-backoff-cap.patch",
        "?? .patchkeeper-port/original/series",
        "?? .patchkeeper-port/state.json",
    ]


def test_continue_finishes_and_the_result_verifies(cli, example: Example) -> None:
    down = example.downstream
    base = make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    files = down / ".patchkeeper-port" / "conflict" / "files"
    resolve(files / "retry.py", PROXY)
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert (data["action"], data["outcome"]) == ("continue", "stopped")
    assert data["conflicts"][0]["name"] == "redirect-strip-api-key.patch"
    # the port's evidence at its second stop is committed as the first one was, and the
    # record is written again: it tells the second stop, not the first
    assert subjects(down, base) == [*AT_THE_STOP, *AT_THE_STOP[2:]]
    assert [s["status"] for s in data["steps"]][4:] == ["stopped", "done"]
    check = cli("report", "--check", "--json", cwd=down)
    codes = {f["code"] for f in json.loads(check.out)["findings"]}
    assert codes == {"dropped-but-present", "not-reviewed"}
    resolve(files / "retry.py", API_KEY)
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert (data["action"], data["outcome"], data["state_dir"]) == ("continue", "done", None)
    assert step_rows(data) == [
        ("audit", "done", [".patchkeeper/evidence/audit.json"], AT_THE_STOP[0]),
        ("runtime audit", "skipped", [], None),
        ("decide", "done", ["patchkeeper-decisions.toml"], AT_THE_STOP[1]),
        ("runtime port", "skipped", [], None),
        ("port", "done", PORTED, "upgrade: port the series to 1.1"),
        ("report", "done", RECORD, "upgrade: write the audit record"),
    ]
    assert data["steps"][4]["summary"] == "1 upstreamed, 2 resolved, 1 merged, 2 offset, 1 clean"
    assert subjects(down, base) == [
        *AT_THE_STOP,
        *AT_THE_STOP[2:],
        "upgrade: port the series to 1.1",
        "upgrade: write the audit record",
    ]
    assert committed_files(down, "HEAD~1") == PORTED
    assert committed_files(down, "HEAD") == RECORD
    assert data["conflicts"] == []
    # nothing the port has done since decide is suggested as still to do
    assert [(s["key"], s["decision"], s["verdict"]) for s in data["suggestions"]] == [
        SUGGESTED[0],
        ("redirect-strip-proxy-auth.patch", "carry", "resolved"),
        ("headers-merge-order.patch", "carry", "merged"),
        *SUGGESTED[3:6],
        ("redirect-strip-api-key.patch", "carry", "resolved"),
    ]
    assert git(down, "status", "--porcelain", "--untracked-files=all") == ""
    assert not (down / ".git" / "patchkeeper-upgrade").exists()
    # the series moved to the new pin in place; the upstreamed patch is proposed for
    # retirement in the series file
    assert 'pin = "1.1"' in (down / "patchkeeper.toml").read_text()
    assert (
        (down / "patches" / "series")
        .read_text()
        .splitlines()[1]
        .startswith("# retry-backoff-cap.patch  # upstreamed in 1.1")
    )
    # the commands it prints check the result: the new series on a copy of the new pin
    copy = example.root / "COPY"
    shutil.copytree(example.new, copy)
    assert cli("apply", "--target", str(copy), cwd=down).code == 0
    run = cli("verify", "--target", str(copy), cwd=down)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 6 of 6 patches applied, 0 files drifted",
    )
    assert cli("lint", cwd=down).code == 0
    # the record is current and true; what may remain is a person's review of the
    # suggestions (report --check's not-reviewed findings, where decide marks them)
    run = cli("report", "--check", "--json", cwd=down)
    findings = json.loads(run.out)["findings"]
    assert [f["message"] for f in findings if f["code"] != "not-reviewed"] == []


def test_continue_with_markers_left_changes_nothing(cli, example: Example) -> None:
    down = example.downstream
    make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    head = git(down, "rev-parse", "HEAD")
    git(down, "switch", "-q", "main")
    run = cli("upgrade", "--continue", cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {down}: the upgrade works on the branch up, but main is checked out",
    )
    git(down, "switch", "-q", "up")
    run = cli("upgrade", "--continue", cwd=down)
    assert run.code == 2
    retry = down / ".patchkeeper-port" / "conflict" / "files" / "retry.py"
    assert run.err == (
        f"patchkeeper: error: {retry}:11: conflict markers are left in this file\n  hint: edit "
        "the file to the content the patch should produce, remove the markers, then run "
        "'patchkeeper upgrade --continue'\n"
    )
    assert git(down, "rev-parse", "HEAD") == head
    assert (down / ".git" / "patchkeeper-upgrade" / "state.json").is_file()


def test_abort_restores_the_branch_and_the_work_tree(cli, example: Example) -> None:
    down = example.downstream
    base = make_checkout(down)
    before = tracked_tree(down)
    assert start_upgrade(cli, example).code == 1
    resolve(down / ".patchkeeper-port" / "conflict" / "files" / "retry.py", PROXY)
    assert cli("upgrade", "--continue", cwd=down).code == 1
    run = cli("upgrade", "--abort", "--json", cwd=down)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert (data["action"], data["outcome"], data["conflicts"]) == ("abort", "aborted", [])
    assert git(down, "branch", "--show-current") == "main"
    assert git(down, "rev-parse", "HEAD") == base
    assert git(down, "branch", "--list", "up") == ""
    assert tracked_tree(down) == before
    assert not (down / ".git" / "patchkeeper-upgrade").exists()
    run = cli("upgrade", "--continue", cwd=down)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {down / '.git' / 'patchkeeper-upgrade'}: no upgrade is in "
            "progress",
            "  hint: no upgrade was started here, or the last one finished or was aborted; to "
            "start one, run 'patchkeeper upgrade --to NEWPIN'",
        ],
    )


def test_refusals_before_anything_is_written(cli, example: Example) -> None:
    down = example.downstream
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {down}: --branch needs the downstream in a git checkout",
    )
    make_checkout(down)
    (down / "patches" / "series").write_text("# edited\n", encoding="utf-8")
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down)
    assert run.code == 2
    assert "the checkout has changes not committed (patches/series)" in run.err
    git(down, "checkout", "-q", "--", "patches/series")
    git(down, "branch", "up")
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down)
    assert (run.code, "the branch up already exists" in run.err) == (2, True)
    run = cli("upgrade", "--continue", "--to", "x", cwd=down)
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        "Error: --to and --continue exclude each other: --continue is for the upgrade in "
        "progress, which keeps the options it was started with",
    )
    assert git(down, "status", "--porcelain", "--untracked-files=all") == ""


def test_without_branch_the_files_are_written_and_abort_deletes_them(cli, example: Example) -> None:
    down = example.downstream
    before = tracked_tree(down)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--json", cwd=down)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert (data["branch"], data["base"], data["state_dir"]) == (
        "",
        "",
        str(down / ".patchkeeper-upgrade"),
    )
    assert [(s["name"], s["status"], s["files"], s["commit"]) for s in data["steps"]] == [
        ("audit", "done", [".patchkeeper/evidence/audit.json"], None),
        ("runtime audit", "skipped", [], None),
        ("decide", "done", ["patchkeeper-decisions.toml"], None),
        ("runtime port", "skipped", [], None),
        ("port", "stopped", [".patchkeeper/evidence/port.json"], None),
        ("report", "done", RECORD, None),
    ]
    assert sorted(p.name for p in (down / ".patchkeeper-upgrade").iterdir()) == [
        "left.json",
        "start.json",
        "state.json",
    ]
    run = cli("upgrade", "--abort", "--json", cwd=down)
    assert (run.code, json.loads(run.out)["kept_files"]) == (0, [])
    assert tracked_tree(down) == before


def test_the_terminal_output_lists_the_steps_then_what_is_left(cli, example: Example) -> None:
    down = example.downstream
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert run.code == 1
    retry = "series redirect-strip-proxy-auth.patch: .patchkeeper-port/conflict/files/retry.py"
    assert run.out.splitlines() == [
        f"upgrade of {down} to 1.1",
        "  audit          done     7 patches: 1 clean, 2 offset, 1 upstreamed, 1 conflict, "
        "1 target gone, 1 blocked",
        "                          wrote .patchkeeper/evidence/audit.json",
        "  runtime audit  skipped  no runtime patches configured",
        "  decide         done     7 tables added, 0 kept",
        "                          wrote patchkeeper-decisions.toml",
        "  runtime port   skipped  no runtime patches configured",
        "  port           stopped  stopped at redirect-strip-proxy-auth.patch; 1 upstreamed, 1 "
        "conflict, 5 pending",
        "                          wrote .patchkeeper/evidence/port.json",
        "  report         done     wrote AUDIT.md: 8 finding(s) in the record",
        "                          wrote .patchkeeper/evidence/environment.json, AUDIT.md",
        f"stopped at the port's conflict; state in {down / '.patchkeeper-upgrade'}",
        "left for a person:",
        "1. conflicts to resolve:",
        f"   - {retry}",
        "     edit them to what the patch should make of the new pin (see "
        ".patchkeeper-port/conflict/INSTRUCTIONS.md), then run 'patchkeeper upgrade "
        "--continue' (or 'patchkeeper upgrade --abort')",
        '2. suggestions to review, in patchkeeper-decisions.toml (delete "suggested: " from '
        "its decision to accept it, or write your own):",
        *[
            f"   - series {key}: {decision} (verdict: {verdict})"
            for key, decision, verdict in SUGGESTED
        ],
        "3. verify the result:",
        f"   - COPY=$(mktemp -d) && cp -R {example.new}/. $COPY && patchkeeper apply --target "
        "$COPY && patchkeeper verify --target $COPY",
        "   - patchkeeper lint",
        "   - patchkeeper report --check",
    ]
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {down / '.patchkeeper-upgrade'}: an upgrade is already in progress",
    )


def test_a_place_outside_the_downstream_is_refused_first(cli, example: Example) -> None:
    down = example.downstream
    config = down / "patchkeeper.toml"
    config.write_text(config.read_text() + '\n[report]\naudit-file = "../AUDIT.md"\n')
    before = tracked_tree(example.root)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {example.root / 'AUDIT.md'}: the audit record (audit-file in "
        f"[report]) is outside the downstream {down}: upgrade writes only inside it",
    )
    assert tracked_tree(example.root) == before


def test_markdown_is_a_pull_request_description(cli, example: Example) -> None:
    down = example.downstream
    base = make_checkout(down)
    out = example.root / "pr.md"
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up",
              "--markdown", str(out), cwd=down)  # fmt: skip
    assert run.code == 1
    lines = out.read_text().splitlines()
    commits = git(down, "rev-list", "--reverse", f"{base}..HEAD").split()
    assert lines[:10] == [
        f"# upgrade of {down} to 1.1 on branch up (from main)",
        "",
        "| step | status | what | commit |",
        "| --- | --- | --- | --- |",
        "| audit | done | 7 patches: 1 clean, 2 offset, 1 upstreamed, 1 conflict, 1 target gone, "
        f"1 blocked | `{commits[0][:12]}` upgrade: audit the series against 1.1 |",
        "| runtime audit | skipped | no runtime patches configured |  |",
        f"| decide | done | 7 tables added, 0 kept | `{commits[1][:12]}` upgrade: suggest "
        "decisions from the evidence |",
        "| runtime port | skipped | no runtime patches configured |  |",
        "| port | stopped | stopped at redirect-strip-proxy-auth.patch; 1 upstreamed, 1 conflict, "
        f"5 pending | `{commits[2][:12]}` upgrade: port the series to 1.1 (stopped at a "
        "conflict) |",
        "| report | done | wrote AUDIT.md: 8 finding(s) in the record | "
        f"`{commits[3][:12]}` upgrade: write the audit record (the port stopped) |",
    ]
    assert lines[10:14] == ["", "## Left for a person", "", "```"]
    assert lines[14] == "1. conflicts to resolve:"


def test_an_upgrade_to_the_release_the_downstream_is_at_is_refused(cli, example: Example) -> None:
    """``upgrade --to`` the pinned release itself would audit and port every patch clean and
    replace the record's evidence of the real upgrade: it is refused before anything is
    written, naming the configured pin."""
    down = example.downstream
    make_checkout(down)
    before = tracked_tree(down)
    run = cli("-C", str(down), "upgrade", "--to", "../upstream/minihttp-1.0", cwd=example.root)
    config = down / "patchkeeper.toml"
    line = config.read_text().splitlines().index('pristine = "../upstream/minihttp-1.0"') + 1
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {config}:{line}: nothing to upgrade: --to is 1.0, the release "
        "the downstream is at\n  hint: pass a newer release as --to; to write the record "
        "again, run 'patchkeeper report'\n",
    )
    assert tracked_tree(down) == before
    assert git(down, "status", "--porcelain") == ""


def test_a_suggestion_about_a_patch_the_port_takes_out_becomes_retire(
    cli, example: Example
) -> None:
    down = example.downstream
    assert cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down).code == 1
    # as decide writes it when the audit saw a conflict where the port then finds the
    # patch upstreamed; a person's note on it is kept
    decisions = down / "patchkeeper-decisions.toml"
    text = decisions.read_text()
    start = text.index('[series."retry-backoff-cap.patch"]')
    end = text.index("\n\n", start)
    decisions.write_text(
        text[:start]
        + '[series."retry-backoff-cap.patch"]\n'
        + '# suggested from audit: conflict; to accept it, delete "suggested: " from the '
        "decision\n"
        + 'decision = "suggested: update"\n'
        + 'reason = "suggested by patchkeeper decide from the audit verdict: conflict"\n'
        + 'removal-condition = ""\nnotes = "asked upstream"'
        + text[end:]
    )
    files = down / ".patchkeeper-port" / "conflict" / "files"
    resolve(files / "retry.py", PROXY)
    assert cli("upgrade", "--continue", cwd=down).code == 1
    resolve(files / "retry.py", API_KEY)
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["steps"][4]["files"] == PORTED
    assert [(s["key"], s["decision"], s["verdict"]) for s in data["suggestions"]][:1] == [
        ("retry-backoff-cap.patch", "retire", "upstreamed")
    ]
    text = decisions.read_text()
    start = text.index('[series."retry-backoff-cap.patch"]')
    assert text[start : text.index("\n\n", start)] == (
        '[series."retry-backoff-cap.patch"]\n'
        '# suggested from port: upstreamed; to accept it, delete "suggested: " from the '
        "decision\n"
        'decision = "suggested: retire"\n'
        'reason = "suggested by patchkeeper decide from the port verdict: upstreamed"\n'
        'removal-condition = ""\nnotes = "asked upstream"'
    )
    # the record asks a person to review the retire, no longer about a patch it cannot find
    run = cli("report", "--check", "--json", cwd=down)
    findings = json.loads(run.out)["findings"]
    assert [
        (f["code"], f["line"]) for f in findings if "`retry-backoff-cap.patch`" in f["message"]
    ] == [("not-reviewed", text[:start].count("\n") + 1)]
    # decide does the same after a port run on its own
    decisions.write_text(text.replace('"suggested: retire"', '"suggested: carry"', 1))
    run = cli("decide", cwd=down)
    assert (run.code, run.out.splitlines()) == (
        0,
        [
            f"{decisions}: added 0, kept 6 existing",
            "replaced 1 suggestion about patches the port took out of the series:",
            "  series retry-backoff-cap.patch: suggested: retire (upstreamed)",
            '1 suggestion to review: delete "suggested: " from a decision to accept it, or '
            "write your own; report --check fails until then",
        ],
    )
    assert decisions.read_text() == text


def test_no_upgrade_in_a_downstream_that_is_no_checkout(cli, example: Example) -> None:
    """No git to show what an interrupted upgrade wrote: the hint does not send there."""
    down = example.downstream
    run = cli("upgrade", "--continue", cwd=down)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {down / '.patchkeeper-upgrade'}: no upgrade is in progress",
            "  hint: no upgrade was started here, or the last one finished or was aborted; to "
            "start one, run 'patchkeeper upgrade --to NEWPIN'",
        ],
    )


def test_no_upgrade_ever_started_in_a_checkout(cli, example: Example) -> None:
    """A git checkout where no upgrade ran: --continue and --abort say so plainly (not that
    an upgrade was interrupted), send to 'upgrade --to', and write nothing."""
    down = example.downstream
    head = make_checkout(down)
    before = tracked_tree(down)
    for action in ("--continue", "--abort"):
        run = cli("upgrade", action, cwd=down)
        assert (run.code, run.out, run.err.splitlines()) == (
            2,
            "",
            [
                f"patchkeeper: error: {down / '.git' / 'patchkeeper-upgrade'}: no upgrade is "
                "in progress",
                "  hint: no upgrade was started here, or the last one finished or was aborted; "
                "to start one, run 'patchkeeper upgrade --to NEWPIN'",
            ],
        )
    assert git(down, "rev-parse", "HEAD") == head
    assert git(down, "status", "--porcelain") == ""
    assert tracked_tree(down) == before
    assert not (down / ".git" / "patchkeeper-upgrade").exists()


def test_suggestions_reviewed_while_stopped_are_not_listed_again(cli, example: Example) -> None:
    """The list of what is left tells a person to review decide's suggestions while the
    upgrade waits at the conflict; the ``--continue`` that followed listed them still, as
    decide had written them. The list is the decisions file as it is then."""
    down = example.downstream
    make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    decisions = down / "patchkeeper-decisions.toml"
    text = decisions.read_text()
    for key, decision, _ in SUGGESTED[3:6]:  # the three offset and clean patches: carried
        table = f'[series."{key}"]\n'
        head, _, tail = text.partition(table)
        tail = tail.replace(f'decision = "suggested: {decision}"', f'decision = "{decision}"', 1)
        tail = tail.replace('removal-condition = ""', 'removal-condition = "upstream has it"', 1)
        text = head + table + tail
    decisions.write_text(text)
    resolve(down / ".patchkeeper-port" / "conflict" / "files" / "retry.py", PROXY)

    run = cli("upgrade", "--continue", "--json", cwd=down)

    assert run.code == 1, run.err
    listed = [(s["key"], s["decision"], s["verdict"]) for s in json.loads(run.out)["suggestions"]]
    # the two patches the port has carried since are suggested as its evidence says
    assert listed == [
        SUGGESTED[0],
        ("redirect-strip-proxy-auth.patch", "carry", "resolved"),
        ("headers-merge-order.patch", "carry", "merged"),
        SUGGESTED[6],
    ]


def test_a_resolved_conflict_is_no_longer_suggested_for_update(cli, example: Example) -> None:
    """decide runs before the port and suggests *update* for the patches that do not apply;
    once the port has carried one (a person resolved its conflict, git's merge refreshed
    it), the update is done. The ``--continue`` after the resolution still listed
    "update (verdict: conflict)": the suggestion nobody reviewed is now the port's."""
    down = example.downstream
    make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    decisions = down / "patchkeeper-decisions.toml"
    # a removal condition a person wrote while the suggestion waited is kept
    decisions.write_text(
        decisions.read_text().replace(
            'removal-condition = "upstreamed"', 'removal-condition = "when 2.0 ships"', 1
        )
    )
    resolve(down / ".patchkeeper-port" / "conflict" / "files" / "retry.py", PROXY)

    run = cli("upgrade", "--continue", cwd=down)

    assert run.code == 1, run.err
    listed = run.out[run.out.index("2. suggestions to review") : run.out.index("3. verify")]
    assert listed.splitlines() == [
        '2. suggestions to review, in patchkeeper-decisions.toml (delete "suggested: " from '
        "its decision to accept it, or write your own):",
        "   - series retry-backoff-cap.patch: retire (verdict: upstreamed)",
        "   - series redirect-strip-proxy-auth.patch: carry (verdict: resolved)",
        "   - series headers-merge-order.patch: carry (verdict: merged)",
        "   - series client-describe-version.patch: carry (verdict: offset)",
        "   - series metrics-redirects.patch: carry (verdict: offset)",
        "   - series metrics-same-host.patch: carry (verdict: clean)",
        "   - series redirect-strip-api-key.patch: update (verdict: blocked)",
    ]
    text = decisions.read_text()
    table = text[text.index('[series."redirect-strip-proxy-auth.patch"]') :]
    assert table[: table.index("\n\n")].splitlines() == [
        '[series."redirect-strip-proxy-auth.patch"]',
        '# suggested from port: resolved; to accept it, delete "suggested: " from the decision',
        "# removal condition from the Retires-when header",
        'decision = "suggested: carry"',
        'reason = "suggested by patchkeeper decide from the port verdict: resolved"',
        'removal-condition = "upstream takes #15"',
        'notes = ""',
    ]
    table = text[text.index('[series."headers-merge-order.patch"]') :]
    assert table[: table.index("\n\n")].splitlines() == [
        '[series."headers-merge-order.patch"]',
        '# suggested from port: merged; to accept it, delete "suggested: " from the decision',
        'decision = "suggested: carry"',
        'reason = "suggested by patchkeeper decide from the port verdict: merged"',
        'removal-condition = "when 2.0 ships"',
        'notes = ""',
    ]
    assert committed_files(down, "HEAD~1") == [
        ".patchkeeper/evidence/port.json",
        "patchkeeper-decisions.toml",
    ]


def test_status_while_the_upgrade_waits_names_its_next_step(cli, example: Example) -> None:
    """status shows the series on a tree as ever, and says on standard error (the JSON
    envelope's warnings) that the upgrade waits and what its next step is."""
    down = example.downstream
    make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    waits = (
        "an upgrade to 1.1 is in progress here, stopped at the port's conflict: the next step "
        "is 'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort' to put the "
        "downstream back)"
    )
    target = example.target()

    run = cli("status", "--target", str(target), cwd=down)

    assert run.code == 1, run.err
    assert run.err == f"patchkeeper: warning: {waits}\n"
    assert run.out.splitlines()[-1] == "not ok: 0 of 7 patches applied, 0 files drifted"
    run = cli("status", "--target", str(target), "--json", cwd=down)
    assert json.loads(run.out)["warnings"] == [waits]
    assert cli("upgrade", "--abort", cwd=down).code == 0
    assert cli("status", "--target", str(target), cwd=down).err == ""
