"""The ``slotgraph`` application: one module per command, wired here and nowhere else.

Commands are nouns or noun-verb groups: ``init``, ``validate``, ``graph``, ``schema``, ``version``, ``chat``,
``run``, ``worker``, ``import``, ``test``, ``serve``, ``mcp``, the ``executions`` group (``executions show``,
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
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slotgraph.cli.help_texts import EPILOGS

if TYPE_CHECKING:  # pragma: no cover - typer is imported only when a command is built
    import typer
    from typer import _click as click

__all__ = ["COMMANDS", "FastPath", "LazyCommand", "create_app", "main"]

FastPath = Callable[[Sequence[str]], "int | None"]
"""A command's answer before the CLI framework loads: its arguments in, an exit code out, or ``None`` to run
the command normally (arguments it does not handle, a cache miss)."""


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A command registered by name: ``target`` is ``"module:attribute"`` (a function, or a Typer group).

    ``fast``, when set, is another ``"module:attribute"``: a :data:`FastPath` that :func:`main` tries before
    importing typer (``validate`` answers an unchanged config from its cache there, and validates the plain
    forms of its arguments without typer: :mod:`slotgraph.cli.validate_fast`). It must print exactly what
    the command would print.
    """

    name: str
    target: str
    summary: str
    fast: str | None = None

    def load(self) -> click.Command:
        import typer

        value = _resolve(self.target)
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
        "slotgraph.cli.validate_command:validate_command",
        "Check agent and DAG configs: every problem with its location and a fix.",
        fast="slotgraph.cli.validate_fast:validate_fast",
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
        "mcp",
        "slotgraph.cli.mcp_command:mcp_command",
        "Serve an agent as MCP tools over stdio, for an assistant or IDE to call.",
    ),
    LazyCommand(
        "test",
        "slotgraph.cli.test_command:test_command",
        "Run conversation scenarios and platform goldens; exit 0 when all pass, 1 on a failure, 2 on misuse.",
    ),
    LazyCommand(
        "version",
        "slotgraph.cli.version:version_command",
        "Print the Slotgraph version and the Python that runs it.",
    ),
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


def _resolve(target: str) -> Any:
    module, attribute = target.split(":")
    return getattr(importlib.import_module(module), attribute)


def create_app() -> typer.Typer:
    """Build the ``slotgraph`` Typer app; its commands are the lazily loaded :data:`COMMANDS`."""
    from slotgraph.cli.app import build_app

    return build_app()


def main() -> None:
    """Console-script entry point (``slotgraph`` and ``python -m slotgraph``).

    A command with a fast path gets the first word: when it answers, the process exits with its code without
    importing typer; otherwise the full app parses the arguments as usual.
    """
    args = sys.argv[1:]
    command = next((c for c in COMMANDS if args and c.name == args[0] and c.fast is not None), None)
    if command is not None and command.fast is not None:
        fast: FastPath = _resolve(command.fast)
        code = fast(args[1:])
        if code is not None:
            sys.stdout.flush()
            raise SystemExit(code)
    create_app()(prog_name="slotgraph")
