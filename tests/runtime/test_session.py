"""Sessions: the sync facade, state copies, persistence only after a completed turn, stores, events."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.runtime import (
    Agent,
    InMemoryStore,
    ModelNotAvailableError,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ScriptedStep,
    SessionError,
    StoreConflictError,
    call,
    event_to_json,
)

from .toy_agent import Backend, clock, toy_agent, toy_dag


class ExplodingModel:
    async def generate(self, request: ModelRequest) -> ModelResponse:
        raise RuntimeError("model backend down")


def test_send_inside_a_running_loop_is_refused_with_a_hint() -> None:
    session = toy_agent(ScriptedModel([ScriptedStep(text="hi")]), Backend()).session(clock=clock)

    async def inside() -> str:
        with pytest.raises(SessionError, match=r"await session\.asend"):
            session.send("hello")
        return (await session.asend("hello")).text

    assert asyncio.run(inside()) == "hi"


def test_state_is_a_deep_copy() -> None:
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="ok")]
    )
    session = toy_agent(model, Backend()).session(clock=clock)
    session.send("Chen")
    state = session.state
    state["filled"]["name"] = "Mallory"
    assert session.state["filled"]["name"] == "Chen"


def test_a_crash_mid_turn_keeps_the_last_completed_state_and_history() -> None:
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="ok")]
    )
    agent = toy_agent(model, Backend())
    store = InMemoryStore()
    session = agent.session(session_id="s1", store=store, clock=clock)
    session.send("Chen")
    before_state, before_history = session.state, session.history
    crashing = agent.session(session_id="s1", store=store, clock=clock, model=ExplodingModel())
    with pytest.raises(RuntimeError, match="model backend down"):
        crashing.send("more")
    resumed = agent.session(
        session_id="s1", store=store, clock=clock, model=ScriptedModel([ScriptedStep(text="x")])
    )
    assert resumed.send("again").text == "x"
    assert resumed.turns == 2
    assert session.state == before_state and session.history == before_history


def test_a_session_resumes_from_its_store() -> None:
    store = InMemoryStore()
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="ok")]
    )
    agent = toy_agent(model, Backend())
    agent.session(session_id="abc", store=store, clock=clock).send("Chen")
    later = agent.session(
        session_id="abc", store=store, clock=clock, model=ScriptedModel([ScriptedStep(text="hi")])
    )
    later.send("hello")
    assert later.state["filled"]["name"] == "Chen"
    assert len(later.history) > 2


def test_store_conflicts_are_reported() -> None:
    store = InMemoryStore()
    asyncio.run(store.save("s", {"sm": {}}, 0))
    with pytest.raises(StoreConflictError, match="stored version is 1"):
        asyncio.run(store.save("s", {"sm": {}}, 0))


def test_an_ended_session_refuses_more_turns() -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(call("end_session", reason="done"),))])
    agent = Agent.from_config({"slots": [], "tasks": []}, tools=[], instruction="Chat.", model=model)
    session = agent.session(clock=clock)  # no flow: the model may end the session
    assert session.send("bye").ended
    with pytest.raises(SessionError, match="has ended"):
        session.send("hello?")


def test_an_event_turn_has_no_user_text() -> None:
    def no_user_text(request: ModelRequest) -> bool:
        last = request.messages[-1]
        return getattr(last, "text", None) == "" and getattr(last, "event", None) == "welcome"

    dag = toy_dag()
    dag["slots"][0]["source"] = ["event", "user"]
    model = ScriptedModel(
        [ScriptedStep(text="Welcome!", check=no_user_text, expect_hidden={"set_num_guests"})]
    )
    session = Agent.from_config(dag, tools=Backend().tools(), model=model).session(clock=clock)
    assert session.send_event("welcome", event_data={"num_guests": 4}).text == "Welcome!"
    assert session.state["filled"]["num_guests"] == 4  # pre-filled from the event data (§12.1)


def test_events_serialise_to_json_with_their_kind_first() -> None:
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="ok")]
    )
    result = toy_agent(model, Backend()).session(clock=clock).send("Chen")
    rows: list[dict[str, Any]] = [event_to_json(e) for e in result.events]
    assert [r["kind"] for r in rows] == ["tool_call", "tool_result", "state_snapshot", "text"]
    assert next(iter(rows[0])) == "kind"


def test_an_agent_without_a_model_says_how_to_give_one() -> None:
    built = Agent.from_config(toy_dag(), tools=Backend().tools())  # from_config defaults to offline
    agent = Agent(name="toy", dag=built.dag, tools=built.tools)  # constructed bare: no model at all
    with pytest.raises(ModelNotAvailableError, match="pass model="):
        agent.session()


def test_usage_is_summed_over_the_turns_model_calls() -> None:
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="ok")]
    )
    result = toy_agent(model, Backend()).session(clock=clock).send("Chen")
    assert result.model_calls == 2
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


def test_a_second_turn_while_one_runs_is_refused() -> None:
    class GatedModel:
        def __init__(self) -> None:
            self.entered = asyncio.Event()
            self.release = asyncio.Event()

        async def generate(self, request: ModelRequest) -> ModelResponse:
            self.entered.set()
            await self.release.wait()
            return ModelResponse(text="done")

    async def scenario() -> str:
        model = GatedModel()
        session = toy_agent(ScriptedModel([]), Backend()).session(clock=clock, model=model)
        first = asyncio.create_task(session.asend("one"))
        await model.entered.wait()
        with pytest.raises(SessionError, match="already running"):
            await session.asend("two")
        model.release.set()
        return (await first).text

    assert asyncio.run(scenario()) == "done"


def test_the_model_gets_the_session_clock_and_channel_in_its_request_metadata() -> None:
    """Backends such as the offline model resolve "tomorrow" against the session clock, not their own."""
    model = ScriptedModel([ScriptedStep(text="hi")])
    session = toy_agent(model, Backend()).session(clock=clock, channel="MOBILE")
    session.send("hello")
    metadata = model.requests[0].metadata
    assert metadata["now"] == clock()
    assert metadata["channel"] == "MOBILE"
    assert metadata["session_id"] == session.id


def test_on_event_receives_each_event_as_it_happens_and_in_the_turns_order() -> None:
    """A sink sees every event before the turn ends (streaming), the same events the TurnResult lists."""
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="Noted.")]
    )
    session = toy_agent(model, Backend()).session(clock=clock)
    seen: list[tuple[str, int]] = []

    async def sink(event: Any) -> None:
        # The turn has not finished yet: the session has not counted it.
        seen.append((event.kind, session.turns))

    result = asyncio.run(session.asend("Chen", on_event=sink))
    assert [kind for kind, _ in seen] == [e.kind for e in result.events]
    assert {turns for _, turns in seen} == {0} and session.turns == 1
    assert [kind for kind, _ in seen][:3] == ["tool_call", "tool_result", "state_snapshot"]


def test_a_debug_session_keeps_the_engines_log_of_each_turn() -> None:
    steps = [ScriptedStep(text="How many guests?"), ScriptedStep(text="How many guests?")]
    debug = toy_agent(ScriptedModel(steps[:1]), Backend()).session(clock=clock, debug=True)
    log = debug.send("hi").debug_log
    assert [e["tag"] for e in log][-1] == "invoke"
    assert log[-1]["n"] == 1 and log[-1]["asking"] == "How many guests?"
    quiet = toy_agent(ScriptedModel(steps[1:]), Backend()).session(clock=clock)
    assert quiet.send("hi").debug_log == ()
