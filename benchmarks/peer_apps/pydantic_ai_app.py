"""The booking in pydantic-ai: an ``Agent`` with instructions and plain tools; the conversation goes on
with ``message_history`` (https://ai.pydantic.dev/message-history/)."""

from __future__ import annotations

import datetime

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model

from .booking import make_tools
from .shared import instructions


def build(model: Model | str, today: datetime.date) -> Agent[None, str]:
    return Agent(model, instructions=instructions(today), tools=make_tools(today))


class Chat:
    def __init__(self, agent: Agent[None, str]) -> None:
        self.agent = agent
        self.history: list[ModelMessage] = []

    async def send(self, text: str) -> str:
        result = await self.agent.run(text, message_history=self.history)
        self.history = result.all_messages()
        return result.output
