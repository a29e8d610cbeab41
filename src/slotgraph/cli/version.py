"""``slotgraph version``: print the installed Slotgraph version and whether its compiled core runs."""

from __future__ import annotations

import typer

from slotgraph import __version__
from slotgraph._native import status

__all__ = ["version_command"]


def version_command() -> None:
    """Print the Slotgraph version and which core runs.

    The second line is ``core: compiled``, or ``core: pure Python (why)``."""
    typer.echo(f"slotgraph {__version__}")
    typer.echo(f"core: {status().reason}")
