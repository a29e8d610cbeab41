"""The ``slotgraph`` application: one module per command, wired here and nowhere else.

Commands are nouns or noun-verb groups: ``init``, ``validate``, ``graph``, ``schema``, ``version``,
``chat``, ``run``, ``worker``, ``test``, ``serve`` and the ``models`` group (``models list``), each plugged
in with ``app.command(...)`` or ``app.add_typer(...)`` in :func:`create_app`, with its ``--help`` examples
and exit codes from :mod:`slotgraph.cli.help_texts`. ``slotgraph --version`` prints the version; shell
completion comes from ``--install-completion`` / ``--show-completion``. The app is built by a function, so
nothing here is module state.
"""

from __future__ import annotations

from typing import Annotated

import typer
from typer.models import CommandInfo, DefaultPlaceholder, TyperInfo

from slotgraph import __version__
from slotgraph.cli.chat import chat_command
from slotgraph.cli.graph import graph_command
from slotgraph.cli.help_texts import EPILOGS, MAIN_EPILOG
from slotgraph.cli.import_command import import_command
from slotgraph.cli.init_command import init_command
from slotgraph.cli.models import models_app
from slotgraph.cli.run import run_command
from slotgraph.cli.schema import schema_command
from slotgraph.cli.serve import serve_command
from slotgraph.cli.test_command import test_command
from slotgraph.cli.validate import validate_command
from slotgraph.cli.version import version_command
from slotgraph.cli.worker import worker_command

__all__ = ["create_app", "main"]

_HELP = """Slotgraph: LLM agents whose control flow is deterministic."""


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"slotgraph {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """Slotgraph: LLM agents whose control flow is deterministic."""


def _add_help_epilogs(app: typer.Typer) -> None:
    """Every command's ``--help`` ends with its examples and exit codes (:mod:`slotgraph.cli.help_texts`)."""
    infos: list[CommandInfo | TyperInfo] = [*app.registered_commands, *app.registered_groups]
    for info in infos:
        unset = info.epilog is None or isinstance(info.epilog, DefaultPlaceholder)
        if isinstance(info.name, str) and info.name in EPILOGS and unset:
            info.epilog = EPILOGS[info.name]


def create_app() -> typer.Typer:
    """Build the ``slotgraph`` Typer app with every command registered."""
    app = typer.Typer(
        name="slotgraph",
        help=_HELP,
        epilog=MAIN_EPILOG,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode="rich",
    )
    app.callback(no_args_is_help=True)(_root)
    app.command("init")(init_command)
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
    _add_help_epilogs(app)
    return app


def main() -> None:
    """Console-script entry point (``slotgraph`` and ``python -m slotgraph``)."""
    create_app()(prog_name="slotgraph")
