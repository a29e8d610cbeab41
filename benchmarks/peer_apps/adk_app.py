"""The booking in Google ADK: an ``LlmAgent`` with function tools, run by a ``Runner`` over an in-memory
session service, one session per conversation (https://google.github.io/adk-docs/get-started/quickstart/,
.../runtime/)."""

from __future__ import annotations

import datetime

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import InMemoryRunner
from google.genai import types

from .booking import make_tools
from .shared import instructions


def build(model: BaseLlm | str, today: datetime.date) -> InMemoryRunner:
    agent = LlmAgent(
        name="bella_notte", model=model, instruction=instructions(today), tools=make_tools(today)
    )
    return InMemoryRunner(agent, app_name="bella_notte")


class Chat:
    def __init__(self, runner: InMemoryRunner, session_id: str) -> None:
        self.runner = runner
        self.session_id = session_id

    @classmethod
    async def start(cls, runner: InMemoryRunner) -> Chat:
        session = await runner.session_service.create_session(app_name="bella_notte", user_id="guest")
        return cls(runner, session.id)

    async def send(self, text: str) -> str:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        reply = ""
        async for event in self.runner.run_async(
            user_id="guest", session_id=self.session_id, new_message=message
        ):
            if event.is_final_response() and event.content and event.content.parts:
                reply = "".join(part.text or "" for part in event.content.parts)
        return reply
