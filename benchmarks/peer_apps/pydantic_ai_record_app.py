"""The booking in pydantic-ai, record design: the details live in the run's dependencies, which the tools
receive as ``RunContext`` (https://ai.pydantic.dev/dependencies/); the conversation as in
:mod:`.pydantic_ai_app`, its details handed to every run."""

from __future__ import annotations

import datetime
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model

from . import recorded
from .shared import end_session, instructions

Details = dict[str, Any]


def build(model: Model | str, today: datetime.date) -> Agent[Details, str]:
    def record_details(
        ctx: RunContext[Details],
        party_size: int | None = None,
        preferred_date: str | None = None,
        selected_time: str | None = None,
        guest_name: str | None = None,
        special_requests: str | None = None,
        large_party_phone: str | None = None,
    ) -> dict[str, Any]:
        return recorded.record(
            ctx.deps,
            today,
            party_size=party_size,
            preferred_date=preferred_date,
            selected_time=selected_time,
            guest_name=guest_name,
            special_requests=special_requests,
            large_party_phone=large_party_phone,
        )

    def find_available_times(ctx: RunContext[Details]) -> dict[str, Any]:
        return recorded.find_times(ctx.deps)

    def book_reservation(ctx: RunContext[Details]) -> dict[str, Any]:
        return recorded.book(ctx.deps)

    record_details.__doc__, find_available_times.__doc__ = recorded.RECORD_DOC, recorded.FIND_DOC
    book_reservation.__doc__ = recorded.BOOK_DOC
    return Agent(
        model,
        deps_type=Details,
        instructions=instructions(today, "record"),
        tools=[record_details, find_available_times, book_reservation, end_session],
    )


class Chat:
    def __init__(self, agent: Agent[Details, str]) -> None:
        self.agent = agent
        self.history: list[ModelMessage] = []
        self.details: Details = {}

    async def send(self, text: str) -> str:
        result = await self.agent.run(text, message_history=self.history, deps=self.details)
        self.history = result.all_messages()
        return result.output
