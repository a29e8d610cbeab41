"""``slotgraph models list``: the model providers, how to name them, and whether they are ready to use.

For each provider: an example spec, what it is, whether its SDK is installed (else the extra to install) and
whether its key's environment variable is set. ``--json`` prints the same as a JSON list. The ``models`` group
is :data:`models_app`, registered in :func:`slotgraph.cli.main.create_app` with
``app.add_typer(models_app, name="models")``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Annotated, Any

import typer

from slotgraph.models.registry import ProviderInfo, ProviderRegistry, default_registry

__all__ = ["list_command", "models_app", "provider_rows"]

models_app = typer.Typer(
    name="models",
    help="Model backends: list the providers a 'provider:model' spec can name.",
    no_args_is_help=True,
    add_completion=False,
)


def _key_status(info: ProviderInfo, env: Mapping[str, str]) -> str:
    if not info.key_env:
        return "no key needed"
    names = " or ".join(info.key_env)
    state = "set" if info.key_present(env) else "not set"
    return f"{names} {state}" + ("" if info.key_required else " (optional)")


def provider_rows(registry: ProviderRegistry, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """One row per provider: name, example, description, installed, install hint, key variables and state."""
    return [
        {
            "provider": info.name,
            "example": info.example,
            "description": info.description,
            "installed": info.installed,
            "install": None if info.installed else info.install_hint(),
            "key_env": list(info.key_env),
            "key_required": info.key_required,
            "key_present": info.key_present(env),
            "key": _key_status(info, env),
        }
        for info in registry.list_providers()
    ]


@models_app.command("list")
def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the providers as a JSON list.")] = False,
) -> None:
    """List the model providers: example spec, description, install state, API key state."""
    rows = provider_rows(default_registry(), os.environ)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    width = max(len(row["example"]) for row in rows)
    for row in rows:
        ready = "installed" if row["installed"] else f"not installed: {row['install']}"
        typer.echo(f"{row['example']:<{width}}  {row['description']}")
        typer.echo(f"{'':<{width}}  {ready}; {row['key']}")
