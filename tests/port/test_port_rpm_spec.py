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

from test_port_example import port_to_the_end

from helpers import Example, minihttp_spec

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
        "(port --in-place does it)"
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
