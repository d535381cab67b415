"""``-C`` given more than once reads each relative directory from the one before, as ``git
-C`` does (the README says "as `git -C` does"): ``patchkeeper -C examples -C downstream
lint`` runs in ``examples/downstream``, before the command or after it, or split around it.
The second ``-C`` was read from the starting directory, and the run stopped with
``downstream: No such file or directory``; a directory that is missing is named by the path
the ``-C`` values lead to. The example is copied by the test."""

from __future__ import annotations

from helpers import Example


def test_a_second_directory_is_read_from_the_first(cli, example: Example) -> None:
    for args in (
        ("-C", "examples", "-C", "downstream", "lint"),
        ("-C", "examples", "lint", "-C", "downstream"),
        ("lint", "-C", "examples", "-C", "downstream"),
        ("-C", "examples/upstream", "-C", "../downstream", "lint"),
        ("-C", "/", "-C", str(example.downstream), "lint"),
    ):
        run = cli(*args, cwd=example.root.parent)
        assert (run.code, run.out, run.err) == (0, "no problems in 7 patches\n", ""), args


def test_a_second_directory_missing_from_the_first_is_named(cli, example: Example) -> None:
    run = cli("-C", "examples", "-C", "upstream/downstream", "lint", cwd=example.root.parent)
    assert (run.code, run.out, run.err.splitlines()[-1]) == (
        2,
        "",
        "Error: Invalid value for -C: examples/upstream/downstream: No such file or directory",
    )


def test_a_missing_directory_is_named_as_resolved(cli, example: Example) -> None:
    """The error named the last ``-C`` alone (``nope``), which does not say where it was looked
    for; it names the path the ``-C`` values lead to from the starting directory, an absolute
    one as given."""
    expected = {
        ("-C", "examples", "-C", "nope", "lint"): "examples/nope",
        ("-C", "examples", "lint", "-C", "nope"): "examples/nope",
        ("lint", "-C", "examples", "-C", "nope"): "examples/nope",
        ("-C", "./examples", "-C", "../nope", "lint"): "examples/../nope",
        ("-C", "examples", "-C", "/nonexistent/nope", "lint"): "/nonexistent/nope",
        ("-C", "nope", "lint"): "nope",
    }
    for args, named in expected.items():
        run = cli(*args, cwd=example.root.parent)
        assert (run.code, run.out, run.err.splitlines()[-1]) == (
            2,
            "",
            f"Error: Invalid value for -C: {named}: No such file or directory",
        ), args
