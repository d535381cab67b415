"""An RPM spec's patch series (Fedora's, openSUSE's, Photon OS's layout): the patches its
``Patch`` tags name, in the order its ``%prep`` applies them, read by
:mod:`patchkeeper.start.rpm_spec` and written by ``init`` as a series beside the spec."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import EXAMPLE_SERIES, Example, minihttp_spec
from patchkeeper.errors import PatchkeeperError
from patchkeeper.start.forms import RPM, detect
from patchkeeper.start.pin import Pin, find_pin
from patchkeeper.start.rpm_spec import SpecPatch, SpecSeries, read_spec

#: Tags numbering the patches in each way RPM allows (lines 12 to 16 of :data:`SPEC`).
TAGS = (
    "URL:            https://example.invalid/minihttp\n"
    "Source0:        %{srcname}-%{version}.tar.gz\n"
    "# the retry fix, taken from the upstream pull request\n"
    "Patch0:         %{fix_url}/retry-backoff-cap.patch\n"
    "Patch1:         redirect-strip-proxy-auth.patch\n"
    "Patch:          headers-merge-order.patch\n"
    "Patch10:        client-describe-version.patch\n"
    "Patch:          metrics-redirects.patch\n"
)
FIX_URL = "%global fix_url https://example.invalid/minihttp/fixes\n"
SPEC = minihttp_spec(TAGS, defines=FIX_URL)

#: Two of the example's patches, named as git format-patch names one of them.
REDIRECT_AND_HEADERS = {
    "0001-redirect.patch": EXAMPLE_SERIES[1],
    "headers.patch": EXAMPLE_SERIES[2],
}


def _spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "python-minihttp.spec"
    path.write_text(text, encoding="utf-8")
    return path


def _dist_git(example: Example, spec: str, patches: dict[str, str]) -> Path:
    """A dist-git checkout beside the example: ``spec`` as ``python-minihttp.spec``, and the
    example's patches under other names (name in the checkout -> name in the example)."""
    tree = example.root / "dist-git"
    tree.mkdir()
    for name, source in patches.items():
        shutil.copy(example.downstream / "patches" / source, tree / name)
    _spec(tree, spec)
    return tree


def test_autosetup_applies_every_patch_in_number_order(tmp_path: Path) -> None:
    read = read_spec(_spec(tmp_path, SPEC))
    assert (read.name, read.version) == ("minihttp", "1.0")
    assert read.patches == (
        SpecPatch("retry-backoff-cap.patch", 1, 12),
        SpecPatch("redirect-strip-proxy-auth.patch", 1, 13),
        SpecPatch("headers-merge-order.patch", 1, 14),
        SpecPatch("client-describe-version.patch", 1, 15),
        SpecPatch("metrics-redirects.patch", 1, 16),
    )


def test_a_flavor_suffix_defined_empty_leaves_the_name(tmp_path: Path) -> None:
    text = SPEC.replace(
        "Name:           python-%{srcname}",
        '%if "%{flavor}" == "test"\n%define psuffix -test\n%else\n%define psuffix %{nil}\n'
        "%endif\nName:           python-minihttp%{psuffix}",
    ).replace("%global srcname minihttp\n", "")
    text = text.replace("%{srcname}", "minihttp")
    read = read_spec(_spec(tmp_path, text))
    assert (read.name, read.version, len(read.patches)) == ("minihttp", "1.0", 5)


@pytest.mark.parametrize(
    ("more_tags", "prep", "applied"),
    [
        pytest.param(
            "",
            "%setup -q -n %{srcname}-%{version}\n%patch10 -p0\n%patch -P 1 -P 0 -p1\n%patch 2 -p2",
            [
                ("client-describe-version.patch", 0),
                ("redirect-strip-proxy-auth.patch", 1),
                ("retry-backoff-cap.patch", 1),
                ("headers-merge-order.patch", 2),
            ],
            id="patch-statements-in-the-order-written",
        ),
        pytest.param(
            "%patchlist\nmetrics-same-host.patch\n",
            "%autosetup -N -n %{srcname}-%{version}\n%autopatch -p1 -M 2\n%autopatch -p0 -m 10",
            [
                ("retry-backoff-cap.patch", 1),
                ("redirect-strip-proxy-auth.patch", 1),
                ("headers-merge-order.patch", 1),
                ("client-describe-version.patch", 0),
                ("metrics-redirects.patch", 0),
                ("metrics-same-host.patch", 0),
            ],
            id="autopatch-takes-a-range-and-a-patchlist-numbers-on",
        ),
    ],
)
def test_prep_chooses_the_patches_and_their_strip(
    tmp_path: Path, more_tags: str, prep: str, applied: list[tuple[str, int]]
) -> None:
    text = minihttp_spec(TAGS + more_tags, defines=FIX_URL, prep=prep)
    assert [(p.name, p.strip) for p in read_spec(_spec(tmp_path, text)).patches] == applied


def test_a_name_with_an_unknown_macro_is_named_by_its_line(tmp_path: Path) -> None:
    with pytest.raises(PatchkeeperError) as raised:
        read_spec(_spec(tmp_path, SPEC.replace("Patch1:         redirect", "Patch1: %{vendor}-r")))
    assert (raised.value.line, str(raised.value.message)) == (
        13,
        "the name of patch 1 keeps a macro this reader cannot expand: "
        "%{vendor}-r-strip-proxy-auth.patch",
    )


def test_a_patch_no_tag_defines_is_refused(tmp_path: Path) -> None:
    text = SPEC.replace("%autosetup -p1", "%setup -q\n%patch 7 -p1\n%dummy")
    with pytest.raises(PatchkeeperError) as raised:
        read_spec(_spec(tmp_path, text))
    assert (raised.value.line, str(raised.value.message)) == (
        23,
        "%prep applies patch 7, and no Patch7 tag defines it",
    )


def test_a_tag_in_a_subpackage_preamble_defines_a_patch(tmp_path: Path) -> None:
    # Fedora's python3-NAME subpackage preamble may carry tags of its own, inside an %if
    text = SPEC.replace(
        "%description\n",
        "%package -n python3-%{srcname}\nSummary: x\n%if 0%{?rhel}\n"
        "Patch20:        el-compat.patch\n%endif\n\n%description\n",
    ).replace("%autosetup -p1", "%autosetup -N\n%autopatch -p1 20 1")
    assert read_spec(_spec(tmp_path, text)).patches == (
        SpecPatch("el-compat.patch", 1, 21),
        SpecPatch("redirect-strip-proxy-auth.patch", 1, 13),
    )


def test_init_writes_the_spec_series_and_the_audit_reads_it(cli, example: Example) -> None:
    tree = _dist_git(example, SPEC, {name: name for name in EXAMPLE_SERIES[:5]})
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[:6] == [
        "found an RPM spec's patches (5 patches): python-minihttp.spec names 5 patch(es) that "
        "its %prep applies (an RPM spec)",
        "upstream minihttp, pin 1.0: from python-minihttp.spec",
        "header schema ledger: the patches carry the ledger schema's fields (Kind, What, ...)",
        "wrote patchkeeper.toml",
        "wrote PATCHES.md",
        "wrote series",
    ]
    assert (tree / "series").read_text() == (
        "# the patches python-minihttp.spec's %prep applies, in its order\n"
        + "".join(f"{name}\n" for name in EXAMPLE_SERIES[:5])
    )
    assert cli("ledger", "--check", cwd=tree).code == 0
    run = cli("audit", "--to", str(example.new), "--pristine", str(example.old), cwd=tree)
    summary = [line for line in run.out.splitlines() if line.startswith("5 patches: ")]
    assert (run.code, summary) == (
        1,
        ["5 patches: 2 offset, 1 upstreamed, 1 conflict, 1 target gone"],
    )


def test_one_number_in_two_branches_of_an_if_is_named(tmp_path: Path) -> None:
    # openSUSE and Fedora builds of one spec applying different patches under one number
    text = SPEC.replace(
        "Patch1:         redirect-strip-proxy-auth.patch\n",
        "%if 0%{?suse_version}\nPatch1:         redirect-strip-proxy-auth.patch\n%else\n"
        "Patch1:         redirect-fedora.patch\n%endif\n",
    )
    with pytest.raises(PatchkeeperError) as raised:
        read_spec(_spec(tmp_path, text))
    assert (raised.value.line, str(raised.value.message), raised.value.hint) == (
        16,
        "Patch1 is defined in two branches of the %if at line 13 (lines 14 and 16): init "
        "reads every branch and cannot tell which build the downstream follows",
        "write a series file beside the spec listing the patches of that build, and run init "
        "with --patches SERIES --upstream NAME==VERSION",
    )
    # two tags of one number in one branch stay the plain error
    with pytest.raises(PatchkeeperError) as raised:
        read_spec(_spec(tmp_path, SPEC.replace("Patch10:", "Patch1:")))
    assert str(raised.value.message) == "two tags define patch 1 (lines 13 and 15)"


def test_two_series_name_the_argument_that_chooses_each(cli, example: Example) -> None:
    # the spec names one patch; the other, named as git format-patch names its output, is a
    # second series
    tree = _dist_git(example, minihttp_spec("Patch0: headers.patch\n"), REDIRECT_AND_HEADERS)
    run = cli("init", cwd=tree)
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        "  hint: choose one: --patches . or --patches python-minihttp.spec",
    )
    assert sorted(path.name for path in tree.iterdir()) == [
        "0001-redirect.patch",
        "headers.patch",
        "python-minihttp.spec",
    ]


def test_a_missing_patch_file_is_named_by_its_tag_line(cli, example: Example) -> None:
    tree = _dist_git(example, SPEC, {name: name for name in EXAMPLE_SERIES[:4]})
    run = cli("init", "--directory", "minihttp", cwd=tree)
    spec = tree / "python-minihttp.spec"
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {spec}:16: metrics-redirects.patch, which the spec's %prep "
            "applies, cannot be read beside the spec: No such file or directory",
            "  hint: put the patch file beside the spec; or, when the build the downstream "
            "follows does not apply it, write a series file beside the spec without it and run "
            "init with --patches SERIES --upstream NAME==VERSION",
        ],
    )
    assert not (tree / "series").exists()


@pytest.mark.parametrize(
    ("tags", "series"),
    [
        # Fedora keeps git format-patch output beside the spec: one series, not two
        pytest.param(
            "Patch0: 0001-redirect.patch\nPatch1: headers.patch\n",
            ["0001-redirect.patch", "headers.patch"],
            id="format-patch-files-the-spec-names",
        ),
        # Fedora's newer specs name their patches in %patchlist only; one of them in the form
        # git format-patch names must not make the directory a format-patch series of one
        pytest.param(
            "\n%patchlist\nheaders.patch\n0001-redirect.patch\n",
            ["headers.patch", "0001-redirect.patch"],
            id="a-patchlist-alone",
        ),
    ],
)
def test_the_patches_the_spec_names_are_its_series(
    cli, example: Example, tags: str, series: list[str]
) -> None:
    tree = _dist_git(example, minihttp_spec(tags), REDIRECT_AND_HEADERS)
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert (run.code, run.out.splitlines()[0]) == (
        0,
        "found an RPM spec's patches (2 patches): python-minihttp.spec names 2 patch(es) that "
        "its %prep applies (an RPM spec)",
    )
    assert (tree / "series").read_text().splitlines()[1:] == series


def test_the_spec_is_parsed_once_and_the_pin_comes_from_that_parse(tmp_path: Path) -> None:
    # detection parses the spec and carries what it read; the pin is taken from it, so a
    # spec changed (or gone) after detection does not give a second, different answer
    spec = _spec(tmp_path, SPEC)
    found = detect(tmp_path)
    assert (found.form, found.source, found.names) == (
        RPM,
        spec,
        (
            "retry-backoff-cap.patch",
            "redirect-strip-proxy-auth.patch",
            "headers-merge-order.patch",
            "client-describe-version.patch",
            "metrics-redirects.patch",
        ),
    )
    assert found.spec == SpecSeries(
        (
            SpecPatch("retry-backoff-cap.patch", 1, 12),
            SpecPatch("redirect-strip-proxy-auth.patch", 1, 13),
            SpecPatch("headers-merge-order.patch", 1, 14),
            SpecPatch("client-describe-version.patch", 1, 15),
            SpecPatch("metrics-redirects.patch", 1, 16),
        ),
        "minihttp",
        "1.0",
    )
    spec.unlink()
    assert find_pin(tmp_path, found) == Pin("minihttp", "1.0", "from python-minihttp.spec")


def test_a_spec_without_patch_tags_is_no_series(tmp_path: Path) -> None:
    # the cheap look keeps a spec that carries no patch out, even one that would not parse
    _spec(tmp_path, minihttp_spec("", prep="%patch 3 -p1"))
    with pytest.raises(PatchkeeperError) as raised:
        detect(tmp_path)
    assert str(raised.value.message).startswith("no patch series here: ")


def test_a_spec_in_utf16_is_refused_with_the_command_that_converts_it(
    cli, example: Example
) -> None:
    # Fedora keeps git format-patch output beside the spec: without the spec read, init
    # would take those files for the series and lose the spec's order and strip levels
    tree = _dist_git(example, "", REDIRECT_AND_HEADERS)
    spec = tree / "python-minihttp.spec"
    spec.write_bytes(minihttp_spec("Patch0: 0001-redirect.patch\n").encode("utf-16"))
    run = cli("init", cwd=tree)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {spec}:1: the spec file is UTF-16 text; patchkeeper reads "
            "UTF-8 (or plain bytes)",
            f"  hint: save it as UTF-8: iconv -f UTF-16 -t UTF-8 {spec} > "
            "python-minihttp.spec.utf8, then move python-minihttp.spec.utf8 over it",
        ],
    )
    assert sorted(path.name for path in tree.iterdir()) == [
        "0001-redirect.patch",
        "headers.patch",
        "python-minihttp.spec",
    ]
