"""Every Python file a runtime command parses goes through :func:`parse_file`.

One entry point for :func:`ast.parse` of a file (a plugin file, an upstream module, a
``setup.py``) makes the parse work of a run observable: with :data:`PARSE_LOG_ENV` set to a
file path, each call appends the absolute path of the file it parses to that file, one per
line, from the parent and from every worker process alike (each line is one ``write`` to a
file opened for appending, which POSIX keeps whole when several processes append). A
benchmark reads that list to time :func:`ast.parse` of exactly the files a run parses, the
floor the run is compared with; a file parsed twice in a run appears twice. Parses of
fragments (a definition's span, a condition's text, the parts an upstream module summarized
already is read in: :func:`patchkeeper.runtime.judge.hooks.module_parts`) are not files and
are not listed.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from pathlib import Path

#: Environment variable: a file to which every :func:`parse_file` appends the path it parses.
PARSE_LOG_ENV = "PATCHKEEPER_PARSE_LOG"


#: What to do about a patch file that is not UTF-8 and declares no encoding (Python refuses
#: to import it).
NOT_UTF8_FIX = (
    "save it as UTF-8, or declare its encoding on its first line (# -*- coding: latin-1 -*-)"
)


def undecodable(source: bytes) -> str:
    """The scan's error for ``source``, the bytes of a Python file, when it is not UTF-8 and
    declares no other encoding (a ``coding:`` line or a BOM), as Python refuses to import
    it: ``"not UTF-8 (byte 0xe9) and no coding line: ... (line 3)"`` at the first byte
    that does not decode; ``""`` for a file Python reads. The parser accepts such a byte in
    a comment, so the file would otherwise be read as if it imported.

    >>> error = undecodable(b"x = 1\\n# Caf\\xe9\\n")
    >>> error.split(": ")[0], error[-8:]
    ('not UTF-8 (byte 0xe9) and no coding line', '(line 2)')
    >>> undecodable(b"# -*- coding: latin-1 -*-\\n# Caf\\xe9\\n")
    ''
    """
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        except SyntaxError:  # an undecodable first line, or a coding line Python rejects
            encoding = "utf-8"
        if encoding not in ("utf-8", "utf-8-sig"):
            return ""
        line = source.count(b"\n", 0, exc.start) + 1
        byte = source[exc.start]
        return f"not UTF-8 (byte 0x{byte:02x}) and no coding line: {NOT_UTF8_FIX} (line {line})"
    return ""


def parse_file(
    source: bytes | str, path: str | os.PathLike[str], filename: str = "<unknown>"
) -> ast.Module:
    """``ast.parse(source, filename)`` of ``source``, the text of the file at ``path``
    (recorded in :data:`PARSE_LOG_ENV`'s file when it is set, made absolute).

    Raises:
        SyntaxError: ``source`` is not valid Python; ValueError: it holds a NUL byte
            (before Python 3.12), as :func:`ast.parse` raises them.
    """
    log = os.environ.get(PARSE_LOG_ENV)
    if log:
        record_parse(log, path)
    return ast.parse(source, filename=filename)


def read_and_parse(path: Path) -> tuple[bytes, ast.Module] | None:
    """The bytes of the Python file at ``path`` and their parse (:func:`parse_file`, of the
    bytes: the parser reads a ``coding:`` line as Python does, so a Latin-1 module with its
    declaration reads as it imports); ``None`` for a file that cannot be read or is not
    valid Python (not UTF-8 without a declaration, a syntax error, a NUL byte), for the
    callers to whom such a file decides nothing. Raises nothing."""
    try:
        data = path.read_bytes()
        return data, parse_file(data, path, filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def parse_path(path: Path) -> ast.Module | None:
    """The parse of the Python file at ``path`` (:func:`read_and_parse`), or ``None``."""
    read = read_and_parse(path)
    return None if read is None else read[1]


#: The plugin files this process has parsed and keeps, by absolute path
#: (:func:`plugin_file_tree`): the patch files the inventory scanned here, and the files
#: the audit's checks parse, each parsed once for all of them.
_PLUGIN_TREES: dict[str, ast.Module | None] = {}


def keep_plugin_tree(path: str | os.PathLike[str], tree: ast.Module) -> None:
    """Keep ``tree``, the parse of the plugin file at ``path`` (its bytes as scanned), for
    :func:`plugin_file_tree`: a file the inventory scans in this process is not parsed
    again by the audit's checks."""
    _PLUGIN_TREES[os.path.abspath(path)] = tree


def plugin_file_tree(path: Path) -> ast.Module | None:
    """The parse of the plugin file at ``path`` (:func:`parse_path`), kept once made (or
    kept by :func:`keep_plugin_tree`) until :func:`forget_plugin_trees`: ``None`` when it
    cannot be read or parsed. The trees are read, never changed."""
    key = os.path.abspath(path)
    if key not in _PLUGIN_TREES:
        _PLUGIN_TREES[key] = parse_path(path)
    return _PLUGIN_TREES[key]


def plugin_tree_kept(path: Path) -> bool:
    """Whether the parse of the plugin file at ``path`` is kept (:func:`plugin_file_tree`
    reads it without parsing)."""
    return os.path.abspath(path) in _PLUGIN_TREES


def forget_plugin_trees() -> None:
    """Let the kept plugin trees go (:func:`plugin_file_tree`): a whole module's tree is
    tens of times its source, and once the facts are read from them, forked workers need
    not inherit them."""
    _PLUGIN_TREES.clear()


class ParsedFiles(dict[str, "ast.Module | None"]):
    """The Python files under ``root`` (a plugin's root), each parsed the first time
    ``parsed[file]`` asks for it (``file`` relative to ``root``, as
    :attr:`~patchkeeper.runtime.model.PatchEntry.file` and
    :attr:`~patchkeeper.runtime.model.Condition.file` give it) and kept
    (:func:`plugin_file_tree`): checks that read the same plugin files share one parse of
    each. ``None`` for a file that cannot be read or parsed (invalid Python, a NUL byte),
    so that it decides nothing; nothing is raised.
    """

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __missing__(self, file: str) -> ast.Module | None:
        module = plugin_file_tree(self.root / file)
        self[file] = module
        return module


def record_parse(log: str, path: str | os.PathLike[str]) -> None:
    """Append ``path`` (absolute) and a newline to the file ``log`` in one ``write``; a
    log that cannot be written is left alone (a debugging aid never stops a command)."""
    line = os.path.abspath(os.fspath(path)) + "\n"
    try:
        handle = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError:
        return
    try:
        os.write(handle, line.encode("utf-8", "surrogateescape"))
    except OSError:
        pass
    finally:
        os.close(handle)


def read_parse_log(log: str | os.PathLike[str]) -> list[str]:
    """The paths a :data:`PARSE_LOG_ENV` file lists, each once, in the order first parsed.

    Raises:
        OSError: the log cannot be read.
    """
    with open(log, encoding="utf-8", errors="surrogateescape") as handle:
        return list(dict.fromkeys(line.rstrip("\n") for line in handle if line.strip()))
