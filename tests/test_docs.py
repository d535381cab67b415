"""The README and the manual: the README stays short, every relative link in them resolves, and
every page of ``docs/`` is in the site's navigation and builds with ``mkdocs build --strict``.

Links are checked as a reader of the repository follows them: a relative link names a file or
directory that exists, relative to the page, and a ``#anchor`` into a Markdown page names one of
its headings, slugged as MkDocs slugs them (lower case, punctuation dropped, spaces as ``-``).
Links to other sites are not fetched.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

from helpers import REPO

#: The README holds what it is, the set-up commands, a quick tour and links; the rest is the manual.
README_MAX_LINES = 150

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def prose(text: str) -> str:
    """``text`` without fenced code blocks and code spans (links in code are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor MkDocs (Python-Markdown's ``toc``) gives a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """The heading anchors of a Markdown page."""
    return {slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))}


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` that does not resolve, as ``target: why``."""
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # another site (https:, mailto:), not fetched
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with this anchor")
    return broken


def manual_pages() -> list[Path]:
    """The README, the benchmarks' README and every page of the manual."""
    return [
        REPO / "README.md",
        REPO / "benchmarks" / "README.md",
        *sorted((REPO / "docs").rglob("*.md")),
    ]


def nav_pages(nav: list[object]) -> set[str]:
    """Every page path the ``nav:`` of ``mkdocs.yml`` lists, at any depth."""
    pages: set[str] = set()
    for item in nav:
        if isinstance(item, str):
            pages.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                pages |= nav_pages(value) if isinstance(value, list) else {value}
    return pages


def test_the_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES


@pytest.mark.parametrize("page", manual_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## The `port` command: step 2\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "[fine](other.md#the-port-command-step-2) [here](#page) [web](https://example.org/x)\n"
        "[gone](missing.md) [bad anchor](other.md#nowhere) `[code](nothing.md)`\n\n"
        "```\n[in a block](nothing.md)\n```\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading with this anchor",
    ]


def test_every_page_of_the_manual_is_in_the_navigation() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert nav_pages(config["nav"]) == pages


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict``: every page, link and anchor resolves (mkdocs.yml's
    ``validation`` makes an unknown anchor or a page left out of the navigation a warning,
    and ``strict`` makes a warning fail the build)."""
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert [line for line in run.stderr.splitlines() if line.startswith("WARNING")] == []
    assert (tmp_path / "site" / "commands" / "audit" / "index.html").is_file()


def test_getting_started_shows_the_readme_set_up_commands() -> None:
    """The manual's first page repeats the README's set-up block; the two never differ."""
    block = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)
    readme = block.search((REPO / "README.md").read_text(encoding="utf-8"))
    manual = block.search((REPO / "docs" / "getting-started.md").read_text(encoding="utf-8"))
    assert readme is not None and manual is not None
    assert manual.group(1) == readme.group(1)


def test_the_readme_states_cpythons_own_ctrl_c_exits_at_start_up(tmp_path: Path) -> None:
    """A SIGINT while CPython still loads ``site`` (here raised from a ``sitecustomize``
    module) ends it with exit 1 and a fatal error; one once it has started, with a traceback
    and 130 (killed by SIGINT): the README's sentence names both."""
    (tmp_path / "sitecustomize.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("PYTHONSAFEPATH", None)
    at_site = subprocess.run(
        [sys.executable, "-c", "pass"], env=env, capture_output=True, text=True, check=False
    )
    assert at_site.returncode == 1
    assert "Fatal Python error: init_import_site" in at_site.stderr
    started = subprocess.run(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGINT)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert started.returncode == -2
    assert started.stderr.splitlines()[-1] == "KeyboardInterrupt"
    readme = " ".join((REPO / "README.md").read_text().split())
    assert (
        "(before patchkeeper's code runs, CPython's own handling: a traceback and 130, or exit 1"
        ' and "Fatal Python error" while it loads `site`)'
    ) in readme
