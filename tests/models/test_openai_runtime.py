"""Whole turns through ``Agent``/``Session`` with ``OpenAIChatModel`` against a loopback server.

The server replies with what an LLM would say or call; the runtime, the engine and the tools are real.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from slotgraph.models.openai import OpenAIChatModel
from slotgraph.runtime import Agent, RefusalEvent, Session

from .loopback import LoopbackServer
from .openai_bodies import completion, tool_call

AGENT_DIR = Path(__file__).parents[2] / "examples" / "bella_notte"
NOW = datetime.datetime(2026, 7, 10, 12, 0)
TIMES = "17:30, 18:00, 18:30, 19:00, 19:30, 20:00, 21:00"


async def _no_sleep(delay: float) -> None:
    raise AssertionError(f"unexpected retry (backoff {delay}s): the server answered an error")


def _session(server: LoopbackServer) -> Session:
    model = OpenAIChatModel("test-model", base_url=f"{server.url}/v1", sleep=_no_sleep)
    return Agent.load(AGENT_DIR, model=model).session(clock=lambda: NOW, seed=0)


def _tools(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools", [])}


def _system(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def test_malformed_tool_call_json_is_refused_and_the_model_recovers(server: LoopbackServer) -> None:
    broken = '{"party_size": 4, "preferred_date": "2026-07-17"'
    server.queue_json(
        completion("Welcome to Bella Notte! How many guests will be joining us?"),
        completion(None, [tool_call("set_reservation_basics", broken, "call_bad")]),
        completion(
            None,
            [
                tool_call(
                    "set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}, "call_ok"
                )
            ],
        ),
        completion("Just to confirm: 4 guests on July 17th?"),
    )
    session = _session(server)
    session.send("Hi")
    result = session.send("A table for 4 on July 17th")

    (refusal,) = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert refusal.refused == "bad_arguments" and refusal.call_id == "call_bad"
    assert "arguments were not valid JSON (Expecting" in refusal.message
    assert result.refusals == 1 and result.model_calls == 3
    assert session.state["pending"] == {"party_size": 4, "preferred_date": "2026-07-17"}
    assert result.text == "Just to confirm: 4 guests on July 17th?"

    # The model's next request carried the refusal as the result of its broken call.
    retry_body = server.requests[2].body
    tool_message = retry_body["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_bad"
    content = json.loads(tool_message["content"])
    assert content["refused"] == "bad_arguments" and "arguments were not valid JSON" in content["message"]
    assert retry_body["messages"][-2]["tool_calls"][0]["id"] == "call_bad"


def test_arguments_nested_a_hundred_thousand_levels_deep_are_refused_not_a_crash(
    server: LoopbackServer,
) -> None:
    """A model sending ``{"a": {"a": ...}}`` 100,000 levels deep used to raise RecursionError (a 500 from the
    service); deeper than 64 levels, as any value from outside, it is a refusal the model reads."""
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    nested = "{" + '"party_size": 4, "x": ' + "[" * 70 + "]" * 70 + "}"
    server.queue_json(
        completion("Welcome to Bella Notte! How many guests will be joining us?"),
        completion(None, [tool_call("set_reservation_basics", deep, "call_deep")]),
        completion(None, [tool_call("set_reservation_basics", nested, "call_nested")]),
        completion("How many guests, and which day?"),
    )
    session = _session(server)
    session.send("Hi")
    result = session.send("A table for 4")
    refusals = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert [(r.call_id, r.refused) for r in refusals] == [
        ("call_deep", "bad_arguments"),
        ("call_nested", "bad_arguments"),
    ]
    assert all("nested more than 64 levels deep" in r.message for r in refusals)
    assert result.text == "How many guests, and which day?"


def test_a_full_bella_notte_booking(server: LoopbackServer) -> None:
    server.queue_json(
        completion("Welcome to Bella Notte! How many guests will be joining us?"),
        completion(
            None, [tool_call("set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"})]
        ),
        completion("Just to confirm: 4 guests on July 17th?"),
        completion(None, [tool_call("set_selected_time", {"time": "19:30"})]),
        completion("7:30 PM — is that right?"),
        completion(None, [tool_call("set_guest_info", {"guest_name": "Chen"})]),
        completion("Any special requests or dietary needs?"),
        completion(None, [tool_call("set_guest_info", {"special_requests": "None"})]),
        completion(
            "Let me confirm: under the name Chen, no special requests. Correct?", prompt=100, completion=9
        ),
    )
    session = _session(server)
    assert session.send("Hi").text == "Welcome to Bella Notte! How many guests will be joining us?"
    session.send("A table for 4 on July 17th")
    assert session.state["pending"] == {"party_size": 4, "preferred_date": "2026-07-17"}
    times = session.send("Yes")
    assert times.preempted and times.text == f"We have {TIMES}. Which time works best for you?"
    session.send("Half past seven")
    assert session.send("yes").text == "Perfect! What name should I put the reservation under?"
    assert session.send("Chen").text == "Any special requests or dietary needs?"
    assert session.state["deferred"] == {"guest_name": "Chen"}
    last = session.send("No, nothing")
    assert session.state["pending"] == {"guest_name": "Chen", "special_requests": "None"}
    assert last.usage.prompt_tokens >= 100 and last.usage.completion_tokens >= 9
    booked = session.send("Yes")
    assert booked.preempted and [e.name for e in booked.tool_calls] == ["confirm_pending", "book_reservation"]
    number = session.state["filled"]["confirmation_number"]
    assert booked.text == f"Your reservation is confirmed! Your confirmation number is {number}."
    assert session.status == "complete"
    assert session.state["filled"] | {"confirmation_number": "x"} == {
        "welcome": True,
        "party_size": 4,
        "preferred_date": "2026-07-17",
        "available_times": TIMES,
        "selected_time": "19:30",
        "guest_name": "Chen",
        "special_requests": "None",
        "confirmation_number": "x",
    }
    assert server.pending == 0 and len(server.requests) == 9

    bodies = server.bodies
    assert "Party size / number of guests → set_reservation_basics" in _system(bodies[1])
    assert "set_reservation_basics" in _tools(bodies[1])
    # During the readback the model saw neither the readback tools nor the executor.
    assert not {"confirm_pending", "reject_pending", "find_available_times"} & _tools(bodies[2])
    assert "Just to confirm — 4 guests, on July 17th. Is that correct?" in _system(bodies[2])
    # The setter's tool result went back to the model with its call id.
    call_id = bodies[2]["messages"][-2]["tool_calls"][0]["id"]
    assert bodies[2]["messages"][-1]["tool_call_id"] == call_id
