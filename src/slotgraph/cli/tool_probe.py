"""The child side of ``slotgraph validate``'s tool check: import a tools module and build every tool.

Run as ``python -m slotgraph.cli.tool_probe TOOLS.py`` by :mod:`slotgraph.cli.tool_checks`, in a fresh
process, so the module's import-time side effects, a crash or a hang never reach the validating process.
It prints one JSON document on stdout::

    {"import_error": null | {"message", "line", "column"},
     "tools": [{"name", "line", "error": null | "message", "fix"}],
     "dependencies": {"files": {...}, "listings": {...}, "modules": {...}}}

``tools`` lists the functions that become tools, exactly as the runtime picks them (``__all__``, else the
public functions defined in the module), each built with the runtime's own schema code.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from slotgraph.cli.validate_cache import recording
from slotgraph.runtime.errors import AgentLoadError, ToolDefinitionError
from slotgraph.runtime.tools import load_tools_module, module_functions, tool_from_function

__all__ = ["probe", "probe_with_dependencies"]


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


_LOADED_MODULE = re.compile(r"_slotgraph_tools_\w+?_[0-9a-f]{12}\.")


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
    """Import ``path`` and build its tools; never raises for a broken module."""
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


def probe_with_dependencies(path: str) -> dict[str, Any]:
    """:func:`probe`, plus ``dependencies``: what importing the module read and loaded (files, directories,
    modules; :mod:`slotgraph.cli.validate_cache`), so a passing validation can be answered from the cache
    until one of them changes."""
    with recording() as deps:
        result = probe(path)
    return {**result, "dependencies": deps.as_json()}


if __name__ == "__main__":  # pragma: no cover - run in a child process by slotgraph.cli.tool_checks
    json.dump(probe_with_dependencies(sys.argv[1]), sys.stdout)
