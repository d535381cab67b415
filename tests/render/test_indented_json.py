"""The indented JSON writer gives the standard library's text, byte for byte."""

from __future__ import annotations

import json

import pytest

from patchkeeper.jsonable import indented_json, json_text

VALUES = [
    {},
    [],
    {"a": [1, 2.5, None, True, False], "b": {}, "c": [], "d": [[], [{}]]},
    {'é\udce9\n"\\': "\x00\u2028\t", "": (1, (2, ())), "n": -0.0},
    {"floats": [float("nan"), float("inf"), float("-inf"), 1e300, 0.1]},
    ["top", {"deep": {"deeper": {"deepest": [1, [2, [3]]]}}}],
    "a string alone",
    17,
    None,
]


@pytest.mark.parametrize("indent", [0, 1, 2, 4])
@pytest.mark.parametrize("value", VALUES)
def test_indented_json_is_the_standard_librarys_text(value, indent: int) -> None:
    assert indented_json(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)


def test_a_value_it_does_not_know_falls_back_to_the_standard_library() -> None:
    """A non-string key or another type: :func:`json_text` gives what ``json.dumps``
    gives (keys converted), or its error."""
    with pytest.raises(TypeError):
        indented_json({1: "one"}, 2)
    assert json_text({1: "one", None: 2}) == '{\n  "1": "one",\n  "null": 2\n}'
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text({"set": {1}})
