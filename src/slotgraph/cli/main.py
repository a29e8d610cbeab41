"""The ``slotgraph`` application: one module per command, wired here and nowhere else.

Commands are nouns or noun-verb groups: ``init``, ``validate``, ``graph``, ``schema``, ``version``, ``chat``,
``run``, ``worker``, ``import``, ``test``, ``serve``, the ``executions`` group (``executions show``,
``executions settle``) and the ``models`` group (``models list``), each listed once in :data:`COMMANDS` with
the module and attribute that define it and its one-line summary; its ``--help`` examples and exit codes come
from :mod:`slotgraph.cli.help_texts`. ``slotgraph --version`` prints the
version; shell completion comes from ``--install-completion`` / ``--show-completion``.

**Lazy commands.** A command's module is imported only when that command runs: ``slotgraph --help`` imports
none of them (it lists the summaries below), ``slotgraph validate`` imports the validator and not the server,
the chat loop or the evaluation harness. So start-up stays fast as commands are added. A test keeps every
summary equal to the command's own help text. The app is built by a function, so nothing here is module state.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from typer import _click as click  # typer's own click: the classes TyperGroup is built on
from typer.core import TyperCommand, TyperGroup

from slotgraph import __version__
from slotgraph.cli.help_texts import EPILOGS, MAIN_EPILOG

__all__ = ["COMMANDS", "LazyCommand", "create_app", "main"]

_HELP = """Slotgraph: LLM agents whose control flow is deterministic."""


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A command registered by name: ``target`` is ``"module:attribute"`` (a function, or a Typer group)."""

    name: str
    target: str
    summary: str

    def load(self) -> click.Command:
        module, attribute = self.target.split(":")
        value = getattr(importlib.import_module(module), attribute)
        command: click.Command
        if isinstance(value, typer.Typer):
            command = typer.main.get_group(value)
        else:
            single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
            single.command(self.name)(value)
            command = typer.main.get_command(single)
        command.name = self.name
        if not command.epilog and self.name in EPILOGS:  # examples and exit codes under --help
            command.epilog = EPILOGS[self.name]
        return command


COMMANDS: tuple[LazyCommand, ...] = (
    LazyCommand(
        "init",
        "slotgraph.cli.init_command:init_command",
        "Create a new agent (agent.yaml, dag.yaml, tools.py, a scenario) that passes validate and test.",
    ),
    LazyCommand(
        "validate",
        "slotgraph.cli.validate:validate_command",
        "Check agent and DAG configs: every problem with its location and a fix.",
    ),
    LazyCommand(
        "chat",
        "slotgraph.cli.chat:chat_command",
        "Chat with an agent in the terminal (line editing, history, /help); piped stdin: one turn per line.",
    ),
    LazyCommand(
        "run",
        "slotgraph.cli.run:run_command",
        "Run a workflow: a payload in, each stage shown as it finishes, the run's channels out.",
    ),
    LazyCommand(
        "worker",
        "slotgraph.cli.worker:worker_command",
        "Execute workflow runs from a queue (Celery with the Redis broker; needs slotgraph[queue]).",
    ),
    LazyCommand(
        "graph",
        "slotgraph.cli.graph:graph_command",
        "Draw the DAG: slots, tasks, inputs, outputs and requires edges.",
    ),
    LazyCommand(
        "import",
        "slotgraph.cli.import_command:import_command",
        "Import an app exported from the original hosting platform: agents, tools, goldens, tool tests.",
    ),
    LazyCommand(
        "schema",
        "slotgraph.cli.schema:schema_command",
        "Print the JSON Schema of the DAG config, or of agent.yaml with --agent.",
    ),
    LazyCommand(
        "serve",
        "slotgraph.cli.serve:serve_command",
        "Serve agents over HTTP: the /v1 API, server-sent events and the web playground at /.",
    ),
    LazyCommand(
        "test",
        "slotgraph.cli.test_command:test_command",
        "Run conversation scenarios and platform goldens; exit 0 when all pass, 1 on a failure, 2 on misuse.",
    ),
    LazyCommand("version", "slotgraph.cli.version:version_command", "Print the Slotgraph version."),
    LazyCommand(
        "executions",
        "slotgraph.cli.executions:executions_app",
        "Show or settle a side effect left unconfirmed by an interrupted turn (the store's ledger).",
    ),
    LazyCommand(
        "models",
        "slotgraph.cli.models:models_app",
        "Model backends: list the providers a 'provider:model' spec can name.",
    ),
)


class _LazyGroup(TyperGroup):
    """The root group: commands come from :data:`COMMANDS`, loaded when first resolved.

    While the root help is drawn, commands are stand-ins carrying only their summary, so listing them
    imports nothing.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy = {command.name: command for command in COMMANDS}
        self._listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self._lazy, *(name for name in super().list_commands(ctx) if name not in self._lazy)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = self._lazy.get(cmd_name)
        if lazy is None:
            return super().get_command(ctx, cmd_name)
        if self._listing:
            return TyperCommand(lazy.name, help=lazy.summary, short_help=lazy.summary)
        if cmd_name not in self.commands:
            self.add_command(lazy.load(), cmd_name)
        return self.commands[cmd_name]

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            if ctx.parent is None:
                # The root help is drawn by click's plain formatter: drawing it with rich would import rich
                # (~100 ms) for one screen, and `slotgraph --help` is the first thing a newcomer runs.
                # Every command's own --help (which imports its module anyway) keeps the rich layout.
                click.Command.format_help(self, ctx, formatter)
            else:
                super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            # Typer prints a no-arguments help only when rich draws it; the root help is plain, so print it
            # here (to stdout, exit code 2 as before: running `slotgraph` alone is a usage error).
            typer.echo(ctx.get_help())
            ctx.exit(2)
        return super().parse_args(ctx, args)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if ctx.parent is not None:
            super().format_epilog(ctx, formatter)
            return
        formatter.write_paragraph()
        for line in MAIN_EPILOG.splitlines():
            formatter.write(f"{line}\n" if line else "\n")


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


def create_app() -> typer.Typer:
    """Build the ``slotgraph`` Typer app; its commands are the lazily loaded :data:`COMMANDS`."""
    app = typer.Typer(
        name="slotgraph",
        help=_HELP,
        epilog=MAIN_EPILOG,
        cls=_LazyGroup,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode="rich",
    )
    app.callback(no_args_is_help=True)(_root)
    return app


def main() -> None:
    """Console-script entry point (``slotgraph`` and ``python -m slotgraph``)."""
    create_app()(prog_name="slotgraph")
