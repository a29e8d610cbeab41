"""The agent loop: Slotgraph's own host for the slot-filling engine (docs/architecture.md#one-turn).

Public API::

    from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call

    agent = Agent.load("examples/bella_notte", model=ScriptedModel([...]))
    session = agent.session(seed=0)
    result = session.send("a table for four next Friday")   # -> TurnResult
    result.text, result.events, session.state, session.status

Modules, one decision each: :mod:`~slotgraph.runtime.turn_preparation` (engine invocation, visible tools,
terminal and gate handling), :mod:`~slotgraph.runtime.instructions` (the phase suffix after the sentinel),
:mod:`~slotgraph.runtime.preemption` (does the engine speak instead of the model),
:mod:`~slotgraph.runtime.tool_execution` (run or refuse a tool call, route its result),
:mod:`~slotgraph.runtime.payloads` (after-model payload injection), :mod:`~slotgraph.runtime.turn_loop` (the
order of all of these, for one agent on one DAG), :mod:`~slotgraph.runtime.router` (a turn's parts: hand-overs
between agents, moves between topics' DAGs), :mod:`~slotgraph.runtime.session` (wiring: store, clock, sync
facade).

The names below are imported on first use (PEP 562), so importing one module of the package — e.g.
:mod:`slotgraph.runtime.tools`, which ``slotgraph validate`` needs — does not load the whole runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "AssistantText",
            "AssistantToolCalls",
            "Message",
            "Model",
            "ModelRequest",
            "ModelResponse",
            "ToolCall",
            "ToolResultMessage",
            "ToolSchema",
            "Usage",
            "UserMessage",
        ),
        "slotgraph.models.protocol",
    ),
    **dict.fromkeys(
        ("ScriptedModel", "ScriptedStep", "call", "estimate_prompt_tokens"), "slotgraph.models.scripted"
    ),
    "Agent": "slotgraph.runtime.agent",
    "readback_result": "slotgraph.runtime.builtin_tools",
    **dict.fromkeys(("DagEngine", "Engine", "EngineResult"), "slotgraph.runtime.engine_port"),
    **dict.fromkeys(
        (
            "AgentLoadError",
            "ModelNotAvailableError",
            "ModelOutputError",
            "ScriptedModelError",
            "SessionError",
            "SessionNotCompleteError",
            "SlotgraphRuntimeError",
            "SlotsValidationError",
            "StoreConflictError",
            "ToolDefinitionError",
        ),
        "slotgraph.runtime.errors",
    ),
    **dict.fromkeys(
        (
            "AgentTransferEvent",
            "EndSessionEvent",
            "ErrorEvent",
            "Event",
            "GuardEvent",
            "ModelNoCallEvent",
            "PayloadEvent",
            "RefusalEvent",
            "StateSnapshotEvent",
            "TextEvent",
            "ToolCallEvent",
            "ToolResultEvent",
            "TopicEvent",
            "TransferEvent",
            "TurnResult",
            "TurnStep",
            "event_to_json",
            "step_to_json",
        ),
        "slotgraph.runtime.events",
    ),
    **dict.fromkeys(("SENTINEL", "build_phase_suffix", "inject_suffix"), "slotgraph.runtime.instructions"),
    **dict.fromkeys(("ExecutionLedger", "LedgerEntry", "Reservation"), "slotgraph.stores.ledger"),
    "resolve_model": "slotgraph.runtime.model_resolution",
    "Session": "slotgraph.runtime.session",
    "InMemoryStore": "slotgraph.stores.memory",
    "SessionStore": "slotgraph.stores.protocol",
    **dict.fromkeys(
        ("Tool", "ToolContext", "ToolRegistry", "load_tools_module", "tool_from_function"),
        "slotgraph.runtime.tools",
    ),
    **dict.fromkeys(("DEFAULT_STEP_CAP", "EventSink"), "slotgraph.runtime.turn_loop"),
    **dict.fromkeys(("SessionResult", "TaskOutcome"), "slotgraph.runtime.typed_results"),
}

__all__ = [
    "DEFAULT_STEP_CAP",
    "SENTINEL",
    "Agent",
    "AgentLoadError",
    "AgentTransferEvent",
    "AssistantText",
    "AssistantToolCalls",
    "DagEngine",
    "EndSessionEvent",
    "Engine",
    "EngineResult",
    "ErrorEvent",
    "Event",
    "EventSink",
    "ExecutionLedger",
    "GuardEvent",
    "InMemoryStore",
    "LedgerEntry",
    "Message",
    "Model",
    "ModelNoCallEvent",
    "ModelNotAvailableError",
    "ModelOutputError",
    "ModelRequest",
    "ModelResponse",
    "PayloadEvent",
    "RefusalEvent",
    "Reservation",
    "ScriptedModel",
    "ScriptedModelError",
    "ScriptedStep",
    "Session",
    "SessionError",
    "SessionNotCompleteError",
    "SessionResult",
    "SessionStore",
    "SlotgraphRuntimeError",
    "SlotsValidationError",
    "StateSnapshotEvent",
    "StoreConflictError",
    "TaskOutcome",
    "TextEvent",
    "Tool",
    "ToolCall",
    "ToolCallEvent",
    "ToolContext",
    "ToolDefinitionError",
    "ToolRegistry",
    "ToolResultEvent",
    "ToolResultMessage",
    "ToolSchema",
    "TopicEvent",
    "TransferEvent",
    "TurnResult",
    "TurnStep",
    "Usage",
    "UserMessage",
    "build_phase_suffix",
    "call",
    "estimate_prompt_tokens",
    "event_to_json",
    "inject_suffix",
    "load_tools_module",
    "readback_result",
    "resolve_model",
    "step_to_json",
    "tool_from_function",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from slotgraph.models.protocol import (
        AssistantText,
        AssistantToolCalls,
        Message,
        Model,
        ModelRequest,
        ModelResponse,
        ToolCall,
        ToolResultMessage,
        ToolSchema,
        Usage,
        UserMessage,
    )
    from slotgraph.models.scripted import ScriptedModel, ScriptedStep, call, estimate_prompt_tokens
    from slotgraph.runtime.agent import Agent
    from slotgraph.runtime.builtin_tools import readback_result
    from slotgraph.runtime.engine_port import DagEngine, Engine, EngineResult
    from slotgraph.runtime.errors import (
        AgentLoadError,
        ModelNotAvailableError,
        ModelOutputError,
        ScriptedModelError,
        SessionError,
        SessionNotCompleteError,
        SlotgraphRuntimeError,
        SlotsValidationError,
        ToolDefinitionError,
    )
    from slotgraph.runtime.events import (
        AgentTransferEvent,
        EndSessionEvent,
        ErrorEvent,
        Event,
        GuardEvent,
        ModelNoCallEvent,
        PayloadEvent,
        RefusalEvent,
        StateSnapshotEvent,
        TextEvent,
        ToolCallEvent,
        ToolResultEvent,
        TopicEvent,
        TransferEvent,
        TurnResult,
        TurnStep,
        event_to_json,
        step_to_json,
    )
    from slotgraph.runtime.instructions import SENTINEL, build_phase_suffix, inject_suffix
    from slotgraph.runtime.model_resolution import resolve_model
    from slotgraph.runtime.session import Session
    from slotgraph.runtime.tools import (
        Tool,
        ToolContext,
        ToolRegistry,
        load_tools_module,
        tool_from_function,
    )
    from slotgraph.runtime.turn_loop import DEFAULT_STEP_CAP, EventSink
    from slotgraph.runtime.typed_results import SessionResult, TaskOutcome
    from slotgraph.stores.errors import StoreConflictError
    from slotgraph.stores.ledger import ExecutionLedger, LedgerEntry, Reservation
    from slotgraph.stores.memory import InMemoryStore
    from slotgraph.stores.protocol import SessionStore


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'slotgraph.runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
