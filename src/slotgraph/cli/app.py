"""The ``slotgraph`` Typer app: the root group that resolves :data:`slotgraph.cli.main.COMMANDS` lazily."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer import _click as click  # typer's own click: the classes TyperGroup is built on
from typer.core import TyperCommand, TyperGroup, TyperOption

from slotgraph import __version__
from slotgraph.cli.help_texts import MAIN_EPILOG
from slotgraph.cli.main import COMMANDS

__all__ = ["build_app"]

_HELP = """Slotgraph: LLM agents whose control flow is deterministic."""


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
            command = lazy.load()
            _untyped_flags(command, ctx)
            self.add_command(command, cmd_name)
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


def _untyped_flags(command: click.Command, ctx: click.Context) -> None:
    """Typer's help prints a type beside every option, and for a flag it is ``<bool>`` (``--json <bool>``),
    which reads as if the flag took a value: a flag's type column stays empty (``--help``'s too)."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    if isinstance(command, TyperGroup):
        for subcommand in command.commands.values():
            _untyped_flags(subcommand, ctx)


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


def build_app() -> typer.Typer:
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
