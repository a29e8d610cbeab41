"""``slotgraph import``: a platform app export turned into ordinary Slotgraph agent directories.

For every agent of the app (:mod:`.platform_export` reads the export) one directory ``OUT/<agent folder>/``:

* ``dag.yaml`` — a slot-filling agent's DAG config, recovered by calling its config tool (no arguments, in a
  separate Python process with a time limit): ``<config id>_dag`` where ``agent_config_map`` names the id,
  else the older single ``dag_config`` tool. Platform keys are kept as written (Slotgraph reads them with
  their platform meaning, docs/migration.md); a plain agent (a host) gets an empty DAG;
* ``tools.py`` + ``platform_tools/<tool>.py`` — the app's python tools the agent uses, copied unchanged and
  wrapped so they run with the platform's calling convention (:mod:`.platform_tools`);
* ``instruction.md`` — the instruction with the framework's prompt variables dropped, ``{@TOOL: x}`` and
  ``{@AGENT: x}`` rendered as ``x``, ``{current_date}`` kept (the runtime fills it from the session clock),
  other ``{variable}`` placeholders replaced by the variable's declared default;
* ``agent.yaml``; ``evaluations/`` — the app's goldens and scenarios that start with or transfer to this
  agent, copied unchanged; ``tool_tests/`` — the tool tests of the tools it has.

The framework's own tools and callbacks are recognised by name and position and replaced by Slotgraph's
runtime; anything else that cannot be mapped (other callbacks, multi-agent routing, non-python tools) is
reported and copied to ``OUT/_platform/`` so nothing is lost. Every decision becomes a row of the
:class:`ImportReport`, with the source location. Writing is idempotent: re-running produces the same files.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from slotgraph.adapters.platform_export import PlatformAgent, PlatformApp, PlatformExportError, read_export
from slotgraph.config import validate_dag
from slotgraph.config.agent import APP_FILE
from slotgraph.config.yaml_budget import bounded_safe_load
from slotgraph.names import (
    CONFIRM_PENDING,
    READBACK_PROTOCOL,
    REJECT_PENDING,
    SLOT_FILLING_PROTOCOL,
    SYSTEM_DIRECTIVE,
)

__all__ = [
    "CONFIG_TIMEOUT_SECONDS",
    "FRAMEWORK_TOOLS",
    "ImportReport",
    "ImportRow",
    "import_app",
]

Status = Literal["mapped", "translated", "replaced", "copied", "dropped", "not mapped"]

FRAMEWORK_TOOLS: Mapping[str, str] = {
    "slot_filling_engine": "replaced by Slotgraph's engine (the runtime runs it every model call)",
    "validate_dag_config": "replaced by Slotgraph's validator (`slotgraph validate`)",
    CONFIRM_PENDING: f"replaced by the runtime's readback tool {CONFIRM_PENDING}",
    REJECT_PENDING: f"replaced by the runtime's readback tool {REJECT_PENDING}",
}
SYSTEM_TOOLS: Mapping[str, str | None] = {
    "end_session": "the runtime's built-in end_session",
    "escalate": "the runtime's built-in escalate",
    "transfer_to_agent": None,
    "customize_response": None,
}
PROMPT_VARIABLES = frozenset({SLOT_FILLING_PROTOCOL, READBACK_PROTOCOL, SYSTEM_DIRECTIVE})
"""Instruction variables of old framework versions; Slotgraph builds its own prompts."""
FRAMEWORK_VARIABLES = frozenset({"sm", "event_data", "agent_config_map"}) | PROMPT_VARIABLES
FRAMEWORK_CALLBACKS = frozenset({"before_agent", "before_model", "after_tool", "after_model"})
HOST_CALLBACKS = frozenset({"before_model", "after_tool"})
CONFIG_TIMEOUT_SECONDS = 30
RUNTIME_VARIABLES = frozenset({"current_date"})
_PLATFORM_ONLY_KEYS = (
    "readback_response",
    "channel_readback_response",
    "event_mappings",
    "bootstrap",
    "progress_stall",
    "readback_retry",
)
_SIMPLE_NAMES = frozenset(
    {"str", "int", "float", "bool", "dict", "list", "Any", "Optional", "Union", "Dict", "List", "None"}
)
_PLACEHOLDER = re.compile(
    r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}|\{@(TOOL|AGENT):\s*([^}]*)\}|\{([A-Za-z_]\w*)\}"
)


@dataclass(frozen=True, slots=True)
class ImportRow:
    """One thing the importer mapped, translated, replaced, copied, dropped or could not map."""

    status: Status
    kind: str
    name: str
    source: str
    """Where it is in the export (a file relative to the app folder, with a location when useful)."""
    detail: str


@dataclass(slots=True)
class ImportReport:
    app: str
    out: Path
    rows: list[ImportRow] = field(default_factory=list)
    agents: list[Path] = field(default_factory=list)
    """The agent directories written."""

    def add(self, status: Status, kind: str, name: str, source: str, detail: str) -> None:
        self.rows.append(ImportRow(status, kind, name, source, detail))

    @property
    def unmapped(self) -> list[ImportRow]:
        return [row for row in self.rows if row.status == "not mapped"]

    def table(self) -> str:
        """The report as an aligned text table (status, kind, name, source, detail)."""
        header = ("STATUS", "KIND", "NAME", "SOURCE", "DETAIL")
        cells = [header, *((r.status, r.kind, r.name, r.source, r.detail) for r in self.rows)]
        widths = [max(len(row[i]) for row in cells) for i in range(4)]
        lines = []
        for row in cells:
            lines.append("  ".join(row[i].ljust(widths[i]) for i in range(4)) + "  " + row[4])
        return "\n".join(lines)


# ── writing (idempotent) ───────────────────────────────────────────────────────────────────────────────


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.write_text(text, encoding="utf-8")


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and target.read_bytes() == source.read_bytes():
        return
    shutil.copyfile(source, target)


def _yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


# ── config tools ───────────────────────────────────────────────────────────────────────────────────────

_EVALUATE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("_platform_config_tool", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
result = getattr(module, sys.argv[2])()
sys.stdout.write(json.dumps(result))
"""


def evaluate_config_tool(code: Path, function: str) -> dict[str, Any]:
    """Call a config tool (no arguments) in a separate Python process; its JSON result must be a mapping."""
    code = code.resolve()
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _EVALUATE, str(code), function],
            capture_output=True,
            text=True,
            timeout=CONFIG_TIMEOUT_SECONDS,
            check=False,
            cwd=code.parent,
        )
    except subprocess.TimeoutExpired:
        raise PlatformExportError(
            f"{code}: {function}() did not return within {CONFIG_TIMEOUT_SECONDS} s"
        ) from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise PlatformExportError(f"{code}: calling {function}() failed: {last}")
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise PlatformExportError(f"{code}: {function}() did not return JSON data") from None
    if not isinstance(data, dict):
        raise PlatformExportError(
            f"{code}: {function}() returned {type(data).__name__}, not a DAG config dict"
        )
    return data


def _config_tool(app: PlatformApp, agent: PlatformAgent, config_map: Mapping[str, str]) -> str | None:
    """The config tool of a slot-filling agent (by ``agent_config_map``, else ``dag_config``), or None."""
    config_id = config_map.get(agent.name, config_map.get(agent.folder))
    if config_id is not None:
        return f"{config_id}_dag"
    if "dag_config" in agent.tools or (len(app.agents) == 1 and "dag_config" in app.tools):
        return "dag_config"
    return None


def _tools_named_by(config: Mapping[str, Any]) -> list[str]:
    names: list[str] = []

    def then_tool(block: Any) -> None:
        if isinstance(block, Mapping):
            then = block.get("then")
            if isinstance(then, str):
                names.append(then)
            elif isinstance(then, Mapping) and isinstance(then.get("tool"), str):
                names.append(then["tool"])

    for slot in config.get("slots") or []:
        if isinstance(slot, Mapping):
            if isinstance(slot.get("setter"), str):
                names.append(slot["setter"])
            validation = slot.get("validation")
            if isinstance(validation, Mapping):
                then_tool(validation.get("on_exhaust"))
    for task in config.get("tasks") or []:
        if isinstance(task, Mapping):
            if isinstance(task.get("tool"), str):
                names.append(task["tool"])
            failure = task.get("on_failure")
            if isinstance(failure, Mapping):
                then_tool(failure.get("on_exhaust"))
    for key in ("steer_back", "progress_stall", "readback_retry"):
        block = config.get(key)
        if isinstance(block, Mapping):
            then_tool(block.get("on_exhaust"))
    boot = config.get("bootstrap")
    if isinstance(boot, Mapping) and isinstance(boot.get("tool"), str):
        names.append(boot["tool"])
    return list(dict.fromkeys(names))


def _platform_spellings(config: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """``(location, key)`` of every platform-only key or spelling in a config."""
    for key in _PLATFORM_ONLY_KEYS:
        if key in config:
            yield key, key
    if isinstance(config.get("gate_slot"), str):
        names = {s.get("name") for s in config.get("slots") or [] if isinstance(s, Mapping)}
        if config["gate_slot"] not in names:
            yield "gate_slot", "gate_slot (undeclared)"
    for index, slot in enumerate(config.get("slots") or []):
        if not isinstance(slot, Mapping):
            continue
        fmt = slot.get("readback_fmt")
        if isinstance(fmt, Mapping) and (("text" in fmt and fmt.get("type") == "prefix") or "default" in fmt):
            yield (
                f"slots[{index}].readback_fmt",
                f"readback_fmt {fmt.get('type')} ({'text' if 'text' in fmt else 'default'})",
            )
        if "channel_response" in slot:
            yield f"slots[{index}].channel_response", "channel_response"
        if "options_from" in json.dumps(slot.get("response") or []):
            yield f"slots[{index}].response", "options_from chips"
    for index, task in enumerate(config.get("tasks") or []):
        if isinstance(task, Mapping) and "on_complete" in task:
            yield f"tasks[{index}].on_complete", "on_complete"


# ── tools ──────────────────────────────────────────────────────────────────────────────────────────────


def _annotation(node: ast.expr | None) -> str:
    if node is None:
        return ""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if not names <= _SIMPLE_NAMES or any(isinstance(n, ast.Attribute) for n in ast.walk(node)):
        return ": Any"
    return f": {ast.unparse(node)}"


def _function_def(code: str, function: str) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return node
    return None


def _wrapper(name: str, node: ast.FunctionDef, description: str) -> str:
    """A Slotgraph tool with the platform function's parameters that calls it the platform's way."""
    args = node.args
    params: list[str] = []
    passed: list[str] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in zip(positional, defaults, strict=True):
        text = f"{arg.arg}{_annotation(arg.annotation)}"
        params.append(text + (f" = {ast.unparse(default)}" if default is not None else ""))
        passed.append(f"{arg.arg}={arg.arg}")
    params.append("*")
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        text = f"{arg.arg}{_annotation(arg.annotation)}"
        params.append(text + (f" = {ast.unparse(kw_default)}" if kw_default is not None else ""))
        passed.append(f"{arg.arg}={arg.arg}")
    params.append("slotgraph_context: ToolContext")
    doc = ast.get_docstring(node) or description or f"The platform tool {name}."
    doc = doc.replace('"""', "'''").replace("\\", "\\\\")
    body = ", ".join(["slotgraph_context", *passed])
    return (
        f"def {name}({', '.join(params)}) -> Any:\n"
        f'    """{doc}\n    """\n'
        f"    return _TOOLS[{name!r}]({body})\n"
    )


def _tools_module(
    app_name: str, wrappers: list[str], entries: Mapping[str, tuple[str, str]], variables: Any
) -> str:
    table = ",\n".join(
        f"    {name!r}: PlatformFunction(_HERE / {path!r}, {function!r}, _VARIABLES)"
        for name, (path, function) in entries.items()
    )
    return (
        f'"""Tools of an agent imported from the platform app {app_name!r} by `slotgraph import`.\n\n'
        "Each tool is the app's own code (platform_tools/), called the platform's way: keyword arguments,\n"
        "whole numbers as floats, and a `context` global whose `state` holds the app variables and `sm`.\n"
        'Re-running `slotgraph import` rewrites this file."""\n\n'
        "from __future__ import annotations\n\n"
        "from pathlib import Path\n"
        "from typing import Any, Dict, List, Optional, Union  # noqa: F401 (used by copied annotations)\n\n"
        "from slotgraph import ToolContext\n"
        "from slotgraph.adapters.platform_tools import PlatformFunction\n\n"
        "_HERE = Path(__file__).resolve().parent\n"
        f"_VARIABLES: dict[str, Any] = {variables!r}\n"
        f"_TOOLS = {{\n{table}\n}}\n\n\n" + "\n\n".join(wrappers)
    )


# ── instructions ───────────────────────────────────────────────────────────────────────────────────────


def _instruction(app: PlatformApp, agent: PlatformAgent, report: ImportReport) -> str:
    defaults = {v.name: v.default for v in app.variables}
    seen: set[str] = set()

    def sub(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(4)
        if match.group(2):
            return match.group(3).strip()
        key = f"{{{name}}}"
        if name in PROMPT_VARIABLES:
            if name not in seen:
                report.add(
                    "dropped",
                    "instruction variable",
                    key,
                    agent.instruction_path,
                    "a prompt variable of old framework versions; Slotgraph builds its own prompts",
                )
            seen.add(name)
            return ""
        if name in RUNTIME_VARIABLES:
            if name not in seen:
                report.add(
                    "mapped",
                    "instruction variable",
                    key,
                    agent.instruction_path,
                    "filled by the runtime from the session clock (today's date, ISO)",
                )
            seen.add(name)
            return "{current_date}"
        if name in defaults and name not in FRAMEWORK_VARIABLES:
            value = defaults[name]
            if name not in seen:
                report.add(
                    "translated",
                    "instruction variable",
                    key,
                    agent.instruction_path,
                    f"replaced by the variable's declared default {value!r} (no session variables)",
                )
            seen.add(name)
            return value if isinstance(value, str) else json.dumps(value)
        if name not in seen:
            report.add(
                "not mapped",
                "instruction variable",
                key,
                agent.instruction_path,
                "no declared variable of that name; kept as written",
            )
        seen.add(name)
        return match.group(0)

    return _PLACEHOLDER.sub(sub, agent.instruction).rstrip() + "\n"


# ── evaluations and tool tests ─────────────────────────────────────────────────────────────────────────


def _transfers(data: Mapping[str, Any]) -> list[tuple[int, str]]:
    """``(turn index, target agent)`` of every agentTransfer expectation of a golden."""
    found: list[tuple[int, str]] = []
    golden = data.get("golden")
    turns = golden.get("turns") if isinstance(golden, Mapping) else None
    for index, turn in enumerate(turns if isinstance(turns, list) else []):
        for step in turn.get("steps", []) if isinstance(turn, Mapping) else []:
            if not isinstance(step, Mapping):
                continue
            for holder in (step.get("expectation"), step):
                transfer = holder.get("agentTransfer") if isinstance(holder, Mapping) else None
                if isinstance(transfer, Mapping) and isinstance(transfer.get("targetAgent"), str):
                    found.append((index, transfer["targetAgent"]))
    return found


def _expected_tools(data: Any) -> list[str]:
    """Tool names a golden's ``toolCall`` expectations or a scenario's ``expectedToolCall`` s name."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for key in ("toolCall", "expectedToolCall"):
                call = value.get(key)
                if isinstance(call, Mapping) and isinstance(call.get("tool"), str):
                    found.append(call["tool"].rsplit("/", 1)[-1])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return found


def _owner(
    app: PlatformApp, data: Any, targets: list[str], agent_tools: Mapping[str, set[str]]
) -> PlatformAgent | None:
    """The imported agent a golden runs against: the one owning most of its expected tool calls (ties go
    to its first transfer target, then to the root agent)."""
    wanted = _expected_tools(data)
    preferred = [*targets, app.root_agent or ""]

    def score(name: str) -> tuple[int, int]:
        rank = preferred.index(name) if name in preferred else len(preferred)
        return sum(1 for tool in wanted if tool in agent_tools[name]), -rank

    if not agent_tools:
        return None
    best = max(agent_tools, key=score)
    return app.agent(best)


def golden_settings_of(app: PlatformApp) -> dict[str, Any]:
    """``evaluations/slotgraph.yaml`` settings from the app's golden thresholds (defaults 3, FAIL)."""
    thresholds = app.settings.get("evaluationMetricsThresholds")
    golden = thresholds.get("goldenEvaluationMetricsThresholds") if isinstance(thresholds, Mapping) else None
    golden = golden if isinstance(golden, Mapping) else {}
    turn = golden.get("turnLevelMetricsThresholds")
    similarity = turn.get("semanticSimilaritySuccessThreshold", 3) if isinstance(turn, Mapping) else 3
    matching = golden.get("toolMatchingSettings")
    extra = matching.get("extraToolCallBehavior", "FAIL") if isinstance(matching, Mapping) else "FAIL"
    return {
        "semantic_similarity_threshold": int(similarity) if isinstance(similarity, int | float) else 3,
        "extra_tool_calls": "allow" if str(extra).upper() == "ALLOW" else "fail",
    }


def _settings_row(app: PlatformApp, report: ImportReport) -> None:
    settings = golden_settings_of(app)
    report.add(
        "translated",
        "golden settings",
        "evaluationMetricsThresholds",
        "app.json",
        f"semantic_similarity_threshold {settings['semantic_similarity_threshold']}, extra_tool_calls "
        f"{settings['extra_tool_calls']} → <agent>/evaluations/slotgraph.yaml",
    )


def _evaluations(
    app: PlatformApp,
    folders: Mapping[str, Path],
    agent_tools: Mapping[str, set[str]],
    report: ImportReport,
    *,
    multi_agent: bool = False,
) -> None:
    settings = golden_settings_of(app)
    settings_text = (
        "# Golden settings from the app's evaluationMetricsThresholds, written by `slotgraph import`.\n"
        + _yaml(settings)
    )
    for relative in app.evaluations:
        source = app.root / relative
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            report.add("not mapped", "evaluation", source.stem, relative, f"cannot be read: {err}")
            continue
        name = str(data.get("displayName") or source.stem) if isinstance(data, Mapping) else source.stem
        transfers = _transfers(data) if isinstance(data, Mapping) else []
        targets = list(dict.fromkeys(getattr(app.agent(t), "name", t) for _, t in transfers))
        kind = "scenario" if isinstance(data, Mapping) and "scenario" in data else "golden"
        if multi_agent:  # the whole app runs it, from its root, transfers and all
            target = report.out / "evaluations" / source.parent.name / source.name
            _copy(source, target)
            _write(report.out / "evaluations" / "slotgraph.yaml", settings_text)
            detail = f"copied to {target.relative_to(report.out).as_posix()}; runs against the app (app.yaml)"
            if kind == "scenario":
                detail += "; runs with a user model (skipped otherwise)"
            report.add("copied", kind, name, relative, detail)
            for turn, other in transfers:
                report.add(
                    "mapped",
                    "agent transfer",
                    name,
                    f"{relative} turn {turn}",
                    f"expects a transfer to {other}: checked against the app's agent_transfer event",
                )
            continue
        owner = _owner(app, data, targets, agent_tools)
        if owner is None or owner.name not in folders:
            report.add("not mapped", "evaluation", name, relative, "no imported agent to run it against")
            continue
        target = folders[owner.name] / "evaluations" / source.parent.name / source.name
        _copy(source, target)
        _write(folders[owner.name] / "evaluations" / "slotgraph.yaml", settings_text)
        detail = f"copied to {target.relative_to(report.out).as_posix()}"
        if kind == "scenario":
            detail += "; runs with a user model (skipped otherwise)"
        report.add("copied", kind, name, relative, detail)
        if not transfers and app.root_agent and owner.name != app.root_agent and kind == "golden":
            report.add(
                "not mapped",
                "agent transfer",
                name,
                relative,
                f"starts at {app.root_agent}, which hands over to {owner.name}; imported against "
                f"{owner.name} (it has the routing tool too): the hand-over itself needs multi-agent support",
            )
        if transfers:
            first = transfers[0]
            others = [(turn, t) for turn, t in transfers[1:] if t != first[1]]
            report.add(
                "not mapped",
                "agent transfer",
                name,
                f"{relative} turn {first[0]}",
                f"starts at {app.root_agent} and transfers to {first[1]}; imported against {owner.name}, "
                "which also has the routing tool: the transfer itself needs multi-agent support (not yet in "
                "Slotgraph)",
            )
            for turn, other in others:
                report.add(
                    "not mapped",
                    "agent transfer",
                    name,
                    f"{relative} turn {turn}",
                    f"transfers on to {other}: cannot pass without multi-agent support",
                )


def _tool_tests(
    app: PlatformApp, agent_tools: Mapping[str, set[str]], folders: Mapping[str, Path], report: ImportReport
) -> None:
    for relative in app.tool_tests:
        source = app.root / relative
        try:
            data = bounded_safe_load(source.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
            report.add("not mapped", "tool test", source.name, relative, f"cannot be read: {err}")
            continue
        tests = data.get("tests") if isinstance(data, Mapping) else None
        if not isinstance(tests, list):
            report.add("not mapped", "tool test", source.name, relative, "no 'tests' list")
            continue
        by_agent: dict[str, list[Any]] = {}
        for index, test in enumerate(tests):
            tool = test.get("tool") if isinstance(test, Mapping) else None
            name = (
                str(test.get("name", f"tests[{index}]")) if isinstance(test, Mapping) else f"tests[{index}]"
            )
            owners = [a for a, tools in agent_tools.items() if tool in tools]
            if tool == "slot_filling_engine" or (tool in FRAMEWORK_TOOLS and not owners):
                owners = [a for a in agent_tools if agent_tools[a]][:1]
            if not owners:
                report.add(
                    "not mapped",
                    "tool test",
                    name,
                    f"{relative} tests[{index}]",
                    f"no imported agent has the tool {tool!r}",
                )
                continue
            by_agent.setdefault(owners[0], []).append(test)
        for agent, picked in by_agent.items():
            target = folders[agent] / "tool_tests" / source.name
            _write(target, f"# Imported from {relative} by `slotgraph import`.\n" + _yaml({"tests": picked}))
            report.add(
                "copied",
                "tool tests",
                f"{len(picked)} of {source.name}",
                relative,
                f"copied to {target.relative_to(report.out).as_posix()}",
            )


# ── the multi-agent app ────────────────────────────────────────────────────────────────────────────────

_TRY_VALUES = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("_platform_routing_tool", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
function = getattr(module, sys.argv[2])
out = []
for value in json.loads(sys.argv[4]):
    try:
        out.append(function(**{sys.argv[3]: value}))
    except Exception as err:
        out.append({"error": repr(err)})
sys.stdout.write(json.dumps(out, default=str))
"""
_QUOTED = re.compile(r"['\"]([A-Za-z][\w-]*)['\"]")


def _try_values(code: Path, function: str, param: str, values: list[str]) -> list[Any]:
    """Call a routing tool once per candidate value (a separate Python process, as for config tools)."""
    code = code.resolve()
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _TRY_VALUES, str(code), function, param, json.dumps(values)],
            capture_output=True,
            text=True,
            timeout=CONFIG_TIMEOUT_SECONDS,
            check=False,
            cwd=code.parent,
        )
        results = json.loads(done.stdout) if done.returncode == 0 else None
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        results = None
    return results if isinstance(results, list) and len(results) == len(values) else []


def _routing_values(app: PlatformApp, name: str, report: ImportReport) -> tuple[str, dict[str, str]] | None:
    """The parameter of routing tool ``name`` and its values → the agent each leads to: the quoted words of
    its description and docstring, kept when calling the tool with one returns a ``target_agent``."""
    tool = app.tools.get(name)
    if tool is None or not tool.code:
        report.add("not mapped", "routing tool", name, "tools/", "not a python tool of the app")
        return None
    node = _function_def((app.root / tool.code).read_text(encoding="utf-8"), tool.function)
    params = [a.arg for a in node.args.args] if node is not None else []
    if node is None or len(params) != 1:
        report.add("not mapped", "routing tool", name, tool.code, "it does not take exactly one parameter")
        return None
    said = f"{tool.description}\n{ast.get_docstring(node) or ''}"
    candidates = list(dict.fromkeys(_QUOTED.findall(said)))
    values: dict[str, str] = {}
    for value, result in zip(
        candidates, _try_values(app.root / tool.code, tool.function, params[0], candidates), strict=False
    ):
        target = result.get("target_agent") if isinstance(result, Mapping) else None
        agent = app.agent(target) if isinstance(target, str) else None
        if agent is not None:
            values[value] = agent.folder
    if not values:
        report.add(
            "not mapped",
            "routing tool",
            name,
            tool.code,
            f"none of the values its description names ({', '.join(candidates) or 'none'}) returned a "
            "target_agent; declare its routing in app.yaml by hand",
        )
        return None
    return params[0], values


def _target_description(tool_text: str, value: str, config: Mapping[str, Any]) -> str:
    """What a routing value's target does: the words in parentheses after the value in the routing tool's
    description ("'booking' (appointments)"), then the hints of the target's slots but its gate slot."""
    said = re.search(rf"['\"]{re.escape(value)}['\"]\s*\(([^)]*)\)", tool_text)
    gate = config.get("gate_slot")  # holds the routing value itself, not what the desk does
    slots = [s for s in config.get("slots") or [] if isinstance(s, Mapping) and s.get("name") != gate]
    hints = [str(slot["hint"]) for slot in slots if slot.get("hint")]
    parts = [said.group(1).strip()] if said else []
    return "; ".join([*parts, *hints]) or value


def _app_file(
    app: PlatformApp,
    root: PlatformAgent,
    configs: Mapping[str, Mapping[str, Any]],
    folders: Mapping[str, Path],
    report: ImportReport,
) -> None:
    """``OUT/app.yaml``: the agents, the root, and the routing tools (the DAGs' ``bootstrap`` tools)."""
    boot_tools = sorted(
        {
            str(boot["tool"])
            for config in configs.values()
            if isinstance(boot := config.get("bootstrap"), Mapping) and isinstance(boot.get("tool"), str)
        }
    )
    routing: list[dict[str, Any]] = []
    described: dict[str, str] = {}
    for name in boot_tools:
        found = _routing_values(app, name, report)
        if found is None:
            continue
        param, values = found
        tool = app.tools[name]
        routing.append({"tool": name, "param": param, "values": values})
        by_folder = {a.folder: a.name for a in app.agents.values()}
        for value, folder in values.items():
            described.setdefault(
                folder, _target_description(tool.description, value, configs.get(by_folder[folder], {}))
            )
        report.add(
            "translated",
            "routing tool",
            name,
            tool.code or "tools/",
            "its result's target_agent hands the conversation over (app.yaml routing: "
            + ", ".join(f"{v} → {f}" for v, f in values.items())
            + "); the model sees the values enumerated with what each desk does",
        )
    agents: list[dict[str, Any]] = []
    for agent in app.agents.values():
        if agent.name not in folders:
            continue
        entry: dict[str, Any] = {"path": agent.folder}
        if agent.folder in described:
            entry["description"] = described[agent.folder]
        agents.append(entry)
    data: dict[str, Any] = {
        "name": _slug(app.name),
        "description": f"The platform app {app.name}, imported by `slotgraph import`.",
        "root": root.folder,
        "agents": agents,
    }
    if routing:
        data["routing"] = routing
    _write(report.out / APP_FILE, "# A multi-agent app imported by `slotgraph import`.\n" + _yaml(data))
    report.add(
        "translated",
        "multi-agent app",
        app.name,
        "app.json rootAgent",
        f"{len(agents)} agents, root {root.folder}: written to {APP_FILE} (serve, chat, test it as one app)",
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "app"


# ── agents ─────────────────────────────────────────────────────────────────────────────────────────────


def _callbacks(
    app: PlatformApp,
    agent: PlatformAgent,
    slot_filling: bool,
    out: Path,
    report: ImportReport,
    *,
    multi_agent: bool = False,
) -> None:
    is_host = not slot_filling and agent.name == app.root_agent
    for callback in agent.callbacks:
        if slot_filling and callback.kind in FRAMEWORK_CALLBACKS:
            report.add(
                "replaced",
                "callback",
                f"{agent.name} {callback.kind}",
                callback.code,
                "framework callback: replaced by Slotgraph's runtime (turn loop, engine, stash)",
            )
        elif is_host and callback.kind in HOST_CALLBACKS and multi_agent:
            report.add(
                "replaced",
                "callback",
                f"{agent.name} {callback.kind}",
                callback.code,
                "host routing callback: replaced by the multi-agent app's routing (app.yaml: a routing "
                "tool's target_agent hands the conversation over within the turn)",
            )
        elif is_host and callback.kind in HOST_CALLBACKS:
            report.add(
                "not mapped",
                "callback",
                f"{agent.name} {callback.kind}",
                callback.code,
                "host routing callback: turning the routing tool's target_agent into a transfer needs "
                "multi-agent support (not yet in Slotgraph); copied to _platform/",
            )
            _copy(app.root / callback.code, out / "_platform" / callback.code)
        else:
            report.add(
                "not mapped",
                "callback",
                f"{agent.name} {callback.kind}",
                callback.code,
                "custom callback code: Slotgraph has no callback hooks; port it to tools or config "
                "(copied to _platform/)",
            )
            _copy(app.root / callback.code, out / "_platform" / callback.code)


def _agent(
    app: PlatformApp,
    agent: PlatformAgent,
    config_map: Mapping[str, str],
    out: Path,
    report: ImportReport,
    *,
    multi_agent: bool = False,
    configs: dict[str, dict[str, Any]] | None = None,
) -> tuple[Path, set[str]] | None:
    folder = out / agent.folder
    config_tool = _config_tool(app, agent, config_map)
    config: dict[str, Any] = {"slots": [], "tasks": []}
    if config_tool is not None:
        tool = app.tools.get(config_tool)
        if tool is None or not tool.code:
            report.add(
                "not mapped",
                "agent",
                agent.name,
                agent.source,
                f"its config tool {config_tool!r} is not a python tool of the app",
            )
            return None
        try:
            config = evaluate_config_tool(app.root / tool.code, tool.function)
        except PlatformExportError as err:
            report.add("not mapped", "agent", agent.name, tool.source, str(err))
            return None
        report.add(
            "translated",
            "config",
            config_tool,
            tool.code,
            f"called; its DAG config written to {agent.folder}/dag.yaml",
        )
        for where, key in _platform_spellings(config):
            report.add(
                "translated",
                "config key",
                key,
                f"{tool.code} {where}",
                "platform key, read with its platform meaning (docs/migration.md)",
            )
    else:
        report.add(
            "mapped",
            "agent",
            agent.name,
            agent.source,
            "not a slot-filling agent (no config tool): imported with an empty DAG",
        )
    slot_filling = config_tool is not None
    if configs is not None:
        configs[agent.name] = config
    _callbacks(app, agent, slot_filling, out, report, multi_agent=multi_agent)
    if agent.child_agents and multi_agent:
        report.add(
            "mapped",
            "child agents",
            agent.name,
            agent.source,
            f"routes to {', '.join(agent.child_agents)}: agents of the multi-agent app (app.yaml)",
        )
    elif agent.child_agents:
        report.add(
            "not mapped",
            "child agents",
            agent.name,
            agent.source,
            f"routes to {', '.join(agent.child_agents)}: multi-agent support is not yet in Slotgraph; "
            "each child is imported as its own agent",
        )

    # tools: what the model sees plus what the config names
    wanted = list(dict.fromkeys([*agent.tools, *_tools_named_by(config)]))
    wrappers: list[str] = []
    entries: dict[str, tuple[str, str]] = {}
    have: set[str] = set()
    for name in wanted:
        tool = app.tools.get(name)
        if name in FRAMEWORK_TOOLS:
            report.add("replaced", "tool", name, tool.source if tool else agent.source, FRAMEWORK_TOOLS[name])
            have.add(name)
            continue
        if name == config_tool:
            continue
        if tool is None:
            system = SYSTEM_TOOLS.get(name, "")
            if system:
                report.add("mapped", "tool", name, agent.source, f"system tool: {system}")
                have.add(name)
            else:
                report.add(
                    "not mapped",
                    "tool",
                    name,
                    agent.source,
                    "system tool without a Slotgraph equivalent"
                    if name in SYSTEM_TOOLS
                    else "no such tool in tools/",
                )
            continue
        if not tool.code:
            report.add("not mapped", "tool", name, tool.source, "not a python tool (no pythonFunction)")
            continue
        code = (app.root / tool.code).read_text(encoding="utf-8")
        node = _function_def(code, tool.function)
        if node is None:
            report.add("not mapped", "tool", name, tool.code, f"no top-level function {tool.function!r}")
            continue
        if node.args.vararg or node.args.kwarg:
            report.add(
                "not mapped", "tool", name, tool.code, "*args/**kwargs: no parameter schema can be derived"
            )
            continue
        target = Path("platform_tools") / f"{name}.py"
        _copy(app.root / tool.code, folder / target)
        wrappers.append(_wrapper(name, node, tool.description))
        entries[name] = (target.as_posix(), tool.function)
        have.add(name)
        note = "wrapped: runs unchanged with the platform's calling convention"
        if "context.state" in code:
            note += "; it uses context.state, whose writes do not reach the session in Slotgraph"
        report.add("mapped", "tool", name, tool.code, note)

    variables = {
        v.name: v.default for v in app.variables if v.name not in PROMPT_VARIABLES and v.name != "sm"
    }
    _write(folder / "tools.py", _tools_module(app.name, wrappers, entries, variables))
    _write(
        folder / "dag.yaml",
        f"# DAG config of {agent.name}, imported by `slotgraph import`.\n" + _yaml(config),
    )
    _write(folder / "instruction.md", _instruction(app, agent, report))
    agent_yaml = {
        "name": agent.folder,
        "description": agent.description or f"{agent.name} of the platform app {app.name}",
        "instruction_file": "instruction.md",
        "model": "offline",
        "tools": "tools.py",
        "dag": "dag.yaml",
    }
    _write(
        folder / "agent.yaml", "# Imported from a platform app by `slotgraph import`.\n" + _yaml(agent_yaml)
    )
    report.add("mapped", "agent", agent.name, agent.source, f"written to {agent.folder}/")
    tool_names = set(entries) | {"end_session", "escalate"}
    for issue in validate_dag(config, tool_names=tool_names).errors:
        report.add(
            "not mapped", "config", agent.name, f"{agent.folder}/dag.yaml {issue.location}", issue.message
        )
    return folder, have


def _variables(app: PlatformApp, out: Path, report: ImportReport) -> None:
    for variable in app.variables:
        where = "app.json variableDeclarations"
        if variable.name == "sm":
            report.add("mapped", "variable", "sm", where, "the runtime's session state")
        elif variable.name == "event_data":
            report.add("mapped", "variable", "event_data", where, "the session's event_data (pre-fill)")
        elif variable.name == "agent_config_map":
            report.add(
                "mapped", "variable", "agent_config_map", where, "used to find each agent's config tool"
            )
        elif variable.name in PROMPT_VARIABLES:
            report.add("dropped", "variable", variable.name, where, "legacy prompt variable; unused")
        else:
            report.add(
                "translated",
                "variable",
                variable.name,
                where,
                f"default {variable.default!r}: substituted into instructions and given to tools as "
                "context.state; no per-session variables in Slotgraph",
            )


def import_app(source: str | Path, out: str | Path) -> ImportReport:
    """Import the platform app export at ``source`` into agent directories under ``out``."""
    app = read_export(Path(source))
    out_dir = Path(out)
    report = ImportReport(app=app.name, out=out_dir)
    config_map = app.config_map()
    folders: dict[str, Path] = {}
    agent_tools: dict[str, set[str]] = {}
    configs: dict[str, dict[str, Any]] = {}
    root = app.agent(app.root_agent) if app.root_agent else None
    multi_agent = root is not None and len(app.agents) > 1
    for agent in app.agents.values():
        result = _agent(app, agent, config_map, out_dir, report, multi_agent=multi_agent, configs=configs)
        if result is not None:
            folders[agent.name], agent_tools[agent.name] = result
            report.agents.append(result[0])
    if multi_agent and root is not None and root.name in folders:
        _app_file(app, root, configs, folders, report)
    else:
        multi_agent = False
    for name, config_id in config_map.items():
        if app.agent(name) is None:
            report.add(
                "not mapped",
                "agent",
                name,
                "app.json agent_config_map",
                f"maps to config {config_id!r} but no agent has that name",
            )
    _variables(app, out_dir, report)
    used = {row.name for row in report.rows if row.kind == "tool"} | {
        _config_tool(app, a, config_map) for a in app.agents.values()
    }
    for name, tool in app.tools.items():
        if name not in used:
            report.add("not mapped", "tool", name, tool.source, "no agent uses it; copied to _platform/")
            if tool.code:
                _copy(app.root / tool.code, out_dir / "_platform" / tool.code)
    if app.evaluations:
        _settings_row(app, report)
    _evaluations(app, folders, agent_tools, report, multi_agent=multi_agent)
    _tool_tests(app, agent_tools, folders, report)
    for relative in (*app.datasets, *app.expectations, "app.json"):
        _copy(app.root / relative, out_dir / "_platform" / relative)
    if app.expectations:
        report.add(
            "copied",
            "LLM-judged criteria",
            f"{len(app.expectations)} files",
            "evaluationExpectations/",
            "copied to _platform/; not evaluated (no LLM judge), never reported as passed",
        )
    if app.datasets:
        report.add(
            "copied",
            "datasets",
            f"{len(app.datasets)} files",
            "evaluationDatasets/",
            "copied to _platform/ (dataset membership is informational)",
        )
    return report
