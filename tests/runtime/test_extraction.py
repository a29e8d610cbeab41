"""Background extraction: variables declared ``extraction: true`` are filled from the caller's messages by an
extractor tool beside the conversation; a gated tool that binds one waits (bounded) for the latest
extraction, and a timeout or a failure refuses the call instead of using an older value."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.runtime import Agent, AgentLoadError, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent, ToolResultEvent
from slotgraph.stores.memory import InMemoryStore

DAG: dict[str, Any] = {
    "slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"}],
    "tasks": [],
}
VARIABLES = [
    {"name": "account", "type": "string", "description": "The caller's account number.", "extraction": True},
    {"name": "note", "type": "string", "description": "Anything else."},
]
TOOL_LOGIC = {
    "close_account": {
        "available_when": "account != None",
        "bind": {"account": {"kind": "variable", "name": "account"}},
    }
}


class Extractor:
    """An extractor whose answers the test releases one by one (or fails)."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.fields: list[dict[str, str]] = []
        self.gate: asyncio.Event | None = None
        self.fail = False
        self.closed: list[str] = []
        self.extracting: asyncio.Event | None = None

    def tools(self) -> list[Any]:
        def set_topic(topic: str) -> dict[str, Any]:
            """Record the topic.

            Args:
                topic: The topic.
            """
            return {"value": topic}

        async def extract(message: str, fields: dict[str, str]) -> dict[str, Any]:
            """Extract the caller's details.

            Args:
                message: What the caller said.
                fields: The details to look for.
            """
            self.messages.append(message)
            self.fields.append(fields)
            if self.extracting is not None:
                self.extracting.set()
            if self.gate is not None:
                await self.gate.wait()
            if self.fail:
                raise ConnectionError("the extraction model is down")
            words = [w for w in message.split() if w.startswith("ACC-")]
            return {"account": words[-1] if words else None, "unknown": 1}

        def close_account(account: str) -> dict[str, Any]:
            """Close an account.

            Args:
                account: The account.
            """
            self.closed.append(account)
            return {"closed": account}

        return [set_topic, extract, close_account]


def _agent(extractor: Extractor, steps: list[ScriptedStep], wait: float = 2.0) -> Agent:
    return Agent.from_config(
        DAG,
        tools=extractor.tools(),
        model=ScriptedModel(steps),
        variables=VARIABLES,
        tool_logic=TOOL_LOGIC,
        extraction={"tool": "extract", "wait_seconds": wait},
    )


def _refusals(result: Any) -> list[RefusalEvent]:
    return [e for e in result.events if isinstance(e, RefusalEvent)]


def test_a_gate_binding_an_extracted_variable_waits_for_the_latest_extraction() -> None:
    extractor = Extractor()
    steps = [ScriptedStep(tool_calls=(call("close_account"),)), ScriptedStep(text="Closed.")]
    session = _agent(extractor, steps).session()
    result = session.send("please close ACC-7")
    assert not _refusals(result)
    assert extractor.closed == ["ACC-7"]
    assert extractor.fields == [{"account": "The caller's account number."}]
    assert session.variables["account"] == "ACC-7"


def test_a_correction_replaces_the_older_value_before_the_write() -> None:
    async def scenario() -> tuple[Extractor, Any]:
        extractor = Extractor()
        steps = [
            ScriptedStep(text="Noted."),
            ScriptedStep(tool_calls=(call("close_account"),)),
            ScriptedStep(text="Closed."),
        ]
        session = _agent(extractor, steps).session(store=InMemoryStore(), session_id="s")
        await session.asend("my account is ACC-1")
        extractor.gate, extractor.extracting = asyncio.Event(), asyncio.Event()
        turn = asyncio.create_task(session.asend("sorry, it is ACC-2 — close it"))
        await extractor.extracting.wait()  # the correction's extraction has started and is held
        extractor.gate.set()
        return extractor, await turn

    extractor, result = asyncio.run(scenario())
    assert not _refusals(result)
    assert extractor.closed == ["ACC-2"]


def test_an_extraction_still_running_at_the_deadline_refuses_the_call_and_keeps_running() -> None:
    async def scenario() -> tuple[Extractor, Any, Any]:
        extractor = Extractor()
        extractor.gate = asyncio.Event()
        steps = [
            ScriptedStep(tool_calls=(call("close_account"),)),
            ScriptedStep(text="One moment."),
            ScriptedStep(tool_calls=(call("close_account"),)),
            ScriptedStep(text="Closed."),
        ]
        session = _agent(extractor, steps, wait=0.05).session(store=InMemoryStore(), session_id="s")
        first = await session.asend("close ACC-9")
        extractor.gate.set()  # the extraction finishes after the turn: it was kept, not cancelled
        second = await session.asend("is it done?")
        return extractor, first, second

    extractor, first, second = asyncio.run(scenario())
    [refusal] = _refusals(first)
    assert (refusal.refused, refusal.by) == ("extraction_pending", "gate")
    assert "still being read" in refusal.message
    assert not _refusals(second)
    assert extractor.closed == ["ACC-9"]


def test_a_failed_extraction_refuses_instead_of_using_the_older_value() -> None:
    extractor = Extractor()
    steps = [
        ScriptedStep(text="Noted."),
        ScriptedStep(tool_calls=(call("close_account"),)),
        ScriptedStep(text="Sorry."),
    ]
    session = _agent(extractor, steps).session()
    session.send("my account is ACC-1")
    extractor.fail = True
    result = session.send("no wait, ACC-2; close it")
    [refusal] = _refusals(result)
    assert refusal.refused == "extraction_pending" and "ConnectionError" in refusal.message
    assert extractor.closed == []
    assert session.variables["account"] == "ACC-1"


def test_a_tool_that_binds_no_extracted_variable_does_not_wait() -> None:
    extractor = Extractor()
    extractor.fail = True
    steps = [ScriptedStep(tool_calls=(call("set_topic", topic="billing"),)), ScriptedStep(text="ok")]
    result = _agent(extractor, steps).session().send("billing ACC-3")
    assert not _refusals(result)
    assert next(e.result for e in result.events if isinstance(e, ToolResultEvent)) == {"value": "billing"}


def test_extraction_needs_an_extractor_with_a_message_parameter() -> None:
    with pytest.raises(AgentLoadError, match="names no extractor"):
        Agent.from_config(DAG, tools=Extractor().tools(), variables=VARIABLES)
    with pytest.raises(AgentLoadError, match="has no 'message' parameter"):
        Agent.from_config(
            DAG, tools=Extractor().tools(), variables=VARIABLES, extraction={"tool": "close_account"}
        )
    with pytest.raises(AgentLoadError, match="linked variable is read-only"):
        Agent.from_config(
            DAG,
            tools=Extractor().tools(),
            variables=[{**VARIABLES[0], "linked_to": "channel"}],
            extraction={"tool": "extract"},
        )


def test_a_message_left_unread_is_read_again_by_the_next_session_object() -> None:
    store = InMemoryStore()
    extractor = Extractor()
    extractor.fail = True
    _agent(extractor, [ScriptedStep(text="Noted.")]).session(session_id="s", store=store).send("ACC-5 please")
    record = asyncio.run(store.load("s"))
    assert record is not None and record[0]["logic"]["unextracted"] == ["ACC-5 please"]
    extractor.fail = False
    steps = [ScriptedStep(tool_calls=(call("close_account"),)), ScriptedStep(text="Closed.")]
    again = _agent(extractor, steps).session(session_id="s", store=store)  # another worker's object
    result = again.send("close it")
    assert not _refusals(result)
    assert extractor.messages[-1] == "ACC-5 please\nclose it"
    assert extractor.closed == ["ACC-5"]
    saved = asyncio.run(store.load("s"))
    assert saved is not None and "unextracted" not in saved[0]["logic"]


def test_a_synchronous_send_keeps_an_extraction_that_outlives_its_turn() -> None:
    """``session.send`` returns while the extraction it started still runs: the extraction is kept (the
    facade's loop goes on running it), so the next turn's gate gets its value and the message is read once,
    not again with the next one."""
    import threading

    release = threading.Event()
    messages: list[str] = []
    closed: list[str] = []

    def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic."""
        return {"value": topic}

    def extract(message: str) -> dict[str, Any]:
        """Extract the caller's details (a synchronous tool: it runs on the tool threads)."""
        messages.append(message)
        release.wait(timeout=30)
        words = [w for w in message.split() if w.startswith("ACC-")]
        return {"account": words[-1] if words else None}

    def close_account(account: str) -> dict[str, Any]:
        """Close an account."""
        closed.append(account)
        return {"closed": account}

    steps = [
        ScriptedStep(text="Noted."),
        ScriptedStep(tool_calls=(call("close_account"),)),
        ScriptedStep(text="Closed."),
    ]
    agent = Agent.from_config(
        DAG,
        tools=[set_topic, extract, close_account],
        model=ScriptedModel(steps),
        variables=VARIABLES,
        tool_logic=TOOL_LOGIC,
        extraction={"tool": "extract", "wait_seconds": 10},
    )
    session = agent.session()
    session.send("my account is ACC-4")  # returns with the extraction still held
    release.set()
    result = session.send("close it")
    assert not _refusals(result)
    assert closed == ["ACC-4"]
    assert messages == ["my account is ACC-4", "close it"]  # kept: never read again
