"""``slotgraph validate --check-tools``: the checks of an agent's tools module that reading it cannot do.

``slotgraph validate`` never imports an agent's ``tools.py`` (importing it runs its code): it reads it (the
tool names the config uses must be defined there). With ``--check-tools`` the module is imported in a child
process — ``python -m slotgraph.cli.tool_checks TOOLS.py``, in the module's folder — exactly as ``chat``,
``test`` and ``serve`` would import it, and every tool is built with the runtime's schema code, so what they
would reject is reported with its ``file:line:column``:

* ``tools_import_failed`` (error) — importing the module raised (a syntax error, a missing package), printed
  to stdout while importing, crashed, exited, or took longer than :data:`PROBE_TIMEOUT_SECONDS`;
* ``unsupported_tool_signature`` (error) — a parameter the runtime cannot turn into a JSON Schema (a custom
  class, a pydantic model, ``*args``), at the parameter's line;
* ``undeclared_tool`` (warning) — a function that becomes a model-visible tool although nothing names it:
  not the DAG, not ``agent.yaml`` (e.g. its rules), not the instruction (e.g. a ``{{run tool}}`` program) —
  typically a public helper in a module without ``__all__``.

The child prints one JSON document on stdout::

    {"import_error": null | {"message", "line", "column"},
     "tools": [{"name", "line", "column", "error": null | "message", "fix"}]}

``tools`` lists the functions that become tools, exactly as the runtime picks them (``__all__``, else the
public functions defined in the module).
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from slotgraph.config import ConfigIssue, Definition
from slotgraph.names import READBACK_TOOLS, SESSION_ENDING_TOOLS, TOOLS_MODULE_PREFIX

__all__ = ["PROBE_TIMEOUT_SECONDS", "dag_tool_names", "probe", "probe_env", "tool_issues"]

PROBE_TIMEOUT_SECONDS = 60.0
_BUILTINS = READBACK_TOOLS | SESSION_ENDING_TOOLS
_TOOL_KEYS = frozenset({"setter", "tool", "then"})


def dag_tool_names(raw: Any) -> set[str]:
    """Every tool name the DAG config mentions: setters, task tools, ``then`` targets, the bootstrap tool
    (walked without recursion, whatever the config's depth)."""
    names: set[str] = set()
    stack = [raw]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key in _TOOL_KEYS and isinstance(item, str):
                    names.add(item)
                else:
                    stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)
    return names


def _issue(
    code: str, file: Path, line: Any, column: Any, message: str, fix: str, severity: str
) -> ConfigIssue:
    return ConfigIssue(
        code,
        "tools",
        message,
        fix,
        severity="warning" if severity == "warning" else "error",
        file=str(file),
        line=line if isinstance(line, int) else None,
        column=column if isinstance(column, int) else None,
    )


def _agent_texts(definition: Definition) -> str:
    """agent.yaml's text and the instruction: a tool named there is used by the agent's logic."""
    parts = [definition.instruction or ""]
    if definition.kind == "agent":
        with contextlib.suppress(OSError):  # it was just loaded; a vanished file only loses mentions
            parts.append(definition.path.read_text(encoding="utf-8"))
    return "\n".join(parts)


def probe_env() -> dict[str, str]:
    """The child's environment: this process's, plus

    * ``PYTHONDONTWRITEBYTECODE=1`` — importing the agent's ``tools.py`` leaves no ``__pycache__`` beside it;
    * ``PYDANTIC_DISABLE_PLUGINS=__all__`` unless set — the child only builds tool schemas, and looking for
      pydantic plugins reads the metadata of every installed distribution.
    """
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    return env


def _run_probe(tools_path: Path) -> dict[str, Any] | str:
    """The child's document for ``tools_path``, or why there is none."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "slotgraph.cli.tool_checks", str(tools_path.resolve())],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_SECONDS,
            cwd=tools_path.resolve().parent,
            env=probe_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"importing the tools module took longer than {PROBE_TIMEOUT_SECONDS:g} s"
    return _probe_output(done.returncode, done.stdout, done.stderr)


def _ending(status: int) -> str:
    """How a process ended: a negative status is the signal that killed it (a crash dump on its stderr says
    less), a positive one an exit status with nothing on stderr."""
    if status >= 0:
        return f"exit status {status}, nothing on stderr"
    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"


def _probe_output(status: int, stdout: str, stderr: str) -> dict[str, Any] | str:
    """The probe's document, or why there is none: the signal that killed the process, else the last line it
    printed to stderr, else its exit status."""
    if status != 0:
        lines = stderr.strip().splitlines()
        why = lines[-1] if lines and status > 0 else _ending(status)
        return f"the tools check process failed ({why})"
    try:
        result: dict[str, Any] = json.loads(stdout)
    except json.JSONDecodeError:
        return "the tools module printed to stdout while being imported, so it could not be checked"
    return result


def tool_issues(definition: Definition) -> Iterator[ConfigIssue]:
    """The tool problems of an agent (nothing when it has no Python tools module)."""
    path = definition.tools_path
    if path is None or path.suffix != ".py":
        return
    result = _run_probe(path)
    if isinstance(result, str):
        yield _issue(
            "tools_import_failed", path, None, None, result, f"run `python {path}` to see why", "error"
        )
        return
    failure = result.get("import_error")
    if failure:
        yield _issue(
            "tools_import_failed",
            path,
            failure.get("line"),
            failure.get("column"),
            f"importing the tools module failed: {failure.get('message')}",
            f"fix the module; `python {path}` shows the full traceback",
            "error",
        )
        return
    named = dag_tool_names(definition.raw_dag) | _BUILTINS
    for topic_dag in definition.topic_dags.values():  # a topic's own DAG names tools of the same module
        named |= dag_tool_names(topic_dag)
    mentions = _agent_texts(definition)
    for tool in result.get("tools", []):
        name = str(tool.get("name"))
        if name not in named and re.search(rf"\b{re.escape(name)}\b", mentions):
            named.add(name)
        if tool.get("error"):
            yield _issue(
                "unsupported_tool_signature",
                path,
                tool.get("line"),
                tool.get("column"),
                f"tool {name!r}: {tool['error']}",
                str(tool.get("fix") or "change the signature to supported types (see docs/tools.md)"),
                "error",
            )
        elif name not in named:
            yield _issue(
                "undeclared_tool",
                path,
                tool.get("line"),
                tool.get("column"),
                f"function {name!r} becomes a tool the model can call, but the DAG never names it",
                "list your tools in __all__ (or start a helper's name with _); keep it if the model should "
                "call it",
                "warning",
            )


# --- the child ---------------------------------------------------------------------------------------------


def _parameter_lines(source: str) -> dict[tuple[str, str], tuple[int, int]]:
    """``(function, parameter) -> (line, column)`` of every top-level function's parameters."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[tuple[str, str], tuple[int, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[(node.name, "")] = (node.lineno, node.col_offset + 1)
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                found[(node.name, arg.arg)] = (arg.lineno, arg.col_offset + 1)
            for star in (arguments.vararg, arguments.kwarg):
                if star is not None:
                    found[(node.name, star.arg)] = (star.lineno, star.col_offset + 1)
    return found


def _import_error(file: Path, err: BaseException) -> dict[str, Any]:
    cause = err.__cause__ or err
    if isinstance(cause, SyntaxError) and cause.lineno is not None:
        return {"message": f"SyntaxError: {cause.msg}", "line": cause.lineno, "column": cause.offset or 1}
    line = None
    for frame in traceback.extract_tb(cause.__traceback__):
        if Path(frame.filename).resolve() == file.resolve():
            line = frame.lineno
    return {"message": f"{type(cause).__name__}: {cause}", "line": line, "column": None}


_LOADED_MODULE = re.compile(rf"{TOOLS_MODULE_PREFIX}\w+?_[0-9a-f]{{12}}\.")


def _split(message: str) -> tuple[str, str]:
    message = _LOADED_MODULE.sub("", message)  # the runtime's private module name means nothing to a user
    text, _, fix = message.partition(" — fix: ")
    if "unsupported annotation" in text:
        fix += " — or take the object's fields as separate parameters"
    if text.startswith("tool "):  # "tool 'x' (file:line): what" -> "what"; the location is reported apart
        _, _, rest = text.partition("): ")
        text = rest or text
    return text, fix


def probe(path: str) -> dict[str, Any]:
    """Import ``path`` and build its tools (the child's work); never raises for a broken module."""
    from slotgraph.runtime.errors import AgentLoadError, ToolDefinitionError
    from slotgraph.runtime.tools import load_tools_module, module_functions, tool_from_function

    file = Path(path)
    try:
        module = load_tools_module(file)
        functions = module_functions(module)
    except AgentLoadError as err:
        return {"import_error": _import_error(file, err), "tools": []}
    positions = _parameter_lines(file.read_text(encoding="utf-8"))
    tools: list[dict[str, Any]] = []
    for fn in functions:
        name = getattr(fn, "__name__", "?")
        line, column = positions.get(
            (name, ""), (getattr(getattr(fn, "__code__", None), "co_firstlineno", None), None)
        )
        entry: dict[str, Any] = {"name": name, "line": line, "column": column, "error": None, "fix": ""}
        try:
            tool_from_function(fn)
        except ToolDefinitionError as err:
            message, fix = _split(str(err))
            entry["error"], entry["fix"] = message, fix
            for (function, parameter), where in positions.items():
                if function == name and parameter and f"parameter {parameter!r}" in message:
                    entry["line"], entry["column"] = where
        tools.append(entry)
    return {"import_error": None, "tools": tools}


if __name__ == "__main__":  # pragma: no cover - the child, run by _run_probe; measured through its output
    json.dump(probe(sys.argv[1]), sys.stdout)
