"""The typer face of ``slotgraph validate``: its arguments and help; the work is
:func:`slotgraph.cli.validate.run_validate`.

The plain forms of the arguments (paths, ``--json``, ``--no-cache``) are usually answered before typer loads
(:mod:`slotgraph.cli.validate_fast`); this command runs for the rest (``--help``, a mistyped option, no
path), and under typer's test runner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from slotgraph.cli import validate_cache
from slotgraph.cli.paths import PATH_HELP
from slotgraph.cli.validate import run_validate

__all__ = ["validate_command"]


def validate_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help=f"One or more paths: {PATH_HELP}.", show_default=False, metavar="PATH"),
    ],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one machine-readable JSON document instead of text.")
    ] = False,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Validate again even if nothing changed since the last pass, and store nothing "
            f"(also: {validate_cache.DISABLE_ENV}=1).",
        ),
    ] = False,
) -> None:
    """Check agent and DAG configs: every problem with its location and a fix.

    Exit code 0 when all are valid (warnings allowed), 1 when any config is invalid, 2 when a path is
    missing or is a directory without agent.yaml.
    """
    raise typer.Exit(run_validate(paths, json_output=json_output, no_cache=no_cache))
