"""The advice of a ``dropped-but-present`` finding (a patch decided retire, still in the
series) gives ``retire`` the release the project's records hold: the pin when the evidence
judged the series against it, the judged release when the pin has not moved to it yet, and
asks for ``--at`` only when neither is recorded, naming the file the pin goes in. It asked
for ``--at VERSION`` whatever the records held."""

from __future__ import annotations

import json

from helpers import Example, resolve

PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'
API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)
RETIRE = """[series."metrics-same-host.patch"]
decision = "retire"
reason = "upstream counts redirects to the same host now"
removal-condition = ""
notes = ""
"""


def _dropped(cli, down) -> list[str]:
    run = cli("report", "--check", "--json", cwd=down)
    return [
        f["hint"] for f in json.loads(run.out)["findings"] if f["code"] == "dropped-but-present"
    ]


def test_after_the_upgrade_the_pin_is_the_release(cli, example: Example) -> None:
    down = example.downstream
    assert cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down).code == 1
    files = down / ".patchkeeper-port" / "conflict" / "files"
    resolve(files / "retry.py", PROXY)
    assert cli("upgrade", "--continue", cwd=down).code == 1
    resolve(files / "retry.py", API_KEY)
    assert cli("upgrade", "--continue", cwd=down).code == 0
    decisions = down / "patchkeeper-decisions.toml"
    text = decisions.read_text()
    start = text.index('[series."metrics-same-host.patch"]')
    decisions.write_text(text[:start] + RETIRE + text[text.index("\n\n", start) :])
    assert _dropped(cli, down) == [
        "run patchkeeper retire metrics-same-host.patch --why TEXT (it records the pin, 1.1, "
        "from patchkeeper.toml, as the release the patch retired at), or decide to keep it"
    ]


def test_before_the_port_the_judged_release_is_given(cli, example: Example) -> None:
    down = example.downstream
    assert cli("audit", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=down).code == 1
    assert cli("decide", cwd=down).code == 0
    assert _dropped(cli, down) == [
        "run patchkeeper retire retry-backoff-cap.patch --at 1.1 --why TEXT (1.1: the release "
        "the evidence judged the series against; the pin in patchkeeper.toml is 1.0), or "
        "decide to keep it"
    ]


def test_with_no_pin_recorded_it_asks_for_the_release(cli, example: Example) -> None:
    down = example.downstream
    config = down / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "1.0"\n', ""))
    (down / "patchkeeper-decisions.toml").write_text(RETIRE)
    assert _dropped(cli, down) == [
        "run patchkeeper retire metrics-same-host.patch --at VERSION --why TEXT, VERSION the "
        'upstream release that carries it (no pin is recorded: set pin = "VERSION" in '
        "patchkeeper.toml and retire takes it), or decide to keep it"
    ]
