"""The child side of ``slotgraph validate``'s tool check: import a tools module and build every tool.

Run by :mod:`slotgraph.cli.tool_checks` in a child process, so the module's import-time side effects, a
crash or a hang never reach the validating process: a fork of the validator where that is safe
(:func:`run_forked`), else a fresh ``python -m slotgraph.cli.tool_probe TOOLS.py``. Either way the child
prints one JSON document on stdout::

    {"import_error": null | {"message", "line", "column"},
     "tools": [{"name", "line", "error": null | "message", "fix"}],
     "dependencies": {"files": {...}, "listings": {...}, "modules": {...}}}

``tools`` lists the functions that become tools, exactly as the runtime picks them (``__all__``, else the
public functions defined in the module), each built with the runtime's own schema code.
"""

from __future__ import annotations

import ast
import faulthandler
import io
import json
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from slotgraph.cli.validate_cache import forget_inherited_recordings, recording
from slotgraph.names import TOOLS_MODULE_PREFIX
from slotgraph.runtime.errors import AgentLoadError, ToolDefinitionError
from slotgraph.runtime.tools import load_tools_module, module_functions, tool_from_function

__all__ = ["probe", "probe_with_dependencies", "run_forked"]


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


def run_forked(path: str) -> int:
    """The probe in a child just forked from the validator (``os.fork``): set up what a fresh
    ``python -m slotgraph.cli.tool_probe`` would see, probe, print the JSON document; the exit status.

    File descriptor 1 (and 2) are the parent's pipes already; ``sys.stdout``/``sys.stderr`` are replaced by
    fresh streams on them (the validator's may be a test runner's capture). The working directory and
    ``sys.path[0]`` become the module's directory, ``sys.argv`` the probe's, a crash's dump (``faulthandler``)
    goes to the child's stderr, no bytecode is written and
    pydantic plugins stay undiscovered unless the user asked for them (as in
    :func:`slotgraph.cli.tool_checks.probe_env`); the validator's own recordings are dropped. An exception
    escaping the probe is printed to stderr (status 1), a ``SystemExit`` raised by the module exits as
    Python would exit with it.
    """
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace"
    )
    if faulthandler.is_enabled():  # a crash's dump goes to the child's stderr, not the validator's
        faulthandler.enable(file=sys.stderr)
    status = 0
    try:
        forget_inherited_recordings()
        folder = str(Path(path).parent)
        os.chdir(folder)
        sys.path[0:1] = [folder]
        sys.argv = [__file__, path]
        sys.dont_write_bytecode = True
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        json.dump(probe_with_dependencies(path), sys.stdout)
    except SystemExit as err:
        if err.code is None or isinstance(err.code, int):
            status = err.code or 0
        else:
            print(err.code, file=sys.stderr)
            status = 1
    except BaseException:  # whatever the module raised ends the child; the parent reports it
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 1
    return status


if __name__ == "__main__":  # pragma: no cover - run in a child process by slotgraph.cli.tool_checks
    json.dump(probe_with_dependencies(sys.argv[1]), sys.stdout)
