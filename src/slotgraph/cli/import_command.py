"""``slotgraph import PLATFORM_APP_DIR OUT_DIR``: a platform app export into Slotgraph agent directories.

Prints one row per thing mapped, translated, replaced, copied, dropped or not mapped, with its source location
(``--json``: the rows as JSON). Re-running writes the same files. Exit code: 0 when the import ran (with
``--strict``: 1 when anything could not be mapped; the rows say what, nothing is dropped silently), 2 when
the folder is not an app export.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import stdout_console

__all__ = ["import_command"]

_COLOURS = {
    "mapped": "green",
    "translated": "cyan",
    "replaced": "cyan",
    "copied": "green",
    "dropped": "yellow",
    "not mapped": "red",
}


def import_command(
    app_dir: Annotated[Path, typer.Argument(help="The platform app export (the folder holding app.json).")],
    out_dir: Annotated[Path, typer.Argument(help="Where to write one agent directory per agent.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when anything could not be mapped.")
    ] = False,
) -> None:
    """Import an app exported from the original hosting platform: agents, tools, goldens, tool tests."""
    from slotgraph.adapters.platform_export import PlatformExportError
    from slotgraph.adapters.platform_import import import_app

    console = stdout_console()
    try:
        report = import_app(app_dir, out_dir)
    except PlatformExportError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(ExitCode.USAGE) from None
    if as_json:
        rows = [_row(row) for row in report.rows]
        typer.echo(json.dumps({"app": report.app, "agents": [str(a) for a in report.agents], "rows": rows}))
    else:
        width = max((len(row.kind) for row in report.rows), default=4)
        for row in report.rows:
            colour = _COLOURS[row.status]
            console.print(
                f"[{colour}]{row.status:<10}[/{colour}] {escape(row.kind):<{width}}  {escape(row.name)}"
                f"  [dim]{escape(row.source)}[/dim]\n{'':<{12 + width}}{escape(row.detail)}",
                soft_wrap=True,
            )
        agents = ", ".join(str(a) for a in report.agents)
        console.print(f"\nimported {len(report.agents)} agents of {escape(report.app)!r}: {escape(agents)}")
        if report.unmapped:
            console.print(f"[red]{len(report.unmapped)} items could not be mapped[/red] (rows 'not mapped')")
    raise typer.Exit(ExitCode.INVALID_CONFIG if strict and report.unmapped else ExitCode.OK)


def _row(row: object) -> dict[str, str]:
    return {name: str(getattr(row, name)) for name in ("status", "kind", "name", "source", "detail")}
