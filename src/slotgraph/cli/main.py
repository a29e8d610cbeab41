"""The ``slotgraph`` application: one module per command, wired here and nowhere else.

Commands are nouns or noun-verb groups: ``validate``, ``graph``, ``schema``, ``version``, ``chat``,
``test``, ``serve`` and the ``models`` group (``models list``), each plugged in with ``app.command(...)`` or
``app.add_typer(...)`` in :func:`create_app`. The app is built by a function, so nothing here is module
state.
"""

from __future__ import annotations

import typer

from slotgraph.cli.chat import chat_command
from slotgraph.cli.graph import graph_command
from slotgraph.cli.import_command import import_command
from slotgraph.cli.models import models_app
from slotgraph.cli.run import run_command
from slotgraph.cli.schema import schema_command
from slotgraph.cli.serve import serve_command
from slotgraph.cli.test_command import test_command
from slotgraph.cli.validate import validate_command
from slotgraph.cli.version import version_command
from slotgraph.cli.worker import worker_command

__all__ = ["create_app", "main"]

_HELP = """Slotgraph: LLM agents whose control flow is deterministic.

Exit codes: 0 ok, 1 invalid config, 2 usage error (bad path or option)."""


def create_app() -> typer.Typer:
    """Build the ``slotgraph`` Typer app with every command registered."""
    app = typer.Typer(
        name="slotgraph",
        help=_HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.command("validate")(validate_command)
    app.command("chat")(chat_command)
    app.command("run")(run_command)
    app.command("worker")(worker_command)
    app.command("graph")(graph_command)
    app.command("import")(import_command)
    app.command("schema")(schema_command)
    app.command("serve")(serve_command)
    app.command("test")(test_command)
    app.command("version")(version_command)
    app.add_typer(models_app, name="models")
    return app


def main() -> None:
    """Console-script entry point (``slotgraph`` and ``python -m slotgraph``)."""
    create_app()(prog_name="slotgraph")
