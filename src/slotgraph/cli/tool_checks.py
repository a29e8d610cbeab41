"""``slotgraph validate``'s checks of an agent's tools module, which the static config checks cannot do.

The module is imported in a child process (:mod:`slotgraph.cli.tool_probe`) exactly as ``chat``, ``test``
and ``serve`` would import it, and every tool is built with the runtime's schema code, so what they would
reject is reported here with its ``file:line:column``:

* ``tools_import_failed`` (error) — importing the module raised (a syntax error, a missing package);
* ``unsupported_tool_signature`` (error) — a parameter the runtime cannot turn into a JSON Schema (a custom
  class, a pydantic model, ``*args``), at the parameter's line;
* ``undeclared_tool`` (warning) — a function that becomes a model-visible tool although nothing names it:
  not the DAG, not ``agent.yaml`` (e.g. its rules), not the instruction (e.g. a ``{{run tool}}`` program) —
  typically a public helper in a module without ``__all__``.

**Which child.** On Linux, when this process runs a single thread and has imported no agent's tools module
(a ``slotgraph validate`` process), the child is a fork of it (:func:`_forked_probe`): it starts with
pydantic and the standard library already loaded, ~20 ms of CPU where a fresh interpreter costs ~130 ms (a
first validation pays it once per tools module). Elsewhere (macOS, where forking a process that may have
loaded system frameworks is unsafe; Windows; a process with threads, which a fork would copy mid-work; a
process that already imported the module, which a fork would not import again) it is a fresh
``python -m slotgraph.cli.tool_probe`` (:func:`_spawned_probe`). Both print the same document, get the same
timeout and report a crash, a hang or stray output alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from slotgraph.cli import validate_cache
from slotgraph.config import ConfigIssue, Definition
from slotgraph.names import READBACK_TOOLS, SESSION_ENDING_TOOLS, TOOLS_MODULE_PREFIX

__all__ = ["PROBE_TIMEOUT_SECONDS", "dag_tool_names", "probe_env", "tool_issues"]

PROBE_TIMEOUT_SECONDS = 60.0
_BUILTINS = READBACK_TOOLS | SESSION_ENDING_TOOLS
_TOOL_KEYS = frozenset({"setter", "tool", "then"})


def dag_tool_names(raw: Any) -> set[str]:
    """Every tool name the DAG config mentions: setters, task tools, ``then`` targets, the bootstrap tool."""
    names: set[str] = set()
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            if key in _TOOL_KEYS and isinstance(value, str):
                names.add(value)
            else:
                names |= dag_tool_names(value)
    elif isinstance(raw, list):
        for item in raw:
            names |= dag_tool_names(item)
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
    """The probe child's environment: this process's, plus

    * ``PYTHONDONTWRITEBYTECODE=1`` — importing the agent's ``tools.py`` leaves no ``__pycache__`` beside it;
    * ``PYDANTIC_DISABLE_PLUGINS=__all__`` unless set — the probe only builds tool schemas, and looking for
      pydantic plugins reads the metadata of every installed distribution (~50 ms of the probe's start-up).
    """
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    return env


def _run_probe(tools_path: Path) -> dict[str, Any] | str:
    """The probe's output for ``tools_path`` (or why it failed). Inside a validation that may be cached,
    a clean earlier output is reused while nothing the module read changed
    (:func:`slotgraph.cli.validate_cache.cached_probe`), and a clean new one is kept."""
    cache = validate_cache.recording_active()
    if cache and (found := validate_cache.cached_probe(str(tools_path.resolve()))) is not None:
        return found
    result = _start_probe(tools_path)
    if cache and not isinstance(result, str):
        validate_cache.store_probe(str(tools_path.resolve()), result)
    return result


def _start_probe(tools_path: Path) -> dict[str, Any] | str:
    if _fork_is_safe():
        return _forked_probe(tools_path)
    return _spawned_probe(tools_path)


def _fork_is_safe() -> bool:
    """Whether the probe may run in a fork of this process (the module docstring says when)."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return False
    if threading.active_count() != 1:
        return False
    return not any(name.startswith(TOOLS_MODULE_PREFIX) for name in list(sys.modules))


def _forked_probe(tools_path: Path) -> dict[str, Any] | str:
    """The probe in a forked child (:func:`slotgraph.cli.tool_probe.run_forked`): its stdout read through a
    pipe until the child closes it or the timeout passes (then it is killed), its stderr kept in a
    temporary file for the failure message. A fork the system refuses (no memory, no process slot) falls
    back to a fresh interpreter; an interrupt of the validator stops the child too."""
    from slotgraph.cli import tool_probe  # imported before the fork, so both sides have it loaded

    path = str(tools_path.resolve())
    with tempfile.TemporaryFile() as stderr:
        readable, writable = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:
            os.close(readable)
            os.close(writable)
            return _spawned_probe(tools_path)
        if pid == 0:  # pragma: no cover - the child; measured by the tests through its output
            status = 1
            try:
                os.close(readable)
                os.dup2(writable, 1)
                os.dup2(stderr.fileno(), 2)
                os.close(writable)
                status = tool_probe.run_forked(path)
            finally:
                os._exit(status)
        os.close(writable)
        finished = False
        try:
            stdout, finished = _read_until_closed(readable, time.monotonic() + PROBE_TIMEOUT_SECONDS)
        finally:
            os.close(readable)
            if not finished:  # timed out, or the validator was interrupted: the child goes too
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            _, wait_status = os.waitpid(pid, 0)
        if not finished:
            return _timed_out()
        stderr.seek(0)
        errors = stderr.read().decode("utf-8", "replace")
    return _probe_output(os.waitstatus_to_exitcode(wait_status), stdout.decode("utf-8", "replace"), errors)


def _read_until_closed(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Everything written to the pipe ``fd`` until its writers close it (``True``), or what came before
    ``deadline`` (``False``)."""
    chunks: list[bytes] = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return b"".join(chunks), False
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)


def _spawned_probe(tools_path: Path) -> dict[str, Any] | str:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "slotgraph.cli.tool_probe", str(tools_path.resolve())],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_SECONDS,
            cwd=tools_path.resolve().parent,
            env=probe_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _timed_out()
    return _probe_output(done.returncode, done.stdout, done.stderr)


def _timed_out() -> str:
    return f"importing the tools module took longer than {PROBE_TIMEOUT_SECONDS:g} s"


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
    if not isinstance(result, str):
        validate_cache.record_dependencies(result.get("dependencies"))
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
