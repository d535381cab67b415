"""Run a GitHub workflow's job on this machine as a runner would run its ``run:`` steps.

What is GitHub's, done here by its documented rules ("Workflow syntax", "Expressions",
"Contexts", "Variables", "Metadata syntax" for composite actions):

- each ``run:`` script, after its ``${{ }}`` expressions are substituted, runs with bash
  (``bash -e`` when the step names no shell, ``bash --noprofile --norc -eo pipefail`` for
  ``shell: bash``), in ``working-directory`` under ``GITHUB_WORKSPACE``, with the step's
  ``env:`` over the job's and the workflow's, and a fresh ``GITHUB_OUTPUT`` file whose
  ``NAME=VALUE`` lines become ``steps.<id>.outputs``;
- ``if:`` (the job's and each step's) is evaluated as GitHub evaluates it: a step without a
  status function has an implied ``success() &&``; ``==`` compares strings ignoring case and
  coerces mismatched types to numbers (null and ``''`` are 0), so a missing output equals
  ``'0'``; a job whose ``if:`` is false is skipped, and passes;
- a step that uses this repository's own composite action (``OWNER/patchkeeper/PATH@REF``)
  runs that action's steps, with ``inputs`` from its defaults and the step's ``with:``,
  ``github.action_path``, and its ``outputs`` computed from their ``value`` expressions.

What is not run: a step that uses any other action (``actions/checkout``,
``actions/setup-python``): the caller provides its effect (a checkout with history, a Python
on ``PATH``), and the step is reported as ``"not run"``. A caller can leave out its own
action's steps by name too (``skip``), saying so in its test.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gha_yaml import load

REPO = Path(__file__).resolve().parents[2]
#: ``uses:`` of this repository's own actions, whoever hosts it and at whatever ref.
OWN_ACTION = re.compile(r"^[^/]+/patchkeeper/(?P<path>\.github/actions/[^@]+)@.+$")


# ---------------------------------------------------------------------- expressions

TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+(?:\.\d+)?)|"
    r"(?P<op>==|!=|&&|\|\||<=|>=|[!()<>,.\[\]*])|(?P<name>[A-Za-z_][\w-]*))"
)


class ExpressionError(Exception):
    """An expression this runner does not know how to evaluate (so a test fails loudly)."""


def _tokens(text: str) -> list[tuple[str, Any]]:
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        match = TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ExpressionError(f"cannot read {text[position:]!r} in {text!r}")
        position = match.end()
        kind = match.lastgroup
        value = match[kind]  # type: ignore[index]
        if kind == "string":
            value = value[1:-1].replace("''", "'")
        elif kind == "number":
            value = float(value)
        tokens.append((kind, value))  # type: ignore[arg-type]
    return tokens


def _number(value: Any) -> float:
    """GitHub's coercion to a number: null 0, booleans 0/1, a string by JSON's number rules
    (``''`` is 0), anything else NaN."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        number = re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text)
        return float(text) if number else float("nan")
    return float("nan")


def equal(left: Any, right: Any) -> bool:
    """GitHub's ``==``: strings ignoring case; other mismatched types as numbers."""
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if type(left) is type(right) and not isinstance(left, (int, float, str)) and left is not None:
        return left is right
    return _number(left) == _number(right)


def truthy(value: Any) -> bool:
    """GitHub's truthiness: null, false, 0, NaN and ``''`` are false."""
    if isinstance(value, float):
        return value == value and value != 0
    return bool(value) if isinstance(value, (str, bool, int)) or value is None else True


@dataclass
class Parser:
    """A recursive-descent evaluator of GitHub's expression syntax (the subset workflows
    use: literals, context paths, ``!``, comparisons, ``&&``, ``||``, parentheses, calls)."""

    tokens: list[tuple[str, Any]]
    context: Mapping[str, Any]
    functions: Mapping[str, Callable[..., Any]]
    position: int = 0

    def peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, Any]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            raise ExpressionError(f"expected {value!r} in {self.tokens}")
        self.position += 1
        return token

    def parse(self) -> Any:
        value = self.or_()
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek()} in {self.tokens}")
        return value

    def or_(self) -> Any:
        value = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.and_()
            value = value if truthy(value) else right
        return value

    def and_(self) -> Any:
        value = self.compare()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.compare()
            value = right if truthy(value) else value
        return value

    def compare(self) -> Any:
        value = self.unary()
        token = self.peek()
        if token is not None and token[1] in ("==", "!=", "<", ">", "<=", ">="):
            self.take()
            right = self.unary()
            if token[1] == "==":
                return equal(value, right)
            if token[1] == "!=":
                return not equal(value, right)
            left_n, right_n = _number(value), _number(right)
            return {
                "<": left_n < right_n,
                ">": left_n > right_n,
                "<=": left_n <= right_n,
                ">=": left_n >= right_n,
            }[token[1]]
        return value

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.primary()

    def primary(self) -> Any:
        kind, value = self.take()
        if kind in ("string", "number"):
            return value
        if (kind, value) == ("op", "("):
            inner = self.or_()
            self.take(")")
            return inner
        if kind != "name":
            raise ExpressionError(f"unexpected {value!r} in {self.tokens}")
        if value in ("true", "false"):
            return value == "true"
        if value == "null":
            return None
        if self.peek() == ("op", "("):
            self.take()
            arguments = []
            while self.peek() != ("op", ")"):
                arguments.append(self.or_())
                if self.peek() == ("op", ","):
                    self.take()
            self.take(")")
            if value not in self.functions:
                raise ExpressionError(f"function {value}() is not known to this runner")
            return self.functions[value](*arguments)
        if value not in self.context:
            raise ExpressionError(f"context {value!r} is not known to this runner")
        current = self.context[value]
        while self.peek() in (("op", "."), ("op", "[")):
            if self.take()[1] == ".":
                key = self.take()[1]
            else:
                key = self.or_()
                self.take("]")
            current = current.get(key) if isinstance(current, dict) else None
        return current


def evaluate(
    text: str, context: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]
) -> Any:
    """The value of the expression ``text`` (without ``${{ }}``)."""
    return Parser(_tokens(text), context, functions).parse()


def _as_text(value: Any) -> str:
    """A value as GitHub writes it into a string: null as ``''``, booleans lower case."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def substitute(text: Any, context: Mapping[str, Any]) -> str:
    """``text`` with each ``${{ expression }}`` replaced by its value."""
    functions = {"format": lambda f, *a: re.sub(r"\{(\d+)\}", lambda m: _as_text(a[int(m[1])]), f)}
    return re.sub(
        r"\$\{\{(.*?)\}\}",
        lambda match: _as_text(evaluate(match[1], context, functions)),
        _as_text(text),
    )


# ----------------------------------------------------------------------------- steps


@dataclass
class StepResult:
    """What one step did: ``"success"``, ``"failure"``, ``"skipped"`` (its ``if:`` was false)
    or ``"not run"`` (another project's action, or left out by the caller)."""

    name: str
    status: str
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    inner: list[StepResult] = field(default_factory=list)


@dataclass
class JobResult:
    """A job's conclusion (``"success"``, ``"failure"``, ``"skipped"``) and its steps."""

    conclusion: str
    steps: list[StepResult]

    def step(self, name: str) -> StepResult:
        """The step called ``name`` (its ``name:`` or ``id:``), searching composite actions
        too."""
        for step in self.steps:
            for candidate in (step, *step.inner):
                if candidate.name == name:
                    return candidate
        raise KeyError(name)


def _read_outputs(path: Path) -> dict[str, str]:
    """``GITHUB_OUTPUT``'s ``NAME=VALUE`` lines and ``NAME<<DELIMITER`` blocks."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1 : end])
            index = end + 1
            continue
        name, _, value = line.partition("=")
        outputs[name] = value
        index += 1
    return outputs


def _step_name(step: Mapping[str, Any]) -> str:
    return str(step.get("name") or step.get("id") or step.get("uses") or step.get("run", "")[:40])


@dataclass
class Runner:
    """Runs a job's steps in ``workspace`` with ``environment`` (the runner's variables:
    ``PATH`` with the job's Python, ``GITHUB_*``), ``github`` (the ``github`` context),
    ``skip`` (names of this repository's own steps the caller leaves out) and ``actions``
    (the checkout of this repository the ``uses:`` of its own actions run from)."""

    workspace: Path
    environment: Mapping[str, str]
    github: dict[str, Any]
    scratch: Path
    skip: frozenset[str] = frozenset()
    actions: Path = REPO  # where this repository's own actions are checked out
    count: int = 0

    def run_job(self, workflow: Mapping[str, Any], job_id: str) -> JobResult:
        """Run the job ``job_id`` of ``workflow``."""
        job = workflow["jobs"][job_id]
        env = {**workflow.get("env", {}), **job.get("env", {})}
        context = {"github": self.github, "env": env, "steps": {}, "needs": {}, "vars": {}}
        if "if" in job and not self._condition(job["if"], context, failed=False):
            return JobResult("skipped", [])
        steps, failed = self._run_steps(job["steps"], context, env, job)
        return JobResult("failure" if failed else "success", steps)

    def _condition(self, text: Any, context: Mapping[str, Any], failed: bool) -> bool:
        expression = str(text).strip()
        if expression.startswith("${{") and expression.endswith("}}"):
            expression = expression[3:-2]
        functions = {
            "success": lambda: not failed,
            "failure": lambda: failed,
            "always": lambda: True,
            "cancelled": lambda: False,
        }
        if not re.search(r"\b(success|failure|always|cancelled)\(", expression):
            expression = f"success() && ({expression})"
        return truthy(evaluate(expression, context, functions))

    def _run_steps(
        self,
        steps: list[dict[str, Any]],
        context: dict[str, Any],
        env: Mapping[str, Any],
        defaults_from: Mapping[str, Any],
    ) -> tuple[list[StepResult], bool]:
        results: list[StepResult] = []
        failed = False
        for step in steps:
            name = _step_name(step)
            key = step.get("id") or f"__step{len(results)}"
            if not self._condition(step.get("if", "success()"), context, failed):
                result = StepResult(name, "skipped")
            elif "uses" in step:
                result = self._uses(step, context, env)
            elif name in self.skip:
                result = StepResult(name, "not run")
            else:
                result = self._run(step, context, env, defaults_from)
            context["steps"][key] = {
                "outputs": result.outputs,
                "outcome": result.status if result.status != "not run" else "success",
                "conclusion": result.status if result.status != "not run" else "success",
            }
            failed = failed or (result.status == "failure" and not step.get("continue-on-error"))
            results.append(result)
        return results, failed

    def _run(
        self,
        step: Mapping[str, Any],
        context: Mapping[str, Any],
        env: Mapping[str, Any],
        defaults_from: Mapping[str, Any],
    ) -> StepResult:
        self.count += 1
        output = self.scratch / f"output-{self.count}"
        script = self.scratch / f"step-{self.count}.sh"
        script.write_text(substitute(step["run"], context), encoding="utf-8")
        step_env = {
            key: substitute(value, context) for key, value in {**env, **step.get("env", {})}.items()
        }
        defaults = defaults_from.get("defaults", {}).get("run", {})
        directory = step.get("working-directory", defaults.get("working-directory", "."))
        cwd = self.workspace / substitute(directory, context)
        shell = step.get("shell", defaults.get("shell"))
        if shell is None:
            command = ["bash", "-e", str(script)]
        elif shell == "bash":
            command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        else:
            raise ExpressionError(f"shell {shell!r} is not known to this runner")
        done = subprocess.run(
            command,
            cwd=cwd,
            env={**self.environment, **step_env, "GITHUB_OUTPUT": str(output)},
            capture_output=True,
            text=True,
        )
        status = "success" if done.returncode == 0 else "failure"
        return StepResult(
            _step_name(step),
            status,
            done.returncode,
            done.stdout,
            done.stderr,
            _read_outputs(output),
        )

    def _uses(
        self, step: Mapping[str, Any], context: Mapping[str, Any], env: Mapping[str, Any]
    ) -> StepResult:
        match = OWN_ACTION.match(str(step["uses"]))
        if match is None:
            return StepResult(_step_name(step), "not run")
        action_path = self.actions / match["path"]
        action = load((action_path / "action.yml").read_text(encoding="utf-8"))
        github = {**self.github, "action_path": str(action_path)}
        outer = {"github": github, "env": dict(env), "steps": {}, "needs": {}, "vars": {}}
        inputs: dict[str, Any] = {}
        for name, spec in action.get("inputs", {}).items():
            inputs[name] = substitute(spec.get("default", ""), {**outer, "inputs": {}})
        for name, value in step.get("with", {}).items():
            inputs[name] = substitute(value, context)
        inner_context = {**outer, "inputs": inputs}
        steps, failed = self._run_steps(action["runs"]["steps"], inner_context, env, {})
        outputs = {
            name: substitute(spec["value"], inner_context)
            for name, spec in action.get("outputs", {}).items()
        }
        status = "failure" if failed else "success"
        return StepResult(_step_name(step), status, outputs=outputs, inner=steps)
