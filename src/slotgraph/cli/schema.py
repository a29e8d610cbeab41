"""``slotgraph schema``: print the JSON Schema of the DAG config (or of agent.yaml with ``--agent``).

Point an editor at the output (e.g. a ``# yaml-language-server: $schema=dag.schema.json`` comment) to get
completion and checking while writing configs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from slotgraph.cli.output import write_text
from slotgraph.config import agent_json_schema, dag_json_schema

__all__ = ["schema_command"]


def schema_command(
    agent: Annotated[
        bool, typer.Option("--agent", help="The schema of agent.yaml instead of the DAG config.")
    ] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the schema to this file instead of stdout.")
    ] = None,
) -> None:
    """Print the JSON Schema of the DAG config, or of agent.yaml with --agent.

    Exit code 0 on success, 2 for an unwritable output.
    """
    schema = agent_json_schema() if agent else dag_json_schema()
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    write_text(text, output, what="agent.yaml schema" if agent else "DAG config schema")
