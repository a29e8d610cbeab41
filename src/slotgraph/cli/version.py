"""``slotgraph version``: print the installed Slotgraph version."""

from __future__ import annotations

import typer

from slotgraph import __version__

__all__ = ["version_command"]


def version_command() -> None:
    """Print the Slotgraph version."""
    typer.echo(f"slotgraph {__version__}")
