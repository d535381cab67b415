"""Every marker, header name and regular expression patchkeeper matches, each with a sample,
and the command-line options that code besides their declaration names.

Kept in one place so that literals do not drift apart (the habit of unidiff's ``constants.py``).
"""

from __future__ import annotations

import enum
import re


class WordEnum(str, enum.Enum):
    """A set of words with one spelling each: a member is the string it stands for, and
    prints, compares, hashes and goes into JSON as that string (as Python 3.11's
    ``enum.StrEnum`` does; Python 3.10 is supported too).

    >>> class Colour(WordEnum):
    ...     DARK_RED = "dark red"
    >>> f"{Colour.DARK_RED}", Colour.DARK_RED == "dark red", Colour("dark red").name
    ('dark red', True, 'DARK_RED')
    """

    __str__ = str.__str__


class DecisionWord(WordEnum):
    """What to do next about a patch or a runtime entry, one word set for both audits and
    the decisions file: what ``audit`` suggests (its action: ``retire``, ``carry``, ``look``,
    or ``port``, the name of the command to run, :data:`patchkeeper.audit.verdicts.PORT`),
    what ``runtime audit`` suggests (``retain``, ``update``, ``migrate``, ``remove`` or
    ``look``), and the ``decision`` of the decisions file (a series patch takes any but
    ``look``; a runtime entry ``retain``, ``update``, ``migrate`` or ``remove``). ``look``
    leaves it to a person: the evidence does not decide. See docs/glossary.md.
    """

    CARRY = "carry"  # keep the series patch as it is (refreshed onto the new pin)
    RETIRE = "retire"  # take the patch out: upstream has it
    RETAIN = "retain"  # keep the change
    UPDATE = "update"  # keep it, changed for the new upstream
    MIGRATE = "migrate"  # move it to another mechanism or place
    REMOVE = "remove"  # drop the change
    LOOK = "look"  # the evidence does not decide: a person looks and decides


#: What ``decide`` puts before a decision it suggests, which nobody has reviewed yet; a
#: person deletes it to accept the suggestion (or writes another decision):
#: ``decision = "suggested: carry"``
SUGGESTED_PREFIX = "suggested: "


#: The series workflow's provenance line between a patch's preamble and its diff:
#: ``--- exported from 3f1c2a9d0b7e4c5f8a6b1d2e3f4a5b6c7d8e9f01``
EXPORTED_FROM = re.compile(rb"^--- exported from (?P<commit>[0-9a-fA-F]{7,64})\s*$")

#: A git diff header: ``diff --git a/vllm/envs.py b/vllm/envs.py``
DIFF_GIT = b"diff --git "

#: A git diff header that names its two files, a space between them (git's ``diff --git
#: a/X b/Y``): ``diff --git a/vllm/envs.py b/vllm/envs.py``, a name holding a space or
#: `` b/`` (``diff --git a/pkg/x b/y.py b/pkg/x b/y.py``, where only the split at which both
#: name the same file is git's), or quoted as git quotes a name with a byte it does not
#: print (``diff --git "a/caf\303\251.py" "b/caf\303\251.py"``). Where it splits is not read
#: from this pattern: :func:`patchkeeper.series.parse._git_names` splits it by git's rules.
DIFF_GIT_NAMES = re.compile(r"^diff --git [^\t\n]+ [^\t\n]+")

#: Any other diff command line: ``diff -Naur a/foo.py b/foo.py``
DIFF_OTHER = b"diff "

#: A Subversion/quilt style header: ``Index: src/urllib3/util/retry.py`` then ``=====``
INDEX_LINE = b"Index: "
INDEX_RULE = b"===="

#: File headers: ``--- a/src/urllib3/util/retry.py`` and ``+++ b/src/urllib3/util/retry.py``
OLD_FILE = b"--- "
NEW_FILE = b"+++ "

#: A file header read as text: the name up to a tab, then what follows the tab, a timestamp
#: as ``diff -u`` writes it (``--- a/retry.py\t2010-08-18 20:13:31.628002255 -0500``); a
#: name git quotes keeps its quotes (``+++ "b/caf\303\251.py"``); the name may be empty
#: (``--- `` from ``difflib.unified_diff`` without file names).
OLD_FILE_LINE = re.compile(r"^--- (?P<filename>[^\t\n]*)(?:\t(?P<timestamp>[^\n]+))?")
NEW_FILE_LINE = re.compile(r"^\+\+\+ (?P<filename>[^\t\n]*)(?:\t(?P<timestamp>[^\n]+))?")

#: A hunk header: ``@@ -235,7 +235,7 @@ class Retry(object):``
HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

#: The marker after a line that lacks its final newline: ``\ No newline at end of file``
NO_NEWLINE = b"\\ No newline at end of file"

#: The name for "no file" on either side of a diff.
DEV_NULL = "/dev/null"

#: git extended header lines (git's documentation, "diff --git" extended headers):
#: ``rename from vllm/old.py`` / ``rename to vllm/new.py``
RENAME_FROM = "rename from "
RENAME_TO = "rename to "
#: ``copy from a.py`` / ``copy to b.py``
COPY_FROM = "copy from "
#: ``old mode 100644`` / ``new mode 100755``
OLD_MODE = re.compile(r"^old mode ([0-7]{6})\s*$")
NEW_MODE = re.compile(r"^new mode ([0-7]{6})\s*$")
#: ``new file mode 100644`` / ``deleted file mode 100644``
NEW_FILE_MODE = re.compile(r"^new file mode ([0-7]{6})\s*$")
DELETED_FILE_MODE = re.compile(r"^deleted file mode ([0-7]{6})\s*$")
#: The start of every mode line, to refuse one whose mode is not six octal digits.
MODE_LINES = ("old mode ", "new mode ", "new file mode ", "deleted file mode ")
#: The file type of a git mode that patchkeeper writes: a regular file (``100644``,
#: ``100755``); symlinks (``120000``) and submodules (``160000``) are refused.
REGULAR_TYPE = "100"
#: ``index 4473a8e..8caad44 100644``
INDEX_MODE = re.compile(r"^index [0-9a-f]+\.\.[0-9a-f]+ ([0-7]{6})\s*$")

#: A gbp/git-format-patch signature that ends a patch: ``-- `` then ``2.39.2``; the line
#: ends in CRLF in a mail saved with CRLF line ends (GNU patch strips the CRs of such a patch).
SIGNATURE = (b"-- \n", b"-- \r\n")

#: Environment variable overriding the download cache (``~/.cache/patchkeeper-corpus``).
CACHE_ENV = "PATCHKEEPER_CACHE"

#: Environment variable choosing colour on standard output: ``always`` (even in a pipe),
#: ``never``, or ``auto`` (the default: on a terminal; ``always`` when ``FORCE_COLOR`` is set).
#: ``NO_COLOR`` (no-color.org), when set and not empty, turns colour off whatever this says.
COLOR_ENV = "PATCHKEEPER_COLOR"

#: Environment variable ``patchkeeper mcp`` sets (to ``1``) for the command a tool call runs:
#: the text that command writes for its reader to act on (a stopped port's
#: ``INSTRUCTIONS.md``) then names the server's tools, not command lines, since the agent
#: reading it has no terminal.
MCP_CALL_ENV = "PATCHKEEPER_MCP_CALL"

#: The record of an applied series inside an installed distribution's ``.dist-info``.
APPLIED_RECORD = "patchkeeper.json"

#: The directory holding the lock and the journal of a directory target.
STATE_DIR = ".patchkeeper"

#: The upgrade's state directory outside a git checkout, relative to the downstream root
#: (:mod:`patchkeeper.upgrade.state`); here so that ``verify`` knows it without importing
#: the upgrade.
UPGRADE_WORK_DIR = ".patchkeeper-upgrade"

#: A ``diff -u`` timestamp after a file name (GNU diffutils' default format):
#: ``--- a/x.py\t1970-01-01 00:00:00.000000000 +0000``. ``diff -N`` writes the epoch for a
#: file that does not exist, which GNU patch reads as "create" or "delete".
DIFF_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.\d+)?\s*([+-])(\d\d):?(\d\d)\s*$"
)

#: Build and test leftovers. ``/build/`` is anchored: ``build`` directories inside a package
#: (pip's ``operations/build/``) are upstream code. ``/.pc/`` is quilt's state (the original
#: of every file its applied patches touch, ``applied-patches``), left at the root of a tree
#: a Debian series was pushed on with ``quilt push`` or ``dpkg-source``; never upstream's.
DEFAULT_IGNORE: tuple[str, ...] = (
    "/build/",
    "/.pc/",
    "*.egg-info/",
    ".pybuild/",
    "__pycache__/",
    "*.pyc",
    ".pytest_cache/",
    ".tox/",
    ".nox/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".hypothesis/",
)

#: The command-line options that code besides their click declaration names, each spelt
#: once: a feature's message or hint names the option its value came from (``--to``), the
#: short path of a plain ``apply`` (:mod:`patchkeeper.__main__`) reads ``-C``, ``--config``,
#: ``--target`` and ``--python`` before click is loaded, the audit record reads options back
#: from a kept command line, and the MCP tools write the fixed options of the command lines
#: they run. The click declaration (:mod:`patchkeeper.commands.options`, or the command's
#: own module) declares the option with the same constant, so the two cannot drift apart;
#: an option nothing else names is spelt in its declaration alone
#: (``tests/test_options_once.py``).
OPTION_DIRECTORY = "-C"
OPTION_CONFIG = "--config"
OPTION_JSON = "--json"
OPTION_TARGET = "--target"
OPTION_PYTHON = "--python"
OPTION_PRISTINE = "--pristine"
OPTION_TO = "--to"
OPTION_FROM = "--from"
OPTION_AT = "--at"
#: ``audit --releases`` (a directory of releases, for a range ``--to``)
OPTION_RELEASES = "--releases"
#: ``init --upstream`` (a requirement), ``lint --upstream`` (a tree)
OPTION_UPSTREAM = "--upstream"
#: ``retire --why``, ``init --ledger``, ``runtime port --write``
OPTION_WHY = "--why"
OPTION_LEDGER = "--ledger"
OPTION_WRITE = "--write"
#: ``ledger --check``, ``report --check``; ``port``'s and ``upgrade``'s ``--continue`` and
#: ``--abort``
OPTION_CHECK = "--check"
OPTION_CONTINUE = "--continue"
OPTION_ABORT = "--abort"
#: the Markdown report's file, which a command's format error names too
OPTION_MARKDOWN = "--markdown"


#: The commands that read the patch series itself: in a downstream that carries runtime
#: patches and no series they have nothing to read. ``lint`` (the dependency files),
#: ``decide``, ``report`` and ``export`` (which writes a series) work there too.
SERIES_READERS = frozenset(
    {
        "apply",
        "unapply",
        "verify",
        "status",
        "audit",
        "port",
        "ledger",
        "retire",
        "import",
        "check-branch",
    }
)
