"""Plain data of the runtime-patch commands: entries, activation, findings.

Every record keeps its source position (a file relative to the plugin root and a 1-based
line) so that a report can point at it. The words are the runtime audit
workflow's (docs/glossary.md): a patch *entry* replaces one upstream
attribute; its *activation* says whether the plugin's entry points reach it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from patchkeeper.errors import Finding


class Mechanism(str, enum.Enum):
    """How a plugin replaces an upstream object (step 2 of the runtime audit workflow,
    docs/glossary.md)."""

    DECORATOR = "decorator"  # @patch("vllm.x", "Cls.meth")
    ASSIGNMENT = "assignment"  # vllm.x.f = g ; Cls.meth = f
    SETATTR = "setattr"  # setattr(Cls, "meth", f)
    REGISTRY = "registry"  # TABLE[key] = v ; TABLE.update(...) ; REG.register(...)
    SYS_MODULES = "sys-modules"  # sys.modules["vllm.x"] = module
    SUBCLASS = "subclass"  # vllm.x.Cls = OurSubclassOfCls
    WRAPPER = "wrapper"  # orig = m.f ; m.f = wrap(orig)


class ActivationStatus(str, enum.Enum):
    """Whether the entry points reach an entry."""

    ACTIVE = "active"  # reached without any condition
    CONDITIONAL = "conditional"  # reached only under the listed conditions
    NEVER = "never-imported"  # no chain of imports and calls reaches it


@dataclass(frozen=True)
class Condition:
    """One condition on the way to an entry.

    ``kind`` is ``"if"``, ``"else"`` (the negation of ``text``), ``"version"`` (an ``if`` on a
    version), ``"try-import"`` (inside ``try`` guarded by ``except ImportError``); ``text`` is
    the source of the test; ``file``/``line`` where it is.
    """

    kind: str
    text: str
    file: str
    line: int

    def described(self) -> str:
        """The condition as a reader sees it: its kind, then its text (``if torch.cuda``,
        ``else not (x)``), the kind once when the text already starts with it (an ``except``
        handler's text is ``except ValueError``, not ``except except ValueError``)."""
        if self.text.startswith(f"{self.kind} "):
            return self.text
        return f"{self.kind} {self.text}"


@dataclass(frozen=True)
class Activation:
    """How the plugin's entry points reach an entry.

    ``chain`` lists the steps from an entry point to the entry's scope (``"entry point
    vllm.general_plugins:ascend_model = vllm_ascend:register_model"``, then modules and
    functions); ``conditions`` are those met on that chain (empty when active); ``note`` says,
    for a never-imported entry, where its import is commented out or that none exists;
    ``untraced``, for a never-imported entry of a plugin whose loading is not declared to
    the upstream (:mod:`patchkeeper.runtime.inventory.loading`), why that is not known for
    sure (``""``: the loading was traced).
    """

    status: ActivationStatus
    chain: tuple[str, ...] = ()
    conditions: tuple[Condition, ...] = ()
    note: str = ""
    untraced: str = ""


@dataclass(frozen=True)
class PatchEntry:
    """One replaced upstream attribute (or registry key, or ``sys.modules`` name).

    Attributes:
        file: the plugin file, relative to the plugin root (``vllm_ascend/patch/x.py``).
        line: 1-based line of the statement or decorator.
        module: the plugin module holding it (``vllm_ascend.patch.platform.patch_x``).
        scope: ``"<module>"`` or the qualified name of the function it runs in.
        target: the dotted upstream path (``vllm.v1.core.sched.scheduler.Scheduler.schedule``);
            for a registry entry the registry object; for ``sys.modules`` the module name.
        module_hint: the longest prefix of ``target`` known to be a module from the import
            itself (``import vllm.x as m`` gives ``vllm.x``); ``""`` when not known.
        mechanism: see :class:`Mechanism`.
        key: the registry key (source text), or ``None``.
        replacement: the plugin object installed (``module:qualname``), ``"<lambda>"``, or
            ``"<expr>"`` when it is an expression.
        allow_missing: the decorator's ``allow_missing`` (``False`` for other mechanisms).
        descriptors: decorators under the patch decorator or wrapping calls around the value
            (``("staticmethod",)``, ``("triton.jit",)``).
        temporary: the swap is undone in the ``finally`` of a ``try`` of the same block
            (``old = m.f; m.f = new; try: ... finally: m.f = old``): the upstream object is
            replaced only while that ``try`` runs, not for the life of the process.
        activation: filled in by :mod:`patchkeeper.runtime.inventory.activation`.
    """

    file: str
    line: int
    module: str
    scope: str
    target: str
    mechanism: Mechanism
    module_hint: str = ""
    key: str | None = None
    replacement: str = "<expr>"
    allow_missing: bool = False
    descriptors: tuple[str, ...] = ()
    temporary: bool = False
    activation: Activation | None = None


@dataclass(frozen=True)
class EntryPoint:
    """An entry point of the plugin: ``group`` / ``name`` = ``value`` (``pkg.mod:attr``), and
    the file that declares it."""

    group: str
    name: str
    value: str
    source: str


@dataclass(frozen=True)
class Inventory:
    """The result of ``patchkeeper runtime inventory``.

    ``entries`` in file then line order; ``files`` every Python file of the patch directory;
    ``findings`` header, ledger, decorator and syntax problems (codes ``header-missing``,
    ``header-placeholder``, ``ledger-missing``, ``ledger-undocumented``,
    ``ledger-missing-code``, ``decorator-order``, ``setattr-name``, ``syntax``,
    ``unreadable``);
    ``counts`` by mechanism and by
    activation status; ``loading`` how the plugin is loaded, as facts: the roots the
    activation search started from, then, when its loading is not declared to the
    upstream, why what it reaches is not known for sure
    (:mod:`patchkeeper.runtime.inventory.loading`); ``tests_left_out`` the files of the
    test modules left out of ``files`` and ``entries``: a test runner runs them, not the
    plugin's loading (:mod:`patchkeeper.runtime.inventory.runners`).
    """

    plugin_root: str
    package: str
    patch_directory: str
    entry_points: tuple[EntryPoint, ...]
    files: tuple[str, ...]
    entries: tuple[PatchEntry, ...]
    findings: tuple[Finding, ...]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    loading: tuple[str, ...] = ()
    tests_left_out: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 when there is no finding, 1 otherwise."""
        return 1 if self.findings else 0
