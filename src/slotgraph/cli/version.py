"""``slotgraph version``: print the installed Slotgraph version."""

from __future__ import annotations

import platform

import typer

from slotgraph import __version__

__all__ = ["version_command"]


def version_command() -> None:
    """Print the Slotgraph version and the Python that runs it."""
    typer.echo(f"slotgraph {__version__}")
    typer.echo(f"python {platform.python_version()} ({platform.python_implementation()})")
