"""``import`` then ``export`` of a Debian/quilt-shaped series keeps every file's own form.

The series below is written by hand in the shapes real Debian series have (python-urllib3's
and python-django's): DEP-3 headers; quilt's ``Index:`` line, ``====`` rule and
``--- pkg.orig/x`` / ``+++ pkg/x`` names with timestamps; a plain ``--- a/x`` / ``+++ b/x``
patch after a mail header and a diffstat; a new file from ``/dev/null``; a ``gbp pq`` patch in
git's form with 7-digit ``index`` ids. Hunk headers carry the function text as ``diff -p``
writes it (40 bytes: ``class HTTPConnectionPoolWithRetries(Conn``), git's form 80.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from ledger_support import git, make_upstream

from patchkeeper.config import load_config
from patchkeeper.ledger import export, importer
from patchkeeper.main import main
from patchkeeper.upstream.gitops import hash_blob

CLIENT = textwrap.dedent(
    '''\
    """A small HTTP client."""

    import socket

    DEFAULT_TIMEOUT = 10


    class HTTPConnectionPoolWithRetries(ConnectionPoolBase):
        """A pool of connections to one host that retries."""

        def __init__(self, host, port=80, timeout=None):
            self.host = host
            self.port = port
            self.timeout = timeout
            self.retries = 3

        def urlopen(self, method, url, body=None):
            conn = self._new_conn()
            conn.request(method, url, body)
            return conn.getresponse()

        def _new_conn(self):
            return socket.create_connection((self.host, self.port), self.timeout)


    def make_pool(host):
        """The pool for ``host``."""
        pool = HTTPConnectionPoolWithRetries(host)
        return pool
    '''
)

UTIL = textwrap.dedent(
    '''\
    """Header parsing."""


    def parse_content_type_header_with_parameters(value):
        """Split ``text/html; charset=utf-8`` into the type and its parameters."""
        kind, _, rest = value.partition(";")
        params = {}
        for item in rest.split(";"):
            name, _, val = item.strip().partition("=")
            if name:
                params[name] = val
        return kind.strip(), params
    '''
)

CONNECTION = textwrap.dedent(
    """\
    class Connection:
        keep_alive = False

        def close(self):
            self.sock = None
    """
)

TIMEOUT = (
    b"Description: Use the default timeout when none is given\n"
    b" A pool made without a timeout waited forever.\n"
    b"Author: Tess Ter <tess@example.org>\n"
    b"Forwarded: https://github.com/example/minihttp/pull/12\n"
    b"Last-Update: 2024-03-01\n"
    b"\n"
    b"Index: minihttp-2.0/src/minihttp/client.py\n"
    b"===================================================================\n"
    b"--- minihttp-2.0.orig/src/minihttp/client.py\t2024-03-01 10:00:00.000000000 +0100\n"
    b"+++ minihttp-2.0/src/minihttp/client.py\t2024-03-01 10:05:00.000000000 +0100\n"
    b"@@ -11,7 +11,7 @@ class HTTPConnectionPoolWithRetries(Conn\n"
    b"     def __init__(self, host, port=80, timeout=None):\n"
    b"         self.host = host\n"
    b"         self.port = port\n"
    b"-        self.timeout = timeout\n"
    b"+        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout\n"
    b"         self.retries = 3\n"
    b" \n"
    b"     def urlopen(self, method, url, body=None):\n"
)

UPPER = (
    b"From: Jane Doe <jane@example.org>\n"
    b"Date: Thu, 8 Feb 2024 13:19:46 -0700\n"
    b"Subject: Accept upper-case parameter names\n"
    b"\n"
    b"Origin: upstream, https://github.com/example/minihttp/commit/"
    b"0123456789abcdef0123456789abcdef01234567\n"
    b"Bug-Debian: https://bugs.debian.org/1060001\n"
    b"---\n"
    b" src/minihttp/util.py | 2 +-\n"
    b" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    b"\n"
    b"--- a/src/minihttp/util.py\n"
    b"+++ b/src/minihttp/util.py\n"
    b"@@ -8,5 +8,5 @@ def parse_content_type_header_with_param\n"
    b'     for item in rest.split(";"):\n'
    b'         name, _, val = item.strip().partition("=")\n'
    b"         if name:\n"
    b"-            params[name] = val\n"
    b"+            params[name.lower()] = val\n"
    b"     return kind.strip(), params\n"
)

COMPAT = (
    b"Description: Add a compat module for older callers\n"
    b"Forwarded: not-needed\n"
    b"\n"
    b"Index: minihttp-2.0/src/minihttp/compat.py\n"
    b"===================================================================\n"
    b"--- /dev/null\n"
    b"+++ minihttp-2.0/src/minihttp/compat.py\t2024-03-02 09:00:00.000000000 +0100\n"
    b"@@ -0,0 +1,2 @@\n"
    b"+from minihttp.client import make_pool\n"
    b"+__all__ = ['make_pool']\n"
)


def _keep_alive() -> bytes:
    new = CONNECTION.replace("keep_alive = False", "keep_alive = True").encode()
    old_id, new_id = hash_blob(CONNECTION.encode())[:7], hash_blob(new)[:7]
    return (
        b"From: Tess Ter <tess@example.org>\n"
        b"Date: Fri, 1 Mar 2024 11:00:00 +0100\n"
        b"Subject: Keep connections alive\n"
        b"\n"
        b"Gbp-Pq: Name 0004-keep-alive.patch\n"
        b"---\n"
        b" src/minihttp/connection.py | 2 +-\n"
        b" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
        b"\n"
        b"diff --git a/src/minihttp/connection.py b/src/minihttp/connection.py\n"
        b"index " + old_id.encode() + b".." + new_id.encode() + b" 100644\n"
        b"--- a/src/minihttp/connection.py\n"
        b"+++ b/src/minihttp/connection.py\n"
        b"@@ -1,5 +1,5 @@\n"
        b" class Connection:\n"
        b"-    keep_alive = False\n"
        b"+    keep_alive = True\n"
        b" \n"
        b"     def close(self):\n"
        b"         self.sock = None\n"
    )


SERIES = (
    b"# Debian patches of minihttp\n"
    b"0001-default-timeout.patch\n"
    b"0002-upper-case-parameters.patch\n"
    b"#0005-python2-compat.patch\n"  # commented out, as numpy's #python3.11.patch
    b"0003-add-compat-module.diff\n"
    b"0004-keep-alive.patch\n"
)


@pytest.fixture
def debian(tmp_path: Path) -> Path:
    """A downstream carrying a Debian-shaped series, and its upstream checkout tagged v2.0."""
    upstream = make_upstream(
        tmp_path / "minihttp",
        {
            "src/minihttp/__init__.py": "",
            "src/minihttp/client.py": CLIENT,
            "src/minihttp/util.py": UTIL,
            "src/minihttp/connection.py": CONNECTION,
            "README.rst": "minihttp\n",
        },
        tag="v2.0",
    )
    root = tmp_path / "down"
    patches = root / "debian" / "patches"
    patches.mkdir(parents=True)
    for name, data in {
        "series": SERIES,
        "0001-default-timeout.patch": TIMEOUT,
        "0002-upper-case-parameters.patch": UPPER,
        "0003-add-compat-module.diff": COMPAT,
        "0004-keep-alive.patch": _keep_alive(),
    }.items():
        (patches / name).write_bytes(data)
    (root / "patchkeeper.toml").write_text(
        'upstream = "minihttp"\npin = "2.0"\nseries = "debian/patches/series"\n\n'
        '[headers]\nschema = "dep3"\n\n'
        f'[git]\ntag = "debian"\ncheckout = "{upstream}"\n'
    )
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "debian" / "patches").iterdir())}


def _upstream(root: Path) -> Path:
    return root.parent / "minihttp"


def test_import_then_export_gives_back_every_file(debian: Path, capsys) -> None:
    before = _files(debian)
    assert main(["-C", str(debian), "import"]) == 0
    capsys.readouterr()
    assert main(["-C", str(debian), "export", "--range", "v2.0..patchkeeper/2.0"]) == 0
    out = capsys.readouterr().out
    assert _files(debian) == before
    assert out.count("unchanged debian/patches/") == 5  # four and the series
    assert "wrote " not in out  # before: "wrote debian/patches/series" for the same bytes
    assert "unchanged debian/patches/series (4 entries)\n" in out
    # One commit alone, too.
    assert main(["-C", str(debian), "export", "patchkeeper/2.0~3"]) == 0
    assert capsys.readouterr().out.startswith("unchanged debian/patches/0001-default-timeout.patch")
    assert _files(debian) == before


def _rewrite_first_commit(upstream: Path) -> None:
    """Change the first topic commit as a user would (``git commit --amend`` with git's
    default message clean-up), and put the other three back on it."""
    git(upstream, "checkout", "-q", "-b", "edited", "patchkeeper/2.0~3")
    client = upstream / "src" / "minihttp" / "client.py"
    client.write_text(
        client.read_text().replace(
            "pool = HTTPConnectionPoolWithRetries(host)\n",
            "pool = HTTPConnectionPoolWithRetries(host, timeout=DEFAULT_TIMEOUT)\n",
        )
    )
    util = upstream / "src" / "minihttp" / "util.py"
    util.write_text(util.read_text().replace('"""Header parsing."""', '"""Parsing headers."""'))
    git(upstream, "commit", "-q", "-a", "--amend", "--no-edit")
    git(upstream, "cherry-pick", "patchkeeper/2.0~2", "patchkeeper/2.0~1", "patchkeeper/2.0")


def test_a_changed_commit_rewrites_only_its_file_in_its_own_form(debian: Path) -> None:
    before = _files(debian)
    config = load_config(debian / "patchkeeper.toml")
    importer.import_series(config)
    upstream = _upstream(debian)
    _rewrite_first_commit(upstream)
    result = export.export_range(config, "v2.0..edited")
    assert [p.changed for p in result.patches] == [True, False, False, False]
    after = _files(debian)
    assert {name: data for name, data in after.items() if data != before[name]} == {
        "0001-default-timeout.patch": TIMEOUT
        + (
            b"@@ -25,5 +25,5 @@ class HTTPConnectionPoolWithRetries(Conn\n"
            b" \n"
            b" def make_pool(host):\n"
            b'     """The pool for ``host``."""\n'
            b"-    pool = HTTPConnectionPoolWithRetries(host)\n"
            b"+    pool = HTTPConnectionPoolWithRetries(host, timeout=DEFAULT_TIMEOUT)\n"
            b"     return pool\n"
            b"Index: minihttp-2.0/src/minihttp/util.py\n"
            b"===================================================================\n"
            b"--- minihttp-2.0.orig/src/minihttp/util.py\n"
            b"+++ minihttp-2.0/src/minihttp/util.py\n"
            b"@@ -1,4 +1,4 @@\n"
            b'-"""Header parsing."""\n'
            b'+"""Parsing headers."""\n'
            b" \n"
            b" \n"
            b" def parse_content_type_header_with_parameters(value):\n"
        )
    }


def test_a_changed_git_form_patch_keeps_its_abbreviation_and_git_text(debian: Path) -> None:
    config = load_config(debian / "patchkeeper.toml")
    importer.import_series(config)
    upstream = _upstream(debian)
    git(upstream, "checkout", "-q", "patchkeeper/2.0")
    connection = upstream / "src" / "minihttp" / "connection.py"
    changed = CONNECTION.replace("keep_alive = False", "keep_alive = True").replace(
        "self.sock = None", "self.sock = self.pool = None"
    )
    connection.write_text(changed)
    git(upstream, "commit", "-q", "-a", "--amend", "--no-edit")
    export.export_range(config, "v2.0..HEAD")
    old_id, new_id = hash_blob(CONNECTION.encode())[:7], hash_blob(changed.encode())[:7]
    head, _, _ = _keep_alive().partition(b"diff --git")
    assert (debian / "debian" / "patches" / "0004-keep-alive.patch").read_bytes() == head + (
        b"diff --git a/src/minihttp/connection.py b/src/minihttp/connection.py\n"
        b"index " + old_id.encode() + b".." + new_id.encode() + b" 100644\n"
        b"--- a/src/minihttp/connection.py\n"
        b"+++ b/src/minihttp/connection.py\n"
        b"@@ -1,5 +1,5 @@\n"
        b" class Connection:\n"
        b"-    keep_alive = False\n"
        b"+    keep_alive = True\n"
        b" \n"
        b"     def close(self):\n"
        b"-        self.sock = None\n"
        b"+        self.sock = self.pool = None\n"
    )


def test_normalise_writes_git_form(debian: Path, capsys) -> None:
    importer.import_series(load_config(debian / "patchkeeper.toml"))
    upstream = _upstream(debian)
    first = git(upstream, "rev-parse", "patchkeeper/2.0~3")
    code = main(["-C", str(debian), "export", "--range", "v2.0..patchkeeper/2.0", "--normalise"])
    assert code == 0
    out = capsys.readouterr().out
    assert out.count("wrote debian/patches/") == 4  # every patch; the series keeps its bytes
    assert out.endswith("unchanged debian/patches/series (4 entries)\n")
    old_id, new_id = (
        hash_blob(CLIENT.encode()),
        hash_blob(
            CLIENT.replace(
                "self.timeout = timeout",
                "self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout",
            ).encode()
        ),
    )
    description, _, _ = TIMEOUT.partition(b"Index: ")
    assert (debian / "debian" / "patches" / "0001-default-timeout.patch").read_bytes() == (
        description + b"--- exported from " + first.encode() + b"\n"
        b"diff --git a/src/minihttp/client.py b/src/minihttp/client.py\n"
        b"index " + old_id.encode() + b".." + new_id.encode() + b" 100644\n"
        b"--- a/src/minihttp/client.py\n"
        b"+++ b/src/minihttp/client.py\n"
        b"@@ -11,7 +11,7 @@ class HTTPConnectionPoolWithRetries(ConnectionPoolBase):\n"
        b"     def __init__(self, host, port=80, timeout=None):\n"
        b"         self.host = host\n"
        b"         self.port = port\n"
        b"-        self.timeout = timeout\n"
        b"+        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout\n"
        b"         self.retries = 3\n"
        b" \n"
        b"     def urlopen(self, method, url, body=None):\n"
    )
    # Written in git's form once, the file keeps that form: a second export changes nothing.
    normalised = _files(debian)
    assert main(["-C", str(debian), "export", "--range", "v2.0..patchkeeper/2.0"]) == 0
    assert _files(debian) == normalised


#: A patch as ``git show`` writes it (Debian's python-asyncssh carries one): the preamble is
#: git's log header with the message indented, and a name in it is Latin-1, not UTF-8.
LATIN1 = (
    b"commit 0123456789abcdef0123456789abcdef01234567\n"
    b"Author: Tess Ter <tess@example.org>\n"
    b"Date:   Mon Dec 18 07:41:57 2023 -0800\n"
    b"\n"
    b"    Harden the README against injected lines\n"
    b"    \n"
    b"    Thanks go to J\xf6rg and Fabian B\xe4umer for reporting it.\n"
    b"\n"
    b"Index: b/README.rst\n"
    b"===================================================================\n"
    b"--- a/README.rst\n"
    b"+++ b/README.rst\n"
    b"@@ -1 +1,2 @@\n"
    b" minihttp\n"
    b"+hardened\n"
)


def test_a_latin1_description_comes_back_byte_for_byte(debian: Path, capsys) -> None:
    patches = debian / "debian" / "patches"
    (patches / "0005-latin1.patch").write_bytes(LATIN1)
    (patches / "series").write_bytes(SERIES + b"0005-latin1.patch\n")
    before = _files(debian)
    assert main(["-C", str(debian), "import"]) == 0
    capsys.readouterr()
    assert main(["-C", str(debian), "export", "--range", "v2.0..patchkeeper/2.0"]) == 0
    out = capsys.readouterr().out
    assert "unchanged debian/patches/0005-latin1.patch" in out
    assert _files(debian) == before
    # git shows the commit in UTF-8: the message is declared Latin-1, not rewritten.
    shown = git(_upstream(debian), "log", "-1", "--format=%b", "patchkeeper/2.0")
    assert "Thanks go to J\u00f6rg and Fabian B\u00e4umer for reporting it." in shown
