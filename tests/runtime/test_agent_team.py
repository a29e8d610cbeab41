"""Multi-agent sessions: a tool result's target_agent hands the conversation over within the turn (a typed
AgentTransferEvent), the target plays the same user message, every agent's DAG keeps its state while the
conversation is elsewhere, a platform bootstrap tool's value opens the target's gate, bounces are bounded,
and a malformed stored multi-agent part is refused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.apps import Member, build_app
from slotgraph.models.protocol import ModelRequest, UserMessage
from slotgraph.runtime import Agent, AgentTransferEvent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import ErrorEvent, event_to_json
from slotgraph.stores.errors import StorePayloadError
from slotgraph.stores.memory import InMemoryStore

from .toy_agent import clock

COUNT_DAG = {"slots": [{"name": "count", "source": "user", "setter": "set_count", "ask": "How many?"}]}
NAME_DAG = {"slots": [{"name": "name", "source": "user", "setter": "set_name", "ask": "Which name?"}]}


def set_count(count: int) -> dict[str, Any]:
    """Record the count."""
    return {"stored": True, "value": count}


def set_name(name: str) -> dict[str, Any]:
    """Record the name."""
    return {"stored": True, "value": name}


def _app(model: ScriptedModel) -> Agent:
    host = Agent.from_config({"slots": [], "tasks": []}, name="host", model=model)
    counter = Agent.from_config(COUNT_DAG, tools=[set_count], name="counter", model=model)
    namer = Agent.from_config(NAME_DAG, tools=[set_name], name="namer", model=model)
    return build_app(
        "team",
        "host",
        [
            Member(host, handoffs=("counter", "namer")),
            Member(counter, "Counts things.", handoffs=("namer",)),
            Member(namer, "Names things.", handoffs=("counter",)),
        ],
    )


def test_a_transfer_hands_the_same_message_to_the_target_within_the_turn() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(call("transfer_to_agent", agent="counter"),),
                check=lambda r: "transfer_to_agent" in r.tool_names,
            ),
            ScriptedStep(
                tool_calls=(call("set_count", count=3),),
                check=lambda r: (
                    isinstance(r.messages[-1], type(r.messages[-1])) and "set_count" in r.tool_names
                ),
            ),
            ScriptedStep(text="Three it is."),
        ]
    )
    session = _app(model).session(clock=clock)
    streamed: list[Any] = []

    async def sink(event: Any) -> None:
        streamed.append(event)

    result = asyncio.run(session.asend("three please", on_event=sink))
    transfers = [e for e in result.events if isinstance(e, AgentTransferEvent)]
    assert event_to_json(transfers[0]) == {
        "kind": "agent_transfer",
        "from_agent": "host",
        "to_agent": "counter",
        "tool": "transfer_to_agent",
    }
    assert transfers[0] in streamed  # the SSE stream sees it as it happens
    assert result.agent == "counter" and session.active_agent == "counter"
    assert result.state["filled"] == {"count": 3}
    assert [s.index for s in result.steps] == list(range(1, len(result.steps) + 1))
    users = [m for m in session.history if isinstance(m, UserMessage)]
    assert [u.text for u in users] == ["three please"]  # the target read it; it was not added twice
    model.assert_complete()


def test_each_agents_state_is_kept_when_the_conversation_switches_away_and_back() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),)),
            ScriptedStep(tool_calls=(call("set_count", count=3),)),
            ScriptedStep(text="Noted."),
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="namer"),)),
            ScriptedStep(text="Which name?"),
            ScriptedStep(tool_calls=(call("set_name", name="Ada"),)),
            ScriptedStep(text="Ada it is."),
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),)),
            ScriptedStep(text="Still three.", expect_hidden=("set_name",)),
        ]
    )
    store = InMemoryStore()
    root = _app(model)
    session = root.session(session_id="s", store=store, clock=clock)
    session.send("three")
    session.send("let's name it")
    again = root.session(session_id="s", store=store, clock=clock)  # a new object on the same store
    again.send("Ada")
    result = again.send("back to counting")
    assert result.agent == "counter" and result.state["filled"] == {"count": 3}
    states = again.agent_states
    assert states["namer"]["filled"] == {"name": "Ada"} and set(states) == {"host", "counter", "namer"}
    model.assert_complete()


def test_bouncing_between_agents_is_bounded_with_an_error_event() -> None:
    steps = [
        ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),)),
        *[
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent=target),))
            for target in ("namer", "counter", "namer")
        ],
    ]
    model = ScriptedModel(steps)
    session = _app(model).session(clock=clock)
    result = session.send("go")
    errors = [e for e in result.events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["transfer_loop"]
    assert len([e for e in result.events if isinstance(e, AgentTransferEvent)]) == 4
    assert result.agent == "counter"  # the fourth transfer was not followed; the turn was saved
    model.assert_complete()


BOOT_DAG = {
    "gate_slot": "desk",
    "bootstrap": {"tool": "pick_desk", "slot": "desk"},
    "slots": COUNT_DAG["slots"],
}


def pick_desk(desk: str) -> dict[str, Any]:
    """Route to a desk."""
    return {"stored": True, "value": desk, "target_agent": "counter"}


def test_a_bootstrap_tool_of_another_agent_opens_the_targets_gate() -> None:
    """CONFIG_KEYS: the gate value is written by another agent's tool (the host's routing tool)."""
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("pick_desk", desk="counting"),)),
            ScriptedStep(text="How many?", check=lambda r: "set_count" in r.tool_names),
        ]
    )
    host = Agent.from_config({"slots": [], "tasks": []}, tools=[pick_desk], name="host", model=model)
    counter = Agent.from_config(BOOT_DAG, tools=[set_count, pick_desk], name="counter", model=model)
    root = build_app("boot", "host", [Member(host), Member(counter)])
    result = root.session(clock=clock).send("I need to count")
    assert result.agent == "counter"
    assert result.state["filled"]["desk"] == "counting"
    assert "_pending_transfer" not in result.state
    model.assert_complete()


def test_the_words_that_caused_the_hand_over_reach_the_targets_model_as_user_context() -> None:
    """FORMAT.md's transfer: the target's first engine run hands the model the user's original words in a
    <user_context> block, so one message routes *and* fills; later calls and turns do not repeat it."""

    def no_context(request: ModelRequest) -> bool:
        return "<user_context>" not in request.system_instruction

    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("pick_desk", desk="counting"),), check=no_context),
            ScriptedStep(
                tool_calls=(call("set_count", count=3),),
                expect_in_instruction=("<user_context>", "three of them, at the counting desk"),
            ),
            ScriptedStep(text="Three it is.", check=no_context),
            ScriptedStep(text="Anything else?", check=no_context),
        ]
    )
    host = Agent.from_config({"slots": [], "tasks": []}, tools=[pick_desk], name="host", model=model)
    counter = Agent.from_config(BOOT_DAG, tools=[set_count, pick_desk], name="counter", model=model)
    session = build_app("boot", "host", [Member(host), Member(counter)]).session(clock=clock)
    result = session.send("three of them, at the counting desk")
    assert result.agent == "counter" and result.state["filled"]["count"] == 3
    assert "_gate_user_text" not in result.state  # handed over once, not kept
    session.send("thanks")
    model.assert_complete()


def test_an_event_turn_hands_over_without_user_context() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("pick_desk", desk="counting"),)),
            ScriptedStep(text="How many?", check=lambda r: "<user_context>" not in r.system_instruction),
        ]
    )
    host = Agent.from_config({"slots": [], "tasks": []}, tools=[pick_desk], name="host", model=model)
    counter = Agent.from_config(BOOT_DAG, tools=[set_count, pick_desk], name="counter", model=model)
    session = build_app("boot", "host", [Member(host), Member(counter)]).session(clock=clock)
    result = session.send_event("welcome")
    assert result.agent == "counter"
    model.assert_complete()


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ({"agent": "nobody"}, "not an agent of the app"),
        ({"agent": "counter", "agents": {"ghost": {"sm": {}}}}, "'ghost'"),
        ({"agent": "counter", "agents": {"host": {"sm": []}}}, "'agents.host'"),
    ],
)
def test_a_malformed_stored_multi_agent_part_is_refused(part: dict[str, Any], message: str) -> None:
    store = InMemoryStore()
    asyncio.run(store.save("s", {"sm": {}, "history": [], "ended": False, "turns": 1, **part}, 0))
    session = _app(ScriptedModel([])).session(session_id="s", store=store, clock=clock)
    with pytest.raises(StorePayloadError, match=message):
        session.send("hi")
