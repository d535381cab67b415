"""``port`` of an RPM spec's series moves the spec with the pin: its ``Version:`` becomes the
new release and its ``Release:`` starts again at 1, as ``rpmdev-bumpspec --new`` and packit
do for a new upstream release (a ``Release:`` of ``0`` or ``%autorelease`` is left alone).
In place the spec is written with the series and the configuration, in one transaction;
a port into a new directory, which holds the series alone, says the edit instead. A
``Version:`` written with a macro is named for the user to set.

The series is the bundled example's (minihttp 1.0 -> 1.1), with a spec beside it naming its
patches, as ``patchkeeper init`` finds a Fedora package's.
"""

from __future__ import annotations

from port_support import port_to_the_end

from helpers import EXAMPLE_SPEC_TAGS, Example, minihttp_spec

SPEC = minihttp_spec()


def _spec(example: Example, text: str = SPEC):
    path = example.downstream / "patches" / "python-minihttp.spec"
    path.write_text(text, encoding="utf-8")
    return path


def test_in_place_the_spec_follows_the_pin(cli, example: Example) -> None:
    spec = _spec(example)
    data = port_to_the_end(cli, example, "--in-place")
    assert spec.read_text(encoding="utf-8") == SPEC.replace(
        "Version:        1.0\nRelease:        3%{?dist}",
        "Version:        1.1\nRelease:        1%{?dist}",
    )
    assert 'pin = "1.1"\n' in (example.downstream / "patchkeeper.toml").read_text()
    assert [item for item in data["todo"] if "spec" in item] == []


def test_into_a_new_directory_the_spec_edit_is_said(cli, example: Example) -> None:
    spec = _spec(example)
    data = port_to_the_end(cli, example)
    assert spec.read_text(encoding="utf-8") == SPEC  # the downstream is not written
    assert not (example.downstream / "patches-1.1" / "python-minihttp.spec").exists()
    assert [item for item in data["todo"] if "spec" in item] == [
        f"in {spec}, write Version:        1.1; Release:        1%{{?dist}} with the series "
        f"('patchkeeper port --to {example.new} --in-place' does it)"
    ]


def test_a_version_written_with_a_macro_is_left_to_the_user(cli, example: Example) -> None:
    text = minihttp_spec(defines="%global upver 1.0\n").replace(
        "Version:        1.0", "Version:        %{upver}"
    )
    spec = _spec(example, text)
    data = port_to_the_end(cli, example, "--in-place")
    assert spec.read_text(encoding="utf-8") == text
    assert [item for item in data["todo"] if "spec" in item] == [
        "set Version: in python-minihttp.spec (line 5, %{upver}) to 1.1 by hand: it is "
        "written with a macro"
    ]
    assert data["by_hand"] == [item for item in data["todo"] if "spec" in item]


def test_in_place_with_retire_names_the_spec_tag_of_the_retired_patch(
    cli, example: Example
) -> None:
    """The retired patch's file is deleted while the spec, the packager's to edit, still
    names it: the to-do says which line, as ``retire`` does."""
    _spec(example)
    data = port_to_the_end(cli, example, "--in-place", "--retire")
    assert data["retired"] == ["retry-backoff-cap.patch"]
    assert not (example.downstream / "patches" / "retry-backoff-cap.patch").exists()
    assert [item for item in data["todo"] if "Patch tag" in item] == [
        "patches/python-minihttp.spec:8 still names retry-backoff-cap.patch (its Patch tag): "
        "take the tag out (and its %patch line, if any), or rpmbuild stops at the missing file"
    ]


#: The Patch5 tag of a spec naming metrics-same-host.patch by the version, as Fedora
#: packagers often name a patch cut against one release (line 13 of the spec).
VERSIONED = "%{srcname}-%{version}-metrics-same-host.patch"


def _versioned_patch_name(example: Example) -> str:
    """Rename the example's metrics-same-host.patch to the name a versioned Patch tag gives
    it at the pin (``minihttp-1.0-metrics-same-host.patch``); return the spec's text."""
    patches = example.downstream / "patches"
    (patches / "metrics-same-host.patch").rename(patches / "minihttp-1.0-metrics-same-host.patch")
    series = patches / "series"
    series.write_text(
        series.read_text().replace(
            "\nmetrics-same-host.patch\n", "\nminihttp-1.0-metrics-same-host.patch\n"
        )
    )
    tags = EXAMPLE_SPEC_TAGS.replace(
        "Patch5:         metrics-same-host.patch", f"Patch5: {VERSIONED}"
    )
    return minihttp_spec(tags)


def test_in_place_a_patch_name_that_follows_the_version_keeps_its_file(
    cli, example: Example
) -> None:
    """Under the new ``Version:`` the tag would name minihttp-1.1-metrics-same-host.patch,
    which is not there (rpmbuild stops at it): the port writes the file's name out and says
    how to rename it."""
    spec = _spec(example, _versioned_patch_name(example))
    data = port_to_the_end(cli, example, "--in-place")
    assert spec.read_text(encoding="utf-8") == SPEC.replace(
        "Version:        1.0\nRelease:        3%{?dist}",
        "Version:        1.1\nRelease:        1%{?dist}",
    ).replace(
        "Patch5:         metrics-same-host.patch",
        "Patch5: minihttp-1.0-metrics-same-host.patch",
    )
    assert (example.downstream / "patches" / "minihttp-1.0-metrics-same-host.patch").is_file()
    assert [item for item in data["todo"] if "spec" in item] == [
        f"python-minihttp.spec:13: the name {VERSIONED} follows Version: and would name "
        "minihttp-1.1-metrics-same-host.patch, which is not the patch; written out as "
        "minihttp-1.0-metrics-same-host.patch: to have it follow the version again, rename "
        "the file to minihttp-1.1-metrics-same-host.patch, its series line with it, and put "
        "the macro back"
    ]


def test_into_a_new_directory_the_written_out_patch_name_is_said(cli, example: Example) -> None:
    spec = _spec(example, _versioned_patch_name(example))
    data = port_to_the_end(cli, example)
    assert [item for item in data["todo"] if "spec" in item] == [
        f"in {spec}, write Version:        1.1; Release:        1%{{?dist}}; "
        "Patch5: minihttp-1.0-metrics-same-host.patch with the series ('patchkeeper port --to "
        f"{example.new} --in-place' does it)",
        f"python-minihttp.spec:13: the name {VERSIONED} follows Version: and would name "
        "minihttp-1.1-metrics-same-host.patch, which is not the patch; written out as "
        "minihttp-1.0-metrics-same-host.patch: to have it follow the version again, rename "
        "the file to minihttp-1.1-metrics-same-host.patch, its series line with it, and put "
        "the macro back",
    ]
