"""The original platform's tool-test YAML: one tool call per test, checks on its response by JSONPath.

A file holds ``tests: [...]`` (other top-level keys are ignored; they are handy as YAML anchors). Each test:

* ``name`` (required), ``tool`` (required), ``args`` (also read as ``agrs``, the SDK loader's misspelling);
* ``variables`` — session variables for the call: a mapping, a JSON string holding one, or a list of names
  (those take no value here); ``context`` — ``{state: {...}}``, what the tool sees as ``context.state``. The
  two cannot be combined. ``state["sm"]`` is the slot-filling state;
* ``expectations.response[]`` — ``{path, operator, value}`` checks on ``{"result": <the tool's return>}``;
  ``expectations.variables[]`` — the same checks on the variables after the call (``{"sm": ...}``).

Operators: ``equals``, ``contains`` (substring, list item or dict key; false for other types),
``greater_than``/``less_than`` (false on a type mismatch), ``length_equals``/``length_greater_than``/
``length_less_than``, ``is_null`` (nothing matches or the value is null), ``is_not_null``. A path is
JSONPath (``$.result.sm._retries['slot:pain_level']``, evaluated by ``jsonpath-ng`` as the platform's SDK
does); several matches give the list of them.

Where a test's tool runs: ``slot_filling_engine`` — the spec-compatible engine entry
(:func:`slotgraph.adapters.cxas.slot_filling_engine`) with the test's ``input_data``; ``confirm_pending`` /
``reject_pending`` — the engine's readback functions on ``state["sm"]``, answering in the platform's shapes
(:func:`slotgraph.runtime.readback_result`); any other tool — the agent's own tool, validated and called
like a model call, with ``state["sm"]`` as its context's state. Files are found in directories named
``tool_tests``; they run against the nearest agent directory above them (or ``--agent``).
"""

from __future__ import annotations

import copy
import datetime
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from slotgraph.config.yaml_budget import bounded_safe_load
from slotgraph.evals.errors import ScenarioFormatError
from slotgraph.evals.matching import render
from slotgraph.evals.results import ScenarioResult, UnmetExpectation
from slotgraph.names import READBACK_TOOLS

__all__ = ["OPERATORS", "ToolTest", "ToolTestCase", "is_tool_test_file", "load_tool_tests", "run_tool_test"]

OPERATORS = frozenset(
    {
        "equals",
        "contains",
        "greater_than",
        "less_than",
        "length_equals",
        "length_greater_than",
        "length_less_than",
        "is_null",
        "is_not_null",
    }
)
_NO_VALUE = frozenset({"is_null", "is_not_null"})
_TEST_KEYS = frozenset({"name", "tool", "args", "agrs", "variables", "context", "expectations"})
ENGINE_TOOL = "slot_filling_engine"


@dataclass(frozen=True, slots=True)
class Check:
    path: str
    operator: str
    value: Any = None
    where: str = ""


@dataclass(frozen=True, slots=True)
class ToolTest:
    name: str
    tool: str
    args: Mapping[str, Any]
    state: Mapping[str, Any]
    response: tuple[Check, ...] = ()
    variables: tuple[Check, ...] = ()
    where: str = ""


@dataclass(frozen=True, slots=True)
class ToolTestCase:
    """One tool test of a file, with the agent it runs against."""

    name: str
    source: Path
    test: ToolTest
    agent: Path | None
    kind: str = "tool_test"
    tags: Sequence[str] = field(default_factory=tuple)


def is_tool_test_file(path: Path) -> bool:
    return path.suffix in (".yaml", ".yml") and "tool_tests" in path.parts[:-1]


def _fail(file: Path, where: str, message: str, fix: str) -> ScenarioFormatError:
    return ScenarioFormatError(file, where, message, fix)


def _checks(file: Path, raw: Any, where: str) -> tuple[Check, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _fail(
            file, where, "expected a list of checks", "write - {path: ..., operator: ..., value: ...}"
        )
    checks: list[Check] = []
    for index, item in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(item, Mapping):
            raise _fail(
                file, at, "a check is a mapping", "write {path: $.result.x, operator: equals, value: 1}"
            )
        path, operator = item.get("path"), item.get("operator")
        if not isinstance(path, str) or not path.startswith("$"):
            raise _fail(file, f"{at}.path", f"not a JSONPath: {path!r}", "write e.g. $.result.stored")
        if operator not in OPERATORS:
            raise _fail(
                file, f"{at}.operator", f"unknown operator {operator!r}", f"use one of {sorted(OPERATORS)}"
            )
        if operator not in _NO_VALUE and "value" not in item:
            raise _fail(file, f"{at}.value", f"operator {operator} needs a value", "add value: ...")
        checks.append(Check(path, str(operator), item.get("value"), at))
    return tuple(checks)


def _state(file: Path, test: Mapping[str, Any], where: str) -> dict[str, Any]:
    if "variables" in test and "context" in test:
        raise _fail(file, where, "a test cannot have both 'variables' and 'context'", "keep one of them")
    if "context" in test:
        context = test["context"]
        state = context.get("state", {}) if isinstance(context, Mapping) else None
        if not isinstance(state, Mapping):
            raise _fail(
                file, f"{where}.context", "context must be {state: {...}}", "write context: {state: {sm: {}}}"
            )
        return copy.deepcopy(dict(state))
    variables = test.get("variables")
    if variables is None or isinstance(variables, list):
        return {}
    if isinstance(variables, str):
        try:
            variables = json.loads(variables)
        except json.JSONDecodeError as err:
            raise _fail(file, f"{where}.variables", f"not JSON: {err.msg}", "write a JSON object") from None
    if not isinstance(variables, Mapping):
        raise _fail(file, f"{where}.variables", "variables must be a mapping", "write variables: {sm: {...}}")
    return copy.deepcopy(dict(variables))


def load_tool_tests(file: Path) -> list[ToolTest]:
    """The tests of one tool-test YAML file; raises :class:`ScenarioFormatError` with the location."""
    try:
        data = bounded_safe_load(file.read_text(encoding="utf-8"))
    except OSError as err:
        raise ScenarioFormatError(file, "", f"cannot read the file ({err.strerror or err})") from None
    except yaml.YAMLError as err:
        raise ScenarioFormatError(file, "", f"invalid YAML: {err}", "fix the YAML syntax") from None
    tests = data.get("tests") if isinstance(data, Mapping) else None
    if not isinstance(tests, list):
        raise _fail(
            file, "tests", "a tool-test file holds a 'tests' list", "write tests: [- {name, tool, ...}]"
        )
    loaded: list[ToolTest] = []
    for index, test in enumerate(tests):
        where = f"tests[{index}]"
        if not isinstance(test, Mapping):
            raise _fail(file, where, "a test is a mapping", "write - {name: ..., tool: ...}")
        unknown = sorted(set(test) - _TEST_KEYS)
        if unknown:
            raise _fail(
                file, f"{where}.{unknown[0]}", f"unknown key {unknown[0]!r}", f"use {sorted(_TEST_KEYS)}"
            )
        name, tool = test.get("name"), test.get("tool")
        if not isinstance(name, str) or not name:
            raise _fail(file, f"{where}.name", "the test has no name", "add name: <unique id>")
        if not isinstance(tool, str) or not tool:
            raise _fail(file, f"{where}.tool", "the test names no tool", "add tool: <tool name>")
        args = test.get("args", test.get("agrs")) or {}
        if not isinstance(args, Mapping):
            raise _fail(file, f"{where}.args", "args must be a mapping", "write args: {name: value}")
        expectations = test.get("expectations") or {}
        if not isinstance(expectations, Mapping):
            raise _fail(
                file, f"{where}.expectations", "expectations must be a mapping", "write response: [...]"
            )
        loaded.append(
            ToolTest(
                name=name,
                tool=tool,
                args=dict(args),
                state=_state(file, test, where),
                response=_checks(file, expectations.get("response"), f"{where}.expectations.response"),
                variables=_checks(file, expectations.get("variables"), f"{where}.expectations.variables"),
                where=where,
            )
        )
    return loaded


# ── checks ─────────────────────────────────────────────────────────────────────────────────────────────


def _find(path: str, data: Any) -> tuple[bool, Any]:
    from jsonpath_ng.parser import parse  # the SDK's JSONPath library (a core dependency), loaded on use

    matches = [m.value for m in parse(path).find(data)]
    if not matches:
        return False, None
    return True, matches[0] if len(matches) == 1 else matches


def _compare(operator: str, actual: Any, value: Any) -> bool:
    try:
        if operator == "equals":
            return bool(actual == value)
        if operator == "contains":
            return isinstance(actual, str | list | dict) and value in actual
        if operator == "greater_than":
            return bool(actual > value)
        if operator == "less_than":
            return bool(actual < value)
        if operator.startswith("length_"):
            size = len(actual)
            outcomes: dict[str, bool] = {
                "length_equals": size == value,
                "length_greater_than": size > value,
                "length_less_than": size < value,
            }
            return outcomes[operator]
    except TypeError:
        return False
    return False


def check(check: Check, data: Any) -> str | None:
    """``None`` when the check holds, else what was found."""
    found, actual = _find(check.path, data)
    if check.operator == "is_null":
        return None if not found or actual is None else f"{check.path} = {render(actual)}"
    if check.operator == "is_not_null":
        return None if found and actual is not None else f"{check.path} matches nothing non-null"
    if not found:
        return f"{check.path} matches nothing"
    return None if _compare(check.operator, actual, check.value) else f"{check.path} = {render(actual)}"


# ── running ────────────────────────────────────────────────────────────────────────────────────────────


def run_tool_test(
    case: ToolTestCase, agent_loader: Any, today: datetime.date | None = None
) -> ScenarioResult:
    """Run one tool test. ``agent_loader(path)`` returns a :class:`slotgraph.Agent` (cached by the caller)."""
    from slotgraph.adapters.cxas import slot_filling_engine
    from slotgraph.runtime import DagEngine, readback_result

    test = case.test
    sm = dict(test.state.get("sm") or {}) if isinstance(test.state.get("sm"), Mapping) else {}
    variables: dict[str, Any] = {**test.state}
    try:
        if test.tool == ENGINE_TOOL:
            output = slot_filling_engine(dict(test.args.get("input_data") or {}))
            result: Any = output
            variables["sm"] = output.get("sm")
        else:
            if case.agent is None:
                raise LookupError("no agent to run the tool against (pass --agent PATH)")
            agent = agent_loader(case.agent)
            if test.tool in READBACK_TOOLS:
                result, new_sm = readback_result(DagEngine(), agent.dag, test.tool, sm)
                variables["sm"] = new_sm
            else:
                result = _call_agent_tool(agent, test.tool, test.args, sm, today)
    except Exception as err:  # the tool failed: the platform reports a tool error, the test fails
        failure = UnmetExpectation(
            None, f"{test.where}.tool", f"{test.tool} runs", f"{type(err).__name__}: {err}"
        )
        return ScenarioResult(case.name, case.source, "failed", failures=(failure,), kind="tool_test")
    failures: list[UnmetExpectation] = []
    for checks, data in ((test.response, {"result": result}), (test.variables, variables)):
        for item in checks:
            problem = check(item, data)
            if problem is not None:
                expected = f"{item.path} {item.operator}" + (
                    "" if item.operator in _NO_VALUE else f" {render(item.value)}"
                )
                failures.append(UnmetExpectation(None, item.where, expected, problem))
    if failures:
        return ScenarioResult(case.name, case.source, "failed", failures=tuple(failures), kind="tool_test")
    return ScenarioResult(case.name, case.source, "passed", kind="tool_test")


def _call_agent_tool(
    agent: Any, name: str, args: Mapping[str, Any], sm: Mapping[str, Any], today: datetime.date | None
) -> Any:
    import asyncio
    import types

    from slotgraph.runtime import ToolContext

    tool = agent.tools.get(name) if hasattr(agent.tools, "get") else None
    if tool is None:
        raise LookupError(f"the agent has no tool {name!r}")
    validated, problem = tool.check_args(args)
    if validated is None:
        raise ValueError(f"bad arguments: {problem}")
    now = datetime.datetime.combine(today or datetime.date.today(), datetime.time(12, 0))
    context = ToolContext(now, now.date(), types.MappingProxyType(dict(sm)), None, "tool-test")
    return asyncio.run(tool.invoke(validated, context))
