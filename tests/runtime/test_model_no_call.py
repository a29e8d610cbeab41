"""``model_no_call``: a model read the message, called nothing and said why: the author sees it."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from slotgraph.cli.chat import chat_command
from slotgraph.models.offline import OfflineModel
from slotgraph.runtime import ModelNoCallEvent, ModelRequest, ModelResponse, ToolCall, event_to_json

from .toy_agent import Backend, clock, toy_agent

AGENT_DIR = Path(__file__).parents[2] / "examples" / "bella_notte"


class _Explains:
    """A model that answers each user message with one fixed response."""

    def __init__(self, response: ModelResponse) -> None:
        self.response = response

    async def generate(self, request: ModelRequest) -> ModelResponse:
        return self.response


def test_a_model_that_says_why_it_called_nothing_produces_the_event() -> None:
    model = _Explains(ModelResponse(text="How many guests?", no_call_reason="asked for count: found none"))
    session = toy_agent(model, Backend()).session(clock=clock)
    result = session.send("I'd love to come by")
    events = [e for e in result.events if isinstance(e, ModelNoCallEvent)]
    assert events == [ModelNoCallEvent("asked for count: found none", "I'd love to come by")]
    assert event_to_json(events[0]) == {
        "kind": "model_no_call",
        "reason": "asked for count: found none",
        "text": "I'd love to come by",
    }
    assert session.state["filled"] == {}


def test_no_event_without_a_reason_or_when_tools_were_called() -> None:
    silent = toy_agent(_Explains(ModelResponse(text="How many guests?")), Backend()).session(clock=clock)
    assert not any(isinstance(e, ModelNoCallEvent) for e in silent.send("hello").events)
    calling = _Explains(
        ModelResponse(tool_calls=(ToolCall("c1", "set_num_guests", {"count": 2}),), no_call_reason="ignored")
    )
    busy = toy_agent(calling, Backend()).session(clock=clock)
    assert not any(isinstance(e, ModelNoCallEvent) for e in busy.send("two of us").events)


def test_the_offline_model_explains_an_answer_it_could_not_use() -> None:
    session = toy_agent(OfflineModel(clock=clock), Backend()).session(clock=clock)
    result = session.send("Thanks a lot")
    (event,) = [e for e in result.events if isinstance(e, ModelNoCallEvent)]
    assert event.text == "Thanks a lot"
    assert "num_guests" in event.reason or "count" in event.reason


def test_chat_shows_the_reason_with_show_state_only() -> None:
    app = typer.Typer()
    app.command()(chat_command)
    args = [str(AGENT_DIR), "--model", "offline"]
    shown = CliRunner().invoke(app, [*args, "--show-state"], input="what do you mean?\n")
    assert shown.exit_code == 0, shown.output
    assert "model made no call:" in shown.output
    hidden = CliRunner().invoke(app, args, input="what do you mean?\n")
    assert hidden.exit_code == 0, hidden.output
    assert "model made no call:" not in hidden.output
