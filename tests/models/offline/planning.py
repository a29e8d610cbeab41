"""What the offline-model tests build their inputs from: setter tools, the framework's instruction, a plan."""

from __future__ import annotations

import datetime as dt
from typing import Any

from slotgraph.models.offline import Plan, plan_turn

__all__ = ["instruction", "plan_for", "setter"]


def setter(name: str, description: str = "", **properties: dict[str, Any]) -> dict[str, Any]:
    """A tool as the runtime shows it to a model: a name, a description and an object of ``properties``."""
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties},
    }


def instruction(directive: str | None, *, readback: bool = False) -> str:
    """A system instruction in the collection phase (the readback phase with ``readback``) whose
    ``<system_directive>`` is ``directive`` (none when it is None)."""
    block = (
        "<readback_protocol>...</readback_protocol>"
        if readback
        else "<slot_filling_protocol>...</slot_filling_protocol>"
    )
    return block + (f"\n<system_directive>\n{directive}\n</system_directive>" if directive else "")


def plan_for(
    tools: list[dict[str, Any]],
    directive: str | None,
    user: str | None,
    *,
    now: dt.datetime,
    readback: bool = False,
    **context: Any,
) -> Plan:
    """The offline planner's plan for ``user`` answering ``directive`` with ``tools`` visible at ``now``;
    ``context`` goes to :func:`plan_turn` as is (``agent_said=...``)."""
    return plan_turn(
        tools,
        system_instruction=instruction(directive, readback=readback),
        user_text=user,
        now=now,
        **context,
    )
