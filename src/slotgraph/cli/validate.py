"""``slotgraph validate PATH...``: check agent directories, agent.yaml files, multi-agent apps, workflow files
and bare DAG files.

Every path is checked (one bad path does not hide the others). An agent's ``tools.py`` is read, never
imported, so validating an agent from anywhere runs none of its code; ``--check-tools`` also imports it in a
child process and checks every tool signature, so what ``chat`` would reject is found here
(:mod:`slotgraph.cli.tool_checks`). A config file larger than the limit (:data:`MAX_CONFIG_BYTES`) is refused
before it is parsed. Text output: one ``✓``/``✗`` line per path, then its warnings or every issue with
location, message and fix. ``--json`` prints one JSON document. Exit code: 2 if any path is unusable
(missing, directory without agent.yaml), else 1 if any config is invalid, else 0.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import issue_as_dict, issue_lines, stdout_console
from slotgraph.cli.paths import PATH_HELP, InvalidConfig, PathUsageError, load_path
from slotgraph.cli.tool_checks import tool_issues
from slotgraph.cli.workflow_paths import is_workflow_file, validate_workflow_file
from slotgraph.config import ConfigIssue
from slotgraph.config.agent import APP_FILE

__all__ = ["PathResult", "check_path", "result_lines", "run_validate", "validate_command"]

Status = Literal["valid", "invalid", "unusable"]


@dataclass(frozen=True, slots=True)
class PathResult:
    """The outcome of validating one path."""

    path: str
    status: Status
    kind: str | None = None
    slots: int = 0
    tasks: int = 0
    stages: int = 0
    errors: tuple[ConfigIssue, ...] = ()
    warnings: tuple[ConfigIssue, ...] = ()
    message: str = ""
    fix: str = ""

    @property
    def exit_code(self) -> ExitCode:
        return {"valid": ExitCode.OK, "invalid": ExitCode.INVALID_CONFIG, "unusable": ExitCode.USAGE}[
            self.status
        ]

    def as_dict(self) -> dict[str, Any]:
        if self.kind == "workflow":
            return {**self._common(), "stages": self.stages}
        return self._common()

    def _common(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "ok": self.status == "valid",
            "kind": self.kind,
            "slots": self.slots,
            "tasks": self.tasks,
            "errors": [issue_as_dict(i) for i in self.errors],
            "warnings": [issue_as_dict(i) for i in self.warnings],
            "message": self.message,
            "fix": self.fix,
        }


def check_path(path: Path, *, check_tools: bool = False) -> PathResult:
    """Validate one path; never raises for user mistakes.

    An agent's tools module is read, not imported; with ``check_tools`` it is imported in a child process
    and every tool signature checked (:mod:`slotgraph.cli.tool_checks`).
    """
    shown = str(path)
    if (path / APP_FILE).is_file() or path.name == APP_FILE:
        return _check_app(path, check_tools=check_tools)
    if is_workflow_file(path):
        stages, report = validate_workflow_file(path)
        if not report.ok:
            count = len(report.errors)
            summary = f"{count} problem{'s' if count != 1 else ''}"
            return PathResult(shown, "invalid", kind="workflow", errors=report.errors, message=summary)
        return PathResult(shown, "valid", kind="workflow", stages=stages, warnings=report.warnings)
    try:
        definition = load_path(path)
    except PathUsageError as err:
        return PathResult(shown, "unusable", message=err.message, fix=err.fix)
    except InvalidConfig as err:
        count = len(err.issues)
        summary = f"{count} problem{'s' if count != 1 else ''}" if count else err.message
        return PathResult(shown, "invalid", errors=err.issues, message=summary)
    tool_problems = list(tool_issues(definition)) if check_tools else []
    errors = tuple(i for i in tool_problems if i.severity == "error")
    warnings = definition.report.warnings + tuple(i for i in tool_problems if i.severity == "warning")
    if errors:
        count = len(errors)
        summary = f"{count} problem{'s' if count != 1 else ''} in the tools module"
        return PathResult(shown, "invalid", errors=errors, warnings=warnings, message=summary)
    return PathResult(
        shown,
        "valid",
        kind=definition.kind,
        slots=len(definition.dag.slots),
        tasks=len(definition.dag.tasks),
        warnings=warnings,
    )


def _check_app(path: Path, *, check_tools: bool) -> PathResult:
    """A multi-agent app: its file, then every agent as if validated alone (issues prefixed with its path),
    then the names the app file refers to."""
    from slotgraph.apps.loader import app_issues, read_app
    from slotgraph.config import ConfigError, ConfigValidationError, Definition, discover_tool_names
    from slotgraph.config.agent import agent_from_mapping
    from slotgraph.config.loader import read_located_mapping
    from slotgraph.logic import logic_issues

    shown = str(path)
    try:
        config, base = read_app(path)
    except ConfigValidationError as err:
        return PathResult(shown, "invalid", kind="app", errors=tuple(err.issues), message="invalid app file")
    except ConfigError as err:
        return PathResult(shown, "invalid", kind="app", message=str(err))
    errors: list[ConfigIssue] = []
    warnings: list[ConfigIssue] = []
    names: list[str] = []
    tools: dict[str, set[str]] = {}
    consults: dict[str, list[str]] = {}
    slots = tasks = 0
    file = path / APP_FILE if path.is_dir() else path
    for index, entry in enumerate(config.agents):
        label = f"agents[{entry.path}]" if entry.path is not None else f"agents[{index}].agent"
        definition: Definition | None = None
        if entry.path is not None:
            result = check_path(base / entry.path, check_tools=check_tools)
            errors += [i.prefixed(label) for i in result.errors]
            warnings += [i.prefixed(label) for i in result.warnings]
            with contextlib.suppress(PathUsageError, InvalidConfig):
                definition = load_path(base / entry.path)
        else:
            assert entry.agent is not None
            _, where = read_located_mapping(file, what="app file")
            try:
                definition = agent_from_mapping(
                    entry.agent, where.within(label), base, file, checks=(logic_issues,)
                )
            except ConfigValidationError as err:
                errors += [i.prefixed(label) for i in err.issues]
            except ConfigError as err:
                errors.append(ConfigIssue("invalid_agent", label, str(err), "fix the inline agent"))
            if definition is not None:
                found = list(tool_issues(definition)) if check_tools else []
                errors += [i.prefixed(label) for i in found if i.severity == "error"]
                found += definition.report.warnings
                warnings += [i.prefixed(label) for i in found if i.severity == "warning"]
        if definition is None:
            continue
        slots, tasks = slots + len(definition.dag.slots), tasks + len(definition.dag.tasks)
        name = definition.agent.name if definition.agent is not None else label
        names.append(name)
        own = discover_tool_names(definition.tools_path) if definition.tools_path is not None else set()
        tools[name] = set(own) | {tool.name for tool in definition.http_tools}
        handoff = definition.agent.handoff if definition.agent is not None else None
        if handoff is not None:
            consults[name] = [d.target for d in handoff.destinations if d.kind == "agent"]
    if len(names) == len(config.agents):
        errors += app_issues(config, names, tools, consults)
    if errors:
        count = len(errors)
        message = f"{count} problem{'s' if count != 1 else ''}"
        return PathResult(
            shown, "invalid", kind="app", errors=tuple(errors), warnings=tuple(warnings), message=message
        )
    return PathResult(shown, "valid", kind="app", slots=slots, tasks=tasks, warnings=tuple(warnings))


def result_lines(result: PathResult) -> list[str]:
    """The rich markup lines printed for one path: its ``✓``/``✗`` line, then its errors and warnings."""
    path = escape(result.path)
    if result.status == "valid" and result.kind == "workflow":
        lines = [f"[green]✓[/green] {path}: valid workflow ({result.stages} stages)"]
    elif result.status == "valid" and result.kind == "app":
        lines = [
            f"[green]✓[/green] {path}: valid multi-agent app ({result.slots} slots, {result.tasks} tasks)"
        ]
    elif result.status == "valid":
        lines = [
            f"[green]✓[/green] {path}: valid ({result.slots} slot{'s' if result.slots != 1 else ''}, "
            f"{result.tasks} task{'s' if result.tasks != 1 else ''})"
        ]
    elif result.status == "invalid":
        lines = [f"[red]✗[/red] {path}: invalid — {escape(result.message)}"]
    else:
        lines = [
            f"[red]✗[/red] {path}: {escape(result.message.removeprefix(result.path + ': '))}",
            f"    fix: {escape(result.fix)}",
        ]
    for issue in result.errors + result.warnings:
        lines += issue_lines(issue, indent="    ")
    return lines


def run_validate(paths: Sequence[Path], *, json_output: bool = False, check_tools: bool = False) -> ExitCode:
    """Validate every path and print the results (one JSON document with ``json_output``); the exit code.

    Exit code 0 when all are valid (warnings allowed), 1 when any config is invalid, 2 when a path is
    missing or is a directory without agent.yaml.
    """
    results = [check_path(path, check_tools=check_tools) for path in paths]
    code = max((r.exit_code for r in results), default=ExitCode.OK)
    if json_output:
        document = {
            "ok": code == ExitCode.OK,
            "exit_code": int(code),
            "results": [r.as_dict() for r in results],
        }
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    else:
        console = stdout_console()
        for result in results:
            for line in result_lines(result):
                console.print(line)
    return code


def validate_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help=f"One or more paths: {PATH_HELP}.", show_default=False, metavar="PATH"),
    ],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one machine-readable JSON document instead of text.")
    ] = False,
    check_tools: Annotated[
        bool,
        typer.Option(
            "--check-tools",
            help="Also import each agent's tools.py (in a separate process: it runs the module's code) and "
            "check every tool signature.",
        ),
    ] = False,
) -> None:
    """Check agent and DAG configs: every problem with its location and a fix.

    An agent's tools.py is read, never imported (its code does not run), unless --check-tools is given.

    Exit code 0 when all are valid (warnings allowed), 1 when any config is invalid, 2 when a path is
    missing or is a directory without agent.yaml.
    """
    raise typer.Exit(run_validate(paths, json_output=json_output, check_tools=check_tools))
