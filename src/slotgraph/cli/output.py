"""Console output shared by the commands: rich consoles, issue formatting, usage errors.

User-supplied text (paths, config messages such as ``tasks[1]``) is always escaped before it reaches rich,
so square brackets are printed, never read as markup.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from rich.console import Console
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.redaction import redact

if TYPE_CHECKING:  # pragma: no cover - the config layer is not imported to print (validate's cache hit)
    from slotgraph.config import ConfigIssue

__all__ = [
    "fail",
    "issue_as_dict",
    "issue_lines",
    "plain_text",
    "print_error",
    "print_issue",
    "stderr_console",
    "stdout_console",
    "usage_error",
    "write_text",
]

_SEVERITY_STYLE = {"error": "red", "warning": "yellow"}


def stdout_console() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def plain_text(lines: Iterable[str]) -> str:
    """What ``stdout_console().print`` prints for each markup line when stdout is not a terminal."""
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, highlight=False, soft_wrap=True, emoji=False)
    for line in lines:
        console.print(line)
    return buffer.getvalue()


def issue_lines(issue: ConfigIssue, *, indent: str = "  ") -> list[str]:
    """The rich markup lines of :func:`print_issue`."""
    style = _SEVERITY_STYLE.get(issue.severity, "")
    where = escape(issue.location or "<config>")
    position = f"{escape(issue.position)}: " if issue.line is not None else ""
    severity = f"[{style}]{issue.severity:<8}[/{style}]"
    lines = [f"{indent}{severity} {position}[bold]{where}[/bold]: {escape(issue.message)}"]
    if issue.fix:
        lines.append(f"{indent}{'':<8} fix: {escape(issue.fix)}")
    return lines


def print_issue(console: Console, issue: ConfigIssue, *, indent: str = "  ") -> None:
    """``  error    file:line:column: location: message`` then ``           fix: ...`` on its own line.

    The ``file:line:column: `` part is there when the config was read from a file.
    """
    for line in issue_lines(issue, indent=indent):
        console.print(line)


def issue_as_dict(issue: ConfigIssue) -> dict[str, Any]:
    return {
        "code": issue.code,
        "severity": issue.severity,
        "location": issue.location,
        "message": issue.message,
        "fix": issue.fix,
        "file": issue.file,
        "line": issue.line,
        "column": issue.column,
    }


def print_error(console: Console, message: str, fix: str = "") -> None:
    """``error: message`` and, when there is one, ``  fix: ...`` on the next line.

    Both are redacted (:func:`slotgraph.redaction.redact`): an error may quote a store URL, a provider's
    answer or a value from the environment.
    """
    console.print(f"[red]error:[/red] {escape(redact(message))}")
    if fix:
        console.print(f"  fix: {escape(redact(fix))}")


def fail(console: Console, message: str, code: ExitCode, fix: str = "") -> int:
    """:func:`print_error` on ``console``, then the exit code to return."""
    print_error(console, message, fix)
    return int(code)


def usage_error(message: str, *, fix: str = "") -> NoReturn:
    """Print ``error: message`` (and the fix) on stderr and exit with :attr:`ExitCode.USAGE`."""
    import typer

    print_error(stderr_console(), message, fix)
    raise typer.Exit(ExitCode.USAGE)


def write_text(text: str, output: Path | None, *, what: str) -> None:
    """Write ``text`` to ``output`` (a note on stderr) or, without ``output``, to stdout."""
    import typer

    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write {output}: {err.strerror or err}", fix="choose a writable --output path")
    stderr_console().print(f"Wrote {what} to {escape(str(output))}")
