"""ScriptedModel fails loudly: unexpected calls, unconsumed steps, unmet expectations."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from slotgraph.runtime import (
    ModelNotAvailableError,
    ModelRequest,
    ScriptedModel,
    ScriptedModelError,
    ScriptedStep,
    ToolSchema,
    UserMessage,
    call,
    resolve_model,
)

REQUEST = ModelRequest(
    system_instruction="Be kind.",
    messages=(UserMessage("hi"),),
    tools=(ToolSchema("set_name", "Record the name.", {"type": "object", "properties": {}}),),
)


def test_plays_steps_in_order_and_assigns_call_ids() -> None:
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="Hi!")]
    )
    first = asyncio.run(model.generate(REQUEST))
    assert first.tool_calls[0].name == "set_name" and first.tool_calls[0].id
    assert first.usage.prompt_tokens > 0
    assert asyncio.run(model.generate(REQUEST)).text == "Hi!"
    model.assert_complete()


def test_an_unexpected_call_shows_the_request() -> None:
    model = ScriptedModel([])
    with pytest.raises(ScriptedModelError, match=r"unexpected model call #1(.|\n)*user: 'hi'"):
        asyncio.run(model.generate(REQUEST))


@pytest.mark.scripted_leftover("the test is about an unplayed step")
def test_unconsumed_steps_fail() -> None:
    model = ScriptedModel([ScriptedStep(text="never", label="greeting")])
    with pytest.raises(ScriptedModelError, match=r"1 step\(s\) not consumed: \['greeting'\]"):
        model.assert_complete()


def test_expectations_on_the_request() -> None:
    with pytest.raises(ScriptedModelError, match=r"missing \['confirm_pending'\], extra \['set_name'\]"):
        asyncio.run(ScriptedModel([ScriptedStep(expect_tools={"confirm_pending"})]).generate(REQUEST))
    with pytest.raises(ScriptedModelError, match="should be hidden"):
        asyncio.run(ScriptedModel([ScriptedStep(expect_hidden={"set_name"})]).generate(REQUEST))
    with pytest.raises(ScriptedModelError, match="lacks 'readback'"):
        asyncio.run(ScriptedModel([ScriptedStep(expect_in_instruction=["readback"])]).generate(REQUEST))
    with pytest.raises(ScriptedModelError, match="check returned False"):
        asyncio.run(ScriptedModel([ScriptedStep(check=lambda r: False)]).generate(REQUEST))


@pytest.mark.scripted_leftover("the script is only loaded, never played")
def test_scripted_model_from_a_json_file(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([{"tool_calls": [{"name": "set_name", "args": {"name": "A"}}]}, {"text": "ok"}])
    )
    model = resolve_model(f"scripted:{script}")
    assert isinstance(model, ScriptedModel) and model.remaining == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"txt": "typo"}]))
    with pytest.raises(ModelNotAvailableError, match=r"unknown keys \['txt'\]"):
        resolve_model(f"scripted:{bad}")


def test_unbuildable_model_specs_say_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelNotAvailableError, match="needs an API key: set OPENAI_API_KEY"):
        resolve_model("openai:gpt-4o")
    with pytest.raises(ModelNotAvailableError, match="Did you mean 'openai'"):
        resolve_model("opnai:gpt-4o")
