"""``port`` carries the whole configuration into ``patches-NEWPIN/patchkeeper.toml``."""

from __future__ import annotations

from daily_support import debian_downstream

from patchkeeper.config import load_config, tomllib
from patchkeeper.port.carried_config import carried_table, carried_text


def test_lint_and_the_ledger_check_work_in_the_ported_directory(cli, tmp_path):
    down = debian_downstream(tmp_path)
    assert cli("ledger", cwd=down).code == 0
    assert (
        cli(
            "port",
            "--to",
            "../upstream/minihttp-1.1",
            "--from",
            "../upstream/minihttp-1.0",
            cwd=down,
        ).code
        == 0
    )
    new = down / "debian" / "patches-1.1"

    lint = cli("-C", str(new), "lint")
    check = cli("-C", str(new), "ledger", "--check")

    assert (lint.code, lint.out) == (0, "no problems in 1 patch and 1 entry\n")
    assert (check.code, check.out) == (
        0,
        f"{down / 'debian' / 'PATCHES.md'}: the ledger is current (2 rows)\n",
    )
    assert tomllib.loads((new / "patchkeeper.toml").read_text()) == {
        "upstream": "minihttp",
        "pin": "1.1",
        "series": "series",
        "strip": 1,
        "directory": "minihttp",
        "fetch": "sdist",
        "pristine": "../../../upstream/minihttp-1.1",
        "headers": {"schema": "dep3"},
        "ledger": {"file": "../PATCHES.md"},
        "git": {"tag": "deb"},
        "entries": {
            "overlays": {
                "extra-files": {
                    "source": "../extra",
                    "fields": {
                        "Description": "extra files",
                        "Origin": "vendor",
                        "Forwarded": "not-needed",
                    },
                }
            }
        },
    }


PYPROJECT = """\
[project]
name = "downstream"

[tool.patchkeeper]
upstream = "vllm"
pin = "0.28.0"
series = "patches/series"
strip = 0
directory = "vllm"
fetch = "wheel"
lock-timeout = 2.5

[tool.patchkeeper.headers]
required = ["Kind", "What"]
kinds = ["fix", "own"]
placeholders = []

[tool.patchkeeper.lint]
knob-pattern = "VLLM_*"
registry = "envs.py"
knob-allow = ["VLLM_A", "VLLM_\\"quoted\\"\\u00e9"]
disable = ["PK201"]

[tool.patchkeeper.git]
checkout = "../vllm"
index-abbrev = 12

[tool.patchkeeper.port]
work-dir = "state/port"

[tool.patchkeeper.runtime]
package = "vllm_metax"
markers = ["Modification"]

[tool.patchkeeper.report]
evidence = false
python = ".venv/bin/python"
import-timeout = 60
untested = ["no multi-node run"]

[tool.patchkeeper.entries.vendored.kernels]
directory = "third_party/kernels"
pin-file = "third_party/kernels/PIN"
exclude = ["*.o"]
complete = true
fields = { Kind = "own", What = "kernels", Line = 3 }

[tool.patchkeeper.entries.foreign-diffs.plugin-fix]
diff = "foreign/fix.diff"
commit = "0123456789abcdef0123456789abcdef01234567"
checkout = "/srv/plugin"
"""


def test_every_section_round_trips_with_paths_rewritten(tmp_path):
    down = tmp_path / "down"
    down.mkdir()
    (down / "pyproject.toml").write_text(PYPROJECT)
    (down / "PATCHES.md").write_text("")
    config = load_config(start=down)
    out = down / "patches-0.32.0"

    table = carried_table(config, out, "0.32.0", None)
    text = carried_text(table, "ported")

    assert text.startswith("# ported\n")
    assert tomllib.loads(text) == {
        "upstream": "vllm",
        "pin": "0.32.0",
        "series": "series",
        "strip": 0,
        "directory": "vllm",
        "fetch": "wheel",
        "lock-timeout": 2.5,
        "headers": {"required": ["Kind", "What"], "kinds": ["fix", "own"], "placeholders": []},
        "lint": {
            "knob-pattern": "VLLM_*",
            "registry": "envs.py",
            "knob-allow": ["VLLM_A", 'VLLM_"quoted"é'],
            "disable": ["PK201"],
        },
        "git": {"checkout": "../../vllm", "index-abbrev": 12},
        "port": {"work-dir": "../state/port"},
        "runtime": {"package": "vllm_metax", "markers": ["Modification"], "root": ".."},
        "report": {
            "evidence": False,
            "python": "../.venv/bin/python",
            "import-timeout": 60,
            "untested": ["no multi-node run"],
        },
        "ledger": {"file": "../PATCHES.md"},
        "entries": {
            "vendored": {
                "kernels": {
                    "directory": "../third_party/kernels",
                    "pin-file": "../third_party/kernels/PIN",
                    "exclude": ["*.o"],
                    "complete": True,
                    "fields": {"Kind": "own", "What": "kernels", "Line": 3},
                }
            },
            "foreign-diffs": {
                "plugin-fix": {
                    "diff": "../foreign/fix.diff",
                    "commit": "0123456789abcdef0123456789abcdef01234567",
                    "checkout": "/srv/plugin",
                }
            },
        },
    }
    out.mkdir()
    (out / "patchkeeper.toml").write_text(text)
    carried = load_config(start=out)
    assert (carried.root, carried.series, carried.sections["git"]["checkout"]) == (
        out,
        out / "series",
        "../../vllm",
    )
    assert (out / carried.sections["git"]["checkout"]).resolve() == (tmp_path / "vllm")
