"""``slotgraph init [TEMPLATE] DIR``: scaffold a working agent from a template that ships in the package.

Templates live in ``slotgraph/cli/templates/NAME/`` (``agent.yaml``, ``dag.yaml``, ``tools.py`` and a
scenario); ``$agent_name`` in ``agent.yaml`` becomes the directory's name as a snake_case identifier. Every
template passes ``slotgraph validate`` and ``slotgraph test`` as written (the test suite checks it).

Exit codes: 0 created, 2 usage error (unknown template, DIR exists and is not empty, too many arguments).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template
from typing import Annotated

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import fail, stderr_console, stdout_console
from slotgraph.config.suggest import did_you_mean
from slotgraph.errors import SlotgraphError

__all__ = ["DEFAULT_TEMPLATE", "InitError", "agent_name_for", "init_agent", "init_command", "template_names"]

DEFAULT_TEMPLATE = "basic"
_SUBSTITUTED = ("agent.yaml",)
_SKIPPED = {"__pycache__"}


class InitError(SlotgraphError):
    """The arguments cannot be scaffolded (exit 2)."""

    code = "init_error"

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message, fix=fix)
        self.message = message


@dataclass(frozen=True, slots=True)
class Created:
    """What :func:`init_agent` wrote."""

    directory: Path
    template: str
    agent_name: str
    files: tuple[Path, ...]


def _templates() -> Traversable:
    return resources.files("slotgraph.cli").joinpath("templates")


def template_names() -> list[str]:
    """The templates that ship with Slotgraph, sorted."""
    return sorted(t.name for t in _templates().iterdir() if t.is_dir() and t.name not in _SKIPPED)


def agent_name_for(directory: Path) -> str:
    """The agent name a directory gets: its name in snake_case (``My Agent`` → ``my_agent``)."""
    name = re.sub(r"[^0-9a-zA-Z]+", "_", directory.resolve().name).strip("_").lower()
    if not name:
        return "agent"
    return name if not name[0].isdigit() else f"agent_{name}"


def _copy(source: Traversable, target: Path, agent_name: str, written: list[Path]) -> None:
    for item in sorted(source.iterdir(), key=lambda t: t.name):
        if item.name in _SKIPPED:
            continue
        destination = target / item.name
        if item.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            _copy(item, destination, agent_name, written)
            continue
        text = item.read_text(encoding="utf-8")
        if item.name in _SUBSTITUTED:
            text = Template(text).safe_substitute(agent_name=agent_name)
        destination.write_text(text, encoding="utf-8")
        written.append(destination)


def init_agent(directory: Path, template: str = DEFAULT_TEMPLATE) -> Created:
    """Write ``template`` into ``directory`` (created; it must be missing or empty)."""
    names = template_names()
    if template not in names:
        raise InitError(
            f"unknown template {template!r}{did_you_mean(template, names)}",
            f"use one of: {', '.join(names)} (slotgraph init --list)",
        )
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise InitError(
            f"{directory} already exists and is not an empty directory",
            "pass a new directory name; init never overwrites files",
        )
    directory.mkdir(parents=True, exist_ok=True)
    agent_name = agent_name_for(directory)
    written: list[Path] = []
    _copy(_templates().joinpath(template), directory, agent_name, written)
    return Created(directory, template, agent_name, tuple(written))


def init_command(
    arguments: Annotated[
        list[str] | None,
        typer.Argument(
            help="[TEMPLATE] DIR: the directory to create (missing or empty), after an optional template.",
            metavar="[TEMPLATE] DIR",
            show_default=False,
        ),
    ] = None,
    list_templates: Annotated[bool, typer.Option("--list", help="List the templates and exit.")] = False,
) -> None:
    """Create a new agent (agent.yaml, dag.yaml, tools.py, a scenario) that passes validate and test."""
    out = stdout_console()
    if list_templates:
        for name in template_names():
            marker = " (default)" if name == DEFAULT_TEMPLATE else ""
            out.print(f"{name}{marker}")
        raise typer.Exit(int(ExitCode.OK))
    args = arguments or []
    try:
        if len(args) == 1:
            created = init_agent(Path(args[0]))
        elif len(args) == 2:
            created = init_agent(Path(args[1]), args[0])
        else:
            raise InitError(
                f"expected [TEMPLATE] DIR, got {len(args)} argument{'s' if len(args) != 1 else ''}",
                "e.g. slotgraph init my_agent, or slotgraph init minimal my_agent",
            )
    except InitError as err:
        raise typer.Exit(fail(stderr_console(), err.message, ExitCode.USAGE, err.fix)) from None
    where = escape(str(created.directory))
    out.print(f"Created agent {escape(created.agent_name)!s} in {where} (template {created.template}):")
    for file in created.files:
        out.print(f"  {escape(str(file))}")
    out.print("Next:")
    out.print(f"  slotgraph validate {where}")
    out.print(f"  slotgraph chat {where}")
    out.print(f"  slotgraph test {where}")
