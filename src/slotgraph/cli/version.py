"""``slotgraph version``: print the installed Slotgraph version."""

from __future__ import annotations

import platform

import typer

from slotgraph import __version__

__all__ = ["version_command"]


def version_command() -> None:
    """Print the Slotgraph version (and the Python running it)."""
    typer.echo(f"slotgraph {__version__} (Python {platform.python_version()})")
