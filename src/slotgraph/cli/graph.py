"""``slotgraph graph PATH``: draw an agent's DAG as Mermaid (default) or Graphviz DOT.

The config must be valid (an invalid one prints its issues and exits 1). The diagram goes to stdout, or to
``--output FILE``. Rendering itself lives in :mod:`slotgraph.config.graph`.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import print_issue, stderr_console, usage_error, write_text
from slotgraph.cli.paths import PATH_HELP, InvalidConfig, PathUsageError, load_path
from slotgraph.config.graph import render_dot, render_mermaid

__all__ = ["DiagramFormat", "graph_command"]


class DiagramFormat(StrEnum):
    """The diagram languages ``slotgraph graph`` writes."""

    mermaid = "mermaid"
    dot = "dot"


def graph_command(
    path: Annotated[
        Path,
        typer.Argument(help=f"The agent or DAG to draw: {PATH_HELP}.", show_default=False, metavar="PATH"),
    ],
    diagram_format: Annotated[
        DiagramFormat,
        typer.Option("--format", "-f", help="Diagram language: Mermaid flowchart or Graphviz DOT."),
    ] = DiagramFormat.mermaid,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the diagram to this file instead of stdout.")
    ] = None,
) -> None:
    """Draw the DAG: slots, tasks, inputs, outputs and requires edges.

    Exit code 0 on success, 1 when the config is invalid, 2 for a missing path or an unwritable output.
    """
    try:
        definition = load_path(path)
    except PathUsageError as err:
        usage_error(err.message, fix=err.fix)
    except InvalidConfig as err:
        console = stderr_console()
        console.print(f"[red]✗[/red] {escape(str(path))}: invalid — cannot draw it")
        if err.issues:
            for issue in err.issues:
                print_issue(console, issue, indent="    ")
        else:
            console.print(f"    {escape(err.message)}")
        raise typer.Exit(ExitCode.INVALID_CONFIG) from None
    render = render_dot if diagram_format is DiagramFormat.dot else render_mermaid
    write_text(render(definition.dag), output, what=f"{diagram_format.value} diagram")
