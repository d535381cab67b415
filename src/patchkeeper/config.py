"""Configuration: ``[tool.patchkeeper]`` in ``pyproject.toml``, or ``patchkeeper.toml``.

A sample ``patchkeeper.toml`` (the same keys go under ``[tool.patchkeeper]``)::

    upstream = "vllm"          # the upstream distribution name
    pin = "0.27.1"             # the version the series is cut against
    series = "patches/series"  # default
    strip = 1                  # default: -p1
    directory = "vllm"         # patch paths are relative to this directory inside the upstream
                               # tree (site-packages/vllm for a wheel, the sdist root + vllm/)
    fetch = "sdist"            # what a requirement target downloads: "sdist" or "wheel"
    pristine = "../vllm-0.27.1"  # the pristine tree for directory targets: a directory (relative
                               # to this file) or a requirement; default: upstream==pin
    ignore = ["/build/", "*.egg-info/", ".pytest_cache/"]  # build and test leftovers verify
                               # does not compare (gitignore-style globs, relative to
                               # 'directory'); default: patchkeeper.constants.DEFAULT_IGNORE

Every key is checked: an unknown key, a value of the wrong type, a value outside its allowed
set (:class:`OneOf`) or range (:class:`Bounds`) is a :class:`ConfigError` naming the key, the
file and what is allowed. Feature sections (``[tool.patchkeeper.ledger]`` and so on) are
declared in :data:`SCHEMA` too, so the same check covers them when the configuration is
loaded, whatever the command (the user-test report, bug 18: ``[headers] schema = "dep4"``
passed ``apply`` and ``verify`` silently).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from patchkeeper.constants import DEFAULT_IGNORE, SERIES_READERS
from patchkeeper.errors import ConfigError, PatchkeeperError
from patchkeeper.system.regular import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CONFIG_FILE = "patchkeeper.toml"
PYPROJECT = "pyproject.toml"


@dataclass(frozen=True)
class OneOf:
    """A rule: the value (each item of a list value) is one of ``values``.

    Attributes:
        values: the allowed values, in the order the error message lists them.
        hint: what to tell the user, when more than the list helps.
    """

    values: tuple[str, ...]
    hint: str | None = None

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (a message tail), or ``None`` when it is allowed.

        >>> print(OneOf(("ledger", "dep3")).problem("dep4"))
        must be "ledger" or "dep3", not 'dep4'
        >>> print(OneOf(("a", "b", "c")).problem(["a", "x"]))
        may only list "a", "b" or "c", not 'x'
        """
        allowed = _listed(self.values)
        if isinstance(value, list):
            bad = next((item for item in value if item not in self.values), None)
            return None if bad is None else f"may only list {allowed}, not {bad!r}"
        return None if value in self.values else f"must be {allowed}, not {value!r}"


@dataclass(frozen=True)
class Bounds:
    """A rule: a number at least ``minimum`` (more than it, when ``exclusive``) and at most
    ``maximum``.

    Attributes:
        minimum, maximum: the limits (``None``: none).
        exclusive: the minimum itself is not allowed (a timeout of 0 s).
        unit: the unit named in the message (``"seconds"``).
        hint: what to tell the user.
    """

    minimum: float | None = None
    maximum: float | None = None
    exclusive: bool = False
    unit: str = ""
    hint: str | None = None

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (a message tail), or ``None`` when it is allowed.

        >>> Bounds(0, unit="seconds").problem(-5)
        'must be 0 seconds or more, not -5'
        >>> Bounds(0, exclusive=True).problem(0), Bounds(7, 40).problem(3)
        ('must be more than 0, not 0', 'must be between 7 and 40, not 3')
        >>> Bounds(0, unit="seconds").problem(float("nan"))
        'must be a finite number of seconds, not nan'

        TOML writes ``nan`` and ``inf``: neither is a count or a time limit (``nan`` passes
        every comparison, and a timeout of either failed inside the command).
        """
        unit = f" {self.unit}" if self.unit else ""
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a finite number{' of' if unit else ''}{unit}, not {value!r}"
        low, high = self.minimum, self.maximum
        too_low = low is not None and (value <= low if self.exclusive else value < low)
        if not too_low and (high is None or value <= high):
            return None
        if low is not None and high is not None:
            wanted = f"between {low:g} and {high:g}{unit}"
        elif low is not None:
            wanted = f"more than {low:g}{unit}" if self.exclusive else f"{low:g}{unit} or more"
        else:
            wanted = f"{high:g}{unit} or less"
        return f"must be {wanted}, not {value!r}"


@dataclass(frozen=True)
class NotEmpty:
    """A rule: a string that is not empty (nor only spaces): ``upstream = ""`` names no
    project, ``pin = ""`` no version.

    Attributes:
        hint: what to tell the user.
    """

    hint: str | None = None

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (a message tail), or ``None`` when it is allowed.

        >>> NotEmpty().problem(" "), NotEmpty().problem("vllm")
        ('must not be empty', None)
        """
        return "must not be empty" if not value.strip() else None


@dataclass(frozen=True)
class NotBlank(NotEmpty):
    """A rule: a string that may be empty (a meaning of its own: ``directory = ""`` is the
    tree's root) but not only spaces, which name no directory anyone meant.

    >>> NotBlank().problem(""), NotBlank().problem(" "), NotBlank().problem("vllm")
    (None, 'must not be only spaces', None)
    """

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (a message tail), or ``None`` when it is allowed."""
        return "must not be only spaces" if value and not value.strip() else None


@dataclass(frozen=True)
class PinVersion(NotEmpty):
    """A rule: a version as PEP 440 writes it (``0.27.1``, ``2.0.0rc1``), the pin every
    command turns into the requirement ``upstream==pin`` and compares releases with; a typo
    (``1.O``) would otherwise surface later as a fetch error naming no line.

    Attributes:
        hint: what to tell the user.
    """

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (a message tail), or ``None`` when it is allowed.

        >>> print(PinVersion().problem("1.O"))
        must be a version (PEP 440, e.g. "0.27.1"), not '1.O'
        >>> PinVersion().problem("2.0.0rc1"), PinVersion().problem("")
        (None, 'must not be empty')
        """
        empty = super().problem(value)
        if empty is not None:
            return empty
        try:
            Version(value)
        except InvalidVersion:
            return f'must be a version (PEP 440, e.g. "0.27.1"), not {value!r}'
        return None


def _listed(values: tuple[str, ...]) -> str:
    quoted = [f'"{value}"' for value in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


#: key -> (expected type(s), default) or (type(s), default, rule): a rule (:class:`OneOf`,
#: :class:`Bounds`) limits the values a key may take. A nested dict is a sub-table with its own
#: schema. Types: str, int, float, bool, list (of str), dict (free-form table).
SCHEMA: dict[str, Any] = {
    "upstream": (
        str,
        None,
        NotEmpty('the upstream distribution name, as pip knows it: upstream = "vllm"'),
    ),
    "pin": (str, None, PinVersion('the version the series is cut against: pin = "0.27.1"')),
    "series": (str, "patches/series", NotEmpty('the series file: series = "patches/series"')),
    "strip": (
        int,
        1,
        Bounds(0, hint="strip = 1 drops the a/ and b/ of git's paths (patch -p1); 0 keeps them"),
    ),
    "directory": (
        str,
        "",
        NotBlank(
            'the directory patch paths are relative to: directory = "vllm"; "" for the tree\'s root'
        ),
    ),
    "fetch": (str, "sdist", OneOf(("sdist", "wheel"))),
    "pristine": (
        str,
        None,
        NotEmpty(
            'the pin\'s release: pristine = "../vllm-0.27.1" (a directory relative to '
            "this file) or a requirement; leave the key out for upstream==pin"
        ),
    ),
    "lock-timeout": (
        (int, float),
        10.0,
        Bounds(0, unit="seconds", hint="0 fails at once when another process holds the lock"),
    ),
    "ignore": (list, list(DEFAULT_IGNORE)),
}


@dataclass(frozen=True)
class Config:
    """The downstream's settings, with defaults filled in and paths made absolute.

    Attributes:
        root: the downstream directory (the one holding the configuration file, or the
            current directory when there is none).
        source: the configuration file read, or ``None`` when defaults are used.
        upstream: the upstream distribution name (``"vllm"``), or ``None``.
        pin: the upstream version the series is cut against (``"0.27.1"``), or ``None``.
        series: absolute path of the series file.
        strip: leading path components removed from patch file names (``patch -p``).
        directory: the directory inside an upstream tree that patch paths are relative to,
            as a POSIX relative path (``""`` means the tree root).
        fetch: ``"sdist"`` or ``"wheel"``, what a requirement target downloads.
        pristine: the pristine reference of a directory target (a directory relative to
            ``root``, or a requirement), or ``None`` for ``upstream==pin``.
        lock_timeout: seconds to wait for another process's lock on a target.
        sections: the validated feature sub-tables (``{"ledger": {...}}``), raw values.
        ignore: glob patterns of build and test leftovers ``verify`` does not compare
            (:mod:`patchkeeper.trees.leftovers`; default
            :data:`~patchkeeper.constants.DEFAULT_IGNORE`).
    """

    root: Path
    source: Path | None
    upstream: str | None = None
    pin: str | None = None
    series: Path = Path("patches/series")
    strip: int = 1
    directory: str = ""
    fetch: str = "sdist"
    pristine: str | None = None
    lock_timeout: float = 10.0
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    ignore: tuple[str, ...] = DEFAULT_IGNORE

    @property
    def patches_dir(self) -> Path:
        """The directory holding the series file; patch names are relative to it."""
        return self.series.parent

    def pin_requirement(self) -> str:
        """Return ``"<upstream>==<pin>"``, or raise :class:`ConfigError` if either is unset."""
        if not self.upstream or not self.pin:
            raise ConfigError(
                "the upstream name and the pin are not configured",
                path=self.source,
                hint='set upstream = "NAME" and pin = "VERSION" in [tool.patchkeeper]',
            )
        return f"{self.upstream}=={self.pin}"


def register_section(name: str, schema: dict[str, Any]) -> None:
    """Declare a feature sub-table ``[tool.patchkeeper.<name>]`` and its keys.

    Feature modules call this at import time; :func:`load_config` imports them lazily
    through :data:`SECTION_MODULES` so every declared key is known before validation.
    """
    SCHEMA[name] = schema


#: Modules that declare feature sections with :func:`register_section`.
SECTION_MODULES: tuple[str, ...] = (
    "patchkeeper.runtime.settings",
    "patchkeeper.ledger.settings",
    "patchkeeper.port.settings",
    "patchkeeper.record.settings",
)


def _type_name(expected: Any) -> str:
    if isinstance(expected, tuple):
        return " or ".join(_type_name(t) for t in expected)
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        list: "a list of strings",
        dict: "a table",
    }.get(expected, str(expected))


def nests_in_tool(source: Path | None) -> bool:
    """Whether the configuration file ``source`` keeps its keys in ``[tool.patchkeeper]``,
    by the rule :func:`read_table` reads it with: a ``pyproject.toml``, or any other file
    with a ``[tool]`` table; any other file (a ``patchkeeper.toml``, or a file of another
    name given with ``--config``) keeps them at the top level. ``None``
    (no file) is read as a ``patchkeeper.toml``, the file ``init`` writes.

    >>> nests_in_tool(Path("/d/pyproject.toml")), nests_in_tool(Path("/d/patchkeeper.toml"))
    (True, False)
    """
    if source is None:
        return False
    if source.name == PYPROJECT:
        return True
    try:
        text = source.read_bytes().decode("utf-8", "replace")
    except OSError:
        return False
    try:
        return "tool" in tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return re.search(r"^\s*\[\[?\s*[\"']?tool[\"']?\s*[.\]]", text, re.MULTILINE) is not None


def table_name(source: Path | None, dotted: str) -> str:
    """Where the key ``dotted`` (``"lock-timeout"``, ``"ledger.file"``) is written, in the
    user's words: ``"patchkeeper.toml"``, ``"the [ledger] table of patchkeeper.toml"``,
    ``"the [tool.patchkeeper] table of pyproject.toml"``.

    >>> table_name(Path("/d/patchkeeper.toml"), "ledger.file")
    'the [ledger] table of patchkeeper.toml'
    >>> table_name(Path("/d/pyproject.toml"), "strip")
    'the [tool.patchkeeper] table of pyproject.toml'
    """
    name = source.name if source is not None else CONFIG_FILE
    table = dotted.rpartition(".")[0]
    if nests_in_tool(source):
        table = f"tool.patchkeeper.{table}" if table else "tool.patchkeeper"
    return f"the [{table}] table of {name}" if table else name


def spelt_for(text: str, source: Path | None) -> str:
    """``text`` (a message or hint naming configuration tables as ``pyproject.toml`` spells
    them: ``[tool.patchkeeper]``, ``[tool.patchkeeper.git]``) with the tables spelt as in
    ``source``, the configuration file in use (as :func:`table_name` decides): in a
    ``patchkeeper.toml`` the keys of ``[tool.patchkeeper]`` are at its top level and
    ``[tool.patchkeeper.git]`` is ``[git]``. Unchanged for a ``pyproject.toml`` or when there
    is no configuration file.

    >>> spelt_for('set tag = "NAME" in [tool.patchkeeper.git]', Path("/d/patchkeeper.toml"))
    'set tag = "NAME" in [git]'
    >>> spelt_for('set pin = "V" in [tool.patchkeeper]', Path("/d/patchkeeper.toml"))
    'set pin = "V" at the top of patchkeeper.toml (before any [table])'
    >>> spelt_for('set pin = "V" in [tool.patchkeeper]', Path("/d/pyproject.toml"))
    'set pin = "V" in [tool.patchkeeper]'
    """
    if source is None or nests_in_tool(source) or "[tool.patchkeeper" not in text:
        return text
    text = re.sub(r"\[tool\.patchkeeper\.([^\]\s]+)\]", r"[\1]", text)
    top = f"the top of {source.name} (before any [table])"
    text = text.replace("in [tool.patchkeeper]", f"at {top}")
    return text.replace("[tool.patchkeeper]", top)


def require_series(config: Config, command: str = "apply") -> None:
    """Refuse to go on when the series file is missing and that is not a setting gone
    wrong (instead of "the series file does not exist", whose advice is to create it): no
    configuration was found, or the configuration names a runtime plugin and no series, so
    ``command`` (one of :data:`SERIES_READERS`) has nothing to read and the runtime
    commands are the ones that apply.

    Raises:
        ConfigError: no configuration file was found and the default series is missing, or
            the downstream carries runtime patches and no series.
    """
    if config.series.exists():
        return
    if config.source is not None:
        package = runtime_only(config)
        if package and command in SERIES_READERS:
            _refuse_runtime_only(config, command, package)
        return
    raise ConfigError(
        f"no patchkeeper configuration here: no patchkeeper.toml, nor a pyproject.toml with "
        f"[tool.patchkeeper], in {config.root} or a directory above it",
        hint="run patchkeeper in the downstream (or pass -C DIR or --config FILE); the "
        "manual's configuration page (docs/configuration.md) shows the keys",
    )


def runtime_only(config: Config) -> str | None:
    """The package of the runtime plugin when the downstream carries runtime patches and no
    series (as ``init`` configures a plugin): ``[tool.patchkeeper.runtime]`` names the
    package, the configuration sets no ``series`` and the default series file does not
    exist; else ``None`` (a ``series`` set and missing is a setting gone wrong, which
    reading the series names)."""
    package = config.sections.get("runtime", {}).get("package")
    if not package or config.series.exists() or _line(config.source, "series") is not None:
        return None
    return str(package)


def _refuse_runtime_only(config: Config, command: str, package: str) -> None:
    """Raise the error of ``command`` run in a downstream whose configuration names the
    runtime plugin ``package`` and whose series file does not exist.

    Raises:
        ConfigError: always, at the line of the runtime table's ``package``.
    """
    try:
        series = config.series.relative_to(config.root).as_posix()
    except ValueError:
        series = str(config.series)
    upstream = config.upstream or "UPSTREAM"
    raise ConfigError(
        f"{command} reads a patch series, and this downstream has none ({series} does not "
        f"exist): it carries the runtime patches of the package {package}",
        path=config.source,
        line=_line(config.source, "runtime.package"),
        hint=f"the runtime commands read them: 'patchkeeper runtime inventory', "
        f"'patchkeeper runtime audit --to {upstream}==VERSION'; if the downstream carries "
        "a series as well, set 'series' in [tool.patchkeeper] to its file",
    )


def spell_error(error: PatchkeeperError, source: Path | None) -> None:
    """Write the configuration tables ``error``'s message and hint name as ``source``, the
    configuration file in use, spells them (:func:`spelt_for`); nothing without one."""
    if source is None:
        return
    error.message = spelt_for(error.message, source)
    error.args = (error.message,)
    if error.hint:
        error.hint = spelt_for(error.hint, source)


def _check_value(key: str, value: Any, expected: Any, source: Path) -> None:
    types = expected if isinstance(expected, tuple) else (expected,)
    ok = any(
        isinstance(value, t) and not (t in (int, float) and isinstance(value, bool)) for t in types
    )
    if ok and list in types and isinstance(value, list):
        ok = all(isinstance(item, str) for item in value)
    if not ok:
        raise ConfigError(
            f"key '{key}' must be {_type_name(expected)}, not {value!r}",
            path=source,
            hint=f"fix '{key.rpartition('.')[2]}' in {table_name(source, key)}",
        )


def _check_rule(key: str, value: Any, rule: OneOf | Bounds | NotEmpty, source: Path) -> None:
    problem = rule.problem(value)
    if problem is None:
        return
    if rule.hint:
        hint = rule.hint
    elif isinstance(rule, OneOf):
        hint = f"set '{key}' to one of: {', '.join(rule.values)}"
    else:
        hint = f"fix '{key.rpartition('.')[2]}' in {table_name(source, key)}"
    raise ConfigError(f"key '{key}' {problem}", path=source, hint=hint)


LONG_NUMBER_HINT = (
    'write the number with fewer digits, or quote it as text ("..."), at the line that holds it'
)
"""What to do about an integer too long for Python to convert, which tomllib refuses with a
ValueError that names no line."""


def unknown_key_hint(key: str, known: Iterable[str]) -> str:
    """What to do about the unknown key ``key`` where the keys ``known`` are allowed: the
    closest known key when one is near (a typo'd ``[header]`` for ``[headers]``), then every
    known key.

    >>> unknown_key_hint("header", ["headers", "ledger", "pin"])
    "did you mean 'headers'? the known keys here are: headers, ledger, pin"
    """
    import difflib

    names = sorted(known)
    listed = f"the known keys here are: {', '.join(names)}"
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
    return f"did you mean '{close[0]}'? {listed}" if close else listed


def validate(
    table: dict[str, Any], source: Path, schema: dict[str, Any] | None = None, prefix: str = ""
) -> dict[str, Any]:
    """Check ``table`` against ``schema`` and return it with defaults filled in.

    Raises:
        ConfigError: naming the dotted key (``ledger.markers``) for an unknown key, a value
            of the wrong type, or a value its rule does not allow (with the allowed values).
    """
    schema = SCHEMA if schema is None else schema
    out: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if key not in schema:
            raise ConfigError(
                f"unknown key '{dotted}'",
                path=source,
                line=_line(source, dotted),
                hint=unknown_key_hint(key, schema),
            )
        spec = schema[key]
        if isinstance(spec, dict):
            if not isinstance(value, dict):
                header = "[" + table_name(source, f"{dotted}.x").split("[")[1].split("]")[0] + "]"
                raise ConfigError(
                    f"key '{dotted}' must be a table, not {value!r}",
                    path=source,
                    line=_line(source, dotted),
                    hint=f"take out '{key} = ...' and write the keys of {header} under that "
                    f"table header in {table_name(source, '')} (docs/configuration.md "
                    "lists them)",
                )
            out[key] = validate(value, source, spec, prefix=f"{dotted}.")
            continue
        try:
            _check_value(dotted, value, spec[0], source)
            if len(spec) > 2:
                _check_rule(dotted, value, spec[2], source)
        except ConfigError as exc:
            exc.line = exc.line or _line(source, dotted)
            raise
        out[key] = value
    for key, spec in schema.items():
        if key in out:
            continue
        if isinstance(spec, dict):
            out[key] = validate({}, source, spec, prefix=f"{prefix}{key}.")
        else:
            out[key] = spec[1]
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file.

    Raises:
        ConfigError: the file cannot be read, is not UTF-8 (TOML's encoding; naming the line
            of the first bad byte) or is not valid TOML.
    """
    try:
        data = read_regular(path)
    except OSError as exc:
        raise ConfigError(
            f"cannot read: {exc.strerror}",
            path=path,
            hint="make the file readable by this user (or pass another with --config FILE)",
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded (TOML files are UTF-8)",
            path=path,
            line=line,
            hint="save the file as UTF-8",
        ) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(path, str(exc), text=text) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ConfigError(f"not valid TOML: {exc}", path=path, hint=LONG_NUMBER_HINT) from None
    return table


#: The byte order mark some editors put at the start of a UTF-8 file ("UTF-8 with BOM"):
#: invisible in the editor, and a TOML reader refuses it at line 1, column 1.
BOM = "\ufeff"
BOM_WORDS = "the file starts with a byte order mark (U+FEFF), which TOML does not allow"
BOM_HINT = 'save the file as UTF-8 without a BOM (the editor\'s "UTF-8", not "UTF-8 with BOM")'


def toml_syntax_error(
    path: Path,
    message: str,
    guide: str = "the manual's configuration page, docs/configuration.md, shows every key",
    text: str = "",
) -> ConfigError:
    """A TOML syntax error as a :class:`ConfigError` with the line tomllib names in its
    message (``... (at line 3, column 9)``) and a hint on the usual causes, ending with
    ``guide`` (where the file's keys are described).

    tomllib names no line when the file ends inside a value or a key (``... (at end of
    document)``, e.g. an unclosed ``[`` on the last line): the error then names the file's last
    line, ``text`` being the file's text. A ``text`` that starts with a byte order mark is
    said to (tomllib calls it an "Invalid statement" at column 1, which names nothing one
    can see).

    >>> error = toml_syntax_error(Path("a.toml"), "Invalid statement", text="\ufeffa = 1")
    >>> error.line, str(error).splitlines()[0][:51]
    (1, 'a.toml:1: not valid TOML: the file starts with a by')
    """
    import re

    if text.startswith(BOM):
        return ConfigError(
            f"not valid TOML: {BOM_WORDS}",
            path=path,
            line=1,
            hint=BOM_HINT,
        )
    match = re.search(r"\(at line (\d+), column (\d+)\)$", message)
    at_end = None if match else re.search(r"\s*\(at end of document\)$", message)
    line = int(match[1]) if match else None
    what = message[: match.start()].rstrip() if match else message
    where = f" column {match[2]}" if match else " the place named"
    if at_end is not None:
        line = max(1, len(text.splitlines()))
        what = message[: at_end.start()] + " (the file ends there)"
        where = " the end of the file (a value, list, table header or string left open)"
    twice = set_twice(what, text, line)
    if twice is not None:
        return ConfigError(
            f"not valid TOML: {twice[0]}", path=path, line=line, hint=f"{twice[1]} ({guide})"
        )
    return ConfigError(
        f"not valid TOML: {what}" + (f" (column {match[2]})" if match else ""),
        path=path,
        line=line,
        hint=f"fix the syntax at{where}: a value is quoted text "
        '("0.27.1"), a number, true/false or a [list]; one key = value per line; a table '
        f"header is [name] ({guide})",
    )


def set_twice(what: str, text: str, line: int | None) -> tuple[str, str] | None:
    """The message and hint for a TOML error that is a key or table given twice (tomllib's
    "Cannot overwrite a value", "Cannot declare ('t',) twice"), else ``None``: the syntax is
    right there, and the usual hint on syntax would send the user looking for a typo. The
    key is read from the file's line ``line``.

    >>> set_twice("Cannot overwrite a value", 'pin = "1"\\npin = "2"\\n', 2)[0]
    'pin is set twice: a later line cannot replace its value'
    >>> set_twice("Cannot declare ('series', 'x.patch') twice", "", 3)[0]
    'the table [series."x.patch"] is declared twice'
    >>> set_twice("Invalid statement", "", 1) is None
    True
    """
    import re

    declared = re.fullmatch(r"Cannot declare \((.*)\) twice", what)
    if declared is not None:
        names = re.findall(r"'((?:[^'\\]|\\.)*)'", declared[1])
        header = ".".join(n if re.fullmatch(r"[A-Za-z0-9_-]+", n) else f'"{n}"' for n in names)
        return (
            f"the table [{header}] is declared twice",
            f"merge the two [{header}] tables into one: each table header is written once",
        )
    if what != "Cannot overwrite a value":
        return None
    lines = text.splitlines()
    source = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
    key = re.match(r"\s*(\[\[?\s*[^\]]+?\s*\]\]?|[^=]+?)\s*(=|$)", source)
    named = key[1].strip() if key is not None and key[1].strip() else "a key"
    return (
        f"{named} is set twice: a later line cannot replace its value",
        f"keep one of the two lines that set {named}: a key is set once in its table",
    )


def key_line(text: str, key: str) -> int | None:
    """The 1-based line of the first ``key = ...`` in a TOML text, when one can be found.

    >>> key_line('a = 1\\n[t]\\n  series = "x"\\n', "series")
    3
    """
    import re

    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", re.MULTILINE)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def table_key_line(text: str, table: tuple[str, ...], key: str) -> int | None:
    """The 1-based line where ``key`` is set in the TOML table ``table`` (``()`` for the
    top level, ``("tool", "patchkeeper")``), found in the text (tomllib gives no positions):
    the first ``key = ...`` after that table's header and before the next header, else
    ``None``. A header that holds the table's names in order with the same last name counts
    too (``[entries.foreign-diffs.x]`` for the entry ``("entries", "x")``). A key that is
    itself a table, written only as a header (``[entries.overlay.x]`` for the key
    ``overlay`` of ``("entries",)``), is found at its first header.

    >>> text = '[project]\\nname = "x"\\n[tool.patchkeeper]\\nname = 1\\nstrip = -1\\n'
    >>> table_key_line(text, ("tool", "patchkeeper"), "name")
    4
    >>> table_key_line('strip = 1\\n[ledger]\\nfile = 3\\n', ("ledger",), "file")
    3
    >>> table_key_line('strip = 1\\n[entries.overlay.x]\\nsource = "a"\\n', ("entries",), "overlay")
    2
    """
    import re

    header = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
    assignment = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    current: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        match = header.match(line)
        if match:
            current = tuple(part.strip().strip("\"'") for part in match[1].split("."))
        elif _names_table(current, table) and assignment.match(line):
            return number
    for number, line in enumerate(text.splitlines(), start=1):
        match = header.match(line)
        names = match and tuple(part.strip().strip("\"'") for part in match[1].split("."))
        if names and names[: len(table) + 1] == (*table, key):
            return number
    return None


def _names_table(header: tuple[str, ...], table: tuple[str, ...]) -> bool:
    if header == table:
        return True
    if not table or not header or header[-1] != table[-1]:
        return False
    rest = iter(header)
    return all(name in rest for name in table)


def dotted_key_line(source: Path | None, dotted: str) -> int | None:
    """The line of the key ``dotted`` (``"entries.overlays.x.source"``) in the configuration
    file ``source`` (in ``[tool.patchkeeper]`` of a ``pyproject.toml``), or ``None`` when
    the file cannot be read or the key is not found."""
    return _line(source, dotted)


def _line(source: Path | None, dotted: str) -> int | None:
    """The line of the key ``dotted`` (``"strip"``, ``"ledger.file"``) in the configuration
    file ``source``, or ``None`` when the file cannot be read or the key is not found."""
    if source is None:
        return None
    try:
        text = source.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None
    *tables, key = dotted.split(".")
    prefix = ("tool", "patchkeeper") if nests_in_tool(source) else ()
    return table_key_line(text, (*prefix, *tables), key)


def _bad_character(value: str) -> str | None:
    """The first character a configuration string may not hold (NUL and the other C0
    controls but tab, newline and carriage return, and DEL), else ``None``."""
    for char in value:
        if (ord(char) < 32 and char not in "\t\n\r") or char == "\x7f":
            return char
    return None


def check_strings(table: Any, path: Path, text: str, prefix: str = "") -> None:
    """Refuse a control character (a NUL above all: no path or file name may hold one) in
    any key or string value of a TOML table, naming the dotted key and its line.

    Raises:
        ConfigError: naming ``path``, the line of the key when it can be found, the key.
    """
    items = table.items() if isinstance(table, dict) else enumerate(table)
    for key, value in items:
        dotted = f"{prefix}{key}" if isinstance(table, dict) else f"{prefix.rstrip('.')}[{key}]"
        for what, string in (("key", str(key)), ("value", value)):
            if not isinstance(string, str):
                continue
            bad = _bad_character(string)
            if bad is None:
                continue
            name = str(key) if isinstance(table, dict) else prefix.rstrip(".").split(".")[-1]
            raise ConfigError(
                f"the {what} of '{dotted}' holds the control character {bad!r}",
                path=path,
                line=key_line(text, name),
                hint="remove it; no configuration string may hold control characters",
            )
        if isinstance(value, (dict, list)):
            check_strings(value, path, text, f"{dotted}.")


def read_table(config_file: Path) -> dict[str, Any]:
    """The patchkeeper table of ``config_file`` as written, no defaults filled in: the whole
    file for a ``patchkeeper.toml``, ``[tool.patchkeeper]`` of a ``pyproject.toml`` (or of
    any file with a ``[tool]`` table).

    Raises:
        ConfigError: the file is unreadable or not TOML.
    """
    data = _read_toml(config_file)
    if config_file.name == PYPROJECT or "tool" in data:
        tool = data.get("tool", {})
        data = tool.get("patchkeeper", {}) if isinstance(tool, dict) else {}
    return data


def find_config(start: Path) -> tuple[Path | None, dict[str, Any]]:
    """Find the configuration from ``start`` upwards.

    Returns ``(file, table)``: the first ``patchkeeper.toml``, or ``pyproject.toml`` with a
    ``[tool.patchkeeper]`` table, in ``start`` or a parent; ``(None, {})`` when there is none.

    Raises:
        ConfigError: a directory holds both (neither takes precedence, so neither is
            silently ignored), or a file is unreadable or not TOML.
    """
    for directory in (start, *start.parents):
        own = directory / CONFIG_FILE
        if own.is_file():
            try:  # beside a patchkeeper.toml, a pyproject.toml matters only when it has the table
                pyproject = _pyproject_table(directory / PYPROJECT)
            except ConfigError:
                pyproject = None
        else:
            pyproject = _pyproject_table(directory / PYPROJECT)
        if own.is_file() and pyproject is not None:
            raise ConfigError(
                f"two configurations here: {own} and the [tool.patchkeeper] table of "
                f"{directory / PYPROJECT}",
                path=own,
                hint="keep one: move the settings into one file and delete the other "
                "(or pass --config FILE to choose)",
            )
        if own.is_file():
            return own, read_table(own)
        if pyproject is not None:
            return directory / PYPROJECT, pyproject
    return None, {}


def _pyproject_table(candidate: Path) -> dict[str, Any] | None:
    """The ``[tool.patchkeeper]`` table of ``candidate`` (a ``pyproject.toml``), or ``None``
    when there is no such file or table (a file that never names patchkeeper is not parsed).

    Raises:
        ConfigError: the file is not TOML, or ``tool.patchkeeper`` is not a table.
    """
    try:
        if b"patchkeeper" not in read_regular(candidate):
            return None
    except OSError:
        return None
    tool = _read_toml(candidate).get("tool", {})
    if not isinstance(tool, dict) or "patchkeeper" not in tool:
        return None
    if not isinstance(tool["patchkeeper"], dict):
        raise ConfigError(
            f"[tool.patchkeeper] must be a table, not {tool['patchkeeper']!r}",
            path=candidate,
            line=table_key_line(
                candidate.read_bytes().decode("utf-8", "replace"), ("tool",), "patchkeeper"
            ),
            hint="take out 'patchkeeper = ...' from [tool] and write the settings under a "
            "table header [tool.patchkeeper] (docs/configuration.md shows the keys)",
        )
    return tool["patchkeeper"]


def _import_sections() -> None:
    import importlib

    for module in SECTION_MODULES:
        importlib.import_module(module)


def load_config(config_file: Path | None = None, start: Path | None = None) -> Config:
    """Load and validate the configuration.

    Args:
        config_file: an explicit ``patchkeeper.toml`` or ``pyproject.toml``; when ``None`` the
            file is searched from ``start`` (default: the current directory) upwards.
        start: where the search begins.

    Raises:
        ConfigError: the file is unreadable, not TOML, or has an unknown key or a wrong type.
    """
    _import_sections()
    if config_file is not None:
        config_file = config_file.resolve()
        if not config_file.is_file():
            raise ConfigError(
                "not a configuration file"
                if config_file.exists()
                else "no such configuration file",
                path=config_file,
                hint="pass --config a patchkeeper.toml or a pyproject.toml with "
                "[tool.patchkeeper], or leave it out to search from the current directory up",
            )
        source: Path | None = config_file
        table = read_table(config_file)
    else:
        source, table = find_config((start or Path.cwd()).resolve())
    root = source.parent if source else (start or Path.cwd()).resolve()
    if source is not None:
        check_strings(table, source, source.read_bytes().decode("utf-8", "replace"))
    values = validate(table, source or root / CONFIG_FILE)
    directory = values["directory"].strip("/")
    if directory.startswith("..") or "/../" in f"/{directory}/":
        raise ConfigError(
            f"key 'directory' must stay inside the upstream tree, not {values['directory']!r}",
            path=source,
            line=_line(source, "directory"),
            hint='name a directory of the upstream tree, relative to its root ("vllm"), or ""',
        )
    sections = {k: v for k, v in values.items() if isinstance(SCHEMA[k], dict)}
    return Config(
        root=root,
        source=source,
        upstream=values["upstream"],
        pin=values["pin"],
        series=(root / values["series"]).resolve(),
        strip=values["strip"],
        directory=directory,
        fetch=values["fetch"],
        pristine=values["pristine"],
        lock_timeout=float(values["lock-timeout"]),
        sections=sections,
        ignore=tuple(values["ignore"]),
    )
